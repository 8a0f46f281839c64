"""Pairing service: owns the tournament record, stream ``tournament-<id>`` (pure event handler).

Its state is the tournament record (:class:`shared.domain.record.TournamentRecord`), folded from
the events it writes (:meth:`PairingCore._emit`) and its games' facts; the Swiss systems read
their scores, opponents, colours and byes from the record's cells.

Consumes tournament commands (CreateTournament, RegisterPlayer, DrawLots, SubmitLineup,
StartRound, WithdrawPlayer, CorrectResult) and the results of its games (GameEnded). Writes
TournamentCreated, PlayerRegistered, LotsDrawn, LineupSubmitted, PlayerWithdrawn, ResultCorrected,
RoundPaired (boards with game ids, colours, bye, system, inputs hash), TournamentFinished, and
TournamentCommandRejected for a refused command (nothing changes).

Systems: ``round-robin`` / ``double-round-robin`` by Berger tables built by the method of
appendix 1 of the xiangqi rules (identical to FIDE's Berger tables), draw numbers from DrawLots
(else registration order); ``swiss``: the FIDE Dutch system by py4swiss (:mod:`.dutch`; our first
Dutch, :func:`services.pairing.core.dutch_pair`, is its cross-check in tests);
``mcmahon``: :func:`services.pairing.mcmahon.mcmahon_pair` from the players' grades (Go);
``chinese-swiss``: the 积分编排制 of the xiangqi rules' appendix 2
(:func:`services.pairing.chinese_swiss.pair_round`), its lots seeded and the seed recorded;
``knockout``: single elimination (:class:`shared.domain.knockout.Bracket`: seeds written as
LotsDrawn before round 1, one round per game of a match, play-off games for level matches
(at most ``playoff_games``, default 4, then lots or the higher seed, art. 15.6), the
match for third place when place 3 may not be shared, classification play-offs for places from
5 on that may not be shared, art. 15.6); ``double-elimination``: 双败淘汰制
(:class:`shared.domain.knockout.DoubleElimination`: winners' and losers' brackets, grand
final and its replay, seeded and played like ``knockout``); ``team-round-robin``: Berger tables
over the teams, boards of a match by board order or the team's line-up (SubmitLineup, art.
12.1-12.3), or all-play-all matches over several rounds (12.4) (:mod:`shared.domain.teams`);
or the organiser's manual pairing (StartRound with boards, ``bye`` and ``requested_byes``).

Withdrawals, late entries, requested byes (FIDE TRF letters): a withdrawn player is not paired
from his ``from_round`` on (Swiss systems, art. 20.4; a round robin's boards with him go to
RoundPaired ``withdrawn_boards``, scored by art. 20.3 in the standings); a player registered
after round 1 of a Dutch or McMahon event (a late entry; not the 积分编排制, whose draw numbers
are fixed by round 1's lots) scores each missed round as the event's ``late_entries`` bye
(``Z`` 0 by default, as TRF writes an unpaired round, or ``H`` ½); StartRound's
``requested_byes`` in a round a Swiss system pairs leave those players out (the Dutch engine's
``absent``). A CorrectResult is refused in a knockout once a later round is paired.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import astuple, dataclass, field

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_EVENTS, TOURNAMENT_COMMANDS, TOURNAMENT_EVENTS, Board, CorrectResult, CreateTournament,
    DrawLots, GameEnded, LineupSubmitted, LotsDrawn, ManualBoard, PlayerRegistered, PlayerWithdrawn,
    RegisterPlayer, ResultCorrected, RoundPaired, Rule, StartRound, SubmitLineup,
    TournamentCommandRejected, TournamentCreated, TournamentRejectCode, TournamentFinished,
    WithdrawPlayer, FinishTournament, GameStarted, PenaltyApplied, BeginRound, RoundBegun,
)
from services.pairing import core as pc, creation
from shared.domain.grades import initial_mms, normalise_grade, rank_value
from shared.domain.knockout import KNOCKOUTS, knockout_bracket
from shared.domain.teams import canonical_team, team_key, team_match_rounds, team_rosters
from shared.domain.tiebreaks import default_ruleset, tiebreak_edition
from shared.errors import StandingsError
from shared.domain.record import KeepsRecords, SWISS_SYSTEMS, Records, TournamentRecord, pairing_order
from shared.service import Core, Emit

BERGER_RULE = Rule(game="chess", ruleset="xiangqi-1999-appendix-1",
                   summary="Berger tables (循环赛对局秩序表), same as FIDE C.05 Annex 1", article="appendix 1")
DUTCH_RULE = Rule(game="chess", ruleset="FIDE-C.04.3", article="Dutch system (py4swiss, bbpPairings rules)")
MANUAL_RULE = Rule(game="chess", ruleset="organiser", article="manual pairing")
MCMAHON_RULE = Rule(game="go", ruleset="McMahon", article="OpenGotha criteria; grades of the Chinese "
                    "amateur dan/kyu system (2005) art. 4")
CHINESE_SWISS_RULE = Rule(game="xiangqi", ruleset="xiangqi-1999-appendix-2", article="积分编排制")
KNOCKOUT_RULE = Rule(game="xiangqi", ruleset="xiangqi-1999", article="11.1, 13.4, 13.5, 15.6",
                     summary="淘汰制: seeded single elimination, colours by lot then swapped, play-offs")
DOUBLE_ELIMINATION_RULE = Rule(game="xiangqi", ruleset="xiangqi-1999", article="11.1, 13.4, 13.5, 15.6",
                               summary="双败淘汰制: winners' and losers' brackets, grand final "
                                       "(replayed after the losers'-bracket player wins it)")
TEAM_RULE = Rule(game="xiangqi", ruleset="xiangqi-1999", article="12.1-12.4, 13.2, 13.3; appendix 1",
                 summary="团体循环: Berger tables over teams, line-ups by board order, colours by board")
#: Play-off games a level knockout match takes at most unless the event sets ``playoff_games``
#: (art. 15.6 leaves the bound to the event's rules); then the ``playoff_decider`` settles it.
DEFAULT_PLAYOFF_GAMES = 4
#: Late entries: not in the 积分编排制, whose draw numbers are fixed by round 1's lots (appendix 2).
LATE_ENTRY_SYSTEMS = ("swiss", "mcmahon")


@dataclass
class _Tournament(TournamentRecord):
    """The tournament record (:class:`shared.domain.record.TournamentRecord`, folded from the
    events this service writes and its games' facts) with the line-ups accepted, by (team,
    match); ``numbers`` also holds the 积分编排制's draw numbers fixed by round 1."""

    lineups: dict[tuple[str, int], tuple[str, ...]] = field(default_factory=dict)
    begun: set[int] = field(default_factory=set)  # rounds begun (RoundBegun)

    def apply(self, p) -> None:
        """The record's fold (:meth:`TournamentRecord.apply`), plus the rounds begun."""
        if isinstance(p, RoundBegun):  # (a record pickled by older code has no ``begun``)
            self.__dict__.setdefault("begun", set()).add(p.round)
        else:
            super().apply(p)

    def absent(self, rnd: int, requested: dict[str, str] | None = None) -> dict[str, str]:
        """Players not to be paired in round ``rnd`` and their TRF letter: withdrawn (``-``,
        an absence) or a requested bye (``F``/``H``/``Z``)."""
        out = {pid: "-" for pid, r in self.withdrawn.items() if r <= rnd}
        out.update(requested or {})
        return out

    def total_rounds(self) -> int | None:
        n = len(self.players) + len(self.players) % 2
        if self.created.system == "team-round-robin":
            k = len(team_rosters(self.players))
            return (k + k % 2 - 1) * team_match_rounds(self.created)
        if self.created.system in KNOCKOUTS:
            return None  # follows from the bracket and the play-offs (see _result)
        if self.created.system == "round-robin":
            return n - 1
        if self.created.system == "double-round-robin":
            return 2 * (n - 1)
        return self.created.rounds


@dataclass
class PairingCore(KeepsRecords, Core):
    name: str = "pairing"
    inputs: tuple[str, ...] = (TOURNAMENT_COMMANDS, GAME_EVENTS)
    outputs: tuple[str, ...] = (TOURNAMENT_EVENTS,)
    #: the records, folded from the events this core writes (:meth:`_emit`) and the games' facts
    book: Records = field(default_factory=lambda: Records(make=_Tournament))

    def handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        if isinstance(p, (GameEnded, GameStarted, PenaltyApplied)):
            t = self.book.apply(p)  # a Go replay stands for its board (1988 art. 20.3, 重下)
            ended = isinstance(p, GameEnded) and p.reason != "replay"  # a replay: the round waits
            return self._maybe_finish(t.tournament_id) if ended and t is not None else []
        h = getattr(self, "_on_" + type(p).__name__, None)
        if h is None:
            return []
        if not isinstance(p, CreateTournament) and p.tournament_id not in self.tournaments:
            return self._reject(msg, "no-such-tournament", f"no tournament {p.tournament_id}")
        return h(msg, p)

    def _stream(self, tid: str) -> str:
        return stream_for(f"tournament-{tid}")

    def _emit(self, ev) -> Emit:
        """Decision ``ev`` on its tournament's stream, folded into the record at once."""
        self.book.apply(ev)
        return Emit(self._stream(ev.tournament_id), ev)

    def _reject(self, msg: Envelope, code: TournamentRejectCode, reason: str) -> list[Emit]:
        p = msg.payload
        return [Emit(self._stream(p.tournament_id), TournamentCommandRejected(
            tournament_id=p.tournament_id, command_id=str(msg.event_id), command_type=msg.type,
            code=code, reason=reason))]

    def _on_CreateTournament(self, msg, p: CreateTournament):
        """Create the event when its settings meet :mod:`services.pairing.creation`'s rules,
        with the defaults a replay must not depend on recorded (play-offs, tie-break order and
        edition)."""
        if p.tournament_id in self.tournaments:
            return self._reject(msg, "already-exists", f"tournament {p.tournament_id} already exists")
        if (refused := creation.refusal(p)) is not None:
            return self._reject(msg, *refused)
        if p.system in KNOCKOUTS and p.playoff_games is None:  # recorded: a replay needs no default
            p = p.model_copy(update={"playoff_games": DEFAULT_PLAYOFF_GAMES})
        rs = default_ruleset(p.game, p.system)
        if not p.tiebreaks:  # the game's default order, recorded so a replay needs no default
            p = p.model_copy(update={"tiebreaks": rs.order if rs else ("SB", "WIN", "DE")})
        if rs or p.system in KNOCKOUTS:
            if p.tiebreak_edition is not None:
                return self._reject(msg, "invalid", "tiebreak_edition is for events ranked by the FIDE "
                                                    "tie-break regulations; this one ranks by "
                                                    f"{rs.source if rs else 'knockout places'}")
        else:  # the edition, recorded: chosen, or in force on the day of creation (event time)
            try:
                edition = tiebreak_edition(p.tiebreak_edition, msg.occurred_at.date())
            except StandingsError as e:
                return self._reject(msg, "invalid", str(e))
            p = p.model_copy(update={"tiebreak_edition": edition})
        return [self._emit(TournamentCreated(**p.model_dump()))]

    def _on_RegisterPlayer(self, msg, p: RegisterPlayer):
        t = self.tournaments[p.tournament_id]
        late = {}
        if t.rounds:
            if t.created.system not in LATE_ENTRY_SYSTEMS:
                return self._reject(msg, "closed", "registration is closed: round 1 has been paired "
                                                   f"(late entries are for {', '.join(LATE_ENTRY_SYSTEMS)})")
            if t.finished or len(t.rounds) >= (t.total_rounds() or 0):
                return self._reject(msg, "closed", "registration is closed: every round is paired")
            late = {"from_round": len(t.rounds) + 1, "missed": t.created.late_entries}
        if any(x.player_id == p.player_id for x in t.players):
            return self._reject(msg, "already-exists", f"player {p.player_id} is already registered")
        try:
            p = entry_form(p, [x.team for x in t.players])
        except pc.PairingError as e:
            return self._reject(msg, "malformed", str(e))
        if t.created.system == "mcmahon" and p.grade is None:
            return self._reject(msg, "invalid", "a McMahon event needs each player's grade")
        if t.created.system == "team-round-robin" or t.created.team_format == "member-total":
            if not p.team:
                return self._reject(msg, "invalid", "a team event needs each player's team")
            if p.board is not None and any(x.team == p.team and x.board == p.board for x in t.players):
                return self._reject(msg, "invalid", f"team {p.team} already has a member on board {p.board}")
        return [self._emit(PlayerRegistered(**p.model_dump(), **late))]

    def _on_WithdrawPlayer(self, msg, p: WithdrawPlayer):
        """A player leaves from round ``from_round`` (not yet paired) on: the Swiss systems stop
        pairing him (art. 20.4); a round robin leaves his boards unplayed (RoundPaired
        ``withdrawn_boards``), scored by the standings under art. 20.3."""
        t = self.tournaments[p.tournament_id]
        sys_ = t.created.system
        if sys_ in KNOCKOUTS or sys_ == "team-round-robin":
            return self._reject(msg, "invalid", f"a {sys_} has no withdrawals: a player who does not "
                                                "play loses his games by forfeit (report the absence)")
        if not any(x.player_id == p.player_id for x in t.players):
            return self._reject(msg, "invalid", f"{p.player_id} is not registered")
        if p.player_id in t.withdrawn:
            return self._reject(msg, "invalid", f"{p.player_id} has already withdrawn from round "
                                                f"{t.withdrawn[p.player_id]}")
        if t.finished or p.from_round <= len(t.rounds):
            return self._reject(msg, "closed", f"round {p.from_round} is already paired: a player "
                                               "absent from a paired game loses it by forfeit")
        total = t.total_rounds()
        if total is not None and p.from_round > total:
            return self._reject(msg, "invalid", f"the tournament has {total} rounds")
        return [self._emit(PlayerWithdrawn(tournament_id=p.tournament_id, player_id=p.player_id,
                                           from_round=p.from_round, reason=p.reason))]

    def _on_CorrectResult(self, msg, p: CorrectResult):
        """The arbiter's correction of a recorded result: ResultCorrected (the game's own record
        is not edited). A knockout's is refused once a later round is paired (that round was
        drawn from the result), and in a finished knockout when it would leave a match level."""
        t = self.tournaments[p.tournament_id]
        p = p.model_copy(update={"game_id": self.book.games.board_of(p.game_id),  # a replay: its board
                                 "result": "--" if p.result == "0-0" else p.result})  # 0-0 = double forfeit
        rnd = next((r.round for r in t.rounds for b in r.boards if b.game_id == p.game_id), None)
        if rnd is None:
            return self._reject(msg, "invalid", f"game {p.game_id} is not a game of {p.tournament_id}")
        previous = t.result(p.game_id)
        if previous is None:
            return self._reject(msg, "running", f"game {p.game_id} has no result yet: record it instead")
        if previous == p.result:
            return self._reject(msg, "invalid", f"game {p.game_id} already has the result {p.result}")
        if t.created.system in KNOCKOUTS:
            if len(t.rounds) > rnd:
                return self._reject(msg, "closed", f"round {rnd + 1} is already paired from this result: "
                                                   "a knockout result is corrected before the next round")
            trial = {**t.results, p.game_id: p.result}
            try:
                still = knockout_bracket(t.created, t.numbers, t.rounds, trial).finished
            except pc.PairingError as e:
                return self._reject(msg, "invalid", f"the corrected result does not fit the bracket: {e}")
            if t.finished and not still:
                return self._reject(msg, "closed", "the knockout is finished and the correction would "
                                                   "leave a match level (a play-off would be due)")
        out = [self._emit(ResultCorrected(tournament_id=p.tournament_id, game_id=p.game_id, round=rnd,
                                          previous=previous, result=p.result, reason=p.reason))]
        return out + self._maybe_finish(p.tournament_id)

    def _on_DrawLots(self, msg, p: DrawLots):
        t = self.tournaments[p.tournament_id]
        if t.rounds:
            return self._reject(msg, "closed", "lots must be drawn before round 1")
        ids = {x.player_id for x in t.players}
        if set(p.numbers) != ids:
            return self._reject(msg, "invalid", "draw numbers must name every registered player exactly once")
        if sorted(p.numbers.values()) != list(range(1, len(ids) + 1)):
            return self._reject(msg, "invalid", f"draw numbers must be 1..{len(ids)}, each once")
        return [self._emit(LotsDrawn(tournament_id=p.tournament_id, numbers=dict(p.numbers)))]

    def _on_SubmitLineup(self, msg, p: SubmitLineup):
        """A team's line-up for the match of ``round`` (12.2 reserves keep the board order, 12.3
        any order; 12.1 fixed boards take only the board order), before that match's first
        round is paired. The Berger table of the teams follows from the teams registered, so a
        line-up is checked again when its round is paired."""
        from shared.domain.teams import check_lineup
        t = self.tournaments[p.tournament_id]
        c = t.created
        if c.system != "team-round-robin":
            return self._reject(msg, "invalid", "line-ups are for a team-round-robin")
        rosters = team_rosters(t.players)
        same = [k for k in rosters if team_key(k) == team_key(p.team)]
        if not same:
            return self._reject(msg, "invalid", f"no team {p.team!r}; teams: {', '.join(rosters)}")
        p = p.model_copy(update={"team": same[0]})
        n = team_match_rounds(c)
        match = (p.round - 1) // n + 1
        first = (match - 1) * n + 1
        if first <= len(t.rounds):
            return self._reject(msg, "closed", f"round {first} (the match of round {p.round}) is already "
                                               "paired: the line-up is set before the match (12.3)")
        k = len(rosters)
        if k < 2:
            return self._reject(msg, "invalid", "line-ups are set once at least two teams are registered")
        if match > k + k % 2 - 1:
            return self._reject(msg, "invalid", f"the event has {(k + k % 2 - 1) * n} rounds")
        if self._match_of(t, rosters, match, p.team) is None:
            return self._reject(msg, "invalid", f"team {p.team} has no match in round {p.round}")
        try:
            check_lineup(rosters[p.team], list(p.members), c.team_boards, _lineup_system(c))
        except pc.PairingError as e:
            return self._reject(msg, "invalid", str(e))
        t.lineups[(p.team, match)] = tuple(p.members)
        return [Emit(self._stream(p.tournament_id), LineupSubmitted(
            tournament_id=p.tournament_id, team=p.team, round=p.round, members=p.members))]

    @staticmethod
    def _match_of(t: _Tournament, rosters: dict[str, list[str]], match: int, team: str) -> str | None:
        """The opponent of ``team`` in Berger round ``match`` of the teams, or None (a rest)."""
        names = list(rosters)
        plan = pc.round_robin(len(names))[match - 1]
        for a, b in plan.boards:
            if team == names[a - 1]:
                return names[b - 1]
            if team == names[b - 1]:
                return names[a - 1]
        return None

    def _on_FinishTournament(self, msg, p: FinishTournament):
        """The arbiter ends the event before its last round: TournamentFinished with the reason
        in ``decisions``; the rounds played stand. Refused while a game runs or once finished."""
        t = self.tournaments[p.tournament_id]
        if t.finished:
            return self._reject(msg, "closed", f"tournament {p.tournament_id} is finished")
        if t.open_games():
            return self._reject(msg, "round-running", f"{len(t.open_games())} game(s) running: "
                                                      "record their results first")
        return [self._emit(TournamentFinished(
            tournament_id=p.tournament_id, rounds=len(t.rounds),
            decisions=(f"ended by the arbiter after round {len(t.rounds)}: {p.reason}",)))]

    def _on_StartRound(self, msg, p: StartRound):
        t = self.tournaments[p.tournament_id]
        if t.finished:
            return self._reject(msg, "closed", f"tournament {p.tournament_id} is finished")
        expected = len(t.rounds) + 1
        if p.round != expected:
            return self._reject(msg, "invalid", f"the next round is {expected}, not {p.round}")
        total = t.total_rounds()
        if total is not None and p.round > total:
            return self._reject(msg, "invalid", f"the tournament has {total} rounds")
        if len(t.players) < 2:
            return self._reject(msg, "invalid", "at least two players are needed")
        if t.open_games():
            return self._reject(msg, "round-running",
                                f"round {expected - 1} is not finished: {len(t.open_games())} game(s) running")
        if p.boards is None and p.bye is not None:
            return self._reject(msg, "invalid", "bye goes with a manual pairing (boards)")
        if p.boards is None and p.requested_byes:
            if t.created.system not in SWISS_SYSTEMS:
                return self._reject(msg, "invalid", "requested byes go with a manual pairing or a Swiss "
                                                    f"system ({', '.join(SWISS_SYSTEMS)})")
            ids = {x.player_id for x in t.players}
            bad = [pid for pid in p.requested_byes if pid not in ids or t.withdrawn.get(pid, 99) <= p.round]
            if bad:
                return self._reject(msg, "invalid", f"requested bye of {bad}: not registered or withdrawn")
        if p.boards is not None and t.created.system in (*KNOCKOUTS, "team-round-robin"):
            return self._reject(msg, "invalid", f"a {t.created.system} is paired by its system, not manually")
        try:
            pairs, bye, system, rule, inputs = (self._manual(t, p) if p.boards is not None
                                                else self._by_system(t, p.round, dict(p.requested_byes)))
        except (pc.PairingError, ValueError) as e:  # ChineseSwissError is a ValueError
            return self._reject(msg, "invalid", str(e))
        extra = inputs.pop("_extra", {})
        lots = inputs.pop("_lots", None)
        out = []
        if lots is not None:  # the knockout's seeds, fixed before round 1
            out.append(self._emit(LotsDrawn(tournament_id=p.tournament_id, numbers=lots)))
        boards = tuple(Board(board=i + 1, game_id=f"{p.tournament_id}-r{p.round}-b{i + 1}", white=w, black=b)
                       for i, (w, b) in enumerate(pairs))
        digest = hashlib.sha256(json.dumps({"system": system, **inputs}, sort_keys=True)
                                .encode()).hexdigest()[:16]
        ev = RoundPaired(tournament_id=p.tournament_id, round=p.round, system=system, boards=boards,
                         bye=bye, manual=p.boards is not None, inputs_hash=digest,
                         rule=rule.model_copy(update={"game": t.created.game}),
                         requested_byes=dict(p.requested_byes), reason=p.reason, **extra)
        return out + [self._emit(ev)] + self._maybe_finish(p.tournament_id)

    def _on_BeginRound(self, msg, p: BeginRound):
        """Start a paired round of an event whose rounds start ``on-command``: RoundBegun with
        the round's games (each then gets its StartPlay, :mod:`services.tournament.starts`).
        Refused when the event is finished (``closed``), starts its rounds at the pairing, the
        round is not paired or has already begun (``invalid``)."""
        t = self.tournaments[p.tournament_id]
        if t.finished:
            return self._reject(msg, "closed", f"tournament {p.tournament_id} is finished")
        if getattr(t.created, "round_start", "auto") != "on-command":
            return self._reject(msg, "invalid", f"the rounds of {p.tournament_id} start when they are "
                                                "paired (round_start auto)")
        if p.round > len(t.rounds):
            return self._reject(msg, "invalid", f"round {p.round} is not paired yet")
        if p.round in getattr(t, "begun", ()):
            return self._reject(msg, "invalid", f"round {p.round} has already begun")
        games = tuple(b.game_id for b in t.rounds[p.round - 1].boards)
        return [self._emit(RoundBegun(tournament_id=p.tournament_id, round=p.round, game_ids=games))]

    def _manual(self, t: _Tournament, p: StartRound):
        ids = [x.player_id for x in t.players]
        seen: list[str] = []
        for b in p.boards:
            for pid in (b.white, b.black):
                if pid not in ids:
                    raise pc.PairingError(f"{pid} is not registered")
                if pid in seen:
                    raise pc.PairingError(f"{pid} is paired twice")
                seen.append(pid)
        if p.bye is not None and (p.bye not in ids or p.bye in seen):
            raise pc.PairingError(f"bye {p.bye} is not registered or is also paired")
        for pid in p.requested_byes:
            if pid not in ids or pid in seen or pid == p.bye:
                raise pc.PairingError(f"requested bye of {pid}: not registered, or also paired or the bye")
        pairs = [(b.white, b.black) for b in p.boards]
        return pairs, p.bye, "manual", MANUAL_RULE, {"manual": pairs, "bye": p.bye,
                                                     "requested_byes": dict(p.requested_byes)}

    def _by_system(self, t: _Tournament, rnd: int, requested: dict[str, str] | None = None):
        ids = [x.player_id for x in t.players]
        absent = t.absent(rnd, requested)
        if t.created.system in ("round-robin", "double-round-robin"):
            numbers = t.numbers or {pid: i + 1 for i, pid in enumerate(ids)}
            by_no = {n: pid for pid, n in numbers.items()}
            cycles = 2 if t.created.system == "double-round-robin" else 1
            plan = pc.round_robin(len(ids), cycles)[rnd - 1]
            pairs = [(by_no[w], by_no[b]) for w, b in plan.boards]
            bye = by_no[plan.bye] if plan.bye else None
            gone = [(w, b) for w, b in pairs if w in absent or b in absent]  # art. 20.3
            extra = {"system_version": "berger-appendix-1 1"}
            if gone:
                pairs = [x for x in pairs if x not in gone]
                extra["withdrawn_boards"] = tuple(ManualBoard(white=w, black=b) for w, b in gone)
                extra["decisions"] = tuple(f"{w}-{b} not played: {' and '.join(x for x in (w, b) if x in absent)} "
                                           "withdrew (art. 20.3)" for w, b in gone)
            return pairs, bye, t.created.system, BERGER_RULE, {
                "numbers": numbers, "round": rnd, "cycles": cycles, "withdrawn": sorted(t.withdrawn.items()),
                "_extra": extra}
        if t.created.system == "mcmahon":
            return self._mcmahon(t, rnd, absent)
        if t.created.system == "chinese-swiss":
            return self._chinese_swiss(t, rnd, absent)
        if t.created.system in KNOCKOUTS:
            return self._knockout(t, rnd)
        if t.created.system == "team-round-robin":
            return self._teams(t, rnd)
        return self._dutch(t, rnd, absent)

    def _knockout(self, t: _Tournament, rnd: int):
        """Seeds (by the tournament's ``seeding``, or DrawLots numbers) fixed at round 1 and
        written as LotsDrawn; each round from the bracket (single or double elimination) folded
        over the rounds so far."""
        from shared.domain.knockout import seed_order
        c = t.created
        inputs: dict = {"round": rnd}
        if t.numbers is None:
            seeds = seed_order([(x.player_id, x.rating) for x in t.players], c.seeding, c.lots_seed)
            inputs["_lots"] = {pid: i + 1 for i, pid in enumerate(seeds)}
        numbers = inputs.get("_lots") or t.numbers
        results = t.results
        br = knockout_bracket(c, numbers, t.rounds, results)
        pairs, decisions = br.next_round()
        decisions = _new_rule_decisions(br, t.rounds) + decisions
        double = c.system == "double-elimination"
        inputs.update(seeds=numbers, games=c.games_per_match, unshared=list(c.unshared_places),
                      played=[[[b.white, b.black, results.get(b.game_id)] for b in r.boards]
                              for r in t.rounds],
                      playoff=[c.playoff_games, c.playoff_decider],
                      _extra={"system_version": "double-elimination 1" if double else "knockout 1",
                              "lots_seed": c.lots_seed, "decisions": tuple(decisions)})
        if double:
            inputs["reset"] = c.grand_final_reset
        return pairs, None, c.system, DOUBLE_ELIMINATION_RULE if double else KNOCKOUT_RULE, inputs

    def _teams(self, t: _Tournament, rnd: int):
        """A team round robin: Berger tables (appendix 1) over the teams in order of
        registration; each match each team's line-up (SubmitLineup, checked again against
        ``team_format``) or else its first ``team_boards`` members by board order (12.1), the
        first-listed team Red (white seat) on odd boards, Black on even ones (13.2, 13.3).
        ``all-play-all`` (12.4): a match takes ``team_boards`` rounds, round ``i`` of the match
        pairing by :func:`shared.domain.teams.all_play_all`."""
        from shared.domain.teams import all_play_all, check_lineup, match_boards
        rosters = team_rosters(t.players)
        names = list(rosters)
        nb = t.created.team_boards
        short = [f"{k} ({len(v)})" for k, v in rosters.items() if len(v) < nb]
        if len(names) < 2 or short:
            raise pc.PairingError(f"a team round robin needs two teams of at least {nb} members; "
                                  f"short: {short or 'fewer than two teams'}")
        per = team_match_rounds(t.created)
        match, sub = (rnd - 1) // per + 1, (rnd - 1) % per
        plan = pc.round_robin(len(names))[match - 1]
        pairs, decisions, used = [], [], {}
        for first, second in plan.boards:
            a, b = names[first - 1], names[second - 1]
            for team in (a, b):
                chosen = t.lineups.get((team, match))
                if chosen is None:
                    used[team] = rosters[team][:nb]
                    decisions.append(f"{team}: no line-up submitted, board order {used[team]} (12.1)")
                else:
                    check_lineup(rosters[team], list(chosen), nb, _lineup_system(t.created))
                    used[team] = list(chosen)
                    decisions.append(f"{team}: line-up {used[team]} ({_LINEUP_ARTICLE[t.created.team_format]})")
            k = len(pairs)
            if per > 1:
                pairs += all_play_all(used[a], used[b])[sub]
                decisions.append(f"{a} v {b}: all-play-all round {sub + 1} of {per} (12.4), boards "
                                 f"{k + 1}-{k + nb}")
            else:
                pairs += match_boards(used[a], used[b])
                decisions.append(f"{a} v {b}: boards {k + 1}-{k + nb}, {a} Red on odd boards (13.2, 13.3)")
        if plan.bye:
            decisions.append(f"{names[plan.bye - 1]} has no match this round (odd number of teams)")
        inputs = {"round": rnd, "teams": used, "format": t.created.team_format,
                  "_extra": {"system_version": "team-berger 2", "decisions": tuple(decisions)}}
        return pairs, None, "team-round-robin", TEAM_RULE, inputs

    def prepare(self, msg: Envelope) -> list:
        """The Dutch pairing a StartRound will compute (:func:`_dutch_problem`), named so that
        the host computes it off its event loop (:mod:`shared.offload`); ``[]`` for anything
        else. Not a decision: a command that is then rejected only cost the computation."""
        p = msg.payload
        t = self.tournaments.get(getattr(p, "tournament_id", None))
        if (not isinstance(p, StartRound) or t is None or p.boards is not None or t.finished
                or t.created.system != "swiss" or p.round != len(t.rounds) + 1):
            return []
        from shared.offload import Job
        args = _dutch_problem(t, p.round, t.absent(p.round, dict(p.requested_byes)))[0]
        return [Job(_pair_dutch, args)] if args is not None else []

    def _dutch(self, t: _Tournament, rnd: int, absent: dict[str, str] | None = None):
        """FIDE Dutch (C.04.3 as amended in 2025, :mod:`services.pairing.dutch`): pairing
        numbers by rating then name, the event's ``initial_colour`` (E.5); the history as a TRF (byes ``U``, absences ``Z``,
        forfeits ``+``/``-``, a late entry's missed rounds ``Z`` or ``H``); ``absent``: players
        left out this round (withdrawn ``-``, requested byes ``F``/``H``/``Z``). The engine runs
        through :func:`shared.offload.call` (computed beforehand off the loop when the host
        could: :meth:`prepare`)."""
        from services.pairing.dutch import ENGINE
        from shared.offload import call
        absent = absent or {}
        args, no, hist = _dutch_problem(t, rnd, absent)
        by_no = {n: pid for pid, n in no.items()}
        if args is None:
            # nothing to pair: a round of byes only — the requested ones, and the one player
            # left unpaired gets the pairing-allocated bye (C.04.1 c: an odd player out)
            present = [pid for pid in no if pid not in absent]
            pairs, bye = [], (present[0] if present else None)
        else:
            try:
                sr = call(_pair_dutch, *args)
            except pc.PairingError as e:  # our engine's name, not the library's
                msg = str(e).removeprefix("py4swiss: ")
                raise pc.PairingError(f"Dutch (C.04.3): {msg[:1].lower() + msg[1:]}") from e
            pairs = [(by_no[int(w)], by_no[int(b)]) for w, b in sr.boards]
            bye = by_no[int(sr.bye)] if sr.bye else None
        inputs = {"players": [[pid, no[pid], [astuple(e) for e in hist[pid]]] for pid in no], "round": rnd,
                  "_extra": {"system_version": ENGINE}}
        if absent:
            inputs["absent"] = sorted(absent.items())
        return pairs, bye, "swiss-dutch", DUTCH_RULE, inputs

    def _chinese_swiss(self, t: _Tournament, rnd: int, absent: dict[str, str] | None = None):
        """积分编排制 (xiangqi rules appendix 2) from the record: scores, opponents, colours
        (white seat = Red ``r``), byes; draw numbers (编号) fixed by round 1's pairing; lots seeded
        by the tournament's ``lots_seed`` and the round, recorded in RoundPaired."""
        from services.pairing.chinese_swiss import CSPlayer, pair_round
        swiss = {x.id: x for x in self._swiss_players(t) if x.id not in (absent or {})}
        clubs = {x.player_id: x for x in t.players}
        players = [CSPlayer(id=pid, rating=clubs[pid].rating, club=clubs[pid].club, score=x.score,
                            opponents=x.opponents,
                            colours=tuple({"w": "r", "b": "b"}.get(c, "-") for c in x.colours),
                            had_bye=x.had_bye, no=(t.numbers or {}).get(pid))
                   for pid, x in swiss.items()]
        seed = t.created.lots_seed * 1000 + rnd
        res = pair_round(players, rnd, t.created.rounds, seed)
        if rnd == 1:
            t.numbers = dict(res.numbers)
        inputs = {"players": [[p.id, p.rating, p.club, p.score, list(p.opponents), list(p.colours),
                               p.had_bye, p.no] for p in players], "round": rnd, "seed": seed,
                  "_extra": {"system_version": f"{res.system} {res.version}", "lots_seed": seed,
                             "decisions": tuple(f"{d.item} {d.kind}: {d.detail}" for d in res.decisions)}}
        return list(res.boards), res.bye, "chinese-swiss", CHINESE_SWISS_RULE, inputs

    def _mcmahon(self, t: _Tournament, rnd: int, absent: dict[str, str] | None = None):
        """McMahon players from the record: MMS = initial (grade, bar, floor) + points (scores,
        opponents, colours and byes as for the Swiss systems); floats of earlier rounds from the
        scores each board's players had before it."""
        from services.pairing.mcmahon import McMahonPlayer, mcmahon_pair
        c = t.created
        base = {x.player_id: float(initial_mms(x.grade, c.mcmahon_bar, c.mcmahon_floor)) for x in t.players}
        running = {pid: 0.0 for pid in base}
        floats: dict[str, list[str]] = {pid: [] for pid in base}
        cells = t.cells()
        for i, r in enumerate(t.rounds):
            before = {pid: base[pid] + running[pid] for pid in base}
            for b in r.boards:
                diff = before[b.white] != before[b.black]
                hi, lo = (b.white, b.black) if before[b.white] >= before[b.black] else (b.black, b.white)
                floats[hi].append("down" if diff else "")
                floats[lo].append("up" if diff else "")
            if r.bye:
                floats[r.bye].append("")
            for pid in base:
                running[pid] += cells[pid][i].points
        grades = {x.player_id: x for x in t.players}
        players = [McMahonPlayer(id=x.id, mms=base[x.id] + x.score, rank=rank_value(grades[x.id].grade),
                                 rating=grades[x.id].rating, opponents=x.opponents, colours=x.colours,
                                 floats=tuple(floats[x.id]), had_bye=x.had_bye)
                   for x in self._swiss_players(t) if x.id not in (absent or {})]
        res = mcmahon_pair(players)
        inputs = {"players": [[p.id, p.mms, p.rank, list(p.opponents), list(p.colours), list(p.floats),
                               p.had_bye] for p in players], "round": rnd,
                  "bar": c.mcmahon_bar, "floor": c.mcmahon_floor,
                  "_extra": {"system_version": "mcmahon 1",
                             "decisions": tuple(f"{pid} drawn {d}" for pid, d in sorted(res.floats.items()))}}
        return list(res.boards), res.bye, "mcmahon", MCMAHON_RULE, inputs

    def _swiss_players(self, t: _Tournament) -> list[pc.SwissPlayer]:
        """The Swiss systems' view of the record: score (the cells' points: games, the bye's
        point, requested byes, a late entry's missed rounds), opponents and colours of the
        boards (``-`` for the pairing bye), whether a pairing bye was had."""
        cells = t.cells()
        out = []
        for i, x in enumerate(pairing_order(t.players)):
            cs = cells[x.player_id]
            out.append(pc.SwissPlayer(
                id=x.player_id, pairing_no=i + 1, score=sum(c.points for c in cs),
                opponents=tuple(c.opponent for c in cs if c.kind == "game"),
                colours=tuple(c.colour for c in cs if c.kind in ("game", "bye")),
                had_bye=any(c.kind == "bye" for c in cs)))
        return out

    def _maybe_finish(self, tid: str) -> list[Emit]:
        """TournamentFinished once every game has a result and no round is left to pair."""
        t = self.tournaments[tid]
        if t.finished or t.open_games() or not t.rounds:
            return []
        decisions: list[str] = []
        if t.created.system in KNOCKOUTS:
            br = knockout_bracket(t.created, t.numbers, t.rounds, t.results)
            done = br.finished
            if done:
                decisions = _new_rule_decisions(br, t.rounds)
        else:
            done = len(t.rounds) == t.total_rounds()
        if done:
            return [self._emit(TournamentFinished(tournament_id=tid, rounds=len(t.rounds),
                                                  decisions=tuple(decisions)))]
        return []


def _pair_dutch(players, rnd: int, rounds, first_white: bool):
    """:func:`services.pairing.dutch.pair_dutch` by position (a module-level name the offload
    key and a forked child can refer to)."""
    from services.pairing.dutch import pair_dutch
    return pair_dutch(players, rnd, rounds, first_white=first_white)


def _dutch_problem(t: _Tournament, rnd: int, absent: dict[str, str]):
    """``(args, numbers, history)``: the arguments of :func:`_pair_dutch` for round ``rnd``
    (None when at most one player is to be paired and nothing is: a round of byes only), the
    pairing numbers (player id -> number: rating then name) and each player's TRF history."""
    from services.pairing.dutch import DutchPlayer
    from shared.domain.trf import entries_from_cells
    order = pairing_order(t.players)
    no = {x.player_id: i + 1 for i, x in enumerate(order)}
    hist = entries_from_cells(t.cells(), no)  # all results are in: the round ended
    players = [DutchPlayer(number=no[x.player_id], history=tuple(hist[x.player_id]), rating=x.rating,
                           absent=x.player_id in absent, absent_result=absent.get(x.player_id, "-"))
               for x in order]
    present = [x for x in players if not x.absent]
    if len(present) <= 1 and (present or any(k in "FHZ" for k in absent.values())):
        return None, no, hist
    return (players, rnd, t.created.rounds, t.created.initial_colour == "white"), no, hist


def _new_rule_decisions(br, rounds) -> list[str]:
    """Matches the play-off rule settled (art. 15.6) not yet written in a RoundPaired."""
    seen = {d for r in rounds for d in r.decisions}
    return [d for d in br.rule_decisions() if d not in seen]


#: The article behind each team format's line-ups.
_LINEUP_ARTICLE = {None: "12.1", "fixed": "12.1", "reserves": "12.2", "per-match": "12.3",
                   "all-play-all": "12.3-12.4"}


def _lineup_system(created: TournamentCreated) -> str:
    """The :func:`shared.domain.teams.check_lineup` system of a team format: all-play-all
    line-ups may take any members in any order (their board only sets colours)."""
    return {None: "fixed", "all-play-all": "per-match"}.get(created.team_format, created.team_format)


def entry_form(p: RegisterPlayer, teams: list[str | None]) -> RegisterPlayer:
    """A registration in its one stored form: the grade as :func:`normalise_grade` writes it
    (``"3d"``, ``"15k"``: Chinese amateur grading, 7 dan to 25 kyu) and the team name as
    :func:`canonical_team` does (``teams``: those registered so far). Raises ``PairingError``
    naming the grade or the team name refused."""
    try:
        grade = None if p.grade is None else normalise_grade(p.grade)
    except pc.PairingError as e:
        raise pc.PairingError(f"grade: {e}") from None
    team = None if p.team is None else canonical_team(p.team, teams)
    return p.model_copy(update={"grade": grade, "team": team})

