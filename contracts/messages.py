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

from typing import Annotated, Literal, Union, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, create_model

from contracts.envelope import Envelope, Payload

GAME_COMMANDS = "arbiter.game.commands"
GAME_EVENTS = "arbiter.game.events"
TOURNAMENT_COMMANDS = "arbiter.tournament.commands"
TOURNAMENT_EVENTS = "arbiter.tournament.events"
TOPICS = (GAME_COMMANDS, GAME_EVENTS, TOURNAMENT_COMMANDS, TOURNAMENT_EVENTS)
#: Signed checkpoints of the streams' hash chains (:class:`StreamsCheckpointed`): attestations,
#: not decisions; no process reads them, export-log and the audit do.
CHECKPOINTS = "arbiter.checkpoints"
#: Every topic of the log as export-log and the audit read it.
LOG_TOPICS = TOPICS + (CHECKPOINTS,)

Colour = Literal["white", "black"]
#: The game played. Xiangqi seats: Red is the ``white`` seat (moves first), Black the ``black`` seat.
#: Go seats: Black is the ``black`` seat (moves first, or second after handicap stones), White the
#: ``white`` seat; a Go result ``B+x`` is ``0-1`` and ``W+x`` is ``1-0`` (``score`` keeps the margin).
GameKind = Literal["chess", "xiangqi", "go"]
#: Go rules of a game: Chinese (1988/2002: area counting, positional superko), Japanese (1989:
#: territory counting, simple ko), Ing (area counting, multi-stone suicide allowed), Tromp-Taylor
#: (area counting of every stone on the board, positional superko, suicide allowed), AGA (area
#: counting, situational superko, pass stones, White passes last, N-1 handicap points), New
#: Zealand (``nz``: area counting, situational superko, suicide allowed) or Korean (territory
#: counting as the Japanese rules). See :data:`shared.rules.go.SPECS`.
GoRules = Literal["chinese", "japanese", "ing", "tromp-taylor", "aga", "nz", "korean"]
#: How a Go move on a forbidden point or an immediate ko recapture is treated: ``refuse`` (online
#: default: MoveRejected naming the article, nothing changes) or ``pass`` (Chinese rules 1988
#: art. 19 / 20.1 literally: the move is void, recorded, and counts as a pass).
VoidMoves = Literal["refuse", "pass"]
#: Xiangqi 棋例 rulings (1999 rules art. 24): ``automatic`` at every third occurrence of a position
#: (online play), or ``on-request`` when a player asks for one (art. 24 待判局面, over-the-board
#: practice; a side ordered to vary still loses automatically if it repeats the cycle again).
RepetitionRulings = Literal["automatic", "on-request"]
#: ``0-0``: neither player scores: both lose without play (a double forfeit: xiangqi 1999 art.
#: 21.3, Go 1988 art. 23.2, both absent), or a Go game without a result (GameEnded reason
#: ``no-result``: Japanese rules 1989 art. 12, 无胜负) or to be replayed (reason ``replay``: Chinese
#: rules 1988 art. 20.3, 重下; the replay is a new game whose GameStarted names it in ``replay_of``).
Result = Literal["1-0", "0-1", "1/2-1/2", "0-0"]
GameId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_\-]{1,80}$")]
PlayerId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_\-]{1,80}$")]


class _M(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class GoSettings(BaseModel):
    """Go settings of a game or event (ignored for chess and xiangqi; None = the default):
    ``board_size`` lines (19; 9 and 13 for short games), ``go_rules`` (chinese), ``komi`` in
    points given to White (the rules' default: 7.5 Chinese, 6.5 Japanese, 8 Ing; 0 with
    handicap stones), ``handicap`` stones placed for Black on the fixed points (White then moves
    first), ``void_moves`` (see :data:`VoidMoves`), ``stone_removal_s``: seconds the players
    have to settle the dead stones once play stops, restarted by each proposal (None = 300 s,
    :data:`shared.rules.go.DEFAULT_STONE_REMOVAL_S`; a platform rule for online play -- no rule
    text sets such a limit -- see :class:`StoneRemovalExpired`)."""

    board_size: int | None = Field(default=None, ge=2, le=25)
    go_rules: GoRules | None = None
    komi: float | None = Field(default=None, ge=-150, le=150, allow_inf_nan=False)
    handicap: int | None = Field(default=None, ge=0, le=9)
    void_moves: VoidMoves = "refuse"
    stone_removal_s: int | None = Field(default=None, ge=1, le=86_400)


#: The bounds a command's field may carry that its recorded event drops (annotated-types).
_BOUNDS = ("Ge", "Gt", "Le", "Lt", "MinLen", "MaxLen")


def _recorded(name: str, command: type[BaseModel], base: type[Payload], *, loose: tuple[str, ...] = (),
              required: tuple[str, ...] = (), fields: dict | None = None, doc: str | None = None,
              go: bool = True, after: str | None = None):
    """The event ``name`` that records the settings of ``command``, declared once there: the
    command's own fields (those of ``base`` and :class:`GoSettings` come from the bases), in its
    order, with its types and defaults, but without its bounds (``ge``, ``max_length``...: an
    event written by older code keeps parsing whatever they become), the ``loose`` ones as
    plain strings (a ``Literal`` on the command, ``str`` on the event, None kept), the
    ``required`` ones without a default; ``fields``: name -> (annotation, default) replacing or
    adding a field, in its order (a new name goes last, or right after the command's field
    ``after``: the JSON's key order is what the hash chains of logs already written hash).
    ``go``: the event has :class:`GoSettings` as a base too (the command's must then be)."""
    own = [n for n in command.model_fields if n not in base.model_fields and n not in GoSettings.model_fields]
    spec: dict = {}
    for n in own:
        f = command.model_fields[n]
        ann = f.annotation
        if n in loose:
            ann = str | None if type(None) in get_args(ann) else str
        kept = [m for m in f.metadata if type(m).__name__ not in _BOUNDS]
        spec[n] = (Annotated[(ann, *kept)] if kept else ann, ... if n in required else f.default)
        if n == after:
            spec.update(fields or {})
    if after is None:
        spec.update(fields or {})
    bases = (base, GoSettings) if go else base
    return create_model(name, __base__=bases, __module__=__name__, __doc__=doc, **spec)


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


class CreateTournament(_TCmd, GoSettings):
    """Create a tournament. ``time_control`` is a PGN TimeControl tag (seconds), e.g. ``"300+2"``.

    ``system``: ``round-robin`` (Berger tables), ``double-round-robin`` or ``swiss`` (Dutch).
    ``tiebreaks``: FIDE codes in order (SB, BH, BH-C1, WIN, DE, ...); empty = the game's
    default, written into TournamentCreated (xiangqi art. 15.1 / 15.2 orders, else SB, WIN, DE). ``default_time_s``: a player
    absent this long after the start of the round loses by forfeit (0 = no limit).
    ``game``: chess or xiangqi; ``natural_limit_moves``: xiangqi's natural move limit (1999 rules
    art. 4.2.4: 60 moves without a capture, which an event may lower). ``chinese-swiss``: the
    积分编排制 of the xiangqi rules' appendix 2; ``mcmahon``: McMahon (Go), with the top bar
    ``mcmahon_bar`` and the bottom bar ``mcmahon_floor`` (grades; the bottom bar not above the top
    bar); ``lots_seed`` seeds every lot the pairing draws.
    ``knockout``: single elimination (xiangqi 1999 art. 11.1) with ``games_per_match`` games a
    match (13.5: a second game with colours swapped), ``seeding`` by rating, registration order
    or lot (seeded by ``lots_seed``), play-off games for a level match and ``unshared_places``
    decided by play-off (15.6; ``(3,)``: a match for third place); its rounds follow from the
    field and the play-offs (leave ``rounds`` out). ``team-round-robin``: teams (players
    registered with ``team``) meet by Berger tables, ``team_boards`` boards a match (art. 12-15).
    ``double-elimination``: 双败淘汰制 (art. 11.1), seeded and played like ``knockout``, out after
    two lost matches; ``grand_final_reset``: the grand final is replayed when the
    losers'-bracket player wins it (default; False: one grand final decides).
    ``team_format`` (art. 12): for a ``team-round-robin`` ``fixed`` (12.1, the default: boards by
    board order), ``reserves`` (12.2: line-ups keep the board order), ``per-match`` (12.3: any
    order) or ``all-play-all`` (12.4: every member of one team plays every member of the other,
    a match taking ``team_boards`` rounds); ``member-total`` (12.5) on an individual event with
    players registered in teams ranks the teams by their members' places (15.5).
    """

    name: str = Field(min_length=1, max_length=200)
    system: Literal["round-robin", "double-round-robin", "swiss", "chinese-swiss", "mcmahon",
                    "knockout", "team-round-robin", "double-elimination"] = "round-robin"
    rounds: int | None = Field(default=None, ge=1, le=99)
    time_control: str = "5400+30"
    tiebreaks: tuple[str, ...] = ()
    start_fen: str | None = None
    default_time_s: int = Field(default=3600, ge=0)
    game: GameKind = "chess"
    natural_limit_moves: int = Field(default=60, ge=1, le=60)
    repetition_rulings: RepetitionRulings = "automatic"
    lots_seed: int = 0
    mcmahon_bar: str | None = None
    mcmahon_floor: str | None = None
    games_per_match: int = Field(default=1, ge=1, le=2)
    seeding: Literal["rating", "registration", "lots"] = "rating"
    unshared_places: tuple[int, ...] = ()
    team_boards: int | None = Field(default=None, ge=1, le=20)
    grand_final_reset: bool = True
    team_format: Literal["fixed", "reserves", "per-match", "all-play-all", "member-total"] | None = None
    #: knockouts (art. 15.6: play-offs, or a rule fixed before the event): play-off games a level
    #: match may take (None: the default, 4; 0: none), then ``playoff_decider`` settles it:
    #: ``lots`` (drawn from ``lots_seed``) or ``higher-seed``.
    playoff_games: int | None = Field(default=None, ge=0, le=20)
    playoff_decider: Literal["lots", "higher-seed"] = "lots"
    #: Swiss systems: a player registered after round 1 (a late entry) scores the rounds he
    #: missed as zero-point byes ``Z`` (the default: TRF ``0000 - Z``, as unpaired) or, when the
    #: event's rules say so, half-point byes ``H``.
    late_entries: Literal["Z", "H"] = "Z"
    #: an imported FIDE TRF's header lines as written, in file order (``"042 28. 07. 2005"``,
    #: ``"XXC white1"``...; not the 001 player lines), written back by ``arbiter export trf``
    trf_headers: tuple[str, ...] = Field(default=(), max_length=200)
    #: the edition of the FIDE tie-break regulations (C.07) that ranks the event: ``fide2023``
    #: or ``fide2024`` (unplayed rounds, byes and dummy opponents, art. 16); left out, the
    #: edition in force on the day the event is created. Only for events ranked by FIDE's
    #: tie-breaks (not xiangqi's 1999 rules, McMahon or knockouts).
    tiebreak_edition: str | None = Field(default=None, max_length=20)
    #: Swiss (FIDE Dutch, C.04.3 E.5): the colour the first board's higher-ranked
    #: player gets in round 1 (the initial colour; TRF ``XXC white1``/``black1``).
    initial_colour: Literal["white", "black"] = "white"
    #: when a paired round's clocks start: ``auto`` at the pairing (RoundPaired; online events'
    #: custom, the default), or ``on-command``: pairings are published first and the games wait,
    #: moves refused (``not-started``), until the organiser or an arbiter of the event sends
    #: BeginRound (FIDE Laws 1994 art. 12.3: White's clock is started at the time set for the start)
    round_start: Literal["auto", "on-command"] = "auto"
    #: published: anyone reads the event, its games and feeds (a federation's public pages);
    #: False: only those its scope covers (the gateway's read scopes: organiser, arbiters,
    #: players and integrators of the event)
    public: bool = True


class RegisterPlayer(_TCmd):
    """Register a player (before round 1). ``rating``: Elo points; ``grade``: Go amateur grade of
    the Chinese dan/kyu system (``3d``/``3段``, ``5k``/``5级``), the McMahon seeding input;
    ``club``: for the same-club avoidance of the 积分编排制 (appendix 2, item 7). ``team``: the
    team of a team event (its name), ``board``: the member's place in the team's board order
    (1 = first board; left out, the order is by rating, art. 12.1)."""

    player_id: PlayerId
    name: str = Field(min_length=1, max_length=200)
    rating: int | None = Field(default=None, ge=0, le=4000)
    fide_id: str | None = None
    title: str | None = None
    grade: str | None = Field(default=None, max_length=8)
    club: str | None = Field(default=None, max_length=200)
    team: str | None = Field(default=None, min_length=1, max_length=200)
    board: int | None = Field(default=None, ge=1, le=99)
    #: from an imported FIDE TRF's 001 line, written back by ``arbiter export trf``: start
    #: number, sex (``m``/``f``), federation, birth date as written, and ``trf_cells``: the
    #: column-99 letter of each round (one character a round: the letter of a round without an
    #: opponent, ``' '`` a blank cell, ``'*'`` a round with an opponent, ``'/'`` one recorded
    #: without colours, as a forfeit may be)
    start_number: int | None = Field(default=None, ge=1, le=9999)
    sex: str | None = Field(default=None, max_length=3)
    federation: str | None = Field(default=None, max_length=3)
    birth_date: str | None = Field(default=None, max_length=10)
    trf_cells: str | None = Field(default=None, max_length=99)


class DrawLots(_TCmd):
    """Assign round-robin draw numbers (Berger table numbers, 1..n), one per registered player."""

    numbers: dict[str, int]


class ManualBoard(_M):
    white: PlayerId
    black: PlayerId


#: Byes a player asks for (FIDE TRF-16 letters): ``F`` full-point (1), ``H`` half-point (½),
#: ``Z`` zero-point (0). A pairing-allocated bye (``U``, one point in the Swiss systems) is ``bye``.
RequestedBye = Literal["F", "H", "Z"]


class StartRound(_TCmd):
    """Pair and start round ``round``. With ``boards`` the organiser's manual pairing is used;
    ``bye`` names a player without a game in a manual pairing (pairing-allocated bye);
    ``requested_byes``: players without a game and their bye's kind, in a manual pairing or in
    a round paired by a Swiss system (Dutch, 积分编排制, McMahon), which leaves them out.
    ``reason``: why the organiser paired the round by hand (recorded in RoundPaired; the
    organiser's pages ask for it with a manual pairing, the API leaves it optional)."""

    round: int = Field(ge=1, le=99)
    boards: tuple[ManualBoard, ...] | None = None
    bye: PlayerId | None = None
    requested_byes: dict[PlayerId, RequestedBye] = Field(default_factory=dict)
    reason: str = Field(default="", max_length=500)


class BeginRound(_TCmd):
    """Start round ``round`` of an event whose rounds start ``on-command``: its games' clocks
    start now (the command's receive time). Refused (``invalid``) for an event whose rounds
    start at the pairing, a round not paired, or a round already begun."""

    round: int = Field(ge=1, le=99)


class WithdrawPlayer(_TCmd):
    """A player leaves the event from round ``from_round`` on (a round not yet paired): the
    Swiss systems no longer pair him (xiangqi 1999 art. 20.4: his results stand); a round robin
    applies art. 20.3 (fewer than half of the opponents met: his results are annulled; else his
    remaining games are forfeit wins for the opponents)."""

    player_id: PlayerId
    from_round: int = Field(ge=1, le=99)
    reason: str = Field(default="", max_length=500)


#: A game's result as the standings count it: ``1-0``, ``0-1``, ``1/2-1/2`` played, ``+-`` /
#: ``-+`` won / lost by forfeit (xiangqi 1999 art. 21.4), ``--`` a double forfeit (21.3).
ResultCode = Literal["1-0", "0-1", "1/2-1/2", "+-", "-+", "--", "0-0"]  # 0-0 = -- (as RecordResult)


class CorrectResult(_TCmd):
    """An arbiter corrects the recorded result of a finished game of the tournament (a
    mistyped result), with the ``reason``. The log keeps the first result; the correction is a
    new event (ResultCorrected). Refused in a knockout once a later round is paired."""

    game_id: GameId
    result: ResultCode
    reason: str = Field(min_length=1, max_length=500)


class FinishTournament(_TCmd):
    """The event's organiser ends the tournament before its last round (an event that cannot go
    on: every player withdrawn, a Swiss nobody can pair, an event cut short), with the
    ``reason``; the rounds played stand. Refused while a game is running or when the event has
    finished."""

    reason: str = Field(min_length=1, max_length=500)


class SubmitLineup(_TCmd):
    """A team's line-up for the match it plays in ``round`` (xiangqi 1999 art. 12.2, 12.3):
    ``members`` in board order (board 1 first), as many as the event's ``team_boards``; sent
    before the round is paired. Without one the team plays its first members in board order."""

    team: str = Field(min_length=1, max_length=200)
    round: int = Field(ge=1, le=99)
    members: tuple[PlayerId, ...]


# ------------------------------------------------------------------------------ tournament events
class _TEvt(Payload):
    TOPIC = TOURNAMENT_EVENTS
    tournament_id: GameId


#: What the pairing service records of a CreateTournament it accepts: its settings, as declared
#: there (:func:`_recorded`); the pairing system, seeding, team format, play-off decider, late
#: entries and initial colour as strings, and the defaults it filled in given (``rounds`` None
#: for a system whose rounds follow from the field; ``playoff_games`` None in events recorded
#: before the bound: unbounded; ``tiebreak_edition`` None for an event ranked by other rules,
#: or recorded before events named it: the 2023 text; ``initial_colour`` white before it).
TournamentCreated = _recorded(
    "TournamentCreated", CreateTournament, _TEvt,
    loose=("system", "seeding", "team_format", "playoff_decider", "late_entries", "initial_colour",
           "round_start"),
    required=("system", "rounds", "time_control", "tiebreaks"))


#: The fields keep the order of the event's earlier hand-written declaration (the chains of the
#: logs already written hash the JSON in that order: ``after``).
PlayerRegistered = _recorded(
    "PlayerRegistered", RegisterPlayer, _TEvt, go=False, after="board",
    fields={"from_round": (int | None, None), "missed": (str | None, None)},
    doc="""A player registered: RegisterPlayer's fields (declared there, recorded without their
    bounds) and, for a late entry, ``from_round``: the first round the player can be paired in,
    and ``missed``: the bye letter of each round he missed (the event's ``late_entries``); both
    None for a player registered before round 1.""")


class PlayerWithdrawn(_TEvt):
    """A player withdrawn from round ``from_round`` on (WithdrawPlayer; art. 20.3 / 20.4)."""

    player_id: PlayerId
    from_round: int
    reason: str = ""


class ResultCorrected(_TEvt):
    """A game's result corrected by the arbiter (CorrectResult): ``previous`` and ``result``
    are result codes (:data:`ResultCode`), ``round`` the game's round. Standings are
    recomputed from it; the game's own stream keeps the result first recorded."""

    game_id: GameId
    round: int
    previous: str
    result: str
    reason: str


class LotsDrawn(_TEvt):
    numbers: dict[str, int]


class LineupSubmitted(_TEvt):
    """A team's line-up accepted for the match of ``round`` (board order, art. 12.2 / 12.3)."""

    team: str
    round: int
    members: tuple[PlayerId, ...]


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
    requested_byes: dict[PlayerId, RequestedBye] = Field(default_factory=dict)
    #: boards of a round robin's schedule not played because a player withdrew (art. 20.3):
    #: the opponent wins by forfeit unless the withdrawn player's results are annulled
    withdrawn_boards: tuple[ManualBoard, ...] = ()
    #: StartRound's ``reason``: why the round was paired by hand ("" for none given)
    reason: str = ""


class StandingRow(_M):
    rank: int
    player_id: PlayerId
    name: str
    score: float
    games: int
    tiebreaks: dict[str, float]


class TeamStandingRow(_M):
    """A team's standing (xiangqi 1999 art. 14.2, 15.3): ``match_points`` 场分 (2 a match won,
    1 drawn, 0 lost), ``game_points`` 局分 (1 / ½ / 0 a game), ``tiebreaks`` by code."""

    rank: int
    team: str
    match_points: float
    game_points: float
    matches: int
    tiebreaks: dict[str, float]


class StandingsUpdated(_TEvt):
    """Standings after ``round`` (all of its games finished). ``order``: tie-break codes used.
    A knockout's ``rank`` is the place (players out in the same round share it, art. 15.6 aside);
    a team event's ``teams`` are ranked by art. 15.3, ``rows`` are the members' own results."""

    round: int
    order: tuple[str, ...]
    rows: tuple[StandingRow, ...]
    teams: tuple[TeamStandingRow, ...] = ()
    #: the FIDE tie-break edition of the tie-breaks (TournamentCreated's; None: other rules)
    tiebreak_edition: str | None = None


class RoundBegun(_TEvt):
    """Round ``round`` started (BeginRound): ``game_ids`` are its games, each of which gets a
    StartPlay command on its own stream (``game-<id>.round``), so the clock starts in the
    game's own command order (DESIGN.md invariant 1)."""

    round: int
    game_ids: tuple[str, ...]


class TournamentFinished(_TEvt):
    """The last round is over; ``decisions``: what settled it after the last RoundPaired (a
    knockout match decided by lots or seed after its play-off games, art. 15.6)."""

    rounds: int
    decisions: tuple[str, ...] = ()


#: The codes of a TournamentCommandRejected the platform writes (pairing and standings, and a
#: decision too large for the log). On the wire the field stays a string, so that events of
#: older code keep parsing; :class:`TournamentCommandRejected` lists these in its schema.
TournamentRejectCode = Literal["invalid", "malformed", "already-exists", "no-such-tournament",
                               "closed", "running", "round-running", "decision-too-large"]


class TournamentCommandRejected(_TEvt):
    """A tournament command refused: nothing changed. ``code`` is machine-readable (see
    :data:`TournamentRejectCode`)."""

    command_id: str
    command_type: str
    code: str = Field(description="machine-readable: one of " + ", ".join(
        get_args(TournamentRejectCode)) + " (a string on the wire: events of older code keep theirs)")
    reason: str


#: The aggregate of identity facts (stream ``identity.commands.<gateway instance>``, Kafka
#: partition key ``identity``).
IDENTITY = "identity"


class RevokeToken(Payload):
    """A bearer token revoked before it expires (issue 12): written by the gateway that
    accepted the request (the administrator, the organiser of every event the token is scoped
    to, or the token's holder) on stream ``identity.commands.<instance>`` of topic
    ``arbiter.tournament.commands``; every gateway folds it into its read model and answers the
    token 401 ``token-revoked`` from then on. No service decides on it. ``jti``: the token's id
    claim; ``sub``/``role``: its principal when the token was shown (None: revoked by id
    alone); ``expires_at_s``: the token's ``exp`` (epoch s; by id alone, the longest lifetime
    from now), after which the revocation may be forgotten; ``reason`` why."""

    TOPIC = TOURNAMENT_COMMANDS
    KIND = "command"
    jti: str = Field(pattern=r"^[A-Za-z0-9_\-]{1,64}$")
    sub: str | None = Field(default=None, max_length=80)
    role: str | None = Field(default=None, max_length=20)
    expires_at_s: int = Field(ge=0)
    reason: str = Field(default="", max_length=500)


# ------------------------------------------------------------------------------------ webhooks
#: The aggregate of one webhook subscription: ``webhook-<subscription id>`` (streams
#: ``.commands.<gateway instance>``: the integrator's commands; ``.deliveries.<instance>``: the
#: delivery process's attempts). Topic ``arbiter.tournament.commands``, like RevokeToken: no
#: service decides on them; the gateway's read model and the delivery process fold them.
WEBHOOK = "webhook"
WebhookScope = Literal["game", "tournament", "all"]
WebhookId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_\-]{1,80}$")]


class RegisterWebhook(Payload):
    """An integrator's webhook subscription (issue 12 item 4), written by the gateway that
    accepted it; its actor is the owner. ``url``: http(s) target, no credentials in it;
    ``scope``: ``game`` (``scope_id`` a game id), ``tournament`` (``scope_id`` a tournament id:
    the event and every game it paired) or ``all`` (everything ``events`` covers: ``*`` every
    game and event); ``types``: the message types delivered. The signing secret is not on the
    log: it is derived from ``ARBITER_WEBHOOK_KEY`` and ``subscription_id``
    (:mod:`shared.webhooks`)."""

    TOPIC = TOURNAMENT_COMMANDS
    KIND = "command"
    subscription_id: WebhookId
    url: str = Field(min_length=1, max_length=2000)
    scope: WebhookScope
    scope_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_\-]{1,80}$")
    types: tuple[str, ...] = Field(min_length=1, max_length=200)
    events: tuple[str, ...] = Field(default=("*",), max_length=1000)


class RemoveWebhook(Payload):
    """A webhook subscription ended by its owner or the administrator: nothing more is delivered."""

    TOPIC = TOURNAMENT_COMMANDS
    KIND = "command"
    subscription_id: WebhookId


class EnableWebhook(Payload):
    """A failing webhook subscription (its delivery attempts used up) re-enabled by its owner or
    the administrator: the message it failed on is delivered again, from attempt 1."""

    TOPIC = TOURNAMENT_COMMANDS
    KIND = "command"
    subscription_id: WebhookId


class WebhookAttempted(Payload):
    """One delivery attempt of a message to a webhook (the delivery process, stream
    ``webhook-<id>.deliveries.<instance>``): ``message_id`` ``<stream>:<seq>`` of the message
    POSTed, ``delivery_id`` (the same for every attempt of that message to that subscription),
    ``attempt`` (1, 2, ...), ``status`` (the HTTP status; None: no answer, ``error`` says why),
    ``outcome``: ``delivered`` (2xx), ``retry`` (at ``next_retry_at_ms``, epoch ms) or
    ``failed`` (the attempts are used up: the subscription stops until re-enabled)."""

    TOPIC = TOURNAMENT_COMMANDS
    subscription_id: WebhookId
    delivery_id: str = Field(max_length=64)
    message_id: str = Field(max_length=220)
    message_type: str = Field(max_length=80)
    attempt: int = Field(ge=1)
    status: int | None = None
    error: str = Field(default="", max_length=500)
    outcome: Literal["delivered", "retry", "failed"]
    next_retry_at_ms: int | None = None


WEBHOOK_MESSAGES = ("RegisterWebhook", "RemoveWebhook", "EnableWebhook", "WebhookAttempted")


class RecordGameEvent(_TCmd):
    """A fact about one of the tournament's games, handed to the tournament's ordered input by
    the game processor (stream ``tournament-<id>.games``, written in the same step as the
    fact): a result (GameEnded), a replay game's start (GameStarted with ``replay_of``) or a
    penalty (PenaltyApplied). Pairing and standings read the games' facts only this way, so
    whether a round is complete is decided in the order of the tournament's own stream, not by
    which of two topics delivered first (DESIGN.md invariant 1). ``event``: the game event's
    envelope as JSON, unchanged (its ``event_id``, stream and seq)."""

    event: dict

    def event_envelope(self) -> Envelope:
        """The forwarded game event, typed."""
        return parse_message(self.event)


# ------------------------------------------------------------------------------------ game commands
class _GCmd(Payload):
    TOPIC = GAME_COMMANDS
    KIND = "command"
    game_id: GameId


class CreateGame(_GCmd, GoSettings):
    """Create a game outside a tournament (or for one). ``time_control``: PGN TimeControl tag or a
    preset name (``xiangqi-6.1`` ...). ``game``: chess or xiangqi (Red takes the ``white`` seat);
    ``natural_limit_moves``: xiangqi art. 4.2.4 (60, or fewer if the event says so)."""

    white: PlayerId
    black: PlayerId
    start_fen: str | None = None
    time_control: str = "300"
    tournament_id: str | None = None
    round: int | None = None
    board: int | None = None
    default_time_s: int = Field(default=3600, ge=0)
    game: GameKind = "chess"
    natural_limit_moves: int = Field(default=60, ge=1, le=60)
    repetition_rulings: RepetitionRulings = "automatic"
    #: ``auto``: the clock starts at creation; ``on-command``: the game waits, moves refused
    #: (``not-started``), until StartPlay (a round begun, or the organiser's or arbiter's
    #: ``POST /games/{id}/start``)
    clock_start: Literal["auto", "on-command"] = "auto"
    #: the bulk pairing that created the game (``POST /bulk-pairings``), None for another
    bulk_id: GameId | None = None


class StartPlay(_GCmd):
    """Start a waiting game (created with ``clock_start`` ``on-command``): play and its clock
    start at this command's receive time (PlayStarted, then ClockStarted). Sent by the
    tournament process for every game of a begun round (stream ``game-<id>.round``), or by the
    organiser or an arbiter for one game. Refused (``invalid``) for a game not waiting."""


class CheckClock(_GCmd):
    """The timer's command (DESIGN.md invariant 2): are any of this game's deadlines past at this
    command's event time? Published by the game processor's timer on stream
    ``game-<id>.timer`` when a flag deadline or a Go stone-removal limit passed (plus a grace for
    moves in flight); decided at its place in the game's command stream, like any command, so a
    move ordered before it is judged first and one ordered after it finds the flag fallen. The
    clock core answers FlagFell dated at the deadline (FIDE 1994 art. 10.14, xiangqi 1999 art.
    4.1.4, Go 1988 art. 23.5) or StoneRemovalExpired, and nothing when no deadline is past: a
    CheckClock sent twice, early or after the game ended changes nothing."""

    deadline_ms: int | None = Field(default=None, ge=0)


class SubmitMove(_GCmd):
    """A move. Chess: UCI (``e2e4``, ``e7e8q``) or SAN (``Nf3``, ``O-O``, ``exd8=Q+``). Xiangqi:
    ICCS (``h2e2``), WXF (``C2.5``) or Chinese notation (``炮二平五``, ``马８进７``). Go: GTP
    (``D4``, no letter I), SGF (``dd``) or ``pass``. ``notation`` (xiangqi only): read ``move``
    in that notation alone; ``uci`` is the engines' coordinates with ranks 1-10 (pyffish,
    Fairy-Stockfish: ``h3e3``). Without it xiangqi coordinates are ICCS (ranks 0-9)."""

    player_id: PlayerId
    move: str = Field(min_length=1, max_length=16)
    notation: Literal["iccs", "uci", "wxf", "chinese"] | None = None


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
    """An arbiter enters a result (over-the-board game, results-only record, ruling). Go: reason
    ``endless-cycle`` (triple ko, eternal life ...) with ``1/2-1/2`` is the draw of Chinese rules
    1988 art. 20.3."""

    result: Result
    reason: str = Field(default="arbiter", max_length=80)


GoPoints = Annotated[tuple[Annotated[str, Field(min_length=1, max_length=4)], ...],
                     Field(max_length=625)]


class MarkDead(_GCmd):
    """Go, after two passes stopped play (Japanese rules 1989 art. 9-1): a player proposes the
    dead stones (``dead``: points in GTP ``D4`` or SGF ``dd``, any stone of a dead group or every
    stone; the proposal is the whole groups). A new proposal replaces the player's earlier one."""

    player_id: PlayerId
    dead: GoPoints = ()


class AcceptDead(_GCmd):
    """Go: accept the opponent's standing dead-stone proposal; the game is then counted."""

    player_id: PlayerId


class RejectDead(_GCmd):
    """Go: reject the proposal (or ask to go on) after play stopped: play resumes and the
    opponent of the player who asked moves first (Japanese rules 1989 art. 9-3; Chinese rules
    1988 art. 21.1 / 21.3: a dispute about life and death is settled by play)."""

    player_id: PlayerId


class RuleDeadStones(_GCmd):
    """Go, arbiter only, after play stopped: the arbiter rules which stones are dead (GTP or
    SGF points) and why; the game is counted on that ruling."""

    dead: GoPoints = ()
    reason: str = Field(min_length=1, max_length=500)


class IssuePenalty(_GCmd):
    """An arbiter penalty (FIDE 1994 art. 16.5): warning, time penalty (``ms`` taken from the
    player's remaining time), time bonus for the opponent (``ms`` added), or loss of the game.
    Xiangqi (1999 rules): ``warning`` (18.1), ``foul`` (犯规, art. 9; the third foul in a game loses
    it, 4.1.8), ``loss`` (disqualification from the game, 18.2 / 4.1.10). Go (Chinese rules 1988
    ch. 3): ``warning`` (recorded; the second in a game loses it, 25.2), ``played-twice`` (a
    player moved twice in a row over the board: loses, 17.1)."""

    player_id: PlayerId
    kind: Literal["warning", "time-penalty", "time-bonus", "loss", "foul", "played-twice"]
    ms: int = Field(default=0, ge=0, le=24 * 3600 * 1000)
    note: str = Field(default="", max_length=500)


class ReportAbsence(_GCmd):
    """An arbiter reports that ``player_id`` has not arrived; forfeits if past the default time.
    ``both``: the opponent has not arrived either (xiangqi 1999 art. 21.3: both past the limit
    forfeit both, result ``0-0``)."""

    player_id: PlayerId
    both: bool = False


class ReportArrival(_GCmd):
    """An arbiter reports that ``player_id``, late, has arrived (at the command's receive time).
    Go (Chinese rules 1988 art. 23.1-23.3): past the event's limit (``default_time_s``) the
    player loses by default; within it the late time not already run off the player's own clock
    is deducted from it."""

    player_id: PlayerId


class PauseClock(_GCmd):
    """Arbiter only: pause the running clock (FIDE Laws 1994 art. 12.5, 2023 art. 6.11.1: when
    the game must be interrupted the arbiter stops the clocks), for any game and clock type.
    The clock stands still from the command's receive time; moves are refused (``clock-paused``)
    until ResumeClock. ``reason``: why, recorded in ClockPaused."""

    reason: str = Field(min_length=1, max_length=500)


class ResumeClock(_GCmd):
    """Arbiter only: restart a clock paused by PauseClock (FIDE 2023 art. 6.11.3: the arbiter
    decides when the game restarts); it goes on exactly as it stood at the pause."""

    reason: str = Field(min_length=1, max_length=500)


#: An arbiter's ruling on an endless cycle in Go: ``draw`` or ``replay`` (Chinese rules 1988
#: art. 20.3: triple ko, eternal life ... 可判和棋或者重下), ``no-result`` (Japanese rules 1989
#: art. 12, 无胜负: both players agree; Japanese-rules games only).
CycleRuling = Literal["draw", "no-result", "replay"]


class RuleEndlessCycle(_GCmd):
    """Go, arbiter only, once adjudication has reported an endless cycle (EndlessCycleFound):
    the ruling and its reason. ``draw``: 1/2-1/2; ``no-result``: 0-0, neither scores;
    ``replay``: 0-0 and a new game between the same players with the same colours and settings."""

    ruling: CycleRuling
    reason: str = Field(min_length=1, max_length=500)


# -------------------------------------------------------------------------------------- game events
class _GEvt(Payload):
    TOPIC = GAME_EVENTS
    game_id: GameId


#: A game starts: the settings of its CreateGame (or of its event's RoundPaired board), as
#: declared on CreateGame (:func:`_recorded`), resolved: ``start_fen`` the position (Go: the
#: engine's one-line position, ``go 9 chinese black ...``), ``time_control`` given; Go's size,
#: rules, komi, handicap and, since the stone-removal limit was added, ``stone_removal_s`` all
#: given (None in older records = the default); ``replay_of``: the game this one replays (Go,
#: 1988 art. 20.3).
GameStarted = _recorded(
    "GameStarted", CreateGame, _GEvt, required=("time_control",),
    loose=("clock_start",),
    fields={"start_fen": (str, ...), "replay_of": (str | None, None)},
    doc="""A game starts. Go: ``start_fen`` is the engine's one-line position (``go 9 chinese black
    ...``) and the settings are resolved (size, rules, komi, handicap and, since the stone-removal
    limit was added, ``stone_removal_s`` all given; None in older records = the default).""")


#: ``scoring``: Go, two passes in a row stopped play (Japanese rules 1989 art. 9-1); the dead
#: stones are agreed (or ruled) next, or play resumes.
PositionStatus = Literal[
    "ongoing", "checkmate", "stalemate", "insufficient-material",
    "fivefold-repetition", "seventyfive-moves", "scoring", "dead-position",
]


class VoidMove(_M):
    """A Go move that was void and counted as a pass (Chinese rules 1988 art. 19: a forbidden
    point; 20.1: an immediate ko recapture): ``move`` as entered, ``reason`` and the ``rule``."""

    move: str
    reason: str
    rule: Rule


class MoveAccepted(_GEvt):
    """A legal move. ``occurred_at`` is the gateway's receive time. ``status`` is the position
    after the move as the rules see it without a claim (terminal or ongoing). ``uci``: the
    coordinate move (chess UCI; xiangqi ICCS ``h2e2``, ranks 0-9 from Red's side); ``san``: the
    human notation (chess SAN; xiangqi Chinese notation of the 1999 rules art. 7.5, ``炮二平五``);
    ``wxf``: xiangqi WXF notation (``C2.5``). ``halfmove_clock``: plies since the last capture
    (or chess pawn move); ``repetitions``: occurrences of the position so far. Go: ``uci`` and
    ``san`` are the GTP point (``D4``) or ``pass``, ``halfmove_clock`` the stones captured by the
    move, ``void`` set when a void move was counted as a pass (``uci`` is then ``pass``)."""

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
    void: VoidMove | None = None


RejectCode = Literal[
    "not-your-turn", "illegal", "game-over", "malformed", "not-a-player", "flag-fallen",
    "no-such-game", "no-draw-offer", "draw-offer-pending", "already-exists", "invalid",
    "ruling-pending", "play-stopped", "not-scoring", "counting", "stone-removal-timeout",
    "decision-too-large", "clock-paused", "not-started",
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
    score: str | None = None


class DeadStonesProposed(_GEvt):
    """Go: ``player_id`` (``colour``) proposes ``dead``: every stone of the groups named, as GTP
    points, sorted; ``ply``: moves played so far."""

    player_id: PlayerId
    colour: Colour
    dead: tuple[str, ...]
    ply: int


class ScoringAgreed(_GEvt):
    """Go: both players agree on the dead stones (Japanese rules 1989 art. 9-2 终局; Chinese
    rules 1988 art. 8, 21.3): ``player_id`` accepted the proposal of ``proposed_by``."""

    player_id: PlayerId
    colour: Colour
    proposed_by: Colour
    dead: tuple[str, ...]
    rule: Rule


class PlayResumed(_GEvt):
    """Go: ``player_id`` (``colour``) rejected the proposal / asked to play on; ``to_move`` moves
    first (the opponent, Japanese rules 1989 art. 9-3; Chinese 1988 art. 21.3). When the asker
    was to move, the asker's yielded turn follows as a recorded pass (MoveAccepted ``pass``)
    that does not count towards the two passes that stop play."""

    player_id: PlayerId
    colour: Colour
    to_move: Colour
    rule: Rule


class DeadStonesRuled(_GEvt):
    """Go: the arbiter's ruling on the dead stones (GTP points, whole groups) and its reason."""

    dead: tuple[str, ...]
    reason: str
    rule: Rule


class GameScored(_GEvt):
    """Go: the count (adjudication). ``black`` / ``white``: points (komi included); ``result``
    ``B+3.5`` / ``W+0.5`` / ``Draw``; ``how``: ``agreement``, ``arbiter``,
    ``stone-removal-timeout`` (an unanswered proposal stood, :class:`StoneRemovalExpired`) or
    ``rules`` (the rules take no dead stones off: Tromp-Taylor rule 9); ``dead`` the stones
    removed; ``rule`` the counting articles; ``detail``: the scorer's counts, flattened to
    ``<item>`` / ``<item>.<colour>`` keys (stones, territory, dame, seki points, prisoners, dead
    stones per colour; in points or stones as the item says)."""

    black: float
    white: float
    result: str
    margin: float
    komi: float
    how: Literal["agreement", "arbiter", "stone-removal-timeout", "rules"]
    dead: tuple[str, ...]
    rule: Rule
    detail: dict[str, float] = {}


class ArbiterCalled(_GEvt):
    """Go: a decision only the arbiter can now make; the game stays open for it (RecordResult,
    RuleDeadStones). ``reason``: ``count-failed`` (adjudication could not count the agreed or
    ruled dead stones, ``detail`` says why; play stays stopped and the dead stones may be
    settled again) or ``stone-removal-timeout`` (the stone-removal time ran out with no
    proposal standing; Chinese rules 1988 art. 16.4 / 25.1: the arbiter rules). ``rule``: the
    article the arbiter is asked to apply."""

    reason: Literal["count-failed", "stone-removal-timeout"]
    detail: str = Field(default="", max_length=500)
    rule: Rule | None = None


class StoneRemovalExpired(_GEvt):
    """Go (clock service): the stone-removal time ran out at ``deadline_ms`` (epoch ms; the
    event's time) -- ``limit_s`` seconds after play stopped or after the latest dead-stone
    proposal -- with no agreement, resumption or ruling; ``observed_ms`` the timer tick that saw
    it. ``proposed_by`` / ``dead``: the latest proposal, unanswered, which now stands
    (adjudication counts on it, GameScored ``how="stone-removal-timeout"``); both None when no
    proposal stands (adjudication calls the arbiter, ArbiterCalled ``stone-removal-timeout``).
    ``rule``: the platform rule (no Go rule text sets a time for settling the dead stones; the
    limit is the platform's, for online play, as OGS's stone-removal timer)."""

    deadline_ms: int
    observed_ms: int
    limit_s: int
    proposed_by: Colour | None = None
    dead: tuple[str, ...] | None = None
    rule: Rule


class AbsenceReported(_GEvt):
    player_id: PlayerId
    colour: Colour
    both: bool = False


class ArrivalReported(_GEvt):
    """A late player arrived: ``late_ms`` after the game's start (ms); ``limit_ms`` the event's
    limit (``default_time_s`` x 1000; 0 = none). Past the limit the penalties service forfeits
    the player (Go 1988 art. 23.1), or both players when the opponent has neither moved nor
    arrived (23.2, a double forfeit 0-0); within it the clock deducts the late time (23.3)."""

    player_id: PlayerId
    colour: Colour
    late_ms: int
    limit_ms: int


class EndlessCycleFound(_GEvt):
    """Go (adjudication): the whole-board position after ply ``ply`` has occurred
    ``occurrences`` times with the same player to move and stones were taken on the way (triple
    ko, eternal life ...): an endless cycle of ``length`` plies in which black took
    ``captured_black`` and white ``captured_white`` stones. The arbiter's ruling is due (Chinese
    rules 1988 art. 20.3: a draw or a replay; Japanese 1989 art. 12: no result); play goes on
    meanwhile."""

    ply: int
    occurrences: int
    length: int
    captured_black: int
    captured_white: int
    rule: Rule


class EndlessCycleRuled(_GEvt):
    """Go: the arbiter's ruling on an endless cycle (validation): ``ruling`` and ``reason``; for a
    replay, ``replay_game_id`` the new game (its GameStarted follows)."""

    ruling: CycleRuling
    reason: str
    rule: Rule
    replay_game_id: str | None = None


class PlayStarted(_GEvt):
    """A waiting game (GameStarted ``clock_start`` ``on-command``) starts: moves are taken and
    the clock of the side to move runs from this event (StartPlay)."""


class ClockStarted(_GEvt):
    """The game's clock starts: ``running`` side's time runs from ``occurred_at``. ``resumed``:
    a clock paused while play was stopped runs again (Go: play resumed, Japanese 1989 art. 9-3)."""

    time_control: str
    white_ms: int
    black_ms: int
    running: Colour
    deadline_ms: int | None = None
    resumed: bool = False


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
    rule: Rule | None = None  # the article of a rule's change (Go lateness: 1988 art. 23.3)


class ClockPaused(_GEvt):
    """The arbiter paused the clock (PauseClock): ``running``'s clock stands still from
    ``occurred_at``; ``white_ms`` / ``black_ms`` are the main times shown at the pause (ms); no
    flag falls and no move is accepted until ClockResumed."""

    running: Colour
    white_ms: int
    black_ms: int
    reason: str
    rule: Rule | None = None


class ClockResumed(_GEvt):
    """The arbiter restarted a paused clock (ResumeClock): ``running``'s clock runs again from
    ``occurred_at`` as it stood at the pause, ``paused_ms`` later; ``deadline_ms``: when its flag
    now falls."""

    running: Colour
    white_ms: int
    black_ms: int
    deadline_ms: int
    paused_ms: int
    reason: str
    rule: Rule | None = None


class ClockStopped(_GEvt):
    """The clocks stop: the game is over, or (``paused``) Go play stopped after two passes
    (Japanese rules 1989 art. 9-1): no clock runs while the dead stones are settled."""

    white_ms: int
    black_ms: int
    paused: bool = False


class GameEnded(_GEvt):
    """The result and why: ``reason`` (checkmate, resignation, timeout, ...) and the ``rule``.
    Go: ``score`` is the counted result (``B+3.5``, ``Draw``) when the game was counted."""

    result: Result
    reason: str
    rule: Rule
    winner: Colour | None = None
    detail: str = ""
    score: str | None = None


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
    chased or threatened; ``note``: why; ``article``: the articles that decided the
    classification, e.g. ``"28.3, 29"`` (a chase), ``"29.2"`` (idle: the threat existed before the
    move, 从捉到捉), ``"29.4"``, ``"27.1"``-``"27.3"``, ``"28.9"`` (idle: no threat at all)."""

    move: str
    side: Colour
    classification: Literal["check", "mate-threat", "chase", "idle"]
    targets: tuple[str, ...] = ()
    note: str = ""
    article: str = ""


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


class StreamHead(BaseModel):
    """One stream's head as a checkpoint attests it: the ``chain`` of its message ``seq``."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    stream: str = Field(min_length=1, max_length=200)
    seq: int = Field(ge=1)
    chain: str = Field(pattern=r"^[0-9a-f]{64}$")


class StreamsCheckpointed(Payload):
    """A signed checkpoint of one aggregate's streams (envelope stream
    ``<aggregate>.checkpoints``; its seq counts the signer's checkpoints and may repeat after a
    restore: it is an attestation, not a decision, and the audit does not re-derive it).
    ``heads``: the heads of the aggregate's streams the signing process wrote or consumed since
    its previous checkpoint; ``key_id``: the first 16 hex digits of SHA-256 of the raw Ed25519
    public key; ``signature``: Ed25519 (RFC 8032) over :func:`shared.chain.signed_bytes`, hex.
    The audit verifies it only with a public key it was given, never one found in the log."""

    TOPIC = CHECKPOINTS
    key_id: str = Field(pattern=r"^[0-9a-f]{16}$")
    heads: tuple[StreamHead, ...] = Field(min_length=1, max_length=10_000)
    signature: str = Field(pattern=r"^[0-9a-f]{128}$")


PAYLOADS: tuple[type[Payload], ...] = (
    CreateTournament, RegisterPlayer, DrawLots, StartRound,
    TournamentCreated, PlayerRegistered, LotsDrawn, RoundPaired, StandingsUpdated,
    TournamentFinished, TournamentCommandRejected, SubmitLineup, LineupSubmitted,
    WithdrawPlayer, CorrectResult, PlayerWithdrawn, ResultCorrected, FinishTournament,
    RecordGameEvent, RevokeToken, RegisterWebhook, RemoveWebhook, EnableWebhook, WebhookAttempted,
    CreateGame, SubmitMove, CheckClock, Resign, OfferDraw, AcceptDraw, DeclineDraw, ClaimDraw, RecordResult,
    IssuePenalty, ReportAbsence, MarkDead, AcceptDead, RejectDead, RuleDeadStones,
    GameStarted, MoveAccepted, MoveRejected, GameCommandRejected, DrawOffered, DrawOfferDeclined,
    DrawAgreed, Resigned, DrawClaimed, ResultRecorded, AbsenceReported, ClockStarted,
    ClockUpdated, FlagFell, ClockAdjusted, ClockStopped, GameEnded, DrawClaimRejected,
    PenaltyApplied, RepetitionRuled, DeadStonesProposed, ScoringAgreed, PlayResumed,
    DeadStonesRuled, GameScored, ReportArrival, RuleEndlessCycle, ArrivalReported,
    EndlessCycleFound, EndlessCycleRuled, ArbiterCalled, StoneRemovalExpired,
    PauseClock, ResumeClock, ClockPaused, ClockResumed, StreamsCheckpointed,
    BeginRound, RoundBegun, StartPlay, PlayStarted,
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
