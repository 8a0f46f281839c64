"""``arbiter up``'s restart budget (:func:`services.tools.supervisor.restart_allowed`)."""
from __future__ import annotations

from services.tools.supervisor import restart_allowed


def test_a_restart_loop_stops_at_the_sixth_death_within_the_window():
    deaths: list[float] = []
    assert [restart_allowed(deaths, t, 5, 600.0) for t in (0, 10, 20, 30, 40, 50)] == [
        True, True, True, True, True, False]


def test_deaths_further_apart_than_the_window_never_add_up():
    """A platform that runs for weeks: one crash a day is restarted every time."""
    deaths: list[float] = []
    assert all(restart_allowed(deaths, day * 86_400.0, 5, 600.0) for day in range(30))
    assert len(deaths) == 1  # only the latest is remembered


def test_old_deaths_leave_the_window():
    deaths: list[float] = []
    for t in (0, 1, 2, 3, 4):
        assert restart_allowed(deaths, t, 5, 600.0)
    assert not restart_allowed(deaths, 5, 5, 600.0)  # six in the window
    assert restart_allowed(deaths, 603.5, 5, 600.0)  # 0..3 have left it: 4, 5 and 603.5 remain
    assert deaths == [4, 5, 603.5]
