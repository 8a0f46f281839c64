"""Pure standings core: scores, FIDE tie-breaks and shared ranks from results.

No I/O, no clock, no randomness.  Tie-break codes and definitions follow the FIDE Tie-Break
Regulations (FIDE Handbook C.07, 2023 edition, in force 2024):

====== ======================================================================== ========
code   definition                                                               C.07 art.
====== ======================================================================== ========
DE     direct encounter: points scored in games among the players still tied    6
       when DE is applied, used only if every pair of them has met
WIN    rounds in which the player got a win's points, played or not (forfeit    7.1
       wins and full-point byes included)
WON    games won over the board                                                 7.2
BPG    games played over the board with black                                   7.3
BWG    games won over the board with black                                      7.4
BH     Buchholz: sum of the opponents' scores                                   8.1
BH-C1  Buchholz cut 1: BH without the lowest opponent score                     8.1/14.1
SB     Sonneborn-Berger: sum over games of (own points x opponent's score)      9.1
KS     Koya: points scored against opponents with >= 50 % of the maximum score  9.2
====== ======================================================================== ========

Simplified (TODO): C.07 article 16 evaluates a player's *unplayed* rounds (byes, forfeits)
against a "virtual opponent"; here BH / BH-C1 / SB / KS use the real opponent of a forfeited
game with his actual score and byes contribute nothing.  DE counts only games played over the
board and, when not all tied players met, does not separate them (the C.07 6.2 extension for
incomplete encounters is not implemented; DE is not re-applied to a still-tied subgroup).

Errors: bad input raises :class:`StandingsError` (a ``ValueError``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Iterable

__all__ = [
    "StandingsError",
    "Player",
    "GameResult",
    "Bye",
    "Row",
    "Standings",
    "TIEBREAKS",
    "compute_standings",
]

TIEBREAKS = ("DE", "WIN", "WON", "BPG", "BWG", "BH", "BH-C1", "SB", "KS")

# result -> (white points, black points, played over the board)
_RESULTS: dict[str, tuple[float, float, bool]] = {
    "1-0": (1.0, 0.0, True),
    "0-1": (0.0, 1.0, True),
    "1/2-1/2": (0.5, 0.5, True),
    "+-": (1.0, 0.0, False),  # white wins by forfeit
    "-+": (0.0, 1.0, False),  # black wins by forfeit
    "--": (0.0, 0.0, False),  # double forfeit
}
_WIN_POINTS = 1.0


class StandingsError(ValueError):
    """Bad standings input: unknown player or result, duplicate ids, a player twice in a round,
    an unknown tie-break code."""


@dataclass(frozen=True)
class Player:
    """A participant: unique ``id``, display ``name``, optional ``rating`` (Elo, not used for
    ranking)."""

    id: str
    name: str
    rating: int | None = None


@dataclass(frozen=True)
class GameResult:
    """One paired game.  ``round`` >= 1; ``white``/``black`` player ids; ``result`` one of
    ``"1-0" "0-1" "1/2-1/2"`` (played) or ``"+-" "-+" "--"`` (forfeits: the win goes to the
    ``+`` side, ``--`` is a double forfeit scoring 0 for both)."""

    round: int
    white: str
    black: str
    result: str

    @property
    def points(self) -> tuple[float, float]:
        """``(white_points, black_points)``."""
        w, b, _ = _RESULTS[self.result]
        return w, b

    @property
    def played(self) -> bool:
        """True if the game was played over the board (not a forfeit)."""
        return _RESULTS[self.result][2]


@dataclass(frozen=True)
class Bye:
    """A round without an opponent: ``player`` id gets ``points`` (0, 0.5 or 1) in ``round``."""

    round: int
    player: str
    points: float = 1.0


@dataclass(frozen=True)
class Row:
    """One line of the standings: shared ``rank`` (1, 2, 2, 4 style), ``score`` in points and
    ``tiebreaks`` ``{code: value}`` for the codes of the requested order."""

    rank: int
    id: str
    name: str
    score: float
    tiebreaks: dict[str, float]


@dataclass(frozen=True)
class Standings:
    """Ordered rows plus the tie-break ``order`` used.  ``de_groups``: the tied groups (ids)
    to which DE was applied and in which every pair had met, i.e. where DE can separate."""

    rows: list[Row]
    order: tuple[str, ...]
    de_groups: tuple[tuple[str, ...], ...] = field(default=())

    def row(self, player_id: str) -> Row:
        """The row of ``player_id``; raises :class:`StandingsError` if unknown."""
        for r in self.rows:
            if r.id == player_id:
                return r
        raise StandingsError(f"unknown player {player_id!r}")

    def de_rank(self, player_id: str) -> int:
        """Position by DE inside the player's tied group (1 = best, equal DE share the position),
        0 if DE did not apply to him (not tied, or the tied players had not all met).  This is
        the convention of lichess/scalachess snapshots, where DE is reported as a rank."""
        for group in self.de_groups:
            if player_id in group:
                mine = self.row(player_id).tiebreaks["DE"]
                return 1 + sum(self.row(o).tiebreaks["DE"] > mine for o in group)
        return 0


def _validate(
    players: list[Player], games: list[GameResult], byes: list[Bye], order: tuple[str, ...]
) -> None:
    ids: set[str] = set()
    for p in players:
        if not isinstance(p, Player):
            raise StandingsError(f"expected Player, got {type(p).__name__}")
        if not isinstance(p.id, str) or not p.id:
            raise StandingsError(f"player id must be a non-empty str, got {p.id!r}")
        if p.id in ids:
            raise StandingsError(f"duplicate player id {p.id!r}")
        ids.add(p.id)
    unknown = [code for code in order if code not in TIEBREAKS]
    if unknown:
        raise StandingsError(f"unknown tie-break {unknown[0]!r}; supported: {', '.join(TIEBREAKS)}")
    if len(set(order)) != len(order):
        raise StandingsError(f"tie-break order repeats a code: {order}")
    seen: set[tuple[int, str]] = set()

    def place(rnd: object, pid: str, what: str) -> None:
        if isinstance(rnd, bool) or not isinstance(rnd, int) or rnd < 1:
            raise StandingsError(f"{what}: round must be an int >= 1, got {rnd!r}")
        if pid not in ids:
            raise StandingsError(f"{what}: unknown player {pid!r}")
        if (rnd, pid) in seen:
            raise StandingsError(f"{what}: player {pid!r} appears twice in round {rnd}")
        seen.add((rnd, pid))

    for g in games:
        if g.result not in _RESULTS:
            raise StandingsError(
                f"game {g.white}-{g.black} round {g.round}: unknown result {g.result!r}; "
                f"expected one of {', '.join(_RESULTS)}"
            )
        if g.white == g.black:
            raise StandingsError(f"game in round {g.round}: {g.white!r} cannot play himself")
        place(g.round, g.white, f"game {g.white}-{g.black}")
        place(g.round, g.black, f"game {g.white}-{g.black}")
    for b in byes:
        if isinstance(b.points, bool) or b.points not in (0, 0.5, 1):
            raise StandingsError(f"bye of {b.player!r}: points must be 0, 0.5 or 1, got {b.points!r}")
        place(b.round, b.player, "bye")


def compute_standings(
    players: Iterable[Player],
    games: Iterable[GameResult],
    byes: Iterable[Bye] = (),
    order: Iterable[str] = ("SB", "WIN", "DE"),
) -> Standings:
    """Rank ``players`` by score, then by the tie-breaks in ``order`` (codes from
    :data:`TIEBREAKS`, see the module docstring; every tie-break: higher is better).

    Players are sorted by score; then each tie-break in turn splits the groups still tied.
    DE is positional: it is computed inside each group still tied when DE is reached, so its
    value depends on the tie-breaks before it.  Players equal in score and every tie-break
    share the rank (1, 2, 2, 4); inside such a group the input order of ``players`` is kept.
    KS's limit is half the number of rounds (the highest round number seen).

    Returns :class:`Standings`; ``Row.tiebreaks`` holds exactly the codes of ``order``.
    Raises :class:`StandingsError` for unknown players/results/codes, duplicates, or a player
    placed twice in one round.
    """
    players = list(players)
    games = list(games)
    byes = list(byes)
    order = tuple(order)
    _validate(players, games, byes, order)

    score = {p.id: 0.0 for p in players}
    # per player: (opponent, own points, colour, played over the board)
    record: dict[str, list[tuple[str, float, str, bool]]] = {p.id: [] for p in players}
    for g in games:
        wp, bp = g.points
        score[g.white] += wp
        score[g.black] += bp
        record[g.white].append((g.black, wp, "w", g.played))
        record[g.black].append((g.white, bp, "b", g.played))
    full_point_byes = {p.id: 0 for p in players}
    for b in byes:
        score[b.player] += b.points
        full_point_byes[b.player] += b.points >= _WIN_POINTS
    rounds = max((x.round for x in [*games, *byes]), default=0)
    koya_limit = rounds / 2

    def fixed(code: str, pid: str) -> float:
        rec = record[pid]
        if code == "WIN":
            return sum(pts >= _WIN_POINTS for _, pts, _, _ in rec) + full_point_byes[pid]
        if code == "WON":
            return sum(pts >= _WIN_POINTS for _, pts, _, played in rec if played)
        if code == "BPG":
            return sum(col == "b" for _, _, col, played in rec if played)
        if code == "BWG":
            return sum(col == "b" and pts >= _WIN_POINTS for _, pts, col, played in rec if played)
        opp_scores = sorted(score[opp] for opp, _, _, _ in rec)
        if code == "BH":
            return sum(opp_scores)
        if code == "BH-C1":
            return sum(opp_scores[1:])
        if code == "SB":
            return sum(pts * score[opp] for opp, pts, _, _ in rec)
        if code == "KS":
            return sum(pts for opp, pts, _, _ in rec if score[opp] >= koya_limit)
        raise AssertionError(code)  # pragma: no cover - codes validated above

    values: dict[str, dict[str, float]] = {p.id: {} for p in players}
    for code in order:
        if code != "DE":
            for p in players:
                values[p.id][code] = float(fixed(code, p.id))

    def direct_encounter(group: list[str]) -> bool:
        """Fill DE for ``group``; True if every pair met (so DE can separate them)."""
        members = set(group)
        met: set[frozenset[str]] = set()
        points = dict.fromkeys(group, 0.0)
        for pid in group:
            for opp, pts, _, played in record[pid]:
                if played and opp in members:
                    met.add(frozenset((pid, opp)))
                    points[pid] += pts
        complete = len(group) > 1 and all(frozenset(c) in met for c in combinations(group, 2))
        for pid in group:
            values[pid]["DE"] = points[pid] if complete else 0.0
        return complete

    index = {p.id: i for i, p in enumerate(players)}
    ranked = sorted(index, key=lambda pid: (-score[pid], index[pid]))
    groups: list[list[str]] = []
    for pid in ranked:
        if groups and score[groups[-1][0]] == score[pid]:
            groups[-1].append(pid)
        else:
            groups.append([pid])

    de_groups: list[tuple[str, ...]] = []
    for code in order:
        split: list[list[str]] = []
        for group in groups:
            if code == "DE" and direct_encounter(group):
                de_groups.append(tuple(group))
            group = sorted(group, key=lambda pid: -values[pid][code])  # stable: keeps input order
            for pid in group:
                if split and split[-1][0] in group and values[split[-1][0]][code] == values[pid][code]:
                    split[-1].append(pid)
                else:
                    split.append([pid])
        groups = split

    names = {p.id: p.name for p in players}
    rows: list[Row] = []
    for group in groups:
        rank = len(rows) + 1
        for pid in group:
            rows.append(Row(rank, pid, names[pid], score[pid], dict(values[pid])))
    return Standings(rows=rows, order=order, de_groups=tuple(de_groups))
