"""FIDE rating changes (shared/domain/fide.py) against the Rating Regulations' own tables
(B.02 of 1 March 2024: table 8.1.a dp, table 8.1.b PD; art. 8.3.1 as amended 1 October 2025),
each expected value worked by hand from the tables in the test's docstring."""
from __future__ import annotations

import pytest

from shared.domain import fide
from shared.domain.fide import Game, capped_k, dp, expected_score, k_factor, rating_change


def test_pd_table_boundaries_not_the_logistic_formula():
    """Table 8.1.b rows (D: PD of the higher rated): 0-3 .50, 4-10 .51, 99-106 .64,
    392-411 .92, 412-432 .93, 620-735 .99, over 735 1.00; the lower rated gets 1 - PD.
    The logistic 1 / (1 + 10^(-400/400)) would give 0.909 at D = 400, the table .92."""
    assert [expected_score(d) for d in (0, 3, 4, 10, 100, 106, 107)] == [
        .50, .50, .51, .51, .64, .64, .65]
    assert [expected_score(d) for d in (400, 411, 412, 735, 736, 2000)] == [
        .92, .92, .93, .99, 1.00, 1.00]
    assert [expected_score(d) for d in (-4, -100, -400, -736)] == [.49, .36, .08, .00]


def test_dp_table_ends_and_rounding():
    """Table 8.1.a: p 1.00 -> 800, .83 -> 273, .60 -> 72, .50 -> 0; 0.00 -> -800 (below .50,
    -dp(1 - p)); p is rounded to 0.01 first: 0.995 -> 1.00 -> 800."""
    assert (dp(1.0), dp(0.83), dp(0.6), dp(0.5), dp(0.4), dp(0.0), dp(0.995)) == (
        800, 273, 72, 0, -72, -800, 800)
    with pytest.raises(ValueError):
        dp(1.01)


def test_400_point_rule():
    """Art. 8.3.1: 2000 loses to 2500.  D = -500 counts as -400: PD .08 (table 8.1.b,
    392-411 -> .92 for the higher rated), K 20: 20 x (0 - .08) = -1.6 -> rounded -2.  Without
    the rule D -500 would give PD .04 (485-517 -> .96) and -0.8."""
    rc = rating_change(2000, [Game(2500, 0)], k=20)
    assert (rc.expected, rc.change, rc.rounded) == (0.08, -1.6, -2)
    assert fide.rating_difference(2000, 2500) == -400
    assert fide.rating_difference(1600, 2000) == -400 and fide.rating_difference(2000, 1500) == 400


def test_no_cap_from_2650_since_october_2025():
    """Art. 8.3.1 as amended 1 Oct 2025: a player rated 2650+ uses the real difference.
    2700 beats 2200: D = 500 -> PD .96 (485-517), K 10 x (1 - .96) = +0.4.  Under the
    1 March 2024 text D counts as 400 -> .92 -> +0.8, the 0.8 a win brought a 2650+ player
    before the amendment (ChessBase, 30 Sep 2025).  The 2200 player (below 2650) keeps the
    cap either way: D -400 -> .08, K 20 x (0 - .08) = -1.6."""
    assert rating_change(2700, [Game(2200, 1)], k=10).change == pytest.approx(0.4)
    assert rating_change(2700, [Game(2200, 1)], k=10, edition=fide.EDITION_2024).change == \
        pytest.approx(0.8)
    assert rating_change(2200, [Game(2700, 0)], k=20).change == pytest.approx(-1.6)
    assert fide.rating_difference(2649, 2000) == 400 and fide.rating_difference(2650, 2000) == 650
    with pytest.raises(ValueError):
        fide.rating_difference(2000, 1900, edition="fide-1999")


@pytest.mark.parametrize("kwargs, k", [
    (dict(rating=1800, rated_games=12), 40),          # new to the list, under 30 games
    (dict(rating=2100, rated_games=30), 20),          # 30 games completed, under 2400
    (dict(rating=2100), 20),                          # games unknown: taken as established
    (dict(rating=2450), 10),                          # published rating 2400 or more
    (dict(rating=2350, reached_2400=True), 10),       # reached 2400 before: stays 10
    (dict(rating=2150, birth_year=2008, year=2026), 40),  # the year of the 18th birthday
    (dict(rating=2150, birth_year=2007, year=2026), 20),  # 19 this year
    (dict(rating=2300, birth_year=2012, year=2026), 20),  # junior, but not under 2300
])
def test_k_factor_clauses(kwargs, k):
    """Art. 8.3.3: K 40 new (< 30 games), 40 junior to the end of the year of the 18th
    birthday under 2300, 20 under 2400, 10 once 2400 was reached."""
    rating = kwargs.pop("rating")
    assert k_factor(rating, **kwargs) == k


def test_k_times_games_cap_700():
    """Art. 8.3.3: K x n > 700 -> the largest whole K with K x n <= 700.
    K 40, 20 games: 800 > 700 -> 35 (35 x 20 = 700); 18 games: 720 -> 38 (38 x 18 = 684,
    39 x 18 = 702); 17 games: 680 -> 40 stays; K 20, 36 games: 720 -> 19."""
    assert (capped_k(40, 20), capped_k(40, 18), capped_k(40, 17), capped_k(20, 36)) == (35, 38, 40, 19)
    # in a rating change: 20 wins over equals (PD .50 each): 35 x (20 - 10) = 350, not 400
    rc = rating_change(1800, [Game(1800, 1)] * 20, k=40)
    assert (rc.k, rc.change) == (35, 350)


def test_event_change_and_performance_by_hand():
    """Player 2150, K 20: beats 2300 (D -150: 146-153 -> .70 for the higher, .30 for him),
    draws 2050 (D 100 -> .64), beats 1700 (D 450 counts 400 -> .92), loses to an unrated
    player (not rated, art. 8.3.1).  W 2.5, We .30 + .64 + .92 = 1.86, 20 x .64 = 12.8 -> 13.
    Rp: Ra (2300 + 2050 + 1700) / 3 = 2016.67 -> 2017, p 2.5/3 = .83 -> dp 273 -> 2290."""
    rc = rating_change(2150, [Game(2300, 1), Game(2050, 0.5), Game(1700, 1), Game(None, 0)], k=20)
    assert (rc.games, rc.score, rc.expected, rc.change, rc.rounded, rc.performance) == (
        3, 2.5, 1.86, 12.8, 13, 2290)


def test_performance_at_100_and_0_percent():
    """Rp = Ra + dp: opponents 2000 and 2100, Ra 2050; 2/2 -> dp(1.00) = +800 -> 2850;
    0/2 -> -800 -> 1250."""
    assert fide.performance_rating([2000, 2100], 2) == 2850
    assert fide.performance_rating([2000, 2100], 0) == 1250
    with pytest.raises(ValueError):
        fide.performance_rating([], 0)


def test_rounding_half_upward():
    """2590 draws 2400: D 190 -> .75 (189-197), K 10 x (.5 - .75) = -2.5 -> -2 (0.5 upward);
    2400 draws 2590: .25 -> +2.5 -> +3."""
    down = rating_change(2590, [Game(2400, 0.5)], k=10)
    up = rating_change(2400, [Game(2590, 0.5)], k=10)
    assert (down.change, down.rounded, up.change, up.rounded) == (-2.5, -2, 2.5, 3)


def test_bad_score_refused():
    with pytest.raises(ValueError):
        Game(2000, 0.75)
