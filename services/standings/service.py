"""Standings service: scores, tie-breaks and ranks after every finished round (pure handler).

Folds the tournament's events and its games' facts into the tournament record
(:class:`shared.domain.record.TournamentRecord`: the one table of every player's rounds and
their points, which the pairing, the gateway's crosstable and the TRF export read too). When
every game of a round has ended it writes StandingsUpdated on stream
``tournament-<id>.standings`` with the tournament's tie-break order (FIDE codes, computed by
:func:`services.standings.core.compute_standings` from the record's cells: games and forfeits,
byes (a Swiss bye 1 point, requested byes and a late entry's missed rounds their letter's),
rests; a round robin's withdrawals by art. 20.3, a player whose results are annulled not
ranked). Xiangqi events also count each player's fouls (PenaltyApplied ``foul``: the FOULS
code of art. 15.1/15.2) and penalties under 18.1/18.2 (warnings, disqualifications), which
place a player last among equal scores (18.4, code PEN). A ResultCorrected replaces the game's
result and the standings of the last round published are written again. Events ranked by
FIDE's tie-breaks count unplayed rounds by the edition of the regulations TournamentCreated
names (``tiebreak_edition``; an event recorded before events named it: the 2023 text), and
StandingsUpdated names it.

A knockout's rows rank the players by place (:meth:`shared.domain.knockout.Bracket.places`:
players out in the same knockout round share a place; the match for third place decides 3 and
4; a double elimination's by :meth:`shared.domain.knockout.DoubleElimination.places`),
``score`` their game points. A team round robin adds ``teams`` ranked by art. 15.3
(:func:`shared.domain.teams.team_standings`; an all-play-all match spans its rounds); its
``rows`` are the members' own results. An individual event with ``team_format`` member-total
(12.5) adds ``teams`` ranked by their members' places (15.5,
:func:`shared.domain.teams.member_places`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_EVENTS, TOURNAMENT_EVENTS, GameEnded, ResultCorrected, RoundPaired, StandingRow, StandingsUpdated,
    TeamStandingRow,
)
from shared.domain.knockout import KNOCKOUTS, knockout_bracket
from shared.domain.grades import initial_mms
from shared.domain.teams import member_places, team_match_rounds, team_rosters, team_standings
from services.standings import core as sc
from shared.domain.record import KeepsRecords, ROUND_ROBINS, Cell, Records, TournamentRecord
from shared.service import Core, Emit


@dataclass
class _T(TournamentRecord):
    """The tournament record with the rounds whose standings were published."""

    published: set = field(default_factory=set)


@dataclass
class StandingsCore(KeepsRecords, Core):
    name: str = "standings"
    inputs: tuple[str, ...] = (TOURNAMENT_EVENTS, GAME_EVENTS)
    outputs: tuple[str, ...] = (TOURNAMENT_EVENTS,)
    book: Records = field(default_factory=lambda: Records(make=_T))

    def handle(self, msg: Envelope) -> list[Emit]:
        """Fold the message into the record; publish a round's standings once its last game
        has a result (or at once, a round without boards), again after a correction."""
        p = msg.payload
        t = self.book.apply(p)
        if t is None:
            return []
        if isinstance(p, RoundPaired) and not p.boards:
            return self._publish(t.tournament_id, p.round)
        if isinstance(p, ResultCorrected) and t.published and p.round <= max(t.published):
            return self._publish(t.tournament_id, max(t.published), again=True)
        if isinstance(p, GameEnded) and p.reason != "replay":  # a replay: the board waits
            rnd = t.boards.get(t.games.board_of(p.game_id))
            if rnd is not None and all(t.result(b.game_id) for b in t.rounds[rnd - 1].boards):
                return self._publish(t.tournament_id, rnd)
        return []

    def _publish(self, tid: str, rnd: int, again: bool = False) -> list[Emit]:
        """StandingsUpdated after round ``rnd``, once (``again``: after a correction)."""
        t = self.tournaments[tid]
        if rnd in t.published and not again:
            return []
        t.published.add(rnd)
        if t.created.system in KNOCKOUTS:
            return [Emit(stream_for(f"tournament-{tid}", "standings"), knockout_standings(t, rnd))]
        table = compute(t, upto=rnd)
        rows = tuple(StandingRow(rank=r.rank, player_id=r.id, name=r.name, score=r.score,
                                 games=table[1].get(r.id, 0), tiebreaks=r.tiebreaks)
                     for r in table[0].rows)
        teams = (team_table(t, rnd) if t.created.system == "team-round-robin" else
                 member_total_table(t, rows) if t.created.team_format == "member-total" else ())
        return [Emit(stream_for(f"tournament-{tid}", "standings"), StandingsUpdated(
            tournament_id=tid, round=rnd, order=tuple(table[0].order), rows=rows, teams=teams,
            tiebreak_edition=t.created.tiebreak_edition))]


def knockout_standings(t: _T, upto: int) -> StandingsUpdated:
    """Places of a knockout after round ``upto`` (order ``PLACE``); score = game points."""
    numbers = t.numbers or {}
    places = knockout_bracket(t.created, numbers, t.rounds[:upto], t.results).places()
    cells = t.cells(upto)
    names = {x.player_id: x.name for x in t.players}
    order = sorted(places, key=lambda pid: (places[pid], numbers.get(pid, 0)))
    rows = tuple(StandingRow(rank=places[pid], player_id=pid, name=names[pid],
                             score=sum(c.points for c in cells[pid]),
                             games=sum(c.game_id is not None for c in cells[pid]),
                             tiebreaks={"SEED": float(numbers.get(pid, 0))})
                 for pid in order)
    return StandingsUpdated(tournament_id=t.created.tournament_id, round=upto, order=("PLACE",), rows=rows)


def team_table(t: _T, upto: int) -> tuple[TeamStandingRow, ...]:
    """Teams of a team round robin after round ``upto`` by art. 15.3: a match = the boards
    between members of the same two teams in one Berger round of the teams (one round of play,
    or ``team_boards`` rounds for all-play-all, 12.4)."""
    rosters = team_rosters(t.players)
    team_of = {m: k for k, ms in rosters.items() for m in ms}
    matches: dict[tuple[int, frozenset], list] = {}
    per = team_match_rounds(t.created)
    for r in t.rounds[:upto]:
        rnd = r.round
        for b in r.boards:
            res = t.result(b.game_id)
            if res is None:
                continue
            pair = (team_of[b.white], team_of[b.black])
            matches.setdefault(((rnd - 1) // per, frozenset(pair)), [pair, []])[1].append(
                (b.white, b.black, res))
    rows = team_standings(rosters, [(a, b, gs) for (a, b), gs in matches.values()],
                          fouls=t.fouls if t.created.game == "xiangqi" else None)
    return tuple(TeamStandingRow(rank=r.rank, team=r.team, match_points=r.match_points,
                                 game_points=r.game_points, matches=r.matches, tiebreaks=r.tiebreaks)
                 for r in rows)


def member_total_table(t: _T, rows: tuple[StandingRow, ...]) -> tuple[TeamStandingRow, ...]:
    """Teams of an individual event under 12.5 (队员总分制), ranked by art. 15.5 from the
    members' places in ``rows`` (:func:`shared.domain.teams.member_places`)."""
    rosters = team_rosters(t.players)
    got = member_places(rosters, {r.player_id: r.rank for r in rows},
                        scores={r.player_id: r.score for r in rows},
                        fouls=t.fouls if t.created.game == "xiangqi" else None)
    return tuple(TeamStandingRow(rank=r.rank, team=r.team, match_points=r.match_points,
                                 game_points=r.game_points, matches=r.matches, tiebreaks=r.tiebreaks)
                 for r in got)


def _entries(cells: list[Cell], pid: str, round_robin: bool) -> tuple[list[sc.GameResult], list[sc.Bye]]:
    """The standings' view of one player's cells: the games of his White boards with a
    result (played or forfeit); a Swiss bye 1 point, requested byes and a late entry's missed
    rounds their letter's points; a rest 0 and no round of his (:class:`sc.Bye` ``rest``), and
    in a round robin so is a round with no game counted (an annulled game, art. 20.3)."""
    games, byes = [], []
    for c in cells:
        if c.kind in ("game", "forfeit") and c.letter is not None and c.colour == "w":
            games.append(sc.GameResult(round=c.round, white=pid, black=c.opponent, result=c.code))
        elif c.kind in ("bye", "requested", "late"):
            byes.append(sc.Bye(round=c.round, player=pid, points=c.points))
        elif c.kind == "rest" or (round_robin and c.kind in ("annulled", "absent")):
            byes.append(sc.Bye(round=c.round, player=pid, points=0.0, rest=True))
    return games, byes


def compute(t: _T, upto: int) -> tuple[sc.Standings, dict[str, int]]:
    """Standings of tournament record ``t`` over rounds 1..``upto`` (its cells, players whose
    results are annulled left out, art. 20.3) and games with a result per player."""
    annulled = t.annulled(upto)
    games, byes, played = [], [], {}
    for pid, cells in t.cells(upto).items():
        played[pid] = sum(c.game_id is not None and c.code is not None for c in cells)
        if pid not in annulled:
            g, b = _entries(cells, pid, t.system in ROUND_ROBINS)
            games += g
            byes += b
    players = [sc.Player(id=x.player_id, name=x.name, rating=x.rating) for x in t.players
               if x.player_id not in annulled]
    mcmahon = None
    if t.created.system == "mcmahon":  # MMS = initial McMahon score from the grade + points
        mcmahon = {x.player_id: float(initial_mms(x.grade, t.created.mcmahon_bar, t.created.mcmahon_floor))
                   for x in t.players}
    xq = t.created.game == "xiangqi"
    rs = sc.default_ruleset(t.created.game, t.created.system)  # xiangqi: real opponents (21.4)
    return sc.compute_standings(players, games, byes, order=tuple(t.created.tiebreaks),
                                unplayed=rs.unplayed if rs else
                                sc.TIEBREAK_EDITIONS[t.created.tiebreak_edition or "fide2023"].unplayed,
                                mcmahon=mcmahon, fouls=t.fouls if xq else None,
                                penalties=t.penalties if xq else None), played
