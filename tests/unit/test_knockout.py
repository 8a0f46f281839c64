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


def test_double_elimination_nobody_is_out_before_two_losses():
    """8 players, the lower seed wins every match it can (the 'upset' script): every player but
    the champion loses exactly twice, nobody plays after a second loss, 2n - 2 matches plus the
    final's replay when the losers'-bracket player wins the first final."""
    from collections import Counter
    from services.pairing.knockout import double_elimination

    seeds = [f"s{i}" for i in range(1, 9)]
    rank = {s: i for i, s in enumerate(seeds)}
    champion, played = double_elimination(seeds, lambda m: max((m.a, m.b), key=rank.get))
    losses = Counter()
    for label, m in played:
        for p in (m.a, m.b):
            assert losses[p] < 2, f"{p} plays in {label} after two losses"
        w = max((m.a, m.b), key=rank.get)
        losses[m.a if w == m.b else m.b] += 1
    assert all(losses[p] == 2 for p in seeds if p != champion) and losses[champion] <= 1
    assert [lab for lab, _ in played].count("W1") == 4 and [lab for lab, _ in played][-1] in ("GF", "GF2")
    assert len(played) in (2 * 8 - 2, 2 * 8 - 1)
    # the top seeds win every match: seed 1 never loses, 14 matches, no replay
    champion, played = double_elimination(seeds, lambda m: min((m.a, m.b), key=rank.get))
    assert champion == "s1" and len(played) == 14


def test_bad_matches_and_results_are_refused():
    with pytest.raises(PairingError):
        KnockoutMatch("a", "a")
    with pytest.raises(PairingError):
        next_round([None, "a"])
    m = KnockoutMatch("a", "b")
    assert match_winner(m, [("a", "b", "+-")]) == "a"  # a forfeit win counts as a win
    assert match_winner(m, [("a", "b", "0-0")]) is None
    with pytest.raises(PairingError, match="unknown result"):
        match_winner(m, [("a", "b", "2-0")])
