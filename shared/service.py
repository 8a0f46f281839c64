"""The thin adapter around every service's pure cores (DESIGN.md invariants 1 and 3).

A core is a deterministic state machine: ``handle(msg) -> [Emit]`` for each message it reads. It
never reads a clock, draws a random number or does I/O. Two layers do the rest:

- :class:`Processor` (pure): one or more cores composed over ONE ordered input. Every input
  message is handed to each core in a fixed order; each decision is wrapped in its envelope (the
  core's own single-writer stream, gap-free ``seq``, ``occurred_at`` = the cause's event time,
  ``causation_id`` = the cause, ``correlation_id`` inherited, a deterministic ``event_id``:
  UUIDv5 of service, cause and index) and handed to the composed cores in turn, breadth first,
  before the next input. So a decision is a function of the input's order and the decisions
  before it, never of which of two topics delivered first; re-deriving a log gives it byte for
  byte. Timers do not decide: a core's :meth:`Core.due` names the commands a timer publishes
  on the stream they decide (the clock's CheckClock).
- :class:`ServiceHost`: runs a processor on an event log: subscribes its inputs in consumer
  group ``processor.name``, publishes its decisions, runs the timer, and on start rebuilds state
  by replaying the inputs the log holds, publishing only decisions missing from the log (a crash
  anywhere, then a restart, gives the same log as no crash).
"""
from __future__ import annotations

import asyncio
import hashlib
import logging
import time
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from contracts.envelope import Actor, Envelope, Payload, dt_of, stream_for
from contracts.messages import (
    GAME_EVENTS, TOURNAMENT_EVENTS, GameCommandRejected, RecordGameEvent, TournamentCommandRejected,
    envelope,
)
from shared.chain import CHAIN_BYTES, ENDINGS, ChainBook, canonical_text, record_bytes
from shared.eventlog.base import MAX_EVENT_BYTES, Deduper, EventLog
from shared.metrics import EMITTED, ERRORS, HANDLED, LATENCY, TIMERS
from shared.snapshot import Tracked

log = logging.getLogger("arbiter.service")

_NS = uuid.UUID("6f1c1a8e-0c4e-4d7e-9a57-2b8d6c1f3e10")


@dataclass(frozen=True)
class Emit:
    """A decision of a core: ``payload`` to append to the core's own stream ``stream``.

    ``at_ms`` overrides the event time (epoch ms) when the decision is not at the cause's time
    (a flag falls at its deadline, observed at a tick).
    """

    stream: str
    payload: Payload
    at_ms: int | None = None


class Core:
    """Base of the pure service cores. Subclasses set ``name``, ``inputs`` and ``outputs``
    (topics) and implement :meth:`handle`; the clock also implements :meth:`due`.

    ``reads`` (a class attribute, optional): the payload classes :meth:`handle` acts on, when
    it decides nothing and changes nothing on any other message of its topics; the processor
    then hands the core only those (None: every message of its input topics).

    ``aggregates`` (a class attribute, optional): the names of the core's dict attributes keyed
    by aggregate id (a game's), each entry that aggregate's state, changed only by a decision
    that reaches it through the dict by its id. The processor keeps them as
    :class:`shared.snapshot.Tracked` dicts, so that a snapshot writes them an entry at a time
    while the loop goes on deciding (:mod:`shared.snapshot`)."""

    name: str = "core"
    inputs: tuple[str, ...] = ()
    reads: ClassVar[frozenset[type] | None] = None
    aggregates: ClassVar[tuple[str, ...]] = ()

    def handle(self, msg: Envelope) -> list[Emit]:  # pragma: no cover - abstract
        raise NotImplementedError

    def due(self, now_ms: int) -> list[Payload]:
        """Timer commands to publish at ``now_ms`` (epoch ms); they are decided in order like
        any input (the clock's CheckClock). Not a decision: asking twice is harmless."""
        return []

    def prepare(self, msg: Envelope) -> list:
        """The slow pure calls (:class:`shared.offload.Job`) that :meth:`handle` would make on
        ``msg`` through :func:`shared.offload.call`, for the host to compute beforehand off its
        event loop. Not a decision: a job named wrongly or not at all only costs time."""
        return []

    def next_deadline(self) -> int | None:
        """Earliest epoch ms at which :meth:`due` may have a command, or None. A core that
        overrides :meth:`due` overrides this too: the hosts ask :meth:`due` only once it is
        reached (a test checks every core)."""
        return None

    def loaded(self) -> None:
        """Rebuild what a snapshot leaves out, once the whole state is loaded (the clock's timer
        schedule); nothing by default."""


def _refusal(cause: Envelope, decision: Envelope, size: int) -> Payload:
    """The rejection written in place of ``decision`` (``size`` bytes of JSON, over
    :data:`MAX_EVENT_BYTES`), caused by ``cause``: a TournamentCommandRejected or a
    GameCommandRejected (code ``decision-too-large``) on the decision's topic."""
    reason = (f"its {decision.type} decision is {size:,} bytes of JSON, over the event log's limit "
              f"of {MAX_EVENT_BYTES:,}: not published; nothing else changes")
    common = dict(command_id=str(cause.event_id), command_type=cause.type, code="decision-too-large",
                  reason=reason)
    if decision.payload.TOPIC == TOURNAMENT_EVENTS:
        return TournamentCommandRejected(tournament_id=decision.payload.tournament_id, **common)
    return GameCommandRejected(game_id=decision.payload.game_id, **common)


_NS_BYTES = _NS.bytes
_V5_CLEAR = ~((0xf000 << 64) | (0xc000 << 48))  # the version and variant bits
_V5_SET = (5 << 76) | (0x8000 << 48)  # version 5, RFC 4122 variant


def handled_types(cls: type, *also: type) -> frozenset[type]:
    """The payload classes a core dispatching on ``_on_<payload class name>`` methods acts on
    (its ``reads``), with ``also``."""
    from contracts.messages import PAYLOAD_TYPES

    return frozenset({PAYLOAD_TYPES[n[4:]] for n in dir(cls) if n.startswith("_on_")
                      and n[4:] in PAYLOAD_TYPES} | set(also))


def derived_id(service: str, cause: uuid.UUID | None, index: int) -> uuid.UUID:
    """Deterministic event id of the ``index``-th decision of ``service`` caused by ``cause``:
    ``uuid.uuid5(_NS, f"{service}:{cause}:{index}:")`` (the ids of older logs), computed
    without its per-call checks (a test compares the two)."""
    h = hashlib.sha1(_NS_BYTES + f"{service}:{cause}:{index}:".encode(), usedforsecurity=False).digest()
    return uuid.UUID(int=int.from_bytes(h[:16], "big") & _V5_CLEAR | _V5_SET)


class Processor:
    """``cores`` composed over one ordered input (pure, no I/O; see the module doc).

    ``name``: the consumer group and metrics label (default: the first core's name).
    ``inputs``: the topics read from the log (default: every topic a core reads); a topic that
    only the composed cores write is left out, as its messages are delivered inside.
    ``recorded``: decisions already in the log, by event id (recovery): re-derived, they are
    delivered inside but not returned.
    ``chains``: the hash chains of the streams it writes and what its next checkpoints attest
    (:class:`shared.chain.ChainBook`): every decision and timer command is chained after its
    stream's head, a pure function of the decisions before it, so the audit re-derives the
    chain too; every input decided is noted for the checkpoint of its aggregate.

    :meth:`decide` returns the envelopes to append, in order. A core that raises is logged and
    counted (``arbiter_handler_errors_total``) and decides nothing for that message.

    ``wire``: with ``keep_wire`` set (a host that publishes, :mod:`shared.kafkahost`), the
    record bytes of each decision it returns, by event id (:func:`shared.chain.record_bytes`:
    made from the text the chain hashed, not serialised again); the host takes them out.
    """

    keep_wire = False

    def __init__(self, cores: Sequence[Core], name: str | None = None,
                 inputs: Sequence[str] | None = None) -> None:
        self.cores = tuple(cores)
        self.name = name or self.cores[0].name
        self.inputs = tuple(inputs or dict.fromkeys(t for c in self.cores for t in c.inputs))
        self.outputs = tuple(sorted({t for c in self.cores for t in getattr(c, "outputs", ())}))
        self.dedupe = Deduper()
        self.seqs: dict[str, int] = {}
        self.recorded: dict[uuid.UUID, Envelope] = {}
        self.chains = ChainBook()
        self._timer_seqs: dict[str, int] = {}
        self.wire: dict[uuid.UUID, bytes] = {}
        self._actors = {c.name: Actor(kind="service", id=c.name) for c in self.cores}
        self._metrics()

    def aggregate_maps(self) -> list[tuple[Core, str]]:
        """``(core, attribute)`` of each core's per-aggregate dict (``Core.aggregates``), in core
        order: what a :class:`shared.snapshot.Snapshot` of this processor writes an entry at a
        time."""
        return [(c, a) for c in self.cores for a in c.aggregates]

    def loaded(self) -> None:
        """The whole state is loaded from a snapshot: each core rebuilds what it leaves out
        (:meth:`Core.loaded`)."""
        for c in self.cores:
            c.loaded()

    def _metrics(self) -> None:
        self._handled = HANDLED.labels(self.name)
        self._latency = LATENCY.labels(self.name)
        self._routes: dict[type, tuple[Core, ...]] = {}  # payload class -> the cores it goes to
        self._preparing = [c for c in self.cores if type(c).prepare is not Core.prepare]
        for core, attr in self.aggregate_maps():
            if type(m := getattr(core, attr)) is not Tracked:
                setattr(core, attr, Tracked(m))

    def __getstate__(self) -> dict:
        """The state a snapshot keeps (:mod:`shared.kafkahost`): everything but the metrics
        and the routing table."""
        return {k: v for k, v in self.__dict__.items()
                if k not in ("_handled", "_latency", "_routes", "_preparing", "wire", "keep_wire")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.wire = {}
        if "chains" not in state:  # a snapshot from before the chain: chained from here on
            self.chains = ChainBook()
        self._metrics()

    def core(self, name: str) -> Core:
        """The composed core called ``name``; ``KeyError`` if none."""
        for c in self.cores:
            if c.name == name:
                return c
        raise KeyError(name)

    def owns(self, msg: Envelope) -> bool:
        """True when ``msg`` is a decision of one of the composed cores."""
        return msg.actor.kind == "service" and msg.actor.id in self._actors

    def remember(self, msg: Envelope) -> None:
        """Note a decision already in the log (recovery): its seq is taken, and re-deriving it
        delivers the recorded message instead of appending it again."""
        self.recorded[msg.event_id] = msg
        self.seqs[msg.stream] = max(self.seqs.get(msg.stream, 0), msg.seq)
        self.chains.wrote(msg)

    def prepare(self, msg: Envelope) -> list:
        """The jobs (:class:`shared.offload.Job`) the cores reading input ``msg`` name for it
        (:meth:`Core.prepare`), in core order; ``[]`` for a message already applied."""
        cores = self._preparing
        if not cores or self.dedupe.seen(msg):  # (the game process's cores name none)
            return []
        return [j for c in cores if type(msg.payload).TOPIC in c.inputs for j in c.prepare(msg)]

    def decide(self, msg: Envelope) -> list[Envelope]:
        """The decisions caused by input ``msg`` and, breadth first, by those decisions; ``[]``
        for a message already applied (redelivery: same stream and seq). A RecordGameEvent
        hands the cores the game event it carries, unchanged."""
        if self.dedupe.seen(msg):
            return []
        t0 = time.perf_counter()
        self.chains.consumed(msg)
        if isinstance(msg.payload, RecordGameEvent):  # a game's fact in a tournament's input
            self.dedupe.mark(msg)
            msg = msg.payload.event_envelope()
            if self.dedupe.seen(msg):
                return []
        out: list[Envelope] = []
        queue = deque([msg])
        while queue:
            m = queue.popleft()
            self.dedupe.mark(m)
            kind = type(m.payload)
            if (cores := self._routes.get(kind)) is None:
                cores = self._routes[kind] = tuple(
                    c for c in self.cores
                    if kind.TOPIC in c.inputs and (c.reads is None or kind in c.reads))
            for core in cores:
                for i, e in enumerate(self._handle(core, m)):
                    d = self._wrap(core.name, m, i, e)
                    queue.append(d)
                    if d.event_id not in self.recorded:
                        out.append(d)
        self._handled.inc()
        self._latency.observe(time.perf_counter() - t0)
        return out

    def _handle(self, core: Core, m: Envelope) -> list[Emit]:
        try:
            return core.handle(m)
        except Exception:  # a core bug must not stop the service or its recovery
            ERRORS.labels(core.name, m.type).inc()
            log.exception("%s: no decision on %s %s#%s (event %s)", core.name, m.type,
                          m.stream, m.seq, m.event_id)
            return []

    def _wrap(self, service: str, cause: Envelope, index: int, e: Emit) -> Envelope:
        """The envelope of decision ``e``, the ``index``-th of core ``service`` on ``cause`` (the
        recorded one if the log has it). A game or tournament event over :data:`MAX_EVENT_BYTES`
        of JSON is replaced, on its stream and seq, by a rejection (:func:`_refusal`): the same
        on every derivation, so the audit re-derives it, and never a transaction the broker
        refuses at every restart. The deciding core's state is as if it had been published."""
        event_id = derived_id(service, cause.event_id, index)
        if (known := self.recorded.get(event_id)) is not None:
            return known
        seq = self.seqs[e.stream] = self.seqs.get(e.stream, 0) + 1
        at = dt_of(e.at_ms) if e.at_ms is not None else cause.occurred_at
        meta = dict(stream=e.stream, seq=seq, occurred_at=at, actor=self._actors[service],
                    causation_id=cause.event_id, event_id=event_id,
                    correlation_id=cause.correlation_id or cause.event_id)
        d = envelope(e.payload, **meta)
        text = canonical_text(d)
        if d.payload.TOPIC in (GAME_EVENTS, TOURNAMENT_EVENTS) and len(text) * 4 > MAX_EVENT_BYTES \
                and (size := len(text.encode()) + CHAIN_BYTES) > MAX_EVENT_BYTES:
            log.error("%s: %s on %s is %d bytes, over %d: refused in its place (cause %s %s)",
                      service, d.type, d.stream, size, MAX_EVENT_BYTES, cause.type, cause.event_id)
            d = envelope(_refusal(cause, d, size), **meta)
            text = canonical_text(d)
        if d.type in ENDINGS:
            self.chains.end(d.aggregate)
        d = self.chains.seal(d, text)
        if self.keep_wire:
            self.wire[event_id] = record_bytes(text, d.chain)
        return d

    # --------------------------------------------------------------------------- timers
    def next_deadline(self) -> int | None:
        """Earliest epoch ms at which a core's timer may have a command, or None."""
        return min((d for c in self.cores if (d := c.next_deadline()) is not None), default=None)

    def due(self, now_ms: int) -> list[Envelope]:
        """The timer commands to publish at ``now_ms`` (epoch ms), as envelopes on stream
        ``<aggregate>.timer`` (one writer: the processor that owns the aggregate; the seq
        follows the last one applied or published)."""
        out = []
        for c in self.cores:
            try:
                asked = c.due(now_ms)
            except Exception:  # a core bug must not stop the service (as in :meth:`decide`)
                ERRORS.labels(c.name, "due").inc()
                log.exception("%s: timer failed at %d", c.name, now_ms)
                continue
            for p in asked:
                stream = stream_for(f"game-{p.game_id}", "timer")
                seq = self._timer_seqs[stream] = max(self._timer_seqs.get(stream, 0),
                                                     self.dedupe.last(stream)) + 1
                out.append(self.chains.seal(envelope(p, stream=stream, seq=seq, occurred_at=dt_of(now_ms),
                                                     actor=self._actors[c.name])))
        return out


class ServiceHost:
    """Runs ``processor`` on ``log``. ``ticks=True`` runs its timer on wall time given by
    ``now_ms`` (epoch ms callable): the timer publishes the commands :meth:`Processor.due`
    names, which come back through the log and are decided in order.

    ``commit``: when consumer offsets are committed (see :meth:`EventLog.subscribe`). The log,
    not the offsets, is what makes a restart safe: :meth:`recover` replays every input from the
    start and publishes any decision missing from the log, so a message consumed but not acted
    on before a crash is acted on at restart whatever offset was committed. Offsets only bound
    the redelivery after recovery, which the deduper skips. ``"periodic"`` (the default) commits
    in the background; ``"after"`` commits each message after its decisions are published.

    Checkpoints (:mod:`shared.chain`): after each input, those due (``checkpoint_every``
    messages of an aggregate, or its end), and at :meth:`stop` every aggregate's, signed with
    ``signing_key`` (default :func:`shared.signing.signing_key`).
    """

    def __init__(self, processor: Processor, log: EventLog, *, ticks: bool = False,
                 now_ms: Callable[[], int] | None = None, commit: str = "periodic",
                 signing_key=None, checkpoint_every: int | None = None) -> None:
        from shared.config import settings
        from shared.signing import signing_key as configured_key

        self.signing_key = signing_key or configured_key()
        self.checkpoint_every = checkpoint_every or settings().checkpoint_every
        self.processor = processor
        self.commit = commit
        self.log = log
        self.ticks = ticks
        self.now_ms = now_ms or (lambda: time.time_ns() // 1_000_000)
        self._lock = asyncio.Lock()
        self._timer: asyncio.Task | None = None
        self._timer_stopped = False  # (a cancel that wait_for swallows must still end the loop)
        self._wake = asyncio.Event()

    @property
    def name(self) -> str:
        return self.processor.name

    def attach(self) -> None:
        """Subscribe the processor's inputs (call before ``log.start()``)."""
        self.log.subscribe(self.processor.inputs, self.name, self.on_message, commit=self.commit)

    async def recover(self, log_messages: list[Envelope] | None = None) -> int:
        """Rebuild state from the log before consuming live: replay every input message in
        append order (as it was consumed), publishing only decisions not yet in the log.
        ``log_messages``: the log's messages of (at least) the processor's input and output
        topics in append order, when the caller already read them (several services in one
        process read the log once). Returns the number of messages replayed."""
        pr = self.processor
        topics = set(pr.inputs) | set(pr.outputs)
        if log_messages is None:
            log_messages = await self.log.read_many(sorted(topics))
        inputs = [m for m in log_messages if m.payload.TOPIC in pr.inputs]
        for m in log_messages:
            if m.payload.TOPIC in pr.outputs and pr.owns(m):
                pr.remember(m)
        for m in inputs:
            await self.on_message("", m)
        return len(inputs)

    async def on_message(self, topic: str, msg: Envelope) -> None:
        async with self._lock:
            out = self.processor.decide(msg)
            for d in out:
                await self.log.publish(d.payload.TOPIC, d)
                EMITTED.labels(self.name, d.type).inc()
            await self.publish_checkpoints()
        if self.ticks and out:
            self._wake.set()

    async def publish_checkpoints(self, final: bool = False) -> None:
        """Sign and publish the checkpoints due (``final``: of every aggregate with anything
        not attested yet)."""
        for cp in self.processor.chains.signed(self.signing_key, self.checkpoint_every,
                                               dt_of(self.now_ms()), final):
            await self.log.publish(cp.payload.TOPIC, cp)

    async def publish_due(self) -> int:
        """Publish the timer commands due now; returns how many."""
        async with self._lock:
            cmds = self.processor.due(self.now_ms())
            for c in cmds:
                await self.log.publish(c.payload.TOPIC, c)
                TIMERS.labels(self.name).inc()
        return len(cmds)

    async def _tick_loop(self) -> None:
        grace = max((getattr(c, "grace_ms", 0) for c in self.processor.cores), default=0)
        while not self._timer_stopped:
            deadline = self.processor.next_deadline()
            delay = 0.5 if deadline is None else max(0.0, (deadline + grace - self.now_ms()) / 1000 + 0.001)
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=min(delay, 0.5))
                continue
            except asyncio.TimeoutError:
                pass
            try:
                await self.publish_due()
            except Exception:  # the broker is down: ask again on the next round
                log.exception("%s: timer commands not published", self.name)

    async def start_timer(self) -> None:
        if self.ticks and self._timer is None:
            self._timer_stopped = False
            self._timer = asyncio.create_task(self._tick_loop(), name=f"tick-{self.name}")

    async def stop(self) -> None:
        """Stop the timer and checkpoint every aggregate with anything not attested yet (a
        log that is not running any more may not be writable: then nothing is)."""
        if self._timer:
            # Python 3.11's wait_for can swallow a cancel that comes as its wait ends (a
            # helper saw a stop hang on that pattern): the flag ends the loop all the same
            self._timer_stopped = True
            self._timer.cancel()
            await asyncio.gather(self._timer, return_exceptions=True)
            self._timer = None
        async with self._lock:
            try:
                await self.publish_checkpoints(final=True)
            except Exception:  # the log is gone: the tail stays unattested (README)
                log.warning("%s: last checkpoints not published", self.name, exc_info=True)


