"""Gateway unit tests: FastAPI app on a MemoryLog with a tiny fake validation service.

The fake (below) answers game commands the way the real validation service does: one event on
``game-<gid>`` whose ``causation_id`` is the command's ``event_id``. So the gateway's waiting,
4xx and read-model paths are tested without the real services.
"""
from __future__ import annotations

import asyncio
import time
import json
from contextlib import asynccontextmanager

import httpx
import pytest

from contracts.envelope import Actor, dt_of
from contracts.messages import (
    GAME_COMMANDS, GAME_EVENTS, TOURNAMENT_COMMANDS, TOURNAMENT_EVENTS, Board, ClockStarted,
    ClockUpdated, DrawClaimed, DrawClaimRejected, DrawOffered, GameCommandRejected, GameEnded, GameStarted, MoveAccepted,
    MoveRejected, PlayerRegistered, Resigned, RoundPaired, Rule, StandingRow, StandingsUpdated,
    TournamentCreated, envelope,
)
from services.gateway.app import READMODEL_CODE, create_app
from services.gateway.readmodel import GameView, ReadModel, format_clk
from shared.eventlog.memory import MemoryLog
from shared.sealing import snapshot_key

NOW = 1_700_000_000_000
TOKEN = "sekret"
SVC = Actor(kind="service", id="fake")


class FakeServices:
    """Validation-like answers to game commands, pairing-like answers to tournament commands."""

    def __init__(self, log: MemoryLog) -> None:
        self.log = log
        self.seqs: dict[str, int] = {}
        self.games: dict[str, dict] = {}
        log.subscribe([GAME_COMMANDS, TOURNAMENT_COMMANDS], "fake", self.on_command)
        log.subscribe([GAME_EVENTS], "fake-adjudication", self.on_event)

    async def on_event(self, topic, ev):
        if ev.type == "DrawClaimed":  # adjudication-like: rule on the claim
            p = ev.payload
            await self.emit(GAME_EVENTS, ev, f"game-{p.game_id}.result", DrawClaimRejected(
                game_id=p.game_id, player_id=p.player_id, colour=p.colour, reason=p.reason,
                detail="position occurred 1 time(s)",
                rule=Rule(ruleset="FIDE-1994", article="10.13(2)")))

    async def emit(self, topic, cause, stream, payload):
        seq = self.seqs[stream] = self.seqs.get(stream, 0) + 1
        await self.log.publish(topic, envelope(
            payload, stream=stream, seq=seq, occurred_at=cause.occurred_at, actor=SVC,
            causation_id=cause.event_id, correlation_id=cause.event_id))

    async def on_command(self, topic, cmd):
        p = cmd.payload
        if topic == TOURNAMENT_COMMANDS:
            stream = f"tournament-{p.tournament_id}"
            if cmd.type == "CreateTournament":
                await self.emit(TOURNAMENT_EVENTS, cmd, stream, TournamentCreated(
                    tournament_id=p.tournament_id, name=p.name, system=p.system, rounds=p.rounds,
                    time_control=p.time_control, tiebreaks=p.tiebreaks))
            elif cmd.type == "RegisterPlayer":
                await self.emit(TOURNAMENT_EVENTS, cmd, stream, PlayerRegistered(
                    tournament_id=p.tournament_id, player_id=p.player_id, name=p.name,
                    rating=p.rating))
            elif cmd.type == "StartRound" and p.boards:
                boards = tuple(Board(board=i, game_id=f"{p.tournament_id}-r{p.round}-b{i}",
                                     white=b.white, black=b.black)
                               for i, b in enumerate(p.boards, start=1))
                await self.emit(TOURNAMENT_EVENTS, cmd, stream, RoundPaired(
                    tournament_id=p.tournament_id, round=p.round, system="manual", boards=boards,
                    bye=p.bye, manual=True))
            return
        gid = p.game_id
        stream = f"game-{gid}"
        if cmd.type == "CreateGame":
            if gid in self.games:
                await self.emit(GAME_EVENTS, cmd, stream, GameCommandRejected(
                    game_id=gid, command_id=str(cmd.event_id), command_type=cmd.type,
                    code="already-exists", reason="game exists"))
                return
            self.games[gid] = {"ply": 0, "white": p.white, "black": p.black}
            await self.emit(GAME_EVENTS, cmd, stream, GameStarted(
                game_id=gid, white=p.white, black=p.black,
                start_fen=p.start_fen or "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                time_control=p.time_control))
        elif cmd.type == "SubmitMove":
            g = self.games[gid]
            if p.move == "slow":
                return  # never answered: the gateway times out (202)
            if p.move in ("e5e5", "junk"):
                await self.emit(GAME_EVENTS, cmd, stream, MoveRejected(
                    game_id=gid, player_id=p.player_id, move=p.move,
                    code="malformed" if p.move == "junk" else "illegal",
                    reason=f"{p.move} is not a legal move"))
                return
            g["ply"] += 1
            colour = "white" if g["ply"] % 2 else "black"
            await self.emit(GAME_EVENTS, cmd, stream, MoveAccepted(
                game_id=gid, ply=g["ply"], player_id=p.player_id, colour=colour, uci=p.move,
                san=p.move, fen_after=f"fen-after-{g['ply']}"))
        elif cmd.type == "Resign":
            colour = "white" if p.player_id == self.games[gid]["white"] else "black"
            await self.emit(GAME_EVENTS, cmd, stream, Resigned(game_id=gid, player_id=p.player_id,
                                                               colour=colour))
        elif cmd.type == "OfferDraw":
            colour = "white" if p.player_id == self.games[gid]["white"] else "black"
            await self.emit(GAME_EVENTS, cmd, stream, DrawOffered(
                game_id=gid, player_id=p.player_id, colour=colour, ply=self.games[gid]["ply"]))
        elif cmd.type == "ClaimDraw":
            colour = "white" if p.player_id == self.games[gid]["white"] else "black"
            await self.emit(GAME_EVENTS, cmd, stream, DrawClaimed(
                game_id=gid, player_id=p.player_id, colour=colour, reason=p.reason,
                ply=self.games[gid]["ply"]))
        # RecordResult / IssuePenalty / ReportAbsence: no answer here (other services)


@pytest.fixture
async def env():
    log = MemoryLog()
    fake = FakeServices(log)
    app = create_app(log, admin_token=TOKEN, now_ms=lambda: NOW, wait_timeout=0.3)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app),
                                     base_url="http://gw") as client:
            yield client, log, app, fake


async def _count(log, topic=GAME_COMMANDS) -> int:
    return len(await log.read(topic))


async def _new_game(client, gid="g1"):
    r = await client.post("/games", json={"game_id": gid, "white": "alice", "black": "bob"})
    assert r.status_code == 200, r.text
    return r.json()


# ------------------------------------------------------------------------------------------- games
async def test_create_game_then_get(env):
    client, log, app, _ = env
    body = await _new_game(client)
    assert body["event"] == "GameStarted" and body["game_id"] == "g1"
    gw = app.state.gateway.instance
    assert body["stream"] == f"game-g1.commands.{gw}" and body["seq"] == 1
    r = await client.get("/games/g1")
    assert r.status_code == 200
    g = r.json()
    assert (g["white"], g["black"], g["status"]) == ("alice", "bob", "ongoing")
    assert g["moves"] == [] and g["result"] is None
    assert '[White "alice"]' in g["pgn"]
    cmd = (await log.read(GAME_COMMANDS))[0]
    assert cmd.type == "CreateGame" and cmd.at_ms == NOW  # stamped with the receive time


async def test_create_game_generates_id_and_duplicate_is_409(env):
    """A second creation of a game is the game service's to refuse (its rejection, 409
    ``already-exists``): the game stays as it was."""
    client, log, _, _ = env
    r = await client.post("/games", json={"white": "a", "black": "b"})
    assert r.status_code == 200
    gid = r.json()["game_id"]
    before = (await client.get(f"/games/{gid}")).json()
    r = await client.post("/games", json={"game_id": gid, "white": "c", "black": "d"})
    assert (r.status_code, r.json()["code"], r.json()["detail"]) == (409, "already-exists", "game exists")
    after = (await client.get(f"/games/{gid}")).json()
    assert (after["white"], after["black"], after["status"]) == ("a", "b", "ongoing")
    assert {k: v for k, v in after.items() if k != "last_rejection"} == \
        {k: v for k, v in before.items() if k != "last_rejection"}


async def test_move_accepted(env):
    client, log, _, _ = env
    await _new_game(client)
    r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["event"] == "MoveAccepted" and body["san"] == "e4" and body["ply"] == 1
    assert body["payload"]["uci"] == "e4" and body["seq"] == 2
    g = (await client.get("/games/g1")).json()
    assert g["moves"][0]["san"] == "e4" and g["moves"][0]["at_ms"] == NOW
    assert g["fen"] == "fen-after-1"
    assert "1. e4 *" in g["pgn"]
    cmd = (await log.read(GAME_COMMANDS))[-1]
    assert cmd.actor == Actor(kind="player", id="alice")


async def test_move_rejected_is_409_with_reason_and_malformed_is_422(env):
    client, _, _, _ = env
    await _new_game(client)
    r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e5e5"})
    assert r.status_code == 409
    assert r.json()["detail"] == "e5e5 is not a legal move" and r.json()["code"] == "illegal"
    r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "junk"})
    assert r.status_code == 422 and r.json()["code"] == "malformed"


async def test_timeout_is_202_and_wait_false_is_202(env):
    client, _, _, _ = env
    await _new_game(client)
    r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "slow"})
    assert r.status_code == 202 and r.json()["outcome"] == "pending"
    r = await client.post("/games/g1/moves?wait=false", json={"player_id": "bob", "move": "e5"})
    assert r.status_code == 202 and r.json()["seq"] == 3


async def test_unknown_game_404_publishes_nothing(env):
    client, log, _, _ = env
    await _new_game(client)
    n = await _count(log)
    for path, body in [("/games/nope/moves", {"player_id": "alice", "move": "e4"}),
                       ("/games/nope/resign", {"player_id": "alice"}),
                       ("/games/nope/draw/offer", {"player_id": "alice"})]:
        r = await client.post(path, json=body)
        assert r.status_code == 404 and "nope" in r.json()["detail"]
    assert (await client.get("/games/nope")).status_code == 404
    assert (await client.get("/games/nope/events?follow=false")).status_code == 404
    assert await _count(log) == n


async def test_bad_body_422_publishes_nothing(env):
    client, log, _, _ = env
    await _new_game(client)
    n = await _count(log)
    for body in [{"player_id": "alice"}, {"player_id": "alice", "move": "e4", "extra": 1},
                 {"player_id": "no spaces!", "move": "e4"}, {"player_id": "alice", "move": ""}]:
        r = await client.post("/games/g1/moves", json=body)
        assert r.status_code == 422, body
    r = await client.post("/games/g1/draw/claim", json={"player_id": "alice", "reason": "boredom"})
    assert r.status_code == 422
    r = await client.post("/games", json={"game_id": "bad id", "white": "a", "black": "b"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "game_id"]
    assert await _count(log) == n
    # numbers and booleans are not converted: true is not 1 (a forfeit after one second of
    # absence), "3" is not round 3
    for field, value in (("default_time_s", True), ("round", "3"), ("board", 1.5), ("round", False)):
        r = await client.post("/games", json={"game_id": "g2", "white": "a", "black": "b", field: value})
        assert r.status_code == 422 and r.json()["code"] == "malformed", (field, value, r.text)
        assert field in str(r.json()["detail"]), r.text
    assert await _count(log) == n
    r = await client.post("/games", json={"game_id": "g2", "white": "a", "black": "b",
                                          "default_time_s": 60, "round": 3, "board": 1})
    assert r.status_code == 200, r.text


async def test_arbiter_endpoints_need_token(env):
    client, log, _, _ = env
    await _new_game(client)
    n = await _count(log)
    assert (await client.post("/games/g1/result", json={"result": "1-0", "reason": "x"})).status_code == 403
    r = await client.post("/games/g1/penalties", json={"player_id": "bob", "kind": "warning"},
                          headers={"X-Arbiter-Token": "wrong"})
    assert r.status_code == 403 and "arbiter" in r.json()["detail"]
    assert (await client.post("/games/g1/absence", json={"player_id": "bob"})).status_code == 403
    # a player may not backdate a move
    r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4", "at_ms": 5})
    assert r.status_code == 403
    assert await _count(log) == n
    r = await client.post("/games/g1/penalties?wait=false",
                          json={"player_id": "bob", "kind": "time-penalty", "ms": 60000},
                          headers={"X-Arbiter-Token": TOKEN})
    assert r.status_code == 202
    cmd = (await log.read(GAME_COMMANDS))[-1]
    assert cmd.type == "IssuePenalty" and cmd.actor.kind == "arbiter" and cmd.payload.ms == 60000


async def test_clock_pause_and_resume_routes(env):
    client, log, _, _ = env
    await _new_game(client)
    n = await _count(log)
    assert (await client.post("/games/g1/clock/pause", json={"reason": "x"})).status_code == 403
    r = await client.post("/games/g1/clock/stop", json={"reason": "x"},
                          headers={"X-Arbiter-Token": TOKEN})
    assert r.status_code == 404 and r.json()["code"] == "not-found"  # pause and resume only
    r = await client.post("/games/g1/clock/pause", json={"reason": ""},
                          headers={"X-Arbiter-Token": TOKEN})
    assert r.status_code == 422
    assert await _count(log) == n
    for action, kind in (("pause", "PauseClock"), ("resume", "ResumeClock")):
        r = await client.post(f"/games/g1/clock/{action}?wait=false",
                              json={"reason": "a player fell ill"}, headers={"X-Arbiter-Token": TOKEN})
        assert r.status_code == 202
        cmd = (await log.read(GAME_COMMANDS))[-1]
        assert (cmd.type, cmd.actor.kind, cmd.payload.reason) == (kind, "arbiter", "a player fell ill")


async def test_arbiter_at_ms_stamps_recorded_time(env):
    client, log, _, _ = env
    await _new_game(client)
    r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4", "at_ms": 1234},
                          headers={"X-Arbiter-Token": TOKEN})
    assert r.status_code == 200
    cmd = (await log.read(GAME_COMMANDS))[-1]
    assert cmd.at_ms == 1234 and cmd.actor.kind == "arbiter" and cmd.payload.player_id == "alice"


async def test_open_arbiter_endpoints_without_admin_token():
    log = MemoryLog()
    app = create_app(log, now_ms=lambda: NOW, wait_timeout=0.1)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
            r = await c.post("/games?wait=false", json={"game_id": "g", "white": "a", "black": "b"})
            assert r.status_code == 202
            r = await c.post("/games/g/result?wait=false", json={"result": "1/2-1/2", "reason": "x"})
            assert r.status_code == 202


async def test_each_gateway_writes_its_own_gap_free_command_streams(env):
    """One writer per stream with any number of gateways: each writes
    ``<aggregate>.commands.<instance>`` from seq 1; the game's order is the topic's."""
    client, log, app, _ = env
    await _new_game(client)
    await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"})
    await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e5e5"})  # rejected
    await client.post("/games/g1/moves", json={"player_id": "nobody!", "move": "e4"})  # 422
    first = f"game-g1.commands.{app.state.gateway.instance}"
    cmds = [m for m in await log.read(GAME_COMMANDS) if m.stream == first]
    assert [m.seq for m in cmds] == [1, 2, 3]
    # a second gateway on the same log starts its own stream at seq 1; the move is the game's 2nd
    app2 = create_app(log, admin_token=TOKEN, now_ms=lambda: NOW, manage_log=False, wait_timeout=0.3)
    async with app2.router.lifespan_context(app2):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app2), base_url="http://gw2") as c2:
            r = await c2.post("/games/g1/moves?wait=false", json={"player_id": "bob", "move": "e5"})
            second = f"game-g1.commands.{app2.state.gateway.instance}"
            assert r.status_code == 202 and (r.json()["stream"], r.json()["seq"]) == (second, 1)
            assert second != first
            assert (await c2.get("/games/g1")).json()["moves"][0]["san"] == "e4"


async def test_game_over_is_409(env):
    client, log, _, _ = env
    await _new_game(client)
    r = await client.post("/games/g1/resign", json={"player_id": "bob"})
    assert r.status_code == 200 and r.json()["event"] == "Resigned"
    g = (await client.get("/games/g1")).json()
    assert g["status"] == "ended" and g["result"] == "1-0"
    n = await _count(log)
    r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"})
    assert r.status_code == 409 and "over" in r.json()["detail"]
    assert await _count(log) == n


async def test_draw_offer_shows_in_view(env):
    client, _, _, _ = env
    await _new_game(client)
    r = await client.post("/games/g1/draw/offer", json={"player_id": "alice"})
    assert r.status_code == 200 and r.json()["event"] == "DrawOffered"
    assert (await client.get("/games/g1")).json()["draw_offer"]["player_id"] == "alice"


async def test_events_follow_false_lists_the_game(env):
    client, log, _, _ = env
    await _new_game(client)
    await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"})
    await log.idle()
    r = await client.get("/games/g1/events?follow=false")
    assert r.status_code == 200
    types = [m["type"] for m in r.json()]
    assert types == ["CreateGame", "GameStarted", "SubmitMove", "MoveAccepted"]
    assert all(m["stream"].startswith("game-g1") for m in r.json())


async def test_sse_fan_out_queue(env):
    client, log, app, _ = env
    await _new_game(client)
    gw = app.state.gateway
    history = gw.rm.history["game-g1"]
    backlog, sub = gw.hub.open(history, 0, "game-g1", None)
    assert [m.type for m in backlog] == ["CreateGame", "GameStarted"]
    await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"})
    await log.idle()
    assert [sub.queue.get_nowait().type, sub.queue.get_nowait().type] == ["SubmitMove", "MoveAccepted"]
    gw.hub.close(sub)
    assert "game-g1" not in gw.hub.subscribers


async def test_claim_waits_for_the_decision(env):
    client, _, _, _ = env
    await _new_game(client)
    r = await client.post("/games/g1/draw/claim", json={"player_id": "alice", "reason": "threefold"})
    assert r.status_code == 409, r.text  # the claim was recorded (DrawClaimed) and refused
    body = r.json()
    assert (body["event"], body["code"], body["outcome"]) == ("DrawClaimRejected", "incorrect-claim", "rejected")
    assert body["payload"]["rule"]["article"] == "10.13(2)"


async def test_unexpected_error_is_500_without_traceback(env):
    _, _, app, _ = env

    def boom(gid):
        raise RuntimeError("secret internals")

    app.state.gateway.rm.game = boom
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
                                 base_url="http://gw") as c:
        r = await c.get("/games/g1")
    assert r.status_code == 500 and r.json() == {"detail": "internal error", "code": "internal"}


async def _sse(app, path: str, n: int, then=None) -> list[dict]:
    """Drive the ASGI app directly (httpx buffers whole responses): collect ``n`` SSE events,
    calling ``then()`` once the first event arrived, then disconnect."""
    events: list[dict] = []
    got_first, done = asyncio.Event(), asyncio.Event()
    buf = b""

    async def receive():
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(m):
        nonlocal buf
        if m["type"] != "http.response.body":
            return
        buf += m.get("body", b"")
        while b"\r\n\r\n" in buf:
            block, buf = buf.split(b"\r\n\r\n", 1)
            fields = dict(line.split(": ", 1) for line in block.decode().splitlines() if ": " in line)
            if "data" in fields:
                events.append({"event": fields.get("event"), "id": fields.get("id"),
                               "data": json.loads(fields["data"])})
                got_first.set()
        if len(events) >= n:
            done.set()

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
             "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
             "root_path": "", "headers": [(b"host", b"gw")], "client": ("test", 1),
             "server": ("gw", 80)}
    task = asyncio.create_task(app(scope, receive, send))
    await asyncio.wait_for(got_first.wait(), 5)
    if then is not None:
        await then()
    await asyncio.wait_for(done.wait(), 5)
    await asyncio.wait_for(task, 5)
    return events


async def test_sse_stream_replays_then_follows(env):
    client, log, app, _ = env
    await _new_game(client)

    async def move():
        r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"})
        assert r.status_code == 200

    events = await _sse(app, "/games/g1/events", 4, then=move)
    assert [e["event"] for e in events] == ["CreateGame", "GameStarted", "SubmitMove", "MoveAccepted"]
    assert events[0]["id"] == f"game-g1.commands.{app.state.gateway.instance}:1" and events[3]["data"]["payload"]["san"] == "e4"
    assert "game-g1" not in app.state.gateway.hub.subscribers  # the disconnected client is gone


async def test_healthz_is_503_while_commands_cannot_be_published(env, monkeypatch):
    """A helper killed the broker: the back ends said not ready, the gateway said ready while
    every command failed to publish. Now /healthz answers 503 with the last publish's error
    until a publish succeeds, and while a publish has waited 5 s or more (a paused broker)."""
    client, log, app, _ = env
    gw = app.state.gateway
    assert (await client.get("/healthz")).status_code == 200
    publish = log.publish

    async def away(topic, msg):
        raise ConnectionError("broker away")

    monkeypatch.setattr(log, "publish", away)
    r = await client.post("/games", json={"game_id": "hz1", "white": "alice", "black": "bob"})
    assert r.status_code == 503 and r.json()["code"] == "log-unavailable", r.text
    h = await client.get("/healthz")
    assert h.status_code == 503 and h.json()["ready"] is False
    assert h.json()["publish_failed"] == "ConnectionError: broker away"
    monkeypatch.setattr(log, "publish", publish)
    await _new_game(client, "hz2")
    assert (await client.get("/healthz")).status_code == 200
    gw.publishing["stuck"] = time.monotonic() - 6.0  # a publish waiting on a paused broker
    h = await client.get("/healthz")
    assert h.status_code == 503 and h.json()["publish_waiting_s"] >= 6.0


async def test_a_command_after_an_uncertain_publish_is_not_skipped(env, monkeypatch):
    """The log wrote a command but its publish still failed (a timeout after the write): 503.
    The next command of the game must not reuse that (stream, seq), which every consumer
    would skip as already applied: it goes on a new command stream and is decided."""
    client, log, app, _ = env
    await _new_game(client, "uc1")
    publish = log.publish

    async def written_then_failed(topic, msg):
        await publish(topic, msg)
        raise TimeoutError("no acknowledgement")

    monkeypatch.setattr(log, "publish", written_then_failed)
    r = await client.post("/games/uc1/moves", json={"player_id": "alice", "move": "e4"})
    assert r.status_code == 503 and r.json()["code"] == "log-unavailable"
    monkeypatch.setattr(log, "publish", publish)
    r = await client.post("/games/uc1/moves", json={"player_id": "bob", "move": "e5"})
    assert r.status_code == 200 and r.json()["event"] == "MoveAccepted", r.text
    from services.tools.logio import applied_once

    # what a consumer applies (a (stream, seq) at or below one seen is skipped): both moves
    applied = applied_once(await log.read(GAME_COMMANDS))
    assert [m.payload.move for m in applied if m.type == "SubmitMove"] == ["e4", "e5"]


async def test_healthz_metrics_docs(env):
    client, _, _, _ = env
    await _new_game(client)
    h = (await client.get("/healthz")).json()
    assert h["status"] == "ok" and h["games"] == 1
    m = await client.get("/metrics")
    assert m.status_code == 200 and "arbiter_gateway_commands_total" in m.text
    assert (await client.get("/openapi.json")).status_code == 200


# ------------------------------------------------------------------------------------- tournaments
async def test_tournament_flow_and_crosstable(env):
    client, log, _, fake = env
    r = await client.post("/tournaments", json={"name": "Spring Open", "system": "round-robin"})
    assert r.status_code == 200 and r.json()["event"] == "TournamentCreated"
    tid = r.json()["tournament_id"]
    for pid, rating in [("ann", 2100), ("ben", 2000), ("cat", 1900)]:
        r = await client.post(f"/tournaments/{tid}/players", json={"player_id": pid, "name": pid.title(),
                                                                    "rating": rating})
        assert r.status_code == 200, r.text
    r = await client.post(f"/tournaments/{tid}/rounds",
                          json={"round": 1, "boards": [{"white": "ann", "black": "ben"}], "bye": "cat"})
    assert r.status_code == 200 and r.json()["event"] == "RoundPaired"
    gid = f"{tid}-r1-b1"
    # the paired game is known before it starts
    assert (await client.get(f"/games/{gid}")).json()["white"] == "ann"
    stream = f"game-{gid}.result"
    await log.publish(GAME_EVENTS, envelope(
        GameEnded(game_id=gid, result="1/2-1/2", reason="agreement",
                  rule=Rule(ruleset="FIDE-1994", article="10.6")),
        stream=stream, seq=1, occurred_at=dt_of(NOW), actor=SVC))
    await log.publish(TOURNAMENT_EVENTS, envelope(
        StandingsUpdated(tournament_id=tid, round=1, order=("SB",), rows=(
            StandingRow(rank=1, player_id="ann", name="Ann", score=0.5, games=1, tiebreaks={"SB": 0.25}),
            StandingRow(rank=2, player_id="ben", name="Ben", score=0.5, games=1, tiebreaks={"SB": 0.25}),
            StandingRow(rank=3, player_id="cat", name="Cat", score=0, games=0, tiebreaks={"SB": 0}))),
        stream=f"tournament-{tid}.standings", seq=1, occurred_at=dt_of(NOW), actor=SVC))
    await log.idle()
    t = (await client.get(f"/tournaments/{tid}")).json()
    assert t["name"] == "Spring Open" and [p["player_id"] for p in t["players"]] == ["ann", "ben", "cat"]
    assert t["rounds"][0]["boards"][0]["game_id"] == gid
    assert t["rounds"][0]["boards"][0]["result"] == "1/2-1/2" and t["rounds"][0]["bye"] == "cat"
    s = (await client.get(f"/tournaments/{tid}/standings")).json()
    assert s["round"] == 1 and s["rows"][0]["player_id"] == "ann"
    x = (await client.get(f"/tournaments/{tid}/crosstable")).json()
    cells = {row["player_id"]: row["cells"] for row in x["rows"]}
    assert cells == {"ann": ["2w½"], "ben": ["1b½"], "cat": ["bye"]}
    ev = (await client.get(f"/tournaments/{tid}/events?follow=false")).json()
    assert ev[0]["type"] == "CreateTournament" and "StandingsUpdated" in [m["type"] for m in ev]
    # unknown tournament: 404, nothing published
    n = await _count(log, TOURNAMENT_COMMANDS)
    r = await client.post("/tournaments/zz/players", json={"player_id": "x", "name": "X"})
    assert r.status_code == 404
    assert (await client.get("/tournaments/zz")).status_code == 404
    assert await _count(log, TOURNAMENT_COMMANDS) == n


# ------------------------------------------------------------------------------ read model (pure)
def _env(payload, stream, seq, at=NOW):
    return envelope(payload, stream=stream, seq=seq, occurred_at=dt_of(at), actor=SVC)


def test_readmodel_pgn_with_clocks():
    rm = ReadModel()
    rm.apply(_env(GameStarted(game_id="p", white="w", black="b", time_control="300+2",
                              start_fen="rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
                  "game-p", 1))
    rm.apply(_env(ClockStarted(game_id="p", time_control="300+2", white_ms=302000, black_ms=302000,
                               running="white"), "game-p.clock", 1))
    for ply, (san, w, b) in enumerate([("e4", 299500, 302000), ("e5", 299500, 300000),
                                       ("Nf3", 298000, 300000)], start=1):
        colour = "white" if ply % 2 else "black"
        rm.apply(_env(MoveAccepted(game_id="p", ply=ply, player_id=colour[0], colour=colour,
                                   uci="x", san=san, fen_after=f"f{ply}"), "game-p", ply + 1))
        rm.apply(_env(ClockUpdated(game_id="p", ply=ply, mover=colour, elapsed_ms=1, white_ms=w,
                                   black_ms=b, running="black" if colour == "white" else "white",
                                   deadline_ms=NOW + 1000), "game-p.clock", ply + 1))
    g = rm.game("p")
    assert g.clock["white_ms"] == 298000 and g.clock["running"] == "black"
    pgn = g.pgn()
    assert "1. e4 {[%clk 0:04:59.5]} e5 {[%clk 0:05:00]} 2. Nf3 {[%clk 0:04:58]} *" in pgn
    assert '[TimeControl "300+2"]' in pgn and "[FEN" not in pgn
    assert format_clk(3_600_000) == "1:00:00"


def test_readmodel_black_to_move_start_and_result():
    g = GameView("x")
    fen = "8/8/8/8/8/8/k7/K7 b - - 0 40"
    g.apply(_env(GameStarted(game_id="x", white="w", black="b", time_control="-", start_fen=fen),
                 "game-x", 1))
    g.apply(_env(MoveAccepted(game_id="x", ply=1, player_id="b", colour="black", uci="a2b2",
                              san="Kb2", fen_after="f"), "game-x", 2))
    g.apply(_env(GameEnded(game_id="x", result="1/2-1/2", reason="insufficient-material",
                           rule=Rule(ruleset="FIDE-1994", article="10.4")), "game-x.result", 1))
    pgn = g.pgn()
    assert "40... Kb2 1/2-1/2" in pgn and '[FEN "8/8/8/8/8/8/k7/K7 b - - 0 40"]' in pgn
    assert g.over and g.rule["article"] == "10.4"


def test_readmodel_rejected_create_forgets_game():
    rm = ReadModel()
    rm.apply(_env(GameCommandRejected(game_id="q", command_id="c", command_type="CreateGame",
                                      code="invalid", reason="bad fen"), "game-q", 1))
    assert rm.game("q") is None


def test_crosstable_marks_forfeits_as_the_standings_count_them():
    """A game ended by forfeit is ``+``/``-`` in the crosstable whether or not a move was made,
    as the standings and the TRF export count it (the tournament record's code ``+-``/``-+``,
    xiangqi 1999 art. 21.4); the crosstable once showed a forfeit after a move as a played
    ``4w0``/``3b1`` while the standings counted it unplayed."""
    rm = ReadModel()
    tid = "t"
    rm.apply(_env(TournamentCreated(tournament_id=tid, name=tid, system="round-robin", rounds=None,
                                    time_control="60", tiebreaks=("SB",)), f"tournament-{tid}", 1))
    for pid in ("a", "b", "c", "d"):
        rm.apply(_env(PlayerRegistered(tournament_id=tid, player_id=pid, name=pid.upper()),
                      f"tournament-{tid}", 2 + "abcd".index(pid)))
    rm.apply(_env(RoundPaired(tournament_id=tid, round=1, system="round-robin", boards=(
        Board(board=1, game_id="x1", white="a", black="b"),
        Board(board=2, game_id="x2", white="c", black="d"))), f"tournament-{tid}", 6))
    rule = Rule(ruleset="FIDE-1994", article="16.5")
    rm.apply(_env(GameEnded(game_id="x1", result="1-0", reason="forfeit", rule=rule),
                  "game-x1.result", 1))
    rm.apply(_env(MoveAccepted(game_id="x2", ply=1, player_id="c", colour="white", uci="e2e4",
                               san="e4", fen_after="f"), "game-x2", 2))
    rm.apply(_env(GameEnded(game_id="x2", result="0-1", reason="forfeit", rule=rule),
                  "game-x2.result", 1))
    cells = {r["player_id"]: r["cells"] for r in rm.tournament(tid).crosstable()["rows"]}
    assert cells == {"a": ["+"], "b": ["-"], "c": ["-"], "d": ["+"]}


async def test_a_command_too_large_for_the_log_is_413_and_not_published(env):
    """A command over the log's record limit (shared.eventlog.base.MAX_EVENT_BYTES) would be
    refused by the broker after the gateway stamped it (an HTTP 500 before); its body is
    refused first, by the gateway's body limit (1 MB by default): 413 with a code, nothing
    written (the gateway's own check of the stamped command: test_limits). A recorded time
    past the year 2100 is a 422, not an overflow."""
    client, log, _, _ = env
    n = await _count(log)
    r = await client.post("/games", json={"game_id": "big", "white": "a", "black": "b",
                                          "time_control": "q" * 1_047_500})
    assert r.status_code == 413 and r.json()["code"] == "too-large", r.text
    assert "1,047,559 bytes" in r.json()["detail"] and await _count(log) == n
    await _new_game(client)
    n = await _count(log)
    r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4", "at_ms": 2 ** 62},
                          headers={"X-Arbiter-Token": TOKEN})
    assert r.status_code == 422 and await _count(log) == n


async def test_every_refusal_of_the_gateway_has_a_detail_and_a_code(env):
    """One error shape for integrators: ``{"detail": ..., "code": ...}``, whichever layer
    refused (an unknown game, a route that does not exist, a wrong method, a body that is not
    JSON, a field out of range, a non-arbiter stamping a time)."""
    client, _, _, _ = env
    await _new_game(client)
    cases = [
        (client.get("/games/nope"), 404, "not-found"),
        (client.get("/no/such/route"), 404, "not-found"),
        (client.delete("/games/g1"), 405, "method-not-allowed"),
        (client.post("/games", content=b"{not json", headers={"content-type": "application/json"}),
         422, "malformed"),
        (client.post("/games", json={"game_id": "g2", "white": "a", "black": "b", "rounds": -1}),
         422, "malformed"),
        (client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4", "at_ms": 5}),
         403, "forbidden"),
    ]
    for request, status, code in cases:
        r = await request
        assert (r.status_code, r.json()["code"]) == (status, code), r.text
        assert r.json()["detail"]


# ------------------------------------------------------------------------------ snapshots
@asynccontextmanager
async def _gateway(log, **kw):
    """A started gateway app on ``log`` (not managing it) and an HTTP client of it."""
    app = create_app(log, admin_token=TOKEN, now_ms=lambda: NOW, manage_log=False, wait_timeout=0.3, **kw)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
            yield app, c


@asynccontextmanager
async def _log(fake=FakeServices):
    """A started memory log with the ``fake`` services on it."""
    log = MemoryLog()
    fake(log)
    await log.start()
    try:
        yield log
    finally:
        await log.stop()


async def _snapshot_taken(log, app) -> None:
    """Wait (at most 10 s) until the gateway's latest snapshot holds all it has applied."""
    gw = app.state.gateway
    for _ in range(200):
        await asyncio.sleep(0.05)
        if (await log.load_snapshot("gateway", snapshot_key(), READMODEL_CODE) is not None
                and gw.snapshot_applied == gw.rm.applied):
            return


async def test_a_gateway_starts_from_the_latest_snapshot_and_reads_only_the_log_after_it():
    """Issue 10 item 4: the read model, its deduper and the log positions are snapshotted
    together; a new gateway takes them up, reads only what came after (``replayed``) and ends
    up with the same views and histories as the one that kept running."""
    async with _log() as log, _gateway(log, snapshot_every_s=0.05) as (app, c):
        await _new_game(c)
        assert (await c.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"})).status_code == 200
        await _snapshot_taken(log, app)  # the next snapshot (every 0.05 s) holds the move
        snapshotted = app.state.gateway.snapshot_applied
        assert (await c.post("/games/g1/moves", json={"player_id": "bob", "move": "e5"})).status_code == 200
        await log.idle()
        async with _gateway(log) as (app2, _):
            gw, gw2 = app.state.gateway, app2.state.gateway
            # CreateGame, GameStarted, the e4 command and MoveAccepted were in the snapshot
            assert sum(gw2.restored.values()) == snapshotted == 4
            assert gw2.replayed == 2  # the e5 command and its MoveAccepted
            assert [m["san"] for m in gw2.rm.game("g1").to_dict()["moves"]] == ["e4", "e5"]
            assert gw2.rm.game("g1").to_dict() == gw.rm.game("g1").to_dict()
            assert gw2.rm.history["game-g1"] == gw.rm.history["game-g1"]
            # and it follows the log from there
            await c.post("/games/g1/moves", json={"player_id": "alice", "move": "Nf3"})
            await log.idle()
            assert [m["san"] for m in gw2.rm.game("g1").to_dict()["moves"]] == ["e4", "e5", "Nf3"]


async def test_a_snapshot_made_by_other_read_model_code_is_not_taken_up():
    """A snapshot records the fingerprint of the read model's code; another fingerprint (an
    upgrade) means the whole log is read instead, never a stale view kept."""
    import pickle
    import zlib

    async with _log() as log, _gateway(log) as (app, c):
        await _new_game(c)
        gw = app.state.gateway
        await log.save_snapshot("gateway", zlib.compress(pickle.dumps(
            {"code": "other", "rm": ReadModel(), "dedupe": gw.dedupe, "positions": {(GAME_COMMANDS, 0): 1}})),
            snapshot_key(), "other")
        async with _gateway(log) as (app2, _):
            gw2 = app2.state.gateway
            assert gw2.restored == {} and gw2.replayed == 2  # CreateGame and GameStarted, read again
            assert gw2.rm.game("g1") is not None


_PWNED: list = []


def _pwn():
    _PWNED.append("ran")
    return {}


class _Exploit:
    def __reduce__(self):
        return (_pwn, ())


async def test_a_snapshot_not_sealed_with_the_deployments_key_is_never_unpickled():
    """Unpickling runs code: a snapshot written by whoever can write the snapshot topic, under
    another key, is refused before anything is decompressed or unpickled (shared.sealing)."""
    import pickle
    import zlib

    async with _log() as log:
        await log.save_snapshot("gateway", zlib.compress(pickle.dumps(_Exploit())), b"not the key", READMODEL_CODE)
        async with _gateway(log) as (app, _):
            assert app.state.gateway.restored == {} and _PWNED == []
    # under the right key the same bytes would have run: the test's exploit is a real one
    assert pickle.loads(zlib.decompress(zlib.compress(pickle.dumps(_Exploit())))) == {} and _PWNED == ["ran"]


async def test_a_snapshot_ahead_of_the_log_is_dropped_and_the_whole_log_read():
    """The log was reset but the snapshot topic kept: the snapshot's positions lie past the
    log's end, so it describes another log; the gateway reads this one instead of serving
    games that no longer exist (found by a helper's attack)."""
    async with _log() as old, _gateway(old, snapshot_every_s=0.05) as (app, c):
        for gid in ("g1", "g2", "g3"):
            await _new_game(c, gid)
        await _snapshot_taken(old, app)
        assert app.state.gateway.snapshot_applied == 6
    async with _log() as new:
        new._snapshots = old._snapshots  # the snapshot topic outlived the reset
        async with _gateway(new) as (app2, c2):
            assert app2.state.gateway.restored == {}
            await _new_game(c2, "fresh")
            assert (await c2.get("/games/fresh")).status_code == 200
            assert (await c2.get("/games/g1")).status_code == 404
