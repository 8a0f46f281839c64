"""Tournament management through the gateway (memory log): concurrent creations, team names,
withdrawals, late entries, requested byes, bounded knockout play-offs, result corrections and
the crosstable's bye and forfeit marks."""
from __future__ import annotations

import asyncio

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round, standings_after


async def _create(c, tid: str, **kw):
    return await c.post("/tournaments", json={"tournament_id": tid, "name": tid, **kw})


async def _players(c, tid: str, n: int, **extra) -> None:
    for i in range(n):
        r = await c.post(f"/tournaments/{tid}/players", json={
            "player_id": f"p{i + 1}", "name": f"P{i + 1}", "rating": 2400 - 10 * i, **extra})
        assert r.status_code == 200, r.text


async def _exported(c, tid: str):
    """The tournament as ``arbiter export trf`` writes it, read back by our TRF reader."""
    from contracts.messages import TOPICS
    from shared.domain.trf import parse_trf
    from services.tools.logio import select
    from shared.domain.trfexport import export_trf

    msgs = select(await c.arbiter_log.read_many(TOPICS), f"tournament-{tid}")
    return parse_trf(export_trf(msgs, tid))


async def _result(c, gid: str, res: str) -> None:
    r = await c.post(f"/games/{gid}/result", json={"result": res})
    assert r.status_code == 200, r.text


async def test_a_rejected_creation_reserves_nothing_for_concurrent_ones():
    """Three concurrent creations of one id: the Swiss one without rounds is invalid; of the two
    valid ones exactly one creates the tournament, the other is refused as already existing."""
    async with arbiter_client("memory", ticks=False) as c:
        bodies = [{"system": "swiss"}, {"system": "knockout"}, {"system": "round-robin"}]
        rs = await asyncio.gather(*(_create(c, "race", **b) for b in bodies))
        assert rs[0].status_code == 409 and "number of rounds" in rs[0].json()["detail"]
        assert sorted(r.status_code for r in rs[1:]) == [200, 409]
        loser = next(r for r in rs[1:] if r.status_code == 409)
        assert loser.json()["code"] == "already-exists"
        winner = next(r for r in rs[1:] if r.status_code == 200)
        t = (await c.get("/tournaments/race")).json()
        assert t["system"] == winner.json()["system"] and t["status"] == "open"
        # a lone invalid creation leaves the id free for a valid one
        assert (await _create(c, "t1", system="swiss")).status_code == 409
        assert (await c.get("/tournaments/t1")).status_code == 404
        assert (await _create(c, "t1", system="swiss", rounds=3)).status_code == 200


async def test_team_names_are_trimmed_and_a_near_duplicate_is_refused():
    """Team "A" registered; " A " is the same team (trimmed), "a" and "A  " + case are refused
    with 422 naming "A" (else a one-member team "a" would make the event unpairable)."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "tm"
        assert (await _create(c, tid, system="team-round-robin", team_boards=2,
                              game="xiangqi")).status_code == 200
        for pid, team in [("a1", "A"), ("a2", " A "), ("b1", "B"), ("b2", "B")]:
            r = await c.post(f"/tournaments/{tid}/players", json={"player_id": pid, "name": pid, "team": team})
            assert r.status_code == 200, r.text
            assert r.json()["team"] == team.strip()
        for bad in ("a", " a", "b"):
            r = await c.post(f"/tournaments/{tid}/players", json={"player_id": "x", "name": "x", "team": bad})
            assert r.status_code == 422 and repr(bad.strip().upper()) in r.json()["detail"], r.text
        players = (await c.get(f"/tournaments/{tid}")).json()["players"]
        assert [(p["player_id"], p["team"]) for p in players] == [("a1", "A"), ("a2", "A"), ("b1", "B"), ("b2", "B")]
        # two teams of two: one match, paired (Berger 1 v 2, A Red on board 1, 13.2)
        r = await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})
        assert r.status_code == 200, r.text
        rd = await paired_round(c, tid, 1)
        assert len(rd["boards"]) == 2 and rd["boards"][0]["white"] in ("a1", "a2")


async def test_crosstable_shows_requested_byes_and_double_forfeits():
    """Round 1 paired by hand: p1-p2 (the arbiter records 0-0: neither scores, a double forfeit,
    xiangqi art. 21.3), p3 the pairing bye, p4/p5/p6 requested byes F/H/Z. Crosstable cells as
    the TRF export writes them (21.4: + and -): p1 and p2 "-", p3 "bye", p4 "F", p5 "H", p6
    "Z"; standings scores F 1, H 0.5, Z 0, pairing bye 1 (Dutch), 0-0 0 each."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "ct"
        assert (await _create(c, tid, system="swiss", rounds=2)).status_code == 200
        await _players(c, tid, 6)
        r = await c.post(f"/tournaments/{tid}/rounds", json={
            "round": 1, "boards": [{"white": "p1", "black": "p2"}], "bye": "p3",
            "requested_byes": {"p4": "F", "p5": "H", "p6": "Z"}})
        assert r.status_code == 200, r.text
        rd = await paired_round(c, tid, 1)
        await _result(c, rd["boards"][0]["game_id"], "0-0")
        st = await standings_after(c, tid, 1)
        ct = (await c.get(f"/tournaments/{tid}/crosstable")).json()
    cells = {row["player_id"]: row["cells"] for row in ct["rows"]}
    assert cells == {"p1": ["-"], "p2": ["-"], "p3": ["bye"], "p4": ["F"], "p5": ["H"], "p6": ["Z"]}
    scores = {row["player_id"]: row["score"] for row in st["rows"]}
    assert scores == {"p1": 0.0, "p2": 0.0, "p3": 1.0, "p4": 1.0, "p5": 0.5, "p6": 0.0}


async def _play_knockout(c, tid: str, result: str, limit: int = 20) -> list[dict]:
    rounds = []
    for rnd in range(1, limit):
        r = await c.post(f"/tournaments/{tid}/rounds", json={"round": rnd})
        if r.status_code != 200:
            assert "is finished" in r.json()["detail"] or "over" in r.json()["detail"], r.text
            break
        rd = await paired_round(c, tid, rnd)
        rounds.append(rd)
        for b in rd["boards"]:
            await _result(c, b["game_id"], result)
    return rounds


async def test_knockout_play_offs_are_bounded_then_decided_by_seed_or_lot():
    """Two players, one game a match, every game drawn. With ``playoff_games`` 2 and the higher
    seed deciding (art. 15.6: a rule fixed before the event): game 1 + 2 play-off games = 3
    rounds, then p1 (seed 1, rating 2400) goes through; the decision is in TournamentFinished
    (no round follows). By default (4 play-off games, then a lot from lots_seed): 5 rounds."""
    async with arbiter_client("memory", ticks=False) as c:
        assert (await _create(c, "ko", system="knockout", playoff_games=2,
                              playoff_decider="higher-seed")).status_code == 200
        await _players(c, "ko", 2)
        rounds = await _play_knockout(c, "ko", "1/2-1/2")
        assert len(rounds) == 3
        st = await standings_after(c, "ko", 3)
        assert {r["player_id"]: r["rank"] for r in st["rows"]} == {"p1": 1, "p2": 2}
        ev = (await c.get("/tournaments/ko/events", params={"follow": "false"})).json()
        fin = [e["payload"] for e in ev if e["type"] == "TournamentFinished"]
        assert len(fin) == 1 and fin[0]["rounds"] == 3
        assert fin[0]["decisions"] == ["F p1-p2 level 1.5-1.5 after 2 play-off game(s), the limit 2: "
                                       "p1 goes through as the higher seed (art. 15.6)"]

        assert (await _create(c, "ko4", system="knockout", lots_seed=7)).status_code == 200
        await _players(c, "ko4", 2)
        rounds = await _play_knockout(c, "ko4", "1/2-1/2")
        assert len(rounds) == 5  # game 1 + the default 4 play-off games
        created = next(e for e in (await c.get("/tournaments/ko4/events", params={"follow": "false"})).json()
                       if e["type"] == "TournamentCreated")["payload"]
        assert created["playoff_games"] == 4 and created["playoff_decider"] == "lots"
        ev = (await c.get("/tournaments/ko4/events", params={"follow": "false"})).json()
        (fin,) = [e["payload"] for e in ev if e["type"] == "TournamentFinished"]
        assert len(fin["decisions"]) == 1 and "by lot (seed 7)" in fin["decisions"][0]
        # for a non-knockout the bound is refused
        bad = await _create(c, "sw", system="swiss", rounds=3, playoff_games=2)
        assert bad.status_code == 409 and "for knockouts" in bad.json()["detail"]


async def test_a_semi_final_decided_by_the_rule_is_recorded_in_the_next_round():
    """Four players, ``playoff_games`` 0 (a level game goes straight to the decider, the higher
    seed): round 1 p1-p4 and p2-p3 drawn; round 2 is the final p1-p2, and its RoundPaired
    records both semi-finals settled by seed (bracket order R1M1 p1-p4, R1M2 p2-p3)."""
    async with arbiter_client("memory", ticks=False) as c:
        assert (await _create(c, "k4", system="knockout", playoff_games=0,
                              playoff_decider="higher-seed")).status_code == 200
        await _players(c, "k4", 4)
        r = await c.post("/tournaments/k4/rounds", json={"round": 1})
        assert r.status_code == 200, r.text
        rd = await paired_round(c, "k4", 1)
        assert {frozenset((b["white"], b["black"])) for b in rd["boards"]} == {
            frozenset(("p1", "p4")), frozenset(("p2", "p3"))}
        for b in rd["boards"]:
            await _result(c, b["game_id"], "1/2-1/2")
        r = await c.post("/tournaments/k4/rounds", json={"round": 2})
        assert r.status_code == 200, r.text
        assert {r.json()["boards"][0]["white"], r.json()["boards"][0]["black"]} == {"p1", "p2"}
        dec = r.json()["decisions"]
        assert [d for d in dec if "settled" in d or "goes through" in d] == [
            "R1M1 p1-p4 level 0.5-0.5 after 0 play-off game(s), the limit 0: p1 goes through as the higher seed (art. 15.6)",
            "R1M2 p2-p3 level 0.5-0.5 after 0 play-off game(s), the limit 0: p2 goes through as the higher seed (art. 15.6)"]


async def _standings_where(c, tid: str, ok, tries: int = 100) -> dict:
    for _ in range(tries):
        st = (await c.get(f"/tournaments/{tid}/standings")).json()
        if st["rows"] and ok(st):
            return st
        await asyncio.sleep(0.05)
    raise AssertionError(f"standings of {tid} never matched: {st}")


def _scores(st: dict) -> dict:
    return {r["player_id"]: r["score"] for r in st["rows"]}


async def test_an_arbiter_corrects_a_mistyped_result_and_standings_follow():
    """Swiss, 4 players: p1's round-1 game is entered the wrong way round (p1 loses). A second
    RecordResult is refused (game over); CorrectResult makes p1 the winner: ResultCorrected on
    the tournament (previous kept), the game view shows the corrected result, the standings
    after round 1 are written again (p1 1 point, his opponent 0)."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "cor"
        assert (await _create(c, tid, system="swiss", rounds=3)).status_code == 200
        await _players(c, tid, 4)
        assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})).status_code == 200
        rd = await paired_round(c, tid, 1)
        b1 = next(b for b in rd["boards"] if "p1" in (b["white"], b["black"]))
        opp = b1["black"] if b1["white"] == "p1" else b1["white"]
        wrong, right = ("0-1", "1-0") if b1["white"] == "p1" else ("1-0", "0-1")
        for b in rd["boards"]:
            await _result(c, b["game_id"], wrong if b is b1 else "1/2-1/2")
        st = await standings_after(c, tid, 1)
        assert _scores(st)["p1"] == 0.0 and _scores(st)[opp] == 1.0
        r = await c.post(f"/games/{b1['game_id']}/result", json={"result": right})
        assert r.status_code == 409 and r.json()["code"] == "game-over"
        r = await c.post(f"/games/{b1['game_id']}/correction", json={"result": right, "reason": "entered reversed"})
        assert r.status_code == 200, r.text
        assert (r.json()["event"], r.json()["previous"], r.json()["result"], r.json()["round"]) == (
            "ResultCorrected", wrong, right, 1)
        r = await c.post(f"/games/{b1['game_id']}/correction", json={"result": right, "reason": "again"})
        assert r.status_code == 409 and "already has the result" in r.json()["detail"]
        r = await c.post(f"/games/{b1['game_id']}/correction", json={"result": "0-0", "reason": "both absent"})
        assert r.status_code == 200 and r.json()["result"] == "--", r.text  # 0-0 as /result takes it
        r = await c.post(f"/games/{b1['game_id']}/correction", json={"result": right, "reason": "they were there"})
        assert r.status_code == 200 and r.json()["previous"] == "--", r.text
        st = await _standings_where(c, tid, lambda s: _scores(s)["p1"] == 1.0)
        assert _scores(st)[opp] == 0.0 and st["round"] == 1
        g = (await c.get(f"/games/{b1['game_id']}")).json()
        assert g["result"] == right and g["corrections"][0]["reason"] == "entered reversed"
        # a forfeit code: the crosstable shows + / -
        r = await c.post(f"/games/{b1['game_id']}/correction",
                         json={"result": "+-" if b1["white"] == "p1" else "-+", "reason": "opponent absent"})
        assert r.status_code == 200, r.text
        for _ in range(50):
            cells = {row["player_id"]: row["cells"][0]
                     for row in (await c.get(f"/tournaments/{tid}/crosstable")).json()["rows"]}
            if cells["p1"] == "+":
                break
            await asyncio.sleep(0.05)
        assert cells["p1"] == "+" and cells[opp] == "-"
        # the TRF export writes the corrected result (the game's own stream keeps the first)
        t = await _exported(c, tid)
        no = {x.name: x for x in t.players}
        assert no["P1"].rounds[0].result == "+" and no[opp.upper()].rounds[0].result == "-"


async def test_a_knockout_result_is_corrected_only_before_the_next_round():
    """Four-player knockout (p1-p4, p2-p3): p4 entered as winner of round 1, corrected to p1
    before round 2: the final is p1-p2. Once the final is paired, round 1 is closed (409)."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "kc"
        assert (await _create(c, tid, system="knockout")).status_code == 200
        await _players(c, tid, 4)
        assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})).status_code == 200
        rd = await paired_round(c, tid, 1)
        g14 = next(b for b in rd["boards"] if {b["white"], b["black"]} == {"p1", "p4"})
        g23 = next(b for b in rd["boards"] if b is not g14)
        p4_wins = "1-0" if g14["white"] == "p4" else "0-1"
        await _result(c, g14["game_id"], p4_wins)
        await _result(c, g23["game_id"], "1-0" if g23["white"] == "p2" else "0-1")
        r = await c.post(f"/games/{g14['game_id']}/correction",
                         json={"result": "0-1" if p4_wins == "1-0" else "1-0", "reason": "typo"})
        assert r.status_code == 200, r.text
        r = await c.post(f"/tournaments/{tid}/rounds", json={"round": 2})
        assert r.status_code == 200, r.text
        assert {r.json()["boards"][0]["white"], r.json()["boards"][0]["black"]} == {"p1", "p2"}
        r = await c.post(f"/games/{g23['game_id']}/correction", json={"result": "1/2-1/2", "reason": "late"})
        assert r.status_code == 409 and "round 2 is already paired" in r.json()["detail"]


async def _play_rr(c, tid: str, rnd: int, results: dict[frozenset, str]) -> dict:
    """Pair round ``rnd`` by the system; ``results``: {players} -> result from the first-named
    (sorted) player's side ("1-0" = the lower id wins)."""
    r = await c.post(f"/tournaments/{tid}/rounds", json={"round": rnd})
    assert r.status_code == 200, r.text
    rd = await paired_round(c, tid, rnd)
    for b in rd["boards"]:
        res = results[frozenset((b["white"], b["black"]))]
        if b["white"] > b["black"] and res != "1/2-1/2":
            res = "0-1" if res == "1-0" else "1-0"
        await _result(c, b["game_id"], res)
    return rd


async def test_round_robin_withdrawal_art_20_3_results_stand_or_are_annulled():
    """Four players, Berger table (appendix 1): r1 1-4 2-3, r2 4-3 1-2, r3 2-4 3-1.

    Event A: p4 withdraws from round 3 having met p1 and p3 (2 of 3 opponents: half or more,
    art. 20.3): his results stand and round 3's 2-4 is not played, a forfeit win for p2.
    Results (lower id first): r1 p1-p4 1-0, p2-p3 ½; r2 p3-p4 0-1 (p4 wins), p1-p2 ½; r3 p1-p3
    1-0. Scores: p1 1+½+1 = 2.5, p2 ½+½+1 (forfeit) = 2, p3 ½+0+0 = 0.5, p4 0+1+0 = 1.

    Event B: p4 withdraws from round 2 having met only p1 (1 of 3: under half): his results are
    annulled. r1 p1-p4 1-0 (annulled), p2-p3 ½; r2 p1-p2 1-0; r3 p1-p3 ½. Scores: p1 1+½ = 1.5,
    p2 ½+0 = 0.5, p3 ½+½ = 1; p4 is not ranked."""
    async with arbiter_client("memory", ticks=False) as c:
        P = lambda a, b: frozenset((a, b))  # noqa: E731
        assert (await _create(c, "rra", system="round-robin")).status_code == 200
        await _players(c, "rra", 4)
        await _play_rr(c, "rra", 1, {P("p1", "p4"): "1-0", P("p2", "p3"): "1/2-1/2"})
        r = await c.post("/tournaments/rra/withdrawals", json={"player_id": "p4", "from_round": 1})
        assert r.status_code == 409 and "already paired" in r.json()["detail"]
        await _play_rr(c, "rra", 2, {P("p3", "p4"): "0-1", P("p1", "p2"): "1/2-1/2"})
        r = await c.post("/tournaments/rra/withdrawals", json={"player_id": "p4", "from_round": 3, "reason": "ill"})
        assert r.status_code == 200 and r.json()["event"] == "PlayerWithdrawn", r.text
        rd = await _play_rr(c, "rra", 3, {P("p1", "p3"): "1-0"})
        assert [{b["white"], b["black"]} for b in rd["boards"]] == [{"p1", "p3"}]
        assert rd["withdrawn_boards"] == [{"white": "p2", "black": "p4"}]
        st = await standings_after(c, "rra", 3)
        assert _scores(st) == {"p1": 2.5, "p2": 2.0, "p3": 0.5, "p4": 1.0}
        cells = {row["player_id"]: row["cells"] for row in (await c.get("/tournaments/rra/crosstable")).json()["rows"]}
        assert cells["p2"][2] == "+" and cells["p4"][2] == "-"
        ev = (await c.get("/tournaments/rra/events", params={"follow": "false"})).json()
        assert [e["type"] for e in ev].count("TournamentFinished") == 1

        assert (await _create(c, "rrb", system="round-robin")).status_code == 200
        await _players(c, "rrb", 4)
        await _play_rr(c, "rrb", 1, {P("p1", "p4"): "1-0", P("p2", "p3"): "1/2-1/2"})
        r = await c.post("/tournaments/rrb/withdrawals", json={"player_id": "p4", "from_round": 2})
        assert r.status_code == 200, r.text
        await _play_rr(c, "rrb", 2, {P("p1", "p2"): "1-0"})
        await _play_rr(c, "rrb", 3, {P("p1", "p3"): "1/2-1/2"})
        st = await standings_after(c, "rrb", 3)
        assert _scores(st) == {"p1": 1.5, "p2": 0.5, "p3": 1.0}


async def test_swiss_requested_bye_withdrawal_and_late_entry():
    """Dutch, 3 rounds, p1..p4 (ratings 2400..2370). Round 1 paired by the system with p4's
    requested H bye: p1..p3 are paired (one board and the pairing bye), p4 scores ½. Then p5
    (2500) enters late: his missed round 1 is a zero-point bye Z (the event's default rule,
    TRF 0000 - Z); p3 withdraws from round 2 (art. 20.4: his result stands, he is not paired).
    Round 2 pairs exactly p1, p2, p4, p5 on two boards."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "swl"
        assert (await _create(c, tid, system="swiss", rounds=3)).status_code == 200
        await _players(c, tid, 4)
        r = await c.post(f"/tournaments/{tid}/rounds", json={"round": 1, "requested_byes": {"p4": "H"}})
        assert r.status_code == 200, r.text
        rd = await paired_round(c, tid, 1)
        on_boards = {x for b in rd["boards"] for x in (b["white"], b["black"])}
        assert len(rd["boards"]) == 1 and on_boards | {rd["bye"]} == {"p1", "p2", "p3"}
        assert rd["requested_byes"] == {"p4": "H"}
        for b in rd["boards"]:
            await _result(c, b["game_id"], "1/2-1/2")
        r = await c.post(f"/tournaments/{tid}/players", json={"player_id": "p5", "name": "P5", "rating": 2500})
        assert r.status_code == 200 and (r.json()["from_round"], r.json()["missed"]) == (2, "Z"), r.text
        r = await c.post(f"/tournaments/{tid}/withdrawals", json={"player_id": "p3", "from_round": 2})
        assert r.status_code == 200, r.text
        st = await standings_after(c, tid, 1)
        assert _scores(st)["p4"] == 0.5
        r = await c.post(f"/tournaments/{tid}/rounds", json={"round": 2})
        assert r.status_code == 200, r.text
        rd2 = await paired_round(c, tid, 2)
        assert {x for b in rd2["boards"] for x in (b["white"], b["black"])} == {"p1", "p2", "p4", "p5"}
        assert rd2["bye"] is None
        for b in rd2["boards"]:
            await _result(c, b["game_id"], "1/2-1/2")
        st = await standings_after(c, tid, 2)
        assert _scores(st)["p5"] == 0.5 and _scores(st)["p4"] == 1.0  # Z + ½; H ½ + ½
        cells = {row["player_id"]: row["cells"] for row in (await c.get(f"/tournaments/{tid}/crosstable")).json()["rows"]}
        assert cells["p5"][0] == "Z" and cells["p4"][0] == "H" and cells["p3"][1] == ""
        t = await _exported(c, tid)  # the TRF export: late entry's Z, requested H, points
        rows = {x.name: x for x in t.players}
        assert rows["P5"].rounds[0].result == "Z" and rows["P4"].rounds[0].result == "H"
        assert (rows["P5"].points, rows["P4"].points) == (0.5, 1.0)
        # refused: a round robin's late entry, a second withdrawal, a bye for a withdrawn player
        r = await c.post(f"/tournaments/{tid}/withdrawals", json={"player_id": "p3", "from_round": 3})
        assert r.status_code == 409 and "already withdrawn" in r.json()["detail"]
        r = await c.post(f"/tournaments/{tid}/rounds", json={"round": 3, "requested_byes": {"p3": "H"}})
        assert r.status_code == 409 and "withdrawn" in r.json()["detail"]
        assert (await _create(c, "rr", system="round-robin")).status_code == 200
        await _players(c, "rr", 2)
        assert (await c.post("/tournaments/rr/rounds", json={"round": 1})).status_code == 200
        r = await c.post("/tournaments/rr/players", json={"player_id": "late", "name": "Late"})
        assert r.status_code == 409 and "registration is closed" in r.json()["detail"]


async def test_the_arbiter_finishes_an_event_that_cannot_go_on():
    """Swiss, 4 players, 5 rounds: after round 1 all four withdraw, so no later round can be
    paired; the arbiter ends the event (FinishTournament): refused while round 1 is running,
    then TournamentFinished after round 1 with the reason; a later round and a second finish
    are refused. The round played stands (standings after round 1 unchanged)."""
    async with arbiter_client("memory", ticks=False) as c:
        tid = "fin"
        assert (await _create(c, tid, system="swiss", rounds=5)).status_code == 200
        await _players(c, tid, 4)
        assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": 1})).status_code == 200
        rd = await paired_round(c, tid, 1)
        r = await c.post(f"/tournaments/{tid}/finish", json={"reason": "hall closed"})
        assert r.status_code == 409 and "running" in r.json()["detail"], r.text
        for b in rd["boards"]:
            await _result(c, b["game_id"], "1-0")
        for i in range(4):
            r = await c.post(f"/tournaments/{tid}/withdrawals", json={"player_id": f"p{i + 1}", "from_round": 2})
            assert r.status_code == 200, r.text
        st = await standings_after(c, tid, 1)
        r = await c.post(f"/tournaments/{tid}/finish", json={"reason": "every player withdrew"})
        assert r.status_code == 200, r.text
        assert (r.json()["event"], r.json()["rounds"]) == ("TournamentFinished", 1)
        assert r.json()["decisions"] == ["ended by the arbiter after round 1: every player withdrew"]
        r = await c.post(f"/tournaments/{tid}/rounds", json={"round": 2})
        assert r.status_code == 409 and "is finished" in r.json()["detail"]
        r = await c.post(f"/tournaments/{tid}/finish", json={"reason": "again"})
        assert r.status_code == 409 and "is finished" in r.json()["detail"]
        assert sorted(_scores(await standings_after(c, tid, 1)).values()) == sorted(_scores(st).values()) == [0, 0, 1, 1]


async def test_a_tie_break_order_that_repeats_a_code_is_refused_at_creation():
    """Standings refuse an order that repeats a code (each tie-break breaks the ties the ones
    before it left); accepted at creation, the event would finish without ever publishing
    standings (found by a probe: round robin with ["SB", "SB"])."""
    async with arbiter_client("memory", ticks=False) as c:
        r = await _create(c, "rep", system="round-robin", tiebreaks=["SB", "WIN", "SB"])
        assert r.status_code == 409 and r.json()["code"] == "invalid", r.text
        assert "repeats ['SB']" in r.json()["detail"]
        assert (await c.get("/tournaments/rep")).status_code == 404
        assert (await _create(c, "rep", system="round-robin", tiebreaks=["SB", "WIN"])).status_code == 200


async def test_a_pairing_by_hand_carries_its_reason_into_the_round():
    """StartRound's optional ``reason`` (why the organiser paired by hand) is recorded in
    RoundPaired and shown with the round in ``GET /tournaments/{tid}``; a pairing by the
    system without one records "" (the field's default, as in rounds paired before it)."""
    from contracts.messages import TOPICS
    from shared.eventlog.base import applied_once

    async with arbiter_client("memory", ticks=False) as c:
        tid = "why"
        assert (await _create(c, tid, system="swiss", rounds=2)).status_code == 200
        await _players(c, tid, 4)
        why = "p1 and p2 share a car and must finish early"
        r = await c.post(f"/tournaments/{tid}/rounds", json={
            "round": 1, "boards": [{"white": "p1", "black": "p2"}, {"white": "p3", "black": "p4"}], "reason": why})
        assert r.status_code == 200, r.text
        rd = await paired_round(c, tid, 1)
        assert (rd["manual"], rd["reason"]) == (True, why)
        r = await c.post(f"/tournaments/{tid}/rounds", json={"round": 1, "reason": "x" * 501,
                                                             "boards": [{"white": "p1", "black": "p3"}]})
        assert (r.status_code, r.json()["code"]) == (422, "malformed")  # over 500 characters
        for b in rd["boards"]:
            await _result(c, b["game_id"], "1/2-1/2")
        await standings_after(c, tid, 1)
        assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": 2})).status_code == 200
        rd2 = await paired_round(c, tid, 2)
        assert (rd2["manual"], rd2["reason"]) == (False, "")
        paired = [m.payload for m in applied_once(await c.arbiter_log.read_many(TOPICS)) if m.type == "RoundPaired"]
    assert [(p.round, p.manual, p.reason) for p in paired] == [(1, True, why), (2, False, "")]
