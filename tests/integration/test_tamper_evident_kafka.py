"""The tamper-evident log on the real Kafka path (issue 12 item 5): a game played through the
embedded gateway on Kafka (the KafkaHost's transactions carry the checkpoints with the
decisions they attest), read back as ``export-log`` reads it, audits with 0 differences and 0
integrity findings, every checkpoint signed by the configured key; a command's actor changed
in it is named."""
from __future__ import annotations

import uuid

import pytest

from services.tools.audit import audit
from services.tools.integrity import check
from tests.unit.test_tamper_evident import _played, keys  # noqa: F401  (keys: a fixture)

pytestmark = pytest.mark.kafka


async def test_a_game_on_kafka_audits_clean_and_a_forgery_in_it_is_named(kafka_bus, keys):  # noqa: F811
    gid = f"te{uuid.uuid4().hex[:6]}"
    log = await _played(kafka_bus, gid)
    res = check(log, keys)
    assert await audit(log) == []
    assert res.findings == [] and res.unchained == 0 and res.unattested == 0
    assert res.trusted == res.checkpoints >= 1
    i = next(k for k, m in enumerate(log) if m.type == "Resign")
    log[i] = log[i].model_copy(update={"actor": log[i].actor.model_copy(update={"id": "alice"})})
    assert await audit(log) == []
    assert [(f.stream, f.seq, f.what) for f in check(log, keys).findings] == [
        (log[i].stream, log[i].seq, "chain broken")]
