"""The tournament processor's word to its games (pure core, no I/O): a round begun.

An event whose rounds start ``on-command`` publishes its pairings first (RoundPaired: the games
are created waiting, :class:`services.validation.core.ValidationCore`); BeginRound, decided by
the pairing core, writes RoundBegun. Read from the tournament events topic, RoundBegun could
reach the game processor before or after a move sent in the same instant, depending on which
topic delivered first; so this core writes the start into each game's own command topic
(StartPlay on stream ``game-<id>.round``) in the same step as RoundBegun: each game's start is
then decided at its place in the game's one ordered command stream (DESIGN.md invariant 1),
as the reverse hand-over of :mod:`services.game.forward`.
"""
from __future__ import annotations

from dataclasses import dataclass

from contracts.envelope import Envelope, stream_for
from contracts.messages import GAME_COMMANDS, TOURNAMENT_EVENTS, RoundBegun, StartPlay
from shared.service import Core, Emit


@dataclass
class StartsCore(Core):
    """Stateless: RoundBegun -> one StartPlay per game of the round."""

    name: str = "starts"
    inputs: tuple[str, ...] = (TOURNAMENT_EVENTS,)
    reads = frozenset({RoundBegun})
    outputs: tuple[str, ...] = (GAME_COMMANDS,)

    def handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        if not isinstance(p, RoundBegun):
            return []
        return [Emit(stream_for(f"game-{gid}", "round"), StartPlay(game_id=gid)) for gid in p.game_ids]
