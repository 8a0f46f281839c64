"""KafkaHost restore: where a partition's input offsets come from (no broker: the Kafka calls
are replaced by stand-ins)."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

import shared.kafkahost as kh
from shared.chain import ChainBook
from services.system import make_processor
from shared.sealing import unseal
from shared.snapshot import load


class _Consumer:
    """The confluent-kafka consumer's calls a restore makes, with ``group``'s committed offsets."""

    def __init__(self, group: dict[str, int]) -> None:
        self.group, self.seeks, self.resumed = group, {}, []

    def committed(self, tps, timeout=None):
        return [SimpleNamespace(topic=tp.topic, offset=self.group.get(tp.topic, -1001)) for tp in tps]

    def get_watermark_offsets(self, tp, timeout=None, cached=False):
        return 0, 0

    def seek(self, tp) -> None:
        self.seeks[tp.topic] = tp.offset

    def resume(self, tps) -> None:
        self.resumed += [(tp.topic, tp.partition) for tp in tps]


def _host(monkeypatch, record, snapshot, group):
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"))
    host.consumer = _Consumer(group)
    monkeypatch.setattr(host, "_partition_count", lambda topic: 8)

    async def decided(bootstrap, name, n):
        return record

    async def read_snapshot(n):
        return snapshot

    async def read_range(n, start, end):
        return []

    monkeypatch.setattr(kh, "decided_offsets", decided)
    monkeypatch.setattr(host, "_read_snapshot", read_snapshot)
    monkeypatch.setattr(host, "_read_range", read_range)
    return host


def test_a_lost_offsets_record_is_refused_not_rewound_to_the_group_offsets(monkeypatch):
    """The snapshot was written beside an offsets record, the record is gone: rewinding to the
    consumer group's offsets (frozen when records began) would decide again, and write twice,
    what the log holds. The partition stays unrestored instead."""
    snap = {"format": kh.SNAPSHOT_FORMAT, "offsets": {"arbiter.game.commands": 40},
            "proc": make_processor("game"), "offsets_record": True}
    host = _host(monkeypatch, None, snap, {"arbiter.game.commands": 7})
    with pytest.raises(RuntimeError, match="refusing to rewind"):
        asyncio.run(host._restore(3))
    assert 3 not in host.parts and host.consumer.seeks == {}


def test_a_log_from_before_offsets_records_resumes_at_the_group_offsets(monkeypatch):
    host = _host(monkeypatch, None, None, {"arbiter.game.commands": 7})
    asyncio.run(host._restore(3))
    assert host.parts[3].offsets == {t: (7 if t == "arbiter.game.commands" else 0) for t in host.inputs}
    assert host.consumer.seeks["arbiter.game.commands"] == 7


def test_the_offsets_record_and_the_group_offsets_the_higher_wins(monkeypatch):
    """Both are written in each transaction; the group's expire with an idle group (and date
    from before offsets records on an old log), the record may be read before its transaction
    marker: offsets only move forward, so the higher of the two is where the partition stands."""
    record = {t: 40 + i for i, t in enumerate(sorted(make_processor("game").inputs))}
    snap = {"format": kh.SNAPSHOT_FORMAT, "offsets": {t: 30 for t in record},
            "proc": make_processor("game"), "offsets_record": True}
    host = _host(monkeypatch, record, snap, {"arbiter.game.commands": 7})
    asyncio.run(host._restore(3))
    assert host.parts[3].offsets == record and host.consumer.seeks == record
    assert host.restored[3]["snapshot"] is True
    ahead = {t: o + 5 for t, o in record.items()}
    host = _host(monkeypatch, record, snap, ahead)
    asyncio.run(host._restore(3))
    assert host.parts[3].offsets == ahead and host.consumer.seeks == ahead


def test_a_partition_restored_with_a_tail_snapshots_first(monkeypatch):
    """After a crash, a partition that replayed inputs decided since its last snapshot is due
    for a snapshot at once (a second crash must not replay that tail again); a partition that
    replayed nothing (a graceful handover) waits its staggered turn: partition n of 8,
    (n + 1)/8 of the interval (partition 0 too: its snapshot holds its state already)."""
    from contracts.envelope import Actor, dt_of
    from contracts.messages import CreateGame, envelope

    record = {t: 41 for t in make_processor("game").inputs}
    tail = [envelope(CreateGame(game_id="g1", white="w", black="b", time_control="600"),
                     stream="game-g1.commands.a1a1a1a1", seq=1, occurred_at=dt_of(1_000),
                     actor=Actor(kind="organiser", id="o"))]
    hosts = {}
    for replay in (tail, []):
        host = hosts[len(replay)] = _host(monkeypatch, record, None, {})
        host.snapshot_every_s = 30.0

        async def read_range(part, start, end=None, replay=replay):
            return list(replay)

        monkeypatch.setattr(host, "_read_range", read_range)
        asyncio.run(host._restore(4))
    crashed, handed_over = hosts[1].parts[4], hosts[0].parts[4]
    assert crashed.inputs_since_snapshot == 1 and hosts[1].restored[4]["messages"] == 1
    now = kh.time.monotonic()
    hosts[1]._snapshots_due(now)
    assert crashed.snapshotting is not None
    handed_over.inputs_since_snapshot = 1  # an input since; due 5/8 of 30 s after the restore
    hosts[0]._snapshots_due(now)
    assert handed_over.snapshotting is None
    hosts[0]._snapshots_due(now + 18.5)
    assert handed_over.snapshotting is None
    hosts[0]._snapshots_due(now + 19.0)
    assert handed_over.snapshotting is not None


def test_a_tail_decided_again_by_other_code_is_reported(monkeypatch):
    """A crash across an upgrade: the inputs after the snapshot were decided by the old code
    and are decided again by this one; the restore says so (``code_changed`` on /healthz)
    rather than silently. With the same code, or no tail, nothing is reported."""
    from contracts.envelope import Actor, dt_of
    from contracts.messages import CreateGame, envelope

    tail = [envelope(CreateGame(game_id="g1", white="w", black="b", time_control="600"),
                     stream="game-g1.commands.a1a1a1a1", seq=1, occurred_at=dt_of(1_000),
                     actor=Actor(kind="organiser", id="o"))]
    record = {t: 41 for t in make_processor("game").inputs}
    for code, tail_in, changed in (("other", tail, True), (kh.CODE, tail, False), ("other", [], False)):
        snap = {"format": kh.SNAPSHOT_FORMAT, "offsets": {t: 40 for t in record},
                "proc": make_processor("game"), "offsets_record": True, "code": code}
        host = _host(monkeypatch, record, snap, {})

        async def read_range(n, start, end, tail_in=tail_in):
            return tail_in

        monkeypatch.setattr(host, "_read_range", read_range)
        asyncio.run(host._restore(3))
        assert host.restored[3].get("code_changed", False) is changed, (code, len(tail_in))
        assert host.restored[3]["messages"] == len(tail_in)


def test_a_partition_whose_transactions_keep_failing_backs_off_and_shows_on_healthz(monkeypatch):
    """A refusal that deciding again repeats (the broker refuses a record) must not become a
    busy loop: the first failure restores at once, then 1, 2, 4 ... s, capped at 60; /healthz
    names the partition and the error until a transaction commits."""
    now = [1000.0]
    monkeypatch.setattr(kh.time, "monotonic", lambda: now[0])
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"))
    delays = []
    for _ in range(9):
        host._failed(3, RuntimeError("MessageSizeTooLargeError"))
        delays.append(host._retry_at[3] - now[0])
    assert delays == [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 60.0, 60.0]
    failing = host.status()["failing"]
    assert failing == {"3": {"failures": 9, "error": "RuntimeError: MessageSizeTooLargeError"}}
    assert host.status()["ready"] is False


def test_a_snapshot_too_large_for_a_record_is_left_out_not_sent(monkeypatch):
    """A partition's state can outgrow a record (86 registrations with a 1 MB fide_id each: a
    71 MB snapshot): sent, the producer refuses it and the transaction's decisions with it,
    at every snapshot. It is left out instead (the decisions commit; the snapshot-age alert
    tells); one that fits, with 1 MiB for the request around it, is kept."""
    monkeypatch.setattr(kh, "MAX_SNAPSHOT_BYTES", 4 << 20)
    assert kh._fits("tournament", 2, b"x" * (3 << 20))
    assert not kh._fits("tournament", 2, b"x" * ((3 << 20) + 1))


def test_records_fetched_before_the_restore_never_move_the_decided_offsets_back(monkeypatch):
    """The group starts fetching a partition from offset 0 while its snapshot is being restored
    (to offset 2562); that batch still reaches the loop after the restore. Its records are
    already decided: they are not decided again and the offsets the next transaction commits
    stay 2562, not 120 (the offsets record went back, and the restore after the next failed
    transaction wrote 2,442 decisions a second time)."""
    host = kh.KafkaHost("tournament", "127.0.0.1:1", lambda: make_processor("tournament"))
    topic = host.inputs[0]
    decided = []
    proc = SimpleNamespace(decide=lambda m: decided.append(m) or [], due=lambda now: [],
                           chains=ChainBook())  # nothing to checkpoint
    part = kh._Part(2, proc, offsets={topic: 2562})
    monkeypatch.setattr(kh, "_parse", lambda t, v: v)  # the value stands for the parsed message
    stale = [(1, (topic, 2), o, f"old{o}") for o in range(120)]
    fresh = [(2, (topic, 2), o, f"new{o}") for o in (2562, 2563)]
    host._decide(part, stale + fresh)
    assert decided == ["new2562", "new2563"]
    assert part.offsets[topic] == 2564 and part.next.offsets[topic] == 2564
    assert part.next.inputs == 2


def test_a_tail_decided_again_by_other_code_is_checked_against_the_decisions_in_the_log(monkeypatch):
    """A crash across an upgrade: this code decides the inputs after the snapshot again and
    compares its decisions with those the log holds for them (from the snapshot's ``written``
    offsets, by stream and seq). The same decisions: restored, ``tail_verified`` = how many.
    One decision otherwise (here the log's GameStarted names another white player, as older code
    might have): the partition is not served, and /healthz says which decision and why."""
    from contracts.envelope import Actor, dt_of
    from contracts.messages import CreateGame, GAME_EVENTS, envelope
    from shared.eventlog.kafka import partition_of

    tail = [envelope(CreateGame(game_id="g1", white="w", black="b", time_control="600"),
                     stream="game-g1.commands.a1a1a1a1", seq=1, occurred_at=dt_of(1_000),
                     actor=Actor(kind="organiser", id="o"))]
    n = partition_of(tail[0].key.encode(), 8)
    decided = make_processor("game").decide(tail[0])
    assert [d.type for d in decided][0] == "GameStarted"
    forged = [decided[0].model_copy(update={"payload": decided[0].payload.model_copy(update={"white": "x"})}),
              *decided[1:]]
    record = {t: 41 for t in make_processor("game").inputs}

    for in_log, ok in ((decided, True), (forged, False)):
        snap = {"format": kh.SNAPSHOT_FORMAT, "offsets": {t: 40 for t in record},
                "proc": make_processor("game"), "offsets_record": True, "code": "other",
                "written": {GAME_EVENTS: 7}}
        host = _host(monkeypatch, record, snap, {})
        reads = []

        async def read_range(part, start, end=None, in_log=in_log):
            reads.append((part, start, end))
            return tail if end is not None else list(in_log)

        monkeypatch.setattr(host, "_read_range", read_range)
        if ok:
            asyncio.run(host._restore(n))
            assert host.restored[n]["code_changed"] is True
            assert host.restored[n]["tail_verified"] == len(decided) > 0
        else:
            with pytest.raises(kh.TailDiverged, match="GameStarted.*payload.white: recorded 'x', re-derived 'w'"):
                asyncio.run(host._restore(n))
            assert n not in host.parts
            host._not_restored(n, kh.TailDiverged("x"))
            assert "TailDiverged" in host._failing[n]["error"]
        # the outputs, from the snapshot's bound (0 for a topic it has none for)
        outputs = make_processor("game").outputs
        assert reads[-1] == (n, {t: 7 if t == GAME_EVENTS else 0 for t in outputs}, None), reads


def test_timers_wait_until_the_partition_has_decided_its_inputs_to_the_end_of_the_log(monkeypatch):
    """After a broker outage a move received before its deadline reaches the log late: it lies
    past what the restored partition decided. The clock's timer must not fire first (its
    CheckClock would be appended after the move and decided before it: a flag where the move
    was in time). Timers wait while the partition is behind the end seen at its restore, or
    behind the high watermark its fetches have seen since."""
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"), ticks=True)
    high = {}

    class Positions:  # where the partition's fetch stands, and the end it saw
        def position(self, tps):
            return [SimpleNamespace(topic=tp.topic, offset=part.offsets.get(tp.topic, 0)) for tp in tps]

        def get_watermark_offsets(self, tp, cached=False):
            return 0, high.get(tp.topic, 0)

    host.consumer = Positions()
    fired = []
    proc = SimpleNamespace(decide=lambda m: [], due=lambda now: fired.append(now) or [], chains=ChainBook(),
                           next_deadline=lambda: 0)  # a deadline long past
    topic = host.inputs[0]
    part = kh._Part(2, proc, offsets={topic: 2}, ends={topic: 3})  # the late move at offset 2
    host._decide(part, [])
    assert fired == []  # behind the end seen at the restore
    monkeypatch.setattr(kh, "_parse", lambda t, v: None)
    high[topic] = 3
    host._decide(part, [(1, (topic, 2), 2, b"move")])
    assert part.offsets[topic] == 3 and len(fired) == 1  # decided up to the end: the timer runs
    high[topic] = 5  # a fetch saw two more commands
    host._decide(part, [])
    assert len(fired) == 1



def test_a_partition_whose_timer_is_not_due_asks_neither_the_consumer_nor_the_cores():
    """Most turns no deadline is reached: the host then neither asks the consumer where the
    partition stands nor the cores what is due (each cost ~0.1 ms per partition per turn)."""
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"), ticks=True,
                        now_ms=lambda: 1_000_000)
    asked = []

    class Consumer:
        def position(self, tps):
            asked.append("position")
            return [SimpleNamespace(topic=tp.topic, offset=0) for tp in tps]

        def get_watermark_offsets(self, tp, cached=False):
            return 0, 0

    host.consumer = Consumer()
    wake = [1_000_001]  # one ms ahead
    proc = SimpleNamespace(decide=lambda m: [], due=lambda now: asked.append(now) or [],
                           chains=ChainBook(), next_deadline=lambda: wake[0])
    part = kh._Part(0, proc)
    host._decide(part, [])
    assert asked == []
    wake[0] = 1_000_000  # reached: now it asks, and the timer runs
    host._decide(part, [])
    assert asked[0] == "position" and asked[-1] == 1_000_000

def test_a_seek_refused_right_after_an_assignment_is_tried_again_not_fatal(monkeypatch):
    """librdkafka refuses a seek ("Local: Erroneous state") until the partition's fetcher has
    started, a moment after the group's assignment. A partition kept across a rebalance is
    sought at once: the refusal ended the instance's loop, and its partitions were never
    decided again (a stress run: a create answered 202 after 30 s, an instance never ready).
    The partition stays paused and unready, its timers wait, and the next turn seeks it."""
    from confluent_kafka import KafkaError, KafkaException

    host = _host(monkeypatch, None, None, {})
    refusals = [2]

    def seek(tp):
        if refusals[0]:
            refusals[0] -= 1
            raise KafkaException(KafkaError(KafkaError._STATE, "Local: Erroneous state"))
        host.consumer.seeks[tp.topic] = tp.offset

    host.consumer.seek = seek
    host._joined, host.producer, host._assignment = True, object(), {3}
    host.parts[3] = kh._Part(3, make_processor("game"), offsets={t: 5 for t in host.inputs})
    host._resume(3, host.parts[3].offsets)
    assert host.consumer.resumed == [] and host.status()["seeking"] == [3]
    assert host.status()["ready"] is False and not host._caught_up(host.parts[3])
    host._seek_pending()  # the second refusal
    assert host.consumer.resumed == []
    host._seek_pending()
    assert host.consumer.seeks == {t: 5 for t in host.inputs}
    assert host.consumer.resumed == [(t, 3) for t in host.inputs]
    assert host.status()["seeking"] == [] and host.status()["ready"] is True


def test_a_failure_in_a_turn_of_the_loop_rejoins_instead_of_ending_the_loop(monkeypatch):
    """Whatever a turn raises, the loop logs it, drops its partitions and joins the group again
    (a loop that ended left the instance in the group owning partitions it never decided,
    and /healthz said ready), after 1, 2, 4 ... s while turns keep failing (not a hot loop of
    restores; turns that succeed in between, before the failing input comes again, do not
    reset it); not ready, with the error, until the loop has run 60 s without failing."""
    now = [1000.0]
    monkeypatch.setattr(kh.time, "monotonic", lambda: now[0])
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"))
    host._joined, host.producer = True, object()
    turns, delays, ready = [], [], []
    monkeypatch.setattr(host, "_poll", lambda timeout: [])

    async def turn(rows):
        turns.append(rows)
        if len(turns) in (1, 3, 5):
            raise _Defect("Local: Erroneous state")
        if len(turns) == 6:
            now[0] += 59
            ready.append(host.status()["ready"])  # 59 s without a failure: not yet
        if len(turns) == 7:
            now[0] += 2  # 61 s: cleared after this turn
        if len(turns) == 8:
            ready.append(host.status()["ready"])
            raise asyncio.CancelledError

    async def rejoin(delay=0.0):
        delays.append(delay)
        ready.append(host.status()["ready"])

    monkeypatch.setattr(host, "_turn", turn)
    monkeypatch.setattr(host, "_rejoin", rejoin)

    async def main():
        host._task = asyncio.create_task(host._run())
        await asyncio.gather(host._task, return_exceptions=True)

    asyncio.run(main())
    assert delays == [1.0, 2.0, 4.0] and len(turns) == 8  # turns 2 and 4 succeeded in between
    assert ready == [False, False, False, False, True]
    assert host._loop_failures is None and "loop_failures" not in host.status()
    assert host.status()["loop"] == "ended"  # (cancelled here, not stopped: not ready)


class _Defect(RuntimeError):
    """Any error a turn may raise."""


def test_a_transaction_waiting_on_a_broker_that_does_not_answer_makes_the_instance_not_ready(monkeypatch):
    """A broker paused (SIGSTOP) is not gone: no error comes, the transaction in flight just
    waits, and /healthz said ready while nothing was decided for 28 s (found by a helper).
    From 5 s of waiting it says not ready, and how long; when the transaction ends, ready."""
    now = [100.0]
    monkeypatch.setattr(kh.time, "monotonic", lambda: now[0])
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"))
    host._joined, host.producer = True, object()
    host._inflight, host._txn_at = object(), 100.0
    now[0] = 104.9
    assert host.status()["ready"] is True and "transaction_waiting_s" not in host.status()
    now[0] = 106.0
    assert host.status()["ready"] is False and host.status()["transaction_waiting_s"] == 6.0
    host._inflight = None
    assert host.status()["ready"] is True


def test_a_twin_instance_id_is_named_in_the_log(monkeypatch, caplog):
    """Two live processes under one instance id fence each other's consumer for good (a
    helper started one by mistake): the log says which id and what to do, not only
    librdkafka's words."""
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"), instance_id="game-vm-8001")
    polls = []

    def poll(timeout):
        polls.append(timeout)
        if len(polls) == 1:
            raise kh._ConsumerFailed("Static consumer fenced by other consumer with same group.instance.id")
        raise asyncio.CancelledError

    async def rejoin(delay=0.0):
        pass

    monkeypatch.setattr(host, "_poll", poll)
    monkeypatch.setattr(host, "_rejoin", rejoin)

    async def main():
        await asyncio.gather(host._run(), return_exceptions=True)

    with caplog.at_level("WARNING", logger="arbiter.kafkahost"):
        asyncio.run(main())
    assert "another process runs as instance 'game-vm-8001'" in caplog.text


def test_a_twin_fencing_us_again_gets_the_partitions_for_a_while(monkeypatch, caplog):
    """Fenced once by a twin, the instance joins again at once (it may be its own earlier
    incarnation after a broker restart); fenced again within TWIN_WINDOW_S, it leaves the group
    to the other process for TWIN_WAIT_S, not ready, saying why on /healthz, instead of
    fencing it back at once (each of those turns was a rebalance that stopped the partitions)."""
    now = [1000.0]
    monkeypatch.setattr(kh.time, "monotonic", lambda: now[0])
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"), instance_id="game-vm-8001")
    polls, delays, seen = [], [], []

    def poll(timeout):
        polls.append(timeout)
        if len(polls) <= 3:
            now[0] += {1: 0, 2: 60, 3: kh.TWIN_WINDOW_S + 1}[len(polls)]
            raise kh._ConsumerFailed("Static consumer fenced by other consumer with same group.instance.id")
        raise asyncio.CancelledError

    async def rejoin(delay=0.0):
        delays.append(delay)
        host._joined, host.producer = False, object()
        seen.append(host.status())

    monkeypatch.setattr(host, "_poll", poll)
    monkeypatch.setattr(host, "_rejoin", rejoin)

    async def main():
        await asyncio.gather(host._run(), return_exceptions=True)

    with caplog.at_level("WARNING", logger="arbiter.kafkahost"):
        asyncio.run(main())
    # at once; 60 s later: wait; after the window, a fencing counts as the first again
    assert delays == [0.0, kh.TWIN_WAIT_S, 0.0]
    assert "twin" not in seen[0] and "twin" not in seen[2]
    assert seen[1]["ready"] is False
    assert seen[1]["twin"]["instance_id"] == "game-vm-8001" and seen[1]["twin"]["back_in_s"] == kh.TWIN_WAIT_S
    assert "fenced 2 times by a twin" in caplog.text and host._twin is None


def test_snapshots_are_written_one_partition_at_a_time_and_go_in_the_next_transaction():
    """Due snapshots (``snapshot_every_s`` seconds or ``snapshot_every`` inputs since the last)
    are made one partition at a time, the longest waiting first, and written a few entries a
    turn; done, the bytes go in the partition's next transaction and load the state of the
    instant it was made. A partition with no input since its last, or not due, waits."""
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"),
                        snapshot_every=10_000, snapshot_every_s=30.0)
    now = 1_000.0
    for n, (age, inputs) in enumerate([(31.0, 5), (40.0, 0), (14.0, 5), (1.0, 12_000), (35.0, 7)]):
        host.parts[n] = kh._Part(n, make_processor("game"), inputs_since_snapshot=inputs,
                                 snapshot_at=now - age)
    started = []
    for turn in range(4):
        host._snapshots_due(now)
        started += [n for n, p in host.parts.items() if p.snapshotting is not None and n not in started]
        host._write_snapshots()  # an empty processor: written in one turn
    assert started == [4, 0, 3]  # the longest waiting first; 1 has nothing new, 2 is not due
    assert [host.parts[n].inputs_since_snapshot for n in range(5)] == [0, 0, 5, 0, 0]
    assert all(host.parts[n].next.snapshot for n in (0, 3, 4)) and host.parts[2].next.snapshot is None
    loaded = load(unseal(host.parts[4].next.snapshot, host.snapshot_keys), lambda s: s["proc"].aggregate_maps())
    assert loaded["format"] == kh.SNAPSHOT_FORMAT and loaded["offsets"] == {}


def _stopping_host(monkeypatch, part):
    """A host owning ``part`` whose :meth:`KafkaHost._last_commit` hands its batch to the list
    returned (no broker)."""
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"),
                        snapshot_every=10_000, snapshot_every_s=30.0)
    host.parts[part.number] = part
    host.consumer = SimpleNamespace(consumer_group_metadata=lambda: None)
    monkeypatch.setattr(host, "_begin", lambda: True)
    committed = []

    async def commit(batch, metadata):
        committed.extend(batch)

    monkeypatch.setattr(host, "_commit", commit)
    return host, committed


def test_a_graceful_stop_while_a_snapshot_is_being_written_still_writes_the_last_snapshot(monkeypatch):
    """A stop (an upgrade) comes while a periodic snapshot is being written and nothing was
    decided since its instant: the snapshot in progress is given up, and the last commit must
    write one of the state now in its place, or the next owner (the new code) restores from the
    snapshot before and decides again the inputs since (the tail the stop is there to avoid)."""
    from tests.unit.test_game_services import Bus

    bus = Bus()
    for i in range(40):
        bus.create(f"g{i}")
        bus.move("alice", "e4", at=1_000, gid=f"g{i}")
    now = 1_000.0
    part = kh._Part(0, bus.processor, offsets={"arbiter.game.commands": 80}, inputs_since_snapshot=80,
                    snapshot_at=now - 31)
    host, committed = _stopping_host(monkeypatch, part)
    host._snapshots_due(now)
    assert part.snapshotting is not None and not part.next  # started; nothing decided since
    asyncio.run(host._last_commit())
    assert [p.number for p, _ in committed] == [0]
    blob = committed[0][1].snapshot
    assert blob is not None
    loaded = load(unseal(blob, host.snapshot_keys), lambda s: s["proc"].aggregate_maps())
    assert loaded["offsets"] == {"arbiter.game.commands": 80}
    assert loaded["proc"].core("validation").games["g39"].pos.ply == 1


def test_a_snapshot_that_fails_leaves_the_partition_due_again(monkeypatch):
    """A snapshot that fails (an entry that does not pickle) is logged and given up; the
    partition still counts inputs not in a snapshot, so the next one is due an interval later
    even if no input comes, and a graceful stop would write it."""
    host = kh.KafkaHost("game", "127.0.0.1:1", lambda: make_processor("game"),
                        snapshot_every=10_000, snapshot_every_s=30.0)
    part = host.parts[0] = kh._Part(0, make_processor("game"), inputs_since_snapshot=5, snapshot_at=0.0)
    part.proc.core("clock").games["g"] = lambda: None  # does not pickle
    host._snapshots_due(100.0)
    host._write_snapshots()
    assert part.snapshotting is None and part.next.snapshot is None
    assert part.inputs_since_snapshot == 1 and part.proc.core("clock").games.snapshot is None
    host._snapshots_due(115.0)
    assert part.snapshotting is None  # not due yet: 15 s since the failed one
    host._snapshots_due(131.0)
    assert part.snapshotting is not None
