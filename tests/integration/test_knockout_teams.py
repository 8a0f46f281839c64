"""Knockout and team events through the gateway and the pairing/standings services (memory log)."""
from __future__ import annotations

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round, standings_after


async def _round(c, tid: str, rnd: int) -> dict:
    r = await c.post(f"/tournaments/{tid}/rounds", json={"round": rnd})
    assert r.status_code == 200, r.text
    return await paired_round(c, tid, rnd)


async def _result(c, gid: str, res: str) -> None:
    r = await c.post(f"/games/{gid}/result", json={"result": res})
    assert r.status_code == 200, r.text


async def test_eight_player_knockout_with_two_game_matches_playoff_and_third_place():
    """Eight players seeded by rating (p1 highest), two-game matches (art. 13.5), place 3 may not
    be shared (15.6: a match for third place). Script: the better seed wins every game, except
    that both games of p4-p5 are drawn (1-1, level) and p5 wins the play-off game.

    Bracket of 8 (seed order 1 8 4 5 2 7 3 6): p1-p8, p4-p5, p2-p7, p3-p6. Rounds of play:
    1-2 the two games of each match; 3 only the play-off game p4-p5 (the other matches are
    decided 2-0); 4-5 semi-finals p1-p5, p2-p3; 6-7 final p1-p2 and third place p5-p3 (the
    semi-final losers). Places: p1 1, p2 2, p3 3, p5 4; p4 p6 p7 p8 out in knockout round 1
    share place 5 (4 players still in after it, +1). Game points: p1 2+2+2 = 6; p5 1 (two
    draws) + 1 (play-off) + 0 + 0 = 2."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "ko8"
        bad = await c.post("/tournaments", json={"tournament_id": "ko-bad", "name": "KO", "system": "knockout",
                                                  "unshared_places": [5]})
        assert bad.status_code == 409 and "places from 5 on" in bad.json()["detail"]
        bad = await c.post("/tournaments", json={"tournament_id": "ko-bad2", "name": "KO", "system": "knockout",
                                                  "rounds": 3})
        assert bad.status_code == 409 and "leave rounds out" in bad.json()["detail"]
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "Knockout", "system": "knockout",
                                                "games_per_match": 2, "unshared_places": [3], "lots_seed": 11})
        assert r.status_code == 200, r.text
        for i in range(8):
            assert (await c.post(f"/tournaments/{tid}/players", json={
                "player_id": f"p{i + 1}", "name": f"P{i + 1}", "rating": 2400 - 20 * i})).status_code == 200
        seed = lambda pid: int(pid[1:])  # noqa: E731
        played: list[list[tuple[str, str]]] = []
        for rnd in range(1, 8):
            rd = await _round(c, tid, rnd)
            pairs = [(b["white"], b["black"]) for b in rd["boards"]]
            played.append(pairs)
            for b in rd["boards"]:
                pair = {b["white"], b["black"]}
                if pair == {"p4", "p5"}:
                    res = "1/2-1/2" if rnd < 3 else ("1-0" if b["white"] == "p5" else "0-1")
                else:
                    res = "1-0" if seed(b["white"]) < seed(b["black"]) else "0-1"
                await _result(c, b["game_id"], res)
        st = await standings_after(c, tid, 7)
        over = await c.post(f"/tournaments/{tid}/rounds", json={"round": 8})
        events = (await c.get(f"/tournaments/{tid}/events", params={"follow": "false"})).json()
    as_sets = [{frozenset(p) for p in pairs} for pairs in played]
    r1 = {frozenset(("p1", "p8")), frozenset(("p4", "p5")), frozenset(("p2", "p7")), frozenset(("p3", "p6"))}
    assert as_sets[0] == as_sets[1] == r1
    assert as_sets[2] == {frozenset(("p4", "p5"))}
    assert as_sets[3] == as_sets[4] == {frozenset(("p1", "p5")), frozenset(("p2", "p3"))}
    assert as_sets[5] == as_sets[6] == {frozenset(("p1", "p2")), frozenset(("p3", "p5"))}
    g1 = dict((frozenset(p), p) for p in played[0])
    g2 = dict((frozenset(p), p) for p in played[1])
    assert all(g2[k] == (g1[k][1], g1[k][0]) for k in g1)  # 13.5: colours swapped in game 2
    assert played[2][0] == g1[frozenset(("p4", "p5"))]  # play-off game 3: colours alternate on
    lots = [e["payload"] for e in events if e["type"] == "LotsDrawn"]
    assert lots == [{"tournament_id": tid, "numbers": {f"p{i}": i for i in range(1, 9)}}]
    paired = [e["payload"] for e in events if e["type"] == "RoundPaired"]
    assert all(p["system"] == "knockout" and p["system_version"] == "knockout 1" and p["lots_seed"] == 11
               for p in paired)
    assert any("play-off game 3" in d and "15.6" in d for d in paired[2]["decisions"])
    assert any(d.startswith("P3 ") for d in paired[5]["decisions"])
    assert [e["type"] for e in events].count("TournamentFinished") == 1
    assert over.status_code == 409 and "finished" in over.text
    places = {r["player_id"]: r["rank"] for r in st["rows"]}
    assert places == {"p1": 1, "p2": 2, "p3": 3, "p5": 4, "p4": 5, "p6": 5, "p7": 5, "p8": 5}
    score = {r["player_id"]: r["score"] for r in st["rows"]}
    assert score["p1"] == 6 and score["p5"] == 2 and st["order"] == ["PLACE"]


async def test_knockout_seeding_by_lot_is_in_the_event_and_replays():
    """Six players seeded by lot (``lots_seed`` 5): the seeds are written as LotsDrawn, the same
    seed gives the same seeds in a second event; seeds 1 and 2 get the two byes of the bracket
    of 8 (3-6, 4-5 play), recorded in the round's decisions."""
    async with arbiter_client("memory", ticks=False) as c:
        seeds = []
        for tid in ("lot1", "lot2"):
            await c.post("/tournaments", json={"tournament_id": tid, "name": "KO", "system": "knockout",
                                                "seeding": "lots", "lots_seed": 5})
            for i in range(6):
                await c.post(f"/tournaments/{tid}/players", json={"player_id": f"p{i}", "name": f"P{i}"})
            rd = await _round(c, tid, 1)
            events = (await c.get(f"/tournaments/{tid}/events", params={"follow": "false"})).json()
            numbers = next(e["payload"]["numbers"] for e in events if e["type"] == "LotsDrawn")
            paired = next(e["payload"] for e in events if e["type"] == "RoundPaired")
            seeds.append(numbers)
        by_no = {n: pid for pid, n in numbers.items()}
        assert seeds[0] == seeds[1] and sorted(numbers.values()) == [1, 2, 3, 4, 5, 6]
        assert {frozenset((b["white"], b["black"])) for b in rd["boards"]} == {
            frozenset((by_no[3], by_no[6])), frozenset((by_no[4], by_no[5]))}
        assert sum("bye" in d for d in paired["decisions"]) == 2


async def test_team_round_robin_match_points_and_game_points():
    """Three teams of three (boards 2 a match, art. 12.1: the two highest rated play; the third
    member is a reserve). Berger tables for 3 teams (4 with the bye): 3 rounds, each team rests
    once. Colours: the first-listed team has Red (white seat) on board 1, Black on board 2
    (13.2, 13.3). Script: team A wins every game; B-C: board 1 to B, board 2 drawn.
    Match points (14.2): A 2+2 = 4, B 2 (1½-½), C 0. Game points: A 4, B 1.5, C 0.5."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "teams3"
        bad = await c.post("/tournaments", json={"tournament_id": "t-bad", "name": "T", "system": "team-round-robin"})
        assert bad.status_code == 409 and "team_boards" in bad.json()["detail"]
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "Teams", "system": "team-round-robin",
                                                "game": "xiangqi", "team_boards": 2})
        assert r.status_code == 200, r.text
        for team, base in (("A", 2500), ("B", 2400), ("C", 2300)):
            for k in range(3):  # registered lowest rating first: board order is by rating
                assert (await c.post(f"/tournaments/{tid}/players", json={
                    "player_id": f"{team}{3 - k}", "name": f"{team}{3 - k}", "team": team,
                    "rating": base - 10 * (3 - k)})).status_code == 200
        nob = await c.post(f"/tournaments/{tid}/players", json={"player_id": "x", "name": "X"})
        assert nob.status_code == 409 and "team" in nob.json()["detail"]
        boards_seen = []
        for rnd in (1, 2, 3):
            rd = await _round(c, tid, rnd)
            assert len(rd["boards"]) == 2  # one match a round, the third team rests
            boards_seen.append(rd["boards"])
            for b in rd["boards"]:
                w, bl = b["white"], b["black"]
                if "A" in (w[0], bl[0]):
                    res = "1-0" if w[0] == "A" else "0-1"
                elif b["board"] == 1:
                    res = "1-0" if w[0] == "B" else "0-1"
                else:
                    res = "1/2-1/2"
                await _result(c, b["game_id"], res)
        st = await standings_after(c, tid, 3)
        events = (await c.get(f"/tournaments/{tid}/events", params={"follow": "false"})).json()
    for boards in boards_seen:
        b1, b2 = sorted(boards, key=lambda b: b["board"])
        assert b1["white"][1] == "1" and b1["black"][1] == "1"  # board 1: each team's first board
        assert b2["white"][1] == "2" and b2["black"][1] == "2"
        assert b1["white"][0] == b2["black"][0]  # 13.2-13.3: Red on odd boards, Black on even
        assert not any(p[1] == "3" for b in boards for p in (b["white"], b["black"]))  # reserves
    teams = {r["team"]: r for r in st["teams"]}
    assert {k: (v["rank"], v["match_points"], v["game_points"], v["matches"]) for k, v in teams.items()} == {
        "A": (1, 4.0, 4.0, 2), "B": (2, 2.0, 1.5, 2), "C": (3, 0.0, 0.5, 2)}
    assert teams["B"]["tiebreaks"]["WIN"] == 1.0
    paired = [e["payload"] for e in events if e["type"] == "RoundPaired"]
    assert all(p["system"] == "team-round-robin" and p["decisions"] for p in paired)
    assert [e["type"] for e in events].count("TournamentFinished") == 1


async def test_byes_and_manual_boards_are_refused_where_they_do_not_belong():
    async with arbiter_client("memory", ticks=False) as c:
        await c.post("/tournaments", json={"tournament_id": "sw", "name": "S", "system": "swiss", "rounds": 3})
        await c.post("/tournaments", json={"tournament_id": "ko", "name": "K", "system": "knockout"})
        for tid in ("sw", "ko"):
            for pid in ("a", "b", "c"):
                await c.post(f"/tournaments/{tid}/players", json={"player_id": pid, "name": pid})
        r = await c.post("/tournaments/sw/rounds", json={"round": 1, "requested_byes": {"c": "H"}})
        assert r.status_code == 409 and "manual pairing" in r.json()["detail"]
        r = await c.post("/tournaments/sw/rounds", json={"round": 1, "boards": [{"white": "a", "black": "b"}],
                                                         "requested_byes": {"a": "H"}})
        assert r.status_code == 409 and "also paired" in r.json()["detail"]
        r = await c.post("/tournaments/ko/rounds", json={"round": 1, "boards": [{"white": "a", "black": "b"}]})
        assert r.status_code == 409 and "paired by its system" in r.json()["detail"]
        r = await c.post("/tournaments/sw/rounds", json={"round": 1, "boards": [{"white": "a", "black": "b"}],
                                                         "requested_byes": {"c": "H"}})
        assert r.status_code == 200 and r.json()["requested_byes"] == {"c": "H"}
