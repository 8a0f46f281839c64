"""The game processor's report to the tournaments (pure core, no I/O).

A tournament's pairing and standings decide on the results of its games. Read from the game
events topic, a result could arrive before or after a tournament command about the same round,
depending on which topic delivered first. So the game processor writes each fact a tournament
needs into the tournament's own command topic, in the same step as the fact itself
(RecordGameEvent on stream ``tournament-<id>.games``): the tournament's input is then one
ordered stream (DESIGN.md invariant 1), and the tournament processor hands the fact on unchanged.

Forwarded: GameStarted of a tournament game (so the record knows the game), GameEnded, and
PenaltyApplied (xiangqi fouls and warnings count in the standings, 1999 art. 18.4).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_EVENTS, TOURNAMENT_COMMANDS, GameEnded, GameStarted, PenaltyApplied, RecordGameEvent,
)
from shared.service import Core, Emit

FORWARDED = (GameStarted, GameEnded, PenaltyApplied)


@dataclass
class ForwardCore(Core):
    """State: the tournament of each tournament game (game id -> tournament id), a replay game
    under the tournament of the game it replays."""

    name: str = "forward"
    inputs: tuple[str, ...] = (GAME_EVENTS,)
    reads = frozenset(FORWARDED)
    outputs: tuple[str, ...] = (TOURNAMENT_COMMANDS,)
    tournament_of: dict[str, str] = field(default_factory=dict)

    def handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        if not isinstance(p, FORWARDED):
            return []
        if isinstance(p, GameStarted):
            tid = p.tournament_id or self.tournament_of.get(p.replay_of or "")
            if tid is None:
                return []
            self.tournament_of[p.game_id] = tid
        tid = self.tournament_of.get(p.game_id)
        if tid is None:
            return []
        return [Emit(stream_for(f"tournament-{tid}", "games"),
                     RecordGameEvent(tournament_id=tid, event=msg.model_dump(mode="json")))]
