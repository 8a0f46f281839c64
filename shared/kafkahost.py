"""A processor on Kafka: partition-owned state, transactions, snapshots (DESIGN.md invariant 3).

:class:`KafkaHost` runs one process (``game`` or ``tournament``, :mod:`services.system`) as any
number of instances in one consumer group, on librdkafka (confluent-kafka). Kafka's own
mechanisms do the work:

- Ownership. The group's range assignor gives partition *i* of every input topic to one
  member, so an instance owns whole partitions (a tournament with all its games). Each owned
  partition has its own :class:`shared.service.Processor` (its state). A newly assigned
  partition is paused until it is restored, then sought to its decided offsets.
- Exactly once, fenced (KIP-447, "exactly-once v2"). The instance has one transactional
  producer, ``transactional.id = arbiter.<process>.<instance id>``. What its partitions decided
  since the last transaction (decisions, timer commands, now and then a snapshot), and the
  input offsets consumed, go out in ONE transaction, the offsets through
  ``send_offsets_to_transaction`` with the consumer's group metadata: the broker refuses them
  from a member of an older group generation, so a zombie instance (paused, cut off, or not yet
  told of a rebalance) cannot commit, and its transaction is aborted. A new owner fetches the
  partition's committed offsets first: that waits while a transaction holding offsets of the
  partition is open (the broker reports them unstable), so the restore sees the previous
  owner's last transaction either committed or aborted. An instance started again under its
  id aborts its predecessor's open transaction at once; one that never comes back leaves it
  to the transaction timeout (10 s). Every consumer reads ``read_committed``: a decision is
  seen exactly when its inputs count as consumed: nothing lost, nothing doubled, no fork.
  Each transaction also writes, per partition, a record of the compacted topic
  ``arbiter.offsets.<process>`` (key and partition = the partition number) with the same
  offsets: group offsets expire with an idle group, the record does not. A restore takes the
  higher of the two per topic (offsets only move forward). A partition whose snapshot says it
  decided further than both is not restored (logged, retried, /healthz not ready) rather
  than rewound.
- Snapshots. A partition's state (the processor, pickled and compressed, with the input
  offsets it has consumed) goes to the compacted topic ``arbiter.snapshots.<process>``, key and
  partition = the partition number, at most every ``snapshot_every_s`` seconds (30) or
  ``snapshot_every`` inputs (10,000), one partition's at a time. It is the state at one instant,
  serialised in the loop a piece at a time (:mod:`shared.snapshot`: the games a few at a time,
  :data:`SNAPSHOT_STEP_S` a turn, each written before a decision changes it), so the loop never
  stops for long and nothing forks. On assignment an instance loads the latest snapshot and
  replays only the inputs between its offsets and the committed offsets (already
  decided: their decisions are in the log and are not written again), so start-up time depends
  on the snapshot interval and the live state, not on the length of the log; a partition
  that replayed such a tail is the first snapshotted after it, so a second crash soon after
  the first does not replay the same tail again. A graceful
  :meth:`KafkaHost.stop` writes a last snapshot with the pending decisions: the next start
  replays nothing (an upgrade never decides history again with new code). After a crash
  across an upgrade the tail's decisions are compared with those the log holds, and the
  partition is not served if one differs (:meth:`KafkaHost._verify_tail`). The pickled state
  is compact: a chess position keeps its start and its moves (:class:`shared.rules.games.
  ChessPosition`), the clock drops its timer schedule (rebuilt on load).
- Timers. The processor's timer commands (CheckClock) are written in the transactions too: a
  fenced instance cannot ask for a flag.

Threads: the asyncio loop decides; one thread polls the consumer (and runs the group's
rebalance callbacks), one commits transactions (librdkafka's calls block), so fetching and
deciding never wait for a commit: what is decided meanwhile goes in the next transaction.

A failed transaction drops the state of the partitions in it and restores them from the log as
on assignment: the state never runs ahead of what the log holds.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from aiokafka import AIOKafkaConsumer, TopicPartition
from confluent_kafka import Consumer, KafkaError, KafkaException, Producer
from confluent_kafka import TopicPartition as KafkaPartition

from contracts.envelope import Envelope, dt_of
from shared.metrics import (
    ASSIGNED, BATCH, EMITTED, LAG, OFFLOADED, READY, REBALANCES, RECOVERY, RECOVERY_SECONDS, SNAPSHOT_AGE,
    SNAPSHOT_SECONDS, TIMERS, TXN_ABORTS, TXN_SECONDS,
)
from shared.differences import compare
from shared.eventlog.kafka import (FETCH_MIN_BYTES, FETCH_WAIT_MAX_MS, ensure_topics, in_log_order,
                                   parse_record as _parse, partition_of)
from shared.heap import freeze_heap, in_child
from shared.sealing import KEY_ENV, seal, snapshot_key, snapshot_keys, unseal, warn_without_key
from shared.service import Processor
from shared.snapshot import Snapshot, load

log = logging.getLogger("arbiter.kafkahost")
#: librdkafka's own log: every failed connection while the broker is away is an ERROR line per
#: broker thread; this host reports what fails in its own words, so only CRITICAL passes
#: unless an operator lowers the level.
_rdkafka_log = logging.getLogger("arbiter.kafkahost.rdkafka")
_rdkafka_log.setLevel(logging.CRITICAL)

#: Bumped when the pickled state of a core changes shape: older snapshots are then ignored and
#: the partition is rebuilt from the start of its inputs (so is a snapshot that fails to load).
#: 2: compact chess positions and clock schedules. 3: written a game at a time (shared.snapshot).
SNAPSHOT_FORMAT = 3
#: A turn of the loop spends at most about this long (seconds) writing snapshots' entries.
SNAPSHOT_STEP_S = 0.002
MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024
#: A transaction open longer is aborted by the broker (an instance killed mid-transaction that
#: does not come back under its id holds its partitions' readers until then).
TRANSACTION_TIMEOUT_MS = 10_000
#: A transaction waiting this long on the broker makes the instance not ready (/healthz): a
#: commit takes some 10 ms at 1,000 moves/s on this machine.
STALLED_S = 5.0
#: After a failed turn of the loop, the instance is not ready, and the next failure waits twice
#: as long before rejoining, until the loop has run this long without failing (seconds).
LOOP_CALM_S = 60.0
#: Fenced as a twin (another live process joined under this instance's group.instance.id) a
#: second time within TWIN_WINDOW_S, the instance leaves the group to the other for TWIN_WAIT_S
#: (not ready, the id and what to do on /healthz and in the log) instead of fencing it back at
#: once: two processes under one id took the partitions from each other in turn for good,
#: each turn a rebalance that stopped them (seconds).
TWIN_WINDOW_S = 1800.0
TWIN_WAIT_S = 300.0


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


async def decided_everywhere(bootstrap: str, name: str, inputs: tuple[str, ...]) -> dict[tuple[str, int], int]:
    """How far process ``name`` has decided each partition of its ``inputs``: ``{(topic,
    partition): next offset}``, the higher of its offsets record and its consumer group's
    committed offset (as a restore takes them; 0 where neither exists). Inputs at or past it
    may not be decided yet, and their decisions may not be in the log yet."""
    def group_offsets() -> tuple[dict[tuple[str, int], int], bool]:
        # (librdkafka's consumer never creates a topic it is asked about; a metadata request
        # of aiokafka's would, with the broker's defaults, not a compacted offsets topic)
        c = Consumer({"bootstrap.servers": bootstrap, "group.id": name, "enable.auto.commit": False},
                     logger=_rdkafka_log)
        try:
            topics = c.list_topics(timeout=30).topics
            tps = [KafkaPartition(t, n) for t in inputs if t in topics for n in sorted(topics[t].partitions)]
            committed = c.committed(tps, 30) if tps else []
            return {(tp.topic, tp.partition): max(tp.offset, 0) for tp in committed}, offsets_topic(name) in topics
        finally:
            c.close()

    out, has_records = await asyncio.to_thread(group_offsets)
    records = {n: (await decided_offsets(bootstrap, name, n) if has_records else None) or {}
               for n in sorted({n for _, n in out})}
    return {(t, n): max(o, int(records[n].get(t, 0))) for (t, n), o in out.items()}


async def read_last(bootstrap: str, topic: str, partition: int, max_bytes: int = 1 << 20) -> bytes | None:
    """The value of the last committed record of ``topic``/``partition`` (None if it has none).
    Its last records are [..., record, commit marker], so a short read from the end finds it;
    failing that (aborted transactions at the end), the whole (compacted) partition is read."""
    c = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                         isolation_level="read_committed", max_partition_fetch_bytes=max_bytes,
                         fetch_max_bytes=max_bytes, fetch_max_wait_ms=20)
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


def _snapshot(part: "_Part") -> Snapshot:
    """A snapshot of ``part``'s state (:func:`_state`) as it is now, to be written a piece at a
    time (:mod:`shared.snapshot`)."""
    return Snapshot(_state(part), part.proc.aggregate_maps())


def _give_up_snapshot(part: "_Part") -> None:
    """Give up ``part``'s snapshot in progress (or one that failed to start): the partition
    counts as having inputs not in a snapshot, so the next one is due in an interval even if
    no input comes, and a graceful stop writes its last one (found by a helper: a stop during a
    snapshot skipped the partition, and its next owner decided the tail again)."""
    if part.snapshotting is not None:
        part.snapshotting.abort()
        part.snapshotting = None
    part.inputs_since_snapshot = max(1, part.inputs_since_snapshot)


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


def _produce(p: Producer, topic: str, value: bytes, key: bytes, partition: int,
             headers: list | None = None, on_delivery=None) -> None:
    """Queue one record on ``p`` (waiting for room when its queue is full)."""
    while True:
        try:
            p.produce(topic, value=value, key=key, partition=partition, headers=headers,
                      on_delivery=on_delivery)
            return
        except BufferError:
            p.poll(0.05)


async def _nothing() -> None:
    return None


class _ConsumerFailed(Exception):
    """The consumer reported a fatal error: it must be replaced."""


@dataclass
class _Txn:
    """What a partition puts in the next transaction: decisions (and timer commands), the
    input offsets they consumed, and perhaps the snapshot of the state after them."""

    out: list[Envelope] = field(default_factory=list)
    offsets: dict[str, int] = field(default_factory=dict)  # every input topic's, after the inputs
    inputs: int = 0
    timers: int = 0
    snapshot: bytes | None = None
    wire: dict = field(default_factory=dict)  # event id -> record bytes (Processor.wire)

    def __bool__(self) -> bool:
        return bool(self.out or self.offsets or self.snapshot)


@dataclass
class _Part:
    """One owned partition: its processor (state), what it decided for the next transaction,
    and snapshot bookkeeping."""

    number: int
    proc: Processor
    offsets: dict[str, int] = field(default_factory=dict)  # input topic -> next offset decided
    inputs_since_snapshot: int = 0
    snapshot_at: float = field(default_factory=time.monotonic)
    next: _Txn = field(default_factory=_Txn)
    snapshotting: Snapshot | None = None  # the state at an instant, being written
    broken: bool = False
    written: dict[str, int] = field(default_factory=dict)  # output topic -> bound (see _state)
    ends: dict[str, int] = field(default_factory=dict)  # input topic -> its end when restored
    held: list = field(default_factory=list)  # records waiting for ``job``, in log order
    job: tuple | None = None  # (Job, task computing it in a forked child): see _decide
    inline: bytes | None = None  # the key of a job whose child failed: computed inline


class KafkaHost:
    """Runs ``make_processor()`` per owned partition of its inputs on the cluster at
    ``bootstrap``, in consumer group ``name`` (see the module doc).

    ``ticks``: publish the processor's timer commands on wall time ``now_ms`` (epoch ms).
    ``partitions``: partitions per topic when this host creates the topics. ``load_snapshots``
    False restores partitions by replaying their inputs from the start (a baseline for the
    recovery benchmark; snapshots are still written). ``instance_id``: the group's static
    membership id (Kafka KIP-345) and the transactional id's suffix: an instance started again
    under the same id (``arbiter up`` restarts on the same port) takes its partitions back at
    once and aborts its predecessor's open transaction; None: a random one.
    ``commit_interval_ms``: transactions begin at least this far apart (what is decided
    meanwhile waits and goes in one transaction: fewer round trips for the broker and this
    process under load, at most this much more latency). ``snapshot_on_stop``: a graceful
    :meth:`stop` commits the pending decisions with a snapshot of every partition (no tail to
    decide again at the next start). ``signing_key`` (default :func:`shared.signing.
    signing_key`) signs each partition's checkpoints (:mod:`shared.chain`), written in the
    transaction of the decisions they attest: an aggregate's after ``checkpoint_every`` of its
    messages (``ARBITER_CHECKPOINT_EVERY``), at its end, once it has waited ``snapshot_every_s``
    unattested, and at a graceful stop; a fenced instance's transaction, checkpoints included, never
    commits, so it cannot fork a chain.
    :meth:`status` reports readiness and recovery progress (``/healthz``).
    """

    def __init__(self, name: str, bootstrap: str, make_processor: Callable[[], Processor], *,
                 ticks: bool = False, now_ms: Callable[[], int] | None = None, partitions: int = 8,
                 snapshot_every: int = 10_000, snapshot_every_s: float = 30.0,
                 max_batch: int = 2_000, load_snapshots: bool = True,
                 instance_id: str | None = None, commit_interval_ms: int = 10,
                 snapshot_on_stop: bool = True, signing_key=None,
                 checkpoint_every: int | None = None) -> None:
        from shared.config import settings
        from shared.signing import signing_key as configured_key

        self.signing_key = signing_key or configured_key()
        self.checkpoint_every = checkpoint_every or settings().checkpoint_every
        self.name, self.bootstrap, self.make_processor = name, bootstrap, make_processor
        self.ticks = ticks
        self.now_ms = now_ms or (lambda: time.time_ns() // 1_000_000)
        self.partitions = partitions
        self.snapshot_every, self.snapshot_every_s = snapshot_every, snapshot_every_s
        self.max_batch = max_batch
        self.load_snapshots = load_snapshots  # False: restore by replaying from the start (baseline)
        self.instance_id = instance_id
        self.transactional_id = f"arbiter.{name}.{instance_id or uuid.uuid4().hex}"
        self.commit_interval = commit_interval_ms / 1000
        self.snapshot_on_stop = snapshot_on_stop
        proc = make_processor()
        self.inputs, self.outputs = proc.inputs, proc.outputs
        self._cores = {c.name for c in proc.cores}  # the actors of this process's decisions
        self.snapshots = snapshot_topic(name)
        self.snapshot_key = snapshot_key()  # snapshots are sealed: see shared.sealing
        self.snapshot_keys = snapshot_keys()  # and opened under it or the one before a rotation
        self.offsets_topic = offsets_topic(name)
        self._partition_counts: dict[str, int] = {}
        self.parts: dict[int, _Part] = {}
        self.consumer: Consumer | None = None
        self.producer: Producer | None = None
        self._producer_retry_at = 0.0
        self._lock = asyncio.Lock()
        self._task: asyncio.Task | None = None
        self._inflight: asyncio.Task | None = None  # the transaction being committed
        self._txn_at = 0.0  # when the latest transaction began (monotonic s)
        self._stopping = False
        # the group's callbacks run in the polling thread: they leave the assignment here for
        # the loop, and no transaction starts between a revocation and the loop taking it up
        self._mu = threading.Lock()
        self._no_commit = threading.Event()
        self._no_commit.set()
        self._revoked = False
        self._lost = False
        self._outage = False  # no broker answers (set by the consumer's error callback)
        self._renew_producer = False
        self._assignment: set[int] = set()
        self._assignment_new = False
        self._poller = ThreadPoolExecutor(1, thread_name_prefix=f"kafkahost-{name}-poll")
        self._committer = ThreadPoolExecutor(1, thread_name_prefix=f"kafkahost-{name}-txn")
        self._lag_at = 0.0
        self._restoring: dict[int, dict] = {}
        self._to_resume: dict[int, dict[str, int]] = {}  # partition -> offsets to fetch from (paused)
        self._loop_failures: dict | None = None  # {"count", "error"} while turns of the loop fail
        self._twin_fenced: list[float] = []  # when a twin under our instance id fenced us
        self._twin: dict | None = None  # {"instance_id", "until_s"} while leaving the group to it
        self._retry_at: dict[int, float] = {}  # partition -> when to try restoring it again
        self._failing: dict[int, dict] = {}  # partition -> its transactions failed in a row
        self.started = False
        self._joined = False  # the group has assigned this instance its partitions once
        self.restored: dict[int, dict] = {}  # partition -> {"messages", "seconds", "snapshot"}

    # ------------------------------------------------------------------------- life cycle
    async def start(self) -> None:
        """Create missing topics, start the transactional producer, join the group and start
        consuming (returns at once; the partitions are restored as they are assigned: see
        :meth:`status`)."""
        await ensure_topics(self.bootstrap, self.partitions, compacted=(self.snapshots, self.offsets_topic),
                            compacted_config={"max.message.bytes": str(MAX_SNAPSHOT_BYTES),
                                              "segment.ms": "600000", "min.cleanable.dirty.ratio": "0.1"})
        warn_without_key(self.name)
        await self._new_producer()
        if self.producer is None:
            raise RuntimeError(f"{self.name}: the transactional producer did not start (broker at "
                               f"{self.bootstrap} unreachable?)")
        self._new_consumer()
        READY.labels(self.name).set(0)
        self._task = asyncio.create_task(self._run(), name=f"kafkahost-{self.name}")
        self.started = True

    def _new_consumer(self) -> None:
        """Join the group with a new consumer (at the start, and after a fatal consumer error:
        a static member fenced by its own earlier incarnation after a broker restart)."""
        config = {
            "bootstrap.servers": self.bootstrap, "group.id": self.name, "enable.auto.commit": False,
            "enable.auto.offset.store": False, "auto.offset.reset": "earliest",
            "isolation.level": "read_committed", "partition.assignment.strategy": "range",
            "session.timeout.ms": 10_000, "heartbeat.interval.ms": 1_000,
            "max.poll.interval.ms": 600_000, "client.id": f"arbiter-{self.name}",
            "fetch.wait.max.ms": FETCH_WAIT_MAX_MS, "fetch.min.bytes": FETCH_MIN_BYTES,
            "enable.partition.eof": False, "error_cb": self._on_error}
        if self.instance_id:
            config["group.instance.id"] = self.instance_id
        self.consumer = Consumer(config, logger=_rdkafka_log)
        self.consumer.subscribe(list(self.inputs), on_assign=self._on_assign,
                                on_revoke=self._on_revoke, on_lost=self._on_lost)

    async def stop(self) -> None:
        """Stop consuming; commit what was decided with a snapshot of every partition
        (``snapshot_on_stop``); leave the group."""
        self._stopping = True
        if self._task:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
        async with self._lock:
            if self.snapshot_on_stop:
                try:
                    await self._last_commit()
                except Exception:  # the broker is away: the next owner replays the tail
                    log.exception("%s: last snapshots not written", self.name)
            if self._inflight is not None:
                await asyncio.gather(self._inflight, return_exceptions=True)
            for n in list(self.parts):
                await self._drop(n)
        loop = asyncio.get_running_loop()
        if self.consumer:
            await loop.run_in_executor(self._poller, self.consumer.close)
        if self.producer is not None:
            await loop.run_in_executor(self._committer, self.producer.flush, 5)
        self._poller.shutdown(wait=False)
        self._committer.shutdown(wait=False)
        READY.labels(self.name).set(0)

    async def _last_commit(self) -> None:
        """On a graceful stop: commit what every partition decided since the last transaction
        with a snapshot of its state after it, so that its next owner restores from that
        snapshot alone and decides nothing again (an upgrade, which stops and starts, never
        re-decides history with the new code; only a crash leaves a tail, re-decided by the
        same code)."""
        for part in list(self.parts.values()):
            if part.snapshotting is not None:  # of an earlier instant: this one replaces it
                _give_up_snapshot(part)
        if self._inflight is not None:
            await asyncio.gather(self._inflight, return_exceptions=True)
        batch = []
        for part in list(self.parts.values()):
            if part.broken or (part.inputs_since_snapshot == 0 and not part.next):
                continue
            txn, part.next = part.next, _Txn()
            txn.offsets = dict(part.offsets)
            txn.out += self._checkpoints(part, final=True)
            blob = seal(_snapshot(part).finish(), self.snapshot_key)
            txn.snapshot = blob if _fits(self.name, part.number, blob) else None
            part.inputs_since_snapshot = 0
            batch.append((part, txn))
        if batch:
            metadata = self.consumer.consumer_group_metadata()  # before _begin: see _flush
            if self._begin():
                await self._commit(batch, metadata)

    def status(self) -> dict:
        """Readiness for ``/healthz``: ready once the group has assigned this instance its
        partitions and every one of them is restored and sought, while its loop runs and no
        transaction has been waiting on the broker for :data:`STALLED_S` or more (a broker
        that does not answer but is not gone: paused, a full disk; the back end decides
        nothing meanwhile). Also the partitions owned, those being restored (with progress),
        those whose transactions keep failing (:meth:`_failed`), how each owned one was
        restored, and the input offsets each has decided."""
        assigned = sorted(self._assignment)
        loop_ended = self._task is not None and self._task.done() and not self._stopping
        waiting = time.monotonic() - self._txn_at if self._inflight is not None else 0.0
        ready = (self._joined and self.producer is not None and not self._restoring
                 and not self._to_resume and not loop_ended and waiting < STALLED_S
                 and not self._loop_failures and all(n in self.parts for n in assigned))
        READY.labels(self.name).set(int(ready))
        return {"ready": bool(ready), "partitions": sorted(self.parts), "assigned": assigned,
                **({"transaction_waiting_s": round(waiting, 1)} if waiting >= STALLED_S else {}),
                "restoring": {str(k): v for k, v in self._restoring.items()},
                "failing": {str(k): v for k, v in self._failing.items()},
                "restored": {str(k): v for k, v in self.restored.items()},
                "seeking": sorted(self._to_resume),
                "decided": {str(n): dict(p.offsets) for n, p in sorted(self.parts.items())},
                **({"loop": "ended"} if loop_ended else {}),
                **({"twin": {k: v for k, v in self._twin.items() if k != "until_s"}
                    | {"back_in_s": round(max(0.0, self._twin["until_s"] - time.monotonic()))}}
                   if self._twin else {}),
                **({"loop_failures": {k: v for k, v in self._loop_failures.items() if k != "at"}}
                   if self._loop_failures else {})}

    # ------------------------------------------------------------ the group (polling thread)
    def _on_assign(self, consumer: Consumer, tps: list) -> None:
        """The group's new assignment: paused until the loop has restored each partition."""
        consumer.assign(tps)
        consumer.pause(tps)
        with self._mu:
            self._assignment = {tp.partition for tp in tps}
            self._assignment_new = True

    def _on_revoke(self, consumer: Consumer, tps: list) -> None:
        """A rebalance starts: no transaction starts until the loop has taken up the next
        assignment, and the one being committed ends (commits or aborts) before this instance
        rejoins, so the next owners see it."""
        REBALANCES.labels(self.name, "revoked").inc()
        with self._mu:
            self._revoked = True
        self._no_commit.wait(2 * TRANSACTION_TIMEOUT_MS / 1000)

    def _on_lost(self, consumer: Consumer, tps: list) -> None:
        """This instance was expelled from the group (paused past the session timeout): others
        may have owned its partitions since, so every partition's state is dropped."""
        with self._mu:
            self._lost = True
        self._on_revoke(consumer, tps)

    def _on_error(self, err: KafkaError) -> None:
        """The consumer's error callback: when no broker answers, the loop drops every
        partition's state (see :meth:`_run`)."""
        if err.code() == KafkaError._ALL_BROKERS_DOWN:
            self._outage = True

    def _poll(self, timeout: float) -> list[tuple]:
        """Up to ``max_batch`` records as ``(timestamp, (topic, partition), offset, value)``,
        waiting at most ``timeout`` s for the first (polling thread)."""
        first = self.consumer.poll(timeout)
        if first is None:
            return []
        rows = []
        for m in (first, *self.consumer.consume(self.max_batch - 1, 0)):
            if m.error() is not None:
                if m.error().fatal() or m.error().code() == KafkaError._FATAL:
                    raise _ConsumerFailed(str(m.error()))
                log.warning("%s: consumer: %s", self.name, m.error())
                continue
            rows.append((m.timestamp()[1], (m.topic(), m.partition()), m.offset(), m.value()))
        return rows

    def _partition_count(self, topic: str) -> int:
        """The number of partitions of ``topic`` (cached; blocks: not on the loop)."""
        if topic not in self._partition_counts:
            meta = self.consumer.list_topics(topic, timeout=30)
            self._partition_counts[topic] = len(meta.topics[topic].partitions)
        return self._partition_counts[topic]

    # ---------------------------------------------------------------------------- assignment
    async def _take_assignment(self) -> None:
        """Take up the group's latest assignment: partitions kept keep their state (nobody else
        owned them in between: no transaction started since the revocation), unless this
        instance was expelled; partitions lost are dropped; new ones are restored."""
        with self._mu:
            if not self._assignment_new:
                return
            mine, lost = set(self._assignment), self._lost
            self._assignment_new = self._lost = False
        for n in sorted(set(self.parts) if lost else set(self.parts) - mine):
            await self._drop(n)
        with self._mu:
            self._revoked = False
        REBALANCES.labels(self.name, "assigned").inc()
        log.info("%s: assigned partitions %s (kept %s%s)", self.name, sorted(mine),
                 sorted(set(self.parts) & mine), ", expelled: state dropped" if lost else "")
        for n, part in self.parts.items():  # kept: go on after what it has decided
            self._resume(n, part.offsets)
        await self._restore_all(sorted(mine - set(self.parts)))
        self._joined = True
        ASSIGNED.labels(self.name).set(len(self.parts))

    async def _rejoin(self, delay: float = 0.0) -> None:
        """Drop every partition (others may own them by now) and join with a new consumer,
        ``delay`` seconds after leaving the group (the others own the partitions meanwhile)."""
        if self._inflight is not None:
            await asyncio.gather(self._inflight, return_exceptions=True)
        with self._mu:
            self._assignment, self._assignment_new, self._revoked = set(), False, True
        self._joined = False
        for n in list(self.parts):
            await self._drop(n)
        old = self.consumer
        await asyncio.get_running_loop().run_in_executor(self._poller, old.close)
        await asyncio.sleep(delay)
        self._new_consumer()

    async def _drop(self, n: int) -> None:
        """Give up partition ``n``'s state: what was decided after the last transaction is not
        written (the next owner, or this one's restore, decides it again)."""
        self._to_resume.pop(n, None)
        self.restored.pop(n, None)
        if (part := self.parts.pop(n, None)) is not None and part.snapshotting is not None:
            part.snapshotting.abort()
        if part is not None and n in self._assignment:
            try:
                self.consumer.pause([KafkaPartition(t, n) for t in self.inputs])
            except Exception:  # no longer assigned
                pass

    async def _restore(self, n: int) -> None:
        """Own partition ``n``: fetch its committed offsets (waiting while a transaction with
        offsets of it is open: the previous owner's last one ends first), load the latest
        snapshot, replay the inputs decided since (not written again), seek the consumer to
        the committed offsets and resume it."""
        t0 = time.monotonic()
        progress = self._restoring[n] = {"phase": "offsets", "messages": 0}
        try:
            tps = [KafkaPartition(t, n) for t in self.inputs]
            group = {tp.topic: tp.offset for tp in await asyncio.to_thread(self.consumer.committed, tps, 30)
                     if tp.offset >= 0}
            progress["phase"] = "snapshot"
            snap, record, *highs = await asyncio.gather(  # at once: each is a round trip or more
                self._read_snapshot(n) if self.load_snapshots else _nothing(),
                decided_offsets(self.bootstrap, self.name, n),
                *(asyncio.to_thread(self.consumer.get_watermark_offsets, tp, 30) for tp in tps))
            committed = {t: max(group.get(t, 0), (record or {}).get(t, 0)) for t in self.inputs}
            proc, start = self._start_of(n, snap, record is not None, committed)
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
                await self._verify_tail(n, before, decided, snap["written"])
                verified = len(decided)
            # a partition that replayed a tail is due at once, so a second crash does not replay
            # it again; the others hold what their snapshot holds, and their first snapshots are
            # staggered over the interval: partition n of P at (n + 1) / P of it, none at once
            due_in = 0.0 if replayed else self.snapshot_every_s * (n + 1) / self.partitions
            ends = {tp.topic: high for tp, (_, high) in zip(tps, highs)}  # the log's end now
            proc.keep_wire = True  # what it decides from now on is published
            part = _Part(n, proc, offsets=dict(committed), inputs_since_snapshot=replayed, ends=ends,
                         snapshot_at=time.monotonic() - self.snapshot_every_s + due_in,
                         written=dict(snap.get("written") or {}) if from_snap else {})
            self.parts[n] = part
            self._resume(n, committed)
            self._note_restored(n, time.monotonic() - t0, snap is not None, replayed,
                                other_code, verified)
        finally:
            self._restoring.pop(n, None)

    def _start_of(self, n: int, snap: dict | None, has_record: bool,
                  committed: dict[str, int]) -> tuple[Processor, dict[str, int]]:
        """Where partition ``n``'s restore starts: the snapshot's processor and offsets when none
        is past the ``committed`` ones, else a fresh processor from offset 0. RuntimeError when
        the offsets record is gone and the group's offsets are below the snapshot's (the topic
        deleted, or restored without it): rewinding would decide again what the log holds."""
        if (snap is not None and snap.get("offsets_record") and not has_record
                and any(snap["offsets"].get(t, 0) > committed[t] for t in committed)):
            raise RuntimeError(
                f"no record in {self.offsets_topic} for partition {n}, and the consumer group's "
                f"offsets {committed} are below those of its snapshot (topic deleted, or restored "
                "without it): refusing to rewind, which would decide again what the log already holds")
        if snap is not None and all(snap["offsets"].get(t, 0) <= committed[t] for t in committed):
            return snap["proc"], dict(snap["offsets"])
        return self.make_processor(), {t: 0 for t in committed}

    def _note_restored(self, n: int, took: float, from_snapshot: bool, replayed: int,
                       other_code: bool, verified: int | None) -> None:
        """Partition ``n`` restored in ``took`` seconds: on /healthz (``restored``), in the
        metrics and the log; a tail decided by other code (an upgrade) is said so, verified
        or not (:meth:`_verify_tail`)."""
        self.restored[n] = {"messages": replayed, "seconds": round(took, 3), "snapshot": from_snapshot}
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
                 self.name, n, took, "from a" if from_snapshot else "no", replayed)

    def _resume(self, n: int, offsets: dict[str, int]) -> None:
        """Fetch partition ``n`` of every input topic again, from ``offsets`` (now, or as soon
        as librdkafka takes the seek: :meth:`_seek_pending`)."""
        self._to_resume[n] = dict(offsets)
        self._seek_pending()

    def _seek_pending(self) -> None:
        """Seek and resume the paused partitions waiting for it. librdkafka refuses a seek
        ("Local: Erroneous state") until the partition's fetcher has started, a moment after
        the group's assignment: a partition kept across a rebalance is sought at once and was
        refused now and then (found by a stress run: the refusal ended the loop, and the
        instance's partitions were never decided again). A refused partition stays paused and
        is tried again at the next turn of the loop."""
        for n, offsets in list(self._to_resume.items()):
            try:
                for t in self.inputs:
                    self.consumer.seek(KafkaPartition(t, n, offsets.get(t, 0)))
            except KafkaException as e:
                log.info("%s: partition %d not sought yet (%s); again at the next turn", self.name, n, e)
                continue
            self.consumer.resume([KafkaPartition(t, n) for t in self.inputs])
            del self._to_resume[n]

    async def _read_snapshot(self, n: int) -> dict | None:
        """The latest committed snapshot of partition ``n`` (or None)."""
        last = await read_last(self.bootstrap, self.snapshots, n, MAX_SNAPSHOT_BYTES)
        if last is None:
            return None
        blob = unseal(last, self.snapshot_keys)
        if blob is None:  # forged, damaged, or sealed under another key: never unpickled
            log.warning("%s: snapshot of partition %d is not sealed with this deployment's key "
                        "(%s); replaying the partition's inputs", self.name, n, KEY_ENV)
            return None
        try:
            snap = load(blob, lambda state: state["proc"].aggregate_maps())
            snap["proc"].loaded()
        except Exception as e:  # written by other code: rebuild from the inputs
            log.warning("%s: snapshot of partition %d not loadable (%s: %s); replaying "
                        "from the start", self.name, n, type(e).__name__, e)
            return None
        return snap if isinstance(snap, dict) and snap.get("format") == SNAPSHOT_FORMAT else None

    async def _verify_tail(self, n: int, before: dict[str, int], decided: list[Envelope],
                           written: dict[str, int]) -> None:
        """Compare ``decided`` (what this code decided again for the inputs after the snapshot)
        with what the log holds on partition ``n`` of the output topics: the decisions of this
        process at a seq above ``before`` (the snapshot's last seq of each stream), read from
        the ``written`` offsets on. Equal: the state is the one those recorded decisions give.
        Any difference raises :class:`TailDiverged` (the partition is not served; /healthz
        shows why, field by field: :func:`shared.differences.compare`, as ``arbiter audit``).
        Decisions keyed to another partition of a topic are not compared."""
        counts = {t: await asyncio.to_thread(self._partition_count, t) for t in self.outputs}
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
                             isolation_level="read_committed", fetch_max_wait_ms=20)
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
        """Fetch (in the polling thread), decide (in this task, in order), and hand what the
        partitions decided to the next transaction: one in flight, and what is decided
        meanwhile goes into the one after (group commit)."""
        loop = asyncio.get_running_loop()
        while True:
            # back within 10 ms while a timer may be due or decisions wait for their transaction;
            # else only when input comes (an idle process does not spin)
            busy = self.ticks or self._inflight is not None or any(
                p.next or p.snapshotting or p.held for p in self.parts.values())
            try:
                rows = await loop.run_in_executor(self._poller, self._poll, 0.01 if busy else 0.2)
            except asyncio.CancelledError:
                raise
            except _ConsumerFailed as e:
                delay = self._twin_wait(e)
                async with self._lock:
                    await self._rejoin(delay)
                self._twin = None
                continue
            except Exception:
                log.exception("%s: fetch failed; retrying", self.name)
                await asyncio.sleep(0.5)
                continue
            t0 = time.perf_counter()
            try:
                await self._turn(rows)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # a defect: never end the loop silently (the partitions would stall)
                f = self._loop_failures = self._loop_failures or {"count": 0}
                f["count"] += 1
                f["error"] = f"{type(e).__name__}: {e}"[:1000]
                f["at"] = time.monotonic()
                delay = min(60.0, 2.0 ** (f["count"] - 1))
                log.exception("%s: the loop failed (%d in a row); dropping every partition and "
                              "joining the group again in %.0f s", self.name, f["count"], delay)
                async with self._lock:
                    await self._rejoin(delay)
                continue
            if self._loop_failures and time.monotonic() - self._loop_failures["at"] >= LOOP_CALM_S:
                self._loop_failures = None  # (not at once: the turns before the failing input succeed)
            if rows:
                BATCH.labels(self.name).observe(time.perf_counter() - t0)
            self._measure_lag()
            while sum(len(p.next.out) for p in self.parts.values()) > 4 * self.max_batch:
                await asyncio.sleep(0.005)  # commits lag: let them catch up before fetching more

    def _twin_wait(self, e: Exception) -> float:
        """Seconds to stay out of the group after the consumer failed with ``e``: 0 (join again
        at once: a static member fenced by its own earlier incarnation after a broker restart),
        or :data:`TWIN_WAIT_S` when a twin under our instance id fenced us before within
        :data:`TWIN_WINDOW_S`."""
        if "same group.instance.id" not in str(e):
            log.warning("%s: the consumer failed (%s); joining the group again", self.name, e)
            return 0.0
        now = time.monotonic()
        self._twin_fenced = [t for t in self._twin_fenced if now - t < TWIN_WINDOW_S] + [now]
        what = (f"another process runs as instance {self.instance_id!r}: give each instance its "
                f"own --port or ARBITER_INSTANCE_ID")
        if len(self._twin_fenced) < 2:
            log.warning("%s: the consumer failed (%s); joining the group again (%s)", self.name, e, what)
            return 0.0
        self._twin = {"instance_id": self.instance_id, "fenced": len(self._twin_fenced),
                      "until_s": round(now + TWIN_WAIT_S, 1), "what": what}
        log.error("%s: fenced %d times by a twin: %s; leaving the partitions to it for %.0f s",
                  self.name, len(self._twin_fenced), what, TWIN_WAIT_S)
        return TWIN_WAIT_S

    async def _turn(self, rows: list[tuple]) -> None:
        """One turn of the loop: take up a new assignment, decide ``rows``, start the next
        transaction, restore what is missing."""
        async with self._lock:
            await self._take_assignment()
            self._seek_pending()
            if self._outage:
                # nothing is decided until the log answers again: a timer called meanwhile
                # would be written, when it comes back, in a race with the commands that
                # were received in time and are waiting to be published
                self._outage = False
                log.warning("%s: no broker answers; every partition is restored from the log "
                            "when one does", self.name)
                for part in self.parts.values():
                    part.broken = True
                self._renew_producer = True
            if self._renew_producer and self._inflight is None:
                # librdkafka: a transactional producer that lived through the outage can
                # block in send_offsets_to_transaction for good afterwards (found by the
                # broker-outage test); a new one, under the same transactional id, does not
                self.producer, self._renew_producer = None, False
            if self.producer is None:
                await self._new_producer()
            by_part: dict[int, list] = {}
            for r in rows:
                by_part.setdefault(r[1][1], []).append(r)
            for part in list(self.parts.values()):
                if part.broken:
                    await self._drop(part.number)  # restored below when the broker answers
                else:
                    self._decide(part, by_part.get(part.number, ()))
            self._flush()
            self._write_snapshots()
            await self._restore_missing()

    def _decide(self, part: _Part, rows) -> None:
        """Decide ``rows`` (records of ``part``'s partition: ``(timestamp, (topic, partition),
        offset, value)``) and its due timer commands into ``part.next``.

        A record below the offset ``part`` has decided up to is left out: the consumer may hand
        over records it fetched before the restore sought past them. Handed to the processor
        they decide nothing (already applied), but taking their offsets would move the
        committed offsets back, and the next restore would decide again everything after
        it: every decision of the partition written twice (found by a test: 2,442 of them)."""
        rows = in_log_order([r for r in [*part.held, *rows] if r[2] >= part.offsets.get(r[1][0], 0)])
        part.held = []
        if not self._job_done(part):
            part.held = rows
            return
        txn = part.next
        for k, (_, (topic, _), offset, value) in enumerate(rows):
            m = _parse(topic, value)
            if m is not None and self._offloaded(part, m):
                part.held, rows = rows[k:], rows[:k]
                break
            part.offsets[topic] = offset + 1
            if m is not None:
                txn.out += part.proc.decide(m)
                if wire := getattr(part.proc, "wire", None):  # (a stand-in processor may have none)
                    txn.wire.update(wire)
                    wire.clear()
        if rows:
            txn.offsets = dict(part.offsets)  # consumed, even where nothing was decided
        txn.inputs += len(rows)
        part.inputs_since_snapshot += len(rows)
        if self.ticks and self._timer_due(part) and self._caught_up(part):
            timers = part.proc.due(self.now_ms())
            txn.out += timers
            txn.timers += len(timers)
        txn.out += self._checkpoints(part)

    def _timer_due(self, part: _Part) -> bool:
        """Whether ``part``'s timer may have a command now (:meth:`Processor.next_deadline`,
        a heap's top): most turns it has none, and this saves them asking the consumer where
        the partition stands (:meth:`_caught_up`) and the cores what is due."""
        wake = part.proc.next_deadline()
        return wake is not None and wake <= self.now_ms()

    def _checkpoints(self, part: _Part, final: bool = False) -> list[Envelope]:
        """``part``'s checkpoints due now: an aggregate's after ``checkpoint_every`` of its
        messages, at its end, or once it has waited ``snapshot_every_s`` (each on its own, so
        they spread over time); ``final``: of every aggregate not attested."""
        now = self.now_ms()
        return part.proc.chains.signed(self.signing_key, self.checkpoint_every, dt_of(now), final,
                                       now, int(self.snapshot_every_s * 1000))

    def _offloaded(self, part: _Part, m: Envelope) -> bool:
        """Whether deciding ``m`` waits for a slow pure computation started now in a forked
        child (:mod:`shared.offload`): the first job the processor names for it whose outcome
        is not here yet. The partition's inputs from ``m`` on are then held, in order, until
        it is (:meth:`_job_done`); the other partitions go on deciding meanwhile."""
        from shared import offload
        prepare = getattr(part.proc, "prepare", None)  # (a stand-in processor may have none)
        try:
            jobs = prepare(m) if prepare is not None else []
        except Exception:  # not a decision: a defect here only costs the time
            log.exception("%s: naming the computations of an input failed", self.name)
            return False
        job = next((j for j in jobs if not offload.ready(j) and j.key != part.inline), None)
        if job is None:
            return False
        part.job = (job, asyncio.ensure_future(in_child(lambda: offload.outcome_bytes(job))))
        OFFLOADED.labels(self.name).inc()
        return True

    def _job_done(self, part: _Part) -> bool:
        """True when ``part`` waits for no computation (the finished one's outcome is kept for
        the decision to take). A child that failed leaves no outcome: the decision then computes
        it inline, with the same result."""
        from shared import offload
        if part.job is None:
            return True
        job, task = part.job
        if not task.done():
            return False
        part.job = None
        try:
            offload.put_bytes(job, task.result())
        except Exception:
            part.inline = job.key
            log.exception("%s: partition %d: the offloaded computation failed; deciding inline",
                          self.name, part.number)
        return True

    def _caught_up(self, part: _Part) -> bool:
        """Whether ``part`` has decided its inputs up to the end of the log as the latest fetch
        saw it. Timers wait until then: a command already in the log (a move received before
        a deadline, published late) is decided before the timer command, which would otherwise
        be appended after it and decided first (a restore after a broker outage; a lagging
        instance). A partition still waiting for its seek (:meth:`_seek_pending`) is not."""
        if part.number in self._to_resume or part.held or part.job:
            return False
        try:
            positions = self.consumer.position([KafkaPartition(t, part.number) for t in self.inputs])
        except Exception:
            return False
        for tp in positions:  # (a position moves past transaction markers; an offset does not)
            # nothing fetched since the restore's seek (an empty partition): where it sought
            at = tp.offset if tp.offset >= 0 else part.offsets.get(tp.topic, 0)
            if at < part.ends.get(tp.topic, 0):
                return False  # (the fetches' figures may predate the restore)
            try:
                _, high = self.consumer.get_watermark_offsets(tp, cached=True)
            except Exception:
                return False
            if high is not None and at < high:
                return False
        return True

    def _flush(self) -> None:
        """Start the next transaction with what every partition decided, unless one is in
        flight (it then starts when that one ends). Snapshots due are taken now: the state
        after exactly the inputs whose offsets the partition's next transaction commits."""
        if self._stopping:
            return
        now = time.monotonic()
        self._snapshots_due(now)
        if self._inflight is not None or now - self._txn_at < self.commit_interval:
            return  # the loop comes back within 10 ms
        batch = [(p, p.next) for p in self.parts.values() if p.next and not p.broken]
        if not batch:
            return
        # before _begin: while a rebalance callback waits for the transaction to end, this call
        # waits for the callback (found by a helper: a 20 s stall after a kill and a pause)
        metadata = self.consumer.consumer_group_metadata()
        if not self._begin():
            return
        for part, txn in batch:
            part.next = _Txn()
            txn.offsets = dict(part.offsets)  # every partition's, always: see _restore
        self._inflight = asyncio.create_task(self._commit(batch, metadata), name=f"txn-{self.name}")

    def _begin(self) -> bool:
        """Whether a transaction may start now (a producer, no rebalance under way); if so the
        group's callbacks wait for it to end."""
        if self.producer is None:
            return False
        with self._mu:
            if self._revoked:
                return False
            self._no_commit.clear()
        self._txn_at = time.monotonic()
        return True

    def _snapshots_due(self, now: float) -> None:
        """Start the snapshot due first (``snapshot_every`` inputs or ``snapshot_every_s``
        seconds since a partition's last): one partition's at a time, so that the part written
        at once (:class:`shared.snapshot.Snapshot`, a few milliseconds) and the entries after it
        spread over the interval."""
        if self.parts:
            SNAPSHOT_AGE.labels(self.name).set(max(now - p.snapshot_at for p in self.parts.values()))
        if any(p.snapshotting is not None for p in self.parts.values()):
            return
        due = [p for p in self.parts.values() if not p.broken and p.inputs_since_snapshot > 0
               and (p.inputs_since_snapshot >= self.snapshot_every
                    or now - p.snapshot_at >= self.snapshot_every_s)]
        if not due:
            return
        part = min(due, key=lambda p: p.snapshot_at)
        part.inputs_since_snapshot, part.snapshot_at = 0, now
        try:
            t0 = time.perf_counter()
            part.snapshotting = _snapshot(part)
            SNAPSHOT_SECONDS.labels(self.name, "instant").observe(time.perf_counter() - t0)
        except Exception:  # not a decision: the partition is restored from further back
            _give_up_snapshot(part)
            log.exception("%s: snapshot of partition %d failed; the next one is due in %.0f s",
                          self.name, part.number, self.snapshot_every_s)

    def _write_snapshots(self) -> None:
        """Write the snapshot in progress for about :data:`SNAPSHOT_STEP_S`; once complete, its
        bytes go out with the partition's next transaction (its own offsets inside)."""
        for part in self.parts.values():
            snap = part.snapshotting
            if snap is None:
                continue
            try:
                if not snap.step(time.perf_counter() + SNAPSHOT_STEP_S):
                    return
                blob = seal(snap.finish(), self.snapshot_key)
                part.snapshotting = None
                SNAPSHOT_SECONDS.labels(self.name, "written").observe(time.monotonic() - part.snapshot_at)
            except Exception:
                _give_up_snapshot(part)
                log.exception("%s: snapshot of partition %d failed; the next one is due in %.0f s",
                              self.name, part.number, self.snapshot_every_s)
                return
            if not part.broken and _fits(self.name, part.number, blob):
                part.next.snapshot = blob
            return

    async def _commit(self, batch: list[tuple[_Part, _Txn]], metadata) -> None:
        """Commit ``batch`` (each partition's next transaction) as one transaction, fenced by
        the group ``metadata`` (after :meth:`_begin`); on failure the partitions in it are
        restored from the log."""
        loop = asyncio.get_running_loop()
        try:
            written = await loop.run_in_executor(self._committer, self._commit_blocking, batch, metadata)
        except Exception as e:  # fenced, or the broker refused: restore from the log
            self._no_commit.set()
            TXN_ABORTS.labels(self.name).inc()
            for part, _ in batch:
                self._failed(part.number, e)
                part.broken = True
            self._inflight = None
            return
        for part, txn in batch:
            self._failing.pop(part.number, None)
            for (topic, n), offset in written.items():  # bounds of what comes after (_state)
                if n == part.number and offset >= part.written.get(topic, 0):
                    part.written[topic] = offset + 1
            for m in txn.out:
                EMITTED.labels(self.name, m.type).inc()
            if txn.timers:
                TIMERS.labels(self.name).inc(txn.timers)
        TXN_SECONDS.labels(self.name).observe(time.monotonic() - self._txn_at)
        self._inflight = None
        self._flush()

    def _commit_blocking(self, batch: list[tuple[_Part, _Txn]], metadata) -> dict[tuple[str, int], int]:
        """One transaction (committing thread): every partition's decisions, its offsets record
        and snapshot, and the input offsets through ``send_offsets_to_transaction`` with the
        group ``metadata`` (the fence). Returns the highest offset written per output topic
        partition. Aborts on failure (a producer that cannot abort is replaced)."""
        p = self.producer
        high: dict[tuple[str, int], int] = {}

        def delivered(err, msg) -> None:
            if err is None:
                tp = (msg.topic(), msg.partition())
                high[tp] = max(high.get(tp, -1), msg.offset())

        try:
            p.begin_transaction()
            try:
                offsets = []
                for part, txn in batch:
                    n = part.number
                    wire = txn.wire
                    for m in txn.out:
                        topic, key = m.payload.TOPIC, m.key.encode()
                        value = wire.get(m.event_id) or m.model_dump_json().encode()
                        _produce(p, topic, value, key,
                                 partition_of(key, self._partition_count(topic)),
                                 [("type", m.type.encode())], delivered)
                    if txn.snapshot is not None:  # with its offsets record (see the module doc)
                        key = str(n).encode()
                        _produce(p, self.offsets_topic, json.dumps(txn.offsets).encode(), key, n)
                        _produce(p, self.snapshots, txn.snapshot, key, n)
                    offsets += [KafkaPartition(t, n, o) for t, o in txn.offsets.items()]
                p.send_offsets_to_transaction(offsets, metadata, 30)
                p.commit_transaction(30)
            except BaseException:
                try:
                    p.abort_transaction(30)
                except Exception:  # fatal (fenced) or the broker is away: a new producer
                    log.warning("%s: transaction not aborted; the producer is replaced", self.name)
                    self.producer = None
                raise
            p.poll(0)
        finally:
            self._no_commit.set()
        return high

    async def _new_producer(self) -> None:
        """Start the transactional producer (at most once a second while the broker is away);
        ``init_transactions`` aborts what an earlier producer under the same id left open."""
        if time.monotonic() < self._producer_retry_at:
            return
        p = Producer({"bootstrap.servers": self.bootstrap, "transactional.id": self.transactional_id,
                      "transaction.timeout.ms": TRANSACTION_TIMEOUT_MS,
                      # the records go out as they are produced, while send_offsets_to_transaction
                      # makes its two round trips: at 5 ms the commit waited for them (commit
                      # 8.4 -> 5.7 ms mean, transactions 20.4 -> 14.7 ms at 1,000 moves/s;
                      # python -m loadtests.load, same broker, one run each)
                      "linger.ms": 0,
                      # a transaction begun right after the previous one's commit is refused
                      # (CONCURRENT_TRANSACTIONS) until the broker has written that one's
                      # markers; librdkafka retries after retry.backoff.ms, 100 by default (one
                      # run each at 1,000 moves/s: transactions 18.9 -> 13.7 ms mean, p99 of
                      # the decisions 142 -> 76 ms)
                      "retry.backoff.ms": 5, "retry.backoff.max.ms": 100,
                      "message.max.bytes": MAX_SNAPSHOT_BYTES, "client.id": f"arbiter-{self.name}"},
                     logger=_rdkafka_log)
        try:
            await asyncio.get_running_loop().run_in_executor(self._committer, p.init_transactions, 30)
        except Exception as e:
            self._producer_retry_at = time.monotonic() + 1.0
            log.warning("%s: transactional producer not started (%s); retrying", self.name, e)
            return
        self.producer = p

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
        if self._revoked:  # a rebalance is under way: the next assignment says what is ours
            return
        now = time.monotonic()
        await self._restore_all([n for n in sorted(self._assignment - set(self.parts))
                                 if self._retry_at.get(n, 0.0) <= now and n not in self._restoring])

    async def _restore_all(self, ns: list[int]) -> None:
        """Restore partitions ``ns`` at once (each restore is a few round trips to the broker,
        mostly waiting); one that fails is retried later (:meth:`_not_restored`)."""
        results = await asyncio.gather(*(self._restore(n) for n in ns), return_exceptions=True)
        for n, e in zip(ns, results):
            if isinstance(e, Exception):  # the broker is away: the loop retries
                self._not_restored(n, e)
            else:
                self._retry_at.pop(n, None)

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
        """Consumer lag per owned input partition (the high watermark the fetches saw), once a
        second."""
        if time.monotonic() - self._lag_at < 1.0:
            return
        self._lag_at = time.monotonic()
        for n, part in list(self.parts.items()):
            for t in self.inputs:
                try:
                    _, hw = self.consumer.get_watermark_offsets(KafkaPartition(t, n), cached=True)
                except Exception:
                    continue
                if hw is not None and hw >= 0:
                    LAG.labels(self.name, t, str(n)).set(max(0, hw - part.offsets.get(t, 0)))
