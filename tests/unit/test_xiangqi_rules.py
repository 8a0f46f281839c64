"""Xiangqi engine (shared.rules.xiangqi) against the 1999 rules art. 1-3, perft and Fairy-Stockfish.

Perft counts from the start position (44, 1 920, 79 666, 3 290 240) are the published values the
issue quotes; ../shared/data/xiangqi/perft/xiangqi-perft.tsv adds Fairy-Stockfish's second test
position. pyffish (Fairy-Stockfish, a test dependency only) is the independent implementation the
legal-move sets are compared with.
"""
from __future__ import annotations

import random

import pytest

from shared.rules.xiangqi import BLACK, RED, START_FEN, Board, Move, XiangqiError, square

pyffish = pytest.importorskip("pyffish")


def legal(fen: str) -> set[str]:
    return {m.iccs() for m in Board(fen).legal_moves()}


@pytest.mark.parametrize("depth,nodes", [(1, 44), (2, 1920), (3, 79666), (4, 3290240)])
def test_perft_start_position(depth, nodes):
    assert Board().perft(depth) == nodes


def test_perft_file(shared_data):
    rows = [line.rstrip("\n").split("\t") for line in
            shared_data("data/xiangqi/perft/xiangqi-perft.tsv").read_text(encoding="utf-8").splitlines()
            if line and not line.startswith("#")]
    assert len(rows) == 2
    for name, fen, depth, nodes in rows:
        assert Board(fen).perft(int(depth)) == int(nodes), name


def test_legal_moves_equal_fairy_stockfish_on_10000_random_positions():
    """Random play from the start (seeded): at every position our legal-move set equals
    Fairy-Stockfish's, both as sets of engine-UCI moves; positions include checks, pins, facing
    generals and ends of games."""
    rng = random.Random(20261129)
    positions = differences = checks = ends = 0
    while positions < 10_000:
        b = Board()
        for _ in range(150):
            fen = b.fen()
            ours = sorted(m.uci() for m in b.legal_moves())
            theirs = sorted(pyffish.legal_moves("xiangqi", fen, []))
            positions += 1
            checks += b.is_check()
            if ours != theirs:
                differences += 1
                print("differs:", fen, set(ours) ^ set(theirs))
            if not ours:
                ends += 1
                break
            b.push(rng.choice(b.legal_moves()))
    assert differences == 0
    assert checks > 100  # the sample is not trivially quiet


def test_horse_leg_elephant_eye_river_palace():
    """Art. 2.2: 马走日 blocked on its leg (蹩马腿), 相走田 blocked on its eye (塞象眼) and never
    across the river, general and advisors inside the palace."""
    assert {m for m in legal(START_FEN) if m.startswith("b0")} == {"b0a2", "b0c2"}
    free = "3k5/9/9/9/9/9/9/9/1N7/4K4 w - - 0 1"  # horse b1 alone
    assert {m for m in legal(free) if m.startswith("b1")} == {"b1a3", "b1c3", "b1d2", "b1d0"}
    leg_b2 = "3k5/9/9/9/9/9/9/1R7/1N7/4K4 w - - 0 1"  # chariot on the leg b2
    assert {m for m in legal(leg_b2) if m.startswith("b1")} == {"b1d2", "b1d0"}
    leg_c1 = "3k5/9/9/9/9/9/9/9/1NR6/4K4 w - - 0 1"  # chariot on the leg c1
    assert {m for m in legal(leg_c1) if m.startswith("b1")} == {"b1a3", "b1c3"}
    eye = "3k5/9/9/9/9/9/9/9/3N5/2B1K4 w - - 0 1"  # elephant c0, a horse on the eye d1
    assert {m for m in legal(eye) if m.startswith("c0")} == {"c0a2"}
    river = "3k5/9/9/9/9/2B6/9/9/9/4K4 w - - 0 1"  # elephant c4 on the river bank
    assert {m for m in legal(river) if m.startswith("c4")} == {"c4a2", "c4e2"}
    assert {m for m in legal("4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1") if m.startswith("d0")} == {"d0d1"}
    assert {m for m in legal("3k5/9/9/9/9/9/9/9/4A4/5K3 w - - 0 1") if m.startswith("e1")} == {
        "e1d2", "e1f2", "e1d0"}
    with pytest.raises(XiangqiError, match="cannot stand"):
        Board("3k5/9/9/9/9/9/9/9/2P6/4K4 w - - 0 1")  # a soldier behind its start rank


def test_cannon_screen_and_soldier():
    """Art. 2.2-2.3: the cannon moves like a chariot and captures over exactly one screen (炮打隔子);
    the soldier goes forward, and sideways once across the river, never back."""
    fen = "r2k5/9/9/9/p8/9/9/9/9/C3K4 w - - 0 1"  # cannon a0, screen a5, target a9
    cannon = {m for m in legal(fen) if m.startswith("a0")}
    assert "a0a9" in cannon and "a0a5" not in cannon and "a0a4" in cannon and "a0a6" not in cannon
    assert {"a0b0", "a0c0", "a0d0"} <= cannon and "a0e0" not in cannon
    assert {m for m in legal("4k4/9/9/9/9/9/P8/9/9/3K5 w - - 0 1") if m.startswith("a3")} == {"a3a4"}
    assert {m for m in legal("3k5/9/9/4P4/9/9/9/9/9/4K4 w - - 0 1") if m.startswith("e6")} == {
        "e6e7", "e6d6", "e6f6"}
    assert {m for m in legal("3k5/4P4/9/9/9/9/9/9/9/4K4 w - - 0 1") if m.startswith("e8")} == {
        "e8e9", "e8d8", "e8f8"}


def test_facing_generals_art_2_2():
    """Art. 2.2 / 4.1.2: the generals may never face each other on an open file."""
    fen = "4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1"
    assert "d0e0" not in legal(fen)
    assert "face" in Board(fen).why_illegal(Move.from_iccs("d0e0"))
    pinned = "4k4/9/9/9/4C4/9/9/9/9/4K4 w - - 0 1"  # the cannon screens the generals
    assert {m for m in legal(pinned) if m.startswith("e5")} == {
        "e5e6", "e5e7", "e5e8", "e5e4", "e5e3", "e5e2", "e5e1"}
    with pytest.raises(XiangqiError, match="check"):
        Board("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1")  # facing with red to move: black is 'in check'


def test_checkmate_and_stalemate_art_3():
    """Art. 3.1: check that cannot be answered is mate; art. 3.2 / 4.1.3: no legal move while
    not in check is 困毙 (stalemate), a loss for the stalemated side, unlike chess."""
    mate = Board("3k5/1R7/9/9/9/9/9/9/9/R3K4 w - - 0 1")
    m = Move.from_iccs("a0a9")
    assert mate.gives_check(m)
    mate.push(m)
    assert mate.is_checkmate() and not mate.is_stalemate()
    stale = Board("3k5/9/3P5/4R4/9/9/9/9/9/5K3 b - - 0 1")  # d8 by the soldier, e9 by the chariot
    assert not stale.is_check() and stale.legal_moves() == [] and stale.is_stalemate()


def test_fen_errors_are_specific():
    for fen, words in [("", "empty"), ("rnbakabnr/9/9 w", "10 ranks"),
                       (START_FEN.replace("RNBAKABNR", "RNBAKABNX"), "unknown piece"),
                       (START_FEN.replace("RNBAKABNR", "RNBAKABN"), "8 files"),
                       (START_FEN.replace(" w ", " x "), "side to move"),
                       (START_FEN.replace("RNBAKABNR", "RNBA1ABNR"), "exactly one general")]:
        with pytest.raises(XiangqiError, match=words):
            Board(fen)
    with pytest.raises(XiangqiError):
        Move.from_iccs("z9z9")
    assert Move.from_uci("h10g8") == Move(square("h9"), square("g7"))
    assert Move.from_iccs("h2e2").uci() == "h3e3"


def test_fen_round_trip_and_counters():
    b = Board()
    for iccs in ["h2e2", "h9g7", "e2e6", "g7e6"]:  # the cannon takes the centre soldier, horse retakes
        m = Move.from_iccs(iccs)
        assert b.is_legal(m), iccs
        b.push(m)
    assert b.halfmove_clock == 0 and b.fullmove == 3 and b.turn == RED
    assert Board(b.fen()).fen() == b.fen()
    assert b.captured(-1) == "C" and b.captured(-2) == "p"
    b.pop()
    assert b.turn == BLACK and b.piece_at(square("e6")) == "C"
