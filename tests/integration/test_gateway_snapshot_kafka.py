"""Issue 10 item 4 on Kafka: the gateway's read model is snapshotted into the log (in chunks
of under a megabyte, the manifest written last) and a new gateway starts from the latest
snapshot plus the log after it instead of the whole log."""
from __future__ import annotations

import asyncio
import os
import uuid

import httpx
import pytest

from services.gateway.app import create_app
from shared.eventlog.kafka import SNAPSHOT_CHUNK, KafkaLog

pytestmark = pytest.mark.kafka


async def test_a_snapshot_larger_than_a_record_comes_back_whole_and_the_latest_wins(kafka_bootstrap):
    log = KafkaLog(kafka_bootstrap)
    name = f"test-{uuid.uuid4().hex[:8]}"
    try:
        assert await log.load_snapshot(name) is None
        first = os.urandom(2 * SNAPSHOT_CHUNK + 12_345)  # three records
        await log.save_snapshot(name, first)
        assert await log.load_snapshot(name) == first
        second = os.urandom(SNAPSHOT_CHUNK // 2)
        await log.save_snapshot(name, second)
        assert await log.load_snapshot(name) == second
    finally:
        await log.stop()


async def _gateway(bootstrap: str, **kw):
    log = KafkaLog(bootstrap)
    app = create_app(log, wait_timeout=0.2, **kw)
    ctx = app.router.lifespan_context(app)
    await ctx.__aenter__()
    return log, app, ctx


async def test_a_new_gateway_starts_from_the_snapshot_and_the_log_after_it(kafka_bootstrap):
    gid = f"snap{uuid.uuid4().hex[:8]}"
    log, app, ctx = await _gateway(kafka_bootstrap, snapshot_every_s=1.0)
    gw = app.state.gateway
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
            r = await c.post("/games?wait=false", json={"game_id": gid, "white": "alice", "black": "bob"})
            assert r.status_code == 202, r.text
            for _ in range(600):  # the snapshot after the command came back from the log
                await asyncio.sleep(0.1)
                if gw.follower.positions and gw.snapshot_applied == gw.rm.applied and gw.rm.applied:
                    break
            snapshot_positions = dict(gw.follower.positions)
            r = await c.post(f"/games/{gid}/moves?wait=false", json={"player_id": "alice", "move": "e4"})
            assert r.status_code == 202
            for _ in range(100):  # the move back from the log
                await asyncio.sleep(0.1)
                if sum(gw.follower.positions.values()) > sum(snapshot_positions.values()):
                    break
        log2, app2, ctx2 = await _gateway(kafka_bootstrap)
        try:
            gw2 = app2.state.gateway
            assert gw2.restored and sum(gw2.restored.values()) >= sum(snapshot_positions.values())
            assert gw2.replayed < sum(gw2.restored.values())  # not the whole log again
            assert gw2.rm.game(gid).to_dict() == gw.rm.game(gid).to_dict()
            assert [m.type for m in gw2.rm.history[f"game-{gid}"]] == ["CreateGame", "SubmitMove"]
            health = (await httpx.AsyncClient(transport=httpx.ASGITransport(app=app2),
                                              base_url="http://gw2").get("/healthz")).json()
            assert health["ready"] and health["from_snapshot"] == sum(gw2.restored.values())
        finally:
            await ctx2.__aexit__(None, None, None)
            await log2.stop()
    finally:
        await ctx.__aexit__(None, None, None)
        await log.stop()

