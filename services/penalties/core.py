"""Penalties: fouls, warnings, time penalties and forfeits (pure core, no I/O).

- An incorrect draw claim (adjudication's DrawClaimRejected) adds 5 minutes to the claimant's
  used time, i.e. takes 300 000 ms from the remaining time (FIDE 1994 art. 10.13(2)); if that
  passes the limit the clock's flag falls and the claimant loses.
- Arbiter penalties (1994 art. 16.5): warning, time penalty, time bonus to the opponent, loss.
- Absence: a player reported absent who has not moved when the event's default time has passed
  since the start of the game loses by forfeit (1994 art. 10.15, one hour; the event sets it).
  Xiangqi (1999 rules art. 21.1, 4.1.5): the same; the late player's clock runs meanwhile.

Xiangqi (1999 rules): an untrue natural-limit claim is a foul (9.1.4) and adds 5 minutes to the
claimant's clock (23.3); an arbiter's ``foul`` is recorded (9.2) and the third foul in a game
loses it (4.1.8); ``warning`` is art. 18.1 and ``loss`` the disqualification of 18.2 (4.1.10).

Go (Chinese rules 1988 ch. 3): a ``warning`` is recorded with its count and the second in a
game loses it (25.2); ``played-twice`` (a player moved twice in a row over the board) loses
(17.1); ``loss`` is the arbiter's decision of 25.1; lateness 23.1 / 23.2 as above, and a late
player reported arrived (ArrivalReported) past the event's limit loses by default (23.1; within
the limit the clock service deducts the late time, 23.3), and both lose (23.2) when the opponent
has neither moved nor arrived by then. The arrival rule holds for every game
(chess 1994 art. 10.15, xiangqi 1999 art. 21.1: past the limit loses).

Writes ``game-<id>.penalties``: PenaltyApplied, or GameCommandRejected for a refused command.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_COMMANDS, GAME_EVENTS, AbsenceReported, ArrivalReported, DrawClaimRejected, GameCommandRejected, GameEnded,
    GameStarted, IssuePenalty, MoveAccepted, PenaltyApplied, PlayStarted,
)
from shared.rules import chess as rules
from shared.rules.games import rules_of
from shared.service import Core, Emit

INCORRECT_CLAIM_MS = 5 * 60 * 1000


@dataclass
class _Game(rules.Seats):
    white: str
    black: str
    started_ms: int
    default_time_s: int
    moved: set = field(default_factory=set)
    arrived: set = field(default_factory=set)  # colours reported arrived within the limit
    warnings: dict = field(default_factory=dict)
    over: bool = False
    game: str = "chess"
    fouls: dict = field(default_factory=dict)

    @property
    def rules(self) -> dict:
        return rules_of(self.game)


@dataclass
class PenaltiesCore(Core):
    name: str = "penalties"
    aggregates = ("games",)  # snapshotted a game at a time (Core.aggregates)
    inputs: tuple[str, ...] = (GAME_COMMANDS, GAME_EVENTS)
    outputs: tuple[str, ...] = (GAME_EVENTS,)
    games: dict[str, _Game] = field(default_factory=dict)

    def handle(self, msg: Envelope) -> list[Emit]:
        """A penalty issued, or what a penalty depends on (``reads``: nothing else comes)."""
        p = msg.payload
        if isinstance(p, GameStarted):
            self.games.setdefault(p.game_id, _Game(p.white, p.black, msg.at_ms, p.default_time_s,
                                                   game=p.game))
            return []
        g = self.games.get(getattr(p, "game_id", ""))
        if isinstance(p, IssuePenalty):
            return self._issue(msg, p, g)
        if g is None or g.over:
            return []
        if isinstance(p, PlayStarted):  # a waiting game: lateness counts from its start
            g.started_ms = msg.at_ms
        elif isinstance(p, MoveAccepted):
            g.moved.add(p.colour)
        elif isinstance(p, GameEnded):
            g.over = True
        elif isinstance(p, DrawClaimRejected):
            if p.reason == "repetition":  # asking for a 棋例 ruling too early is no foul
                return []
            out = [self._apply(p.game_id, p.player_id, p.colour, "time", -INCORRECT_CLAIM_MS,
                               g.rules["incorrect-claim"], f"incorrect {p.reason} claim: {p.detail}")]
            if g.game == "xiangqi":  # art. 9.1.4: an untrue natural-limit claim is also a foul
                out += self._foul(g, p.game_id, p.player_id, p.colour, f"untrue {p.reason} claim")
            return out
        elif isinstance(p, AbsenceReported):
            return self._absence(msg, p, g)
        elif isinstance(p, ArrivalReported):
            return self._arrival(p, g)
        return []

    def _arrival(self, p: ArrivalReported, g: _Game) -> list[Emit]:
        """A late player reported arrived. Within the limit: now present (the clock deducts the
        late time, 1988 art. 23.3). Past it (``late_ms > limit_ms``): the player loses by
        default (23.1) if the opponent is present (has moved or was reported arrived); if the
        opponent has neither moved nor arrived, the opponent, absent since the same start, is
        past the limit too, and both lose (23.2; xiangqi 1999 art. 21.3), as ReportAbsence
        ``both`` rules: never a win for the absent opponent."""
        if not p.limit_ms or p.late_ms <= p.limit_ms:
            g.arrived.add(p.colour)
            return []
        late = f"arrived {p.late_ms // 1000} s after the start, past the limit of {p.limit_ms // 1000} s"
        other = "black" if p.colour == "white" else "white"
        if other not in g.moved and other not in g.arrived:
            return [self._double(g, p.game_id, p.player_id, p.colour,
                                 f"{p.colour} {late}; {other} neither moved nor arrived")]
        return [self._apply(p.game_id, p.player_id, p.colour, "forfeit", 0, g.rules["absence"], late)]

    def _double(self, g: _Game, game_id: str, player_id: str, colour: str, cause: str) -> Emit:
        """Both players lose by default (Go 1988 art. 23.2, xiangqi 1999 art. 21.3): the
        ``double-forfeit`` PenaltyApplied (adjudication ends the game 0-0)."""
        return self._apply(game_id, player_id, colour, "double-forfeit", 0,
                           g.rules.get("double-absence", g.rules["absence"]), cause)

    def _apply(self, game_id, player_id, colour, kind, delta, rule, cause) -> Emit:
        return Emit(stream_for(f"game-{game_id}", "penalties"), PenaltyApplied(
            game_id=game_id, player_id=player_id, colour=colour, kind=kind, time_delta_ms=delta,
            rule=rule, cause=cause))

    def _reject(self, msg: Envelope, p, code: str, reason: str) -> list[Emit]:
        return [Emit(stream_for(f"game-{p.game_id}", "penalties"), GameCommandRejected(
            game_id=p.game_id, command_id=str(msg.event_id), command_type=msg.type,
            player_id=p.player_id, code=code, reason=reason))]

    def _issue(self, msg: Envelope, p: IssuePenalty, g: _Game | None) -> list[Emit]:
        if g is None:
            return self._reject(msg, p, "no-such-game", f"no game {p.game_id}")
        if msg.actor.kind != "arbiter":
            return self._reject(msg, p, "invalid", "only an arbiter may issue a penalty")
        colour = g.colour_of(p.player_id)
        if colour is None:
            return self._reject(msg, p, "not-a-player", f"{p.player_id} does not play in game {p.game_id}")
        if g.over:
            return self._reject(msg, p, "game-over", "the game is over")
        rule = g.rules["penalty"]
        if p.kind == "played-twice":
            if g.game != "go":
                return self._reject(msg, p, "invalid", "played-twice is a Go penalty (Chinese rules "
                                                       "1988 art. 17.1); use loss")
            return [self._apply(p.game_id, p.player_id, colour, "forfeit", 0, g.rules["played-twice"],
                                p.note or "played twice in a row")]
        if p.kind == "foul":
            if g.game != "xiangqi":
                return self._reject(msg, p, "invalid", "fouls (犯规) are a xiangqi penalty; "
                                                       "use warning, time-penalty or loss")
            return self._foul(g, p.game_id, p.player_id, colour, p.note or "foul")
        if p.kind == "warning":
            n = g.warnings[colour] = g.warnings.get(colour, 0) + 1
            if g.game == "go":  # 1988 art. 25.2: warnings recorded, two in a game lose it
                return self._counted(g, p.game_id, p.player_id, colour, "warning", n, 2,
                                     g.rules["warning"], g.rules["warnings"], p.note or "warning")
            return [self._apply(p.game_id, p.player_id, colour, "warning", 0, g.rules.get("warning", rule),
                                f"warning {n}: {p.note}".rstrip(": "))]
        if p.kind in ("time-penalty", "time-bonus") and p.ms <= 0:
            return self._reject(msg, p, "invalid", "a time penalty or bonus needs ms > 0")
        if p.kind == "time-penalty":
            return [self._apply(p.game_id, p.player_id, colour, "time", -p.ms, rule, p.note or "time penalty")]
        if p.kind == "time-bonus":
            return [self._apply(p.game_id, p.player_id, colour, "bonus", p.ms, rule,
                                p.note or "time added to the opponent")]
        return [self._apply(p.game_id, p.player_id, colour, "forfeit", 0,
                            g.rules.get("disqualification", rule), p.note or "loss by arbiter decision")]

    def _foul(self, g: _Game, game_id: str, player_id: str, colour: str, cause: str) -> list[Emit]:
        """Record a xiangqi foul (art. 9.2); the third in the game loses it (art. 4.1.8)."""
        n = g.fouls[colour] = g.fouls.get(colour, 0) + 1
        return self._counted(g, game_id, player_id, colour, "foul", n, 3, g.rules["foul"],
                             g.rules["fouls"], cause)

    def _counted(self, g: _Game, game_id: str, player_id: str, colour: str, kind: str, n: int,
                 limit: int, rule, loss_rule, cause: str) -> list[Emit]:
        """The ``n``-th counted penalty ``kind`` of ``colour`` in the game (a xiangqi foul, a Go
        warning), and the forfeit under ``loss_rule`` when ``n`` reaches ``limit``."""
        nth = {2: "second", 3: "third"}.get(limit, f"{limit}th")
        out = [Emit(stream_for(f"game-{game_id}", "penalties"), PenaltyApplied(
            game_id=game_id, player_id=player_id, colour=colour, kind=kind, rule=rule,
            cause=f"{kind} {n} of {limit}: {cause}", count=n))]
        if n >= limit:
            out.append(self._apply(game_id, player_id, colour, "forfeit", 0, loss_rule,
                                   f"{nth} {kind} in the game: {cause}"))
        return out

    def _absence(self, msg: Envelope, p: AbsenceReported, g: _Game) -> list[Emit]:
        if p.colour in g.moved:
            return self._reject(msg, p, "invalid", f"{p.player_id} has already moved in this game")
        if g.default_time_s <= 0:
            return self._reject(msg, p, "invalid", "this event has no default time")
        due = g.started_ms + g.default_time_s * 1000
        if msg.at_ms < due:
            return self._reject(msg, p, "invalid",
                                f"default time not reached: {(due - msg.at_ms) / 1000:.1f} s left")
        if p.both:  # xiangqi 1999 art. 21.3: both past the limit forfeit both
            if g.moved:
                return self._reject(msg, p, "invalid", "a move has been made: both players cannot be absent")
            return [self._double(g, p.game_id, p.player_id, p.colour,
                                 f"both absent {(msg.at_ms - g.started_ms) // 1000} s after the start "
                                 f"(default time {g.default_time_s} s)")]
        return [self._apply(p.game_id, p.player_id, p.colour, "forfeit", 0, g.rules["absence"],
                            f"absent {(msg.at_ms - g.started_ms) // 1000} s after the start "
                            f"(default time {g.default_time_s} s)")]


PenaltiesCore.reads = frozenset({GameStarted, PlayStarted, IssuePenalty, MoveAccepted, GameEnded, DrawClaimRejected,
                                 AbsenceReported, ArrivalReported})  # what handle() acts on
