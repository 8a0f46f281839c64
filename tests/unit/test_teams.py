"""Team events by the xiangqi rules 1999 art. 12-14 (services.pairing.teams)."""
from __future__ import annotations

from collections import Counter

import pytest

from services.pairing.core import PairingError
from services.pairing.teams import (
    Member, all_play_all, board_order, check_lineup, lineups, match_boards, match_points, member_total,
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
