"""Knockout brackets, two-game matches and play-offs (services.pairing.knockout)."""
from __future__ import annotations

import pytest

from services.pairing.core import PairingError
from services.pairing.knockout import (
    KnockoutMatch, bracket_order, first_round, match_games, match_winner, next_round, playoff_groups,
)


def test_bracket_order_keeps_the_top_seeds_apart():
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    with pytest.raises(PairingError):
        bracket_order(12)


def test_six_players_give_byes_to_seeds_1_and_2():
    seeds = ["s1", "s2", "s3", "s4", "s5", "s6"]
    r1 = first_round(seeds)
    assert r1 == [KnockoutMatch("s1", None), KnockoutMatch("s4", "s5"),
                  KnockoutMatch("s2", None), KnockoutMatch("s3", "s6")]
    # semi-finals: s1 v winner(s4-s5), s2 v winner(s3-s6); s1 and s2 only meet in the final
    assert next_round(["s1", "s5", "s2", "s3"]) == [KnockoutMatch("s1", "s5"), KnockoutMatch("s2", "s3")]
    with pytest.raises(PairingError):
        next_round(["s1", "s2", "s3"])


def test_two_game_match_swaps_colours_and_level_points_need_a_playoff():
    m = KnockoutMatch("a", "b")
    g = match_games(m, 2, seed=2001)
    assert g[1] == (g[0][1], g[0][0])  # art. 13.5: second game with colours swapped
    assert match_games(m, 2, seed=2001) == g  # the lot is re-derivable from the seed
    lots = {match_games(m, 2, seed=s)[0] for s in range(20)}
    assert lots == {("a", "b"), ("b", "a")}  # the lot does decide game 1's colours
    (w1, b1), (w2, b2) = g
    assert match_winner(m, [(w1, b1, "1-0"), (w2, b2, "1/2-1/2")]) == w1
    assert match_winner(m, [(w1, b1, "1-0"), (w2, b2, "1-0")]) is None  # 1-1: play-off (15.6)
    assert match_winner(KnockoutMatch("a", None), []) == "a"
    with pytest.raises(PairingError):
        match_winner(m, [("a", "c", "1-0")])


def test_playoff_groups_for_places_that_may_not_be_shared():
    rows = [("x", 1), ("y", 1), ("z", 3), ("u", 4), ("v", 4), ("w", 4)]
    assert playoff_groups(rows, {1}) == [["x", "y"]]
    assert playoff_groups(rows, {1, 5}) == [["x", "y"], ["u", "v", "w"]]  # 5th lies in 4-6
    assert playoff_groups(rows, {3}) == []
