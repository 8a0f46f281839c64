"""Bulk pairing (issue 12, as lichess's bulk pairing): every player's token checked before
anything is written, all or nothing, a dry run, one status call for the whole bulk, and one
call starting every waiting game. Real services on the memory log, identity on."""
from __future__ import annotations

from contextlib import asynccontextmanager

import httpx

from contracts.messages import GAME_COMMANDS, TOPICS
from services.gateway.app import create_app
from services.gateway.identity import issue_token
from shared.eventlog.memory import MemoryLog
from services.system import System

SECRET = "a-test-secret-of-forty-characters-000000"
T0 = 1_767_225_600_000


def tok(role: str, sub: str, events=("*",), ttl_s: int = 3600, now_s: float | None = None) -> str:
    return issue_token(SECRET, role, sub, list(events), ttl_s=ttl_s, now_s=now_s)


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


class Clock:
    def __init__(self) -> None:
        self.ms = T0

    def __call__(self) -> int:
        return self.ms


@asynccontextmanager
async def gateway(now):
    log = MemoryLog()
    system = System(log, ticks=False, now_ms=now)
    app = create_app(log, admin_token="sekret", manage_log=False, now_ms=now, wait_timeout=10.0,
                     jwt_secret=SECRET)
    await log.start()
    await system.start_timers()
    try:
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
                c.log, c.app = log, app
                yield c
    finally:
        await system.stop()
        await log.stop()


async def _commands(c) -> int:
    return len(await c.log.read(GAME_COMMANDS))


async def test_bad_tokens_are_named_and_nothing_is_written():
    async with gateway(Clock()) as c:
        org = auth(tok("organiser", "olga"))
        good = {p: tok("player", p) for p in ("a", "b", "c", "d")}
        expired = tok("player", "e", now_s=T0 / 1000 - 10 * 86_400)
        body = {"games": [{"white": good["a"], "black": good["b"]},
                          {"white": good["c"], "black": tok("arbiter", "x")},
                          {"white": expired, "black": good["d"]},
                          {"white": good["a"], "black": "not-a-jwt"},
                          {"white": good["d"][:-4] + "AAAA", "black": tok("player", "f", events=("t9",))}]}
        r = await c.post("/bulk-pairings", json=body, headers=org)
        assert r.status_code == 422 and r.json()["code"] == "bad-players", r.text
        got = {(e["index"], e["seat"]): e["code"] for e in r.json()["errors"]}
        assert got == {(1, "black"): "not-a-player", (2, "white"): "token-expired",
                       (3, "white"): "paired-twice", (3, "black"): "token-malformed",
                       (4, "white"): "token-forged", (4, "black"): "not-your-event"}
        assert await _commands(c) == 0  # all or nothing: not even game 0
        # a player's own token cannot create a bulk; no token: 401
        assert (await c.post("/bulk-pairings", json=body, headers=auth(good["a"]))).status_code == 403
        assert (await c.post("/bulk-pairings", json=body)).status_code == 401
        # the validation service's rules, checked first: one player on both seats, a bad time control
        r = await c.post("/bulk-pairings", headers=org, json={
            "games": [{"white": good["a"], "black": good["b"]}], "time_control": "fast please"})
        assert r.status_code == 422 and r.json()["errors"][0]["code"] == "invalid", r.text
        assert await _commands(c) == 0


async def test_dry_run_then_create_status_and_start_all():
    now = Clock()
    async with gateway(now) as c:
        org = auth(tok("organiser", "olga"))
        players = [tok("player", f"p{i}") for i in range(6)]
        body = {"bulk_id": "sim1", "time_control": "180+2", "clock_start": "on-command",
                "games": [{"white": players[i], "black": players[i + 1]} for i in (0, 2, 4)]}
        r = await c.post("/bulk-pairings", json={**body, "dry_run": True}, headers=org)
        assert r.status_code == 200, r.text
        assert r.json()["games"] == [{"game_id": f"sim1-{n}", "white": f"p{2 * n - 2}", "black": f"p{2 * n - 1}"}
                                     for n in (1, 2, 3)]
        assert await _commands(c) == 0
        r = await c.post("/bulk-pairings", json=body, headers=org)
        assert r.status_code == 201, r.text
        assert [g["status_code"] for g in r.json()["games"]] == [200, 200, 200]
        st = (await c.get("/bulk-pairings/sim1", headers=org)).json()
        assert st["waiting"] == 3 and [g["white"] for g in st["games"]] == ["p0", "p2", "p4"]
        assert (await c.post("/bulk-pairings", json=body, headers=org)).json()["code"] == "already-exists"
        # another organiser neither reads nor starts it
        other = auth(tok("organiser", "oscar"))
        assert (await c.get("/bulk-pairings/sim1", headers=other)).json()["code"] == "not-your-bulk"
        # the players' moves wait for the start
        r = await c.post("/games/sim1-1/moves", json={"player_id": "p0", "move": "e4"}, headers=auth(players[0]))
        assert r.json()["code"] == "not-started"
        now.ms = T0 + 30_000
        r = await c.post("/bulk-pairings/sim1/start", headers=org)
        assert r.json()["started"] == {"sim1-1": 200, "sim1-2": 200, "sim1-3": 200}, r.text
        r = await c.post("/games/sim1-1/moves", json={"player_id": "p0", "move": "e4"}, headers=auth(players[0]))
        assert r.status_code == 200, r.text
        g = (await c.get("/games/sim1-2")).json()
        assert g["bulk_id"] == "sim1" and g["clock"]["deadline_ms"] == T0 + 30_000 + 182_000
        msgs = await c.log.read_many(TOPICS)
        assert {m.actor.id for m in msgs if m.type == "CreateGame"} == {"olga"}
        assert (await c.get("/bulk-pairings/nope", headers=org)).status_code == 404
