"""Kafka event log: FastStream (KafkaBroker) subscribers and publisher on aiokafka.

- Producer: idempotent (``enable_idempotence=True``, ``acks="all"``), key = aggregate, so a
  game's messages stay in order on one partition.
- Consumers: one FastStream subscriber per (group, topics), ``auto_offset_reset=earliest``,
  acknowledged (offset committed) only after the handler has returned, i.e. after its effects
  were published (``AckPolicy.ACK``): a crash before that redelivers, and :class:`Deduper`
  makes the redelivery harmless. A record that is not one of our messages (a producer outside
  the contracts, or a newer schema this build cannot read) is logged with its topic and bytes and
  skipped, by subscribers and by :meth:`KafkaLog.read` alike: one poison record must not stall a
  consumer group or stop a service from recovering. ``KafkaLog.undecodable`` counts them.
- :meth:`KafkaLog.read`: a group-less aiokafka consumer reading every partition from the
  beginning to the end offsets seen at call time (replay, export, audit).
- Every consumer reads ``read_committed``: the processes write their decisions in Kafka
  transactions (:mod:`shared.kafkahost`), and what a fenced or failed instance wrote is never
  seen.
"""
from __future__ import annotations

import asyncio
import heapq
import logging
from collections.abc import Iterator, Sequence

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.partitioner import murmur2
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import TopicAlreadyExistsError
from faststream import AckPolicy
from faststream.kafka import KafkaBroker, KafkaMessage

from pydantic import ValidationError

from contracts.envelope import Envelope
from contracts.messages import TOPICS, parse_message
from shared.eventlog.base import EventLog, Handler

log = logging.getLogger("arbiter.kafka")


class _Raw:
    """What our decoder hands a subscriber: the record's topic and its bytes (we parse them
    into the typed envelope ourselves; FastStream's type injection is switched off)."""

    __slots__ = ("topic", "body")

    def __init__(self, topic: str, body: bytes) -> None:
        self.topic, self.body = topic, body


async def _raw(msg: KafkaMessage) -> _Raw:
    return _Raw(msg.raw_message.topic, msg.body)


def parse_record(topic: str, body: bytes) -> Envelope | None:
    """The typed envelope of a record's bytes, or None (logged) when it is not one of our
    messages: one poison record must not stall a consumer or stop a restore."""
    try:
        return parse_message(body)
    except ValidationError as e:
        log.error("skipping an undecodable record on %s (%d errors, first: %s): %.200r",
                  topic, e.error_count(), e.errors()[0].get("msg", ""), body)
        return None


def in_log_order(rows):
    """``rows`` of ``(timestamp, (topic, partition), offset, ...)`` in the order that counts:
    each topic partition's rows in offset order (its append order: what a consumer sees and
    every decision follows), partitions merged by record timestamp, which only interleaves
    them for reading. Timestamps are producers' clocks and can run backwards within a
    partition (two gateways), so they never reorder a partition's rows."""
    groups: dict = {}
    for r in rows:
        groups.setdefault(r[1], []).append(r)
    runs = [sorted(g, key=lambda r: r[2]) for _, g in sorted(groups.items())]
    return list(heapq.merge(*runs, key=lambda r: r[0]))


def partition_of(key: bytes, partitions: int) -> int:
    """The partition (0 .. ``partitions`` - 1) where the Kafka producers' default partitioner
    puts a record keyed ``key`` (murmur2 of the key, as in the Java client and aiokafka)."""
    return (murmur2(key) & 0x7FFFFFFF) % partitions


async def ensure_topics(bootstrap: str, partitions: int, topics: Sequence[str] = TOPICS,
                        compacted: Sequence[str] = (), compacted_config: dict | None = None) -> None:
    """Create the missing ``topics`` and ``compacted`` topics (``cleanup.policy=compact`` plus
    ``compacted_config``) with ``partitions`` partitions each, replication 1."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        config = {"cleanup.policy": "compact", **(compacted_config or {})}
        new = [NewTopic(t, partitions, 1) for t in topics if t not in existing]
        new += [NewTopic(t, partitions, 1, topic_configs=config) for t in compacted if t not in existing]
        if new:
            try:
                await admin.create_topics(new)
            except TopicAlreadyExistsError:
                pass
    finally:
        await admin.close()


class KafkaLog(EventLog):
    """:class:`EventLog` on a Kafka cluster at ``bootstrap`` (``host:port``).

    ``partitions``: partitions per topic when this log creates the topics (default 8).
    """

    def __init__(self, bootstrap: str, partitions: int = 8, client_id: str = "arbiter") -> None:
        self.bootstrap = bootstrap
        self.partitions = partitions
        self.broker = KafkaBroker(
            bootstrap, client_id=client_id, enable_idempotence=True, acks="all",
            linger_ms=0, logger=None, graceful_timeout=10.0, apply_types=False,
        )
        self._inflight = 0
        self._started = False
        self.undecodable = 0

    def _parse(self, topic: str, body: bytes) -> Envelope | None:
        """The typed envelope of a record, or None (logged, counted) when it is not a message."""
        m = parse_record(topic, body)
        self.undecodable += m is None
        return m

    def subscribe(self, topics: Sequence[str], group: str, handler: Handler, *,
                  commit: str = "after") -> None:
        policy = AckPolicy.ACK if commit == "after" else AckPolicy.ACK_FIRST
        sub = self.broker.subscriber(
            *topics, group_id=group, auto_offset_reset="earliest", ack_policy=policy,
            fetch_max_wait_ms=20, max_poll_records=500, decoder=_raw,
            isolation_level="read_committed",  # decisions are written in transactions
            # partition i of every topic to the same member: a key's messages of all topics
            partition_assignment_strategy=(RangePartitionAssignor,),
        )

        async def _consume(raw: _Raw) -> None:
            self._inflight += 1
            try:
                m = self._parse(raw.topic, raw.body)
                if m is not None:
                    await handler(raw.topic, m)
            finally:
                self._inflight -= 1

        sub(_consume)

    async def ensure_topics(self, topics: Sequence[str] = TOPICS) -> None:
        """Create ``topics`` with ``self.partitions`` partitions if they do not exist."""
        await ensure_topics(self.bootstrap, self.partitions, topics)

    async def start(self) -> None:
        await self.ensure_topics()
        await self.broker.start()
        self._started = True

    async def stop(self) -> None:
        if self._started:
            await self.broker.stop()
            self._started = False

    async def publish(self, topic: str, msg: Envelope) -> None:
        if not self._started:
            await self.broker.connect()
            self._started = True
        await self.broker.publish(
            msg.model_dump_json().encode(), topic=topic, key=msg.key.encode(),
            headers={"type": msg.type},
        )

    async def _partitions(self, topic: str) -> list[int]:
        admin = AIOKafkaAdminClient(bootstrap_servers=self.bootstrap)
        await admin.start()
        try:
            desc = await admin.describe_topics([topic])
        finally:
            await admin.close()
        return [p["partition"] for d in desc if d.get("error_code", 0) == 0 for p in d["partitions"]]

    async def read(self, topic: str) -> list[Envelope]:
        return [m for r in await self._rows(topic) if (m := self._parse(topic, r[3])) is not None]

    async def read_many(self, topics: Sequence[str]) -> list[Envelope]:
        """All messages of ``topics``: each partition in offset order, merged by timestamp
        (:func:`in_log_order`)."""
        return list(await self.read_many_lazily(topics))

    async def read_many_lazily(self, topics: Sequence[str]) -> Iterator[Envelope]:
        rows = in_log_order([r for t in dict.fromkeys(topics) for r in await self._rows(t)])
        return (m for r in rows if (m := self._parse(r[1][0], r[3])) is not None)

    async def read_key(self, topics: Sequence[str], key: str) -> list[Envelope]:
        """Only the partition ``key`` maps to (the producers' murmur2 partitioner), of each
        topic: exporting one game or tournament does not read the whole log."""
        rows = []
        for t in dict.fromkeys(topics):
            parts = sorted(await self._partitions(t))
            if parts:
                p = parts[partition_of(key.encode(), len(parts))]
                rows += await self._rows(t, only=p)
        return [m for r in in_log_order(rows)
                if (m := self._parse(r[1][0], r[3])) is not None and m.key == key]

    async def _rows(self, topic: str, only: int | None = None) -> list[tuple]:
        """``(timestamp, (topic, partition), offset, value)`` of every committed record of
        ``topic`` (or of its partition ``only``) now in the log, in :func:`in_log_order`."""
        consumer = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False,
                                    isolation_level="read_committed")
        try:
            await consumer.start()
            parts = await self._partitions(topic)
            tps = [TopicPartition(topic, p) for p in sorted(parts) if only is None or p == only]
            if not tps:
                return []
            consumer.assign(tps)
            await consumer.seek_to_beginning(*tps)
            end = await consumer.end_offsets(tps)
            rows: list[tuple] = []
            remaining = {tp for tp in tps if end[tp] > 0}
            while remaining:  # positions pass the transaction markers too
                batch = await consumer.getmany(*remaining, timeout_ms=500, max_records=10_000)
                for tp, records in batch.items():
                    for r in records:
                        if r.offset < end[tp]:
                            rows.append((r.timestamp, (topic, tp.partition), r.offset, r.value))
                pos = {tp: await consumer.position(tp) for tp in remaining}
                remaining = {tp for tp in remaining if pos[tp] < end[tp]}
            return in_log_order(rows)
        finally:
            await consumer.stop()

    async def idle(self, timeout: float = 30.0) -> None:
        """Best effort: wait until no handler of this process is running for a short while."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        quiet = 0
        while quiet < 10:
            quiet = quiet + 1 if self._inflight == 0 else 0
            if loop.time() > end:
                raise TimeoutError("kafka log not idle")
            await asyncio.sleep(0.05)
