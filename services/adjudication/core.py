"""Adjudication: decides every result and names the article (pure core, no I/O).

Consumes the game record (GameStarted, MoveAccepted, Resigned, DrawAgreed, DrawClaimed,
ResultRecorded), the clock's FlagFell and the penalties' forfeits. Writes ``game-<id>.result``:
GameEnded (result, reason, rule) or DrawClaimRejected. A game ends once; later facts are ignored
(1994 art. 12.7: a resignation or agreed draw made before a flag stands).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import chess

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_EVENTS, DrawAgreed, DrawClaimed, DrawClaimRejected, FlagFell, GameEnded, GameStarted,
    MoveAccepted, PenaltyApplied, Resigned, ResultRecorded, Rule,
)
from shared.rules import chess as rules
from shared.service import Core, Emit

_OTHER = {"white": "black", "black": "white"}
_WIN = {"white": "1-0", "black": "0-1"}


@dataclass
class _Game:
    board: chess.Board
    ended: bool = False


@dataclass
class AdjudicationCore(Core):
    name: str = "adjudication"
    inputs: tuple[str, ...] = (GAME_EVENTS,)
    outputs: tuple[str, ...] = (GAME_EVENTS,)
    games: dict[str, _Game] = field(default_factory=dict)

    def handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        if isinstance(p, GameStarted):
            self.games.setdefault(p.game_id, _Game(chess.Board(p.start_fen)))
            return []
        g = self.games.get(getattr(p, "game_id", ""))
        if g is None or g.ended:
            return []
        h = getattr(self, "_on_" + type(p).__name__, None)
        return h(g, p) if h else []

    def _end(self, g: _Game, game_id: str, result: str, reason: str, rule: Rule,
             winner: str | None, detail: str = "") -> list[Emit]:
        g.ended = True
        return [Emit(stream_for(f"game-{game_id}", "result"),
                     GameEnded(game_id=game_id, result=result, reason=reason, rule=rule,
                               winner=winner, detail=detail))]

    def _on_MoveAccepted(self, g: _Game, p: MoveAccepted):
        g.board.push(chess.Move.from_uci(p.uci))
        status = rules.position_status(g.board)
        if status == "checkmate":
            return self._end(g, p.game_id, _WIN[p.colour], "checkmate", rules.RULES["checkmate"], p.colour,
                             f"{p.san} mates")
        if status != "ongoing":
            return self._end(g, p.game_id, "1/2-1/2", status, rules.RULES[status], None,
                             f"after ply {p.ply} ({p.san})")
        return []

    def _on_Resigned(self, g, p: Resigned):
        w = _OTHER[p.colour]
        return self._end(g, p.game_id, _WIN[w], "resignation", rules.RULES["resignation"], w,
                         f"{p.colour} resigned")

    def _on_DrawAgreed(self, g, p: DrawAgreed):
        return self._end(g, p.game_id, "1/2-1/2", "agreement", rules.RULES["agreement"], None)

    def _on_DrawClaimed(self, g, p: DrawClaimed):
        mv = chess.Move.from_uci(p.move) if p.move else None
        ok, detail = rules.claim_is_valid(g.board, p.reason, mv)
        if ok:
            return self._end(g, p.game_id, "1/2-1/2", p.reason, rules.RULES[p.reason], None,
                             f"claim by {p.colour}: {detail}")
        return [Emit(stream_for(f"game-{p.game_id}", "result"), DrawClaimRejected(
            game_id=p.game_id, player_id=p.player_id, colour=p.colour, reason=p.reason,
            detail=detail, rule=rules.RULES["incorrect-claim"]))]

    def _on_FlagFell(self, g, p: FlagFell):
        w = _OTHER[p.colour]
        if not rules.can_checkmate(g.board, w):
            return self._end(g, p.game_id, "1/2-1/2", "timeout-vs-insufficient-material",
                             rules.RULES["timeout-vs-insufficient"], None,
                             f"{p.colour}'s flag fell; {w} cannot checkmate")
        return self._end(g, p.game_id, _WIN[w], "timeout", p.rule, w, f"{p.colour}'s flag fell")

    def _on_ResultRecorded(self, g, p: ResultRecorded):
        winner = {"1-0": "white", "0-1": "black"}.get(p.result)
        return self._end(g, p.game_id, p.result, p.reason, rules.RULES["arbiter"], winner)

    def _on_PenaltyApplied(self, g, p: PenaltyApplied):
        if p.kind != "forfeit":
            return []
        w = _OTHER[p.colour]
        return self._end(g, p.game_id, _WIN[w], "forfeit", p.rule, w, p.cause)
