"""The gateway's limits on what one caller may send (issue 12 item 3): rate limits per
principal and per game (HTTP 429 with ``Retry-After``), a request body size limit (413, the
body not read past the limit), a header size limit (431) and CORS (off unless origins are
configured).

Headers, in layers, each refusal below the next one's: a bearer token over
:data:`services.gateway.identity.MAX_TOKEN_CHARS` is 401 ``token-malformed``; a header
section over :data:`MAX_HEADER_BYTES` is 431 ``headers-too-large`` (:class:`HeaderLimit`); a
request head over the server's :data:`services.runner.HTTP_HEAD_BYTES` never reaches the
gateway: uvicorn answers it with its own plain-text 400, which the gateway cannot shape.

Rate limits use the ``limits`` library (moving windows; its rate syntax, e.g.
``"10/second;300/minute"``: every rate of the list must allow the request). They count:

- per principal: every write request an authenticated principal (a bearer token) sends, the
  ones then refused by the roles (403) too, keyed ``role:sub``;
- per game and actor: every command about to be published on a game (a player's, an
  organiser's), keyed by the game's aggregate ``game-<id>`` and the actor, so that nobody
  floods one game's log (rejected moves included, since they are recorded) and one player's
  flood does not lock out his opponent;
- per client address: the failed authentications (:data:`GUESSES`: a bearer token that does
  not verify or is no token at all, a wrong ``X-Arbiter-Token``, a bulk pairing or a
  revocation showing such tokens in its body: one a request), so that nobody tries tokens
  at full speed (:class:`AuthFailureLimit`). Once an address has used them up, every request
  of it that presents credentials is 429 before they are read, a right token as a wrong one
  (else the answers would still tell the right guess); requests without credentials and other
  addresses go on. An expired or revoked token is no guess (the gateway signed it): a page
  polling with one does not lock its address (a hall behind one NAT address) out.

The platform administrator (the ``X-Arbiter-Token``, or an ``admin`` bearer token) and the
arbiters' commands on a game are never limited but for their address's failed
authentications: they are the operators and their tools (``arbiter run-tournament``,
``arbiter demo``, an arbiter entering a recorded game). A refused
request changes nothing and reaches no log.

The counters live in the ``limits`` storage named by ``storage`` (``memory://``: each gateway
process counts its own requests, so N gateways behind a balancer allow N times the rate; a
shared storage such as ``redis://HOST`` makes them one budget, with that storage's client
installed). They are the gateway's edge, not a decision of the log: a refusal is not recorded.
"""
from __future__ import annotations

import ipaddress
import math
import time
from dataclasses import dataclass
from typing import Any

from limits import RateLimitItem
from limits.errors import ConfigurationError
from limits.storage import storage_from_string
from limits.strategies import MovingWindowRateLimiter
from starlette.middleware.cors import CORSMiddleware
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from contracts.envelope import Actor
from services.gateway.errors import error_response, refuse_request
from services.gateway import identity
from services.gateway.identity import Principal
from shared.config import Settings, parse_rates

#: The refusals that count as a failed authentication (a guess: credentials the gateway never
#: issued): a bearer token whose signature does not verify, one that is no token of ours, a wrong
#: administrator's token.
GUESSES = frozenset({"token-forged", "token-malformed", "token-invalid"})

#: The headers a browser client may send across origins (CORS).
CORS_HEADERS = ("Authorization", "Content-Type", "X-Arbiter-Token", "X-Correlation-Id",
                "Last-Event-ID")


@dataclass(frozen=True)
class HttpLimits:
    """What the gateway allows one caller: ``principal_rate`` (writes per authenticated
    principal), ``game_rate`` (commands per game) and ``auth_failure_rate`` (failed
    authentications per client address), each a ``limits`` rate list or ``""`` for none;
    ``storage``: the counters' ``limits`` storage URI; ``max_body_bytes``: the largest request
    body (bytes); ``cors_origins``: origins a browser may call from
    (``("*",)``: any; empty: CORS off). ``HttpLimits()`` limits only bodies (1 MB, the event
    log's record size); :meth:`from_settings` gives a deployment's. Raises ``ValueError`` for a
    rate that does not parse or a body limit below 1 KiB."""

    principal_rate: str = ""
    game_rate: str = ""
    auth_failure_rate: str = ""
    storage: str = "memory://"
    max_body_bytes: int = 1_000_000
    cors_origins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        parse_rates(self.principal_rate)
        parse_rates(self.game_rate)
        parse_rates(self.auth_failure_rate)
        if self.max_body_bytes < 1024:
            raise ValueError(f"max_body_bytes must be at least 1024, not {self.max_body_bytes}")

    @classmethod
    def from_settings(cls, s: Settings) -> HttpLimits:
        """The limits of :class:`shared.config.Settings` ``s`` (``ARBITER_RATE_PRINCIPAL``,
        ``ARBITER_RATE_GAME``, ``ARBITER_RATE_AUTH_FAILURES``, ``ARBITER_RATE_STORAGE``,
        ``ARBITER_MAX_BODY_BYTES``, ``ARBITER_CORS_ORIGINS``: comma-separated)."""
        return cls(principal_rate=s.rate_principal, game_rate=s.rate_game,
                   auth_failure_rate=s.rate_auth_failures, storage=s.rate_storage,
                   max_body_bytes=s.max_body_bytes,
                   cors_origins=tuple(o.strip() for o in s.cors_origins.split(",") if o.strip()))


class RateLimited(Exception):
    """A request over a rate limit: ``detail`` names the limit and the key, ``retry_after_s``
    (whole seconds, at least 1) says when the oldest counted request leaves the window."""

    def __init__(self, detail: str, retry_after_s: int) -> None:
        super().__init__(detail)
        self.detail, self.retry_after_s = detail, retry_after_s


class RateLimits:
    """The rate limits of one gateway process (see the module's docstring)."""

    def __init__(self, cfg: HttpLimits) -> None:
        """Raises ``ValueError`` naming ARBITER_RATE_STORAGE for a storage ``limits`` cannot
        open (an unknown scheme, or its client library not installed)."""
        self.principal_rates = parse_rates(cfg.principal_rate)
        self.game_rates = parse_rates(cfg.game_rate)
        self.auth_failure_rates = parse_rates(cfg.auth_failure_rate)
        try:
            storage = storage_from_string(cfg.storage)
        except ConfigurationError as e:
            raise ValueError(f"ARBITER_RATE_STORAGE {cfg.storage!r}: {e}") from None
        self.limiter = MovingWindowRateLimiter(storage)

    def admit_principal(self, p: Principal) -> None:
        """Count a write request of principal ``p`` (the administrator is not counted).
        Raises :class:`RateLimited` when one of the principal rates is used up."""
        if p.role != "admin":
            self._admit(self.principal_rates, "principal", f"{p.role}:{p.sub}")

    def admit_command(self, aggregate: str, actor: Actor) -> None:
        """Count a command of ``actor`` about to be published on ``aggregate`` (only games,
        ``game-<id>``, are limited; an arbiter's command is not counted). Each actor of a game
        has its own budget there: one player flooding his game (refused moves count) must not
        lock his opponent out while the opponent's clock runs (a reviewer's attack: the side
        to move got 429 for 61 s). Raises :class:`RateLimited` when one of the game rates is
        used up."""
        if aggregate.startswith("game-") and actor.kind != "arbiter":
            self._admit(self.game_rates, "game", f"{aggregate} for {actor.kind} {actor.id}")

    def admit_credentials(self, scope: Scope) -> None:
        """Before the credentials of ASGI request ``scope`` are read: :class:`RateLimited` when
        its client address has used up its failed authentications (nothing is counted)."""
        self._test(self.auth_failure_rates, "address", client_address(scope), " of failed authentications")

    def count_auth_failure(self, scope: Scope, *codes: str) -> None:
        """Count one failed authentication of ASGI request ``scope``'s client address when one
        of its refusal ``codes`` is in :data:`GUESSES` (other refusals count nothing; many
        guesses in one request, as in a bulk pairing's list of tokens, count once)."""
        if not GUESSES.isdisjoint(codes):
            self._hit(self.auth_failure_rates, "address", client_address(scope))

    def _admit(self, rates: list[RateLimitItem], scope: str, key: str) -> None:
        self._test(rates, scope, key)  # all tested before any is counted: a refusal counts nothing
        self._hit(rates, scope, key)

    def _test(self, rates: list[RateLimitItem], scope: str, key: str, of: str = "") -> None:
        for rate in rates:
            if not self.limiter.test(rate, scope, key):
                reset = self.limiter.get_window_stats(rate, scope, key).reset_time
                raise RateLimited(f"{scope} {key} is over its limit of {rate}{of}: try again later",
                                  max(1, math.ceil(reset - time.time())))

    def _hit(self, rates: list[RateLimitItem], scope: str, key: str) -> None:
        for rate in rates:
            self.limiter.hit(rate, scope, key)


def client_address(scope: Scope) -> str:
    """The client address of ASGI request ``scope`` (the server's, which takes a proxy's
    ``X-Forwarded-For`` only from ``ARBITER_TRUSTED_PROXIES``: :func:`services.runner.
    uvicorn_options`), ``unknown`` when it has none."""
    client = scope.get("client")
    if not client:
        return "unknown"
    try:  # an IPv4 client of a gateway listening on "::" comes as ::ffff:a.b.c.d
        mapped = getattr(ipaddress.ip_address(client[0]), "ipv4_mapped", None)
    except ValueError:
        return client[0]
    return str(mapped) if mapped is not None else client[0]


def presents_credentials(scope: Scope) -> bool:
    """True when ASGI request ``scope`` carries an ``Authorization`` or ``X-Arbiter-Token``
    header or an ``access_token`` query parameter (RFC 6750 2.3)."""
    headers = dict(scope.get("headers") or ())
    return (b"authorization" in headers or b"x-arbiter-token" in headers
            or identity.query_token(scope.get("query_string", b"")) is not None)


class AuthFailureLimit:
    """ASGI middleware refusing a request (HTTP or WebSocket) that presents credentials
    (:func:`presents_credentials`) from a client address that has used up ``rates``' failed
    authentications: 429 ``rate-limited`` with ``Retry-After`` (a WebSocket: closed 4429),
    before they are read; the refusals that count are :meth:`RateLimits.count_auth_failure`'s.
    Other requests go through untouched."""

    def __init__(self, app: ASGIApp, rates: RateLimits) -> None:
        self.app, self.rates = app, rates

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] in ("http", "websocket") and self.rates.auth_failure_rates
                and presents_credentials(scope)):
            try:
                self.rates.admit_credentials(scope)
            except RateLimited as e:
                await refuse_request(scope, receive, send, 429, e.detail, "rate-limited",
                                     {"Retry-After": str(e.retry_after_s)})
                return
        await self.app(scope, receive, send)


#: The largest header section (names, values and 4 bytes a line for ": " and CRLF) the gateway
#: takes, bytes: half the server's limit (:data:`services.runner.HTTP_HEAD_BYTES`), so that a
#: header section up to twice this size is refused in the gateway's shape.
MAX_HEADER_BYTES = 32_768


class HeaderLimit:
    """ASGI middleware refusing an HTTP request whose header section is over ``max_bytes``:
    431 ``headers-too-large`` (RFC 6585), before anything reads it (a WebSocket handshake is
    left to the server's limit)."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_HEADER_BYTES) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            size = sum(len(k) + len(v) + 4 for k, v in scope.get("headers") or ())
            if size > self.max_bytes:
                await error_response(431, f"the request's headers are {size:,} bytes, over the "
                                          f"gateway's limit of {self.max_bytes:,}",
                                     code="headers-too-large")(scope, receive, send)
                return
        await self.app(scope, receive, send)


#: Methods whose requests carry no body unless their headers announce one.
_BODILESS = frozenset({"GET", "HEAD", "OPTIONS"})


class BodyLimit:
    """ASGI middleware refusing a request whose body is over ``max_bytes``: 413 ``too-large``
    at once when its ``Content-Length`` says so (the body is not read), else as soon as the
    bytes received pass the limit (a chunked body: the rest is not read). A body within the
    limit is handed to the app unchanged (read whole first); a GET, HEAD or OPTIONS without
    ``Content-Length`` or ``Transfer-Encoding`` goes through untouched."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers") or ()) if scope["type"] == "http" else {}
        if scope["type"] != "http" or (scope["method"] in _BODILESS and b"content-length" not in headers
                                       and b"transfer-encoding" not in headers):
            await self.app(scope, receive, send)  # no body: an SSE stream keeps its receive
            return
        declared = headers.get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(scope, receive, send, int(declared))
            return
        chunks, total = [], 0
        while True:
            msg = await receive()
            if msg["type"] != "http.request":  # the client went away: let the app see it
                await self.app(scope, _replay([msg], receive), send)
                return
            chunks.append(msg.get("body", b""))
            total += len(chunks[-1])
            if total > self.max_bytes:
                await self._refuse(scope, receive, send, None)
                return
            if not msg.get("more_body", False):
                break
        whole = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([whole], receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, size: int | None) -> None:
        said = f"is {size:,} bytes" if size is not None else "goes on past"  # chunked: not known
        await error_response(413, f"the request body {said}, over the gateway's limit of "
                                  f"{self.max_bytes:,} bytes", code="too-large")(scope, receive, send)


def _replay(first: list[Message], receive: Receive) -> Receive:
    """A ``receive`` giving the ``first`` messages, then the connection's own."""
    pending = list(first)

    async def replayed() -> Message:
        return pending.pop(0) if pending else await receive()

    return replayed


def install_limits(app: Any, cfg: HttpLimits, rates: RateLimits) -> None:
    """Add the body and header size limits, the limit of failed authentications (``rates``',
    outside the body limit: a refused address's body is not read) and (with
    ``cfg.cors_origins``) CORS to FastAPI ``app``: CORS outermost, so that a refusal carries its
    headers too. Browsers may send the headers of :data:`CORS_HEADERS` with GET and POST and
    read ``Retry-After``; no cookies."""
    app.add_middleware(BodyLimit, max_bytes=cfg.max_body_bytes)
    app.add_middleware(AuthFailureLimit, rates=rates)
    app.add_middleware(HeaderLimit)
    if cfg.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=list(cfg.cors_origins),
                           allow_methods=["GET", "POST"], allow_headers=list(CORS_HEADERS),
                           expose_headers=["Retry-After"], max_age=600)
