"""Every command and event of Arbiter, as pydantic v2 payload models plus their envelopes.

Topics (Kafka topic names; the memory log uses the same names):

- ``arbiter.game.commands``: commands on one game, stream ``game-<id>.commands`` (gateway).
- ``arbiter.game.events``: facts about one game; streams ``game-<id>`` (validation),
  ``game-<id>.clock`` (clock), ``game-<id>.result`` (adjudication), ``game-<id>.penalties``.
- ``arbiter.tournament.commands``: stream ``tournament-<id>.commands`` (gateway).
- ``arbiter.tournament.events``: streams ``tournament-<id>`` (pairing: the tournament record),
  ``tournament-<id>.standings`` (standings).

Kafka partition key (:attr:`contracts.envelope.Envelope.key`): ``tournament-<id>`` for a
tournament and every game it paired, ``game-<id>`` for a game outside tournaments, so a game's
and a tournament's messages stay in order on one partition and one member of a consumer group. The union :data:`Message` discriminates on
``type``; :data:`MESSAGE_TYPES` maps a type name to its envelope class.
"""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from contracts.envelope import Envelope, Payload

GAME_COMMANDS = "arbiter.game.commands"
GAME_EVENTS = "arbiter.game.events"
TOURNAMENT_COMMANDS = "arbiter.tournament.commands"
TOURNAMENT_EVENTS = "arbiter.tournament.events"
TOPICS = (GAME_COMMANDS, GAME_EVENTS, TOURNAMENT_COMMANDS, TOURNAMENT_EVENTS)

Colour = Literal["white", "black"]
#: The game played. Xiangqi seats: Red is the ``white`` seat (moves first), Black the ``black`` seat.
GameKind = Literal["chess", "xiangqi"]
#: Xiangqi 棋例 rulings (1999 rules art. 24): ``automatic`` at every third occurrence of a position
#: (online play), or ``on-request`` when a player asks for one (art. 24 待判局面, over-the-board
#: practice; a side ordered to vary still loses automatically if it repeats the cycle again).
RepetitionRulings = Literal["automatic", "on-request"]
#: ``0-0``: both players lose without play (a double forfeit: xiangqi 1999 art. 21.3, both absent).
Result = Literal["1-0", "0-1", "1/2-1/2", "0-0"]
GameId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_\-]{1,80}$")]
PlayerId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_\-]{1,80}$")]


class _M(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Rule(_M):
    """The rule a decision applied: game, ruleset and article, e.g. chess / FIDE-1994 / 10.1."""

    game: Literal["chess", "xiangqi", "go"] = "chess"
    ruleset: str
    article: str
    summary: str = ""


# ----------------------------------------------------------------------------- tournament commands
class _TCmd(Payload):
    TOPIC = TOURNAMENT_COMMANDS
    KIND = "command"
    tournament_id: GameId


class CreateTournament(_TCmd):
    """Create a tournament. ``time_control`` is a PGN TimeControl tag (seconds), e.g. ``"300+2"``.

    ``system``: ``round-robin`` (Berger tables), ``double-round-robin`` or ``swiss`` (Dutch).
    ``tiebreaks``: FIDE codes in order (SB, BH, BH-C1, WIN, DE, ...). ``default_time_s``: a player
    absent this long after the start of the round loses by forfeit (0 = no limit).
    ``game``: chess or xiangqi; ``natural_limit_moves``: xiangqi's natural move limit (1999 rules
    art. 4.2.4: 60 moves without a capture, which an event may lower). ``chinese-swiss``: the
    积分编排制 of the xiangqi rules' appendix 2; ``mcmahon``: McMahon (Go), with ``mcmahon_bar``
    and ``mcmahon_floor`` grades; ``lots_seed`` seeds every lot the pairing draws.
    """

    name: str = Field(min_length=1, max_length=200)
    system: Literal["round-robin", "double-round-robin", "swiss", "chinese-swiss", "mcmahon"] = "round-robin"
    rounds: int | None = Field(default=None, ge=1, le=99)
    time_control: str = "5400+30"
    tiebreaks: tuple[str, ...] = ("SB", "WIN", "DE")
    start_fen: str | None = None
    default_time_s: int = Field(default=3600, ge=0)
    game: GameKind = "chess"
    natural_limit_moves: int = Field(default=60, ge=1, le=60)
    repetition_rulings: RepetitionRulings = "automatic"
    lots_seed: int = 0
    mcmahon_bar: str | None = None
    mcmahon_floor: str | None = None


class RegisterPlayer(_TCmd):
    """Register a player (before round 1). ``rating``: Elo points; ``grade``: Go amateur grade of
    the Chinese dan/kyu system (``3d``/``3段``, ``5k``/``5级``), the McMahon seeding input;
    ``club``: for the same-club avoidance of the 积分编排制 (appendix 2, item 7)."""

    player_id: PlayerId
    name: str = Field(min_length=1, max_length=200)
    rating: int | None = Field(default=None, ge=0, le=4000)
    fide_id: str | None = None
    title: str | None = None
    grade: str | None = Field(default=None, max_length=8)
    club: str | None = Field(default=None, max_length=200)


class DrawLots(_TCmd):
    """Assign round-robin draw numbers (Berger table numbers, 1..n), one per registered player."""

    numbers: dict[str, int]


class ManualBoard(_M):
    white: PlayerId
    black: PlayerId


class StartRound(_TCmd):
    """Pair and start round ``round``. With ``boards`` the organiser's manual pairing is used;
    ``bye`` names a player without a game in a manual pairing."""

    round: int = Field(ge=1, le=99)
    boards: tuple[ManualBoard, ...] | None = None
    bye: PlayerId | None = None


# ------------------------------------------------------------------------------ tournament events
class _TEvt(Payload):
    TOPIC = TOURNAMENT_EVENTS
    tournament_id: GameId


class TournamentCreated(_TEvt):
    name: str
    system: str
    rounds: int | None
    time_control: str
    tiebreaks: tuple[str, ...]
    start_fen: str | None = None
    default_time_s: int = 3600
    game: GameKind = "chess"
    natural_limit_moves: int = 60
    repetition_rulings: RepetitionRulings = "automatic"
    lots_seed: int = 0
    mcmahon_bar: str | None = None
    mcmahon_floor: str | None = None


class PlayerRegistered(_TEvt):
    player_id: PlayerId
    name: str
    rating: int | None = None
    fide_id: str | None = None
    title: str | None = None
    grade: str | None = None
    club: str | None = None


class LotsDrawn(_TEvt):
    numbers: dict[str, int]


class Board(_M):
    board: int
    game_id: GameId
    white: PlayerId
    black: PlayerId


class RoundPaired(_TEvt):
    """A round's pairing: boards (white first), bye, the system (``system_version``: the engine
    and its version), the inputs' hash and the seed of any lot drawn (``lots_seed``), so a
    replay re-derives it; ``decisions``: the steps a method took (floats, lots), for audit."""

    round: int
    system: str
    boards: tuple[Board, ...]
    bye: PlayerId | None = None
    manual: bool = False
    inputs_hash: str = ""
    rule: Rule | None = None
    system_version: str = ""
    lots_seed: int | None = None
    decisions: tuple[str, ...] = ()


class StandingRow(_M):
    rank: int
    player_id: PlayerId
    name: str
    score: float
    games: int
    tiebreaks: dict[str, float]


class StandingsUpdated(_TEvt):
    """Standings after ``round`` (all of its games finished). ``order``: tie-break codes used."""

    round: int
    order: tuple[str, ...]
    rows: tuple[StandingRow, ...]


class TournamentFinished(_TEvt):
    rounds: int


class TournamentCommandRejected(_TEvt):
    """A tournament command refused: nothing changed. ``code`` is machine-readable."""

    command_id: str
    command_type: str
    code: str
    reason: str


# ------------------------------------------------------------------------------------ game commands
class _GCmd(Payload):
    TOPIC = GAME_COMMANDS
    KIND = "command"
    game_id: GameId


class CreateGame(_GCmd):
    """Create a game outside a tournament (or for one). ``time_control``: PGN TimeControl tag or a
    preset name (``xiangqi-6.1`` ...). ``game``: chess or xiangqi (Red takes the ``white`` seat);
    ``natural_limit_moves``: xiangqi art. 4.2.4 (60, or fewer if the event says so)."""

    white: PlayerId
    black: PlayerId
    time_control: str = "300"
    start_fen: str | None = None
    tournament_id: str | None = None
    round: int | None = None
    board: int | None = None
    default_time_s: int = Field(default=3600, ge=0)
    game: GameKind = "chess"
    natural_limit_moves: int = Field(default=60, ge=1, le=60)
    repetition_rulings: RepetitionRulings = "automatic"


class SubmitMove(_GCmd):
    """A move. Chess: UCI (``e2e4``, ``e7e8q``) or SAN (``Nf3``, ``O-O``, ``exd8=Q+``). Xiangqi:
    ICCS (``h2e2``), WXF (``C2.5``) or Chinese notation (``炮二平五``, ``马８进７``)."""

    player_id: PlayerId
    move: str = Field(min_length=1, max_length=16)


class Resign(_GCmd):
    player_id: PlayerId


class OfferDraw(_GCmd):
    player_id: PlayerId


class AcceptDraw(_GCmd):
    player_id: PlayerId


class DeclineDraw(_GCmd):
    player_id: PlayerId


DrawClaimReason = Literal["threefold", "fifty-moves", "natural-limit", "repetition"]


class ClaimDraw(_GCmd):
    """Claim a draw. Chess: FIDE 1994 art. 10.10 (``threefold``) or 10.12 (``fifty-moves``);
    ``move`` is the intended move written down but not played (art. 10.10(1)), if any. Xiangqi:
    ``natural-limit`` (1999 rules art. 4.2.4, 23.3: the event's limit of moves without a capture,
    at most 10 of the claimant's checks counted; an untrue claim is a foul and costs 5 minutes), or
    ``repetition``: either player asks for the 棋例 ruling on a position repeated three times
    (art. 24, 待判局面), which may be a draw, a loss for either side or an order to vary."""

    player_id: PlayerId
    reason: DrawClaimReason
    move: str | None = Field(default=None, max_length=16)


class RecordResult(_GCmd):
    """An arbiter enters a result (over-the-board game, results-only record, ruling)."""

    result: Result
    reason: str = Field(default="arbiter", max_length=80)


class IssuePenalty(_GCmd):
    """An arbiter penalty (FIDE 1994 art. 16.5): warning, time penalty (``ms`` taken from the
    player's remaining time), time bonus for the opponent (``ms`` added), or loss of the game.
    Xiangqi (1999 rules): ``warning`` (18.1), ``foul`` (犯规, art. 9; the third foul in a game loses
    it, 4.1.8), ``loss`` (disqualification from the game, 18.2 / 4.1.10)."""

    player_id: PlayerId
    kind: Literal["warning", "time-penalty", "time-bonus", "loss", "foul"]
    ms: int = Field(default=0, ge=0, le=24 * 3600 * 1000)
    note: str = Field(default="", max_length=500)


class ReportAbsence(_GCmd):
    """An arbiter reports that ``player_id`` has not arrived; forfeits if past the default time.
    ``both``: the opponent has not arrived either (xiangqi 1999 art. 21.3: both past the limit
    forfeit both, result ``0-0``)."""

    player_id: PlayerId
    both: bool = False


# -------------------------------------------------------------------------------------- game events
class _GEvt(Payload):
    TOPIC = GAME_EVENTS
    game_id: GameId


class GameStarted(_GEvt):
    white: PlayerId
    black: PlayerId
    start_fen: str
    time_control: str
    tournament_id: str | None = None
    round: int | None = None
    board: int | None = None
    default_time_s: int = 3600
    game: GameKind = "chess"
    natural_limit_moves: int = 60
    repetition_rulings: RepetitionRulings = "automatic"


PositionStatus = Literal[
    "ongoing", "checkmate", "stalemate", "insufficient-material",
    "fivefold-repetition", "seventyfive-moves",
]


class MoveAccepted(_GEvt):
    """A legal move. ``occurred_at`` is the gateway's receive time. ``status`` is the position
    after the move as the rules see it without a claim (terminal or ongoing). ``uci``: the
    coordinate move (chess UCI; xiangqi ICCS ``h2e2``, ranks 0-9 from Red's side); ``san``: the
    human notation (chess SAN; xiangqi Chinese notation of the 1999 rules art. 7.5, ``炮二平五``);
    ``wxf``: xiangqi WXF notation (``C2.5``). ``halfmove_clock``: plies since the last capture
    (or chess pawn move); ``repetitions``: occurrences of the position so far."""

    ply: int
    player_id: PlayerId
    colour: Colour
    uci: str
    san: str
    fen_after: str
    status: PositionStatus = "ongoing"
    halfmove_clock: int = 0
    repetitions: int = 1
    wxf: str | None = None


RejectCode = Literal[
    "not-your-turn", "illegal", "game-over", "malformed", "not-a-player", "flag-fallen",
    "no-such-game", "no-draw-offer", "draw-offer-pending", "already-exists", "invalid",
    "ruling-pending",
]


class MoveRejected(_GEvt):
    player_id: str
    move: str
    code: RejectCode
    reason: str
    rule: Rule | None = None


class GameCommandRejected(_GEvt):
    """A non-move game command refused (nothing changed)."""

    command_id: str
    command_type: str
    player_id: str | None = None
    code: RejectCode
    reason: str


class DrawOffered(_GEvt):
    player_id: PlayerId
    colour: Colour
    ply: int


class DrawOfferDeclined(_GEvt):
    player_id: PlayerId
    colour: Colour
    by_move: bool = False


class DrawAgreed(_GEvt):
    player_id: PlayerId
    colour: Colour


class Resigned(_GEvt):
    player_id: PlayerId
    colour: Colour


class DrawClaimed(_GEvt):
    player_id: PlayerId
    colour: Colour
    reason: DrawClaimReason
    move: str | None = None
    ply: int


class ResultRecorded(_GEvt):
    result: Result
    reason: str


class AbsenceReported(_GEvt):
    player_id: PlayerId
    colour: Colour
    both: bool = False


class ClockStarted(_GEvt):
    """The game's clock starts: ``running`` side's time runs from ``occurred_at``."""

    time_control: str
    white_ms: int
    black_ms: int
    running: Colour
    deadline_ms: int | None = None


class ClockUpdated(_GEvt):
    """Remaining times (integer ms) after ply ``ply``; ``deadline_ms`` is the epoch ms at which
    the running side's flag falls (None when untimed).

    Go overtime (None when the time control has no such count): ``*_periods_left`` byo-yomi
    periods, or reserve minutes of Chinese rules 1988 art. 12.2 (读秒), left; ``*_moves_left``
    Canadian moves still to make in the current block (None while in main time; ``*_ms`` is
    then the block's time left). A side is in byo-yomi / 读秒 when its ``*_ms`` is 0."""

    ply: int
    mover: Colour
    elapsed_ms: int
    white_ms: int
    black_ms: int
    running: Colour
    deadline_ms: int | None = None
    period: int = 0
    white_periods_left: int | None = None
    black_periods_left: int | None = None
    white_moves_left: int | None = None
    black_moves_left: int | None = None


class FlagFell(_GEvt):
    """The running side's time ran out at ``deadline_ms`` with no move received before it;
    ``observed_ms`` is the tick (or late move) at which the clock service saw it."""

    colour: Colour
    deadline_ms: int
    observed_ms: int
    white_ms: int
    black_ms: int
    rule: Rule


class ClockAdjusted(_GEvt):
    """An arbiter's or a rule's time change of ``delta_ms`` on ``colour``'s clock. ``white_ms`` /
    ``black_ms``: remaining times (the running side's as at its turn start); ``deadline_ms``:
    when the running side's flag now falls."""

    colour: Colour
    delta_ms: int
    white_ms: int
    black_ms: int
    cause: str
    deadline_ms: int | None = None


class ClockStopped(_GEvt):
    white_ms: int
    black_ms: int


class GameEnded(_GEvt):
    """The result and why: ``reason`` (checkmate, resignation, timeout, ...) and the ``rule``."""

    result: Result
    reason: str
    rule: Rule
    winner: Colour | None = None
    detail: str = ""


class DrawClaimRejected(_GEvt):
    player_id: PlayerId
    colour: Colour
    reason: str
    detail: str
    rule: Rule


class PenaltyApplied(_GEvt):
    """A penalty: ``kind`` warning / time (``time_delta_ms`` added to the penalised player's
    remaining time, negative = time taken) / bonus to the opponent / forfeit (loss)."""

    player_id: PlayerId
    colour: Colour
    kind: Literal["warning", "time", "bonus", "forfeit", "foul", "double-forfeit"]
    time_delta_ms: int = 0
    rule: Rule
    cause: str
    count: int = 0


class ClassifiedMove(_M):
    """One move of a repeating cycle as the 棋例 classify it (1999 rules art. 28): ``check`` 将,
    ``mate-threat`` 杀, ``chase`` 捉 or ``idle`` 闲; ``targets``: the squares (ICCS) of the pieces
    chased or threatened; ``note``: why."""

    move: str
    side: Colour
    classification: Literal["check", "mate-threat", "chase", "idle"]
    targets: tuple[str, ...] = ()
    note: str = ""


class RepetitionRuled(_GEvt):
    """A xiangqi position repeated three times (1999 rules art. 24) and the 棋例 ruling on the
    cycle of moves that repeated it: ``verdict`` ``white-loses`` / ``black-loses`` (one-sided
    perpetual check, 24.1, or a forbidden side that did not vary, 24.3), ``draw`` (24.2) or
    ``must-vary`` (24.3: ``must_vary`` must change its moves and loses if the cycle repeats once
    more). ``moves`` lists every move of the cycle with its classification."""

    ply: int
    verdict: Literal["white-loses", "black-loses", "draw", "must-vary"]
    must_vary: Colour | None = None
    rule: Rule
    moves: tuple[ClassifiedMove, ...]
    detail: str = ""


PAYLOADS: tuple[type[Payload], ...] = (
    CreateTournament, RegisterPlayer, DrawLots, StartRound,
    TournamentCreated, PlayerRegistered, LotsDrawn, RoundPaired, StandingsUpdated,
    TournamentFinished, TournamentCommandRejected,
    CreateGame, SubmitMove, Resign, OfferDraw, AcceptDraw, DeclineDraw, ClaimDraw, RecordResult,
    IssuePenalty, ReportAbsence,
    GameStarted, MoveAccepted, MoveRejected, GameCommandRejected, DrawOffered, DrawOfferDeclined,
    DrawAgreed, Resigned, DrawClaimed, ResultRecorded, AbsenceReported, ClockStarted,
    ClockUpdated, FlagFell, ClockAdjusted, ClockStopped, GameEnded, DrawClaimRejected,
    PenaltyApplied, RepetitionRuled,
)


def _envelope_class(p: type[Payload]) -> type[Envelope]:
    return create_model(  # type: ignore[call-overload]
        p.__name__ + "Message",
        __base__=Envelope,
        __doc__=f"Envelope of {p.__name__} ({p.KIND}, topic {p.TOPIC}). " + (p.__doc__ or ""),
        type=(Literal[p.__name__], p.__name__),
        schema_version=(Literal[p.VERSION], p.VERSION),
        payload=(p, ...),
    )


MESSAGE_TYPES: dict[str, type[Envelope]] = {p.__name__: _envelope_class(p) for p in PAYLOADS}
PAYLOAD_TYPES: dict[str, type[Payload]] = {p.__name__: p for p in PAYLOADS}

Message = Annotated[Union[tuple(MESSAGE_TYPES.values())], Field(discriminator="type")]  # type: ignore[valid-type]
MESSAGE_ADAPTER: TypeAdapter = TypeAdapter(Message)


def parse_message(data: bytes | str | dict) -> Envelope:
    """Parse one message (JSON bytes/str or dict) into its typed envelope.

    Raises ``pydantic.ValidationError`` for an unknown type or a malformed message.
    """
    if isinstance(data, dict):
        return MESSAGE_ADAPTER.validate_python(data)
    return MESSAGE_ADAPTER.validate_json(data)


def envelope(payload: Payload, *, stream: str, seq: int, occurred_at, actor, causation_id=None,
             correlation_id=None, event_id=None) -> Envelope:
    """Wrap ``payload`` in its typed envelope (type and schema_version filled from the payload)."""
    cls = MESSAGE_TYPES[type(payload).__name__]
    kw = dict(stream=stream, seq=seq, occurred_at=occurred_at, actor=actor,
              causation_id=causation_id, correlation_id=correlation_id, payload=payload)
    if event_id is not None:
        kw["event_id"] = event_id
    return cls(**kw)
