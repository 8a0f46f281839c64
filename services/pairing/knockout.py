"""Knockout events: seeded single-elimination brackets, two-game matches, play-offs (pure).

Sources: xiangqi competition rules 1999 (../shared/rules/xiangqi-competition-rules-1999.txt)
art. 11.1 淘汰制 (single or double elimination, with preliminaries and extra games), 13.4 colours
in a knockout by lot (猜先), 13.5 two-game matches: the first game's colours by lot, the second
with colours swapped, 15.6 the title and places that may not be shared are decided by play-off
games (加赛) or by rules fixed before the event.

Seeding is the usual bracket order (seed 1 meets the lowest seed, seeds 1 and 2 can only meet in
the final): ``bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]``. A field that is not a power of two
gives byes to the top seeds. Lots come from ``random.Random(seed)``; the seed is an input so a
replay draws the same lots.

Errors: :class:`PairingError` for bad input.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from services.pairing.core import PairingError

__all__ = ["bracket_order", "KnockoutMatch", "first_round", "next_round", "match_games",
           "match_winner", "playoff_groups", "losers_round", "double_elimination"]


def bracket_order(size: int) -> list[int]:
    """Seed numbers in bracket positions for ``size`` = 2^k slots (1 v size, 2 on the other half).
    Raises :class:`PairingError` when ``size`` is not a power of two >= 2."""
    if size < 2 or size & (size - 1):
        raise PairingError(f"a bracket has 2^k slots, not {size}")
    order = [1, 2]
    while len(order) < size:
        n = 2 * len(order)
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


@dataclass(frozen=True)
class KnockoutMatch:
    """One pairing of a knockout round: ``a`` the higher-placed slot, ``b`` the other or None
    (a bye: ``a`` goes through)."""

    a: str
    b: str | None

    def __post_init__(self) -> None:
        if not self.a or self.a == self.b:
            raise PairingError(f"a match needs two different players, got {self.a!r} and {self.b!r}")


def first_round(seeded: list[str]) -> list[KnockoutMatch]:
    """The first round of a single-elimination bracket for players in seed order (best first):
    the bracket has the next power of two of slots; the missing seeds are byes, so the top
    seeds pass. Raises :class:`PairingError` for fewer than 2 players or duplicates."""
    if len(seeded) < 2 or len(set(seeded)) != len(seeded):
        raise PairingError("a knockout needs at least two distinct players")
    size = 1
    while size < len(seeded):
        size *= 2
    slots = [seeded[s - 1] if s <= len(seeded) else None for s in bracket_order(size)]
    out = []
    for x, y in zip(slots[::2], slots[1::2]):
        if x is None:
            x, y = y, None
        out.append(KnockoutMatch(x, y))
    return out


def next_round(winners: list[str]) -> list[KnockoutMatch]:
    """The next round from the previous round's winners in bracket order (match 1's winner meets
    match 2's, ...). Raises :class:`PairingError` for an odd number of winners (> 1)."""
    if len(winners) < 2 or len(winners) % 2:
        raise PairingError(f"{len(winners)} winners cannot make a knockout round")
    return [KnockoutMatch(a, b) for a, b in zip(winners[::2], winners[1::2])]


def losers_round(survivors: list[str], dropped: list[str] | None = None) -> list[KnockoutMatch]:
    """A losers'-bracket round of a double elimination (art. 11.1 双淘汰制). Without ``dropped``
    (a "minor" round) the survivors meet in bracket order; with ``dropped`` (a "major" round) each
    survivor meets a player just beaten in the winners' bracket, the dropped list reversed so
    that players of the same winners'-bracket half do not meet again at once."""
    if dropped is None:
        return next_round(survivors)
    if len(survivors) != len(dropped):
        raise PairingError(f"{len(survivors)} losers'-bracket survivors but {len(dropped)} dropped")
    return [KnockoutMatch(a, b) for a, b in zip(survivors, reversed(dropped))]


def double_elimination(seeded: list[str], beats) -> tuple[str, list[tuple[str, KnockoutMatch]]]:
    """Run a double elimination for 2^k seeded players; ``beats(match) -> winner id`` decides
    each match (the event's results). Returns the champion and every match played, labelled
    ``W<r>`` (winners' bracket), ``L<r>`` (losers' bracket), ``F`` and ``F2`` (the final, and
    its replay when the losers'-bracket player wins it: nobody is out before two losses)."""
    size = len(seeded)
    if size < 4 or size & (size - 1):
        raise PairingError("this double elimination takes 2^k >= 4 players")
    played: list[tuple[str, KnockoutMatch]] = []

    def play(label: str, ms: list[KnockoutMatch]) -> tuple[list[str], list[str]]:
        won, lost = [], []
        for m in ms:
            w = beats(m)
            if w not in (m.a, m.b):
                raise PairingError(f"{w} did not play {m.a}-{m.b}")
            played.append((label, m))
            won.append(w)
            lost.append(m.b if w == m.a else m.a)
        return won, lost

    wb, dropped = play("W1", first_round(seeded))
    lb, _ = play("L1", losers_round(dropped))
    r = 1
    while len(wb) > 1:
        r += 1
        wb, dropped = play(f"W{r}", next_round(wb))
        lb, _ = play(f"L{2 * r - 2}", losers_round(lb, dropped))
        if len(lb) > 1:
            lb, _ = play(f"L{2 * r - 1}", losers_round(lb))
    final = KnockoutMatch(wb[0], lb[0])
    (champion,), _ = play("F", [final])
    if champion == lb[0]:  # the winners'-bracket player has lost once: the final is replayed
        (champion,), _ = play("F2", [KnockoutMatch(lb[0], wb[0])])
    return champion, played


def match_games(m: KnockoutMatch, games: int, seed: int) -> list[tuple[str, str]]:
    """(white/red, black) of each game of a match: game 1 by lot (13.4), then colours swapped
    game by game (13.5). ``seed`` and the match identify the lot. A bye has no games."""
    if m.b is None:
        return []
    if games < 1:
        raise PairingError("a match has at least one game")
    rng = random.Random(f"{seed}:{m.a}:{m.b}")
    first = (m.a, m.b) if rng.random() < 0.5 else (m.b, m.a)
    return [first if i % 2 == 0 else (first[1], first[0]) for i in range(games)]


def match_winner(m: KnockoutMatch, results: list[tuple[str, str, str]]) -> str | None:
    """The winner of a match from its games ``(white, black, result)`` (1 / ½ / 0 per game,
    art. 14.1), or None when the points are level and play-off games are needed (art. 15.6)."""
    if m.b is None:
        return m.a
    pts = {m.a: 0.0, m.b: 0.0}
    for white, black, res in results:
        if {white, black} != {m.a, m.b}:
            raise PairingError(f"game {white}-{black} is not of the match {m.a}-{m.b}")
        if res not in _GAME_POINTS:
            raise PairingError(f"unknown result {res!r}; one of {', '.join(_GAME_POINTS)}")
        w, b = _GAME_POINTS[res]
        pts[white] += w
        pts[black] += b
    if pts[m.a] == pts[m.b]:
        return None
    return m.a if pts[m.a] > pts[m.b] else m.b


#: Points of a game result for the match score (art. 14.1); forfeits count like wins / losses.
_GAME_POINTS = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5), "+-": (1, 0), "-+": (0, 1),
                "0-0": (0, 0), "--": (0, 0)}


def playoff_groups(rows: list[tuple[str, int]], unshared: set[int]) -> list[list[str]]:
    """Players who share a place that may not be shared (art. 15.6): ``rows`` are (player,
    rank) after tie-breaks, equal ranks shared; ``unshared`` the places that need a play-off
    (e.g. {1} for the title). Returns the groups that must play off, best place first."""
    by_rank: dict[int, list[str]] = {}
    for pid, rank in rows:
        by_rank.setdefault(rank, []).append(pid)
    return [group for rank, group in sorted(by_rank.items())
            if len(group) > 1 and any(rank <= p < rank + len(group) for p in unshared)]
