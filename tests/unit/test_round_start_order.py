"""A waiting tournament game's start decided in its own command order (issue 12): the game
processor reads the round's pairing (tournament events) and its StartPlay (game commands) from
two topics; whichever it reads first, the game starts at the StartPlay's receive time, and a
move ordered before the StartPlay in the game's stream is refused ``not-started``."""
from __future__ import annotations

from uuid import UUID

from contracts.envelope import Actor, dt_of
from contracts.messages import (
    Board, ClockStarted, MoveRejected, PlayStarted, RoundPaired, StartPlay, SubmitMove,
    TournamentCreated, envelope,
)
from services.system import make_processor

T0 = 1_700_000_000_000
SERVICE = Actor(kind="service", id="pairing")


def _msg(payload, stream: str, seq: int, at: int, n: int, actor=SERVICE):
    return envelope(payload, stream=stream, seq=seq, occurred_at=dt_of(T0 + at), actor=actor,
                    event_id=UUID(int=n))


def _inputs():
    created = TournamentCreated(tournament_id="e", name="e", system="round-robin", rounds=None,
                                time_control="600", tiebreaks=("SB",), round_start="on-command")
    paired = RoundPaired(tournament_id="e", round=1, system="round-robin",
                         boards=(Board(board=1, game_id="e-r1-b1", white="a", black="b"),))
    return (_msg(created, "tournament-e", 1, 0, 1), _msg(paired, "tournament-e", 2, 1_000, 2),
            _msg(StartPlay(game_id="e-r1-b1"), "game-e-r1-b1.round", 1, 60_000, 3))


def _decided(order):
    proc = make_processor("game")
    out = []
    for m in order:
        out += proc.decide(m)
    return proc, out


def test_the_start_is_the_same_whichever_topic_is_read_first():
    created, paired, start = _inputs()
    for order in ([created, paired, start], [created, start, paired]):
        proc, out = _decided(order)
        played = [m for m in out if isinstance(m.payload, PlayStarted)]
        clocks = [m for m in out if isinstance(m.payload, ClockStarted)]
        assert len(played) == 1 and played[0].at_ms == T0 + 60_000, order
        assert len(clocks) == 1 and clocks[0].payload.deadline_ms == T0 + 60_000 + 600_000
        assert proc.core("validation").games["e-r1-b1"].started_ms == T0 + 60_000


def test_a_move_before_the_start_is_refused_and_after_it_taken():
    created, paired, start = _inputs()
    proc, _ = _decided([created, paired])
    move = _msg(SubmitMove(game_id="e-r1-b1", player_id="a", move="e4"), "game-e-r1-b1.commands.x",
                1, 30_000, 4, actor=Actor(kind="player", id="a"))
    refused = proc.decide(move)
    assert [m.payload.code for m in refused if isinstance(m.payload, MoveRejected)] == ["not-started"]
    assert proc.core("clock").games == {}  # no clock runs
    proc.decide(start)
    again = _msg(SubmitMove(game_id="e-r1-b1", player_id="a", move="e4"), "game-e-r1-b1.commands.x",
                 2, 61_000, 5, actor=Actor(kind="player", id="a"))
    assert [m.type for m in proc.decide(again)][0] == "MoveAccepted"
