"""Time controls as values: what the validation of a game, the pairing of an event and the clock
that runs them all read (:mod:`services.clock.core` runs them; the articles behind each rule are
in its module text).

A :class:`TimeControl` is parsed from the PGN TimeControl text (PGN standard section 9.6, in
**seconds**: ``"40/5400+30:1800+30"``, ``"300+2"``, ``"d5"`` / ``"b5"`` delays), from Go's
overtime forms (``"3600 5x30 byo-yomi"``, ``"600 25/600 Canadian"``, the Chinese 1988 art. 12.2
``"10800 reserve 5"``), from a name of :data:`PRESETS`, or from an SGF record's ``TM`` / ``OT``
(:func:`from_sgf`); every duration it holds is an integer number of **milliseconds**. Bad input
raises :class:`ClockError` (a ``ValueError``) naming what is wrong.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from shared.errors import RulesError

__all__ = ["Colour", "DelayMode", "COLOURS", "PRESETS", "MINUTE_MS", "ClockError", "Period",
           "Overtime", "TimeControl", "pgn_tag", "from_sgf", "check_ms"]

Colour = Literal["white", "black"]
#: Limits that keep every reading a sane integer (a correspondence day is the longest control we
#: host): base time per period at most 72 hours, increment or delay at most 1 hour.
MAX_BASE_MS = 72 * 3_600_000
MAX_STEP_MS = 3_600_000
DelayMode = Literal["none", "simple", "bronstein"]
COLOURS: tuple[Colour, Colour] = ("white", "black")
_DELAY_MODES = ("none", "simple", "bronstein")
OvertimeKind = Literal["byo-yomi", "canadian", "reserve"]
_OVERTIME_KINDS = ("byo-yomi", "canadian", "reserve")
#: Go 1988 art. 12.2: the 读秒 reserve is counted in whole minutes.
MINUTE_MS = 60_000



class ClockError(RulesError):
    """Bad clock input: malformed time control, wrong colour, time running backwards, a press
    on a stopped or flagged clock, an adjustment of a flagged clock, ..."""


def check_ms(name: str, value: object, minimum: int | None = None) -> int:
    """``value`` if it is an int (not a bool) of at least ``minimum``; else ClockError naming it."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ClockError(f"{name} must be an int (milliseconds), got {value!r}")
    if minimum is not None and value < minimum:
        raise ClockError(f"{name} must be >= {minimum}, got {value}")
    return value


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
            check_ms("moves", self.moves, 1)
        check_ms("base_ms", self.base_ms, 0)
        check_ms("increment_ms", self.increment_ms, 0)
        check_ms("delay_ms", self.delay_ms, 0)
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


@dataclass(frozen=True)
class Overtime:
    """Go overtime that follows the main time.  Immutable.

    * ``kind``: ``"byo-yomi"`` (Japanese: ``count`` periods of ``length_ms``),
      ``"canadian"`` (``count`` moves in ``length_ms`` per block) or ``"reserve"`` (Chinese
      1988 rules art. 12.2 读秒: ``count`` whole minutes kept from the time limit;
      ``length_ms`` must be :data:`MINUTE_MS`).
    * ``count``: periods (1..100), moves per block (1..1000) or reserved minutes (1..600).
    * ``length_ms``: period / block length in ms (> 0; a byo-yomi period at most 1 hour, a
      Canadian block at most 72 hours).

    Raises :class:`ClockError` on any out-of-range or mistyped field.
    """

    kind: OvertimeKind
    count: int
    length_ms: int

    def __post_init__(self) -> None:
        if self.kind not in _OVERTIME_KINDS:
            raise ClockError(f"overtime kind must be one of {_OVERTIME_KINDS}, got {self.kind!r}")
        check_ms("overtime count", self.count, 1)
        check_ms("overtime length_ms", self.length_ms, 1)
        limit = {"byo-yomi": 100, "canadian": 1000, "reserve": 600}[self.kind]
        if self.count > limit:
            raise ClockError(f"{self.kind} count {self.count} is over the limit of {limit}")
        longest = MAX_STEP_MS if self.kind == "byo-yomi" else MAX_BASE_MS
        if self.length_ms > longest:
            raise ClockError(f"{self.kind} length {self.length_ms // 1000} s is over the limit of "
                             f"{longest // 1000} s")
        if self.kind == "reserve" and self.length_ms != MINUTE_MS:
            raise ClockError("the 1988 art. 12.2 reserve is counted in whole minutes: "
                             f"length_ms must be {MINUTE_MS}")

    def text(self) -> str:
        """The overtime part of our text form: ``"5x30 byo-yomi"``, ``"25/600 Canadian"`` or
        ``"reserve 5"`` (see :meth:`TimeControl.parse`)."""
        if self.kind == "byo-yomi":
            return f"{self.count}x{_secs(self.length_ms)} byo-yomi"
        if self.kind == "canadian":
            return f"{self.count}/{_secs(self.length_ms)} Canadian"
        return f"reserve {self.count}"


_GO_BYOYOMI = re.compile(rf"(?:{_NUM}\s+)?(\d+)\s*x\s*{_NUM}\s+byo-?yomi", re.IGNORECASE)
_GO_CANADIAN = re.compile(rf"(?:{_NUM}\s+)?(\d+)\s*/\s*{_NUM}\s+canadian", re.IGNORECASE)
_GO_RESERVE = re.compile(rf"{_NUM}\s+reserve\s+(\d+)", re.IGNORECASE)


def _parse_go(text: str) -> TimeControl | None:
    """The Go text forms of :meth:`TimeControl.parse`, or None when ``text`` is none of them."""
    if m := _GO_BYOYOMI.fullmatch(text):
        main, count, length = m.groups()
        ot = Overtime("byo-yomi", int(count), _ms(length))
    elif m := _GO_CANADIAN.fullmatch(text):
        main, count, length = m.groups()
        ot = Overtime("canadian", int(count), _ms(length))
    elif m := _GO_RESERVE.fullmatch(text):
        limit, minutes = m.groups()
        ot = Overtime("reserve", int(minutes), MINUTE_MS)
        main_ms = _ms(limit) - ot.count * MINUTE_MS
        if main_ms < 0:
            raise ClockError(f"time limit {limit} s is shorter than the {minutes} minute(s) "
                             f"reserved for 读秒 (Go 1988 art. 12.2 keeps them within the limit)")
        return TimeControl((Period(None, main_ms),), ot)
    else:
        return None
    return TimeControl((Period(None, _ms(main) if main else 0),), ot)


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
    # Go. Absolute and Fischer are plain PGN forms; Black moves first (start(first="black")).
    "go-absolute-60": "3600",
    "go-fischer-10+10": "600+10",
    "go-byoyomi-60-5x30": "3600 5x30 byo-yomi",  # 1 h, then 5 periods of 30 s
    "go-byoyomi-120-3x60": "7200 3x60 byo-yomi",  # AlphaGo - Lee Sedol 2016: TM[7200] OT[3x60 byo-yomi]
    "go-byoyomi-0-3x30": "0 3x30 byo-yomi",  # byo-yomi only (the 2015 Fan Hui informal games)
    "go-canadian-10-25/600": "600 25/600 Canadian",  # KGS: TM[600] OT[25/600 Canadian]
    "go-canadian-30-20/300": "1800 20/300 Canadian",
    # Chinese Go rules 1988 art. 12: 12.2 keeps 5 minutes for 读秒 in national events and allows
    # 1 minute in local ones; 12.1 gives local events 1-2 hours and wants national games
    # finished within a day (3 hours each is our choice, the article fixes no figure).
    "go-1988-12-national": "10800 reserve 5",
    "go-1988-12-local-60": "3600 reserve 1",
    "go-1988-12-local-120": "7200 reserve 1",
}


@dataclass(frozen=True)
class TimeControl:
    """A whole time control: ``periods`` is a non-empty tuple of :class:`Period`.

    Only the last period may be sudden death (``moves=None``); if the last period has a move
    count it repeats (US Chess "repeating" control).  The first period's ``base_ms`` must be
    ``> 0``.  ``overtime`` (Go, optional): an :class:`Overtime` after the main time; then
    ``periods`` must be exactly one sudden-death period without increment or delay (the
    main time, which may be 0: overtime only).  Raises :class:`ClockError` otherwise.  A list
    of periods is accepted and stored as a tuple.
    """

    periods: tuple[Period, ...]
    overtime: Overtime | None = None

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
        if self.overtime is not None:
            if not isinstance(self.overtime, Overtime):
                raise ClockError(f"overtime must be an Overtime, got {self.overtime!r}")
            p = periods[0]
            if len(periods) != 1 or p.moves is not None or p.increment_ms or p.delay != "none":
                raise ClockError("Go overtime follows a single main time: one sudden-death "
                                 "period without increment or delay")
        elif periods[0].base_ms <= 0:
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
        :data:`PRESETS` (``"xiangqi-6.1"``, ``"blitz-3+2"``, ``"go-1988-12-national"`` ...)
        stands for its tag.

        Go forms (our extension; main time first, in seconds, then the overtime, keywords
        case-insensitive; see the module docstring for how each runs):

        * ``"3600 5x30 byo-yomi"``: 3600 s main time, then 5 byo-yomi periods of 30 s (the SGF
          ``OT`` text ``"5x30 byo-yomi"``; ``"byoyomi"`` also accepted).
        * ``"600 25/600 Canadian"``: 600 s main time, then blocks of 25 moves in 600 s (SGF
          ``OT`` ``"25/600 Canadian"``).  For both the main time may be omitted (= 0).
        * ``"10800 reserve 5"``: Chinese Go rules 1988 art. 12: a time limit (时限) of 10 800 s
          of which 5 whole minutes are kept for 读秒 (main time 10 500 s).

        Absolute (``"3600"``) and Fischer (``"600+10"``) are the PGN forms.

        Raises :class:`ClockError` for ``"?"`` (unknown), the sandclock form ``"*180"``,
        negative numbers, empty or malformed descriptors (``"abc"``, ``"40/"``), a move count
        of 0, any sudden-death descriptor that is not the last, and Go forms out of range
        (``"0 0x30 byo-yomi"``, ``"60 reserve 5"``: a limit shorter than its reserve).
        """
        if not isinstance(text, str):
            raise ClockError(f"TimeControl must be a str, got {text!r}")
        text = text.strip()
        if text == "":
            raise ClockError("empty TimeControl")
        if len(text) > 200:  # no real control is this long; the reason must not echo it back
            raise ClockError(f"TimeControl of {len(text):,} characters: at most 200")
        if text == "-":
            return None
        if text == "?":
            raise ClockError("TimeControl '?' means unknown; cannot run a clock on it")
        if text in PRESETS:
            text = PRESETS[text]
        elif text[:1].isalpha():
            raise ClockError(f"malformed TimeControl {text!r}: not a PGN tag and not a known preset "
                             f"({', '.join(sorted(PRESETS))})")
        go = _parse_go(text)
        if go is not None:
            return go
        if any(c.isspace() for c in text):
            raise ClockError(
                    f"malformed TimeControl {text!r}: Go forms are '3600 5x30 byo-yomi', "
                    f"'600 25/600 Canadian' and '10800 reserve 5' (seconds; reserve in minutes)")
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
        """The PGN TimeControl tag value (seconds), e.g. ``"40/5400+30:1800+30"``; with Go
        overtime our text form (``"3600 5x30 byo-yomi"``, ``"10800 reserve 5"``: the 1988
        time limit, main time plus reserve).  ``TimeControl.parse(tc.to_pgn()) == tc`` always
        holds."""
        ot = self.overtime
        if ot is None:
            return ":".join(p.to_pgn() for p in self.periods)
        main = self.periods[0].base_ms
        if ot.kind == "reserve":
            return f"{_secs(main + ot.count * MINUTE_MS)} {ot.text()}"
        return f"{_secs(main)} {ot.text()}"

    def period(self, index: int) -> Period:
        """The period with this index (``0 <= index < len(periods)``); ClockError otherwise."""
        check_ms("period index", index, 0)
        if index >= len(self.periods):
            raise ClockError(
                f"period index {index} out of range for {len(self.periods)} period(s) "
                f"({self.to_pgn()!r}): clock state does not belong to this time control"
            )
        return self.periods[index]


def pgn_tag(tc: TimeControl | None) -> str:
    """PGN TimeControl tag value for ``tc``; ``None`` (untimed) gives ``"-"``."""
    return "-" if tc is None else tc.to_pgn()



# ----------------------------------------------------------------------------------------- SGF
def _sgf_number(name: str, value: str) -> str:
    value = value.strip()
    if not re.fullmatch(r"\d+(?:\.\d+)?", value):
        raise ClockError(f"SGF {name}[{value}] is not a non-negative number")
    whole, _, frac = value.partition(".")
    if frac.strip("0")[3:]:
        raise ClockError(f"SGF {name}[{value}] has more than millisecond precision")
    frac = frac.rstrip("0")
    return whole + ("." + frac if frac else "")


def from_sgf(
    tm: str | None,
    ot: str | None,
    *,
    lt: str | None = None,
    lc: str | None = None,
    tt: str | None = None,
    tc: str | None = None,
) -> TimeControl | None:
    """The :class:`TimeControl` of an SGF game record (FF[4] ``TM``: main time in seconds;
    ``OT``: overtime text, free-form in the standard).

    * ``OT`` absent or empty: absolute time ``TM`` (sudden death); no ``TM`` (or ``TM[0]``) and
      no overtime: ``None`` (untimed).
    * ``OT`` ``"5x30 byo-yomi"`` / ``"25/600 Canadian"`` (KGS, OGS, the 2016 AlphaGo - Lee
      Sedol files): the same in our :meth:`TimeControl.parse` form, ``f"{TM} {OT}"``.
    * YuanYu's own properties when there is no ``OT``: ``TC`` count and ``TT`` seconds of
      byo-yomi (2018 Tencent files: ``TM[3600]TC[10]TT[60]`` = 1 h + 10x60 s), and the 2015
      Fan Hui files' ``LC`` count / ``LT`` seconds, where ``TM`` is in **minutes**:
      ``TM[60]LT[30]LC[3]`` = 1 h + 3x30 s, the match's published formal-game control (Silver
      et al., Nature 2016: 1 h main time plus 3 periods of 30 s byo-yomi; 60 s main time
      would contradict it).

    Raises :class:`ClockError` for a non-numeric ``TM``/``LT``/``LC``/``TT``/``TC``, an ``OT``
    text we cannot run (named in the message), or out-of-range values.
    """
    def given(v: str | None) -> str | None:
        return v.strip() if isinstance(v, str) and v.strip() else None

    tm, ot, lt, lc, tt, tc = map(given, (tm, ot, lt, lc, tt, tc))
    main = _sgf_number("TM", tm) if tm is not None else "0"
    if ot is not None:
        if ot.lower() in ("none", "-"):
            ot = None
        else:
            parsed = _parse_go(f"{main} {ot}")
            if parsed is None or parsed.overtime is None or parsed.overtime.kind == "reserve":
                raise ClockError(f"SGF OT[{ot}] is not a known overtime: expected 'NxS byo-yomi' "
                                 f"or 'N/T Canadian'")
            return parsed
    if lt is not None or lc is not None:
        if lt is None or lc is None:
            raise ClockError("YuanYu byo-yomi needs both LT (seconds) and LC (count)")
        secs = _ms(main) * 60 // 1000  # TM in minutes in this form
        text = f"{_secs(secs * 1000)} {int(_sgf_number('LC', lc))}x{_sgf_number('LT', lt)} byo-yomi"
        parsed = _parse_go(text)
        assert parsed is not None
        return parsed
    if tt is not None or tc is not None:
        if tt is None or tc is None:
            raise ClockError("YuanYu byo-yomi needs both TT (seconds) and TC (count)")
        parsed = _parse_go(f"{main} {int(_sgf_number('TC', tc))}x{_sgf_number('TT', tt)} byo-yomi")
        assert parsed is not None
        return parsed
    if _ms(main) == 0:
        return None
    return TimeControl.parse(main)
