"""Hosting real round robins through the gateway and the services (memory bus and Kafka)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from services.tools.embedded import arbiter_client
from services.tools.host import host_record
from shared.rules.pgnrecord import read_games, read_round_robin

CHEB = "data/chess/pgn/chebanenko-memorial-2020-round-robin-10-players.pgn"
UZ = "data/chess/pgn/uzchess-cup-masters-2025-headers-only.pgn"
UZ_EXPECTED = "data/chess/pgn/uzchess-cup-masters-2025.expected-tiebreaks.txt"


def _check_against_record(report, path):
    rec = read_round_robin(path)
    assert report.pairings_match_record and report.results_match_record and report.scores_match_record, report.problems
    assert report.problems == []
    recorded = {(r, g.white, g.black): g.result for r, gs in rec.rounds.items() for g in gs}
    hosted = {(g["round"], g["white"], g["black"]): g["result"] for g in report.games}
    assert hosted == recorded
    return rec


@pytest.mark.realdata
async def test_chebanenko_memorial_on_memory_bus(shared_data):
    path = shared_data(CHEB)
    async with arbiter_client("memory", ticks=False) as c:
        report = await host_record(c, str(path), pairings="berger")
    _check_against_record(report, path)
    assert report.pairing_system == "berger"
    assert len(report.games) == 45
    # every recorded move went through validation: 4246 moves in the record
    assert sum(g["accepted"] for g in report.games) == sum(g["moves"] for g in report.games) == 4246
    top = [(p["name"], p["score"], p["rank"]) for p in report.players[:3]]
    assert top[0] == ("Macovei,Andrei", 6.0, 1)
    assert {t[0] for t in top[1:]} == {"Iordachescu,V", "Nevednichy,V"} and all(t[1] == 5.5 for t in top[1:])
    # the decisive game decided on the board: one checkmate, the rest resignations/agreements
    reasons = {g["reason"] for g in report.games}
    assert {"checkmate", "resignation", "agreement"} <= reasons
    # crosstable: draw numbers from round 1 (Volkov white on board 1 = number 1)
    rows = {r["name"]: r for r in report.crosstable["rows"]}
    assert rows["Volkov,Sergey1"]["number"] == 1 and rows["Volkov,Sergey1"]["cells"][0] == "10w1"


@pytest.mark.realdata
async def test_odd_round_robin_with_byes(shared_data, tmp_path):
    """Chebanenko without the player of draw number 10 is the 9-player Berger table: one bye a
    round. Built from the real file in a temp dir (never copied into the repo)."""
    src = shared_data(CHEB).read_text()
    games = [g for g in re.split(r"\n(?=\[Event )", src) if "Smirin,I" not in g]
    pgn = tmp_path / "nine.pgn"
    pgn.write_text("\n".join(games))
    async with arbiter_client("memory", ticks=False) as c:
        report = await host_record(c, str(pgn), pairings="berger")
    rec = _check_against_record(report, pgn)
    assert len(rec.players) == 9 and len(report.games) == 36
    byes = [row["cells"].count("bye") for row in report.crosstable["rows"]]
    assert byes == [1] * 9


@pytest.mark.realdata
def test_uzchess_results_only_cli_and_expected_tiebreaks(shared_data, tmp_path):
    path = shared_data(UZ)
    out = tmp_path / "uz.json"
    r = subprocess.run([sys.executable, "-m", "services.cli", "run-tournament", "--pgn", str(path),
                        "--tiebreaks", "DE,SB,WIN,BWG,KS", "--json", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads(out.read_text())
    assert data["pairings_match_record"] is True
    assert all(g["reason"] == "recorded result" for g in data["games"]) and len(data["games"]) == 45
    # expected values (scalachess snapshot): fideId, rating, points, DE, SB, wins, black wins, Koya
    expected = {}
    for line in shared_data(UZ_EXPECTED).read_text().splitlines():
        m = re.search(r"Player\((\d+),Some\((\d+)\)\),([\d.]+),List\(([^)]*)\)", line)
        if m:
            vals = [float(x) for x in re.findall(r"[\d.]+", m.group(4))]
            expected[m.group(1)] = (float(m.group(3)), vals)
    assert len(expected) == 10
    fide = {}
    for g in read_games(path):
        fide[g.white], fide[g.black] = g.tags["WhiteFideId"], g.tags["BlackFideId"]
    for p in data["players"]:
        score, (_de, sb, wins, black_wins, koya) = expected[fide[p["name"]]]
        assert p["score"] == score
        assert (p["tiebreaks"]["SB"], p["tiebreaks"]["WIN"], p["tiebreaks"]["BWG"], p["tiebreaks"]["KS"]) == \
               (sb, wins, black_wins, koya), p["name"]
    assert data["players"][0]["name"] == "Praggnanandhaa R" and data["players"][0]["rank"] == 1


@pytest.mark.kafka
@pytest.mark.realdata
async def test_chebanenko_memorial_through_services_on_kafka(shared_data, kafka_bus):
    """The foundation's acceptance test: the whole event through the services on real Kafka."""
    import uuid
    path = shared_data(CHEB)
    async with arbiter_client(kafka_bus, ticks=False) as c:
        report = await host_record(c, str(path), pairings="berger",
                                   tournament_id=f"cheb-{uuid.uuid4().hex[:8]}")
    _check_against_record(report, path)
    assert [(p["name"], p["score"]) for p in report.players[:1]] == [("Macovei,Andrei", 6.0)]


@pytest.mark.realdata
async def test_recorded_clock_times_drive_the_clock(shared_data, tmp_path):
    """The Chebanenko games re-timed with [%clk] readings of a 15+10 control (think times drawn
    from a seeded generator; the file is written to a temp dir): the platform's clock after each
    move equals the reading plus the increment it credits before move 1 (FIDE 6.3.1)."""
    import random

    import chess.pgn

    rng = random.Random(5)
    out = []
    with open(shared_data(CHEB), encoding="utf-8") as f:
        while (g := chess.pgn.read_game(f)) is not None:
            g.headers["TimeControl"] = "900+10"
            left = {True: 900.0, False: 900.0}
            for node in g.mainline():
                mover = not node.board().turn
                think = min(left[mover] - 1, rng.uniform(1, 25))
                left[mover] = round(left[mover] - think + 10, 1)
                node.set_clock(left[mover])
            out.append(str(g))
    pgn = tmp_path / "timed.pgn"
    pgn.write_text("\n\n".join(out) + "\n")
    async with arbiter_client("memory", ticks=False) as c:
        report = await host_record(c, str(pgn), pairings="berger", tournament_id="timed")
        _check_against_record(report, pgn)
        view = (await c.get("/games/timed-r4-b3")).json()
    rec = read_round_robin(pgn)
    g = next(x for x in rec.rounds[4] if (x.round_board()[1] == 3))
    for ply, mv in enumerate(view["moves"], start=1):
        colour = "white_ms" if ply % 2 else "black_ms"
        assert mv[colour] == g.clocks_ms[ply - 1] + 10_000, ply
