"""Recovery benchmark: how long the game processor takes to serve again after ``kill -9``, as
the log grows (issue 10 item 4), beside a baseline restored by replaying every input from the
start (what every restart did before partition snapshots), measured in the same run.

    python -m loadtests.recovery [--bus own|kafka://HOST:PORT] --sizes 10000,100000,1000000 \\
        --json .bench/recovery.json      (make recovery)

It starts one game process (``python -m services.game``), fills the log with games of 40 plies
published as a gateway would (each game's commands in order, on the processor's input topic)
until the log holds each size of messages (commands and decisions), then for each size kills
the process (SIGKILL) once its latest snapshot is written (the tail to replay is then what came
after it: at most ``snapshot_every_s`` of traffic in a live system), publishes a probe move at
once and starts a new process: ``served_s`` is
the time from the kill to the probe's MoveAccepted, ``ready_s`` to ``/healthz`` ready. The same
is done with ``ARBITER_LOAD_SNAPSHOTS=0`` (baseline: no snapshot loaded). Then the gateway
(``python -m services.gateway``): its start reading the whole log (baseline), and, once it has
snapshotted its read model, its start after a kill -9 from that snapshot plus the log after
it (``ready_s``: process start to ``/healthz`` ready). Writes JSON and a PNG (recovery time
against log size) beside it.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import chess
import httpx
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from contracts.envelope import Actor, dt_of
from contracts.messages import GAME_COMMANDS, GAME_EVENTS, CreateGame, SubmitMove, envelope
from loadtests.load import topic_partitions
from services.tools.supervisor import spawn

PLIES = 40
MESSAGES_PER_GAME = 3 + 3 * PLIES  # CreateGame, GameStarted, ClockStarted; per ply command + 2 decisions


def game_line(seed: int, plies: int = PLIES) -> list[str]:
    """A legal line of ``plies`` UCI moves that does not end the game, drawn with ``seed``."""
    rng = random.Random(seed)
    while True:
        b, line = chess.Board(), []
        for _ in range(plies):
            moves = [m for m in b.legal_moves if not _ends(b, m)]
            if not moves:
                break
            m = rng.choice(moves)
            b.push(m)
            line.append(m.uci())
        if len(line) == plies:
            return line


def _ends(b: chess.Board, m: chess.Move) -> bool:
    b.push(m)
    try:
        return b.is_game_over(claim_draw=False)
    finally:
        b.pop()


class Feeder:
    """Publishes games' commands on the game command topic as a gateway would."""

    def __init__(self, bootstrap: str, line: list[str]) -> None:
        self.bootstrap, self.line = bootstrap, line
        self.run = uuid.uuid4().hex[:6]
        self.games = 0
        self.producer: AIOKafkaProducer | None = None

    async def start(self) -> None:
        self.producer = AIOKafkaProducer(bootstrap_servers=self.bootstrap, enable_idempotence=True,
                                         linger_ms=5)
        await self.producer.start()

    async def stop(self) -> None:
        await self.producer.stop()

    def gid(self, i: int) -> str:
        return f"rec{self.run}g{i}"

    @staticmethod
    def seat(ply: int) -> str:
        return "w" if ply % 2 == 0 else "b"

    def move(self, gid: str, ply: int) -> SubmitMove:
        return SubmitMove(game_id=gid, player_id=self.seat(ply), move=self.line[ply])

    async def command(self, payload, stream: str, seq: int, player: str = "w"):
        m = envelope(payload, stream=stream, seq=seq, occurred_at=dt_of(time.time_ns() // 1_000_000),
                     actor=Actor(kind="player", id=player))
        return await self.producer.send(GAME_COMMANDS, m.model_dump_json().encode(), key=m.key.encode(),
                                        headers=[("type", m.type.encode())]), m

    async def add_games(self, n: int, plies: int = PLIES) -> None:
        """Publish ``n`` new games with ``plies`` moves each (each game's commands in order)."""
        futs = []
        for i in range(self.games, self.games + n):
            gid, stream = self.gid(i), f"game-{self.gid(i)}.commands.bench"
            futs.append((await self.command(CreateGame(game_id=gid, white="w", black="b",
                                                       time_control="3600+5"), stream, 1))[0])
            for k, uci in enumerate(self.line[:plies]):
                futs.append((await self.command(self.move(gid, k), stream, k + 2, self.seat(k)))[0])
            if len(futs) > 20_000:
                await asyncio.gather(*futs)
                futs = []
        await asyncio.gather(*futs)
        self.games += n


async def _caught_up(bootstrap: str, timeout: float = 3600) -> None:
    """Wait until process ``game`` has decided and committed every game command (its consumer
    group's committed offsets, written in its transactions, reach the end)."""
    c = AIOKafkaConsumer(bootstrap_servers=bootstrap, group_id="game", enable_auto_commit=False)
    await c.start()
    try:
        tps = [TopicPartition(GAME_COMMANDS, p) for p in await topic_partitions(bootstrap, GAME_COMMANDS)]
        end = time.time() + timeout
        while time.time() < end:
            ends = await c.end_offsets(tps)
            done = True
            for tp in tps:
                if ((await c.committed(tp)) or 0) < ends[tp]:
                    done = False
                    break
            if done:
                return
            await asyncio.sleep(0.5)
        raise TimeoutError("the game processor did not catch up")
    finally:
        await c.stop()


def _spawn(bus: str, port: int, snapshots: bool) -> subprocess.Popen:
    # snapshots every 10 s: the benchmark kills 12 s after the log is decided (a live system's
    # tail, at most ``ARBITER_SNAPSHOT_EVERY_S`` of traffic, is a separate matter: see README)
    return spawn("game", bus, port, env={"ARBITER_LOAD_SNAPSHOTS": "1" if snapshots else "0",
                                         "ARBITER_SNAPSHOT_EVERY_S": "10"},
                 output=subprocess.DEVNULL)


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _ready(port: int, proc: subprocess.Popen, timeout: float = 3600) -> dict:
    end = time.time() + timeout
    async with httpx.AsyncClient(timeout=2) as c:
        while time.time() < end:
            if proc.poll() is not None:
                raise RuntimeError("the game process exited")
            try:
                r = await c.get(f"http://127.0.0.1:{port}/healthz")
                if r.status_code == 200 and r.json().get("ready"):
                    return r.json()
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.05)
    raise TimeoutError("not ready")


async def restart(feeder: Feeder, bus: str, port: int, proc: subprocess.Popen, snapshots: bool,
                  probe: int) -> tuple[subprocess.Popen, dict]:
    """Kill ``proc``, publish the probe game's next move, start a new process; the timings."""
    watch = AIOKafkaConsumer(bootstrap_servers=feeder.bootstrap, isolation_level="read_committed")
    await watch.start()
    tps = [TopicPartition(GAME_EVENTS, p) for p in await topic_partitions(feeder.bootstrap, GAME_EVENTS)]
    watch.assign(tps)
    await watch.seek_to_end(*tps)
    for tp in tps:
        await watch.position(tp)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    t0 = time.perf_counter()
    gid, stream = feeder.gid(0), f"game-{feeder.gid(0)}.commands.bench"
    fut, cmd = await feeder.command(feeder.move(gid, probe), stream, probe + 2, feeder.seat(probe))
    await fut
    new = _spawn(bus, port, snapshots)
    health = await _ready(port, new)
    ready_s = time.perf_counter() - t0
    served_s = None
    while served_s is None:
        batch = await watch.getmany(timeout_ms=500)
        for records in batch.values():
            for r in records:
                m = json.loads(r.value)
                if m["type"] == "MoveAccepted" and m["causation_id"] == str(cmd.event_id):
                    served_s = time.perf_counter() - t0
        if time.perf_counter() - t0 > 3600:
            raise TimeoutError("probe not decided")
    await watch.stop()
    restored = health.get("restored", {}).values()
    return new, {"served_s": round(served_s, 3), "ready_s": round(ready_s, 3),
                 "replayed": sum(v["messages"] for v in restored),
                 "from_snapshot": sum(bool(v["snapshot"]) for v in restored),
                 "rss_mb": round(_rss_mb(new.pid), 1)}


async def gateway_restart(bus: str, port: int) -> dict:
    """The gateway's start on the log as it is: reading the whole log (baseline, snapshots not
    loaded), then, once it has snapshotted its read model, after a kill -9 from the snapshot
    and the log after it. Seconds from the start of the process to ``/healthz`` ready."""
    rows: dict = {}
    for label, load in (("full_read", "0"), ("snapshot", "1")):
        t0 = time.perf_counter()
        p = spawn("gateway", bus, port, env={"ARBITER_LOAD_SNAPSHOTS": load,
                                             "ARBITER_GATEWAY_SNAPSHOT_EVERY_S": "5"},
                  output=subprocess.DEVNULL)
        try:
            h = await _ready(port, p)
            rows[label] = {"ready_s": round(time.perf_counter() - t0, 3), "replayed": h["replayed"],
                           "from_snapshot": h["from_snapshot"], "snapshot_messages": h["snapshot_messages"],
                           "rss_mb": round(_rss_mb(p.pid), 1)}
            if label == "full_read":  # the snapshot the next start takes up
                t1 = time.perf_counter()
                while h["snapshot_applied"] < h["applied"]:
                    await asyncio.sleep(0.5)
                    h = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).json()
                rows["snapshot_written_s"] = round(time.perf_counter() - t1, 1)
        finally:
            p.send_signal(signal.SIGKILL)
            p.wait()
    return rows


async def run(bus: str, sizes: list[int], port: int) -> dict:
    bootstrap = bus[len("kafka://"):]
    line = game_line(7, PLIES + len(sizes) * 2 + 2)
    feeder = Feeder(bootstrap, line)
    await feeder.start()
    proc = _spawn(bus, port, True)
    rows = []
    try:
        await _ready(port, proc)
        await feeder.add_games(1, plies=0)  # the probe game: moves come one per restart
        probe = 0
        for size in sizes:
            need = max(0, size - feeder.games * MESSAGES_PER_GAME) // MESSAGES_PER_GAME
            t = time.perf_counter()
            while need > 0:
                step = min(need, 500)
                await feeder.add_games(step)
                need -= step
                print(f"recovery: {feeder.games * MESSAGES_PER_GAME:,} messages published "
                      f"({time.perf_counter() - t:.0f} s)", file=sys.stderr, flush=True)
            await _caught_up(bootstrap)
            await asyncio.sleep(12)  # the next snapshot (every 10 s): a kill finds a short tail
            row = {"messages": feeder.games * MESSAGES_PER_GAME, "games": feeder.games,
                   "fill_s": round(time.perf_counter() - t, 1)}
            for label, snaps in (("snapshot", True), ("full_replay", False)):
                proc, row[label] = await restart(feeder, bus, port, proc, snaps, probe)
                probe += 1
                print(f"recovery: {row['messages']:,} messages, {label}: {row[label]}", file=sys.stderr, flush=True)
            row["gateway"] = await gateway_restart(bus, port + 1)
            print(f"recovery: {row['messages']:,} messages, gateway: {row['gateway']}", file=sys.stderr, flush=True)
            rows.append(row)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        await feeder.stop()
    return {"command": "python -m loadtests.recovery --sizes " + ",".join(map(str, sizes)),
            "sizes": rows}


def plot(result: dict, png: Path) -> None:
    """Recovery time (kill -9 to the next decision) against log size, both ways."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [r["messages"] for r in result["sizes"]]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, style in (("snapshot", "o-"), ("full_replay", "s--")):
        ax.plot(xs, [r[label]["served_s"] for r in result["sizes"]], style,
                label={"snapshot": "game: snapshot + tail", "full_replay": "game: replay from the start (baseline)"}[label])
    if all("gateway" in r for r in result["sizes"]):
        for label, style in (("snapshot", "^-"), ("full_read", "v--")):
            ax.plot(xs, [r["gateway"][label]["ready_s"] for r in result["sizes"]], style,
                    label={"snapshot": "gateway: snapshot + tail", "full_read": "gateway: whole log (baseline)"}[label])
    ax.axhline(5, color="grey", lw=0.8, ls=":", label="target 5 s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("messages in the log")
    ax.set_ylabel("kill -9 to next decision / ready (s)")
    ax.set_title("Recovery after kill -9")
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m loadtests.recovery", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bus", default="own", help="kafka://HOST:PORT of a broker nothing else uses, or "
                    "'own' (default): start one on free ports with a fresh data folder, removed after")
    ap.add_argument("--sizes", default="10000,100000,1000000", help="log sizes in messages")
    ap.add_argument("--port", type=int, default=18900, help="HTTP port of the game process")
    ap.add_argument("--json", default=".bench/recovery.json", help="output JSON (PNG beside it)")
    a = ap.parse_args()
    sizes = sorted(int(s) for s in a.sizes.split(","))
    broker = None
    if a.bus == "own":
        from loadtests.broker import LocalBroker

        broker = LocalBroker()
        broker.up()
    try:
        result = asyncio.run(run(f"kafka://{broker.bootstrap}" if broker else a.bus, sizes, a.port))
    finally:
        if broker is not None:
            broker.remove()
    out = Path(a.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    plot(result, out.with_suffix(".png"))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
