"""Events hosted by the CLI (``arbiter demo``, ``arbiter run-tournament``) take their game's
tie-break order unless the user gives one: a xiangqi round robin ranks by art. 15.1 of the 1999
competition rules — 小分 SB, 胜局 WIN, 直胜 DE, 犯规 FOULS — where the chess default stops at
SB, WIN, DE."""
from __future__ import annotations

import pytest

from services.tools.demo import run_demo
from services.tools.embedded import arbiter_client
from services.tools.host import host_record

XIANGQI_15_1 = ["SB", "WIN", "DE", "FOULS"]


async def test_a_xiangqi_demo_ranks_by_art_15_1_and_a_chess_demo_by_sb_win_de():
    xq = await run_demo("memory", players=2, seed=1, game="xiangqi")
    assert xq["standings"]["order"] == XIANGQI_15_1
    assert all(set(r["tiebreaks"]) == set(XIANGQI_15_1) for r in xq["standings"]["rows"])


async def _created_tiebreaks(c, tid: str) -> list[str]:
    ev = (await c.get(f"/tournaments/{tid}/events", params={"follow": "false"})).json()
    return [e["payload"]["tiebreaks"] for e in ev if e["type"] == "TournamentCreated"][0]


@pytest.mark.realdata
async def test_run_tournament_hosts_a_xiangqi_record_with_its_games_tiebreaks(shared_data):
    """The 2017 online game (2 players, 1 game, hosted with its recorded pairing as a Swiss
    event): without --tiebreaks the event gets art. 15.2's order (对手分 BH, 胜局 WIN, 犯规
    FOULS); with the user's order it keeps that one."""
    path = shared_data("data/xiangqi/games/online-game-2017-03-20-huashan.pgn")
    async with arbiter_client("memory", ticks=False) as c:
        await host_record(c, str(path), tournament_id="xq-default")
        assert await _created_tiebreaks(c, "xq-default") == ["BH", "WIN", "FOULS"]
        await host_record(c, str(path), tournament_id="xq-given", tiebreaks=("WIN", "SB"))
        assert await _created_tiebreaks(c, "xq-given") == ["WIN", "SB"]
