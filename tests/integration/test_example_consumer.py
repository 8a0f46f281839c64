"""The example direct subscriber of README (``examples/results_consumer.py``) on a real broker:
it reads the result of a game decided by the platform's processes, from its topic alone."""
from __future__ import annotations

import importlib.util
import uuid
from pathlib import Path

import pytest

from services.tools.embedded import arbiter_client

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "results_consumer.py"


def _example():
    spec = importlib.util.spec_from_file_location("results_consumer", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.kafka
async def test_the_example_consumer_reads_a_checkmate_from_the_topic(kafka_bus, kafka_bootstrap):
    """Fool's mate (1.f3 e5 2.g4 Qh4#): the example reads 0-1 by checkmate with the article the
    platform decided it under (FIDE Laws 1994 art. 10.1, as GameEnded's ``rule`` records it); a
    second read by the same group starts after it (its offsets were committed)."""
    gid = f"ex-{uuid.uuid4().hex[:8]}"
    async with arbiter_client(kafka_bus, ticks=False) as c:
        r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob", "time_control": "300"})
        assert r.status_code == 200, r.text
        for i, mv in enumerate(("f3", "e5", "g4", "Qh4#")):
            r = await c.post(f"/games/{gid}/moves", json={"player_id": ("alice", "bob")[i % 2], "move": mv})
            assert r.status_code == 200, r.text
        ended = (await c.get(f"/games/{gid}")).json()
    consumer = _example()
    group = f"example-{gid}"
    got = [r async for r in consumer.results(kafka_bootstrap, group, timeout_s=10)]
    mine = [r for r in got if r["game_id"] == gid]
    assert len(mine) == 1
    (res,) = mine
    assert (res["result"], res["reason"]) == ("0-1", "checkmate") == (ended["result"], ended["reason"])
    assert (res["rule"]["game"], res["rule"]["article"]) == ("chess", "10.1") == (
        ended["rule"]["game"], ended["rule"]["article"])
    assert [r async for r in consumer.results(kafka_bootstrap, group, timeout_s=3)] == []
