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
                                                  "unshared_places": [0]})
        assert bad.status_code == 409 and "1 or more" in bad.json()["detail"]
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
        # requested byes in a round paired by the system: Swiss systems only (a knockout: 409)
        r = await c.post("/tournaments/ko/rounds", json={"round": 1, "requested_byes": {"c": "H"}})
        assert r.status_code == 409 and "manual pairing or a Swiss system" in r.json()["detail"]
        r = await c.post("/tournaments/sw/rounds", json={"round": 1, "boards": [{"white": "a", "black": "b"}],
                                                         "requested_byes": {"a": "H"}})
        assert r.status_code == 409 and "also paired" in r.json()["detail"]
        r = await c.post("/tournaments/ko/rounds", json={"round": 1, "boards": [{"white": "a", "black": "b"}]})
        assert r.status_code == 409 and "paired by its system" in r.json()["detail"]
        r = await c.post("/tournaments/sw/rounds", json={"round": 1, "boards": [{"white": "a", "black": "b"}],
                                                         "requested_byes": {"c": "H"}})
        assert r.status_code == 200 and r.json()["requested_byes"] == {"c": "H"}


async def test_eight_player_double_elimination_with_a_bracket_reset():
    """Eight players seeded by rating (p1 highest), one game a match. Bracket of 8: W1 p1-p8,
    p4-p5, p2-p7, p3-p6. Script (winner of each match, by round of play):

    1. W1: p1, p5 (over p4), p2, p3. Losers p8 p4 p7 p6 drop to the losers' bracket.
    2. W2 p1-p5, p2-p3 and L1 p8-p4, p7-p6 together: p1, p3 (over p2); p4, p6. p8 and p7 have
       two losses: out, sharing place 8 - 2 + 1 = 7.
    3. W3 (winners' final) p1-p3, open as soon as W2 is decided, and L2: survivors [p4, p6]
       against W2's losers reversed [p2, p5]: p4-p2, p6-p5. p3 beats p1 (p1's first loss); p2
       and p5 win; p4 and p6 out at place 8 - 4 + 1 = 5.
    4. L3 p2-p5: p2 wins; p5 out, place 8 - 5 + 1 = 4.
    5. L4 (losers' final) p2 v p1 (W3's loser): p1 wins; p2 out, place 3.
    6. GF p3 (no loss) v p1 (one loss): p1 wins, p3's first loss, so
    7. GF2 is played (out after two losses): p1 wins again. p1 1, p3 2.

    Places: p1 1, p3 2, p2 3, p5 4, p4 p6 5, p7 p8 7. Game points: p1 wins in rounds 1, 2, 5,
    6, 7 and loses in 4: 5."""
    winners = {1: {"p1", "p5", "p2", "p3"}, 2: {"p1", "p3", "p4", "p6"}, 3: {"p3", "p2", "p5"},
               4: {"p2"}, 5: {"p1"}, 6: {"p1"}, 7: {"p1"}}
    async with arbiter_client("memory", ticks=False) as c:
        tid = "de8"
        bad = await c.post("/tournaments", json={"tournament_id": "de-bad", "name": "DE", "system": "swiss",
                                                  "rounds": 3, "grand_final_reset": False})
        assert bad.status_code == 409 and "double-elimination" in bad.json()["detail"]
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "Double", "lots_seed": 3,
                                                "system": "double-elimination", "game": "xiangqi"})
        assert r.status_code == 200, r.text
        for i in range(8):
            assert (await c.post(f"/tournaments/{tid}/players", json={
                "player_id": f"p{i + 1}", "name": f"P{i + 1}", "rating": 2400 - 20 * i})).status_code == 200
        played = []
        for rnd in range(1, 8):
            rd = await _round(c, tid, rnd)
            played.append({frozenset((b["white"], b["black"])) for b in rd["boards"]})
            for b in rd["boards"]:
                await _result(c, b["game_id"], "1-0" if b["white"] in winners[rnd] else "0-1")
            if rnd == 3:
                mid = await standings_after(c, tid, 3)
        st = await standings_after(c, tid, 7)
        over = await c.post(f"/tournaments/{tid}/rounds", json={"round": 8})
        events = (await c.get(f"/tournaments/{tid}/events", params={"follow": "false"})).json()
    pair = lambda a, b: frozenset((a, b))  # noqa: E731
    assert played == [
        {pair("p1", "p8"), pair("p4", "p5"), pair("p2", "p7"), pair("p3", "p6")},
        {pair("p1", "p5"), pair("p2", "p3"), pair("p8", "p4"), pair("p7", "p6")},
        {pair("p1", "p3"), pair("p4", "p2"), pair("p6", "p5")},
        {pair("p2", "p5")},
        {pair("p2", "p1")},
        {pair("p3", "p1")},
        {pair("p1", "p3")}]
    assert {r["player_id"]: r["rank"] for r in mid["rows"]} == {
        "p1": 1, "p2": 1, "p3": 1, "p5": 1, "p4": 5, "p6": 5, "p7": 7, "p8": 7}  # p1 one loss: still in
    assert {r["player_id"]: r["rank"] for r in st["rows"]} == {
        "p1": 1, "p3": 2, "p2": 3, "p5": 4, "p4": 5, "p6": 5, "p7": 7, "p8": 7}
    assert {r["player_id"]: r["score"] for r in st["rows"]}["p1"] == 5
    paired = [e["payload"] for e in events if e["type"] == "RoundPaired"]
    assert all(p["system"] == "double-elimination" and p["system_version"] == "double-elimination 1"
               for p in paired)
    assert any(d.startswith("GF2: p1 won the grand final") for d in paired[6]["decisions"])
    assert [e["type"] for e in events].count("TournamentFinished") == 1
    assert over.status_code == 409 and "finished" in over.text


async def test_team_line_ups_reserves_and_all_play_all():
    """Art. 12.2 (reserves, board order kept), 12.3 (line-up per match), 12.4 (all-play-all).

    Event 1, ``reserves``, three teams of three, two boards: Berger tables for 3 teams give B-C
    in round 1 (A rests), A-B in round 2. A's line-up [A1, A3] keeps the roster order (12.2:
    allowed), [A3, A1] does not; A has no match in round 1; B plays round 1 with its default
    line-up (no submission: board order B1, B2) and after round 1 is paired its line-up is closed.

    Event 2, ``all-play-all``, two teams of three, two boards: A fields [A1, A3] (any members,
    12.3), B nothing (default [B1, B2]). The match takes 2 rounds: round 1 A1-B1 (A Red on
    board 1) and B2-A3; round 2 B2-A1 and A3-B1 (colours swap halfway): every fielded A member
    meets every fielded B member once. Script: A1 beats B1, B2-A3 drawn; B2 beats A1, A3 beats
    B1. Game points A 1 + ½ + 0 + 1 = 2½, B 1½: one match (not two), A 2 match points (14.2)."""
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/tournaments", json={"tournament_id": "res", "name": "R", "system": "team-round-robin",
                                                "game": "xiangqi", "team_boards": 2, "team_format": "reserves"})
        assert r.status_code == 200, r.text
        for team in "ABC":
            for k in (1, 2, 3):
                await c.post("/tournaments/res/players", json={"player_id": f"{team}{k}", "name": f"{team}{k}",
                                                                "team": team, "board": k})
        ok = await c.post("/tournaments/res/lineups", json={"team": "A", "round": 2, "members": ["A1", "A3"]})
        assert ok.status_code == 200 and ok.json()["members"] == ["A1", "A3"], ok.text
        swapped = await c.post("/tournaments/res/lineups", json={"team": "A", "round": 2, "members": ["A3", "A1"]})
        assert swapped.status_code == 409 and "12.2" in swapped.json()["detail"]
        rest = await c.post("/tournaments/res/lineups", json={"team": "A", "round": 1, "members": ["A1", "A2"]})
        assert rest.status_code == 409 and "no match in round 1" in rest.json()["detail"]
        nobody = await c.post("/tournaments/res/lineups", json={"team": "Z", "round": 1, "members": ["A1", "A2"]})
        assert nobody.status_code == 409 and "no team" in nobody.json()["detail"]
        three = await c.post("/tournaments/res/lineups", json={"team": "A", "round": 2,
                                                               "members": ["A1", "A2", "A3"]})
        assert three.status_code == 409 and "names 2 different members" in three.json()["detail"]
        other = await c.post("/tournaments/res/lineups", json={"team": "B", "round": 1, "members": ["A1", "B2"]})
        assert other.status_code == 409 and "not on the roster" in other.json()["detail"]
        await c.post("/tournaments", json={"tournament_id": "solo", "name": "S", "system": "round-robin"})
        solo = await c.post("/tournaments/solo/lineups", json={"team": "A", "round": 1, "members": ["x"]})
        assert solo.status_code == 409 and "team-round-robin" in solo.json()["detail"]
        r1 = await _round(c, "res", 1)
        assert [(b["white"], b["black"]) for b in r1["boards"]] == [("B1", "C1"), ("C2", "B2")]
        late = await c.post("/tournaments/res/lineups", json={"team": "B", "round": 1, "members": ["B1", "B3"]})
        assert late.status_code == 409 and "already paired" in late.json()["detail"]
        for b in r1["boards"]:
            await _result(c, b["game_id"], "1/2-1/2")
        r2 = await _round(c, "res", 2)
        assert [(b["white"], b["black"]) for b in r2["boards"]] == [("A1", "B1"), ("B2", "A3")]

        r = await c.post("/tournaments", json={"tournament_id": "apa", "name": "APA", "system": "team-round-robin",
                                                "game": "xiangqi", "team_boards": 2, "team_format": "all-play-all"})
        assert r.status_code == 200, r.text
        for team in "AB":
            for k in (1, 2, 3):
                await c.post("/tournaments/apa/players", json={"player_id": f"{team}{k}", "name": f"{team}{k}",
                                                                "team": team, "rating": 2000 - k})
        ok = await c.post("/tournaments/apa/lineups", json={"team": "A", "round": 1, "members": ["A1", "A3"]})
        assert ok.status_code == 200, ok.text
        script = {("A1", "B1"): "1-0", ("B2", "A3"): "1/2-1/2", ("B2", "A1"): "1-0", ("A3", "B1"): "1-0"}
        boards = []
        for rnd in (1, 2):
            rd = await _round(c, "apa", rnd)
            boards.append([(b["white"], b["black"]) for b in rd["boards"]])
            for b in rd["boards"]:
                await _result(c, b["game_id"], script[(b["white"], b["black"])])
        st = await standings_after(c, "apa", 2)
        over = await c.post("/tournaments/apa/rounds", json={"round": 3})
    assert boards == [[("A1", "B1"), ("B2", "A3")], [("B2", "A1"), ("A3", "B1")]]
    teams = {r["team"]: (r["rank"], r["match_points"], r["game_points"], r["matches"]) for r in st["teams"]}
    assert teams == {"A": (1, 2.0, 2.5, 1), "B": (2, 0.0, 1.5, 1)}
    assert over.status_code == 409 and "finished" in over.json()["detail"]  # after its 2 rounds


async def test_member_total_ranks_teams_by_members_places_15_5():
    """12.5 / 15.5: an individual round robin of four (a1 a2 of team A, b1 b2 of team B); the
    stronger player wins every game, strength a1 > b1 > a2 > b2, so the scores are 3, 2, 1, 0
    and the places a1 1, b1 2, a2 3, b2 4. Sum of places: A 1 + 3 = 4, B 2 + 4 = 6: A first
    (fewer first). Members' total score (12.5): A 3 + 1 = 4, B 2 + 0 = 2."""
    strength = {"a1": 4, "b1": 3, "a2": 2, "b2": 1}
    async with arbiter_client("memory", ticks=False) as c:
        bad = await c.post("/tournaments", json={"tournament_id": "mt-bad", "name": "M", "system": "knockout",
                                                  "team_format": "member-total"})
        assert bad.status_code == 409 and "15.5" in bad.json()["detail"]
        r = await c.post("/tournaments", json={"tournament_id": "mt", "name": "M", "game": "xiangqi",
                                                "system": "round-robin", "team_format": "member-total"})
        assert r.status_code == 200, r.text
        for pid in strength:
            assert (await c.post("/tournaments/mt/players", json={
                "player_id": pid, "name": pid, "team": pid[0].upper()})).status_code == 200
        for rnd in (1, 2, 3):
            rd = await _round(c, "mt", rnd)
            for b in rd["boards"]:
                await _result(c, b["game_id"], "1-0" if strength[b["white"]] > strength[b["black"]] else "0-1")
        st = await standings_after(c, "mt", 3)
    assert {r["player_id"]: r["rank"] for r in st["rows"]} == {"a1": 1, "b1": 2, "a2": 3, "b2": 4}
    teams = {r["team"]: (r["rank"], r["game_points"], r["tiebreaks"]) for r in st["teams"]}
    assert teams == {"A": (1, 4.0, {"PLACES": 4.0, "BEST": 1.0, "SECOND": 3.0, "FOULS": 0.0}),
                     "B": (2, 2.0, {"PLACES": 6.0, "BEST": 2.0, "SECOND": 4.0, "FOULS": 0.0})}


async def test_knockout_places_5_to_8_by_classification_playoffs():
    """Art. 15.6 (冠军或不宜并列的名次，应安排加赛): places 3, 5 and 7 may not be shared. Eight
    players by rating, one game a match; the better seed wins every game except p8 beats p5
    in the classification semi-final. Round 1 quarter-finals; round 2 semi-finals p1-p4, p2-p3
    and the quarter-final losers' play-off p5-p8, p6-p7 (seeded among themselves); round 3 the
    final, third place p3-p4, fifth place p6-p8, seventh place p5-p7. Places 1..8: p1 p2 p3 p4
    p6 p8 p5 p7; the event finishes after round 3."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "ko-cls"
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "KO", "system": "knockout",
                                                "unshared_places": [3, 5, 7]})
        assert r.status_code == 200, r.text
        for i in range(8):
            await c.post(f"/tournaments/{tid}/players", json={"player_id": f"p{i + 1}", "name": f"P{i + 1}",
                                                              "rating": 2400 - 20 * i})
        sizes = []
        for rnd in (1, 2, 3):
            rd = await _round(c, tid, rnd)
            sizes.append(len(rd["boards"]))
            for b in rd["boards"]:
                w, bl = b["white"], b["black"]
                win = "p8" if {w, bl} == {"p5", "p8"} else min((w, bl), key=lambda x: int(x[1:]))
                await _result(c, b["game_id"], "1-0" if w == win else "0-1")
        st = await standings_after(c, tid, 3)
        events = (await c.get(f"/tournaments/{tid}/events", params={"follow": "false"})).json()
    assert sizes == [4, 4, 4]
    assert {r["player_id"]: r["rank"] for r in st["rows"]} == {
        "p1": 1, "p2": 2, "p3": 3, "p4": 4, "p6": 5, "p8": 6, "p5": 7, "p7": 8}
    assert [e["type"] for e in events].count("TournamentFinished") == 1
