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


from loadtests.broker import LocalBroker  # noqa: E402


def start_local_broker() -> LocalBroker:
    """A started :class:`LocalBroker`; fails the test under ``CI=true`` (else skips) when it
    cannot start."""
    broker = LocalBroker()
    try:
        broker.up()
    except RuntimeError as e:
        broker.remove()
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(str(e))
        pytest.skip(str(e))
    return broker


@pytest.fixture(scope="session")
def kafka_bootstrap():
    """``host:port`` of a real Kafka broker for integration tests, found in this order:

    1. ``KAFKA_BOOTSTRAP_SERVERS`` if set;
    2. a testcontainers Kafka if a Docker engine answers;
    3. a broker of the test session's own (:class:`LocalBroker`), always stopped and deleted at
       the end of the session.

    Tests never use a broker that happens to answer, such as the one ``make kafka-up`` /
    ``make up`` runs on 127.0.0.1:19092: they neither write into it nor stop it.
    Never skips under ``CI=true``: if no broker can be had, the tests fail.
    """
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
    broker = start_local_broker()
    try:
        yield broker.bootstrap
    finally:
        broker.remove()


@pytest.fixture
def own_broker():
    """A broker for this test alone (it may be killed and started again: outages)."""
    broker = start_local_broker()
    try:
        yield broker
    finally:
        broker.remove()


@pytest.fixture
def kafka_bus(kafka_bootstrap) -> str:
    """The ``--bus`` value of the test broker: ``kafka://host:port``."""
    return f"kafka://{kafka_bootstrap}"
