"""Go arbiter articles through the gateway on the memory bus: a triple ko ruled a replay (Chinese
rules 1988 art. 20.3; the position and its cycle are worked out in
``tests/unit/test_go_services.py``) and a late player's arrival (1988 art. 23.3)."""
from __future__ import annotations

import asyncio
import time
import uuid

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import game_ended
from tests.unit.test_go_services import CYCLE, TRIPLE_KO

NO_TOKEN = {"X-Arbiter-Token": ""}  # a player's request (the test client carries the arbiter's)


async def test_a_triple_ko_ruled_a_replay_through_the_gateway():
    async with arbiter_client("memory", ticks=False) as c:
        gid = f"go-{uuid.uuid4().hex[:8]}"
        r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob",
                                          "game": "go", "board_size": 9, "go_rules": "japanese",
                                          "start_fen": TRIPLE_KO, "time_control": "600"})
        assert r.status_code == 200, r.text
        ruling = {"ruling": "replay", "reason": "triple ko: neither player yields"}
        early = await c.post(f"/games/{gid}/cycle/ruling", json=ruling)
        assert early.status_code == 409 and "no endless cycle" in early.json()["detail"]
        for i, mv in enumerate(CYCLE * 2):  # two loops: the start position a third time
            r = await c.post(f"/games/{gid}/moves", json={"player_id": ["bob", "alice"][i % 2], "move": mv})
            assert r.status_code == 200, r.text
        r = await c.post(f"/games/{gid}/cycle/ruling", json=ruling, headers=NO_TOKEN)
        assert r.status_code == 403  # arbiters only
        r = await c.post(f"/games/{gid}/cycle/ruling", json=ruling)
        assert r.status_code == 200, r.text
        assert (r.json()["event"], r.json()["replay_game_id"]) == ("EndlessCycleRuled", f"{gid}-replay1")
        g = await game_ended(c, gid)
        assert (g["result"], g["reason"], g["rule"]["article"]) == ("0-0", "replay", "20.3")
        new = (await c.get(f"/games/{gid}-replay1")).json()
        assert (new["white"], new["black"], new["fen"]) == ("alice", "bob", TRIPLE_KO)


async def test_a_late_white_arrival_through_the_gateway():
    async with arbiter_client("memory", ticks=False) as c:
        gid = f"go-{uuid.uuid4().hex[:8]}"
        t0 = int(time.time() * 1000)
        r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob",
                                          "game": "go", "board_size": 9, "time_control": "600",
                                          "default_time_s": 900, "at_ms": t0})
        assert r.status_code == 200, r.text
        r = await c.post(f"/games/{gid}/moves", json={"player_id": "bob", "move": "E5", "at_ms": t0 + 30_000})
        assert r.status_code == 200, r.text
        r = await c.post(f"/games/{gid}/arrival", json={"player_id": "alice", "at_ms": t0 + 120_000})
        assert r.status_code == 200 and r.json()["late_ms"] == 120_000, r.text
        # 30 s of the 120 s were not on White's clock (before Black's move): 600 - 30 = 570 s
        for _ in range(100):
            clock = (await c.get(f"/games/{gid}")).json()["clock"]
            if clock["white_ms"] == 570_000:
                break
            await asyncio.sleep(0.02)
        assert clock["white_ms"] == 570_000 and clock["deadline_ms"] == t0 + 600_000
        r = await c.post(f"/games/{gid}/arrival", json={"player_id": "alice", "at_ms": t0 + 130_000})
        assert r.status_code == 409


async def test_an_arrival_after_the_running_flag_fell_loses_nothing_to_the_arriver_and_audits_clean():
    """600 s absolute, limit 900 s, no moves: Black's clock runs from the start and falls at
    600 s; White reported arrived at 700 s is refused (``flag-fallen``) and Black's time out,
    dated at 600 s, gives 1-0 (1988 art. 23.5). The audit re-derives the same."""
    from contracts.messages import TOPICS
    from services.tools.audit import audit
    from services.tools.logio import select

    async with arbiter_client("memory", ticks=False) as c:
        gid = f"go-{uuid.uuid4().hex[:8]}"
        t0 = int(time.time() * 1000)
        r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob",
                                          "game": "go", "board_size": 9, "time_control": "600",
                                          "default_time_s": 900, "at_ms": t0})
        assert r.status_code == 200, r.text
        r = await c.post(f"/games/{gid}/arrival", json={"player_id": "alice", "at_ms": t0 + 700_000})
        assert r.status_code == 409 and r.json()["code"] == "flag-fallen", r.text
        g = await game_ended(c, gid)
        assert (g["result"], g["reason"], g["rule"]["article"]) == ("1-0", "timeout", "23.5")
        assert (g["clock"]["white_ms"], g["clock"]["black_ms"]) == (600_000, 0)
        msgs = select(await c.arbiter_log.read_many(TOPICS), f"game-{gid}")
        flag = next(m for m in msgs if m.type == "FlagFell")
        assert (flag.payload.colour, flag.payload.deadline_ms) == ("black", t0 + 600_000)
        assert await audit(msgs) == []
