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
    pgn_tag,
    press,
    remaining_at,
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

    # White now has exactly 0 and no increment: its next turn has no time at all.
    s2, _ = press(on_time, c, "black", due + 1_000)
    assert deadline(s2, c) == due + 1_000
    assert check_flag(s2, c, due + 1_001) == due + 1_000


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
