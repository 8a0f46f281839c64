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
  ``now_ms > deadline``.
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

Errors: every bad input raises :class:`ClockError` (a ``ValueError``); a move after the deadline
raises :class:`FlagAlreadyFell` (a :class:`ClockError`) carrying the deadline.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import Literal

__all__ = [
    "Colour",
    "DelayMode",
    "COLOURS",
    "PRESETS",
    "ClockError",
    "FlagAlreadyFell",
    "Period",
    "TimeControl",
    "SideClock",
    "ClockState",
    "Reading",
    "start",
    "press",
    "deadline",
    "check_flag",
    "flag",
    "stop",
    "adjust",
    "remaining_at",
    "pgn_tag",
]

Colour = Literal["white", "black"]
#: Limits that keep every reading a sane integer (a correspondence day is the longest control we
#: host): base time per period at most 72 hours, increment or delay at most 1 hour.
MAX_BASE_MS = 72 * 3_600_000
MAX_STEP_MS = 3_600_000
DelayMode = Literal["none", "simple", "bronstein"]
COLOURS: tuple[Colour, Colour] = ("white", "black")
_DELAY_MODES = ("none", "simple", "bronstein")


# --------------------------------------------------------------------------------------- errors
class ClockError(ValueError):
    """Bad clock input: malformed time control, wrong colour, time running backwards, a press
    on a stopped or flagged clock, an adjustment of a flagged clock, ..."""


class FlagAlreadyFell(ClockError):
    """A move was received after the mover's flag fell (FIDE 1994 art. 10.14, FIDE 6.9).

    Attributes: ``colour`` (the mover), ``deadline_ms`` (epoch ms at which the flag fell),
    ``at_ms`` (epoch ms at which the move was received, ``> deadline_ms``).  The move cannot be
    made; the caller should record the flag fall at ``deadline_ms`` (see :func:`flag`).
    """

    def __init__(self, colour: Colour, deadline_ms: int, at_ms: int) -> None:
        self.colour = colour
        self.deadline_ms = deadline_ms
        self.at_ms = at_ms
        super().__init__(
            f"{colour}'s flag fell at {deadline_ms} ms; move received at {at_ms} ms is "
            f"{at_ms - deadline_ms} ms late"
        )


# ------------------------------------------------------------------------------------- helpers
def _check_int(name: str, value: object, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClockError(f"{name} must be an int (milliseconds), got {value!r}")
    if minimum is not None and value < minimum:
        raise ClockError(f"{name} must be >= {minimum}, got {value}")
    return value


def _check_colour(name: str, value: object) -> Colour:
    if value not in COLOURS:
        raise ClockError(f"{name} must be 'white' or 'black', got {value!r}")
    return value  # type: ignore[return-value]


def _other(colour: Colour) -> Colour:
    return "black" if colour == "white" else "white"


# ------------------------------------------------------------------------------ time controls
@dataclass(frozen=True)
class Period:
    """One period (segment) of a time control.  Immutable.

    * ``moves``: moves to complete in this period (``>= 1``), or ``None`` for "all remaining
      moves" (sudden death; only allowed as the last period).
    * ``base_ms``: time given at the start of the period, ms (``>= 0``; added to any time saved
      from earlier periods, FIDE 1994 art. 12.1).
    * ``increment_ms``: Fischer increment credited before every move of this period, ms
      (``>= 0``; FIDE 6.3.1).
    * ``delay_ms`` / ``delay``: per-move delay in ms and its kind: ``"none"`` (then
      ``delay_ms`` must be 0), ``"simple"`` (FIDE 6.3.2 time-delay mode, US delay) or
      ``"bronstein"`` (US Chess); with a delay kind ``delay_ms`` must be ``> 0``.

    Raises :class:`ClockError` on any out-of-range or mistyped field.
    """

    moves: int | None
    base_ms: int
    increment_ms: int = 0
    delay_ms: int = 0
    delay: DelayMode = "none"

    def __post_init__(self) -> None:
        if self.moves is not None:
            _check_int("moves", self.moves, 1)
        _check_int("base_ms", self.base_ms, 0)
        _check_int("increment_ms", self.increment_ms, 0)
        _check_int("delay_ms", self.delay_ms, 0)
        if self.delay not in _DELAY_MODES:
            raise ClockError(f"delay must be one of {_DELAY_MODES}, got {self.delay!r}")
        if self.delay == "none" and self.delay_ms != 0:
            raise ClockError(f"delay_ms={self.delay_ms} given but delay is 'none'")
        if self.delay != "none" and self.delay_ms == 0:
            raise ClockError(f"delay {self.delay!r} needs delay_ms > 0")
        if self.base_ms > MAX_BASE_MS:
            raise ClockError(f"base time {self.base_ms // 1000} s is over the limit of "
                             f"{MAX_BASE_MS // 3_600_000} hours per period")
        for name, v in (("increment", self.increment_ms), ("delay", self.delay_ms)):
            if v > MAX_STEP_MS:
                raise ClockError(f"{name} {v // 1000} s is over the limit of {MAX_STEP_MS // 1000} s")
        if self.moves is not None and self.moves > 1000:
            raise ClockError(f"move count {self.moves} is over the limit of 1000")

    def to_pgn(self) -> str:
        """This period as one PGN TimeControl descriptor (seconds), e.g. ``"40/5400+30"``,
        ``"300"``, ``"300d5"`` (our simple-delay extension) or ``"300b5"`` (Bronstein)."""
        text = _secs(self.base_ms)
        if self.moves is not None:
            text = f"{self.moves}/{text}"
        if self.increment_ms:
            text += "+" + _secs(self.increment_ms)
        if self.delay != "none":
            text += ("d" if self.delay == "simple" else "b") + _secs(self.delay_ms)
        return text


def _secs(ms: int) -> str:
    """ms -> PGN seconds; exact: ``1500`` -> ``"1.5"``, ``2000`` -> ``"2"``."""
    whole, frac = divmod(ms, 1000)
    return str(whole) if frac == 0 else f"{whole}.{frac:03d}".rstrip("0")


_NUM = r"(\d+(?:\.\d{1,3})?)"
_DESCRIPTOR = re.compile(rf"(?:(\d+)/)?{_NUM}(?:\+{_NUM})?(?:([db]){_NUM})?")


def _ms(text: str) -> int:
    """PGN seconds (``"5"``, ``"1.5"``, at most 3 decimals) -> exact integer ms."""
    whole, _, frac = text.partition(".")
    return int(whole) * 1000 + (int(frac.ljust(3, "0")) if frac else 0)


#: Named presets -> PGN TimeControl text (seconds).  ``classical-fide`` is the FIDE standard
#: control: 40 moves in 90 min, then 30 min for the rest, 30 s increment from move 1.
PRESETS: dict[str, str] = {
    "bullet-1+0": "60",
    "bullet-1+1": "60+1",
    "bullet-2+1": "120+1",
    "blitz-3+0": "180",
    "blitz-3+2": "180+2",
    "blitz-5+0": "300",
    "blitz-5+3": "300+3",
    "rapid-10+0": "600",
    "rapid-10+5": "600+5",
    "rapid-15+10": "900+10",
    "rapid-25+10": "1500+10",
    "classical-90+30": "5400+30",
    "classical-fide": "40/5400+30:1800+30",
    "uschess-g30d5": "1800d5",
    "uschess-g60d5": "3600d5",
    "uschess-g90d5": "5400d5",
    # Xiangqi 1999 competition rules art. 6 (a period's moves must be made in its time; time
    # saved carries over; the last period repeats until the game ends):
    "xiangqi-6.1": "40/5400:10/900",  # 6.1: 40 moves in 90 min, then 10 moves per 15 min
    "xiangqi-6.2": "30/3600:10/600",  # 6.2: 30 moves in 60 min, then 10 moves per 10 min
    "xiangqi-6.3": "40/600:30/300",  # 6.3 (rapid): 40 moves in 10 min, then 30 per 5 min
    "xiangqi-6.4": "30/300",  # 6.4 (rapid): 30 moves in every 5 min
    "xiangqi-6.5-60": "3600",  # 6.5: a single allowance, no move count (60 min each here)
    "xiangqi-6.5-30": "1800",
    "xiangqi-6.5-15": "900",
}


@dataclass(frozen=True)
class TimeControl:
    """A whole time control: ``periods`` is a non-empty tuple of :class:`Period`.

    Only the last period may be sudden death (``moves=None``); if the last period has a move
    count it repeats (US Chess "repeating" control).  The first period's ``base_ms`` must be
    ``> 0``.  Raises :class:`ClockError` otherwise.  A list of periods is accepted and stored
    as a tuple.
    """

    periods: tuple[Period, ...]

    def __post_init__(self) -> None:
        periods = self.periods
        if isinstance(periods, list):
            periods = tuple(periods)
            object.__setattr__(self, "periods", periods)
        if not isinstance(periods, tuple) or not periods:
            raise ClockError("a time control needs a non-empty tuple of periods")
        for i, p in enumerate(periods):
            if not isinstance(p, Period):
                raise ClockError(f"periods[{i}] must be a Period, got {p!r}")
            if p.moves is None and i != len(periods) - 1:
                raise ClockError(
                    f"period {i} is sudden death (no move count) but is not the last period"
                )
        if periods[0].base_ms <= 0:
            raise ClockError("the first period's base_ms must be > 0")

    # -- PGN -----------------------------------------------------------------------------
    @classmethod
    def parse(cls, text: str) -> TimeControl | None:
        """Parse a PGN TimeControl tag value (PGN standard 9.6; all values in SECONDS).

        Accepted: ``"300"`` (sudden death), ``"300+2"`` (Fischer increment),
        ``"40/5400"`` (moves/seconds), descriptors joined by ``":"`` such as
        ``"40/5400+30:1800+30"``; our non-standard delay suffixes ``"300d5"`` (simple delay
        5 s) and ``"300b5"`` (Bronstein delay 5 s), which may follow an increment
        (``"300+2d5"``).  Seconds may carry up to 3 decimals (exact ms, never rounded).
        ``"-"`` (no time control) returns ``None`` (untimed game). A preset name from
        :data:`PRESETS` (``"xiangqi-6.1"``, ``"blitz-3+2"`` ...) stands for its tag.

        Raises :class:`ClockError` for ``"?"`` (unknown), the sandclock form ``"*180"``,
        negative numbers, empty or malformed descriptors (``"abc"``, ``"40/"``), a move count
        of 0 and any sudden-death descriptor that is not the last.
        """
        if not isinstance(text, str):
            raise ClockError(f"TimeControl must be a str, got {text!r}")
        text = text.strip()
        if text == "":
            raise ClockError("empty TimeControl")
        if text == "-":
            return None
        if text == "?":
            raise ClockError("TimeControl '?' means unknown; cannot run a clock on it")
        if text in PRESETS:
            text = PRESETS[text]
        elif text[:1].isalpha():
            raise ClockError(f"malformed TimeControl {text!r}: not a PGN tag and not a known preset "
                             f"({', '.join(sorted(PRESETS))})")
        periods = []
        for descriptor in text.split(":"):
            if descriptor.startswith("*"):
                raise ClockError(f"sandclock TimeControl {descriptor!r} is not supported")
            if "-" in descriptor:
                raise ClockError(f"negative value in TimeControl descriptor {descriptor!r}")
            m = _DESCRIPTOR.fullmatch(descriptor)
            if m is None:
                raise ClockError(
                    f"malformed TimeControl descriptor {descriptor!r} in {text!r}; expected "
                    "[moves/]seconds[+increment][d|b delay], e.g. '40/5400+30' or '300d5'"
                )
            moves, base, inc, kind, delay = m.groups()
            if moves is not None and int(moves) == 0:
                raise ClockError(f"move count must be >= 1 in descriptor {descriptor!r}")
            periods.append(
                Period(
                    moves=int(moves) if moves is not None else None,
                    base_ms=_ms(base),
                    increment_ms=_ms(inc) if inc else 0,
                    delay_ms=_ms(delay) if delay else 0,
                    delay="none" if kind is None else ("simple" if kind == "d" else "bronstein"),
                )
            )
        return cls(tuple(periods))

    @classmethod
    def preset(cls, name: str) -> TimeControl:
        """A named preset from :data:`PRESETS` (e.g. ``"blitz-3+2"``, ``"rapid-15+10"``,
        ``"classical-fide"`` = ``40/5400+30:1800+30``).  Raises :class:`ClockError` for an
        unknown name (the message lists the known ones)."""
        if name not in PRESETS:
            raise ClockError(f"unknown time-control preset {name!r}; known: {sorted(PRESETS)}")
        tc = cls.parse(PRESETS[name])
        assert tc is not None
        return tc

    def to_pgn(self) -> str:
        """The PGN TimeControl tag value (seconds), e.g. ``"40/5400+30:1800+30"``.
        ``TimeControl.parse(tc.to_pgn()) == tc`` always holds."""
        return ":".join(p.to_pgn() for p in self.periods)

    def period(self, index: int) -> Period:
        """The period with this index (``0 <= index < len(periods)``); ClockError otherwise."""
        _check_int("period index", index, 0)
        if index >= len(self.periods):
            raise ClockError(
                f"period index {index} out of range for {len(self.periods)} period(s) "
                f"({self.to_pgn()!r}): clock state does not belong to this time control"
            )
        return self.periods[index]


def pgn_tag(tc: TimeControl | None) -> str:
    """PGN TimeControl tag value for ``tc``; ``None`` (untimed) gives ``"-"``."""
    return "-" if tc is None else tc.to_pgn()


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
    """

    remaining_ms: int
    moves_made: int = 0
    period_index: int = 0
    period_moves: int = 0


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
    """

    white: SideClock
    black: SideClock
    running: Colour | None
    turn_started_at: int | None
    turn_delay: DelayMode = "none"
    turn_delay_ms: int = 0
    flagged: Colour | None = None
    flagged_at: int | None = None

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
    return ClockState(
        white=side,
        black=side,
        running=first,
        turn_started_at=at_ms,
        turn_delay=p0.delay,
        turn_delay_ms=p0.delay_ms,
    )


def _deadline(state: ClockState) -> int:
    assert state.running is not None and state.turn_started_at is not None
    rem = state.side(state.running).remaining_ms
    extra = state.turn_delay_ms if state.turn_delay == "simple" else 0
    return state.turn_started_at + rem + extra


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
    _check_int(name, now_ms)
    if state.turn_started_at is not None and now_ms < state.turn_started_at:
        raise ClockError(
            f"{name}={now_ms} is before the running clock was started "
            f"(turn_started_at={state.turn_started_at})"
        )
    return now_ms


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

    Returns ``(new_state, reading)``.  Raises :class:`ClockError` if the clock is stopped or
    flagged, ``colour`` is not the running colour, ``at_ms < turn_started_at``, or the state
    does not fit ``tc``; raises :class:`FlagAlreadyFell` (with ``deadline_ms``) if
    ``at_ms > deadline``.
    """
    running = _require_running(state, "press")
    _check_colour("colour", colour)
    if colour != running:
        raise ClockError(f"{colour} pressed but it is {running}'s clock that is running")
    _check_now(state, "at_ms", at_ms)
    mover = state.side(colour)
    tc.period(mover.period_index)  # state must fit tc
    due = _deadline(state)
    if at_ms > due:
        raise FlagAlreadyFell(colour, due, at_ms)

    elapsed = at_ms - state.turn_started_at  # type: ignore[operator]
    charged, credit = _charge(state, elapsed)
    remaining = mover.remaining_ms - charged
    moves_made = mover.moves_made + 1
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
    new_mover = SideClock(remaining, moves_made, period_index, period_moves)

    opponent = _other(colour)
    opp_period = tc.period(state.side(opponent).period_index)
    new_state = replace(
        state._with_side(colour, new_mover),
        running=opponent,
        turn_started_at=at_ms,
        turn_delay=opp_period.delay,
        turn_delay_ms=opp_period.delay_ms,
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
    )
    return new_state, reading


def deadline(state: ClockState, tc: TimeControl) -> int | None:
    """Epoch ms at which the running player's flag falls; ``None`` if no clock runs.

    ``turn_started_at + remaining_ms``, plus ``delay_ms`` for a simple delay (the main time
    only starts after the delay, FIDE 6.3.2).  A Bronstein delay adds nothing here: its clock
    runs from the first millisecond and the delay is only added back after a completed move.
    Raises :class:`ClockError` if the state does not fit ``tc``.
    """
    if state.running is None or state.flagged is not None:
        return None
    tc.period(state.side(state.running).period_index)
    return _deadline(state)


def check_flag(state: ClockState, tc: TimeControl, now_ms: int) -> int | None:
    """Has a flag fallen by ``now_ms`` (epoch ms)?  Returns the epoch ms it fell, else ``None``.

    For a running clock: the :func:`deadline` if ``now_ms > deadline`` (a clock showing exactly
    0 at ``now_ms == deadline`` has not fallen yet: a move can still arrive at that ms).
    For an already flagged state: ``flagged_at`` (or ``now_ms`` when the flag fell through an
    :func:`adjust` without ``at_ms``).  A stopped clock gives ``None``.  Raises
    :class:`ClockError` if ``now_ms`` is before the running clock's start.
    """
    if state.flagged is not None:
        return state.flagged_at if state.flagged_at is not None else _check_int("now_ms", now_ms)
    _check_now(state, "now_ms", now_ms)
    due = deadline(state, tc)
    if due is None or now_ms <= due:
        return None
    return due


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
    side = replace(state.side(running), remaining_ms=0)
    return _halted(state._with_side(running, side), flagged=running, flagged_at=due)


def _halted(state: ClockState, **flag: object) -> ClockState:
    """``state`` with no clock running (game over or flag fallen); ``flag``: flagged fields."""
    return replace(state, running=None, turn_started_at=None, turn_delay="none", turn_delay_ms=0,
                   **flag)


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
    0), with no increment and no move counted.  ``stop`` does not decide whether the flag fell
    first (1994 art. 12.7: a resignation or agreed draw stands anyway) -- call
    :func:`check_flag` before it when that matters.  Raises :class:`ClockError` if the clock is
    already stopped or flagged or ``at_ms < turn_started_at``.
    """
    running = _require_running(state, "stop")
    _check_now(state, "at_ms", at_ms)
    side = replace(state.side(running), remaining_ms=max(0, _display(state, at_ms)))
    return _halted(state._with_side(running, side))


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
    if at_ms is not None and state.running is not None:
        _check_now(state, "at_ms", at_ms)
    side = state.side(colour)
    new = state._with_side(colour, replace(side, remaining_ms=side.remaining_ms + delta_ms))
    if side.remaining_ms + delta_ms > 0:
        return new
    if at_ms is not None and new.running is not None:
        # Charge the running clock up to at_ms before stopping it (no clamp for the flagged
        # colour, so its negative time records the penalty).
        shown = _display(new, at_ms)
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
    tc.period(state.side(colour).period_index)
    if state.running == colour and state.flagged is None:
        _check_now(state, "now_ms", now_ms)
        return max(0, _display(state, now_ms))
    return max(0, state.side(colour).remaining_ms)
