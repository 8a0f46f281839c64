"""Every xiangqi record in ../shared/data through the services' cores, and a 2001 session hosted.

The records are over-the-board games: 棋例 rulings are made on request only (nobody asked in these
games), so every recorded move must be accepted. No game ends on the board by mate or stalemate
(PROVENANCE's results are all agreements, resignations or arbiters' decisions); two recorded draws
are reached by asking for the ruling on their final, three-times repeated position (art. 24.2).
"""
from __future__ import annotations

import pytest

from services.tools.embedded import arbiter_client
from services.tools.host import host_record
from services.tools.replay import replay_files

GAMES = "data/xiangqi/games"
FILES = {  # file -> games
    "2001-xiangqi-ranking-tournament-stage1-part-a.txt": 16,
    "2001-xiangqi-ranking-tournament-stage1-part-b-and-stage2-am.txt": 41,
    "2001-xiangqi-ranking-tournament-stage2-pm.txt": 27,
    "online-game-2017-03-20-huashan.pgn": 1,
}


@pytest.mark.realdata
def test_every_xiangqi_record_replays_with_all_moves_accepted(shared_data):
    rows = replay_files([shared_data(f"{GAMES}/{name}") for name in FILES])
    assert len(rows) == sum(FILES.values()) == 85
    assert sum(r["moves"] for r in rows) == sum(r["accepted"] for r in rows) == 8251
    assert [r for r in rows if r["first_rejected"]] == []
    decided = [(r["file"].rsplit("/", 1)[1], r["index"], r["result"], r["reason"], r["rule"]["article"])
               for r in rows if r["result"] != "*"]
    assert decided == [
        ("2001-xiangqi-ranking-tournament-stage1-part-b-and-stage2-am.txt", 21, "1/2-1/2", "repetition", "24.2, 26.2"),
        ("2001-xiangqi-ranking-tournament-stage2-pm.txt", 0, "1/2-1/2", "repetition", "24.2, 26.2"),
    ]
    assert all(r["recorded_result"] == r["result"] for r in rows if r["result"] != "*")
    assert all(r["rule"]["game"] == "xiangqi" for r in rows if r["rule"])


@pytest.mark.realdata
async def test_run_tournament_hosts_a_2001_session(shared_data):
    """Stage 1 of the 2001 ranking tournament, morning session: 32 players, 16 games, hosted
    through the gateway and the services with the recorded pairings; every move accepted and
    the results and scores those of the record."""
    path = shared_data(f"{GAMES}/2001-xiangqi-ranking-tournament-stage1-part-a.txt")
    async with arbiter_client("memory", ticks=False) as c:
        report = await host_record(c, str(path), tournament_id="xq2001-s1a")
    assert report.pairing_system == "recorded" and report.problems == []
    assert report.pairings_match_record and report.results_match_record and report.scores_match_record
    assert len(report.games) == 16 and len(report.players) == 32
    assert sum(g["accepted"] for g in report.games) == sum(g["moves"] for g in report.games)
    top = {p["name"]: p["score"] for p in report.players if p["score"] == 1.0}
    assert len(top) == 4 + 7  # the record's 4 red wins and 7 black wins
    assert top.keys() >= {"辽宁卜凤波", "吉林洪智", "上海胡荣华"}
