"""A tournament as a FIDE TRF-16 file (``arbiter export trf``, the gateway's ``GET /tournaments/{tid}/trf``).

The tournament's messages (``export-log``'s selection: its stream and every game it paired) are
folded into the tournament record (:class:`shared.domain.record.TournamentRecord`, the table
the standings and the crosstable read), whose cells become the round entries of
:class:`shared.domain.trf.Tournament`, written by :func:`shared.domain.trf.write_trf`. A
message repeated in the log (same stream and seq) is applied once
(:func:`shared.eventlog.base.applied_once`).

Start numbers: :meth:`shared.domain.record.TournamentRecord.start_numbers` (an imported TRF's
own, else the drawn lots, else the Swiss pairing numbers), as the crosstable numbers them.
Round entries: the opponent's start number, colour ``w``/``b`` and ``1 = 0`` for games played,
``+``/``-`` for forfeits (xiangqi 1999 art. 21.4, FIDE TRF), ``-``/``-`` for a double forfeit,
``0000 - U`` for a pairing bye, ``0000 - F/H/Z`` for a requested bye; a player not
paired in a round gets ``0000 - Z``. A round robin is written as its standings count it: a rest
(odd Berger table) ``0000 - Z`` (0 points), the games of a withdrawn player whose results are
annulled (xiangqi 1999 art. 20.3) ``0000 - Z`` on both lines, the boards a withdrawal left
unplayed ``+``/``-`` forfeits (21.4). A game not finished yet is left blank. For an imported TRF
the letters of the rounds without an opponent are the file's own (``PlayerRegistered.trf_cells``:
``-``, ``+``, a blank cell...) wherever they are worth the same points as our entry, and a
forfeit the file wrote without colours (``153 - -``) is written so again.

Header lines: an imported TRF's own (``TournamentCreated.trf_headers``: dates, place, XXC, ...)
with ``062`` (players) and ``XXR`` (rounds) recomputed, else ``012``, ``062`` and ``XXR``.
Player fields kept: name, title, rating, FIDE id, and from an import sex, federation and birth
date.

Points (columns 81-84): the sum of the round results written on the line (TRF scale: 1, ½, 0;
a running game, blank, counts 0), so a mid-round export is consistent with its rows; a points
column that differed from its rows in an imported file is not kept. Rank (86-89): the last
StandingsUpdated's, only when it covers every written round and every written game has a
result; else blank.
"""
from __future__ import annotations

from dataclasses import replace

from contracts.envelope import Envelope
from contracts.messages import PlayerRegistered, StandingsUpdated, TournamentCreated
from shared.domain.trf import (
    RESULT_POINTS, RoundEntry, Tournament, TrfPlayer, entries_from_cells, write_trf,
)
from shared.domain.record import Records, TournamentRecord
from shared.eventlog.base import applied_once


def _split_header(line: str) -> tuple[str, str]:
    """``"042 28. 07. 2005"`` -> ``("042", "28. 07. 2005")`` (a TournamentCreated.trf_headers line)."""
    return line[:3], line[4:]


def _recorded_letters(entries: list[RoundEntry | None], cells: str | None) -> list[RoundEntry | None]:
    """``entries`` with the imported file's letters (``cells``) on rounds without an opponent
    where they give the same points (``' '``: a blank cell, 0 points), and no colours on a
    forfeit recorded without them (``'/'``)."""
    out = list(entries)
    for i, c in enumerate((cells or "")[:len(out)]):
        e = out[i]
        if e is None:
            continue
        if e.opponent is not None:
            if c == "/" and not e.played:
                out[i] = RoundEntry(e.opponent, "-", e.result)
            continue
        if c == " " and e.points == 0:
            out[i] = None
        elif RESULT_POINTS.get(c) == e.points:
            out[i] = RoundEntry(None, "-", c)
    return out


def tournament_of(messages: list[Envelope], tournament_id: str) -> Tournament:
    """Fold the messages of tournament ``tournament_id`` into a TRF tournament (see the module
    docstring). Raises ``ValueError`` when the messages hold no TournamentCreated for it."""
    book = Records()
    standings: StandingsUpdated | None = None
    for m in applied_once(messages):
        book.apply(m.payload)
        if isinstance(m.payload, StandingsUpdated) and m.payload.tournament_id == tournament_id:
            standings = m.payload
    t = book.get(tournament_id)
    if t is None:
        raise ValueError(f"no tournament {tournament_id} in the log")
    return _tournament(t, standings)


def _tournament(t: TournamentRecord, standings: StandingsUpdated | None) -> Tournament:
    """The TRF tournament of record ``t``: its ``001`` lines and headers."""
    out = _player_lines(t, standings)
    total = t.created.rounds or len(t.rounds)
    return Tournament(players=out, headers=_headers(t.created, len(out), total), rounds=total)


def _player_lines(t: TournamentRecord, standings: StandingsUpdated | None) -> list[TrfPlayer]:
    """The ``001`` lines of record ``t`` by start number: round entries from its cells, points
    their sum, rank the last standings' when they cover every written round and no game is
    open (see the module docstring)."""
    players = t.players
    no = t.start_numbers()
    entries = entries_from_cells(t.cells(), no)
    ranked = standings is not None and not t.open_games() and standings.round >= len(t.rounds)
    rows = {row.player_id: row for row in (standings.rows if ranked else ())}
    out = []
    for x in sorted(players, key=lambda x: no[x.player_id]):
        rs = _recorded_letters(entries[x.player_id], x.trf_cells)
        row = rows.get(x.player_id)
        out.append(TrfPlayer(number=no[x.player_id], name=x.name, title=x.title or "",
                             sex=x.sex or "", rating=x.rating, federation=x.federation or "",
                             fide_id=x.fide_id or "", birth=x.birth_date or "",
                             points=sum(e.points for e in rs if e),
                             rank=row.rank if row else None, rounds=rs))
    return out


def _headers(created: TournamentCreated, players: int, total: int) -> list[tuple[str, str]]:
    """An imported file's header lines with ``062`` (players) and ``XXR`` (rounds) recomputed,
    then ``012``, ``062``, ``XXR`` (and ``XXC`` for a Swiss event not imported) where missing."""
    own = {"012": created.name, "062": str(players), "XXR": str(total)}
    if created.system == "swiss" and not created.trf_headers:  # an imported file keeps its own
        own["XXC"] = "white1" if created.initial_colour == "white" else "black1"
    headers = [(code, own[code] if code in ("062", "XXR") else content)
               for code, content in (_split_header(h) for h in created.trf_headers)]
    headers += [(code, v) for code, v in own.items() if code not in {c for c, _ in headers}]
    return headers


def export_trf(messages: list[Envelope], tournament_id: str) -> str:
    """TRF-16 text of the tournament (see :func:`tournament_of`)."""
    return write_trf(tournament_of(messages, tournament_id))


def record_trf(t: TournamentRecord, standings: StandingsUpdated | None, private: bool = True) -> str:
    """TRF-16 text of a tournament record already folded (the gateway's read model) with its
    latest ``standings`` (None: no rank column), as :func:`export_trf` writes it;
    ``private=False``: the players' FIDE ids, birth dates and sex left blank."""
    trf = _tournament(t, standings)
    if not private:
        trf.players = [replace(x, fide_id="", birth="", sex="") for x in trf.players]
    return write_trf(trf)
