"""Go rules engine (shared/rules/go.py): one position per article, worked by hand.

Diagrams: top row first, X = black, O = white, . = empty; point (column, row) with row 0 at the
bottom (GTP row 1).
"""
from __future__ import annotations

import pytest

from contracts.messages import Rule
from shared.rules.go import (
    BLACK, RULES, RULESETS, SPECS, WHITE, Board, GoError, IllegalMove, endless_cycle, handicap_points,
    parse_point,
    rule_for, to_gtp, to_sgf,
)


def board(diagram: str, rules: str = "chinese", turn: str = BLACK) -> Board:
    rows = [r.replace(" ", "") for r in diagram.strip().splitlines()]
    n = len(rows)
    bl = [(x, n - 1 - y) for y, r in enumerate(rows) for x, c in enumerate(r) if c == "X"]
    wh = [(x, n - 1 - y) for y, r in enumerate(rows) for x, c in enumerate(r) if c == "O"]
    return Board(n, rules, setup_black=bl, setup_white=wh, turn=turn)


# The ko shape used below (5x5): Black at C3 takes the white stone B3, which had one liberty.
KO = """
. X O . .
X X O O .
X O . O .
X X O O .
. X O . .
"""


# ------------------------------------------------------------------------- coordinates
def test_parse_point_gtp_sgf_and_pass():
    assert parse_point("D4", 19) == (3, 3)
    assert parse_point("q16", 19) == (15, 15)
    assert parse_point("J1", 19) == (8, 0)            # no letter I: J is the 9th column
    assert parse_point("dd", 19) == (3, 15)           # SGF rows count from the top: d = 4th row from top
    assert parse_point("aa", 9) == (0, 8)
    assert parse_point("pass", 19) is None
    assert parse_point("", 19) is None
    assert parse_point("tt", 19) is None              # FF[3] pass on boards up to 19x19
    assert to_gtp((15, 15), 19) == "Q16" and to_sgf((15, 15), 19) == "pd"
    assert to_gtp(None, 9) == "pass" and to_sgf(None, 9) == ""


@pytest.mark.parametrize("text,size,reason", [
    ("I5", 19, "malformed"), ("Z1", 19, "off-board"), ("D20", 19, "off-board"), ("jj", 9, "off-board"),
    ("hello", 19, "malformed"), ("D4D", 19, "malformed"), ("A0", 19, "off-board"),
])
def test_parse_point_refusals(text, size, reason):
    with pytest.raises(IllegalMove) as e:
        parse_point(text, size)
    assert e.value.reason == reason


# ------------------------------------------------------------------------- handicap
def test_handicap_points_standard_placement():
    gtp = lambda n, k: [to_gtp(p, n) for p in handicap_points(n, k)]  # noqa: E731
    assert gtp(19, 2) == ["D4", "Q16"]
    assert gtp(19, 3) == ["D4", "Q16", "Q4"]
    assert gtp(19, 4) == ["D4", "Q16", "Q4", "D16"]
    assert gtp(19, 5) == ["D4", "Q16", "Q4", "D16", "K10"]
    assert gtp(19, 6) == ["D4", "Q16", "Q4", "D16", "D10", "Q10"]
    assert sorted(gtp(19, 9)) == sorted(["D4", "Q16", "Q4", "D16", "D10", "Q10", "K4", "K16", "K10"])
    assert gtp(13, 4) == ["D4", "K10", "K4", "D10"]  # 4th line on 13x13
    assert gtp(9, 5) == ["C3", "G7", "G3", "C7", "E5"]  # 3rd line on 9x9
    assert handicap_points(19, 1) == [] and handicap_points(19, 0) == []
    with pytest.raises(GoError):
        handicap_points(19, 10)
    with pytest.raises(GoError):
        handicap_points(10, 5)  # even board: no centre point


def test_handicap_game_white_moves_first():
    b = Board(19, "chinese", setup_black=handicap_points(19, 4), turn=WHITE)
    assert b.turn == WHITE and len(b.stones) == 4
    err = b.legality((16, 16), BLACK)
    assert err.reason == "wrong-turn" and err.article == "Chinese rules 1988 art. 17.1"
    b.play("R17")
    assert b.turn == BLACK and b.stones[(16, 16)] == WHITE


# ------------------------------------------------------------------------- captures
def test_single_capture_counts_a_prisoner():
    # 5x5: white C3 surrounded on three sides; Black D3 takes its last liberty (art. 4.1).
    b = board("""
    . . . . .
    . . X . .
    . X O . .
    . . X . .
    . . . . .
    """)
    played = b.play("D3")
    assert played.captured == ((2, 2),)
    assert b[(2, 2)] is None and b.prisoners == {BLACK: 1, WHITE: 0}


def test_capture_first_when_both_sides_are_left_without_liberties():
    # 1988 art. 4.2: Black C3 has no liberty of its own (B3, D3, C4, C2 are white), and
    # takes the white stone B3 (its liberties A3/B4/B2 are black): the white stone goes, Black stays.
    b = board(KO)
    played = b.play("C3")
    assert played.captured == ((1, 2),)
    assert b[(2, 2)] == BLACK and b.liberties((2, 2)) == frozenset({(1, 2)})


def test_group_capture_and_liberties():
    # two white stones B1-C1 on the edge, liberties A1 D1 B2 C2 minus the black ones
    b = board("""
    . . . . .
    . . . . .
    . . . . .
    . X X . .
    X O O . .
    """)
    assert b.liberties((1, 0)) == frozenset({(3, 0)})
    assert b.group((1, 0)).stones == frozenset({(1, 0), (2, 0)})
    played = b.play("D1")
    assert sorted(played.captured) == [(1, 0), (2, 0)] and b.prisoners[BLACK] == 2


# ------------------------------------------------------------------------- suicide
SUICIDE = """
. . . . .
. . . . .
O . . . .
X O . . .
. X O . .
"""


@pytest.mark.parametrize("rules,article", [("chinese", "Chinese rules 1988 art. 5"),
                                           ("japanese", "Japanese rules 1989 art. 4")])
def test_suicide_is_forbidden_under_chinese_and_japanese_rules(rules, article):
    # Black A1 would join A2 and B1 into a 3-stone chain with no liberty (A3, B2, C1 are white)
    # and capture nothing: a forbidden point (禁着点).  Board unchanged.
    b = board(SUICIDE, rules)
    before = b.to_text()
    with pytest.raises(IllegalMove) as e:
        b.play("A1")
    assert e.value.reason == "suicide" and e.value.article == article
    assert b.to_text() == before and b.ply == 0


def test_ing_multi_stone_suicide_is_a_move_single_stone_is_not():
    b = board(SUICIDE, "ing")
    played = b.play("A1")
    # the three black stones A1 A2 B1 are taken off and count for White
    assert sorted(played.captured) == [(0, 0), (0, 1), (1, 0)]
    assert b.prisoners == {BLACK: 0, WHITE: 3} and b[(0, 0)] is None
    # a single-stone suicide stays refused: White E? no - Black into the eye B? Build one:
    single = board("""
    . . . . .
    . . . . .
    . . . . .
    O . . . .
    . O . . .
    """, "ing")
    with pytest.raises(IllegalMove) as e:
        single.play("A1")
    assert e.value.reason == "suicide" and e.value.article == "Ing rules art. 2"


# ------------------------------------------------------------------------- ko and superko
@pytest.mark.parametrize("rules,article", [("japanese", "Japanese rules 1989 art. 6"),
                                           ("chinese", "Chinese rules 1988 art. 20.1"),
                                           ("ing", "Ing rules art. 3")])
def test_immediate_ko_recapture_is_refused(rules, article):
    b = board(KO, rules)
    b.play("C3")
    assert b.ko_point == (1, 2)
    with pytest.raises(IllegalMove) as e:
        b.play("B3")
    assert e.value.reason == "ko" and e.value.article == article
    b.play("E5")            # a ko threat elsewhere
    b.play("E1")            # answered
    assert b.legality((1, 2)) is None   # now White may retake
    b.play("B3")
    assert b[(2, 2)] is None and b.prisoners == {BLACK: 1, WHITE: 1}


def test_positional_superko_chinese_only():
    # Black takes the ko, both pass (the simple-ko ban ends with the next move), White retakes:
    # the board would be exactly the start position again.  Chinese rules (art. 6, 禁止全局同形)
    # refuse it; Japanese rules (simple ko only) allow it.
    for rules, expected in (("chinese", "superko"), ("japanese", None)):
        b = board(KO, rules)
        start = b.zobrist()
        b.play("C3")
        b.play(None)  # White passes
        b.play(None)  # Black passes
        err = b.legality((1, 2))
        if expected is None:
            assert err is None
            b.play("B3")
            assert b.zobrist() == start
        else:
            assert err.reason == "superko" and err.article == "Chinese rules 1988 art. 6"


def test_endless_cycle_for_the_arbiter():
    # Japanese rules: the ko taken back and forth with passes between (no superko) repeats the
    # same position with the same player to move; the helper reports it (1988 art. 20.3 /
    # Japanese art. 12: draw / no result).
    b = board(KO, "japanese")
    for _ in range(3):
        b.play("C3"); b.play(None); b.play(None)          # noqa: E702
        b.play("B3"); b.play(None); b.play(None)          # noqa: E702
    cyc = endless_cycle(b, min_count=3)
    # start position, Black to move: seen at ply 0, then after each retake and after the two
    # passes that follow it: plies 4, 6, 10, 12, 16, 18 -> 7 times; the shortest loop that took
    # stones is 6 plies (C3 takes one, B3 takes one back)
    assert cyc is not None and cyc.count == 7 and cyc.length == 6 and cyc.first_ply == 0
    assert cyc.captures == {BLACK: 1, WHITE: 1}
    assert endless_cycle(board(KO, "japanese")) is None


@pytest.mark.parametrize("rules,article", [("japanese", "Japanese rules 1989 art. 7-2"),
                                           ("korean", "Korean rules art. J89 7-2")])
def test_confirmation_ko_waits_for_a_pass(rules, article):
    # Japanese 1989 art. 7-2: confirming life and death after play stopped, the same ko may not
    # be retaken; the side whose ko stone was taken may retake it once it has passed.
    b = board(KO, rules).confirmation()
    b.play("C3")                        # Black takes the ko (B3)
    b.play("E5"), b.play("E1")          # a threat and its answer: in play White could retake now
    with pytest.raises(IllegalMove) as e:
        b.play("B3")
    assert (e.value.reason, e.value.article) == ("confirmation-ko", article)
    b.play(None)                        # White passes ...
    b.play("E2")                        # ... Black plays elsewhere
    b.play("B3")                        # ... and White may retake
    assert b[(1, 2)] == WHITE and b[(2, 2)] is None
    b.play("A5"), b.play("E3")          # Black and White play elsewhere ...
    assert b.legality((2, 2)).reason == "confirmation-ko"  # ... Black may not retake: no pass yet
    # the same sequence in play (not a confirmation): the retake after a threat is legal (art. 6)
    p = board(KO, rules)
    p.play("C3"), p.play("E5"), p.play("E1")
    assert p.legality((1, 2)) is None
    with pytest.raises(GoError, match="no confirmation phase"):
        board(KO, "chinese").confirmation()


# ------------------------------------------------------------------------- turn, passes, text
def test_occupied_wrong_turn_and_passes():
    b = Board(9, "japanese")
    b.play("E5")
    with pytest.raises(IllegalMove) as e:
        b.play("E5")
    assert e.value.reason == "occupied" and e.value.article == "Japanese rules 1989 art. 3"
    with pytest.raises(IllegalMove) as e:
        b.play("D4", BLACK)
    assert e.value.reason == "wrong-turn"
    b.play(None); b.play("pass")                           # noqa: E702
    assert b.consecutive_passes == 2 and b.ply == 3 and b.turn == WHITE
    with pytest.raises(IllegalMove) as e:
        b.play((9, 0))
    assert e.value.reason == "off-board"


def test_text_round_trip_keeps_ko_and_prisoners():
    b = board(KO, "japanese")
    b.play("C3")
    text = b.to_text()
    assert text.startswith("go 5 japanese white ko=bc passes=0 prisoners=1,0 ")
    c = Board.from_text(text)
    assert c.to_text() == text and c.stones == b.stones and c.ko_point == (1, 2)
    assert c.legality((1, 2)).reason == "ko"


@pytest.mark.parametrize("text", ["", "go 19", "go 19 chinese black ko=- passes=0 prisoners=0,0 B:zz W:",
                                  "go 30 chinese black ko=- passes=0 prisoners=0,0 B: W:",
                                  "go 9 chess black ko=- passes=0 prisoners=0,0 B: W:",
                                  "go 9 chinese black ko=ee passes=0 prisoners=0,0 B:ee W:"])
def test_from_text_refuses_bad_text(text):
    with pytest.raises(GoError):
        Board.from_text(text)


def test_bad_setup_is_refused():
    with pytest.raises(GoError):
        Board(1)
    with pytest.raises(GoError):
        Board(9, "tromp/taylor")  # the SGF spelling is read by shared.rules.sgf, not the engine
    with pytest.raises(GoError):
        Board(9, setup_black=[(0, 0)], setup_white=[(0, 0)])


def test_every_refusal_cites_an_article_under_every_ruleset():
    for rules in RULESETS:
        for reason in IllegalMove.REASONS:
            if reason == "superko" and SPECS[rules].ko == "simple":
                continue  # no superko under simple-ko rules (Japanese, Korean, Ing)
            if reason == "confirmation-ko" and SPECS[rules].scoring == "area":
                continue  # no confirmation phase under area counting
            rule = rule_for(reason, rules)
            assert isinstance(rule, Rule) and rule.game == "go" and rule.article
    assert RULES["chinese:superko"].article == "6"
    with pytest.raises(GoError):
        rule_for("superko", "japanese")
