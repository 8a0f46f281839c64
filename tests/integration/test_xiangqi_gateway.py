"""A xiangqi game through the gateway and the services: on the memory log and on Kafka.

Red (alice, the ``white`` seat) and Black (bob) play from a set position in Chinese notation;
Black's soldier checks on every move while Red's general steps aside (Fairy-Stockfish case 1174,
converted to ICCS). At the third occurrence the 棋例 rule one-sided perpetual check (1999 rules
art. 24.1, 26.1): Black loses; the game view shows the ruling with each move classified, and
the PGN is a xiangqi PGN in Chinese notation.
"""
from __future__ import annotations

import asyncio
import re
import uuid

import pytest

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round, standings_after

FEN = "3k5/9/9/9/9/5p3/9/5p3/5K3/5C3 w - - 0 1"
# ICCS f1e1 f2e2 e1f1 e2f2 twice: 帅四平五 卒６平５ 帅五平四 卒５平６ ...
MOVES = ["帅四平五", "前卒平５", "帅五平四", "卒５平６"] * 2


async def _play_perpetual_check(c) -> dict:
    gid = f"xq-{uuid.uuid4().hex[:8]}"
    r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob",
                                      "time_control": "xiangqi-6.1", "game": "xiangqi",
                                      "start_fen": FEN})
    assert r.status_code == 200, r.text
    r = await c.post(f"/games/{gid}/draw/offer", json={"player_id": "alice"})
    assert r.status_code == 409 and "23.1" in r.json()["detail"]  # before red's first move
    for i, mv in enumerate(MOVES):
        r = await c.post(f"/games/{gid}/moves", json={"player_id": ["alice", "bob"][i % 2], "move": mv})
        assert r.status_code == 200, r.text
    for _ in range(200):  # adjudication's ruling follows the last move asynchronously on Kafka
        g = (await c.get(f"/games/{gid}")).json()
        if g["result"] is not None:
            return g
        await asyncio.sleep(0.1)
    return g


def _check(g: dict) -> None:
    assert g["game"] == "xiangqi"
    assert [m["uci"] for m in g["moves"]][:4] == ["f1e1", "f2e2", "e1f1", "e2f2"]
    assert (g["result"], g["reason"], g["winner"]) == ("1-0", "perpetual-check", "white")
    assert g["rule"]["ruleset"] == "CXA-1999" and "24.1" in g["rule"]["article"]
    (ruling,) = g["rulings"]
    assert ruling["verdict"] == "black-loses"
    assert [m["classification"] for m in ruling["moves"] if m["side"] == "black"] == ["check", "check"]
    movetext = re.sub(r"\s*\{[^}]*\}", "", g["pgn"].split("\n\n", 1)[1])
    assert '[Variant "xiangqi"]' in g["pgn"] and movetext.startswith("1. 帅四平五 前卒平５ 2. 帅五平四")
    assert g["pgn"].rstrip().endswith("1-0")


async def test_xiangqi_perpetual_check_through_the_gateway():
    async with arbiter_client("memory", ticks=False) as c:
        _check(await _play_perpetual_check(c))


@pytest.mark.kafka
async def test_xiangqi_perpetual_check_on_kafka(kafka_bus):
    async with arbiter_client(kafka_bus, ticks=False) as c:
        _check(await _play_perpetual_check(c))


async def test_xiangqi_demo_bots_play_a_round_robin_on_real_clocks():
    """``arbiter demo --game xiangqi`` with four bots on 2-second clocks: six games, each ended
    by a xiangqi rule with its CXA-1999 article, and standings after the last round."""
    from services.tools.demo import run_demo

    result = await run_demo("memory", players=4, seed=7, time_control="2", game="xiangqi")
    assert result["games"] == 6
    assert sum(result["reasons"].values()) == 6
    assert set(result["reasons"]) <= {"timeout", "checkmate", "stalemate", "insufficient-material",
                                      "perpetual-check", "forbidden-repetition", "repetition"}
    st = result["standings"]
    assert st["round"] == 3 and sum(r["score"] for r in st["rows"]) == 6


async def test_xiangqi_forfeits_in_the_crosstable_21_4():
    """A xiangqi round robin: on board 1 Red does not arrive (forfeit, art. 21.1 / 4.1.5), on
    board 2 neither player does (both forfeit, 21.3). The crosstable marks forfeits + and -
    (21.4) and the double forfeit - for both; the standings score them 1 / 0 / 0 / 0."""
    import time

    async with arbiter_client("memory", ticks=False) as c:
        tid = f"xqt-{uuid.uuid4().hex[:6]}"
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "forfeits", "game": "xiangqi",
                                                "system": "round-robin", "time_control": "xiangqi-6.1",
                                                "default_time_s": 1})
        assert r.status_code == 200, r.text
        for name in ["ada", "bo", "cai", "dan"]:
            r = await c.post(f"/tournaments/{tid}/players", json={"player_id": name, "name": name.title()})
            assert r.status_code == 200, r.text
        assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})).status_code == 200
        rd = await paired_round(c, tid, 1)
        b1, b2 = rd["boards"]
        late = int(time.time() * 1000) + 5_000
        r = await c.post(f"/games/{b1['game_id']}/absence", json={"player_id": b1["white"], "at_ms": late})
        assert r.status_code == 200, r.text
        r = await c.post(f"/games/{b2['game_id']}/absence",
                         json={"player_id": b2["white"], "both": True, "at_ms": late})
        assert r.status_code == 200, r.text
        g2 = (await c.get(f"/games/{b2['game_id']}")).json()
        assert (g2["result"], g2["reason"], g2["rule"]["article"]) == ("0-0", "double-forfeit", "21.3")
        st = await standings_after(c, tid, 1)
        ct = (await c.get(f"/tournaments/{tid}/crosstable")).json()
    cells = {row["player_id"]: row["cells"][0] for row in ct["rows"]}
    assert cells[b1["white"]] == "-" and cells[b1["black"]] == "+"
    assert cells[b2["white"]] == "-" and cells[b2["black"]] == "-"
    scores = {row["player_id"]: row["score"] for row in st["rows"]}
    assert scores == {b1["black"]: 1.0, b1["white"]: 0.0, b2["white"]: 0.0, b2["black"]: 0.0}


async def test_xiangqi_standings_count_fouls_and_place_penalised_players_last():
    """A four-player xiangqi round robin (15.1 order SB, WIN, DE, FOULS): both round-1 games are
    drawn, so all four share 0.5 points and SB 0.25. ada has a foul (art. 9) and bo a warning
    (18.1): bo is placed last among equal scores (18.4), ada after the players without fouls."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = f"xqs-{uuid.uuid4().hex[:6]}"
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "fouls", "game": "xiangqi",
                                                "tiebreaks": ["SB", "WIN", "DE", "FOULS"]})
        assert r.status_code == 200, r.text
        for name in ["ada", "bo", "cai", "dan"]:
            await c.post(f"/tournaments/{tid}/players", json={"player_id": name, "name": name.title()})
        assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})).status_code == 200
        rd = await paired_round(c, tid, 1)
        game_of = {p: b["game_id"] for b in rd["boards"] for p in (b["white"], b["black"])}
        assert (await c.post(f"/games/{game_of['ada']}/penalties",
                             json={"player_id": "ada", "kind": "foul"})).status_code == 200
        assert (await c.post(f"/games/{game_of['bo']}/penalties",
                             json={"player_id": "bo", "kind": "warning"})).status_code == 200
        for b in rd["boards"]:
            assert (await c.post(f"/games/{b['game_id']}/result", json={"result": "1/2-1/2"})).status_code == 200
        st = await standings_after(c, tid, 1)
    rows = {r["player_id"]: r for r in st["rows"]}
    assert rows["ada"]["tiebreaks"]["FOULS"] == 1 and rows["cai"]["tiebreaks"]["FOULS"] == 0
    assert st["order"][0] == "PEN" and rows["bo"]["rank"] == 4
    assert rows["ada"]["rank"] == 3 and {rows["cai"]["rank"], rows["dan"]["rank"]} == {1}
