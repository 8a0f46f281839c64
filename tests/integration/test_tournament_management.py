"""Tournament management through the gateway (memory log): concurrent creations, team names,
withdrawals, late entries, requested byes, bounded knockout play-offs, result corrections and
the crosstable's bye and forfeit marks."""
from __future__ import annotations

import asyncio

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round, standings_after


async def _create(c, tid: str, **kw):
    return await c.post("/tournaments", json={"tournament_id": tid, "name": tid, **kw})


async def _players(c, tid: str, n: int, **extra) -> None:
    for i in range(n):
        r = await c.post(f"/tournaments/{tid}/players", json={
            "player_id": f"p{i + 1}", "name": f"P{i + 1}", "rating": 2400 - 10 * i, **extra})
        assert r.status_code == 200, r.text


async def _result(c, gid: str, res: str) -> None:
    r = await c.post(f"/games/{gid}/result", json={"result": res})
    assert r.status_code == 200, r.text


async def test_a_rejected_creation_reserves_nothing_for_concurrent_ones():
    """Three concurrent creations of one id: the Swiss one without rounds is invalid; of the two
    valid ones exactly one creates the tournament, the other is refused as already existing."""
    async with arbiter_client("memory", ticks=False) as c:
        bodies = [{"system": "swiss"}, {"system": "knockout"}, {"system": "round-robin"}]
        rs = await asyncio.gather(*(_create(c, "race", **b) for b in bodies))
        assert rs[0].status_code == 409 and "number of rounds" in rs[0].json()["detail"]
        assert sorted(r.status_code for r in rs[1:]) == [200, 409]
        loser = next(r for r in rs[1:] if r.status_code == 409)
        assert loser.json()["code"] == "already-exists"
        winner = next(r for r in rs[1:] if r.status_code == 200)
        t = (await c.get("/tournaments/race")).json()
        assert t["system"] == winner.json()["system"] and t["status"] == "open"
        # a lone invalid creation leaves the id free for a valid one
        assert (await _create(c, "t1", system="swiss")).status_code == 409
        assert (await c.get("/tournaments/t1")).status_code == 404
        assert (await _create(c, "t1", system="swiss", rounds=3)).status_code == 200


async def test_team_names_are_trimmed_and_a_near_duplicate_is_refused():
    """Team "A" registered; " A " is the same team (trimmed), "a" and "A  " + case are refused
    with 422 naming "A" (else a one-member team "a" would make the event unpairable)."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "tm"
        assert (await _create(c, tid, system="team-round-robin", team_boards=2,
                              game="xiangqi")).status_code == 200
        for pid, team in [("a1", "A"), ("a2", " A "), ("b1", "B"), ("b2", "B")]:
            r = await c.post(f"/tournaments/{tid}/players", json={"player_id": pid, "name": pid, "team": team})
            assert r.status_code == 200, r.text
            assert r.json()["team"] == team.strip()
        for bad in ("a", " a", "b"):
            r = await c.post(f"/tournaments/{tid}/players", json={"player_id": "x", "name": "x", "team": bad})
            assert r.status_code == 422 and repr(bad.strip().upper()) in r.json()["detail"], r.text
        players = (await c.get(f"/tournaments/{tid}")).json()["players"]
        assert [(p["player_id"], p["team"]) for p in players] == [("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B")]
        # two teams of two: one match, paired (Berger 1 v 2, A Red on board 1, 13.2)
        r = await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})
        assert r.status_code == 200, r.text
        rd = await paired_round(c, tid, 1)
        assert len(rd["boards"]) == 2 and rd["boards"][0]["white"] in ("a1", "a2")


async def test_crosstable_shows_requested_byes_and_double_forfeits():
    """Round 1 paired by hand: p1-p2 (the arbiter records 0-0: neither scores, a double forfeit,
    xiangqi art. 21.3), p3 the pairing bye, p4/p5/p6 requested byes F/H/Z. Crosstable cells as
    the TRF export writes them (21.4: + and -): p1 and p2 "-", p3 "bye", p4 "F", p5 "H", p6
    "Z"; standings scores F 1, H 0.5, Z 0, pairing bye 1 (Dutch), 0-0 0 each."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "ct"
        assert (await _create(c, tid, system="swiss", rounds=2)).status_code == 200
        await _players(c, tid, 6)
        r = await c.post(f"/tournaments/{tid}/rounds", json={
            "round": 1, "boards": [{"white": "p1", "black": "p2"}], "bye": "p3",
            "requested_byes": {"p4": "F", "p5": "H", "p6": "Z"}})
        assert r.status_code == 200, r.text
        rd = await paired_round(c, tid, 1)
        await _result(c, rd["boards"][0]["game_id"], "0-0")
        st = await standings_after(c, tid, 1)
        ct = (await c.get(f"/tournaments/{tid}/crosstable")).json()
    cells = {row["player_id"]: row["cells"] for row in ct["rows"]}
    assert cells == {"p1": ["-"], "p2": ["-"], "p3": ["bye"], "p4": ["F"], "p5": ["H"], "p6": ["Z"]}
    scores = {row["player_id"]: row["score"] for row in st["rows"]}
    assert scores == {"p1": 0.0, "p2": 0.0, "p3": 1.0, "p4": 1.0, "p5": 0.5, "p6": 0.0}
