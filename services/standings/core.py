"""Pure standings core: scores, tie-breaks and shared ranks from results.

No I/O, no clock, no randomness.  Tie-break codes and definitions follow the FIDE Tie-Break
Regulations (FIDE Handbook C.07, edition approved 1 August 2023, in force for FIDE-rated events
from 1 April 2024), plus Go's and the 1999 xiangqi rules' criteria:

========== ==================================================================== ============
code       definition                                                           source
========== ==================================================================== ============
DE         direct encounter: points scored in games among the players still     C.07 6
           tied when DE is applied, used only if every pair of them has met
WIN        rounds in which the player got a win's points, played or not         C.07 7.1
           (forfeit wins and full-point byes included)
WON        games won over the board                                             C.07 7.2
BPG        games played over the board with black                               C.07 7.3
BWG        games won over the board with black                                  C.07 7.4
PS         progressive score: sum of the running scores after each round;      C.07 7.5
           PS-C1 / PS-C2 drop the first one / two rounds' running scores
BH         Buchholz: sum of the opponents' scores (unplayed rounds: art. 16)    C.07 8.1
BH-C1/-C2  Buchholz without the 1 / 2 least significant values                  C.07 14.1/2
BH-M1/-M2  median Buchholz: without the 1 / 2 highest and lowest values         C.07 14.3/4
SB         Sonneborn-Berger: sum of (points scored x opponent's score);         C.07 9.1
           SB-C1 etc. as for BH
KS         Koya: points scored against opponents with >= 50 % of the maximum    C.07 9.2
ARO        average rating of the opponents met over the board, rounded          C.07 10.1
           (ARO-C1 etc. cut the lowest / highest ratings)
TPR        tournament performance rating: ARO + dp(p), p the fraction scored    C.07 10.2,
           over the board rounded to 0.01, dp from the FIDE table (B.02 8.1.a)  B.02 8.1
SOS        Go: sum of the opponents' scores (their McMahon scores when initial  OpenGotha
           McMahon scores are given)
SOSOS      Go: sum of the opponents' SOS                                        OpenGotha
SODOS      Go: sum of the scores of the opponents the player defeated           OpenGotha
MMS        Go: McMahon score = initial McMahon score (input) + points           OpenGotha
FOULS      xiangqi 犯规: fouls (input per player); FEWER ranks higher            1999 15.1/2
PEN        xiangqi 18.4: penalties under 18.1 (warnings) and 18.2                1999 18.4
           (disqualification from a game); value 100 x disqualifications +
           warnings, LOWER ranks higher, applied first among equal scores
SNO        start (pairing) number: ``Player.number``, else the position in the      programs'
           input list from 1; LOWER ranks higher.  The last resort of the pairing  ranking
           programs, which print no shared places                                  lists
========== ==================================================================== ============

Unplayed rounds (C.07 2023 art. 16), used for BH (and cuts), SB and KS when
``unplayed="fide2023"`` (the default):

* a round is *unplayed* for a player when he has no game over the board in it: a bye of any
  kind, a forfeit (won or lost, ``+-``, ``-+``, ``--``), or no entry at all (absent / withdrawn);
* a *voluntarily unplayed round* (VUR) is an unplayed round the player did not get from the
  pairing: a forfeit loss (including ``--``), a half- or zero-point bye, an absence.  A
  pairing-allocated (full-point) bye and a forfeit win are not VURs;
* the player's *own* unplayed rounds are evaluated against a dummy opponent whose score is the
  player's own final score: BH adds that score, SB adds (points of the round x that score);
* when a player is an *opponent*, his score for the others' tie-breaks is his score up to his
  last round that is not a VUR, plus 0.5 for each round after it (a withdrawn player's missing
  rounds count as draws; a VUR in the middle counts its real points);
* with low cuts (C1, C2, and the low half of M1, M2), VURs are cut first, the least significant
  of them first.

A round-robin rest (:class:`Bye` with ``rest=True``: the free round of an odd Berger table)
is no round of the player's under any of these rules: it adds nothing to his own BH/SB/KS and,
when he is an opponent, counts its real 0 points (art. 16 concerns rounds in which a player
was due to play; a round robin's tie-breaks count the games its schedule holds).

Editions of the FIDE tie-break regulations (:data:`TIEBREAK_EDITIONS`, chosen per event,
:func:`tiebreak_edition`): ``fide2023``, C.07 approved by the FIDE Council on 1 August 2023,
applied from 1 September 2023 to FIDE competitions (the rules above, ``unplayed="fide2023"``:
the 2009 virtual opponent replaced by the dummy opponent); ``fide2024``, the text effective
from 1 April 2024, whose publication (FIDE news of 19 January 2024) says that no tie-break
definition changed, only explanations were refined: it computes as ``fide2023``.  Not
implemented: the revision applied from 1 August 2024 (approved 29 July 2024) and the
Play-Off and Tie-Break Regulations in force from 1 March 2026, whose article-16 texts were not
at hand; nothing here assumes what they changed.

``unplayed="fide2009"``: the 2009 rule (FIDE Swiss Pairings Programs Committee, Kallithea):
an opponent's unplayed rounds count as draws; the player's own unplayed round R is scored
against a virtual opponent with the player's score before R, the other side of the default
result in R, and draws after it.  No VUR-first cutting.

``unplayed="forfeit-draw"``: forfeits count as draws, the convention that reproduces the recorded
final ranks of a German open of 2005 (9. Karl-Mala-Gedenkturnier, Frankfurt, 284 players: all 276
ranked players with the order BH, SB, WIN, SNO, see :data:`RULESETS`), established by measurement
on that record, no rule text at hand:

* an opponent's score counts each of his forfeits (won, lost or double) and each of his byes of
  ½ or 1 point as ½; his rounds without entry (absent, withdrawn, not yet entered) and zero-point
  byes count 0 — except that his forfeit against the player himself keeps its actual result;
* the player's own forfeit round counts its real opponent with that score in BH, and in SB a
  forfeit win counts ½ x that score (a forfeit loss 0);
* the player's own rounds without opponent (bye, absence) count, in BH, the average of the values
  of his rounds with an opponent, and in SB his points of the round times that average (the record
  bounds this only loosely: its one full-point bye needs >= 2.0, its one late entry <= 3.0);
* no VUR-first cutting.

``unplayed="none"`` uses real opponents only (a forfeit counts its real opponent's real score,
byes contribute nothing): the xiangqi 1999 对手分 and 小分, and the pre-2023 'simple' values.

DE counts only games played over the board and, when not all tied players met, does not
separate them (the C.07 6.2 extension for incomplete encounters is not implemented; DE is not
re-applied to a still-tied subgroup).  Unrated opponents are left out of ARO/TPR unless
``unrated_rating`` is given.  Go's SOS/SOSOS/SODOS use real opponents only (byes contribute 0).

Errors: bad input raises :class:`StandingsError` (a ``ValueError``).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable, Iterable, Mapping

from shared.domain import fide
from shared.domain.fide import DP_TABLE  # noqa: F401  (re-exported: B.02 table 8.1.a)
from shared.checks import player_ids
from shared.domain import results
from shared.domain.tiebreaks import (  # re-exported: the codes, rulesets and editions
    LOWER_IS_BETTER, RULESETS, TIEBREAK_EDITIONS, TIEBREAKS, UNPLAYED_RULES, XIANGQI_ROUND_ROBIN,
    XIANGQI_SWISS, Edition, Ruleset, default_ruleset, tiebreak_edition,
)
from shared.errors import StandingsError  # the standings layer's error (re-exported)

__all__ = [
    "StandingsError",
    "UNPLAYED_RULES",
    "Edition",
    "TIEBREAK_EDITIONS",
    "tiebreak_edition",
    "Ruleset",
    "RULESETS",
    "default_ruleset",
    "Player",
    "GameResult",
    "Bye",
    "Row",
    "Standings",
    "TIEBREAKS",
    "LOWER_IS_BETTER",
    "XIANGQI_ROUND_ROBIN",
    "XIANGQI_SWISS",
    "DP_TABLE",
    "dp",
    "compute_standings",
    "xiangqi_standings",
]

_CODE = re.compile(r"^(?:(BH|SB|ARO)(?:-([CM])([12]))?|(PS)(?:-C([12]))?)$")
_SIMPLE = frozenset({"DE", "WIN", "WON", "BPG", "BWG", "KS", "TPR", "SOS", "SOSOS", "SODOS",
                     "MMS", "FOULS", "PEN", "SNO"})

_WIN_POINTS = 1.0


def _round_half_up(x: float, digits: int = 0) -> float:
    q = 10 ** digits
    return math.floor(x * q + 0.5 + 1e-9) / q


def dp(p: float) -> int:
    """FIDE dp for fractional score ``p`` (0..1), ``p`` rounded to the nearest 0.01 first
    (B.02 8.1.1: :func:`shared.domain.fide.dp`); ``StandingsError`` outside 0..1."""
    try:
        return fide.dp(p)
    except ValueError as e:
        raise StandingsError(str(e)) from None


@dataclass(frozen=True)
class Player:
    """A participant: unique ``id``, display ``name``, optional ``rating`` (Elo; used by ARO and
    TPR only) and optional start (pairing) ``number`` (used by SNO)."""

    id: str
    name: str
    rating: int | None = None
    number: int | None = None


@dataclass(frozen=True)
class GameResult:
    """One paired game.  ``round`` >= 1; ``white``/``black`` player ids; ``result`` one of
    ``"1-0" "0-1" "1/2-1/2"`` (played) or ``"+-" "-+" "--"`` (forfeits: the win goes to the
    ``+`` side, ``--`` is a double forfeit scoring 0 for both; xiangqi 1999 art. 21.4:
    ``+`` = 1 point for an individual, ``-`` = 0)."""

    round: int
    white: str
    black: str
    result: str

    @property
    def points(self) -> tuple[float, float]:
        """``(white_points, black_points)``."""
        return results.points(self.result)

    @property
    def played(self) -> bool:
        """True if the game was played over the board (not a forfeit)."""
        return results.played(self.result)


@dataclass(frozen=True)
class Bye:
    """A round without an opponent: ``player`` id gets ``points`` (0, 0.5 or 1) in ``round``.
    ``voluntary``: whether it is a VUR (C.07 art. 16); default: a full-point bye is a
    pairing-allocated bye (not voluntary), a half- or zero-point bye is voluntary.

    ``rest``: a round-robin rest (the free round of an odd Berger table, the player not
    scheduled; it scores 0).  It is not a game of the player's at all: the C.07 art. 16
    unplayed-round rules govern rounds in which the player was due to play (Swiss byes,
    forfeits, absences), while a round robin's tie-breaks count the games its schedule holds
    (xiangqi 1999 art. 15.1 小分 over the games played).  A rest therefore adds nothing to the
    player's BH/SB/KS (no dummy opponent), is no VUR, and counts its 0 points, not ½, when
    he is someone's opponent.  ``points`` must be 0 with ``rest``."""

    round: int
    player: str
    points: float = 1.0
    voluntary: bool | None = None
    rest: bool = False

    @property
    def is_vur(self) -> bool:
        if self.rest:
            return False
        return self.points < _WIN_POINTS if self.voluntary is None else self.voluntary


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


def _parse_code(code: str) -> tuple[str, int, int] | None:
    """``code`` -> (base, low cuts, high cuts), None if unknown."""
    if code in _SIMPLE:
        return code, 0, 0
    m = _CODE.match(code) if isinstance(code, str) else None
    if not m:
        return None
    if m.group(4):
        return "PS", int(m.group(5) or 0), 0
    n = int(m.group(3) or 0)
    return m.group(1), n, n if m.group(2) == "M" else 0


def _validate(
    players: list[Player], games: list[GameResult], byes: list[Bye], order: tuple[str, ...]
) -> None:
    ids = player_ids(players, Player, StandingsError)
    unknown = [code for code in order if _parse_code(code) is None]
    if unknown:
        raise StandingsError(f"unknown tie-break {unknown[0]!r}; supported: {', '.join(TIEBREAKS)} "
                             "(BH, SB, ARO also with -C1 -C2 -M1 -M2; PS with -C1 -C2)")
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
        if g.result not in results.CODE_LETTERS:
            raise StandingsError(
                f"game {g.white}-{g.black} round {g.round}: unknown result {g.result!r}; "
                f"expected one of {', '.join(results.CODE_LETTERS)}"
            )
        if g.white == g.black:
            raise StandingsError(f"game in round {g.round}: {g.white!r} cannot play himself")
        place(g.round, g.white, f"game {g.white}-{g.black}")
        place(g.round, g.black, f"game {g.white}-{g.black}")
    for b in byes:
        if isinstance(b.points, bool) or b.points not in (0, 0.5, 1):
            raise StandingsError(f"bye of {b.player!r}: points must be 0, 0.5 or 1, got {b.points!r}")
        if b.rest and b.points != 0:
            raise StandingsError(f"rest of {b.player!r} in round {b.round}: a round-robin rest "
                                 f"scores 0, got {b.points!r}")
        place(b.round, b.player, "bye")


@dataclass(frozen=True)
class _Entry:
    """One round of one player."""

    opp: str | None  # real opponent (None: bye or absent)
    pts: float
    colour: str  # "w", "b" or ""
    played: bool  # over the board
    vur: bool  # voluntarily unplayed round (C.07 16)
    rest: bool = False  # a round-robin rest (Bye.rest): no round of the player's for BH/SB


def _cut(values: list[tuple[bool, float]], low: int, high: int) -> float:
    """Sum of values (``(is_vur, value)``) without the ``low`` least significant (VURs first,
    C.07 16) and the ``high`` most significant ones."""
    ranked = sorted(values, key=lambda v: (not v[0], v[1]))  # VURs first, then ascending
    kept = ranked[low:]
    if high:
        kept = sorted(kept, key=lambda v: v[1])[: max(0, len(kept) - high)]
    return sum(v for _, v in kept)


def compute_standings(
    players: Iterable[Player],
    games: Iterable[GameResult],
    byes: Iterable[Bye] = (),
    order: Iterable[str] = ("SB", "WIN", "DE"),
    *,
    rounds: int | None = None,
    unplayed: str = "fide2023",
    fouls: Mapping[str, int] | None = None,
    penalties: Mapping[str, tuple[int, int]] | None = None,
    mcmahon: Mapping[str, float] | None = None,
    unrated_rating: int | None = None,
    unranked: Iterable[str] = (),
) -> Standings:
    """Rank ``players`` by score, then by the tie-breaks in ``order`` (codes: see the module
    docstring; higher is better except FOULS and PEN).

    Players are sorted by score (by McMahon score when ``mcmahon`` — initial McMahon score per
    player id — is given); then each tie-break in turn splits the groups still tied.  DE is
    positional: it is computed inside each group still tied when DE is reached, so its value
    depends on the tie-breaks before it.  Players equal in score and every tie-break share the
    rank (1, 2, 2, 4); inside such a group the input order of ``players`` is kept.

    ``rounds``: number of rounds of the event (default: the highest round number seen); a
    player without game or bye in a round was absent (a VUR).  KS's limit is half of it.
    ``unplayed``: one of :data:`UNPLAYED_RULES` — ``"fide2023"`` (C.07 art. 16, default),
    ``"fide2009"``, ``"forfeit-draw"`` or ``"none"`` (real opponents only); see the module
    docstring.
    ``fouls``: xiangqi fouls per player id (FOULS); ``penalties``: xiangqi 18.1/18.2 penalties
    per player id as ``(warnings, disqualifications)``; when given, PEN is applied first among
    equal scores (art. 18.4) even if not in ``order``.  ``unrated_rating``: rating used for
    unrated opponents in ARO/TPR (default: they are left out).  ``unranked``: ids of players
    not to rank (e.g. withdrawn): they keep their tie-break values and count for their
    opponents, but are listed after all ranked players with rank 0.

    Returns :class:`Standings`; ``Row.tiebreaks`` holds exactly the codes of the order used.
    Raises :class:`StandingsError` for unknown players/results/codes, duplicates, or a player
    placed twice in one round.
    """
    players, games, byes = list(players), list(games), list(byes)
    order = tuple(order)
    if penalties and "PEN" not in order:
        order = ("PEN", *order)  # art. 18.4: penalties first among equal scores
    if unplayed not in UNPLAYED_RULES:
        raise StandingsError(f"unplayed must be one of {', '.join(UNPLAYED_RULES)}, got {unplayed!r}")
    _validate(players, games, byes, order)
    unranked = set(unranked)
    stray = unranked - {p.id for p in players}
    if stray:
        raise StandingsError(f"unranked: unknown player {sorted(stray)[0]!r}")
    ids = [p.id for p in players]
    t = _Table(_rounds_of(ids, games, byes, _round_count(games, byes, rounds)), unplayed,
               rating={p.id: p.rating for p in players},
               number={p.id: p.number if p.number is not None else i for i, p in enumerate(players, 1)},
               unrated_rating=unrated_rating, fouls=dict(fouls or {}), penalties=dict(penalties or {}),
               mcmahon=dict(mcmahon or {}))
    values: dict[str, dict[str, float]] = {pid: {c: float(t.value(c, pid)) for c in order if c != "DE"}
                                           for pid in ids}
    groups = _score_groups(ids, t.mms if t.mcmahon else t.score, unranked)
    de_groups: list[tuple[str, ...]] = []
    for code in order:
        groups = _split(groups, code, values, t.rec, de_groups)
    names = {p.id: p.name for p in players}
    rows: list[Row] = []
    for group in groups:
        rank = 0 if group[0] in unranked else len(rows) + 1
        rows += [Row(rank, pid, names[pid], t.score[pid], dict(values[pid])) for pid in group]
    return Standings(rows=rows, order=order, de_groups=tuple(de_groups))


def _round_count(games: list[GameResult], byes: list[Bye], rounds: int | None) -> int:
    """The event's rounds: ``rounds``, else the highest round seen; StandingsError when
    ``rounds`` is below a round seen."""
    seen = max((x.round for x in [*games, *byes]), default=0)
    if rounds is not None and rounds < seen:
        raise StandingsError(f"rounds={rounds} but results go up to round {seen}")
    return seen if rounds is None else rounds


def _rounds_of(ids: list[str], games: list[GameResult], byes: list[Bye],
               n_rounds: int) -> dict[str, list[_Entry]]:
    """Player id -> one :class:`_Entry` per round: his game, his bye, else an absence (a VUR)."""
    table: dict[str, list[_Entry | None]] = {pid: [None] * n_rounds for pid in ids}
    for g in games:
        wp, bp = g.points
        table[g.white][g.round - 1] = _Entry(g.black, wp, "w", g.played, not g.played and wp < _WIN_POINTS)
        table[g.black][g.round - 1] = _Entry(g.white, bp, "b", g.played, not g.played and bp < _WIN_POINTS)
    for b in byes:
        table[b.player][b.round - 1] = _Entry(None, float(b.points), "", False, b.is_vur, b.rest)
    absent = _Entry(None, 0.0, "", False, True)
    return {pid: [e if e is not None else absent for e in table[pid]] for pid in ids}


def _seen(e: _Entry) -> float:
    """A round's points in the score others see under ``forfeit-draw``: forfeits and byes of
    1/2 or 1 point count 1/2, absences and zero-point byes 0."""
    if e.played:
        return e.pts
    return 0.0 if e.opp is None and e.pts == 0 else 0.5


@dataclass
class _Table:
    """An event's rounds as the tie-breaks read them: ``rec`` (player id -> one :class:`_Entry`
    per round), the ``unplayed`` rule, ratings, start numbers and the xiangqi and McMahon
    inputs; derived: ``score``, ``adj`` (a player's score as his opponents' tie-breaks see it,
    C.07 16), ``mms`` (McMahon score), ``go_score`` (MMS in a McMahon event, else the score)
    and ``sos`` (sum of the opponents' ``go_score``)."""

    rec: dict[str, list[_Entry]]
    unplayed: str
    rating: dict[str, int | None]
    number: dict[str, int]
    unrated_rating: int | None = None
    fouls: dict[str, int] = field(default_factory=dict)
    penalties: dict[str, tuple[int, int]] = field(default_factory=dict)
    mcmahon: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.n_rounds = len(next(iter(self.rec.values()), []))
        self.fide = self.unplayed in ("fide2023", "fide2009")
        self.vur_first = self.unplayed == "fide2023"  # C.07 2023 art. 16: VURs are cut first
        self.score = {pid: sum(e.pts for e in es) for pid, es in self.rec.items()}
        self.adj = {pid: self.opp_score(pid) for pid in self.rec}
        self.mms = {pid: self.mcmahon.get(pid, 0.0) + self.score[pid] for pid in self.rec}
        self.go_score = self.mms if self.mcmahon else self.score
        self.sos = {pid: sum(self.go_score[e.opp] for e in es if e.opp is not None)
                    for pid, es in self.rec.items()}

    def opp_score(self, pid: str) -> float:
        """``pid``'s score as seen in his opponents' tie-breaks (C.07 16): under fide2023 his
        rounds after his last played one count as draws, under fide2009 every unplayed round."""
        rec = self.rec[pid]
        if self.unplayed == "forfeit-draw":
            return sum(_seen(e) for e in rec)
        if not self.fide:
            return self.score[pid]
        if self.unplayed == "fide2009":  # every unplayed round of an opponent counts as a draw
            return sum(e.pts if e.played or e.rest else 0.5 for e in rec)
        last = max((i for i, e in enumerate(rec) if not e.vur), default=-1)
        return sum(e.pts for e in rec[: last + 1]) + 0.5 * (self.n_rounds - 1 - last)

    def contributions(self, pid: str) -> list[tuple[_Entry, float, float]]:
        """(round entry, opponent's score for it, points for SB) over the rounds that count
        for BH/SB/KS."""
        if self.unplayed == "forfeit-draw":
            return self._forfeit_draw_contributions(pid)
        out, before = [], 0.0
        for i, e in enumerate(self.rec[pid]):
            if e.rest:  # a round-robin rest is no round of his (Bye.rest)
                continue
            if e.played or (not self.fide and e.opp is not None):
                out.append((e, self.adj[e.opp], e.pts))  # adj == score when not fide
            elif self.unplayed == "fide2009":  # virtual opponent: own score before the round,
                # the other side of the default result, then draws (2009 Kallithea rule)
                out.append((e, before + (1.0 - e.pts) + 0.5 * (self.n_rounds - 1 - i), e.pts))
            elif self.fide:
                out.append((e, self.score[pid], e.pts))  # dummy opponent with the player's own score (16)
            before += e.pts
        return out

    def _forfeit_draw_contributions(self, pid: str) -> list[tuple[_Entry, float, float]]:
        """:meth:`contributions` under ``forfeit-draw``: an opponent's forfeit against this
        player keeps its actual result (SB: a forfeit win ½); a round without an opponent
        counts the average of the others."""
        out = []
        for i, e in enumerate(self.rec[pid]):
            if e.opp is None:
                continue
            if e.played:
                out.append((e, self.adj[e.opp], e.pts))
            else:
                theirs = self.rec[e.opp][i]
                out.append((e, self.adj[e.opp] - _seen(theirs) + theirs.pts,
                            0.5 if e.pts >= _WIN_POINTS else 0.0))
        avg = sum(s for _, s, _ in out) / len(out) if out else 0.0
        return out + [(e, avg, e.pts) for e in self.rec[pid] if e.opp is None and not e.rest]

    def aro(self, pid: str, low: int = 0, high: int = 0) -> float:
        """Average rating of the opponents of the games played (cut ``low`` / ``high``),
        rounded half up; unrated opponents at ``unrated_rating`` or left out."""
        rs = [self.rating[e.opp] if self.rating[e.opp] is not None else self.unrated_rating
              for e in self.rec[pid] if e.played]
        rs = [(False, float(r)) for r in rs if r is not None]
        n = len(rs) - low - high
        return 0.0 if n <= 0 else float(_round_half_up(_cut(rs, low, high) / n))

    def value(self, code: str, pid: str) -> float:
        """Tie-break ``code``'s value for ``pid`` (:data:`_VALUES`; DE is positional)."""
        base, low, high = _parse_code(code)  # type: ignore[misc]  # codes validated
        return _VALUES[base](self, pid, low, high)


def _progressive(t: _Table, pid: str, low: int, high: int) -> float:
    """PS: the sum of the running scores, the first ``low`` rounds cut."""
    running, total = 0.0, 0.0
    for i, e in enumerate(t.rec[pid]):
        running += e.pts
        if i >= low:
            total += running
    return total


def _tpr(t: _Table, pid: str, low: int, high: int) -> float:
    """TPR: ARO + dp of the score over the rated games played (B.02 8.1.1)."""
    played = [e for e in t.rec[pid] if e.played and (t.rating[e.opp] is not None or t.unrated_rating is not None)]
    if not played:
        return 0.0
    return t.aro(pid) + dp(sum(e.pts for e in played) / len(played))


def _won(e: _Entry) -> bool:
    return e.pts >= _WIN_POINTS


def _penalty_value(warnings: int, disqualifications: int) -> float:
    """PEN (xiangqi 1999 art. 18.4): a disqualification outweighs any number of warnings."""
    return 100 * disqualifications + warnings


#: Tie-break base code -> its value for (table, player id, low cuts, high cuts).
_VALUES: dict[str, Callable[[_Table, str, int, int], float]] = {
    "WIN": lambda t, pid, lo, hi: sum(_won(e) for e in t.rec[pid]),
    "WON": lambda t, pid, lo, hi: sum(_won(e) for e in t.rec[pid] if e.played),
    "BPG": lambda t, pid, lo, hi: sum(e.colour == "b" for e in t.rec[pid] if e.played),
    "BWG": lambda t, pid, lo, hi: sum(e.colour == "b" and _won(e) for e in t.rec[pid] if e.played),
    "PS": _progressive,
    "BH": lambda t, pid, lo, hi: _cut([(t.vur_first and e.vur, s) for e, s, _ in t.contributions(pid)], lo, hi),
    "SB": lambda t, pid, lo, hi: _cut([(t.vur_first and e.vur, w * s) for e, s, w in t.contributions(pid)],
                                      lo, hi),
    "KS": lambda t, pid, lo, hi: sum(e.pts for e, s, _ in t.contributions(pid) if s >= t.n_rounds / 2),
    "ARO": lambda t, pid, lo, hi: t.aro(pid, lo, hi),
    "TPR": _tpr,
    "SOS": lambda t, pid, lo, hi: t.sos[pid],
    "SOSOS": lambda t, pid, lo, hi: sum(t.sos[e.opp] for e in t.rec[pid] if e.opp is not None),
    "SODOS": lambda t, pid, lo, hi: sum(t.go_score[e.opp] for e in t.rec[pid] if e.opp is not None and _won(e)),
    "MMS": lambda t, pid, lo, hi: t.mms[pid],
    "FOULS": lambda t, pid, lo, hi: t.fouls.get(pid, 0),
    "PEN": lambda t, pid, lo, hi: _penalty_value(*t.penalties.get(pid, (0, 0))),
    "SNO": lambda t, pid, lo, hi: t.number[pid],
}


def _direct_encounter(group: list[str], rec: dict[str, list[_Entry]],
                      values: dict[str, dict[str, float]]) -> bool:
    """Fill DE for ``group`` (points in the games among them); True if every pair met (so DE
    can separate them), else DE is 0 for all (C.07 6.2's extension not implemented)."""
    members = set(group)
    met: set[frozenset[str]] = set()
    points = dict.fromkeys(group, 0.0)
    for pid in group:
        for e in rec[pid]:
            if e.played and e.opp in members:
                met.add(frozenset((pid, e.opp)))
                points[pid] += e.pts
    complete = len(group) > 1 and all(frozenset(c) in met for c in combinations(group, 2))
    for pid in group:
        values[pid]["DE"] = points[pid] if complete else 0.0
    return complete


def _score_groups(ids: list[str], primary: dict[str, float], unranked: set[str]) -> list[list[str]]:
    """Players grouped by equal ``primary`` score, highest first, the unranked after all
    ranked ones; input order kept inside a group."""
    index = {pid: i for i, pid in enumerate(ids)}
    groups: list[list[str]] = []
    for pid in sorted(ids, key=lambda pid: (pid in unranked, -primary[pid], index[pid])):
        last = groups[-1][0] if groups else None
        if last is not None and primary[last] == primary[pid] and (last in unranked) == (pid in unranked):
            groups[-1].append(pid)
        else:
            groups.append([pid])
    return groups


def _split(groups: list[list[str]], code: str, values: dict[str, dict[str, float]],
           rec: dict[str, list[_Entry]], de_groups: list[tuple[str, ...]]) -> list[list[str]]:
    """Each group still tied split by tie-break ``code`` (best first: lower for
    :data:`LOWER_IS_BETTER`); DE computed inside each group, which is added to ``de_groups``
    when its players all met."""
    sign = 1 if code in LOWER_IS_BETTER else -1
    split: list[list[str]] = []
    for group in groups:
        if code == "DE" and _direct_encounter(group, rec, values):
            de_groups.append(tuple(group))
        group = sorted(group, key=lambda pid: sign * values[pid][code])  # stable
        for pid in group:
            if split and split[-1][0] in group and values[split[-1][0]][code] == values[pid][code]:
                split[-1].append(pid)
            else:
                split.append([pid])
    return split


def xiangqi_standings(
    players: Iterable[Player],
    games: Iterable[GameResult],
    byes: Iterable[Bye] = (),
    *,
    system: str = "round_robin",
    fouls: Mapping[str, int] | None = None,
    penalties: Mapping[str, tuple[int, int]] | None = None,
) -> Standings:
    """Individual xiangqi standings by the 1999 competition rules: art. 15.1 round robin
    (小分 SB, 胜局 WIN, 直胜 DE, 犯规 FOULS) or 15.2 Swiss / 积分编排制 (对手分 BH, 胜局 WIN,
    犯规 FOULS); players penalised under 18.1-18.2 last among equal scores (18.4).  Opponents'
    scores are the real ones (``unplayed="none"``); forfeits count + = 1, - = 0 (21.4)."""
    if system not in ("round_robin", "swiss"):
        raise StandingsError(f"system must be 'round_robin' or 'swiss', got {system!r}")
    rs = RULESETS["xiangqi-round-robin" if system == "round_robin" else "xiangqi-swiss"]
    return compute_standings(players, games, byes, rs.order, unplayed=rs.unplayed, fouls=fouls,
                             penalties=penalties)
