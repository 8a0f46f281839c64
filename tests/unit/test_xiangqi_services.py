"""Xiangqi through the game service cores (validation, clock, adjudication, penalties).

The same synchronous :class:`Bus` as the chess tests; alice has Red (the ``white`` seat, moves
first), bob Black. Articles are those of the 1999 competition rules (ruleset ``CXA-1999``).
"""
from __future__ import annotations

import pytest

from contracts.messages import (
    ClaimDraw, DrawClaimRejected, DrawOffered, FlagFell, GameCommandRejected, GameEnded, IssuePenalty,
    MoveAccepted, MoveRejected, OfferDraw, PenaltyApplied, RepetitionRuled, ReportAbsence, Resign,
    SubmitMove,
)
from services.clock.core import TimeControl
from shared.rules.xiangqi import Board, Move
from tests.unit.test_game_services import ARBITER, MIN, PLAYERS, S, Bus, of, one

X = "CXA-1999"


def xq(bus: Bus, fen: str | None = None, **kw):
    kw.setdefault("time_control", "xiangqi-6.1")
    return bus.create(game="xiangqi", start_fen=fen, **kw)


def iccs(uci_moves: str) -> list[str]:
    """Fairy-Stockfish coordinates (ranks 1-10) to ICCS (ranks 0-9)."""
    return [Move.from_uci(m).iccs() for m in uci_moves.split()]


def test_moves_in_three_notations_and_the_record():
    bus = Bus()
    started = xq(bus)
    assert started[0].payload.game == "xiangqi"
    got = bus.play(["炮二平五", "H8+7", "h0g2"])  # 1. 炮二平五 马８进７ 2. 马二进三
    acc = of(got, MoveAccepted)
    assert [a.uci for a in acc] == ["h2e2", "h9g7", "h0g2"]
    assert [a.san for a in acc] == ["炮二平五", "马８进７", "马二进三"]
    assert [a.wxf for a in acc] == ["C2=5", "H8+7", "H2+3"]
    assert acc[-1].fen_after.startswith("rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R b")


def test_illegal_and_facing_generals_refused_with_the_article():
    bus = Bus()
    xq(bus, "4k4/9/9/9/9/9/9/9/9/3K1R3 w - - 0 1")
    rej = one(bus.move("alice", "d0e0", at=1 * S), MoveRejected)
    assert rej.code == "illegal" and "face" in rej.reason
    assert (rej.rule.ruleset, rej.rule.article) == (X, "4.1.6")
    rej = one(bus.move("alice", "炮二平五", at=2 * S), MoveRejected)  # no cannon on the board
    assert rej.code == "illegal"
    assert bus.fen().startswith("4k4/9/9/9/9/9/9/9/9/3K1R3 w")


def test_engine_uci_moves_accepted_when_the_move_says_so():
    """pyffish / Fairy-Stockfish write xiangqi coordinates with ranks 1-10: h3e3 is 炮二平五
    (ICCS h2e2). With ``notation="uci"`` they are read so; the record stays ICCS."""
    bus = Bus()
    xq(bus)
    got = bus.send(SubmitMove(game_id="g1", player_id="alice", move="h3e3", notation="uci"),
                   at=1 * S, actor=PLAYERS["alice"])
    acc = one(got, MoveAccepted)
    assert (acc.uci, acc.san) == ("h2e2", "炮二平五")
    got = bus.send(SubmitMove(game_id="g1", player_id="bob", move="h10g8", notation="uci"),
                   at=2 * S, actor=PLAYERS["bob"])
    assert one(got, MoveAccepted).san == "马８进７"


def test_engine_uci_without_notation_is_refused_naming_uci():
    """Without ``notation`` coordinates are ICCS (ranks 0-9): g4g5 (UCI for 兵三进一, ICCS g3g4)
    has no piece on g4 in ICCS, and the refusal says it is a legal UCI move; a rank 10 can only
    be UCI and is refused as such. Nothing is played."""
    bus = Bus()
    xq(bus)
    rej = one(bus.move("alice", "g4g5", at=1 * S), MoveRejected)
    assert rej.code == "illegal" and "no piece on g4" in rej.reason
    assert "UCI" in rej.reason and "g3g4" in rej.reason
    bus.move("alice", "h2e2", at=2 * S)
    rej = one(bus.move("bob", "h10g8", at=3 * S), MoveRejected)
    assert rej.code == "malformed" and "UCI" in rej.reason
    rej = one(bus.move("bob", "a1a1", at=4 * S), MoveRejected)   # not a move in either reading
    assert "UCI" not in rej.reason
    assert bus.fen().startswith("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR b")


def test_notation_is_refused_for_other_games():
    bus = Bus()
    bus.create(game="chess")
    got = bus.send(SubmitMove(game_id="g1", player_id="alice", move="e2e4", notation="uci"),
                   at=1 * S, actor=PLAYERS["alice"])
    assert one(got, MoveRejected).code == "invalid"


def test_checkmate_loses_4_1_1():
    bus = Bus()
    xq(bus, "3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1")
    end = one(bus.move("alice", "a0a9", at=1 * S), GameEnded)
    assert (end.result, end.reason, end.winner) == ("1-0", "checkmate", "white")
    assert (end.rule.ruleset, end.rule.article) == (X, "4.1.1")


def test_stalemate_loses_4_1_3():
    """Unlike chess, the side without a legal move (困毙) loses."""
    bus = Bus()
    xq(bus, "3k5/9/3P5/R8/9/9/9/9/9/5K3 w - - 0 1")
    end = one(bus.move("alice", "a6e6", at=1 * S), GameEnded)
    assert (end.result, end.reason, end.rule.article) == ("1-0", "stalemate", "4.1.3")


def test_neither_side_can_win_is_a_draw_4_2_1():
    """The red elephant takes Black's last horse: general and elephant against general and
    elephant, neither side can ever mate (art. 4.2.1; Fairy-Stockfish's 'KB vs KB')."""
    bus = Bus()
    xq(bus, "3k5/9/4b4/9/9/9/9/n8/9/2B1K4 w - - 0 1")
    assert bus.validation.games["g1"].pos.can_win("black")  # the horse could still mate
    got = bus.move("alice", "c0a2", at=1 * S)
    assert one(got, MoveAccepted).status == "insufficient-material"
    end = one(got, GameEnded)
    assert (end.result, end.reason, end.rule.article) == ("1/2-1/2", "insufficient-material", "4.2.1")


def test_flag_loses_even_with_bare_general_4_1_4():
    """Art. 4.1.4: the set moves not made in the set time lose; xiangqi has no chess-style
    'opponent cannot mate' exception."""
    bus = Bus()
    xq(bus, "3k5/9/9/9/9/9/9/9/9/4K4 w - - 0 1".replace("4K4", "4K3R"), time_control="60")
    bus.move("alice", "i0i1", at=1 * S)
    flag = [p for p in of(bus.tick(62 * S), FlagFell)]
    assert flag and flag[0].colour == "black"
    assert (flag[0].rule.ruleset, flag[0].rule.article) == (X, "4.1.4")
    end = one(bus.log, GameEnded)
    assert (end.result, end.reason) == ("1-0", "timeout")


def test_mate_before_the_flag_stands_22_5():
    bus = Bus()
    xq(bus, "3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1", time_control="60")
    bus.move("alice", "a0a9", at=59 * S)  # received before red's deadline
    bus.tick(200 * S)
    ends = of(bus.log, GameEnded)
    assert len(ends) == 1 and ends[0].reason == "checkmate"
    assert not of(bus.log, FlagFell)


def test_draw_offers_follow_23_1():
    bus = Bus()
    xq(bus)
    r = one(bus.send(OfferDraw(game_id="g1", player_id="alice"), at=500, actor=ARBITER), GameCommandRejected)
    assert "after one's own move" in r.reason  # red has not moved yet
    bus.move("alice", "h2e2", at=1 * S)
    r = one(bus.send(OfferDraw(game_id="g1", player_id="bob"), at=1500, actor=ARBITER), GameCommandRejected)
    assert "after one's own move" in r.reason  # black to move: black's offer must follow its move
    assert one(bus.send(OfferDraw(game_id="g1", player_id="alice"), at=1600, actor=ARBITER), DrawOffered)
    bus.move("bob", "h9g7", at=2 * S)  # declines by moving (23.1)
    bus.move("alice", "h0g2", at=3 * S)
    r = one(bus.send(OfferDraw(game_id="g1", player_id="alice"), at=3500, actor=ARBITER), GameCommandRejected)
    assert "alternate" in r.reason  # red may not offer twice running
    bus.move("bob", "i9h9", at=4 * S)
    assert one(bus.send(OfferDraw(game_id="g1", player_id="bob"), at=4500, actor=ARBITER), DrawOffered)


def test_natural_limit_counts_at_most_10_checks_23_3():
    """Twelve red chariot checks and twelve black general moves, no capture: red's 12 moves
    count as 10 (art. 23.3: at most 10 of the claimant's checks)."""
    b = Board("3k5/9/9/9/9/9/9/9/9/R4K3 w - - 0 1")
    seq = ["a0a9", "d9d8"] + ["a9a8", "d8d9", "a8a9", "d9d8"] * 5 + ["a9a8", "d8d9"]
    for m in seq:
        mv = Move.from_iccs(m)
        assert b.is_legal(mv), m
        b.push(mv)
    assert b.natural_limit("red") == (12, 12, 10)
    assert b.natural_limit("black") == (12, 0, 12)


def test_natural_limit_claim_true_and_untrue_with_foul_and_5_minutes():
    bus = Bus()
    xq(bus, "3k5/9/9/9/9/9/9/9/4A4/R4K3 w - - 0 1", natural_limit_moves=3, time_control="600")
    bus.play(["e1d2", "d9e9", "d2e1", "e9d9"])  # 2 red moves, no capture
    got = bus.send(ClaimDraw(game_id="g1", player_id="alice", reason="natural-limit"), at=10 * S, actor=ARBITER)
    rej = one(got, DrawClaimRejected)
    assert "2 moves without a capture" in rej.detail and (rej.rule.article == "23.3")
    pens = of(got, PenaltyApplied)
    assert [(p.kind, p.time_delta_ms) for p in pens] == [("time", -5 * MIN), ("foul", 0)]
    assert pens[1].count == 1 and pens[1].rule.article == "9.1"
    bus.play(["e1d2"], start=11 * S, first="alice")
    bus.play(["d9e9"], start=12 * S, first="bob")
    got = bus.send(ClaimDraw(game_id="g1", player_id="alice", reason="natural-limit"), at=13 * S, actor=ARBITER)
    end = one(got, GameEnded)
    assert (end.result, end.reason, end.rule.article) == ("1/2-1/2", "natural-limit", "4.2.4")


def test_untrue_claim_that_passes_the_limit_loses():
    bus = Bus()
    xq(bus, "3k5/9/9/9/9/9/9/9/4A4/R4K3 w - - 0 1", time_control="240")  # 4 minutes each
    bus.play(["e1d2", "d9e9"])
    got = bus.send(ClaimDraw(game_id="g1", player_id="alice", reason="natural-limit"), at=3 * S, actor=ARBITER)
    assert of(got, FlagFell) and one(got, GameEnded).result == "0-1"


def test_three_fouls_lose_4_1_8_and_chess_has_no_fouls():
    bus = Bus()
    xq(bus)
    for i in (1, 2):
        got = bus.send(IssuePenalty(game_id="g1", player_id="bob", kind="foul", note="touch"), at=i * S, actor=ARBITER)
        assert one(got, PenaltyApplied).count == i and not of(got, GameEnded)
    got = bus.send(IssuePenalty(game_id="g1", player_id="bob", kind="foul", note="touch"), at=3 * S, actor=ARBITER)
    end = one(got, GameEnded)
    assert (end.result, end.reason, end.rule.article) == ("1-0", "forfeit", "4.1.8")
    chess_bus = Bus()
    chess_bus.create()
    r = one(chess_bus.send(IssuePenalty(game_id="g1", player_id="bob", kind="foul"), at=S, actor=ARBITER),
            GameCommandRejected)
    assert "xiangqi" in r.reason


def test_disqualification_and_absence_cite_the_xiangqi_articles():
    bus = Bus()
    xq(bus, default_time_s=900)
    end = one(bus.send(IssuePenalty(game_id="g1", player_id="alice", kind="loss"), at=S, actor=ARBITER), GameEnded)
    assert (end.result, end.rule.article) == ("0-1", "4.1.10")
    bus2 = Bus()
    xq(bus2, default_time_s=900)
    bus2.send(ReportAbsence(game_id="g1", player_id="alice"), at=901 * S, actor=ARBITER)
    end = one(bus2.log, GameEnded)
    assert (end.result, end.reason, end.rule.article) == ("0-1", "forfeit", "4.1.5")


def test_resignation_4_1_9():
    bus = Bus()
    xq(bus)
    end = one(bus.send(Resign(game_id="g1", player_id="bob"), at=S, actor=ARBITER), GameEnded)
    assert (end.result, end.rule.article) == ("1-0", "4.1.9")


def test_perpetual_check_loses_through_the_services_24_1():
    """Fairy-Stockfish case 1174 (perpetual check by soldier): black's soldier checks on every
    move, red's general only steps aside; at the third occurrence black loses (art. 24.1, 26.1)."""
    bus = Bus()
    xq(bus, "3k5/9/9/9/9/5p3/9/5p3/5K3/5C3 w - - 0 1")
    got = bus.play(iccs("f2e2 f3e3 e2f2 e3f3 f2e2 f3e3 e2f2 e3f3"))
    ruled = one(got, RepetitionRuled)
    assert ruled.verdict == "black-loses" and "24.1" in ruled.rule.article
    assert {m.classification for m in ruled.moves if m.side == "black"} == {"check"}
    end = one(got, GameEnded)
    assert (end.result, end.reason) == ("1-0", "perpetual-check")


def test_forbidden_chase_must_vary_then_loses_24_3():
    """Fairy-Stockfish case 1160 (direct chase by cannon): red's cannon chases the black chariot
    on every move, black's chariot only steps aside (idle). At the third occurrence the 1999
    rules say red must vary (24.3, 26.4); repeating the cycle once more loses."""
    bus = Bus()
    xq(bus, "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1")
    moves = iccs("c3a3 a8b8 a3b3 b8a8 b3a3 a8b8 a3b3 b8a8 b3a3")
    got = bus.play(moves)
    ruled = one(got, RepetitionRuled)
    assert (ruled.verdict, ruled.must_vary) == ("must-vary", "white")
    assert {m.classification for m in ruled.moves if m.side == "white"} == {"chase"}
    assert not of(got, GameEnded)
    got = bus.play(iccs("a8b8 a3b3 b8a8 b3a3"), start=20 * S, first="bob")
    end = one(got, GameEnded)
    assert (end.result, end.reason, end.winner) == ("0-1", "forbidden-repetition", "black")


def test_repetition_ruling_names_the_article_of_each_move_29_2():
    """图七's pattern (the black chariot follows the red cannon from file to file while the red
    chariot keeps its threat on the elephant e7): every black move is a new chase (art. 28.3, 29),
    every red move idle by art. 29.2 (从捉到捉); the event says so move by move."""
    bus = Bus()
    xq(bus, "4k4/1r7/4b2R1/9/9/9/9/9/9/1C1K5 w - - 0 1")
    got = bus.play(["b0a0", "b8a8", "a0b0", "a8b8"] * 2)  # the start position a third time
    ruled = one(got, RepetitionRuled)
    assert (ruled.verdict, ruled.must_vary) == ("must-vary", "black")
    assert {(m.side, m.classification, m.article) for m in ruled.moves} == {
        ("black", "chase", "28.3, 29"), ("white", "idle", "29.2")}


@pytest.mark.parametrize("preset,periods", [
    ("xiangqi-6.1", [(40, 90 * MIN), (10, 15 * MIN)]),
    ("xiangqi-6.2", [(30, 60 * MIN), (10, 10 * MIN)]),
    ("xiangqi-6.3", [(40, 10 * MIN), (30, 5 * MIN)]),
    ("xiangqi-6.4", [(30, 5 * MIN)]),
    ("xiangqi-6.5-60", [(None, 60 * MIN)]),
])
def test_art_6_presets(preset, periods):
    tc = TimeControl.parse(preset)
    assert [(p.moves, p.base_ms) for p in tc.periods] == periods
    assert all(p.increment_ms == 0 for p in tc.periods)


def test_on_request_rulings_wait_for_a_player_24():
    """Over-the-board practice (art. 24 待判局面): with ``on-request`` rulings the game goes on
    past the third occurrence until a player asks; either player may ask, and asking before
    the third occurrence is refused without penalty."""
    bus = Bus()
    xq(bus, "3k5/9/9/9/9/5p3/9/5p3/5K3/5C3 w - - 0 1", repetition_rulings="on-request")
    moves = iccs("f2e2 f3e3 e2f2 e3f3 f2e2 f3e3 e2f2 e3f3")
    got = bus.play(moves[:4])
    early = bus.send(ClaimDraw(game_id="g1", player_id="alice", reason="repetition"), at=20 * S, actor=ARBITER)
    assert "2 time(s)" in one(early, DrawClaimRejected).detail and not of(early, PenaltyApplied)
    got = bus.play(moves[4:], start=21 * S)
    assert not of(got, RepetitionRuled) and not of(got, GameEnded)  # nobody asked yet
    asked = bus.send(ClaimDraw(game_id="g1", player_id="bob", reason="repetition"), at=40 * S, actor=ARBITER)
    assert one(asked, RepetitionRuled).verdict == "black-loses"  # the asker may lose (24.1)
    assert one(asked, GameEnded).result == "1-0"


def test_on_request_must_vary_then_repeating_loses_automatically_24_3():
    bus = Bus()
    xq(bus, "2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1",
       repetition_rulings="on-request")
    bus.play(iccs("c3a3 a8b8 a3b3 b8a8 b3a3 a8b8 a3b3 b8a8 b3a3"))
    asked = bus.send(ClaimDraw(game_id="g1", player_id="bob", reason="repetition"), at=20 * S, actor=ARBITER)
    assert (one(asked, RepetitionRuled).must_vary, of(asked, GameEnded)) == ("white", [])
    got = bus.play(iccs("a8b8 a3b3 b8a8 b3a3"), start=21 * S, first="bob")
    assert one(got, GameEnded).reason == "forbidden-repetition"


def test_both_absent_forfeit_both_21_3():
    bus = Bus()
    xq(bus, default_time_s=900)
    got = bus.send(ReportAbsence(game_id="g1", player_id="alice", both=True), at=901 * S, actor=ARBITER)
    assert one(got, PenaltyApplied).kind == "double-forfeit"
    end = one(got, GameEnded)
    assert (end.result, end.reason, end.winner, end.rule.article) == ("0-0", "double-forfeit", None, "21.3")
    bus2 = Bus()
    xq(bus2, default_time_s=900)
    bus2.move("alice", "h2e2", at=S)
    r = one(bus2.send(ReportAbsence(game_id="g1", player_id="bob", both=True), at=901 * S, actor=ARBITER),
            GameCommandRejected)
    assert "a move has been made" in r.reason and not of(bus2.log, GameEnded)


@pytest.mark.parametrize("text", ["foo", "Nf3", "💩", "h2e2 h9g7", "C2.0", "h2", "\u0000h2e2", "x" * 16])
def test_text_that_is_no_move_is_rejected_as_malformed(text):
    bus = Bus()
    xq(bus)
    rej = one(bus.move("alice", text, at=S), MoveRejected)
    assert rej.code == "malformed"
    assert bus.validation.games["g1"].pos.ply == 0


def test_natural_limit_counts_the_start_positions_counter():
    """A game set up from a FEN whose counter says 119 plies without a capture, Red to move:
    Black made the last of them, so Black has 60 moves and Red 59 (art. 4.2.4). Either player
    may claim (23.3 names no turn): Red's claim fails until Red has moved once more."""
    bus = Bus()
    xq(bus, "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 119 80", time_control="3600")
    got = bus.send(ClaimDraw(game_id="g1", player_id="alice", reason="natural-limit"), at=S, actor=ARBITER)
    assert "59 moves" in one(got, DrawClaimRejected).detail
    bus.play(["a1a2"], start=2 * S)
    end = one(bus.send(ClaimDraw(game_id="g1", player_id="alice", reason="natural-limit"), at=3 * S,
                       actor=ARBITER), GameEnded)
    assert (end.result, end.rule.article) == ("1/2-1/2", "4.2.4")
    bus2 = Bus()
    xq(bus2, "3k5/9/9/9/9/9/9/9/R8/4K4 w - - 119 80")
    got = bus2.send(ClaimDraw(game_id="g1", player_id="bob", reason="natural-limit"), at=S, actor=ARBITER)
    assert one(got, GameEnded).reason == "natural-limit"  # Black, not to move, has its 60


def test_no_move_is_taken_while_a_ruling_is_due():
    """On Kafka adjudication may lag: once a move brings a position back a third time, validation
    takes no further move until adjudication's ruling (which may end the game) is on the log."""
    from contracts.envelope import Actor, dt_of
    from contracts.messages import CreateGame, SubmitMove, envelope
    from services.validation.core import ValidationCore

    v = ValidationCore()

    def send(payload, n):
        return v.handle(envelope(payload, stream="game-g1.commands", seq=n, occurred_at=dt_of(1000 * n),
                                 actor=Actor(kind="player", id="x")))
    send(CreateGame(game_id="g1", white="alice", black="bob", game="xiangqi",
                    start_fen="3k5/9/9/9/9/5p3/9/5p3/5K3/5C3 w - - 0 1"), 1)
    for i, mv in enumerate(iccs("f2e2 f3e3 e2f2 e3f3 f2e2 f3e3 e2f2 e3f3"), start=2):
        out = send(SubmitMove(game_id="g1", player_id="alice" if i % 2 == 0 else "bob", move=mv), i)
        assert isinstance(out[0].payload, MoveAccepted)
    out = send(SubmitMove(game_id="g1", player_id="alice", move="e0e1"), 10)  # any move
    assert out[0].payload.code == "ruling-pending"
