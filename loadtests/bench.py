"""Benchmarks of the pure cores; figures go to ``.bench/bench.json``.

    python -m loadtests.bench            (make bench)

- replay: moves per second through the validation and adjudication cores (a generated game set
  when ../shared/data is absent, else the chess.com file of 823 real games);
- pairing: seconds to pair one Dutch round (round 5 of 9) of generated Swiss events of 100, 300,
  1,000 and 3,000 players with the chosen engine (py4swiss, services.pairing.dutch), our first
  Dutch for 100/300 as a comparison, and Berger tables for 100 players (target: 1,000 in 5 s);
- standings: seconds to compute standings with SB, BH, BH-C1 for 300 players after 5 rounds;
- xiangqi: perft 4 from the start (3 290 240 leaves, bulk-counted) in seconds, the 85 real records
  replayed through the cores (moves per second), and 棋例 classification of every move of the
  2001 records (moves per second).
"""
from __future__ import annotations

import json
import random
import time
from pathlib import Path

from services.pairing.core import SwissPlayer, dutch_pair, round_robin
from services.standings.core import GameResult, Player, compute_standings

ROOT = Path(__file__).resolve().parent.parent


def _swiss_event(n: int, rounds: int, seed: int = 7):
    rng = random.Random(seed)
    players = {f"p{i}": SwissPlayer(id=f"p{i}", pairing_no=i + 1) for i in range(n)}
    games = []
    for rnd in range(1, rounds + 1):
        r = dutch_pair(list(players.values()), rnd)
        new = dict(players)
        for w, b in r.boards:
            res = rng.choice(["1-0", "0-1", "1/2-1/2"])
            pw, pb = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5)}[res]
            games.append(GameResult(round=rnd, white=w, black=b, result=res))
            for pid, opp, col, pts in ((w, b, "w", pw), (b, w, "b", pb)):
                p = new[pid]
                new[pid] = SwissPlayer(id=pid, pairing_no=p.pairing_no, score=p.score + pts,
                                       opponents=p.opponents + (opp,), colours=p.colours + (col,),
                                       had_bye=p.had_bye)
        if r.bye:
            p = new[r.bye]
            new[r.bye] = SwissPlayer(id=p.id, pairing_no=p.pairing_no, score=p.score + 1,
                                     opponents=p.opponents, colours=p.colours + ("-",), had_bye=True)
        players = new
    return players, games


def _fast_history(n: int, rounds: int, seed: int = 7):
    """Histories of ``rounds`` rounds for ``n`` players, paired by a quick score-group fold
    (no rematches, alternating colours) so that large fields are cheap to generate; only the
    timed round is paired by the Dutch engine."""
    from services.pairing.dutch import DutchPlayer
    from services.pairing.trf import RoundEntry

    rng = random.Random(seed)
    hist: dict[int, list] = {i: [] for i in range(1, n + 1)}
    flip = {"1": "0", "0": "1", "=": "="}
    for _ in range(rounds):
        order = sorted(hist, key=lambda i: (-sum(e.points for e in hist[i]), i))
        if len(order) % 2:
            bye = next(i for i in reversed(order) if not any(e.result == "U" for e in hist[i]))
            order.remove(bye)
            hist[bye].append(RoundEntry(None, "-", "U"))
        while order:
            a = order.pop(0)
            met = {e.opponent for e in hist[a]}
            b = next((x for x in order if x not in met), order[0])
            order.remove(b)
            wa = sum(e.colour == "w" for e in hist[a]) - sum(e.colour == "b" for e in hist[a])
            wb = sum(e.colour == "w" for e in hist[b]) - sum(e.colour == "b" for e in hist[b])
            w, bl = (a, b) if wa <= wb else (b, a)
            res = rng.choice("10=")
            hist[w].append(RoundEntry(bl, "w", res))
            hist[bl].append(RoundEntry(w, "b", flip[res]))
    return [DutchPlayer(number=i, history=tuple(h), rating=3000 - i) for i, h in hist.items()]


def bench_pairing(sizes=(100, 300, 1000, 3000), first_dutch_sizes=(100, 300)) -> dict:
    """Round 5 of 9: the chosen engine (py4swiss Dutch via services.pairing.dutch) on every
    size; our first Dutch (core.dutch_pair) on the small ones for comparison."""
    from services.pairing.dutch import ENGINE, pair_dutch

    out: dict = {"dutch_engine": ENGINE}
    for n in sizes:
        players = _fast_history(n, 4)
        t = time.perf_counter()
        pair_dutch(players, 5, 9)
        out[f"dutch_round5_{n}_players_s"] = round(time.perf_counter() - t, 3)
    for n in first_dutch_sizes:
        players, _ = _swiss_event(n, 4)
        t = time.perf_counter()
        dutch_pair(list(players.values()), 5)
        out[f"first_dutch_round5_{n}_players_s"] = round(time.perf_counter() - t, 3)
    t = time.perf_counter()
    round_robin(100, 2)
    out["berger_double_100_players_s"] = round(time.perf_counter() - t, 4)
    return out


def bench_standings(n: int = 300) -> dict:
    _, games = _swiss_event(n, 5)
    players = [Player(id=f"p{i}", name=f"P{i}") for i in range(n)]
    t = time.perf_counter()
    compute_standings(players, games, order=("BH-C1", "BH", "SB", "WIN"))
    return {f"standings_{n}_players_5_rounds_s": round(time.perf_counter() - t, 3)}


def bench_replay() -> dict:
    from services.tools.replay import replay_files
    src = ROOT.parent / "shared" / "data" / "chess" / "pgn" / "chesscom-blitz-3min-823-games-2024.pgn"
    if not src.exists():
        return {"replay": "skipped: ../shared/data absent"}
    t = time.perf_counter()
    rows = replay_files([src])
    s = time.perf_counter() - t
    moves = sum(r["moves"] for r in rows)
    return {"replay_games": len(rows), "replay_moves": moves, "replay_s": round(s, 2),
            "replay_moves_per_s": round(moves / s)}


def bench_xiangqi() -> dict:
    from services.tools.replay import replay_files
    from shared.rules.xiangqi import Board
    from shared.rules.xiangqi_record import read_records
    from shared.rules.xiangqi_repetition import classify_move
    t = time.perf_counter()
    assert Board().perft(4) == 3_290_240
    res = {"xiangqi_perft4_s": round(time.perf_counter() - t, 2)}
    games = sorted((ROOT.parent / "shared" / "data" / "xiangqi" / "games").glob("*"))
    if not games:
        return {**res, "xiangqi_replay": "skipped: ../shared/data absent"}
    t = time.perf_counter()
    rows = replay_files(games)
    s = time.perf_counter() - t
    moves = sum(r["accepted"] for r in rows)
    res.update(xiangqi_replay_games=len(rows), xiangqi_replay_moves=moves,
               xiangqi_replay_moves_per_s=round(moves / s))
    t, n = time.perf_counter(), 0
    for rec in read_records(games[0]):
        b = Board(rec.start_fen)
        for m in rec.moves:
            classify_move(b, m)
            b.push(m)
            n += 1
    res.update(xiangqi_classified_moves=n,
               xiangqi_classify_moves_per_s=round(n / (time.perf_counter() - t)))
    return res


def main() -> None:
    res = {"machine": "see env: 2 cores", **bench_pairing(), **bench_standings(), **bench_replay(),
           **bench_xiangqi()}
    out = ROOT / ".bench" / "bench.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
