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
from dataclasses import dataclass, field

from services.pairing.core import PairingError

__all__ = ["bracket_order", "KnockoutMatch", "first_round", "next_round", "match_games",
           "match_winner", "playoff_groups", "losers_round", "double_elimination", "seed_order",
           "Bracket", "MatchState", "check_unshared"]


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


# ------------------------------------------------------------------ a knockout event, round by round
def seed_order(players: list[tuple[str, int | None]], seeding: str, lots_seed: int) -> list[str]:
    """Seeds (best first) of ``players`` = (id, rating) in registration order: ``rating``
    (higher first, unrated last, registration order among equals), ``registration`` (as
    registered) or ``lots`` (a lot drawn by ``random.Random`` seeded with ``lots_seed``, art.
    13.4's 抽签). Raises :class:`PairingError` for an unknown seeding."""
    ids = [pid for pid, _ in players]
    if seeding == "rating":
        rating = dict(players)
        return sorted(ids, key=lambda pid: (rating[pid] is None, -(rating[pid] or 0)))
    if seeding == "registration":
        return ids
    if seeding == "lots":
        rng = random.Random(f"knockout-seeding:{lots_seed}")
        out = list(ids)
        rng.shuffle(out)
        return out
    raise PairingError(f"unknown seeding {seeding!r}: rating, registration or lots")


def check_unshared(places: tuple[int, ...] | list[int]) -> bool:
    """Validate a knockout's places that may not be shared (art. 15.6) and say whether they need
    a match for third place. 1 and 2 are never shared (the final decides them); 3 or 4: the
    semi-final losers play a match for third place. Raises :class:`PairingError` for a place of
    5 or lower: players out in the same earlier round share it (a classification bracket for
    them is not implemented)."""
    bad = [p for p in places if p < 1 or p > 4]
    if bad:
        raise PairingError(f"places {bad} cannot be played off in this knockout: places from 5 on "
                           "are shared by the players out in the same round; only 1-4 are decided "
                           "by matches (3 and 4 by a match for third place)")
    return any(p in (3, 4) for p in places)


@dataclass
class MatchState:
    """One match of a knockout round and its games so far: (white, black, result or None while
    running). ``label``: ``R<round>M<n>`` (the n-th match of knockout round r, bracket order),
    ``F`` the final, ``P3`` the match for third place."""

    label: str
    match: KnockoutMatch
    games: list[tuple[str, str, str | None]] = field(default_factory=list)

    def finished_games(self) -> list[tuple[str, str, str]]:
        return [g for g in self.games if g[2] is not None]  # type: ignore[misc]

    def winner(self, scheduled: int) -> str | None:
        """The winner once the ``scheduled`` games (and any play-off game) are over and the
        points are not level (:func:`match_winner`); None while undecided. A bye's player wins."""
        if self.match.b is None:
            return self.match.a
        done = self.finished_games()
        if len(done) < max(scheduled, len(self.games)):
            return None
        return match_winner(self.match, done)

    def loser(self, scheduled: int) -> str | None:
        w = self.winner(scheduled)
        if w is None or self.match.b is None:
            return None
        return self.match.b if w == self.match.a else self.match.a


@dataclass
class Bracket:
    """A single-elimination event (art. 11.1) folded from its record, round by round.

    ``seeded``: players, best seed first; ``games``: games a match (13.5: 2 = a second game with
    colours swapped); ``third_place``: the semi-final losers play for third place (15.6);
    ``seed``: the lots seed of game 1's colours (13.4). A *knockout round* (``stages``) may take
    several rounds of play: one per scheduled game, then one play-off game at a time for each
    match still level (15.6), colours continuing to alternate. Feed the rounds played with
    :meth:`add_round`; :meth:`next_round` pairs the next one. Pure; raises
    :class:`PairingError` for a record that does not fit the bracket.
    """

    seeded: list[str]
    games: int = 1
    third_place: bool = False
    seed: int = 0
    stages: list[list[MatchState]] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.games < 1:
            raise PairingError("a match has at least one game")
        ms = first_round(self.seeded)
        self.stages = [[MatchState(self._label(1, i, len(ms)), m) for i, m in enumerate(ms)]]

    @staticmethod
    def _label(stage: int, i: int, count: int) -> str:
        return "F" if count == 1 else f"R{stage}M{i + 1}"

    @property
    def current(self) -> list[MatchState]:
        return self.stages[-1]

    def _main(self, stage: list[MatchState]) -> list[MatchState]:
        return [m for m in stage if m.label != "P3"]

    def _decided(self, stage: list[MatchState]) -> bool:
        return all(m.winner(self.games) is not None for m in stage)

    @property
    def finished(self) -> bool:
        """The final (and the match for third place, if any) is decided."""
        return len(self._main(self.current)) == 1 and self._decided(self.current)

    @property
    def champion(self) -> str | None:
        return self._main(self.current)[0].winner(self.games) if self.finished else None

    def _advance(self) -> None:
        """Open the next knockout round once every match of the current one is decided."""
        if self.finished or not self._decided(self.current):
            return
        main = self._main(self.current)
        winners = [m.winner(self.games) for m in main]
        ms = next_round(winners)  # type: ignore[arg-type]
        k = len(self.stages) + 1
        stage = [MatchState(self._label(k, i, len(ms)), m) for i, m in enumerate(ms)]
        losers = [m.loser(self.games) for m in main]
        losers = [x for x in losers if x is not None]
        if len(ms) == 1 and self.third_place and len(losers) == 2:
            stage.append(MatchState("P3", KnockoutMatch(losers[0], losers[1])))
        self.stages.append(stage)

    def add_round(self, boards: list[tuple[str, str, str | None]]) -> None:
        """Record a round played: (white, black, result code or None) per board. Raises
        :class:`PairingError` when a board is not a game due in the current knockout round."""
        self._advance()
        by_pair = {frozenset((m.match.a, m.match.b)): m for m in self.current if m.match.b}
        for w, b, res in boards:
            m = by_pair.get(frozenset((w, b)))
            if m is None:
                raise PairingError(f"{w}-{b} is not a match of knockout round {len(self.stages)}")
            if m.winner(self.games) is not None:
                raise PairingError(f"match {m.label} {w}-{b} is already decided")
            m.games.append((w, b, res))

    def next_round(self) -> tuple[list[tuple[str, str]], list[str]]:
        """The next round's games (white, black) and the decisions taken (labels, lots, byes,
        play-offs with their article). Raises :class:`PairingError` when the event is over or a
        game of the last round has no result."""
        if any(g[2] is None for m in self.current for g in m.games):
            raise PairingError("a game of the last round has no result yet")
        self._advance()
        if self.finished:
            raise PairingError(f"the knockout is over: {self.champion} won the final")
        pairs, decisions = [], []
        k = len(self.stages)
        for m in self.current:
            a, b = m.match.a, m.match.b
            n = len(m.games)
            if b is None:
                if all(not x.games for x in self.current):  # the knockout round's first round
                    decisions.append(f"{m.label} {a} bye: a top seed passes (bracket of "
                                     f"{2 * len(self.stages[0])} for {len(self.seeded)})")
                continue
            if m.winner(self.games) is not None:
                continue
            if n < self.games:
                w, bl = match_games(m.match, self.games, self.seed)[n]
                why = ("colours by lot, art. 13.4" if n == 0 else "colours swapped, art. 13.5")
                decisions.append(f"{m.label} {a}-{b} game {n + 1} of {self.games}: {w} white ({why})")
            else:
                w, bl = match_games(m.match, n + 1, self.seed)[n]
                pts = _points(m)
                decisions.append(f"{m.label} {a}-{b} level {pts[a]:g}-{pts[b]:g} after {n} game(s): "
                                 f"play-off game {n + 1}, {w} white (art. 15.6)")
            pairs.append((w, bl))
        if not pairs:
            raise PairingError(f"nothing to pair in knockout round {k}")
        return pairs, decisions

    def places(self) -> dict[str, int]:
        """Each player's place so far: the champion 1, the final's loser 2, the match for third
        place's winner 3 and loser 4; otherwise the players out in the same knockout round share
        the place after the players still in then (semi-final losers 3, quarter-final losers 5,
        ...). Players still in share place 1 until they are out."""
        out = {pid: 1 for pid in self.seeded}
        for stage in self.stages:
            main = self._main(stage)
            for m in main:
                lost = m.loser(self.games)
                if lost is not None:
                    out[lost] = len(main) + 1
            for m in stage:
                if m.label == "P3" and m.winner(self.games) is not None:
                    out[m.winner(self.games)], out[m.loser(self.games)] = 3, 4  # type: ignore[index]
        return out


def _points(m: MatchState) -> dict[str, float]:
    pts = {m.match.a: 0.0, m.match.b: 0.0}
    for w, b, res in m.finished_games():
        pw, pb = _GAME_POINTS[res]
        pts[w] += pw
        pts[b] += pb
    return pts
