"""Round robins through the gateway: a rest (odd Berger table) and an annulled withdrawal
(xiangqi 1999 art. 20.3) are counted alike by the standings, the crosstable and the TRF export."""
from __future__ import annotations

from services.tools.embedded import arbiter_client
from tests.integration.tournament_steps import paired_round, standings_after


async def _export(c, tid: str):
    from contracts.messages import TOPICS
    from shared.domain.trf import parse_trf
    from services.tools.logio import select
    from shared.domain.trfexport import export_trf
    text = export_trf(select(await c.arbiter_log.read_many(TOPICS), f"tournament-{tid}"), tid)
    return text, {p.name: p for p in parse_trf(text).players}


async def _play_white_wins(c, tid: str, rnd: int) -> dict:
    assert (await c.post(f"/tournaments/{tid}/rounds", json={"round": rnd})).status_code == 200
    rd = await paired_round(c, tid, rnd)
    for b in rd["boards"]:
        assert (await c.post(f"/games/{b['game_id']}/result", json={"result": "1-0"})).status_code == 200
    return rd


async def _setup(c, tid: str, n: int, **kw) -> None:
    r = await c.post("/tournaments", json={"tournament_id": tid, "name": tid, "system": "round-robin", **kw})
    assert r.status_code == 200, r.text
    for i in range(1, n + 1):
        r = await c.post(f"/tournaments/{tid}/players",
                         json={"player_id": f"p{i}", "name": f"P{i}", "rating": 2400 - 10 * i})
        assert r.status_code == 200, r.text


def _rows(st: dict) -> list[tuple]:
    return [(r["rank"], r["player_id"], r["score"], r["tiebreaks"]) for r in st["rows"]]


async def test_an_odd_round_robin_cycle_shares_first_place_and_exports_rests_as_zero():
    """Berger table for 3 (appendix 1): r1 p2-p3 (p1 rests), r2 p1-p2 (p3 rests), r3 p3-p1
    (p2 rests); white wins every game: p2 beats p3, p1 beats p2, p3 beats p1.
    Scores 1 each; the rests count nothing: SB = 1 x (the beaten player's 1) = 1 each, WIN 1,
    DE 1 each (every pair met, 1 point each in the group) -> all rank 1.
    TRF: each rest ``0000 - Z`` (0 points), so the points column is 1.0 = the standings."""
    for game in ("chess", "go"):
        tid = f"odd-{game}"
        async with arbiter_client("memory", ticks=False) as c:
            await _setup(c, tid, 3, game=game)
            rests = []
            for rnd in (1, 2, 3):
                rd = await _play_white_wins(c, tid, rnd)
                rests.append(rd["bye"])
                assert [(b["white"], b["black"]) for b in rd["boards"]] == [[
                    ("p2", "p3"), ("p1", "p2"), ("p3", "p1")][rnd - 1]]
            assert rests == ["p1", "p3", "p2"]
            st = await standings_after(c, tid, 3)
            one = {"SB": 1.0, "WIN": 1.0, "DE": 1.0}
            assert _rows(st) == [(1, "p1", 1.0, one), (1, "p2", 1.0, one), (1, "p3", 1.0, one)]
            text, trf = await _export(c, tid)
            assert "0000 - U" not in text
            assert {n: (p.points, p.rank) for n, p in trf.items()} == {
                "P1": (1.0, 1), "P2": (1.0, 1), "P3": (1.0, 1)}
            assert [(e.opponent, e.result) for e in trf["P1"].rounds] == [(None, "Z"), (2, "1"), (3, "0")]


async def test_an_annulled_round_robin_withdrawal_counts_nowhere():
    """Four players, Berger: r1 p1-p4 p2-p3, r2 p1-p2 p3-p4, r3 p3-p1 p2-p4; white wins.
    p4 withdraws from round 2 having met only p1 (1 of 3 opponents, under half: art. 20.3
    annuls his results). Counted: p1 beats p2, p2 beats p3, p3 beats p1 -> 1 point each; the
    annulled round is no round of theirs, so SB = 1, WIN 1, DE 1 each -> all rank 1, p4 not
    ranked. Crosstable: the annulled game and the two unplayed boards against p4 are
    ``annulled`` (not ``+``). TRF: those cells ``0000 - Z``, points 1.0 / 1.0 / 1.0 / 0."""
    async with arbiter_client("memory", ticks=False) as c:
        await _setup(c, "ann", 4)
        await _play_white_wins(c, "ann", 1)
        r = await c.post("/tournaments/ann/withdrawals", json={"player_id": "p4", "from_round": 2})
        assert r.status_code == 200, r.text
        await _play_white_wins(c, "ann", 2)
        await _play_white_wins(c, "ann", 3)
        st = await standings_after(c, "ann", 3)
        one = {"SB": 1.0, "WIN": 1.0, "DE": 1.0}
        assert _rows(st) == [(1, "p1", 1.0, one), (1, "p2", 1.0, one), (1, "p3", 1.0, one)]
        xt = {r["player_id"]: r["cells"] for r in (await c.get("/tournaments/ann/crosstable")).json()["rows"]}
        assert xt == {"p1": ["annulled", "2w1", "3b0"], "p2": ["3w1", "1b0", "annulled"],
                      "p3": ["2b0", "annulled", "1w1"], "p4": ["annulled"] * 3}
        text, trf = await _export(c, "ann")
        assert " + " not in text
        assert {n: (p.points, p.rank) for n, p in trf.items()} == {
            "P1": (1.0, 1), "P2": (1.0, 1), "P3": (1.0, 1), "P4": (0.0, None)}
        assert [(e.opponent, e.result) for e in trf["P4"].rounds] == [(None, "Z")] * 3


async def test_a_round_robin_withdrawal_whose_results_stand_exports_forfeits():
    """Four players, Berger: r1 p1-p4 p2-p3, r2 p4-p3 p1-p2, r3 p3-p1 p2-p4 (white first);
    p4 withdraws from round 3 having met p1 and p3 (2 of 3, half or more: his results stand,
    20.3). White wins: r1 p1 beats p4, p2 beats p3; r2 p4 beats p3, p1 beats p2; r3 p3 beats
    p1, p2-p4 unplayed -> forfeit win for p2 (``+``, 21.4).
    Scores: p1 1+1+0 = 2, p2 1+0+1 (forfeit) = 2, p3 0+0+1 = 1, p4 0+1+0 = 1 (sum 6 = 6
    games). TRF: p2 ``4 w +``, p4 ``2 b -``, the points column equal to the standings'."""
    async with arbiter_client("memory", ticks=False) as c:
        await _setup(c, "std", 4)
        await _play_white_wins(c, "std", 1)
        await _play_white_wins(c, "std", 2)
        r = await c.post("/tournaments/std/withdrawals", json={"player_id": "p4", "from_round": 3})
        assert r.status_code == 200, r.text
        rd = await _play_white_wins(c, "std", 3)
        assert rd["withdrawn_boards"] == [{"white": "p2", "black": "p4"}]
        st = await standings_after(c, "std", 3)
        scores = {r["player_id"]: r["score"] for r in st["rows"]}
        assert scores == {"p1": 2.0, "p2": 2.0, "p3": 1.0, "p4": 1.0}
        text, trf = await _export(c, "std")
        assert {n: p.points for n, p in trf.items()} == {"P1": 2.0, "P2": 2.0, "P3": 1.0, "P4": 1.0}
        assert (trf["P2"].rounds[2].opponent, trf["P2"].rounds[2].colour, trf["P2"].rounds[2].result) == (4, "w", "+")
        assert (trf["P4"].rounds[2].opponent, trf["P4"].rounds[2].colour, trf["P4"].rounds[2].result) == (2, "b", "-")
