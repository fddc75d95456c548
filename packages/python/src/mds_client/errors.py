"""The one error the client raises for an answer that is not a success."""

from typing import Any, List, Optional, Tuple

from .schemas import ErrorDetail


class MdsApiError(Exception):
    """A non-2xx answer of the API, built from its error envelope.

    `status` is the HTTP status; `code`, `message` and `details` are the body's
    `error.code`, `error.message` and `error.details` (the offending parameters,
    or the missing entitlement); `request_id` is `meta.requestId` (the same as
    the `X-Request-Id` header: quote it when asking for support); `retry_after`
    the seconds of `Retry-After` (429, 503) when the server sent it. An answer
    that is not the API's envelope (a proxy's page, say) has the code
    `unexpected_response`. `str()` of an `insufficient_scope` names the
    entitlement its `details` say is missing.
    """

    status: int
    code: str
    message: str
    request_id: Optional[str]
    details: Optional[List[ErrorDetail]]
    retry_after: Optional[float]

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        request_id: Optional[str] = None,
        details: Optional[List[ErrorDetail]] = None,
        retry_after: Optional[float] = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id
        self.details = details
        self.retry_after = retry_after

    def __str__(self) -> str:
        text = f"{self.status} {self.code}: {self.message}{self._missing_entitlement()}"
        return text if self.request_id is None else f"{text} (request {self.request_id})"

    def _missing_entitlement(self) -> str:
        # The answer names the entitlement only, not a plan that gives it: so does this.
        if self.code != "insufficient_scope":
            return ""
        missing = [
            detail["entitlement"]
            for detail in self.details or []
            if isinstance(detail, dict) and isinstance(detail.get("entitlement"), str)
        ]
        if not missing:
            return ""
        names, scope = ("entitlement", "that scope") if len(missing) == 1 else ("entitlements", "those scopes")
        return f" Missing {names}: {', '.join(missing)}; a key with {scope}, on a plan that gives it, is needed."

    def __repr__(self) -> str:
        return (
            f"MdsApiError(status={self.status!r}, code={self.code!r}, message={self.message!r}, "
            f"request_id={self.request_id!r}, details={self.details!r}, retry_after={self.retry_after!r})"
        )

    def __reduce__(self) -> Tuple[Any, ...]:
        # Exceptions pickle as cls(*args); this one needs all its fields back.
        return (
            MdsApiError,
            (self.status, self.code, self.message, self.request_id, self.details, self.retry_after),
        )
