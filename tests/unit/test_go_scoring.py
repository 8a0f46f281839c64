"""Go scoring (shared/rules/go_scoring.py): positions with the count worked out by hand.

Diagrams: top row first, X = black, O = white, . = empty.
"""
from __future__ import annotations

import pytest

from shared.rules.go import BLACK, WHITE, Board, GoError
from shared.rules.go_scoring import (
    benson_alive, chinese_stones_text, estimate_dead, komi_from_stones, score, seki_regions,
)
from tests.unit.test_go_rules import KO, board


def half_board_19() -> Board:
    # Black: stones on column J (19), territory A-H (8 x 19 = 152)... see the counts below.
    bl = [(8, y) for y in range(19)]
    wh = [(9, y) for y in range(19)]
    return Board(19, "chinese", setup_black=bl, setup_white=wh)


def test_chinese_area_count_baseline_and_stones():
    # Black: 19 stones on column J + 8 x 19 = 152 points A-H -> 171; White: 19 stones on K +
    # 9 x 19 = 171 points L-T -> 190.  171 + 190 = 361.  Baseline (归本数) 180.5 (1988 art. 9).
    # Komi 3¾ stones = 7.5 points: Black needs more than 180.5 + 3.75 = 184.25 stones.
    # Black 171 -> 184.25 - 171 = 13.25 stones short: 白胜13又1/4子 = W+26.5 points
    # (White 190 + 7.5 = 197.5, Black 171, 171 - 197.5 = -26.5).
    s = score(half_board_19(), "chinese")
    assert (s.black, s.white, s.result) == (171, 197.5, "W+26.5")
    assert s.detail["baseline"] == 180.5 and s.detail["black_needs_more_than"] == 184.25
    assert s.detail["margin_stones"] == -13.25 and s.detail["result_stones"] == "白胜13又1/4子"
    assert "Chinese rules 1988 art. 9" in s.rule
    # 1988 art. 11: 2¾ stones = 5.5 points: W+24.5 (190 + 5.5 - 171), 12¼ stones
    s88 = score(half_board_19(), "chinese", komi=komi_from_stones(2.75))
    assert s88.result == "W+24.5" and s88.detail["result_stones"] == "白胜12又1/4子"


def test_japanese_and_ing_on_the_same_board():
    # Japanese: territory only. Black 152, White 171 + 6.5 = 177.5 -> W+25.5.
    j = score(half_board_19(), "japanese")
    assert (j.black, j.white, j.result) == (152, 177.5, "W+25.5")
    # Ing: area 171 vs 190 + 8 = 198 -> W+27.
    i = score(half_board_19(), "ing")
    assert (i.black, i.white, i.result) == (171, 198, "W+27")


DAME = """
. X . O .
. X . O .
. X . O .
. X . O .
. X . O .
"""


def test_dame_shared_under_area_counting_nothing_under_territory():
    # 5x5, column C empty between the walls: 5 dame (单官).
    # Chinese: Black 5 stones + 5 territory + 5/2 = 12.5 = White; baseline 12.5: komi 0 -> Draw (和).
    b = board(DAME)
    s = score(b, "chinese", komi=0)
    assert (s.black, s.white, s.result) == (12.5, 12.5, "Draw")
    assert s.detail["dame"] == 5 and s.detail["result_stones"] == "和棋"
    assert s.ownership[(2, 0)] == "dame" and s.ownership[(0, 0)] == BLACK
    # Japanese: 5 vs 5, komi 6.5 -> W+6.5; the dame count for no one.
    assert score(b, "japanese").result == "W+6.5"


def test_playout_estimate_keeps_benson_alive_groups():
    # Two-eyed black group (Benson-alive) surrounded by White: never marked dead.
    two = board("""
    . X . X O
    X X X X O
    O O O O O
    . . . . .
    . . . . .
    """)
    from shared.rules.go_ownership import estimate_dead_by_playouts, estimate_ownership

    assert estimate_dead_by_playouts(two, playouts=50, seed=1).dead == frozenset()
    own = estimate_ownership(two, playouts=50, seed=1)
    assert own.black[(0, 4)] == 1.0 and own.owner((0, 4)) == BLACK  # A5, a real eye
    assert own.owner((4, 0)) == WHITE  # E1: White's in most games (Black sometimes lives there)


def test_playout_estimate_refuses_bad_input():
    from shared.rules.go_ownership import estimate_ownership

    with pytest.raises(GoError):
        estimate_ownership(board(DAME), playouts=0)
    with pytest.raises(GoError):
        estimate_ownership(board(DAME), to_move="red")
    with pytest.raises(GoError):
        estimate_dead(board(DAME), "guess")
