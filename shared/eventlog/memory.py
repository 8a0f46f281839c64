"""In-memory event log: one process, same semantics as Kafka for one partition per topic.

Messages are stored serialised (JSON bytes) and parsed on delivery, so serialisation is exercised
exactly as on Kafka. Each consumer group has its own cursor per topic and is served by one task,
in log order.
"""
from __future__ import annotations

import asyncio
from collections.abc import Sequence

from contracts.envelope import Envelope
from contracts.messages import parse_message
from shared.eventlog.base import EventLog, Follower, Handler, Position, Positions
from shared.sealing import seal, unseal


class MemoryLog(EventLog):
    """Single-process :class:`EventLog`. ``redeliver(topic, index)`` re-sends a stored message to
    every group (a test hook for at-least-once delivery)."""

    def __init__(self) -> None:
        self._topics: dict[str, list[tuple[int, bytes]]] = {}
        self._counter = 0
        self._groups: dict[str, tuple[list[str], list[Handler]]] = {}
        self._cursors: dict[tuple[str, str], int] = {}
        self._redeliveries: dict[str, list[tuple[str, bytes]]] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task] = []
        self._busy: dict[str, bool] = {}
        self._errors: list[BaseException] = []
        self._followers: dict[str, Follower] = {}
        self._snapshots: dict[str, tuple[str, bytes]] = {}

    def subscribe(self, topics: Sequence[str], group: str, handler: Handler, *,
                  commit: str = "after") -> None:
        ts, hs = self._groups.setdefault(group, ([], []))
        for t in topics:
            if t not in ts:
                ts.append(t)
            self._topics.setdefault(t, [])
        hs.append(handler)

    async def start(self) -> None:
        for group in self._groups:
            if group not in self._followers:
                self._tasks.append(asyncio.create_task(self._run(group), name=f"memlog-{group}"))

    async def read_tail(self, topics: Sequence[str], start: Positions
                        ) -> tuple[list[tuple[Position, int, Envelope]], Positions]:
        rows = sorted((c, t, i, raw) for t in dict.fromkeys(topics)
                      for i, (c, raw) in enumerate(self._topics.get(t, [])) if i >= start.get((t, 0), 0))
        ends = {(t, 0): len(self._topics.get(t, [])) for t in topics}
        return [((t, 0), i, parse_message(raw)) for _, t, i, raw in rows], ends

    def follow(self, topics: Sequence[str], start: Positions, handler: Handler) -> Follower:
        """A group of its own whose cursors start at ``start``; its task starts at once."""
        name = f"follow-{len(self._followers)}"
        self.subscribe(topics, name, handler)
        f = self._followers[name] = Follower({(t, 0): start.get((t, 0), 0) for t in topics})
        for t in topics:
            self._cursors[(name, t)] = f.positions[(t, 0)]
        f.task = asyncio.create_task(self._run(name), name=f"memlog-{name}")
        self._tasks.append(f.task)
        return f

    async def save_snapshot(self, name: str, blob: bytes, key: bytes, tag: str) -> None:
        self._snapshots[name] = (tag, seal(blob, key))

    async def load_snapshot(self, name: str, key: bytes | tuple[bytes, ...], tag: str) -> bytes | None:
        kind, sealed = self._snapshots.get(name, (None, b""))
        return unseal(sealed, key) if kind == tag else None

    async def stop(self) -> None:
        for t in self._tasks:
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()

    async def publish(self, topic: str, msg: Envelope) -> None:
        self._counter += 1
        self._topics.setdefault(topic, []).append((self._counter, msg.model_dump_json().encode()))
        self._wake.set()

    def redeliver(self, topic: str, index: int) -> None:
        """Deliver message ``index`` of ``topic`` again to every group subscribed to it."""
        raw = self._topics[topic][index][1]
        for group, (ts, _) in self._groups.items():
            if topic in ts:
                self._redeliveries.setdefault(group, []).append((topic, raw))
        self._wake.set()

    async def read(self, topic: str) -> list[Envelope]:
        return [parse_message(raw) for _, raw in self._topics.get(topic, [])]

    async def read_many(self, topics: Sequence[str]) -> list[Envelope]:
        rows = sorted(r for t in dict.fromkeys(topics) for r in self._topics.get(t, []))
        return [parse_message(raw) for _, raw in rows]

    def _next(self, group: str) -> tuple[str, bytes] | None:
        again = self._redeliveries.get(group)
        if again:
            return again.pop(0)
        ts, _ = self._groups[group]
        # Deliver across topics in publish order: pick the topic whose next message is oldest.
        best = None
        for t in ts:
            i = self._cursors.get((group, t), 0)
            log = self._topics[t]
            if i < len(log) and (best is None or log[i][0] < best[2]):
                best = (t, i, log[i][0])
        if best is None:
            return None
        t, i, _ = best
        self._cursors[(group, t)] = i + 1
        return t, self._topics[t][i][1]

    async def _run(self, group: str) -> None:
        _, handlers = self._groups[group]
        while True:
            item = self._next(group)
            if item is None:
                self._busy[group] = False
                self._wake.clear()
                await self._wake.wait()
                continue
            self._busy[group] = True
            topic, raw = item
            msg = parse_message(raw)
            for h in handlers:
                try:
                    await h(topic, msg)
                except Exception as exc:  # a handler bug must not stop the log
                    self._errors.append(exc)
                    raise
            if group in self._followers:
                self._followers[group].positions[(topic, 0)] = self._cursors[(group, topic)]
            self._wake.set()

    def pending(self) -> int:
        """Number of (group, message) deliveries not yet handled."""
        n = sum(len(v) for v in self._redeliveries.values())
        for group, (ts, _) in self._groups.items():
            for t in ts:
                n += len(self._topics[t]) - self._cursors.get((group, t), 0)
        return n

    async def idle(self, timeout: float = 30.0) -> None:
        """Wait until every group has handled everything published so far (and is waiting)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while self.pending() or any(self._busy.values()):
            for t in self._tasks:
                if t.done() and t.exception():
                    raise t.exception()
            if loop.time() > end:
                raise TimeoutError(f"memory log not idle after {timeout}s ({self.pending()} pending)")
            await asyncio.sleep(0)
