"""Each player's FIDE rating change over the games a TRF records (``arbiter ratings --trf``).

The TRF is read with the pairing service's reader (:func:`shared.domain.trf.read_trf`);
:func:`event_changes` is pure.  Rated games are those played over the board against an
opponent with a rating (results ``1 0 =``); forfeits (``+ -``), byes (``H F U Z``) and games
marked unrated (``W D L``) are not rated (B.02 art. 5.1).  A rating of 0 or a blank rating
field is unrated.  The event is taken as the player's whole rating period (the K x games <= 700
cap counts its games).

K (B.02 art. 8.3.3) from what a TRF gives: a rating of 2400 or more -> 10 (source ``rating``);
a birth year with the event's year (end date 052, else start date 042) at most 18 years later
and a rating under 2300 -> 40 (``age``); otherwise the file cannot tell whether the player is
new to the list (fewer than 30 games: 40) or has reached 2400 before (10), and the caller's
``default_k`` applies (``given``; the CLI's ``--k``, default 20: an established player who has
never reached 2400).  Unrated players get no change (their initial rating, art. 8.2, needs
games from other events) but a performance rating over their rated opponents.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from shared.domain.trf import Tournament, TrfPlayer
from shared.domain import fide
from shared.domain.results import LETTER_POINTS

__all__ = ["PlayerChange", "event_changes"]

#: Points of the rated results (W D L: played, unrated; + - forfeits: not rated).
_SCORES = {k: LETTER_POINTS[k] for k in "1=0"}
_YEAR = re.compile(r"(?<!\d)(1[89]\d\d|20\d\d)(?!\d)")


@dataclass(frozen=True)
class PlayerChange:
    """One player's line: start ``number``, ``name``, ``rating`` (``None``: unrated), ``k``
    and its ``k_source`` (``rating``, ``age``, ``given``; ``None`` for unrated), ``games``
    against rated opponents, ``score`` and ``expected`` (points), ``change`` (rating points,
    exact; ``None`` for unrated), ``rounded`` change and ``performance`` (``None``: no rated
    game)."""

    number: int
    name: str
    rating: int | None
    k: int | None
    k_source: str | None
    games: int
    score: float
    expected: float | None
    change: float | None
    rounded: int | None
    performance: int | None


def _year(text: str | None) -> int | None:
    m = _YEAR.search(text or "")
    return int(m.group(1)) if m else None


def _rating(p: TrfPlayer) -> int | None:
    return p.rating or None


def _games(t: Tournament, p: TrfPlayer) -> list[fide.Game]:
    return [fide.Game(_rating(t.player(e.opponent)), _SCORES[e.result])
            for e in p.rounds if e is not None and e.opponent is not None and e.result in _SCORES]


def _k(rating: int, birth_year: int | None, year: int | None, default_k: int) -> tuple[int, str]:
    k = fide.k_factor(rating, birth_year=birth_year, year=year)
    if k == 10:
        return k, "rating"
    if k == 40:
        return k, "age"
    return default_k, "given"


def _line(t: Tournament, p: TrfPlayer, year: int | None, default_k: int, edition: str
          ) -> PlayerChange:
    rated = [g for g in _games(t, p) if g.opponent_rating is not None]
    rating = _rating(p)
    if rating is None:
        score = sum(g.score for g in rated)
        perf = fide.performance_rating([g.opponent_rating for g in rated], score) if rated else None
        return PlayerChange(p.number, p.name, None, None, None, len(rated), score, None, None,
                            None, perf)
    k, source = _k(rating, _year(p.birth), year, default_k)
    rc = fide.rating_change(rating, rated, k, edition)
    return PlayerChange(p.number, p.name, rating, rc.k, source, rc.games, rc.score, rc.expected,
                        rc.change, rc.rounded, rc.performance)


def event_changes(t: Tournament, default_k: int = 20, edition: str = fide.IN_FORCE
                  ) -> list[PlayerChange]:
    """Every player's line of a parsed TRF, by start number (see the module's rules).
    Raises ``ValueError`` for a ``default_k`` that is not positive or an unknown edition."""
    if default_k <= 0:
        raise ValueError(f"K must be a positive whole number, got {default_k}")
    year = _year(t.end_date) or _year(t.start_date)
    return [_line(t, p, year, default_k, edition) for p in t.players]

