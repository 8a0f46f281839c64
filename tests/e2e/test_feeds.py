"""The integrator's read side (issue 12 item 4, :mod:`services.gateway.feeds`) with the real
services on the memory log: lists with filters and cursor pages, and the game, tournament and
whole-event feeds over SSE, NDJSON and WebSocket, resumed from a given id with exactly the
messages after it (one published while the backlog is being sent included)."""
from __future__ import annotations

import asyncio
import json

import pytest

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round

TRANSPORTS = ("sse", "ndjson", "websocket")


@pytest.fixture
async def c():
    async with arbiter_client("memory", ticks=False) as client:
        yield client


async def _game(c, gid, white="alice", black="bob", **kw):
    r = await c.post("/games", json={"game_id": gid, "white": white, "black": black,
                                      "time_control": "600+0", **kw})
    assert r.status_code == 200, r.text


async def _move(c, gid, player, mv):
    r = await c.post(f"/games/{gid}/moves", json={"player_id": player, "move": mv})
    assert r.status_code == 200, r.text


async def _history(c, gid) -> list[tuple[str, str]]:
    """(id, type) of every message of game ``gid`` so far, once the services are idle."""
    await c.arbiter_log.idle()
    return [(f"{m['stream']}:{m['seq']}", m["type"])
            for m in (await c.get(f"/games/{gid}/events", params={"follow": "false"})).json()]


class Tap:
    """One stream of the app driven directly as ASGI (httpx buffers whole answers): SSE,
    NDJSON or WebSocket. ``items``: (id, type) of each message received, ``ends``: the gateway's
    closing messages, ``close_code`` a WebSocket's. ``hold`` (a coroutine function) is awaited
    inside the app's send of the first message: whatever it publishes arrives while the
    backlog is being sent. ``stall``: after the first message, the client reads nothing more
    until :meth:`release`."""

    def __init__(self, app, transport: str, path: str, query: str = "",
                 headers: tuple = (), hold=None, stall: bool = False) -> None:
        self.app, self.transport, self.hold = app, transport, hold
        self.items: list[tuple[str, str]] = []
        self.ends: list[dict] = []
        self.refusal: dict | None = None
        self.held = False
        self.close_code: int | None = None
        self.status: int | None = None
        self._buf = b""
        self._done, self._changed = asyncio.Event(), asyncio.Event()
        self._flowing = asyncio.Event()
        if not stall:
            self._flowing.set()
        if transport == "ndjson":
            query = f"{query}&format=ndjson" if query else "format=ndjson"
        self.scope = {"type": "websocket" if transport == "websocket" else "http",
                      "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
                      "scheme": "ws" if transport == "websocket" else "http", "path": path,
                      "raw_path": path.encode(), "query_string": query.encode(), "root_path": "",
                      "headers": [(b"host", b"gw"), *headers], "client": ("test", 1),
                      "server": ("gw", 80), "subprotocols": []}

    async def __aenter__(self) -> Tap:
        self._task = asyncio.create_task(self.app(self.scope, self._receive, self._send))
        return self

    async def __aexit__(self, *exc) -> None:
        self._done.set()
        self._flowing.set()
        await asyncio.wait_for(self._task, 10)

    def release(self) -> None:
        self._flowing.set()

    async def until(self, pred, timeout: float = 10) -> None:
        """Wait until ``pred(self)`` holds (the test fails after ``timeout`` s)."""
        async def wait():
            while not pred(self):
                self._changed.clear()
                await self._changed.wait()
        await asyncio.wait_for(wait(), timeout)

    async def _receive(self) -> dict:
        if self.transport == "websocket" and self.status is None:
            self.status = 0
            return {"type": "websocket.connect"}
        await self._done.wait()
        return {"type": "websocket.disconnect" if self.transport == "websocket"
                else "http.disconnect"}

    async def _send(self, m: dict) -> None:
        t = m["type"]
        if t == "http.response.start":
            self.status = m["status"]
        elif t == "http.response.body":
            self._buf += m.get("body", b"")
            await self._parse_http()
        elif t == "websocket.accept":
            self.status = 101
        elif t == "websocket.send":
            await self._got(json.loads(m["text"]))
        elif t == "websocket.close":
            self.close_code = m.get("code", 1000)
        self._changed.set()

    async def _parse_http(self) -> None:
        sep = b"\r\n\r\n" if self.transport == "sse" else b"\n"
        while sep in self._buf:
            block, self._buf = self._buf.split(sep, 1)
            if self.transport == "ndjson":
                await self._got(json.loads(block))
                continue
            fields = dict(ln.split(": ", 1) for ln in block.decode().splitlines() if ": " in ln)
            if fields.get("event") == "end":
                self.ends.append(json.loads(fields["data"]))
            elif "data" in fields:
                data = json.loads(fields["data"])
                assert fields["id"] == f"{data['stream']}:{data['seq']}"
                await self._got(data)

    async def _got(self, d: dict) -> None:
        if "end" in d:
            self.ends.append(d)
        elif "detail" in d and "code" in d:
            self.refusal = d
        elif "keepalive" not in d:
            self.items.append((f"{d['stream']}:{d['seq']}", d["type"]))
            if len(self.items) == 1 and self.hold is not None:
                await self.hold()
                self.held = True
        await self._flowing.wait()


def _resume(transport: str, position: str, header: bool) -> dict:
    """Tap arguments resuming from ``position``: SSE's ``Last-Event-ID`` with ``header``."""
    if transport == "sse" and header:
        return {"headers": ((b"last-event-id", position.encode()),)}
    return {"query": f"since={position}"}


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_each_transport_resumes_with_exactly_the_missing_messages(c, transport):
    """From the id of the 3rd message: the rest of the history then the live messages, one
    move published while the backlog is being sent among them: no gap, no duplicate."""
    await _game(c, "rs")
    for i, mv in enumerate(["e4", "e5", "Nf3", "Nc6"]):
        await _move(c, "rs", ["alice", "bob"][i % 2], mv)
    before = await _history(c, "rs")
    assert len(before) > 10

    during: list = []

    async def during_backlog():  # the backlog (before[3:]) was cut when the stream opened
        await _move(c, "rs", "alice", "Bb5")
        during.extend(await _history(c, "rs"))

    async with Tap(c.arbiter_app, transport, "/feeds/game/rs", hold=during_backlog,
                   **_resume(transport, before[2][0], header=True)) as tap:
        await tap.until(lambda t: t.held)
        assert during[:len(before)] == before and "MoveAccepted" in [t for _, t in during[len(before):]]
        await tap.until(lambda t: len(t.items) >= len(during) - 3)
        await _move(c, "rs", "bob", "a6")  # live after the backlog too
        final = await _history(c, "rs")
        await tap.until(lambda t: len(t.items) >= len(final) - 3)
    assert tap.status in (200, 101) and tap.items == final[3:]
    assert tap.ends == [] and tap.refusal is None


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_new_subscriber_gets_live_messages_only(c, transport):
    await _game(c, "lv")
    await _move(c, "lv", "alice", "d4")
    before = await _history(c, "lv")
    async with Tap(c.arbiter_app, transport, "/feeds/game/lv") as tap:
        await asyncio.sleep(0)  # the subscription is open once the app has started
        await tap.until(lambda t: t.status is not None)
        await _move(c, "lv", "bob", "d5")
        now = await _history(c, "lv")
        await tap.until(lambda t: len(t.items) >= len(now) - len(before))
    assert tap.items == now[len(before):] and tap.items[0][1] == "SubmitMove"


async def test_the_bare_seq_and_zero_positions(c):
    """``since=0`` is the whole history; ``since=N`` is after the game's own stream's seq N."""
    await _game(c, "bs")
    await _move(c, "bs", "alice", "c4")
    hist = await _history(c, "bs")
    whole = (await c.get("/games/bs/events", params={"follow": "false", "since": "0"})).json()
    assert [(f"{m['stream']}:{m['seq']}", m["type"]) for m in whole] == hist
    i = hist.index(("game-bs:1", "GameStarted"))
    tail = (await c.get("/games/bs/events", params={"follow": "false", "since": "1"})).json()
    assert [(f"{m['stream']}:{m['seq']}", m["type"]) for m in tail] == hist[i + 1:]
    only = (await c.get("/games/bs/events", params={"follow": "false",
                                                      "types": "MoveAccepted"})).json()
    assert [m["type"] for m in only] == ["MoveAccepted"] and only[0]["payload"]["san"] == "c4"


async def _event(c, tid: str) -> None:
    r = await c.post("/tournaments", json={"tournament_id": tid, "name": "Feeds Open",
                                          "system": "swiss", "rounds": 3,
                                          "time_control": "600+0"})
    assert r.status_code == 200, r.text
    for i in range(1, 5):
        r = await c.post(f"/tournaments/{tid}/players",
                         json={"player_id": f"{tid}p{i}", "name": f"P {i}", "rating": 2000 - i})
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_whole_event_carries_its_rounds_and_its_games_moves(c, transport):
    await _event(c, "ev")
    async with Tap(c.arbiter_app, transport, "/feeds/event/ev", query="since=0") as tap:
        assert (await c.post("/tournaments/ev/rounds", json={"round": 1})).status_code == 200
        board = (await paired_round(c, "ev", 1))["boards"][0]
        await _move(c, board["game_id"], board["white"], "e4")
        await tap.until(lambda t: (f"game-{board['game_id']}", "MoveAccepted")
                        in [(i.split(":")[0], ty) for i, ty in t.items])
    types = [ty for _, ty in tap.items]
    assert types[0] == "CreateTournament" and "RoundPaired" in types
    assert types.index("RoundPaired") < types.index("MoveAccepted")
    assert len(tap.items) == len(set(tap.items))
    streams = {i.split(":")[0] for i, _ in tap.items}
    assert "tournament-ev" in streams and f"game-{board['game_id']}" in streams
    # resumed from the RoundPaired: exactly what followed it, games' messages included
    rp = tap.items[types.index("RoundPaired")][0]
    async with Tap(c.arbiter_app, "ndjson", "/feeds/event/ev", query=f"since={rp}&types=MoveAccepted") as t2:
        await t2.until(lambda t: len(t.items) >= 1)
    assert t2.items == [x for x in tap.items[types.index("RoundPaired") + 1:] if x[1] == "MoveAccepted"]


@pytest.mark.parametrize("transport", ("sse", "websocket"))
async def test_a_subscriber_too_far_behind_is_closed_with_its_resume_id(c, transport):
    """A client that stops reading while messages keep coming is closed (its queue bounded)
    with a last message naming the id to resume from; resuming from it misses nothing."""
    await _game(c, "sl")
    c.arbiter_app.state.gateway.hub.max_queue = 3
    before = await _history(c, "sl")
    async with Tap(c.arbiter_app, transport, "/feeds/game/sl", stall=True) as tap:
        await tap.until(lambda t: t.status is not None)
        for i, mv in enumerate(["e4", "e5", "Nf3"]):
            await _move(c, "sl", ["alice", "bob"][i % 2], mv)
        gw = c.arbiter_app.state.gateway
        assert "game-sl" not in gw.hub.subscribers  # closed: it no longer collects messages
        tap.release()
        await tap.until(lambda t: t.ends)
    end = tap.ends[0]
    assert end["end"] == "behind" and end["resume"] == tap.items[-1][0]
    assert f"since={end['resume']}" in end["detail"]
    if transport == "websocket":
        assert tap.close_code == 1013
    now = await _history(c, "sl")
    assert tap.items == now[len(before):len(before) + len(tap.items)] and len(tap.items) == 4
    rest = (await c.get("/games/sl/events", params={"follow": "false",
                                                      "since": end["resume"]})).json()
    assert tap.items + [(f"{m['stream']}:{m['seq']}", m["type"]) for m in rest] == now[len(before):]


async def test_lists_filter_and_page(c):
    await _event(c, "lt")
    assert (await c.post("/tournaments/lt/rounds", json={"round": 1})).status_code == 200
    boards = (await paired_round(c, "lt", 1))["boards"]
    await _game(c, "x1", "carol", "dave", game="xiangqi", time_control="600")
    await _game(c, "c1", "carol", "erin")
    await _move(c, "c1", "carol", "e4")
    r = await c.post("/games/c1/resign", json={"player_id": "erin"})
    assert r.status_code == 200, r.text

    async def ids(**params):
        r = await c.get("/games", params=params)
        assert r.status_code == 200, r.text
        return [g["game_id"] for g in r.json()["items"]]

    assert await ids(tournament_id="lt") == [b["game_id"] for b in boards] == ["lt-r1-b1", "lt-r1-b2"]
    assert await ids(player_id="carol") == ["c1", "x1"]
    assert await ids(game="xiangqi") == ["x1"]
    assert await ids(status="ended") == ["c1"]
    assert await ids(round=1, player_id=boards[1]["black"]) == ["lt-r1-b2"]
    assert await ids(round=2) == []
    one = (await c.get("/games", params={"status": "ended"})).json()["items"][0]
    assert (one["white"], one["black"], one["result"], one["reason"], one["moves"], one["href"]) == \
        ("carol", "erin", "1-0", "resignation", 1, "/games/c1")
    assert one["clock"]["white_ms"] is not None and one["game"] == "chess"
    # pages of 1: every game once, in order, then no `next`
    seen, cursor = [], None
    while True:
        r = (await c.get("/games", params={"limit": 1, **({"cursor": cursor} if cursor else {})})).json()
        seen += [g["game_id"] for g in r["items"]]
        if (cursor := r["next"]) is None:
            break
    assert seen == ["c1", "x1", "lt-r1-b1", "lt-r1-b2"]
    await _event(c, "lu")
    t = (await c.get("/tournaments", params={"status": "running"})).json()
    assert [x["tournament_id"] for x in t["items"]] == ["lt"] and t["next"] is None
    assert t["items"][0] | {"href": None} == {
        "tournament_id": "lt", "name": "Feeds Open", "game": "chess", "system": "swiss",
        "status": "running", "rounds": 3, "rounds_paired": 1, "players": 4, "href": None}
    page1 = (await c.get("/tournaments", params={"limit": 1})).json()
    page2 = (await c.get("/tournaments", params={"limit": 1, "cursor": page1["next"]})).json()
    assert [x["tournament_id"] for x in page1["items"] + page2["items"]] == ["lt", "lu"]
    assert page2["next"] is None
    assert [x["tournament_id"] for x in (await c.get(
        "/tournaments", params={"player_id": "lup2"})).json()["items"]] == ["lu"]


@pytest.mark.parametrize("path, params, status, code", [
    ("/games", {"limit": 0}, 422, "malformed"),
    ("/games", {"limit": 201}, 422, "malformed"),
    ("/games", {"status": "won"}, 422, "malformed"),
    ("/games", {"game": "checkers"}, 422, "malformed"),
    ("/games", {"round": 0}, 422, "malformed"),
    ("/games", {"player_id": "a b"}, 422, "malformed"),
    ("/games", {"cursor": "not-a-cursor"}, 422, "bad-cursor"),
    ("/tournaments", {"cursor": "WyIiLDAsMCwiIl0="}, 422, "bad-cursor"),  # a games cursor
    ("/tournaments", {"limit": 500}, 422, "malformed"),
    ("/feeds/game/bd", {"since": "yesterday"}, 422, "bad-position"),
    ("/feeds/game/bd", {"since": "game-bd:999"}, 409, "unknown-position"),
    ("/feeds/game/bd", {"types": "Move Accepted"}, 422, "bad-types"),
    ("/feeds/game/bd", {"types": "MoveAccepted,MoveAcepted", "follow": "false"}, 422, "bad-types"),  # a typo: not an empty feed
    ("/games/bd/events", {"types": "GameEnded,Bogus", "follow": "false"}, 422, "bad-types"),
    ("/feeds/game/nope", {}, 404, "not-found"),
    ("/feeds/tournament/nope", {}, 404, "not-found"),
    ("/feeds/match/bd", {}, 422, "malformed"),
    ("/feeds/game/bd", {"format": "xml"}, 422, "malformed"),
    ("/games/bd/events", {"since": "x:y"}, 422, "bad-position"),
])
async def test_bad_filters_and_positions_are_refused(c, path, params, status, code):
    await _game(c, "bd")
    r = await c.get(path, params=params)
    assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert r.json()["detail"]


@pytest.mark.parametrize("raw", ["game-la:1é".encode(), b"\xff", "game-la:１".encode(), "é".encode("latin-1")])
async def test_a_last_event_id_that_is_not_ascii_is_400_bad_position_with_its_bytes(c, raw):
    """A position is ASCII (a message's id as the gateway sent it): other bytes are refused
    on every resumable stream and shown escaped, not decoded into something else."""
    await _game(c, "la")
    for path in ("/feeds/game/la", "/feeds/game/la?follow=false", "/games/la/events"):
        r = await c.send(c.build_request("GET", path, headers=[(b"Last-Event-ID", raw)]))
        assert (r.status_code, r.json()["code"]) == (400, "bad-position"), (path, r.text)
        assert r.json()["detail"] == (f"Last-Event-ID {raw!r} is not ASCII, so no position: resume "
                                      "with a message's id as sent (<stream>:<seq>), or 0")


async def test_a_websocket_refusal_is_a_message_and_a_close_code(c):
    async with Tap(c.arbiter_app, "websocket", "/feeds/game/nope") as tap:
        await tap.until(lambda t: t.close_code is not None)
    assert tap.close_code == 4404 and tap.refusal["code"] == "not-found"
    await _game(c, "wr")
    async with Tap(c.arbiter_app, "websocket", "/feeds/game/wr", query="since=game-wr:77") as tap:
        await tap.until(lambda t: t.close_code is not None)
    assert tap.close_code == 4409 and tap.refusal["code"] == "unknown-position"


async def test_over_a_real_socket_ndjson_and_websocket_resume(c, unused_tcp_port):
    """uvicorn on loopback: NDJSON resumed with Last-Event-ID over HTTP, and a WebSocket
    (the ``websockets`` package under uvicorn) resumed with ``since``, both from the same id."""
    import httpx
    import uvicorn
    from websockets.asyncio.client import connect

    await _game(c, "rl")
    await _move(c, "rl", "alice", "g3")
    hist = await _history(c, "rl")
    server = uvicorn.Server(uvicorn.Config(c.arbiter_app, host="127.0.0.1", port=unused_tcp_port,
                                           lifespan="off", log_level="warning"))
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        base = f"127.0.0.1:{unused_tcp_port}/feeds/game/rl"
        lines = []
        async with httpx.AsyncClient(timeout=10) as h:
            async with h.stream("GET", f"http://{base}", headers={
                    "Accept": "application/x-ndjson", "Last-Event-ID": hist[0][0]}) as r:
                assert r.headers["content-type"].startswith("application/x-ndjson")
                async for line in r.aiter_lines():
                    lines.append(json.loads(line))
                    if len(lines) == len(hist) - 1:
                        break
        assert [(f"{m['stream']}:{m['seq']}", m["type"]) for m in lines] == hist[1:]
        async with connect(f"ws://{base}?since={hist[0][0]}") as ws:
            got = [json.loads(await asyncio.wait_for(ws.recv(), 10)) for _ in hist[1:]]
        assert [(f"{m['stream']}:{m['seq']}", m["type"]) for m in got] == hist[1:]
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 10)


async def test_the_events_routes_start_an_unknown_position_from_the_beginning(c):
    """A browser's EventSource reconnecting with a Last-Event-ID this gateway has not applied
    gets the whole history (as before resuming existed), not a refusal that would stop it."""
    await _game(c, "ev2")
    hist = await _history(c, "ev2")
    r = await c.get("/games/ev2/events", params={"follow": "false"},
                    headers={"Last-Event-ID": "game-ev2:99"})
    assert [(f"{m['stream']}:{m['seq']}", m["type"]) for m in r.json()] == hist
    async with Tap(c.arbiter_app, "sse", "/games/ev2/events",
                   headers=((b"last-event-id", hist[0][0].encode()),)) as tap:
        await tap.until(lambda t: len(t.items) >= len(hist) - 1)
    assert tap.items == hist[1:]
