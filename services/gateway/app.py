"""The gateway: the HTTP face of Arbiter (FastAPI; OpenAPI at ``/docs``).

- Writes the commands, each gateway process on its own streams: ``game-<gid>.commands.<inst>``
  (topic ``arbiter.game.commands``) and ``tournament-<tid>.commands.<inst>``
  (``arbiter.tournament.commands``), gap-free ``seq`` from 1 per stream, ``<inst>`` an id drawn
  when the process starts: any number of gateways run side by side, each stream has one writer.
  The order that counts is the topic partition's, where all of an aggregate's commands meet.
- Chains every command stream (``chain``, :mod:`shared.chain`): each is written by this
  instance alone, so it knows the head; it signs nothing (the deciding process attests the
  heads it consumed), so no signing key lives in the process that faces the network.
- Stamps every command with its receive time (``occurred_at``, DESIGN.md invariant 2) and its
  actor. Identity on (``jwt_secret``, ARBITER_JWT_SECRET): every write needs a bearer token
  (``Authorization: Bearer <JWT>``) or the administrator's ``X-Arbiter-Token``, else 401; the
  roles of :mod:`services.gateway.identity` decide (403), before anything is published, and the
  actor is the principal (``player:<sub>``, ``arbiter:<sub>``, ``organiser:<sub>``; the
  administrator acts as ``arbiter:<sub>``). Identity off: the player named in the body, or the
  arbiter when the request carries ``X-Arbiter-Token`` equal to ``admin_token``; **with
  ``admin_token=None`` the arbiter endpoints are open** (development, demo and tests only).
- Read models (:mod:`services.gateway.readmodel`) fed by all four topics (every gateway reads
  everything: no consumer group), restored from their latest snapshot plus the log after it,
  and live pushes (:mod:`services.gateway.feeds`: SSE, NDJSON, WebSocket) per game,
  tournament and whole event.
- Bad input is a 4xx with ``{"detail": ...}`` and publishes nothing (invariant 4).

Usage::

    log = MemoryLog()
    app = create_app(log)
    # uvicorn.run(app)  /  async with app.router.lifespan_context(app): ...

With ``manage_log=False`` the caller starts and stops the log.
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import pickle
import re
import secrets
import time
import traceback
import uuid
import zlib
from collections import OrderedDict, defaultdict
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from inspect import Parameter, Signature
from pathlib import Path
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from fastapi import APIRouter, Depends, FastAPI, Header, Query, Request
from fastapi.security import HTTPBearer
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, Histogram, generate_latest
from pydantic import BaseModel, ConfigDict, Field, Strict, ValidationError, create_model

from contracts.envelope import Actor, Envelope, Payload, dt_of
from contracts.messages import (
    TOPICS,
    AcceptDead, AcceptDraw, ClaimDraw, CorrectResult, CreateGame, CreateTournament, DeclineDraw,
    DrawClaimRejected, DrawLots, FinishTournament, WithdrawPlayer,
    IssuePenalty, MarkDead, OfferDraw, PauseClock, RecordResult, RegisterPlayer, RejectDead,
    ReportAbsence, ReportArrival, Resign, ResumeClock, RuleDeadStones, RuleEndlessCycle, StartRound, SubmitLineup, SubmitMove,
    BeginRound, StartPlay, PlayerId, envelope,
)
from shared.chain import CHAIN_BYTES, canonical_text, chained
from shared.eventlog.base import MAX_EVENT_BYTES, Deduper, EventLog, Follower
from shared.heap import freeze_heap, paused_gc, serialised_in_child
from shared.sealing import snapshot_key, snapshot_keys, warn_without_key
from services.gateway import bounds, console, feeds, identity, readmodel, scopes, ui
from services.gateway.bulk import bulk_router
from services.gateway.exports import export_router, player_names
from services.gateway.docs import install_docs
from services.gateway.errors import (
    GameRefusal, HTTPError, Refusal, TournamentRefusal, claim_refusal, error_response, refusals,
)
from services.gateway.tokens import revocation_router
from services.gateway.organiser import organiser_router
from services.gateway.webhooks import webhook_router
from services.gateway.limits import HttpLimits, RateLimited, RateLimits, install_limits
from services.gateway.identity import AuthError, Principal, tokens_equal
from services.gateway.readmodel import ReadModel, Recorded

logger = logging.getLogger("arbiter.gateway")

COMMANDS = Counter("arbiter_gateway_commands_total", "Commands published", ["type"])
OUTCOMES = Counter("arbiter_gateway_outcomes_total", "Outcomes of waited commands", ["outcome"])
WAIT = Histogram("arbiter_gateway_command_seconds", "Publish to outcome of a command")
#: A publish waiting this long on the log makes the gateway not ready (/healthz 503; seconds).
PUBLISH_STALLED_S = 5.0
SNAPSHOT_SECONDS = Gauge("arbiter_gateway_snapshot_seconds", "Time to serialise and save the latest "
                         "read-model snapshot")
SNAPSHOT_BYTES = Gauge("arbiter_gateway_snapshot_bytes", "Size of the latest read-model snapshot")
def _fingerprint() -> str:
    """SHA-1 of the read model's (and its revocations', :mod:`.identity`), the tournament
    record's and the contracts' source: a snapshot of the read model made by other code is not
    taken up (the log is read from the start instead)."""
    h = hashlib.sha1(usedforsecurity=False)
    root = Path(__file__).resolve().parents[2]
    for f in [Path(readmodel.__file__).resolve(), Path(identity.__file__).resolve(),
              *sorted((root / "shared" / "domain").rglob("*.py")),
              *sorted((root / "contracts").rglob("*.py"))]:
        h.update(f.read_bytes())
    return h.hexdigest()


READMODEL_CODE = _fingerprint()


#: The snapshot's name in the log (Kafka: topic ``arbiter.snapshots.gateway``).
SNAPSHOT_NAME = "gateway"

#: The events by which a service refuses a command (nothing changed): the answer is a 4xx
#: (:func:`outcome`). Every ``...Rejected`` event of :mod:`contracts.messages` is here
#: (``tests/unit/test_gateway_refusals.py`` checks it).
REJECTIONS = {"MoveRejected", "GameCommandRejected", "TournamentCommandRejected", "DrawClaimRejected"}
ARBITER = Actor(kind="arbiter", id="arbiter")
ORGANISER = Actor(kind="organiser", id="organiser")
#: The administrator's static token (``X-Arbiter-Token``) when identity is on.
ADMIN = Principal("admin", "admin")


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


# --------------------------------------------------------------------------------- request bodies
def _strict(annotation: Any) -> Any:
    """``annotation`` made strict where it is int, float or bool (or one of them or None): JSON
    ``true`` is not the integer 1 and ``"2000"`` not a rating of 2000 (422, not a silent
    conversion: ``"default_time_s": true`` would forfeit a player after one second)."""
    kinds = set(get_args(annotation)) - {type(None)} if get_origin(annotation) in (Union, UnionType) \
        else {annotation}
    return Annotated[annotation, Strict()] if kinds and kinds <= {int, float, bool} else annotation


def _body(name: str, payload: type[Payload], drop: tuple[str, ...] = (),
          optional: tuple[str, ...] = (), at_ms: bool = True) -> type[BaseModel]:
    """A request body model with the fields of ``payload`` (minus ``drop``; ``optional`` ones
    default to None; numbers and booleans strict: :func:`_strict`; the bounds of
    :mod:`services.gateway.bounds`) and, for commands an arbiter may backdate, ``at_ms``."""
    fields: dict[str, Any] = {}
    for n, f in payload.model_fields.items():
        if n in drop:
            continue
        if n in optional:
            fields[n] = (_strict(bounds.bounded(n, f.annotation) | None),
                         Field(default=None, description=f.description))
        else:  # the contract's constraints and default, beside (not over) the bound's schema
            kind = _strict(bounds.bounded(n, f.annotation))
            fields[n] = (Annotated[kind, *f.metadata] if f.metadata else kind,
                         Field(default=f.default, default_factory=f.default_factory,
                               description=f.description))
    if at_ms:
        fields["at_ms"] = (_strict(int | None), Field(
            default=None, ge=0, le=bounds.MAX_AT_MS, description="Arbiter only: the recorded "
            "time (epoch ms, 1970 to 2100) to stamp instead of the receive time."))
    return create_model(name, __config__=ConfigDict(extra="forbid"),
                        __doc__=payload.__doc__, **fields)


CreateTournamentBody = _body("CreateTournamentBody", CreateTournament, optional=("tournament_id",),
                             at_ms=False)
RegisterPlayerBody = _body("RegisterPlayerBody", RegisterPlayer, drop=("tournament_id",), at_ms=False)
DrawLotsBody = _body("DrawLotsBody", DrawLots, drop=("tournament_id",), at_ms=False)
StartRoundBody = _body("StartRoundBody", StartRound, drop=("tournament_id",), at_ms=False)
BeginRoundBody = _body("BeginRoundBody", BeginRound, drop=("tournament_id",), at_ms=False)
StartPlayBody = _body("StartPlayBody", StartPlay, drop=("game_id",), at_ms=False)
LineupBody = _body("LineupBody", SubmitLineup, drop=("tournament_id",), at_ms=False)
WithdrawBody = _body("WithdrawBody", WithdrawPlayer, drop=("tournament_id",), at_ms=False)
FinishBody = _body("FinishBody", FinishTournament, drop=("tournament_id",), at_ms=False)
CorrectionBody = _body("CorrectionBody", CorrectResult, drop=("tournament_id", "game_id"), at_ms=False)
CreateGameBody = _body("CreateGameBody", CreateGame, optional=("game_id",), drop=("bulk_id",))
MoveBody = _body("MoveBody", SubmitMove, drop=("game_id",))
PlayerBody = _body("PlayerBody", Resign, drop=("game_id",))
ClaimBody = _body("ClaimBody", ClaimDraw, drop=("game_id",))
ResultBody = _body("ResultBody", RecordResult, drop=("game_id",))
PenaltyBody = _body("PenaltyBody", IssuePenalty, drop=("game_id",))
AbsenceBody = _body("AbsenceBody", ReportAbsence, drop=("game_id",))
MarkDeadBody = _body("MarkDeadBody", MarkDead, drop=("game_id",))
DeadRulingBody = _body("DeadRulingBody", RuleDeadStones, drop=("game_id",))
ArrivalBody = _body("ArrivalBody", ReportArrival, drop=("game_id",))
CycleRulingBody = _body("CycleRulingBody", RuleEndlessCycle, drop=("game_id",))
ClockPauseBody = _body("ClockPauseBody", PauseClock, drop=("game_id",))


class IssueTokensBody(BaseModel):
    """Tokens for an event's ``ids``: its registered players (``role`` player) or its arbiters
    (``role`` arbiter; ``chief`` makes them chief arbiters), valid ``ttl_s`` seconds (60 s to
    366 days, default 30 days)."""

    model_config = ConfigDict(extra="forbid")
    role: Literal["player", "arbiter"]
    ids: list[PlayerId] = Field(min_length=1, max_length=1000)
    ttl_s: Annotated[int, Strict()] = Field(default=30 * 86_400, ge=60, le=identity.MAX_TTL_S)
    chief: Annotated[bool, Strict()] = False


#: The bodies of the endpoints the organiser's pages write through (their forms' schemas).
ORGANISER_BODIES = {"create": CreateTournamentBody, "register": RegisterPlayerBody, "round": StartRoundBody,
                    "lots": DrawLotsBody, "finish": FinishBody, "tokens": IssueTokensBody}


@dataclass(frozen=True)
class CommandRoute:
    """One command endpoint: ``POST path`` publishes ``command``, built from the body and the
    path's game or tournament id, on that aggregate's command stream.

    ``role``: ``player`` (the actor is the player the body names; an arbiter's token acts as
    the arbiter), ``arbiter`` (403 without the arbiter token), ``organiser`` (the organiser,
    or the arbiter with the token) or ``official`` (the event's organiser or one of its
    arbiters; a game outside any event: its creator or an arbiter of every event). ``live``: refused with 409 once the game is over or the
    event finished (else only an unknown id is refused, 404). ``follow``: the answer also
    carries the decision the first event leads to (a claim's ruling, an absence's forfeit), or
    is that decision when it is a rejection."""

    path: str
    command: type[Payload]
    body: type[BaseModel]
    role: Literal["player", "arbiter", "organiser", "official"]
    live: bool = True
    follow: bool = False

    @property
    def aggregate(self) -> Literal["game", "tournament"]:
        return "game" if self.path.startswith("/games/") else "tournament"

    @property
    def tag(self) -> str:
        return "arbiter" if self.role == "arbiter" else f"{self.aggregate}s"


#: The command endpoints that differ only in path, command, role and body (creation and result
#: correction have handlers of their own in :func:`create_app`).
COMMAND_ROUTES = (
    CommandRoute("/tournaments/{tid}/players", RegisterPlayer, RegisterPlayerBody, "organiser"),
    CommandRoute("/tournaments/{tid}/lots", DrawLots, DrawLotsBody, "organiser"),
    CommandRoute("/tournaments/{tid}/rounds", StartRound, StartRoundBody, "organiser"),
    CommandRoute("/tournaments/{tid}/rounds/start", BeginRound, BeginRoundBody, "official"),
    CommandRoute("/tournaments/{tid}/lineups", SubmitLineup, LineupBody, "organiser"),
    CommandRoute("/tournaments/{tid}/withdrawals", WithdrawPlayer, WithdrawBody, "organiser"),
    CommandRoute("/tournaments/{tid}/finish", FinishTournament, FinishBody, "organiser"),
    CommandRoute("/games/{gid}/start", StartPlay, StartPlayBody, "official"),
    CommandRoute("/games/{gid}/moves", SubmitMove, MoveBody, "player"),
    CommandRoute("/games/{gid}/resign", Resign, PlayerBody, "player"),
    CommandRoute("/games/{gid}/draw/offer", OfferDraw, PlayerBody, "player"),
    CommandRoute("/games/{gid}/draw/accept", AcceptDraw, PlayerBody, "player"),
    CommandRoute("/games/{gid}/draw/decline", DeclineDraw, PlayerBody, "player"),
    CommandRoute("/games/{gid}/draw/claim", ClaimDraw, ClaimBody, "player", follow=True),
    CommandRoute("/games/{gid}/dead", MarkDead, MarkDeadBody, "player"),
    CommandRoute("/games/{gid}/dead/accept", AcceptDead, PlayerBody, "player"),
    CommandRoute("/games/{gid}/dead/reject", RejectDead, PlayerBody, "player"),
    CommandRoute("/games/{gid}/result", RecordResult, ResultBody, "arbiter"),
    CommandRoute("/games/{gid}/penalties", IssuePenalty, PenaltyBody, "arbiter", live=False),
    CommandRoute("/games/{gid}/absence", ReportAbsence, AbsenceBody, "arbiter", follow=True),
    CommandRoute("/games/{gid}/dead/ruling", RuleDeadStones, DeadRulingBody, "arbiter"),
    CommandRoute("/games/{gid}/arrival", ReportArrival, ArrivalBody, "arbiter"),
    CommandRoute("/games/{gid}/clock/pause", PauseClock, ClockPauseBody, "arbiter"),
    CommandRoute("/games/{gid}/clock/resume", ResumeClock, ClockPauseBody, "arbiter"),
    CommandRoute("/games/{gid}/cycle/ruling", RuleEndlessCycle, CycleRulingBody, "arbiter"),
)


@dataclass(frozen=True)
class CommandContext:
    """What every command request carries besides its body: ``wait`` for the outcome (else
    202 at once), the administrator's ``token`` (``X-Arbiter-Token``), the ``correlation`` id
    (``X-Correlation-Id``, a UUID) and the ``authorization`` header (``Bearer <JWT>``, read
    when identity is on: :mod:`services.gateway.identity`)."""

    wait: bool
    token: str | None
    correlation: str | None
    authorization: str | None = None


#: Declares the bearer scheme in the OpenAPI document (/docs "Authorize"); the header itself is
#: read by :func:`command_context`, so that a malformed one is a 401 saying so.
_BEARER = HTTPBearer(auto_error=False, scheme_name="bearer", description=(
    "JWT issued by `arbiter token issue` or POST /tournaments/{tid}/tokens (needed when the "
    "gateway runs with ARBITER_JWT_SECRET)"))


async def command_context(
        wait: bool = Query(default=True, description="wait for the outcome event (else 202 at once)"),
        x_arbiter_token: str | None = Header(default=None, alias="X-Arbiter-Token",
                                             description="The administrator's token (ARBITER_ADMIN_TOKEN)"),
        x_correlation_id: str | None = Header(default=None, alias="X-Correlation-Id",
                                              description="Optional UUID"),
        authorization: str | None = Header(default=None, include_in_schema=False),
        _scheme: Any = Depends(_BEARER)) -> CommandContext:
    """The :class:`CommandContext` of a request (a FastAPI dependency)."""
    return CommandContext(wait, x_arbiter_token, x_correlation_id, authorization)


def _short_id() -> str:
    return secrets.token_hex(4)


def _validation_detail(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors():
        loc = ".".join(str(x) for x in e.get("loc", ()))
        parts.append(f"{loc}: {e.get('msg')}" if loc else str(e.get("msg")))
    return "; ".join(parts) or "invalid request"


# -------------------------------------------------------------------------------------- the gateway
class Gateway:
    """State of one gateway process: the read model, command-stream seqs, waiters, SSE fan-out."""

    def __init__(self, log: EventLog, *, admin_token: str | None, now_ms: Callable[[], int],
                 wait_timeout: float = 5.0, snapshot_every_s: float | None = None,
                 load_snapshots: bool = True, jwt_secret: str | None = None,
                 limits: HttpLimits | None = None) -> None:
        self.log = log
        self.rates = RateLimits(limits or HttpLimits())
        self.admin_token = admin_token
        self.jwt_secret = jwt_secret  # set: identity on (bearer tokens, roles enforced)
        self.now_ms = now_ms
        self.wait_timeout = wait_timeout
        # One writer per stream: each gateway process writes its own command streams, named
        # after an instance id drawn at start (so any number of gateways run side by side, and
        # a restarted one starts new streams at seq 1 without reading the log).
        self.instance = secrets.token_hex(4)
        self._forget_snapshot()  # rm, dedupe, restored, snapshot_applied, snapshot_messages
        self.seqs: dict[str, int] = {}
        self.heads: dict[str, str] = {}  # command stream -> the chain of its last command
        self.streams: dict[str, str] = {}  # aggregate -> its command stream, after an uncertain publish
        self.locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self.waiters: dict[uuid.UUID, tuple[str, asyncio.Future]] = {}
        self.hub = feeds.Hub()  # the live subscribers of every feed (SSE, NDJSON, WebSocket)
        # first event caused by each recent message (to follow a chain, e.g. claim -> decision)
        self.effects: OrderedDict[uuid.UUID, Envelope] = OrderedDict()
        self.max_effects = 20_000
        self.ready = False
        self.publishing: dict[uuid.UUID, float] = {}  # command -> when its publish began (monotonic s)
        self.publish_failed: str | None = None  # the last publish's error, until one succeeds
        if snapshot_every_s is not None and not snapshot_every_s > 0:
            raise ValueError(f"snapshot_every_s must be a positive number of seconds, not {snapshot_every_s}")
        self.snapshot_every_s, self.load_snapshots = snapshot_every_s, load_snapshots
        self.snapshot_key = snapshot_key()
        self.follower: Follower | None = None
        self.replayed = 0  # messages read at start after the snapshot (or all of them)
        self._snapshotter: asyncio.Task | None = None

    # ------------------------------------------------------------------------------ consumption
    async def bootstrap(self) -> None:
        """Catch up before serving: the latest read-model snapshot (if any, authenticated and
        made by this read model's code), then the log after it up to its end now, then follow
        the log live from there. Without a snapshot the whole log is read: start-up then grows
        with the log. A snapshot that is ahead of the log (the log was reset, the snapshot
        topic kept) is dropped and the whole log read. The read model is long-lived and makes
        no reference cycles: the collector is off meanwhile and what it holds is frozen after
        (:mod:`shared.heap`)."""
        with paused_gc():
            start = await self._load_snapshot() if self.load_snapshots else {}
            try:
                msgs, ends = await self.log.read_tail(TOPICS, start)
                if any(o > ends.get(p, 0) for p, o in start.items()):
                    logger.warning("gateway: the read-model snapshot is ahead of the log (reset?); "
                                   "reading the whole log")
                    self._forget_snapshot()
                    start = {}
                    msgs, ends = await self.log.read_tail(TOPICS, start)
                for _, _, m in msgs:  # in log order: an aggregate's history as it happened
                    self.ingest(m)
                    self.replayed += 1
            except Exception:  # the broker is away: the feed catches up from the snapshot
                logger.warning("gateway: could not read the log at startup", exc_info=True)
                ends = start
        freeze_heap()
        self.follower = self.log.follow(TOPICS, {**start, **ends}, self.on_message)
        if self.snapshot_every_s:
            warn_without_key("gateway")
            self._snapshotter = asyncio.create_task(self._snapshots(), name="gateway-snapshots")

    async def _load_snapshot(self) -> dict:
        """Take up the latest snapshot: the read model, the deduper and the log positions it
        holds (returned; empty without a usable snapshot). Only a snapshot whose seal verifies
        under the deployment's key is unpickled (:mod:`shared.sealing`)."""
        try:
            blob = await self.log.load_snapshot(SNAPSHOT_NAME, snapshot_keys(), READMODEL_CODE)
            snap = pickle.loads(zlib.decompress(blob)) if blob else None
        except Exception:  # the broker is away, or a damaged snapshot: read the whole log
            logger.warning("gateway: the read-model snapshot is not loadable", exc_info=True)
            snap = None
        if not isinstance(snap, dict) or snap.get("code") != READMODEL_CODE:
            return {}
        self.rm, self.dedupe, self.restored = snap["rm"], snap["dedupe"], snap["positions"]
        self.snapshot_applied = self.snapshot_messages = self.rm.applied
        self.snapshot_positions = dict(snap["positions"])
        return dict(snap["positions"])

    def _forget_snapshot(self) -> None:
        """An empty read model and deduper, started from no snapshot: ``restored`` (the log
        positions of the snapshot taken up), ``snapshot_messages`` (the messages it held),
        ``snapshot_applied`` and ``snapshot_positions`` (what the latest snapshot holds)."""
        self.rm, self.dedupe, self.restored = ReadModel(), Deduper(), {}
        self.snapshot_applied = self.snapshot_messages = 0
        self.snapshot_positions: dict = {}

    async def _snapshots(self) -> None:
        """Every ``snapshot_every_s`` with something new (a message applied, or the log read
        further: the copies of the gateway's own commands, applied when they were sent, move
        only the positions): the read model, the deduper and the follower's positions as they
        are now, serialised by a forked child (:func:`shared.heap.serialised_in_child`) and
        saved in the log."""
        while True:
            await asyncio.sleep(self.snapshot_every_s)
            positions = dict(self.follower.positions)
            if self.rm.applied == self.snapshot_applied and positions == self.snapshot_positions:
                continue
            state = {"code": READMODEL_CODE, "rm": self.rm, "dedupe": self.dedupe, "positions": positions}
            applied = self.rm.applied
            try:
                t0 = time.perf_counter()
                blob = await serialised_in_child(state)
                await self.log.save_snapshot(SNAPSHOT_NAME, blob, self.snapshot_key, READMODEL_CODE)
                self.snapshot_applied, self.snapshot_positions = applied, positions
                SNAPSHOT_SECONDS.set(time.perf_counter() - t0)
                SNAPSHOT_BYTES.set(len(blob))
            except Exception:
                logger.exception("gateway: read-model snapshot failed; the next in %.0f s",
                                 self.snapshot_every_s)

    async def close(self) -> None:
        """Stop following the log and taking snapshots."""
        for t in (self._snapshotter,):
            if t is not None:
                t.cancel()
                await asyncio.gather(t, return_exceptions=True)
        if self.follower is not None:
            await self.follower.stop()

    async def on_message(self, topic: str, msg: Envelope) -> None:
        self.ingest(msg)

    def ingest(self, msg: Envelope) -> None:
        if self.dedupe.seen(msg):
            return
        self.dedupe.mark(msg)
        try:
            rec = self.rm.apply(msg)
        except Exception:  # a projection bug must not stop the gateway's consumer
            logger.error("gateway: read model failed on %s %s:%s\n%s", msg.type, msg.stream,
                         msg.seq, traceback.format_exc())
            rec = Recorded(msg.type, msg.stream, msg.seq, msg.model_dump_json())
        if self.hub.subscribers:
            self.hub.publish(rec, self.rm.feeds_of(msg))
        if msg.causation_id is not None and msg.payload.KIND == "event":
            if msg.causation_id not in self.effects:
                self.effects[msg.causation_id] = msg
                if len(self.effects) > self.max_effects:
                    self.effects.popitem(last=False)
            w = self.waiters.get(msg.causation_id)
            if w is not None and w[0] == msg.aggregate and not w[1].done():
                w[1].set_result(msg)

    async def follow(self, cause: Envelope, timeout: float) -> Envelope | None:
        """The first event of ``cause``'s aggregate caused by ``cause`` (already seen or arriving
        within ``timeout`` s), or None."""
        hit = self.effects.get(cause.event_id)
        if hit is not None:
            return hit
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self.waiters[cause.event_id] = (cause.aggregate, fut)
        try:
            return await asyncio.wait_for(fut, timeout=max(0.0, timeout))
        except asyncio.TimeoutError:
            return None
        finally:
            self.waiters.pop(cause.event_id, None)

    # ---------------------------------------------------------------------------------- auth
    # Two regimes. Identity off (no jwt_secret): the administrator's token (or none configured:
    # open) makes a request the arbiter, player commands act for the player the body names.
    # Identity on: every write names its principal (bearer token or the administrator's token)
    # and the rules of :mod:`services.gateway.identity` decide, before anything is published.
    def caller(self, ctx: CommandContext) -> Principal | None:
        """Identity on: the request's principal (the administrator for the ``X-Arbiter-Token``,
        else the bearer token's), :class:`AuthError` 401 for none (``unauthenticated``) or a bad
        one (``token-invalid``, ``token-expired``, ``token-forged``, ``token-malformed``,
        ``token-revoked``: revoked on the log).
        Identity off: None. The request counts against the principal's rate limit
        (:class:`~services.gateway.limits.RateLimited`, 429)."""
        if self.jwt_secret is None:
            return None
        if ctx.token is not None:
            if self.admin_token is not None and tokens_equal(ctx.token, self.admin_token):
                return ADMIN
            raise AuthError(401, "token-invalid", "X-Arbiter-Token is not the administrator's token")
        if ctx.authorization is None:
            raise AuthError(401, "unauthenticated", "this request needs a bearer token (Authorization: "
                                                    "Bearer <token>) or the administrator's token")
        p = identity.read_token(self.jwt_secret, identity.bearer(ctx.authorization))
        if self.rm.revoked.revoked(p.jti):
            raise AuthError(401, "token-revoked", "the bearer token has been revoked")
        self.rates.admit_principal(p)
        return p

    def is_arbiter(self, token: str | None) -> bool:
        """Identity off: the endpoints are open (no admin token configured) or ``token`` is the
        administrator's (compared as bytes: any header value, never a 500)."""
        return self.admin_token is None or (token is not None
                                            and tokens_equal(token, self.admin_token))

    def require_arbiter(self, token: str | None) -> None:
        if not self.is_arbiter(token):
            raise HTTPError(403, "arbiter only: missing or wrong X-Arbiter-Token")

    def player_actor(self, player_id: str, token: str | None, at_ms: int | None) -> Actor:
        """The actor of a player command: the arbiter when the arbiter token is presented (or
        the endpoints are open and the header is present), else the player."""
        if at_ms is not None and not self.is_arbiter(token):
            raise HTTPError(403, "at_ms (a recorded time) may only be given by an arbiter")
        if token is not None and self.is_arbiter(token):
            return ARBITER
        try:
            return Actor(kind="player", id=player_id)
        except ValidationError as exc:
            raise HTTPError(422, _validation_detail(exc)) from None

    # ------------------------------------------------------------------------------- commands
    async def send(self, payload: Payload, aggregate: str, actor: Actor, *, at_ms: int | None,
                   wait: bool, correlation: str | None = None) -> tuple[Envelope, Envelope | None]:
        """Publish ``payload`` on this gateway's command stream of the aggregate,
        ``<aggregate>.commands.<instance>``, with the next seq; with ``wait``, wait for the first
        event of the aggregate caused by it (or the timeout: None). Raises
        :class:`~services.gateway.limits.RateLimited` (nothing published) when the game's rate
        limit is used up."""
        stream = self.streams.get(aggregate) or f"{aggregate}.commands.{self.instance}"
        occurred = dt_of(at_ms if at_ms is not None else self.now_ms())
        corr = None
        if correlation:
            try:
                corr = uuid.UUID(correlation)
            except ValueError:
                raise HTTPError(422, "X-Correlation-Id must be a UUID") from None
        self.rates.admit_command(aggregate, actor)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future = loop.create_future()
        async with self.locks[stream]:
            seq = self.seqs.get(stream, 0) + 1
            try:
                msg = envelope(payload, stream=stream, seq=seq, occurred_at=occurred, actor=actor,
                               correlation_id=corr)
            except ValidationError as exc:
                raise HTTPError(422, _validation_detail(exc)) from None
            text = canonical_text(msg)
            if (size := len(text.encode()) + CHAIN_BYTES) > MAX_EVENT_BYTES:
                raise HTTPError(413, f"the command is {size:,} bytes of JSON, over the event log's "
                                     f"limit of {MAX_EVENT_BYTES:,}", code="too-large")
            # this instance is the stream's only writer and knows its head (shared.chain)
            msg = chained(msg, self.heads.get(stream), text)
            self.waiters[msg.event_id] = (aggregate, fut)
            self.publishing[msg.event_id] = time.monotonic()
            try:
                await self.log.publish(payload.TOPIC, msg)
            except Exception as e:  # the log is away: 503 (and /healthz says so), never a 500
                self.waiters.pop(msg.event_id, None)
                self.publish_failed = f"{type(e).__name__}: {e}"[:500]
                # the record may have been written all the same: the next command of the
                # aggregate under this seq would be skipped as already applied (lost), under
                # the next one leave a gap if it was not; a new stream of its own has neither
                self.streams[aggregate] = f"{aggregate}.commands.{secrets.token_hex(4)}"
                logger.warning("gateway: %s not published (%s)", msg.type, self.publish_failed)
                raise HTTPError(503, f"the event log did not take the command ({self.publish_failed}); "
                                     f"it may or may not be recorded: look at the {aggregate} before "
                                     "sending it again", code="log-unavailable") from None
            except BaseException:
                self.waiters.pop(msg.event_id, None)
                raise
            finally:
                self.publishing.pop(msg.event_id, None)
            self.publish_failed = None
            self.seqs[stream], self.heads[stream] = seq, msg.chain
            # The read model knows the command at once (a just-created game is not a 404); the
            # subscription's copy is skipped by the deduper.
            self.ingest(msg)
        COMMANDS.labels(msg.type).inc()
        t0 = time.perf_counter()
        try:
            if not wait:
                return msg, None
            try:
                resp = await asyncio.wait_for(asyncio.shield(fut), timeout=self.wait_timeout)
            except asyncio.TimeoutError:
                OUTCOMES.labels("timeout").inc()
                return msg, None
            WAIT.observe(time.perf_counter() - t0)
            return msg, resp
        finally:
            self.waiters.pop(msg.event_id, None)
            if not fut.done():
                fut.cancel()


def _event_info(ev: Envelope) -> dict:
    return {"event": ev.type, "event_id": str(ev.event_id), "event_stream": ev.stream,
            "event_seq": ev.seq, "payload": ev.payload.model_dump(mode="json")}


def _rejection(resp: Envelope) -> tuple[str, str]:
    """``(detail, code)`` of rejection event ``resp`` (one of :data:`REJECTIONS`): its own
    ``reason`` and ``code``, or for a DrawClaimRejected, which names no code,
    :func:`~services.gateway.errors.claim_refusal`'s."""
    if isinstance(resp.payload, DrawClaimRejected):
        return claim_refusal(resp.payload)
    return resp.payload.reason, getattr(resp.payload, "code", "invalid")


def outcome(cmd: Envelope, resp: Envelope | None, **extra: Any) -> JSONResponse:
    """HTTP answer for a published command: 200 + event payload, 409/422/404 for a rejection
    event, 202 when not (yet) answered."""
    base = {"command_id": str(cmd.event_id), "stream": cmd.stream, "seq": cmd.seq, **extra}
    if resp is None:
        return JSONResponse({**base, "outcome": "pending"}, status_code=202)
    payload = resp.payload.model_dump(mode="json")
    info = _event_info(resp)
    if resp.type in REJECTIONS:
        detail, code = _rejection(resp)
        status = (422 if code in ("malformed", "decision-too-large") else 404 if code == "no-such-game"
                  else 409)
        OUTCOMES.labels("rejected").inc()
        return JSONResponse({"detail": detail, "code": code, "outcome": "rejected", **base, **info},
                            status_code=status)
    OUTCOMES.labels("accepted").inc()
    body = {k: v for k, v in payload.items() if k not in base}
    return JSONResponse({**body, **base, "outcome": "accepted", **info}, status_code=200)


# ------------------------------------------------------------------------------------ lookups
# The read model's answers a route needs before publishing: an unknown id is 404, a command for
# a game that is over or an event that is finished is 409 (nothing published).
def _known(view: Any, kind: str, key: str) -> Any:
    """``view`` when the gateway knows the ``kind`` ``key``; else :class:`HTTPError` 404."""
    if view is None:
        raise HTTPError(404, f"no such {kind}: {key}")
    return view


def game_or_404(gw: Gateway, gid: str) -> readmodel.GameView:
    """The view of game ``gid``; 404 when the gateway knows no such game."""
    return _known(gw.rm.game(gid), "game", gid)


def tournament_or_404(gw: Gateway, tid: str) -> readmodel.TournamentView:
    """The view of tournament ``tid``; 404 when the gateway knows none."""
    return _known(gw.rm.tournament(tid), "tournament", tid)


def live_game(gw: Gateway, gid: str) -> readmodel.GameView:
    """The view of game ``gid`` still in play; 404 unknown, 409 ``game-over``."""
    g = game_or_404(gw, gid)
    if g.over:
        raise HTTPError(409, f"game {gid} is over ({g.result or 'result pending'}"
                             f"{', ' + g.reason if g.reason else ''})", code="game-over")
    return g


def live_tournament(gw: Gateway, tid: str) -> readmodel.TournamentView:
    """The view of tournament ``tid`` not finished; 404 unknown, 409 ``finished``."""
    t = tournament_or_404(gw, tid)
    if t.status == "finished":
        raise HTTPError(409, f"tournament {tid} is finished", code="finished")
    return t


def build(cls: type[Payload], **fields: Any) -> Payload:
    """Command ``cls`` from ``fields``; :class:`HTTPError` 422 naming each invalid field."""
    try:
        return cls(**fields)
    except ValidationError as exc:
        raise HTTPError(422, _validation_detail(exc)) from None


def org_actor(gw: Gateway, token: str | None) -> Actor:
    """Identity off: the organiser, or the arbiter when ``token`` is the administrator's."""
    return ARBITER if token is not None and gw.is_arbiter(token) else ORGANISER


async def gateway_of(request: Request) -> Gateway:
    """The app's :class:`Gateway` (a FastAPI dependency; async: no thread-pool hop)."""
    return request.app.state.gateway


GW = Depends(gateway_of)
CONTEXT = Depends(command_context)


# ------------------------------------------------------------------------------------ commands
def game_actor(p: Principal, route: CommandRoute, g: readmodel.GameView, body: BaseModel,
               at_ms: int | None) -> Actor:
    """Identity on: the actor of ``route``'s command in game ``g`` (403 when ``p`` may not
    send it; ``at_ms`` only from an arbiter of the game's event)."""
    if at_ms is not None:
        identity.arbiter_actor(p, g.tournament_id, code="arbiters-only")
    if route.role == "arbiter":
        return identity.arbiter_actor(p, g.tournament_id)
    return identity.player_actor(p, body.player_id, (g.white, g.black),  # type: ignore[attr-defined]
                                 g.tournament_id)


async def tournament_command(gw: Gateway, route: CommandRoute, tid: str, body: BaseModel,
                             ctx: CommandContext) -> JSONResponse:
    """Publish ``route``'s command on tournament ``tid`` (404 unknown; 409 finished when the
    route is ``live``); the actor is the organiser (:func:`identity.organiser_actor`)."""
    p = gw.caller(ctx)
    t = live_tournament(gw, tid) if route.live else tournament_or_404(gw, tid)
    actor = (org_actor(gw, ctx.token) if p is None
             else identity.official_actor(p, tid, t.created_by) if route.role == "official"
             else identity.organiser_actor(p, tid, t.created_by))
    payload = build(route.command, tournament_id=tid, **body.model_dump())
    cmd, resp = await gw.send(payload, f"tournament-{tid}", actor, at_ms=None, wait=ctx.wait,
                              correlation=ctx.correlation)
    return outcome(cmd, resp, tournament_id=tid)


def command_actor(gw: Gateway, route: CommandRoute, g: readmodel.GameView, body: BaseModel,
                  ctx: CommandContext, at_ms: int | None, p: Principal | None) -> Actor:
    """The actor of ``route``'s command in game ``g``: identity on (``p``, the caller), the
    principal's role (:func:`game_actor`); off, the arbiter for arbiter routes (403 without the
    token), else the player the body names (the arbiter when the token is presented)."""
    if route.role == "official":
        if p is None:
            return org_actor(gw, ctx.token)
        t = gw.rm.tournament(g.tournament_id) if g.tournament_id else None
        return identity.official_actor(p, g.tournament_id, t.created_by if t else g.created_by)
    if p is not None:
        return game_actor(p, route, g, body, at_ms)
    if route.role == "arbiter":
        return ARBITER
    return gw.player_actor(body.player_id, ctx.token, at_ms)  # type: ignore[attr-defined]


async def game_command(gw: Gateway, route: CommandRoute, gid: str, body: BaseModel,
                       ctx: CommandContext) -> JSONResponse:
    """Publish ``route``'s command on game ``gid`` (404 unknown; 409 over when the route is
    ``live``); a ``follow`` route's answer also carries the decision its event leads to, or is
    that decision when it is a rejection."""
    p = gw.caller(ctx)  # once a request: it counts against the principal's rate limit
    if p is None and route.role == "arbiter":
        gw.require_arbiter(ctx.token)
    g = game_or_404(gw, gid)
    at_ms = getattr(body, "at_ms", None)
    actor = command_actor(gw, route, g, body, ctx, at_ms, p)  # who may act, before the game's state
    if route.live:
        live_game(gw, gid)
    payload = build(route.command, game_id=gid, **body.model_dump(exclude={"at_ms"}))
    t0 = time.monotonic()
    cmd, resp = await gw.send(payload, f"game-{gid}", actor, at_ms=at_ms, wait=ctx.wait,
                              correlation=ctx.correlation)
    if not route.follow or resp is None or resp.type in REJECTIONS:
        return outcome(cmd, resp)
    decision = await gw.follow(resp, gw.wait_timeout - (time.monotonic() - t0))
    if decision is not None and decision.type in REJECTIONS:  # e.g. an absence reported too early
        return outcome(cmd, decision)
    return outcome(cmd, resp, decision=_event_info(decision) if decision else None)


def command_router(routes: tuple[CommandRoute, ...] = COMMAND_ROUTES) -> APIRouter:
    """One ``POST`` endpoint per :class:`CommandRoute` (OpenAPI: the command's name and
    docstring, the body model, the game or tournament id from the path, the refusals with
    their codes: :class:`~services.gateway.errors.GameRefusal` or ``TournamentRefusal``)."""
    router = APIRouter()
    for route in routes:
        param = "gid" if route.aggregate == "game" else "tid"
        send = game_command if route.aggregate == "game" else tournament_command

        async def endpoint(route: CommandRoute = route, param: str = param, send=send,
                           **kw: Any) -> JSONResponse:
            return await send(kw["gw"], route, kw[param], kw["body"] or route.body(), kw["ctx"])

        # a command without fields takes no body (or ``{}``)
        empty = {"default": None} if not route.body.model_fields else {}
        endpoint.__signature__ = Signature([  # type: ignore[attr-defined]
            Parameter(param, Parameter.KEYWORD_ONLY, annotation=str),
            Parameter("body", Parameter.KEYWORD_ONLY, annotation=route.body, **empty),
            Parameter("ctx", Parameter.KEYWORD_ONLY, annotation=CommandContext, default=CONTEXT),
            Parameter("gw", Parameter.KEYWORD_ONLY, annotation=Gateway, default=GW)],
            return_annotation=JSONResponse)
        name = route.command.__name__
        router.add_api_route(route.path, endpoint, methods=["POST"], tags=[route.tag], name=name,
                             summary=" ".join(re.findall(r"[A-Z][a-z]*", name)).lower().capitalize(),
                             description=route.command.__doc__, response_class=JSONResponse,
                             responses=refusals(GameRefusal if route.aggregate == "game" else TournamentRefusal))
    return router


# ---------------------------------------------------------------------------------------- ops
ops = APIRouter(tags=["ops"])


@ops.get("/healthz")
async def healthz(gw: Gateway = GW) -> JSONResponse:
    """200 when ready: the read model is restored and commands get published (none has
    waited on the log for 5 s, the last one did not fail); else 503, saying why."""
    waiting = time.monotonic() - min(gw.publishing.values(), default=time.monotonic())
    ready = gw.ready and gw.publish_failed is None and waiting < PUBLISH_STALLED_S
    body = {"status": "ok", "ready": ready, "applied": gw.rm.applied,
            **({"publish_failed": gw.publish_failed} if gw.publish_failed else {}),
            **({"publish_waiting_s": round(waiting, 1)} if waiting >= PUBLISH_STALLED_S else {}),
            "from_snapshot": bool(gw.restored), "snapshot_messages": gw.snapshot_messages,
            "replayed": gw.replayed, "snapshot_applied": gw.snapshot_applied,
            "games": len(gw.rm.games), "tournaments": len(gw.rm.tournaments),
            # where the read model is in the log: "topic/partition" -> next offset to apply
            "positions": {f"{t}/{n}": o for (t, n), o in sorted(
                (gw.follower.positions if gw.follower is not None else {}).items())}}
    return JSONResponse(body, status_code=200 if ready else 503)


@ops.get("/metrics")
async def metrics() -> Response:
    """The Prometheus metrics of this process."""
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)


# -------------------------------------------------------------------------------- tournaments
tournaments = APIRouter(tags=["tournaments"])


@tournaments.post("/tournaments", responses=refusals(TournamentRefusal))
async def create_tournament(body: CreateTournamentBody,  # type: ignore[valid-type]
                            ctx: CommandContext = CONTEXT, gw: Gateway = GW) -> JSONResponse:
    """Create an event (CreateTournament). Identity on: an organiser's or the
    administrator's, who then organises it (the read model records its creator)."""
    p = gw.caller(ctx)
    actor = org_actor(gw, ctx.token) if p is None else identity.creator_actor(p)
    data = body.model_dump()
    tid = data.pop("tournament_id") or _short_id()
    known = gw.rm.tournament(tid)
    # Only a created tournament (TournamentCreated seen) is refused here: a creation still
    # pending may yet be rejected, so the pairing service (the owner of the record) decides
    # between concurrent creations; a rejected one reserves nothing.
    if known is not None and known.status != "created":
        raise HTTPError(409, f"tournament {tid} already exists", code="already-exists")
    payload = build(CreateTournament, tournament_id=tid, **data)
    cmd, resp = await gw.send(payload, f"tournament-{tid}", actor,
                              at_ms=None, wait=ctx.wait, correlation=ctx.correlation)
    return outcome(cmd, resp, tournament_id=tid)


@tournaments.post("/tournaments/{tid}/tokens", responses=refusals(Refusal))
async def issue_tokens(tid: str, body: IssueTokensBody, ctx: CommandContext = CONTEXT,
                       gw: Gateway = GW) -> dict:
    """Identity on: bearer tokens for the event's players (each must be registered in it)
    or its arbiters, scoped to this event (``events: [tid]``), valid ``ttl_s`` seconds.
    Issued by the administrator or the event's organiser; the event's chief arbiter may
    issue deputies' (arbiter, not chief). Answer ``{"tournament_id", "role", "chief",
    "events", "expires_at_s" (epoch s), "tokens": {id: token}}``; nothing is published or
    stored (a token is valid until it expires). 409 ``identity-off`` without
    ARBITER_JWT_SECRET, 422 ``not-registered`` naming players not registered, 422
    ``reserved-id`` for the administrator's id, 401/403."""
    if gw.jwt_secret is None:
        raise HTTPError(409, "identity is off (ARBITER_JWT_SECRET is not set): no tokens to issue",
                        code="identity-off")
    p = gw.caller(ctx)
    t = tournament_or_404(gw, tid)
    identity.may_issue(p, body.role, body.chief, tid, t.created_by)
    ids = list(dict.fromkeys(body.ids))
    if body.role == "player" and (missing := [i for i in ids if i not in t.players]):
        raise HTTPError(422, f"not registered in {tid}: {', '.join(missing[:20])}"
                             f"{' ...' if len(missing) > 20 else ''}", code="not-registered")
    if identity.ADMIN_ID in ids:
        raise HTTPError(422, f"{identity.ADMIN_ID!r} is the platform administrator's id: no "
                             f"{body.role} token carries it", code="reserved-id")
    now = int(time.time())
    tokens = {i: identity.issue_token(gw.jwt_secret, body.role, i, [tid], ttl_s=body.ttl_s,
                                      chief=body.chief, now_s=now) for i in ids}
    logger.info("gateway: %s %s issued %d %s token(s) for %s, valid %d s", p.role, p.sub,
                len(tokens), body.role, tid, body.ttl_s)
    return {"tournament_id": tid, "role": body.role, "chief": body.chief, "events": [tid],
            "expires_at_s": now + body.ttl_s, "tokens": tokens}


@tournaments.get("/tournaments/{tid}")
async def get_tournament(tid: str, request: Request, gw: Gateway = GW) -> dict:
    """The event: settings, status, players with draw numbers (FIDE ids for the event's
    private scope: :mod:`.scopes`), rounds with boards and results."""
    return tournament_or_404(gw, tid).to_dict(gw.rm.games, private=scopes.private_ok(request))


@tournaments.get("/tournaments/{tid}/standings")
async def get_standings(tid: str, gw: Gateway = GW) -> dict:
    """The latest standings published (StandingsUpdated)."""
    return tournament_or_404(gw, tid).standings_dict()


@tournaments.get("/tournaments/{tid}/crosstable")
async def get_crosstable(tid: str, gw: Gateway = GW) -> dict:
    """The crosstable, read from the tournament record."""
    return tournament_or_404(gw, tid).crosstable()


@tournaments.get("/tournaments/{tid}/events")
async def tournament_events(tid: str, follow: bool = True, at: feeds.Resume = feeds.RESUME,
                            gw: Gateway = GW):
    """The event's messages: a JSON list (``follow=false``) or server-sent events, from the
    start unless ``since``/``Last-Event-ID`` says where (:mod:`.feeds`)."""
    tournament_or_404(gw, tid)
    return feeds.events(gw, f"tournament-{tid}", follow, at)


# -------------------------------------------------------------------------------------- games
games = APIRouter()


@games.post("/games", tags=["games"], responses=refusals(GameRefusal))
async def create_game(body: CreateGameBody,  # type: ignore[valid-type]
                      ctx: CommandContext = CONTEXT, gw: Gateway = GW) -> JSONResponse:
    """Create a game (CreateGame). Identity on: an organiser's or the administrator's; a
    game of an event only by the event's organiser; ``at_ms`` only by an arbiter of it."""
    p = gw.caller(ctx)
    data = body.model_dump(exclude={"at_ms"})
    if p is None:
        if body.at_ms is not None:
            gw.require_arbiter(ctx.token)
        actor = org_actor(gw, ctx.token)
    else:
        actor = identity.creator_actor(p)
        if (tid := body.tournament_id) is not None:
            t = gw.rm.tournament(tid)
            identity.organiser_actor(p, tid, t.created_by if t else None)
        if body.at_ms is not None:  # a recorded time: an arbiter's
            identity.arbiter_actor(p, tid, code="arbiters-only")
    gid = data.pop("game_id") or _short_id()
    payload = build(CreateGame, game_id=gid, **data)
    cmd, resp = await gw.send(payload, f"game-{gid}", actor,
                              at_ms=body.at_ms, wait=ctx.wait, correlation=ctx.correlation)
    return outcome(cmd, resp, game_id=gid)


@games.post("/games/{gid}/correction", tags=["arbiter"], responses=refusals(TournamentRefusal))
async def correct_result(gid: str, body: CorrectionBody,  # type: ignore[valid-type]
                         ctx: CommandContext = CONTEXT, gw: Gateway = GW) -> JSONResponse:
    """Arbiter only: correct the recorded result of a finished tournament game (``result``
    a result code: 1-0, 0-1, 1/2-1/2, +- / -+ forfeits, -- double forfeit; ``reason``).
    Published on the tournament (CorrectResult); answer ResultCorrected, or 409 (no result
    yet, same result, a knockout whose next round is paired). Identity on: an arbiter of the
    event, once it is finished its chief arbiter (or the administrator): else 403."""
    p = gw.caller(ctx)
    if p is None:
        gw.require_arbiter(ctx.token)
    g = game_or_404(gw, gid)
    if not g.tournament_id:
        if p is not None:
            identity.arbiter_actor(p, None)  # who may not rule the game hears 403, not why not
        raise HTTPError(409, f"game {gid} is not a tournament game: only a tournament game's "
                             "result is corrected", code="invalid")
    t = tournament_or_404(gw, g.tournament_id)
    actor = ARBITER if p is None else identity.corrector_actor(p, t.tournament_id,
                                                               t.status == "finished")
    payload = build(CorrectResult, tournament_id=g.tournament_id, game_id=gid, **body.model_dump())
    cmd, resp = await gw.send(payload, f"tournament-{g.tournament_id}", actor, at_ms=None,
                              wait=ctx.wait, correlation=ctx.correlation)
    return outcome(cmd, resp, tournament_id=g.tournament_id)


@games.get("/games/{gid}", tags=["games"])
async def get_game(gid: str, gw: Gateway = GW) -> dict:
    """The game: players, position, clocks, moves, result, PGN (chess, xiangqi), Go state;
    ``white_name`` and ``black_name``, the players' names as registered in the game's event
    (None outside an event or for a player registered without one)."""
    g = game_or_404(gw, gid)
    t = gw.rm.tournament(g.tournament_id) if g.tournament_id else None
    names = player_names(t)
    return {**g.to_dict(event=(t.name if t and t.name else "?"), names=names),
            "white_name": names.get(g.white or ""), "black_name": names.get(g.black or "")}


@games.get("/games/{gid}/events", tags=["games"])
async def game_events(gid: str, follow: bool = True, at: feeds.Resume = feeds.RESUME,
                      gw: Gateway = GW):
    """The game's messages: a JSON list (``follow=false``) or server-sent events, from the
    start unless ``since``/``Last-Event-ID`` says where (:mod:`.feeds`)."""
    game_or_404(gw, gid)
    return feeds.events(gw, f"game-{gid}", follow, at)


# ------------------------------------------------------------------------------------ refusals
refused = error_response  # every refusal's answer: services.gateway.errors


async def _http_error(request: Request, exc: HTTPError) -> JSONResponse:
    return refused(exc.status, exc.detail, **exc.extra)


async def _auth_error(request: Request, exc: AuthError) -> JSONResponse:
    """401 (no, expired, forged or malformed credentials; RFC 6750's challenge; a guess counts
    against the address's failed authentications) or 403 (the principal may not do this), with
    the rule's ``code``: nothing was published."""
    request.app.state.gateway.rates.count_auth_failure(request.scope, exc.code)
    return refused(exc.status, exc.detail, code=exc.code,
                   headers={"WWW-Authenticate": "Bearer"} if exc.status == 401 else None)


async def _starlette_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
    """No such route (404), method (405) or a body that is not JSON: the same shape. A body
    FastAPI cannot decode at all (invalid UTF-8, an integer of thousands of digits, nesting
    too deep: its 400) is a malformed body like any other (422 ``malformed``)."""
    if exc.status_code == 400 and exc.detail == "There was an error parsing the body":
        return refused(422, "the body is not JSON this gateway can read (invalid UTF-8, a number "
                            "of thousands of digits, or nesting too deep)")
    return refused(exc.status_code, exc.detail, headers=getattr(exc, "headers", None))


async def _request_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    """A malformed body or query: each problem's location and message, without echoing the
    input back (a 5 MB field must not come back in the answer)."""
    return refused(422, [{"loc": list(e.get("loc", ())), "msg": str(e.get("msg"))[:300],
                          "type": e.get("type")} for e in exc.errors()][:20])


async def _validation_error(request: Request, exc: ValidationError) -> JSONResponse:
    return refused(422, _validation_detail(exc))


async def _crash(request: Request, exc: Exception) -> JSONResponse:
    logger.error("gateway: unhandled error on %s %s\n%s", request.method, request.url.path,
                 "".join(traceback.format_exception(exc)))
    return JSONResponse({"detail": "internal error", "code": "internal"}, status_code=500)


async def _rate_limited(request: Request, exc: RateLimited) -> JSONResponse:
    """429 ``rate-limited`` with ``Retry-After`` (seconds): nothing was published."""
    return refused(429, exc.detail, headers={"Retry-After": str(exc.retry_after_s)})


#: Exception class -> its handler: every error answer is ``{"detail", "code"}``.
ERROR_HANDLERS: dict[type[Exception], Callable] = {
    HTTPError: _http_error, RateLimited: _rate_limited, AuthError: _auth_error, StarletteHTTPException: _starlette_error,
    RequestValidationError: _request_error, ValidationError: _validation_error, Exception: _crash,
}


# ----------------------------------------------------------------------------------------- the app
def create_app(log: EventLog, *, admin_token: str | None = None,
               now_ms: Callable[[], int] | None = None, manage_log: bool = True,
               wait_timeout: float = 5.0, snapshot_every_s: float | None = None,
               load_snapshots: bool = True, jwt_secret: str | None = None,
               limits: HttpLimits | None = None) -> FastAPI:
    """Build the gateway app on ``log``.

    On startup the app takes up the latest read-model snapshot and reads the log after it
    (:meth:`Gateway.bootstrap`), follows the log from there, then (``manage_log=True``) starts
    the log; on shutdown it closes SSE streams, stops following and (``manage_log=True``)
    stops the log. ``admin_token=None`` leaves arbiter endpoints open. ``now_ms``:
    receive-time clock (epoch ms). ``wait_timeout``: seconds a command waits for its outcome
    before answering 202. ``snapshot_every_s``: how often (seconds) the read model is
    snapshotted to the log when it has changed (None: never; a process serving a national
    event's log starts from it in seconds instead of reading the whole log).
    ``load_snapshots=False``: read the whole log at start (a benchmark's baseline).
    ``jwt_secret`` (at least 32 characters; None: identity off, behaviour as without it):
    every write needs a bearer token signed with it or ``admin_token``, and the roles of
    :mod:`services.gateway.identity` are enforced (401/403, nothing published).
    ``limits``: rate limits, body size and CORS (:mod:`services.gateway.limits`; None: bodies
    up to 1 MB, no rate limit, no CORS; a deployment's: ``HttpLimits.from_settings``). Raises
    ``ValueError`` for a shorter ``jwt_secret`` or a ``snapshot_every_s`` not above 0.
    """
    if jwt_secret is not None and len(jwt_secret) < identity.MIN_SECRET_CHARS:
        raise ValueError(f"jwt_secret must have at least {identity.MIN_SECRET_CHARS} characters")
    gw = Gateway(log, admin_token=admin_token, now_ms=now_ms or _wall_ms, wait_timeout=wait_timeout,
                 snapshot_every_s=snapshot_every_s, load_snapshots=load_snapshots,
                 jwt_secret=jwt_secret, limits=limits)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await gw.bootstrap()
        if manage_log:
            await log.start()
        gw.ready = True
        try:
            yield
        finally:
            gw.ready = False
            gw.hub.close_all()
            await gw.close()
            if manage_log:
                await log.stop()

    app = FastAPI(title="Arbiter gateway", version="1", lifespan=lifespan,
                  description=__doc__.split("Usage::")[0], exception_handlers=ERROR_HANDLERS,
                  docs_url=None, redoc_url=None)
    install_docs(app)  # /docs, /redoc with assets served here, not from a CDN
    app.state.gateway = gw
    app.add_middleware(scopes.ReadScopes)  # read scopes, inside the body limit and CORS
    install_limits(app, limits or HttpLimits(), gw.rates)
    for router in (ops, feeds.feeds_router(GW), export_router(GW), tournaments, games, command_router(),
                   revocation_router(GW, CONTEXT), webhook_router(GW, CONTEXT),
                   bulk_router(GW, CONTEXT, outcome), organiser_router(GW, ORGANISER_BODIES)):
        app.include_router(router)
    ui.install(app)  # the browser pages: /, /ui/games/{gid}, /ui/static
    console.install(app, GW, CONTEXT)  # the arbiter console: /arbiter/attention, /games/{gid}/audit, /ui/arbiter
    return app
