"""``arbiter demo --serve`` without a browser: what it serves, the tokens it prints, and a
port in use or an unknown game refused with the reason."""
from __future__ import annotations

import asyncio
import socket

import httpx
import jwt
import pytest

from services.tools import demo_serve


async def test_the_demo_serves_the_visitors_game_and_live_bot_games():
    async with demo_serve.start(port=0, pace=0.0) as d:
        urls = d.urls()
        assert urls["player"] == f"{d.url}/ui/games/you-vs-bot?token={d.tokens['player']}"
        claims = {role: jwt.decode(tok, options={"verify_signature": False})
                  for role, tok in d.tokens.items()}
        assert (claims["player"]["sub"], claims["player"]["role"]) == ("you", "player")
        assert (claims["arbiter"]["role"], claims["arbiter"]["chief"]) == ("arbiter", True)
        assert (claims["organiser"]["sub"], claims["organiser"]["role"]) == ("organiser1", "organiser")
        assert urls["organiser"] == f"{d.url}/ui/organiser?token={d.tokens['organiser']}"
        async with httpx.AsyncClient(base_url=d.url, timeout=10) as c:
            g = (await c.get("/games/you-vs-bot")).json()
            assert (g["white"], g["black"], g["time_control"]) == ("you", "Boris", "600+5")
            # the player's token moves for "you"; an anonymous move is refused (identity on)
            auth = {"authorization": f"Bearer {d.tokens['player']}"}
            r = await c.post("/games/you-vs-bot/moves", json={"player_id": "you", "move": "d4"})
            assert r.status_code == 401
            r = await c.post("/games/you-vs-bot/moves", json={"player_id": "you", "move": "d4"},
                             headers=auth)
            assert r.status_code == 200 and r.json()["san"] == "d4"
            for _ in range(400):  # the bot answers, and the bots' game moves on
                g = (await c.get("/games/you-vs-bot")).json()
                live = (await c.get(f"/games/{d.live_games[0]}")).json()
                if len(g["moves"]) == 2 and len(live["moves"]) >= 2:
                    break
                await asyncio.sleep(0.05)
            assert [m["player_id"] for m in g["moves"]] == ["you", "Boris"]
            assert len(live["moves"]) >= 2 and {live["white"], live["black"]} == {"Ada", "Chen"}
            assert "you-vs-bot" in (await c.get("/")).text
            # the bots' event: a round robin of six, its first round paired and played
            assert urls["event"] == f"{d.url}/ui/tournaments/open-1?token=" and d.events == ["open-1"]
            for _ in range(400):
                t = (await c.get("/tournaments/open-1")).json()
                if t["rounds"]:
                    break
                await asyncio.sleep(0.05)
            assert (t["system"], [p["player_id"] for p in t["players"]]) == (
                "round-robin", list(demo_serve.EVENT_PLAYERS))
            assert len(t["rounds"][0]["boards"]) == 3
            assert (await c.get("/ui/tournaments/open-1")).status_code == 200


async def test_a_port_in_use_and_an_unknown_game_are_refused_with_the_reason():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(OSError, match=f"cannot listen on 127.0.0.1:{port}"):
            async with demo_serve.start(port=port):
                pass
    with pytest.raises(ValueError, match="unknown game 'shogi': chess, xiangqi, go"):
        async with demo_serve.start(game="shogi"):
            pass
