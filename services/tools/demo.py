"""``arbiter demo``: a self-contained round robin of bot players on real clocks.

Bots play through the gateway's HTTP API only: they read the game, think (a random time drawn
from the seeded generator: mostly quick, sometimes long, so some flags fall), choose a legal move
(mate if they see one, else the best capture, else a check, else a random move), claim a
threefold repetition when they can, and resign a hopeless position now and then. The clocks are
real: the clock service's timer calls the flags. With ``bus="memory"`` all services run in this
process; with ``kafka://HOST:PORT`` they run as separate processes (as ``arbiter up``) and the
bots talk to the gateway over HTTP. ``game="xiangqi"`` hosts the same event in xiangqi (1999
rules: 困毙 loses, 棋例 rulings at every threefold repetition, art. 6 presets as time controls);
``game="go"`` a 9x9 Go event (Chinese rules, komi 7.5, byo-yomi): the bots play random legal
moves that fill none of their own eyes and pass when none is left; after two passes Black
proposes the dead stones of :func:`shared.rules.go_scoring.estimate_dead` and White accepts,
so adjudication counts the game (1988 art. 9 area counting).
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


def choose_go(text: str, rng: random.Random, max_ply: int = 200, ply: int = 0) -> str:
    """A Go bot's move (GTP or ``pass``) on the engine position ``text``: a random legal point
    that is not one of its own eyes (every neighbour its own stone), else a pass; past
    ``max_ply`` plies it passes so that a random game ends."""
    from shared.rules import go

    board = go.Board.from_text(text)
    n, me = board.size, board.turn
    if ply >= max_ply:
        return "pass"

    def own_eye(x: int, y: int) -> bool:
        nbs = [(x + dx, y + dy) for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
               if 0 <= x + dx < n and 0 <= y + dy < n]
        return all(board[q] == me for q in nbs)

    points = [(x, y) for x in range(n) for y in range(n) if board[(x, y)] is None]
    rng.shuffle(points)
    for p in points:
        if not own_eye(*p) and board.legality(p) is None:
            return go.to_gtp(p, n)
    return "pass"


def go_dead(text: str) -> list[str]:
    """The dead stones a bot proposes after play stopped: go_scoring's static estimate (GTP)."""
    from shared.rules import go
    from shared.rules.go_scoring import estimate_dead

    board = go.Board.from_text(text)
    return sorted(go.to_gtp(p, board.size) for p in estimate_dead(board))


async def go_turn(c, gid: str, g: dict, white: str, black: str, rng: random.Random) -> None:
    """One step of a Go game for the bots: a move, or the dead-stone agreement once play stopped
    (Black proposes the estimate, White accepts it)."""
    seat = {"white": white, "black": black}
    phase = (g.get("go") or {}).get("phase", "play")
    if phase == "scoring":
        proposals = g["go"].get("proposals") or {}
        if "black" not in proposals:
            await c.post(f"/games/{gid}/dead", json={"player_id": black, "dead": go_dead(g["fen"])})
        else:
            await c.post(f"/games/{gid}/dead/accept", json={"player_id": white})
        return
    if phase != "play":  # counting: the result is on its way
        await asyncio.sleep(0.01)
        return
    me = seat[g["go"]["to_move"]]
    await asyncio.sleep(rng.uniform(0.002, 0.02) if rng.random() < 0.9 else rng.uniform(0.05, 0.3))
    await c.post(f"/games/{gid}/moves", json={"player_id": me,
                                              "move": choose_go(g["fen"], rng, ply=len(g["moves"]))})


def material(board: chess.Board, colour: bool) -> int:
    return sum(VALUES[p.piece_type] for p in board.piece_map().values() if p.color == colour)


async def bot_game(c, gid: str, white: str, black: str, rng: random.Random,
                   pace: float = 0.0) -> dict:
    """Play one game for both bots until it ends; returns the final game view. ``pace``:
    seconds each bot waits before thinking (0: the quick demo; ``demo --serve`` plays at a pace
    a person can follow)."""
    while True:
        g = (await c.get(f"/games/{gid}")).json()
        if g["status"] == "ended":
            return g
        await bot_turn(c, gid, g, white, black, rng, pace)


def to_move(g: dict) -> str:
    """The colour to move in a game view (``GET /games/{gid}``)."""
    if g["game"] == "go":
        return g["go"]["to_move"]
    return "white" if g["fen"].split()[1] == "w" else "black"


async def bot_turn(c, gid: str, g: dict, white: str, black: str, rng: random.Random,
                   pace: float = 0.0) -> None:
    """One step of the bot to move in game view ``g``: think, then move, claim or resign."""
    if pace:
        await asyncio.sleep(pace * rng.uniform(0.5, 1.5))
    if g["game"] == "go":
        await go_turn(c, gid, g, white, black, rng)
        return
    me = white if to_move(g) == "white" else black
    if g["game"] == "xiangqi":
        await asyncio.sleep(rng.uniform(0.005, 0.04) if rng.random() < 0.85 else rng.uniform(0.1, 0.6))
        await c.post(f"/games/{gid}/moves", json={"player_id": me, "move": choose_xiangqi(g["fen"], rng)})
        return
    board = chess.Board(g["fen"])
    r = rng.random()
    think = rng.uniform(0.005, 0.04) if r < 0.85 else rng.uniform(0.1, 0.6)
    await asyncio.sleep(think)
    if board.can_claim_threefold_repetition() and rng.random() < 0.5:
        await c.post(f"/games/{gid}/draw/claim", json={"player_id": me, "reason": "threefold"})
        return
    if material(board, board.turn) + 12 < material(board, not board.turn) and rng.random() < 0.05:
        await c.post(f"/games/{gid}/resign", json={"player_id": me})
        return
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


#: Default time controls of the demo: seconds (absolute) for chess and xiangqi; Go 9x9: 20 s
#: main time and 3 byo-yomi periods of 2 s.
DEMO_TIME = {"chess": "4", "xiangqi": "4", "go": "20 3x2 byo-yomi"}


async def run_demo(bus: str = "memory", *, players: int = 6, seed: int = 2026,
                   time_control: str | None = None, progress_factory=None, game: str = "chess") -> dict:
    """Host the demo round robin of ``game`` (chess, xiangqi or go: 9x9, Chinese rules);
    ``time_control`` (None: :data:`DEMO_TIME`); returns standings, crosstable and figures.
    Raises ``ValueError`` for an unknown game or a setting the gateway refuses."""
    if game not in DEMO_TIME:
        raise ValueError(f"unknown game {game!r}: {', '.join(DEMO_TIME)}")
    time_control = time_control or DEMO_TIME[game]
    go_settings = {"board_size": 9, "go_rules": "chinese"} if game == "go" else {}
    rng = random.Random(seed)
    t0 = time.perf_counter()
    names = [NAMES[i % len(NAMES)] + ("" if i < len(NAMES) else str(i)) for i in range(players)]
    tid = f"demo-{seed}-{int(time.time())}"
    n_rounds = players - 1 + players % 2
    async with _client(bus) as c:
        r = await c.post("/tournaments", json={"tournament_id": tid, "name": "Arbiter demo",
                                                "system": "round-robin", "time_control": time_control,
                                                "game": game,  # no tiebreaks: the game's own
                                                # (xiangqi art. 15.1 with FOULS, else SB WIN DE)
                                                **go_settings})
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
