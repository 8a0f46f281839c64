"""Identity: who sends a request to the gateway, read from a bearer token (JWT, HS256, PyJWT).

A token is signed with the deployment's ``ARBITER_JWT_SECRET`` (:mod:`shared.config`, at least
32 characters) and carries these claims:

- ``sub``: the principal's id (a player's player id; ``[A-Za-z0-9_-]{1,80}``);
- ``role``: one of :data:`ROLES` (``admin``, ``organiser``, ``arbiter``, ``player``,
  ``integrator``);
- ``events``: the tournament ids the token may act in (``"*"``: every event, and for an arbiter
  or a player also the games outside any tournament); ignored for ``admin``;
- ``chief``: an arbiter token's chief-arbiter flag (corrections in a finished event, deputies);
- ``iat``, ``exp`` (epoch seconds, expiry enforced against the wall clock with
  :data:`LEEWAY_S` of skew), ``jti`` (a random id naming the token in the gateway's log).

Tokens are issued by ``arbiter token issue`` (needs the secret: the explicit bootstrap of an
administrator and of anyone else; ``arbiter admin create`` for the administrator) and by the
gateway's ``POST /tournaments/{tid}/tokens`` (an event's organiser for its players and
arbiters). Tokens are not stored: a token is valid until it expires or is revoked
(``POST /tokens/revocations``: a :class:`~contracts.messages.RevokeToken` on the log, folded by
every gateway into :class:`Revocations`; a revoked token is 401 ``token-revoked``).

Every refusal is an :class:`AuthError` with an HTTP status (401: no, expired, forged or
malformed credentials) and a ``code`` the client can act on.
"""
from __future__ import annotations

import re
import secrets
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import parse_qs

import jwt

from contracts.envelope import Actor

ROLES = ("admin", "organiser", "arbiter", "player", "integrator")
#: The ``events`` entry that stands for every event (and the games outside any event).
ALL_EVENTS = "*"
ALGORITHM = "HS256"
#: Clock skew tolerated between the issuer and the gateway (seconds).
LEEWAY_S = 30
#: The longest lifetime a token may be issued with (seconds; one year and a day).
MAX_TTL_S = 366 * 86_400
#: Shortest secret accepted (characters; RFC 7518 3.2: an HS256 key of at least 256 bits).
MIN_SECRET_CHARS = 32
#: The longest bearer token the gateway reads and :func:`issue_token` makes (characters; a
#: token is ASCII): room for about 70 events of 80-character ids, or 300 of 12; a quarter of
#: the gateway's header limit (:data:`services.gateway.limits.MAX_HEADER_BYTES`). Longer:
#: 401 ``token-malformed``.
MAX_TOKEN_CHARS = 8_192
_ID = re.compile(r"^[A-Za-z0-9_\-]{1,80}$")
_JTI = re.compile(r"^[A-Za-z0-9_\-]{1,64}$")
_TTL = re.compile(r"^\s*(\d+)\s*([smhd]?)\s*$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86_400}


class AuthError(Exception):
    """A request refused for its credentials or its rights: ``status`` (401 or 403), ``code``
    (e.g. ``token-expired``, ``not-your-game``) and a ``detail`` saying why."""

    def __init__(self, status: int, code: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.code, self.detail = status, code, detail


@dataclass(frozen=True)
class Principal:
    """An authenticated caller: ``role`` (one of :data:`ROLES`), ``sub`` (its id), ``events``
    (tournament ids it may act in, :data:`ALL_EVENTS` for all), ``chief`` (chief arbiter of
    those events), the token's ``jti`` and ``exp`` (epoch s; both None for the administrator's
    static token)."""

    role: str
    sub: str
    events: frozenset[str] = field(default_factory=frozenset)
    chief: bool = False
    jti: str | None = None
    exp: int | None = None

    def in_event(self, tid: str | None) -> bool:
        """True when the token's ``events`` cover tournament ``tid`` (None: a game outside any
        tournament, covered by :data:`ALL_EVENTS` only)."""
        return ALL_EVENTS in self.events or (tid is not None and tid in self.events)


def tokens_equal(given: str, expected: str) -> bool:
    """Constant-time comparison of two header values as UTF-8 bytes: any character (a
    non-ASCII one too, which :func:`secrets.compare_digest` refuses as ``str``) is compared,
    never raises."""
    return secrets.compare_digest(given.encode("utf-8", "surrogatepass"),
                                  expected.encode("utf-8", "surrogatepass"))


def parse_ttl(text: str) -> int:
    """A lifetime such as ``30d``, ``12h``, ``15m``, ``90s`` or ``3600`` as seconds (int).
    Raises ``ValueError`` for another shape, zero, or more than :data:`MAX_TTL_S`."""
    m = _TTL.match(text)
    if not m:
        raise ValueError(f"a lifetime is a number with s, m, h or d (e.g. 30d, 12h), not {text!r}")
    return check_ttl(int(m.group(1)) * _UNITS[m.group(2)])


def check_ttl(ttl_s: int) -> int:
    """``ttl_s`` when 1 <= ttl_s <= :data:`MAX_TTL_S`, else ``ValueError``."""
    if not 1 <= ttl_s <= MAX_TTL_S:
        raise ValueError(f"a token lives 1 s to {MAX_TTL_S // 86_400} days, not {ttl_s} s")
    return ttl_s


def check_claims(role: str, sub: str, events: tuple[str, ...] | list[str], chief: bool, ttl_s: int) -> None:
    """The limits of a token's claims, which :func:`issue_token` mints within and
    :func:`read_token` holds a token to (one signed with the real secret by other means is no
    token of ours): ``ValueError`` naming the first broken one: an unknown ``role``, a ``sub``
    or event id outside ``[A-Za-z0-9_-]{1,80}`` (events may be :data:`ALL_EVENTS`),
    :data:`ADMIN_ID` in another role than admin, ``chief`` on a role other than arbiter, a
    lifetime ``ttl_s`` (s) out of :func:`check_ttl`'s range."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    if not _ID.match(sub):
        raise ValueError(f"sub must match [A-Za-z0-9_-]{{1,80}}, not {sub!r}")
    if sub == ADMIN_ID and role != "admin":
        raise ValueError(f"the id {ADMIN_ID!r} is the platform administrator's: no {role} token carries it")
    bad = [e for e in events if e != ALL_EVENTS and not _ID.match(e)]
    if bad:
        raise ValueError(f"event ids must match [A-Za-z0-9_-]{{1,80}} or be '*': {bad[:5]}")
    if chief and role != "arbiter":
        raise ValueError("only an arbiter token may carry chief")
    check_ttl(ttl_s)


def issue_token(secret: str, role: str, sub: str, events: tuple[str, ...] | list[str] = (), *,
                ttl_s: int, chief: bool = False, now_s: float | None = None) -> str:
    """A signed token (compact JWS, ASCII) for ``sub`` in ``role``, valid ``ttl_s`` seconds from
    ``now_s`` (epoch seconds, default the wall clock). Raises ``ValueError`` for a secret
    shorter than :data:`MIN_SECRET_CHARS` or claims out of :func:`check_claims`'s limits."""
    if len(secret) < MIN_SECRET_CHARS:
        raise ValueError(f"the signing secret must have at least {MIN_SECRET_CHARS} characters")
    check_claims(role, sub, events, chief, ttl_s)
    now = int(time.time() if now_s is None else now_s)
    claims = {"sub": sub, "role": role, "events": sorted(set(events)), "iat": now,
              "exp": now + ttl_s, "jti": uuid.uuid4().hex}
    if chief:
        claims["chief"] = True
    token = jwt.encode(claims, secret, algorithm=ALGORITHM)
    if len(token) > MAX_TOKEN_CHARS:
        raise ValueError(f"a token of {len(events)} events has {len(token):,} characters, over "
                         f"the gateway's limit of {MAX_TOKEN_CHARS:,}: give fewer events (or '*')")
    return token


def read_token(secret: str, token: str, *, expired_ok: bool = False) -> Principal:
    """The :class:`Principal` of a bearer token signed with ``secret`` (``expired_ok``: also
    past its expiry, to revoke it). Raises :class:`AuthError` 401 with code ``token-expired``
    (past ``exp`` plus :data:`LEEWAY_S`), ``token-forged`` (the signature does not verify:
    another secret, or edited claims), or ``token-malformed`` (not a JWT, another algorithm, a
    claim missing or of the wrong shape, or claims :func:`issue_token` never makes:
    :func:`check_claims`, e.g. ``exp - iat`` over :data:`MAX_TTL_S`)."""
    try:
        claims = jwt.decode(token, secret, algorithms=[ALGORITHM], leeway=LEEWAY_S,
                            options={"require": ["sub", "role", "exp", "iat", "jti"],
                                     "verify_exp": not expired_ok})
    except jwt.ExpiredSignatureError:
        raise AuthError(401, "token-expired", "the bearer token has expired") from None
    except jwt.InvalidSignatureError:
        raise AuthError(401, "token-forged", "the bearer token's signature does not verify") from None
    except jwt.PyJWTError as e:
        raise AuthError(401, "token-malformed", f"the bearer token is not usable: {e}"[:300]) from None
    except (TypeError, ValueError) as e:  # defensive: a library error on strange input, never a 500
        raise AuthError(401, "token-malformed", f"the bearer token is not usable: {type(e).__name__}") from None
    role, sub, events = claims.get("role"), claims.get("sub"), claims.get("events", [])
    chief = claims.get("chief", False)
    if (not isinstance(sub, str) or not isinstance(events, list) or not all(isinstance(e, str) for e in events)
            or not isinstance(chief, bool) or not isinstance(claims.get("jti"), str)
            or not _JTI.match(claims["jti"]) or not isinstance(claims["exp"], int)
            or not isinstance(claims["iat"], int)):
        raise AuthError(401, "token-malformed", "the bearer token's claims are not role, sub, "
                                                "events, chief, jti, iat, exp as issued")
    try:
        check_claims(role, sub, events, chief, claims["exp"] - claims["iat"])
    except ValueError as e:
        raise AuthError(401, "token-malformed", f"the bearer token is none the gateway issues: {e}") from None
    return Principal(role, sub, frozenset(events), chief, claims["jti"], claims["exp"])


def query_token(query: bytes) -> str | None:
    """The ``access_token`` parameter of a request's raw query string (RFC 6750 2.3: browsers'
    EventSource and WebSocket cannot send a header), None when absent or blank."""
    if b"access_token" not in query:  # (most requests: no parse)
        return None
    got = parse_qs(query.decode("latin-1")).get("access_token")
    return got[0] if got else None


def bearer(authorization: str) -> str:
    """The token of an ``Authorization: Bearer <token>`` header value; :class:`AuthError` 401
    ``token-malformed`` for another scheme or shape, or a token over :data:`MAX_TOKEN_CHARS`."""
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise AuthError(401, "token-malformed", "Authorization must be 'Bearer <token>'")
    if len(token := token.strip()) > MAX_TOKEN_CHARS:
        raise AuthError(401, "token-malformed", f"the bearer token has {len(token):,} characters, "
                                                f"over the gateway's limit of {MAX_TOKEN_CHARS:,}")
    return token


# ------------------------------------------------------------------------------------ the rules
# Who may do what once identity is on (the gateway calls these with the read model's facts).
# The actor recorded is the principal's id with the capacity it acts in: an administrator acts
# as an arbiter (``arbiter:<sub>``: the services accept arbiter-only commands from kind
# ``arbiter``), an organiser as ``organiser:<sub>``, a player as ``player:<sub>``.

#: The administrator's id in the log (the ``X-Arbiter-Token``'s, and an admin token's whose sub
#: is ``admin``); no other role's token may carry it, and another admin token is recorded as
#: ``admin:<sub>`` (``:`` is in no other id), so nobody can act under the administrator's name.
ADMIN_ID = "admin"


def _actor(p: Principal, kind: str) -> Actor:
    if p.role != "admin":
        return Actor(kind=kind, id=p.sub)
    return Actor(kind="arbiter", id=ADMIN_ID if p.sub == ADMIN_ID else f"{ADMIN_ID}:{p.sub}")


def may_arbitrate(p: Principal, tid: str | None) -> bool:
    """The administrator, or an arbiter whose ``events`` cover tournament ``tid`` (None: a game
    outside any tournament, only ``"*"`` covers it)."""
    return p.role == "admin" or (p.role == "arbiter" and p.in_event(tid))


def may_organise(p: Principal, tid: str | None, created_by: str | None) -> bool:
    """The administrator, or an organiser who created tournament ``tid`` (``created_by`` is
    the creation's actor, ``kind:id``) or whose ``events`` cover it."""
    return p.role == "admin" or (p.role == "organiser" and (
        created_by == f"organiser:{p.sub}" or p.in_event(tid)))


def arbiter_actor(p: Principal, tid: str | None, code: str = "not-your-event") -> Actor:
    """The actor of an arbiter-only command (or field: ``at_ms``, a recorded time) in tournament
    ``tid`` (None: a game outside any); :class:`AuthError` 403 ``code`` for anyone else."""
    if may_arbitrate(p, tid):
        return _actor(p, "arbiter")
    where = f"event {tid}" if tid else "games outside any event (an arbiter token with events ['*'])"
    raise AuthError(403, code, f"{p.role} {p.sub} is not an arbiter of {where}")


def organiser_actor(p: Principal, tid: str | None, created_by: str | None) -> Actor:
    """The actor of an organiser command in tournament ``tid`` (see :func:`may_organise`);
    :class:`AuthError` 403 ``not-your-event`` for anyone else."""
    if may_organise(p, tid, created_by):
        return _actor(p, "organiser")
    raise AuthError(403, "not-your-event", f"{p.role} {p.sub} does not organise event {tid}")


def with_article(role: str) -> str:
    """``role`` with its indefinite article for a refusal's detail: ``"an organiser"``,
    ``"a player"``."""
    return f"{'an' if role[:1] in 'aeiou' else 'a'} {role}"


def official_actor(p: Principal, tid: str | None, created_by: str | None) -> Actor:
    """The actor of a command the event's organiser or one of its arbiters may send (a round's
    start, a waiting game's start): the organiser (:func:`may_organise`; for a game outside any
    event, its creator) as ``organiser``, an arbiter of the event (:func:`may_arbitrate`) as
    ``arbiter``; :class:`AuthError` 403 ``not-your-event`` for anyone else."""
    if may_arbitrate(p, tid):
        return _actor(p, "arbiter")
    if may_organise(p, tid, created_by):
        return _actor(p, "organiser")
    where = f"event {tid}" if tid else "this game (its creator or an arbiter with events ['*'])"
    raise AuthError(403, "not-your-event", f"{p.role} {p.sub} neither organises nor arbitrates {where}")


def bulk_creator_actor(p: Principal, tid: str | None, created_by: str | None) -> Actor:
    """The actor creating a bulk pairing's games (in tournament ``tid``, None: outside any):
    the administrator, an organiser (of ``tid`` when given: :func:`may_organise`) or an
    integrator (whose token's ``events`` cover ``tid``; outside any event, ``*``), as lichess's
    bulk pairing is the integrators'. :class:`AuthError` 403 ``organisers-only`` for another
    role, ``not-your-event`` outside his events."""
    if p.role not in ("admin", "organiser", "integrator"):
        raise AuthError(403, "organisers-only", f"bulk pairings are created by organisers, "
                                                f"integrators and the administrator, not {with_article(p.role)}")
    if p.role == "admin" or (p.role == "organiser" and (tid is None or may_organise(p, tid, created_by))):
        return _actor(p, "organiser")
    if p.role == "integrator" and p.in_event(tid):
        return Actor(kind="integrator", id=p.sub)
    where = f"event {tid}" if tid else "games outside any event (a token with events ['*'])"
    raise AuthError(403, "not-your-event", f"{p.role} {p.sub} may not pair {where}")


def may_start_bulk(p: Principal, creator: str | None) -> Actor:
    """The actor starting a bulk pairing's waiting games: the administrator, or its creator
    (``creator``: the CreateGame actor, ``kind:id``). :class:`AuthError` 403 ``not-your-bulk``."""
    if p.role == "admin":
        return _actor(p, "arbiter")
    kind = "organiser" if p.role == "organiser" else p.role
    if creator == f"{kind}:{p.sub}":
        return Actor(kind=kind, id=p.sub)  # type: ignore[arg-type]
    raise AuthError(403, "not-your-bulk", f"{p.role} {p.sub} did not create this bulk pairing")


def creator_actor(p: Principal) -> Actor:
    """The actor creating an event or a game: the administrator or an organiser (who then
    organises what he created); :class:`AuthError` 403 ``organisers-only`` for anyone else."""
    if p.role in ("admin", "organiser"):
        return _actor(p, "organiser")
    raise AuthError(403, "organisers-only", f"only an organiser or the administrator creates "
                                            f"events and games, not {with_article(p.role)}")


def player_actor(p: Principal, player_id: str, seats: tuple[str | None, str | None],
                 tid: str | None) -> Actor:
    """The actor of a player's command naming ``player_id`` in a game of tournament ``tid``
    whose ``seats`` are (white, black): the arbiter of the event (or the administrator) acting
    for him, else the player himself, in his own game, in an event his token covers. Raises
    :class:`AuthError` 403: ``not-your-event`` (an arbiter of other events), ``players-only``
    (an organiser or integrator), ``not-yourself``
    (another player's id), ``not-your-game`` (he does not sit at this game),
    ``not-your-event`` (the game's event is not among the token's)."""
    if may_arbitrate(p, tid):
        return _actor(p, "arbiter")
    if p.role == "arbiter":
        arbiter_actor(p, tid)  # raises: he arbitrates other events
    if p.role != "player":
        raise AuthError(403, "players-only", f"{with_article(p.role)} does not act for a player here")
    if p.sub != player_id:
        raise AuthError(403, "not-yourself", f"a player acts only for himself: this token is "
                                             f"{p.sub}'s, the command names {player_id}")
    if p.sub not in seats:
        raise AuthError(403, "not-your-game", f"{p.sub} does not play this game")
    if not p.in_event(tid):
        raise AuthError(403, "not-your-event", f"{p.sub}'s token does not cover "
                                               f"{'event ' + tid if tid else 'games outside an event'}")
    return Actor(kind="player", id=p.sub)


def corrector_actor(p: Principal, tid: str, finished: bool) -> Actor:
    """The actor correcting a result in tournament ``tid``: an arbiter of the event; once the
    event is ``finished`` only its chief arbiter (a ``chief`` arbiter token covering it) or the
    administrator. :class:`AuthError` 403 ``not-your-event`` or ``chief-arbiter-only``."""
    actor = arbiter_actor(p, tid)
    if finished and p.role != "admin" and not p.chief:
        raise AuthError(403, "chief-arbiter-only", f"event {tid} is finished: only its chief "
                                                   "arbiter or the administrator corrects a result")
    return actor


def may_issue(p: Principal, role: str, chief: bool, tid: str, created_by: str | None) -> None:
    """Whether ``p`` may issue event ``tid``'s tokens of ``role`` (player or arbiter, ``chief``):
    the administrator or the event's organiser (:func:`may_organise`) any of them, the event's
    chief arbiter deputies (arbiter, not chief). :class:`AuthError` 403 ``not-your-event``."""
    if may_organise(p, tid, created_by):
        return
    if role == "arbiter" and not chief and p.role == "arbiter" and p.chief and p.in_event(tid):
        return
    raise AuthError(403, "not-your-event", f"{p.role} {p.sub} may not issue {role} tokens for "
                                           f"event {tid}")


# ---------------------------------------------------------------------------------- revocation
class Revocations:
    """The revoked tokens, folded in log order from the :class:`~contracts.messages.RevokeToken`
    commands: ``until`` maps a token's ``jti`` to its expiry (epoch s). A revocation is
    forgotten once the token has expired (past its expiry plus :data:`LEEWAY_S` at the event
    time of a later revocation): the same input gives the same set on every gateway."""

    def __init__(self) -> None:
        self.until: dict[str, int] = {}

    def apply(self, jti: str, expires_at_s: int, at_s: int) -> None:
        """Fold the revocation of ``jti`` (expiring at ``expires_at_s``) recorded at ``at_s``."""
        self.until[jti] = max(self.until.get(jti, 0), expires_at_s)
        for old in [j for j, exp in self.until.items() if exp + LEEWAY_S < at_s]:
            del self.until[old]

    def revoked(self, jti: str | None) -> bool:
        """True when token ``jti`` was revoked (None, the static administrator token: never)."""
        return jti is not None and jti in self.until


def may_revoke(p: Principal, target: Principal, created_by: dict[str, str | None]) -> None:
    """Whether ``p`` may revoke token ``target``: the administrator any; its holder his own
    (the same ``jti``); an organiser a player's or arbiter's token whose ``events`` are all
    events he organises (:func:`may_organise`; ``created_by``: each event's creator, None for
    an unknown event). :class:`AuthError` 403 ``not-your-token`` for anyone else."""
    if p.role == "admin" or (p.jti is not None and p.jti == target.jti):
        return
    scoped = target.events and ALL_EVENTS not in target.events
    if (p.role == "organiser" and target.role in ("player", "arbiter") and scoped
            and all(may_organise(p, t, created_by.get(t)) for t in target.events)):
        return
    raise AuthError(403, "not-your-token", f"{p.role} {p.sub} may not revoke {target.role} "
                                           f"{target.sub}'s token")


def revoker_actor(p: Principal) -> Actor:
    """The actor recorded on a revocation by ``p``: the capacity its role acts in (the
    administrator as ``arbiter``). An integrator has no actor kind on the log: its token is
    revoked by the administrator (:class:`AuthError` 403 ``admins-only``)."""
    if p.role == "integrator":
        raise AuthError(403, "admins-only", "an integrator's token is revoked by the administrator")
    return _actor(p, p.role)


# ------------------------------------------------------------------------------------ webhooks
def subscriber_actor(p: Principal, tid: str | None, created_by: str | None,
                     scope_all: bool = False) -> tuple[Actor, tuple[str, ...]]:
    """The owner recorded on a webhook subscription by ``p`` and the events it covers: a
    subscription to an event ``tid`` or one of its games (None: a game outside any event), or
    (``scope_all``) to everything ``p`` may read. The administrator any (``arbiter:<sub>``, all
    events); an integrator (``integrator:<sub>``) or an organiser (``organiser:<sub>``) within
    his token's ``events`` (an organiser also the events he created: ``created_by``); the
    events of ``scope_all`` are the token's (another scope's: ``*``, the scope bounds it). :class:`AuthError` 403 ``integrators-only`` for
    another role, ``not-your-event`` outside them."""
    if p.role == "admin":
        return _actor(p, "arbiter"), (ALL_EVENTS,)
    if p.role not in ("integrator", "organiser"):
        raise AuthError(403, "integrators-only", f"webhooks are for integrators, organisers and the "
                                                 f"administrator, not {with_article(p.role)}")
    actor = Actor(kind=p.role, id=p.sub)
    if scope_all:
        if not p.events:
            raise AuthError(403, "not-your-event", f"{p.role} {p.sub}'s token covers no event")
        return actor, tuple(sorted(p.events))
    if p.in_event(tid) or (p.role == "organiser" and tid is not None and may_organise(p, tid, created_by)):
        return actor, (ALL_EVENTS,)  # the scope itself bounds what is delivered
    where = f"event {tid}" if tid else "games outside any event (a token with events ['*'])"
    raise AuthError(403, "not-your-event", f"{p.role} {p.sub} may not read {where}")


def owns_subscription(p: Principal, owner: Actor) -> bool:
    """True when ``p`` is the administrator or registered the subscription owned by ``owner``."""
    return p.role == "admin" or (p.role in ("integrator", "organiser")
                                 and owner == Actor(kind=p.role, id=p.sub))
