"""Validation: the gatekeeper and record keeper of every game (pure core, no I/O).

Consumes game commands (moves, resignations, draw offers and claims, arbiter results), the clock's
and adjudication's game events (deadlines, flags, results) and the tournament events that create
games (RoundPaired). Writes the game record, stream ``game-<id>``: GameStarted, MoveAccepted /
MoveRejected, DrawOffered / DrawOfferDeclined / DrawAgreed, Resigned, DrawClaimed, ResultRecorded,
GameCommandRejected. A command that is refused changes nothing and yields an event that says why.

Legality is the game's (:mod:`shared.rules.games`): chess on python-chess (FIDE 1994 art. 3-6),
xiangqi on :mod:`shared.rules.xiangqi` (1999 rules art. 2-3). Chess draw offers follow FIDE 1994
art. 10.7: an offer stands until accepted or declined, and a move by the opponent declines it.
Xiangqi offers follow the 1999 rules art. 23.1 as well: an offer is made right after one's own
move (before the opponent has moved), offers alternate (no side offers twice running) and the
offer made with that move is the only one until the next move.

Go (:class:`shared.rules.games.GoPosition`; Chinese rules 1988 ch. 3 as the arbiter law):

- Moves in GTP, SGF or ``pass``; Black moves first, White after handicap stones. Go has no draw
  offers or claims (a jigo comes from the count; an endless cycle is the arbiter's, 20.3).
- Void moves (art. 19 forbidden point, 20.1 immediate ko recapture, and a superko repetition,
  art. 6): by default (``void_moves="refuse"``, online play) the move is refused with the
  article and nothing changes -- online a stone cannot be put on a forbidden point by accident,
  so the platform stops it as it stops a move on an occupied point. An event that applies the
  articles literally (``void_moves="pass"``, e.g. over-the-board games entered by an arbiter)
  records the move as void: MoveAccepted ``pass`` with ``void`` naming the move and article,
  the opponent to move. A void move loses the turn (弃权一次) but is no declaration of the end
  (art. 21.1: play ends when both players confirm it), so it does not count towards the two
  passes in a row that stop play.
- Playing twice (17.1) cannot happen online (a move out of turn is refused, ``not-your-turn``);
  over the board the arbiter rules it (IssuePenalty ``played-twice``, the penalties service).
- Two passes in a row stop play (MoveAccepted status ``scoring``; Japanese rules 1989 art. 9-1,
  under Chinese and Ing rules both sides have confirmed the end, 1988 art. 21.1: the refusal
  cites the game's own article); moves are then refused (``play-stopped``) and the players settle the dead
  stones: MarkDead (DeadStonesProposed: whole groups), AcceptDead of the opponent's proposal
  (ScoringAgreed), or RejectDead, which resumes play with the asker's opponent to move
  (PlayResumed; Japanese 9-3, Chinese 1988 art. 21.1 / 21.3: disputes are settled by play).
  When the asker was to move, the yielded turn is recorded as the asker's pass (MoveAccepted,
  so the clock passes to the opponent) that does not count towards stopping play. The arbiter
  may rule the dead stones while play is stopped (RuleDeadStones -> DeadStonesRuled, 1988 art.
  16.4 / 25.1). Adjudication counts the game on the agreed or ruled dead stones.
- Stone-removal time (a platform rule for online play: no rule text sets one): the players have
  the game's ``stone_removal_s`` (300 s by default) from the stop, restarted by each proposal,
  to agree, reject or be ruled; a player's dead-stone command received after it is refused
  (``stone-removal-timeout``; event times only). The clock service reports the expiry
  (StoneRemovalExpired): an unanswered proposal stands and adjudication counts it, with none it
  calls the arbiter (ArbiterCalled ``stone-removal-timeout``), whose RuleDeadStones still goes.
- Endless cycles (triple ko, eternal life ...): adjudication reports one (EndlessCycleFound)
  and play goes on until the arbiter rules (RuleEndlessCycle -> EndlessCycleRuled, 1988 art.
  20.3): ``draw``, ``replay`` (this game ends and a new game between the same players, same
  colours and settings, starts from the original start position: GameStarted ``replay_of``,
  id ``<game>-replay<n>``) or, under Japanese rules, ``no-result`` (1989 art. 12). A ruling
  before any cycle was found is refused.
- Lateness (1988 art. 23): ReportArrival by the arbiter gives ArrivalReported with the late time
  (ms after the start) and the event's limit; a player who has moved or arrived is present.
"""
from __future__ import annotations

from dataclasses import dataclass, field


from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_COMMANDS, GAME_EVENTS, TOURNAMENT_EVENTS, AbsenceReported, AcceptDead, AcceptDraw,
    ArrivalReported, ClaimDraw, ClockAdjusted, ClockPaused, ClockResumed, ClockStarted,
    ClockUpdated, EndlessCycleFound,
    EndlessCycleRuled, ReportArrival, RuleEndlessCycle, CreateGame, DeadStonesProposed, DeadStonesRuled,
    DeclineDraw, DrawAgreed, DrawClaimed, DrawOfferDeclined, DrawOffered, FlagFell,
    ArbiterCalled, GameCommandRejected, GameEnded, GameStarted, GoSettings, MarkDead, MoveAccepted, MoveRejected, OfferDraw,
    PlayResumed, RecordResult, RejectDead, RepetitionRuled, ReportAbsence, Resign, Resigned,
    ResultRecorded, RoundPaired, RuleDeadStones, ScoringAgreed, StoneRemovalExpired, SubmitMove,
    TournamentCreated, VoidMove, PlayStarted, StartPlay,
)
from shared.rules import chess as rules
from shared.rules.games import (
    CreationRefused, resolve_creation, VOID_REASONS, GoMoveError, MoveError, Position, go_kwargs, go_settings, position, start_fen,
)

_OTHER = {"white": "black", "black": "white"}

#: Commands a waiting game (created ``clock_start`` on-command, StartPlay not yet taken)
#: refuses with ``not-started``: play and the lateness of 1988 art. 23 / 1999 art. 21 count
#: from its start; a resignation, an arbiter's result or penalty still go.
WAIT_REFUSED = (SubmitMove, OfferDraw, AcceptDraw, DeclineDraw, ClaimDraw, MarkDead, AcceptDead,
                RejectDead, ReportAbsence, ReportArrival)

from shared.service import Core, Emit, handled_types




@dataclass
class Game(rules.Seats):
    """Validation's state of one game."""

    game_id: str
    white: str
    black: str
    pos: Position
    over: bool = False
    offer_by: str | None = None  # colour with a pending draw offer
    deadline_ms: int | None = None  # when the side to move's flag falls, per the clock
    deadline_for: str | None = None
    paused: bool = False  # the arbiter paused the clock (ClockPaused): moves are refused
    last_ms: int = 0  # event time of the game's latest fact: time never runs backwards
    last_offer: tuple[str, int] | None = None  # (colour, ply) of the latest draw offer
    limit: int = 60  # xiangqi natural move limit (art. 4.2.4)
    rulings: str = "automatic"  # xiangqi 棋例 rulings: automatic or on-request
    must_vary: str | None = None  # seat a 棋例 ruling ordered to vary (art. 24.3)
    ruling_due: bool = False  # a move repeated a position: adjudication's ruling comes first
    void_moves: str = "refuse"  # Go: void moves refused, or recorded as passes (art. 19, 20.1)
    proposals: dict = field(default_factory=dict)  # Go: colour -> dead stones it proposed
    started: GameStarted | None = None  # the game's GameStarted (settings of a replay)
    started_ms: int = 0  # its event time, epoch ms
    present: set = field(default_factory=set)  # colours that moved or were reported arrived
    cycle_found: bool = False  # Go: adjudication reported an endless cycle (1988 art. 20.3)
    counting: bool = False  # Go: dead stones agreed or ruled, adjudication's count is due
    removal_deadline_ms: int | None = None  # Go: players' dead-stone commands after it are refused
    waiting: bool = False  # created ``clock_start`` on-command, StartPlay not yet taken

    @property
    def removal_limit_ms(self) -> int:
        """Go: the stone-removal time, ms (the game's ``stone_removal_s``; older records without
        it: the default)."""
        from shared.rules.go import DEFAULT_STONE_REMOVAL_S

        s = self.started.stone_removal_s if self.started is not None else None
        return (DEFAULT_STONE_REMOVAL_S if s is None else s) * 1000

    @property
    def to_move(self) -> str:
        return self.pos.turn

    @classmethod
    def of(cls, p: GameStarted, at_ms: int) -> Game:
        return cls(p.game_id, p.white, p.black, position(p.game, p.start_fen, **go_kwargs(p)),
                   last_ms=at_ms, limit=p.natural_limit_moves, rulings=p.repetition_rulings,
                   void_moves=p.void_moves, started=p, started_ms=at_ms,
                   waiting=p.clock_start == "on-command")

    @property
    def scoring(self) -> bool:
        """Go: play stopped after two passes; the dead stones are being settled."""
        return self.pos.status() == "scoring"


def _xiangqi_offer_refused(g: Game, colour: str) -> str | None:
    """Why a xiangqi draw offer by ``colour`` is out of turn (1999 rules art. 23.1), or None:
    it must follow the offerer's own move (the opponent is to move), and a side may not offer
    twice running (the previous offer must have been the opponent's)."""
    if g.to_move == colour or g.pos.ply == 0:
        return "a draw is offered right after one's own move, before the opponent moves (art. 23.1)"
    if g.last_offer is not None and g.last_offer[0] == colour:
        return "offers alternate: the opponent must offer before this side offers again (art. 23.1)"
    return None


def _backwards(msg: Envelope, g: Game) -> str | None:
    """Why ``msg`` cannot be taken (stamped before the game's last event), or None."""
    if msg.at_ms < g.last_ms:
        return (f"received at {msg.at_ms} ms, before the game's last event at {g.last_ms} ms: "
                "time cannot run backwards")
    return None


def _move_refusal(msg: Envelope, p: SubmitMove, g: Game, colour: str | None) -> tuple | None:
    """Why a move cannot be taken before its notation is read, as (code, reason[, rule]), or
    None: the game over, not a player of it, not his turn, stamped before the game's last
    event, a 棋例 ruling due (art. 24), the clock paused by the arbiter, received after his
    flag fell (the clock's deadline), Go play stopped after two passes (J89 9-1, 1988 21.1),
    a notation given for another game than xiangqi."""
    if g.over:
        return "game-over", "the game is over"
    if colour is None:
        return "not-a-player", f"{p.player_id} does not play in game {p.game_id}"
    if colour != g.to_move:
        return "not-your-turn", f"it is {g.to_move}'s turn"
    if (late := _backwards(msg, g)):
        return "invalid", late
    if g.ruling_due:
        return ("ruling-pending", "the 棋例 ruling on the repeated position (art. 24) is being "
                                  "made; send the move again")
    if g.paused:
        return "clock-paused", "the arbiter has paused the clock: wait for it to restart"
    if g.deadline_ms is not None and g.deadline_for == colour and msg.at_ms > g.deadline_ms:
        return ("flag-fallen", f"received {msg.at_ms - g.deadline_ms} ms after {colour}'s flag fell",
                g.pos.RULES["timeout"])
    if g.pos.game == "go" and g.scoring:
        stop = g.pos.RULES["stop"]  # Japanese 1989 art. 9-1; Chinese / Ing 1988 art. 21.1
        return ("play-stopped", f"play stopped after two passes ({stop.ruleset} art. "
                                f"{stop.article}): mark the dead stones, accept the opponent's, "
                                f"or reject to resume play", stop)
    if p.notation is not None and g.pos.game != "xiangqi":
        return ("invalid", f"notation {p.notation!r} is for xiangqi moves; {g.pos.game} moves are "
                           f"recognised as they are")
    return None


def _after_move(msg: Envelope, p: SubmitMove, g: Game, colour: str, played, stream: str) -> list[Emit]:
    """The game's state after ``colour``'s move ``played``: a draw offer of the opponent's
    declined by the move, the game over at a terminal status, Go's counting or stone-removal
    time after two passes, a 棋例 ruling due at a threefold xiangqi repetition. Returns the
    DrawOfferDeclined to write after the MoveAccepted, if any."""
    g.last_ms = msg.at_ms
    g.proposals.clear()
    g.present.add(colour)
    out: list[Emit] = []
    if g.offer_by is not None and g.offer_by != colour:
        out.append(Emit(stream, DrawOfferDeclined(game_id=p.game_id, player_id=p.player_id,
                                                  colour=colour, by_move=True)))
        g.offer_by = None
    if played.status not in ("ongoing", "scoring"):
        g.over = True
    elif played.status == "scoring" and g.pos.counts_every_stone:
        g.counting = True  # no dead stones to settle (Tromp-Taylor rule 9): adjudication counts
    elif played.status == "scoring":  # play stopped: the stone-removal time runs
        g.removal_deadline_ms = msg.at_ms + g.removal_limit_ms
    elif g.pos.game == "xiangqi" and played.repetitions >= 3 and (
            g.rulings == "automatic" or g.must_vary is not None):
        g.ruling_due = True  # adjudication rules before the next move (it may end the game)
    return out


@dataclass
class ValidationCore(Core):
    """State: games by id and the settings of tournaments (time control, start FEN)."""

    name: str = "validation"
    aggregates = ("games",)  # snapshotted a game at a time (Core.aggregates)
    inputs: tuple[str, ...] = (GAME_COMMANDS, GAME_EVENTS, TOURNAMENT_EVENTS)
    outputs: tuple[str, ...] = (GAME_EVENTS,)
    games: dict[str, Game] = field(default_factory=dict)
    tournaments: dict[str, TournamentCreated] = field(default_factory=dict)

    def handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        if isinstance(p, WAIT_REFUSED) and (g := self.games.get(p.game_id)) is not None \
                and g.waiting and not g.over:
            return [self._not_started(msg, p)]
        h = getattr(self, "_on_" + type(p).__name__, None)
        return h(msg, p) if h else []

    def _not_started(self, msg: Envelope, p) -> Emit:
        """The refusal of a command a waiting game does not take yet (:data:`WAIT_REFUSED`)."""
        reason = f"game {p.game_id} has not started: its round waits for the start (StartPlay)"
        if isinstance(p, SubmitMove):
            return Emit(stream_for(f"game-{p.game_id}"), MoveRejected(
                game_id=p.game_id, player_id=p.player_id, move=p.move, code="not-started", reason=reason))
        return self._reject(msg, p, "not-started", reason)

    def _on_StartPlay(self, msg, p: StartPlay):
        """A waiting game starts at this command's event time (PlayStarted; the clock follows):
        refused for an unknown game, one over, one not waiting, or a time before its last event."""
        g = self.games.get(p.game_id)
        if g is None and msg.stream.endswith(".round"):  # its round's start came before its
            self.__dict__.setdefault("early", {})[p.game_id] = msg.at_ms  # RoundPaired: see _create
            return []
        if g is None:
            return [self._reject(msg, p, "no-such-game", f"no game {p.game_id}")]
        if g.over:
            return [self._reject(msg, p, "game-over", "the game is over")]
        if not g.waiting:
            return [self._reject(msg, p, "invalid", f"game {p.game_id} is not waiting for its start")]
        if (late := _backwards(msg, g)):
            return [self._reject(msg, p, "invalid", late)]
        g.waiting, g.started_ms, g.last_ms = False, msg.at_ms, msg.at_ms
        return [Emit(stream_for(f"game-{p.game_id}"), PlayStarted(game_id=p.game_id))]

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
            game = t.game if t else "chess"
            go: dict = {}
            fen = t.start_fen if t and t.start_fen else start_fen(game)
            if game == "go" and t is not None:  # the event's settings (checked at its creation)
                try:
                    go = go_settings(t.board_size, t.go_rules, t.komi, t.handicap, t.stone_removal_s)
                    fen = position("go", t.start_fen, **go).fen()
                except ValueError:  # impossible settings: no game can start (nothing to decide)
                    continue
                go["void_moves"] = t.void_moves
            out += self._create(GameStarted(
                game_id=b.game_id, white=b.white, black=b.black, start_fen=fen,
                time_control=t.time_control if t else "-", tournament_id=p.tournament_id,
                round=p.round, board=b.board, default_time_s=t.default_time_s if t else 3600,
                game=game, natural_limit_moves=t.natural_limit_moves if t else 60,
                repetition_rulings=t.repetition_rulings if t else "automatic",
                clock_start=getattr(t, "round_start", "auto") if t else "auto", **go),
                msg.at_ms)
        return out

    def _on_CreateGame(self, msg, p: CreateGame):
        if p.game_id in self.games:
            return [self._reject(msg, p, "already-exists", f"game {p.game_id} already exists")]
        try:
            pos, go = resolve_creation(p)
        except CreationRefused as e:
            return [self._reject(msg, p, e.code, e.reason)]
        # GameStarted records CreateGame's settings (declared there), the position and Go's resolved
        return self._create(GameStarted(**p.model_dump(exclude={"start_fen", *GoSettings.model_fields}),
                                        start_fen=pos.fen(), **go), msg.at_ms)

    def _on_GameStarted(self, msg, p: GameStarted):
        """Our own record of a game seen back (recovery, audit): register it, decide nothing."""
        if p.game_id not in self.games:
            self.games[p.game_id] = Game.of(p, msg.at_ms)
        return []

    def _create(self, started: GameStarted, at_ms: int) -> list[Emit]:
        """The game's GameStarted; a waiting tournament game whose round's StartPlay came
        first (read from the game commands before its RoundPaired from the tournament events)
        starts at once, PlayStarted dated at that StartPlay as in the other order."""
        if started.game_id in self.games:
            return []
        g = self.games[started.game_id] = Game.of(started, at_ms)
        out = [Emit(stream_for(f"game-{started.game_id}"), started)]
        early = self.__dict__.get("early", {}).pop(started.game_id, None)
        if early is not None and g.waiting:
            g.waiting = False
            g.started_ms = g.last_ms = max(at_ms, early)
            out.append(Emit(out[0].stream, PlayStarted(game_id=started.game_id), at_ms=g.started_ms))
        return out

    # ----------------------------------------------------------------------------- moves
    def _on_SubmitMove(self, msg, p: SubmitMove):
        g = self.games.get(p.game_id)
        stream = stream_for(f"game-{p.game_id}")

        def reject(code: str, reason: str, rule=None):
            return [Emit(stream, MoveRejected(game_id=p.game_id, player_id=p.player_id, move=p.move,
                                              code=code, reason=reason, rule=rule))]

        if g is None:
            return reject("no-such-game", f"no game {p.game_id}")
        colour = None if g.over else g.colour_of(p.player_id)
        refusal = _move_refusal(msg, p, g, colour)
        if refusal is not None:
            return reject(*refusal)
        void = None
        try:
            mv = g.pos.parse(p.move, p.notation) if p.notation else g.pos.parse(p.move)
        except GoMoveError as e:
            if not (e.code == "illegal" and e.why in VOID_REASONS and g.void_moves == "pass"):
                return reject(e.code, e.reason, e.rule)
            mv, void = None, VoidMove(move=p.move, reason=e.reason, rule=g.pos.RULES["void-" + e.why])
        except MoveError as e:
            return reject(e.code, e.reason, g.pos.RULES.get("illegal-move") if e.code == "illegal" else None)
        played = g.pos.play(mv, void=True) if void is not None else g.pos.play(mv)
        out = _after_move(msg, p, g, colour, played, stream)  # type: ignore[arg-type]
        out.insert(0, Emit(stream, MoveAccepted(
            game_id=p.game_id, ply=g.pos.ply, player_id=p.player_id, colour=colour,
            uci=played.uci, san=played.san, fen_after=played.fen_after, status=played.status,
            halfmove_clock=played.halfmove_clock, repetitions=played.repetitions, wxf=played.wxf,
            void=void)))
        return out

    # ------------------------------------------------------------------ other player commands
    def _player_check(self, msg, p) -> tuple[Game | None, str | None, list[Emit]]:
        g = self.games.get(p.game_id)
        if g is None:
            return None, None, [self._reject(msg, p, "no-such-game", f"no game {p.game_id}")]
        if g.over:
            return g, None, [self._reject(msg, p, "game-over", "the game is over")]
        if g.counting:
            return g, None, [self._reject(msg, p, "counting", "the dead stones are settled and the "
                                                              "game is being counted")]
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
        if g.pos.game == "go":
            return [self._reject(msg, p, "invalid", "Go has no draw offers: a game is counted (a "
                                                    "jigo is a draw) or resigned")]
        if g.offer_by is not None:
            return [self._reject(msg, p, "draw-offer-pending", f"a draw offer by {g.offer_by} is pending")]
        if g.pos.game == "xiangqi" and (why := _xiangqi_offer_refused(g, colour)):
            return [self._reject(msg, p, "invalid", why)]
        g.offer_by = colour
        g.last_offer = (colour, g.pos.ply)
        return [Emit(stream_for(f"game-{p.game_id}"), DrawOffered(game_id=p.game_id, player_id=p.player_id,
                                                      colour=colour, ply=g.pos.ply))]

    def _answer_check(self, msg, p) -> tuple[Game | None, str | None, list[Emit]]:
        """:meth:`_player_check` for an answer to a draw offer (accept or decline), refused
        with ``no-draw-offer`` unless the opponent's offer is pending."""
        g, colour, err = self._player_check(msg, p)
        if not err and (g.offer_by is None or g.offer_by == colour):
            err = [self._reject(msg, p, "no-draw-offer", "no draw offer from the opponent is pending")]
        return g, colour, err

    def _on_AcceptDraw(self, msg, p: AcceptDraw):
        g, colour, err = self._answer_check(msg, p)
        if err:
            return err
        g.over = True
        g.offer_by = None
        return [Emit(stream_for(f"game-{p.game_id}"), DrawAgreed(game_id=p.game_id, player_id=p.player_id, colour=colour))]

    def _on_DeclineDraw(self, msg, p: DeclineDraw):
        g, colour, err = self._answer_check(msg, p)
        if err:
            return err
        g.offer_by = None
        return [Emit(stream_for(f"game-{p.game_id}"), DrawOfferDeclined(game_id=p.game_id, player_id=p.player_id, colour=colour))]

    def _on_ClaimDraw(self, msg, p: ClaimDraw):
        g, colour, err = self._player_check(msg, p)
        if err:
            return err
        if g.pos.game == "go":
            return [self._reject(msg, p, "invalid", "Go has no draw claims: an endless cycle (triple "
                                                    "ko ...) is ruled by the arbiter (Chinese rules "
                                                    "1988 art. 20.3)")]
        if colour != g.to_move and g.pos.game != "xiangqi":  # xiangqi 23.3 / 24: either player
            return [self._reject(msg, p, "not-your-turn",
                                 "only the player to move may claim (chess 1994 art. 10.10, 10.12; "
                                 "xiangqi 1999 art. 23.3)")]
        allowed = (("natural-limit", "repetition") if g.pos.game == "xiangqi"
                   else ("threefold", "fifty-moves"))
        if p.reason not in allowed:
            return [self._reject(msg, p, "invalid", f"{g.pos.game} has no {p.reason} claim; "
                                                    f"claims: {', '.join(allowed)}")]
        uci = None
        if p.move:
            if g.pos.game == "xiangqi":
                return [self._reject(msg, p, "invalid", f"a {p.reason} claim names no move")]
            try:
                uci = g.pos.coord(g.pos.parse(p.move))
            except MoveError as e:
                return [self._reject(msg, p, e.code, e.reason)]
        return [Emit(stream_for(f"game-{p.game_id}"), DrawClaimed(game_id=p.game_id, player_id=p.player_id, colour=colour,
                                                      reason=p.reason, move=uci, ply=g.pos.ply))]

    def _arbiter_check(self, msg, p, action: str, go_command: str | None = None) -> tuple[Game | None, list[Emit]]:
        """An arbiter's command on a game: (game, []) when the game exists, the actor is an
        arbiter, the game is not over and, for a ``go_command``, the game is Go; else (game or
        None, [the rejection]). ``action``: what only an arbiter may do, for the rejection."""
        g = self.games.get(p.game_id)
        if g is None:
            return None, [self._reject(msg, p, "no-such-game", f"no game {p.game_id}")]
        if msg.actor.kind != "arbiter":
            return g, [self._reject(msg, p, "invalid", f"only an arbiter may {action}")]
        if g.over:
            return g, [self._reject(msg, p, "game-over", "the game is over")]
        if go_command is not None and g.pos.game != "go":
            return g, [self._reject(msg, p, "invalid", f"{go_command} is a Go command")]
        return g, []

    def _on_RecordResult(self, msg, p: RecordResult):
        g, err = self._arbiter_check(msg, p, "enter a result")
        if err:
            return err
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
        if p.both and g.pos.ply > 0:
            return [self._reject(msg, p, "invalid", "a move has been made: both players cannot be absent")]
        return [Emit(stream_for(f"game-{p.game_id}"), AbsenceReported(game_id=p.game_id, player_id=p.player_id,
                                                                      colour=colour, both=p.both))]

    def _on_ReportArrival(self, msg, p: ReportArrival):
        """A late player arrived (arbiter only): ArrivalReported with the late time, ms after
        the game's start, and the event's limit (1988 art. 23.1-23.3: penalties and the clock
        rule on it). Refused for a player who has moved or was already reported arrived; and
        refused as ``flag-fallen`` when the running clock's deadline (as the clock last gave it)
        passed before the arrival's event time: that flag fell first and decided the game
        (1988 art. 23.5), so the clock calls it on this rejection, dated at the deadline."""
        g = self.games.get(p.game_id)
        if g is None:
            return [self._reject(msg, p, "no-such-game", f"no game {p.game_id}")]
        if msg.actor.kind != "arbiter":
            return [self._reject(msg, p, "invalid", "only an arbiter may report an arrival")]
        colour = g.colour_of(p.player_id)
        if colour is None:
            return [self._reject(msg, p, "not-a-player", f"{p.player_id} does not play in game {p.game_id}")]
        if g.over:
            return [self._reject(msg, p, "game-over", "the game is over")]
        if colour in g.present:
            return [self._reject(msg, p, "invalid", f"{p.player_id} is already present (has moved "
                                                    f"or was reported arrived)")]
        if (late := _backwards(msg, g)):
            return [self._reject(msg, p, "invalid", late)]
        if g.deadline_ms is not None and msg.at_ms > g.deadline_ms:
            rule = g.pos.RULES["timeout"]
            return [self._reject(msg, p, "flag-fallen", (
                f"{p.player_id} reported arrived {msg.at_ms - g.started_ms} ms after the start, "
                f"{msg.at_ms - g.deadline_ms} ms after {g.deadline_for}'s flag fell: the time "
                f"out came first and loses ({rule.ruleset} art. {rule.article})"))]
        g.present.add(colour)
        limit = (g.started.default_time_s if g.started else 0) * 1000
        return [Emit(stream_for(f"game-{p.game_id}"), ArrivalReported(
            game_id=p.game_id, player_id=p.player_id, colour=colour,
            late_ms=msg.at_ms - g.started_ms, limit_ms=limit))]

    # ------------------------------------------------------------------ Go: endless cycles
    def _on_EndlessCycleFound(self, msg, p: EndlessCycleFound):
        g = self.games.get(p.game_id)
        if g is not None:
            g.cycle_found = True
        return []

    def _on_RuleEndlessCycle(self, msg, p: RuleEndlessCycle):
        """The arbiter's ruling on an endless cycle (1988 art. 20.3 draw or replay; Japanese
        1989 art. 12 no result): EndlessCycleRuled, and for a replay the new game's
        GameStarted. Refused unless adjudication found a cycle in this game."""
        g, err = self._arbiter_check(msg, p, "rule on an endless cycle", "RuleEndlessCycle")
        if err:
            return err
        if not g.cycle_found:
            return [self._reject(msg, p, "invalid", "no endless cycle has been found in this game: "
                                                    "a position must recur three times with stones "
                                                    "taken (1988 art. 20.3)")]
        key = {"draw": "cycle-draw", "replay": "cycle-replay", "no-result": "no-result"}[p.ruling]
        if key not in g.pos.RULES:
            return [self._reject(msg, p, "invalid", f"no {p.ruling} ruling under {g.pos.rules} "
                                                    f"rules: no result is Japanese rules 1989 art. "
                                                    f"12; rule a draw or a replay (1988 art. 20.3)")]
        if (late := _backwards(msg, g)):
            return [self._reject(msg, p, "invalid", late)]
        replay = None
        if p.ruling == "replay" and g.started is not None:
            n = 1
            while f"{p.game_id}-replay{n}" in self.games:
                n += 1
            replay = f"{p.game_id}-replay{n}"
            if len(replay) > 80:
                return [self._reject(msg, p, "invalid", f"the replay's id {replay!r} would pass 80 "
                                                        f"characters; create the replay by hand")]
        g.over = True
        out = [Emit(stream_for(f"game-{p.game_id}"), EndlessCycleRuled(
            game_id=p.game_id, ruling=p.ruling, reason=p.reason, rule=g.pos.RULES[key],
            replay_game_id=replay))]
        if replay is not None:
            out += self._create(g.started.model_copy(update={"game_id": replay, "replay_of": p.game_id,
                                                             "clock_start": "auto"}),
                                msg.at_ms)
        return out

    # ------------------------------------------------------------------ Go: end of play
    def _go_check(self, msg, p) -> tuple[Game | None, str | None, list[Emit]]:
        """A player's dead-stone command: the game must be Go with play stopped."""
        g, colour, err = self._player_check(msg, p)
        if err:
            return g, colour, err
        if g.pos.game != "go":
            return g, None, [self._reject(msg, p, "invalid", f"{msg.type} is a Go command")]
        if not g.scoring:
            stop = g.pos.RULES["stop"]
            return g, None, [self._reject(msg, p, "not-scoring", f"play has not stopped: two passes "
                                                                 f"in a row stop it ({stop.ruleset} "
                                                                 f"art. {stop.article})")]
        if g.removal_deadline_ms is not None and msg.at_ms > g.removal_deadline_ms:
            return g, None, [self._reject(msg, p, "stone-removal-timeout", (
                f"received {msg.at_ms - g.removal_deadline_ms} ms after the stone-removal time "
                f"({g.removal_limit_ms // 1000} s) ran out: an unanswered proposal stands and is "
                f"counted, else the arbiter rules (platform rule for online play)"))]
        return g, colour, []

    def _on_MarkDead(self, msg, p: MarkDead):
        g, colour, err = self._go_check(msg, p)
        if err:
            return err
        try:
            dead = g.pos.dead_groups(p.dead)
        except MoveError as e:
            return [self._reject(msg, p, "malformed" if e.code == "malformed" else "invalid", e.reason)]
        g.proposals[colour] = dead
        g.last_ms = msg.at_ms
        g.removal_deadline_ms = msg.at_ms + g.removal_limit_ms  # each proposal restarts the time
        return [Emit(stream_for(f"game-{p.game_id}"), DeadStonesProposed(
            game_id=p.game_id, player_id=p.player_id, colour=colour, dead=dead, ply=g.pos.ply))]

    def _on_AcceptDead(self, msg, p: AcceptDead):
        g, colour, err = self._go_check(msg, p)
        if err:
            return err
        dead = g.proposals.get(_OTHER[colour])
        if dead is None:
            return [self._reject(msg, p, "invalid", "the opponent has proposed no dead stones to accept")]
        g.counting = True  # adjudication counts the game now (GameEnded, or ArbiterCalled)
        g.removal_deadline_ms = None
        return [Emit(stream_for(f"game-{p.game_id}"), ScoringAgreed(
            game_id=p.game_id, player_id=p.player_id, colour=colour, proposed_by=_OTHER[colour],
            dead=dead, rule=g.pos.RULES["agreement"]))]

    def _on_RejectDead(self, msg, p: RejectDead):
        g, colour, err = self._go_check(msg, p)
        if err:
            return err
        stream = stream_for(f"game-{p.game_id}")
        g.proposals.clear()
        g.last_ms = msg.at_ms
        g.removal_deadline_ms = None  # play resumes; the next stop starts the time afresh
        yields = g.pos.resume(colour)
        out = [Emit(stream, PlayResumed(game_id=p.game_id, player_id=p.player_id, colour=colour,
                                        to_move=_OTHER[colour], rule=g.pos.RULES["resumption"]))]
        if yields:  # the asker was to move: its turn goes to the opponent as a recorded pass
            played = g.pos.play(None)
            out.append(Emit(stream, MoveAccepted(
                game_id=p.game_id, ply=g.pos.ply, player_id=p.player_id, colour=colour,
                uci=played.uci, san=played.san, fen_after=played.fen_after, status=played.status,
                halfmove_clock=0, repetitions=played.repetitions)))
        return out

    def _on_RuleDeadStones(self, msg, p: RuleDeadStones):
        g, err = self._arbiter_check(msg, p, "rule the dead stones", "RuleDeadStones")
        if err:
            return err
        if not g.scoring:
            return [self._reject(msg, p, "not-scoring", "play has not stopped: the dead stones are "
                                                        "ruled after two passes in a row")]
        if g.counting:
            return [self._reject(msg, p, "counting", "the dead stones are settled and the game is "
                                                     "being counted")]
        if (late := _backwards(msg, g)):
            return [self._reject(msg, p, "invalid", late)]
        try:
            dead = g.pos.dead_groups(p.dead)
        except MoveError as e:
            return [self._reject(msg, p, "malformed" if e.code == "malformed" else "invalid", e.reason)]
        g.counting = True
        g.removal_deadline_ms = None
        return [Emit(stream_for(f"game-{p.game_id}"), DeadStonesRuled(
            game_id=p.game_id, dead=dead, reason=p.reason, rule=g.pos.RULES["arbiter-dead"]))]

    # ------------------------------------------------------------------ other services' facts
    def _on_ClockStarted(self, msg, p: ClockStarted):
        return self._on_clock(p.game_id, (p.running, p.deadline_ms))

    def _on_ClockUpdated(self, msg, p: ClockUpdated):
        return self._on_clock(p.game_id, (p.running, p.deadline_ms))

    def _on_ClockPaused(self, msg, p: ClockPaused):
        """The arbiter paused the clock: moves are refused (``clock-paused``) until it resumes."""
        if (g := self.games.get(p.game_id)) is not None:
            g.paused = True
        return []

    def _on_ClockResumed(self, msg, p: ClockResumed):
        """The clock runs again, with the deadline moved on by the pause."""
        if (g := self.games.get(p.game_id)) is not None:
            g.paused = False
        return self._on_clock(p.game_id, (p.running, p.deadline_ms))

    def _on_ClockAdjusted(self, msg, p: ClockAdjusted):
        """A time penalty, bonus or lateness deduction moved the running side's deadline."""
        g = self.games.get(p.game_id)
        if g is not None and p.deadline_ms is not None:
            g.deadline_ms = p.deadline_ms
        return []

    def _on_clock(self, game_id: str, reading) -> list[Emit]:
        g = self.games.get(game_id)
        if g is not None and reading is not None:
            g.deadline_for, g.deadline_ms = reading
        return []

    def _on_RepetitionRuled(self, msg, p: RepetitionRuled):
        g = self.games.get(p.game_id)
        if g is not None:
            g.ruling_due, g.must_vary = False, p.must_vary
        return []

    def _on_FlagFell(self, msg, p: FlagFell):
        return self._end(p.game_id)

    def _on_ArbiterCalled(self, msg, p: ArbiterCalled):
        """Go: the count failed (or the stone-removal time ran out with no proposal): the game
        is not over; play stays stopped, the dead stones may be settled again (the next
        proposal restarts the stone-removal time) and the arbiter may rule them or record the
        result (RecordResult)."""
        g = self.games.get(p.game_id)
        if g is not None:
            g.counting = False
            g.proposals.clear()
            g.removal_deadline_ms = None
        return []

    def _on_StoneRemovalExpired(self, msg, p: StoneRemovalExpired):
        """Go: the clock saw the stone-removal time run out. With a standing proposal the
        game is being counted on it (players' and the arbiter's dead-stone commands are refused
        as ``counting``); with none adjudication calls the arbiter (ArbiterCalled)."""
        g = self.games.get(p.game_id)
        if g is not None and p.dead is not None and not g.over:
            g.counting = True
        return []

    def _on_GameEnded(self, msg, p: GameEnded):
        return self._end(p.game_id)

    def _end(self, game_id: str) -> list[Emit]:
        g = self.games.get(game_id)
        if g is not None:
            g.over = True
            g.pos.compact()  # a finished game is only ever read again (Position.compact)
        return []

    def _reject(self, msg: Envelope, p, code: str, reason: str) -> Emit:
        return Emit(stream_for(f"game-{p.game_id}"), GameCommandRejected(
            game_id=p.game_id, command_id=str(msg.event_id), command_type=msg.type,
            player_id=getattr(p, "player_id", None), code=code, reason=reason))


ValidationCore.reads = handled_types(ValidationCore)  # handle(): an ``_on_<type>`` method or nothing
