"""The CLI's commands on a broker that does not answer: one clear line and exit 1, never a
traceback (``arbiter audit --bus kafka://127.0.0.1:1`` printed confluent-kafka's
KafkaException as a traceback: the audit reads the processes' decided offsets with it)."""
from __future__ import annotations

import pytest
import typer
from aiokafka.errors import KafkaConnectionError
from confluent_kafka import KafkaError, KafkaException

from services.cli import _run


@pytest.mark.parametrize("exc", [
    KafkaException(KafkaError(KafkaError._TRANSPORT, "Failed to get metadata: Local: Broker transport failure")),
    KafkaConnectionError("Unable to bootstrap from [('127.0.0.1', 1)]"),
    ConnectionRefusedError(111, "Connection refused")])
def test_a_broker_failure_is_one_line_and_exit_1(exc, capsys):
    async def failing():
        raise exc
    with pytest.raises(typer.Exit) as e:
        _run(failing())
    assert e.value.exit_code == 1
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith("arbiter: cannot use the event log:") and "Is the broker running?" in err, err
    assert "Traceback" not in err


def test_up_without_a_broker_is_one_line_and_exit_1_before_starting_any_process(monkeypatch):
    """``arbiter up`` on a bus where nothing answers printed every child process's traceback
    (96 lines, a helper's finding) before its own line; now it asks the broker first."""
    from typer.testing import CliRunner

    import services.tools.supervisor as supervisor
    from services.cli import app

    started = []
    monkeypatch.setattr(supervisor, "run_all", lambda *a, **kw: started.append(a) or 0)
    import shared.eventlog.kafka as kafka_log
    probe = kafka_log.broker_silence
    monkeypatch.setattr(kafka_log, "broker_silence", lambda bootstrap: probe(bootstrap, timeout_s=1.0))
    r = CliRunner().invoke(app, ["up", "--bus", "kafka://127.0.0.1:1"])
    said = " ".join(r.output.split())
    assert r.exit_code == 1 and started == [], r.output
    assert said.startswith("arbiter: no Kafka broker answers at kafka://127.0.0.1:1 (") and "make kafka-up" in said
    assert "Traceback" not in said


@pytest.mark.parametrize("service", ["game", "gateway"])
def test_a_service_without_a_broker_is_one_line(service, monkeypatch):
    """``arbiter serve game`` (``python -m services.game``) alone with no broker printed the
    Kafka client's traceback from the app's start-up (a helper's finding); now the process
    asks the broker before it starts serving and exits with one line."""
    import socket

    import shared.eventlog.kafka as kafka_log
    from services.runner import run_service

    probe = kafka_log.broker_silence
    monkeypatch.setattr(kafka_log, "broker_silence", lambda bootstrap: probe(bootstrap, timeout_s=1.0))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(SystemExit) as e:
        run_service(service, "kafka://127.0.0.1:1", port)
    said = str(e.value.code)
    assert said.startswith(f"{service}: no Kafka broker answers at kafka://127.0.0.1:1 (") and "\n" not in said, said
