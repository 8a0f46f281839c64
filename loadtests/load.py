"""Open-loop load test of the move path, the services as separate processes on Kafka.

    python -m loadtests.load --bus kafka://HOST:PORT --games 10000 --move-every 5 --duration 60 \\
        [--instances N [--cpu-per-instance CORES]] [--via log|http] [--rates 200,500,1000,2000] \\
        [--kill-every S] [--no-audit] --json OUT

1. Starts the services as processes (:func:`start_services`: ``python -m services.<name>`` for
   the gateway and every back-end service, ``--instances`` processes of each back-end service)
   and waits for them to be ready; with ``--cpu-per-instance`` each back-end instance is then
   capped at that many cores (:mod:`loadtests.cpucap`: a machine of its own for each).
2. Creates ``--games`` chess games: CreateGame commands published on the log as the gateway
   would (``--via log``: the load generator is one more gateway instance, stream
   ``game-<id>.commands.<instance>``, gap-free seq, ``occurred_at`` = send time, actor the
   organiser for CreateGame and the player for a move) or sent to the gateway's
   HTTP API (``--via http``, ``?wait=false``), and waits for their GameStarted.
3. First ``--warmup`` seconds (120) at the lowest rate, reported apart: a fresh broker's JIT
   compilers used 10.2 and 6.1 CPU seconds in the first two 40 s steps at 1,000 moves/s and
   under 1 s in each after (``cpu_machine.broker_jit_s``); a platform in service is warm.
   Then for each offered load of ``--rates`` (moves/s; default ``games / move_every``), ascending:
   the first ``rate * move_every`` games each submit their next move every ``move_every``
   seconds (phase-randomised by a seeded RNG) for ``--duration`` seconds, OPEN LOOP: whether or
   not the system keeps up. Moves are a random legal game per game (seeded) that never reaches a
   terminal position, so games do not end. Then waits (at most ``--drain`` s) for the step's
   decisions before the next step.
4. Latency of each move = submission -> its MoveAccepted / MoveRejected, read by a raw librdkafka
   consumer of ``arbiter.game.events`` (header ``type`` + a few JSON fields), matched by the
   decision's ``causation_id`` = the command's ``event_id``. A command with no decision at the
   end is lost, unless the audit's read of the log shows it decided after the collector
   stopped (``decided_after_the_run``) or still behind the game process's decided offsets
   when the services stopped (``undecided_at_stop``: the backlog of a run over capacity, which
   the audit leaves out as ``arbiter audit`` does on a live log); one with two decisions, or
   two events at one (stream, seq), is doubled.
   The consumer reads committed records only, as the services do. After the last step, waits
   until the run's events stop coming (``--settle`` quiet seconds: every process has caught
   up), so the audit sees a finished log.
5. Stops the services, then measures the BASELINE at the same offered loads with the same
   schedule and the same command bytes: producer -> topic A -> relay process
   (:mod:`loadtests.relay`, bare aiokafka, pipelined) -> topic B -> consumer; the same hop count
   as command -> service -> event, none of the services' work.
6. Audits the run's games (``services.tools.audit.audit`` on the log read back with
   ``read_many``; ``--no-audit`` skips it) and writes the JSON report and a PNG of the latency
   percentiles against offered load, system and baseline (``OUT`` with ``.png``).

User+system CPU seconds of each spawned process (and of the local broker, and the machine's busy
CPU seconds, so that load from outside the run shows) over its phase come from psutil. Every wait is
bounded (ready, creation, drain, HTTP timeouts, the relay's own time limit); progress lines are
printed every few seconds.
"""
from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from loadtests.cpucap import CpuCaps
from loadtests.helpers import (DECISIONS, match_decisions, moves_per_game, percentile,
                               plan_game, schedule, step_games, summary, throughput, timeline)

PROGRESS_EVERY_S = 5.0


class Interrupt:
    """Ctrl-C / SIGTERM: every loop of the run checks :meth:`stopped` and ends early; the
    services are then stopped and the report of what was measured is written."""

    event: asyncio.Event | None = None

    @classmethod
    def install(cls) -> None:
        import signal

        cls.event = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, cls._fire)

    @classmethod
    def _fire(cls) -> None:
        if cls.event is not None and not cls.event.is_set():
            print("interrupted: finishing early (the services are stopped, the report written)",
                  flush=True)
            cls.event.set()

    @classmethod
    def stopped(cls) -> bool:
        return cls.event is not None and cls.event.is_set()


# ------------------------------------------------------------------------------ the services
def start_services(bus: str, instances: int = 1, base_port: int = 18100,
                   log_path: Path | None = None, gateway: bool = True) -> dict:
    """Start the gateway (unless ``gateway`` is False: with ``--via log`` it is not on the
    measured path, and reading every event it would only take CPU from it) and ``instances``
    processes of every back-end service on ``bus``;
    returns instance name (``game``, ``game#2`` ...) -> (Popen, HTTP port), what
    :func:`services.tools.supervisor.wait_ready` and ``stop_all`` take.

    The processes, names and ports of ``supervisor.start_all`` (``supervisor.spawn``, ports
    counting up from ``base_port``, the gateway's), their output to ``log_path`` instead of
    the terminal. The instances of a service
    share its consumer group; the gateway is one process (with ``--via log`` the load
    generator is a second gateway, with its own command streams)."""
    from services.tools.supervisor import spawn
    from services.system import SERVICES

    names = ["gateway"] * gateway + [name if k == 0 else f"{name}#{k + 1}"
                           for name in SERVICES for k in range(instances)]
    out = open(log_path, "ab") if log_path is not None else None
    try:
        return {inst: (spawn(inst, bus, base_port + k, output=out), base_port + k)
                for k, inst in enumerate(names)}
    finally:
        if out is not None:
            out.close()  # the children keep their copies


async def kill_game_every(procs: dict, bus: str, every_s: float, kills: list, log_path: Path) -> None:
    """Every ``every_s`` seconds kill -9 the instance ``game`` of ``procs`` (name -> (Popen,
    port), replaced in place) and start it again on its port, its output to ``log_path``;
    each kill's time goes in ``kills``. Until cancelled."""
    import signal

    from services.tools.supervisor import spawn

    while True:
        await asyncio.sleep(every_s)
        p, port = procs["game"]
        p.send_signal(signal.SIGKILL)
        await asyncio.to_thread(p.wait)
        kills.append(time.time())
        print(f"  killed the game process (kill {len(kills)}); starting it again", flush=True)
        with open(log_path, "ab") as out:
            procs["game"] = (spawn("game", bus, port, restarts=len(kills), output=out), port)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` so far (None when it is gone)."""
    import psutil

    try:
        t = psutil.Process(pid).cpu_times()
        return t.user + t.system
    except psutil.Error:
        return None


def jit_seconds(pid: int | None) -> float | None:
    """CPU seconds so far of the JVM's just-in-time compiler threads in process ``pid`` (Linux
    thread names ``C1 CompilerThre``/``C2 CompilerThre``), None when unreadable: a fresh broker
    compiles for minutes, which a broker in service has long done."""
    import os

    if pid is None:
        return None
    total = 0.0
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/comm") as f:
                if "CompilerThre" not in f.read():
                    continue
            with open(f"/proc/{pid}/task/{t}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    return total


def cpu_delta(before: dict[str, float | None], after: dict[str, float | None]) -> dict:
    return {k: (round(after[k] - before[k], 2) if before.get(k) is not None
                and after.get(k) is not None else None) for k in after}


# ------------------------------------------------------------------------------- Kafka I/O
def _loads(b: bytes):
    try:
        import orjson
        return orjson.loads(b)
    except ImportError:  # pragma: no cover - orjson is in the bench extra
        return json.loads(b)


async def topic_partitions(bootstrap: str, topic: str, timeout: float = 30.0) -> list[int]:
    """The partition numbers of ``topic``, waiting (at most ``timeout`` s) for it to exist."""
    from aiokafka.admin import AIOKafkaAdminClient

    end = time.perf_counter() + timeout
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        while True:
            desc = await admin.describe_topics([topic])
            parts = sorted(p["partition"] for d in desc if d.get("error_code", 0) == 0
                           for p in d.get("partitions", ()))
            if parts:
                return parts
            if time.perf_counter() > end:
                raise RuntimeError(f"topic {topic} does not exist after {timeout:.0f}s")
            await asyncio.sleep(0.5)
    finally:
        await admin.close()


class Collector:
    """A raw consumer of every partition of ``topic`` from its end at :meth:`start`, read in a
    thread of its own, each record timed when its fetch returns. confluent-kafka (librdkafka,
    in C): the load generator shares the two cores with what it measures; with aiokafka's
    pure-Python client it used ~0.33 ms of CPU per move (a whole run's estimate), with this
    0.26 ms (the measured step's, at 1,000 moves/s).

    ``mode="events"`` (the system): records keyed ``key_prefix...`` are parsed for ``stream``,
    ``seq``, ``causation_id`` (and a rejection's ``payload.code``); MoveAccepted / MoveRejected
    are decisions, GameStarted marks a created game. ``mode="relayed"`` (the baseline): every
    record is a relayed command whose own ``event_id`` is the cause. ``decided``: cause -> time
    of its first decision (perf_counter)."""

    def __init__(self, bootstrap: str, topic: str, key_prefix: bytes, mode: str) -> None:
        self.bootstrap, self.topic, self.prefix, self.mode = bootstrap, topic, key_prefix, mode
        self.decisions: list[tuple[str, float, str, str | None]] = []
        self.events: list[tuple[str, int, str, str | None]] = []
        self.decided: dict[str, float] = {}
        self.started: dict[str, float] = {}
        self.last_at = time.perf_counter()  # when the last record of the run arrived
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    async def start(self) -> None:
        from confluent_kafka import Consumer, TopicPartition

        parts = await topic_partitions(self.bootstrap, self.topic)
        self.consumer = Consumer({"bootstrap.servers": self.bootstrap, "group.id": f"lt-{uuid.uuid4().hex}",
                                  "enable.auto.commit": False, "isolation.level": "read_committed",
                                  "fetch.wait.max.ms": 20, "enable.partition.eof": False})

        def ends() -> list:  # where the run starts: each partition's end now, fixed before any send
            return [TopicPartition(self.topic, n, self.consumer.get_watermark_offsets(
                TopicPartition(self.topic, n), timeout=30)[1]) for n in parts]

        self.consumer.assign(await asyncio.to_thread(ends))
        self._thread = threading.Thread(target=self._run, name="lt-collector", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            # the first record waited for, the rest taken as they are: consume(n, t) alone
            # waits for n records or t, which added up to 100 ms to every latency measured
            first = self.consumer.poll(0.1)
            if first is None:
                continue
            now = time.perf_counter()
            for r in (first, *self.consumer.consume(1999, 0)):
                if r.error() is not None:
                    continue
                key = r.key()
                if key is None or not key.startswith(self.prefix):
                    continue
                self._record(r, now)
                self.last_at = now

    def _record(self, r, now: float) -> None:
        d = _loads(r.value())
        if self.mode == "relayed":
            cid = d["event_id"]
            self.decisions.append((cid, now, "MoveAccepted", None))
            self.events.append((d["stream"], d["seq"], "MoveAccepted", cid))
            self.decided.setdefault(cid, now)
            return
        typ = next((v.decode() for k, v in (r.headers() or ()) if k == "type"), None) or d.get("type")
        cause = d.get("causation_id")
        self.events.append((d["stream"], d["seq"], typ, cause))
        if typ in DECISIONS:
            code = d["payload"].get("code") if typ == "MoveRejected" else None
            self.decisions.append((cause, now, typ, code))
            self.decided.setdefault(cause, now)
        elif typ == "GameStarted":
            self.started.setdefault(cause, now)

    async def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 10)
        await asyncio.to_thread(self.consumer.close)


class _Producer:
    """The load generator's producer: confluent-kafka (librdkafka), idempotent, ``acks=all``,
    records keyed by aggregate on the partitions the Java client's murmur2 gives (as every
    Arbiter producer), lingering as the gateway's does (:data:`COMMAND_LINGER_MS`)."""

    def __init__(self, bootstrap: str) -> None:
        from confluent_kafka import Producer

        from shared.eventlog.kafka import COMMAND_LINGER_MS

        self.p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                           "linger.ms": COMMAND_LINGER_MS, "partitioner": "murmur2_random"})

    def send(self, topic: str, value: bytes, key: bytes, headers: list, on_delivery) -> None:
        """Queue one record (``on_delivery(err, msg)`` is called from a later poll or flush)."""
        self.p.produce(topic, value, key, headers=headers, on_delivery=on_delivery)
        self.p.poll(0)

    async def flush(self, timeout: float = 30.0) -> None:
        await asyncio.to_thread(self.p.flush, timeout)

    async def stop(self) -> None:
        await self.flush()


async def _producer(bootstrap: str) -> _Producer:
    return _Producer(bootstrap)


# ------------------------------------------------------------------------------- the games
@dataclass
class Games:
    """The run's games: ids, players, planned moves, and what was sent so far."""

    run_id: str
    plans: list[list[str]]
    next_ply: list[int] = field(default_factory=list)
    seqs: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.next_ply = [0] * len(self.plans)
        self.seqs = [0] * len(self.plans)

    def gid(self, i: int) -> str:
        return f"lt{self.run_id}-{i}"

    @staticmethod
    def players(i: int) -> tuple[str, str]:
        return f"p{i}w", f"p{i}b"

    def reset(self) -> None:
        self.next_ply = [0] * len(self.plans)
        self.seqs = [0] * len(self.plans)

    def next_move(self, i: int) -> tuple[str, str]:
        """(player id, UCI move) of game ``i``'s next planned ply, advancing the game."""
        ply = self.next_ply[i]
        self.next_ply[i] = ply + 1
        white, black = self.players(i)
        return (white if ply % 2 == 0 else black), self.plans[i][ply]


def command_record(games: Games, i: int, payload) -> tuple[str, bytes, bytes]:
    """The gateway's envelope of ``payload`` on game ``i``'s command stream: next seq,
    ``occurred_at`` = now, actor the organiser (CreateGame) or the moving player. Returns
    (event id, JSON bytes, partition key)."""
    from contracts.envelope import Actor, dt_of
    from contracts.messages import CreateGame, envelope

    games.seqs[i] += 1
    actor = (Actor(kind="organiser", id="organiser") if isinstance(payload, CreateGame)
             else Actor(kind="player", id=payload.player_id))
    msg = envelope(payload, stream=f"game-{games.gid(i)}.commands.{games.run_id}", seq=games.seqs[i],
                   occurred_at=dt_of(time.time_ns() // 1_000_000), actor=actor)
    return str(msg.event_id), msg.model_dump_json().encode(), msg.key.encode()


def move_record(games: Games, i: int, at_ms: int | None = None,
                event_id: uuid.UUID | None = None) -> tuple[str, bytes, bytes]:
    """Game ``i``'s next planned move as :func:`command_record` writes a ``SubmitMove``, byte
    for byte (a test compares them), from a template: pydantic's envelope costs the generator
    ~45 us of CPU per move, the template ~5, and the generator shares the machine with what
    it measures. ``at_ms``: ``occurred_at`` (epoch ms, default now); ``event_id``: default a
    new uuid4. Returns (event id, JSON bytes, partition key)."""
    player, uci = games.next_move(i)
    games.seqs[i] += 1
    gid = games.gid(i)
    eid = str(event_id or uuid.uuid4())
    ms = time.time_ns() // 1_000_000 if at_ms is None else at_ms
    t = time.gmtime(ms // 1000)
    at = (f"{t.tm_year:04d}-{t.tm_mon:02d}-{t.tm_mday:02d}T{t.tm_hour:02d}:{t.tm_min:02d}:"
          f"{t.tm_sec:02d}.{ms % 1000:03d}000Z")
    value = (f'{{"event_id":"{eid}","type":"SubmitMove","schema_version":1,'
             f'"stream":"game-{gid}.commands.{games.run_id}","seq":{games.seqs[i]},'
             f'"occurred_at":"{at}","causation_id":null,"correlation_id":null,'
             f'"actor":{{"kind":"player","id":"{player}"}},'
             f'"payload":{{"game_id":"{gid}","player_id":"{player}","move":"{uci}","notation":null}},'
             f'"chain":null}}')
    return eid, value.encode(), f"game-{gid}".encode()


TIME_CONTROL = "3600+10"


class KafkaSubmitter:
    """Publishes commands on ``topic`` with a raw producer, as the gateway publishes them
    (key = aggregate, header ``type``); acknowledgements come back in the background so the
    arrivals stay open loop."""

    def __init__(self, producer: _Producer, topic: str, games: Games) -> None:
        self.producer, self.topic, self.games = producer, topic, games
        self.commands: dict[str, float] = {}
        self.errors = 0

    async def send(self, i: int, payload) -> str:
        return self._send(*command_record(self.games, i, payload), type(payload).__name__)

    def _send(self, cid: str, value: bytes, key: bytes, kind: str) -> str:
        self.commands[cid] = time.perf_counter()
        self.producer.send(self.topic, value, key, [("type", kind.encode())], self._done)
        return cid

    def _done(self, err, msg) -> None:
        if err is not None:
            self.errors += 1

    async def move(self, i: int) -> None:
        self._send(*move_record(self.games, i), "SubmitMove")

    async def flush(self, timeout: float = 30.0) -> None:
        await self.producer.flush(timeout)


class HttpSubmitter:
    """Sends commands to the gateway's HTTP API with ``?wait=false`` (202 + command id at
    once); one game's requests go one after the other so its moves arrive in order. Each
    request is bounded by ``timeout``; failures are counted in ``errors``."""

    def __init__(self, base_url: str, games: Games, timeout: float = 30.0,
                 connections: int = 256) -> None:
        import httpx

        self.client = httpx.AsyncClient(base_url=base_url, timeout=timeout,
                                        limits=httpx.Limits(max_connections=connections,
                                                            max_keepalive_connections=connections))
        self.games = games
        self.commands: dict[str, float] = {}
        self.errors = 0
        self.error_samples: list[str] = []
        self._locks: dict[int, asyncio.Lock] = {}
        self._tasks: set[asyncio.Task] = set()

    async def _post(self, i: int, path: str, body: dict) -> None:
        lock = self._locks.setdefault(i, asyncio.Lock())
        async with lock:
            t0 = time.perf_counter()
            try:
                r = await self.client.post(path, params={"wait": "false"}, json=body)
                if r.status_code >= 300:
                    raise RuntimeError(f"HTTP {r.status_code}: {r.text[:200]}")
                self.commands[r.json()["command_id"]] = t0
            except Exception as e:  # counted, the run goes on
                self.errors += 1
                if len(self.error_samples) < 5:
                    self.error_samples.append(f"{path}: {e!r}"[:300])

    def _spawn(self, coro) -> None:
        t = asyncio.create_task(coro)
        self._tasks.add(t)
        t.add_done_callback(self._tasks.discard)

    async def create(self, i: int) -> None:
        white, black = self.games.players(i)
        self._spawn(self._post(i, "/games", {"game_id": self.games.gid(i), "white": white,
                                             "black": black, "time_control": TIME_CONTROL}))
        if len(self._tasks) >= 64:  # creation is not timed: keep the burst bounded
            await asyncio.wait(list(self._tasks), return_when=asyncio.FIRST_COMPLETED)

    async def move(self, i: int) -> None:
        player, uci = self.games.next_move(i)
        self._spawn(self._post(i, f"/games/{self.games.gid(i)}/moves",
                               {"player_id": player, "move": uci}))

    async def flush(self, timeout: float = 60.0) -> None:
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    async def close(self) -> None:
        await self.flush()
        await self.client.aclose()


# -------------------------------------------------------------------------------- driving
async def drive(sched: list[tuple[float, int]], submit: Callable, label: str,
                collector: Collector) -> list[float]:
    """Submit ``sched``'s arrivals at their times (open loop); returns each arrival's lateness
    against its schedule (s), which shows when the load generator itself fell behind. The
    progress line costs nothing that grows with the run (it once listed every command sent:
    up to 24 ms of the loop every 5 s at 2,000 moves/s, delaying sends and decisions' times)."""
    decided0 = len(collector.decided)
    t0 = time.perf_counter()
    lags: list[float] = []
    i, n = 0, len(sched)
    next_report = PROGRESS_EVERY_S
    duration = sched[-1][0] if sched else 0.0
    while i < n and not Interrupt.stopped():
        now = time.perf_counter() - t0
        if now >= next_report:
            next_report += PROGRESS_EVERY_S
            decided = len(collector.decided) - decided0  # the steps before were drained
            print(f"  {label}: t={now:5.1f}/{duration:.0f}s sent {i} decided {decided} "
                  f"outstanding {i - decided}", flush=True)
        t = sched[i][0]
        if t > now:
            await asyncio.sleep(min(t - now, 0.05))
            continue
        burst = 0
        while i < n and sched[i][0] <= now and burst < 500:
            lags.append(now - sched[i][0])
            await submit(sched[i][1])
            i += 1
            burst += 1
        await asyncio.sleep(0)
    return lags


async def drain(step_cids: Callable[[], list[str]], collector: Collector, label: str,
                timeout: float) -> bool:
    """Wait until every command of the step has a decision, at most ``timeout`` s."""
    end = time.perf_counter() + timeout
    next_report = time.perf_counter() + PROGRESS_EVERY_S
    left = step_cids()
    while True:
        left = [c for c in left if c not in collector.decided]
        if not left:
            return True
        if time.perf_counter() > end or Interrupt.stopped():
            print(f"  {label}: drain gave up after {timeout:.0f}s, {len(left)} without decision",
                  flush=True)
            return False
        if time.perf_counter() >= next_report:
            next_report += PROGRESS_EVERY_S
            print(f"  {label}: draining, {len(left)} without decision", flush=True)
        await asyncio.sleep(0.1)


async def quiesce(collector: Collector, quiet_s: float, timeout: float) -> None:
    """Wait until no event of the run's games has arrived for ``quiet_s`` seconds (at most
    ``timeout`` s): the services behind validation (clock, adjudication, ...) have caught up,
    so the audit sees a finished log, and a late duplicate still counts."""
    t0 = time.perf_counter()
    while time.perf_counter() - collector.last_at < quiet_s:
        if Interrupt.stopped():
            return
        if time.perf_counter() - t0 > timeout:
            print(f"  events still arriving after {timeout:.0f}s; stopping anyway", flush=True)
            return
        await asyncio.sleep(0.1)
    print(f"  quiet for {quiet_s:g}s after {time.perf_counter() - t0:.1f}s", flush=True)


async def run_steps(label: str, steps: list[dict], games: Games, submitter, collector: Collector,
                    drain_s: float, pids: dict | None = None) -> list[dict]:
    """Drive every step's schedule, drain after each; per-step figures (the loss and latency
    percentiles of each step are filled in later from the final matching). ``pids`` (name ->
    pid, None for this process): each step's CPU seconds per process and per move."""
    out = []
    for st in steps:
        if Interrupt.stopped():
            break
        n0 = len(submitter.commands)  # the step's commands are those sent after
        tag = f"{label} {st['rate']:g}/s"
        print(f"{tag}: {st['n_games']} games, a move every {st['interval']:.2f}s, "
              f"{len(st['schedule'])} moves in {st['duration']:g}s"
              f"{' (warm-up, not measured)' if st['warmup'] else ''}", flush=True)

        def cids() -> list[str]:
            return list(itertools.islice(submitter.commands, n0, None))

        t_start = time.perf_counter()
        cpu0 = _cpu_now(pids) if pids else None
        lags = await drive(st["schedule"], submitter.move, tag, collector)
        await submitter.flush()

        await drain(cids, collector, tag, drain_s)
        mine = cids()
        cpu = step_cpu(cpu0, _cpu_now(pids), time.perf_counter() - t_start, len(mine)) if pids else None
        decided_at = [collector.decided[c] for c in mine if c in collector.decided]
        out.append({"target_moves_per_s": st["rate"], "games": st["n_games"],
                    "interval_s": round(st["interval"], 3), "sent": len(mine),
                    "moves_per_s": round(throughput(t_start, st["duration"], decided_at), 1),
                    "send_lag_ms": {"p99": _ms(percentile(lags, 99)), "max": _ms(max(lags, default=None))},
                    "warmup": st["warmup"], "cpu": cpu, "_cids": mine, "_t0": t_start})
        print(f"{tag}: sent {len(mine)}, decided {len(decided_at)}, "
              f"{out[-1]['moves_per_s']} moves/s", flush=True)
    return out


def _ms(v):
    return None if v is None else round(v * 1000, 2)


def step_cpu(before: dict, after: dict, window_s: float, moves: int) -> dict:
    """One step's CPU: seconds per process and the machine's (:func:`machine_cpu`), and each
    process's milliseconds of CPU per move sent (``ms_per_move``)."""
    procs, machine = machine_cpu(cpu_delta(before, after), window_s)
    per = {k: (round(v * 1000 / moves, 3) if v is not None and moves else None) for k, v in procs.items()}
    return {"s": procs, "machine": machine, "ms_per_move": per}


def finish_curve(rows: list[dict], commands: dict, collector: Collector) -> tuple[list[dict], object]:
    """Match all decisions to all commands; fill each step's latency percentiles, and its
    commands with no decision seen (``_unseen``, command ids: the report counts them as lost
    or not, see :func:`_classify_unseen`)."""
    m = match_decisions(commands, collector.decisions, collector.events)
    unseen = set(m.lost)
    for r in rows:
        cids, t0 = r.pop("_cids"), r.pop("_t0")
        lat = [m.latency[c] for c in cids if c in m.latency]
        r.update(summary(lat))
        r["timeline"] = timeline(commands, m.latency, cids, t0)
        r["_unseen"] = [c for c in cids if c in unseen]
    return rows, m


# -------------------------------------------------------------------------------- phases
async def create_games(games: Games, n: int, submitter, collector: Collector, timeout: float) -> int:
    """Send CreateGame for games 0..n-1 and wait (at most ``timeout`` s) for their GameStarted;
    returns how many started."""
    from contracts.messages import CreateGame

    t0 = time.perf_counter()
    created: list[str] = []
    if isinstance(submitter, HttpSubmitter):
        for i in range(n):
            await submitter.create(i)
        await submitter.flush()
        created = list(submitter.commands)
    else:
        for i in range(n):
            white, black = games.players(i)
            created.append(await submitter.send(i, CreateGame(
                game_id=games.gid(i), white=white, black=black, time_control=TIME_CONTROL)))
        await submitter.flush()
    end = time.perf_counter() + timeout
    next_report = time.perf_counter() + PROGRESS_EVERY_S
    while True:
        started = sum(1 for c in created if c in collector.started)
        if started == n or time.perf_counter() > end or Interrupt.stopped():
            break
        if time.perf_counter() >= next_report:
            next_report += PROGRESS_EVERY_S
            print(f"  creating: {started}/{n} games started", flush=True)
        await asyncio.sleep(0.1)
    for c in created:  # creation commands are not moves: not part of the matching
        submitter.commands.pop(c, None)
    print(f"created {started}/{n} games in {time.perf_counter() - t0:.1f}s", flush=True)
    return started


async def system_phase(a, bootstrap: str, steps: list[dict], games: Games) -> dict:
    from services.tools.supervisor import stop_all, wait_ready
    from contracts.messages import GAME_COMMANDS, GAME_EVENTS

    print(f"starting services ({a.instances} instance(s) each) on {a.bus}", flush=True)
    log_path = Path(a.json).with_name(Path(a.json).stem + "-services.log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    print(f"  service output: {log_path}", flush=True)
    caps = CpuCaps(a.cpu_per_instance, games.run_id) if a.cpu_per_instance else None
    procs = start_services(a.bus, a.instances, a.base_port, log_path, gateway=a.via == "http")
    kills: list[float] = []
    try:
        missing = await asyncio.to_thread(wait_ready, procs, a.ready_timeout)
        if missing:
            raise SystemExit(f"loadtest: not ready after {a.ready_timeout:.0f}s: {', '.join(missing)}")
        for name, (p, _) in procs.items():  # recovered at full speed, then capped
            if caps is not None and name != "gateway":
                caps.cap(name, p.pid)
        pids = {name: p.pid for name, (p, _) in procs.items()}
        pids["loader"] = None
        pids["kafka-broker"] = broker_pid(bootstrap)
        collector = Collector(bootstrap, GAME_EVENTS, f"game-lt{games.run_id}-".encode(), "events")
        await collector.start()
        producer = None
        if a.via == "http":
            submitter = HttpSubmitter(f"http://127.0.0.1:{procs['gateway'][1]}", games)
        else:
            producer = await _producer(bootstrap)
            submitter = KafkaSubmitter(producer, GAME_COMMANDS, games)
        cpu0 = _cpu_now(pids)
        w0 = time.perf_counter()
        try:
            started = await create_games(games, len(games.plans), submitter, collector,
                                         a.create_timeout)
            killer = asyncio.create_task(kill_game_every(procs, a.bus, a.kill_every, kills, log_path)) \
                if a.kill_every else None
            try:
                rows = await run_steps("system", steps, games, submitter, collector, a.drain, pids)
            finally:
                if killer is not None:
                    killer.cancel()
                    await asyncio.gather(killer, return_exceptions=True)
            await quiesce(collector, a.settle, a.drain)
        finally:
            cpu1 = _cpu_now(pids)
            window = time.perf_counter() - w0
            histograms = await asyncio.to_thread(scrape_histograms, procs)
            if isinstance(submitter, HttpSubmitter):
                await submitter.close()
            else:
                await producer.stop()
            await collector.stop()
        rows, m = finish_curve(rows, submitter.commands, collector)
        return {"rows": rows, "match": m, "games_started": started, "send_errors": submitter.errors,
                "send_error_samples": getattr(submitter, "error_samples", []),
                "cpu": machine_cpu(cpu_delta(cpu0, cpu1), window),
                "commands": len(submitter.commands), "histograms": histograms, "kills": len(kills),
                "throttled_s": caps.throttled_s() if caps is not None else None}
    finally:
        print("stopping services", flush=True)
        await asyncio.to_thread(stop_all, procs)
        if caps is not None:
            caps.remove()


#: The processes' own timings read from their ``/metrics`` at the end of the system phase.
HISTOGRAMS = ("arbiter_transaction_seconds", "arbiter_batch_seconds", "arbiter_gc_seconds",
              "arbiter_snapshot_seconds")


def scrape_histograms(procs: dict) -> dict:
    """Each back-end process's :data:`HISTOGRAMS` (Prometheus text from its ``/metrics``) as
    ``{process: {metric: {"count", "mean_ms", "le_ms": {upper bound ms: cumulative count}}}}``;
    a process that does not answer within 5 s (or answers what does not parse) is left out. Where a tail comes from: the time
    a transaction takes is the floor of a decision's latency."""
    import httpx
    from prometheus_client.parser import text_string_to_metric_families

    out: dict = {}
    for name, (_, port) in procs.items():
        try:
            text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text
            families = list(text_string_to_metric_families(text))
        except Exception as e:  # (called in a finally: never hide what failed before)
            print(f"  {name}: no histograms ({type(e).__name__}: {e})", flush=True)
            continue
        for fam in families:
            if fam.name not in HISTOGRAMS:
                continue
            hs: dict[str, dict] = {}  # one per generation for the collector's pauses, per phase for snapshots
            for s in fam.samples:
                key = fam.name + (f"/gen{s.labels['generation']}" if "generation" in s.labels else "") \
                    + (f"/{s.labels['phase']}" if "phase" in s.labels else "")
                h = hs.setdefault(key, {"count": 0, "sum": 0.0, "le_ms": {}})
                if s.name.endswith("_count"):
                    h["count"] += int(s.value)
                elif s.name.endswith("_sum"):
                    h["sum"] += s.value
                elif s.name.endswith("_bucket") and s.labels["le"] != "+Inf":
                    le = round(float(s.labels["le"]) * 1000, 2)
                    h["le_ms"][le] = h["le_ms"].get(le, 0) + int(s.value)
            for key, h in hs.items():
                if h["count"]:
                    out.setdefault(name, {})[key] = {
                        "count": h["count"], "mean_ms": round(h["sum"] / h["count"] * 1000, 2),
                        "le_ms": h["le_ms"]}
    return out


def _cpu_now(pids: dict) -> dict:
    """CPU seconds of each named process (None = this one), plus ``_machine``: the busy CPU
    seconds of the whole machine (all cores, not idle or waiting for I/O), and ``_broker_jit``:
    the broker's compiler threads' (:func:`jit_seconds`)."""
    import os

    import psutil

    out = {name: cpu_seconds(pid if pid is not None else os.getpid()) for name, pid in pids.items()}
    if "kafka-broker" in pids:
        out["_broker_jit"] = jit_seconds(pids["kafka-broker"])
    t = psutil.cpu_times()
    out["_machine"] = sum(t) - t.idle - getattr(t, "iowait", 0.0)
    out["_steal"] = getattr(t, "steal", 0.0)  # (a virtual machine's cores taken by its host)
    return out


def machine_cpu(delta: dict, window_s: float) -> tuple[dict, dict]:
    """Split :func:`cpu_delta` of :func:`_cpu_now` readings into the processes' CPU seconds and
    the machine's: busy seconds of all cores, the share of the run's processes, and the rest
    (``others_s``: processes outside the run, e.g. another test on the same machine, and
    ``steal_s``, included in it: time a virtual machine's host ran something else on its
    cores, which no process here shows and which delays every one of them)."""
    import psutil

    procs = {k: v for k, v in delta.items() if not k.startswith("_")}
    busy = delta.get("_machine")
    ours = round(sum(v for v in procs.values() if v is not None), 2)
    return procs, {"window_s": round(window_s, 1), "cores": psutil.cpu_count(),
                   "busy_s": None if busy is None else round(busy, 2), "ours_s": ours,
                   "others_s": None if busy is None else round(busy - ours, 2),
                   "steal_s": None if delta.get("_steal") is None else round(delta["_steal"], 2),
                   "broker_jit_s": delta.get("_broker_jit")}


def broker_pid(bootstrap: str) -> int | None:
    """The pid of the process listening on the bootstrap port on this machine (the local
    broker), or None (a remote broker, or not visible)."""
    import psutil

    port = int(bootstrap.rsplit(":", 1)[1])
    try:
        for c in psutil.net_connections(kind="tcp"):
            if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid:
                return c.pid
    except (psutil.Error, OSError):
        pass
    return None


async def baseline_phase(a, bootstrap: str, steps: list[dict], games: Games) -> dict:
    """The same schedules and command bytes through producer -> A -> relay -> B -> consumer."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    from contracts.messages import GAME_EVENTS

    a_topic = f"arbiter.loadtest.{games.run_id}.a"
    b_topic = f"arbiter.loadtest.{games.run_id}.b"
    parts = len(await topic_partitions(bootstrap, GAME_EVENTS))
    admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await admin.start()
    try:
        await admin.create_topics([NewTopic(a_topic, parts, 1), NewTopic(b_topic, parts, 1)])
    finally:
        await admin.close()
    limit = sum(st["duration"] + a.drain for st in steps) + 120
    relay = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "loadtests.relay", "--bootstrap", bootstrap, "--src", a_topic,
        "--dst", b_topic, "--max-seconds", str(limit), stdout=asyncio.subprocess.PIPE)
    try:
        line = await asyncio.wait_for(relay.stdout.readline(), 60)
        if line.strip() != b"ready":
            raise SystemExit(f"loadtest: the baseline relay did not start ({line!r})")
        games.reset()
        collector = Collector(bootstrap, b_topic, b"", "relayed")
        await collector.start()
        producer = await _producer(bootstrap)
        submitter = KafkaSubmitter(producer, a_topic, games)
        pids = {"relay": relay.pid, "loader": None, "kafka-broker": broker_pid(bootstrap)}
        cpu0 = _cpu_now(pids)
        w0 = time.perf_counter()
        try:
            rows = await run_steps("baseline", steps, games, submitter, collector, a.drain, pids)
        finally:
            cpu1 = _cpu_now(pids)
            await producer.stop()
            await collector.stop()
        rows, m = finish_curve(rows, submitter.commands, collector)
        return {"rows": rows, "match": m,
                "cpu": machine_cpu(cpu_delta(cpu0, cpu1), time.perf_counter() - w0)}
    finally:
        if relay.returncode is None:
            relay.terminate()
            try:
                await asyncio.wait_for(relay.wait(), 15)
            except asyncio.TimeoutError:
                relay.kill()
        admin = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
        await admin.start()
        try:
            await admin.delete_topics([a_topic, b_topic])
        except Exception as e:  # best effort: they are the load test's own topics
            print(f"  could not delete the baseline topics: {e!r}", flush=True)
        finally:
            await admin.close()


async def audit_phase(bus: str, run_id: str, chunk: int = 250) -> dict:
    """Audit the run's games: read the log back (``read_many`` over every topic), keep the
    run's aggregates, and re-derive them ``chunk`` games at a time (each game's audit is
    independent of the others')."""
    from services.tools.audit import audit
    from services.tools.logio import audit_input

    t0 = time.perf_counter()
    msgs, pending = await audit_input(bus)  # as arbiter audit --bus: undecided inputs left out
    prefix = f"game-lt{run_id}-"
    mine = [m for m in msgs if m.aggregate.startswith(prefix)]
    order: dict[str, int] = {}
    for m in mine:
        order.setdefault(m.aggregate, len(order))
    diffs = []
    n_chunks = (len(order) + chunk - 1) // chunk
    for k in range(n_chunks):
        part = [m for m in mine if order[m.aggregate] // chunk == k]
        diffs += await audit(part, pending=pending)
        print(f"  audit: {min((k + 1) * chunk, len(order))}/{len(order)} games, "
              f"{len(diffs)} differences", flush=True)
    kinds = Counter(f"{d.type}: {d.what}" for d in diffs)
    return {"differences": len(diffs), "messages": len(mine), "games": len(order),
            "seconds": round(time.perf_counter() - t0, 1), "by_kind": dict(kinds.most_common()),
            "examples": [str(d) for d in diffs[:10]],
            "decided": {str(m.causation_id) for m in mine if m.type in DECISIONS},
            "undecided": {str(i) for ids in pending.values() for i in ids}}


def _classify_unseen(unseen: set[str], aud: dict | None) -> tuple[set[str], set[str], set[str]]:
    """The commands of the run whose decision the collector did not see (``unseen``), split
    by the log as the audit read it (``aud``: :func:`audit_phase`): (decided after the run
    stopped collecting, in the log; not decided yet when the services stopped, their offsets
    behind them: a backlog, not a loss; lost: neither). Without an audit all are lost."""
    if aud is None:
        return set(), set(), unseen
    late = unseen & aud["decided"]
    undecided = (unseen - late) & aud["undecided"]
    return late, undecided, unseen - late - undecided


# ---------------------------------------------------------------------------------- main
def build_steps(rates: list[float], games: int, move_every: float, duration: float,
                seed: int, warmup: float = 0.0) -> list[dict]:
    """The offered-load steps, ascending, each with its seeded schedule; first, if ``warmup``
    > 0, that many seconds at the lowest rate, run but not measured (a fresh broker's JIT
    compiler takes a core for its first half minute or so: a platform in service is warm)."""
    plan = [(rate, duration, False, seed * 7919 + k) for k, rate in enumerate(sorted(rates))]
    if warmup > 0:
        plan.insert(0, (min(rates), warmup, True, seed * 7919 - 1))
    steps = []
    for rate, secs, warm, rng_seed in plan:
        n, interval = step_games(rate, games, move_every)
        steps.append({"rate": rate, "n_games": n, "interval": interval, "duration": secs,
                      "warmup": warm, "schedule": schedule(n, interval, secs, random.Random(rng_seed))})
    return steps


async def run(a) -> dict:
    bootstrap = a.bus.removeprefix("kafka://")
    run_id = uuid.uuid4().hex[:8]  # also the load generator's gateway instance id
    rates = a.rates or [a.games / a.move_every]
    steps = build_steps(rates, a.games, a.move_every, a.duration, a.seed, a.warmup)
    need = moves_per_game(s["schedule"] for s in steps)
    t0 = time.perf_counter()
    plans = [plan_game(random.Random(a.seed * 1_000_003 + i), need.get(i, 0))
             for i in range(a.games)]
    print(f"run {run_id}: {a.games} games, {sum(need.values())} moves planned "
          f"({time.perf_counter() - t0:.1f}s), offered loads {', '.join(f'{r:g}' for r in sorted(rates))}"
          f" moves/s, {a.duration:g}s each, via {a.via}", flush=True)
    games = Games(run_id, plans)
    Interrupt.install()
    sysres = await system_phase(a, bootstrap, steps, games)
    base = (await baseline_phase(a, bootstrap, steps, games)
            if not a.no_baseline and not Interrupt.stopped() else None)
    aud = (await audit_phase(a.bus, run_id)
           if not a.no_audit and not Interrupt.stopped() else None)

    return _report(a, run_id, sysres, base, aud)


def _report(a, run_id: str, sysres: dict, base: dict | None, aud: dict | None) -> dict:
    """The run's JSON report: the system under load (the last step's figures, the offered
    curve, the warm-up apart), the audit and the bare-Kafka baseline where they ran."""
    rows, m = sysres["rows"], sysres["match"]
    late, undecided, lost = _classify_unseen(set(m.lost), aud)
    for r in rows:
        r["lost"] = sum(1 for c in r.pop("_unseen") if c in lost)
    warm, rows = [r for r in rows if r["warmup"]], [r for r in rows if not r["warmup"]]
    top = rows[-1] if rows else {"target_moves_per_s": None, "moves_per_s": None, "p50": None,
                                 "p95": None, "p99": None, "max": None}
    curve = [{k: r[k] for k in ("target_moves_per_s", "games", "interval_s", "sent",
                                 "moves_per_s", "p50", "p95", "p99", "max", "lost", "send_lag_ms",
                                 "cpu", "timeline")}
             for r in rows]
    report = {
        "bus": a.bus, "broker_jvm_opts": getattr(a, "broker_jvm_opts", None), "via": a.via,
        "instances": a.instances, "cpu_per_instance": a.cpu_per_instance or None,
        "throttled_s": sysres["throttled_s"], "run_id": run_id, "seed": a.seed, "games": a.games, "games_started": sysres["games_started"],
        "move_every_s": a.move_every, "duration_s": a.duration,
        "target_moves_per_s": top["target_moves_per_s"], "moves_per_s": top["moves_per_s"],
        "latency_ms": {k: top[k] for k in ("p50", "p95", "p99", "max")},
        "moves_sent": sysres["commands"], "lost": len(lost), "doubled": m.doubled,
        "decided_after_the_run": len(late), "undecided_at_stop": len(undecided),
        "doubled_commands": len(m.doubled_commands),
        "duplicate_stream_seq": len(m.duplicate_positions),
        "rejected": m.rejected, "unmatched_decisions": m.unmatched,
        "send_errors": sysres["send_errors"],
        "audit_differences": None if aud is None else aud["differences"],
        "cpu_s_per_process": sysres["cpu"][0],
        "cpu_machine": sysres["cpu"][1],
        "histograms": sysres["histograms"], "kills": sysres["kills"],
        "offered_curve": curve,
        "warmup": [{k: r[k] for k in ("target_moves_per_s", "sent", "moves_per_s", "p50", "p99",
                                      "max", "lost")} | {"seconds": a.warmup} for r in warm],
    }
    if Interrupt.stopped():
        report["interrupted"] = True
    if sysres["send_error_samples"]:
        report["send_error_samples"] = sysres["send_error_samples"]
    if aud is not None:
        report["audit"] = {k: aud[k] for k in ("messages", "games", "seconds", "by_kind", "examples")}
    if base is not None:
        report["baseline"] = _baseline_report(base)
    return report


def _baseline_report(base: dict) -> dict:
    """The bare-Kafka baseline's figures at its last step and its offered curve."""
    brows, bm = [r for r in base["rows"] if not r["warmup"]], base["match"]
    for r in base["rows"]:
        r["lost"] = len(r.pop("_unseen"))  # the bare chain has no audit: every unseen command is lost
    btop = brows[-1] if brows else {k: None for k in ("moves_per_s", "p50", "p95", "p99", "max")}
    return {
        "moves_per_s": btop["moves_per_s"], "p50_ms": btop["p50"], "p95_ms": btop["p95"],
        "p99_ms": btop["p99"], "max_ms": btop["max"], "lost": len(bm.lost),
        "doubled": bm.doubled, "cpu_s_per_process": base["cpu"][0],
        "cpu_machine": base["cpu"][1],
        "offered_curve": [{k: r[k] for k in ("target_moves_per_s", "sent", "moves_per_s",
                                              "p50", "p95", "p99", "max", "lost", "send_lag_ms",
                                              "cpu")}
                          for r in brows],
    }


def parse_rates(s: str | None) -> list[float] | None:
    if not s:
        return None
    rates = [float(x) for x in s.split(",") if x.strip()]
    if not rates or any(r <= 0 for r in rates):
        raise argparse.ArgumentTypeError("--rates: positive numbers, comma separated")
    return rates


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m loadtests.load",
                                 description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bus", default="own", help="kafka://HOST:PORT of a broker nothing else uses, or "
                    "'own' (default): start one on free ports with a fresh data folder, removed after")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--move-every", type=float, default=5.0, help="seconds between a game's moves")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds of load per offered rate")
    ap.add_argument("--warmup", type=float, default=120.0,
                    help="seconds at the lowest rate first, reported apart (JSON 'warmup'), not in "
                         "the curve: a fresh broker's JIT compilers use 10 and 6 CPU s in the first "
                         "two 40 s at 1,000 moves/s, under 1 s after (0: none)")
    ap.add_argument("--rates", type=parse_rates, default=None,
                    help="offered loads in moves/s, e.g. 200,500,1000 (default games/move-every)")
    ap.add_argument("--instances", type=int, default=1, help="processes per back-end service")
    ap.add_argument("--cpu-per-instance", type=float, default=0.0, metavar="CORES",
                    help="cap each back-end instance at this many cores (a cgroup each, see "
                         "loadtests.cpucap; needs root): how throughput grows with instances when "
                         "each has cores of its own (0: no cap)")
    ap.add_argument("--via", choices=("log", "http"), default="log")
    ap.add_argument("--json", default=".bench/loadtest.json", help="report (the PNG goes beside it)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--drain", type=float, default=30.0, help="max seconds to wait for decisions after a step")
    ap.add_argument("--settle", type=float, default=3.0,
                    help="at the end, wait until no event came for this many seconds (at most --drain)")
    ap.add_argument("--create-timeout", type=float, default=120.0)
    ap.add_argument("--ready-timeout", type=float, default=120.0)
    ap.add_argument("--base-port", type=int, default=18100, help="first HTTP port of the services")
    ap.add_argument("--no-audit", action="store_true", help="skip the audit of the run's games")
    ap.add_argument("--no-baseline", action="store_true", help="skip the bare-Kafka baseline")
    ap.add_argument("--kill-every", type=float, default=0.0,
                    help="during the steps, kill -9 the first game process every this many seconds "
                         "and start it again (a fault run: its latency includes the restarts, and "
                         "the game process's CPU is not measured; 0: never)")
    a = ap.parse_args(argv)
    if a.bus != "own" and not a.bus.startswith("kafka://"):
        ap.error("--bus must be kafka://HOST:PORT or own: the services run as separate processes")
    if a.cpu_per_instance and not 0.01 <= a.cpu_per_instance <= 64:
        ap.error("--cpu-per-instance must be 0 (no cap) or 0.01-64 cores")
    if a.cpu_per_instance and a.kill_every:
        ap.error("--cpu-per-instance and --kill-every do not go together (a restarted process is not capped)")
    if a.kill_every < 0:
        ap.error("--kill-every must be 0 (never) or positive")
    if a.games < 1 or a.instances < 1 or a.duration <= 0 or a.move_every <= 0 or a.warmup < 0:
        ap.error("--games, --instances, --duration and --move-every must be positive")
    broker = None
    if a.bus == "own":
        from loadtests.broker import LocalBroker

        broker = LocalBroker()
        broker.up()
        a.bus, a.broker_jvm_opts = f"kafka://{broker.bootstrap}", broker.env.get("KAFKA_JVM_OPTS")
    try:
        report = asyncio.run(run(a))
    finally:
        if broker is not None:
            broker.remove()
    out = Path(a.json)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    png = out.with_suffix(".png")
    from loadtests.report import plot_curves

    plot_curves(report["offered_curve"], (report.get("baseline") or {}).get("offered_curve", []),
                png, f"Arbiter move path, {a.games} games, via {a.via}, "
                     f"{a.instances} instance(s)"
                     f"{f' of {a.cpu_per_instance:g} core' if a.cpu_per_instance else ''}, {a.duration:g}s per load")
    brief = {k: report[k] for k in ("target_moves_per_s", "moves_per_s", "latency_ms", "lost",
                                     "doubled", "audit_differences")}
    if "baseline" in report:
        brief["baseline"] = {k: report["baseline"][k] for k in ("moves_per_s", "p50_ms", "p99_ms")}
    print(json.dumps(brief, indent=2))
    print(f"wrote {out} and {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
