"""A Dutch round with nobody to pair is a round of byes, and errors name our engine."""
from __future__ import annotations

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round, standings_after


async def _swiss(c, tid: str, n: int) -> None:
    r = await c.post("/tournaments", json={"tournament_id": tid, "name": tid, "system": "swiss", "rounds": 3})
    assert r.status_code == 200, r.text
    for i in range(1, n + 1):
        r = await c.post(f"/tournaments/{tid}/players",
                         json={"player_id": f"p{i}", "name": f"P{i}", "rating": 2400 - 10 * i})
        assert r.status_code == 200, r.text


async def _round_one_white_wins(c, tid: str) -> dict:
    assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})).status_code == 200
    rd = await paired_round(c, tid, 1)
    for b in rd["boards"]:
        await c.post(f"/games/{b['game_id']}/result", json={"result": "1-0"})
    return rd


async def test_the_one_player_left_gets_the_pairing_allocated_bye():
    """3 players: Dutch round 1 pairs 1 v 2 and gives 3, the lowest, the bye. p1 and p2 withdraw from round 2: p3 alone gets the pairing-allocated bye
    (C.04.1 c, a win's point): p3 1 (bye) + 1 = 2, p1 1 (white win), p2 0."""
    async with arbiter_client("memory", ticks=False) as c:
        await _swiss(c, "one", 3)
        rd = await _round_one_white_wins(c, "one")
        assert [(b["white"], b["black"]) for b in rd["boards"]] == [("p1", "p2")] and rd["bye"] == "p3"
        for pid in ("p1", "p2"):
            assert (await c.post("/tournaments/one/withdrawals", json={"player_id": pid, "from_round": 2})).status_code == 200
        r = await c.post("/tournaments/one/rounds", json={"round": 2})
        assert r.status_code == 200, r.text
        assert r.json()["boards"] == [] and r.json()["bye"] == "p3"
        st = await standings_after(c, "one", 2)
        assert {x["player_id"]: x["score"] for x in st["rows"]} == {"p1": 1.0, "p2": 0.0, "p3": 2.0}


async def test_a_round_where_everyone_asks_for_a_half_point_bye_is_paired():
    """4 players, Dutch round 1: p1-p3, p4-p2 (top half v bottom half, colours alternate);
    white wins -> p1 1, p4 1. Round 2: every player requests H: no boards, ½ each:
    p1 1.5, p4 1.5, p2 0.5, p3 0.5. With all withdrawn the refusal names our engine."""
    async with arbiter_client("memory", ticks=False) as c:
        await _swiss(c, "hh", 4)
        rd = await _round_one_white_wins(c, "hh")
        assert [(b["white"], b["black"]) for b in rd["boards"]] == [("p1", "p3"), ("p4", "p2")]
        r = await c.post("/tournaments/hh/rounds", json={"round": 2, "requested_byes": {f"p{i}": "H" for i in range(1, 5)}})
        assert r.status_code == 200, r.text
        assert r.json()["boards"] == [] and r.json()["bye"] is None
        st = await standings_after(c, "hh", 2)
        assert {x["player_id"]: x["score"] for x in st["rows"]} == {"p1": 1.5, "p2": 0.5, "p3": 0.5, "p4": 1.5}
        for i in range(1, 5):
            assert (await c.post("/tournaments/hh/withdrawals", json={"player_id": f"p{i}", "from_round": 3})).status_code == 200
        r = await c.post("/tournaments/hh/rounds", json={"round": 3})
        assert r.status_code == 409 and r.json()["detail"].startswith("Dutch (C.04.3)") and "py4swiss" not in r.text
