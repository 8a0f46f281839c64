"""``arbiter up``: the game and tournament processes and the gateway on Kafka, each as one or
more instances (separate processes; the back-end instances of a process share its consumer
group and split its partitions), and the webhooks process (one instance)."""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import httpx

from shared.sealing import KEY_ENV
from services.system import SERVICES

Procs = dict[str, tuple[subprocess.Popen, int]]


def process_name(instance: str) -> str:
    """``game`` of ``game`` or ``game#2``: the process an instance name runs."""
    return instance.split("#", 1)[0]


def ensure_keys() -> str:
    """The keys a run shares among the processes it starts, drawn into the environment where
    it has none: the snapshot key (``ARBITER_SNAPSHOT_KEY``: they load each other's
    snapshots), the webhook key (the gateway's subscription secrets and the webhooks process's
    signatures derive from it) and the checkpoint signing key (:func:`ensure_signing_key`,
    whose drawn public key is returned, else "")."""
    if not os.environ.get(KEY_ENV):
        os.environ[KEY_ENV] = secrets.token_hex(32)
    if not os.environ.get("ARBITER_WEBHOOK_KEY"):
        os.environ["ARBITER_WEBHOOK_KEY"] = secrets.token_hex(32)
    return ensure_signing_key()


def ensure_signing_key() -> str:
    """Without ``ARBITER_SIGNING_KEY`` in the environment, draw one for the processes this one
    starts (they listen on loopback only without a configured key) and trust its public key
    in ``ARBITER_VERIFY_KEYS`` (an audit run from here verifies their checkpoints). Returns
    the public key drawn, or "" when the environment had a key."""
    if os.environ.get("ARBITER_SIGNING_KEY"):
        return ""
    from shared.signing import new_key

    private, public = new_key()
    os.environ["ARBITER_SIGNING_KEY"] = private
    os.environ["ARBITER_VERIFY_KEYS"] = ",".join(
        k for k in (os.environ.get("ARBITER_VERIFY_KEYS", ""), public) if k)
    return public


#: The folder holding this code's packages (services, shared, contracts): the instances import
#: from it.
CODE_ROOT = str(Path(__file__).resolve().parents[2])


def spawn(instance: str, bus: str, port: int, restarts: int = 0, env: Mapping[str, str] | None = None,
          output=None) -> subprocess.Popen:
    """Start one instance (``python -m services.<process>``) with its HTTP port; ``restarts``
    (how often it was started again) is handed over in ``ARBITER_RESTARTS`` for its
    ``/healthz`` and ``arbiter_restarts_total``; ``env``: more environment (``ARBITER_*``
    settings of :mod:`services.runner`); ``output``: where its stdout and stderr go. Without
    ``ARBITER_SNAPSHOT_KEY`` in the environment one is drawn for this supervisor's processes
    (:mod:`shared.sealing`): they load each other's snapshots while it runs; likewise a
    checkpoint signing key (:func:`ensure_signing_key`) and a webhook key (the gateway's
    subscription secrets and the webhooks process's signatures derive from it).

    On Linux the instance gets SIGTERM (a graceful stop) when the thread that started it
    ends, so no instance outlives a supervisor or a test run killed with SIGKILL: call it
    from a thread that lives as long as the instances should (the main thread)."""
    ensure_keys()
    # -P: the working directory is not put first on sys.path; where the caller stands beside
    # a folder named like a package of ours (../shared, the data), it would hide the package.
    # The tree this code runs from goes first instead, so that the instances run the same code
    # (a checkout beside the one the environment has installed: a worktree, a clone)
    path = os.pathsep.join(p for p in (CODE_ROOT, os.environ.get("PYTHONPATH")) if p)
    return subprocess.Popen([sys.executable, "-P", "-m", f"services.{process_name(instance)}",
                             "--bus", bus, "--port", str(port)],
                            env={**os.environ, "PYTHONPATH": path, "ARBITER_RESTARTS": str(restarts),
                                 **(env or {})},
                            stdout=output, stderr=output, preexec_fn=_stop_with_parent())


def _stop_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` asking the kernel for SIGTERM when the parent dies (``prctl(2)``
    ``PR_SET_PDEATHSIG``), or None where there is no such call (not Linux). libc is loaded
    here, in the parent: the child only makes the call."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def stop_with_parent() -> None:
        prctl(1, int(signal.SIGTERM), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the parent died before the call: no signal will come
            os._exit(1)
    return stop_with_parent


def start_all(bus: str, base_port: int = 8000, instances: Mapping[str, int] | None = None) -> Procs:
    """Start the gateway, every process and the webhooks process; ``instances`` (process ->
    count, default 1 each; the gateway may have several too; webhooks one at most). Returns
    instance name (``game``, ``game#2`` ...) -> (process, HTTP port); ports count up from
    ``base_port`` (the first gateway's)."""
    return {inst: (spawn(inst, bus, base_port + k), base_port + k)
            for k, inst in enumerate(instance_names(instances))}


def instance_names(instances: Mapping[str, int] | None = None) -> list[str]:
    """The instances :func:`start_all` starts, in port order: ``gateway``, ``game``,
    ``game#2`` ..., ``tournament``, ``webhooks``."""
    counts = {name: (instances or {}).get(name, 1) for name in ("gateway",) + SERVICES + ("webhooks",)}
    return [name if i == 0 else f"{name}#{i + 1}" for name, n in counts.items() for i in range(n)]


def taken_ports(ports: Iterable[int], host: str = "127.0.0.1") -> list[int]:
    """Those of ``ports`` on ``host`` where something listens already: a bind fails with
    SO_REUSEADDR set, as the instances bind (a port's closed connections do not count)."""
    import socket

    taken = []
    for port in ports:
        with socket.socket() as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                s.bind((host, port))
            except OSError:
                taken.append(port)
    return taken


def health(port: int) -> dict | None:
    """The ``/healthz`` body of the instance on ``port``, or None when it does not answer."""
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).json()
    except (httpx.HTTPError, ValueError):
        return None


def wait_ready(procs: Procs, timeout: float | None = 60.0,
               progress: Callable[[str, dict], None] | None = None) -> list[str]:
    """Wait until every instance answers ``/healthz`` ready; returns the names that did not
    (dead, or not ready within ``timeout`` seconds; None: wait as long as they live and report
    progress). ``progress(name, health)`` is called about once a second per instance still
    restoring."""
    end = None if timeout is None else time.time() + timeout
    pending = dict(procs)
    last = 0.0
    while pending and (end is None or time.time() < end):
        for name, (p, port) in list(pending.items()):
            if p.poll() is not None:
                if end is None:
                    return sorted(pending)
                continue
            h = health(port)
            if h is not None and h.get("ready"):
                del pending[name]
            elif h is not None and progress is not None and time.time() - last >= 1.0:
                progress(name, h)
        if progress is not None and time.time() - last >= 1.0:
            last = time.time()
        time.sleep(0.2)
    return sorted(pending)


def stop_all(procs: Procs) -> None:
    """SIGTERM every running instance, then SIGKILL what is still up after 15 s."""
    for p, _ in procs.values():
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p, _ in procs.values():
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()


def _show_progress(name: str, h: dict) -> None:
    restoring = h.get("restoring") or {}
    parts = ", ".join(f"p{k} {v.get('phase')} {v.get('messages', 0)}/{v.get('to_replay', '?')}"
                      for k, v in sorted(restoring.items()))
    print(f"arbiter up: {name} restoring {parts or 'waiting for its partitions'}", file=sys.stderr,
          flush=True)


def restart_allowed(deaths: list[float], now: float, max_restarts: int, window_s: float) -> bool:
    """Whether an instance that died at ``now`` (monotonic s) is started again: fewer than
    ``max_restarts`` of its ``deaths`` (their times; ``now`` is added, older ones dropped) fall
    in the last ``window_s`` seconds. A restart loop stops; deaths hours apart never add up to
    it (systemd's StartLimitBurst within StartLimitIntervalSec)."""
    deaths[:] = [t for t in deaths if now - t < window_s] + [now]
    return len(deaths) <= max_restarts


def run_all(bus: str, base_port: int = 8000, max_restarts: int = 5,
            instances: Mapping[str, int] | None = None, window_s: float = 600.0) -> int:
    """Start all, wait until each instance reports ready (restoring state takes as long as it
    takes: progress is printed), and supervise until Ctrl-C or SIGTERM: an instance that dies
    is started again (it restores its partitions from snapshot + tail), at most
    ``max_restarts`` times within ``window_s`` seconds (:func:`restart_allowed`; each restart
    is reported by the instance: ``/healthz`` ``restarts`` and ``arbiter_restarts_total``).
    Returns the exit code."""
    ports = range(base_port, base_port + len(instance_names(instances)))
    if taken := taken_ports(ports):  # else its /healthz answers for ours: "ready", then restarts
        print(f"arbiter up: port{'s' * (len(taken) > 1)} {', '.join(map(str, taken))} in use "
              f"(another arbiter up?): stop it, or give --port (this run takes {ports[0]}-{ports[-1]})",
              file=sys.stderr)
        return 1
    drawn = ensure_signing_key()
    if drawn:
        print(f"arbiter up: no ARBITER_SIGNING_KEY: this run signs its checkpoints with a key of "
              f"its own; audit them with --verify-key {drawn}", file=sys.stderr)
    procs = start_all(bus, base_port, instances)
    restarts = {name: 0 for name in procs}
    deaths: dict[str, list[float]] = {name: [] for name in procs}

    def _term(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _term)
    try:
        dead = wait_ready(procs, timeout=None, progress=_show_progress)
        if dead:
            print(f"arbiter up: {', '.join(dead)} exited while starting (is Kafka at {bus} up?)",
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
                if not restart_allowed(deaths[name], time.monotonic(), max_restarts, window_s):
                    print(f"arbiter up: {name} died {len(deaths[name])} times in {window_s:.0f} s; "
                          "stopping", file=sys.stderr)
                    return 1
                restarts[name] += 1
                print(f"arbiter up: {name} exited with {p.returncode}; restarting "
                      f"({len(deaths[name])}/{max_restarts} in {window_s:.0f} s)", file=sys.stderr, flush=True)
                procs[name] = (spawn(name, bus, port, restarts[name]), port)
    except KeyboardInterrupt:
        return 0
    finally:
        stop_all(procs)
