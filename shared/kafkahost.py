"""A processor on Kafka: partition-owned state, transactions, snapshots (DESIGN.md invariant 3).

:class:`KafkaHost` runs one process (``game`` or ``tournament``, :mod:`shared.system`) as any
number of instances in one consumer group. Kafka's own mechanisms do the work:

- Ownership. The group's range assignor gives partition *i* of every input topic to one
  member, so an instance owns whole partitions (a tournament with all its games). Each owned
  partition has its own :class:`shared.service.Processor` (its state) and its own
  transactional producer, ``transactional.id = arbiter.<process>.<partition>``. Starting that
  producer fences every earlier holder of the partition: a zombie instance (paused, cut off,
  or not yet told of a rebalance) can no longer write, and its open transaction is aborted.
- Exactly once. A batch of a partition's inputs is decided, then its decisions, the input
  offsets they consumed and, now and then, the partition's snapshot are written in ONE
  transaction. Every consumer reads ``read_committed``, so a decision is seen exactly when its
  inputs count as consumed: nothing lost, nothing doubled, no fork. The offsets are a record
  of the compacted topic ``arbiter.offsets.<process>`` (key and partition = the partition
  number), not the consumer group's offsets (``send_offsets_to_transaction``): that costs the
  transaction two more round trips to the broker, in series, and a marker on the offsets
  topic, and the fencing is the transactional id's either way. The group's offsets are read
  only where a partition has no offsets record and no snapshot written beside one (a log from
  before the change); a partition whose record is gone but whose snapshot says it existed is
  not restored (logged, retried, /healthz not ready) rather than rewound. Upgrading across
  this change, or back, stops every instance of the process first: a mixed group would
  decide again what the other version already decided.
- Snapshots. A partition's state (the processor, pickled and compressed, with the input
  offsets it has consumed) goes to the compacted topic ``arbiter.snapshots.<process>``, key and
  partition = the partition number, at most every ``snapshot_every_s`` seconds (30) or
  ``snapshot_every`` inputs (10,000), serialised by a forked child so the loop never stops
  for it. On assignment an instance loads the latest snapshot and
  replays only the inputs between its offsets and the committed offsets (already
  decided: their decisions are in the log and are not written again), so start-up time depends
  on the snapshot interval and the live state, not on the length of the log. A graceful
  :meth:`KafkaHost.stop` writes a last snapshot with the pending decisions: the next start
  replays nothing (an upgrade never decides history again with new code). After a crash
  across an upgrade the tail's decisions are compared with those the log holds, and the
  partition is not served if one differs (:meth:`KafkaHost._verify_tail`). The pickled state
  is compact: a chess position keeps its start and its moves (:class:`shared.rules.games.
  ChessPosition`), the clock drops its timer schedule (rebuilt on load).
- Timers. The processor's timer commands (CheckClock) are written in the partition's
  transactions too: a fenced instance cannot ask for a flag.

A failed transaction (broker down, fenced) drops the partition's state and restores it from
the log as on assignment: the state never runs ahead of what the log holds.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import pickle
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.abc import ConsumerRebalanceListener
from aiokafka.coordinator.assignors.range import RangePartitionAssignor

from contracts.envelope import Envelope
from shared.metrics import (
    ASSIGNED, BATCH, EMITTED, LAG, READY, REBALANCES, RECOVERY, RECOVERY_SECONDS, SNAPSHOT_AGE,
    TIMERS, TXN_ABORTS, TXN_SECONDS,
)
from shared.differences import compare
from shared.eventlog.kafka import ensure_topics, in_log_order, parse_record as _parse, partition_of
from shared.heap import freeze_heap
from shared.service import Processor

log = logging.getLogger("arbiter.kafkahost")

#: Bumped when the pickled state of a core changes shape: older snapshots are then ignored and
#: the partition is rebuilt from the start of its inputs (so is a snapshot that fails to load).
#: 2: compact chess positions and clock schedules.
SNAPSHOT_FORMAT = 2
MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024


def _fits(name: str, n: int, blob: bytes) -> bool:
    """Whether snapshot ``blob`` of partition ``n`` fits in a record with room for the request
    around it. One that does not is left out, never sent: the producer would refuse it and,
    with it, the transaction's decisions, again at every snapshot (the partition is then
    restored from its inputs; the snapshot-age alert tells)."""
    if len(blob) <= MAX_SNAPSHOT_BYTES - (1 << 20):
        return True
    log.error("%s: snapshot of partition %d is %d bytes compressed, over %d: not written",
              name, n, len(blob), MAX_SNAPSHOT_BYTES - (1 << 20))
    return False


def snapshot_topic(name: str) -> str:
    """The compacted topic holding process ``name``'s partition snapshots."""
    return f"arbiter.snapshots.{name}"


def offsets_topic(name: str) -> str:
    """The compacted topic holding, per partition of process ``name``, the input offsets its
    latest committed transaction consumed (JSON ``{topic: next offset}``)."""
    return f"arbiter.offsets.{name}"


async def decided_offsets(bootstrap: str, name: str, partition: int) -> dict[str, int] | None:
    """The input offsets (``{topic: next offset}``) up to which process ``name`` has decided
    and committed ``partition``, or None if it has written none (see the module doc)."""
    last = await read_last(bootstrap, offsets_topic(name), partition)
    return None if last is None else {t: int(o) for t, o in json.loads(last).items()}


async def read_last(bootstrap: str, topic: str, partition: int, max_bytes: int = 1 << 20) -> bytes | None:
    """The value of the last committed record of ``topic``/``partition`` (None if it has none).
    Its last records are [..., record, commit marker], so a short read from the end finds it;
    failing that (aborted transactions at the end), the whole (compacted) partition is read."""
    c = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                         isolation_level="read_committed", max_partition_fetch_bytes=max_bytes,
                         fetch_max_bytes=max_bytes)
    await c.start()
    try:
        tp = TopicPartition(topic, partition)
        c.assign([tp])
        end = (await c.end_offsets([tp]))[tp]
        if end == 0:
            return None
        for back in (8, None):
            if back is None:
                await c.seek_to_beginning(tp)
            else:
                c.seek(tp, max(0, end - back))
            last = None
            while await c.position(tp) < end:
                batch = await c.getmany(tp, timeout_ms=500)
                for r in batch.get(tp, []):
                    last = r.value
            if last is not None:
                return last
        return None
    finally:
        await c.stop()


def _code_fingerprint() -> str:
    """SHA-1 of the source of the code that decides (``contracts/``, ``services/``, ``shared/``):
    a snapshot records it, so a restore that decides a tail again with other code says so."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha1(usedforsecurity=False)
    for d in ("contracts", "services", "shared"):
        for f in sorted((root / d).rglob("*.py")):
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


CODE = _code_fingerprint()


def _state(part: "_Part") -> dict:
    """What a snapshot of ``part`` holds: its processor, the input offsets it has decided, the
    fingerprint of the code that decided, and ``written``: per output topic, an offset of its
    partition ``part.number`` at or before every decision made after the snapshot (where a
    restore by other code finds the tail's recorded decisions: :meth:`KafkaHost._verify_tail`)."""
    return {"format": SNAPSHOT_FORMAT, "offsets": dict(part.offsets), "proc": part.proc,
            "offsets_record": True, "code": CODE, "written": dict(part.written)}


class TailDiverged(RuntimeError):
    """A restore decided the inputs after the snapshot again with other code than decided them,
    and some decision differs from the one the log holds: the partition is not served (its
    state would contradict its log, and its next decisions could take seqs the log has used)."""


def _read_all(fd: int) -> bytes:
    """Every byte from ``fd`` until EOF (closes it)."""
    chunks = []
    with os.fdopen(fd, "rb") as f:
        while chunk := f.read(1 << 20):
            chunks.append(chunk)
    return b"".join(chunks)


async def _partition_count(p: AIOKafkaProducer, topic: str, counts: dict[str, int]) -> int:
    """The number of partitions of ``topic`` (``counts`` caches it per topic)."""
    if topic not in counts:
        counts[topic] = len(await p.partitions_for(topic))
    return counts[topic]


async def _send_batches(p: AIOKafkaProducer, messages: list[Envelope], counts: dict[str, int]) -> list:
    """Queue ``messages`` on producer ``p`` as one record batch per topic partition (where the
    default partitioner puts each key), not record by record: the producer's per-record path
    costs a future, a metadata lookup and a partitioner call each. ``counts`` caches the
    partition count of each topic. Returns the batches' delivery futures."""
    builders: dict[tuple[str, int], object] = {}
    futs = []
    for m in messages:
        topic, key = m.payload.TOPIC, m.key.encode()
        tp = (topic, partition_of(key, await _partition_count(p, topic, counts)))
        value, headers = m.model_dump_json().encode(), [("type", m.type.encode())]
        b = builders.get(tp)
        if b is None or b.append(key=key, value=value, timestamp=None, headers=headers) is None:
            if b is not None:  # full: send it, start the next
                futs.append(await p.send_batch(b, tp[0], partition=tp[1]))
            b = builders[tp] = p.create_batch()
            b.append(key=key, value=value, timestamp=None, headers=headers)
    for (topic, partition), b in builders.items():
        futs.append(await p.send_batch(b, topic, partition=partition))
    return futs


@dataclass
class _Txn:
    """What one transaction of a partition writes: decisions (and timer commands), the input
    offsets they consumed, and perhaps the snapshot of the state after them."""

    out: list[Envelope] = field(default_factory=list)
    offsets: dict[str, int] = field(default_factory=dict)  # every input topic's, after the inputs
    inputs: int = 0
    timers: int = 0
    snapshot: bytes | None = None

    def __bool__(self) -> bool:
        return bool(self.out or self.offsets or self.snapshot)


@dataclass
class _Part:
    """One owned partition: its processor (state), producer, the transaction in flight and
    the next one (decided meanwhile: group commit), and snapshot bookkeeping."""

    number: int
    proc: Processor
    producer: AIOKafkaProducer
    offsets: dict[str, int] = field(default_factory=dict)  # input topic -> next offset decided
    inputs_since_snapshot: int = 0
    snapshot_at: float = field(default_factory=time.monotonic)
    next: _Txn = field(default_factory=_Txn)
    inflight: asyncio.Task | None = None
    snapshotting: asyncio.Task | None = None  # a forked child serialising the state
    txn_at: float = 0.0  # when the latest transaction began (monotonic s)
    broken: bool = False
    written: dict[str, int] = field(default_factory=dict)  # output topic -> bound (see _state)


class KafkaHost:
    """Runs ``make_processor()`` per owned partition of its inputs on the cluster at
    ``bootstrap``, in consumer group ``name`` (see the module doc).

    ``ticks``: publish the processor's timer commands on wall time ``now_ms`` (epoch ms).
    ``partitions``: partitions per topic when this host creates the topics. ``load_snapshots``
    False restores partitions by replaying their inputs from the start (a baseline for the
    recovery benchmark; snapshots are still written). ``instance_id``: the group's static
    membership id (Kafka KIP-345): an instance started again under the same id (``arbiter up``
    restarts on the same port) takes its partitions back at once instead of waiting for the
    group to expel the dead member; another live process under the same id is fenced out.
    ``commit_interval_ms``: a partition's transactions begin at least this far apart (what is
    decided meanwhile waits and goes in one transaction: fewer round trips for the broker and
    this process under load, at most this much more latency). ``snapshot_on_stop``: a graceful
    :meth:`stop` commits each partition's pending decisions with a snapshot (no tail to decide
    again at the next start).
    :meth:`status` reports readiness and recovery progress (``/healthz``).
    """

    def __init__(self, name: str, bootstrap: str, make_processor: Callable[[], Processor], *,
                 ticks: bool = False, now_ms: Callable[[], int] | None = None, partitions: int = 8,
                 snapshot_every: int = 10_000, snapshot_every_s: float = 30.0,
                 max_batch: int = 2_000, load_snapshots: bool = True,
                 instance_id: str | None = None, commit_interval_ms: int = 10,
                 snapshot_on_stop: bool = True) -> None:
        self.name, self.bootstrap, self.make_processor = name, bootstrap, make_processor
        self.ticks = ticks
        self.now_ms = now_ms or (lambda: time.time_ns() // 1_000_000)
        self.partitions = partitions
        self.snapshot_every, self.snapshot_every_s = snapshot_every, snapshot_every_s
        self.max_batch = max_batch
        self.load_snapshots = load_snapshots  # False: restore by replaying from the start (baseline)
        self.instance_id = instance_id
        self.commit_interval = commit_interval_ms / 1000
        self.snapshot_on_stop = snapshot_on_stop
        proc = make_processor()
        self.inputs, self.outputs = proc.inputs, proc.outputs
        self._cores = {c.name for c in proc.cores}  # the actors of this process's decisions
        self.snapshots = snapshot_topic(name)
        self.offsets_topic = offsets_topic(name)
        self._partition_counts: dict[str, int] = {}
        self.parts: dict[int, _Part] = {}
        self.consumer: AIOKafkaConsumer | None = None
        self._lock = asyncio.Lock()
        self._task: asyncio.Task | None = None
        self._restoring: dict[int, dict] = {}
        self._retry_at: dict[int, float] = {}  # partition -> when to try restoring it again
        self._failing: dict[int, dict] = {}  # partition -> its transactions failed in a row
        self.started = False
        self._joined = False  # the group has assigned this instance its partitions once
        self.restored: dict[int, dict] = {}  # partition -> {"messages", "seconds", "snapshot"}

    # ------------------------------------------------------------------------- life cycle
    async def start(self) -> None:
        """Create missing topics, join the group and start consuming (returns at once; the
        partitions are restored as they are assigned: see :meth:`status`)."""
        await ensure_topics(self.bootstrap, self.partitions, compacted=(self.snapshots, self.offsets_topic),
                            compacted_config={"max.message.bytes": str(MAX_SNAPSHOT_BYTES),
                                              "segment.ms": "600000", "min.cleanable.dirty.ratio": "0.1"})
        self.consumer = AIOKafkaConsumer(
            bootstrap_servers=self.bootstrap, group_id=self.name, enable_auto_commit=False,
            auto_offset_reset="earliest", isolation_level="read_committed",
            partition_assignment_strategy=(RangePartitionAssignor,), fetch_max_wait_ms=500,
            max_poll_interval_ms=600_000, session_timeout_ms=10_000, heartbeat_interval_ms=1_000,
            client_id=f"arbiter-{self.name}", group_instance_id=self.instance_id)
        self.consumer.subscribe(list(self.inputs), listener=_Listener(self))
        await self.consumer.start()
        READY.labels(self.name).set(0)
        self._task = asyncio.create_task(self._run(), name=f"kafkahost-{self.name}")
        self.started = True

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        async with self._lock:
            for n in list(self.parts):
                if self.snapshot_on_stop:
                    try:
                        await self._last_commit(self.parts[n])
                    except Exception:  # the broker is away: the next owner replays the tail
                        log.exception("%s: last snapshot of partition %d not written", self.name, n)
                await self._drop(n)
        if self.consumer:
            await self.consumer.stop()
        READY.labels(self.name).set(0)

    async def _last_commit(self, part: _Part) -> None:
        """On a graceful stop: commit what ``part`` decided since its last transaction with a
        snapshot of the state after it, so that its next owner restores from that snapshot
        alone and decides nothing again (an upgrade, which stops and starts, never re-decides
        history with the new code; only a crash leaves a tail, re-decided by the same code)."""
        # the snapshot being taken and the transaction in flight end first (each may start the
        # next transaction: nothing new is decided once the loop has stopped, so this ends)
        while (task := part.snapshotting or part.inflight) is not None:
            await asyncio.gather(task, return_exceptions=True)
            if part.snapshotting is task:  # it ended without clearing itself (cancelled)
                part.snapshotting = None
            if part.inflight is task:
                part.inflight = None
        if part.broken or self.parts.get(part.number) is not part or (
                part.inputs_since_snapshot == 0 and not part.next):
            return
        txn, part.next = part.next, _Txn()
        txn.offsets = dict(part.offsets)
        blob = zlib.compress(pickle.dumps(_state(part), protocol=pickle.HIGHEST_PROTOCOL), 1)
        txn.snapshot = blob if _fits(self.name, part.number, blob) else None
        part.inputs_since_snapshot = 0
        part.txn_at = time.monotonic()
        await self._commit(part, txn)

    def status(self) -> dict:
        """Readiness for ``/healthz``: ready once the group has assigned this instance its
        partitions and every one of them is restored; the partitions owned, those being
        restored (with progress), those whose transactions keep failing (:meth:`_failed`) and
        how each owned one was restored."""
        assigned = sorted({tp.partition for tp in self.consumer.assignment()}) if self.consumer else []
        ready = self._joined and not self._restoring and all(n in self.parts for n in assigned)
        READY.labels(self.name).set(int(ready))
        return {"ready": bool(ready), "partitions": sorted(self.parts), "assigned": assigned,
                "restoring": {str(k): v for k, v in self._restoring.items()},
                "failing": {str(k): v for k, v in self._failing.items()},
                "restored": {str(k): v for k, v in self.restored.items()}}

    # ---------------------------------------------------------------------------- assignment
    async def assigned(self, tps) -> None:
        """The group's new assignment: partitions kept keep their state (nobody else owned
        them in between, and a fenced producer would show at its next commit); partitions
        lost are dropped; new ones are restored."""
        mine = {tp.partition for tp in tps}
        REBALANCES.labels(self.name, "assigned").inc()
        async with self._lock:
            for n in sorted(set(self.parts) - mine):
                await self._drop(n)
            for n in sorted(mine - set(self.parts)):
                try:
                    await self._restore(n)
                except Exception as e:  # the broker is away: the loop retries
                    self._not_restored(n, e)
        self._joined = True
        ASSIGNED.labels(self.name).set(len(self.parts))

    async def revoked(self, tps) -> None:
        """A rebalance starts: wait for the step in progress (its transaction commits or
        aborts under the lock); what is lost is dropped when the new assignment is known."""
        REBALANCES.labels(self.name, "revoked").inc()
        async with self._lock:
            pass

    async def _drop(self, n: int) -> None:
        """Give up partition ``n``: its transaction in flight ends (commits or aborts) first;
        what was decided after it is not written (the next owner decides it again)."""
        part = self.parts.pop(n, None)
        if part is not None:
            if part.inflight is not None and part.inflight is not asyncio.current_task():
                await asyncio.gather(part.inflight, return_exceptions=True)
            try:
                await part.producer.stop()
            except Exception:  # fenced or broker gone: nothing of ours is left to flush
                log.debug("%s: producer of partition %d did not stop cleanly", self.name, n)

    async def _restore(self, n: int) -> None:
        """Own partition ``n``: fence earlier writers, load the latest snapshot, replay the
        inputs decided since (not written again) and seek the group consumer to the
        committed offsets."""
        t0 = time.monotonic()
        progress = self._restoring[n] = {"phase": "fencing", "messages": 0}
        producer = AIOKafkaProducer(
            bootstrap_servers=self.bootstrap, transactional_id=f"arbiter.{self.name}.{n}",
            linger_ms=0, retry_backoff_ms=5, max_request_size=MAX_SNAPSHOT_BYTES,
            client_id=f"arbiter-{self.name}-{n}")
        await producer.start()  # init_transactions: earlier holders fenced, their open txn aborted
        try:
            tps = [TopicPartition(t, n) for t in self.inputs]
            progress["phase"] = "snapshot"
            snap = await self._read_snapshot(n) if self.load_snapshots else None
            committed = await decided_offsets(self.bootstrap, self.name, n)
            if committed is None:
                if snap is not None and snap.get("offsets_record"):
                    raise RuntimeError(
                        f"no record in {self.offsets_topic} for partition {n}, although its snapshot "
                        "was written beside one (topic deleted, or restored without it): refusing to "
                        "rewind to the consumer group's offsets, which would decide again what the "
                        "log already holds")
                # a log from before offsets records: the group's offsets are where it stopped
                committed = {tp.topic: (await self.consumer.committed(tp)) or 0 for tp in tps}
            committed = {t: committed.get(t, 0) for t in self.inputs}
            if snap is not None and all(snap["offsets"].get(t, 0) <= committed[t] for t in committed):
                proc, start = snap["proc"], dict(snap["offsets"])
            else:
                proc, start = self.make_processor(), {t: 0 for t in committed}
            progress["phase"] = "replaying"
            progress["to_replay"] = sum(committed[t] - start.get(t, 0) for t in committed)
            from_snap = snap is not None and proc is snap["proc"]
            other_code = from_snap and snap.get("code", CODE) != CODE
            before, decided = dict(proc.seqs), []
            replayed = 0
            for m in await self._read_range(n, start, committed):
                out = proc.decide(m)  # already decided: its decisions are in the log
                if other_code:
                    decided += out
                replayed += 1
                progress["messages"] = replayed
            verified = None
            if other_code and replayed and snap.get("written") is not None:
                progress["phase"] = "verifying"
                await self._verify_tail(n, producer, before, decided, snap["written"])
                verified = len(decided)
            # snapshots of an instance's partitions are spread over the interval, not all at once
            part = _Part(n, proc, producer, offsets=dict(committed), inputs_since_snapshot=replayed,
                         snapshot_at=time.monotonic() - self.snapshot_every_s * n / self.partitions,
                         written=dict(snap.get("written") or {}) if from_snap else {})
            self.parts[n] = part
            for tp in tps:
                self.consumer.seek(tp, committed[tp.topic])
            took = time.monotonic() - t0
            self.restored[n] = {"messages": replayed, "seconds": round(took, 3),
                                "snapshot": snap is not None}
            if other_code and replayed:
                self.restored[n]["code_changed"] = True  # shown on /healthz
                self.restored[n]["tail_verified"] = verified
                if verified is None:
                    log.warning("%s: partition %d: the %d inputs after its snapshot were decided by "
                                "other code than this (a crash across an upgrade) and were decided "
                                "again by this code, unverified (a snapshot from before verification); "
                                "`arbiter audit` of the partition's games shows whether any decision "
                                "differs", self.name, n, replayed)
                else:
                    log.warning("%s: partition %d: the %d inputs after its snapshot were decided by "
                                "other code than this (a crash across an upgrade); deciding them again "
                                "gave the %d decisions the log holds", self.name, n, replayed, verified)
            freeze_heap()
            RECOVERY.labels(self.name).set(replayed)
            RECOVERY_SECONDS.labels(self.name).set(took)
            log.info("%s: partition %d restored in %.2f s (%s snapshot, %d inputs replayed)",
                     self.name, n, took, "from a" if snap else "no", replayed)
        except BaseException:
            await producer.stop()
            raise
        finally:
            self._restoring.pop(n, None)

    async def _read_snapshot(self, n: int) -> dict | None:
        """The latest committed snapshot of partition ``n`` (or None)."""
        last = await read_last(self.bootstrap, self.snapshots, n, MAX_SNAPSHOT_BYTES)
        if last is None:
            return None
        try:
            snap = pickle.loads(zlib.decompress(last))
        except Exception as e:  # written by other code: rebuild from the inputs
            log.warning("%s: snapshot of partition %d not loadable (%s: %s); replaying "
                        "from the start", self.name, n, type(e).__name__, e)
            return None
        return snap if isinstance(snap, dict) and snap.get("format") == SNAPSHOT_FORMAT else None

    async def _verify_tail(self, n: int, producer: AIOKafkaProducer, before: dict[str, int],
                           decided: list[Envelope], written: dict[str, int]) -> None:
        """Compare ``decided`` (what this code decided again for the inputs after the snapshot)
        with what the log holds on partition ``n`` of the output topics: the decisions of this
        process at a seq above ``before`` (the snapshot's last seq of each stream), read from
        the ``written`` offsets on. Equal: the state is the one those recorded decisions give.
        Any difference raises :class:`TailDiverged` (the partition is not served; /healthz
        shows why, field by field: :func:`shared.differences.compare`, as ``arbiter audit``).
        Decisions keyed to another partition of a topic are not compared."""
        counts = {t: await _partition_count(producer, t, self._partition_counts) for t in self.outputs}
        mine = [d for d in decided if d.payload.TOPIC in counts
                and partition_of(d.key.encode(), counts[d.payload.TOPIC]) == n]
        recorded = [m for m in await self._read_range(n, {t: written.get(t, 0) for t in counts})
                    if m.actor.kind == "service" and m.actor.id in self._cores
                    and m.seq > before.get(m.stream, 0)]
        diffs = compare(recorded, mine)
        if diffs:
            shown = "; ".join(str(d)[:200] for d in diffs[:3])
            raise TailDiverged(
                f"partition {n}: the inputs after its snapshot were decided by other code (a crash "
                f"across an upgrade) and this code decides otherwise ({len(diffs)} difference(s): "
                f"{shown}); run the code that decided them until a graceful stop, then upgrade")

    async def _read_range(self, n: int, start: dict[str, int], end: dict[str, int] | None = None) -> list[Envelope]:
        """Messages of partition ``n`` of ``start``'s topics from ``start`` to ``end`` offsets
        (by topic; None: to the end), each topic in offset order (:func:`shared.eventlog.kafka.
        in_log_order`), as they were decided."""
        if end is not None and all(end[t] <= start.get(t, 0) for t in end):
            return []  # (a consumer stopped at once after its start raises CancelledError)
        c = AIOKafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False,
                             isolation_level="read_committed")
        await c.start()
        rows = []
        try:
            if end is None:
                ends = await c.end_offsets([TopicPartition(t, n) for t in start])
                end = {tp.topic: o for tp, o in ends.items()}
            tps = [TopicPartition(t, n) for t in end if end[t] > start.get(t, 0)]
            if not tps:
                return []
            c.assign(tps)
            for tp in tps:
                c.seek(tp, start.get(tp.topic, 0))
            remaining = set(tps)
            while remaining:
                batch = await c.getmany(*remaining, timeout_ms=500, max_records=5_000)
                for tp, records in batch.items():
                    rows += [(r.timestamp, (tp.topic, n), r.offset, r.value) for r in records
                             if r.offset < end[tp.topic]]
                for tp in list(remaining):
                    if await c.position(tp) >= end[tp.topic]:
                        remaining.discard(tp)
        finally:
            await c.stop()
        return [m for _, (t, _), _, v in in_log_order(rows) if (m := _parse(t, v)) is not None]

    # ----------------------------------------------------------------------------- the loop
    async def _run(self) -> None:
        """Fetch, decide (in this task, in order), and hand each partition's decisions to its
        transaction: one in flight per partition, and what is decided meanwhile goes into the
        next one (group commit), so fetching and deciding never wait for a commit."""
        while True:
            # back within 10 ms while a timer may be due or decisions wait for their transaction;
            # else only when input comes (an idle process does not spin)
            busy = self.ticks or any(p.next or p.inflight or p.snapshotting for p in self.parts.values())
            try:
                batch = await self.consumer.getmany(timeout_ms=10 if busy else 200, max_records=self.max_batch)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("%s: fetch failed; retrying", self.name)
                await asyncio.sleep(0.5)
                continue
            t0 = time.perf_counter()
            async with self._lock:
                for part in list(self.parts.values()):
                    if part.broken:
                        await self._drop(part.number)  # restored below when the broker answers
                    else:
                        self._decide(part, batch)
                        self._flush(part)
                await self._restore_missing()
            if batch:
                BATCH.labels(self.name).observe(time.perf_counter() - t0)
            self._measure_lag()
            while sum(len(p.next.out) for p in self.parts.values()) > 4 * self.max_batch:
                await asyncio.sleep(0.005)  # commits lag: let them catch up before fetching more

    def _decide(self, part: _Part, batch: dict) -> None:
        """Decide the batch's inputs of ``part`` (and its due timer commands) into ``part.next``.

        A record below the offset ``part`` has decided up to is left out: the consumer may hand
        over records it fetched before the restore sought past them (a group that starts
        fetching from offset 0 while its partitions are restored one by one). Handed to the
        processor they decide nothing (already applied), but taking their offsets would move the
        committed offsets record back, and the next restore would decide again everything after
        it: every decision of the partition written twice (found by a test: 2,442 of them)."""
        rows = in_log_order([(r.timestamp, (tp.topic, tp.partition), r.offset, r.value)
                             for tp, records in batch.items() if tp.partition == part.number
                             for r in records if r.offset >= part.offsets.get(tp.topic, 0)])
        txn = part.next
        for _, (topic, _), offset, value in rows:
            part.offsets[topic] = offset + 1
            m = _parse(topic, value)
            if m is not None:
                txn.out += part.proc.decide(m)
        if rows:
            txn.offsets = dict(part.offsets)  # every input topic's: the record is the latest only
        txn.inputs += len(rows)
        part.inputs_since_snapshot += len(rows)
        if self.ticks:
            timers = part.proc.due(self.now_ms())
            txn.out += timers
            txn.timers += len(timers)

    def _flush(self, part: _Part) -> None:
        """Start ``part``'s next transaction unless one is in flight (it then starts when that
        one ends). The snapshot, when due, is taken now: the state after exactly the inputs
        whose offsets this transaction commits."""
        SNAPSHOT_AGE.labels(self.name).set(time.monotonic() - part.snapshot_at)
        if part.inflight is not None or time.monotonic() - part.txn_at < self.commit_interval:
            return  # the loop comes back within 10 ms
        if part.snapshotting is None and part.inputs_since_snapshot > 0 and (
                part.inputs_since_snapshot >= self.snapshot_every
                or time.monotonic() - part.snapshot_at >= self.snapshot_every_s):
            part.snapshotting = asyncio.create_task(self._snapshot(part))
            part.inputs_since_snapshot, part.snapshot_at = 0, time.monotonic()
        if not part.next:
            return
        txn, part.next = part.next, _Txn()
        part.txn_at = time.monotonic()
        part.inflight = asyncio.create_task(self._commit(part, txn), name=f"txn-{self.name}-{part.number}")

    async def _snapshot(self, part: _Part) -> None:
        """Serialise ``part``'s state as it is now, with the offsets of the inputs it holds,
        without stopping the loop: a forked child (copy-on-write, so the state is frozen at the
        fork) pickles and compresses it on the other core and hands the bytes over a pipe; they
        go out with the partition's next transaction (their own offsets inside). Pickling 10,000
        live games inline would stop every game of the instance for a fifth of a second."""
        state = _state(part)
        loop = asyncio.get_running_loop()
        freeze_heap()  # before the fork: the child's pages stay shared
        try:
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: serialise, write, leave without touching the event loop
                code = 0
                try:
                    os.close(r)
                    blob = zlib.compress(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), 1)
                    with os.fdopen(w, "wb") as f:
                        f.write(blob)
                except BaseException:
                    code = 1
                finally:
                    os._exit(code)
            os.close(w)
            blob = await loop.run_in_executor(None, _read_all, r)
            _, status = await loop.run_in_executor(None, os.waitpid, pid, 0)
            if (status == 0 and blob and self.parts.get(part.number) is part and not part.broken
                    and _fits(self.name, part.number, blob)):
                part.next.snapshot = blob
                self._flush(part)
        except Exception:
            log.exception("%s: snapshot of partition %d failed; the next one is due in %.0f s",
                          self.name, part.number, self.snapshot_every_s)
        finally:
            part.snapshotting = None

    async def _commit(self, part: _Part, txn: _Txn) -> None:
        p = part.producer
        try:
            await p.begin_transaction()
            try:
                futs = await _send_batches(p, txn.out, self._partition_counts)
                sent = len(futs)
                if txn.offsets:
                    futs.append(await p.send(self.offsets_topic, value=json.dumps(txn.offsets).encode(),
                                             key=str(part.number).encode(), partition=part.number))
                if txn.snapshot is not None:
                    futs.append(await p.send(self.snapshots, value=txn.snapshot,
                                             key=str(part.number).encode(), partition=part.number))
                done = await asyncio.gather(*futs)
            except BaseException:
                try:
                    await p.abort_transaction()
                except Exception:
                    pass
                raise
            await p.commit_transaction()
        except Exception as e:  # fenced, or the broker refused: restore from the log
            TXN_ABORTS.labels(self.name).inc()
            self._failed(part.number, e)
            part.broken = True
            part.inflight = None
            return
        self._failing.pop(part.number, None)
        for md in done[:sent]:  # the batches' base offsets: bounds of what comes after (_state)
            if md.partition == part.number and md.offset >= part.written.get(md.topic, 0):
                part.written[md.topic] = md.offset + 1
        TXN_SECONDS.labels(self.name).observe(time.monotonic() - part.txn_at)
        for m in txn.out:
            EMITTED.labels(self.name, m.type).inc()
        if txn.timers:
            TIMERS.labels(self.name).inc(txn.timers)
        part.inflight = None
        if not part.broken and self.parts.get(part.number) is part:
            self._flush(part)

    def _failed(self, n: int, e: Exception) -> None:
        """Transaction (or, :class:`TailDiverged`, restore) of partition ``n`` failed: it is
        restored from the log at once the first time (a fenced zombie, a broker restart), then
        after 1, 2, 4 ... 60 s while it keeps failing (a refusal that deciding again repeats:
        not a busy loop). ``/healthz`` shows the partition, the count and the error until one
        of its transactions commits."""
        f = self._failing.setdefault(n, {"failures": 0})
        f["failures"] += 1
        f["error"] = f"{type(e).__name__}: {e}"[:1000]
        delay = 0.0 if f["failures"] == 1 else min(60.0, 2.0 ** (f["failures"] - 2))
        self._retry_at[n] = time.monotonic() + delay
        log.warning("%s: %s of partition %d failed (%s); restoring it from the log%s", self.name,
                    "restore" if isinstance(e, TailDiverged) else "transaction", n, f["error"],
                    f" in {delay:.0f} s ({f['failures']} failures in a row)" if delay else "")

    async def _restore_missing(self) -> None:
        """Restore the assigned partitions that have no state (a failed transaction dropped
        it, or a restore failed while the broker was away), at most once a second each."""
        now = time.monotonic()
        for n in sorted({tp.partition for tp in self.consumer.assignment()} - set(self.parts)):
            if self._retry_at.get(n, 0.0) > now:
                continue
            try:
                await self._restore(n)
                self._retry_at.pop(n, None)
            except Exception as e:
                self._not_restored(n, e)

    def _not_restored(self, n: int, e: Exception) -> None:
        """A restore of partition ``n`` failed: retried in a second (the broker is away), or,
        when its tail diverged (:class:`TailDiverged`), with the backoff of :meth:`_failed`
        and on /healthz (the same code decides the same way again)."""
        if isinstance(e, TailDiverged):
            self._failed(n, e)
            return
        self._retry_at[n] = time.monotonic() + 1.0
        log.warning("%s: partition %d not restored yet (%s: %s)", self.name, n, type(e).__name__, e)

    def _measure_lag(self) -> None:
        for tp in self.consumer.assignment():
            hw = self.consumer.highwater(tp)
            part = self.parts.get(tp.partition)
            if hw is not None and part is not None:
                LAG.labels(self.name, tp.topic, str(tp.partition)).set(max(0, hw - part.offsets.get(tp.topic, 0)))


class _Listener(ConsumerRebalanceListener):
    def __init__(self, host: KafkaHost) -> None:
        self.host = host

    async def on_partitions_revoked(self, revoked) -> None:
        await self.host.revoked(revoked)

    async def on_partitions_assigned(self, assigned) -> None:
        await self.host.assigned(assigned)
