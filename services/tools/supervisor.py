"""``arbiter up``: the game and tournament processes and the gateway on Kafka."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import httpx

from shared.system import SERVICES


def _spawn(name: str, bus: str, port: int) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", f"services.{name}", "--bus", bus, "--port", str(port)])


def start_all(bus: str, base_port: int = 8000) -> dict[str, tuple[subprocess.Popen, int]]:
    """Start every service (``python -m services.<name>``); returns name -> (process, port).
    The gateway gets ``base_port``, the processes the next ports."""
    return {name: (_spawn(name, bus, base_port + i), base_port + i)
            for i, name in enumerate(("gateway",) + SERVICES)}


def wait_ready(procs, timeout: float = 60.0) -> list[str]:
    """Wait until every service answers /healthz ready; returns the names that did not."""
    end = time.time() + timeout
    pending = dict(procs)
    while pending and time.time() < end:
        for name, (p, port) in list(pending.items()):
            if p.poll() is not None:
                continue
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                if r.status_code == 200 and r.json().get("ready"):
                    del pending[name]
            except httpx.HTTPError:
                pass
        time.sleep(0.2)
    return sorted(pending)


def stop_all(procs) -> None:
    """SIGTERM every running service, then SIGKILL what is still up after 15 s."""
    for p, _ in procs.values():
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p, _ in procs.values():
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()


def run_all(bus: str, base_port: int = 8000, max_restarts: int = 5) -> int:
    """Start all, report, and supervise until Ctrl-C or SIGTERM: a service that dies is started
    again (it recovers its state from the log), at most ``max_restarts`` times each. Every
    service is stopped on the way out. Returns the exit code."""
    procs = start_all(bus, base_port)
    restarts = {name: 0 for name in procs}

    def _term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _term)
    try:
        missing = wait_ready(procs)
        if missing:
            print(f"arbiter up: not ready after 60 s: {', '.join(missing)} (is Kafka at {bus} up?)",
                  file=sys.stderr)
            return 1
        for name, (_, port) in procs.items():
            print(f"{name:13s} http://127.0.0.1:{port}/healthz")
        print(f"gateway API: http://127.0.0.1:{procs['gateway'][1]}/docs  (Ctrl-C stops)", flush=True)
        while True:
            time.sleep(0.5)
            for name, (p, port) in list(procs.items()):
                if p.poll() is None:
                    continue
                if restarts[name] >= max_restarts:
                    print(f"arbiter up: {name} died {restarts[name] + 1} times; stopping", file=sys.stderr)
                    return 1
                restarts[name] += 1
                print(f"arbiter up: {name} exited with {p.returncode}; restarting "
                      f"({restarts[name]}/{max_restarts})", file=sys.stderr, flush=True)
                procs[name] = (_spawn(name, bus, port), port)
    except KeyboardInterrupt:
        return 0
    finally:
        stop_all(procs)
