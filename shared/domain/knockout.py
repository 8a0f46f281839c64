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

from contracts.messages import TournamentCreated

from shared.errors import PairingError
from shared.domain.results import points

#: The knockout systems (xiangqi 1999 art. 11.1: 淘汰制; a double elimination).
KNOCKOUTS = ("knockout", "double-elimination")

__all__ = ["bracket_order", "KnockoutMatch", "first_round", "next_round", "match_games",
           "match_winner", "playoff_groups", "losers_round", "double_elimination", "seed_order",
           "Bracket", "MatchState", "check_unshared", "due_game", "DoubleElimination", "Playoffs",
           "PlayoffRule"]


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
    """Play a whole one-game-a-match :class:`DoubleElimination` with ``beats(match) -> winner
    id`` deciding each match (a simulation aid for tests and what-ifs). Returns the champion and
    every match played, labelled by its bracket round (``W<r>``, ``L<r>``, ``GF``, ``GF2``).
    Raises :class:`PairingError` when ``beats`` names a player who is not in the match."""
    de = DoubleElimination(list(seeded))
    played: list[tuple[str, KnockoutMatch]] = []
    while not de.finished:
        de.next_round()
        boards = []
        for stage, m in de.running():
            w = beats(m.match)
            if w not in (m.match.a, m.match.b):
                raise PairingError(f"{w} did not play {m.match.a}-{m.match.b}")
            played.append((stage, m.match))
            boards.append((m.match.a, m.match.b, "1-0" if w == m.match.a else "0-1"))
        de.add_round(boards)
    return de.champion, played  # type: ignore[return-value]


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
        w, b = game_points(res)
        pts[white] += w
        pts[black] += b
    if pts[m.a] == pts[m.b]:
        return None
    return m.a if pts[m.a] > pts[m.b] else m.b


def game_points(res: str) -> tuple[float, float]:
    """(White's, Black's) points of a game's result code for the match score (art. 14.1:
    1 / ½ / 0; forfeits count like wins and losses; :func:`shared.domain.results.points`);
    ``PairingError`` for an unknown code."""
    try:
        return points(res)
    except ValueError as e:
        raise PairingError(str(e)) from None


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
    """Validate a knockout's places that may not be shared (art. 15.6: 冠军或不宜并列的名次，应安排
    加赛) and say whether they need a match for third place (3 or 4). 1 and 2 are never shared
    (the final decides them); a place from 5 on is decided by classification play-offs among
    the players who would share it (:class:`Playoffs`). Raises :class:`PairingError` for a
    place below 1."""
    bad = [p for p in places if p < 1]
    if bad:
        raise PairingError(f"places {bad}: a place is 1 or more")
    return any(p in (3, 4) for p in places)


@dataclass(frozen=True)
class PlayoffRule:
    """How a level match is finally settled (art. 15.6: 冠军或不宜并列的名次，应安排加赛或在赛前补充
    细则中作出明确规定 -- play-off games, or a rule fixed before the event): at most ``limit``
    play-off games after the scheduled ones (None: no bound), then ``decider``: ``lots`` (a lot
    drawn by ``random.Random`` seeded with ``seed``, the event's ``lots_seed``, and the match, so
    a replay draws the same) or ``higher-seed`` (the better of the two in ``order``, the seeds
    best first). Raises :class:`PairingError` for an unknown decider."""

    limit: int | None = None
    decider: str = "lots"
    seed: int = 0
    order: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.decider not in ("lots", "higher-seed"):
            raise PairingError(f"unknown play-off decider {self.decider!r}: lots or higher-seed")
        if self.limit is not None and self.limit < 0:
            raise PairingError("the play-off games of a match are 0 or more")

    def decide(self, m: KnockoutMatch) -> tuple[str, str]:
        """(winner, how) of the level match ``m`` once its play-off games are used up."""
        if self.decider == "higher-seed":
            rank = {pid: i for i, pid in enumerate(self.order)}
            w = min((m.a, m.b), key=lambda pid: rank.get(pid, len(rank)))  # type: ignore[arg-type]
            return w, "as the higher seed"
        rng = random.Random(f"{self.seed}:playoff-lot:{m.a}:{m.b}")
        return (m.a if rng.random() < 0.5 else m.b), f"by lot (seed {self.seed})"  # type: ignore[return-value]


@dataclass
class MatchState:
    """One match of a knockout round and its games so far: (white, black, result or None while
    running). ``label``: ``R<round>M<n>`` (the n-th match of knockout round r, bracket order),
    ``F`` the final; a double elimination's ``W<r>M<n>``, ``L<r>M<n>``, ``GF``, ``GF2``."""

    label: str
    match: KnockoutMatch
    games: list[tuple[str, str, str | None]] = field(default_factory=list)
    rule: PlayoffRule | None = None  # the play-off bound and decider (None: unbounded)

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
        w = match_winner(self.match, done)
        if w is None and self._settled(scheduled):
            w = self.rule.decide(self.match)[0]  # type: ignore[union-attr]
        return w

    def _settled(self, scheduled: int) -> bool:
        """Level after the scheduled games and every play-off game the rule allows."""
        r = self.rule
        return r is not None and r.limit is not None and len(self.finished_games()) >= scheduled + r.limit

    def decision(self, scheduled: int) -> str | None:
        """How the match was settled when its play-off games were used up level (art. 15.6),
        for the record; None otherwise."""
        done = self.finished_games()
        if (self.match.b is None or len(done) < len(self.games) or not self._settled(scheduled)
                or match_winner(self.match, done) is not None):
            return None
        w, how = self.rule.decide(self.match)  # type: ignore[union-attr]
        pts = _points(self)
        return (f"{self.label} {self.match.a}-{self.match.b} level {pts[self.match.a]:g}-"
                f"{pts[self.match.b]:g} after {len(done) - scheduled} play-off game(s), the limit "
                f"{self.rule.limit}: {w} goes through {how} (art. 15.6)")  # type: ignore[union-attr]

    def loser(self, scheduled: int) -> str | None:
        w = self.winner(scheduled)
        if w is None or self.match.b is None:
            return None
        return self.match.b if w == self.match.a else self.match.a


@dataclass
class Playoffs:
    """Classification play-offs (排名赛) of a knockout for places that may not be shared (art.
    15.6: 应安排加赛). The players who would share place ``P`` (``m`` of them, out in the same
    round) play a single elimination of their own (:class:`Bracket`, seeded by their seeds)
    when a place in ``P .. P+m-1`` is in ``unshared``; its places count from ``P`` and it
    classifies further down the same way (its own ``unshared`` places shifted by ``P - 1``).
    The semi-final losers' group (``P`` = 3, two players) is the match for third place.
    ``games`` and ``seed`` as for the knockout's own matches; ``offset``: the event's place
    just above this bracket's first (0 for the event itself), so decisions name real places."""

    games: int
    seed: int
    unshared: tuple[int, ...]
    offset: int = 0
    children: dict[int, "Bracket"] = field(default_factory=dict)
    playoff_games: int | None = None
    decider: str = "lots"

    def spawn(self, place: int, players: list[str]) -> None:
        """Open the play-off of the group sharing ``place`` (players best seed first), if any."""
        rel = tuple(sorted({q - place + 1 for q in self.unshared if place <= q < place + len(players)}))
        if place not in self.children and len(players) > 1 and rel:
            self.children[place] = Bracket(players, games=self.games, seed=self.seed, unshared=rel,
                                           place_offset=self.offset + place - 1,
                                           playoff_games=self.playoff_games, decider=self.decider)

    def prepare(self) -> None:
        for ch in self.children.values():
            ch._prepare()

    @property
    def finished(self) -> bool:
        return all(ch.finished for ch in self.children.values())

    def has_open_game(self) -> bool:
        return any(ch.has_open_game() for ch in self.children.values())

    def take(self, w: str, b: str, res: str | None) -> bool:
        return any(ch._take(w, b, res) for ch in self.children.values())

    def pending(self) -> tuple[list[tuple[str, str]], list[str]]:
        pairs, decisions = [], []
        for place, ch in sorted(self.children.items()):
            if ch.finished:
                continue
            ps, ds = ch._pending()
            pairs += ps
            low, top = self.offset + place, self.offset + place + len(ch.seeded) - 1
            tag = f"P{low}" if top == low + 1 else f"P{low}-{top}"
            decisions += [f"{tag} {d}" for d in ds]
        return pairs, decisions

    def rule_decisions(self) -> list[str]:
        out = []
        for place, ch in sorted(self.children.items()):
            low, top = self.offset + place, self.offset + place + len(ch.seeded) - 1
            tag = f"P{low}" if top == low + 1 else f"P{low}-{top}"
            out += [f"{tag} {d}" for d in ch.rule_decisions()]
        return out

    def apply(self, out: dict[str, int]) -> None:
        for place, ch in self.children.items():
            for pid, p in ch.places().items():
                out[pid] = place - 1 + p


class _Event:
    """What a knockout event and a double elimination share: it is ``finished`` when its final
    (``_final_decided``: a double elimination's grand final and its replay, if due) and every
    classification play-off (``playoffs``: the match for third place ...) are decided."""

    @property
    def finished(self) -> bool:
        return self._final_decided and self.playoffs.finished  # type: ignore[attr-defined]


@dataclass
class Bracket(_Event):
    """A single-elimination event (art. 11.1) folded from its record, round by round.

    ``seeded``: players, best seed first; ``games``: games a match (13.5: 2 = a second game with
    colours swapped); ``unshared``: places that may not be shared (15.6), decided by
    :class:`Playoffs` (3 or 4: the semi-final losers play for third place; 5 or more:
    classification play-offs among the players out in the same round); ``third_place``: the
    same as 3 in ``unshared``; ``seed``: the lots seed of game 1's colours (13.4). A *knockout
    round* (``stages``) may take several rounds of play: one per scheduled game, then one
    play-off game at a time for each match still level (15.6), colours continuing to alternate,
    at most ``playoff_games`` of them (None: no bound), after which ``decider`` settles the match
    (:class:`PlayoffRule`: lots from ``seed`` or the higher seed); classification play-offs run
    alongside. Feed the rounds played with :meth:`add_round`;
    :meth:`next_round` pairs the next one. Pure; raises :class:`PairingError` for a record that
    does not fit the bracket. ``place_offset``: set on a classification play-off's bracket
    (its place 1 is the event's ``place_offset + 1``); its :meth:`places` stay relative.
    """

    seeded: list[str]
    games: int = 1
    third_place: bool = False
    seed: int = 0
    unshared: tuple[int, ...] = ()
    place_offset: int = 0
    stages: list[list[MatchState]] = field(default_factory=list)
    playoff_games: int | None = None
    decider: str = "lots"

    def __post_init__(self) -> None:
        if self.games < 1:
            raise PairingError("a match has at least one game")
        if self.third_place:
            self.unshared = tuple(sorted({*self.unshared, 3}))
        check_unshared(self.unshared)
        self.rule = PlayoffRule(self.playoff_games, self.decider, self.seed, tuple(self.seeded))
        self.playoffs = Playoffs(self.games, self.seed, self.unshared, self.place_offset,
                                 playoff_games=self.playoff_games, decider=self.decider)
        ms = first_round(self.seeded)
        self.stages = [[MatchState(self._label(1, i, len(ms)), m, rule=self.rule) for i, m in enumerate(ms)]]

    @staticmethod
    def _label(stage: int, i: int, count: int) -> str:
        return "F" if count == 1 else f"R{stage}M{i + 1}"

    @property
    def current(self) -> list[MatchState]:
        return self.stages[-1]

    def _decided(self, stage: list[MatchState]) -> bool:
        return all(m.winner(self.games) is not None for m in stage)

    @property
    def _final_decided(self) -> bool:
        return len(self.current) == 1 and self._decided(self.current)

    @property
    def champion(self) -> str | None:
        return self.current[0].winner(self.games) if self.finished else None

    def _seed_sorted(self, players: list[str]) -> list[str]:
        return sorted(players, key=self.seeded.index)

    def _prepare(self) -> None:
        """Open the next knockout round once every match of the current one is decided, and
        the play-offs of the players out in each decided round."""
        if not self._final_decided and self._decided(self.current):
            winners = [m.winner(self.games) for m in self.current]
            ms = next_round(winners)  # type: ignore[arg-type]
            k = len(self.stages) + 1
            self.stages.append([MatchState(self._label(k, i, len(ms)), m, rule=self.rule)
                                for i, m in enumerate(ms)])
        for stage in self.stages:
            if self._decided(stage):
                lost = [x for x in (m.loser(self.games) for m in stage) if x is not None]
                self.playoffs.spawn(len(stage) + 1, self._seed_sorted(lost))
        self.playoffs.prepare()

    def has_open_game(self) -> bool:
        """A game paired without a result, here or in a play-off."""
        return any(g[2] is None for m in self.current for g in m.games) or self.playoffs.has_open_game()

    def _take(self, w: str, b: str, res: str | None) -> bool:
        for m in self.current:
            if m.match.b is not None and {m.match.a, m.match.b} == {w, b} and m.winner(self.games) is None:
                m.games.append((w, b, res))
                return True
        return self.playoffs.take(w, b, res)

    def add_round(self, boards: list[tuple[str, str, str | None]]) -> None:
        """Record a round played: (white, black, result code or None) per board. Raises
        :class:`PairingError` when a board is not a game due in the current knockout round or
        a play-off."""
        self._prepare()
        for w, b, res in boards:
            if not self._take(w, b, res):
                raise PairingError(f"{w}-{b} is not a match due in knockout round {len(self.stages)} "
                                   "or a play-off")

    def _pending(self) -> tuple[list[tuple[str, str]], list[str]]:
        pairs, decisions = [], []
        for m in self.current:
            if m.match.b is None:
                if all(not x.games for x in self.current):  # the knockout round's first round
                    decisions.append(f"{m.label} {m.match.a} bye: a top seed passes (bracket of "
                                     f"{2 * len(self.stages[0])} for {len(self.seeded)})")
                continue
            due = due_game(m, self.games, self.seed)
            if due is not None:
                pairs.append(due[0])
                decisions.append(due[1])
        ps, ds = self.playoffs.pending()
        return pairs + ps, decisions + ds

    def next_round(self) -> tuple[list[tuple[str, str]], list[str]]:
        """The next round's games (white, black) and the decisions taken (labels, lots, byes,
        play-offs with their article). Raises :class:`PairingError` when the event is over or a
        game of the last round has no result."""
        if self.has_open_game():
            raise PairingError("a game of the last round has no result yet")
        self._prepare()
        if self.finished:
            raise PairingError(f"the knockout is over: {self.champion} won the final")
        pairs, decisions = self._pending()
        if not pairs:
            raise PairingError(f"nothing to pair in knockout round {len(self.stages)}")
        return pairs, decisions

    def rule_decisions(self) -> list[str]:
        """Every match settled by the play-off rule so far (:meth:`MatchState.decision`), here
        and in the classification play-offs, in bracket order."""
        self._prepare()
        return ([d for stage in self.stages for m in stage if (d := m.decision(self.games))]
                + self.playoffs.rule_decisions())

    def places(self) -> dict[str, int]:
        """Each player's place so far: the champion 1, the final's loser 2; the players out in
        the same knockout round share the place after the players still in then (semi-final
        losers 3, quarter-final losers 5, ...) unless a play-off decides among them (the match
        for third place: 3 and 4; classification play-offs, :class:`Playoffs`). Players still in
        share place 1 until they are out."""
        out = {pid: 1 for pid in self.seeded}
        for stage in self.stages:
            for m in stage:
                lost = m.loser(self.games)
                if lost is not None:
                    out[lost] = len(stage) + 1
        self.playoffs.apply(out)
        return out


def due_game(m: MatchState, games: int, seed: int) -> tuple[tuple[str, str], str] | None:
    """The next game (white, black) of a match still undecided after its finished games, and
    the decision taken: game ``n`` of ``games`` (colours by lot, 13.4, then swapped, 13.5) or a
    play-off game when the points are level (15.6, colours alternating on). None for a bye or a
    decided match."""
    a, b = m.match.a, m.match.b
    if b is None or m.winner(games) is not None:
        return None
    n = len(m.games)
    if n < games:
        w, bl = match_games(m.match, games, seed)[n]
        why = "colours by lot, art. 13.4" if n == 0 else "colours swapped, art. 13.5"
        return (w, bl), f"{m.label} {a}-{b} game {n + 1} of {games}: {w} white ({why})"
    w, bl = match_games(m.match, n + 1, seed)[n]
    pts = _points(m)
    return (w, bl), (f"{m.label} {a}-{b} level {pts[a]:g}-{pts[b]:g} after {n} game(s): "
                     f"play-off game {n + 1}, {w} white (art. 15.6)")


def _points(m: MatchState) -> dict[str, float]:
    pts = {m.match.a: 0.0, m.match.b: 0.0}
    for w, b, res in m.finished_games():
        pw, pb = game_points(res)
        pts[w] += pw
        pts[b] += pb
    return pts


# ------------------------------------------------------------- double elimination, round by round
@dataclass
class DoubleElimination(_Event):
    """A double-elimination event (双败淘汰制: xiangqi 1999 art. 11.1; Chinese chess and Go
    rules 1988, 竞赛制度 一: a player is out after two lost matches) folded from its record.

    Structure (the common double-elimination chart; the rule texts name the system but give no
    chart, so this is our documented choice):

    * winners' bracket ``W1`` .. ``Wk`` for a bracket of 2^k slots: a single elimination seeded
      as :func:`first_round` (byes to the top seeds when the field is not a power of two);
    * losers' bracket ``L1`` .. ``L(2k-2)``: ``L1`` pairs the losers of ``W1`` in bracket order;
      each even round ``L(2r-2)`` pairs the survivors with the losers of ``Wr``, that list
      reversed so players from the same half do not meet again at once (:func:`losers_round`;
      for 8 players this is the usual chart, larger published charts vary the drop-in order
      further to put off rematches, we only reverse);
      each odd round ``L(2r-1)`` (r >= 2) pairs the survivors among themselves;
    * grand final ``GF``: the winners'-bracket champion against the losers'-bracket champion;
      with ``reset`` (the default, following the 1988 rule that nobody is out before a second
      loss) a ``GF2`` is played when the losers'-bracket player wins ``GF``.

    A bracket round opens as soon as the rounds it draws from are decided, so ``W2`` and ``L1``
    are played in the same round of play. Each match is played as in :class:`Bracket`:
    ``games`` games (13.5), play-off games while level (15.6), game 1's colours by lot from
    ``seed`` (13.4). A missing player (a bye in ``W1``) gives byes on in the losers' bracket.
    Places (:meth:`places`): champion 1, grand-final loser 2, then the players out in the same
    losers'-bracket round share the place after everyone still in when it ends (8 players: the
    ``L4`` loser 3, ``L3`` loser 4, the ``L2`` losers 5, the ``L1`` losers 7); ``unshared``
    places from 5 on (15.6) are decided by classification play-offs among the players who
    would share them (:class:`Playoffs`). Raises :class:`PairingError` for fewer than 3
    players or a record that does not fit.
    """

    seeded: list[str]
    games: int = 1
    seed: int = 0
    reset: bool = True
    unshared: tuple[int, ...] = ()
    stages: dict[str, list[MatchState | None]] = field(default_factory=dict)
    opened_at: dict[str, int] = field(default_factory=dict)
    rounds_added: int = 0
    playoff_games: int | None = None
    decider: str = "lots"

    def __post_init__(self) -> None:
        if self.games < 1:
            raise PairingError("a match has at least one game")
        if len(self.seeded) < 3 or len(set(self.seeded)) != len(self.seeded):
            raise PairingError("a double elimination needs at least three distinct players")
        size = 1
        while size < len(self.seeded):
            size *= 2
        self.k = size.bit_length() - 1
        self.order = ["W1"] + [x for r in range(2, self.k + 1)
                               for x in (f"W{r}", f"L{2 * r - 3}", f"L{2 * r - 2}")] + ["GF", "GF2"]
        check_unshared(self.unshared)
        self.rule = PlayoffRule(self.playoff_games, self.decider, self.seed, tuple(self.seeded))
        self.playoffs = Playoffs(self.games, self.seed, self.unshared,
                                 playoff_games=self.playoff_games, decider=self.decider)
        self._open()

    # ------------------------------------------------------------------ bracket rounds
    def _winners(self, label: str) -> list[str | None]:
        return [None if m is None else m.winner(self.games) for m in self.stages[label]]

    def _losers(self, label: str) -> list[str | None]:
        return [None if m is None else m.loser(self.games) for m in self.stages[label]]

    def _decided(self, label: str) -> bool:
        return label in self.stages and all(m is None or m.winner(self.games) is not None
                                            for m in self.stages[label])

    def _pairs(self, label: str) -> list[tuple[str | None, str | None]] | None:
        """The slots of bracket round ``label`` once its sources are decided, else None."""
        k = self.k
        if label == "W1":
            return [(m.a, m.b) for m in first_round(self.seeded)]
        if label == "GF":
            lb = f"L{2 * k - 2}"
            if not (self._decided(f"W{k}") and self._decided(lb)):
                return None
            return [(self._winners(f"W{k}")[0], self._winners(lb)[0])]
        if label == "GF2":
            if not (self.reset and self._decided("GF")):
                return None
            gf = self.stages["GF"][0]
            if gf.winner(self.games) == gf.match.a:  # type: ignore[union-attr]
                return None  # the winners'-bracket champion won: no second loss to make up
            return [(gf.match.b, gf.match.a)]  # type: ignore[union-attr]
        n = int(label[1:])
        if label[0] == "W":
            src = self._winners(f"W{n - 1}") if self._decided(f"W{n - 1}") else None
            return None if src is None else list(zip(src[::2], src[1::2]))
        if n == 1:
            src = self._losers("W1") if self._decided("W1") else None
            return None if src is None else list(zip(src[::2], src[1::2]))
        if n % 2:  # minor round: survivors among themselves
            src = self._winners(f"L{n - 1}") if self._decided(f"L{n - 1}") else None
            return None if src is None else list(zip(src[::2], src[1::2]))
        r = n // 2 + 1  # major round L(2r-2): survivors against the losers of W r
        if not (self._decided(f"L{n - 1}") and self._decided(f"W{r}")):
            return None
        return list(zip(self._winners(f"L{n - 1}"), reversed(self._losers(f"W{r}"))))

    def _open(self) -> None:
        for label in self.order:
            if label in self.stages:
                continue
            pairs = self._pairs(label)
            if pairs is None:
                continue
            slots: list[MatchState | None] = []
            for i, (x, y) in enumerate(pairs):
                name = label if len(pairs) == 1 else f"{label}M{i + 1}"
                if x is None and y is None:
                    slots.append(None)  # both feeders were byes: an empty slot
                else:
                    slots.append(MatchState(name, KnockoutMatch(x, y) if x is not None
                                            else KnockoutMatch(y, None), rule=self.rule))  # type: ignore[arg-type]
            self.stages[label] = slots
            self.opened_at[label] = self.rounds_added
        gone = 0
        for label in self._losers_rounds():
            real = [m for m in self.stages[label] if m is not None and m.match.b is not None]
            gone += len(real)
            if self._decided(label):
                lost = sorted((m.loser(self.games) for m in real), key=self.seeded.index)  # type: ignore[arg-type]
                self.playoffs.spawn(len(self.seeded) - gone + 1, lost)  # type: ignore[arg-type]
        self.playoffs.prepare()

    def _losers_rounds(self) -> list[str]:
        return sorted((x for x in self.stages if x[0] == "L"), key=lambda x: int(x[1:]))

    def running(self) -> list[tuple[str, MatchState]]:
        """(bracket round, match) of every open match not yet decided (byes excluded)."""
        return [(label, m) for label, ms in self.stages.items() for m in ms
                if m is not None and m.match.b is not None and m.winner(self.games) is None]

    # ------------------------------------------------------------------ the event
    @property
    def _final_decided(self) -> bool:
        if not self._decided("GF"):
            return False
        gf = self.stages["GF"][0]
        if not self.reset or gf.winner(self.games) == gf.match.a:  # type: ignore[union-attr]
            return True
        return self._decided("GF2")

    @property
    def champion(self) -> str | None:
        if not self._final_decided:
            return None
        last = self.stages["GF2" if "GF2" in self.stages else "GF"][0]
        return last.winner(self.games)  # type: ignore[union-attr]

    def add_round(self, boards: list[tuple[str, str, str | None]]) -> None:
        """Record a round played: (white, black, result code or None) per board. Raises
        :class:`PairingError` when a board is not a game of an open, undecided match."""
        self._open()
        by_pair = {frozenset((m.match.a, m.match.b)): m for _, m in self.running()}
        for w, b, res in boards:
            m = by_pair.get(frozenset((w, b)))
            if m is not None:
                m.games.append((w, b, res))
            elif not self.playoffs.take(w, b, res):
                raise PairingError(f"{w}-{b} is not a match due in this double elimination")
        self.rounds_added += 1

    def next_round(self) -> tuple[list[tuple[str, str]], list[str]]:
        """The next round's games (white, black) and the decisions taken (byes, games of a
        match, play-offs, a grand-final replay). Raises :class:`PairingError` when the event is
        over or a game of the last round has no result."""
        if any(g[2] is None for _, m in self.running() for g in m.games) or self.playoffs.has_open_game():
            raise PairingError("a game of the last round has no result yet")
        self._open()
        if self.finished:
            raise PairingError(f"the double elimination is over: {self.champion} won the grand final")
        decisions = []
        for label, ms in self.stages.items():
            if self.opened_at[label] != self.rounds_added:
                continue
            for m in ms:
                if m is not None and m.match.b is None:
                    decisions.append(f"{m.label} {m.match.a} bye (no opponent in the bracket of "
                                     f"{2 ** self.k} for {len(self.seeded)})")
            if label == "GF2":
                gf = self.stages["GF"][0]
                decisions.append(f"GF2: {gf.match.b} won the grand final, {gf.match.a}'s first "
                                 "loss: the final is replayed (out after two losses)")  # type: ignore[union-attr]
        pairs = []
        for _, m in self.running():
            pair, why = due_game(m, self.games, self.seed)  # type: ignore[misc]
            pairs.append(pair)
            decisions.append(why)
        ps, ds = self.playoffs.pending()
        pairs += ps
        decisions += ds
        if not pairs:
            raise PairingError("nothing to pair in this double elimination")
        return pairs, decisions

    def rule_decisions(self) -> list[str]:
        """Every match settled by the play-off rule so far (:meth:`MatchState.decision`),
        bracket rounds in order, then the classification play-offs."""
        self._open()
        return ([d for label in self.order if label in self.stages for m in self.stages[label]
                 if m is not None and (d := m.decision(self.games))] + self.playoffs.rule_decisions())

    def places(self) -> dict[str, int]:
        """Each player's place so far (see the class): players still in share place 1."""
        out = {pid: 1 for pid in self.seeded}
        gone = 0
        for label in self._losers_rounds():
            ms = [m for m in self.stages[label] if m is not None and m.match.b is not None]
            gone += len(ms)
            for m in ms:
                lost = m.loser(self.games)
                if lost is not None:
                    out[lost] = len(self.seeded) - gone + 1
        self.playoffs.apply(out)
        if self._final_decided:
            champ = self.champion
            gf = self.stages["GF"][0]
            out[champ] = 1  # type: ignore[index]
            out[gf.match.b if champ == gf.match.a else gf.match.a] = 2  # type: ignore[union-attr,index]
        return out


def knockout_bracket(created: TournamentCreated, numbers: dict[str, int], rounds, results: dict[str, str]):
    """The :class:`Bracket` (``knockout``) or
    :class:`DoubleElimination` (``double-elimination``) of a tournament
    folded over its rounds (RoundPaired) and results (game id -> result code); ``numbers``: the
    seeds (LotsDrawn). Used by the pairing and the standings services. Raises ``PairingError``
    for a record that does not fit the bracket."""
    seeded = [pid for pid, _ in sorted(numbers.items(), key=lambda kv: kv[1])]
    bound = {"playoff_games": created.playoff_games, "decider": created.playoff_decider}
    if created.system == "double-elimination":
        br = DoubleElimination(seeded, games=created.games_per_match, seed=created.lots_seed,
                               reset=created.grand_final_reset, unshared=tuple(created.unshared_places),
                               **bound)
    else:
        br = Bracket(seeded, games=created.games_per_match, unshared=tuple(created.unshared_places),
                     seed=created.lots_seed, **bound)
    for r in rounds:
        br.add_round([(b.white, b.black, results.get(b.game_id)) for b in r.boards])
    return br
