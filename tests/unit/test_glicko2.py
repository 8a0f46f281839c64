"""Glicko-2 (services/ratings/glicko.py) against Glickman's published example ("Example of the
Glicko-2 system", 2013) and a rating period without games worked by hand."""
from __future__ import annotations

import pytest

from services.ratings.glicko import SCALE, Glicko2Rating, rate

PLAYER = Glicko2Rating(1500, 200, 0.06)
GAMES = [(Glicko2Rating(1400, 30), 1), (Glicko2Rating(1550, 100), 0), (Glicko2Rating(1700, 300), 0)]


def test_glickman_published_example():
    """The paper (tau = 0.5): 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300.
    Published: sigma' = 0.05999, phi' = 0.8722, mu' = -0.2069, RD' = 151.52, r' = 1464.06.
    The paper's r' is 173.7178 x (-0.2069) + 1500 = 1464.06 from mu' rounded to 4 places; the
    unrounded mu' (-0.20694) gives 1464.05, hence the 0.01 tolerance on r' alone.  sigma' is
    printed truncated to 5 places: the step-5 root is 0.0599960, whose first five places are
    0.05999 (rounding would print 0.06000), so sigma' is asserted to lie in [0.05999, 0.06)."""
    new = rate(PLAYER, GAMES, tau=0.5)
    assert 0.05999 <= new.volatility < 0.06
    assert round(new.rd / SCALE, 4) == 0.8722
    assert round((new.rating - 1500) / SCALE, 4) == -0.2069
    assert round(new.rd, 2) == 151.52
    assert new.rating == pytest.approx(1464.06, abs=0.01)


def test_period_without_games_rd_grows():
    """Step 6 alone: phi' = sqrt(phi^2 + sigma^2); on the Glicko scale
    RD' = sqrt(200^2 + (0.06 x 173.7178)^2) = sqrt(40000 + 10.423068^2) = sqrt(40108.6403)
    = 200.2714; rating and volatility unchanged."""
    new = rate(PLAYER, [])
    assert new.rd == pytest.approx(200.2714, abs=1e-3)
    assert (new.rating, new.volatility) == (1500, 0.06)


def test_draw_between_equals_keeps_the_rating():
    """Equal ratings and RDs: E = 1/2, a draw scores s - E = 0, so mu' = mu (step 7) while
    RD shrinks (phi' < phi* when v is finite)."""
    new = rate(Glicko2Rating(1700, 120, 0.06), [(Glicko2Rating(1700, 120), 0.5)])
    assert new.rating == pytest.approx(1700, abs=1e-9)
    assert new.rd < 120


def test_bad_input_refused():
    with pytest.raises(ValueError):
        Glicko2Rating(1500, 0, 0.06)
    with pytest.raises(ValueError):
        rate(PLAYER, [(Glicko2Rating(), 1.5)])
    with pytest.raises(ValueError):
        rate(PLAYER, GAMES, tau=0)


def test_volatility_solves_step_5_with_the_papers_values():
    """Step 5: sigma' = exp(A / 2) where A is the root of
    f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - ln sigma^2) / tau^2,
    with the paper's step 2-4 values phi = 1.1513, v = 1.7785, Delta = -0.4834, sigma = 0.06,
    tau = 0.5.  Near the root f falls by about 1/tau^2 = 4 per unit of x, so the 1e-6
    convergence on x leaves |f| well under 1e-5.  (The PyPI glicko2 2.1.0's sigma' 0.0599934,
    whose f has mu^2 for phi^2, gives |f| = 3.4e-4.)"""
    import math
    phi, v, delta, tau, a = 1.1513, 1.7785, -0.4834, 0.5, math.log(0.06 ** 2)
    x = math.log(rate(PLAYER, GAMES, tau=0.5).volatility ** 2)
    f = (math.exp(x) * (delta ** 2 - phi ** 2 - v - math.exp(x)) / (2 * (phi ** 2 + v + math.exp(x)) ** 2)
         - (x - a) / tau ** 2)
    assert abs(f) < 1e-5
