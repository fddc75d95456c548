"""`MdsClient`: one method per `/v1` operation of the API's OpenAPI document.

The standard library only (urllib.request, json, csv). Methods are named after
the operationIds in snake case and return the API's JSON `{ data, meta }` as
the TypedDicts of `mds_client.schemas`. 429 and 503 are retried after
`Retry-After`, within `max_attempts` and `max_wait` (docs/decisions.md 61);
every other non-2xx answer raises `MdsApiError` at once.
"""

import csv
import io
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import date, datetime, timezone
from decimal import Decimal
from email.message import Message
from email.utils import parsedate_to_datetime
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union, cast

from .errors import MdsApiError
from .schemas import (
    GoldInterval,
    GoldIntervalsResponse,
    Interval,
    PremiumInterval,
    PremiumIntervalsResponse,
    RateInterval,
    RatesIntervalsResponse,
    AssetsResponse,
    AssetType,
    ConvertResponse,
    CsvRow,
    GoldHistoryResponse,
    GoldLatestResponse,
    GoldRecord,
    RateHistoryRecord,
    MarketPremiumHistoryResponse,
    MarketPremiumResponse,
    DailyUsageResponse,
    MeResponse,
    PremiumHistoryItem,
    RatesHistoryResponse,
    RatesLatestResponse,
    Source,
)

__version__ = "1.0.0"

DateLike = Union[str, date]
"""`YYYY-MM-DD`, or a `datetime.date`."""
InstantLike = Union[str, datetime]
"""An ISO 8601 timestamp with a zone (`2026-11-23T08:00:00Z`), or an aware `datetime.datetime`."""
Currencies = Union[str, Sequence[str]]
"""`"EUR,USD"`, as on the wire, or `["EUR", "USD"]`."""
QueryValue = Union[str, int, date, Sequence[str], None]

RETRY_STATUSES = frozenset({429, 503})
BASE_BACKOFF = 0.5
"""Seconds before the first retry of a 429/503 without Retry-After; doubled each time."""


def parse_csv(text: str) -> List[CsvRow]:
    """The records of a CSV answer as dicts keyed by the header row (values stay text)."""
    return list(csv.DictReader(io.StringIO(text, newline="")))


def _retry_after(value: Optional[str]) -> Optional[float]:
    """Seconds from a Retry-After header: delta-seconds, or an HTTP date."""
    if value is None:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _instant(value: Optional[InstantLike]) -> Optional[str]:
    """`at` as the API reads it: UTC, milliseconds at most; a naive datetime names no instant."""
    if value is None or isinstance(value, str):
        return value
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError("at: a datetime needs a time zone (datetime.now(timezone.utc), say)")
    return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _query_string(query: Mapping[str, QueryValue]) -> str:
    params: List[Tuple[str, str]] = []
    for name, value in query.items():
        if value is None:
            continue
        if isinstance(value, date):
            text = value.isoformat()
        elif isinstance(value, (str, int)):
            text = str(value)
        else:
            text = ",".join(value)
        params.append((name, text))
    return "?" + urllib.parse.urlencode(params) if params else ""


def _error_from(status: int, headers: Message, body: bytes) -> MdsApiError:
    """The MdsApiError of a non-2xx answer: its envelope's fields, or `unexpected_response`."""
    retry_after = _retry_after(headers.get("retry-after"))
    header_id = headers.get("x-request-id")
    try:
        parsed: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        parsed = None
    error = parsed.get("error") if isinstance(parsed, dict) else None
    if not isinstance(error, dict) or not isinstance(error.get("code"), str):
        return _unexpected(status, headers, "JSON envelope")
    meta = parsed.get("meta")
    request_id = meta.get("requestId") if isinstance(meta, dict) else None
    return MdsApiError(
        status,
        error["code"],
        str(error.get("message", "")),
        request_id if isinstance(request_id, str) else header_id,
        error.get("details"),
        retry_after,
    )


def _unexpected(status: int, headers: Message, expected: str) -> MdsApiError:
    return MdsApiError(
        status,
        "unexpected_response",
        f"Unexpected {status} answer: not the API's {expected}.",
        headers.get("x-request-id"),
        None,
        _retry_after(headers.get("retry-after")),
    )


class MdsClient:
    """A client of the Market Data Service API.

    `base_url` and `api_key` default to the environment variables
    `MDS_BASE_URL` (where the API is served, e.g. `http://127.0.0.1:8080`; a
    path prefix is kept) and `MDS_API_KEY`. A 429 or 503 is retried after its
    `Retry-After` (without one: 0.5 s, 1 s, 2 s…), at most `max_attempts`
    requests in all and `max_wait` seconds of waiting in all for one call; a
    wait that would pass `max_wait` is not started: the error is raised at once
    with `retry_after` set. `timeout` is urllib's, per request, in seconds.
    """

    base_url: str
    max_attempts: int
    max_wait: float
    timeout: float

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        max_attempts: int = 4,
        max_wait: float = 60.0,
        timeout: float = 30.0,
    ) -> None:
        url = (base_url if base_url is not None else os.environ.get("MDS_BASE_URL", "")).strip()
        key = (api_key if api_key is not None else os.environ.get("MDS_API_KEY", "")).strip()
        if not url:
            raise ValueError(
                "MdsClient: no base URL: pass base_url or set MDS_BASE_URL to where the API is served "
                "(e.g. http://127.0.0.1:8080)"
            )
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"MdsClient: base URL {url!r} is not an http:// or https:// URL (e.g. http://127.0.0.1:8080)")
        if parts.query or parts.fragment or "@" in parts.netloc:
            raise ValueError(
                "MdsClient: the base URL must not carry credentials, a query or a fragment: the key goes in api_key"
            )
        if not key:
            raise ValueError("MdsClient: no API key: pass api_key or set MDS_API_KEY to your key (mds_live_…)")
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(f"MdsClient: max_attempts must be a whole number ≥ 1, not {max_attempts!r}")
        if not max_wait >= 0:
            raise ValueError(f"MdsClient: max_wait must be a number of seconds ≥ 0, not {max_wait!r}")
        self.base_url = url.rstrip("/")
        self.max_attempts = max_attempts
        self.max_wait = float(max_wait)
        self.timeout = timeout
        self.__api_key = key

    def __repr__(self) -> str:
        # The key never shows: not here, not in any error, and the client logs nothing.
        return f"MdsClient(base_url={self.base_url!r}, max_attempts={self.max_attempts}, max_wait={self.max_wait})"

    # ---- the operations ------------------------------------------------------------------

    def list_assets(self, *, type: Optional[AssetType] = None) -> AssetsResponse:
        """`GET /v1/assets` (`listAssets`): the asset directory. Requires `assets:read`."""
        return cast(AssetsResponse, self._json("/v1/assets", {"type": type}))

    def get_latest_rates(
        self,
        *,
        currency: Optional[Currencies] = None,
        source: Optional[Source] = None,
        at: Optional[InstantLike] = None,
    ) -> RatesLatestResponse:
        """`GET /v1/rates/latest` (`getLatestRates`): the newest rate per asset of one source
        (`parallel` unless told), each with its `change` since the previous day. Requires
        `rates:<source>:latest:read`; with `at`, the newest at or before that instant, which
        requires `rates:<source>:history:read` instead."""
        query = {"currency": currency, "source": source, "at": _instant(at)}
        return cast(RatesLatestResponse, self._json("/v1/rates/latest", query))

    def get_rates_history(
        self,
        currency: str,
        *,
        source: Optional[Source] = None,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        interval: Optional[Interval] = None,
    ) -> RatesHistoryResponse:
        """`GET /v1/rates/history` (`getRatesHistory`): one page of an asset's rates, newest
        first; `meta.nextCursor` names the next page. Requires `rates:<source>:history:read`.
        With `interval`, a page of intervals: use `get_rate_intervals` for its type."""
        query = _history(
            currency=currency, source=source, from_=from_, to=to, limit=limit, cursor=cursor, interval=interval
        )
        return cast(RatesHistoryResponse, self._json("/v1/rates/history", query))

    def get_rate_intervals(
        self,
        currency: str,
        interval: Interval,
        *,
        source: Optional[Source] = None,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> RatesIntervalsResponse:
        """`GET /v1/rates/history` with `interval` (`day`, `week` from Monday, `month`; UTC): one
        page of intervals, newest first, each with open, high, low and close of buy and sell; the
        window may span 3,660 days."""
        query = _history(
            currency=currency, source=source, from_=from_, to=to, limit=limit, cursor=cursor, interval=interval
        )
        return cast(RatesIntervalsResponse, self._json("/v1/rates/history", query))

    def get_rates_history_csv(
        self,
        currency: str,
        *,
        source: Optional[Source] = None,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        interval: Optional[Interval] = None,
    ) -> str:
        """The page of `get_rates_history` as CSV text (`Accept: text/csv`)."""
        query = _history(
            currency=currency, source=source, from_=from_, to=to, limit=limit, cursor=cursor, interval=interval
        )
        return self._csv("/v1/rates/history", query)

    def convert_amount(
        self, from_: str, to: str, amount: Union[str, int, Decimal], *, source: Optional[Source] = None
    ) -> ConvertResponse:
        """`GET /v1/convert` (`convertAmount`): `amount` of `from_` in `to` (`DZD` for dinars), from
        the latest rates of `source` (`parallel` unless told): a currency into dinars at buy, dinars
        into a currency at sell, two currencies through the dinar, rounded once to the cent. Give
        `amount` as a string or a `Decimal` to keep it exact. Requires `rates:<source>:latest:read`."""
        text = format(amount, "f") if isinstance(amount, Decimal) else str(amount)
        query = {"from": from_, "to": to, "amount": text, "source": source}
        return cast(ConvertResponse, self._json("/v1/convert", query))

    def get_market_premium(self, *, currency: Optional[Currencies] = None) -> MarketPremiumResponse:
        """`GET /v1/market/premium` (`getMarketPremium`): the premium of the parallel rate over
        the official one (EUR, USD, GBP, CAD unless told). Requires `market:premium:read`."""
        return cast(MarketPremiumResponse, self._json("/v1/market/premium", {"currency": currency}))

    def get_premium_history(
        self,
        currency: str,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        interval: Optional[Interval] = None,
    ) -> MarketPremiumHistoryResponse:
        """`GET /v1/market/premium/history` (`getPremiumHistory`): one page of daily premiums,
        newest first, with `meta.summary` over the whole window. Requires
        `market:premium:history:read`."""
        query = _history(currency=currency, from_=from_, to=to, limit=limit, cursor=cursor, interval=interval)
        return cast(MarketPremiumHistoryResponse, self._json("/v1/market/premium/history", query))

    def get_premium_intervals(
        self,
        currency: str,
        interval: Interval,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> PremiumIntervalsResponse:
        """`GET /v1/market/premium/history` with `interval`: one page of intervals of the daily
        premium, each with open, high, low and close of the daily percents."""
        query = _history(currency=currency, from_=from_, to=to, limit=limit, cursor=cursor, interval=interval)
        return cast(PremiumIntervalsResponse, self._json("/v1/market/premium/history", query))

    def get_premium_history_csv(
        self,
        currency: str,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        interval: Optional[Interval] = None,
    ) -> str:
        """The page of `get_premium_history` as CSV text (`Accept: text/csv`)."""
        query = _history(currency=currency, from_=from_, to=to, limit=limit, cursor=cursor, interval=interval)
        return self._csv("/v1/market/premium/history", query)

    def get_latest_gold(self, *, at: Optional[InstantLike] = None) -> GoldLatestResponse:
        """`GET /v1/gold/latest` (`getLatestGold`): the gold prices per gram, each with its `change`
        since the previous day. Requires `gold:latest:read`; with `at`, the newest at or before that
        instant, which requires `gold:history:read` instead."""
        return cast(GoldLatestResponse, self._json("/v1/gold/latest", {"at": _instant(at)}))

    def get_gold_history(
        self,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        interval: Optional[Interval] = None,
    ) -> GoldHistoryResponse:
        """`GET /v1/gold/history` (`getGoldHistory`): one page of gold records. Requires `gold:history:read`."""
        query = _history(from_=from_, to=to, limit=limit, cursor=cursor, interval=interval)
        return cast(GoldHistoryResponse, self._json("/v1/gold/history", query))

    def get_gold_intervals(
        self,
        interval: Interval,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
    ) -> GoldIntervalsResponse:
        """`GET /v1/gold/history` with `interval`: one page of each purity's intervals, newest
        first, purities in order."""
        query = _history(from_=from_, to=to, limit=limit, cursor=cursor, interval=interval)
        return cast(GoldIntervalsResponse, self._json("/v1/gold/history", query))

    def get_gold_history_csv(
        self,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
        cursor: Optional[str] = None,
        interval: Optional[Interval] = None,
    ) -> str:
        """The page of `get_gold_history` as CSV text (`Accept: text/csv`)."""
        query = _history(from_=from_, to=to, limit=limit, cursor=cursor, interval=interval)
        return self._csv("/v1/gold/history", query)

    def get_me(self) -> MeResponse:
        """`GET /v1/me` (`getMe`): the calling key, its grant and its usage. Requires `usage:read`."""
        return cast(MeResponse, self._json("/v1/me", {}))

    def get_daily_usage(
        self, *, from_: Optional[DateLike] = None, to: Optional[DateLike] = None
    ) -> DailyUsageResponse:
        """`GET /v1/usage/daily` (`getDailyUsage`): the grant's requests per UTC day, with each
        key's, over at most 366 days (default: this month so far). Requires `usage:read`."""
        return cast(DailyUsageResponse, self._json("/v1/usage/daily", {"from": from_, "to": to}))

    # ---- pagination: every record of a window, page after page ------------------------------

    def paginate_rate_history(
        self,
        currency: str,
        *,
        source: Optional[Source] = None,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
    ) -> Iterator[RateHistoryRecord]:
        """Every record of `get_rates_history` for the window, newest first, following `meta.nextCursor`."""
        return _follow(
            lambda cursor: self.get_rates_history(
                currency, source=source, from_=from_, to=to, limit=limit, cursor=cursor
            )
        )

    def paginate_premium_history(
        self,
        currency: str,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
    ) -> Iterator[PremiumHistoryItem]:
        """Every day of `get_premium_history` for the window, newest first, following `meta.nextCursor`."""
        return _follow(
            lambda cursor: self.get_premium_history(currency, from_=from_, to=to, limit=limit, cursor=cursor)
        )

    def paginate_gold_history(
        self,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
    ) -> Iterator[GoldRecord]:
        """Every record of `get_gold_history` for the window, in the server's order, following `meta.nextCursor`."""
        return _follow(lambda cursor: self.get_gold_history(from_=from_, to=to, limit=limit, cursor=cursor))

    def paginate_rate_intervals(
        self,
        currency: str,
        interval: Interval,
        *,
        source: Optional[Source] = None,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
    ) -> Iterator[RateInterval]:
        """Every interval of `get_rate_intervals` for the window, newest first, following `meta.nextCursor`."""
        return _follow(
            lambda cursor: self.get_rate_intervals(
                currency, interval, source=source, from_=from_, to=to, limit=limit, cursor=cursor
            )
        )

    def paginate_premium_intervals(
        self,
        currency: str,
        interval: Interval,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
    ) -> Iterator[PremiumInterval]:
        """Every interval of `get_premium_intervals` for the window, newest first."""
        return _follow(
            lambda cursor: self.get_premium_intervals(
                currency, interval, from_=from_, to=to, limit=limit, cursor=cursor
            )
        )

    def paginate_gold_intervals(
        self,
        interval: Interval,
        *,
        from_: Optional[DateLike] = None,
        to: Optional[DateLike] = None,
        limit: Optional[int] = None,
    ) -> Iterator[GoldInterval]:
        """Every interval of `get_gold_intervals` for the window, in the server's order."""
        return _follow(
            lambda cursor: self.get_gold_intervals(interval, from_=from_, to=to, limit=limit, cursor=cursor)
        )

    # ---- transport -------------------------------------------------------------------------

    def _json(self, path: str, query: Mapping[str, QueryValue]) -> Dict[str, Any]:
        status, headers, body = self._send(path, query, "application/json")
        try:
            parsed: Any = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            parsed = None
        if not isinstance(parsed, dict) or "data" not in parsed or "meta" not in parsed:
            raise _unexpected(status, headers, "JSON envelope")
        return parsed

    def _csv(self, path: str, query: Mapping[str, QueryValue]) -> str:
        status, headers, body = self._send(path, query, "text/csv")
        # A JSON page (a server without CSV) or a proxy's HTML page is not the CSV that was asked for.
        if headers.get_content_type() != "text/csv":
            raise _unexpected(status, headers, "CSV")
        return body.decode(headers.get_content_charset() or "utf-8")

    def _send(self, path: str, query: Mapping[str, QueryValue], accept: str) -> Tuple[int, Message, bytes]:
        """GET with retries of 429/503: the 2xx answer's status, headers and body, or an MdsApiError."""
        url = self.base_url + path + _query_string(query)
        request_headers = {
            "Authorization": f"Bearer {self.__api_key}",
            "Accept": accept,
            "User-Agent": f"mds-client-python/{__version__}",
        }
        waited = 0.0
        attempt = 1
        while True:
            request = urllib.request.Request(url, headers=request_headers, method="GET")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return response.status, response.headers, response.read()
            except urllib.error.HTTPError as answer:
                body = answer.read() if answer.fp is not None else b""
                answer.close()
                error = _error_from(answer.code, answer.headers, body)
            if error.status not in RETRY_STATUSES or attempt >= self.max_attempts:
                raise error
            delay = error.retry_after if error.retry_after is not None else BASE_BACKOFF * 2 ** (attempt - 1)
            # Retrying sooner than the server asked would only fail again; waiting past the cap is the caller's call.
            if waited + delay > self.max_wait:
                raise error
            time.sleep(delay)
            waited += delay
            attempt += 1


def _follow(page_at: Callable[[Optional[str]], Any]) -> Iterator[Any]:
    """Every item of a history window: the page at each cursor, from none to the last
    `meta.nextCursor`. A generator: no page is asked for before the first item is."""
    cursor: Optional[str] = None
    while True:
        page = page_at(cursor)
        yield from page["data"]
        cursor = page["meta"]["nextCursor"]
        if cursor is None:
            return


def _history(
    *,
    currency: Optional[str] = None,
    source: Optional[Source] = None,
    from_: Optional[DateLike] = None,
    to: Optional[DateLike] = None,
    limit: Optional[int] = None,
    cursor: Optional[str] = None,
    interval: Optional[Interval] = None,
) -> Dict[str, QueryValue]:
    """The query of a history operation, in the document's parameter order."""
    return {
        "currency": currency,
        "source": source,
        "from": from_,
        "to": to,
        "limit": limit,
        "cursor": cursor,
        "interval": interval,
    }
