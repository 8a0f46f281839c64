"""GET /games/{gid} on the embedded platform: a tournament game names its players as the event
registered them (``white_name``, ``black_name``; None outside an event), and the latest draw
offer stays in the view once answered (``last_draw_offer``), which the game page needs to show
"Offer draw" only when xiangqi's 1999 rules art. 23.1 allow it (offers alternate)."""
from __future__ import annotations

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round


async def test_a_tournament_game_names_its_players_and_a_lone_game_does_not():
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/tournaments", json={"tournament_id": "rr", "name": "Club RR", "system": "round-robin",
                                               "time_control": "300"})
        assert r.status_code == 200, r.text
        for pid, name in (("alice", "Alice Zhang"), ("dave", "Dave Okafor")):
            r = await c.post("/tournaments/rr/players", json={"player_id": pid, "name": name})
            assert r.status_code == 200, r.text
        assert (await c.post("/tournaments/rr/rounds", json={"round": 1})).status_code == 200
        (b,) = (await paired_round(c, "rr", 1))["boards"]
        g = (await c.get(f"/games/{b['game_id']}")).json()
        names = {"alice": "Alice Zhang", "dave": "Dave Okafor"}
        assert (g["white_name"], g["black_name"]) == (names[g["white"]], names[g["black"]])
        assert f'[White "{names[g["white"]]}"]' in g["pgn"]  # the view's PGN names them too
        r = await c.post("/games", json={"game_id": "lone", "white": "alice", "black": "bob"})
        assert r.status_code == 200, r.text
        g = (await c.get("/games/lone")).json()
        assert (g["white"], g["white_name"], g["black_name"]) == ("alice", None, None)


async def test_the_latest_draw_offer_stays_in_the_view_once_declined():
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/games", json={"game_id": "xq", "white": "red", "black": "blk", "game": "xiangqi",
                                         "time_control": "600"})
        assert r.status_code == 200, r.text
        assert (await c.post("/games/xq/moves", json={"player_id": "red", "move": "h2e2"})).status_code == 200
        assert (await c.post("/games/xq/draw/offer", json={"player_id": "red"})).status_code == 200
        assert (await c.post("/games/xq/draw/decline", json={"player_id": "blk"})).status_code == 200
        g = (await c.get("/games/xq")).json()
        assert g["draw_offer"] is None
        assert g["last_draw_offer"] == {"player_id": "red", "colour": "white", "ply": 1}
        # the rule the page follows with it: Red may not offer again before Black has (art. 23.1)
        r = await c.post("/games/xq/draw/offer", json={"player_id": "red"})
        assert r.status_code == 409 and r.json()["code"] == "invalid" and "alternate" in r.json()["detail"]
