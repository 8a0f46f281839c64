"""The gateway with the real services on the memory log: what a player and an arbiter see."""
from __future__ import annotations

import pytest

from services.tools.embedded import arbiter_client

SHUFFLE = ["Nf3", "Nf6", "Ng1", "Ng8"]


async def _game(c, gid, tc="600+0", **kw):
    r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob",
                                      "time_control": tc, **kw})
    assert r.status_code == 200, r.text
    return r


async def _move(c, gid, player, mv, **kw):
    return await c.post(f"/games/{gid}/moves", json={"player_id": player, "move": mv, **kw})


@pytest.fixture
async def c():
    async with arbiter_client("memory", ticks=False) as client:
        yield client


async def test_incorrect_claim_costs_five_minutes_then_valid_claim_draws(c):
    await _game(c, "g1")
    t0 = (await c.get("/games/g1")).json()["clock"]
    for i, mv in enumerate(SHUFFLE):
        assert (await _move(c, "g1", ["alice", "bob"][i % 2], mv)).status_code == 200
    # the start position has occurred twice: a threefold claim by white is incorrect
    r = await c.post("/games/g1/draw/claim", json={"player_id": "alice", "reason": "threefold"})
    assert (r.status_code, r.json()["event"], r.json()["code"]) == (409, "DrawClaimRejected", "incorrect-claim")
    assert r.json()["payload"]["rule"]["article"] == "10.13(2)"
    g = (await c.get("/games/g1")).json()
    assert g["status"] != "ended"
    assert [p["kind"] for p in g["penalties"]] == ["time"]
    assert g["penalties"][0]["time_delta_ms"] == -300_000
    assert t0["white_ms"] - g["clock"]["white_ms"] >= 300_000
    for i, mv in enumerate(SHUFFLE):
        await _move(c, "g1", ["alice", "bob"][i % 2], mv)
    r = await c.post("/games/g1/draw/claim", json={"player_id": "alice", "reason": "threefold"})
    assert r.json()["decision"]["event"] == "GameEnded"
    g = (await c.get("/games/g1")).json()
    assert (g["result"], g["reason"], g["rule"]["article"]) == ("1/2-1/2", "threefold", "10.10")
    assert "1/2-1/2" in g["pgn"] and "[%clk" in g["pgn"]
    r = await _move(c, "g1", "bob", "e5")
    assert r.status_code == 409 and "over" in r.json()["detail"]


async def test_rejections_are_specific_and_change_nothing(c):
    await _game(c, "g2")
    before = (await c.get("/games/g2/events", params={"follow": "false"})).json()
    cases = [
        (await _move(c, "g2", "bob", "e5"), 409, "turn"),
        (await _move(c, "g2", "alice", "Ke2"), 409, "not legal"),
        (await _move(c, "g2", "alice", "zz9"), 422, "neither UCI nor SAN"),
        (await _move(c, "g2", "carol", "e4"), 409, "does not play"),
        (await c.post("/games/g2/draw/accept", json={"player_id": "bob"}), 409, "no draw offer"),
        (await c.post("/games/nope/moves", json={"player_id": "alice", "move": "e4"}), 404, "no such game"),
    ]
    for r, status, words in cases:
        assert r.status_code == status, r.text
        assert words in r.json()["detail"], r.json()
    after = (await c.get("/games/g2/events", params={"follow": "false"})).json()
    changed = [e for e in after if e["type"] not in ("SubmitMove", "MoveRejected", "AcceptDraw",
                                                      "GameCommandRejected")]
    assert changed == before  # only the refused commands and their rejections were added
    g = (await c.get("/games/g2")).json()
    assert g["moves"] == [] and g["fen"].startswith("rnbqkbnr/pppppppp")


async def test_bad_game_setup_is_refused(c):
    r = await c.post("/games", json={"game_id": "g3", "white": "a", "black": "b", "start_fen": "not a fen"})
    assert r.status_code in (409, 422) and "FEN" in r.json()["detail"]
    r = await c.post("/games", json={"game_id": "g4", "white": "a", "black": "b", "time_control": "abc"})
    assert r.status_code in (409, 422) and "time control" in r.json()["detail"]
    r = await c.post("/games", json={"game_id": "g5", "white": "a", "black": "a"})
    assert r.status_code in (409, 422) and "different" in r.json()["detail"]


async def test_arbiter_penalties_and_absence_forfeit(c):
    await _game(c, "g6", default_time_s=900, at_ms=1_000_000)
    r = await c.post("/games/g6/penalties", json={"player_id": "bob", "kind": "warning", "note": "noise"})
    assert r.status_code == 200
    r = await c.post("/games/g6/absence", json={"player_id": "bob", "at_ms": 1_000_000 + 600_000})
    assert r.status_code == 409 and "default time not reached" in r.json()["detail"]
    await _move(c, "g6", "alice", "e4", at_ms=1_000_000 + 5_000)
    r = await c.post("/games/g6/absence", json={"player_id": "bob", "at_ms": 1_000_000 + 900_000})
    assert r.status_code == 200
    g = (await c.get("/games/g6")).json()
    assert (g["result"], g["reason"], g["rule"]["article"]) == ("1-0", "forfeit", "10.15")
    r = await c.post("/games/g6/penalties", json={"player_id": "bob", "kind": "warning"},
                     headers={"X-Arbiter-Token": "wrong"})
    assert r.status_code == 403


async def test_flag_when_move_arrives_after_deadline(c):
    await _game(c, "g7", tc="60", at_ms=0)
    assert (await _move(c, "g7", "alice", "e4", at_ms=10_000)).status_code == 200
    r = await _move(c, "g7", "bob", "e5", at_ms=10_000 + 60_001)
    assert r.status_code == 409 and r.json()["code"] == "flag-fallen"
    g = (await c.get("/games/g7")).json()
    assert (g["result"], g["reason"], g["rule"]["article"]) == ("1-0", "timeout", "10.14")


async def test_recorded_time_cannot_run_backwards(c):
    await _game(c, "g8", tc="60", at_ms=100_000)
    assert (await _move(c, "g8", "alice", "e4", at_ms=110_000)).status_code == 200
    r = await _move(c, "g8", "bob", "e5", at_ms=0)
    assert r.status_code == 409 and "time cannot run backwards" in r.json()["detail"]
    r = await c.post("/games/g8/resign", json={"player_id": "bob", "at_ms": 5})
    assert r.status_code == 409 and "time cannot run backwards" in r.json()["detail"]
    # the clock is intact: black's move a second later is charged one second
    assert (await _move(c, "g8", "bob", "e5", at_ms=111_000)).status_code == 200
    g = (await c.get("/games/g8")).json()
    assert g["moves"][1]["black_ms"] == 59_000


async def test_tournament_game_ids_are_reserved_and_start_positions_checked(c):
    r = await c.post("/games", json={"game_id": "open2026-r2-b1", "white": "x", "black": "y"})
    assert r.status_code == 409 and "reserved for tournament games" in r.json()["detail"]
    r = await c.post("/games", json={"game_id": "s1", "white": "x", "black": "y",
                                      "start_fen": "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"})
    assert r.status_code == 409 and "already over: stalemate" in r.json()["detail"]
    for tc, words in (("999999999999", "over the limit"), ("3600+99999999999", "over the limit")):
        r = await c.post("/games", json={"game_id": "s2", "white": "x", "black": "y", "time_control": tc})
        assert r.status_code == 409 and words in r.json()["detail"], tc
