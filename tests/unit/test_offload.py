"""A long pairing never stalls other events (issue 13 item 1): shared.offload and the Kafka
host's use of it, without a broker.

The host's ``_decide`` is driven by hand with records as the consumer hands them over; the
forked child is replaced by a future the test completes, so nothing depends on timing."""
from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest

from contracts.envelope import Actor, stream_for
from contracts.messages import (TOURNAMENT_COMMANDS, CreateTournament, RegisterPlayer,
                                RoundPaired, StartRound, envelope)
from shared import kafkahost, offload
from services.system import make_processor

WHEN = datetime(2026, 12, 2, tzinfo=timezone.utc)
ARBITER = Actor(kind="arbiter", id="a")


def _triple(x: int) -> int:
    return 3 * x


def _refuse(x: int) -> int:
    raise ValueError(f"no {x}")


def test_call_takes_the_outcome_computed_beforehand_once():
    """A kept outcome is what call() returns, once; then the function itself runs again."""
    job = offload.Job(_triple, (5,))
    offload.put(job, True, 99)  # not what _triple gives: proves the kept outcome is taken
    assert offload.ready(job) and offload.call(_triple, 5) == 99
    assert not offload.ready(job) and offload.call(_triple, 5) == 15


def test_an_exception_is_an_outcome_raised_again():
    job = offload.Job(_refuse, (2,))
    offload.put_bytes(job, offload.outcome_bytes(job))
    with pytest.raises(ValueError, match="no 2"):
        offload.call(_refuse, 2)


def _records(tid: str, players: int, partition: int, system: str = "swiss") -> list[tuple]:
    """The consumer's records of a tournament of ``players`` and its round-1 start, then one
    late registration: ``(timestamp, (topic, partition), offset, value)``."""
    cmds = [CreateTournament(tournament_id=tid, name=tid, system=system,
                             rounds=5 if system == "swiss" else None)]
    cmds += [RegisterPlayer(tournament_id=tid, player_id=f"{tid}p{i}", name=f"P{i}",
                            rating=2500 - i) for i in range(players)]
    cmds += [StartRound(tournament_id=tid, round=1),
             RegisterPlayer(tournament_id=tid, player_id=f"{tid}late", name="Late", rating=1000)]
    out = []
    for seq, cmd in enumerate(cmds, start=1):
        m = envelope(cmd, stream=stream_for(f"tournament-{tid}", "commands"), seq=seq,
                     occurred_at=WHEN, actor=ARBITER)
        out.append((seq, (TOURNAMENT_COMMANDS, partition), seq - 1,
                    m.model_dump_json().encode()))
    return out


def _inline(records: list[tuple]) -> list:
    """The decisions of the records decided one by one in a fresh processor, no host."""
    proc, out = make_processor("tournament"), []
    for _, (topic, _), _, value in records:
        out += proc.decide(kafkahost._parse(topic, value))
    return out


async def test_a_pairing_in_a_child_holds_its_partition_only_and_decides_the_same(monkeypatch):
    """Partition 0's round-1 Dutch pairing is started in a (stand-in) child: its StartRound and
    the registration after it wait, while partition 1 (a round robin, paired inline) decides
    all its inputs. When the outcome
    comes, partition 0 decides the held inputs in order without pairing again, and its
    decisions are, byte for byte, those of deciding every input inline."""
    started: list[asyncio.Future] = []

    def fake_in_child(work):
        fut = asyncio.get_running_loop().create_future()
        fut.work = work  # what the child would run
        started.append(fut)
        return fut

    monkeypatch.setattr(kafkahost, "in_child", fake_in_child)
    host = kafkahost.KafkaHost("tournament", "127.0.0.1:1", lambda: make_processor("tournament"))
    big, small = _records("big", 41, 0), _records("small", 6, 1, "round-robin")
    parts = {n: kafkahost._Part(number=n, proc=make_processor("tournament")) for n in (0, 1)}
    host._decide(parts[0], big)
    host._decide(parts[1], small)

    held = [r[2] for r in parts[0].held]
    assert held == [42, 43]  # the StartRound (offset 42) and the late registration
    assert parts[0].offsets[TOURNAMENT_COMMANDS] == 42 and len(started) == 1
    assert parts[1].offsets[TOURNAMENT_COMMANDS] == len(small) and not parts[1].held
    assert any(isinstance(e.payload, RoundPaired) for e in parts[1].next.out)
    assert not any(isinstance(e.payload, RoundPaired) for e in parts[0].next.out)

    host._decide(parts[0], [])  # the child has not answered: still held
    assert [r[2] for r in parts[0].held] == [42, 43]

    started[0].set_result(started[0].work())  # the child's bytes
    from services.pairing import dutch
    calls = []
    monkeypatch.setattr(dutch, "pair_dutch", lambda *a, **k: calls.append(a))
    host._decide(parts[0], [])
    assert not parts[0].held and parts[0].offsets[TOURNAMENT_COMMANDS] == len(big)
    assert calls == []  # the outcome computed beforehand was taken
    monkeypatch.undo()
    expected = _inline(big)
    assert [e.model_dump_json() for e in parts[0].next.out] == \
        [e.model_dump_json() for e in expected]
    assert sum(isinstance(e.payload, RoundPaired) for e in expected) == 1


async def test_a_failed_child_leaves_the_decision_to_be_computed_inline(monkeypatch):
    """No outcome from the child: the held inputs are decided, the pairing computed inline,
    with the same decisions."""
    failed = []

    def failing_in_child(work):
        fut = asyncio.get_running_loop().create_future()
        fut.set_exception(RuntimeError("the forked child failed"))
        failed.append(fut)
        return fut

    monkeypatch.setattr(kafkahost, "in_child", failing_in_child)
    host = kafkahost.KafkaHost("tournament", "127.0.0.1:1", lambda: make_processor("tournament"))
    records = _records("t", 5, 0)
    part = kafkahost._Part(number=0, proc=make_processor("tournament"))
    host._decide(part, records)
    host._decide(part, [])
    assert len(failed) == 1 and not part.held
    assert [e.model_dump_json() for e in part.next.out] == \
        [e.model_dump_json() for e in _inline(records)]


async def test_a_forked_child_computes_the_outcome():
    """shared.heap.in_child with offload.outcome_bytes, for real: the child's outcome kept here
    is what call() returns."""
    from shared.heap import in_child
    job = offload.Job(_triple, (4,))
    offload.put_bytes(job, await in_child(lambda: offload.outcome_bytes(job)))
    assert offload.ready(job) and offload.call(_triple, 4) == 12
