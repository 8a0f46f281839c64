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


SEKI = """
. X . O .
X X O O O
X X O O O
X X O O O
X X O O O
"""


def test_seki_with_one_eye_each_and_one_shared_liberty():
    # Black chain (9 stones) has the eye A5 and the shared liberty C5; White (13 stones) has the
    # eye E5 and C5.  Either side filling C5 leaves itself one liberty: seki (双活).
    b = board(SEKI)
    assert seki_regions(b) == [frozenset({(2, 4)})]
    # Chinese (art. 9): Black 9 + eye 1 + 1/2 = 10.5; White 13 + 1 + 1/2 = 14.5; komi 0 -> W+4.
    c = score(b, "chinese", komi=0)
    assert (c.black, c.white, c.result) == (10.5, 14.5, "W+4")
    assert c.ownership[(2, 4)] == "seki" and c.ownership[(0, 4)] == BLACK
    # Japanese (art. 8): the eyes of groups in seki are not territory: 0 vs 0 -> Draw; komi 6.5 -> W+6.5.
    j = score(b, "japanese", komi=0)
    assert (j.black, j.white, j.result) == (0, 0, "Draw")
    assert j.ownership[(0, 4)] == "seki" and j.ownership[(4, 4)] == "seki"
    assert score(b, "japanese").result == "W+6.5"


def test_ko_left_on_the_board():
    # KO diagram, Black takes at C3 (1 prisoner) and both stop.  B3 (empty, all black
    # neighbours), A5 and A1 are Black's: 3 points; White: D5 E5 E4 E3 E2 E1 D1 = 7.
    # Japanese: Black 3 + 1 prisoner = 4; White 7 -> W+3 (komi 0).
    # Chinese: Black 8 stones + 3 = 11; White 7 stones + 7 = 14 -> W+3 = 白胜1又1/2子.
    b = board(KO, "japanese")
    b.play("C3")
    b.play(None), b.play(None)
    j = score(b, "japanese", komi=0)
    assert (j.black, j.white, j.result) == (4, 7, "W+3")
    c = score(b, "chinese", komi=0)
    assert (c.black, c.white, c.detail["result_stones"]) == (11, 14, "白胜1又1/2子")


DEAD = """
. . . . . . .
. . . . . . .
X X X X X X X
O O O O O O O
. . . . X . .
. . . . . . .
. . . . . . .
"""


def test_dead_stones_join_the_prisoners():
    # 7x7, Black wall on row 5, White wall on row 4, a dead black stone E3 inside White's area.
    # Japanese: Black territory 14; White 21 points (E3 counts once emptied) + dead black 1 = 22.
    # Komi 0 -> W+8.  Chinese: Black 7 + 14 = 21; White 7 + 21 = 28 -> W+7.
    b = board(DEAD)
    j = score(b, "japanese", komi=0, dead=[(4, 2)])
    assert (j.black, j.white, j.result) == (14, 22, "W+8")
    assert j.detail["dead"] == {BLACK: 1, WHITE: 0} and j.ownership[(4, 2)] == WHITE
    c = score(b, "chinese", komi=0, dead=[(4, 2)])
    assert (c.black, c.white) == (21, 28)
    # the stone left alive: its area is shared (dame) and nobody has territory there.
    assert score(b, "japanese", komi=0).detail["territory"][WHITE] == 0
    with pytest.raises(GoError):
        score(b, "japanese", dead=[(0, 0)])  # no stone there


def test_handicap_game_chinese_compensation():
    # 19x19 board of the half-board test with 4 handicap stones' worth of compensation:
    # Chinese: White gets back half the handicap in stones = 4 points; komi 0 in handicap games.
    # Black 171, White 190 + 4 = 194 -> W+23.
    s = score(half_board_19(), "chinese", handicap=4)
    assert (s.black, s.white, s.result) == (171, 194, "W+23")
    assert s.detail["handicap_compensation"] == 4.0


def test_benson_two_eyes_alive_one_eye_not():
    # Two real eyes A5, C5: unconditionally alive.
    two = board("""
    . X . X O
    X X X X O
    O O O O O
    . . . . .
    . . . . .
    """)
    assert len(benson_alive(two, BLACK)) == 6 and benson_alive(two, WHITE) == set()
    # One eye only (C5 filled by Black): not unconditionally alive.
    one = board("""
    . X X X O
    X X X X O
    O O O O O
    . . . . .
    . . . . .
    """)
    assert benson_alive(one, BLACK) == set()


def test_chinese_stones_text():
    assert chinese_stones_text(2.75) == "黑胜2又3/4子"
    assert chinese_stones_text(-0.25) == "白胜1/4子"
    assert chinese_stones_text(0) == "和棋"


def test_bad_scoring_input():
    with pytest.raises(GoError):
        score(board(DAME), "tromp/taylor")  # SGF spelling: shared.rules.sgf reads it, not the scorer
    with pytest.raises(GoError):
        score(board(DAME), "chinese", komi="lots")
    with pytest.raises(GoError):
        score(board(DAME), "chinese", handicap=-1)


# ------------------------------------------------------------------ Monte-Carlo dead stones
def test_playout_estimate_finds_the_dead_stone_and_counts_it():
    # DEAD above: the lone black stone E3 inside White's area cannot make two eyes; in random
    # games it is captured and its point ends White's, so the estimate marks it dead, and the
    # count is the hand-worked W+8 (Japanese, komi 0).  Both walls stay alive.
    from shared.rules.go_ownership import estimate_dead_by_playouts

    b = board(DEAD)
    est = estimate_dead_by_playouts(b, playouts=100, seed=0)
    assert est.dead == {(4, 2)}
    row = [c for c in est.chains if c[1] == ((4, 2),)][0]
    # measured: White owns E3 at the end of 72 of the 100 games (Black sometimes lives there)
    assert row[0] == BLACK and row[2] == 0.72 and row[3] is True
    assert score(b, "japanese", komi=0, dead=est.dead).result == "W+8"
    assert estimate_dead(b, "playouts", playouts=100, seed=0) == {(4, 2)}
    # deterministic: the same seed gives the same shares
    assert estimate_dead_by_playouts(b, playouts=100, seed=0).chains == est.chains


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


# The tester's 9x9 positions (/tmp/brk5 t5, t3, t1).  Outer walls: Black column B (9 stones)
# with column A (9 points) its territory, White column H (9) with column J (9).  Inside, a
# White group (columns C-D ...) and a Black group (columns F-G ...) meet on column E.
SEKI_TWO_SHARED = """
. X O O . X X O .
. X O O O X X O .
. X O . O X X O .
. X O O O X X O .
. X O O X X X O .
. X O O X . X O .
. X O O X X X O .
. X O O X X X O .
. X O O . X X O .
"""


def test_seki_with_one_eye_each_and_two_shared_liberties():
    # inner White (20 stones) has the eye D7 and the liberties E9, E1; inner Black (21 stones)
    # the eye F4 and E9, E1.  Filling E9 leaves the filler 2 liberties (not self-atari), but
    # the filler of the last shared point has only its eye left and is taken: seki (双活).
    b = board(SEKI_TWO_SHARED)
    assert sorted(map(sorted, seki_regions(b))) == [[(4, 0)], [(4, 8)]]  # E1, E9
    # Japanese art. 8: eyes of stones in seki are no territory: Black A column 9, White J
    # column 9; komi 0 -> Draw (the tester's 10 / 10 counted the eyes D7 and F4)
    j = score(b, "japanese", komi=0)
    assert (j.black, j.white, j.detail["territory"]) == (9, 9, {BLACK: 9, WHITE: 9})
    assert j.ownership[(3, 6)] == "seki" and j.ownership[(5, 3)] == "seki"
    # Chinese art. 9: Black 30 stones + 9 (A) + eye F4 1 + 2/2 shared = 41; White 29 + 9 + 1
    # + 1 = 40, + 7.5 = 47.5 -> W+6.5; 41 + 40 = 81 points
    c = score(b, "chinese")
    assert (c.black, c.white, c.result) == (41, 47.5, "W+6.5")


def test_seki_with_one_shared_liberty_left_t3():
    b = board(SEKI_TWO_SHARED.strip()[:-17] + ". X O O X X X O .")  # E1 filled by Black
    assert seki_regions(b) == [frozenset({(4, 8)})]  # E9 only
    # Japanese: 9 / 9 (eyes in seki not counted); Chinese: Black 31 + 9 + 1 + 1/2 = 41.5;
    # White 29 + 9 + 1 + 1/2 = 39.5 + 7.5 = 47 -> W+5.5
    assert (score(b, "japanese", komi=0).black, score(b, "japanese", komi=0).white) == (9, 9)
    c = score(b, "chinese")
    assert (c.black, c.white, c.result) == (41.5, 47, "W+5.5")


def test_seki_without_eyes_and_three_shared_liberties_t1():
    # no eyes: inner White (C-D columns, E8-E6: 21 stones) and inner Black (F-G, E4-E2: 21)
    # share E9, E5, E1 and have no other liberty; the filler of the second-last is left in atari
    b = board("""
. X O O . X X O .
. X O O O X X O .
. X O O O X X O .
. X O O O X X O .
. X O O . X X O .
. X O O X X X O .
. X O O X X X O .
. X O O X X X O .
. X O O . X X O .
""")
    assert len(seki_regions(b)) == 3
    # Chinese: Black 30 + 9 + 3/2 = 40.5; White 30 + 9 + 1.5 = 40.5 + 7.5 = 48 -> W+7.5
    c = score(b, "chinese")
    assert (c.black, c.white, c.detail["seki_points"], c.detail["dame"]) == (40.5, 48, 3, 0)


def test_seki_cites_the_games_own_ruleset_and_each_article_once():
    b = board(SEKI_TWO_SHARED)
    j = score(b, "japanese")
    # territory (art. 8) and the count (art. 10) once each; no Chinese article in a Japanese count
    assert j.rule == "Japanese rules 1989 art. 7-1; Japanese rules 1989 art. 8; Japanese rules 1989 art. 10"
    assert "Ing rules art. 4" == score(b, "ing").rule
    assert "Chinese rules 1988 art. 21.2" in score(b, "chinese").rule
