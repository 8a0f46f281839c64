"""Issue 10 item 4 on Kafka: the gateway's read model is snapshotted into the log (in chunks
of under a megabyte, the manifest written last) and a new gateway starts from the latest
snapshot plus the log after it instead of the whole log."""
from __future__ import annotations

import asyncio
import os
import uuid

import httpx
import pytest

from contracts.messages import TOPICS
from services.gateway.app import create_app
from shared.eventlog.kafka import SNAPSHOT_CHUNK, KafkaLog

pytestmark = pytest.mark.kafka


KEY = b"the deployment's secret"


async def test_a_snapshot_larger_than_a_record_comes_back_whole_and_the_latest_wins(kafka_bootstrap):
    log = KafkaLog(kafka_bootstrap)
    name = f"test-{uuid.uuid4().hex[:8]}"
    try:
        assert await log.load_snapshot(name, KEY, "v1") is None
        first = os.urandom(2 * SNAPSHOT_CHUNK + 12_345)  # three records
        await log.save_snapshot(name, first, KEY, "v1")
        assert await log.load_snapshot(name, KEY, "v1") == first
        second = os.urandom(SNAPSHOT_CHUNK // 2)
        await log.save_snapshot(name, second, KEY, "v1")
        assert await log.load_snapshot(name, KEY, "v1") == second
        # another tag (other code) is not taken, nor is anything under another key
        await log.save_snapshot(name, os.urandom(100), KEY, "v2")
        assert await log.load_snapshot(name, KEY, "v1") == second
        assert await log.load_snapshot(name, b"another key", "v1") is None
    finally:
        await log.stop()


async def test_forged_manifests_are_skipped_unread(kafka_bootstrap):
    """Whoever can write the snapshots topic: manifests that do not verify under the key
    (forged offsets far past the end, garbage, a copied MAC with other chunks) cost nothing
    and hide nothing; the latest genuine snapshot is found at once."""
    import json
    import time

    from aiokafka import AIOKafkaProducer

    log = KafkaLog(kafka_bootstrap)
    name = f"test-{uuid.uuid4().hex[:8]}"
    topic = f"arbiter.snapshots.{name}"
    try:
        genuine = os.urandom(SNAPSHOT_CHUNK + 10)
        await log.save_snapshot(name, genuine, KEY, "v1")
        p = AIOKafkaProducer(bootstrap_servers=kafka_bootstrap)
        await p.start()
        try:
            for value in [b"not json", json.dumps({"chunks": [0, 10**12], "bytes": 1, "tag": "v1",
                                                   "blob_mac": "00", "mac": "00"}).encode(),
                          json.dumps({"chunks": list(range(100_000))}).encode()] * 20:
                await p.send_and_wait(topic, value, key=b"manifest", partition=0)
        finally:
            await p.stop()
        t0 = time.monotonic()
        assert await log.load_snapshot(name, KEY, "v1") == genuine
        assert time.monotonic() - t0 < 60  # not read: 20 of them would take 10 s each to read
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
                if sum(gw.follower.positions.values()) and gw.snapshot_positions == gw.follower.positions:
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
            # not the whole log again: exactly what lies after the snapshot's positions
            after, _ = await log2.read_tail(TOPICS, gw2.restored)
            assert gw2.replayed == len(list(after)) < gw2.replayed + sum(gw2.restored.values())
            assert gw2.rm.game(gid).to_dict() == gw.rm.game(gid).to_dict()
            assert [m.type for m in gw2.rm.history[f"game-{gid}"]] == ["CreateGame", "SubmitMove"]
            health = (await httpx.AsyncClient(transport=httpx.ASGITransport(app=app2),
                                              base_url="http://gw2").get("/healthz")).json()
            assert health["ready"] and health["from_snapshot"] and health["snapshot_messages"] == gw2.snapshot_messages > 0
        finally:
            await ctx2.__aexit__(None, None, None)
            await log2.stop()
    finally:
        await ctx.__aexit__(None, None, None)
        await log.stop()

