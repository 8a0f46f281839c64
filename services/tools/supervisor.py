"""``arbiter up``: the six services and the gateway as separate processes on Kafka."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import httpx

from shared.runner import PORTS
from shared.system import SERVICES


def start_all(bus: str, base_port: int = 8000) -> dict[str, tuple[subprocess.Popen, int]]:
    """Start every service (``python -m services.<name>``); returns name -> (process, port)."""
    procs = {}
    for i, name in enumerate(("gateway",) + SERVICES):
        port = base_port + i
        procs[name] = (subprocess.Popen([sys.executable, "-m", f"services.{name}", "--bus", bus,
                                         "--port", str(port)]), port)
    return procs


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
    for p, _ in procs.values():
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p, _ in procs.values():
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()


def run_all(bus: str, base_port: int = 8000) -> int:
    """Start all, report, and run until Ctrl-C or a service dies; exit code."""
    procs = start_all(bus, base_port)
    try:
        missing = wait_ready(procs)
        if missing:
            print(f"arbiter up: not ready: {', '.join(missing)}", file=sys.stderr)
            return 1
        for name, (_, port) in procs.items():
            print(f"{name:13s} http://127.0.0.1:{port}/healthz")
        print(f"gateway API: http://127.0.0.1:{procs['gateway'][1]}/docs  (Ctrl-C stops)")
        while all(p.poll() is None for p, _ in procs.values()):
            time.sleep(0.5)
        dead = [n for n, (p, _) in procs.items() if p.poll() is not None]
        print(f"arbiter up: {', '.join(dead)} stopped", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        stop_all(procs)
