"""``arbiter demo --serve``: a live demo to open in a browser.

All services run in this process on the memory log (no Kafka), the gateway on a real port with
identity on (a signing secret drawn for the run). Two kinds of games, on real clocks:

- ``you-vs-bot``: the visitor plays White (xiangqi: Red) with the player token printed,
  against a bot;
- ``live-N``: bots play each other at a pace a spectator can follow; when one game ends the
  next starts, so there is always a live board;
- ``open-N``: an event (a round robin of :data:`EVENT_PLAYERS` bots) whose rounds the bots play
  at the same pace, one round after the other; when it finishes the next one starts. Its lobby
  is ``/ui/tournaments/open-N``.

The bots talk to the gateway over HTTP with the administrator's token (acting for the players,
as an arbiter may). :func:`start` returns once the gateway answers, with the URLs and tokens.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import random
import secrets
import socket
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from collections.abc import AsyncIterator

import httpx
import uvicorn

from services.tools.demo import DEMO_TIME, NAMES, bot_game, go_turn, bot_turn, to_move
from services.runner import uvicorn_options

logger = logging.getLogger("arbiter.demo")

HUMAN, BOT, BOTS = "you", "Boris", ("Ada", "Chen")
#: The visitor's game: a rapid time control, so a person has time to think.
HUMAN_TIME = {"chess": "600+5", "xiangqi": "600+5", "go": "600 5x30 byo-yomi"}
#: The bots' games: short, so that results come in while one watches.
BOT_TIME = "120+2"
#: Seconds a bot waits before thinking in the live games (on average).
PACE_S = 1.0
#: The bots of the demo event (a round robin: five rounds of three boards).
EVENT_PLAYERS = tuple(n for n in NAMES if n not in (HUMAN, BOT))[:6]


@dataclass
class Demo:
    """A running demo: where it answers and who may do what."""

    url: str
    player_game: str
    tokens: dict[str, str] = field(default_factory=dict)  # role -> token
    live_games: list[str] = field(default_factory=list)    # the bots' games, oldest first
    events: list[str] = field(default_factory=list)        # the bots' events, oldest first
    admin: str = ""                                        # the administrator's X-Arbiter-Token

    def urls(self) -> dict[str, str]:
        g = f"{self.url}/ui/games/"
        return {"index": f"{self.url}/",
                "player": f"{g}{self.player_game}?token={self.tokens['player']}",
                "arbiter": f"{self.url}/ui/arbiter?token={self.tokens['arbiter']}",
                "spectator": f"{g}{self.live_games[-1] if self.live_games else self.player_game}?token=",
                **({"event": f"{self.url}/ui/tournaments/{self.events[-1]}?token="} if self.events else {}),
                **({"organiser": f"{self.url}/ui/organiser?token={self.tokens['organiser']}"}
                   if "organiser" in self.tokens else {})}


async def _create(c: httpx.AsyncClient, gid: str, white: str, black: str, tc: str,
                  game: str) -> None:
    go = {"board_size": 9, "go_rules": "chinese"} if game == "go" else {}
    r = await c.post("/games", json={"game_id": gid, "white": white, "black": black,
                                     "time_control": tc, "game": game, **go})
    if r.status_code >= 400:
        raise RuntimeError(f"demo game {gid}: {r.json().get('detail')}")


async def _bot_side(c: httpx.AsyncClient, gid: str, rng: random.Random) -> None:
    """The bot's side of the visitor's game: it moves whenever it is Black's turn (Go: and
    proposes the dead stones once play stopped; the visitor accepts or resumes)."""
    while True:
        g = (await c.get(f"/games/{gid}")).json()
        if g["status"] == "ended":
            return
        phase = (g.get("go") or {}).get("phase", "play")
        if g["status"] == "ongoing" and phase == "play" and to_move(g) == "black":
            await bot_turn(c, gid, g, HUMAN, BOT, rng)
        elif phase == "scoring" and "black" not in g["go"].get("proposals", {}):
            await go_turn(c, gid, g, HUMAN, BOT, rng)  # Black proposes
        else:
            await asyncio.sleep(0.1)


async def _live_games(c: httpx.AsyncClient, demo: Demo, rng: random.Random, pace: float,
                      game: str) -> None:
    """Bots' games one after the other, for ever."""
    for n in itertools.count(1):
        gid = f"live-{n}"
        white, black = BOTS if n % 2 else BOTS[::-1]
        await _create(c, gid, white, black, BOT_TIME if game != "go" else DEMO_TIME["go"], game)
        demo.live_games.append(gid)
        while True:
            g = (await c.get(f"/games/{gid}")).json()
            if g["status"] == "ended":
                break
            if g["status"] == "ongoing":
                await bot_turn(c, gid, g, white, black, rng, pace)
            else:
                await asyncio.sleep(0.05)


async def _started(c: httpx.AsyncClient, tid: str, rnd: int) -> list[dict]:
    """The boards of round ``rnd`` of event ``tid`` once each game has started."""
    while True:
        t = (await c.get(f"/tournaments/{tid}")).json()
        if len(t["rounds"]) >= rnd and all(b["status"] not in (None, "created")
                                           for b in t["rounds"][rnd - 1]["boards"]):
            return t["rounds"][rnd - 1]["boards"]
        await asyncio.sleep(0.05)


async def _live_events(c: httpx.AsyncClient, demo: Demo, rng: random.Random, pace: float,
                       game: str) -> None:
    """Bots' events one after the other, for ever: each a round robin whose rounds are paired
    and played one after the other (the boards of a round at once, at ``pace``)."""
    go = {"board_size": 9, "go_rules": "chinese"} if game == "go" else {}
    for n in itertools.count(1):
        tid = f"open-{n}"
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": f"Arbiter Open {n}",
                                                "system": "round-robin", "game": game, **go,
                                                "time_control": BOT_TIME if game != "go" else DEMO_TIME["go"]})
        if r.status_code >= 400:
            raise RuntimeError(f"demo event {tid}: {r.json().get('detail')}")
        for i, name in enumerate(EVENT_PLAYERS):
            await c.post(f"/tournaments/{tid}/players", json={"player_id": name, "name": name,
                                                             "rating": 2100 - 40 * i})
        demo.events.append(tid)
        for rnd in range(1, len(EVENT_PLAYERS)):
            await c.post(f"/tournaments/{tid}/rounds", json={"round": rnd})
            boards = await _started(c, tid, rnd)
            await asyncio.gather(*(bot_game(c, b["game_id"], b["white"], b["black"],
                                            random.Random(rng.random()), pace) for b in boards))


def _report(task: asyncio.Task) -> None:
    """A bot that stopped on an error says so (the demo goes on serving)."""
    if not task.cancelled() and task.exception() is not None:
        logger.error("demo: a bot stopped: %r", task.exception(), exc_info=task.exception())


@asynccontextmanager
async def start(host: str = "127.0.0.1", port: int = 0, *, seed: int = 2026,
                pace: float = PACE_S, game: str = "chess") -> AsyncIterator[Demo]:
    """Run the demo of ``game`` (chess, xiangqi, go: 9x9) while the context is open
    (``port=0``: a free port). Raises ``ValueError`` for an unknown game."""
    if game not in DEMO_TIME:
        raise ValueError(f"unknown game {game!r}: {', '.join(DEMO_TIME)}")
    from services.gateway.app import create_app
    from services.gateway.identity import ALL_EVENTS, issue_token
    from shared.eventlog.base import open_log
    from services.system import System

    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))  # here, so that a port in use is an OSError naming it
    except OSError as e:
        sock.close()
        raise OSError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    secret, admin = secrets.token_urlsafe(48), secrets.token_hex(16)
    log = open_log("memory")
    system = System(log, ticks=True)
    app = create_app(log, admin_token=admin, manage_log=False, wait_timeout=30.0, jwt_secret=secret)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, **uvicorn_options()))
    await system.recover()
    await log.start()
    await system.start_timers()
    serving = asyncio.create_task(server.serve(sockets=[sock]))
    tasks: list[asyncio.Task] = []
    try:
        while not server.started:
            if serving.done():
                raise RuntimeError(f"the gateway did not start on {host}:{port}")
            await asyncio.sleep(0.02)
        bound = sock.getsockname()[1]
        url = f"http://{host}:{bound}"
        week = 7 * 86_400
        demo = Demo(url, "you-vs-bot", tokens={
            "player": issue_token(secret, "player", HUMAN, [ALL_EVENTS], ttl_s=week),
            "arbiter": issue_token(secret, "arbiter", "arbiter1", [ALL_EVENTS], ttl_s=week, chief=True),
            "organiser": issue_token(secret, "organiser", "organiser1", [], ttl_s=week)},
            admin=admin)
        c = httpx.AsyncClient(base_url=url, headers={"X-Arbiter-Token": admin}, timeout=60)
        rng = random.Random(seed)
        await _create(c, demo.player_game, HUMAN, BOT, HUMAN_TIME[game], game)
        tasks = [asyncio.create_task(_bot_side(c, demo.player_game, random.Random(rng.random()))),
                 asyncio.create_task(_live_games(c, demo, random.Random(rng.random()), pace, game)),
                 asyncio.create_task(_live_events(c, demo, random.Random(rng.random()), pace, game))]
        for t in tasks:
            t.add_done_callback(_report)
        while not (demo.live_games and demo.events) and not any(t.done() for t in tasks):
            await asyncio.sleep(0.02)
        try:
            yield demo
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await c.aclose()
    finally:
        server.should_exit = True
        await asyncio.gather(serving, return_exceptions=True)
        await system.stop()
        await log.stop()
