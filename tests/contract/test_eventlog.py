"""One contract suite for both event-log transports (memory and real Kafka).

Order per stream, a redelivered event changes nothing, replay from the start rebuilds the same
state. The Kafka variant runs on the broker of the ``kafka_bootstrap`` fixture (never skipped in
CI).
"""
from __future__ import annotations

import asyncio
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from contracts.envelope import Actor
from contracts.messages import GAME_COMMANDS, GAME_EVENTS, CreateGame, SubmitMove, envelope
from shared.eventlog.base import Deduper, EventLog
from shared.eventlog.memory import MemoryLog

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
PLAYER = Actor(kind="player", id="p")


@pytest.fixture(params=["memory", pytest.param("kafka", marks=pytest.mark.kafka)])
async def make_log(request):
    made: list[EventLog] = []

    def factory() -> EventLog:
        if request.param == "memory":
            log = made[0] if made else MemoryLog()  # a memory log is one process: share it
        else:
            from shared.eventlog.kafka import KafkaLog
            log = KafkaLog(request.getfixturevalue("kafka_bootstrap"))
        made.append(log)
        return log

    factory.kind = request.param
    yield factory
    for log in made:
        await log.stop()


def _moves(gid: str, n: int):
    return [envelope(SubmitMove(game_id=gid, player_id="p", move=f"m{i}"), stream=f"game-{gid}.commands",
                     seq=i, occurred_at=T0 + timedelta(milliseconds=i), actor=PLAYER) for i in range(1, n + 1)]


async def _until(cond, timeout=180.0):  # a new group first reads the topic's whole history
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not cond():
        if loop.time() > end:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.02)


class Folder:
    """A tiny state machine: per stream, the moves applied in order (deduplicated)."""

    def __init__(self) -> None:
        self.dedupe = Deduper()
        self.state: dict[str, list[str]] = {}

    async def __call__(self, topic, msg) -> None:
        if self.dedupe.seen(msg) or not isinstance(msg.payload, SubmitMove):
            return
        self.dedupe.mark(msg)
        self.state.setdefault(msg.stream, []).append(msg.payload.move)


async def test_order_per_stream(make_log):
    log = make_log()
    run = uuid.uuid4().hex[:8]
    games = [f"o{run}{k}" for k in range(6)]
    f = Folder()
    log.subscribe([GAME_COMMANDS], f"t-order-{run}", f, commit="periodic")
    await log.start()
    msgs = {g: _moves(g, 20) for g in games}
    for i in range(20):  # interleave streams
        for g in games:
            await log.publish(GAME_COMMANDS, msgs[g][i])
    await _until(lambda: all(len(f.state.get(f"game-{g}.commands", [])) == 20 for g in games))
    for g in games:
        assert f.state[f"game-{g}.commands"] == [f"m{i}" for i in range(1, 21)]


async def test_redelivery_changes_nothing(make_log):
    log = make_log()
    run = uuid.uuid4().hex[:8]
    f = Folder()
    log.subscribe([GAME_COMMANDS], f"t-redeliver-{run}", f)
    await log.start()
    msgs = _moves(f"r{run}", 5)
    for m in msgs:
        await log.publish(GAME_COMMANDS, m)
    await _until(lambda: len(f.state.get(f"game-r{run}.commands", [])) == 5)
    before = {k: list(v) for k, v in f.state.items()}
    # redeliver: the same message again (what a consumer sees after a crash before its commit)
    await log.publish(GAME_COMMANDS, msgs[2])
    await log.publish(GAME_COMMANDS, msgs[4])
    marker = _moves(f"r{run}x", 1)[0]
    await log.publish(GAME_COMMANDS, marker)
    await _until(lambda: f"game-r{run}x.commands" in f.state)
    assert f.state[f"game-r{run}.commands"] == before[f"game-r{run}.commands"]


async def test_replay_rebuilds_same_state(make_log):
    log = make_log()
    run = uuid.uuid4().hex[:8]
    live = Folder()
    log.subscribe([GAME_COMMANDS], f"t-replay-{run}", live, commit="periodic")
    await log.start()
    for g in (f"a{run}", f"b{run}"):
        for m in _moves(g, 7):
            await log.publish(GAME_COMMANDS, m)
    await _until(lambda: sum(len(v) for k, v in live.state.items() if run in k) == 14)
    replayed = Folder()
    for m in await log.read(GAME_COMMANDS):
        await replayed(GAME_COMMANDS, m)
    assert {k: v for k, v in replayed.state.items() if run in k} == \
           {k: v for k, v in live.state.items() if run in k}


async def test_read_many_keeps_append_order_across_topics(make_log):
    log = make_log()
    run = uuid.uuid4().hex[:8]
    await log.start()
    a = envelope(CreateGame(game_id=f"x{run}", white="w", black="b"), stream=f"game-x{run}.commands",
                 seq=1, occurred_at=T0, actor=PLAYER)
    b = _moves(f"x{run}", 1)[0].model_copy(update={"seq": 2})
    await log.publish(GAME_COMMANDS, a)
    await asyncio.sleep(0.01)
    await log.publish(GAME_COMMANDS, b)
    got = [m for m in await log.read_many([GAME_EVENTS, GAME_COMMANDS]) if m.aggregate == f"game-x{run}"]
    assert [m.seq for m in got] == [1, 2]


@pytest.mark.kafka
async def test_a_poison_record_is_skipped_not_stalling_the_group(kafka_bootstrap):
    """A record that is not one of our messages (here: bytes no contract parses) is logged and
    skipped by a subscriber and by ``read``; the messages after it are delivered."""
    from aiokafka import AIOKafkaProducer

    from shared.eventlog.kafka import KafkaLog

    log = KafkaLog(kafka_bootstrap)
    run = uuid.uuid4().hex[:8]
    f = Folder()
    log.subscribe([GAME_COMMANDS], f"t-poison-{run}", f)
    await log.start()
    try:
        producer = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
        await producer.start()
        try:
            await producer.send_and_wait(GAME_COMMANDS, b'{"type": "NoSuchMessage", "x": 1}',
                                         key=f"game-p{run}".encode())
        finally:
            await producer.stop()
        for m in _moves(f"p{run}", 3):
            await log.publish(GAME_COMMANDS, m)
        await _until(lambda: len(f.state.get(f"game-p{run}.commands", [])) == 3)
        assert log.undecodable >= 1
        streams = [m.stream for m in await log.read(GAME_COMMANDS)]
        assert streams.count(f"game-p{run}.commands") == 3
    finally:
        await log.stop()


async def test_read_key_returns_exactly_one_keys_messages(make_log):
    """``read_key``: the messages of one partition key, in order, the same as filtering the whole
    log (Kafka reads only the key's partition: an export of one game does not read the log)."""
    log = make_log()
    run = uuid.uuid4().hex[:8]
    games = [f"k{run}{i}" for i in range(5)] + [f"t{run}-r1-b1", f"t{run}-r1-b2"]
    await log.start()
    for m in [m for g in games for m in _moves(g, 4)]:
        await log.publish(m.payload.TOPIC, m)
    got = await log.read_key([GAME_COMMANDS], f"game-k{run}2")
    assert [(m.stream, m.payload.move) for m in got] == [(f"game-k{run}2.commands", f"m{i}") for i in range(1, 5)]
    tour = await log.read_key([GAME_COMMANDS], f"tournament-t{run}")  # a tournament's games share its key
    assert sorted({m.aggregate for m in tour}) == [f"game-t{run}-r1-b1", f"game-t{run}-r1-b2"]
    assert len(tour) == 8
