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
