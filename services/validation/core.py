"""Validation: the gatekeeper and record keeper of every game (pure core, no I/O).

Consumes game commands (moves, resignations, draw offers and claims, arbiter results), the clock's
and adjudication's game events (deadlines, flags, results) and the tournament events that create
games (RoundPaired). Writes the game record, stream ``game-<id>``: GameStarted, MoveAccepted /
MoveRejected, DrawOffered / DrawOfferDeclined / DrawAgreed, Resigned, DrawClaimed, ResultRecorded,
GameCommandRejected. A command that is refused changes nothing and yields an event that says why.

Chess legality is python-chess's (FIDE 1994 art. 3-6); draw offers follow art. 10.7: an offer
stands until accepted or declined, and a move by the opponent declines it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import re

import chess

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_COMMANDS, GAME_EVENTS, TOURNAMENT_EVENTS, AbsenceReported, AcceptDraw, ClaimDraw,
    ClockStarted, ClockUpdated, CreateGame, DeclineDraw, DrawAgreed, DrawClaimed, DrawOfferDeclined,
    DrawOffered, FlagFell, GameCommandRejected, GameEnded, GameStarted, MoveAccepted, MoveRejected,
    OfferDraw, RecordResult, ReportAbsence, Resign, Resigned, ResultRecorded, RoundPaired,
    SubmitMove, TournamentCreated,
)
from shared.rules import chess as rules
from shared.service import Core, Emit


#: Game ids the pairing service gives tournament games; CreateGame may not take them.
TOURNAMENT_GAME_ID = re.compile(r"^.+-r\d+-b\d+$")


@dataclass
class Game(rules.Seats):
    """Validation's state of one game."""

    game_id: str
    white: str
    black: str
    board: chess.Board
    over: bool = False
    offer_by: str | None = None  # colour with a pending draw offer
    deadline_ms: int | None = None  # when the side to move's flag falls, per the clock
    deadline_for: str | None = None
    last_ms: int = 0  # event time of the game's latest fact: time never runs backwards

    @property
    def to_move(self) -> str:
        return rules.colour_name(self.board.turn)


def _backwards(msg: Envelope, g: Game) -> str | None:
    """Why ``msg`` cannot be taken (stamped before the game's last event), or None."""
    if msg.at_ms < g.last_ms:
        return (f"received at {msg.at_ms} ms, before the game's last event at {g.last_ms} ms: "
                "time cannot run backwards")
    return None


@dataclass
class ValidationCore(Core):
    """State: games by id and the settings of tournaments (time control, start FEN)."""

    name: str = "validation"
    inputs: tuple[str, ...] = (GAME_COMMANDS, GAME_EVENTS, TOURNAMENT_EVENTS)
    outputs: tuple[str, ...] = (GAME_EVENTS,)
    games: dict[str, Game] = field(default_factory=dict)
    tournaments: dict[str, TournamentCreated] = field(default_factory=dict)

    def handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        h = getattr(self, "_on_" + type(p).__name__, None)
        return h(msg, p) if h else []

    # --------------------------------------------------------------------------- creation
    def _on_TournamentCreated(self, msg, p: TournamentCreated):
        self.tournaments[p.tournament_id] = p
        return []

    def _on_RoundPaired(self, msg, p: RoundPaired):
        t = self.tournaments.get(p.tournament_id)
        out = []
        for b in p.boards:
            if b.game_id in self.games:  # cannot happen: CreateGame refuses tournament ids
                continue
            out += self._create(GameStarted(
                game_id=b.game_id, white=b.white, black=b.black,
                start_fen=(t.start_fen if t and t.start_fen else chess.STARTING_FEN),
                time_control=t.time_control if t else "-", tournament_id=p.tournament_id,
                round=p.round, board=b.board, default_time_s=t.default_time_s if t else 3600),
                msg.at_ms)
        return out

    def _on_CreateGame(self, msg, p: CreateGame):
        if p.game_id in self.games:
            return [self._reject(msg, p, "already-exists", f"game {p.game_id} already exists")]
        if TOURNAMENT_GAME_ID.match(p.game_id):
            return [self._reject(msg, p, "invalid", f"game ids of the form <tournament>-r<round>-b<board> "
                                                    f"are reserved for tournament games: {p.game_id}")]
        if p.white == p.black:
            return [self._reject(msg, p, "invalid", "white and black must be different players")]
        try:
            board = rules.board_from_fen(p.start_fen)
        except ValueError as e:
            return [self._reject(msg, p, "invalid", f"bad start FEN: {e}")]
        over = rules.position_status(board)
        if over != "ongoing":
            return [self._reject(msg, p, "invalid", f"the start position is already over: {over}")]
        from services.clock.core import ClockError, TimeControl
        try:
            TimeControl.parse(p.time_control)
        except ClockError as e:
            return [self._reject(msg, p, "invalid", f"bad time control: {e}")]
        return self._create(GameStarted(
            game_id=p.game_id, white=p.white, black=p.black, start_fen=board.fen(),
            time_control=p.time_control, tournament_id=p.tournament_id, round=p.round,
            board=p.board, default_time_s=p.default_time_s), msg.at_ms)

    def _on_GameStarted(self, msg, p: GameStarted):
        """Our own record of a game seen back (recovery, audit): register it, decide nothing."""
        if p.game_id not in self.games:
            self.games[p.game_id] = Game(p.game_id, p.white, p.black, chess.Board(p.start_fen),
                                         last_ms=msg.at_ms)
        return []

    def _create(self, started: GameStarted, at_ms: int) -> list[Emit]:
        if started.game_id in self.games:
            return []
        self.games[started.game_id] = Game(started.game_id, started.white, started.black,
                                           chess.Board(started.start_fen), last_ms=at_ms)
        return [Emit(stream_for(f"game-{started.game_id}"), started)]

    # ----------------------------------------------------------------------------- moves
    def _on_SubmitMove(self, msg, p: SubmitMove):
        g = self.games.get(p.game_id)
        stream = stream_for(f"game-{p.game_id}")

        def reject(code: str, reason: str, rule=None):
            return [Emit(stream, MoveRejected(game_id=p.game_id, player_id=p.player_id, move=p.move,
                                              code=code, reason=reason, rule=rule))]

        if g is None:
            return reject("no-such-game", f"no game {p.game_id}")
        if g.over:
            return reject("game-over", "the game is over")
        colour = g.colour_of(p.player_id)
        if colour is None:
            return reject("not-a-player", f"{p.player_id} does not play in game {p.game_id}")
        if colour != g.to_move:
            return reject("not-your-turn", f"it is {g.to_move}'s turn")
        if (late := _backwards(msg, g)):
            return reject("invalid", late)
        if g.deadline_ms is not None and g.deadline_for == colour and msg.at_ms > g.deadline_ms:
            return reject("flag-fallen",
                          f"received {msg.at_ms - g.deadline_ms} ms after {colour}'s flag fell",
                          rules.RULES["timeout"])
        try:
            mv = rules.parse_move(g.board, p.move)
        except rules.MoveError as e:
            return reject(e.code, e.reason)
        san = g.board.san(mv)
        g.board.push(mv)
        g.last_ms = msg.at_ms
        out: list[Emit] = []
        if g.offer_by is not None and g.offer_by != colour:
            out.append(Emit(stream, DrawOfferDeclined(game_id=p.game_id, player_id=p.player_id,
                                                      colour=colour, by_move=True)))
            g.offer_by = None
        status = rules.position_status(g.board)
        if status != "ongoing":
            g.over = True
        out.insert(0, Emit(stream, MoveAccepted(
            game_id=p.game_id, ply=len(g.board.move_stack), player_id=p.player_id, colour=colour,
            uci=mv.uci(), san=san, fen_after=g.board.fen(), status=status,
            halfmove_clock=g.board.halfmove_clock, repetitions=rules.repetitions(g.board))))
        return out

    # ------------------------------------------------------------------ other player commands
    def _player_check(self, msg, p) -> tuple[Game | None, str | None, list[Emit]]:
        g = self.games.get(p.game_id)
        if g is None:
            return None, None, [self._reject(msg, p, "no-such-game", f"no game {p.game_id}")]
        if g.over:
            return g, None, [self._reject(msg, p, "game-over", "the game is over")]
        colour = g.colour_of(p.player_id)
        if colour is None:
            return g, None, [self._reject(msg, p, "not-a-player",
                                          f"{p.player_id} does not play in game {p.game_id}")]
        if (late := _backwards(msg, g)):
            return g, None, [self._reject(msg, p, "invalid", late)]
        return g, colour, []

    def _on_Resign(self, msg, p: Resign):
        g, colour, err = self._player_check(msg, p)
        if err:
            return err
        g.over = True
        return [Emit(stream_for(f"game-{p.game_id}"), Resigned(game_id=p.game_id, player_id=p.player_id, colour=colour))]

    def _on_OfferDraw(self, msg, p: OfferDraw):
        g, colour, err = self._player_check(msg, p)
        if err:
            return err
        if g.offer_by is not None:
            return [self._reject(msg, p, "draw-offer-pending", f"a draw offer by {g.offer_by} is pending")]
        g.offer_by = colour
        return [Emit(stream_for(f"game-{p.game_id}"), DrawOffered(game_id=p.game_id, player_id=p.player_id,
                                                      colour=colour, ply=len(g.board.move_stack)))]

    def _on_AcceptDraw(self, msg, p: AcceptDraw):
        g, colour, err = self._player_check(msg, p)
        if err:
            return err
        if g.offer_by is None or g.offer_by == colour:
            return [self._reject(msg, p, "no-draw-offer", "no draw offer from the opponent is pending")]
        g.over = True
        g.offer_by = None
        return [Emit(stream_for(f"game-{p.game_id}"), DrawAgreed(game_id=p.game_id, player_id=p.player_id, colour=colour))]

    def _on_DeclineDraw(self, msg, p: DeclineDraw):
        g, colour, err = self._player_check(msg, p)
        if err:
            return err
        if g.offer_by is None or g.offer_by == colour:
            return [self._reject(msg, p, "no-draw-offer", "no draw offer from the opponent is pending")]
        g.offer_by = None
        return [Emit(stream_for(f"game-{p.game_id}"), DrawOfferDeclined(game_id=p.game_id, player_id=p.player_id, colour=colour))]

    def _on_ClaimDraw(self, msg, p: ClaimDraw):
        g, colour, err = self._player_check(msg, p)
        if err:
            return err
        if colour != g.to_move:
            return [self._reject(msg, p, "not-your-turn",
                                 "only the player to move may claim (1994 art. 10.10, 10.12)")]
        uci = None
        if p.move:
            try:
                uci = rules.parse_move(g.board, p.move).uci()
            except rules.MoveError as e:
                return [self._reject(msg, p, e.code, e.reason)]
        return [Emit(stream_for(f"game-{p.game_id}"), DrawClaimed(game_id=p.game_id, player_id=p.player_id, colour=colour,
                                                      reason=p.reason, move=uci, ply=len(g.board.move_stack)))]

    def _on_RecordResult(self, msg, p: RecordResult):
        g = self.games.get(p.game_id)
        if g is None:
            return [self._reject(msg, p, "no-such-game", f"no game {p.game_id}")]
        if msg.actor.kind != "arbiter":
            return [self._reject(msg, p, "invalid", "only an arbiter may enter a result")]
        if g.over:
            return [self._reject(msg, p, "game-over", "the game is over")]
        g.over = True
        return [Emit(stream_for(f"game-{p.game_id}"), ResultRecorded(game_id=p.game_id, result=p.result, reason=p.reason))]

    def _on_ReportAbsence(self, msg, p: ReportAbsence):
        g = self.games.get(p.game_id)
        if g is None:
            return [self._reject(msg, p, "no-such-game", f"no game {p.game_id}")]
        colour = g.colour_of(p.player_id)
        if colour is None:
            return [self._reject(msg, p, "not-a-player", f"{p.player_id} does not play in game {p.game_id}")]
        if g.over:
            return [self._reject(msg, p, "game-over", "the game is over")]
        return [Emit(stream_for(f"game-{p.game_id}"), AbsenceReported(game_id=p.game_id, player_id=p.player_id, colour=colour))]

    # ------------------------------------------------------------------ other services' facts
    def _on_ClockStarted(self, msg, p: ClockStarted):
        return self._on_clock(p.game_id, (p.running, p.deadline_ms))

    def _on_ClockUpdated(self, msg, p: ClockUpdated):
        return self._on_clock(p.game_id, (p.running, p.deadline_ms))

    def _on_clock(self, game_id: str, reading) -> list[Emit]:
        g = self.games.get(game_id)
        if g is not None and reading is not None:
            g.deadline_for, g.deadline_ms = reading
        return []

    def _on_FlagFell(self, msg, p: FlagFell):
        return self._end(p.game_id)

    def _on_GameEnded(self, msg, p: GameEnded):
        return self._end(p.game_id)

    def _end(self, game_id: str) -> list[Emit]:
        g = self.games.get(game_id)
        if g is not None:
            g.over = True
        return []

    def _reject(self, msg: Envelope, p, code: str, reason: str) -> Emit:
        return Emit(stream_for(f"game-{p.game_id}"), GameCommandRejected(
            game_id=p.game_id, command_id=str(msg.event_id), command_type=msg.type,
            player_id=getattr(p, "player_id", None), code=code, reason=reason))
