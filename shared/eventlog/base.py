"""The event-log interface every service runs on (DESIGN.md, Transports).

Two implementations: :class:`shared.eventlog.memory.MemoryLog` (one process; demo, unit tests)
and :class:`shared.eventlog.kafka.KafkaLog` (FastStream + aiokafka). Messages are
:class:`contracts.envelope.Envelope` instances, serialised as JSON, keyed by ``envelope.key``
(the aggregate) so that one game's or one tournament's messages stay in order.

Delivery is at-least-once: a handler may see a message again (redelivery after a crash, a
producer retry). Consumers make that harmless with :class:`Deduper`.
"""
from __future__ import annotations

import abc
import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence

from contracts.envelope import Envelope

#: The largest message the log takes, in bytes of its JSON: Kafka's default ``max.message.bytes``
#: (1,048,588 bytes a record batch) less room for a batch's framing and for the forward core's
#: envelope around a game event. The gateway answers a larger command 413; a larger decision is
#: refused in its place (:meth:`shared.service.Processor._wrap`): a broker would refuse it, and
#: the transaction with it, again at every restart.
MAX_EVENT_BYTES = 1_000_000

Handler = Callable[[str, Envelope], Awaitable[None]]
#: A topic partition: ``(topic, partition)``. Offsets are Kafka's (the memory log: one
#: partition per topic, the message's index in it).
Position = tuple[str, int]
Positions = dict[Position, int]


class Follower:
    """A :meth:`EventLog.follow` in progress. ``positions``: for every topic partition, the
    offset of the next message, i.e. one past the last one whose handler has returned;
    updated right after each handler returns, so a caller reading it between two handlers
    (nothing in between on one event loop) gets exactly what was handled."""

    def __init__(self, positions: Positions) -> None:
        self.positions = positions
        self.task: asyncio.Task | None = None

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.wait([self.task], timeout=10)


class EventLog(abc.ABC):
    """Append-only, per-key ordered log of topics.

    - :meth:`publish` appends one message to ``topic`` under key ``msg.key``; returns once the
      log has it (Kafka: acks=all on an idempotent producer).
    - :meth:`subscribe` registers ``handler(topic, msg)`` for ``topics`` in consumer group
      ``group``; each group sees every message at least once, in order per key. Call before
      :meth:`start`. A new group starts at the beginning of the log.
    - :meth:`read` returns every message of ``topic`` currently in the log, from the start, in
      log order (replay/audit/export).
    """

    @abc.abstractmethod
    async def start(self) -> None: ...

    @abc.abstractmethod
    async def stop(self) -> None: ...

    @abc.abstractmethod
    async def publish(self, topic: str, msg: Envelope) -> None: ...

    @abc.abstractmethod
    def subscribe(self, topics: Sequence[str], group: str, handler: Handler, *,
                  commit: str = "after") -> None:
        """``commit="after"``: a message's offset is committed only after ``handler`` returned
        (services: effects written first). ``"periodic"``: offsets are committed in the
        background (read models, whose state is rebuilt from the log anyway)."""

    @abc.abstractmethod
    async def read(self, topic: str) -> list[Envelope]: ...

    async def read_many_lazily(self, topics: Sequence[str]) -> Iterable[Envelope]:
        """:meth:`read_many`'s messages, each parsed only when the iteration reaches it: a
        reader that keeps what it needs of each (the gateway's read model) never holds the
        whole log parsed (Kafka: 3.4 KB a message against 0.5 KB of its record)."""
        return await self.read_many(topics)

    async def read_many(self, topics: Sequence[str]) -> list[Envelope]:
        """Every message of ``topics`` in append order across the topics (export, audit)."""
        out: list[Envelope] = []
        for t in topics:
            out += await self.read(t)
        return out

    async def read_key(self, topics: Sequence[str], key: str) -> list[Envelope]:
        """The messages of ``topics`` under partition key ``key`` (:attr:`Envelope.key`), in
        append order; Kafka reads only the partition the key maps to."""
        return [m for m in await self.read_many(topics) if m.key == key]

    @abc.abstractmethod
    async def read_tail(self, topics: Sequence[str], start: Positions
                        ) -> tuple[Iterable[tuple[Position, int, Envelope]], Positions]:
        """What ``topics`` hold after ``start`` (per topic partition the offset of the first
        message wanted; a partition not in it: from its beginning) up to the end now: the
        messages as ``(position, offset, message)`` in log order (each partition in offset
        order, partitions merged by timestamp), parsed as the iteration reaches them, and the
        end offset of every partition (where a :meth:`follow` goes on)."""

    @abc.abstractmethod
    def follow(self, topics: Sequence[str], start: Positions, handler: Handler) -> Follower:
        """Call ``handler(topic, msg)`` for every message of ``topics`` from ``start`` on (as
        :meth:`read_tail`), as they come, until :meth:`stop` or :meth:`Follower.stop`: a read
        model's feed, with no consumer group (every follower sees everything)."""

    @abc.abstractmethod
    async def save_snapshot(self, name: str, blob: bytes, key: bytes, tag: str) -> None:
        """Keep ``blob`` as the latest snapshot called ``name`` of kind ``tag`` (e.g. the
        fingerprint of the code that made it), authenticated under ``key``
        (:mod:`shared.sealing`); any size: Kafka splits it into records written before the
        one that makes it the latest."""

    @abc.abstractmethod
    async def load_snapshot(self, name: str, key: bytes | tuple[bytes, ...], tag: str) -> bytes | None:
        """The latest complete snapshot called ``name`` of kind ``tag`` whose authentication
        under ``key`` (or any of several: :func:`shared.sealing.snapshot_keys`) verifies, or
        None. What does not verify is skipped unread."""

    async def idle(self, timeout: float = 30.0) -> None:  # pragma: no cover - overridden
        """Wait until every subscribed group has handled every message published so far."""

    async def __aenter__(self) -> "EventLog":
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.stop()


class Deduper:
    """Skips messages already applied: a (``stream``, ``seq``) at or below the last applied seq
    of that stream (DESIGN.md invariant 3). Every stream has one writer and is in order on its
    partition, so this is exact; memory is one integer per stream."""

    def __init__(self) -> None:
        self._last: dict[str, int] = {}

    def seen(self, msg: Envelope) -> bool:
        """True when ``msg`` was applied before (and must be skipped)."""
        return msg.seq <= self._last.get(msg.stream, 0)

    def last(self, stream: str) -> int:
        """The last seq applied of ``stream`` (0 if none)."""
        return self._last.get(stream, 0)

    def mark(self, msg: Envelope) -> None:
        """Record ``msg`` as applied."""
        if msg.seq > self._last.get(msg.stream, 0):
            self._last[msg.stream] = msg.seq


def applied_once(messages: list[Envelope]) -> list[Envelope]:
    """``messages`` without the repeats a consumer skips: a (``stream``, ``seq``) at or below
    one already seen on that stream (:class:`Deduper`), e.g. a log file written twice
    (``cat L L``) or a redelivery. Order kept; pure."""
    d, out = Deduper(), []
    for m in messages:
        if not d.seen(m):
            d.mark(m)
            out.append(m)
    return out


def open_log(bus: str) -> EventLog:
    """Build an event log from a ``--bus`` value: ``memory`` or ``kafka://HOST:PORT``.

    Raises ``ValueError`` for anything else.
    """
    if bus == "memory":
        from shared.eventlog.memory import MemoryLog

        return MemoryLog()
    if bus.startswith("kafka://") and len(bus) > len("kafka://"):
        from shared.eventlog.kafka import KafkaLog

        return KafkaLog(bus[len("kafka://"):])
    raise ValueError(f"unknown bus {bus!r}: use 'memory' or 'kafka://HOST:PORT'")
