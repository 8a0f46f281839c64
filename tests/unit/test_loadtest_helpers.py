"""The load test's pure helpers (loadtests/helpers.py): exact values, nothing timed."""
from __future__ import annotations

import random

import chess
import pytest

from loadtests.helpers import (match_decisions, moves_per_game, percentile, plan_game, schedule,
                               step_games, summary, throughput, timeline)


def test_percentile_nearest_rank():
    xs = list(range(1, 101))  # 1..100
    assert percentile(xs, 50) == 50
    assert percentile(xs, 95) == 95
    assert percentile(xs, 99) == 99
    assert percentile(xs, 100) == 100
    assert percentile([15, 20, 35, 40, 50], 30) == 20
    assert percentile([15, 20, 35, 40, 50], 40) == 20
    assert percentile([15, 20, 35, 40, 50], 50) == 35
    assert percentile([3, 1, 2], 1) == 1  # unsorted input
    assert percentile([], 50) is None
    with pytest.raises(ValueError):
        percentile([1], 0)


def test_summary_in_milliseconds():
    s = summary([0.001 * i for i in range(1, 101)])
    assert s == {"p50": 50.0, "p95": 95.0, "p99": 99.0, "max": 100.0}
    assert summary([]) == {"p50": None, "p95": None, "p99": None, "max": None}


def test_step_games():
    assert step_games(200, 2000, 5) == (1000, 5.0)
    assert step_games(400, 2000, 5) == (2000, 5.0)
    assert step_games(1000, 2000, 5) == (2000, 2.0)  # more than the games can offer: faster moves
    assert step_games(0.1, 100, 5) == (1, 10.0)


def test_schedule_counts_and_order():
    sched = schedule(100, 5.0, 30.0, random.Random(3))
    assert len(sched) == 600  # 30 s / 5 s = 6 moves for every game
    assert all(c == 6 for c in moves_per_game([sched]).values())
    assert sched == sorted(sched)
    assert all(0 <= t < 30.0 for t, _ in sched)
    # the same seed gives the same schedule; moves of one game are exactly one interval apart
    assert sched == schedule(100, 5.0, 30.0, random.Random(3))
    g0 = [t for t, g in sched if g == 0]
    assert [round(b - a, 9) for a, b in zip(g0, g0[1:])] == [5.0] * 5


def test_schedule_partial_interval():
    # 12 s at one move per 5 s: a game whose phase is below 2 s moves 3 times, else 2
    for seed in range(20):
        phase = random.Random(seed).random() * 5.0
        sched = schedule(1, 5.0, 12.0, random.Random(seed))
        assert [t for t, _ in sched] == pytest.approx([phase + 5.0 * k for k in range(3 if phase < 2.0 else 2)])
        assert moves_per_game([sched, sched])[0] == 2 * len(sched)


def test_plan_game_is_legal_and_never_ends():
    plan = plan_game(random.Random(5), 120)
    assert len(plan) == 120
    board = chess.Board()
    for uci in plan:
        mv = chess.Move.from_uci(uci)
        assert mv in board.legal_moves
        board.push(mv)
        assert not board.is_game_over()
    assert plan == plan_game(random.Random(5), 120)
    assert plan_game(random.Random(5), 0) == []


def test_match_decisions_lost_doubled_and_latency():
    commands = {"c1": 10.0, "c2": 11.0, "c3": 12.0, "c4": 13.0}
    decisions = [
        ("c1", 10.5, "MoveAccepted", None),
        ("c2", 11.25, "MoveRejected", "illegal"),
        ("c4", 13.5, "MoveAccepted", None),
        ("c4", 14.0, "MoveAccepted", None),   # c4 decided twice
        ("zz", 15.0, "MoveAccepted", None),   # not one of ours
    ]
    events = [
        ("game-a", 1, "MoveAccepted", "c1"),
        ("game-a", 2, "MoveRejected", "c2"),
        ("game-a", 3, "MoveAccepted", "c4"),
        ("game-a", 3, "MoveAccepted", "c4"),  # the same doubled decision: one incident
        ("game-a.clock", 1, "ClockUpdated", "e1"),
        ("game-a.clock", 1, "ClockUpdated", "e1"),  # a clock event written twice: another
    ]
    m = match_decisions(commands, decisions, events)
    assert m.latency == {"c1": 0.5, "c2": 0.25, "c4": 0.5}
    assert m.lost == ["c3"]
    assert m.doubled_commands == ["c4"]
    assert m.duplicate_positions == [("game-a", 3), ("game-a.clock", 1)]
    assert m.doubled == 2
    assert m.rejected == {"illegal": 1}
    assert m.unmatched == 1


def test_match_decisions_clean_run():
    commands = {f"c{i}": float(i) for i in range(5)}
    decisions = [(f"c{i}", i + 0.01, "MoveAccepted", None) for i in range(5)]
    events = [("game-x", i + 1, "MoveAccepted", f"c{i}") for i in range(5)]
    m = match_decisions(commands, decisions, events)
    assert (m.lost, m.doubled, m.doubled_commands, m.duplicate_positions, m.unmatched) == ([], 0, [], [], 0)
    assert len(m.latency) == 5


def test_throughput():
    assert throughput(100.0, 10.0, [100.0 + 0.1 * i for i in range(100)]) == 10.0  # kept up
    assert throughput(100.0, 10.0, [120.0] * 100) == 5.0  # fell behind: 100 in 20 s
    assert throughput(0.0, 10.0, []) == 0.0


def test_timeline_windows_by_send_time():
    # sent at 0.1, 0.5, 0.9 (window 0), 1.2 (window 1), 3.0 (window 3); c5 lost
    sent = {"c1": 10.1, "c2": 10.5, "c3": 10.9, "c4": 11.2, "c5": 13.0}
    latency = {"c1": 0.010, "c2": 0.030, "c3": 0.020, "c4": 0.200}
    rows = timeline(sent, latency, list(sent), t_start=10.0)
    assert rows == [
        {"t_s": 0.0, "sent": 3, "decided": 3, "p50": 20.0, "p99": 30.0, "max": 30.0},
        {"t_s": 1.0, "sent": 1, "decided": 1, "p50": 200.0, "p99": 200.0, "max": 200.0},
        {"t_s": 3.0, "sent": 1, "decided": 0, "p50": None, "p99": None, "max": None},
    ]
    # half-second windows split the first second
    assert [r["sent"] for r in timeline(sent, latency, list(sent), 10.0, width_s=0.5)] == [1, 2, 1, 1]
    with pytest.raises(ValueError):
        timeline(sent, latency, list(sent), 10.0, width_s=0)


def test_move_record_is_the_envelope_pydantic_writes():
    """The generator's templated SubmitMove is byte for byte the gateway's envelope of the same
    move (same event id, instant and seq), so the load test offers what the gateway offers."""
    import uuid

    from contracts.envelope import Actor, dt_of
    from contracts.messages import SubmitMove, envelope
    from contracts.messages import GAME_COMMANDS
    from shared.eventlog.kafka import parse_record
    from loadtests.load import Games, move_record

    games = Games("r1", [["e2e4", "e7e5"]] * 3)
    eid = uuid.UUID("12345678-1234-5678-1234-567812345678")
    for ply, at_ms in ((0, 1_796_251_136_292), (1, 1_700_000_000_007)):
        cid, value, key = move_record(games, 2, at_ms=at_ms, event_id=eid)
        player = ("p2w", "p2b")[ply]
        want = envelope(SubmitMove(game_id="ltr1-2", player_id=player, move=("e2e4", "e7e5")[ply]),
                        event_id=eid, stream="game-ltr1-2.commands.r1", seq=ply + 1,
                        occurred_at=dt_of(at_ms), actor=Actor(kind="player", id=player))
        assert (cid, value, key) == (str(eid), want.model_dump_json().encode(), b"game-ltr1-2")
        assert parse_record(GAME_COMMANDS, value) == want


def test_kill_every_kills_the_game_process_and_starts_it_again_on_its_port(monkeypatch, tmp_path):
    """``--kill-every``: the instance ``game`` gets SIGKILL, is waited for, and is started
    again on the same port with its restart count; the others are left alone."""
    import asyncio
    import signal

    import services.tools.supervisor as supervisor
    from loadtests.load import kill_game_every

    class Proc:
        def __init__(self, name):
            self.name, self.signals = name, []

        def send_signal(self, sig):
            self.signals.append(sig)

        def wait(self):
            return -9

    started = []
    monkeypatch.setattr(supervisor, "spawn", lambda inst, bus, port, restarts=0, output=None:
                        started.append((inst, bus, port, restarts)) or Proc(f"{inst}@{restarts}"))
    first, tournament = Proc("game@0"), Proc("tournament")
    procs = {"game": (first, 18100), "tournament": (tournament, 18101)}
    kills: list[float] = []

    async def run():
        task = asyncio.create_task(kill_game_every(procs, "kafka://x:1", 0.01, kills, tmp_path / "out.log"))
        while len(kills) < 2:
            await asyncio.sleep(0.005)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    asyncio.run(run())
    assert first.signals == [signal.SIGKILL] and tournament.signals == []
    assert started[:2] == [("game", "kafka://x:1", 18100, 1), ("game", "kafka://x:1", 18100, 2)]
    assert procs["game"][1] == 18100 and procs["game"][0].name == f"game@{len(kills)}"


def test_a_command_unseen_by_the_collector_is_lost_only_when_the_log_shows_no_backlog():
    """A run over capacity stops its services with a backlog: those commands were reported
    lost (7,865 in a capped run), and the audit, reading the log without the decided offsets,
    called each one's decisions missing (3,730 differences). The audit's read of the log tells
    a late decision and a backlog from a loss."""
    from loadtests.load import _classify_unseen

    aud = {"decided": {"a", "x"}, "undecided": {"b"}}
    assert _classify_unseen({"a", "b", "c"}, aud) == ({"a"}, {"b"}, {"c"})
    assert _classify_unseen({"a", "b", "c"}, None) == (set(), set(), {"a", "b", "c"})


def test_the_report_counts_each_steps_losses_by_the_audits_read_of_the_log():
    """Each step's ``lost`` in the JSON is a count of its own commands that neither reached
    the collector nor show in the log as decided or backlog; the top-level figures are the
    run's. The bare baseline has no audit: its unseen commands are all lost."""
    from types import SimpleNamespace

    from loadtests.load import _baseline_report, _report, finish_curve

    commands = {"c1": 1.0, "c2": 1.1, "c3": 2.0, "c4": 2.1, "c5": 2.2}
    collector = SimpleNamespace(decisions=[("c1", 1.01, "MoveAccepted", None),
                                           ("c3", 2.02, "MoveAccepted", None)],
                                events=[("game-a", 1, "MoveAccepted", "c1"),
                                        ("game-a", 2, "MoveAccepted", "c3")])

    def rows():
        return [{"target_moves_per_s": r, "games": 10, "interval_s": 5.0, "sent": len(cids),
                 "moves_per_s": float(r), "send_lag_ms": 0.0, "cpu": {}, "warmup": False,
                 "_cids": cids, "_t0": t0}
                for r, cids, t0 in ((2, ["c1", "c2"], 1.0), (3, ["c3", "c4", "c5"], 2.0))]

    done, m = finish_curve(rows(), commands, collector)
    sysres = {"rows": done, "match": m, "throttled_s": None, "games_started": 10, "commands": 5,
              "send_errors": 0, "send_error_samples": [], "cpu": ({}, {}), "histograms": {},
              "kills": 0}
    a = SimpleNamespace(bus="kafka://x:1", via="log", instances=1, cpu_per_instance=0.0,
                        seed=1, games=10, move_every=5.0, duration=1.0, warmup=0.0)
    aud = {"decided": {"c4"}, "undecided": {"c2"}, "differences": 0, "messages": 9, "games": 1,
           "seconds": 0.1, "by_kind": {}, "examples": []}
    report = _report(a, "run", sysres, None, aud)
    assert [r["lost"] for r in report["offered_curve"]] == [0, 1]  # c2 backlog, c4 late, c5 lost
    assert (report["lost"], report["decided_after_the_run"], report["undecided_at_stop"]) == (1, 1, 1)
    assert report["target_moves_per_s"] == 3 and report["latency_ms"]["max"] == 20.0
    done, m = finish_curve(rows(), commands, collector)
    base = _baseline_report({"rows": done, "match": m, "cpu": ({}, {})})
    assert [r["lost"] for r in base["offered_curve"]] == [1, 2] and base["lost"] == 3
