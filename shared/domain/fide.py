"""FIDE rating changes of a rated event (pure: no I/O, no clock).

Implements the FIDE Rating Regulations (Handbook B.02) effective from 1 March 2024, with the
amendment of art. 8.3.1 effective from 1 October 2025 (the 400-point rule no longer applies to
players rated 2650 and above); :data:`IN_FORCE` names that edition, :data:`EDITION_2024` the
text of 1 March 2024 before the amendment.  Articles used:

========= ===================================================================================
8.1.1     table 8.1.a: fractional score p (rounded to 0.01) -> rating difference dp
          (p = 1.00 -> +800, p = 0.00 -> -800; below 0.50 dp(p) = -dp(1 - p))
8.1.2     table 8.1.b: rating difference D -> scoring probability PD of the higher rated
          (two decimals; the table, not the logistic formula 1 / (1 + 10^(-D/400)))
8.3.1     D per game against a *rated* opponent; a difference of more than 400 points
          counts as 400 (since 1 Oct 2025 only for players rated below 2650)
8.3.2     dR = score - PD per game (score 1, 0.5, 0); rating change = K x sum(dR)
8.3.3     K: 40 for a player new to the list until he has completed events with at least
          30 games; 40 until the end of the year of the 18th birthday while the rating
          stays under 2300; 20 while the rating stays under 2400; 10 once the published
          rating has reached 2400 (even if it drops below later).  If K x n (n = games of the
          player in the rating period) exceeds 700, K is the largest whole number with
          K x n <= 700
5.1       unplayed games (forfeits, byes) are not rated
========= ===================================================================================

Performance rating: Rp = Ra + dp (table 8.1.a), Ra the average rating of the opponents rounded
to the nearest whole number, 0.5 upward (as FIDE B.01 1.4.7 and C.07 10.1 round it); 100 %
gives Ra + 800 and 0 % gives Ra - 800, the table's ends.

Choices where the text leaves room (each stated again where it is applied):

* K when more than one clause fits: a new player (< 30 games) first (40), then a player whose
  published rating has reached 2400 (10), then a junior under 2300 (40), else 20;
* the 700 cap counts the games rated in what the caller passes as the period (the CLI: the
  event);
* the rating change is kept exact (hundredths of K); :attr:`RatingChange.rounded` rounds it to
  a whole number, 0.5 upward (towards +infinity: -2.5 -> -2), as a published rating is whole;
* the 400-point rule acts on D for PD only; Ra of the performance rating uses real ratings.

Errors: ``ValueError`` for a score that is not 0, 0.5 or 1, a fraction outside 0..1, an unknown
edition, or a performance asked of no games.
"""
from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass
from typing import Iterable, Sequence

__all__ = ["EDITION_2024", "IN_FORCE", "EDITIONS", "DP_TABLE", "PD_UPPER", "K_TIMES_GAMES_MAX",
           "dp", "rating_difference", "expected_score", "k_factor", "capped_k", "Game",
           "RatingChange", "rating_change", "performance_rating"]

EDITION_2024 = "fide-2024-03"  #: B.02 as in force from 1 March 2024
IN_FORCE = "fide-2025-10"  #: the same with art. 8.3.1 as amended from 1 October 2025
EDITIONS = (EDITION_2024, IN_FORCE)

#: art. 8.3.1 (2025-10): players rated this or more have no 400-point cap
NO_CAP_FROM = 2650
CAP = 400
#: art. 8.3.3: K x games in a rating period may not exceed this
K_TIMES_GAMES_MAX = 700

#: art. 8.1.1 (table 8.1.a): fractional score in hundredths (100 .. 50) -> dp
DP_TABLE: dict[int, int] = dict(zip(range(100, 49, -1), (
    800, 677, 589, 538, 501, 470, 444, 422, 401, 383, 366, 351, 336, 322, 309, 296, 284, 273,
    262, 251, 240, 230, 220, 211, 202, 193, 184, 175, 166, 158, 149, 141, 133, 125, 117, 110,
    102, 95, 87, 80, 72, 65, 57, 50, 43, 36, 29, 21, 14, 7, 0)))

#: art. 8.1.2 (table 8.1.b): the largest |D| at which the higher rated player's PD is
#: .50, .51, ... .99 (index 0 .. 49); |D| above 735: PD 1.00 (lower rated: 1 - PD)
PD_UPPER: tuple[int, ...] = (
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153,
    162, 170, 179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344,
    357, 374, 391, 411, 432, 456, 484, 517, 559, 619, 735)


def dp(p: float) -> int:
    """Rating difference dp (rating points) for the fractional score ``p`` (0..1), ``p``
    rounded to the nearest 0.01 (0.005 upward) first: B.02 art. 8.1.1, table 8.1.a; below
    0.50, ``dp(p) = -dp(1 - p)``.  Raises ``ValueError`` for ``p`` outside 0..1."""
    if not 0 <= p <= 1:
        raise ValueError(f"fractional score must be in 0..1, got {p!r}")
    cents = math.floor(p * 100 + 0.5 + 1e-9)
    return DP_TABLE[cents] if cents >= 50 else -DP_TABLE[100 - cents]


def rating_difference(rating: int, opponent: int, edition: str = IN_FORCE) -> int:
    """D = ``rating`` - ``opponent`` (rating points) as art. 8.3.1 counts it for the player
    rated ``rating``: more than 400 counts as 400 (either sign), except, from 1 October 2025
    (:data:`IN_FORCE`), for a player rated 2650 or more, whose real difference is used."""
    if edition not in EDITIONS:
        raise ValueError(f"unknown edition {edition!r}: one of {', '.join(EDITIONS)}")
    d = rating - opponent
    if edition == IN_FORCE and rating >= NO_CAP_FROM:
        return d
    return max(-CAP, min(CAP, d))


def _pd_hundredths(d: int) -> int:
    """PD of table 8.1.b in hundredths for the rating difference ``d`` (own - opponent)."""
    higher = 50 + bisect_left(PD_UPPER, abs(d))
    return higher if d >= 0 else 100 - higher


def expected_score(d: int) -> float:
    """Scoring probability PD (points, 0..1, two decimals) of a player ``d`` rating points above
    his opponent (negative: below): B.02 art. 8.1.2, table 8.1.b.  ``d`` is taken as given:
    apply the 400-point rule first (:func:`rating_difference`).  E.g. 0 -> 0.50, 100 -> 0.64,
    -400 -> 0.08, 736 -> 1.00."""
    return _pd_hundredths(d) / 100


def k_factor(rating: int, *, rated_games: int | None = None, reached_2400: bool = False,
             birth_year: int | None = None, year: int | None = None) -> int:
    """Development coefficient K of art. 8.3.3 for a player of published ``rating``.

    ``rated_games``: games the player has had rated before (``None``: unknown, taken as 30 or
    more); ``reached_2400``: his published rating has been 2400 or more before (a ``rating`` of
    2400 or more counts too); ``birth_year`` and ``year`` (of the rating period): the junior
    clause, K = 40 until the end of the year of the 18th birthday (``year <= birth_year + 18``)
    while the rating is under 2300.  Where several clauses fit, the first of: new player (40),
    reached 2400 (10), junior under 2300 (40), else 20.  The 700 cap is :func:`capped_k`."""
    if rated_games is not None and rated_games < 30:
        return 40
    if reached_2400 or rating >= 2400:
        return 10
    if birth_year is not None and year is not None and year <= birth_year + 18 and rating < 2300:
        return 40
    return 20


def capped_k(k: int, games: int) -> int:
    """K after art. 8.3.3's cap: when ``k`` x ``games`` (the player's games in the rating
    period) exceeds 700, the largest whole K with K x games <= 700; else ``k``."""
    if games > 0 and k * games > K_TIMES_GAMES_MAX:
        return K_TIMES_GAMES_MAX // games
    return k


@dataclass(frozen=True)
class Game:
    """One game of the player: the opponent's rating (``None``: unrated, so not rated for the
    player, art. 8.3.1) and the player's ``score`` in points (1, 0.5 or 0).  Unplayed games
    (forfeits, byes: art. 5.1) are not Games."""

    opponent_rating: int | None
    score: float

    def __post_init__(self):
        if self.score not in (0, 0.5, 1):
            raise ValueError(f"a game's score is 1, 0.5 or 0, got {self.score!r}")


@dataclass(frozen=True)
class RatingChange:
    """A rated player's result over rated games: ``rating`` before, ``k`` as applied (after
    the 700 cap), ``games`` rated, ``score`` W and ``expected`` We (points), ``change``
    K(W - We) in rating points (exact: hundredths), ``performance`` Rp (``None`` without
    rated games)."""

    rating: int
    k: int
    games: int
    score: float
    expected: float
    change: float
    performance: int | None

    @property
    def rounded(self) -> int:
        """``change`` to the nearest whole rating point, 0.5 upward (-2.5 -> -2)."""
        return (round(self.change * 100) + 50) // 100


def rating_change(rating: int, games: Iterable[Game], k: int, edition: str = IN_FORCE
                  ) -> RatingChange:
    """FIDE rating change of a rated player (art. 8.3.1-8.3.3): for each game against a rated
    opponent, PD from table 8.1.b for D after the 400-point rule; change = K x (W - sum PD)
    with ``k`` capped by :func:`capped_k` over the rated games given (pass a whole rating
    period's games for the cap to count them all).  Games against unrated opponents are left
    out.  Raises ``ValueError`` for an unknown ``edition``."""
    rated = [g for g in games if g.opponent_rating is not None]
    k = capped_k(k, len(rated))
    expected = sum(_pd_hundredths(rating_difference(rating, g.opponent_rating, edition))
                   for g in rated)  # hundredths of a point
    score = sum(g.score for g in rated)
    change = k * (round(score * 100) - expected) / 100
    perf = performance_rating([g.opponent_rating for g in rated], score) if rated else None
    return RatingChange(rating=rating, k=k, games=len(rated), score=score,
                        expected=expected / 100, change=change, performance=perf)


def performance_rating(opponent_ratings: Sequence[int], score: float) -> int:
    """Performance rating Rp = Ra + dp (rating points): Ra the opponents' average rating
    rounded to a whole number (0.5 upward), dp of table 8.1.a (art. 8.1.1) for the fraction
    ``score`` / games; 100 % -> Ra + 800, 0 % -> Ra - 800.  Raises ``ValueError`` for no
    opponents or a score outside 0..games."""
    n = len(opponent_ratings)
    if n == 0:
        raise ValueError("a performance rating needs at least one rated game")
    ra = (2 * sum(opponent_ratings) + n) // (2 * n)
    return ra + dp(score / n)
