"""``arbiter demo``: a self-contained round robin of bot players on real clocks.

Bots play through the gateway's HTTP API only: they read the game, think (a random time drawn
from the seeded generator: mostly quick, sometimes long, so some flags fall), choose a legal move
(mate if they see one, else the best capture, else a check, else a random move), claim a
threefold repetition when they can, and resign a hopeless position now and then. The clocks are
real: the clock service's timer calls the flags. With ``bus="memory"`` all services run in this
process; with ``kafka://HOST:PORT`` they run as separate processes (as ``arbiter up``) and the
bots talk to the gateway over HTTP. ``game="xiangqi"`` hosts the same event in xiangqi (1999
rules: 困毙 loses, 棋例 rulings at every threefold repetition, art. 6 presets as time controls).
"""
from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from contextlib import asynccontextmanager

import chess

from services.tools.embedded import arbiter_client

NAMES = ["Ada", "Boris", "Chen", "Dilnoza", "Emil", "Farida", "Goran", "Hana", "Ivan", "Jiao",
         "Kasim", "Lena", "Milo", "Nodira", "Oleg", "Pia"]
VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def choose(board: chess.Board, rng: random.Random) -> chess.Move:
    """A bot's move: a mate in one, else the most valuable capture, else a check, else random."""
    moves = list(board.legal_moves)
    for m in moves:
        board.push(m)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return m
    caps = [m for m in moves if board.is_capture(m)]
    if caps and rng.random() < 0.85:
        return max(caps, key=lambda m: (VALUES.get(board.piece_type_at(m.to_square) or chess.PAWN, 1), rng.random()))
    checks = [m for m in moves if board.gives_check(m)]
    if checks and rng.random() < 0.5:
        return rng.choice(checks)
    return rng.choice(moves)


XQ_VALUES = {"R": 9, "C": 4.5, "N": 4, "A": 2, "B": 2, "P": 1, "K": 0}


def choose_xiangqi(fen: str, rng: random.Random) -> str:
    """A xiangqi bot's move (ICCS): a mate in one, else the most valuable capture, else a check,
    else random."""
    from shared.rules.xiangqi import Board
    board = Board(fen)
    moves = board.legal_moves()
    for m in moves:
        board.push(m)
        mate = not board.legal_moves()  # mate or 困毙: both win (art. 4.1.1, 4.1.3)
        board.pop()
        if mate:
            return m.iccs()
    caps = [m for m in moves if board.piece_at(m.to_sq)]
    if caps and rng.random() < 0.85:
        return max(caps, key=lambda m: (XQ_VALUES[board.piece_at(m.to_sq).upper()], rng.random())).iccs()
    checks = [m for m in moves if board.gives_check(m)]
    if checks and rng.random() < 0.3:
        return rng.choice(checks).iccs()
    return rng.choice(moves).iccs()


def material(board: chess.Board, colour: bool) -> int:
    return sum(VALUES[p.piece_type] for p in board.piece_map().values() if p.color == colour)


async def bot_game(c, gid: str, white: str, black: str, rng: random.Random) -> dict:
    """Play one game for both bots until it ends; returns the final game view."""
    while True:
        g = (await c.get(f"/games/{gid}")).json()
        if g["status"] == "ended":
            return g
        if g["game"] == "xiangqi":
            me = white if g["fen"].split()[1] == "w" else black
            await asyncio.sleep(rng.uniform(0.005, 0.04) if rng.random() < 0.85 else rng.uniform(0.1, 0.6))
            await c.post(f"/games/{gid}/moves", json={"player_id": me, "move": choose_xiangqi(g["fen"], rng)})
            continue
        board = chess.Board(g["fen"])
        me = white if board.turn == chess.WHITE else black
        r = rng.random()
        think = rng.uniform(0.005, 0.04) if r < 0.85 else rng.uniform(0.1, 0.6)
        await asyncio.sleep(think)
        if board.can_claim_threefold_repetition() and rng.random() < 0.5:
            await c.post(f"/games/{gid}/draw/claim", json={"player_id": me, "reason": "threefold"})
            continue
        if material(board, board.turn) + 12 < material(board, not board.turn) and rng.random() < 0.05:
            await c.post(f"/games/{gid}/resign", json={"player_id": me})
            continue
        mv = choose(board, rng)
        await c.post(f"/games/{gid}/moves", json={"player_id": me, "move": mv.uci()})


@asynccontextmanager
async def _client(bus: str):
    if bus == "memory":
        async with arbiter_client("memory", ticks=True) as c:
            yield c
        return
    if not bus.startswith("kafka://"):
        raise ValueError(f"unknown bus {bus!r}: use 'memory' or 'kafka://HOST:PORT'")
    from services.tools.supervisor import start_all, stop_all, wait_ready
    procs = start_all(bus, 18000)
    try:
        missing = await asyncio.to_thread(wait_ready, procs)
        if missing:
            raise RuntimeError(f"services not ready after 60 s: {', '.join(missing)}; is the Kafka "
                               f"broker at {bus} running? (make kafka-up)")
        async with arbiter_client(gateway=f"http://127.0.0.1:{procs['gateway'][1]}") as c:
            yield c
    finally:
        await asyncio.to_thread(stop_all, procs)


async def run_demo(bus: str = "memory", *, players: int = 6, seed: int = 2026,
                   time_control: str = "4", progress_factory=None, game: str = "chess") -> dict:
    """Host the demo round robin of ``game`` (chess or xiangqi); returns standings, crosstable
    and figures."""
    rng = random.Random(seed)
    t0 = time.perf_counter()
    names = [NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else str(i)) for i in range(players)]
    tid = f"demo-{seed}-{int(time.time())}"
    n_rounds = players - 1 + players % 2
    async with _client(bus) as c:
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "Arbiter demo",
                                                "system": "round-robin", "time_control": time_control,
                                                "tiebreaks": ["SB", "WIN", "DE"], "game": game})
        if r.status_code >= 400:
            raise ValueError(r.json().get("detail"))
        for i, name in enumerate(names):
            await c.post(f"/tournaments/{tid}/players", json={"player_id": name, "name": name,
                                                             "rating": 2000 - 25 * i})
        games_total = n_rounds * (players // 2)
        finals = []
        prog = progress_factory() if progress_factory else None
        task = prog.add_task("demo", total=games_total) if prog else None
        if prog:
            prog.start()
        try:
            for rnd in range(1, n_rounds + 1):
                r = await c.post(f"/tournaments/{tid}/rounds", json={"round": rnd})
                if r.status_code >= 400:
                    raise RuntimeError(r.json().get("detail"))
                boards = []
                for _ in range(200):
                    t = (await c.get(f"/tournaments/{tid}")).json()
                    if len(t["rounds"]) >= rnd and all(b.get("status") not in (None, "created")
                                                       for b in t["rounds"][rnd - 1]["boards"]):
                        boards = t["rounds"][rnd - 1]["boards"]
                        break
                    await asyncio.sleep(0.05)

                async def one(b):
                    g = await bot_game(c, b["game_id"], b["white"], b["black"], random.Random(rng.random()))
                    if prog:
                        prog.advance(task, 1)
                    return g
                finals += await asyncio.gather(*(one(b) for b in boards))
            for _ in range(200):
                st = (await c.get(f"/tournaments/{tid}/standings")).json()
                if st["round"] == n_rounds:
                    break
                await asyncio.sleep(0.05)
            ct = (await c.get(f"/tournaments/{tid}/crosstable")).json()
        finally:
            if prog:
                prog.stop()
    return {"tournament_id": tid, "name": "Arbiter demo", "bus": bus, "standings": st,
            "crosstable": ct, "games": len(finals), "moves": sum(len(g["moves"]) for g in finals),
            "reasons": dict(Counter(g["reason"] for g in finals)),
            "seconds": time.perf_counter() - t0}
