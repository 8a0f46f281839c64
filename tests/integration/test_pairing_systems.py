"""Pairing systems through the gateway and the pairing service (memory log)."""
from __future__ import annotations

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round, standings_after


async def _round(c, tid: str, rnd: int) -> dict:
    r = await c.post(f"/tournaments/{tid}/rounds", json={"round": rnd})
    assert r.status_code == 200, r.text
    return await paired_round(c, tid, rnd)


async def test_mcmahon_event_with_grades():
    """Five players graded 4d, 2d, 1d, 1k, 3k; top bar 2d, bottom bar 5k, counted from 30k: initial
    MMS 31 (4d and 2d held at the top bar), 31, 30, 29, 27. Round 1 pairs the bar group together (4d-2d) and 1d-1k; 3k has the bye
    (lowest MMS). Every result goes to the higher grade; three rounds, no rematch, one bye each."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "mcm1"
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "McMahon", "system": "mcmahon",
                                                "rounds": 3, "mcmahon_bar": "2d", "mcmahon_floor": "5k",
                                                "tiebreaks": ["MMS", "SOS"]})
        assert r.status_code == 200, r.text
        grades = {"a": "4d", "b": "2d", "c": "1d", "d": "1k", "e": "3k"}
        for pid, g in grades.items():
            assert (await c.post(f"/tournaments/{tid}/players",
                                 json={"player_id": pid, "name": pid.upper(), "grade": g})).status_code == 200
        bad = await c.post(f"/tournaments/{tid}/players", json={"player_id": "z", "name": "Z"})
        assert bad.status_code == 409 and "grade" in bad.json()["detail"]
        order = list(grades)
        met, byes = set(), []
        for rnd in (1, 2, 3):
            rd = await _round(c, tid, rnd)
            pairs = {frozenset((b["white"], b["black"])) for b in rd["boards"]}
            if rnd == 1:
                assert pairs == {frozenset("ab"), frozenset("cd")} and rd["bye"] == "e"
            assert not pairs & met
            met |= pairs
            byes.append(rd["bye"])
            for b in rd["boards"]:
                winner = min(b["white"], b["black"], key=order.index)
                res = "1-0" if winner == b["white"] else "0-1"
                assert (await c.post(f"/games/{b['game_id']}/result", json={"result": res})).status_code == 200
        assert len(set(byes)) == 3
        events = (await c.get(f"/tournaments/{tid}/events", params={"follow": "false"})).json()
        paired = [e["payload"] for e in events if e["type"] == "RoundPaired"]
        assert [p["system"] for p in paired] == ["mcmahon"] * 3 and paired[0]["rule"]["ruleset"] == "McMahon"
        assert all(p["system_version"] == "mcmahon 1" for p in paired)
        st = await standings_after(c, tid, 3)
    initial = {"a": 31, "b": 31, "c": 30, "d": 29, "e": 27}
    assert {r["player_id"]: r["tiebreaks"]["MMS"] for r in st["rows"]} == {
        r["player_id"]: initial[r["player_id"]] + r["score"] for r in st["rows"]}
    assert st["rows"][0]["player_id"] == "a"  # 4d won all: MMS 34


async def _chinese_event(c, tid: str, seed: int) -> list[dict]:
    r = await c.post("/tournaments", json={"tournament_id": tid, "name": "积分编排", "game": "xiangqi",
                                            "system": "chinese-swiss", "rounds": 3, "lots_seed": seed})
    assert r.status_code == 200, r.text
    for i in range(7):
        r = await c.post(f"/tournaments/{tid}/players",
                         json={"player_id": f"p{i}", "name": f"P{i}", "rating": 2500 - 50 * i})
        assert r.status_code == 200, r.text
    rounds = []
    for rnd in (1, 2, 3):
        rd = await _round(c, tid, rnd)
        rounds.append(rd)
        for b in rd["boards"]:  # the higher-rated player wins
            res = "1-0" if int(b["white"][1:]) < int(b["black"][1:]) else "0-1"
            assert (await c.post(f"/games/{b['game_id']}/result", json={"result": res})).status_code == 200
    events = (await c.get(f"/tournaments/{tid}/events", params={"follow": "false"})).json()
    return rounds, [e["payload"] for e in events if e["type"] == "RoundPaired"]


async def test_chinese_swiss_event_records_its_lots_and_replays_them():
    """A 7-player 积分编排制 event (appendix 2): round 1 pairs the rating halves (p0-p2 against
    p3-p5 by lot, p6 has the bye as the last of an odd field); every RoundPaired records the
    system version, the lots seed and the decisions; the same seed in a second event gives the
    same pairings, round by round; no rematch, one bye a round to different players."""
    async with arbiter_client("memory", ticks=False) as c:
        r1, paired1 = await _chinese_event(c, "cs1", 7)
        r2, paired2 = await _chinese_event(c, "cs2", 7)
    first = r1[0]
    assert first["bye"] == "p6"
    assert all({int(b["white"][1:]) < 3, int(b["black"][1:]) < 3} == {True, False} for b in first["boards"])
    strip = lambda rounds: [([(b["white"], b["black"]) for b in rd["boards"]], rd["bye"]) for rd in rounds]
    assert strip(r1) == strip(r2)
    assert [p["lots_seed"] for p in paired1] == [7001, 7002, 7003]
    assert all(p["system_version"].startswith("chinese-swiss") and p["decisions"] for p in paired1)
    assert all(p["rule"]["ruleset"] == "xiangqi-1999-appendix-2" for p in paired1)
    met = [frozenset((b["white"], b["black"])) for rd in r1 for b in rd["boards"]]
    assert len(met) == len(set(met)) == 9
    assert len({rd["bye"] for rd in r1}) == 3


async def test_swiss_dutch_by_py4swiss_through_the_service():
    """Eight rated players, four Dutch rounds paired by the service's engine (py4swiss): round 1
    top half against bottom half (1-5, 6-2, 3-7, 8-4 by pairing number), no rematch after, the
    engine and version in every RoundPaired; the higher rating wins every game."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "dutch1"
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "Dutch", "system": "swiss",
                                                "rounds": 4})
        assert r.status_code == 200, r.text
        for i in range(8):
            assert (await c.post(f"/tournaments/{tid}/players", json={
                "player_id": f"p{i + 1}", "name": f"P{i + 1}", "rating": 2400 - 20 * i})).status_code == 200
        met = set()
        for rnd in (1, 2, 3, 4):
            rd = await _round(c, tid, rnd)
            pairs = [(b["white"], b["black"]) for b in rd["boards"]]
            if rnd == 1:
                assert {frozenset(p) for p in pairs} == {frozenset(("p1", "p5")), frozenset(("p2", "p6")),
                                                         frozenset(("p3", "p7")), frozenset(("p4", "p8"))}
            assert not {frozenset(p) for p in pairs} & met
            met |= {frozenset(p) for p in pairs}
            for b in rd["boards"]:
                res = "1-0" if int(b["white"][1:]) < int(b["black"][1:]) else "0-1"
                assert (await c.post(f"/games/{b['game_id']}/result", json={"result": res})).status_code == 200
        events = (await c.get(f"/tournaments/{tid}/events", params={"follow": "false"})).json()
        paired = [e["payload"] for e in events if e["type"] == "RoundPaired"]
        assert [p["system_version"] for p in paired] == ["py4swiss-dutch==0.3.1+C.04.3-2025"] * 4


async def test_round_robin_rounds_follow_from_the_field():
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/tournaments", json={"tournament_id": "rr1", "name": "RR", "system": "round-robin",
                                                "rounds": 2})
        assert r.status_code == 409 and "leave rounds out" in r.json()["detail"]


async def test_a_hosted_swiss_exports_as_a_trf_that_reads_back(tmp_path):
    """Four Dutch rounds through the services, exported by ``arbiter export trf``'s fold: the
    TRF reads back with our reader, every pairing symmetric, the points equal the standings
    and the pairings equal the RoundPaired events."""
    from contracts.messages import TOPICS
    from shared.domain.trf import parse_trf
    from services.tools.logio import select
    from shared.domain.trfexport import export_trf

    async with arbiter_client("memory", ticks=False) as c:
        tid = "trfx"
        await c.post("/tournaments", json={"tournament_id": tid, "name": "Export", "system": "swiss", "rounds": 3})
        for i in range(5):
            await c.post(f"/tournaments/{tid}/players", json={"player_id": f"p{i + 1}", "name": f"P{i + 1}",
                                                             "rating": 2300 - 10 * i})
        paired = []
        for rnd in (1, 2, 3):
            rd = await _round(c, tid, rnd)
            paired.append(rd)
            for b in rd["boards"]:
                res = "1/2-1/2" if rnd == 2 else ("1-0" if b["white"] < b["black"] else "0-1")
                await c.post(f"/games/{b['game_id']}/result", json={"result": res})
        st = await standings_after(c, tid, 3)
        msgs = select(await c.arbiter_log.read_many(TOPICS), f"tournament-{tid}")
    t = parse_trf(export_trf(msgs, tid))  # parse_trf checks both lines of every pairing agree
    assert t.name == "Export" and t.rounds == 3 and len(t.players) == 5
    name_of = {p.number: p.name for p in t.players}
    for rnd, rd in enumerate(paired, start=1):
        ours = {(name_of[p.number], name_of[p.entry(rnd).opponent]) for p in t.players
                if p.entry(rnd) and p.entry(rnd).colour == "w"}
        assert ours == {(b["white"].upper(), b["black"].upper()) for b in rd["boards"]}
        byes = [p.name for p in t.players if p.entry(rnd) and p.entry(rnd).result == "U"]
        assert byes == ([rd["bye"].upper()] if rd["bye"] else [])
    assert {p.name: p.points for p in t.players} == {r["name"]: r["score"] for r in st["rows"]}
    assert all(p.points == p.result_sum for p in t.players)
    # the same through the command line, from an export-log file
    from typer.testing import CliRunner

    from services.cli import app
    log = tmp_path / "log.ndjson"
    log.write_text("".join(m.model_dump_json() + "\n" for m in msgs))
    res = CliRunner().invoke(app, ["export", "trf", "--tournament", tid, "--log", str(log)])
    assert res.exit_code == 0 and parse_trf(res.stdout).players[0].name == t.players[0].name
    res = CliRunner().invoke(app, ["export", "trf", "--tournament", "nope", "--log", str(log)])
    assert res.exit_code == 2
