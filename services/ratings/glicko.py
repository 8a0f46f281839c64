"""Glicko-2 ratings for online rating pools (pure: no I/O, no clock).

Source: Mark E. Glickman, "Example of the Glicko-2 system" (Boston University, 2013 revision),
steps 1-8: ratings on the Glicko scale (r, RD) are converted to the Glicko-2 scale
(mu = (r - 1500) / 173.7178, phi = RD / 173.7178); v and Delta from the period's games; the new
volatility sigma' by the Illinois algorithm (step 5, convergence tolerance epsilon = 0.000001);
phi* = sqrt(phi^2 + sigma'^2), phi' = 1 / sqrt(1 / phi*^2 + 1 / v), mu' = mu + phi'^2 x
sum g(phi_j)(s_j - E); back to r' and RD'.  A player without games in the period keeps r and
sigma, and RD grows to 173.7178 x sqrt(phi^2 + sigma^2) (step 6 alone).

Our own implementation: the PyPI package ``glicko2`` (2.1.0) was measured against it and
is not exact: its step-5 function f(x) uses the player's mu^2 where the paper has phi^2, so it
matches the published example only to the paper's 5 decimals of sigma' (mu = 0 there) and
differs elsewhere (r = 1000, RD 300, sigma 0.09, three wins over 2000/50: sigma' 0.09034 against
0.09038).

Errors: ``ValueError`` for an RD or volatility that is not positive, a score outside 0..1, or
tau not positive.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

__all__ = ["SCALE", "DEFAULT_TAU", "Glicko2Rating", "rate"]

SCALE = 173.7178  #: Glicko scale points per Glicko-2 unit (step 2)
DEFAULT_TAU = 0.5  #: the system constant tau of the paper's example
_EPSILON = 0.000001  #: step 5's convergence tolerance


@dataclass(frozen=True)
class Glicko2Rating:
    """A pool member's rating on the Glicko scale: ``rating`` r and ``rd`` (rating points),
    ``volatility`` sigma; the defaults are the paper's unrated player (1500, 350, 0.06)."""

    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06

    def __post_init__(self):
        if not (self.rd > 0 and self.volatility > 0):
            raise ValueError(f"RD and volatility must be positive, got {self.rd!r}, {self.volatility!r}")


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: sigma' as the root of f by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2)
                - (x - a) / (tau * tau))

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > _EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def rate(player: Glicko2Rating, games: Sequence[tuple[Glicko2Rating, float]],
         tau: float = DEFAULT_TAU) -> Glicko2Rating:
    """The player's rating after one rating period (Glickman 2013, steps 1-8): ``games`` as
    (opponent's rating at the period's start, the player's score 1 / 0.5 / 0).  No games:
    RD grows by the volatility (step 6), rating and volatility unchanged.  Raises
    ``ValueError`` for a score outside 0..1 or ``tau`` not positive."""
    if tau <= 0:
        raise ValueError(f"tau must be positive, got {tau!r}")
    mu, phi = (player.rating - 1500) / SCALE, player.rd / SCALE
    if not games:
        return Glicko2Rating(player.rating, SCALE * math.sqrt(phi * phi + player.volatility ** 2),
                             player.volatility)
    terms = []  # (g(phi_j), E, s_j) per game
    for opp, s in games:
        if not 0 <= s <= 1:
            raise ValueError(f"a score is between 0 and 1, got {s!r}")
        mu_j, phi_j = (opp.rating - 1500) / SCALE, opp.rd / SCALE
        terms.append((_g(phi_j), _e(mu, mu_j, phi_j), s))
    v = 1 / sum(g * g * e * (1 - e) for g, e, _ in terms)
    improvement = sum(g * (s - e) for g, e, s in terms)
    sigma = _volatility(phi, player.volatility, v, v * improvement, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * improvement
    return Glicko2Rating(1500 + SCALE * mu_new, SCALE * phi_new, sigma)
