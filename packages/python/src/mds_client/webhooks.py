"""Verifying the webhooks the Market Data Service sends (Standard Webhooks).

    from mds_client import WebhookVerificationError, verify_webhook
    event = verify_webhook(secret, raw_body, headers)  # the parsed payload, or raises

A delivery carries `webhook-id`, `webhook-timestamp` (integer seconds) and
`webhook-signature`: space-separated `v1,<base64 HMAC-SHA256>` entries, one
per active secret (two during a rotation). The HMAC key is the base64 after
`whsec_` in the endpoint's secret; the signed content is
`<webhook-id>.<webhook-timestamp>.<raw body>`. This is what the reference
`standardwebhooks` packages check, with the standard library only.
docs/webhooks.md has a whole receiver.
"""

import base64
import binascii
import hashlib
import hmac
import json
import math
import re
import time
from typing import Any, Dict, Mapping, Optional

_SECRET_PREFIX = "whsec_"
_HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")
_INTEGER = re.compile(r"[0-9]+")


class WebhookVerificationError(ValueError):
    """A delivery that is not authentic or not current: answer it with a 4xx and drop it.

    The message says which check failed (a missing header, a timestamp outside
    the tolerance, no matching signature, a body that is not a JSON object).
    """


def _key(secret: str) -> bytes:
    encoded = secret[len(_SECRET_PREFIX) :] if secret.startswith(_SECRET_PREFIX) else secret
    try:
        key = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        # Not a WebhookVerificationError: the receiver is misconfigured, the delivery may be fine.
        raise ValueError("the webhook secret is not whsec_ followed by base64") from error
    if not key:
        raise ValueError("the webhook secret is empty")
    return key


def _signature(key: bytes, msg_id: str, timestamp: int, body: bytes) -> bytes:
    """The base64 `v1` signature of one delivery, as ASCII bytes."""
    content = f"{msg_id}.{timestamp}.".encode("utf-8") + body
    return base64.b64encode(hmac.new(key, content, hashlib.sha256).digest())


def _headers(headers: Mapping[str, str]) -> Dict[str, str]:
    # Header names are case-insensitive; the first of repeated ones counts.
    found: Dict[str, str] = {}
    for name, value in headers.items():
        lower = name.lower()
        if lower in _HEADERS and lower not in found:
            found[lower] = value
    return found


def verify_webhook(
    secret: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    tolerance_seconds: int = 300,
    now: Optional[float] = None,
) -> Dict[str, Any]:
    """Checks a delivery and returns its parsed JSON payload.

    `secret` is the endpoint's `whsec_...` secret; `body` the request body
    exactly as received (re-serialized JSON does not match the signature);
    `headers` the request headers, names in any case. The timestamp may be at
    most `tolerance_seconds` before or after `now` (Unix seconds, the clock
    unless given), and one of the `v1` signatures must match, compared in
    constant time. Raises WebhookVerificationError saying what failed; a
    malformed secret raises a plain ValueError.
    """
    if isinstance(body, str):
        raise TypeError("body must be the raw request bytes, not a str")
    key = _key(secret)
    found = _headers(headers)
    missing = [name for name in _HEADERS if not found.get(name)]
    if missing:
        raise WebhookVerificationError(f"missing header: {', '.join(missing)}")

    raw_timestamp = found["webhook-timestamp"].strip()
    if not _INTEGER.fullmatch(raw_timestamp):
        raise WebhookVerificationError(f"webhook-timestamp is not integer seconds: {raw_timestamp!r}")
    timestamp = int(raw_timestamp)
    current = math.floor(time.time() if now is None else now)
    if current - timestamp > tolerance_seconds:
        raise WebhookVerificationError(
            f"webhook-timestamp too old: {current - timestamp} s before now (tolerance {tolerance_seconds} s)"
        )
    if timestamp - current > tolerance_seconds:
        raise WebhookVerificationError(
            f"webhook-timestamp too new: {timestamp - current} s after now (tolerance {tolerance_seconds} s)"
        )

    expected = _signature(key, found["webhook-id"], timestamp, bytes(body))
    matched = False
    for entry in found["webhook-signature"].split(" "):
        parts = entry.split(",")
        if len(parts) < 2 or parts[0] != "v1":
            continue  # another scheme or version: not ours to check
        # Every v1 entry is compared, so the time taken does not tell which one matched.
        if hmac.compare_digest(parts[1].encode("utf-8"), expected):
            matched = True
    if not matched:
        raise WebhookVerificationError("no webhook-signature matches the secret")

    try:
        payload = json.loads(bytes(body))
    except ValueError as error:
        raise WebhookVerificationError("the body is not JSON") from error
    if not isinstance(payload, dict):
        raise WebhookVerificationError("the body is not a JSON object")
    return payload
