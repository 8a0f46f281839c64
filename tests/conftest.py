"""Shared pytest fixtures.

Real data lives in ``../shared/data`` beside the project root and is never copied into the repo.
Tests that need it use :func:`shared_data`: where the folder is absent they skip with a clear
reason, except under ``CI=true`` where they fail, so CI always runs them.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ARBITER_SHARED_DIR", ROOT.parent / "shared"))


def require_shared(relpath: str) -> Path:
    """Return ``../shared/<relpath>``; skip (or fail under CI=true) when it is missing."""
    path = SHARED / relpath
    if not path.exists():
        msg = f"real data {path} is absent (../shared is not beside the project)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + "; CI must run real-data tests")
        pytest.skip(msg)
    return path


@pytest.fixture
def shared_data():
    """Callable fixture: ``shared_data("data/chess/pgn/x.pgn") -> Path``."""
    return require_shared


# ----------------------------------------------------------------------------------- Kafka
def _docker_answers() -> bool:
    import shutil
    import subprocess

    if shutil.which("docker") is None:
        return False
    try:
        return subprocess.run(["docker", "info"], capture_output=True, timeout=5).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


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


@pytest.fixture(scope="session")
def kafka_bootstrap():
    """``host:port`` of a real Kafka broker for integration tests, found in this order:

    1. ``KAFKA_BOOTSTRAP_SERVERS`` if set;
    2. a testcontainers Kafka if a Docker engine answers;
    3. a broker of the test session's own: ``deploy/kafka/kafka.sh up`` (Maven-fetched jars,
       KRaft, 127.0.0.1) on free ports (``KAFKA_PORT``, ``KAFKA_CONTROLLER_PORT``) with a fresh
       data folder (``KAFKA_DATA_DIR``), always stopped and deleted at the end of the session.

    Tests never use a broker that happens to answer, such as the one ``make kafka-up`` /
    ``make up`` runs on 127.0.0.1:19092: they neither write into it nor stop it.
    Never skips under ``CI=true``: if no broker can be had, the tests fail.
    """
    import shutil
    import subprocess
    import tempfile

    env = os.environ.get("KAFKA_BOOTSTRAP_SERVERS")
    if env:
        yield env
        return
    if _docker_answers():
        try:
            from testcontainers.kafka import KafkaContainer

            with KafkaContainer() as kc:
                yield kc.get_bootstrap_server()
            return
        except Exception as e:  # no image, no network: fall back to a local broker
            print(f"testcontainers Kafka unavailable ({e}); starting a local broker")
    script = str(ROOT / "deploy" / "kafka" / "kafka.sh")
    port, controller_port = _free_ports(2)
    data = tempfile.mkdtemp(prefix="arbiter-test-kafka-")
    broker_env = {**os.environ, "KAFKA_PORT": str(port), "KAFKA_CONTROLLER_PORT": str(controller_port),
                  "KAFKA_DATA_DIR": data}
    try:
        r = subprocess.run([script, "up"], env=broker_env, capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            msg = f"could not start the test Kafka broker:\n{r.stdout}\n{r.stderr}"
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(msg)
            pytest.skip(msg)
        yield f"127.0.0.1:{port}"
    finally:
        # kafka.sh down stops the broker whose pid file is in *this* data folder, nothing else.
        subprocess.run([script, "down"], env=broker_env, capture_output=True, timeout=120)
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def kafka_bus(kafka_bootstrap) -> str:
    """The ``--bus`` value of the test broker: ``kafka://host:port``."""
    return f"kafka://{kafka_bootstrap}"
