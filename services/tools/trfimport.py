"""``arbiter import trf``: the tournament a FIDE TRF-16 file records, as our events.

Hosted through the gateway like ``run-tournament`` (:class:`services.tools.host.Host`): the
tournament is created (system ``swiss``, rounds from ``XXR`` or the longest record, name from
``012``, every header line kept in ``trf_headers``), the players registered in start-number
order (name, rating, FIDE id, title, and for ``export trf`` the start number, sex, federation,
birth date and the letters of the rounds without an opponent, ``trf_cells``), and every round
started with the recorded pairing entered manually and its results recorded by the arbiter:

========================== =============================================================
TRF (column 99)             our events
========================== =============================================================
``1 0 =`` / ``W L D``       a game with result ``1-0``/``0-1``/``1/2-1/2`` (white = ``w``)
``+`` / ``-`` (paired)      a game lost by forfeit (reason ``forfeit``: ``+-``/``-+``)
``-`` / ``-`` (paired)      a double forfeit ``0-0`` (reason ``double-forfeit``)
``0000 - U``                the round's pairing-allocated bye (``StartRound.bye``, 1 point)
``0000 - F`` / ``0000 - +`` a full-point bye (``requested_byes`` ``F``)
``0000 - H`` / ``Z``        a half- / zero-point bye (``requested_byes`` ``H`` / ``Z``)
``0000 - -``, blank         not paired that round (absent; 0 points)
========================== =============================================================

A pairing whose two entries give no colour (a forfeit recorded ``-``) puts the lower start
number in the white seat. Not kept: a points column that differs from the sum of the line's
results (export writes the sum), the rank column, a player without a name (registered under
his id). Errors: :class:`shared.domain.trf.TrfError` for a malformed file, ``ValueError``
for a file that holds no event (:func:`check_importable`),
:class:`services.tools.host.HostError` when the platform refuses something.
"""
from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from services.pairing.check import initial_colour
from shared.domain.trf import Tournament, player_ids, read_trf, registrations
from services.tools.host import Host, HostReport, _event_id

#: Result letter of the white entry -> (our result, GameEnded reason).
_WHITE_RESULT = {"1": ("1-0", "recorded result"), "W": ("1-0", "recorded result"),
                 "0": ("0-1", "recorded result"), "L": ("0-1", "recorded result"),
                 "=": ("1/2-1/2", "recorded result"), "D": ("1/2-1/2", "recorded result"),
                 "+": ("1-0", "forfeit")}


def round_plan(t: Tournament, rnd: int) -> tuple[list[tuple[int, int, str, str]], int | None, dict[int, str]]:
    """Round ``rnd`` of the TRF: games (white no., black no., result, reason), the
    pairing-allocated bye's start number (the first ``U``; a second one counts as ``F``) and the
    requested byes {start no.: ``F``/``H``/``Z``}. Pure."""
    games, bye, requested = [], None, {}
    for p in t.players:
        e = p.entry(rnd)
        if e is None:
            continue
        if e.opponent is None:
            kind = {"U": "U", "F": "F", "+": "F", "H": "H", "Z": "Z"}.get(e.result)
            if kind == "U" and bye is None:
                bye = p.number
            elif kind is not None:
                requested[p.number] = "F" if kind == "U" else kind
            continue
        o = t.player(e.opponent).entry(rnd)
        white_first = e.colour == "w" or (e.colour == "-" and p.number < e.opponent)
        if not white_first:
            continue  # the pairing is taken from the white player's line
        if e.result == "-":
            res = ("0-0", "double-forfeit") if o.result == "-" else ("0-1", "forfeit")
        else:
            res = _WHITE_RESULT[e.result]
        games.append((p.number, e.opponent, *res))
    return games, bye, requested


def check_importable(t: Tournament) -> None:
    """Raise ``ValueError`` with the reason when ``t`` cannot be an event of ours: fewer than
    two players (a round needs two)."""
    if len(t.players) < 2:
        raise ValueError(f"the TRF has {len(t.players)} player line(s); a tournament needs at "
                         "least two players")


def trf_cells(t: Tournament, number: int) -> str:
    """The column-99 letter of each recorded round of player ``number`` without an opponent,
    ``' '`` for a blank cell, ``'*'`` for a round with an opponent, ``'/'`` for one recorded
    without colours (a forfeit ``- -``) (``PlayerRegistered.trf_cells``)."""
    def cell(e) -> str:
        if e is None:
            return " "
        if e.opponent is None:
            return e.result
        return "/" if e.colour == "-" else "*"
    p = t.player(number)
    return "".join(cell(p.entry(r)) for r in range(1, t.rounds_recorded + 1))


def trf_scores(t: Tournament) -> dict[int, float]:
    """Each player's points in the TRF (its points field, else the sum of its rounds)."""
    return {p.number: p.points if p.points is not None else p.result_sum for p in t.players}


class TrfHost(Host):
    """Hosts a parsed TRF through the gateway client ``c`` (see :func:`import_trf`)."""

    def __init__(self, c: httpx.AsyncClient, trf: Tournament, *, tournament_id: str,
                 tiebreaks: tuple[str, ...], progress=None) -> None:
        self.c, self.trf, self.tid, self.tiebreaks = c, trf, tournament_id, tiebreaks
        self.progress = progress or (lambda n=1: None)
        self.report = HostReport(tournament_id, pairing_system="recorded")
        self.no_id = player_ids(trf)

    def expected(self) -> tuple[int, dict[str, float]]:
        return self.trf.rounds_recorded, {self.no_id[n]: s for n, s in trf_scores(self.trf).items()}

    async def run(self) -> HostReport:
        t = self.trf
        await self.call("POST", "/tournaments", json={
            "tournament_id": self.tid, "name": t.name or self.tid, "system": "swiss",
            "rounds": max(t.rounds, t.rounds_recorded, 1), "tiebreaks": list(self.tiebreaks),
            "trf_headers": [f"{code} {content}" for code, content in t.headers],
            "initial_colour": "white" if initial_colour(t) else "black"})
        for reg in registrations(t):
            await self.call("POST", f"/tournaments/{self.tid}/players",
                            json={**reg, "trf_cells": trf_cells(t, reg["start_number"])})
        for rnd in range(1, t.rounds_recorded + 1):
            await self.play_round(rnd)
        await self.finish()
        return self.report

    def round_plan(self, rnd: int) -> tuple[list[tuple[int, int, str, str]], int | None, dict[int, str]]:
        """Round ``rnd`` as :func:`round_plan` gives it (games, bye, requested byes by number)."""
        return round_plan(self.trf, rnd)

    async def play_round(self, rnd: int) -> None:  # type: ignore[override]
        """Start round ``rnd`` with the recorded pairing and byes, then enter its results."""
        games, bye, requested = self.round_plan(rnd)
        ids = self.no_id
        await self.start_round({
            "round": rnd, "boards": [{"white": ids[w], "black": ids[b]} for w, b, _, _ in games],
            "bye": ids[bye] if bye else None, "requested_byes": {ids[n]: k for n, k in requested.items()}})
        rd = (await self.wait_round(rnd))["rounds"][rnd - 1]
        gid = {(b["white"], b["black"]): b["game_id"] for b in rd["boards"]}

        async def enter(w: int, b: int, res: str, reason: str) -> None:
            g = gid[(ids[w], ids[b])]
            await self.call("POST", f"/games/{g}/result", json={"result": res, "reason": reason})
            self.report.games.append({"round": rnd, "game_id": g, "white": ids[w], "black": ids[b],
                                      "result": res, "reason": reason})
            self.progress(1)
        await asyncio.gather(*(enter(*g) for g in games))


async def import_trf(c: httpx.AsyncClient, path: str | Path, *, tournament_id: str | None = None,
                     tiebreaks: tuple[str, ...] = ("BH-C1", "BH", "SB"), progress=None) -> HostReport:
    """Host the tournament of the TRF file ``path`` through gateway client ``c`` and compare the
    final scores with the TRF's points (``report.scores_match_record``). Raises ``TrfError``
    for a malformed file, ``ValueError`` for one with fewer than two players, ``HostError``
    when the platform refuses something."""
    t = read_trf(path)
    check_importable(t)
    tid = tournament_id or _event_id(t.name or Path(path).stem)
    return await TrfHost(c, t, tournament_id=tid, tiebreaks=tiebreaks, progress=progress).run()
