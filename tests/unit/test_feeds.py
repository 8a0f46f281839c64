"""The feeds' pure parts (:mod:`services.gateway.feeds`): positions, the hub's bounded queues,
keep-alives and the closing message, cursors."""
from __future__ import annotations

import asyncio

import pytest

from services.gateway.errors import HTTPError
from services.gateway.feeds import End, Hub, decode_cursor, deliveries, encode_cursor, start_of
from services.gateway.readmodel import Recorded


def _rec(stream: str, seq: int, type_: str = "MoveAccepted") -> Recorded:
    return Recorded(type_, stream, seq, f'{{"stream":"{stream}","seq":{seq}}}')


HISTORY = [_rec("game-g.commands.a", 1, "CreateGame"), _rec("game-g", 1, "GameStarted"),
           _rec("game-g.commands.a", 2, "SubmitMove"), _rec("game-g", 2)]


@pytest.mark.parametrize("since, start", [(None, 4), ("0", 0), ("1", 2), ("2", 4),
                                          ("game-g.commands.a:2", 3), ("game-g.commands.a:1", 1)])
def test_positions(since, start):
    assert start_of(HISTORY, since, "game-g") == start


@pytest.mark.parametrize("since, status, code", [
    ("3", 409, "unknown-position"), ("game-h:1", 409, "unknown-position"),
    ("-1", 422, "bad-position"), ("game-g:0", 422, "bad-position"), ("a b:1", 422, "bad-position"),
    ("x" * 300 + ":1", 422, "bad-position")])
def test_bad_positions(since, status, code):
    with pytest.raises(HTTPError) as e:
        start_of(HISTORY, since, "game-g")
    assert (e.value.status, e.value.extra["code"]) == (status, code)


async def _drain(ds, n: int) -> list:
    return [await anext(ds) for _ in range(n)]


async def test_a_lagging_subscriber_is_closed_after_what_it_was_queued():
    hub = Hub(max_queue=2)
    backlog, sub = hub.open(HISTORY, 3, "game-g", None)
    assert backlog == HISTORY[3:] and sub.position == "game-g.commands.a:2"
    for seq in (3, 4, 5):  # the third finds the queue full
        hub.publish(_rec("game-g", seq), ["game-g", "event-e"])
    assert "game-g" not in hub.subscribers and sub.ended == "behind"
    got = await _drain(deliveries(backlog, sub), 4)
    assert got == [HISTORY[3], _rec("game-g", 3), _rec("game-g", 4), End("behind", "game-g:4")]
    assert "since=game-g:4" in got[-1].to_dict()["detail"]


async def test_types_filter_keepalives_and_shutdown():
    hub = Hub()
    backlog, sub = hub.open(HISTORY, 0, "game-g", frozenset({"MoveAccepted"}))
    assert backlog == [HISTORY[3]]
    ds = deliveries(backlog, sub, keepalive_s=0.01)
    assert await anext(ds) == HISTORY[3]
    assert await anext(ds) is None  # nothing within keepalive_s: a keep-alive
    hub.publish(_rec("game-g.clock", 3, "ClockUpdated"), ["game-g"])  # not wanted
    hub.publish(_rec("game-g", 3), ["game-g"])
    assert await anext(ds) == _rec("game-g", 3)
    hub.close_all()
    assert await anext(ds) == End("shutdown", "game-g:3") and not hub.subscribers
    with pytest.raises(StopAsyncIteration):
        await anext(ds)


def test_cursors_round_trip_and_refuse_other_shapes():
    key = ["open26", 2, 3, "open26-r2-b3"]
    assert decode_cursor(encode_cursor(key), ["", 0, 0, ""]) == key
    for bad in ("", "%%%", encode_cursor(["x"]), encode_cursor(["a", "2", 3, "b"])):
        with pytest.raises(HTTPError) as e:
            decode_cursor(bad, ["", 0, 0, ""])
        assert e.value.extra["code"] == "bad-cursor"


def test_the_event_feed_of_the_read_model_keeps_each_message_once_in_applied_order():
    """The read model's ``event-<tid>`` history: the tournament's messages and its games'."""
    from contracts.messages import CreateGame, CreateTournament, envelope
    from contracts.envelope import Actor, dt_of
    from services.gateway.readmodel import ReadModel

    rm, who = ReadModel(), Actor(kind="organiser", id="o")
    msgs = [envelope(CreateTournament(tournament_id="T", name="T"), stream="tournament-T.commands.a",
                     seq=1, occurred_at=dt_of(0), actor=who),
            envelope(CreateGame(game_id="x", white="a", black="b"), stream="game-x.commands.a",
                     seq=1, occurred_at=dt_of(0), actor=who),
            envelope(CreateGame(game_id="T-r1-b1", white="a", black="b", tournament_id="T",
                                round=1, board=1), stream="game-T-r1-b1.commands.a", seq=1,
                     occurred_at=dt_of(0), actor=who)]
    for m in msgs:
        rm.apply(m)
    assert [(r.stream, r.seq) for r in rm.history["event-T"]] == [
        ("tournament-T.commands.a", 1), ("game-T-r1-b1.commands.a", 1)]
    assert rm.feeds_of(msgs[2]) == ("game-T-r1-b1", "event-T") and rm.feeds_of(msgs[1]) == ("game-x",)
