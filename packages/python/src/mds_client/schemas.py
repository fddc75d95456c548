"""The API's JSON shapes as TypedDicts, mirroring the schemas of its OpenAPI document.

Keys keep the API's own spelling (`updatedAt`, `nextCursor`, `requestId`), so a
record is exactly the JSON the service sent, and the served document
(`GET /openapi.json`) is the reference for every field. The metas that have a
`from` key (a Python keyword) use the functional TypedDict syntax. A test
(test/client/python.test.ts) compares every response type here with the
response schema of its operation in the document the server serves.
"""

from typing import Dict, List, Literal, Optional, TypedDict

Source = Literal["parallel", "official", "transfer"]
"""A rate's source family."""
AssetType = Literal["currency", "metal", "crypto"]
Quote = Literal["DZD"]
Purity = Literal["18K", "21K", "24K"]
Interval = Literal["day", "week", "month"]
"""A history's `interval`: UTC days, weeks from Monday, calendar months."""


class Names(TypedDict):
    """An asset's name in English, French and Arabic."""

    en: str
    fr: str
    ar: str


class Asset(TypedDict):
    """An entry of the asset directory (`GET /v1/assets`)."""

    code: str
    symbol: str
    names: Names
    type: AssetType


class Quality(TypedDict):
    """How a record was made: a published consensus of street reporters, or an import (members None).

    `organisations` kept, `reporters` (quotes used), `excluded` organisations,
    `dispersionPercent` (2 decimals) and `confidence` ("high", "medium", "low")
    are None for an import.
    """

    method: Literal["consensus", "import"]
    organisations: Optional[int]
    reporters: Optional[int]
    excluded: Optional[int]
    dispersionPercent: Optional[float]
    confidence: Optional[Literal["high", "medium", "low"]]


class ChangeSide(TypedDict):
    """current − previous on one side: the exact amount, and the percent of previous (4 decimals)."""

    amount: float
    percent: float


class Change(TypedDict):
    """The change of a latest record since the previous day (decisions 122).

    Against the newest observation of the same series before the start of the
    record's UTC day, at most 7 days before it; `since` is that one's
    `updatedAt`. The record's `change` is None without one.
    """

    since: str
    buy: ChangeSide
    sell: ChangeSide


class LatestRate(TypedDict):
    """The newest rate of an asset for one source (`GET /v1/rates/latest`), with its change."""

    currency: str
    names: Names
    type: AssetType
    source: Source
    quote: Quote
    buy: float
    sell: float
    updatedAt: str
    quality: Quality
    change: Optional[Change]


class RateHistoryRecord(TypedDict):
    """One observation of a rate history (`GET /v1/rates/history`)."""

    currency: str
    source: Source
    quote: Quote
    buy: float
    sell: float
    updatedAt: str
    quality: Quality


#: The former name of RateHistoryRecord, kept for code written against it.
HistoryRate = RateHistoryRecord


class Observation(TypedDict):
    """The parallel or the official side of a premium."""

    buy: float
    sell: float
    updatedAt: str


class PremiumFigure(TypedDict):
    """parallel − official on one side: the amount in dinars and the percent of official (4 decimals)."""

    amount: float
    percent: float


class Premium(TypedDict):
    buy: PremiumFigure
    sell: PremiumFigure


class PremiumChangeSide(TypedDict):
    """This percent − the previous day's, in percentage points (4 decimals, exact)."""

    percentPoints: float


class PremiumChange(TypedDict):
    """The premium's change since the previous day's premium (decisions 124); `since` is the
    `updatedAt` of that premium's parallel side."""

    since: str
    buy: PremiumChangeSide
    sell: PremiumChangeSide


class PremiumItem(TypedDict):
    """The premium of the parallel rate over the official one (`GET /v1/market/premium`)."""

    currency: str
    quote: Quote
    parallel: Observation
    official: Observation
    premium: Premium
    change: Optional[PremiumChange]


class PremiumHistoryItem(TypedDict):
    """One day of the premium history (`GET /v1/market/premium/history`)."""

    date: str
    currency: str
    quote: Quote
    parallel: Observation
    official: Observation
    premium: Premium


class PercentOnDay(TypedDict):
    percent: float
    date: str


class SummarySide(TypedDict):
    min: PercentOnDay
    max: PercentOnDay
    mean: float


class PremiumSummary(TypedDict):
    """Over the whole window of a premium history, whatever the page."""

    days: int
    buy: SummarySide
    sell: SummarySide


class GoldRecord(TypedDict):
    """A gold price per gram (`GET /v1/gold/latest`, `GET /v1/gold/history`)."""

    purity: Purity
    quote: Quote
    unit: Literal["gram"]
    buy: float
    sell: float
    updatedAt: str
    quality: Quality


class LatestGoldRecord(GoldRecord):
    """A latest gold price per gram (`GET /v1/gold/latest`), with its change (None without one)."""

    change: Optional[Change]


class Ohlc(TypedDict):
    """Open, high, low and close of one side over an interval."""

    open: float
    high: float
    low: float
    close: float


class RateInterval(TypedDict):
    """One interval of a rate series (`GET /v1/rates/history` with `interval`)."""

    currency: str
    quote: Quote
    source: Source
    interval: Interval
    start: str
    buy: Ohlc
    sell: Ohlc
    firstUpdatedAt: str
    lastUpdatedAt: str
    observations: int


class GoldInterval(TypedDict):
    """One interval of a purity (`GET /v1/gold/history` with `interval`)."""

    purity: Purity
    quote: Quote
    unit: Literal["gram"]
    interval: Interval
    start: str
    buy: Ohlc
    sell: Ohlc
    firstUpdatedAt: str
    lastUpdatedAt: str
    observations: int


class PremiumInterval(TypedDict):
    """One interval of the daily premium percents (`GET /v1/market/premium/history` with `interval`)."""

    currency: str
    quote: Quote
    interval: Interval
    start: str
    buy: Ohlc
    sell: Ohlc
    firstDate: str
    lastDate: str
    days: int
    firstUpdatedAt: str
    lastUpdatedAt: str
    observations: int


class Account(TypedDict):
    id: str


class Grant(TypedDict):
    id: str
    provider: str
    plan: str
    status: Literal["active", "suspended", "cancelled"]
    scopes: List[str]
    validFrom: str
    validUntil: str
    monthlyRequestLimit: int
    requestsPerMinute: int


class _KeyRequired(TypedDict):
    publicId: str
    prefix: str
    label: str
    environment: Literal["live", "test"]
    scopes: List[str]
    status: Literal["active", "revoked"]
    expiresAt: Optional[str]


class KeyInfo(_KeyRequired, total=False):
    """The calling key (its secret never comes back); `lastUsedAt` may be absent."""

    lastUsedAt: Optional[str]


class Usage(TypedDict):
    periodStart: str
    resetAt: str
    requestsUsed: int
    requestsRemaining: int
    requestLimit: int
    requestsPerMinute: int
    minuteRemaining: int
    minuteResetAt: str


class Identity(TypedDict):
    """Who is calling (`GET /v1/me`): account, grant, key and usage."""

    account: Account
    grant: Grant
    key: KeyInfo
    usage: Usage


# The metas, one per operation.


class AssetsMeta(TypedDict):
    requestId: str
    count: int
    type: Optional[AssetType]


class RatesLatestMeta(TypedDict):
    requestId: str
    count: int
    source: Source
    quote: Quote
    currencies: List[str]


RatesHistoryMeta = TypedDict(
    "RatesHistoryMeta",
    {
        "requestId": str,
        "count": int,
        "quote": Quote,
        "from": str,
        "to": str,
        "limit": int,
        "nextCursor": Optional[str],
        "currency": str,
        "source": Source,
    },
)


class MarketPremiumMeta(TypedDict):
    requestId: str
    count: int
    quote: Quote
    currencies: List[str]
    missingCurrencies: List[str]


PremiumHistoryMeta = TypedDict(
    "PremiumHistoryMeta",
    {
        "requestId": str,
        "count": int,
        "currency": str,
        "quote": Quote,
        "from": str,
        "to": str,
        "limit": int,
        "nextCursor": Optional[str],
        "summary": Optional[PremiumSummary],
    },
)


class GoldLatestMeta(TypedDict):
    requestId: str
    count: int
    quote: Quote
    unit: Literal["gram"]


GoldHistoryMeta = TypedDict(
    "GoldHistoryMeta",
    {
        "requestId": str,
        "count": int,
        "quote": Quote,
        "from": str,
        "to": str,
        "limit": int,
        "nextCursor": Optional[str],
        "unit": Literal["gram"],
    },
)


class MeMeta(TypedDict):
    requestId: str


class ConversionRate(TypedDict):
    """A rate a conversion applied: `buy` into dinars, `sell` out of dinars."""

    currency: str
    quote: Quote
    side: Literal["buy", "sell"]
    rate: float
    updatedAt: str


#: `GET /v1/convert`'s data (`from` is a keyword, hence this form); `amount` and
#: `resultDecimal` are exact decimal strings, `result` the same as a float.
Conversion = TypedDict(
    "Conversion",
    {
        "from": str,
        "to": str,
        "source": Source,
        "amount": str,
        "result": float,
        "resultDecimal": str,
        "rates": List[ConversionRate],
    },
)


# The responses: `{ data, meta }` of each operation.


class AssetsResponse(TypedDict):
    data: List[Asset]
    meta: AssetsMeta


class RatesLatestResponse(TypedDict):
    data: List[LatestRate]
    meta: RatesLatestMeta


class RatesHistoryResponse(TypedDict):
    data: List[RateHistoryRecord]
    meta: RatesHistoryMeta


class RatesIntervalsResponse(TypedDict):
    """A page of `get_rates_history` with `interval`."""

    data: List[RateInterval]
    meta: RatesHistoryMeta


class MarketPremiumResponse(TypedDict):
    data: List[PremiumItem]
    meta: MarketPremiumMeta


class MarketPremiumHistoryResponse(TypedDict):
    data: List[PremiumHistoryItem]
    meta: PremiumHistoryMeta


class PremiumIntervalsResponse(TypedDict):
    """A page of `get_premium_history` with `interval`."""

    data: List[PremiumInterval]
    meta: PremiumHistoryMeta


class GoldLatestResponse(TypedDict):
    data: List[LatestGoldRecord]
    meta: GoldLatestMeta


class GoldHistoryResponse(TypedDict):
    data: List[GoldRecord]
    meta: GoldHistoryMeta


class ConvertResponse(TypedDict):
    data: Conversion
    meta: MeMeta


class GoldIntervalsResponse(TypedDict):
    """A page of `get_gold_history` with `interval`."""

    data: List[GoldInterval]
    meta: GoldHistoryMeta


class MeResponse(TypedDict):
    data: Identity
    meta: MeMeta


class KeyDailyUsage(TypedDict):
    """One key's requests on one UTC day."""

    publicId: str
    requests: int


class DayUsage(TypedDict):
    """A grant's requests on one UTC day, with the keys that made them."""

    day: str
    requests: int
    keys: List[KeyDailyUsage]


DailyUsageData = TypedDict(
    "DailyUsageData",
    {
        "grantId": str,
        "from": str,
        "to": str,
        "requests": int,
        "days": List[DayUsage],
    },
)


class DailyUsageMeta(TypedDict):
    requestId: str


class DailyUsageResponse(TypedDict):
    data: DailyUsageData
    meta: DailyUsageMeta


# The error envelope.


class ErrorDetail(TypedDict, total=False):
    """What a 400 or 403 names: the offending `parameter`, or the missing `entitlement`."""

    parameter: str
    entitlement: str
    message: str


class _ErrorRequired(TypedDict):
    status: int
    code: str
    message: str


class ErrorInfo(_ErrorRequired, total=False):
    details: List[ErrorDetail]


class ErrorResponse(TypedDict):
    data: None
    error: ErrorInfo
    meta: MeMeta


CsvRow = Dict[str, str]
"""A CSV record parsed by `parse_csv`: column name to text, as in the CSV."""
