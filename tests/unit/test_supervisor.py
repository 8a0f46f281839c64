"""``arbiter up``'s restart budget (:func:`services.tools.supervisor.restart_allowed`) and its
instances' life (:func:`services.tools.supervisor.spawn`)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl(PR_SET_PDEATHSIG) is Linux's")
def test_an_instance_does_not_outlive_a_supervisor_killed_with_sigkill(tmp_path):
    """A test run or ``arbiter up`` killed with SIGKILL left its instances running, holding
    their ports (found as orphans after an interrupted test run). The kernel now stops them."""
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent("""
        import sys, time
        from services.tools.supervisor import spawn
        print(spawn("gateway", "memory", 18_497).pid, flush=True)
        time.sleep(120)
        """)], stdout=subprocess.PIPE, text=True, cwd=os.getcwd())
    child = int(parent.stdout.readline())
    time.sleep(1.0)
    assert _alive(child)
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.time() + 20
    while _alive(child) and time.time() < deadline:
        time.sleep(0.1)
    alive = _alive(child)
    if alive:
        os.kill(child, signal.SIGKILL)
    assert not alive, "the instance outlived its supervisor"


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its new parent to reap it has ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_an_instance_started_beside_a_folder_named_like_our_package_imports_ours(tmp_path, monkeypatch):
    """``arbiter up`` run from the folder that holds the data (``../shared`` of the README's
    layout) started its instances there, and ``python -m`` put that folder first on
    ``sys.path``: its ``shared/`` hid the code package (``No module named 'shared.rules.games'``,
    reported as "is Kafka up?"; a helper's finding). The instance gets as far as the broker,
    and says which files it imported (``PYTHONVERBOSE``)."""
    from services.tools.supervisor import spawn

    for var in ("ARBITER_SNAPSHOT_KEY", "ARBITER_WEBHOOK_KEY", "ARBITER_SIGNING_KEY", "ARBITER_VERIFY_KEYS"):
        monkeypatch.setenv(var, os.environ.get(var, ""))  # spawn draws keys into os.environ: restored after
    (tmp_path / "shared" / "rules").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONVERBOSE", "1")
    p = spawn("game", "kafka://127.0.0.1:1", 18_498, output=subprocess.PIPE)
    try:
        _, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert b"ModuleNotFoundError" not in err
    assert b"game: no Kafka broker answers at kafka://127.0.0.1:1" in err  # it got that far
    # and it ran this tree's code, not another checkout's the environment may have installed
    from services.tools.supervisor import CODE_ROOT
    assert f"{CODE_ROOT}/shared/eventlog/kafka.py".encode() in err


def test_arbiter_up_on_ports_in_use_stops_at_once_with_one_line(monkeypatch, capsys):
    """A second ``arbiter up`` on the ports of a running one printed the first one's ready
    banner (its /healthz answered) and then restarted its own instances, which could not
    listen, five times each (a helper's finding). Now it names the ports and starts nothing."""
    import socket

    import services.tools.supervisor as supervisor

    started = []
    monkeypatch.setattr(supervisor, "start_all", lambda *a, **kw: started.append(a) or {})
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        assert supervisor.taken_ports([port]) == [port]
        code = supervisor.run_all("kafka://127.0.0.1:1", base_port=port - 1)
    err = capsys.readouterr().err
    assert code == 1 and started == []
    assert err.startswith("arbiter up: port") and str(port) in err.split(" in use")[0], err
    assert len(err.strip().splitlines()) == 1, err
    assert supervisor.taken_ports([port]) == []  # closed: free again
