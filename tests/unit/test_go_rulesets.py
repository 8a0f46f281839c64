"""The Go rulesets beside Chinese, Japanese and Ing (shared/rules/go.py SPECS): Tromp-Taylor, AGA,
New Zealand, Korean. One position per rule, the values worked out by hand.

Texts (not in ../shared/rules; cited as published): Tromp-Taylor "The Rules of Go" (rules 1-10),
AGA Rules of Go (1991, komi 7.5 since 2004), New Zealand rules (by section), Korean rules (as the
Japanese 1989 rules, whose articles they follow). Diagrams: top row first, X black, O white.
"""
from __future__ import annotations

import pytest

from contracts.messages import AcceptDead, GameCommandRejected, GameEnded, GameScored, MarkDead, MoveAccepted
from shared.rules.go import BLACK, WHITE, Board, GoError, IllegalMove, default_komi, spec
from shared.rules.go_scoring import score
from tests.unit.test_game_services import ALICE, BOB, S, Bus, one
from tests.unit.test_go_rules import KO, SUICIDE, board
from tests.unit.test_go_scoring import DAME, SEKI, half_board_19

# 5x5: two walls, column C open, and a black stone E3 left inside White's side
WALLS_E3 = """
. X . O .
. X . O .
. X . O X
. X . O .
. X . O .
"""
# 7x7: Black holds columns A-D (28 points), White E-G (21): Black leads by exactly 7
SEVEN = "\n".join(". . . X O . ." for _ in range(7))


# ------------------------------------------------------------------------------- play
def test_tromp_taylor_suicide_is_a_move_rule_7_but_not_a_repetition_rule_6():
    b = board(SUICIDE, "tromp-taylor")
    played = b.play("A1")  # A1 A2 B1 left without liberties: cleared after White's colour (none)
    assert sorted(played.captured) == [(0, 0), (0, 1), (1, 0)]
    assert b.prisoners == {BLACK: 0, WHITE: 3} and b[(0, 0)] is None
    # a single stone's suicide leaves the board as it was: a repeated colouring, refused (rule 6)
    single = board(". . .\nO . .\n. O .", "tromp-taylor")
    with pytest.raises(IllegalMove) as e:
        single.play("A1")
    assert e.value.reason == "superko" and e.value.article == "Tromp-Taylor rules art. 6"


def test_new_zealand_single_stone_suicide_is_a_play():
    # situational superko: the same board with White to move is new, so the stone is played and
    # taken off at once; White to move, one prisoner for White
    b = board(". . .\nO . .\n. O .", "nz")
    b.play("A1")
    assert b[(0, 0)] is None and b.turn == WHITE and b.prisoners == {BLACK: 0, WHITE: 1}


def test_chinese_tromp_taylor_positional_aga_nz_situational_superko():
    # KO: Black C3 takes B3; both pass; White B3 takes back: the start position again. Chinese
    # and Tromp-Taylor forbid any earlier position; AGA rule 6 only one the player created by an
    # earlier play (the start was set up, not played), so White may retake; then after two more
    # passes Black's C3 would recreate the position Black created at ply 1: refused.
    for rules, article in (("chinese", "Chinese rules 1988 art. 6"), ("tromp-taylor", "Tromp-Taylor rules art. 6")):
        b = board(KO, rules)
        b.play("C3"), b.play(None), b.play(None)
        err = b.legality((1, 2))
        assert (err.reason, err.article) == ("superko", article)
    for rules, article in (("aga", "AGA rules art. 6"), ("nz", "New Zealand rules art. Repetition"),
                           ("japanese", None)):
        b = board(KO, rules)
        b.play("C3"), b.play(None), b.play(None)
        b.play("B3")
        b.play(None), b.play(None)
        err = b.legality((2, 2))
        if article is None:  # simple ko (Japanese 1989 art. 6): nothing earlier is remembered
            assert err is None
        else:
            assert (err.reason, err.article) == ("superko", article)


def test_aga_pass_hands_over_a_prisoner_rule_7():
    b = Board(5, "aga")
    b.play(None)
    assert b.prisoners == {BLACK: 0, WHITE: 1}
    b.play(None)
    assert b.prisoners == {BLACK: 1, WHITE: 1}
    c = Board(5, "chinese")
    c.play(None)
    assert c.prisoners == {BLACK: 0, WHITE: 0}


def test_korean_ko_cites_the_japanese_article_it_follows():
    b = board(KO, "korean")
    b.play("C3")
    with pytest.raises(IllegalMove) as e:
        b.play("B3")
    assert e.value.article == "Korean rules art. J89 6"


# ------------------------------------------------------------------------------- counting
def test_tromp_taylor_counts_every_stone_rule_9_and_ties_rule_10():
    b = board(WALLS_E3, "tromp-taylor")
    # Black: 6 stones (B1-B5, E3) + A1-A5 (reach only black) = 11. White: 5 stones; column C
    # reaches both, E1-E2 and E4-E5 reach black through E3: no one's. 5 + komi 7.5 = 12.5.
    s = score(b)
    assert (s.black, s.white, s.result) == (11, 12.5, "W+1.5")
    assert "Tromp-Taylor rules art. 9" in s.rule
    # the same board with E3 taken off as dead (Chinese 1988 art. 8-9): Black 5 + 5 + 2.5 (half
    # of column C) = 12.5, White 5 + 5 + 2.5 + 7.5 = 20 -> W+7.5
    assert score(b, "chinese", dead=[(4, 2)]).result == "W+7.5"
    with pytest.raises(GoError, match="rule 9"):
        score(b, dead=[(4, 2)])
    assert score(b, komi=6).result == "Draw"  # 11 = 5 + 6: a tie (rule 10)


def _walls_game(last_black: bool) -> Board:
    """5x5 AGA game: the two walls B and D played from B1/D1 up, then, if ``last_black``,
    Black fills C3; then passes until two in a row."""
    b = Board(5, "aga")
    for y in range(5):
        b.play((1, y)), b.play((3, y))
    if last_black:
        b.play((2, 2))
        b.play(None), b.play(None)  # White passes, Black passes last
    else:
        b.play(None), b.play(None)  # Black passes, White passes last
    return b


@pytest.mark.parametrize("last_black,area,territory,result", [
    # Black passed first: area 10 (B wall + A) v 10 (D wall + E), dame C counts for no one;
    # territory 5 + 1 pass stone each = 6 v 6; komi 7.5 -> W+7.5 both ways
    (False, (10, 10), (6, 6), "W+7.5"),
    # Black filled C3 and passed last: White owes a pass stone (rule 8). Area 11 v 10; territory
    # 5 + 1 (White's pass) + 1 (the owed one) = 7 v 5 + 1 = 6: Black +1 either way -> W+6.5
    (True, (11, 10), (7, 6), "W+6.5"),
])
def test_aga_area_count_equals_territory_count_with_pass_stones_rule_12(last_black, area, territory, result):
    s = score(_walls_game(last_black))
    assert (s.black, s.white - 7.5, s.result) == (*area, result)
    t = s.detail["territory_count"]
    assert (t[BLACK], t[WHITE]) == territory
    assert "AGA rules art. 12" in s.rule and "AGA rules art. 3" in s.rule


def test_aga_handicap_gives_white_n_minus_1_rule_4():
    # area 171 v 190 (see test_go_scoring.half_board_19); 3 handicap stones: komi 0.5 (rule 3)
    # and 3 - 1 = 2 points: White 192.5 -> W+21.5 (Chinese 2002 art. 9 gives 3 and no komi: W+22)
    s = score(half_board_19(), "aga", handicap=3)
    assert (s.white, s.result, s.detail["handicap_compensation"]) == (192.5, "W+21.5", 2)
    assert score(half_board_19(), "chinese", handicap=3).result == "W+22"
    assert default_komi("aga", 3) == 0.5 and default_komi("aga") == 7.5


def test_new_zealand_area_dame_no_ones_and_komi_7_can_draw():
    # DAME: Black 5 + 5 = 10, White 10 + 7 = 17 (the 5 dame count for no one) -> W+7
    s = score(board(DAME, "nz"))
    assert (s.black, s.white, s.result) == (10, 17, "W+7")
    # SEVEN: 28 v 21 + 7: equal scores, a draw (jigo)
    assert score(board(SEVEN, "nz")).result == "Draw"


def test_korean_counts_territory_with_no_points_in_seki():
    # SEKI (test_go_scoring): the eyes of groups in seki are no territory: 0 v 0 + 6.5 -> W+6.5
    s = score(board(SEKI, "korean"))
    assert (s.black, s.white, s.result) == (0, 6.5, "W+6.5")
    assert "Korean rules art. J89 8" in s.rule and "Korean rules art. J89 10" in s.rule


def test_specs_say_what_each_new_ruleset_changes():
    assert [spec(r).ko for r in ("tromp-taylor", "aga", "nz", "korean")] == [
        "positional", "situational", "situational", "simple"]
    assert [spec(r).cycle for r in ("chinese", "japanese", "ing", "tromp-taylor", "korean")] == [
        "draw-or-replay", "no-result", "arbiter", "illegal", "no-result"]


# ------------------------------------------------------------------------------- services
def test_tromp_taylor_game_is_counted_at_two_passes_with_every_stone():
    bus = Bus()
    bus.create(game="go", board_size=5, go_rules="tromp-taylor", time_control="600+5")
    moves = [m for y in range(1, 6) for m in (f"B{y}", f"D{y}")] + ["E3", "pass"]
    bus.play(moves, first="bob")
    got = bus.move("bob", "pass", at=100 * S)
    assert one(got, MoveAccepted).status == "scoring"
    sc = one(got, GameScored)
    assert (sc.black, sc.white, sc.result, sc.how, sc.dead) == (11, 12.5, "W+1.5", "rules", ())
    end = one(got, GameEnded)
    assert (end.result, end.reason, end.rule.ruleset) == ("1-0", "counting", "Tromp-Taylor rules")
    # no dead stones to settle
    rej = one(bus.send(MarkDead(game_id="g1", player_id="alice", dead=("E3",)), at=101 * S,
                       actor=ALICE), GameCommandRejected)
    assert rej.code in ("counting", "game-over")


def test_new_zealand_jigo_is_a_draw():
    bus = Bus()
    bus.create(game="go", board_size=7, go_rules="nz", time_control="600+5")
    bus.play([m for y in range(1, 8) for m in (f"D{y}", f"E{y}")] + ["pass", "pass"], first="bob")
    bus.send(MarkDead(game_id="g1", player_id="alice", dead=()), at=100 * S, actor=ALICE)
    got = bus.send(AcceptDead(game_id="g1", player_id="bob"), at=101 * S, actor=BOB)
    sc = one(got, GameScored)
    assert (sc.black, sc.white, sc.komi, sc.result) == (28, 28, 7, "Draw")
    end = one(got, GameEnded)
    assert (end.result, end.winner, end.score) == ("1/2-1/2", None, "Draw")


# ------------------------------------------------------------------------------- endless cycles
@pytest.mark.parametrize("rules,legal,result,article,ply", [
    # the triple ko of test_go_services (three kos, each taken in turn, 6 plies a cycle)
    ("japanese", True, "Void", "12", None),          # no result (Japanese 1989 art. 12)
    ("korean", True, "Void", "J89 12", None),        # as Japanese
    # positional superko: White's C2 at ply 6 would bring back the start position
    ("chinese", False, "*", "6", 6),
    ("tromp-taylor", False, "*", "6", 6),
    # situational (AGA rule 6): the start was set up, not played, so ply 6 stands; Black's B8 at
    # ply 7 would recreate the position Black's own B8 created at ply 1
    ("aga", False, "*", "6", 7),
    ("nz", False, "*", "Repetition", 7),
])
def test_a_triple_ko_per_ruleset(rules, legal, result, article, ply):
    from services.tools.adjudicate import adjudicate_go
    from shared.rules.sgf import GoRecord
    from tests.unit.test_go_services import CYCLE, TRIPLE_KO

    pos = Board.from_text(TRIPLE_KO)
    bl = tuple(p for p, c in pos.stones.items() if c == BLACK)
    wh = tuple(p for p, c in pos.stones.items() if c == WHITE)
    row = adjudicate_go(GoRecord(size=9, rules=rules, komi=0, setup_black=bl, setup_white=wh),
                        moves=CYCLE * 2)
    assert (row["legal"], row["result"]) == (legal, result)
    if legal:
        assert row["rule"]["article"] == article and row["endless_cycle"]["occurrences"] == 3
    else:  # the cycle cannot close: the move that would repeat the position is refused
        fr = row["first_rejected"]
        assert (fr["code"], fr["rule"]["article"], fr["ply"]) == ("illegal", article, ply)
