"""Read scopes (issue 12 item 2): who may read what, enforced at the gateway's edge.

Identity off (no ``ARBITER_JWT_SECRET``): every read is open, as every write (loopback only).
Identity on, a read carries no token or one (``Authorization: Bearer <token>``, or
``?access_token=<token>`` for browsers' EventSource and WebSocket, RFC 6750 2.3); a token that
is expired, forged, malformed or revoked is 401 even on a public read. Three levels:

- **public** (no token): what a federation's public event pages show: games, events, lists,
  standings, crosstables, game feeds, exports (TRF, PGN, SGF) of public events;
- **event** (:func:`may_read_event`: the administrator, the event's organiser, its arbiters,
  and players and integrators whose token's ``events`` cover it): every read of an event
  created ``public: false`` (an unpublished event) and of its games; 401 ``read-scope``
  without a token, 403 ``not-your-event`` with another's;
- **private** (:func:`may_read_private`: the administrator, the event's organiser and
  arbiters, integrators whose token covers it, e.g. a rating office): the players' private
  fields, FIDE id, birth date and sex (:data:`PRIVATE_FIELDS`): in ``GET /tournaments/{tid}``
  and the TRF they are blank without this scope, and the event's message feeds
  (``/feeds/tournament|event/{tid}``, ``/tournaments/{tid}/events``) leave the registrations
  out (:data:`PRIVATE_TYPES`: the organiser's RegisterPlayer command carries the same fields as
  the PlayerRegistered it causes; the messages are the log's, unedited, so that their chains
  verify).

The browser's pages (``/ui/tournaments/{tid}``, ``/ui/games/{gid}``...) are shells that carry
no data of the event (a browser opening a link sends no bearer token): their scripts read the
routes above with the token the visitor signed in with.

Not reads of an event, with their own rules: webhook subscriptions and their delivery logs
(the owner or the administrator, :mod:`.webhooks`), bulk pairings' status (the creator,
:mod:`.bulk`); tokens are never readable (issued once, not stored).

:class:`ReadScopes` (ASGI middleware) resolves the event a ``GET`` or WebSocket path names
(:data:`PATHS`), refuses, and leaves ``reader`` (the principal or None) and ``private_ok`` in
the request's ``state`` for the handlers that redact and filter.
"""
from __future__ import annotations

import re
from typing import Any

from services.gateway import identity
from services.gateway.errors import refuse_request
from services.gateway.identity import AuthError, Principal

#: PlayerRegistered's fields only the private scope reads.
PRIVATE_FIELDS = ("fide_id", "birth_date", "sex")
#: The message types that carry :data:`PRIVATE_FIELDS`: the registration command and its event.
PRIVATE_TYPES = frozenset({"RegisterPlayer", "PlayerRegistered"})
#: The reads naming one event: the path's pattern and what its ``id`` group is.
PATHS = (
    (re.compile(r"^/tournaments/(?P<id>[A-Za-z0-9_\-]{1,80})(?:/.*)?$"), "tournament"),
    (re.compile(r"^/feeds/(?:tournament|event)/(?P<id>[A-Za-z0-9_\-]{1,80})$"), "tournament"),
    (re.compile(r"^/games/(?P<id>[A-Za-z0-9_\-]{1,80})(?:/.*)?$"), "game"),
    (re.compile(r"^/feeds/game/(?P<id>[A-Za-z0-9_\-]{1,80})$"), "game"),
)


def may_read_event(p: Principal | None, tid: str, created_by: str | None) -> bool:
    """The event scope: the administrator, the event's organiser (:func:`identity.may_organise`)
    or anyone whose token's ``events`` cover ``tid`` (arbiters, players, integrators)."""
    return p is not None and (identity.may_organise(p, tid, created_by) or p.in_event(tid))


def may_read_private(p: Principal | None, tid: str, created_by: str | None) -> bool:
    """The private scope: the administrator, the event's organiser, its arbiters, integrators
    whose token covers it (not players: another player's birth date is not theirs)."""
    return p is not None and (identity.may_organise(p, tid, created_by) or identity.may_arbitrate(p, tid)
                              or (p.role == "integrator" and p.in_event(tid)))


def event_of(gw: Any, path: str) -> str | None:
    """The tournament id the read ``path`` names (directly, or as the event of the game it
    names), None for another path or an unknown id."""
    for pattern, kind in PATHS:
        m = pattern.match(path)
        if m:
            if kind == "tournament":
                return m["id"]
            g = gw.rm.game(m["id"])
            return g.tournament_id if g is not None else None
    return None


def reader_of(gw: Any, headers: dict[bytes, bytes], query: bytes) -> Principal | None:
    """The principal of a read: its bearer token (header, else ``access_token``), None for
    none; :class:`AuthError` 401 for a bad or revoked one."""
    auth = headers.get(b"authorization")
    token = identity.bearer(auth.decode("latin-1")) if auth is not None else identity.query_token(query)
    if token is None:
        return None
    p = identity.read_token(gw.jwt_secret, token)
    if gw.rm.revoked.revoked(p.jti):
        raise AuthError(401, "token-revoked", "the bearer token has been revoked")
    return p


def visible(gw: Any, reader: Principal | None, tid: str | None) -> bool:
    """Whether ``reader`` may see event ``tid``'s reads (None, a public or an unknown event:
    yes); identity off: yes."""
    t = gw.rm.tournament(tid) if tid else None
    return (gw.jwt_secret is None or t is None or t.public
            or may_read_event(reader, t.tournament_id, t.created_by))


def private_ok(request: Any) -> bool:
    """Whether the request may read the private fields of the event it names (set by
    :class:`ReadScopes`; True where it did not run: identity off, or not a read)."""
    return getattr(request.state, "private_ok", True)


def reader(request: Any) -> Principal | None:
    """The principal of a read request (None: anonymous or identity off)."""
    return getattr(request.state, "reader", None)


class ReadScopes:
    """ASGI middleware enforcing the scopes above on ``GET``/``HEAD`` and WebSocket requests;
    refusals ``{"detail", "code"}`` (a WebSocket: the same JSON frame, close 4401/4403), a
    guessed token counted against the address's failed authentications
    (:meth:`~services.gateway.limits.RateLimits.count_auth_failure`)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        reading = scope["type"] == "websocket" or (scope["type"] == "http"
                                                   and scope.get("method") in ("GET", "HEAD"))
        gw = getattr(scope.get("app").state, "gateway", None) if scope.get("app") else None
        if not reading or gw is None or gw.jwt_secret is None:
            return await self.app(scope, receive, send)
        try:
            p = reader_of(gw, dict(scope.get("headers") or ()), scope.get("query_string", b""))
            tid = event_of(gw, scope["path"])
            t = gw.rm.tournament(tid) if tid else None
            if t is not None and not visible(gw, p, tid):
                raise (AuthError(401, "read-scope", f"event {tid} is not public: a token of the event reads it")
                       if p is None else
                       AuthError(403, "not-your-event", f"{p.role} {p.sub} may not read event {tid}"))
        except AuthError as e:
            gw.rates.count_auth_failure(scope, e.code)
            return await refuse_request(scope, receive, send, e.status, e.detail, e.code,
                                        {"WWW-Authenticate": "Bearer"} if e.status == 401 else None)
        state = scope.setdefault("state", {})
        state["reader"] = p
        state["private_ok"] = t is None or may_read_private(p, t.tournament_id, t.created_by)
        return await self.app(scope, receive, send)
