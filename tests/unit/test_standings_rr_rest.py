"""A round-robin rest (the free round of an odd Berger table) is no round of the player's in
BH/SB: hand-computed values under every unplayed-round rule."""
from __future__ import annotations

import pytest

from services.standings.core import Bye, GameResult, Player, StandingsError, compute_standings

# Three players, Berger table for 3 (appendix 1, the 4th slot a rest):
#   R1 B-C (A rests), R2 A-B (C rests), R3 C-A (B rests)
#   results: B beats C, A beats B, C beats A -> each 1 win, 1 loss, 1 rest: score 1 each.
# With the rest counted as nothing:
#   opponents' scores are their real scores (1 each, no VUR, no ½ for a rest)
#   SB: A = 1 x score(B) + 0 x score(C) = 1;  B = 1 x C = 1;  C = 1 x A = 1
#   BH: A = score(B) + score(C) = 2, same for B and C (no dummy opponent for the rest)
#   WIN 1 each; DE: every pair met, each scored 1 in the group -> 1 each
#   => nothing separates them: all share rank 1 (xiangqi 15.1 gives the same).
PLAYERS3 = [Player("A", "A"), Player("B", "B"), Player("C", "C")]
CYCLE = [GameResult(1, "B", "C", "1-0"), GameResult(2, "A", "B", "1-0"), GameResult(3, "C", "A", "1-0")]
RESTS = [Bye(1, "A", 0.0, rest=True), Bye(2, "C", 0.0, rest=True), Bye(3, "B", 0.0, rest=True)]


@pytest.mark.parametrize("unplayed", ["fide2023", "fide2009", "forfeit-draw", "none"])
def test_a_symmetric_odd_round_robin_shares_first_place(unplayed):
    st = compute_standings(PLAYERS3, CYCLE, RESTS, ("SB", "BH", "WIN", "DE"), unplayed=unplayed)
    assert [(r.id, r.rank, r.score) for r in st.rows] == [("A", 1, 1.0), ("B", 1, 1.0), ("C", 1, 1.0)]
    for r in st.rows:
        assert r.tiebreaks == {"SB": 1.0, "BH": 2.0, "WIN": 1.0, "DE": 1.0}


def test_a_zero_point_bye_is_a_vur_and_a_rest_is_not():
    # The same results with the rests given as plain zero-point byes (VURs, C.07 16):
    #   B's last round is a VUR, so as an opponent B counts 1 (R1 + R2) + ½ for R3 = 1.5;
    #   C's VUR (R2) is in the middle: C counts its real 0 -> 1; A's VUR is R1 -> 1.
    #   A's SB = 1 x 1.5 = 1.5, B's = 1 x 1 = 1, C's = 1 x 1 = 1: A first, a false order.
    zero_byes = [Bye(b.round, b.player, 0.0) for b in RESTS]
    st = compute_standings(PLAYERS3, CYCLE, zero_byes, ("SB",))
    assert {r.id: r.tiebreaks["SB"] for r in st.rows} == {"A": 1.5, "B": 1.0, "C": 1.0}
    assert [r.rank for r in st.rows] == [1, 2, 2]


def test_an_odd_round_robin_of_draws_with_rests_is_all_equal():
    # R1 B-C ½, R2 A-B ½, R3 C-A ½: each 1 point; SB = ½ x 1 + ½ x 1 = 1 each; BH = 2 each
    draws = [GameResult(g.round, g.white, g.black, "1/2-1/2") for g in CYCLE]
    st = compute_standings(PLAYERS3, draws, RESTS, ("SB", "BH"))
    assert [(r.rank, r.tiebreaks) for r in st.rows] == [(1, {"SB": 1.0, "BH": 2.0})] * 3


def test_a_rest_that_scores_is_refused():
    with pytest.raises(StandingsError, match="rest .* scores 0"):
        compute_standings(PLAYERS3, CYCLE, [Bye(1, "A", 1.0, rest=True)])
