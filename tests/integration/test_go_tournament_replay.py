"""A Go tournament game ruled a replay (1988 art. 20.3, 重下): the board waits for the replay game,
whose result is the board's result in the standings and the pairing; the replay game can be
corrected as the board's game."""
from __future__ import annotations

import asyncio

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import game_ended, paired_round, standings_after
from tests.unit.test_go_services import CYCLE

# the triple-ko position of tests/unit/test_go_services.py (TRIPLE_KO), reached by moves
BLACK_SETUP = "ae,bd,bf,ca,cc,ce,cg,ci,db,dh".split(",")
WHITE_SETUP = "ab,ah,ba,bc,bg,bi,cb,cd,cf,ch,de".split(",")


async def _move(c, gid: str, who: str, mv: str) -> None:
    r = await c.post(f"/games/{gid}/moves", json={"player_id": who, "move": mv})
    assert r.status_code == 200, (mv, r.text)


async def test_a_replayed_tournament_game_counts_the_replay_result():
    """Round robin of two players, 9x9, Japanese rules. The board reaches a triple ko (the loop
    B8 B5 B2 C8 C5 C2, twice: EndlessCycleFound) and the arbiter rules a replay: the original game
    ends 0-0 'replay', the tournament does not finish and no standings are written for round 1.
    The replay game: Black E5, both pass, White proposes no dead stones, Black accepts: Black's
    E5 and the 80 points it surrounds, White 0 + komi 6.5 -> B+73.5, 0-1. That result is the
    board's: Black 1 point, White 0, and the event finishes. A correction of the replay game
    applies to the board."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "gorr"
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": tid, "system": "round-robin",
                                               "game": "go", "board_size": 9, "go_rules": "japanese",
                                               "time_control": "600"})
        assert r.status_code == 200, r.text
        for pid in ("p1", "p2"):
            assert (await c.post(f"/tournaments/{tid}/players", json={"player_id": pid, "name": pid})).status_code == 200
        assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})).status_code == 200
        b = (await paired_round(c, tid, 1))["boards"][0]
        gid, wp, bp = b["game_id"], b["white"], b["black"]
        for i in range(11):
            await _move(c, gid, bp, BLACK_SETUP[i] if i < 10 else "pass")
            await _move(c, gid, wp, WHITE_SETUP[i])
        for i, mv in enumerate(CYCLE * 2):
            await _move(c, gid, (bp, wp)[i % 2], mv)
        r = await c.post(f"/games/{gid}/cycle/ruling", json={"ruling": "replay", "reason": "triple ko"})
        assert r.status_code == 200, r.text
        g = await game_ended(c, gid)
        assert (g["result"], g["reason"]) == ("0-0", "replay")
        replay = f"{gid}-replay1"
        t = (await c.get(f"/tournaments/{tid}")).json()
        assert t["status"] != "finished"
        r = await c.post(f"/tournaments/{tid}/finish", json={"reason": "too early"})
        assert r.status_code == 409 and "running" in r.json()["detail"]  # the board waits for its replay
        # the replay game starts from the original start position (the empty board)
        await _move(c, replay, bp, "E5")
        await _move(c, replay, wp, "pass")
        await _move(c, replay, bp, "pass")
        r = await c.post(f"/games/{replay}/dead", json={"player_id": wp, "dead": []})
        assert r.status_code == 200, r.text
        r = await c.post(f"/games/{replay}/dead/accept", json={"player_id": bp})
        assert r.status_code == 200, r.text
        g = await game_ended(c, replay)
        assert (g["result"], g["score"]) == ("0-1", "B+73.5")
        st = await standings_after(c, tid, 1)
        assert {row["player_id"]: row["score"] for row in st["rows"]} == {bp: 1.0, wp: 0.0}
        r = await c.post(f"/games/{replay}/correction", json={"result": "1/2-1/2", "reason": "count error"})
        assert r.status_code == 200 and r.json()["game_id"] == gid, r.text
        # the tournament's log (its games and the replay) re-derives with no difference
        from contracts.messages import TOPICS
        from services.tools.audit import audit
        from services.tools.logio import select

        msgs = select(await c.arbiter_log.read_many(TOPICS), f"tournament-{tid}")
        assert any(m.aggregate == f"game-{replay}" for m in msgs)
        assert await audit(msgs) == []


async def test_a_corrected_go_result_clears_the_count_in_the_game_view():
    """A counted tournament game (Black E5, both pass, nothing dead: B+73.5 under Chinese rules,
    81 - 7.5) corrected by the arbiter to a draw: the view shows the draw with reason
    'correction' and no longer the count B+73.5 or its articles."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "gocor"
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": tid, "system": "round-robin",
                                               "game": "go", "board_size": 9, "time_control": "600"})
        assert r.status_code == 200, r.text
        for pid in ("p1", "p2"):
            assert (await c.post(f"/tournaments/{tid}/players", json={"player_id": pid, "name": pid})).status_code == 200
        assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})).status_code == 200
        b = (await paired_round(c, tid, 1))["boards"][0]
        gid, wp, bp = b["game_id"], b["white"], b["black"]
        for who, mv in ((bp, "E5"), (wp, "pass"), (bp, "pass")):
            await _move(c, gid, who, mv)
        assert (await c.post(f"/games/{gid}/dead", json={"player_id": wp, "dead": []})).status_code == 200
        assert (await c.post(f"/games/{gid}/dead/accept", json={"player_id": bp})).status_code == 200
        g = await game_ended(c, gid)
        assert (g["result"], g["score"]) == ("0-1", "B+73.5")
        r = await c.post(f"/games/{gid}/correction", json={"result": "1/2-1/2", "reason": "miscount"})
        assert r.status_code == 200, r.text
        for _ in range(100):
            g = (await c.get(f"/games/{gid}")).json()
            if g["result"] == "1/2-1/2":
                break
            await asyncio.sleep(0.05)
        assert (g["result"], g["reason"], g["score"], g["rule"]) == ("1/2-1/2", "correction", None, None)
