"""Clock service: turns event time into remaining time (pure event handler around core.py).

Consumes game events: GameStarted (the clock starts, white's time runs; 1994 art. 12.3),
MoveAccepted (the mover's clock is pressed at the move's receive time), MoveRejected or
GameCommandRejected (a late arrival) with code ``flag-fallen`` and the timer's ticks (a deadline passed with no move received before it),
PenaltyApplied (time penalties and bonuses), GameEnded (stop), and the arbiter's PauseClock /
ResumeClock commands (:func:`services.clock.core.pause`; refused with GameCommandRejected when
not the arbiter's, or when no clock runs / none is paused). Writes ``game-<id>.clock``:
ClockStarted, ClockUpdated, ClockAdjusted, ClockPaused, ClockResumed, FlagFell, ClockStopped.
All times integer ms. A press that leaves the side to move with no time at all (it moved
exactly at its deadline with nothing to come) is followed at once by its FlagFell, dated at the
press, so no command of it is judged before its flag.

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

Timers (DESIGN.md invariant 2): the clock never calls a flag on its own. :meth:`ClockCore.due`
tells the game processor's timer which games have a deadline more than ``grace_ms`` past; the
timer publishes a CheckClock command on the game's command stream, and the flag (or the
stone-removal expiry) is decided when that command comes up in the stream's order: a move ordered
before it is judged first (refused as ``flag-fallen`` by validation if it was received after the
deadline), a move ordered after it finds the game over. The decision is dated at the deadline.
"""
from __future__ import annotations

import heapq
from dataclasses import dataclass, field, replace

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_COMMANDS, GAME_EVENTS, ArbiterCalled, ArrivalReported, ClockAdjusted,
    ClockPaused, ClockResumed, ClockStarted, ClockStopped, ClockUpdated, DeadStonesProposed,
    DeadStonesRuled, FlagFell, CheckClock, GameCommandRejected, GameEnded, GameStarted,
    MoveAccepted, MoveRejected, PauseClock, PenaltyApplied, PlayResumed, PlayStarted, ResumeClock,
    Rule, ScoringAgreed, StoneRemovalExpired,
)
from services.clock import core as clk
from shared.rules.games import rules_of
from shared.service import Core, Emit


@dataclass
class _Game:
    tc: clk.TimeControl
    state: clk.ClockState
    players: dict[str, str] = field(default_factory=dict)  # player id -> colour
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
    does not run; ``proposal`` the latest (colour, dead GTP points) since it started."""

    limit_ms: int
    deadline_ms: int | None = None
    proposal: tuple[str, tuple[str, ...]] | None = None


#: What the clock acts on (the rest of its inputs passes by without a look).
_READS = (GameStarted, PlayStarted, CheckClock, PauseClock, ResumeClock, MoveAccepted, PlayResumed, ArrivalReported, MoveRejected,
          GameCommandRejected, PenaltyApplied, GameEnded, DeadStonesProposed, ScoringAgreed,
          DeadStonesRuled, ArbiterCalled, FlagFell)


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
    aggregates = ("games",)  # snapshotted a game at a time (Core.aggregates)
    inputs: tuple[str, ...] = (GAME_COMMANDS, GAME_EVENTS)
    reads = frozenset(_READS)
    outputs: tuple[str, ...] = (GAME_EVENTS,)
    grace_ms: int = 500  # the timer asks this long after a deadline (moves in flight)
    retry_ms: int = 2_000  # and again this long after asking while the deadline still stands
    games: dict[str, _Game] = field(default_factory=dict)
    # the timer's schedule, (wake_ms, deadline_ms, game_id): entries whose deadline no longer
    # stands are dropped when they come up. Not a decision input: only what the timer asks.
    deadlines: list[tuple[int, int, str]] = field(default_factory=list)
    removals: dict[str, _Removal] = field(default_factory=dict)  # Go stone-removal timers
    #: games created ``clock_start`` on-command whose PlayStarted has not come: their GameStarted
    waiting: dict[str, GameStarted] = field(default_factory=dict)

    #: game id -> its standing deadlines (:meth:`_deadlines`), as last computed: what the
    #: schedule's entries are checked against (a dict lookup, not the clock arithmetic)
    standing: dict[str, list[int]] = field(default_factory=dict)

    def __getstate__(self) -> dict:
        """What a snapshot keeps: the clocks; the timer's schedule is rebuilt from them."""
        return {k: v for k, v in self.__dict__.items() if k not in ("deadlines", "standing")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("waiting", {})  # a snapshot of older code
        self._schedule()

    def loaded(self) -> None:
        """A snapshot's clocks are all loaded (:mod:`shared.snapshot` puts them back after the
        rest of the state): the schedule from them."""
        self._schedule()

    def _schedule(self) -> None:
        """The timer's schedule from the clocks (a snapshot loaded): one entry per standing
        deadline."""
        self.standing = {gid: self._deadlines(gid) for gid in sorted(set(self.games) | set(self.removals))}
        self.deadlines = [(d, d, gid) for gid, ds in self.standing.items() for d in ds]
        heapq.heapify(self.deadlines)

    def _drop_replaced(self) -> None:
        """Drop the schedule's entries whose deadline no longer stands (each move replaces its
        game's, an hour off at 3600+10), as :meth:`next_deadline` would when they came up;
        the others keep their wake time (a deadline already asked is asked again only
        ``retry_ms`` later). Run when the schedule outgrows the games: it then stays the size
        of the event, not of its moves."""
        self.deadlines = [e for e in self.deadlines if e[1] in self.standing.get(e[2], ())]
        heapq.heapify(self.deadlines)

    def handle(self, msg: Envelope) -> list[Emit]:
        if not isinstance(msg.payload, _READS):  # a move command, its own readings ...
            return []
        gid = getattr(msg.payload, "game_id", "")
        before = self.standing.get(gid, ())
        self._removal(msg)
        out = self._handle(msg)
        after = self._deadlines(gid)
        if after:
            self.standing[gid] = after
        else:
            self.standing.pop(gid, None)
        for d in after:
            if d not in before:
                heapq.heappush(self.deadlines, (d, d, gid))
        if len(self.deadlines) > 2 * (len(self.games) + len(self.removals)) + 64:
            self._drop_replaced()
        return out

    def _handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        if isinstance(p, GameStarted):
            if p.clock_start == "on-command":  # the clock waits for the game's PlayStarted
                self.waiting.setdefault(p.game_id, p)
                return []
            return self._start(msg, p)
        if isinstance(p, PlayStarted):
            started = self.waiting.pop(p.game_id, None)
            return [] if started is None else self._start(msg, started)
        if isinstance(p, CheckClock):
            return self._check(msg, p)
        if isinstance(p, (PauseClock, ResumeClock)):
            return self._arbiter(msg, p)
        if isinstance(p, GameEnded):  # a game that ends before it started (an arbiter's result)
            self.waiting.pop(p.game_id, None)
        g = self.games.get(getattr(p, "game_id", ""))
        if g is None or g.over:
            return []
        if isinstance(p, MoveAccepted):
            out = self._press(msg, p, g)
            if p.status == "scoring" and not g.over:  # Go: play stopped (J89 9-1)
                out += self._pause(msg, p.game_id, g)
            elif p.status == "ongoing" and not g.over:  # the side to move may have no time
                out += self._flag(g, p.game_id, msg.at_ms, g.timeout_rule)
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
        self.games[p.game_id] = _Game(tc, state, players={p.white: "white", p.black: "black"},
                                     game=p.game, started_ms=msg.at_ms, first_run={first: msg.at_ms})
        return [Emit(self._stream(p.game_id), ClockStarted(
            game_id=p.game_id, time_control=p.time_control, white_ms=state.white.remaining_ms,
            black_ms=state.black.remaining_ms, running=first, deadline_ms=clk.deadline(state, tc)))]

    def _press(self, msg: Envelope, p: MoveAccepted, g: _Game) -> list[Emit]:
        try:
            g.state, r = clk.press(g.state, g.tc, p.colour, msg.at_ms)
        except clk.FlagAlreadyFell:
            return self._flag(g, p.game_id, msg.at_ms, g.timeout_rule)
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
        return out

    # --------------------------------------------------------------- arbiter pause
    def _arbiter(self, msg: Envelope, p: PauseClock | ResumeClock) -> list[Emit]:
        """The arbiter's PauseClock / ResumeClock (:func:`services.clock.core.pause`, ``resume``):
        ClockPaused / ClockResumed with the reason; refused (GameCommandRejected, nothing
        changes) from anyone but an arbiter, for a game with no running clock, a clock already
        paused / not paused, or a time before the running turn. A pause received after the
        running side's deadline finds its flag fallen: FlagFell (dated at the deadline) instead;
        a resumption that leaves the side to move no time at all: FlagFell at once."""
        g = self.games.get(p.game_id)
        why = ("only an arbiter may pause or resume the clock" if msg.actor.kind != "arbiter"
               else f"no clock runs in game {p.game_id} (unknown, untimed or over)"
               if g is None or g.over else None)
        if why is not None:
            return [self._refuse(msg, p, why)]
        before = g.state
        try:
            g.state = (clk.pause(g.state, g.tc, msg.at_ms) if isinstance(p, PauseClock)
                       else clk.resume(g.state, msg.at_ms))
        except clk.FlagAlreadyFell:
            return self._flag(g, p.game_id, msg.at_ms, g.timeout_rule)
        except clk.ClockError as e:
            return [self._refuse(msg, p, str(e))]
        s, rule = g.state, rules_of(g.game).get("pause")
        shown = {c: clk.remaining_at(s, g.tc, c, msg.at_ms) for c in clk.COLOURS}
        if isinstance(p, PauseClock):
            return [Emit(self._stream(p.game_id), ClockPaused(
                game_id=p.game_id, running=s.running, white_ms=shown["white"],
                black_ms=shown["black"], reason=p.reason, rule=rule))]
        return [Emit(self._stream(p.game_id), ClockResumed(
            game_id=p.game_id, running=s.running, white_ms=shown["white"], black_ms=shown["black"],
            deadline_ms=clk.deadline(s, g.tc), paused_ms=msg.at_ms - before.paused_at,
            reason=p.reason, rule=rule))] + self._flag(g, p.game_id, msg.at_ms, g.timeout_rule)

    def _refuse(self, msg: Envelope, p, reason: str) -> Emit:
        return Emit(self._stream(p.game_id), GameCommandRejected(
            game_id=p.game_id, command_id=str(msg.event_id), command_type=msg.type,
            code="invalid", reason=reason[:500]))

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
        p = msg.payload
        gid = getattr(p, "game_id", "")
        if isinstance(p, GameStarted):
            if p.game == "go" and gid not in self.removals:
                from shared.rules.go import DEFAULT_STONE_REMOVAL_S

                s = DEFAULT_STONE_REMOVAL_S if p.stone_removal_s is None else p.stone_removal_s
                self.removals[gid] = _Removal(limit_ms=s * 1000)
            return
        r = self.removals.get(gid)
        if r is None:  # not a Go game, or it has ended (its timer is dropped)
            return
        if isinstance(p, MoveAccepted):
            if p.status == "scoring":  # play stopped (J89 9-1 / 1988 art. 21.1): the time runs
                r.deadline_ms, r.proposal = msg.at_ms + r.limit_ms, None
            else:
                r.deadline_ms, r.proposal = None, None
        elif isinstance(p, DeadStonesProposed):  # each proposal restarts the time
            r.deadline_ms, r.proposal = msg.at_ms + r.limit_ms, (p.colour, p.dead)
        elif isinstance(p, (PlayResumed, ScoringAgreed, DeadStonesRuled, ArbiterCalled)):
            r.deadline_ms, r.proposal = None, None
        elif isinstance(p, (GameEnded, FlagFell)):
            del self.removals[gid]

    def _removal_expired(self, gid: str, r: _Removal, now_ms: int) -> Emit:
        """StoneRemovalExpired of ``gid`` at its deadline, observed at ``now_ms``; the timer stops."""
        from shared.rules.go import rule_for

        d, r.deadline_ms = r.deadline_ms, None
        who, dead = r.proposal if r.proposal is not None else (None, None)
        return Emit(self._stream(gid), StoneRemovalExpired(
            game_id=gid, deadline_ms=d, observed_ms=now_ms, limit_s=r.limit_ms // 1000,
            proposed_by=who, dead=dead, rule=rule_for("stone-removal-timeout")), at_ms=d)

    # -------------------------------------------------------------------------------- timer
    def _check(self, msg: Envelope, p: CheckClock) -> list[Emit]:
        """The timer's CheckClock at ``msg.at_ms``: the stone-removal expiry of a Go game whose
        limit is before it, and the flag of a running clock whose deadline is before it (a move
        at the deadline itself still counts). Nothing when no deadline is past."""
        out = []
        r = self.removals.get(p.game_id)
        if r is not None and r.deadline_ms is not None and r.deadline_ms < msg.at_ms:
            out.append(self._removal_expired(p.game_id, r, msg.at_ms))
        g = self.games.get(p.game_id)
        if g is not None and not g.over:
            out += self._flag(g, p.game_id, msg.at_ms, g.timeout_rule)
        return out

    def _deadlines(self, game_id: str) -> list[int]:
        """The running deadlines (epoch ms) of one game: its flag and its stone-removal limit."""
        out = []
        g = self.games.get(game_id)
        if g is not None and not g.over and (d := clk.deadline(g.state, g.tc)) is not None:
            out.append(d)
        r = self.removals.get(game_id)
        if r is not None and r.deadline_ms is not None:
            out.append(r.deadline_ms)
        return out

    def next_deadline(self) -> int | None:
        """When the timer next has something to ask (epoch ms; it asks ``grace_ms`` later): the
        earliest deadline of a running clock or a Go stone-removal timer, or None."""
        while self.deadlines:
            wake, d, gid = self.deadlines[0]
            if d in self.standing.get(gid, ()):
                return wake
            heapq.heappop(self.deadlines)
        return None

    def due(self, now_ms: int) -> list[CheckClock]:
        """The CheckClock commands the timer publishes at ``now_ms`` (epoch ms): one per game with
        a deadline more than ``grace_ms`` before ``now_ms`` (grace for moves received before
        the deadline and still on their way to the log). A deadline that still stands
        ``retry_ms`` later (the command was lost, or is still queued) is asked again."""
        out: dict[tuple[str, int], CheckClock] = {}
        while (wake := self.next_deadline()) is not None and wake + self.grace_ms < now_ms:
            _, d, gid = heapq.heappop(self.deadlines)
            if (gid, d) not in out:
                out[gid, d] = CheckClock(game_id=gid, deadline_ms=d)
                heapq.heappush(self.deadlines, (now_ms + self.retry_ms - self.grace_ms, d, gid))
        return list(out.values())
