"""Team events by the xiangqi rules 1999 art. 12-14 (shared.domain.teams)."""
from __future__ import annotations

from collections import Counter

import pytest

from services.pairing.core import PairingError
from shared.domain.teams import (
    Member, all_play_all, board_order, check_lineup, lineups, match_boards, match_points, member_places,
    member_total, team_standings,
)


def test_board_order_by_rating_unrated_last_12_1():
    ms = [Member("u1"), Member("a", 2300), Member("b", 2500), Member("u2"), Member("c", 2400)]
    assert board_order(ms) == ["b", "c", "a", "u1", "u2"]


def test_reserves_keep_the_order_fifteen_lineups_12_2():
    """Art. 12.2's example: four boards and two reserves give 1-2-3-4, 1-2-3-5 ... 3-4-5-6,
    fifteen line-ups."""
    roster = ["1", "2", "3", "4", "5", "6"]
    ls = lineups(roster, 4)
    assert len(ls) == 15 and ls[0] == ("1", "2", "3", "4") and ls[1] == ("1", "2", "3", "5")
    assert ls[-1] == ("3", "4", "5", "6")
    check_lineup(roster, ["1", "3", "4", "6"], 4, "reserves")
    with pytest.raises(PairingError, match="roster order"):
        check_lineup(roster, ["3", "1", "4", "6"], 4, "reserves")
    check_lineup(roster, ["3", "1", "4", "6"], 4, "per-match")  # 12.3: any order
    with pytest.raises(PairingError, match="12.1"):
        check_lineup(roster, ["1", "2", "3", "5"], 4, "fixed")
    with pytest.raises(PairingError, match="not on the roster"):
        check_lineup(roster, ["1", "2", "3", "9"], 4, "per-match")


def test_colours_odd_and_even_boards_13_2():
    assert match_boards(["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"]) == [
        ("a1", "b1"), ("b2", "a2"), ("a3", "b3"), ("b4", "a4")]


def test_all_play_all_meets_everyone_once_12_4():
    first, second = ["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"]
    rounds = all_play_all(first, second)
    pairs = Counter(frozenset(g) for r in rounds for g in r)
    assert len(rounds) == 4 and len(pairs) == 16 and set(pairs.values()) == {1}
    reds = Counter(g[0] for r in rounds for g in r)
    assert all(reds[p] == 2 for p in first + second)  # Red twice each over four rounds


def test_match_points_2_1_0_and_member_totals_14_2_12_5():
    assert match_points(2.5, 1.5) == (2, 0)
    assert match_points(2, 2) == (1, 1)
    assert match_points(1, 3) == (0, 2)
    assert member_total({"a": 5.5, "b": 4, "c": 6}, ["a", "c", "z"]) == 11.5


def test_a_member_cannot_play_for_both_teams_or_twice():
    with pytest.raises(PairingError, match="both teams"):
        all_play_all(["a", "b"], ["b", "c"])
    with pytest.raises(PairingError, match="both teams"):
        match_boards(["a", "b"], ["b", "a"])
    with pytest.raises(PairingError, match="twice"):
        member_total({"a": 1}, ["a", "a"])


def test_team_swiss_order_15_4_opponents_match_points_before_game_points():
    """Four teams of two, two Swiss rounds (boards: the first-listed team Red on board 1).
    R1: A-B 1½-½ (a1 beats b1, b2-a2 drawn), C-D 2-0. R2: A-C 1-1, B-D 1½-½.
    Match points (14.2): A 2+1 = 3, C 2+1 = 3, B 0+2 = 2, D 0+0 = 0.
    Game points: A 1.5+1 = 2.5, C 2+1 = 3, B 0.5+1.5 = 2, D 0+0.5 = 0.5.
    团体对手分 (BH, sum of the opponents' match points): A: B 2 + C 3 = 5; C: D 0 + A 3 = 3.
    15.4 ranks A before C by BH; 15.3's order (game points first) would put C first."""
    rosters = {"A": ["a1", "a2"], "B": ["b1", "b2"], "C": ["c1", "c2"], "D": ["d1", "d2"]}
    matches = [("A", "B", [("a1", "b1", "1-0"), ("b2", "a2", "1/2-1/2")]),
               ("C", "D", [("c1", "d1", "1-0"), ("d2", "c2", "0-1")]),
               ("A", "C", [("a1", "c1", "1-0"), ("c2", "a2", "1-0")]),
               ("B", "D", [("b1", "d1", "1/2-1/2"), ("d2", "b2", "0-1")])]
    swiss = team_standings(rosters, matches, system="swiss")
    assert [(r.team, r.rank, r.match_points, r.game_points, r.tiebreaks["BH"], r.tiebreaks["MW"])
            for r in swiss] == [("A", 1, 3, 2.5, 5, 1), ("C", 2, 3, 3, 3, 1), ("B", 3, 2, 2, 3, 1),
                                ("D", 4, 0, 0.5, 5, 0)]  # D's BH: C 3 + B 2
    assert [r.team for r in team_standings(rosters, matches)] == ["C", "A", "B", "D"]  # 15.3
    with pytest.raises(PairingError, match="swiss"):
        team_standings(rosters, matches, system="knockout")


def test_team_swiss_matches_won_then_fouls_15_4():
    """Two teams level on match points, BH and game points: E won a match (2-0) and lost one
    (0-2), F drew two (1-1, 1-1), so 全队胜场 (matches won) decides: E 1, F 0."""
    rosters = {"E": ["e1", "e2"], "F": ["f1", "f2"], "G": ["g1", "g2"], "H": ["h1", "h2"]}
    matches = [("E", "G", [("e1", "g1", "1-0"), ("g2", "e2", "0-1")]),
               ("F", "H", [("f1", "h1", "1-0"), ("h2", "f2", "1-0")]),
               ("E", "H", [("e1", "h1", "0-1"), ("h2", "e2", "1-0")]),
               ("F", "G", [("f1", "g1", "1/2-1/2"), ("g2", "f2", "1/2-1/2")])]
    rows = {r.team: r for r in team_standings(rosters, matches, system="swiss")}
    # E: 2 + 0 = 2 mp, gp 2 + 0 = 2; F: 1 + 1 = 2 mp, gp 1 + 1 = 2; G: 0 + 1 = 1; H: 1 + 2 = 3.
    # BH: E: G 1 + H 3 = 4; F: H 3 + G 1 = 4. Level; MW: E 1, F 0.
    assert (rows["E"].match_points, rows["E"].game_points, rows["E"].tiebreaks["BH"]) == (2, 2, 4)
    assert (rows["F"].match_points, rows["F"].game_points, rows["F"].tiebreaks["BH"]) == (2, 2, 4)
    assert rows["E"].rank == 2 and rows["F"].rank == 3 and rows["H"].rank == 1


def test_member_places_15_5_sum_then_best_then_second_then_fouls():
    """15.5: sum of the members' places, fewer first; then the best place, the second best,
    team fouls. A [1, 6], B [3, 4], C [2, 5]: sums 7 each; best places 1, 3, 2: A, C, B.
    D [7, 8] and E [7, 8] tie on everything but fouls (D 1, E 0): E before D."""
    rosters = {"A": ["a1", "a2"], "B": ["b1", "b2"], "C": ["c1", "c2"], "D": ["d1", "d2"],
               "E": ["e1", "e2"]}
    places = {"a1": 1, "a2": 6, "b1": 3, "b2": 4, "c1": 2, "c2": 5, "d1": 7, "d2": 8, "e1": 7, "e2": 8}
    scores = {"a1": 5, "a2": 2, "b1": 4, "b2": 3, "c1": 4.5, "c2": 2.5}
    rows = member_places(rosters, places, scores=scores, fouls={"d2": 1})
    assert [(r.team, r.rank, r.tiebreaks["PLACES"], r.tiebreaks["BEST"]) for r in rows] == [
        ("A", 1, 7, 1), ("C", 2, 7, 2), ("B", 3, 7, 3), ("E", 4, 15, 7), ("D", 5, 15, 7)]
    assert {r.team: r.game_points for r in rows}["A"] == 7  # 12.5: members' total 5 + 2
    same = member_places({"X": ["x"], "Y": ["y"]}, {"x": 2, "y": 2})
    assert [r.rank for r in same] == [1, 1]  # 无法区分，则名次并列
    with pytest.raises(PairingError, match="no individual place"):
        member_places(rosters, {"a1": 1})
