"""McMahon pairing for Go events (pure: no I/O, no clock, no randomness).

Grades are those of the Chinese amateur dan/kyu system (中国围棋业余段位级位制 2005, in
../shared/rules/go-rules-china-2002-japan-1989-ing.txt, art. 4: 7 dan down to 1 dan, then 1 kyu
down to 25 kyu). A grade is a *rank value*: ``d`` dan = d - 1 (1d = 0 ... 7d = 6), ``k`` kyu = -k
(1k = -1 ... 25k = -25).

McMahon score (MMS): the initial score is the rank value held between the *bottom bar* (the
contract's ``mcmahon_floor``) and the *top bar* (``mcmahon_bar``), counted from 30 kyu as
OpenGotha and OGS count it (:func:`shared.domain.grades.initial_mms`); each win adds 1 (a jigo ½). Pairing follows OpenGotha's criteria, as weights of a maximum
weight matching over all players (networkx): no rematch (absolute), smallest MMS difference (by
far the heaviest), colour balance, not drawing up or down a player who was drawn up or down in
the previous round, and within a score group the upper half meets the lower half ("split and
slip", by rank value then rating). An odd field gives the bye to the lowest-placed player who has
not had one. Colours: the player with more whites so far takes black; equal: the one who had
white last takes black; still equal, the higher MMS (then rank) takes white (no nigiri: the
pairing must be re-derivable from the log).

Errors: :class:`PairingError` (from :mod:`services.pairing.core`) for bad grades or input.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from services.pairing.core import PairingError

__all__ = ["McMahonPlayer", "McMahonRound", "mcmahon_pair"]

@dataclass(frozen=True)
class McMahonPlayer:
    """A player before the round: ``mms`` current McMahon score (initial + points), ``rank``
    rank value, ``rating`` optional, ``opponents`` ids met (byes excluded), ``colours`` one of
    ``w``/``b``/``-`` per round, ``floats`` per round ``up``/``down``/``""``, ``had_bye``."""

    id: str
    mms: float
    rank: int
    rating: int | None = None
    opponents: tuple[str, ...] = ()
    colours: tuple[str, ...] = ()
    floats: tuple[str, ...] = ()
    had_bye: bool = False


@dataclass(frozen=True)
class McMahonRound:
    """``boards``: (white id, black id) from the highest MMS down; ``bye``: id or None;
    ``floats``: id -> ``up``/``down`` for players paired outside their score group."""

    boards: tuple[tuple[str, str], ...]
    bye: str | None
    floats: dict


def _balance(p: McMahonPlayer) -> int:
    return p.colours.count("w") - p.colours.count("b")


def _weight(a: McMahonPlayer, b: McMahonPlayer, pos: dict[str, tuple[int, int]]) -> int:
    diff = abs(a.mms - b.mms)
    w = 10**9 - int(10**6 * diff * diff)  # score difference: by far the heaviest criterion
    ba, bb = _balance(a), _balance(b)
    if ba and bb and (ba > 0) == (bb > 0):  # both owe the same colour
        w -= 1_000 * min(abs(ba), abs(bb))
    if diff:
        hi, lo = (a, b) if a.mms > b.mms else (b, a)
        if hi.floats[-1:] == ("down",):
            w -= 10_000
        if lo.floats[-1:] == ("up",):
            w -= 10_000
    else:  # split and slip inside the score group
        (ia, size), (ib, _) = pos[a.id], pos[b.id]
        w -= 10 * abs(abs(ia - ib) - size // 2)
    return w


def mcmahon_pair(players: list[McMahonPlayer]) -> McMahonRound:
    """Pair one McMahon round. Raises :class:`PairingError` for duplicate ids or when no pairing
    without rematches exists."""
    ids = [p.id for p in players]
    if len(set(ids)) != len(ids):
        raise PairingError("duplicate player ids")
    order = sorted(players, key=lambda p: (-p.mms, -p.rank, -(p.rating or 0), p.id))
    bye = None
    field = order
    if len(order) % 2:
        for cand in reversed(order):
            if cand.had_bye:
                continue
            rest = [p for p in order if p.id != cand.id]
            if _matching_size(rest) == len(rest) // 2:
                bye, field = cand.id, rest
                break
        else:
            raise PairingError("no player can take the bye (all had one or no pairing remains)")
    groups: dict[float, list[McMahonPlayer]] = {}
    for p in field:
        groups.setdefault(p.mms, []).append(p)
    pos = {p.id: (i, len(g)) for g in groups.values() for i, p in enumerate(g)}
    g = nx.Graph()
    for i, a in enumerate(field):
        for b in field[i + 1:]:
            if b.id not in a.opponents:
                g.add_edge(a.id, b.id, weight=_weight(a, b, pos))
    matching = nx.max_weight_matching(g, maxcardinality=True)
    if 2 * len(matching) != len(field):
        raise PairingError("no complete pairing without a rematch exists")
    by_id = {p.id: p for p in field}
    boards, floats = [], {}
    for x, y in matching:
        a, b = by_id[x], by_id[y]
        white, black = _colours(a, b)
        boards.append((white.id, black.id))
        if a.mms != b.mms:
            hi, lo = (a, b) if a.mms > b.mms else (b, a)
            floats[hi.id], floats[lo.id] = "down", "up"
    rank_of = {p.id: i for i, p in enumerate(order)}
    boards.sort(key=lambda wb: min(rank_of[wb[0]], rank_of[wb[1]]))
    return McMahonRound(tuple(boards), bye, floats)


def _colours(a: McMahonPlayer, b: McMahonPlayer) -> tuple[McMahonPlayer, McMahonPlayer]:
    """(white, black): fewer whites so far gets white; then who had black last; then the higher
    MMS and rank."""
    if _balance(a) != _balance(b):
        return (a, b) if _balance(a) < _balance(b) else (b, a)
    la = next((c for c in reversed(a.colours) if c in "wb"), "")
    lb = next((c for c in reversed(b.colours) if c in "wb"), "")
    if la != lb and la and lb:
        return (a, b) if la == "b" else (b, a)
    return (a, b) if (a.mms, a.rank, a.rating or 0, b.id) >= (b.mms, b.rank, b.rating or 0, a.id) else (b, a)


def _matching_size(players: list[McMahonPlayer]) -> int:
    g = nx.Graph()
    g.add_nodes_from(p.id for p in players)
    for i, a in enumerate(players):
        for b in players[i + 1:]:
            if b.id not in a.opponents:
                g.add_edge(a.id, b.id)
    return len(nx.max_weight_matching(g, maxcardinality=True))
