"""``arbiter import h9``: the Go tournament an OpenGotha results list records, as our events.

Hosted through the gateway as ``import trf`` is (:class:`services.tools.trfimport.TrfHost`): a
McMahon Go tournament is created (name from ``EV``, komi from ``KM``, rounds = the file's round
columns, the McMahon bars :func:`implied_bars` gives; a list without an ``MMS`` column: a Swiss), the players registered in line order
(name, grade :func:`platform_grade`, club, country as federation, the line number as start
number), and every round started with the recorded pairing entered manually, then its results
recorded by the arbiter:

=================================== ==========================================================
.h9 cell (white's line)             our events
=================================== ==========================================================
``n+/w0`` / ``n-/w0`` / ``n=/w0``   a game ``1-0`` / ``0-1`` / ``1/2-1/2`` (the ``w`` player white)
``n+!w0`` / ``n-!w0``               a game won / lost by default (reason ``forfeit``)
``n-!w0`` against ``-!``            a double forfeit ``0-0`` (reason ``double-forfeit``)
``0+``                              the round's bye (``StartRound.bye``, a win); a second ``0+``
                                    of the round a requested full-point bye ``F``
``0=``                              a half-point bye ``H`` (OpenGotha's absence worth ½)
``0-``                              not paired that round (absent; nothing)
=================================== ==========================================================

Not modelled: the handicap of each game (the platform's handicap is one setting of the event,
not of a board; the file's stones are read but not hosted), an unknown colour ``?`` (the lower
line number takes white), OpenGotha's rounding down of the absence points
(``genRoundDownNBWMMS``: the ``.h9`` does not say), per-player McMahon corrections
(``smmsCorrection``: nor this). Refused (``ValueError``): a game without result (``?``), a jigo
by default, both players winning, or both losing over the board (no such results here). Errors: :class:`shared.domain.h9.H9Error` for
a malformed file, ``ValueError`` for one that holds no event, :class:`services.tools.host.HostError`
when the platform refuses something.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import httpx

from shared.domain.grades import initial_mms, normalise_grade
from shared.domain.h9 import H9Tournament, decode_h9, parse_h9
from shared.domain.trf import slug
from services.tools.host import HostReport, _event_id
from services.tools.trfimport import TrfHost

#: Our grade range (Chinese amateur grading 2005, art. 4), as numbers of the rank scale.
_STRONGEST, _WEAKEST = 7, 25


def read_h9(path: str | Path) -> H9Tournament:
    """Read and parse a results list; raises :class:`shared.domain.h9.H9Error` or ``OSError``."""
    return parse_h9(decode_h9(Path(path).read_bytes()))


def platform_grade(grade: str) -> str:
    """An OpenGotha rank (``30K``..``9D``) as our grade (7d..25k): held within them, so ``30K``
    registers as ``25k`` and ``9D`` as ``7d`` (the same McMahon start whenever the bottom bar is
    not below 25k and the top bar not above 7d)."""
    n, unit = int(grade[:-1]), grade[-1].lower()
    return normalise_grade(f"{min(n, _STRONGEST)}d" if unit == "d" else f"{min(n, _WEAKEST)}k")


def _bar_grades() -> list[str]:
    return [f"{n}d" for n in range(_STRONGEST, 0, -1)] + [f"{n}k" for n in range(1, _WEAKEST + 1)]


def implied_bars(t: H9Tournament) -> tuple[str, str]:
    """The McMahon top and bottom bar (our grades) that give the most players of ``t`` the start
    score their line implies (MMS column - points); ties: the lowest top bar, then the highest
    bottom bar (the tightest bars the field shows). Juvisy 2019: 3d and 18k, 17 of 19 starts
    (OpenGotha's 4D and 20K, outside the field, give the same; the other two lines had their
    absences' half points rounded down); EGC 2013: 5d and 20k, 567 of 594 starts (the other
    27 -- 21 5D at 33, 2 4D and 4 6D/7D one off -- are per-player corrections the file does
    not record: with a 4d bar, 32 top-group players would be one above it). Pure.
    """
    implied = Counter((platform_grade(p.grade), p.scores.get("MMS", 0.0) - p.points) for p in t.players)
    grades = _bar_grades()
    def explained(top: int, bottom: int) -> tuple[int, int, int]:
        n = sum(k for (g, s), k in implied.items() if initial_mms(g, grades[top], grades[bottom]) == s)
        return n, top, -bottom
    _, top, minus_bottom = max(explained(i, j) for i in range(len(grades)) for j in range(i, len(grades)))
    return grades[top], grades[-minus_bottom]


def player_ids(t: H9Tournament) -> dict[int, str]:
    """Line number -> player id: the :func:`slug` of the name, ``p<no.>-<slug>`` for every
    player when two collide."""
    ids = {p.number: slug(p.name) for p in t.players}
    if len(set(ids.values())) != len(ids):
        ids = {n: f"p{n}-{s}"[:60] for n, s in ids.items()}
    return ids


def _game(t: H9Tournament, number: int, rnd: int) -> tuple[int, int, str, str] | None:
    """The game of round ``rnd`` on line ``number`` when that line is White's (else None):
    (white, black, result, reason). Raises ``ValueError`` for a result we cannot enter."""
    c = t.player(number).cells[rnd - 1]
    if c.colour == "b" or (c.colour == "?" and c.opponent < number):
        return None
    if c.result == "?":
        raise ValueError(f"round {rnd}: the game of lines {number} and {c.opponent} has no result")
    other = t.player(c.opponent).cells[rnd - 1].result
    if c.by_default and c.result == other == "-":
        return number, c.opponent, "0-0", "double-forfeit"
    if c.result == other or (c.by_default and c.result == "="):
        raise ValueError(f"round {rnd}: lines {number} and {c.opponent}: the result {c.result}/{other}"
                         f"{' by default' if c.by_default else ''} has no equivalent here")
    if not c.by_default:
        return number, c.opponent, {"+": "1-0", "-": "0-1", "=": "1/2-1/2"}[c.result], "recorded result"
    return number, c.opponent, "1-0" if c.result == "+" else "0-1", "forfeit"


def round_plan(t: H9Tournament, rnd: int) -> tuple[list[tuple[int, int, str, str]], int | None, dict[int, str]]:
    """Round ``rnd``: games (white no., black no., result, reason), the bye's line number (the
    first ``0+``) and the requested byes {line no.: ``F``/``H``} (module table). Pure; raises
    ``ValueError`` as :func:`_game`."""
    games, bye, requested = [], None, {}
    for p in t.players:
        c = p.cells[rnd - 1]
        if c.opponent is not None:
            if (g := _game(t, p.number, rnd)) is not None:
                games.append(g)
        elif c.result == "+" and bye is None:
            bye = p.number
        elif c.result in "+=":
            requested[p.number] = "F" if c.result == "+" else "H"
    return games, bye, requested


def check_importable(t: H9Tournament) -> None:
    """Raise ``ValueError`` when ``t`` cannot be an event of ours: fewer than two players, no
    round, or a round :func:`round_plan` cannot enter."""
    if len(t.players) < 2 or t.rounds < 1:
        raise ValueError(f"the results list has {len(t.players)} player(s) and {t.rounds} round(s); "
                         "a tournament needs two players and a round")
    for rnd in range(1, t.rounds + 1):
        round_plan(t, rnd)


class H9Host(TrfHost):
    """Hosts a parsed results list through the gateway client ``c`` (see :func:`import_h9`)."""

    def __init__(self, c: httpx.AsyncClient, h9: H9Tournament, *, tournament_id: str,
                 tiebreaks: tuple[str, ...] = (), progress=None) -> None:
        self.c, self.h9, self.tid, self.tiebreaks = c, h9, tournament_id, tiebreaks
        self.progress = progress or (lambda n=1: None)
        self.report = HostReport(tournament_id, pairing_system="recorded")
        self.no_id = player_ids(h9)

    def expected(self) -> tuple[int, dict[str, float]]:
        return self.h9.rounds, {self.no_id[p.number]: p.points for p in self.h9.players}

    def round_plan(self, rnd: int) -> tuple[list[tuple[int, int, str, str]], int | None, dict[int, str]]:
        return round_plan(self.h9, rnd)

    async def run(self) -> HostReport:
        t = self.h9
        body = {"tournament_id": self.tid, "name": t.name or self.tid, "system": "swiss", "game": "go",
                "rounds": t.rounds, "tiebreaks": list(self.tiebreaks)}
        if "MMS" in t.criteria:
            bar, floor = implied_bars(t)
            body.update(system="mcmahon", mcmahon_bar=bar, mcmahon_floor=floor)
        if t.komi is not None:
            body["komi"] = t.komi
        await self.call("POST", "/tournaments", json=body)
        for p in t.players:
            await self.call("POST", f"/tournaments/{self.tid}/players", json={
                "player_id": self.no_id[p.number], "name": p.name, "grade": platform_grade(p.grade),
                "club": p.club or None, "federation": p.country, "start_number": p.number})
        for rnd in range(1, t.rounds + 1):
            await self.play_round(rnd)
        await self.finish()
        return self.report


async def import_h9(c: httpx.AsyncClient, path: str | Path, *, tournament_id: str | None = None,
                    tiebreaks: tuple[str, ...] = (), progress=None) -> HostReport:
    """Host the tournament of the results list ``path`` through gateway client ``c`` and compare
    the final scores (points: wins, jigos, byes) with the file's (``report.scores_match_record``);
    ``tiebreaks``: codes in order, empty for the system's (McMahon: MMS, SOS, SOSOS).
    Raises ``H9Error`` for a malformed file, ``ValueError`` for one we cannot host,
    ``HostError`` when the platform refuses something."""
    t = read_h9(path)
    check_importable(t)
    tid = tournament_id or _event_id(t.name or Path(path).stem)
    return await H9Host(c, t, tournament_id=tid, tiebreaks=tiebreaks, progress=progress).run()
