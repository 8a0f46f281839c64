"""The one shape of every refusal the gateway answers: ``{"detail": ..., "code": ...}``.

``detail`` says what was refused and why (a string, or for a malformed body the list of
problems: location, message, type); ``code`` is machine-readable, the refusing rule's own
(``not-your-game``, ``token-expired``, ``rate-limited``...) or by default the status's from
:data:`STATUS_CODES`. Every layer answers through :func:`error_response`: the route handlers,
the exception handlers for FastAPI's own 404/405/422, the identity rules (401/403), the rate
limits (429) and the body size limit (413, :mod:`services.gateway.limits`).
"""
from __future__ import annotations

import json
from typing import Any, Literal

from fastapi.responses import JSONResponse
from prometheus_client import Counter
from pydantic import BaseModel, Field

from contracts.messages import DrawClaimRejected, RejectCode, TournamentRejectCode

#: The ``code`` of a refusal that names none of its own.
STATUS_CODES = {400: "bad-request", 401: "unauthenticated", 403: "forbidden", 404: "not-found",
                405: "method-not-allowed", 409: "conflict", 413: "too-large", 422: "malformed",
                429: "rate-limited"}

#: Every ``code`` the gateway answers with before anything is published: the statuses' own
#: (:data:`STATUS_CODES`, ``refused``) and those of the routes, the identity rules (401/403)
#: and the limits (``tests/unit/test_gateway_refusals.py`` checks the list against the code).
GatewayCode = Literal[
    "bad-request", "unauthenticated", "forbidden", "not-found", "method-not-allowed", "conflict",
    "too-large", "malformed", "rate-limited", "refused",
    # the routes
    "already-exists", "finished", "game-over", "invalid", "identity-off", "not-registered",
    "reserved-id", "log-unavailable", "already-revoked", "token-unreadable",
    "bad-cursor", "bad-kind", "bad-position", "bad-types", "unknown-position",
    "bad-url", "not-failing", "unknown-type", "not-your-subscription",
    "forbidden-address", "no-such-game", "no-such-tournament", "headers-too-large",
    "no-history", "wrong-game", "not-your-bulk",
    # a bulk pairing with bad entries (each in ``errors`` with its own code, e.g. ``paired-twice``)
    "bad-players",
    # the organiser's imports of players (CSV, TRF)
    "csv-empty", "csv-header", "csv-malformed", "not-utf8", "too-many-rows", "trf-malformed",
    # identity (401, 403)
    "token-expired", "token-forged", "token-malformed", "token-invalid", "token-revoked", "read-scope",
    "admins-only", "arbiters-only", "chief-arbiter-only", "integrators-only", "organisers-only",
    "players-only", "not-your-event", "not-your-game", "not-your-token", "not-yourself",
]


#: The ``code`` of a draw claim the adjudication refused (its DrawClaimRejected, which names
#: none): ``incorrect-claim`` for a chess threefold or 50-move claim (FIDE 1994 art. 10.13(2):
#: 5 minutes taken) or a xiangqi natural-limit claim (1999 rules art. 23.3: a foul and 5
#: minutes); ``too-few-repetitions`` for a xiangqi 棋例 ruling asked for on a position that has
#: not occurred three times (art. 24: no foul).
ClaimRejectCode = Literal["incorrect-claim", "too-few-repetitions"]


def claim_refusal(p: DrawClaimRejected) -> tuple[str, ClaimRejectCode]:
    """The ``(detail, code)`` of refused claim ``p`` (:data:`ClaimRejectCode`), the detail
    naming the claim and the adjudication's reason, e.g. ``"threefold claim refused: position
    occurred 2 time(s)"``."""
    code: ClaimRejectCode = "too-few-repetitions" if p.reason == "repetition" else "incorrect-claim"
    return f"{p.reason} claim refused: {p.detail}", code


class Refusal(BaseModel):
    """The body of every refusal: ``detail`` says what was refused and why (for a malformed
    body, the list of problems: ``loc``, ``msg``, ``type``), ``code`` names the rule. A
    rejection the owning service recorded (its ``...Rejected`` event: nothing changed) also
    carries ``"outcome": "rejected"``, the command's ``command_id``, ``stream`` and ``seq`` and
    the event's ``event``, ``event_id``, ``event_stream``, ``event_seq`` and ``payload``."""

    detail: str | list[dict[str, Any]]
    code: GatewayCode
    outcome: Literal["rejected"] | None = None


class GameRefusal(Refusal):
    """A refused game command: the gateway's refusal (nothing published), the game service's
    MoveRejected / GameCommandRejected (``outcome`` ``rejected``: 404 ``no-such-game``, 422
    ``malformed`` or ``decision-too-large``, else 409) or the adjudication's DrawClaimRejected
    (409 with a :data:`ClaimRejectCode`; its ``payload.rule`` the article)."""

    code: RejectCode | ClaimRejectCode | GatewayCode = Field(
        description="the refusing rule (RejectCode, ClaimRejectCode or the gateway's)")


class TournamentRefusal(Refusal):
    """A refused tournament command: the gateway's refusal (nothing published) or the
    tournament service's TournamentCommandRejected (``outcome`` ``rejected``: 422 ``malformed``
    or ``decision-too-large``, else 409)."""

    code: TournamentRejectCode | GatewayCode = Field(
        description="the refusing rule (TournamentRejectCode or the gateway's)")


def refusals(model: type[Refusal]) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of a command route whose refusals have the body ``model``."""
    said = {401: "no valid credentials (identity on)", 403: "the principal may not do this",
            404: "no such game or event", 409: "refused by the rules or the state (nothing changed)",
            413: "body over the size limit", 422: "malformed body or command",
            429: "rate limited (Retry-After)"}
    return {status: {"model": model, "description": text} for status, text in said.items()}

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


async def refuse_request(scope: dict, receive: Any, send: Any, status: int, detail: str, code: str,
                         headers: dict[str, str] | None = None) -> None:
    """Refuse the ASGI request ``scope`` from a middleware, before any route: HTTP, the
    :func:`error_response`; a WebSocket, accepted, then that ``{"detail", "code"}`` as one JSON
    text frame and closed with code 4000 + ``status`` (4401, 4403, 4429)."""
    if scope["type"] == "websocket":
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        await send({"type": "websocket.send", "text": json.dumps({"detail": detail, "code": code})})
        await send({"type": "websocket.close", "code": 4000 + status})
        return
    await error_response(status, detail, code=code, headers=headers)(scope, receive, send)
