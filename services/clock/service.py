"""Clock service: turns event time into remaining time (pure event handler around core.py).

Consumes game events: GameStarted (the clock starts, white's time runs; 1994 art. 12.3),
MoveAccepted (the mover's clock is pressed at the move's receive time), MoveRejected or
GameCommandRejected (a late arrival) with code ``flag-fallen`` and the timer's ticks (a deadline passed with no move received before it),
PenaltyApplied (time penalties and bonuses), GameEnded (stop). Writes ``game-<id>.clock``:
ClockStarted, ClockUpdated, ClockAdjusted, FlagFell, ClockStopped. All times integer ms.

Go: the time control may carry overtime (``"3600 5x30 byo-yomi"``, ``"600 25/600 Canadian"``,
``"10800 reserve 5"`` = Chinese rules 1988 art. 12.2); Black's clock starts (White's after
handicap stones); ClockUpdated carries periods / reserve minutes / block moves left; a flag
cites 1988 art. 23.5. Play stopped after two passes (MoveAccepted status ``scoring``, Japanese
rules 1989 art. 9-1): the clocks are paused (ClockStopped ``paused``) while the players settle the
dead stones, so no flag falls mid-agreement; when play resumes (PlayResumed, 9-3) the clock of
the side to move runs again from that event (ClockStarted ``resumed``). A late player's arrival
(ArrivalReported) within the event's limit has the late time not already run off the player's
own clock deducted from it (Chinese rules 1988 art. 23.3, :func:`services.clock.core.lateness`;
past the limit the penalties service forfeits the player, 23.1).

Go stone-removal time (a platform rule for online play: no rule text sets a time for settling
the dead stones): every Go game, timed or not, has ``stone_removal_s`` (GameStarted; 300 s by
default) from the moment play stops, restarted by each DeadStonesProposed, ended by PlayResumed,
ScoringAgreed, DeadStonesRuled, ArbiterCalled or the game's end. When a tick finds it run out
(event times only: the deadline is the stop's or the latest proposal's event time plus the
limit) the clock writes StoneRemovalExpired dated at the deadline, carrying the latest proposal,
unanswered, if any (adjudication counts it, else calls the arbiter). As with flags, a dead-stone
command received before the deadline and not yet ruled on by validation holds the tick.

No flag on a stale view (DESIGN.md invariant 2): the clock also reads the game commands, and a
timer tick does not call a flag while a SubmitMove of the player to move, received before the
deadline, has not yet been ruled on by validation; and it waits ``grace_ms`` past the deadline
for moves still in flight between the gateway and the log. The flag's event time is the deadline
itself either way.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_COMMANDS, GAME_EVENTS, AcceptDead, ArbiterCalled, ArrivalReported, ClockAdjusted,
    ClockStarted, ClockStopped, ClockUpdated, DeadStonesProposed, DeadStonesRuled, FlagFell,
    GameCommandRejected, GameEnded, GameStarted, MarkDead, MoveAccepted, MoveRejected, PenaltyApplied, PlayResumed,
    RejectDead, Rule, RuleDeadStones, ScoringAgreed, StoneRemovalExpired, SubmitMove,
)
from services.clock import core as clk
from shared.rules.games import rules_of
from shared.service import Core, Emit


@dataclass
class _Game:
    tc: clk.TimeControl
    state: clk.ClockState
    cause: Envelope  # the event that set the current deadline (causation of a ticked flag)
    players: dict[str, str] = field(default_factory=dict)  # player id -> colour
    pending: dict = field(default_factory=dict)  # SubmitMove id -> (colour, received ms)
    over: bool = False
    game: str = "chess"
    started_ms: int = 0  # event time of GameStarted (epoch ms)
    first_run: dict = field(default_factory=dict)  # colour -> epoch ms its clock first ran
    paused_for: str | None = None  # Go: play stopped; the colour whose clock runs on resumption

    @property
    def timeout_rule(self) -> Rule:
        """Chess FIDE 1994 art. 10.14; xiangqi 1999 art. 4.1.4 / 22.1; Go: Chinese rules 1988
        art. 23.5 (用时，包括读秒，超过时限一律判负; the arbiter law of every Go ruleset here)."""
        return rules_of(self.game)["timeout"]


@dataclass
class _Removal:
    """Go: the stone-removal timer of one game (platform rule). ``deadline_ms`` None while it
    does not run; ``proposal`` the latest (colour, dead GTP points) since it started;
    ``pending`` dead-stone commands (event id -> receive ms) validation has not yet ruled on."""

    limit_ms: int
    deadline_ms: int | None = None
    proposal: tuple[str, tuple[str, ...]] | None = None
    cause: Envelope | None = None
    pending: dict = field(default_factory=dict)


_DEAD_COMMANDS = (MarkDead, AcceptDead, RejectDead, RuleDeadStones)


def first_to_move(p: GameStarted) -> clk.Colour:
    """The colour whose clock starts (1994 art. 12.3: White; xiangqi: Red in the white seat;
    Go 1988 art. 2.1: Black, or White after handicap stones): the side to move in the start
    position (Go: the ``TURN`` word of ``go SIZE RULES TURN ...``)."""
    if p.game == "go":
        words = p.start_fen.split()
        return "white" if len(words) > 3 and words[3] == "white" else "black"
    return "white" if " w " in p.start_fen else "black"


@dataclass
class ClockCore(Core):
    name: str = "clock"
    inputs: tuple[str, ...] = (GAME_COMMANDS, GAME_EVENTS)
    outputs: tuple[str, ...] = (GAME_EVENTS,)
    grace_ms: int = 500
    games: dict[str, _Game] = field(default_factory=dict)
    # (deadline_ms, game_id) of running clocks; stale entries are skipped when popped
    deadlines: list[tuple[int, str]] = field(default_factory=list)
    removals: dict[str, _Removal] = field(default_factory=dict)  # Go stone-removal timers

    def handle(self, msg: Envelope) -> list[Emit]:
        self._removal(msg)
        out = self._handle(msg)
        g = self.games.get(getattr(msg.payload, "game_id", ""))
        if g is not None and not g.over:
            d = clk.deadline(g.state, g.tc)
            if d is not None:
                heapq.heappush(self.deadlines, (d, msg.payload.game_id))
        return out

    def _handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        if isinstance(p, GameStarted):
            return self._start(msg, p)
        g = self.games.get(getattr(p, "game_id", ""))
        if g is None or g.over:
            return []
        if isinstance(p, SubmitMove):
            if p.player_id in g.players:
                g.pending[msg.event_id] = (g.players[p.player_id], msg.at_ms)
            return []
        if isinstance(p, (MoveAccepted, MoveRejected)):
            g.pending.pop(msg.causation_id, None)
        if isinstance(p, MoveAccepted):
            out = self._press(msg, p, g)
            if p.status == "scoring" and not g.over:  # Go: play stopped (J89 9-1)
                out += self._pause(msg, p.game_id, g)
            return out
        if isinstance(p, PlayResumed):
            return self._resume(msg, p, g)
        if isinstance(p, ArrivalReported):
            return self._arrival(msg, p, g)
        if isinstance(p, (MoveRejected, GameCommandRejected)) and p.code == "flag-fallen":
            return self._flag(g, p.game_id, msg.at_ms, g.timeout_rule)  # a move or an arrival
        if isinstance(p, PenaltyApplied) and p.kind in ("time", "bonus"):
            return self._adjust(msg, p, g)
        if isinstance(p, GameEnded):
            g.over = True
            if g.state.running is None:
                return []
            g.state = clk.stop(g.state, max(msg.at_ms, g.state.turn_started_at or msg.at_ms))
            return [Emit(self._stream(p.game_id), ClockStopped(
                game_id=p.game_id, white_ms=g.state.white.remaining_ms, black_ms=g.state.black.remaining_ms))]
        return []

    @staticmethod
    def _stream(game_id: str) -> str:
        return stream_for(f"game-{game_id}", "clock")

    def _start(self, msg: Envelope, p: GameStarted) -> list[Emit]:
        if p.game_id in self.games:
            return []
        tc = clk.TimeControl.parse(p.time_control)
        if tc is None:  # untimed game
            return []
        first = first_to_move(p)
        state = clk.start(tc, msg.at_ms, first=first)
        self.games[p.game_id] = _Game(tc, state, msg, players={p.white: "white", p.black: "black"},
                                     game=p.game, started_ms=msg.at_ms, first_run={first: msg.at_ms})
        return [Emit(self._stream(p.game_id), ClockStarted(
            game_id=p.game_id, time_control=p.time_control, white_ms=state.white.remaining_ms,
            black_ms=state.black.remaining_ms, running=first, deadline_ms=clk.deadline(state, tc)))]

    def _press(self, msg: Envelope, p: MoveAccepted, g: _Game) -> list[Emit]:
        try:
            g.state, r = clk.press(g.state, g.tc, p.colour, msg.at_ms)
        except clk.FlagAlreadyFell:
            return self._flag(g, p.game_id, msg.at_ms, g.timeout_rule)
        g.cause = msg
        g.first_run.setdefault(r.running, msg.at_ms)
        return [Emit(self._stream(p.game_id), ClockUpdated(
            game_id=p.game_id, ply=p.ply, mover=r.mover, elapsed_ms=r.elapsed_ms,
            white_ms=r.white_ms, black_ms=r.black_ms, running=r.running,
            deadline_ms=r.deadline_ms, period=r.period_index,
            white_periods_left=r.white_periods_left, black_periods_left=r.black_periods_left,
            white_moves_left=r.white_moves_left, black_moves_left=r.black_moves_left))]

    def _flag(self, g: _Game, game_id: str, now_ms: int, rule: Rule) -> list[Emit]:
        dl = clk.check_flag(g.state, g.tc, now_ms)
        if dl is None:
            return []
        colour = g.state.running
        g.state = clk.flag(g.state, g.tc, now_ms)
        g.over = True
        return [self._flag_fell(game_id, g, colour, dl, now_ms, rule)]

    def _flag_fell(self, game_id: str, g: _Game, colour: str, deadline_ms: int, observed_ms: int,
                   rule: Rule) -> Emit:
        """FlagFell of ``colour``, dated at ``deadline_ms``, with the clocks after it."""
        return Emit(self._stream(game_id), FlagFell(
            game_id=game_id, colour=colour, deadline_ms=deadline_ms, observed_ms=observed_ms,
            white_ms=max(0, g.state.white.remaining_ms), black_ms=max(0, g.state.black.remaining_ms),
            rule=rule), at_ms=deadline_ms)

    def _adjust(self, msg: Envelope, p: PenaltyApplied, g: _Game) -> list[Emit]:
        colour = p.colour if p.kind == "time" else ("black" if p.colour == "white" else "white")
        at = max(msg.at_ms, g.state.turn_started_at or msg.at_ms)  # never before the running turn
        g.state = clk.adjust(g.state, colour, p.time_delta_ms, at_ms=at)
        return self._adjusted(msg, p.game_id, g, colour, p.time_delta_ms, p.cause, p.rule, None)

    def _adjusted(self, msg: Envelope, game_id: str, g: _Game, colour: str, delta_ms: int,
                  cause: str, flag_rule: Rule, rule: Rule | None) -> list[Emit]:
        """ClockAdjusted after ``g.state`` took ``delta_ms`` (ms) on ``colour``'s clock, and the
        FlagFell under ``flag_rule`` when that used up all of the player's time."""
        out = [Emit(self._stream(game_id), ClockAdjusted(
            game_id=game_id, colour=colour, delta_ms=delta_ms,
            white_ms=g.state.white.remaining_ms, black_ms=g.state.black.remaining_ms, cause=cause,
            deadline_ms=None if g.state.flagged else clk.deadline(g.state, g.tc), rule=rule))]
        if g.state.flagged is not None:
            g.over = True
            out.append(self._flag_fell(game_id, g, g.state.flagged, msg.at_ms, msg.at_ms, flag_rule))
        else:
            g.cause = msg
        return out

    # ------------------------------------------------------------------------- Go
    def _pause(self, msg: Envelope, game_id: str, g: _Game) -> list[Emit]:
        """Play stopped after two passes (Japanese rules 1989 art. 9-1): the clock of the side
        to move, just started by the second pass, stops at once (nothing charged) until play
        resumes or the game is counted."""
        g.paused_for = g.state.running
        g.state = clk.stop(g.state, msg.at_ms)
        return [Emit(self._stream(game_id), ClockStopped(
            game_id=game_id, white_ms=g.state.white.remaining_ms, black_ms=g.state.black.remaining_ms,
            paused=True))]

    def _resume(self, msg: Envelope, p: PlayResumed, g: _Game) -> list[Emit]:
        """Play resumes (Japanese rules 1989 art. 9-3): the paused clock of the side that was to
        move runs again from this event (when that side asked to resume, its yielded turn
        follows as a pass, which presses the clock over to the opponent)."""
        colour, g.paused_for = g.paused_for, None
        if colour is None or g.state.running is not None:
            return []
        side = g.state.side(colour)
        period = g.tc.period(side.period_index)
        g.state = replace(g.state, running=colour, turn_started_at=msg.at_ms,
                          turn_delay=period.delay, turn_delay_ms=period.delay_ms)
        g.cause = msg
        return [Emit(self._stream(p.game_id), ClockStarted(
            game_id=p.game_id, time_control=g.tc.to_pgn(), white_ms=g.state.white.remaining_ms,
            black_ms=g.state.black.remaining_ms, running=colour,
            deadline_ms=clk.deadline(g.state, g.tc), resumed=True))]

    def _arrival(self, msg: Envelope, p: ArrivalReported, g: _Game) -> list[Emit]:
        """A late player arrived (Chinese rules 1988 art. 23.3, Go only): within the event's
        limit the late time is deducted from the player's clock, less the part of it the
        player's own clock already ran (the first mover's clock runs from the start; the
        other's from the first move): :func:`services.clock.core.lateness`. Past the limit
        nothing here: the penalties service forfeits the player (23.1).

        A flag that fell before the arrival's event time is settled first (FlagFell dated at
        the deadline, 23.5; validation normally refuses such an arrival as ``flag-fallen``, this
        covers a deadline it had not yet read): nothing is deducted after it."""
        rule = rules_of(g.game).get("lateness")
        if rule is None or g.state.flagged is not None:
            return []
        if (fell := self._flag(g, p.game_id, msg.at_ms, g.timeout_rule)):
            return fell
        if p.limit_ms and p.late_ms > p.limit_ms:
            return []
        ran_from = g.first_run.get(p.colour)
        unrun = p.late_ms if ran_from is None else min(p.late_ms, max(0, ran_from - g.started_ms))
        at = max(msg.at_ms, g.state.turn_started_at or msg.at_ms)
        kind, g.state = clk.lateness(g.state, p.colour, unrun, max(p.limit_ms, unrun), at_ms=at)
        if kind != "deducted":
            return []
        cause = (f"{p.colour} arrived {p.late_ms / 1000:g} s late; {unrun / 1000:g} s of it not on "
                 f"the player's clock deducted")
        return self._adjusted(msg, p.game_id, g, p.colour, -unrun, cause, g.timeout_rule, rule)

    # --------------------------------------------------------------- Go: stone-removal time
    def _removal(self, msg: Envelope) -> None:
        """Keep the stone-removal timer of a Go game (see the module doc) from ``msg``."""
        from shared.rules.go import DEFAULT_STONE_REMOVAL_S

        p = msg.payload
        gid = getattr(p, "game_id", "")
        if isinstance(p, GameStarted):
            if p.game == "go" and gid not in self.removals:
                s = DEFAULT_STONE_REMOVAL_S if p.stone_removal_s is None else p.stone_removal_s
                self.removals[gid] = _Removal(limit_ms=s * 1000)
            return
        r = self.removals.get(gid)
        if r is None:  # not a Go game, or it has ended (its timer is dropped)
            return
        if isinstance(p, _DEAD_COMMANDS):
            r.pending[msg.event_id] = msg.at_ms
            return
        r.pending.pop(msg.causation_id, None)  # validation ruled on it (accepted or refused)
        if isinstance(p, MoveAccepted):
            if p.status == "scoring":  # play stopped (J89 9-1 / 1988 art. 21.1): the time runs
                r.deadline_ms, r.proposal, r.cause = msg.at_ms + r.limit_ms, None, msg
            else:
                r.deadline_ms, r.proposal = None, None
        elif isinstance(p, DeadStonesProposed):  # each proposal restarts the time
            r.deadline_ms, r.proposal, r.cause = msg.at_ms + r.limit_ms, (p.colour, p.dead), msg
        elif isinstance(p, (PlayResumed, ScoringAgreed, DeadStonesRuled, ArbiterCalled)):
            r.deadline_ms, r.proposal = None, None
        elif isinstance(p, (GameEnded, FlagFell)):
            del self.removals[gid]

    def _removal_expired(self, gid: str, r: _Removal, now_ms: int) -> tuple[Envelope | None, Emit]:
        """StoneRemovalExpired of ``gid`` at its deadline, observed at ``now_ms``; the timer stops."""
        from shared.rules.go import rule_for

        d, r.deadline_ms = r.deadline_ms, None
        who, dead = r.proposal if r.proposal is not None else (None, None)
        return r.cause, Emit(self._stream(gid), StoneRemovalExpired(
            game_id=gid, deadline_ms=d, observed_ms=now_ms, limit_s=r.limit_ms // 1000,
            proposed_by=who, dead=dead, rule=rule_for("stone-removal-timeout")), at_ms=d)

    def _next_removal(self) -> int | None:
        return min((r.deadline_ms for r in self.removals.values()
                    if r.deadline_ms is not None), default=None)

    # -------------------------------------------------------------------------------- timer
    def next_deadline(self) -> int | None:
        """Earliest deadline of a running clock or a Go stone-removal timer (epoch ms), or None
        (the timer wakes at this plus ``grace_ms``)."""
        ds = [d for d in (self._next_flag(), self._next_removal()) if d is not None]
        return min(ds, default=None)

    def _next_flag(self) -> int | None:
        """Earliest deadline of a running clock (epoch ms), or None."""
        while self.deadlines:
            d, gid = self.deadlines[0]
            g = self.games.get(gid)
            if g is not None and not g.over and clk.deadline(g.state, g.tc) == d:
                return d
            heapq.heappop(self.deadlines)
        return None

    def tick(self, now_ms: int) -> list[tuple[Envelope | None, Emit]]:
        """Flags of every running clock whose deadline passed more than ``grace_ms`` before
        ``now_ms`` (epoch ms) with no move of the running side received before it; and Go
        stone-removal times run out likewise (no dead-stone command received before the
        deadline still unruled): StoneRemovalExpired."""
        out = self._tick_removals(now_ms)
        held = []
        while (d := self._next_flag()) is not None and d + self.grace_ms < now_ms:
            entry = heapq.heappop(self.deadlines)
            gid = entry[1]
            g = self.games[gid]
            running = g.state.running
            if any(c == running and at <= d for c, at in g.pending.values()):
                held.append(entry)  # a move received in time is being validated
                continue
            for e in self._flag(g, gid, now_ms, g.timeout_rule):
                out.append((g.cause, e))
        for entry in held:
            heapq.heappush(self.deadlines, entry)
        return out

    def _tick_removals(self, now_ms: int) -> list[tuple[Envelope | None, Emit]]:
        out = []
        for gid, r in sorted(self.removals.items()):
            d = r.deadline_ms
            if d is None or d + self.grace_ms >= now_ms:
                continue
            if any(at <= d for at in r.pending.values()):
                continue  # a command received in time is being validated
            out.append(self._removal_expired(gid, r, now_ms))
        return out
