"""Unit tests of the game service cores (validation, clock handler, adjudication, penalties).

The pure cores are driven directly, without an event log: :class:`Bus` wraps each command in its
envelope (event time under the test's control: ``T0`` + ms) and feeds every decision a core emits
back into all cores, in emission order, like a synchronous log. Expected values are real game
values worked out by hand in the comments. Articles: FIDE Laws 1994 (``FIDE-1994``) and, for the
rules 1994 did not have, the current Laws (``FIDE-2023``).
"""
from __future__ import annotations

import copy
import pickle
from collections import deque
from uuid import UUID

import chess
import pytest

from contracts.envelope import Actor, Envelope, dt_of, stream_for
from contracts.messages import (
    AcceptDraw, CheckClock, ClaimDraw, ClockAdjusted, ClockPaused, ClockResumed, ClockStarted,
    ClockStopped, ClockUpdated, CreateGame,
    DrawAgreed, DrawClaimed, DrawClaimRejected, DrawOffered, DrawOfferDeclined, FlagFell,
    GameCommandRejected, GameEnded, GameStarted, IssuePenalty, MoveAccepted, MoveRejected,
    OfferDraw, PauseClock, PenaltyApplied, ReportAbsence, Resign, Resigned, ResumeClock, Rule,
    SubmitMove, envelope,
)
from services.clock.service import ClockCore
from services.system import make_processor

T0 = 1_700_000_000_000  # epoch ms of the test's "start of play"
S = 1_000
MIN = 60 * S

ALICE = Actor(kind="player", id="alice")  # white in every game below
BOB = Actor(kind="player", id="bob")  # black
MALLORY = Actor(kind="player", id="mallory")  # not in the game
ARBITER = Actor(kind="arbiter", id="arb")
ORGANISER = Actor(kind="organiser", id="org")
PLAYERS = {"alice": ALICE, "bob": BOB, "mallory": MALLORY}


class Bus:
    """The game processor (:func:`services.system.make_processor`: the four game cores composed
    over one ordered input) driven directly: :meth:`send` wraps a command in its envelope (event
    time ``T0`` + ms) and returns the decisions it causes, in order; :meth:`tick` runs the
    timer at ``T0`` + ms and decides the CheckClock commands it would publish. ``log`` holds
    every message, commands included."""

    def __init__(self) -> None:
        self.processor = make_processor("game")
        self.validation = self.processor.core("validation")
        self.clock = self.processor.core("clock")
        self.adjudication = self.processor.core("adjudication")
        self.penalties = self.processor.core("penalties")
        self.seqs: dict[str, int] = {}
        self.log: list[Envelope] = []
        self._n = 0

    def decide(self, msg: Envelope) -> list[Envelope]:
        """Hand ``msg`` (any input envelope) to the processor; its decisions."""
        out = self.processor.decide(msg)
        self.log += [msg, *out]
        return out

    def send(self, payload, *, at: int, actor: Actor) -> list[Envelope]:
        """Deliver command ``payload`` received at ``T0 + at`` ms; returns the decisions."""
        self._n += 1
        stream = stream_for(f"game-{payload.game_id}", "commands")
        self.seqs[stream] = seq = self.seqs.get(stream, 0) + 1
        cmd = envelope(payload, stream=stream, seq=seq, occurred_at=dt_of(T0 + at),
                       actor=actor, event_id=UUID(int=self._n))
        return self.decide(cmd)

    def tick(self, at: int) -> list[Envelope]:
        """The timer at ``T0 + at`` ms: the decisions on the CheckClock commands it publishes."""
        return [d for cmd in self.processor.due(T0 + at) for d in self.decide(cmd)]

    # ----------------------------------------------------------------------- conveniences
    def create(self, gid: str = "g1", *, at: int = 0, **kw) -> list[Envelope]:
        kw.setdefault("time_control", "300+2")
        return self.send(CreateGame(game_id=gid, white="alice", black="bob", **kw),
                         at=at, actor=ORGANISER)

    def move(self, who: str, mv: str, *, at: int, gid: str = "g1") -> list[Envelope]:
        return self.send(SubmitMove(game_id=gid, player_id=who, move=mv), at=at,
                         actor=PLAYERS[who])

    def play(self, moves: list[str], *, start: int = 1_000, step: int = 1_000,
             gid: str = "g1", first: str = "alice") -> list[Envelope]:
        """Alternate ``moves`` between the players (``first`` moves first), one every ``step``
        ms from ``start``; each must be accepted."""
        out = []
        who = first
        for i, mv in enumerate(moves):
            got = self.move(who, mv, at=start + i * step, gid=gid)
            assert of(got, MoveAccepted), f"{mv} not accepted: {got}"
            out += got
            who = "bob" if who == "alice" else "alice"
        return out

    def fen(self, gid: str = "g1") -> str:
        return self.validation.games[gid].pos.fen()


def of(msgs: list[Envelope], cls) -> list:
    """Payloads of type ``cls`` among ``msgs``."""
    return [m.payload for m in msgs if isinstance(m.payload, cls)]


def one(msgs: list[Envelope], cls):
    got = of(msgs, cls)
    assert len(got) == 1, f"expected one {cls.__name__}, got {[m.type for m in msgs]}"
    return got[0]


def art(r: Rule) -> tuple[str, str]:
    return (r.ruleset, r.article)


@pytest.fixture
def bus() -> Bus:
    return Bus()


# =================================================================================== validation
class TestValidation:
    def test_create_game_starts_record_and_clock(self, bus):
        got = bus.create(time_control="300+2")
        gs = one(got, GameStarted)
        assert (gs.white, gs.black, gs.start_fen) == ("alice", "bob", chess.STARTING_FEN)
        cs = one(got, ClockStarted)
        # 300 s + the 2 s increment for move 1 = 302 000 ms each; white's runs from T0.
        assert (cs.white_ms, cs.black_ms, cs.running) == (302_000, 302_000, "white")
        assert cs.deadline_ms == T0 + 302_000
        assert got[0].stream == "game-g1" and got[0].seq == 1
        assert got[1].stream == "game-g1.clock" and got[1].seq == 1

    def test_uci_and_san_accepted_incl_castling(self, bus):
        bus.create()
        got = bus.move("alice", "e2e4", at=1_000)
        ma = one(got, MoveAccepted)
        assert (ma.ply, ma.colour, ma.uci, ma.san) == (1, "white", "e2e4", "e4")
        assert ma.fen_after == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        got = bus.move("bob", "e5", at=2_000)
        assert (one(got, MoveAccepted).uci, one(got, MoveAccepted).san) == ("e7e5", "e5")
        got = bus.move("alice", "Nf3", at=3_000)
        assert one(got, MoveAccepted).uci == "g1f3"
        bus.play(["Nc6", "Bc4", "Bc5"], start=4_000, first="bob")
        ma = one(bus.move("alice", "O-O", at=7_000), MoveAccepted)
        assert (ma.uci, ma.san, ma.ply) == ("e1g1", "O-O", 7)
        assert bus.fen() == "r1bqk1nr/pppp1ppp/2n5/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4"

    def test_promotion_with_capture_and_check_san(self, bus):
        fen = "3qk3/4P3/8/8/8/8/8/4K3 w - - 0 1"
        bus.create(start_fen=fen)
        ma = one(bus.move("alice", "exd8=Q+", at=1_000), MoveAccepted)
        assert (ma.uci, ma.san) == ("e7d8q", "exd8=Q+")
        assert ma.fen_after == "3Qk3/8/8/8/8/8/8/4K3 b - - 0 1"
        # The same promotion in UCI from the same position.
        bus.create("g2", start_fen=fen)
        ma = one(bus.move("alice", "e7d8q", at=1_000, gid="g2"), MoveAccepted)
        assert ma.san == "exd8=Q+"

    def test_en_passant(self, bus):
        bus.create()
        bus.play(["e4", "a6", "e5", "d5"])
        ma = one(bus.move("alice", "exd6", at=5_000), MoveAccepted)
        assert (ma.uci, ma.san) == ("e5d6", "exd6")
        # The d5 pawn is gone: only the d6 (white) pawn is on the d-file in ranks 5-6.
        assert ma.fen_after == "rnbqkbnr/1pp1pppp/p2P4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3"
        assert ma.halfmove_clock == 0

    def test_custom_start_fen_black_to_move(self, bus):
        fen = "4k3/8/8/8/8/8/4P3/4K3 b - - 0 40"
        got = bus.create(start_fen=fen)
        assert one(got, GameStarted).start_fen == fen
        assert one(got, ClockStarted).running == "black"
        r = one(bus.move("alice", "e4", at=1_000), MoveRejected)
        assert r.code == "not-your-turn"
        ma = one(bus.move("bob", "Kd7", at=1_000), MoveAccepted)
        assert (ma.colour, ma.uci, ma.ply) == ("black", "e8d7", 1)

    def test_bad_start_fen_rejected(self, bus):
        got = bus.create(start_fen="8/8/8/8/8/8/8/8 w - - 0 1")
        r = one(got, GameCommandRejected)
        assert r.code == "invalid" and "bad start FEN" in r.reason
        assert "g1" not in bus.validation.games

    def test_start_fen_move_counters_are_bounded(self, bus):
        """A reviewer's find: a game started at move 99999999999999999999999 (xiangqi's FENs
        were bounded, chess's not)."""
        got = bus.create(start_fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 99999999999999999999999")
        r = one(got, GameCommandRejected)
        assert r.code == "invalid" and "move counters out of range" in r.reason
        assert "g1" not in bus.validation.games

    def test_rejection_codes_change_nothing(self, bus):
        bus.create()
        start = bus.fen()
        cases = [
            ("bob", "e7e5", "not-your-turn", "white's turn"),
            ("alice", "e2e5", "illegal", "not legal"),
            ("alice", "Ke2", "illegal", "not legal"),
            ("alice", "zz9", "malformed", "neither UCI nor SAN"),
            ("alice", "e7e5", "illegal", "not the mover's"),
            ("alice", "e3e4", "illegal", "no piece on e3"),
        ]
        for who, mv, code, why in cases:
            got = bus.move(who, mv, at=1_000)
            r = one(got, MoveRejected)
            assert (r.code, r.move, r.player_id) == (code, mv, who)
            assert why in r.reason, r.reason
            assert len(got) == 1  # nothing but the rejection: no clock reading, no result
            assert bus.fen() == start
        r = one(bus.move("mallory", "e4", at=1_000), MoveRejected)
        assert r.code == "not-a-player" and "mallory" in r.reason
        r = one(bus.move("alice", "e4", at=1_000, gid="nope"), MoveRejected)
        assert r.code == "no-such-game"
        assert bus.fen() == start
        assert bus.validation.games["g1"].pos.ply == 0

    def test_illegal_reason_leaves_king_in_check(self, bus):
        # The e2 bishop is pinned against the king by the e7 rook.
        fen = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1"
        bus.create(start_fen=fen)
        r = one(bus.move("alice", "e2d3", at=1_000), MoveRejected)
        assert r.code == "illegal"
        assert r.reason == "e2d3 is not legal in this position (it leaves the king in check)"
        assert one(bus.move("alice", "Bd3", at=1_000), MoveRejected).code == "illegal"
        assert bus.fen() == fen

    def test_game_over_rejects_moves(self, bus):
        bus.create()
        bus.play(["f3", "e5", "g4", "Qh4#"])
        r = one(bus.move("alice", "e4", at=9_000), MoveRejected)
        assert r.code == "game-over"
        r = one(bus.send(Resign(game_id="g1", player_id="alice"), at=9_000, actor=ALICE),
                GameCommandRejected)
        assert r.code == "game-over"

    def test_move_after_deadline_is_flag_fallen(self, bus):
        bus.create(time_control="60")  # 60 000 ms, no increment; deadline T0 + 60 000
        start = bus.fen()
        got = bus.move("alice", "e4", at=60_001)
        r = one(got, MoveRejected)
        assert r.code == "flag-fallen" and r.reason.startswith("received 1 ms after white's flag")
        assert art(r.rule) == ("FIDE-1994", "10.14")
        assert bus.fen() == start
        ff = one(got, FlagFell)
        assert (ff.colour, ff.deadline_ms, ff.observed_ms) == ("white", T0 + 60_000, T0 + 60_001)
        end = one(got, GameEnded)
        assert (end.result, end.reason, end.winner) == ("0-1", "timeout", "black")
        assert art(end.rule) == ("FIDE-1994", "10.14")

    def test_move_exactly_at_deadline_is_on_time(self, bus):
        bus.create(time_control="60")
        got = bus.move("alice", "e4", at=60_000)
        assert one(got, MoveAccepted).uci == "e2e4"
        cu = one(got, ClockUpdated)
        assert (cu.white_ms, cu.black_ms, cu.deadline_ms) == (0, 60_000, T0 + 120_000)

    def test_a_side_left_with_0_ms_cannot_move_in_the_same_millisecond(self, bus):
        # White moves exactly at its deadline (0 ms left, no increment); Black answers in the
        # same ms: White's clock starts with no time at all, its flag falls at once, dated then.
        bus.create(time_control="60")
        bus.move("alice", "e4", at=60_000)
        got = bus.move("bob", "e5", at=60_000)
        assert one(got, ClockUpdated).white_ms == 0
        ff = one(got, FlagFell)
        assert (ff.colour, ff.deadline_ms, ff.observed_ms) == ("white", T0 + 60_000, T0 + 60_000)
        assert (one(got, GameEnded).result, one(got, GameEnded).reason) == ("0-1", "timeout")
        assert one(bus.move("alice", "Nf3", at=60_000), MoveRejected).code == "game-over"


# ================================================================================= arbiter pause
class TestPause:
    def pause(self, bus, at, actor=ARBITER, cls=None):
        return bus.send((cls or PauseClock)(game_id="g1", reason="a player fell ill"), at=at,
                        actor=actor)

    def resume(self, bus, at, actor=ARBITER):
        return self.pause(bus, at, actor, ResumeClock)

    def test_pause_refuses_moves_and_flags_until_resumed(self, bus):
        bus.create(time_control="60")  # white's 60 s run from T0
        paused = one(self.pause(bus, 10_000), ClockPaused)
        assert (paused.running, paused.white_ms, paused.black_ms) == ("white", 50_000, 60_000)
        assert art(paused.rule) == ("FIDE-1994", "12.5") and paused.reason == "a player fell ill"
        assert one(bus.move("alice", "e4", at=11_000), MoveRejected).code == "clock-paused"
        assert bus.tick(600_000) == []  # the old deadline (T0 + 60 s) passed: no flag
        # Resumed at 10 min: 50 s left from then.
        resumed = one(self.resume(bus, 600_000), ClockResumed)
        assert (resumed.deadline_ms, resumed.paused_ms) == (T0 + 650_000, 590_000)
        cu = one(bus.move("alice", "e4", at=605_000), ClockUpdated)
        assert (cu.white_ms, cu.elapsed_ms) == (45_000, 15_000)  # 10 s + 5 s on the clock

    def test_refusals_change_nothing(self, bus):
        bus.create(time_control="60")
        r = one(self.pause(bus, 1_000, actor=ALICE), GameCommandRejected)
        assert (r.code, r.command_type) == ("invalid", "PauseClock") and "arbiter" in r.reason
        assert "not paused" in one(self.resume(bus, 2_000), GameCommandRejected).reason
        one(self.pause(bus, 3_000), ClockPaused)
        assert "already paused" in one(self.pause(bus, 4_000), GameCommandRejected).reason
        assert not of(bus.log, FlagFell) and bus.clock.games["g1"].state.paused_at == T0 + 3_000

    def test_a_pause_after_the_deadline_finds_the_flag_fallen(self, bus):
        bus.create(time_control="60")
        got = self.pause(bus, 60_001)
        ff = one(got, FlagFell)
        assert (ff.colour, ff.deadline_ms) == ("white", T0 + 60_000)
        assert one(got, GameEnded).result == "0-1"


# ================================================================================== adjudication
class TestAdjudication:
    def test_fools_mate(self, bus):
        bus.create()
        got = bus.play(["f3", "e5", "g4", "Qh4#"])
        ma = of(got, MoveAccepted)[-1]
        assert (ma.san, ma.status) == ("Qh4#", "checkmate")
        end = one(got, GameEnded)
        assert (end.result, end.reason, end.winner) == ("0-1", "checkmate", "black")
        assert art(end.rule) == ("FIDE-1994", "10.1")
        assert end.detail == "Qh4# mates"
        # The clock stops at the mate: white's clock was pressed last at 3 s, black's at 4 s.
        stop = one(got, ClockStopped)
        # white: 302 000 - 1 000 + 2 000 (Fischer before move 2) - 1 000 + 2 000 = 304 000
        # black: 302 000 - 1 000 + 2 000 - 1 000 + 2 000 = 304 000 (clock stopped at its press)
        assert (stop.white_ms, stop.black_ms) == (304_000, 304_000)

    @pytest.mark.parametrize("fen, move, status, article", [
        # White K h1, Q b6; black K a8 alone. After Kh2 black has no legal move and no check.
        ("k7/8/1Q6/8/8/8/8/7K w - - 0 1", "Kh2", "stalemate", ("FIDE-1994", "10.3")),
        # Kxd1 leaves pawns a4 c4 e4 g4 rammed by a5 c5 e5 g5 and two kings that cannot cross
        # (b4 d4 f4 h4 / b5 d5 f5 h5 attacked): no series of moves mates, a dead position.
        ("8/8/1k6/p1p1p1p1/P1P1P1P1/8/4K3/3n4 w - - 0 1", "Kxd1", "dead-position",
         ("FIDE-2023", "5.2.2")),
    ])
    def test_drawn_at_once(self, bus, fen, move, status, article):
        bus.create(start_fen=fen)
        got = bus.move("alice", move, at=1_000)
        assert one(got, MoveAccepted).status == status
        end = one(got, GameEnded)
        assert (end.result, end.reason, end.winner) == ("1/2-1/2", status, None)
        assert art(end.rule) == article

    def test_insufficient_material_king_bishop_v_king(self, bus):
        bus.create(start_fen="4k3/8/8/8/8/8/4n3/3BK3 w - - 0 1")
        got = bus.move("alice", "Kxe2", at=1_000)
        assert one(got, MoveAccepted).fen_after == "4k3/8/8/8/8/8/4K3/3B4 b - - 0 1"
        end = one(got, GameEnded)
        assert (end.result, end.reason) == ("1/2-1/2", "insufficient-material")
        assert art(end.rule) == ("FIDE-1994", "10.4")

    SHUFFLE = ["Nf3", "Nf6", "Ng1", "Ng8"]

    def test_fivefold_repetition_and_threefold_claims(self, bus):
        bus.create(time_control="900")  # 900 000 ms each, no increment
        # One shuffle: the start position stands for the 2nd time; white claims: incorrect.
        bus.play(self.SHUFFLE, start=1_000)  # plies at 1..4 s; white's clock runs from 4 s
        got = bus.send(ClaimDraw(game_id="g1", player_id="alice", reason="threefold"),
                       at=10_000, actor=ALICE)
        assert one(got, DrawClaimed).ply == 4
        rej = one(got, DrawClaimRejected)
        assert (rej.colour, rej.detail) == ("white", "position occurred 2 time(s)")
        assert art(rej.rule) == ("FIDE-1994", "10.13(2)")
        pen = one(got, PenaltyApplied)
        assert (pen.kind, pen.colour, pen.time_delta_ms) == ("time", "white", -300_000)
        assert art(pen.rule) == ("FIDE-1994", "10.13(2)")
        adj = one(got, ClockAdjusted)
        # white had 900 000 - 1 000 (ply 1) - 1 000 (ply 3) = 898 000 at the turn start;
        # the penalty takes exactly 300 000 of it.
        assert (adj.colour, adj.delta_ms, adj.white_ms, adj.black_ms) == (
            "white", -300_000, 598_000, 898_000)
        assert not of(got, GameEnded)
        # The deadline moved by exactly 300 000 ms: white's clock running since 4 s.
        assert bus.clock.next_deadline() == T0 + 4_000 + 598_000

        # A second shuffle: the start position for the 3rd time, white to move: valid (10.10).
        # (Play continues on a copy of the state so the fivefold case below can go on.)
        fork = copy.deepcopy(bus)
        fork.play(self.SHUFFLE, start=11_000)
        got = fork.send(ClaimDraw(game_id="g1", player_id="alice", reason="threefold"),
                        at=20_000, actor=ALICE)
        end = one(got, GameEnded)
        assert (end.result, end.reason) == ("1/2-1/2", "threefold")
        assert art(end.rule) == ("FIDE-1994", "10.10")
        assert "position occurred 3 time(s)" in end.detail

        # Without claims, the 5th occurrence ends the game automatically (FIDE 2023 9.6.1).
        got = bus.play(self.SHUFFLE * 3, start=11_000)
        accepted = of(got, MoveAccepted)
        assert [a.repetitions for a in accepted if a.ply % 4 == 0] == [3, 4, 5]
        assert accepted[-1].status == "fivefold-repetition" and accepted[-1].ply == 16
        end = one(got, GameEnded)
        assert (end.result, end.reason) == ("1/2-1/2", "fivefold-repetition")
        assert art(end.rule) == ("FIDE-2023", "9.6.1")
        assert len(of(bus.log, GameEnded)) == 1

    def test_threefold_claim_with_written_move(self, bus):
        bus.create(time_control="900")
        # One shuffle and Nf3 Nf6 Ng1: black to move; Ng8 would make the start position's 3rd
        # occurrence, so black may claim by writing Ng8 without playing it (1994 art. 10.10(1)).
        bus.play(self.SHUFFLE + self.SHUFFLE[:3])
        got = bus.send(ClaimDraw(game_id="g1", player_id="bob", reason="threefold", move="Ng8"),
                       at=10_000, actor=BOB)
        dc = one(got, DrawClaimed)
        assert (dc.move, dc.ply, dc.colour) == ("f6g8", 7, "black")
        end = one(got, GameEnded)
        assert (end.result, end.reason) == ("1/2-1/2", "threefold")
        assert art(end.rule) == ("FIDE-1994", "10.10")

    def test_claim_by_player_not_to_move_rejected(self, bus):
        bus.create()
        bus.play(self.SHUFFLE * 2)
        r = one(bus.send(ClaimDraw(game_id="g1", player_id="bob", reason="threefold"),
                         at=10_000, actor=BOB), GameCommandRejected)
        assert r.code == "not-your-turn"

    def test_fifty_move_claim(self, bus):
        # Halfmove clock 99; a quiet rook move makes it 100 = 50 moves by each side (10.12).
        bus.create(start_fen="4k3/8/8/8/8/8/8/R3K3 w - - 99 80")
        ma = one(bus.move("alice", "Ra2", at=1_000), MoveAccepted)
        assert (ma.halfmove_clock, ma.status) == (100, "ongoing")
        got = bus.send(ClaimDraw(game_id="g1", player_id="bob", reason="fifty-moves"),
                       at=2_000, actor=BOB)
        end = one(got, GameEnded)
        assert (end.result, end.reason) == ("1/2-1/2", "fifty-moves")
        assert art(end.rule) == ("FIDE-1994", "10.12")
        assert "100 half-moves" in end.detail

    def test_fifty_move_claim_too_early_rejected(self, bus):
        bus.create(start_fen="4k3/8/8/8/8/8/8/R3K3 w - - 98 80")
        bus.move("alice", "Ra2", at=1_000)
        got = bus.send(ClaimDraw(game_id="g1", player_id="bob", reason="fifty-moves"),
                       at=2_000, actor=BOB)
        assert one(got, DrawClaimRejected).detail == "99 half-moves without capture or pawn move"
        assert one(got, PenaltyApplied).time_delta_ms == -300_000
        assert not of(got, GameEnded)

    def test_seventyfive_moves_automatic(self, bus):
        bus.create(start_fen="4k3/8/8/8/8/8/8/R3K3 w - - 149 100")
        got = bus.move("alice", "Ra2", at=1_000)
        ma = one(got, MoveAccepted)
        assert (ma.halfmove_clock, ma.status) == (150, "seventyfive-moves")
        end = one(got, GameEnded)
        assert (end.result, end.reason) == ("1/2-1/2", "seventyfive-moves")
        assert art(end.rule) == ("FIDE-2023", "9.6.2")

    def test_resignation(self, bus):
        bus.create()
        bus.play(["e4"])
        got = bus.send(Resign(game_id="g1", player_id="bob"), at=5_000, actor=BOB)
        assert one(got, Resigned).colour == "black"
        end = one(got, GameEnded)
        assert (end.result, end.reason, end.winner) == ("1-0", "resignation", "white")
        assert art(end.rule) == ("FIDE-1994", "10.2")
        # black's clock ran from 1 s to 5 s: 302 000 - 4 000 = 298 000
        assert one(got, ClockStopped).black_ms == 298_000

    def test_draw_offer_accepted(self, bus):
        bus.create()
        bus.play(["e4"])
        off = one(bus.send(OfferDraw(game_id="g1", player_id="alice"), at=1_500, actor=ALICE),
                  DrawOffered)
        assert (off.colour, off.ply) == ("white", 1)
        r = one(bus.send(AcceptDraw(game_id="g1", player_id="alice"), at=1_600, actor=ALICE),
                GameCommandRejected)
        assert r.code == "no-draw-offer"  # one cannot accept one's own offer
        got = bus.send(AcceptDraw(game_id="g1", player_id="bob"), at=2_000, actor=BOB)
        assert one(got, DrawAgreed).colour == "black"
        end = one(got, GameEnded)
        assert (end.result, end.reason) == ("1/2-1/2", "agreement")
        assert art(end.rule) == ("FIDE-1994", "10.6")

    def test_draw_offer_declined_by_move(self, bus):
        bus.create()
        bus.play(["e4"])
        bus.send(OfferDraw(game_id="g1", player_id="alice"), at=1_500, actor=ALICE)
        r = one(bus.send(OfferDraw(game_id="g1", player_id="bob"), at=1_600, actor=BOB),
                GameCommandRejected)
        assert r.code == "draw-offer-pending"
        got = bus.move("bob", "e5", at=2_000)
        assert [m.type for m in got] == ["MoveAccepted", "DrawOfferDeclined", "ClockUpdated"]
        d = one(got, DrawOfferDeclined)
        assert (d.player_id, d.colour, d.by_move) == ("bob", "black", True)
        r = one(bus.send(AcceptDraw(game_id="g1", player_id="bob"), at=2_100, actor=BOB),
                GameCommandRejected)
        assert r.code == "no-draw-offer"

    def test_accept_without_offer_rejected(self, bus):
        bus.create()
        got = bus.send(AcceptDraw(game_id="g1", player_id="bob"), at=1_000, actor=BOB)
        r = one(got, GameCommandRejected)
        assert (r.code, r.command_type, r.player_id) == ("no-draw-offer", "AcceptDraw", "bob")
        assert not bus.validation.games["g1"].over

    def test_flag_against_bare_king_is_draw(self, bus):
        # White has K+Q, black a bare king; white's flag falls: black cannot mate -> draw.
        bus.create(start_fen="4k3/8/8/8/8/8/8/Q3K3 w - - 0 1", time_control="60")
        assert bus.tick(60_000) == []  # exactly at the deadline: not yet fallen
        assert bus.tick(60_500) == []  # within the clock's grace for moves in flight
        got = bus.tick(60_501)
        ff = one(got, FlagFell)
        assert (ff.colour, ff.deadline_ms, ff.observed_ms) == ("white", T0 + 60_000, T0 + 60_501)
        assert got[0].occurred_at == dt_of(T0 + 60_000)
        end = one(got, GameEnded)
        assert (end.result, end.reason) == ("1/2-1/2", "timeout-vs-insufficient-material")
        assert art(end.rule) == ("FIDE-2023", "6.9")

    def test_flag_when_no_series_of_moves_lets_the_opponent_mate_is_a_draw(self, bus):
        # White: Kg4 Bh3, pawns a4 b6 c5 e6; Black: Ka6, pawns a5 b7 c6 e7. White could mate
        # (Bf1), Black has no move unless White gives one and none does: White's flag -> draw.
        bus.create(start_fen="8/1p2p3/kPp1P3/p1P5/P5K1/7B/8/8 w - - 0 1", time_control="60")
        end = one(bus.tick(60_501), GameEnded)
        assert (end.result, end.reason) == ("1/2-1/2", "timeout-vs-no-mating-sequence")
        assert art(end.rule) == ("FIDE-2023", "6.9")

    @pytest.mark.parametrize("fen, result, reason", [
        ("8/8/4k3/8/2n5/3K4/8/Q7 w - - 0 1", "1/2-1/2", "timeout-vs-insufficient-material"),
        ("8/8/4k3/8/4P3/4K3/8/6n1 w - - 0 1", "0-1", "timeout"),  # K+P v K+N: a mate exists
    ])
    def test_flag_against_a_knight(self, bus, fen, result, reason):
        # White flags. A knight alone cannot mate a king and queen (python-chess's material
        # rule; 2023 art. 6.9: draw, where 1994 art. 10.14 would give Black the game); against a
        # king and pawn it can (White's pawn may box its own king in): White loses.
        bus.create(start_fen=fen, time_control="60")
        end = one(bus.tick(60_501), GameEnded)
        assert (end.result, end.reason) == (result, reason)

    def test_flag_against_queen_loses(self, bus):
        # Black (bare king) to move and flags; white has a queen: 1-0 on time (1994 art. 10.14).
        bus.create(start_fen="4k3/8/8/8/8/8/8/Q3K3 b - - 0 1", time_control="60")
        got = bus.tick(60_501)
        assert one(got, FlagFell).colour == "black"
        end = one(got, GameEnded)
        assert (end.result, end.reason, end.winner) == ("1-0", "timeout", "white")
        assert art(end.rule) == ("FIDE-1994", "10.14")

    def test_game_ends_once(self, bus):
        bus.create(time_control="60")
        bus.send(Resign(game_id="g1", player_id="alice"), at=1_000, actor=ALICE)
        assert bus.tick(70_000) == []  # the clock stopped at the resignation
        assert len(of(bus.log, GameEnded)) == 1


# ===================================================================================== penalties
class TestPenalties:
    def test_warning(self, bus):
        bus.create()
        got = bus.send(IssuePenalty(game_id="g1", player_id="bob", kind="warning",
                                    note="distracting the opponent"), at=1_000, actor=ARBITER)
        p = one(got, PenaltyApplied)
        assert (p.kind, p.colour, p.time_delta_ms) == ("warning", "black", 0)
        assert p.cause == "warning 1: distracting the opponent"
        assert art(p.rule) == ("FIDE-1994", "16.5")
        assert not of(got, ClockAdjusted)
        p = one(bus.send(IssuePenalty(game_id="g1", player_id="bob", kind="warning"),
                         at=2_000, actor=ARBITER), PenaltyApplied)
        assert p.cause == "warning 2"

    def test_time_penalty_and_bonus(self, bus):
        bus.create(time_control="300")
        bus.play(["e4", "e5"])  # white: 300 000 - 1 000 = 299 000; black: 300 000 - 1 000
        got = bus.send(IssuePenalty(game_id="g1", player_id="alice", kind="time-penalty",
                                    ms=60_000), at=2_500, actor=ARBITER)
        p = one(got, PenaltyApplied)
        assert (p.kind, p.colour, p.time_delta_ms) == ("time", "white", -60_000)
        adj = one(got, ClockAdjusted)
        assert (adj.colour, adj.white_ms, adj.black_ms) == ("white", 239_000, 299_000)
        # White's clock has run since 2 s: the deadline moves 60 s earlier.
        assert bus.clock.next_deadline() == T0 + 2_000 + 239_000
        # A bonus for the opponent of alice: black gets 30 s.
        got = bus.send(IssuePenalty(game_id="g1", player_id="alice", kind="time-bonus",
                                    ms=30_000), at=2_600, actor=ARBITER)
        p = one(got, PenaltyApplied)
        assert (p.kind, p.colour, p.time_delta_ms) == ("bonus", "white", 30_000)
        adj = one(got, ClockAdjusted)
        assert (adj.colour, adj.delta_ms, adj.white_ms, adj.black_ms) == (
            "black", 30_000, 239_000, 329_000)

    def test_only_an_arbiter_penalises(self, bus):
        bus.create()
        for actor in (BOB, ORGANISER):
            got = bus.send(IssuePenalty(game_id="g1", player_id="alice", kind="time-penalty",
                                        ms=60_000), at=1_000, actor=actor)
            r = one(got, GameCommandRejected)
            assert (r.code, r.command_type) == ("invalid", "IssuePenalty")
            assert got[0].stream == "game-g1.penalties"
            assert not of(got, PenaltyApplied) and not of(got, ClockAdjusted)
        r = one(bus.send(IssuePenalty(game_id="g1", player_id="alice", kind="time-penalty"),
                         at=1_000, actor=ARBITER), GameCommandRejected)
        assert r.code == "invalid" and "ms > 0" in r.reason
        r = one(bus.send(IssuePenalty(game_id="g1", player_id="mallory", kind="warning"),
                         at=1_000, actor=ARBITER), GameCommandRejected)
        assert r.code == "not-a-player"
        r = one(bus.send(IssuePenalty(game_id="zz", player_id="alice", kind="warning"),
                         at=1_000, actor=ARBITER), GameCommandRejected)
        assert r.code == "no-such-game"

    def test_loss_penalty_forfeits(self, bus):
        bus.create()
        got = bus.send(IssuePenalty(game_id="g1", player_id="alice", kind="loss", note="phone"),
                       at=1_000, actor=ARBITER)
        assert one(got, PenaltyApplied).kind == "forfeit"
        end = one(got, GameEnded)
        assert (end.result, end.reason, end.winner, end.detail) == ("0-1", "forfeit", "black", "phone")
        assert art(end.rule) == ("FIDE-1994", "16.5")

    def test_incorrect_claim_makes_flag_fall(self, bus):
        bus.create(time_control="240")  # 4 minutes: less than the 5-minute claim penalty
        got = bus.send(ClaimDraw(game_id="g1", player_id="alice", reason="threefold"),
                       at=10_000, actor=ALICE)
        assert one(got, DrawClaimRejected).detail == "position occurred 1 time(s)"
        assert one(got, PenaltyApplied).time_delta_ms == -300_000
        adj = one(got, ClockAdjusted)
        # 240 000 - 300 000 = -60 000; the 10 s since the start are charged too.
        assert adj.white_ms == -70_000 and adj.black_ms == 240_000
        ff = one(got, FlagFell)
        assert (ff.colour, ff.deadline_ms, ff.white_ms) == ("white", T0 + 10_000, 0)
        assert art(ff.rule) == ("FIDE-1994", "10.13(2)")
        end = one(got, GameEnded)
        assert (end.result, end.reason, end.winner) == ("0-1", "timeout", "black")
        assert art(end.rule) == ("FIDE-1994", "10.13(2)")
        assert one(bus.move("alice", "e4", at=11_000), MoveRejected).code == "game-over"

    def test_absence_before_default_time_rejected(self, bus):
        bus.create(time_control="5400", default_time_s=600)
        got = bus.send(ReportAbsence(game_id="g1", player_id="alice"), at=300_000, actor=ARBITER)
        r = one(got, GameCommandRejected)
        assert (r.code, r.reason) == ("invalid", "default time not reached: 300.0 s left")
        assert not of(got, GameEnded)

    def test_absence_after_default_time_forfeits(self, bus):
        bus.create(time_control="5400", default_time_s=600)
        bus.play(["e4"])  # alice is present; bob never comes
        got = bus.send(ReportAbsence(game_id="g1", player_id="bob"), at=600_000, actor=ARBITER)
        p = one(got, PenaltyApplied)
        assert (p.kind, p.colour, p.player_id) == ("forfeit", "black", "bob")
        assert art(p.rule) == ("FIDE-1994", "10.15")
        assert p.cause == "absent 600 s after the start (default time 600 s)"
        end = one(got, GameEnded)
        assert (end.result, end.reason, end.winner) == ("1-0", "forfeit", "white")
        assert art(end.rule) == ("FIDE-1994", "10.15")

    def test_absence_of_player_who_moved_rejected(self, bus):
        bus.create(time_control="5400", default_time_s=600)
        bus.play(["e4"])
        got = bus.send(ReportAbsence(game_id="g1", player_id="alice"), at=700_000, actor=ARBITER)
        r = one(got, GameCommandRejected)
        assert r.code == "invalid" and "already moved" in r.reason
        assert not of(got, GameEnded)


# ================================================================================== clock handler
class TestClockHandler:
    def _ev(self, payload, at: int, seq: int) -> Envelope:
        return envelope(payload, stream="game-c1", seq=seq, occurred_at=dt_of(T0 + at),
                        actor=Actor(kind="service", id="validation"))

    def _move(self, ply: int, colour: str, uci: str, at: int) -> Envelope:
        return self._ev(MoveAccepted(game_id="c1", ply=ply, player_id=colour, colour=colour,
                                     uci=uci, san=uci, fen_after=chess.STARTING_FEN), at, ply + 1)

    def _check(self, at: int, seq: int = 1) -> Envelope:
        """The timer's CheckClock received at ``T0 + at``."""
        return envelope(CheckClock(game_id="c1"), stream="game-c1.timer", seq=seq,
                        occurred_at=dt_of(T0 + at), actor=Actor(kind="service", id="clock"))

    def test_the_flag_is_decided_in_the_order_of_the_game_commands(self):
        """Invariant 2 with one ordered input: a move ordered before the timer's CheckClock is
        judged first by its receive time; a CheckClock past the deadline calls the flag, and a
        move ordered after it finds the game over, whatever its stamp: no move is accepted after
        a flag and no flag follows an accepted move."""
        bus = Bus()
        bus.create("c1", time_control="60")  # 60 s each, sudden death
        got = bus.move("alice", "e4", at=59_900, gid="c1")  # 100 ms left: accepted
        assert one(got, ClockUpdated).white_ms == 100
        assert bus.tick(59_900 + 60_000) == [] and bus.tick(59_900 + 60_500) == []  # grace
        # black's move received 50 ms before the deadline, ordered before the timer's command
        assert one(bus.move("bob", "e5", at=119_850, gid="c1"), MoveAccepted).ply == 2
        white_deadline = T0 + 119_850 + 100
        got = bus.tick(119_850 + 100 + 501)  # the timer asks; the CheckClock decides
        flag = one(got, FlagFell)
        assert (flag.colour, flag.deadline_ms, flag.observed_ms) == ("white", white_deadline,
                                                                       white_deadline + 501)
        assert one(got, GameEnded).result == "0-1"
        # white's move stamped before the deadline but ordered after the CheckClock: refused
        late = bus.move("alice", "Nf3", at=119_900, gid="c1")
        assert not of(late, MoveAccepted) and not of(late, FlagFell)
        assert "over" in one(late, MoveRejected).reason
        assert len(of(bus.log, GameEnded)) == 1 and len(of(bus.log, MoveAccepted)) == 2

    def test_a_move_received_after_the_deadline_is_refused_and_flags(self):
        bus = Bus()
        bus.create("c1", time_control="60")
        got = bus.move("alice", "e4", at=60_001, gid="c1")
        assert one(got, MoveRejected).code == "flag-fallen"
        flag = one(got, FlagFell)
        assert (flag.colour, flag.deadline_ms) == ("white", T0 + 60_000)
        assert one(got, GameEnded).result == "0-1"

    def test_fischer_readings_flag_and_stop(self):
        core = ClockCore()
        start = self._ev(GameStarted(game_id="c1", white="white", black="black",
                                     start_fen=chess.STARTING_FEN, time_control="300+2"), 0, 1)
        [e] = core.handle(start)
        assert e.stream == "game-c1.clock"
        # Start: 300 000 + 2 000 (increment credited before move 1) each; deadline T0 + 302 000.
        assert e.payload == ClockStarted(game_id="c1", time_control="300+2", white_ms=302_000,
                                         black_ms=302_000, running="white",
                                         deadline_ms=T0 + 302_000)
        # White moves at 5 s: 302 000 - 5 000 + 2 000 = 299 000; black runs from 5 s.
        [e] = core.handle(self._move(1, "white", "e2e4", 5_000))
        assert e.payload == ClockUpdated(game_id="c1", ply=1, mover="white", elapsed_ms=5_000,
                                         white_ms=299_000, black_ms=302_000, running="black",
                                         deadline_ms=T0 + 5_000 + 302_000)
        # Black moves at 12 s: 302 000 - 7 000 + 2 000 = 297 000; white runs from 12 s.
        [e] = core.handle(self._move(2, "black", "e7e5", 12_000))
        assert (e.payload.elapsed_ms, e.payload.white_ms, e.payload.black_ms) == (7_000, 299_000, 297_000)
        assert e.payload.deadline_ms == T0 + 12_000 + 299_000 == T0 + 311_000
        # White moves at 42.5 s: 299 000 - 30 500 + 2 000 = 270 500.
        [e] = core.handle(self._move(3, "white", "g1f3", 42_500))
        assert (e.payload.white_ms, e.payload.black_ms) == (270_500, 297_000)
        deadline = T0 + 42_500 + 297_000  # black's flag
        assert e.payload.deadline_ms == deadline == core.next_deadline()
        assert core.due(deadline + 500) == []  # grace for moves in flight (grace_ms = 500)
        assert core.due(deadline + 501) == [CheckClock(game_id="c1", deadline_ms=deadline)]
        assert core.due(deadline + 502) == []  # asked once; again after retry_ms (2 s)
        assert core.due(deadline + 2_502) == [CheckClock(game_id="c1", deadline_ms=deadline)]
        assert core.handle(self._check(deadline - T0)) == []  # at the deadline a move still counts
        [e] = core.handle(self._check(deadline - T0 + 750))
        assert e.at_ms == deadline
        assert e.payload == FlagFell(game_id="c1", colour="black", deadline_ms=deadline,
                                     observed_ms=deadline + 750, white_ms=270_500, black_ms=0,
                                     rule=Rule(ruleset="FIDE-1994", article="10.14",
                                               summary=e.payload.rule.summary))
        assert core.next_deadline() is None
        assert core.handle(self._check(deadline - T0 + 10_000, seq=2)) == []  # once

    def test_clock_stopped_on_game_ended(self):
        core = ClockCore()
        core.handle(self._ev(GameStarted(game_id="c1", white="w", black="b",
                                         start_fen=chess.STARTING_FEN, time_control="300+2"), 0, 1))
        core.handle(self._move(1, "white", "e2e4", 5_000))  # white 299 000; black runs from 5 s
        end = envelope(GameEnded(game_id="c1", result="1-0", reason="resignation",
                                 rule=Rule(ruleset="FIDE-1994", article="10.2"), winner="white"),
                       stream="game-c1.result", seq=1, occurred_at=dt_of(T0 + 25_000),
                       actor=Actor(kind="service", id="adjudication"))
        [e] = core.handle(end)
        # Black is charged the 20 s its clock ran (no increment for an unfinished move).
        assert e.payload == ClockStopped(game_id="c1", white_ms=299_000, black_ms=282_000)
        assert core.next_deadline() is None
        assert core.handle(self._move(2, "black", "e7e5", 26_000)) == []

    def test_untimed_game_has_no_clock(self):
        core = ClockCore()
        got = core.handle(self._ev(GameStarted(game_id="c1", white="w", black="b",
                                               start_fen=chess.STARTING_FEN, time_control="-"), 0, 1))
        assert got == [] and core.next_deadline() is None


def test_promotion_without_piece_says_so():
    from shared.rules.chess import MoveError, parse_move
    board = chess.Board("8/P6k/8/8/8/8/8/K7 w - - 0 1")
    for text, hint in (("a8", "a8=Q"), ("a7a8", "a7a8q")):
        with pytest.raises(MoveError) as e:
            parse_move(board, text)
        assert e.value.code == "illegal" and "needs a promotion piece" in e.value.reason and hint in e.value.reason
    assert parse_move(board, "a8=N").uci() == "a7a8n"
    with pytest.raises(MoveError, match="b8 is not legal"):
        parse_move(board, "b8")


# ===================================================================== finished games kept small
def test_a_finished_game_is_kept_compact_and_still_rules_the_same(bus):
    """Once a game ends, validation and adjudication keep its start position and moves in
    UCI instead of python-chess's stack of board states (Position.compact); a later command
    is refused as before, and the position comes back whole on use."""
    bus.create()
    got = bus.play(["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"])
    assert (one(got, GameEnded).result, one(got, GameEnded).reason) == ("1-0", "checkmate")
    for core in (bus.validation, bus.adjudication):
        pos = core.games["g1"].pos
        assert pos._board is None
        assert pos._moves == (chess.STARTING_FEN, "e2e4 e7e5 d1h5 b8c6 f1c4 g8f6 h5f7")
        # a snapshot keeps the list form that code from before compaction loads too
        assert pos.__getstate__()["_moves"] == (
            chess.STARTING_FEN, ["e2e4", "e7e5", "d1h5", "b8c6", "f1c4", "g8f6", "h5f7"])
        restored = pickle.loads(pickle.dumps(pos))  # a snapshot of it, loaded
        assert len(restored.board.move_stack) == 7 and restored.board.is_checkmate()
    refused = one(bus.move("bob", "Ke7", at=9_000), MoveRejected)
    assert refused.code == "game-over"
    # rebuilt on use: the mate position, with its whole history (repetition counts need it)
    assert bus.fen() == "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"
    assert len(bus.validation.games["g1"].pos.board.move_stack) == 7


def test_validation_keeps_a_board_in_play_adjudication_the_moves_until_it_reads_the_board(bus):
    """Validation reads its board at every move; adjudication only replays the moves until a
    claim or a flag reads the board, so it keeps them compact (no python-chess move stack)
    and builds the board, history included, when it is read."""
    bus.create()
    bus.play(["e4", "e5", "Nf3"])
    assert bus.validation.games["g1"].pos._board is not None
    pos = bus.adjudication.games["g1"].pos
    assert pos._board is None and pos._moves[1] == "e2e4 e7e5 g1f3" and pos.ply == 3
    assert [m.uci() for m in pos.board.move_stack] == ["e2e4", "e7e5", "g1f3"]
    assert pos.board.fen() == bus.validation.games["g1"].pos.fen()
    bus.play(["Nc6"], start=9_000, first="bob")
    assert pos._board is not None and pos.ply == 4  # read once: a board from then on


def test_the_timer_schedule_stays_the_size_of_the_event_not_of_its_moves(bus):
    """Each move replaces its game's flag deadline; the replaced ones are dropped from the
    clock's schedule once they outnumber the games (before, one entry per move stayed until
    its hour-long deadline came up)."""
    for k in range(100):
        bus.create(f"g{k}", time_control="3600+10")
        bus.play(["Nf3", "Nf6", "Ng1", "Ng8"], gid=f"g{k}")
    clock = bus.clock
    assert len(clock.deadlines) <= 2 * len(clock.games) + 64  # 5 pushes per game: 500 without
    standing = {(d, gid) for gid in clock.games for d in clock._deadlines(gid)}
    assert len(standing) == 100 and standing <= {(d, gid) for _, d, gid in clock.deadlines}
    # the timer still asks for each game's flag at its deadline (+ the grace)
    first = min(d for d, _ in standing)
    asked = bus.processor.due(first + clock.grace_ms + 1)
    assert [(c.payload.game_id, c.type) for c in asked] == [
        (gid, "CheckClock") for d, gid in sorted(standing) if d == first]


def test_dropping_replaced_deadlines_keeps_a_flag_already_asked_waiting_for_its_retry(bus):
    """A flag asked for (its CheckClock still on its way) is asked again only retry_ms later,
    even when the schedule drops the replaced deadlines of other games meanwhile."""
    bus.create("late", time_control="60+0")
    clock = bus.clock
    asked = bus.processor.due(T0 + 60_000 + clock.grace_ms + 1)
    assert [c.payload.game_id for c in asked] == ["late"]
    before = len(clock.deadlines)
    for k in range(40):  # 40 games x 8 moves: the schedule outgrows the games and is pruned
        bus.create(f"g{k}", at=60_000, time_control="3600+10")
        bus.play(["Nf3", "Nf6", "Ng1", "Ng8"] * 2, gid=f"g{k}", start=60_100, step=10)
    assert len(clock.deadlines) <= 2 * len(clock.games) + 64 < before + 40 * 9
    assert bus.processor.due(T0 + 60_000 + clock.grace_ms + 300) == []  # before the retry
    again = bus.processor.due(T0 + 60_000 + clock.grace_ms + 1 + clock.retry_ms + 1)
    assert [c.payload.game_id for c in again] == ["late"]
