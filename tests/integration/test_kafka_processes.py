"""The services as separate processes on real Kafka (``arbiter up``): a game played through the
gateway while services are killed (SIGKILL) and restarted. Nothing is lost or doubled and the
log re-derives exactly."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid

import httpx
import pytest

from contracts.messages import TOPICS
from services.tools.audit import audit
from services.tools.logio import select
from services.tools.supervisor import start_all, stop_all, wait_ready
from shared.eventlog.kafka import KafkaLog

pytestmark = pytest.mark.kafka
BASE = 18100
TOKEN = {"X-Arbiter-Token": os.environ.get("ARBITER_ADMIN_TOKEN", "local-arbiter")}


def _restart(procs, name, bus):
    p, port = procs[name]
    procs[name] = (subprocess.Popen([sys.executable, "-m", f"services.{name}", "--bus", bus,
                                     "--port", str(port)]), port)
    assert wait_ready({name: procs[name]}, timeout=90) == []


def _until(fn, timeout=90.0):
    end = time.time() + timeout
    while time.time() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.2)
    raise AssertionError("condition not reached in time")


def test_game_survives_killed_services(kafka_bus, kafka_bootstrap):
    procs = start_all(kafka_bus, BASE)
    gid = f"k{uuid.uuid4().hex[:10]}"
    gw = f"http://127.0.0.1:{BASE}"
    try:
        assert wait_ready(procs, timeout=120) == []
        c = httpx.Client(base_url=gw, headers=TOKEN, timeout=60)
        r = c.post("/games", json={"game_id": gid, "white": "w", "black": "b", "time_control": "600+5"})
        assert r.status_code == 200, r.text
        for who, mv in (("w", "e4"), ("b", "e5"), ("w", "Qh5")):
            r = c.post(f"/games/{gid}/moves", json={"player_id": who, "move": mv})
            assert r.status_code == 200 and r.json()["outcome"] == "accepted", r.text
        # a bad move is refused with a reason and changes nothing
        r = c.post(f"/games/{gid}/moves", json={"player_id": "b", "move": "Ke5"})
        assert r.status_code == 409 and "not legal" in r.json()["detail"]

        # kill the game processor (validation, clock, ...) mid-game; a move arrives while it is down
        procs["game"][0].send_signal(signal.SIGKILL)
        procs["game"][0].wait()
        r = c.post(f"/games/{gid}/moves", params={"wait": "false"}, json={"player_id": "b", "move": "Nc6"})
        assert r.status_code == 202
        _restart(procs, "game", kafka_bus)
        _until(lambda: len(c.get(f"/games/{gid}").json()["moves"]) == 4)

        for who, mv in (("w", "Bc4"), ("b", "Nf6"), ("w", "Qxf7#")):
            r = c.post(f"/games/{gid}/moves", json={"player_id": who, "move": mv})
            assert r.status_code == 200, r.text
        g = _until(lambda: (lambda g: g if g["rule"] and g["clock"]["running"] is None else None)(
            c.get(f"/games/{gid}").json()))
        assert (g["result"], g["reason"], g["rule"]["article"]) == ("1-0", "checkmate", "10.1")
        # after the end, moves are refused by the gateway's read model
        assert c.post(f"/games/{gid}/moves", json={"player_id": "b", "move": "a6"}).status_code == 409
    finally:
        stop_all(procs)

    async def check():
        log = KafkaLog(kafka_bootstrap)
        try:
            msgs = select(await log.read_many(TOPICS), f"game-{gid}")
        finally:
            await log.stop()
        return msgs, await audit(msgs)
    msgs, diffs = asyncio.run(check())
    assert diffs == []
    accepted = [m.payload.san for m in msgs if m.type == "MoveAccepted"]
    assert accepted == ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]
    assert sum(m.type == "ClockUpdated" for m in msgs) == 7
    assert sum(m.type == "GameEnded" for m in msgs) == 1
    assert len({m.event_id for m in msgs}) == len(msgs)
