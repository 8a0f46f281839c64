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


@pytest.fixture(scope="session")
def kafka_bootstrap():
    """``host:port`` of a real Kafka broker for integration tests, found in this order:

    1. ``KAFKA_BOOTSTRAP_SERVERS`` if set;
    2. a testcontainers Kafka if a Docker engine answers;
    3. the project's local broker (``deploy/kafka/kafka.sh up``: Maven-fetched jars, KRaft,
       127.0.0.1), stopped again at the end of the session if this fixture started it.

    Never skips under ``CI=true``: if no broker can be had, the tests fail.
    """
    import subprocess

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
        except Exception as e:  # no image, no network: fall back to the local broker
            print(f"testcontainers Kafka unavailable ({e}); using the local broker")
    script = ROOT / "deploy" / "kafka" / "kafka.sh"
    port = os.environ.get("KAFKA_PORT", "19092")
    was_running = subprocess.run([str(script), "status"], capture_output=True).returncode == 0
    if not was_running:
        r = subprocess.run([str(script), "up"], capture_output=True, text=True, timeout=600)
        if r.returncode != 0:
            msg = f"could not start the local Kafka broker:\n{r.stdout}\n{r.stderr}"
            if os.environ.get("CI", "").lower() == "true":
                pytest.fail(msg)
            pytest.skip(msg)
    yield f"127.0.0.1:{port}"
    if not was_running:
        subprocess.run([str(script), "down"], capture_output=True, timeout=120)


@pytest.fixture
def kafka_bus(kafka_bootstrap) -> str:
    """The ``--bus`` value of the test broker: ``kafka://host:port``."""
    return f"kafka://{kafka_bootstrap}"
