"""The thin adapter around every service's pure core (DESIGN.md invariants 1 and 3).

A core is a deterministic state machine: ``handle(msg) -> [Emit]`` for each consumed message
(and, for the clock, ``tick(now_ms) -> [Emit]``). It never reads a clock, draws a random number or
does I/O. :class:`ServiceHost` does the rest:

- subscribes the core's input topics in consumer group ``core.name``;
- skips redelivered messages (:class:`shared.eventlog.base.Deduper`);
- wraps each emitted payload in its envelope: the core's own single-writer stream, gap-free
  ``seq``, ``occurred_at`` = the cause's event time, ``causation_id`` = the cause,
  ``correlation_id`` inherited, and a deterministic ``event_id`` (UUIDv5 of cause and index), so a
  re-derived decision is byte-for-byte the recorded one;
- on start, rebuilds the core's state by replaying its inputs from the start of the log, and
  publishes only decisions that are not in the log yet (a crash anywhere, then a restart, gives
  the same log as no crash).
"""
from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from contracts.envelope import Actor, Envelope, Payload, dt_of
from contracts.messages import envelope
from shared.eventlog.base import Deduper, EventLog

log = logging.getLogger("arbiter.service")

from shared.metrics import EMITTED, ERRORS, HANDLED, LATENCY

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
    """Base of the pure service cores. Subclasses set ``name`` and ``inputs`` (topics) and
    implement :meth:`handle`; the clock also implements :meth:`tick`."""

    name: str = "core"
    inputs: tuple[str, ...] = ()

    def handle(self, msg: Envelope) -> list[Emit]:  # pragma: no cover - abstract
        raise NotImplementedError

    def tick(self, now_ms: int) -> list[tuple[Envelope | None, Emit]]:
        """Time-driven decisions at ``now_ms`` (epoch ms): pairs of (cause, decision)."""
        return []

    def next_deadline(self) -> int | None:
        """Earliest epoch ms at which :meth:`tick` may decide something, or None."""
        return None


def derived_id(service: str, cause: uuid.UUID | None, index: int, extra: str = "") -> uuid.UUID:
    """Deterministic event id of the ``index``-th decision of ``service`` caused by ``cause``."""
    return uuid.uuid5(_NS, f"{service}:{cause}:{index}:{extra}")


class ServiceHost:
    """Runs ``core`` on ``log``. ``ticks=True`` runs the core's timer (clock flags) on wall time
    given by ``now_ms`` (epoch ms callable).

    ``commit``: when consumer offsets are committed (see :meth:`EventLog.subscribe`). The log,
    not the offsets, is what makes a restart safe: :meth:`recover` replays every input from the
    start and publishes any decision missing from the log, so a message consumed but not acted
    on before a crash is acted on at restart whatever offset was committed. Offsets only bound
    the redelivery after recovery, which the deduper skips. ``"periodic"`` (the default) commits
    in the background; ``"after"`` commits each message after its decisions are published.
    """

    def __init__(self, core: Core, log: EventLog, *, ticks: bool = False,
                 now_ms: Callable[[], int] | None = None, commit: str = "periodic") -> None:
        self.core = core
        self.commit = commit
        self.log = log
        self.ticks = ticks
        self.now_ms = now_ms or (lambda: time.time_ns() // 1_000_000)
        self.dedupe = Deduper()
        self.seqs: dict[str, int] = {}
        self.actor = Actor(kind="service", id=core.name)
        self._recorded: set[uuid.UUID] = set()
        self._lock = asyncio.Lock()
        self._timer: asyncio.Task | None = None
        self._wake = asyncio.Event()

    def attach(self) -> None:
        """Subscribe the core's inputs (call before ``log.start()``)."""
        self.log.subscribe(self.core.inputs, self.core.name, self.on_message, commit=self.commit)

    async def recover(self, log_messages: list[Envelope] | None = None) -> int:
        """Rebuild state from the log before consuming live: replay every input message in
        append order (as it was consumed), publishing only decisions not yet in the log.
        ``log_messages``: the log's messages of (at least) the core's input and output topics in
        append order, when the caller already read them (several services in one process read
        the log once). Returns the number of messages replayed."""
        topics = set(self.core.inputs) | set(_output_topics(self.core))
        if log_messages is None:
            log_messages = await self.log.read_many(sorted(topics))
        inputs = [m for m in log_messages if m.payload.TOPIC in self.core.inputs]
        for m in log_messages:
            if m.actor == self.actor and m.payload.TOPIC in topics:
                self._recorded.add(m.event_id)
                self.seqs[m.stream] = max(self.seqs.get(m.stream, 0), m.seq)
        for m in inputs:
            await self.on_message("", m)
        return len(inputs)

    async def on_message(self, topic: str, msg: Envelope) -> None:
        async with self._lock:
            if self.dedupe.seen(msg):
                return
            if msg.actor == self.actor:  # one of our own decisions (recovery, audit seeding)
                self.seqs[msg.stream] = max(self.seqs.get(msg.stream, 0), msg.seq)
            t0 = time.perf_counter()
            try:
                emits = self.core.handle(msg)
            except Exception:  # a core bug must not stop the service or its recovery
                ERRORS.labels(self.core.name, msg.type).inc()
                log.exception("%s: no decision on %s %s#%s (event %s)", self.core.name, msg.type,
                              msg.stream, msg.seq, msg.event_id)
                emits = []
            self.dedupe.mark(msg)
            HANDLED.labels(self.core.name, msg.type).inc()
            await self._publish(msg, emits)
            LATENCY.labels(self.core.name).observe(time.perf_counter() - t0)
        if self.ticks and emits:
            self._wake.set()

    async def _publish(self, cause: Envelope | None, emits: Iterable[Emit], extra: str = "") -> None:
        for i, e in enumerate(emits):
            event_id = derived_id(self.core.name, cause.event_id if cause else None, i, extra)
            if event_id in self._recorded:
                # Already in the log (recovery after a crash): its seq is already counted in
                # self.seqs (recover() starts from the recorded maximum), so take none.
                continue
            seq = self.seqs.get(e.stream, 0) + 1
            self.seqs[e.stream] = seq
            at = dt_of(e.at_ms) if e.at_ms is not None else (cause.occurred_at if cause else dt_of(self.now_ms()))
            out = envelope(
                e.payload, stream=e.stream, seq=seq, occurred_at=at, actor=self.actor,
                causation_id=cause.event_id if cause else None,
                correlation_id=(cause.correlation_id or cause.event_id) if cause else None,
                event_id=event_id,
            )
            await self.log.publish(e.payload.TOPIC, out)
            EMITTED.labels(self.core.name, out.type).inc()

    async def _tick_loop(self) -> None:
        while True:
            deadline = self.core.next_deadline()
            now = self.now_ms()
            grace = getattr(self.core, "grace_ms", 0)
            delay = 0.5 if deadline is None else max(0.0, (deadline + grace - now) / 1000 + 0.001)
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=min(delay, 0.5))
                continue
            except asyncio.TimeoutError:
                pass
            async with self._lock:
                for cause, emit in self.core.tick(self.now_ms()):
                    await self._publish(cause, [emit], extra="tick")

    async def start_timer(self) -> None:
        if self.ticks and self._timer is None:
            self._timer = asyncio.create_task(self._tick_loop(), name=f"tick-{self.core.name}")

    async def stop(self) -> None:
        if self._timer:
            self._timer.cancel()
            await asyncio.gather(self._timer, return_exceptions=True)
            self._timer = None


def _output_topics(core: Core) -> tuple[str, ...]:
    return tuple(getattr(core, "outputs", ()))
