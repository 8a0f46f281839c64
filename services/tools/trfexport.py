"""``arbiter export trf``: a tournament's log as a FIDE TRF-16 file.

The tournament's messages (``export-log``'s selection: its stream and every game it paired) are
folded into :class:`services.pairing.trf.Tournament` and written by
:func:`services.pairing.trf.write_trf`. Start numbers follow the pairing numbers of the Swiss
systems (rating, higher first, then name). Round entries: the opponent's start number, colour
``w``/``b`` and ``1 = 0`` for games played, ``+``/``-`` for forfeits (xiangqi 1999 art. 21.4,
FIDE TRF), ``-``/``-`` for a double forfeit, ``0000 - U`` for a pairing bye, ``0000 - F/H/Z``
for a requested bye; a player not paired in a round gets ``0000 - Z``. A game not finished yet is left blank. Points and ranks: the last
StandingsUpdated, else the sum of the round results.
"""
from __future__ import annotations

from contracts.envelope import Envelope
from contracts.messages import (
    GameEnded, PlayerRegistered, RoundPaired, StandingsUpdated, TournamentCreated,
)
from services.pairing.service import pairing_order, result_code, round_entries
from services.pairing.trf import Tournament, TrfPlayer, write_trf


def tournament_of(messages: list[Envelope], tournament_id: str) -> Tournament:
    """Fold the messages of tournament ``tournament_id`` into a TRF tournament. Raises
    ``ValueError`` when the messages hold no TournamentCreated for it."""
    created = None
    players: list[PlayerRegistered] = []
    rounds: dict[int, RoundPaired] = {}
    results: dict[str, str] = {}
    standings: StandingsUpdated | None = None
    for m in messages:
        p = m.payload
        if isinstance(p, TournamentCreated) and p.tournament_id == tournament_id:
            created = p
        elif isinstance(p, PlayerRegistered) and p.tournament_id == tournament_id:
            players.append(p)
        elif isinstance(p, RoundPaired) and p.tournament_id == tournament_id:
            rounds[p.round] = p
        elif isinstance(p, GameEnded):
            results[p.game_id] = result_code(p)
        elif isinstance(p, StandingsUpdated) and p.tournament_id == tournament_id:
            standings = p
    if created is None:
        raise ValueError(f"no tournament {tournament_id} in the log")
    order = pairing_order(players)
    no = {x.player_id: i + 1 for i, x in enumerate(order)}
    entries = round_entries(no, [rounds[r] for r in sorted(rounds)], results)
    rows = {row.player_id: row for row in (standings.rows if standings else ())}
    out = []
    for x in order:
        rs = entries[x.player_id]
        row = rows.get(x.player_id)
        out.append(TrfPlayer(number=no[x.player_id], name=x.name, title=x.title or "",
                             rating=x.rating, fide_id=x.fide_id or "",
                             points=row.score if row else sum(e.points for e in rs if e),
                             rank=row.rank if row else None, rounds=rs))
    total = created.rounds or len(rounds)
    return Tournament(players=out, headers=[("012", created.name), ("062", str(len(out))),
                                            ("XXR", str(total))], rounds=total)


def export_trf(messages: list[Envelope], tournament_id: str) -> str:
    """TRF-16 text of the tournament (see :func:`tournament_of`)."""
    return write_trf(tournament_of(messages, tournament_id))
