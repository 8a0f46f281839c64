"""The one shape of every refusal the gateway answers: ``{"detail": ..., "code": ...}``.

``detail`` says what was refused and why (a string, or for a malformed body the list of
problems: location, message, type); ``code`` is machine-readable, the refusing rule's own
(``not-your-game``, ``token-expired``, ``rate-limited``...) or by default the status's from
:data:`STATUS_CODES`. Every layer answers through :func:`error_response`: the route handlers,
the exception handlers for FastAPI's own 404/405/422, the identity rules (401/403), the rate
limits (429) and the body size limit (413, :mod:`services.gateway.limits`).
"""
from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse
from prometheus_client import Counter

#: The ``code`` of a refusal that names none of its own.
STATUS_CODES = {400: "bad-request", 401: "unauthenticated", 403: "forbidden", 404: "not-found",
                405: "method-not-allowed", 409: "conflict", 413: "too-large", 422: "malformed",
                429: "rate-limited"}

REJECTED = Counter("arbiter_gateway_http_rejections_total", "Requests refused before publishing",
                   ["status"])


class HTTPError(Exception):
    """A refusal before anything is published: ``status``, a specific ``detail`` and
    ``extra`` fields of the answer (``code=...`` names the refusal)."""

    def __init__(self, status: int, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.status, self.detail, self.extra = status, detail, extra


def error_response(status: int, detail: Any, code: str | None = None,
                   headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    """The answer to a refused request: HTTP ``status`` with body ``{"detail", "code",
    **extra}`` (``code`` by default :data:`STATUS_CODES`'s for the status, else ``refused``)
    and ``headers`` (e.g. ``Retry-After``, ``WWW-Authenticate``); counted in
    ``arbiter_gateway_http_rejections_total`` by status."""
    REJECTED.labels(str(status)).inc()
    return JSONResponse({"detail": detail, "code": code or STATUS_CODES.get(status, "refused"),
                         **extra}, status_code=status, headers=headers)
