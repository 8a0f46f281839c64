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
import functools
import hmac
import heapq
import json
import logging
import time
from collections.abc import Iterator, Sequence

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.partitioner import DefaultPartitioner, murmur2
from aiokafka.coordinator.assignors.range import RangePartitionAssignor
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import TopicAlreadyExistsError
from faststream import AckPolicy
from faststream.kafka import KafkaBroker, KafkaMessage

from pydantic import ValidationError

from contracts.envelope import Envelope
from contracts.messages import LOG_TOPICS, parse_message
from shared.eventlog.base import EventLog, Follower, Handler, Position, Positions
from shared.sealing import mac, verifies

log = logging.getLogger("arbiter.kafka")

#: How long a producer of commands (the gateway; the load generator, as one more gateway) lets
#: records gather into one produce request (ms). At 0 every command was a request of its own;
#: with 5 the broker's CPU per move at 1,000 moves/s fell from 0.53 to 0.45 ms (with
#: :data:`FETCH_MIN_BYTES`; ``python -m loadtests.load``, same machine, same hour), for at
#: most 5 ms more per command.
COMMAND_LINGER_MS = 5
#: A back-end process's fetches (librdkafka ``fetch.min.bytes`` / ``fetch.wait.max.ms``): the
#: broker answers once 4 KiB (about ten commands) are there or 10 ms have passed, instead of
#: as soon as one record is: fewer fetch requests under load, at most 10 ms more per input.
FETCH_MIN_BYTES, FETCH_WAIT_MAX_MS = 4096, 10


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


@functools.lru_cache(maxsize=1 << 16)
def partition_of(key: bytes, partitions: int) -> int:
    """The partition (0 .. ``partitions`` - 1) where the Kafka producers' default partitioner
    puts a record keyed ``key`` (murmur2 of the key, as in the Java client and aiokafka).
    Cached: aiokafka's murmur2 is pure Python (3.8% of the game process's samples under load,
    every move's decisions going to the same few keys)."""
    return (murmur2(key) & 0x7FFFFFFF) % partitions


def keyed_partitioner(key: bytes | None, all_partitions: list[int], available: list[int]) -> int:
    """aiokafka's default partitioner (same partitions: murmur2 of the key, a random one without a
    key) with the murmur2 of keyed records cached (:func:`partition_of`)."""
    if key is None:
        return DefaultPartitioner()(key, all_partitions, available)
    return all_partitions[partition_of(key, len(all_partitions))]


def broker_silence(bootstrap: str, timeout_s: float = 5.0) -> str | None:
    """None when a Kafka broker at ``bootstrap`` (``HOST:PORT``) answers a metadata request
    within ``timeout_s`` seconds, else librdkafka's reason (one line) why none did."""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    try:
        AdminClient({"bootstrap.servers": bootstrap, "log_level": 0}).list_topics(timeout=timeout_s)
    except KafkaException as e:
        return e.args[0].str() if e.args and hasattr(e.args[0], "str") else str(e)
    return None


def no_broker(bus: str) -> str | None:
    """What to tell a person when no broker answers at ``bus`` (``kafka://HOST:PORT``) within
    5 s (:func:`broker_silence`): one line with the reason and what to do; None when one does.
    ``arbiter up`` and every service process ask before they start, instead of failing in
    the Kafka client with a traceback."""
    why = broker_silence(bus.removeprefix("kafka://"))
    return None if why is None else (f"no Kafka broker answers at {bus} ({why}): start one "
                                     "(make kafka-up) or name yours with --bus or ARBITER_BUS")


async def ensure_topics(bootstrap: str, partitions: int, topics: Sequence[str] = LOG_TOPICS,
                        compacted: Sequence[str] = (), compacted_config: dict | None = None,
                        config: dict | None = None) -> None:
    """Create the missing ``topics`` (with ``config``) and ``compacted`` topics
    (``cleanup.policy=compact`` plus ``compacted_config``) with ``partitions`` partitions
    each, replication 1."""
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        compacting = {"cleanup.policy": "compact", **(compacted_config or {})}
        new = [NewTopic(t, partitions, 1, topic_configs=config or {}) for t in topics if t not in existing]
        new += [NewTopic(t, partitions, 1, topic_configs=compacting) for t in compacted if t not in existing]
        if new:
            try:
                await admin.create_topics(new)
            except TopicAlreadyExistsError:
                pass
    finally:
        await admin.close()


#: The most bytes of a snapshot in one record (Kafka's default limit is 1 MB a record batch).
SNAPSHOT_CHUNK = 900_000
#: How far back from the end of a snapshots topic :meth:`KafkaLog.load_snapshot` looks (records).
SNAPSHOT_SEARCH = 2048
#: Snapshots topics keep the latest 1 GiB (whole segments of 128 MiB) and nothing by age: the
#: latest snapshot stays however long ago it was written.
SNAPSHOT_TOPIC_CONFIG = {"retention.ms": "-1", "retention.bytes": str(1 << 30),
                         "segment.bytes": str(128 << 20)}


async def _read(c: AIOKafkaConsumer, tp: TopicPartition, lo: int, hi: int) -> list:
    """The records of ``tp`` at offsets ``lo`` .. ``hi`` - 1 that are still there."""
    c.seek(tp, lo)
    out: list = []
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # (no transactions on it: offset hi - 1 is a record)
        records = (await c.getmany(tp, timeout_ms=200)).get(tp, [])
        out += [r for r in records if lo <= r.offset < hi]
        if records and records[-1].offset >= hi - 1:
            break
    return out


def _canonical(body: dict) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def _verified(value: bytes, keys: bytes | tuple[bytes, ...], tag: str, first: int,
              at: int) -> tuple[dict, bytes] | None:
    """The manifest record ``value`` (at offset ``at``) and the key of ``keys`` its HMAC
    verifies under, if it has ``tag`` and its chunks lie between ``first`` and ``at``; else
    None."""
    try:
        m = json.loads(value)
        body = {k: m[k] for k in ("chunks", "bytes", "tag", "blob_mac")}
        key = verifies(bytes.fromhex(m["mac"]), _canonical(body), keys)
        chunks = body["chunks"]
        ok = key is not None and body["tag"] == tag and bool(chunks) and all(
            isinstance(o, int) and first <= o < at for o in chunks) and chunks == sorted(set(chunks))
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return (body, key) if ok else None  # type: ignore[return-value]


async def _chunks(c: AIOKafkaConsumer, tp: TopicPartition, manifest: dict, key: bytes) -> bytes | None:
    """The blob a verified ``manifest`` describes, or None when a chunk is gone or the blob's
    HMAC does not verify."""
    want = manifest["chunks"]
    got = {r.offset: r.value for r in await _read(c, tp, want[0], want[-1] + 1) if r.offset in set(want)}
    if len(got) != len(want):
        return None
    blob = b"".join(got[o] for o in want)
    ok = len(blob) == manifest["bytes"] and hmac.compare_digest(mac(key, blob).hex(), manifest["blob_mac"])
    return blob if ok else None


class KafkaLog(EventLog):
    """:class:`EventLog` on a Kafka cluster at ``bootstrap`` (``host:port``).

    ``partitions``: partitions per topic when this log creates the topics (default 8).
    """

    def __init__(self, bootstrap: str, partitions: int = 8, client_id: str = "arbiter") -> None:
        self.bootstrap = bootstrap
        self.partitions = partitions
        self.broker = KafkaBroker(
            bootstrap, client_id=client_id, enable_idempotence=True, acks="all",
            linger_ms=COMMAND_LINGER_MS, logger=None, graceful_timeout=10.0, apply_types=False,
            partitioner=keyed_partitioner,
        )
        self._inflight = 0
        self._started = False
        self._followers: list[Follower] = []
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

    async def ensure_topics(self, topics: Sequence[str] = LOG_TOPICS) -> None:
        """Create ``topics`` with ``self.partitions`` partitions if they do not exist."""
        await ensure_topics(self.bootstrap, self.partitions, topics)

    async def start(self) -> None:
        await self.ensure_topics()
        await self.broker.start()
        self._started = True

    async def stop(self) -> None:
        for f in self._followers:
            await f.stop()
        self._followers.clear()
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
        return [m for *_, m in await self.read_placed(topics, key=key)]

    async def ends(self, topics: Sequence[str]) -> Positions:
        """The committed end of every partition of ``topics``, in one request: a cut of the
        log at one moment (:meth:`read_placed`)."""
        consumer = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False,
                                    isolation_level="read_committed")
        try:
            await consumer.start()
            tps = [TopicPartition(t, p) for t in dict.fromkeys(topics) for p in sorted(await self._partitions(t))]
            return {(tp.topic, tp.partition): o for tp, o in (await consumer.end_offsets(tps)).items()}
        finally:
            await consumer.stop()

    async def read_placed(self, topics: Sequence[str], key: str | None = None,
                          until: Positions | None = None) -> list[tuple[Position, int, int, Envelope]]:
        """``((topic, partition), offset, record timestamp ms, message)`` of every message of
        ``topics`` (before the ``until`` offsets, :meth:`ends`, where given; only the partition
        ``key`` maps to, and only messages of that key, when given), in :func:`in_log_order`:
        where each message stands, for a reader that must know which inputs a process had
        decided (``arbiter audit`` of a live log; :meth:`read_key` without the places)."""
        rows = []
        for t in dict.fromkeys(topics):
            only = None
            if key is not None:
                parts = sorted(await self._partitions(t))
                if not parts:
                    continue
                only = parts[partition_of(key.encode(), len(parts))]
            rows += await self._rows(t, only=only, until=until)
        return [(pos, off, ts, m) for ts, pos, off, raw in in_log_order(rows)
                if (m := self._parse(pos[0], raw)) is not None and (key is None or m.key == key)]

    async def _rows(self, topic: str, only: int | None = None, start: Positions | None = None,
                    ends: Positions | None = None, until: Positions | None = None) -> list[tuple]:
        """``(timestamp, (topic, partition), offset, value)`` of every committed record of
        ``topic`` (or of its partition ``only``) now in the log (before the ``until`` offsets
        where given), in :func:`in_log_order`; from the ``start`` offsets on where given;
        ``ends`` (if given) receives the end offsets."""
        consumer = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False,
                                    isolation_level="read_committed", fetch_max_wait_ms=20)
        try:
            await consumer.start()
            parts = await self._partitions(topic)
            tps = [TopicPartition(topic, p) for p in sorted(parts) if only is None or p == only]
            if not tps:
                return []
            consumer.assign(tps)
            await consumer.seek_to_beginning(*tps)
            end = await consumer.end_offsets(tps)
            if until is not None:
                end = {tp: min(o, until.get((topic, tp.partition), o)) for tp, o in end.items()}
            if ends is not None:
                ends.update({(topic, tp.partition): o for tp, o in end.items()})
            for tp in tps:
                if (start or {}).get((topic, tp.partition), 0) > 0:
                    consumer.seek(tp, min(start[(topic, tp.partition)], end[tp]))
            rows: list[tuple] = []
            remaining = {tp for tp in tps if end[tp] > (start or {}).get((topic, tp.partition), 0)}
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

    async def read_tail(self, topics: Sequence[str], start: Positions
                        ) -> tuple[Iterator[tuple[Position, int, Envelope]], Positions]:
        ends: Positions = {}
        per_topic = await asyncio.gather(*(self._rows(t, start=start, ends=ends) for t in dict.fromkeys(topics)))
        rows = in_log_order([r for rows in per_topic for r in rows])
        return ((pos, off, m) for _, pos, off, raw in rows if (m := self._parse(pos[0], raw)) is not None), ends

    def follow(self, topics: Sequence[str], start: Positions, handler: Handler) -> Follower:
        """A group-less read-committed consumer of every partition of ``topics`` (created if
        missing; partitions added to a topic later are not followed), from ``start``; polled
        in batches, each record handled in offset order."""
        f = Follower(dict(start))
        f.task = asyncio.create_task(self._follow(list(dict.fromkeys(topics)), f, handler),
                                     name="kafkalog-follow")
        self._followers.append(f)
        return f

    async def _follow(self, topics: list[str], f: Follower, handler: Handler) -> None:
        """Follow until cancelled; whatever fails (the broker away at the start, a topic not
        yet known) is logged and the follow starts again a second later from ``f.positions``:
        nothing handled twice, nothing skipped."""
        while True:
            try:
                await self._follow_once(topics, f, handler)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("following %s: %s: %s; again in 1 s from the positions reached",
                            ", ".join(topics), type(e).__name__, e)
                await asyncio.sleep(1.0)

    async def _follow_once(self, topics: list[str], f: Follower, handler: Handler) -> None:
        await self.ensure_topics(topics)  # a fresh broker: the partitions to assign exist first
        parts = {t: sorted(await self._partitions(t)) for t in topics}
        if not all(parts.values()):
            raise RuntimeError(f"no partitions known yet for {[t for t in topics if not parts[t]]}")
        c = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False,
                             isolation_level="read_committed", fetch_max_wait_ms=50)
        await c.start()
        try:
            tps = [TopicPartition(t, p) for t in topics for p in parts[t]]
            c.assign(tps)
            for tp in tps:
                f.positions.setdefault((tp.topic, tp.partition), 0)
                c.seek(tp, f.positions[(tp.topic, tp.partition)])
            while True:
                batch = await c.getmany(timeout_ms=1000, max_records=2000)
                for tp, records in batch.items():
                    for r in records:
                        m = self._parse(tp.topic, r.value)
                        if m is not None:
                            await handler(tp.topic, m)
                        f.positions[(tp.topic, tp.partition)] = r.offset + 1
        finally:
            await c.stop()

    async def save_snapshot(self, name: str, blob: bytes, key: bytes, tag: str) -> None:
        """Chunks of at most :data:`SNAPSHOT_CHUNK` bytes on topic ``arbiter.snapshots.<name>``
        (one partition; size-bound retention keeps the latest few), each acknowledged before
        the manifest that makes them the latest: JSON of the chunks' offsets, the size, the
        tag, the blob's HMAC, and an HMAC of all that (:mod:`shared.sealing`)."""
        topic = f"arbiter.snapshots.{name}"
        await ensure_topics(self.bootstrap, 1, (topic,), config=SNAPSHOT_TOPIC_CONFIG)
        p = AIOKafkaProducer(bootstrap_servers=self.bootstrap, enable_idempotence=True,
                             max_request_size=SNAPSHOT_CHUNK + (1 << 16), compression_type=None)
        await p.start()
        try:
            futs = [await p.send(topic, blob[i:i + SNAPSHOT_CHUNK], key=b"chunk", partition=0)
                    for i in range(0, len(blob), SNAPSHOT_CHUNK)]
            body = {"chunks": [(await fut).offset for fut in futs], "bytes": len(blob), "tag": tag,
                    "blob_mac": mac(key, blob).hex()}
            manifest = {**body, "mac": mac(key, _canonical(body)).hex()}
            await (await p.send(topic, json.dumps(manifest).encode(), key=b"manifest", partition=0))
        finally:
            await p.stop()

    async def load_snapshot(self, name: str, key: bytes | tuple[bytes, ...], tag: str) -> bytes | None:
        """The blob of the latest manifest of :meth:`save_snapshot` that verifies under ``key``
        (or any of several keys: :func:`shared.sealing.snapshot_keys`),
        has ``tag`` and whose chunks are all there and verify too, or None. A manifest that
        does not verify (forged, other key) or names offsets outside the topic is skipped
        unread; at most :data:`SNAPSHOT_SEARCH` records back from the end are looked at."""
        topic = f"arbiter.snapshots.{name}"
        c = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False,
                             max_partition_fetch_bytes=SNAPSHOT_CHUNK + (1 << 16), fetch_max_wait_ms=20)
        try:
            await c.start()
            if topic not in await c.topics():
                return None
            tp = TopicPartition(topic, 0)
            c.assign([tp])
            first, end = (await c.beginning_offsets([tp]))[tp], (await c.end_offsets([tp]))[tp]
            hi = end
            while hi > max(first, end - SNAPSHOT_SEARCH):  # back from the end, 64 at a time
                lo = max(first, hi - 64)
                for r in reversed([r for r in await _read(c, tp, lo, hi) if r.key == b"manifest"]):
                    found = _verified(r.value, key, tag, first, r.offset)
                    if found is not None and (blob := await _chunks(c, tp, *found)) is not None:
                        return blob
                hi = lo
            return None
        finally:
            await c.stop()

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
