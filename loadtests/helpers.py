"""Pure helpers of the load test (:mod:`loadtests.load`): no I/O, no clock, no Kafka.

- :func:`percentile` / :func:`summary`: nearest-rank percentiles of latencies;
- :func:`step_games` / :func:`schedule`: which games play at an offered load and when each
  submits its moves (open loop, phase-randomised by a seeded RNG);
- :func:`plan_game`: a legal random chess game that never reaches a terminal position;
- :func:`match_decisions`: decisions matched to commands by causation id; lost and doubled;
- :func:`throughput`: moves per second of one offered-load step;
- :func:`timeline`: latency percentiles per window of send time (where a tail comes from).

Only the standard library and python-chess are imported, so the unit tests run without the
load test's extra packages (matplotlib, psutil, orjson).
"""
from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field


def percentile(values: Sequence[float], q: float) -> float | None:
    """The ``q``-th percentile (0 < q <= 100) of ``values`` by the nearest-rank method: the
    smallest value such that at least q % of the values are at or below it, i.e.
    ``sorted(values)[ceil(q/100 * n) - 1]``. None for an empty sequence.

    >>> percentile([15, 20, 35, 40, 50], 30)
    20
    """
    if not values:
        return None
    if not 0 < q <= 100:
        raise ValueError(f"percentile q must be in (0, 100], got {q}")
    s = sorted(values)
    return s[max(0, math.ceil(q / 100 * len(s)) - 1)]


def summary(latencies_s: Sequence[float]) -> dict:
    """p50/p95/p99/max of latencies given in seconds, in milliseconds rounded to 0.01 ms
    (None each when there are none)."""
    def ms(v):
        return None if v is None else round(v * 1000, 2)
    return {"p50": ms(percentile(latencies_s, 50)), "p95": ms(percentile(latencies_s, 95)),
            "p99": ms(percentile(latencies_s, 99)),
            "max": ms(max(latencies_s)) if latencies_s else None}


def step_games(rate: float, games: int, move_every: float) -> tuple[int, float]:
    """Games taking part in a step of offered load ``rate`` (moves/s), and their move interval.

    Every game moves once per ``move_every`` seconds, so a rate needs ``rate * move_every``
    games: the first that many of the ``games`` created. A rate above ``games / move_every``
    uses all games and shortens the interval to ``games / rate`` (the offered load is kept, the
    think time is not). Returns ``(n_games, interval_s)``."""
    if rate <= 0 or games <= 0 or move_every <= 0:
        raise ValueError("rate, games and move_every must be positive")
    n = min(games, max(1, round(rate * move_every)))
    return n, n / rate


def schedule(n_games: int, interval: float, duration: float,
             rng: random.Random) -> list[tuple[float, int]]:
    """Open-loop arrival times: game ``i`` (0 <= i < n_games) submits at ``phase_i + k *
    interval`` for k = 0, 1, ... while the time is below ``duration``, with ``phase_i`` drawn
    uniformly in [0, interval) from ``rng`` (in game order). Returns ``(t_seconds, game)`` sorted
    by time, then game. Each game gets ``ceil((duration - phase_i) / interval)`` arrivals:
    exactly ``duration / interval`` when that is a whole number."""
    out: list[tuple[float, int]] = []
    for g in range(n_games):
        t = rng.random() * interval
        while t < duration:
            out.append((t, g))
            t += interval
    out.sort()
    return out


def moves_per_game(schedules: Iterable[Sequence[tuple[float, int]]]) -> Counter:
    """How many moves each game submits over several steps' schedules."""
    c: Counter = Counter()
    for sched in schedules:
        c.update(g for _, g in sched)
    return c


def plan_game(rng: random.Random, plies: int) -> list[str]:
    """``plies`` legal chess moves (UCI) from the start position, chosen at random by ``rng``,
    none of which ends the game: no mate, stalemate, insufficient material, fivefold repetition
    or 75-move draw (python-chess ``is_game_over()`` without claims), so a game keeps going for
    the whole load test. A position whose every move would end the game is backed out of
    (depth-first search), so the plan always has ``plies`` moves."""
    import chess

    board = chess.Board()
    choices: list[list[chess.Move]] = []  # untried alternatives at each ply
    out: list[str] = []
    while len(out) < plies:
        if len(choices) == len(out):
            moves = list(board.legal_moves)
            rng.shuffle(moves)
            choices.append(moves)
        alts = choices[-1]
        while alts:
            mv = alts.pop()
            board.push(mv)
            if not board.is_game_over():
                out.append(mv.uci())
                break
            board.pop()
        else:  # dead end: back out of the previous move
            choices.pop()
            if not out:
                raise RuntimeError("no non-terminal move from the start position")
            out.pop()
            board.pop()
    return out


DECISIONS = frozenset({"MoveAccepted", "MoveRejected"})


@dataclass
class Match:
    """What :func:`match_decisions` found.

    - ``latency``: command id -> seconds from submission to its first decision;
    - ``lost``: command ids without a decision;
    - ``doubled_commands``: command ids with more than one decision;
    - ``duplicate_positions``: (stream, seq) pairs seen more than once among the events;
    - ``doubled``: doubled commands plus the duplicate positions not explained by them (a
      duplicate whose copies are all decisions of an already counted command is one incident);
    - ``rejected``: MoveRejected codes and their counts (the first decision of each command);
    - ``unmatched``: decisions whose cause is none of the commands.
    """

    latency: dict[str, float] = field(default_factory=dict)
    lost: list[str] = field(default_factory=list)
    doubled_commands: list[str] = field(default_factory=list)
    duplicate_positions: list[tuple[str, int]] = field(default_factory=list)
    doubled: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    unmatched: int = 0


def match_decisions(commands: Mapping[str, float],
                    decisions: Iterable[tuple[str, float, str, str | None]],
                    events: Iterable[tuple[str, int, str, str | None]] = ()) -> Match:
    """Match decisions to the commands that caused them.

    ``commands``: command event id -> submission time (s). ``decisions``: ``(causation_id,
    received_time_s, type, reject_code)`` of every MoveAccepted / MoveRejected seen (code None
    for an acceptance). ``events``: ``(stream, seq, type, causation_id)`` of every event of the
    run's aggregates, to find two events at one position (two writers, or a republished event).
    A command is lost when no decision names it, doubled when more than one does."""
    by_cause: dict[str, list[tuple[float, str, str | None]]] = defaultdict(list)
    m = Match()
    for cause, t, typ, code in decisions:
        if cause in commands:
            by_cause[cause].append((t, typ, code))
        else:
            m.unmatched += 1
    codes: Counter = Counter()
    for cid, t0 in commands.items():
        ds = by_cause.get(cid)
        if not ds:
            m.lost.append(cid)
            continue
        first = min(ds)
        m.latency[cid] = first[0] - t0
        if first[1] == "MoveRejected":
            codes[first[2] or "?"] += 1
        if len(ds) > 1:
            m.doubled_commands.append(cid)
    m.rejected = dict(sorted(codes.items()))
    copies: dict[tuple[str, int], list[tuple[str, str | None]]] = defaultdict(list)
    for stream, seq, typ, cause in events:
        copies[(stream, seq)].append((typ, cause))
    doubled_set = set(m.doubled_commands)
    extra = 0
    for pos, cs in copies.items():
        if len(cs) < 2:
            continue
        m.duplicate_positions.append(pos)
        if not all(typ in DECISIONS and cause in doubled_set for typ, cause in cs):
            extra += 1
    m.duplicate_positions.sort()
    m.doubled = len(m.doubled_commands) + extra
    return m


def throughput(t_start: float, duration: float, decided_at: Iterable[float]) -> float:
    """Moves per second of a step that started at ``t_start`` and offered load for ``duration``
    seconds: the decisions of its commands over the time until the last of them (at least the
    step's duration, so a system that keeps up shows the offered rate, one that falls behind
    less)."""
    ts = list(decided_at)
    if not ts:
        return 0.0
    return len(ts) / max(duration, max(ts) - t_start)


def timeline(sent_at: Mapping[str, float], latency: Mapping[str, float], cids: Iterable[str],
             t_start: float, width_s: float = 1.0) -> list[dict]:
    """Latency of commands ``cids`` by when they were sent: one row per ``width_s``-second
    window from ``t_start`` (``sent_at``: command id -> send time, s; ``latency``: command id
    -> seconds to its decision, absent when lost), as ``{"t_s", "sent", "decided", "p50",
    "p99", "max"}`` with ``t_s`` the window's start after ``t_start`` (s) and the latencies in
    ms. A tail made by a few stalls (a snapshot, a pause) shows as a few windows; one made by
    a system that is too slow, in every window."""
    if width_s <= 0:
        raise ValueError("width_s must be positive")
    windows: dict[int, list[float]] = defaultdict(list)
    sent: Counter = Counter()
    for c in cids:
        k = max(0, int((sent_at[c] - t_start) // width_s))
        sent[k] += 1
        if c in latency:
            windows[k].append(latency[c])
    return [{"t_s": round(k * width_s, 3), "sent": sent[k], "decided": len(windows[k]),
             "p50": summary(windows[k])["p50"], "p99": summary(windows[k])["p99"],
             "max": summary(windows[k])["max"]} for k in sorted(sent)]
