"""Pure chess-clock core: time controls, presses, delays, increments, flags.

No I/O, no wall clock, no randomness.  Every instant comes in as an argument in integer
**epoch milliseconds** and every duration in integer **milliseconds**; all arithmetic is on
integers, so nothing is ever rounded (PGN seconds are converted exactly, see
:meth:`TimeControl.parse`).  The same presses always give the same readings, so a
``ClockUpdated`` / ``FlagFell`` event can be re-derived from the events before it.

Sources
-------
* FIDE Laws of Chess 1994 (Chinese text, ``shared/rules/chess-fide-laws-1994-zh.txt``):
  art. 12.1 (a set number of moves in a set time; time saved in one period is carried into the
  next), 12.2 (the flag shows that the time is up), 12.3 (White's clock is started at the
  start; after moving, a player stops his own clock and starts the opponent's), 6.5 (for the
  move count of a period, the last move is complete only once the clock is pressed), 10.14
  (failing to make the set moves in the set time loses, except against a bare king),
  10.13(2) and 16.5 (arbiter time penalties), 12.7 (resignation / agreed draw stands even if
  a flag is then found to have fallen).
* Current FIDE Laws of Chess, art. 6: 6.2.1 (pressing the clock), 6.3.1 (moves in an allotted
  period "including any additional amount of time with each move": the Fischer increment,
  which therefore also applies to move 1), 6.3.2 (time saved carries over; time-delay mode:
  the main thinking time only starts to run after the fixed extra time has expired), 6.6.1
  (White's clock is started), 6.9 (loss on time), 12.9 (penalties: reducing the offender's
  time / increasing the opponent's).
* US Chess rules (rule 5, time controls): "simple" (US) delay as in FIDE 6.3.2, and the
  Bronstein delay: the clock runs from the first millisecond and after the move the time used,
  up to the delay, is added back, so the main time never rises above its pre-move value.
  US Chess also defines a "repeating" time control: when the last period has a move count it
  repeats until the game ends (that is what this module does).
* PGN standard, section 9.6 (TimeControl tag; values in **seconds**).

Decisions
---------
* **On-deadline rule**: a move received at exactly the deadline is ON time (the player's main
  time is then exactly 0 before the increment).  A move received 1 ms later raises
  :class:`FlagAlreadyFell`.  :func:`check_flag` likewise reports a flag only when
  ``now_ms > deadline`` -- except for a player with no time at all when the clock starts
  running (it moved exactly at its deadline with no increment, delay or overtime to come, or
  was paused exactly at it): its deadline is that very instant and has passed (FIDE 6.9: the
  allotted time is used up), so no move of it is on time, not even one in the same ms, and
  its flag is reported from that instant.
* **Pause** (:func:`pause` / :func:`resume`; FIDE 1994 art. 12.5, 2023 art. 6.11.1 and 6.11.3:
  the arbiter stops the clocks when the game must be interrupted and decides when it
  restarts): the running clock stands still from the pause to the resumption, which moves the
  running player's turn start on by the length of the pause.  Everything else -- the part of
  a delay already used, the time into a byo-yomi period, periods and Canadian stones left,
  increments -- is carried across exactly as it stood.
* **Increment timing**: Fischer increment is credited *before each move* (FIDE 6.3.1, US
  Chess): once at :func:`start` for the first move and then at every press for the mover's
  next move.  So "3+2" shows 3:02 when the game starts, and over moves 1..40 of
  ``40/5400+30`` a player has 5400 s + 40 x 30 s.  The increment credited at a press is that of
  the period the mover's *next* move belongs to.
* **Delay**: simple delay -> the first ``delay_ms`` of each move are free and the deadline is
  ``turn start + delay + remaining``.  Bronstein -> the main time runs at once, so the
  deadline is ``turn start + remaining`` (the delay does not protect the flag), and after a
  completed move ``min(elapsed, delay)`` is added back.  Both charge a completed move
  ``max(0, elapsed - delay)``; they differ only at the flag and in what the display shows.
* **Periods**: when a player completes the moves of a period (counted at the press, 1994
  art. 6.5), the next period's ``base_ms`` is added to whatever time is left (1994 art. 12.1).
  If the last period has a move count, it repeats.
* **Untimed**: ``TimeControl.parse("-")`` returns ``None``; ``"?"`` (unknown) and the sandclock
  form ``"*180"`` raise :class:`ClockError`.
* **Adjustments**: :func:`adjust` leaving a clock at ``<= 0`` ms makes that flag fall at once.

Go overtime (one clock core for all three games)
-----------------------------------------------
A :class:`TimeControl` may end in an :class:`Overtime` that starts when the (single, sudden
death, increment- and delay-free) main time is used up:

* **Japanese byo-yomi** ``"3600 5x30 byo-yomi"`` (the SGF ``OT`` convention with the main time
  in front): N periods of S seconds.  A move completed within a period keeps it (a move of
  exactly S is within it: on-deadline rule); each period overrun is used up and the next one
  starts; overrunning the last loses.  A move of ``o`` ms past the main time uses
  ``(o - 1) // S`` periods: 5x30, 29.9 s -> 5 left, 30 s -> 5, 31 s -> 4, 61 s -> 3.
* **Canadian overtime** ``"600 25/600 Canadian"``: after the main time, N moves in T seconds
  (a block); when the N moves are made a new block of N moves in T starts (unused block time
  is lost).  The move during which the main time runs out is the block's first move and its
  time past the main time is charged to the block.
* **Chinese 1988 rules art. 12.2 (读秒)** ``"10800 reserve 5"``: the first number is the time
  limit (时限, art. 12.1), of which N whole minutes are kept (保留) for 读秒: "在时限内保留几分钟
  开始读秒", so the main time is ``limit - N min``.  Once it is used up, "凡一步棋用时不足一分钟的
  不计时间。每满一分钟则在保留时间内扣除一分钟，但不得用完规定时间": a move under a full minute costs
  nothing, each full minute (``o // 60 000`` of the ``o`` ms past the main time) takes one
  minute from the reserve, and completing the last reserved minute is a time-out ("10，超时判负";
  art. 23.5 "对局者用时（包括读秒）超过时限，一律判负").  The deadline -- as everywhere here the
  last on-time millisecond -- is therefore 1 ms before the reserve's last full minute ends.
  Art. 23.4 (capturing stones costs no time during 读秒) has no online counterpart: removal
  is automatic.

Absolute time (``"3600"``) and Fischer (``"600+10"``) serve Go unchanged; Black moves first
with ``start(tc, at_ms, first="black")``.  Lateness (Go 1988 art. 23.1-23.3, xiangqi 1999
21.1): see :func:`lateness`.

Errors: every bad input raises :class:`ClockError` (a ``ValueError``); a move after the deadline
raises :class:`FlagAlreadyFell` (a :class:`ClockError`) carrying the deadline.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Literal

from shared.domain.timecontrol import (  # the values this clock runs (re-exported: its API)
    COLOURS, MINUTE_MS, PRESETS, ClockError, Colour, DelayMode, Overtime, Period, TimeControl,
    check_ms as _check_int, from_sgf, pgn_tag,
)

__all__ = [
    "Colour",
    "DelayMode",
    "COLOURS",
    "PRESETS",
    "ClockError",
    "FlagAlreadyFell",
    "Period",
    "Overtime",
    "TimeControl",
    "SideClock",
    "ClockState",
    "Reading",
    "start",
    "press",
    "pause",
    "resume",
    "deadline",
    "check_flag",
    "flag",
    "stop",
    "adjust",
    "remaining_at",
    "pgn_tag",
    "from_sgf",
    "lateness",
    "overtime_left",
]


# --------------------------------------------------------------------------------------- errors
class FlagAlreadyFell(ClockError):
    """A move was received after the mover's flag fell (FIDE 1994 art. 10.14, FIDE 6.9).

    Attributes: ``colour`` (the mover), ``deadline_ms`` (epoch ms at which the flag fell),
    ``at_ms`` (epoch ms at which the move was received, ``> deadline_ms``, or ``==`` when the
    mover had no time at all when its clock started).  The move cannot be
    made; the caller should record the flag fall at ``deadline_ms`` (see :func:`flag`).
    """

    def __init__(self, colour: Colour, deadline_ms: int, at_ms: int) -> None:
        self.colour = colour
        self.deadline_ms = deadline_ms
        self.at_ms = at_ms
        late = (f"is {at_ms - deadline_ms} ms late" if at_ms > deadline_ms else
                "is too late: no time was left when the clock started")
        super().__init__(f"{colour}'s flag fell at {deadline_ms} ms; move received at {at_ms} ms {late}")


# ------------------------------------------------------------------------------------- helpers
def _check_colour(name: str, value: object) -> Colour:
    if value not in COLOURS:
        raise ClockError(f"{name} must be 'white' or 'black', got {value!r}")
    return value  # type: ignore[return-value]


def _other(colour: Colour) -> Colour:
    return "black" if colour == "white" else "white"


# ------------------------------------------------------------------------------ time controls

# ------------------------------------------------------------------------------------ state
@dataclass(frozen=True)
class SideClock:
    """One player's clock.  Immutable.

    * ``remaining_ms``: main time left, ms.  For the *running* player this is the value at
      ``ClockState.turn_started_at`` (time since then is not yet charged; see
      :func:`remaining_at`).  May be ``<= 0`` only on a flagged clock.
    * ``moves_made``: moves completed (clock presses) in the game.
    * ``period_index``: index into ``TimeControl.periods`` of the period the next move is in.
    * ``period_moves``: moves completed in the current period (for repeating periods).
    * Go overtime (see :class:`Overtime`; defaults for controls without it):
      ``in_overtime``: the main time is used up; ``periods_left``: byo-yomi periods left, or
      the 1988 art. 12.2 reserve minutes left (``None`` for other kinds); ``moves_left``:
      Canadian moves still to make in the current block (``None`` while in main time).  In a
      Canadian block ``remaining_ms`` is the time left in the block.
    """

    remaining_ms: int
    moves_made: int = 0
    period_index: int = 0
    period_moves: int = 0
    in_overtime: bool = False
    periods_left: int | None = None
    moves_left: int | None = None


@dataclass(frozen=True)
class ClockState:
    """The whole clock.  Immutable; every operation returns a new state.

    * ``white`` / ``black``: :class:`SideClock` per colour (see :meth:`side`).
    * ``running``: colour whose clock runs, or ``None`` (stopped or flagged).
    * ``turn_started_at``: epoch ms at which the running clock was started, else ``None``.
    * ``turn_delay`` / ``turn_delay_ms``: delay kind and length for the running player's
      current move (from that player's current period), so :func:`stop` and
      :func:`remaining_at` need no time control.
    * ``flagged``: colour whose flag fell, or ``None``; ``flagged_at``: epoch ms the flag fell
      (``None`` when it fell through an :func:`adjust` given no ``at_ms``).
    * ``overtime``: the time control's Go :class:`Overtime` (or ``None``), kept here like the
      delay so that :func:`stop`, :func:`adjust` and :func:`remaining_at` need no time control.
    * ``paused_at``: epoch ms at which the arbiter paused the running clock (:func:`pause`), or
      ``None``; ``resumed_at``: epoch ms of the latest :func:`resume` in this turn, or ``None``
      (``turn_started_at`` is then the turn start moved on by the pauses).
    """

    white: SideClock
    black: SideClock
    running: Colour | None
    turn_started_at: int | None
    turn_delay: DelayMode = "none"
    turn_delay_ms: int = 0
    flagged: Colour | None = None
    flagged_at: int | None = None
    overtime: Overtime | None = None
    paused_at: int | None = None
    resumed_at: int | None = None

    def side(self, colour: Colour) -> SideClock:
        """The :class:`SideClock` of ``colour`` ('white' or 'black'); ClockError otherwise."""
        return self.white if _check_colour("colour", colour) == "white" else self.black

    def _with_side(self, colour: Colour, side: SideClock) -> ClockState:
        return replace(self, **{colour: side})


@dataclass(frozen=True)
class Reading:
    """What one press produced -- everything a ``ClockUpdated`` event needs.  All ms.

    * ``mover``: who pressed; ``at_ms``: epoch ms the move was received.
    * ``ply``: presses so far in the game (both colours); ``moves_made``: the mover's moves.
    * ``elapsed_ms``: wall time of the move (``at_ms - turn start``).
    * ``charged_ms``: main time the move cost net (``max(0, elapsed - delay)``; ``elapsed``
      without delay).
    * ``delay_credit_ms``: ``min(elapsed, delay)``: free (simple) or added back (Bronstein).
    * ``increment_ms``: Fischer increment credited for the mover's next move.
    * ``period_bonus_ms``: base time of a new period credited because the mover completed a
      period with this move (0 otherwise); ``period_index``: the mover's period after the move.
    * ``white_ms`` / ``black_ms``: remaining times after the press (the new running player's
      value is at ``at_ms``, i.e. full).
    * ``running``: the colour now running; ``deadline_ms``: epoch ms its flag falls.
    * Go overtime, per colour (``None`` when the control has no such count):
      ``white_periods_left`` / ``black_periods_left``: byo-yomi periods or 1988 art. 12.2
      reserve minutes left; ``white_moves_left`` / ``black_moves_left``: Canadian moves still
      to make in the current block (``None`` while in main time).  A side is in byo-yomi /
      读秒 when its ``*_ms`` main time is 0, in a Canadian block when ``*_moves_left`` is set
      (its ``*_ms`` is then the time left in the block).
    """

    mover: Colour
    at_ms: int
    ply: int
    moves_made: int
    elapsed_ms: int
    charged_ms: int
    delay_credit_ms: int
    increment_ms: int
    period_bonus_ms: int
    period_index: int
    white_ms: int
    black_ms: int
    running: Colour
    deadline_ms: int
    white_periods_left: int | None = None
    black_periods_left: int | None = None
    white_moves_left: int | None = None
    black_moves_left: int | None = None

    def as_dict(self) -> dict:
        """Plain dict of all fields (for event payloads)."""
        return asdict(self)


# -------------------------------------------------------------------------------- operations
def start(tc: TimeControl, at_ms: int, first: Colour = "white") -> ClockState:
    """Start the game clock: ``first``'s clock runs from ``at_ms`` (epoch ms).

    Each player gets the first period's ``base_ms`` plus its Fischer increment for move 1
    (FIDE 6.3.1; 1994 art. 12.3 / FIDE 6.6.1: White's clock is started at the start time).
    Raises :class:`ClockError` if ``tc`` is not a TimeControl (pass ``None``-checks upstream:
    untimed games have no clock), ``at_ms`` is not an int or ``first`` is not a colour.
    """
    if not isinstance(tc, TimeControl):
        raise ClockError(f"start needs a TimeControl, got {tc!r} (untimed games have no clock)")
    _check_int("at_ms", at_ms)
    _check_colour("first", first)
    p0 = tc.periods[0]
    side = SideClock(remaining_ms=p0.base_ms + p0.increment_ms)
    if tc.overtime is not None:
        ot = tc.overtime
        side = replace(side, periods_left=None if ot.kind == "canadian" else ot.count)
        if side.remaining_ms == 0:  # overtime only ("0 3x30 byo-yomi")
            side = _enter_overtime(side, ot)
    return ClockState(
        white=side,
        black=side,
        running=first,
        turn_started_at=at_ms,
        turn_delay=p0.delay,
        turn_delay_ms=p0.delay_ms,
        overtime=tc.overtime,
    )


def _enter_overtime(side: SideClock, ot: Overtime) -> SideClock:
    """``side`` with its main time exactly used up: in overtime (Canadian: a fresh block)."""
    if ot.kind == "canadian":
        return replace(side, remaining_ms=ot.length_ms, in_overtime=True, moves_left=ot.count)
    return replace(side, remaining_ms=0, in_overtime=True)


def _allowance(side: SideClock, ot: Overtime | None) -> int:
    """Overtime ms ``side`` may still use on its current move beyond ``remaining_ms``
    (inclusive: a move at ``remaining_ms + allowance`` is on time)."""
    if ot is None:
        return 0
    if ot.kind == "byo-yomi":
        return (side.periods_left or 0) * ot.length_ms
    if ot.kind == "canadian":
        return 0 if side.in_overtime else ot.length_ms
    # 1988 art. 12.2: completing the last reserved minute is a time-out, so 1 ms before it
    return (side.periods_left or 0) * MINUTE_MS - 1


def _consume(side: SideClock, ot: Overtime, used_ms: int, move: bool) -> SideClock | None:
    """``side`` after ``used_ms`` of its time is used (``move``: a move completed with it, so
    it counts in a Canadian block); ``None`` if that is more than it has (out of time).

    Main time first; past it, byo-yomi uses ``(over - 1) // S`` periods for a move (a move
    within a period, up to exactly S, keeps it) and ``over // S`` for time removed without a
    move (a deduction of 60 s takes two 30 s periods), Canadian charges the block, the 1988
    reserve loses ``over // 60 000`` whole minutes (a move under a full minute costs nothing;
    art. 12.2)."""
    m = side.remaining_ms
    if ot.kind == "canadian" and side.in_overtime:
        block = m - used_ms
        if block < 0:
            return None
        left = (side.moves_left or ot.count) - (1 if move else 0)
        if left == 0:  # block complete: a new block of N moves in T
            block, left = ot.length_ms, ot.count
        return replace(side, remaining_ms=block, moves_left=left)
    if used_ms <= m:
        side = replace(side, remaining_ms=m - used_ms)
        return _enter_overtime(side, ot) if m - used_ms == 0 and not side.in_overtime else side
    over = used_ms - m
    if ot.kind == "canadian":  # the move on which the main time ran out opens the first block
        side = _enter_overtime(side, ot)
        return _consume(side, ot, over, move)
    periods = side.periods_left or 0
    if ot.kind == "byo-yomi":
        used = (over - 1) // ot.length_ms if move else over // ot.length_ms
    else:
        used = over // MINUTE_MS
    if used >= periods:
        return None
    return replace(side, remaining_ms=0, in_overtime=True, periods_left=periods - used)


def _deadline(state: ClockState) -> int:
    assert state.running is not None and state.turn_started_at is not None
    side = state.side(state.running)
    extra = state.turn_delay_ms if state.turn_delay == "simple" else 0
    return state.turn_started_at + side.remaining_ms + extra + _allowance(side, state.overtime)


def _charge(state: ClockState, elapsed: int) -> tuple[int, int]:
    """(net main time charged, delay credit) for a completed move of ``elapsed`` ms."""
    credit = min(elapsed, state.turn_delay_ms) if state.turn_delay != "none" else 0
    return elapsed - credit, credit


def _require_running(state: ClockState, what: str) -> Colour:
    if not isinstance(state, ClockState):
        raise ClockError(f"{what} needs a ClockState, got {state!r}")
    if state.flagged is not None:
        raise ClockError(f"cannot {what}: {state.flagged}'s flag has fallen")
    if state.running is None or state.turn_started_at is None:
        raise ClockError(f"cannot {what}: the clock is stopped")
    return state.running


def _check_now(state: ClockState, name: str, now_ms: int) -> int:
    """``now_ms`` checked, as the running clock counts it: while paused, the pause's instant."""
    _check_int(name, now_ms)
    if state.turn_started_at is not None and now_ms < state.turn_started_at:
        raise ClockError(
            f"{name}={now_ms} is before the running clock was started "
            f"(turn_started_at={state.turn_started_at})"
        )
    return now_ms if state.paused_at is None else min(now_ms, state.paused_at)


def _late(state: ClockState, at_ms: int) -> bool:
    """Has the running side's flag fallen by ``at_ms``: past the deadline, or no time at all
    when its clock (re)started (the deadline is that instant: see the on-deadline rule)?"""
    since = state.resumed_at if state.resumed_at is not None else state.turn_started_at
    due = _deadline(state)
    return at_ms > due or due <= since  # type: ignore[operator]


def press(state: ClockState, tc: TimeControl, colour: Colour, at_ms: int) -> tuple[ClockState, Reading]:
    """``colour`` completed a move received at ``at_ms`` (epoch ms) and presses the clock.

    Steps (1994 art. 12.3, 6.5, 12.1; FIDE 6.2.1, 6.3.1, 6.3.2; US Chess delay rules):

    1. ``elapsed = at_ms - turn_started_at``; the move is on time iff ``at_ms <= deadline``
       (a move received exactly at the deadline is on time).
    2. Charge ``elapsed`` (no delay), ``max(0, elapsed - delay)`` (simple delay) or
       ``elapsed - min(elapsed, delay)`` (Bronstein: the same net figure, so the main time never
       rises above its pre-move value).
    3. Count the move; if it completes the mover's current period, move to the next period
       (the last one repeats when it has a move count) and add its ``base_ms``.
    4. Credit the Fischer increment of the period the mover's next move is in.
    5. Start the opponent's clock at ``at_ms`` with the delay of the opponent's period.

    With Go overtime (``tc.overtime``) steps 3-4 are instead: the move's time is taken from
    the main time, then from the overtime (byo-yomi: ``(over - 1) // S`` periods used, so a
    move within a period keeps it; Canadian: the block's time, and a new block of N moves in
    T once N are made; 1988 art. 12.2: ``over // 60 000`` whole reserve minutes).

    Returns ``(new_state, reading)``.  Raises :class:`ClockError` if the clock is stopped or
    flagged, ``colour`` is not the running colour, ``at_ms < turn_started_at``, or the state
    does not fit ``tc`` or the clock is paused; raises :class:`FlagAlreadyFell` (with
    ``deadline_ms``) if ``at_ms > deadline``, or at any ``at_ms`` when the mover had no time
    at all when its clock started (see the on-deadline rule).  After a pause ``elapsed`` is
    the time the clock ran (the pause left out).
    """
    mover = _check_press(state, tc, colour, at_ms)
    elapsed = at_ms - state.turn_started_at  # type: ignore[operator]
    charged, credit = _charge(state, elapsed)
    if tc.overtime is not None:  # Go: main time, then byo-yomi / Canadian / 1988 reserve
        new_mover, period_index, bonus, increment = _overtime_after_move(mover, tc.overtime, charged)
    else:
        new_mover, period_index, bonus, increment = _periods_after_move(mover, tc, charged)
    moves_made = new_mover.moves_made
    opponent = _other(colour)
    opp_period = tc.period(state.side(opponent).period_index)
    new_state = replace(
        state,
        **{colour: new_mover},
        running=opponent,
        turn_started_at=at_ms,
        turn_delay=opp_period.delay,
        turn_delay_ms=opp_period.delay_ms,
        resumed_at=None,
    )
    reading = Reading(
        mover=colour,
        at_ms=at_ms,
        ply=new_state.white.moves_made + new_state.black.moves_made,
        moves_made=moves_made,
        elapsed_ms=elapsed,
        charged_ms=charged,
        delay_credit_ms=credit,
        increment_ms=increment,
        period_bonus_ms=bonus,
        period_index=period_index,
        white_ms=new_state.white.remaining_ms,
        black_ms=new_state.black.remaining_ms,
        running=opponent,
        deadline_ms=_deadline(new_state),
        **_overtime_fields(new_state),
    )
    return new_state, reading


def _check_press(state: ClockState, tc: TimeControl, colour: Colour, at_ms: int) -> SideClock:
    """The mover's side clock, once the press is checked: the clock runs for ``colour``, is not
    paused, ``at_ms`` is not before the turn started, the state fits ``tc``, and the flag has not
    fallen by ``at_ms`` (1994 art. 12.3; FIDE 6.3.1). Raises ClockError or FlagAlreadyFell."""
    running = _require_running(state, "press")
    _check_colour("colour", colour)
    if colour != running:
        raise ClockError(f"{colour} pressed but it is {running}'s clock that is running")
    if state.paused_at is not None:
        raise ClockError(f"cannot press: the clock is paused (since {state.paused_at} ms)")
    _check_now(state, "at_ms", at_ms)
    mover = state.side(colour)
    _check_fits(state, tc, mover)
    if _late(state, at_ms):
        raise FlagAlreadyFell(colour, _deadline(state), at_ms)
    return mover


def _overtime_after_move(mover: SideClock, ot: Overtime, charged: int) -> tuple[SideClock, int, int, int]:
    """Go overtime, steps 3-4 of :func:`press`: ``charged`` ms taken from the main time, then
    the overtime (:func:`_consume`). Returns (side clock, period index, bonus 0, increment 0)."""
    spent = _consume(mover, ot, charged, move=True)
    assert spent is not None  # at_ms <= deadline
    return replace(spent, moves_made=mover.moves_made + 1), mover.period_index, 0, 0


def _periods_after_move(mover: SideClock, tc: TimeControl, charged: int) -> tuple[SideClock, int, int, int]:
    """Steps 3-4 of :func:`press` (1994 art. 6.5, 12.1; FIDE 6.2.1): the move counted, the next
    period entered when it completes the current one (its ``base_ms`` added; the last period
    repeats), then that period's Fischer increment credited. Returns (side clock, period
    index, period bonus ms, increment ms)."""
    remaining = mover.remaining_ms - charged
    period_index, period_moves = mover.period_index, mover.period_moves + 1
    bonus = 0
    current = tc.periods[period_index]
    if current.moves is not None and period_moves >= current.moves:
        period_index = min(period_index + 1, len(tc.periods) - 1)
        period_moves = 0
        bonus = tc.periods[period_index].base_ms
        remaining += bonus
    increment = tc.periods[period_index].increment_ms
    remaining += increment
    return SideClock(remaining, mover.moves_made + 1, period_index, period_moves), period_index, bonus, increment


def _overtime_fields(state: ClockState) -> dict:
    """The Go overtime counts of a :class:`Reading` for both colours (all None without Go
    overtime: no side clock counts periods or moves then)."""
    if state.overtime is None:
        return dict(_NO_OVERTIME)
    return {f"{c}_{k}": getattr(state.side(c), k) for c in COLOURS for k in ("periods_left", "moves_left")}


_NO_OVERTIME = {f"{c}_{k}": None for c in COLOURS for k in ("periods_left", "moves_left")}


def _check_fits(state: ClockState, tc: TimeControl, side: SideClock) -> None:
    tc.period(side.period_index)
    if tc.overtime != state.overtime:
        raise ClockError(f"clock state does not belong to the time control {tc.to_pgn()!r} "
                         f"(overtime {state.overtime} vs {tc.overtime})")


def deadline(state: ClockState, tc: TimeControl) -> int | None:
    """Epoch ms at which the running player's flag falls; ``None`` if no clock runs.

    ``turn_started_at + remaining_ms``, plus ``delay_ms`` for a simple delay (the main time
    only starts after the delay, FIDE 6.3.2).  A Bronstein delay adds nothing here: its clock
    runs from the first millisecond and the delay is only added back after a completed move.
    Go overtime adds what the player may still use of it: byo-yomi ``periods_left x S``,
    Canadian ``T`` while still in main time (in a block ``remaining_ms`` is the block's
    time), 1988 reserve ``minutes_left x 60 000 - 1`` (completing the last minute loses).
    ``None`` too while the clock is paused (no flag falls during a pause).  Raises
    :class:`ClockError` if the state does not fit ``tc``.
    """
    if state.running is None or state.flagged is not None or state.paused_at is not None:
        return None
    _check_fits(state, tc, state.side(state.running))
    return _deadline(state)


def check_flag(state: ClockState, tc: TimeControl, now_ms: int) -> int | None:
    """Has a flag fallen by ``now_ms`` (epoch ms)?  Returns the epoch ms it fell, else ``None``.

    For a running clock: the :func:`deadline` if ``now_ms > deadline`` (a clock showing exactly
    0 at ``now_ms == deadline`` has not fallen yet: a move can still arrive at that ms), or if
    the player had no time at all when its clock started (the deadline is then that instant).
    For an already flagged state: ``flagged_at`` (or ``now_ms`` when the flag fell through an
    :func:`adjust` without ``at_ms``).  A stopped or paused clock gives ``None``.  Raises
    :class:`ClockError` if ``now_ms`` is before the running clock's start.
    """
    if state.flagged is not None:
        return state.flagged_at if state.flagged_at is not None else _check_int("now_ms", now_ms)
    now_ms = _check_now(state, "now_ms", now_ms)
    due = deadline(state, tc)
    return None if due is None or not _late(state, now_ms) else due


def flag(state: ClockState, tc: TimeControl, now_ms: int) -> ClockState:
    """Record the running player's flag fall, observed at ``now_ms`` (epoch ms).

    The running clock is charged up to the deadline (it shows 0), stopped, and ``flagged`` /
    ``flagged_at = deadline`` are set (1994 art. 12.2, 10.14; FIDE 6.8, 6.9 -- whether that
    loses or draws is for adjudication, e.g. a bare-king opponent).  Raises
    :class:`ClockError` if the clock is stopped or already flagged, or if the flag has not
    fallen yet (``now_ms <= deadline``).
    """
    running = _require_running(state, "flag")
    due = check_flag(state, tc, now_ms)
    if due is None:
        raise ClockError(
            f"{running}'s flag has not fallen: deadline {_deadline(state)} ms, now {now_ms} ms"
        )
    side = _out_of_time(state.side(running), state.overtime)
    return _halted(state._with_side(running, side), flagged=running, flagged_at=due)


def _out_of_time(side: SideClock, ot: Overtime | None) -> SideClock:
    """``side`` with all its time used: 0 ms, and no byo-yomi period / reserve minute left."""
    side = replace(side, remaining_ms=0)
    if ot is None:
        return side
    return replace(side, in_overtime=True, periods_left=None if ot.kind == "canadian" else 0)


def _charged(state: ClockState, now_ms: int) -> SideClock:
    """The running side charged up to ``now_ms`` with no move completed (never below 0)."""
    assert state.running is not None and state.turn_started_at is not None
    side = state.side(state.running)
    if state.overtime is None:
        return replace(side, remaining_ms=max(0, _display(state, now_ms)))
    spent = _consume(side, state.overtime, now_ms - state.turn_started_at, move=False)
    return spent if spent is not None else _out_of_time(side, state.overtime)


def _halted(state: ClockState, **flag: object) -> ClockState:
    """``state`` with no clock running (game over or flag fallen); ``flag``: flagged fields."""
    return replace(state, running=None, turn_started_at=None, turn_delay="none", turn_delay_ms=0,
                   paused_at=None, resumed_at=None, **flag)


def _display(state: ClockState, now_ms: int) -> int:
    """Running player's main time at ``now_ms`` (may be < 0 past the deadline)."""
    assert state.running is not None and state.turn_started_at is not None
    elapsed = now_ms - state.turn_started_at
    if state.turn_delay == "simple":
        elapsed = max(0, elapsed - state.turn_delay_ms)
    return state.side(state.running).remaining_ms - elapsed


def stop(state: ClockState, at_ms: int) -> ClockState:
    """Game over at ``at_ms`` (epoch ms): charge the running clock and stop it.

    The running player is charged what the clock shows at ``at_ms`` (simple delay: time beyond
    the delay; Bronstein: all of it, with no add-back since no move was completed; never below
    0; Go overtime: periods / reserve minutes / block time used as by a move, but no Canadian
    block move counted), with no increment and no move counted.  ``stop`` does not decide whether the flag fell
    first (1994 art. 12.7: a resignation or agreed draw stands anyway) -- call
    :func:`check_flag` before it when that matters.  A paused clock is charged up to the pause.
    Raises :class:`ClockError` if the clock is already stopped or flagged or
    ``at_ms < turn_started_at``.
    """
    running = _require_running(state, "stop")
    at_ms = _check_now(state, "at_ms", at_ms)
    return _halted(state._with_side(running, _charged(state, at_ms)))


def pause(state: ClockState, tc: TimeControl, at_ms: int) -> ClockState:
    """The arbiter pauses the running clock at ``at_ms`` (epoch ms): FIDE 1994 art. 12.5, 2023
    art. 6.11.1 (the game must be interrupted: the arbiter stops the clocks); xiangqi 1999 art.
    23.3 (停钟审核).  Any clock type: nothing is charged or reset, the clock only stands still
    (:func:`deadline` is ``None``, no flag falls, :func:`press` is refused) until
    :func:`resume`.  Raises :class:`ClockError` if the clock is stopped, flagged or already
    paused, ``at_ms`` is before the turn start or the state does not fit ``tc``; raises
    :class:`FlagAlreadyFell` if the running player's flag fell before ``at_ms`` (it decided
    the game first).  A pause exactly at the deadline is allowed: the player then has no time
    when the clock resumes, and its flag falls then.
    """
    running = _require_running(state, "pause")
    if state.paused_at is not None:
        raise ClockError(f"cannot pause: the clock is already paused (since {state.paused_at} ms)")
    _check_fits(state, tc, state.side(running))
    _check_now(state, "at_ms", at_ms)
    if _late(state, at_ms):
        raise FlagAlreadyFell(running, _deadline(state), at_ms)
    return replace(state, paused_at=at_ms)


def resume(state: ClockState, at_ms: int) -> ClockState:
    """The arbiter restarts a paused clock at ``at_ms`` (epoch ms; FIDE 2023 art. 6.11.3: the
    arbiter decides when the game restarts).  The running player's clock goes on exactly as
    it stood at the pause: ``turn_started_at`` moves on by ``at_ms - paused_at``, so the
    deadline moves by the pause's length and the delay used, the time into a byo-yomi period
    or Canadian block, the periods, stones and reserve minutes left are those of the pause.
    Raises :class:`ClockError` if the clock is not paused or ``at_ms`` is before the pause.
    """
    if not isinstance(state, ClockState) or state.paused_at is None:
        raise ClockError("cannot resume: the clock is not paused")
    _check_int("at_ms", at_ms)
    if at_ms < state.paused_at:
        raise ClockError(f"at_ms={at_ms} is before the pause at {state.paused_at} ms")
    moved_on = state.turn_started_at + at_ms - state.paused_at  # type: ignore[operator]
    return replace(state, turn_started_at=moved_on, paused_at=None, resumed_at=at_ms)


def adjust(
    state: ClockState, colour: Colour, delta_ms: int, *, at_ms: int | None = None
) -> ClockState:
    """Arbiter adjustment of ``colour``'s main time by ``delta_ms`` (ms; positive adds time,
    negative removes it).  1994 art. 10.13(2) (5 min added to a false claimant's used time)
    and 16.5; FIDE 12.9 (reduce the offender's / increase the opponent's remaining time).

    For a running clock the delta applies to the value at turn start, which shifts the
    deadline by exactly ``delta_ms``.  If the result is ``<= 0`` the flag of ``colour`` falls
    at once: the state comes back flagged (``flagged = colour``, clocks stopped,
    ``flagged_at = at_ms``, which may be ``None``; "if this means he has exceeded the time
    limit, he loses", 1994 art. 10.13(2)).  With ``at_ms`` the clock that was running is
    charged up to ``at_ms`` before it stops (without it, that time is not charged).  A running
    player whose adjusted time is positive but already used up is caught by
    :func:`check_flag`; callers should run :func:`check_flag` before adjusting so an earlier
    flag fall is not overtaken.  Raises :class:`ClockError` for a zero or non-int delta, a bad
    colour, ``at_ms`` before the running clock's start, or a state that is already flagged.

    Go overtime (``state.overtime`` set): added time goes to the main time (in a Canadian
    block: to the block); removed time is used like thinking time -- main time first, then
    byo-yomi periods (each full S removed takes one), the Canadian block, or whole reserve minutes
    (1988 art. 12.2) -- and the flag falls only when more is removed than the player has.
    """
    if not isinstance(state, ClockState):
        raise ClockError(f"adjust needs a ClockState, got {state!r}")
    _check_colour("colour", colour)
    _check_int("delta_ms", delta_ms)
    if delta_ms == 0:
        raise ClockError("delta_ms must be non-zero")
    if at_ms is not None:
        _check_int("at_ms", at_ms)
    if state.flagged is not None:
        raise ClockError(f"cannot adjust: {state.flagged}'s flag has already fallen")
    upto = at_ms  # the running clock is charged up to here (a paused clock: up to the pause)
    if at_ms is not None and state.running is not None:
        upto = _check_now(state, "at_ms", at_ms)
    side = state.side(colour)
    ot = state.overtime
    if ot is not None:
        if delta_ms > 0:
            more = side.remaining_ms + delta_ms
            spent: SideClock | None = replace(
                side, remaining_ms=more, in_overtime=side.in_overtime and ot.kind == "canadian")
        else:
            spent = _consume(side, ot, -delta_ms, move=False)
        if spent is not None:
            return state._with_side(colour, spent)
        new = state._with_side(colour, _out_of_time(side, ot))
        if upto is not None and new.running is not None and new.running != colour:
            new = new._with_side(new.running, _charged(new, upto))
        return _halted(new, flagged=colour, flagged_at=at_ms)
    new = state._with_side(colour, replace(side, remaining_ms=side.remaining_ms + delta_ms))
    if side.remaining_ms + delta_ms > 0:
        return new
    if upto is not None and new.running is not None:
        # Charge the running clock up to at_ms before stopping it (no clamp for the flagged
        # colour, so its negative time records the penalty).
        shown = _display(new, upto)
        if new.running != colour:
            shown = max(0, shown)
        new = new._with_side(new.running, replace(new.side(new.running), remaining_ms=shown))
    return _halted(new, flagged=colour, flagged_at=at_ms)


def remaining_at(state: ClockState, tc: TimeControl, colour: Colour, now_ms: int) -> int:
    """``colour``'s main time as the clock would display it at ``now_ms`` (ms, never < 0).

    Running clock: simple delay -> unchanged during the first ``delay_ms``, then counts down;
    Bronstein and no delay -> counts down from the turn start (a Bronstein add-back only comes
    with the press).  A clock that is not running shows its stored value.  Raises
    :class:`ClockError` for a bad colour, ``now_ms`` before the running clock's start, or a
    state that does not fit ``tc``.
    """
    _check_colour("colour", colour)
    _check_int("now_ms", now_ms)
    _check_fits(state, tc, state.side(colour))
    if state.running == colour and state.flagged is None:
        now_ms = _check_now(state, "now_ms", now_ms)
        if state.overtime is not None:
            return _charged(state, now_ms).remaining_ms
        return max(0, _display(state, now_ms))
    return max(0, state.side(colour).remaining_ms)


def overtime_left(state: ClockState, colour: Colour, now_ms: int) -> dict:
    """What a Go clock shows for ``colour`` at ``now_ms`` (epoch ms), charged up to then as
    if the running player stopped thinking now (no move counted).

    Returns ``{"main_ms", "in_overtime", "periods_left", "moves_left", "period_ms"}``:
    main time left (ms; in a Canadian block the block time); byo-yomi periods / 1988 reserve
    minutes left; Canadian moves left in the block; ``period_ms``: time left in the current
    byo-yomi period or reserve minute (``None`` in main time, for Canadian, and without
    overtime).  Examples (5x30 byo-yomi, main used up, 41 s into the move): periods 4,
    period_ms 19 000.  Raises :class:`ClockError` for a bad colour or ``now_ms`` before the
    running clock's start.
    """
    _check_colour("colour", colour)
    _check_int("now_ms", now_ms)
    side = state.side(colour)
    ot = state.overtime
    into = 0
    if state.running == colour and state.flagged is None:
        now_ms = _check_now(state, "now_ms", now_ms)
        into = now_ms - state.turn_started_at - side.remaining_ms  # type: ignore[operator]
        side = _charged(state, now_ms)
    period_ms = None
    if ot is not None and ot.kind != "canadian" and side.in_overtime and side.periods_left:
        unit = ot.length_ms if ot.kind == "byo-yomi" else MINUTE_MS
        period_ms = unit - max(0, into) % unit
    return {"main_ms": side.remaining_ms, "in_overtime": side.in_overtime,
            "periods_left": side.periods_left, "moves_left": side.moves_left,
            "period_ms": period_ms}


# ------------------------------------------------------------------------------------ lateness
def lateness(
    state: ClockState, colour: Colour, late_ms: int, limit_ms: int, *, at_ms: int | None = None
) -> tuple[Literal["on-time", "forfeit", "deducted"], ClockState]:
    """Rule on a late player (Chinese Go rules 1988 art. 23.1-23.3; the same scheme as xiangqi
    1999 art. 21.1 and FIDE 1994 art. 10.15).

    * ``late_ms``: how late ``colour`` arrived (ms after the game's start) **minus what its own
      running clock has already charged for it** (the player who moves first, Black in Go,
      has his clock running from the start, so nothing is left to deduct while he is to move;
      the second player's clock only starts with the first move).
    * ``limit_ms``: the event's limit (赛场规定时间), ms.

    Returns ``("forfeit", state)`` when ``late_ms > limit_ms`` ("迟到超过赛场规定时间，判其弃权
    作负", 23.1; when both are past it both forfeit, 23.2 -- the caller's ruling); otherwise the
    late time is deducted from the player's time ("在时限内分别扣除各自的迟到时间", 23.3):
    ``("deducted", adjust(state, colour, -late_ms, at_ms=at_ms))`` (with Go overtime it is
    used like thinking time, see :func:`adjust`; a deduction beyond all the player's time
    comes back flagged), or ``("on-time", state)`` for ``late_ms == 0``.  Exactly at the limit
    is not past it: deducted.  Raises :class:`ClockError` for negative or non-int values or a
    bad colour.
    """
    _check_colour("colour", colour)
    _check_int("late_ms", late_ms, 0)
    _check_int("limit_ms", limit_ms, 0)
    if late_ms > limit_ms:
        return "forfeit", state
    if late_ms == 0:
        return "on-time", state
    return "deducted", adjust(state, colour, -late_ms, at_ms=at_ms)

