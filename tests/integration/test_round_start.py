"""Pairings published before clocks start (issue 12): an event with ``round_start``
``on-command`` creates its round's games waiting; moves are refused ``not-started`` until the
organiser or an arbiter sends BeginRound, whose StartPlay is decided in each game's own command
stream; the clocks then run from that command's receive time (FIDE 1994 art. 12.3)."""
from __future__ import annotations

import asyncio
import uuid

import pytest

from contracts.messages import LOG_TOPICS, TOPICS
from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round

T0 = 1_767_225_600_000  # 2026-01-01T00:00:00Z


class Clock:
    """The gateway's receive time, moved by the test (epoch ms)."""

    def __init__(self) -> None:
        self.ms = T0

    def __call__(self) -> int:
        return self.ms


async def _event(c, tid: str, **kw) -> None:
    r = await c.post("/tournaments", json={"tournament_id": tid, "name": tid, "system": "round-robin",
                                           "time_control": "300+2", **kw})
    assert r.status_code == 200, r.text
    for i in range(4):
        r = await c.post(f"/tournaments/{tid}/players", json={"player_id": f"p{i + 1}", "name": f"P{i + 1}"})
        assert r.status_code == 200, r.text


async def _clock(c, gid: str) -> dict:
    for _ in range(100):
        g = (await c.get(f"/games/{gid}")).json()
        if g["clock"]["running"] is not None:
            return g
        await asyncio.sleep(0.05)
    raise AssertionError(f"{gid}: no clock")


async def test_a_round_waits_for_its_start_and_the_clock_runs_from_it():
    await _round_waits("memory", "w")


@pytest.mark.kafka
async def test_a_round_waits_for_its_start_on_kafka(kafka_bus):
    """The same on Kafka: the tournament process writes the StartPlay commands into the game
    commands topic in its transaction, the game process decides them in each game's order."""
    await _round_waits(kafka_bus, f"w{uuid.uuid4().hex[:6]}")


async def _round_waits(bus: str, w: str) -> None:
    now = Clock()
    async with arbiter_client(bus, ticks=False, now_ms=now) as c:
        await _event(c, w, round_start="on-command")
        assert (await c.post(f"/tournaments/{w}/rounds", json={"round": 1})).status_code == 200
        rd = await paired_round(c, w, 1)
        assert rd["begun"] is False and len(rd["boards"]) == 2
        b1 = rd["boards"][0]
        gid, white = b1["game_id"], b1["white"]
        g = (await c.get(f"/games/{gid}")).json()
        assert g["waiting"] is True and g["clock"]["running"] is None
        # published, not started: a move is refused and changes nothing
        now.ms = T0 + 60_000
        r = await c.post(f"/games/{gid}/moves", json={"player_id": white, "move": "e4"})
        assert r.status_code == 409 and r.json()["code"] == "not-started", r.text
        r = await c.post(f"/games/{gid}/absence", json={"player_id": b1["black"]})
        assert r.status_code == 409 and r.json()["code"] == "not-started", r.text
        # round 2 cannot be paired, round 2 cannot begin
        r = await c.post(f"/tournaments/{w}/rounds/start", json={"round": 2})
        assert r.status_code == 409 and "not paired" in r.json()["detail"]
        # the start: 10 minutes after the pairing
        now.ms = T0 + 600_000
        r = await c.post(f"/tournaments/{w}/rounds/start", json={"round": 1})
        assert r.status_code == 200 and r.json()["event"] == "RoundBegun", r.text
        assert r.json()["game_ids"] == [b["game_id"] for b in rd["boards"]]
        g = await _clock(c, gid)
        assert g["waiting"] is False
        assert g["clock"]["running"] == "white" and g["clock"]["white_ms"] == 302_000  # 300 s + 2 s
        assert g["clock"]["deadline_ms"] == T0 + 600_000 + 302_000  # from the start, not the pairing
        assert (await c.get(f"/tournaments/{w}")).json()["rounds"][0]["begun"] is True
        now.ms = T0 + 610_000
        r = await c.post(f"/games/{gid}/moves", json={"player_id": white, "move": "e4"})
        assert r.status_code == 200, r.text
        # a second start is refused, nothing written
        r = await c.post(f"/tournaments/{w}/rounds/start", json={"round": 1})
        assert r.status_code == 409 and "already begun" in r.json()["detail"]
        # the log: one StartPlay per game, on the game's own command stream, before its PlayStarted
        msgs = [m for m in await c.arbiter_log.read_many(TOPICS) if m.aggregate.startswith((f"game-{w}-", f"tournament-{w}"))]
        starts = [m for m in msgs if m.type == "StartPlay"]
        assert sorted(m.stream for m in starts) == sorted(f"game-{b['game_id']}.round" for b in rd["boards"])
        played = [m for m in msgs if m.type == "PlayStarted" and m.payload.game_id == gid]
        assert len(played) == 1 and played[0].at_ms == T0 + 600_000
        # the audit re-derives every decision, the starts included, and finds the chains whole
        from services.tools.audit import audit

        differences = await audit([m for m in await c.arbiter_log.read_many(LOG_TOPICS)
                                   if m.aggregate.startswith((f"game-{w}-", f"tournament-{w}"))])
        assert differences == [], differences[:3]


async def test_the_default_starts_clocks_at_the_pairing_and_refuses_begin_round():
    now = Clock()
    async with arbiter_client("memory", ticks=False, now_ms=now) as c:
        await _event(c, "a")
        assert (await c.post("/tournaments/a/rounds", json={"round": 1})).status_code == 200
        rd = await paired_round(c, "a", 1)
        assert rd["begun"] is True
        g = await _clock(c, rd["boards"][0]["game_id"])
        assert g["waiting"] is False and g["clock"]["deadline_ms"] == T0 + 302_000
        r = await c.post("/tournaments/a/rounds/start", json={"round": 1})
        assert r.status_code == 409 and "round_start auto" in r.json()["detail"]


async def test_a_single_waiting_game_starts_on_its_own_command():
    now = Clock()
    async with arbiter_client("memory", ticks=False, now_ms=now) as c:
        r = await c.post("/games", json={"game_id": "solo", "white": "a", "black": "b",
                                         "time_control": "60", "clock_start": "on-command"})
        assert r.status_code == 200, r.text
        r = await c.post("/games/solo/moves", json={"player_id": "a", "move": "e4"})
        assert r.json()["code"] == "not-started"
        now.ms = T0 + 5_000
        r = await c.post("/games/solo/start")
        assert r.status_code == 200 and r.json()["event"] == "PlayStarted", r.text
        g = await _clock(c, "solo")
        assert g["clock"]["deadline_ms"] == T0 + 5_000 + 60_000
        r = await c.post("/games/solo/start", json={})
        assert r.status_code == 409 and r.json()["code"] == "invalid"
