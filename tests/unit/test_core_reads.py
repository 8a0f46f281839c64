"""A core's ``reads`` (:class:`shared.service.Core`): the processor hands a core only the payload
types it names, so every other payload type of the core's input topics must decide nothing
and change nothing in it."""
from __future__ import annotations

import copy
import pickle

import pytest

from contracts.envelope import Actor, dt_of
from contracts.messages import MESSAGE_TYPES, PAYLOADS, GameStarted
from services.system import PROCESS_CORES, make_core

CORES = [n for cores, _ in PROCESS_CORES.values() for n in cores if make_core(n).reads is not None]


def _message(payload_cls):
    """An envelope of ``payload_cls`` about game g1 with no other field set (nothing may read
    them)."""
    payload = payload_cls.model_construct(game_id="g1", tournament_id="t1")
    return MESSAGE_TYPES[payload_cls.__name__].model_construct(
        stream="game-g1", seq=1, occurred_at=dt_of(1_000), actor=Actor(kind="service", id="x"),
        payload=payload)


@pytest.mark.parametrize("name", CORES)
def test_a_core_decides_nothing_on_what_it_does_not_read(name):
    core = make_core(name)
    assert core.reads, name
    started = GameStarted(game_id="g1", white="alice", black="bob", time_control="300+2",
                          start_fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    core.handle(MESSAGE_TYPES["GameStarted"](stream="game-g1", seq=1, occurred_at=dt_of(0),
                                             actor=Actor(kind="service", id="validation"),
                                             payload=started))
    others = [p for p in PAYLOADS if p.TOPIC in core.inputs and p not in core.reads]
    assert others
    for p in others:
        before = pickle.dumps(copy.deepcopy(core.__dict__))
        assert core.handle(_message(p)) == [], p.__name__
        assert pickle.dumps(copy.deepcopy(core.__dict__)) == before, p.__name__


ALL_CORES = [n for cores, _ in PROCESS_CORES.values() for n in cores]


@pytest.mark.parametrize("name", ALL_CORES)
def test_a_core_with_a_timer_says_when_it_is_next_due(name):
    """The Kafka host asks a core's :meth:`~shared.service.Core.due` only once its
    :meth:`~shared.service.Core.next_deadline` is reached: a core with a timer of its own and
    no deadline would never be asked."""
    from shared.service import Core

    cls = type(make_core(name))
    if cls.due is not Core.due:
        assert cls.next_deadline is not Core.next_deadline, name
