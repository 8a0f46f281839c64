"""Unit tests for the pure clock core (services/clock/core.py).

All instants are epoch ms from T0; all durations ms.  Expected values are worked out by hand
in the comments.  Reminder of the decisions under test: Fischer increment is credited before
each move (so at start too), a move received exactly at the deadline is on time, simple delay
protects the flag but Bronstein does not.
"""
from __future__ import annotations

import pytest

from services.clock.core import (
    PRESETS,
    ClockError,
    ClockState,
    FlagAlreadyFell,
    Period,
    TimeControl,
    adjust,
    check_flag,
    deadline,
    flag,
    pause,
    pgn_tag,
    press,
    remaining_at,
    resume,
    start,
    stop,
)

T0 = 1_700_000_000_000
S = 1_000  # one second in ms
MIN = 60 * S


def tc(text: str) -> TimeControl:
    parsed = TimeControl.parse(text)
    assert parsed is not None
    return parsed


def play(state: ClockState, control: TimeControl, t: int, durations: list[int]):
    """Alternate presses starting with the running colour; returns (state, t, readings)."""
    readings = []
    for d in durations:
        t += d
        state, r = press(state, control, state.running, t)
        readings.append(r)
    return state, t, readings


# ------------------------------------------------------------------------------ sudden death
def test_sudden_death_5_min():
    c = tc("300")
    s = start(c, T0)
    assert s.white.remaining_ms == s.black.remaining_ms == 300_000
    assert s.running == "white" and s.turn_started_at == T0
    assert deadline(s, c) == T0 + 300_000

    # White thinks 10 s: 300 000 - 10 000 = 290 000.
    s, r = press(s, c, "white", T0 + 10 * S)
    assert s.white.remaining_ms == 290_000
    assert (r.mover, r.elapsed_ms, r.charged_ms, r.increment_ms) == ("white", 10_000, 10_000, 0)
    assert (r.white_ms, r.black_ms, r.running, r.ply) == (290_000, 300_000, "black", 1)
    # Black's flag falls 300 s after its clock started at T0 + 10 s.
    assert r.deadline_ms == T0 + 10_000 + 300_000 == deadline(s, c)

    # Black thinks 15 s: 300 000 - 15 000 = 285 000.
    s, r = press(s, c, "black", T0 + 25 * S)
    assert (s.white.remaining_ms, s.black.remaining_ms) == (290_000, 285_000)
    assert r.ply == 2 and r.moves_made == 1
    # White's display 4 s into the move: 290 000 - 4 000.
    assert remaining_at(s, c, "white", T0 + 29 * S) == 286_000
    assert remaining_at(s, c, "black", T0 + 29 * S) == 285_000


def test_black_first_and_reading_dict():
    c = tc("60")
    s = start(c, T0, first="black")
    assert s.running == "black"
    s, r = press(s, c, "black", T0 + 1)
    d = r.as_dict()
    assert d["mover"] == "black" and d["running"] == "white" and d["ply"] == 1
    assert {"elapsed_ms", "white_ms", "black_ms", "deadline_ms", "period_index"} <= set(d)


# ------------------------------------------------------------------------------ Fischer 3+2
def test_fischer_3_plus_2_several_moves():
    c = TimeControl.preset("blitz-3+2")
    assert c == tc("180+2")
    s = start(c, T0)
    # Increment is credited before move 1 too (FIDE 6.3.1): 180 000 + 2 000 = 182 000.
    assert s.white.remaining_ms == s.black.remaining_ms == 182_000
    assert deadline(s, c) == T0 + 182_000

    # W1 5 s : 182 000 -  5 000 + 2 000 = 179 000
    # B1 10 s: 182 000 - 10 000 + 2 000 = 174 000
    # W2 1 s : 179 000 -  1 000 + 2 000 = 180 000  (fast moves can gain time with Fischer)
    # B2 20 s: 174 000 - 20 000 + 2 000 = 156 000
    # W3 30 s: 180 000 - 30 000 + 2 000 = 152 000
    s, t, rs = play(s, c, T0, [5 * S, 10 * S, 1 * S, 20 * S, 30 * S])
    assert t == T0 + 66 * S
    assert [(r.white_ms, r.black_ms) for r in rs] == [
        (179_000, 182_000),
        (179_000, 174_000),
        (180_000, 174_000),
        (180_000, 156_000),
        (152_000, 156_000),
    ]
    assert all(r.increment_ms == 2_000 for r in rs)
    assert s.white.moves_made == 3 and s.black.moves_made == 2
    assert deadline(s, c) == T0 + 66_000 + 156_000


# ------------------------------------------------------------------------------ delays
def test_simple_delay_5s():
    c = tc("300d5")
    assert c.periods[0] == Period(None, 300_000, delay_ms=5_000, delay="simple")
    s = start(c, T0)
    # Simple delay protects the flag: 5 s delay + 300 s main time.
    assert deadline(s, c) == T0 + 305_000
    # During the delay the main time does not move; 7 s in it has lost 2 s.
    assert remaining_at(s, c, "white", T0 + 4 * S) == 300_000
    assert remaining_at(s, c, "white", T0 + 7 * S) == 298_000

    # White's 3 s move is inside the delay: costs nothing.
    s, r = press(s, c, "white", T0 + 3 * S)
    assert s.white.remaining_ms == 300_000
    assert (r.elapsed_ms, r.charged_ms, r.delay_credit_ms) == (3_000, 0, 3_000)
    # Black's 7 s move: 7 - 5 = 2 s charged -> 298 000.
    s, r = press(s, c, "black", T0 + 10 * S)
    assert s.black.remaining_ms == 298_000
    assert (r.elapsed_ms, r.charged_ms, r.delay_credit_ms) == (7_000, 2_000, 5_000)


def test_bronstein_delay_5s():
    c = tc("300b5")
    assert c.periods[0].delay == "bronstein"
    s = start(c, T0)
    # Bronstein does not protect the flag: the clock runs from the first ms.
    assert deadline(s, c) == T0 + 300_000
    assert remaining_at(s, c, "white", T0 + 3 * S) == 297_000

    # 3 s move: -3 000 then +min(3 000, 5 000) back = 300 000 (costs nothing net).
    s, r = press(s, c, "white", T0 + 3 * S)
    assert s.white.remaining_ms == 300_000
    assert (r.charged_ms, r.delay_credit_ms) == (0, 3_000)
    # 7 s move: -7 000 then +5 000 back = 298 000.
    s, r = press(s, c, "black", T0 + 10 * S)
    assert s.black.remaining_ms == 298_000
    assert (r.charged_ms, r.delay_credit_ms) == (2_000, 5_000)


@pytest.mark.parametrize("elapsed", [0, 1, 2_500, 4_999, 5_000, 5_001, 7_000, 60_000])
def test_bronstein_never_rises_above_pre_move_value(elapsed):
    c = tc("300b5")
    s = start(c, T0)
    before = s.white.remaining_ms
    s, r = press(s, c, "white", T0 + elapsed)
    assert s.white.remaining_ms <= before
    assert s.white.remaining_ms == before - max(0, elapsed - 5_000)


def test_bronstein_vs_simple_at_the_flag():
    # Bronstein: deadline T0 + 300 000; on-deadline move keeps 0 + 5 000 added back.
    b = tc("300b5")
    s, _ = press(start(b, T0), b, "white", T0 + 300_000)
    assert s.white.remaining_ms == 5_000
    with pytest.raises(FlagAlreadyFell) as e:
        press(start(b, T0), b, "white", T0 + 300_001)
    assert e.value.deadline_ms == T0 + 300_000
    # Simple delay: the same move time is fine up to T0 + 305 000 (then 0 left).
    d = tc("300d5")
    s, _ = press(start(d, T0), d, "white", T0 + 305_000)
    assert s.white.remaining_ms == 0
    with pytest.raises(FlagAlreadyFell):
        press(start(d, T0), d, "white", T0 + 305_001)


# ------------------------------------------------------------------------------ periods
def test_multi_period_fide_classical():
    c = TimeControl.preset("classical-fide")
    assert c.to_pgn() == "40/5400+30:1800+30"
    s = start(c, T0)
    # 5 400 000 + 30 000 increment for move 1 = 5 430 000.
    assert s.white.remaining_ms == 5_430_000
    # White uses 120 s a move (net -90 000 with the increment), Black 60 s (net -30 000).
    s, t, rs = play(s, c, T0, [120 * S, 60 * S] * 39)
    # After 39 moves each:  White 5 430 000 - 39 * 90 000 = 1 920 000
    #                        Black 5 430 000 - 39 * 30 000 = 4 260 000
    assert (s.white.remaining_ms, s.black.remaining_ms) == (1_920_000, 4_260_000)
    assert s.white.period_index == 0 and s.white.moves_made == 39
    assert all(r.period_bonus_ms == 0 for r in rs)

    # White's 40th move, 120 s: 1 920 000 - 120 000 = 1 800 000 saved (1994 art. 12.1),
    # + 1 800 000 for period 2 + 30 000 increment for move 41 = 3 630 000.
    # Check against FIDE: 40 moves in 90 min + 40 x 30 s = 6 600 s; used 40 x 120 = 4 800 s;
    # 1 800 s saved -- as computed.
    t += 120 * S
    s, r = press(s, c, "white", t)
    assert s.white.remaining_ms == 3_630_000
    assert (r.period_bonus_ms, r.increment_ms, r.period_index, r.moves_made) == (
        1_800_000, 30_000, 1, 40,
    )
    assert s.white.period_index == 1 and s.white.period_moves == 0
    assert s.black.period_index == 0  # Black has not completed its 40th move yet

    # Black's 40th move, 60 s: 4 260 000 - 60 000 + 1 800 000 + 30 000 = 6 030 000.
    t += 60 * S
    s, r = press(s, c, "black", t)
    assert s.black.remaining_ms == 6_030_000 and r.period_index == 1
    # Move 41 (sudden-death period) - 100 s: 3 630 000 - 100 000 + 30 000 = 3 560 000.
    t += 100 * S
    s, r = press(s, c, "white", t)
    assert s.white.remaining_ms == 3_560_000
    assert (r.period_bonus_ms, r.period_index) == (0, 1)
    assert deadline(s, c) == t + 6_030_000


def test_last_period_with_moves_repeats():
    # 2 moves in 60 s, then 1 move per 30 s repeating (US Chess "repeating" control).
    c = tc("2/60:1/30")
    s = start(c, T0)
    s, t, rs = play(s, c, T0, [1 * S] * 8)  # four moves each, 1 s apiece
    white = [r.white_ms for r in rs[0::2]]
    # W1 59 000; W2 58 000 + 30 000 = 88 000; W3 87 000 + 30 000 = 117 000; W4 146 000
    assert white == [59_000, 88_000, 117_000, 146_000]
    assert [r.period_bonus_ms for r in rs[0::2]] == [0, 30_000, 30_000, 30_000]
    assert s.white.period_index == 1


# ------------------------------------------------------------------------------ flags
def test_flag_deadline_and_check_flag():
    c = tc("300")
    s = start(c, T0)
    due = T0 + 300_000
    assert deadline(s, c) == due
    assert check_flag(s, c, T0) is None
    assert check_flag(s, c, due - 1) is None
    assert check_flag(s, c, due) is None  # clock shows 0 but a move may still arrive now
    assert check_flag(s, c, due + 1) == due
    assert remaining_at(s, c, "white", due + 5_000) == 0

    with pytest.raises(ClockError, match="has not fallen"):
        flag(s, c, due)
    f = flag(s, c, due + 1)
    assert (f.flagged, f.flagged_at, f.running, f.white.remaining_ms) == ("white", due, None, 0)
    assert deadline(f, c) is None
    assert check_flag(f, c, due + 10_000) == due
    with pytest.raises(ClockError, match="flag has fallen"):
        press(f, c, "white", due + 2)
    with pytest.raises(ClockError):
        flag(f, c, due + 2)


def test_move_exactly_at_deadline_is_on_time_one_ms_later_is_not():
    c = tc("300")
    s = start(c, T0)
    due = T0 + 300_000
    on_time, r = press(s, c, "white", due)
    assert on_time.white.remaining_ms == 0 and r.elapsed_ms == 300_000
    with pytest.raises(FlagAlreadyFell) as e:
        press(s, c, "white", due + 1)
    assert isinstance(e.value, ClockError)
    assert (e.value.colour, e.value.deadline_ms, e.value.at_ms) == ("white", due, due + 1)

    # White now has exactly 0 and no increment: its next turn has no time at all. Its flag
    # falls the moment its clock starts (FIDE 6.9: the allotted time is used up).
    s2, _ = press(on_time, c, "black", due + 1_000)
    assert deadline(s2, c) == due + 1_000
    assert check_flag(s2, c, due + 1_000) == due + 1_000
    assert check_flag(s2, c, due + 1_001) == due + 1_000


def test_no_move_from_a_side_left_with_0_ms_not_even_in_the_same_millisecond():
    # White moves exactly at its deadline (on time, 0 left); Black answers in the same ms.
    c = tc("300")
    due = T0 + 300_000
    s, _ = press(start(c, T0), c, "white", due)
    s, r = press(s, c, "black", due)
    assert (r.white_ms, r.running, r.deadline_ms) == (0, "white", due)
    with pytest.raises(FlagAlreadyFell, match="no time was left") as e:
        press(s, c, "white", due)
    assert (e.value.deadline_ms, e.value.at_ms) == (due, due)
    assert check_flag(s, c, due) == due
    assert flag(s, c, due).flagged_at == due


@pytest.mark.parametrize("text, left_ms", [
    ("300d5", 5_000),  # simple delay: each move still has its 5 s free
    ("300+2", 2_000),  # Fischer: the increment for the next move was credited at the press
])
def test_a_side_with_0_main_time_still_moves_within_its_delay_or_increment(text, left_ms):
    c = tc(text)
    s = start(c, T0)
    due = deadline(s, c)
    s, _ = press(s, c, "white", due)  # exactly at the deadline: main time 0
    s, _ = press(s, c, "black", due)
    assert deadline(s, c) == due + left_ms and check_flag(s, c, due) is None
    s, r = press(s, c, "white", due + left_ms)
    assert r.mover == "white"


def test_canadian_block_used_exactly_leaves_no_time_for_its_next_stone():
    # "0 3/30 Canadian": a block of 3 stones in 30 s. Black's first stone takes all 30 s (on
    # time, 2 stones to go with 0 ms): when White answers, Black's flag falls at once.
    c = tc("0 3/30 Canadian")
    s = start(c, T0, first="black")
    s, r = press(s, c, "black", T0 + 30_000)
    assert (r.black_ms, r.black_moves_left) == (0, 2)
    s, _ = press(s, c, "white", T0 + 31_000)
    assert check_flag(s, c, T0 + 31_000) == T0 + 31_000
    with pytest.raises(FlagAlreadyFell):
        press(s, c, "black", T0 + 31_000)


def test_fischer_flag_deadline_includes_the_increment_already_credited():
    c = tc("180+2")
    s = start(c, T0)
    with pytest.raises(FlagAlreadyFell) as e:
        press(s, c, "white", T0 + 182_001)
    assert e.value.deadline_ms == T0 + 182_000


# ------------------------------------------------------------------------------ bad presses
def test_press_errors():
    c = tc("300")
    s = start(c, T0)
    with pytest.raises(ClockError, match="white's clock"):
        press(s, c, "black", T0 + 1)
    with pytest.raises(ClockError, match="before the running clock"):
        press(s, c, "white", T0 - 1)
    with pytest.raises(ClockError, match="must be 'white' or 'black'"):
        press(s, c, "red", T0 + 1)
    with pytest.raises(ClockError, match="must be an int"):
        press(s, c, "white", True)
    with pytest.raises(ClockError, match="must be an int"):
        press(s, c, "white", 1.5)
    stopped = stop(s, T0 + 1)
    with pytest.raises(ClockError, match="stopped"):
        press(stopped, c, "white", T0 + 2)
    with pytest.raises(ClockError, match="TimeControl"):
        start(None, T0)  # type: ignore[arg-type]


def test_state_from_another_time_control_is_rejected():
    c = tc("1/60:300")
    s, _ = press(start(c, T0), c, "white", T0 + 1)  # white now in period 1
    s, _ = press(s, c, "black", T0 + 2)
    with pytest.raises(ClockError, match="out of range"):
        press(s, tc("300"), "white", T0 + 3)


# ------------------------------------------------------------------------------ stop
def test_stop_charges_running_clock():
    c = tc("300d5")
    s = start(c, T0)
    st = stop(s, T0 + 8 * S)  # 8 s - 5 s delay = 3 s charged
    assert (st.white.remaining_ms, st.running, st.turn_started_at) == (297_000, None, None)
    assert deadline(st, c) is None and check_flag(st, c, T0 + 10**9) is None
    b = tc("300b5")
    assert stop(start(b, T0), T0 + 3 * S).white.remaining_ms == 297_000  # no add-back
    # Stopping after the deadline never shows negative time.
    assert stop(start(tc("60"), T0), T0 + 70 * S).white.remaining_ms == 0
    with pytest.raises(ClockError, match="stopped"):
        stop(st, T0 + 9 * S)


# ------------------------------------------------------------------------------ adjust
def test_adjust_minus_5_min_makes_flag_fall():
    c = tc("300")
    s = start(c, T0)
    s, _ = press(s, c, "white", T0 + 120 * S)  # white 180 000, black running
    # 1994 art. 10.13(2): 5 min added to the used time of a false claimant.
    f = adjust(s, "white", -5 * MIN, at_ms=T0 + 130 * S)
    assert f.flagged == "white" and f.flagged_at == T0 + 130 * S
    assert f.white.remaining_ms == 180_000 - 300_000 == -120_000
    # Black's clock ran from T0 + 120 s to T0 + 130 s and is charged: 300 000 - 10 000.
    assert f.black.remaining_ms == 290_000
    assert f.running is None and deadline(f, c) is None
    assert check_flag(f, c, T0 + 131 * S) == T0 + 130 * S
    assert remaining_at(f, c, "white", T0 + 131 * S) == 0
    with pytest.raises(ClockError, match="already fallen"):
        adjust(f, "white", 60_000)
    # Exactly 0 left also means the flag falls at once; without at_ms the time is unknown.
    z = adjust(s, "white", -180_000)
    assert z.flagged == "white" and z.flagged_at is None
    assert check_flag(z, c, T0 + 200 * S) == T0 + 200 * S
    assert z.black.remaining_ms == 300_000  # no at_ms: black's running time is not charged
    # The *running* player penalised to zero: white (running since T0, 300 000 stored) loses
    # 5 min at T0 + 10 s.
    r = start(c, T0)
    g = adjust(r, "white", -5 * MIN, at_ms=T0 + 10 * S)
    # 300 000 - 300 000 = 0 -> flag falls; charged 10 s more: 0 - 10 000 = -10 000.
    assert (g.flagged, g.white.remaining_ms, g.black.remaining_ms) == ("white", -10_000, 300_000)
    with pytest.raises(ClockError, match="before the running clock"):
        adjust(r, "white", -5 * MIN, at_ms=T0 - 1)


def test_adjust_running_clock_shifts_deadline():
    c = tc("600")
    s = start(c, T0)
    # Running white (600 000 at T0) loses 5 min: deadline moves from T0+600 s to T0+300 s.
    a = adjust(s, "white", -5 * MIN)
    assert a.flagged is None and deadline(a, c) == T0 + 300_000
    # Bonus to the opponent (FIDE 12.9): black 600 000 + 120 000.
    assert adjust(s, "black", 2 * MIN).black.remaining_ms == 720_000
    # White's remaining 300 000 is positive, but if 400 s have already gone the flag fell
    # at T0 + 300 000.
    assert check_flag(a, c, T0 + 400_000) == T0 + 300_000
    with pytest.raises(ClockError, match="non-zero"):
        adjust(s, "white", 0)
    with pytest.raises(ClockError):
        adjust(s, "green", 1)


# ------------------------------------------------------------------------------ parse / PGN
@pytest.mark.parametrize(
    "text",
    [
        "300",
        "300+2",
        "40/5400:1800",
        "40/5400+30:1800+30",
        "40/7200:20/3600:1800",
        "300d5",
        "300b5",
        "300+2d5",
        "40/5400d30:1800d30",
        "180+1.5",
        "90.125",
    ],
)
def test_parse_round_trip(text):
    parsed = tc(text)
    assert parsed.to_pgn() == text
    assert TimeControl.parse(parsed.to_pgn()) == parsed


def test_parse_values_are_seconds_converted_exactly():
    c = tc("40/5400+30:1800+30")
    assert c.periods == (
        Period(40, 5_400_000, 30_000),
        Period(None, 1_800_000, 30_000),
    )
    assert tc("180+1.5").periods[0].increment_ms == 1_500
    assert tc(" 300 ").to_pgn() == "300"


def test_untimed_and_presets():
    assert TimeControl.parse("-") is None
    assert pgn_tag(None) == "-"
    assert pgn_tag(tc("300+2")) == "300+2"
    assert TimeControl.preset("rapid-15+10") == tc("900+10")
    for name, text in PRESETS.items():
        assert TimeControl.preset(name).to_pgn() == text
    with pytest.raises(ClockError, match="unknown time-control preset"):
        TimeControl.preset("blitz-99")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("abc", "malformed"),
        ("40/", "malformed"),
        ("", "empty"),
        ("-300", "negative"),
        ("300+-2", "negative"),
        ("40/-5400", "negative"),
        ("0/300", "move count"),
        ("?", "unknown"),
        ("*180", "sandclock"),
        ("300:40/100", "not the last"),
        ("300d0", "delay_ms > 0"),
        ("300+", "malformed"),
        ("300x5", "malformed"),
        ("1.2345", "malformed"),
        ("40/5400::1800", "malformed"),
        ("0", "first period"),
    ],
)
def test_parse_errors(text, message):
    with pytest.raises(ClockError, match=message):
        TimeControl.parse(text)


def test_parse_error_is_a_value_error():
    with pytest.raises(ValueError):
        TimeControl.parse("abc")


def test_period_and_time_control_validation():
    with pytest.raises(ClockError, match="moves must be >= 1"):
        Period(0, 60_000)
    with pytest.raises(ClockError, match="base_ms must be >= 0"):
        Period(None, -1)
    with pytest.raises(ClockError, match="must be an int"):
        Period(None, 1.5)  # type: ignore[arg-type]
    with pytest.raises(ClockError, match="delay is 'none'"):
        Period(None, 60_000, delay_ms=5_000)
    with pytest.raises(ClockError, match="delay must be one of"):
        Period(None, 60_000, delay_ms=5_000, delay="fischer")  # type: ignore[arg-type]
    with pytest.raises(ClockError, match="non-empty"):
        TimeControl(())
    assert TimeControl([Period(None, 1_000)]).periods == (Period(None, 1_000),)


# ================================================================================== Go clocks
# Go: Black moves first (start(..., first="black")).  Overtime follows a single main time.
from services.clock.core import (  # noqa: E402
    MINUTE_MS,
    Overtime,
    from_sgf,
    lateness,
    overtime_left,
)


def test_go_absolute_and_fischer_with_black_first():
    # Absolute 60 min: both have 3 600 000 ms, Black's clock runs from the start.
    c = TimeControl.preset("go-absolute-60")
    assert c.overtime is None and c.to_pgn() == "3600"
    s = start(c, T0, first="black")
    assert s.running == "black" and deadline(s, c) == T0 + 3_600_000
    # Black 20 s: 3 600 000 - 20 000 = 3 580 000; White's clock now runs.
    s, r = press(s, c, "black", T0 + 20 * S)
    assert (r.mover, r.black_ms, r.white_ms, r.running) == ("black", 3_580_000, 3_600_000, "white")
    assert r.black_periods_left is None and r.black_moves_left is None
    with pytest.raises(ClockError, match="black pressed but it is white's"):
        press(s, c, "black", T0 + 21 * S)
    # Fischer 10 min + 10 s: 600 000 + 10 000 (the increment comes before move 1) = 610 000.
    f = TimeControl.preset("go-fischer-10+10")
    s = start(f, T0, first="black")
    assert s.black.remaining_ms == 610_000 and deadline(s, f) == T0 + 610_000
    # Black 25 s: 610 000 - 25 000 + 10 000 = 595 000.
    s, r = press(s, f, "black", T0 + 25 * S)
    assert r.black_ms == 595_000 and r.increment_ms == 10_000


def test_go_byoyomi_5x30():
    # "60 5x30 byo-yomi": 60 s main time, then 5 periods of 30 s.
    c = tc("60 5x30 byo-yomi")
    assert c.overtime == Overtime("byo-yomi", 5, 30_000)
    s = start(c, T0, first="black")
    assert (s.black.remaining_ms, s.black.periods_left, s.black.in_overtime) == (60_000, 5, False)
    # Deadline = main 60 000 + 5 x 30 000 = 210 000 ms after the start.
    assert deadline(s, c) == T0 + 210_000
    t = T0
    # Black 50 s: main 60 000 - 50 000 = 10 000; periods untouched.
    s, t, (r,) = play(s, c, t, [50 * S])
    assert (r.black_ms, r.black_periods_left) == (10_000, 5)
    s, t, _ = play(s, c, t, [1 * S])  # White
    # Black 39.9 s: 10 s main, then 29.9 s into the first period: (29 900 - 1) // 30 000 = 0
    # periods used -> 5 left, main 0 (in byo-yomi).
    s, t, (r,) = play(s, c, t, [39_900])
    assert (r.black_ms, r.black_periods_left) == (0, 5) and s.black.in_overtime
    assert deadline(s, c) == t + 59_000 + 150_000  # White: 59 s main + 5 x 30 s
    s, t, _ = play(s, c, t, [1 * S])
    assert deadline(s, c) == t + 150_000  # Black: 0 main + 5 x 30 000
    # 31 s: (31 000 - 1) // 30 000 = 1 period used -> 4 left.
    s, t, (r,) = play(s, c, t, [31 * S])
    assert r.black_periods_left == 4
    s, t, _ = play(s, c, t, [1 * S])
    # Exactly 30 s is within the period (on-deadline rule): (30 000 - 1) // 30 000 = 0 -> 4.
    s, t, (r,) = play(s, c, t, [30 * S])
    assert r.black_periods_left == 4
    s, t, _ = play(s, c, t, [1 * S])
    # 61 s: (61 000 - 1) // 30 000 = 2 -> 2 left.
    s, t, (r,) = play(s, c, t, [61 * S])
    assert r.black_periods_left == 2 and r.black_ms == 0
    s, t, _ = play(s, c, t, [1 * S])
    # With 2 left the deadline is 60 s away; a move at exactly 60 s uses 1 -> 1 left.
    assert deadline(s, c) == t + 60 * S
    s, t, (r,) = play(s, c, t, [60 * S])
    assert r.black_periods_left == 1
    s, t, _ = play(s, c, t, [1 * S])
    # Last period: 30 000 ms keeps it; 30 001 ms is a time-out (the last period overrun loses).
    with pytest.raises(FlagAlreadyFell) as e:
        press(s, c, "black", t + 30_001)
    assert e.value.deadline_ms == t + 30_000
    kept, r = press(s, c, "black", t + 30_000)
    assert r.black_periods_left == 1
    assert check_flag(s, c, t + 30_000) is None and check_flag(s, c, t + 30_001) == t + 30_000
    fell = flag(s, c, t + 31_000)
    assert fell.flagged == "black" and fell.flagged_at == t + 30_000
    assert (fell.black.remaining_ms, fell.black.periods_left) == (0, 0)


def test_go_byoyomi_only_and_display():
    # "0 3x30 byo-yomi" (2015 Fan Hui informal games): in byo-yomi from the first move.
    c = TimeControl.preset("go-byoyomi-0-3x30")
    s = start(c, T0, first="black")
    assert s.black.in_overtime and s.black.periods_left == 3 and deadline(s, c) == T0 + 90_000
    # 41 s into the move: one full period gone -> 2 left, 30 000 - 11 000 = 19 000 in this one.
    shown = overtime_left(s, "black", T0 + 41 * S)
    assert shown == {"main_ms": 0, "in_overtime": True, "periods_left": 2, "moves_left": None,
                     "period_ms": 19_000}
    assert overtime_left(s, "white", T0 + 41 * S)["periods_left"] == 3
    assert remaining_at(s, c, "black", T0 + 41 * S) == 0


def test_go_canadian_3_moves_in_30s():
    # "60 3/30 Canadian": 60 s main time, then blocks of 3 moves in 30 s.
    c = tc("60 3/30 Canadian")
    s = start(c, T0, first="black")
    assert s.black.moves_left is None and not s.black.in_overtime
    assert deadline(s, c) == T0 + 90_000  # main 60 s + the first block's 30 s
    t = T0
    # Black 70 s: main time out after 60 s; this move is the block's first and its 10 s past
    # the main time come off the block: 30 - 10 = 20 s for 3 - 1 = 2 moves.
    s, t, (r,) = play(s, c, t, [70 * S])
    assert (r.black_ms, r.black_moves_left, r.white_moves_left) == (20_000, 2, None)
    s, t, _ = play(s, c, t, [1 * S])
    assert deadline(s, c) == t + 20_000  # in a block: no more than the block's time
    # 5 s: 15 s for 1 move.
    s, t, (r,) = play(s, c, t, [5 * S])
    assert (r.black_ms, r.black_moves_left) == (15_000, 1)
    s, t, _ = play(s, c, t, [1 * S])
    # 14 s completes the block (1 s unused is lost): a new block of 3 moves in 30 s.
    s, t, (r,) = play(s, c, t, [14 * S])
    assert (r.black_ms, r.black_moves_left) == (30_000, 3)
    s, t, _ = play(s, c, t, [1 * S])
    with pytest.raises(FlagAlreadyFell) as e:
        press(s, c, "black", t + 30_001)
    assert e.value.deadline_ms == t + 30_000
    shown = overtime_left(s, "black", t + 12 * S)
    assert (shown["main_ms"], shown["moves_left"], shown["period_ms"]) == (18_000, 3, None)


def test_go_canadian_main_time_used_exactly_opens_a_fresh_block():
    # Real KGS control "600 25/600 Canadian": a move ending exactly as the 600 s run out is
    # made in main time, so the first block is still 25 moves in 600 s.
    c = TimeControl.preset("go-canadian-10-25/600")
    s = start(c, T0, first="black")
    s, r = press(s, c, "black", T0 + 600 * S)
    assert (r.black_ms, r.black_moves_left) == (600_000, 25)


def test_go_1988_art12_reserve():
    # Art. 12.2: "在时限内保留几分钟开始读秒 ... 凡一步棋用时不足一分钟的不计时间。每满一分钟则在
    # 保留时间内扣除一分钟，但不得用完规定时间"; 23.5: over the limit loses.
    # "180 reserve 2": a 180 s limit of which 2 minutes are kept: main time 60 s.
    c = tc("180 reserve 2")
    assert c.periods[0].base_ms == 60_000 and c.overtime == Overtime("reserve", 2, MINUTE_MS)
    s = start(c, T0, first="black")
    # Deadline: 60 000 + 2 x 60 000 - 1 = 179 999 ms: the limit may not be used up.
    assert deadline(s, c) == T0 + 179_999
    t = T0
    s, t, (r,) = play(s, c, t, [50 * S])  # main 10 s left
    assert (r.black_ms, r.black_periods_left) == (10_000, 2)
    s, t, _ = play(s, c, t, [1 * S])
    # 69.999 s: 10 s main + 59.999 s of 读秒 -> 59 999 // 60 000 = 0 minutes: costs nothing.
    s, t, (r,) = play(s, c, t, [69_999])
    assert (r.black_ms, r.black_periods_left) == (0, 2)
    s, t, _ = play(s, c, t, [1 * S])
    # Exactly 60 s is one full minute: 2 - 1 = 1 minute left.
    s, t, (r,) = play(s, c, t, [60 * S])
    assert r.black_periods_left == 1
    s, t, _ = play(s, c, t, [1 * S])
    # The last minute: 59.999 s is on time and keeps it; at 60 s it is "10，超时判负".
    assert deadline(s, c) == t + 59_999
    kept, r = press(s, c, "black", t + 59_999)
    assert r.black_periods_left == 1
    with pytest.raises(FlagAlreadyFell):
        press(s, c, "black", t + 60_000)
    # 42 s into the last minute the arbiter calls "还剩1分钟" with 18 s to go in it.
    assert overtime_left(s, "black", t + 42 * S)["period_ms"] == 18_000


def test_go_1988_reserve_several_minutes_in_one_move():
    # National preset: 3 h limit, 5 minutes kept: main 10 800 000 - 300 000 = 10 500 000 ms;
    # the start deadline is the whole limit less 1 ms: 10 799 999.
    c = TimeControl.preset("go-1988-12-national")
    assert c.to_pgn() == "10800 reserve 5" and c.periods[0].base_ms == 10_500_000
    s = start(c, T0, first="black")
    assert deadline(s, c) == T0 + 10_799_999
    # A move of main + 2 min 59.9 s: 179 900 // 60 000 = 2 full minutes -> 3 left.
    s, r = press(s, c, "black", T0 + 10_500_000 + 179_900)
    assert (r.black_ms, r.black_periods_left) == (0, 3)


def test_go_text_forms_round_trip_and_errors():
    for text in ("3600 5x30 byo-yomi", "0 3x30 byo-yomi", "600 25/600 Canadian",
                 "10800 reserve 5", "3600 reserve 1", "7200.5 10x60 byo-yomi"):
        assert tc(text).to_pgn() == text
    assert tc("3600 5x30 byoyomi") == tc("3600 5X30 BYO-YOMI") == tc("3600 5x30 byo-yomi")
    assert tc("25/600 Canadian") == tc("0 25/600 Canadian")
    # The PGN forms still parse as before.
    assert tc("40/5400+30:1800+30").overtime is None
    for bad, msg in [("3600 0x30 byo-yomi", "overtime count must be >= 1"),
                     ("3600 5x0 byo-yomi", "length_ms must be >= 1"),
                     ("60 reserve 2", "shorter than the 2 minute"),
                     ("3600 5x30 hourglass", "Go forms are"),
                     ("3600 101x30 byo-yomi", "over the limit of 100"),
                     ("0", "first period's base_ms must be > 0")]:
        with pytest.raises(ClockError, match=msg):
            TimeControl.parse(bad)
    with pytest.raises(ClockError, match="single main time"):
        TimeControl((Period(40, 5_400_000), Period(None, 1_800_000)), Overtime("byo-yomi", 5, 30_000))
    with pytest.raises(ClockError, match="whole minutes"):
        Overtime("reserve", 5, 30_000)
    # A state from a byo-yomi control does not fit an absolute one.
    s = start(tc("60 5x30 byo-yomi"), T0, first="black")
    with pytest.raises(ClockError, match="does not belong"):
        press(s, tc("60"), "black", T0 + 1)


def test_go_presets_parse():
    go = {k: v for k, v in PRESETS.items() if k.startswith("go-")}
    assert len(go) == 10
    for name in go:
        assert TimeControl.preset(name).to_pgn() == PRESETS[name]


def test_from_sgf_forms():
    assert from_sgf("7200", "3x60 byo-yomi") == tc("7200 3x60 byo-yomi")
    assert from_sgf("600", "25/600 Canadian") == tc("600 25/600 Canadian")
    assert from_sgf("1800", None) == tc("1800") and from_sgf("1800", "") == tc("1800")
    assert from_sgf(None, None) is None and from_sgf("0", None) is None
    # YuanYu 2015: TM in minutes: TM[60]LT[30]LC[3] = 3600 s + 3x30 s.
    assert from_sgf("60", None, lt="30", lc="3") == tc("3600 3x30 byo-yomi")
    # YuanYu 2018: TM in seconds, TC count, TT seconds.
    assert from_sgf("3600", None, tc="10", tt="60") == tc("3600 10x60 byo-yomi")
    assert from_sgf("3600", None, tc="", tt="") == tc("3600")
    for args, kw, msg in [(("abc", None), {}, "not a non-negative number"),
                          (("600", "5 moves per hour"), {}, "not a known overtime"),
                          (("600", "10800 reserve 5"), {}, "not a known overtime"),
                          (("60", None), {"lt": "30"}, "needs both LT")]:
        with pytest.raises(ClockError, match=msg):
            from_sgf(*args, **kw)


def test_from_sgf_on_every_real_record(shared_data):
    # Counts of the records' own properties (see data/PROVENANCE.md and the files): 31 KGS
    # OT[25/600 Canadian], 23 OT[20/120 Canadian], ...; the 5 Lee Sedol games TM[7200]
    # OT[3x60 byo-yomi]; the 5 Fan Hui games TM[60]LT[30]LC[3]; the Tencent 2018 TM/TC/TT.
    from collections import Counter

    from sgfmill import sgf

    root_dir = shared_data("data/go/sgf")
    seen: Counter = Counter()
    for path in sorted(root_dir.rglob("*")):
        if path.suffix.lower() != ".sgf":
            continue
        root = sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()
        props = {p: root.get_raw(p).decode("utf-8", "replace") if root.has_property(p) else None
                 for p in ("TM", "OT", "LT", "LC", "TT", "TC")}
        control = from_sgf(props["TM"], props["OT"], lt=props["LT"], lc=props["LC"],
                           tt=props["TT"], tc=props["TC"])
        seen[control.to_pgn() if control else "-"] += 1
    blocks = Counter()
    for k, n in seen.items():
        if k.endswith(" Canadian"):
            blocks[k.split(" ", 1)[1]] += n
    assert blocks == {"25/600 Canadian": 31, "20/120 Canadian": 23, "25/300 Canadian": 10,
                      "25/480 Canadian": 5, "20/300 Canadian": 1}
    assert seen["7200 3x60 byo-yomi"] == 5
    assert seen["3600 3x30 byo-yomi"] == 5
    assert seen["1800 5x60 byo-yomi"] == 64 and seen["2400 30x30 byo-yomi"] == 25
    assert seen["2400 10x30 byo-yomi"] == 10 and seen["3600 10x60 byo-yomi"] == 7
    assert seen["600 5x60 byo-yomi"] == 2
    assert seen["300 2x30 byo-yomi"] == 1 and seen["900 5x30 byo-yomi"] == 1
    # 192 records; one KGS game has TM[600] and no OT (absolute), one has neither (untimed).
    assert sum(seen.values()) == 192 and seen["600"] == 1 and seen["-"] == 1


def test_go_lateness_art_23():
    # Event limit 15 min.  "10800 reserve 5": main 10 500 000 ms.  Black's clock runs from the
    # start; White arrives 10 min late after Black's first move -> 23.3: deduct 600 000.
    c = TimeControl.preset("go-1988-12-national")
    s = start(c, T0, first="black")
    kind, after = lateness(s, "white", 10 * MIN, 15 * MIN)
    assert kind == "deducted" and after.white.remaining_ms == 10_500_000 - 600_000
    assert after.black == s.black
    # Exactly at the limit is not past it (23.1 "超过"): still deducted.
    assert lateness(s, "white", 15 * MIN, 15 * MIN)[0] == "deducted"
    # 15 min 1 ms: past the limit -> forfeit, clock unchanged (23.1).
    kind, same = lateness(s, "white", 15 * MIN + 1, 15 * MIN)
    assert kind == "forfeit" and same == s
    assert lateness(s, "white", 0, 15 * MIN) == ("on-time", s)
    with pytest.raises(ClockError, match="late_ms must be >= 0"):
        lateness(s, "white", -1, 15 * MIN)
    # Byo-yomi "60 5x30": a 2 min deduction takes the 60 s main time, then 60 s = two full
    # 30 s periods -> 3 left; the player is in byo-yomi.
    b = start(tc("60 5x30 byo-yomi"), T0, first="black")
    kind, after = lateness(b, "white", 2 * MIN, 15 * MIN)
    assert (after.white.remaining_ms, after.white.periods_left, after.white.in_overtime) == (0, 3, True)
    # 60 s + 150 s = 210 s removes every period: the flag falls (23.5).
    kind, out = lateness(b, "white", 210 * S, 15 * MIN, at_ms=T0 + 5 * S)
    assert out.flagged == "white" and out.flagged_at == T0 + 5 * S
    assert (out.white.periods_left, out.black.remaining_ms) == (0, 55_000)


def test_go_adjust_and_stop_with_overtime():
    c = tc("60 3/30 Canadian")
    s = start(c, T0, first="black")
    s, _ = press(s, c, "black", T0 + 70 * S)  # black in a block: 20 s for 2 moves
    # A 5 s bonus goes to the block: 25 s; a 30 s penalty is more than the block: flag.
    assert adjust(s, "black", 5 * S).black.remaining_ms == 25_000
    assert adjust(s, "black", -30 * S).flagged == "black"
    # stop after White thinks 65 s: 60 s main + 5 s of White's first block (no move counted).
    st = stop(s, T0 + 135 * S)
    assert (st.white.remaining_ms, st.white.moves_left, st.running) == (25_000, 3, None)


# ----------------------------------------------------------------------- Go in the clock service
def _go_service_events(time_control: str, start_text: str):
    from contracts.envelope import Actor, dt_of
    from contracts.messages import GameStarted, MoveAccepted, envelope
    from services.clock.service import ClockCore

    core = ClockCore()
    svc = Actor(kind="service", id="validation")

    def ev(payload, at: int, seq: int):
        return envelope(payload, stream="game-g1", seq=seq, occurred_at=dt_of(T0 + at), actor=svc)

    [started] = core.handle(ev(GameStarted(game_id="g1", white="w", black="b", start_fen=start_text,
                                           time_control=time_control, game="go"), 0, 1))

    def move(ply: int, colour: str, at: int):
        [e] = core.handle(ev(MoveAccepted(game_id="g1", ply=ply, player_id=colour[0], colour=colour,
                                          uci="D4", san="D4", fen_after=start_text), at, ply + 1))
        return e.payload
    return core, started.payload, move


def test_go_service_byoyomi_black_first_and_flag_rule():
    # Black's clock starts ("go 9 ... black ..."); "0 3x30 byo-yomi": deadline 90 s.
    core, started, move = _go_service_events("0 3x30 byo-yomi",
                                             "go 9 chinese black ko=- passes=0 prisoners=0,0 B: W:")
    assert (started.running, started.deadline_ms) == ("black", T0 + 90_000)
    # Black 45 s: (45 000 - 1) // 30 000 = 1 period used -> 2 left; White still has 3.
    u = move(1, "black", 45_000)
    assert (u.black_periods_left, u.white_periods_left, u.black_ms, u.running) == (2, 3, 0, "white")
    assert u.deadline_ms == T0 + 45_000 + 90_000
    # White lets all 3 periods pass: FlagFell at the deadline, citing 1988 art. 23.5.
    from contracts.envelope import Actor, dt_of
    from contracts.messages import envelope

    [check] = core.due(T0 + 45_000 + 90_000 + 1_000)
    [fell] = core.handle(envelope(check, stream="game-g1.timer", seq=1, occurred_at=dt_of(
        T0 + 136_000), actor=Actor(kind="service", id="clock")))
    assert fell.payload.colour == "white" and fell.payload.deadline_ms == T0 + 135_000
    assert (fell.payload.rule.game, fell.payload.rule.article) == ("go", "23.5")


def test_go_service_handicap_white_first_canadian():
    # Handicap stones placed: White moves first ("go 19 chinese white ...").
    core, started, move = _go_service_events(
        "600 25/600 Canadian", "go 19 chinese white ko=- passes=0 prisoners=0,0 B:dp,pd W:")
    assert (started.running, started.deadline_ms) == ("white", T0 + 1_200_000)
    # White uses 610 s: main 600 s out, 10 s from the first block: 590 000 ms for 24 moves.
    u = move(1, "white", 610_000)
    assert (u.white_ms, u.white_moves_left, u.black_moves_left) == (590_000, 24, None)


def test_a_time_control_longer_than_any_real_one_is_refused_without_echoing_it():
    from services.clock.core import ClockError, TimeControl

    with pytest.raises(ClockError, match=r"^TimeControl of 1,000,000 characters: at most 200$"):
        TimeControl.parse("q" * 1_000_000)
    assert TimeControl.parse("40/5400+30:1800+30") is not None  # a real FIDE control still parses


# ------------------------------------------------------------------------------ arbiter pause
# FIDE 1994 art. 12.5 and 2023 art. 6.11.1 / 6.11.3: the arbiter stops the clocks when the game
# must be interrupted and decides when it restarts; the clocks then go on as they stood.
def test_pause_and_resume_sudden_death_moves_the_deadline_by_the_pause():
    c = tc("300")
    s = start(c, T0)
    p = pause(s, c, T0 + 10 * S)  # 10 s used, 290 s left
    assert deadline(p, c) is None and check_flag(p, c, T0 + 400 * S) is None  # no flag falls
    assert remaining_at(p, c, "white", T0 + 400 * S) == 290_000  # the clock stands still
    with pytest.raises(ClockError, match="paused"):
        press(p, c, "white", T0 + 20 * S)
    with pytest.raises(ClockError, match="already paused"):
        pause(p, c, T0 + 20 * S)
    # Resumed after 10 min: 290 s left from T0 + 610 s.
    r = resume(p, T0 + 610 * S)
    assert deadline(r, c) == T0 + 610_000 + 290_000
    s, reading = press(r, c, "white", T0 + 615 * S)  # 5 s more: 285 s, the pause not charged
    assert (reading.elapsed_ms, reading.white_ms) == (15_000, 285_000)


def test_pause_errors():
    c = tc("300")
    s = start(c, T0)
    with pytest.raises(ClockError, match="not paused"):
        resume(s, T0 + 1)
    p = pause(s, c, T0 + 5 * S)
    with pytest.raises(ClockError, match="before the pause"):
        resume(p, T0 + 4 * S)
    with pytest.raises(ClockError, match="stopped"):
        pause(stop(s, T0 + 1), c, T0 + 2)
    # Paused 1 ms after the deadline: the flag had fallen, it decides the game.
    with pytest.raises(FlagAlreadyFell) as e:
        pause(s, c, T0 + 300_001)
    assert e.value.deadline_ms == T0 + 300_000


def test_pause_exactly_at_the_deadline_flags_at_the_resumption():
    c = tc("300")
    s = start(c, T0)
    p = pause(s, c, T0 + 300_000)  # the clock shows 0 but the flag has not fallen
    r = resume(p, T0 + 900_000)
    assert check_flag(r, c, T0 + 900_000) == T0 + 900_000
    with pytest.raises(FlagAlreadyFell):
        press(r, c, "white", T0 + 900_000)


def test_stop_during_a_pause_charges_up_to_the_pause():
    c = tc("300")
    p = pause(start(c, T0), c, T0 + 10 * S)
    assert stop(p, T0 + 500 * S).white.remaining_ms == 290_000


def test_pause_keeps_the_part_of_a_simple_delay_already_used():
    # 300d5: paused 3 s into the move (3 s of the 5 s delay used), resumed 60 s later; a move
    # 1.5 s after it took 4.5 s on the clock: inside the delay, nothing charged. The deadline
    # after the resumption: 2 s of delay + 300 s.
    c = tc("300d5")
    r = resume(pause(start(c, T0), c, T0 + 3 * S), T0 + 63 * S)
    assert deadline(r, c) == T0 + 63_000 + 2_000 + 300_000
    assert remaining_at(r, c, "white", T0 + 65 * S) == 300_000  # 5 s on the clock: delay
    assert remaining_at(r, c, "white", T0 + 65_001) == 299_999
    _, reading = press(r, c, "white", T0 + 64_500)
    assert (reading.elapsed_ms, reading.charged_ms, reading.white_ms) == (4_500, 0, 300_000)


def test_pause_bronstein_adds_back_only_the_time_on_the_clock():
    # 300b5: paused 3 s in, resumed 60 s later, move 4 s after: 7 s on the clock,
    # 300 000 - 7 000 + min(7 000, 5 000) = 298 000.
    c = tc("300b5")
    r = resume(pause(start(c, T0), c, T0 + 3 * S), T0 + 63 * S)
    assert deadline(r, c) == T0 + 63_000 + 297_000
    _, reading = press(r, c, "white", T0 + 67 * S)
    assert (reading.elapsed_ms, reading.delay_credit_ms, reading.white_ms) == (7_000, 5_000, 298_000)


def test_pause_carries_byo_yomi_periods_and_the_time_into_the_period():
    # "0 3x30 byo-yomi": Black paused 20 s into its first period, resumed 10 min later.
    # 9 s more is 29 s into the period: kept (3 left); 11 s more is 31 s: one used (2 left).
    c = tc("0 3x30 byo-yomi")
    s = start(c, T0, first="black")
    r = resume(pause(s, c, T0 + 20 * S), T0 + 620 * S)
    assert overtime_left(r, "black", T0 + 620 * S)["period_ms"] == 10_000
    assert deadline(r, c) == T0 + 620_000 + 70_000
    assert press(r, c, "black", T0 + 629 * S)[1].black_periods_left == 3
    assert press(r, c, "black", T0 + 631 * S)[1].black_periods_left == 2


def test_pause_carries_canadian_stones_and_block_time():
    # "0 3/30 Canadian": Black plays a stone in 10 s (2 to go, 20 s left in the block); paused
    # 5 s into its next stone, resumed 10 min later; the stone 3 s after: 2 - 1 = 1 stone to go,
    # 20 000 - 8 000 = 12 000 ms left in the block.
    c = tc("0 3/30 Canadian")
    s = start(c, T0, first="black")
    s, _ = press(s, c, "black", T0 + 10 * S)
    s, _ = press(s, c, "white", T0 + 11 * S)
    r = resume(pause(s, c, T0 + 16 * S), T0 + 616 * S)
    assert deadline(r, c) == T0 + 616_000 + 15_000
    _, reading = press(r, c, "black", T0 + 619 * S)
    assert (reading.black_moves_left, reading.black_ms) == (1, 12_000)


def test_pause_of_the_1988_reserve():
    # "60 reserve 1" (Chinese Go rules 1988 art. 12.2): main time 0, one reserved minute; the
    # last on-time ms is 59 999 into it. Paused at 50 s, resumed 10 min later: 9 999 ms left.
    c = tc("60 reserve 1")
    r = resume(pause(start(c, T0, first="black"), c, T0 + 50 * S), T0 + 650 * S)
    assert deadline(r, c) == T0 + 650_000 + 9_999


# ------------------------------------------------------------------- delays, to the millisecond
@pytest.mark.parametrize("elapsed, simple_ms, bronstein_ms", [
    # 300 000 ms main time, 5 000 ms delay. Simple: the first 5 000 ms of the move are free;
    # Bronstein: the clock runs from the first ms and min(elapsed, 5 000) comes back.
    (0, 300_000, 300_000),
    (1, 300_000, 300_000),
    (4_999, 300_000, 300_000),
    (5_000, 300_000, 300_000),
    (5_001, 299_999, 299_999),
    (300_000, 5_000, 5_000),  # Bronstein: exactly at its deadline
    (305_000, 0, None),  # simple: exactly at its deadline; Bronstein: 5 000 ms late
])
def test_simple_and_bronstein_delay_to_the_millisecond(elapsed, simple_ms, bronstein_ms):
    for text, after, due in (("300d5", simple_ms, 305_000), ("300b5", bronstein_ms, 300_000)):
        c = tc(text)
        s = start(c, T0)
        assert deadline(s, c) == T0 + due
        if after is None:
            with pytest.raises(FlagAlreadyFell):
                press(s, c, "white", T0 + elapsed)
            continue
        s2, _ = press(s, c, "white", T0 + elapsed)
        assert s2.white.remaining_ms == after, text


def test_delay_display_to_the_millisecond():
    # What the clock shows mid-move: simple delay holds 300 000 for 5 s, Bronstein counts at once.
    s, b = tc("300d5"), tc("300b5")
    assert [remaining_at(start(s, T0), s, "white", T0 + t) for t in (1, 5_000, 5_001)] == [
        300_000, 300_000, 299_999]
    assert [remaining_at(start(b, T0), b, "white", T0 + t) for t in (1, 5_000, 5_001)] == [
        299_999, 295_000, 294_999]


# ------------------------------------------------------------------ multi-period, exactly
def test_time_added_after_move_n_and_increment_only_from_the_third_period():
    # FIDE World Championship control: 120 min for 40 moves, 60 min for the next 20, then
    # 15 min for the rest with 30 s a move from move 61 (PGN "40/7200:20/3600:900+30").
    c = tc("40/7200:20/3600:900+30")
    s = start(c, T0)
    assert s.white.remaining_ms == 7_200_000  # no increment before move 1
    # Each side 60 s a move. White's 40th press: 7 200 000 - 40 x 60 000 + 3 600 000
    # = 8 400 000.
    s, t, rs = play(s, c, T0, [60 * S] * 79)  # White 40 moves, Black 39
    assert rs[-1].mover == "white" and rs[-1].moves_made == 40
    assert (rs[-1].white_ms, rs[-1].period_bonus_ms, rs[-1].increment_ms) == (8_400_000, 3_600_000, 0)
    # Black's 40th move is not made yet: its flag falls on its period's time alone (the
    # 60 min come with the press, 1994 art. 6.5 / 10.14).
    assert deadline(s, c) == t + 4_860_000  # 7 200 000 - 39 x 60 000
    # Moves 41-60 (20 each): 8 400 000 - 20 x 60 000 = 7 200 000, then + 900 000 + 30 000 for
    # move 61 at the 60th press = 8 130 000.
    s, t, rs = play(s, c, t, [60 * S] * 41)  # Black 40..60, White 41..60
    white = [r for r in rs if r.mover == "white"]
    assert [r.increment_ms for r in white[:-1]] == [0] * 19
    assert (white[-1].moves_made, white[-1].white_ms, white[-1].period_bonus_ms,
            white[-1].increment_ms, white[-1].period_index) == (60, 8_130_000, 900_000, 30_000, 2)
    # Move 61, 10 s: 8 130 000 - 10 000 + 30 000 = 8 150 000.
    s, t, rs = play(s, c, t, [10 * S])
    assert (rs[-1].mover, rs[-1].moves_made, rs[-1].white_ms) == ("white", 61, 8_150_000)
