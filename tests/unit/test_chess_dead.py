"""Dead positions and flag falls against a side that cannot mate (shared/rules/chess.py).

FIDE Laws 2023 art. 5.2.2: "The game is drawn when a position has arisen in which neither player
can checkmate the opponent's king with any series of legal moves ... a 'dead position'". Art.
6.9: a flag fall is a draw "if the position is such that the opponent cannot checkmate the
player's king by any possible series of legal moves". The 1994 Laws (art. 10.4) list only four
endings, art. 10.14 / 10.5 spare only a player whose opponent has a bare king. Each position
below is worked by hand in its comment; square colours: a1 dark, so a square is dark when its
file and rank indices (from 0) add up to an even number.
"""
from __future__ import annotations

import chess
import pytest

from shared.rules.chess import RULES, flag_draw, mate_possible, position_status

# White pawns a4 c4 e4 g4 rammed by a5 c5 e5 g5. The free squares of rank 4 (b4 d4 f4 h4) are
# attacked by Black's pawns, those of rank 5 (b5 d5 f5 h5) by White's: neither king can cross,
# nor stand next to an enemy pawn, so no capture ever; kings alone give no check: no mate.
KINGS_BEHIND_CHAIN = "8/8/1k6/p1p1p1p1/P1P1P1P1/8/4K3/8 w - - 0 1"
# White b4 d4 f4 h4 (dark squares) rammed by b5 d5 f5 h5 (light). The kings are shut out as
# above (a4 c4 e4 g4 / a5 c5 e5 g5 attacked). White's bishop on f2 is dark-squared: Black's
# pawns stand on light squares, and every dark square of rank 4 holds a White pawn, so the
# bishop never leaves ranks 1-3 and no diagonal from there reaches Black's king: no check.
DARK_BISHOP_BEHIND_CHAIN = "8/2k5/8/1p1p1p1p/1P1P1P1P/8/5B2/4K3 w - - 0 1"
# White: Kg4, Bh3, pawns a4 b6 c5 e6; Black: Ka6, pawns a5 b7 c6 e7. Black's king has no square
# (a7 and b5 attacked by b6 / a4, b6 defended by c5, a5 b7 its own pawns) and Black's pawns are
# blocked with nothing to take: Black has no move unless White gives one, and no White move
# does. Bf1 (or Be2, Bd3, Bc4) checks along f1-a6 with nothing to interpose: mate. Any other
# White move stalemates Black. So White can mate, Black never can.
ONLY_WHITE_CAN_MATE = "8/1p2p3/kPp1P3/p1P5/P5K1/7B/8/8 w - - 0 1"


@pytest.mark.parametrize("fen", [
    "8/8/4k3/8/8/3K4/8/8 w - - 0 1",  # K v K
    "8/8/4k3/8/8/3K4/8/6N1 b - - 0 1",  # K+N v K
    "8/8/4k3/8/8/3K4/8/5B2 b - - 0 1",  # K+B v K
    "8/8/4k3/3b4/8/3K4/8/5B2 w - - 0 1",  # K+B v K+B, f1 and d5 both light
])
def test_the_four_endings_of_1994_art_10_4_are_insufficient_material(fen):
    assert position_status(chess.Board(fen)) == "insufficient-material"
    assert (RULES["insufficient-material"].ruleset, RULES["insufficient-material"].article) == (
        "FIDE-1994", "10.4")


@pytest.mark.parametrize("fen", [
    # K+B+B v K, bishops f1 and d3 both light: a bishop attacks only its own colour, so the lone
    # king is checked only on a light square, and then its orthogonal neighbours (all dark) must
    # be covered by White's king alone, which cannot cover two of them without touching it.
    "4k3/8/8/8/8/3B4/8/4KB2 w - - 0 1",
    # K+B v K+B+B, all three light (f1, e4, d5): the same for either side.
    "4k3/8/8/3b4/4b3/8/8/4KB2 w - - 0 1",
])
def test_same_coloured_bishops_beyond_the_1994_list_are_a_dead_position(fen):
    assert position_status(chess.Board(fen)) == "dead-position"
    assert (RULES["dead-position"].ruleset, RULES["dead-position"].article) == ("FIDE-2023", "5.2.2")


@pytest.mark.parametrize("fen", [KINGS_BEHIND_CHAIN, DARK_BISHOP_BEHIND_CHAIN])
def test_locked_pawn_chains_are_a_dead_position(fen):
    board = chess.Board(fen)
    assert not board.is_insufficient_material()  # pawns on the board: material alone says no
    assert mate_possible(board) is False
    assert position_status(board) == "dead-position"


def test_a_king_that_can_reach_an_enemy_pawn_is_not_dead():
    # Pawns b4 d4 v b5 d5: White's king walks round by the e-h files (e5, f6 ... c6) and takes
    # b5 or d5; a pawn then runs through. The search stops at the reachable capture: undecided.
    board = chess.Board("8/4k3/8/1p1p4/1P1P4/8/8/4K3 w - - 0 1")
    assert mate_possible(board) is None
    assert position_status(board) == "ongoing"


def test_one_side_can_mate_the_other_cannot():
    board = chess.Board(ONLY_WHITE_CAN_MATE)
    assert mate_possible(board) is True  # Bf1 mates at once
    assert mate_possible(board, (chess.BLACK,)) is False
    assert position_status(board) == "ongoing"
    assert flag_draw(board, "white") == "no-mating-sequence"  # White flags: Black cannot mate


def test_opposite_coloured_bishops_are_not_dead():
    # K+B v K+B, f1 light, e5 dark. A mate exists: White Kb6, Be4; Black Ka8, Bb8 (dark): the
    # check on a8-h1 cannot be blocked by a dark bishop, a7 b7 are covered. No pawns: the search
    # does not run, undecided, and the game goes on.
    mated = chess.Board("kb6/8/1K6/8/4B3/8/8/8 b - - 0 1")
    assert mated.is_checkmate()
    board = chess.Board("8/8/4k3/4b3/8/3K4/8/5B2 w - - 0 1")
    assert mate_possible(board) is None
    assert position_status(board) == "ongoing"


def test_knight_against_a_lone_king_on_a_flag_is_a_draw_knight_against_a_pawn_is_not():
    # White (bare king) flags; Black has K+N: a knight cannot mate a lone king (2023 art. 6.9:
    # draw; 1994 art. 10.14 would give Black the game: White, not Black, has the bare king).
    lone = chess.Board("8/8/4k3/8/2n5/3K4/8/8 w - - 0 1")
    assert flag_draw(lone, "white") == "insufficient-material"
    # K+N v K+P: Black's own pawn can box its king in: White Kc2, Nb3; Black Ka1, Pa2 is mate
    # (b1 b2 covered by the king, a2 Black's pawn, nothing takes b3). Black flags: it loses.
    assert chess.Board("8/8/8/8/8/1N6/p1K5/k7 b - - 0 1").is_checkmate()
    pawn = chess.Board("8/8/4k3/4p3/8/3K4/8/6N1 b - - 0 1")
    assert flag_draw(pawn, "black") is None
    assert position_status(pawn) == "ongoing"


def test_a_flag_against_a_queen_loses():
    board = chess.Board("4k3/8/8/8/8/8/8/Q3K3 b - - 0 1")
    assert flag_draw(board, "black") is None
    assert flag_draw(board, "white") == "insufficient-material"  # bare king opposite


def test_the_search_is_bounded_and_skipped_when_material_makes_mate_possible():
    board = chess.Board(DARK_BISHOP_BEHIND_CHAIN)  # some 13 000 positions reachable
    assert mate_possible(board, max_nodes=1_000) is None  # the bound: undecided, not dead
    for fen in (chess.STARTING_FEN,  # a knight, rook or queen, or a free pawn: no search
                "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 8",
                "8/8/4k3/8/8/3K4/4P3/8 w - - 0 1"):
        assert mate_possible(chess.Board(fen), max_nodes=1) is None


def test_the_search_runs_on_the_first_move_and_after_captures_and_pawn_moves(monkeypatch):
    import shared.rules.chess as rules

    searched = []
    closure = rules._closure
    monkeypatch.setattr(rules, "_closure", lambda *a: searched.append(1) or closure(*a))
    board = chess.Board("8/8/1k6/p1p1p1p1/P1P1P1P1/8/4K3/3n4 w - - 7 40")
    board.push_san("Kxd1")  # the capture leaves KINGS_BEHIND_CHAIN's structure: dead
    assert position_status(board) == "dead-position" and len(searched) == 1
    board = chess.Board("8/4k3/8/1p1p4/1P1P4/8/8/4K3 w - - 7 40")  # not dead (see above)
    board.push_san("Kd2")  # the game's first move: searched
    assert position_status(board) == "ongoing" and len(searched) == 2
    board.push_san("Kd6")  # a king move later on: every position reachable now was before
    assert position_status(board) == "ongoing" and len(searched) == 2
