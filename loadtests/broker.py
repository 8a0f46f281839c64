"""A Kafka broker of a test's or a benchmark's own (never the one ``make kafka-up`` runs):
``deploy/kafka/kafka.sh`` on free ports with a fresh data folder."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _free_ports(n: int) -> list[int]:
    """``n`` distinct TCP ports on 127.0.0.1 that nothing listens on now (bound to port 0 and
    released; a port the kernel hands out is never one a running broker listens on)."""
    import socket

    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class LocalBroker:
    """A broker of the test's own: ``deploy/kafka/kafka.sh`` (Maven-fetched jars, KRaft,
    127.0.0.1) on free ports (``KAFKA_PORT``, ``KAFKA_CONTROLLER_PORT``) with a fresh data
    folder (``KAFKA_DATA_DIR``); ``KAFKA_JVM_OPTS`` from the environment if set. :meth:`up`
    starts it (again, on the same data after :meth:`kill`), :meth:`kill` stops it at once
    (SIGKILL: an outage), :meth:`remove` stops it and deletes its data."""

    def __init__(self) -> None:
        self.port, controller_port = _free_ports(2)
        self.data = tempfile.mkdtemp(prefix="arbiter-test-kafka-")
        self.env = {**os.environ, "KAFKA_PORT": str(self.port),
                    "KAFKA_CONTROLLER_PORT": str(controller_port), "KAFKA_DATA_DIR": self.data}
        self.script = str(ROOT / "deploy" / "kafka" / "kafka.sh")

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    def up(self) -> None:
        """Start the broker; raises ``RuntimeError`` with its output when it does not start."""
        import subprocess

        r = subprocess.run([self.script, "up"], env=self.env, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            raise RuntimeError(f"could not start the test Kafka broker:\n{r.stdout}\n{r.stderr}")

    def kill(self) -> None:
        import signal

        pid = int(Path(self.data, "kafka.pid").read_text())
        os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return
            import time

            time.sleep(0.1)

    def remove(self) -> None:
        import shutil
        import subprocess

        # kafka.sh down stops the broker whose pid file is in *this* data folder, nothing else.
        subprocess.run([self.script, "down"], env=self.env, capture_output=True, timeout=120)
        shutil.rmtree(self.data, ignore_errors=True)
