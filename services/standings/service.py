"""Standings service: scores, tie-breaks and ranks after every finished round (pure handler).

Consumes the tournament record (TournamentCreated, PlayerRegistered, RoundPaired) and results
(GameEnded). When every game of a round has ended it writes StandingsUpdated on stream
``tournament-<id>.standings`` with the tournament's tie-break order (FIDE codes, computed by
:func:`services.standings.core.compute_standings`). A bye of the Swiss systems (Dutch,
积分编排制, McMahon) scores 1 point, a round-robin bye (odd number of players) none. Xiangqi
events also count each player's fouls (PenaltyApplied ``foul``: the FOULS code of art. 15.1/15.2)
and penalties under 18.1/18.2 (warnings, disqualifications), which place a player last among
equal scores (18.4, code PEN). Requested byes score ``F`` 1, ``H`` ½, ``Z`` 0, and so do a late
entry's missed rounds (PlayerRegistered ``missed``). Withdrawals (PlayerWithdrawn): a round
robin applies art. 20.3 (:func:`services.standings.core.apply_withdrawals`: under half of the
opponents met, the player's results are annulled and he is not ranked; else his unplayed
boards, RoundPaired ``withdrawn_boards``, are forfeit wins for the opponents); in the Swiss
systems his results stand (20.4). A ResultCorrected replaces the game's result and the
standings of the last round published are written again. Events ranked by FIDE's tie-breaks
count unplayed rounds by the edition of the regulations TournamentCreated names
(``tiebreak_edition``; an event recorded before events named it: the 2023 text), and
StandingsUpdated names it.

A knockout's rows rank the players by place (:meth:`services.pairing.knockout.Bracket.places`:
players out in the same knockout round share a place; the match for third place decides 3 and
4; a double elimination's by :meth:`services.pairing.knockout.DoubleElimination.places`),
``score`` their game points. A team round robin adds ``teams`` ranked by art. 15.3
(:func:`services.pairing.teams.team_standings`; an all-play-all match spans its rounds); its
``rows`` are the members' own results. An individual event with ``team_format`` member-total
(12.5) adds ``teams`` ranked by their members' places (15.5,
:func:`services.pairing.teams.member_places`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_EVENTS, TOURNAMENT_EVENTS, GameEnded, GameStarted, LotsDrawn, PenaltyApplied, PlayerRegistered,
    PlayerWithdrawn, ResultCorrected, RoundPaired, StandingRow, StandingsUpdated, TeamStandingRow,
    TournamentCreated,
)
from services.pairing.service import (
    BYE_POINTS, KNOCKOUTS, knockout_bracket, result_code, team_match_rounds, team_rosters,
)
from services.standings import core as sc
from shared.service import Core, Emit


@dataclass
class _T:
    created: TournamentCreated
    players: list[PlayerRegistered] = field(default_factory=list)
    rounds: dict[int, RoundPaired] = field(default_factory=dict)
    results: dict[str, str] = field(default_factory=dict)
    published: set = field(default_factory=set)
    fouls: dict[str, int] = field(default_factory=dict)
    penalties: dict[str, tuple[int, int]] = field(default_factory=dict)  # (warnings, disqualified)
    numbers: dict[str, int] = field(default_factory=dict)  # LotsDrawn: a knockout's seeds
    withdrawn: dict[str, int] = field(default_factory=dict)  # player id -> first round missed


@dataclass
class StandingsCore(Core):
    name: str = "standings"
    inputs: tuple[str, ...] = (TOURNAMENT_EVENTS, GAME_EVENTS)
    outputs: tuple[str, ...] = (TOURNAMENT_EVENTS,)
    tournaments: dict[str, _T] = field(default_factory=dict)
    game_index: dict[str, tuple[str, int]] = field(default_factory=dict)
    replays: dict[str, str] = field(default_factory=dict)  # Go replay game -> the board's game

    def handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        if isinstance(p, TournamentCreated):
            self.tournaments.setdefault(p.tournament_id, _T(p))
        elif isinstance(p, PlayerRegistered) and p.tournament_id in self.tournaments:
            self.tournaments[p.tournament_id].players.append(p)
        elif isinstance(p, LotsDrawn) and p.tournament_id in self.tournaments:
            self.tournaments[p.tournament_id].numbers = dict(p.numbers)
        elif isinstance(p, RoundPaired) and p.tournament_id in self.tournaments:
            self.tournaments[p.tournament_id].rounds[p.round] = p
            for b in p.boards:
                self.game_index[b.game_id] = (p.tournament_id, p.round)
            if not p.boards:
                return self._publish(p.tournament_id, p.round)
        elif isinstance(p, PenaltyApplied) and p.game_id in self.game_index:
            t = self.tournaments[self.game_index[p.game_id][0]]
            if t.created.game == "xiangqi":
                w, d = t.penalties.get(p.player_id, (0, 0))
                if p.kind == "foul":
                    t.fouls[p.player_id] = t.fouls.get(p.player_id, 0) + 1
                elif p.kind == "warning":
                    t.penalties[p.player_id] = (w + 1, d)
                elif p.kind == "forfeit" and p.rule.article == "4.1.10":  # 18.2 disqualification
                    t.penalties[p.player_id] = (w, d + 1)
        elif isinstance(p, PlayerWithdrawn) and p.tournament_id in self.tournaments:
            self.tournaments[p.tournament_id].withdrawn[p.player_id] = p.from_round
        elif isinstance(p, ResultCorrected) and p.tournament_id in self.tournaments:
            t = self.tournaments[p.tournament_id]
            t.results[p.game_id] = p.result
            if t.published and p.round <= max(t.published):
                return self._publish(p.tournament_id, max(t.published), again=True)
        elif isinstance(p, GameStarted) and p.replay_of:  # Go replay (1988 art. 20.3): same board
            board = self.replays.get(p.replay_of, p.replay_of)
            if board in self.game_index:
                self.replays[p.game_id] = board
                self.game_index[p.game_id] = self.game_index[board]
        elif isinstance(p, GameEnded) and p.game_id in self.game_index and p.reason != "replay":
            tid, rnd = self.game_index[p.game_id]
            t = self.tournaments[tid]
            t.results[self.replays.get(p.game_id, p.game_id)] = result_code(p)
            if all(b.game_id in t.results for b in t.rounds[rnd].boards):
                return self._publish(tid, rnd)
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
    rounds = [t.rounds[r] for r in sorted(t.rounds) if r <= upto]
    br = knockout_bracket(t.created, t.numbers, rounds, t.results)
    places = br.places()
    score = {x.player_id: 0.0 for x in t.players}
    games = dict.fromkeys(score, 0)
    for r in rounds:
        for b in r.boards:
            w, bl = _POINTS.get(t.results.get(b.game_id), (0.0, 0.0))
            score[b.white] += w
            score[b.black] += bl
            games[b.white] += 1
            games[b.black] += 1
    names = {x.player_id: x.name for x in t.players}
    order = sorted(places, key=lambda pid: (places[pid], t.numbers.get(pid, 0)))
    rows = tuple(StandingRow(rank=places[pid], player_id=pid, name=names[pid], score=score[pid],
                             games=games[pid], tiebreaks={"SEED": float(t.numbers.get(pid, 0))})
                 for pid in order)
    return StandingsUpdated(tournament_id=t.created.tournament_id, round=upto, order=("PLACE",), rows=rows)


def team_table(t: _T, upto: int) -> tuple[TeamStandingRow, ...]:
    """Teams of a team round robin after round ``upto`` by art. 15.3: a match = the boards
    between members of the same two teams in one Berger round of the teams (one round of play,
    or ``team_boards`` rounds for all-play-all, 12.4)."""
    from services.pairing.teams import team_standings
    rosters = team_rosters(t.players)
    team_of = {m: k for k, ms in rosters.items() for m in ms}
    matches: dict[tuple[int, frozenset], list] = {}
    per = team_match_rounds(t.created)
    for rnd in sorted(t.rounds):
        if rnd > upto:
            continue
        for b in t.rounds[rnd].boards:
            res = t.results.get(b.game_id)
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
    members' places in ``rows`` (:func:`services.pairing.teams.member_places`)."""
    from services.pairing.teams import member_places
    rosters = team_rosters(t.players)
    got = member_places(rosters, {r.player_id: r.rank for r in rows},
                        scores={r.player_id: r.score for r in rows},
                        fouls=t.fouls if t.created.game == "xiangqi" else None)
    return tuple(TeamStandingRow(rank=r.rank, team=r.team, match_points=r.match_points,
                                 game_points=r.game_points, matches=r.matches, tiebreaks=r.tiebreaks)
                 for r in got)


#: (white points, black points) of a result code (1 / ½ / 0; forfeits as wins and losses).
_POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5), "+-": (1.0, 0.0),
           "-+": (0.0, 1.0), "--": (0.0, 0.0)}


def compute(t: _T, upto: int) -> tuple[sc.Standings, dict[str, int]]:
    """Standings of tournament state ``t`` over rounds 1..``upto`` and games played per player."""
    games, byes, played, scheduled = [], [], {}, []
    for rnd in sorted(t.rounds):
        if rnd > upto:
            continue
        r = t.rounds[rnd]
        for b in r.boards:
            res = t.results.get(b.game_id)
            if res is None:
                continue
            games.append(sc.GameResult(round=rnd, white=b.white, black=b.black, result=res))
            for pid in (b.white, b.black):
                played[pid] = played.get(pid, 0) + 1
        scheduled += [sc.GameResult(round=rnd, white=b.white, black=b.black, result="*")
                      for b in r.withdrawn_boards]
        for x in t.players:  # a late entry's missed rounds (Z or H)
            if x.from_round and rnd < x.from_round:
                byes.append(sc.Bye(round=rnd, player=x.player_id, points=BYE_POINTS[x.missed or "Z"]))
        if r.bye:  # a Swiss pairing-allocated bye scores a win; a round-robin rest nothing and
            # is no round of the player's in BH/SB (core.Bye.rest)
            swiss = t.created.system in ("swiss", "chinese-swiss", "mcmahon")
            byes.append(sc.Bye(round=rnd, player=r.bye, points=1.0 if swiss else 0.0, rest=not swiss))
        for pid, kind in r.requested_byes.items():  # TRF F / H / Z
            byes.append(sc.Bye(round=rnd, player=pid, points=BYE_POINTS[kind]))
    annulled: set[str] = set()
    left = {pid: r - 1 for pid, r in t.withdrawn.items() if r <= upto}
    if left and t.created.system in ("round-robin", "double-round-robin"):  # art. 20.3
        games, annulled = sc.apply_withdrawals([x.player_id for x in t.players], games + scheduled, left,
                                               system="round_robin")
        # the forfeits of rounds played so far (not those of rounds still to come)
        games = [g for g in games if g.round <= upto and g.result != "*"]
        byes = [b for b in byes if b.player not in annulled]
    players = [sc.Player(id=x.player_id, name=x.name, rating=x.rating) for x in t.players
               if x.player_id not in annulled]
    if t.created.system in ("round-robin", "double-round-robin"):
        # a round-robin round in which a player has no game counted — his rest, or a game
        # against a player whose results were annulled (20.3) — is no round of his (Bye.rest)
        taken = {(g.round, pid) for g in games for pid in (g.white, g.black)}
        taken |= {(b.round, b.player) for b in byes}
        taken |= {(rnd, pid) for rnd, r in t.rounds.items() for b in r.boards
                  if b.game_id not in t.results for pid in (b.white, b.black)}
        byes += [sc.Bye(round=rnd, player=x.id, points=0.0, rest=True)
                 for rnd in sorted(t.rounds) if rnd <= upto for x in players
                 if (rnd, x.id) not in taken]
    mcmahon = None
    if t.created.system == "mcmahon":  # MMS = initial McMahon score from the grade + points
        from services.pairing.mcmahon import initial_mms
        mcmahon = {x.player_id: float(initial_mms(x.grade, t.created.mcmahon_bar, t.created.mcmahon_floor))
                   for x in t.players}
    xq = t.created.game == "xiangqi"
    rs = sc.default_ruleset(t.created.game, t.created.system)  # xiangqi: real opponents (21.4)
    return sc.compute_standings(players, games, byes, order=tuple(t.created.tiebreaks),
                                unplayed=rs.unplayed if rs else
                                sc.TIEBREAK_EDITIONS[t.created.tiebreak_edition or "fide2023"].unplayed,
                                mcmahon=mcmahon, fouls=t.fouls if xq else None,
                                penalties=t.penalties if xq else None), played
