"""Load test of the move path: many concurrent games through validation, clock and adjudication.

Commands are published on the log as the gateway would (one command stream per game, gap-free
seq, receive-time stamps), N games at once, each player answering as soon as the previous move
is accepted. Measures accepted moves per second and the latency from a command's publication
to its ClockUpdated (the clock service's reading), and writes them to ``.bench/loadtest.json``.

    python -m loadtests.load --bus memory --games 1000 --plies 40
    python -m loadtests.load --bus kafka://127.0.0.1:19092 --games 1000 --plies 40
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
import uuid
from pathlib import Path

import chess

from contracts.envelope import Actor, dt_of
from contracts.messages import GAME_EVENTS, ClockUpdated, CreateGame, SubmitMove, envelope
from shared.eventlog.base import open_log
from shared.system import System


async def run(bus: str, games: int, plies: int, seed: int, timeout: float) -> dict:
    log = open_log(bus)
    system = System(log, ["validation", "clock", "adjudication"], ticks=True)
    run_id = uuid.uuid4().hex[:6]
    sent: dict[tuple[str, int], float] = {}
    latencies: list[float] = []
    next_move: dict[str, asyncio.Event] = {}
    seqs: dict[str, int] = {}

    async def on_event(topic, msg):
        p = msg.payload
        if isinstance(p, ClockUpdated) and p.game_id.startswith(run_id):
            t = sent.pop((p.game_id, p.ply), None)
            if t is not None:
                latencies.append(time.perf_counter() - t)
            ev = next_move.get(p.game_id)
            if ev:
                ev.set()

    log.subscribe([GAME_EVENTS], f"loadtest-{run_id}", on_event, commit="periodic")
    await system.recover()
    await log.start()
    await system.start_timers()

    async def publish(payload, gid):
        stream = f"game-{gid}.commands"
        seqs[stream] = seqs.get(stream, 0) + 1
        await log.publish(payload.TOPIC, envelope(payload, stream=stream, seq=seqs[stream],
                                                  occurred_at=dt_of(time.time_ns() // 1_000_000),
                                                  actor=Actor(kind="player", id="load")))

    async def game(i: int) -> int:
        rng = random.Random(seed * 100_003 + i)
        gid = f"{run_id}-{i}"
        next_move[gid] = asyncio.Event()
        await publish(CreateGame(game_id=gid, white="w", black="b", time_control="3600+10"), gid)
        board = chess.Board()
        made = 0
        for ply in range(1, plies + 1):
            moves = list(board.legal_moves)
            if not moves:
                break
            mv = rng.choice(moves)
            board.push(mv)
            next_move[gid].clear()
            sent[(gid, ply)] = time.perf_counter()
            await publish(SubmitMove(game_id=gid, player_id="w" if ply % 2 else "b", move=mv.uci()), gid)
            try:
                await asyncio.wait_for(next_move[gid].wait(), timeout)
            except asyncio.TimeoutError:
                break
            made += 1
            if board.is_game_over():
                break
        return made

    t0 = time.perf_counter()
    made = await asyncio.gather(*(game(i) for i in range(games)))
    elapsed = time.perf_counter() - t0
    await system.stop()
    await log.stop()
    lat = sorted(latencies)
    pct = (lambda q: round(lat[min(len(lat) - 1, int(q * len(lat)))] * 1000, 2)) if lat else (lambda q: None)
    return {"bus": bus, "games": games, "plies_per_game": plies, "moves": sum(made),
            "seconds": round(elapsed, 2), "moves_per_second": round(sum(made) / elapsed, 1),
            "latency_ms": {"p50": pct(0.5), "p95": pct(0.95), "p99": pct(0.99),
                           "mean": round(statistics.mean(lat) * 1000, 2) if lat else None},
            "services": ["validation", "clock", "adjudication"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bus", default="memory")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--plies", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30.0, help="seconds to wait for one move")
    ap.add_argument("--out", default=".bench/loadtest.json")
    a = ap.parse_args()
    res = asyncio.run(run(a.bus, a.games, a.plies, a.seed, a.timeout))
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    old = json.loads(out.read_text()) if out.exists() else {}
    old[a.bus.split(":")[0]] = res
    out.write_text(json.dumps(old, indent=2) + "\n")
    print(json.dumps(res, indent=2))


if __name__ == "__main__":
    main()
