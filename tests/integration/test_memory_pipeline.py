"""The whole back end (System: validation, clock, adjudication, penalties, pairing, standings) on
the in-memory log: determinism, redelivery and crash/restart (DESIGN.md invariants 1 and 3).

Commands are published directly, as the gateway would (its own gap-free command stream, receive
time stamped by the test, fixed event ids), one at a time, waiting for the log to be idle between
them, like the gateway waiting for each outcome. The clock's wall-time timer is off
(``ticks=False``): a flag falls on a late move instead.
"""
from __future__ import annotations

from uuid import UUID

from contracts.envelope import Actor, dt_of
from contracts.messages import (
    GAME_COMMANDS, GAME_EVENTS, TOPICS, ClaimDraw, CreateGame, IssuePenalty, OfferDraw, Resign,
    SubmitMove, envelope,
)
from shared.eventlog.memory import MemoryLog
from services.system import System

T0 = 1_700_000_000_000
ALICE = Actor(kind="player", id="alice")
BOB = Actor(kind="player", id="bob")
ARBITER = Actor(kind="arbiter", id="arb")
ORGANISER = Actor(kind="organiser", id="org")
WHO = {"alice": ALICE, "bob": BOB}


def _moves(gid: str, sans: list[str], start: int, step: int = 3_000) -> list[tuple]:
    out, who = [], "alice"
    for i, san in enumerate(sans):
        out.append((start + i * step, WHO[who], SubmitMove(game_id=gid, player_id=who, move=san)))
        who = "bob" if who == "alice" else "alice"
    return out


# A scripted session on three games. g1: opening moves, moves out of turn (rejected), an
# incorrect threefold claim (5-minute penalty, art. 10.13(2)), an arbiter time penalty, a draw
# offer declined by the opponent's move, castling, then black resigns (1-0, art. 10.2).
# g2: Fool's mate (0-1, art. 10.1). g3: white's first move arrives after the 60 s flag (0-1).
SCRIPT: list[tuple[int, Actor, object]] = [
    (0, ORGANISER, CreateGame(game_id="g1", white="alice", black="bob", time_control="600+5")),
    (0, ORGANISER, CreateGame(game_id="g2", white="alice", black="bob", time_control="300+2")),
    (0, ORGANISER, CreateGame(game_id="g3", white="alice", black="bob", time_control="60")),
    *_moves("g1", ["e4", "e5", "Nf3", "Nc6"], 2_000),
    (14_000, BOB, SubmitMove(game_id="g1", player_id="bob", move="Nf6")),  # not black's turn
    (15_000, ALICE, ClaimDraw(game_id="g1", player_id="alice", reason="threefold")),
    (16_000, ARBITER, IssuePenalty(game_id="g1", player_id="bob", kind="time-penalty", ms=30_000)),
    *_moves("g2", ["f3", "e5"], 17_000),
    (25_000, ALICE, SubmitMove(game_id="g1", player_id="alice", move="Bb5")),
    (26_000, BOB, OfferDraw(game_id="g1", player_id="bob")),
    (27_000, ALICE, SubmitMove(game_id="g1", player_id="alice", move="O-O")),  # not her turn
    (28_000, BOB, SubmitMove(game_id="g1", player_id="bob", move="a6")),
    (29_000, ALICE, SubmitMove(game_id="g2", player_id="alice", move="g4")),
    (30_000, BOB, SubmitMove(game_id="g2", player_id="bob", move="Qh4#")),
    (31_000, ALICE, SubmitMove(game_id="g1", player_id="alice", move="Bxc6")),
    (32_000, BOB, SubmitMove(game_id="g1", player_id="bob", move="dxc6")),
    (61_000, ALICE, SubmitMove(game_id="g3", player_id="alice", move="e4")),  # flag: 60 000
    (62_000, ALICE, SubmitMove(game_id="g1", player_id="alice", move="O-O")),
    (63_000, BOB, Resign(game_id="g1", player_id="bob")),
]
HALF = 12  # commands played before the "crash"


class Driver:
    """Publishes the script's commands like the gateway (one command stream per game)."""

    def __init__(self, log: MemoryLog) -> None:
        self.log = log

    async def send(self, i: int) -> None:
        at, actor, payload = SCRIPT[i]
        stream = f"game-{payload.game_id}.commands"
        seq = 1 + sum(1 for _, _, p in SCRIPT[:i] if p.game_id == payload.game_id)
        cmd = envelope(payload, stream=stream, seq=seq, occurred_at=dt_of(T0 + at), actor=actor,
                       event_id=UUID(int=i + 1))
        await self.log.publish(GAME_COMMANDS, cmd)
        await self.log.idle()

    async def run(self, start: int = 0, stop: int | None = None) -> None:
        for i in range(start, len(SCRIPT) if stop is None else stop):
            await self.send(i)


async def dump(log: MemoryLog) -> list[dict]:
    return [m.model_dump(mode="json") for m in await log.read_many(TOPICS)]


async def uninterrupted() -> tuple[MemoryLog, System]:
    log = MemoryLog()
    system = System(log, ticks=False)
    await log.start()
    try:
        await Driver(log).run()
    finally:
        await log.stop()
    return log, system


def assert_gap_free(msgs: list[dict]) -> None:
    seqs: dict[str, list[int]] = {}
    for m in msgs:
        seqs.setdefault(m["stream"], []).append(m["seq"])
    for stream, got in seqs.items():
        assert got == list(range(1, len(got) + 1)), (stream, got)
    ids = [m["event_id"] for m in msgs]
    assert len(ids) == len(set(ids)), "an event id appears twice"


def by_stream(msgs: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for m in msgs:
        out.setdefault(m["stream"], []).append(m)
    return out


def results(msgs: list[dict]) -> dict[str, tuple]:
    return {m["payload"]["game_id"]: (m["payload"]["result"], m["payload"]["reason"],
                                      m["payload"]["rule"]["article"])
            for m in msgs if m["type"] == "GameEnded"}


async def test_script_outcomes_and_gap_free_streams():
    log, _ = await uninterrupted()
    msgs = await dump(log)
    assert_gap_free(msgs)
    assert results(msgs) == {
        "g1": ("1-0", "resignation", "10.2"),
        "g2": ("0-1", "checkmate", "10.1"),
        "g3": ("0-1", "timeout", "10.14"),
    }
    types = [m["type"] for m in msgs]
    assert types.count("DrawClaimRejected") == 1
    assert types.count("DrawOfferDeclined") == 1
    assert types.count("MoveRejected") == 3  # Nf6 out of turn, O-O out of turn, late e4 in g3
    pens = [m["payload"] for m in msgs if m["type"] == "PenaltyApplied"]
    assert [(p["colour"], p["time_delta_ms"], p["rule"]["article"]) for p in pens] == [
        ("white", -300_000, "10.13(2)"), ("black", -30_000, "16.5")]
    adj = [m["payload"] for m in msgs if m["type"] == "ClockAdjusted"]
    # g1 "600+5": 605 000 each at the start. White: -2 000 (e4 at 2 s) +5 000, -3 000 (Nf3 at
    # 8 s) +5 000 = 610 000 at her turn start (11 s), minus the 300 000 penalty = 310 000.
    # Black: -3 000 +5 000, -3 000 +5 000 = 609 000, minus 30 000 = 579 000.
    assert [(a["colour"], a["white_ms"], a["black_ms"]) for a in adj] == [
        ("white", 310_000, 609_000), ("black", 310_000, 579_000)]
    flag = [m for m in msgs if m["type"] == "FlagFell"]
    assert len(flag) == 1 and flag[0]["payload"]["deadline_ms"] == T0 + 60_000
    # Every decision names its cause; every service event is on its service's own stream.
    for m in msgs:
        if m["actor"]["kind"] == "service":
            assert m["causation_id"] is not None
            owner = {"validation": None, "clock": "clock", "adjudication": "result",
                     "penalties": "penalties"}[m["actor"]["id"]]
            assert m["stream"].split(".")[1:] == ([owner] if owner else [])


async def test_determinism_two_runs_identical():
    log1, _ = await uninterrupted()
    log2, _ = await uninterrupted()
    a, b = await dump(log1), await dump(log2)
    assert len(a) > 60
    assert_gap_free(a)
    assert a == b  # same event ids, seqs, times, payloads, in the same order


async def test_redelivery_emits_nothing_new():
    log = MemoryLog()
    System(log, ticks=False)
    await log.start()
    try:
        await Driver(log).run()
        before = await dump(log)
        commands = await log.read(GAME_COMMANDS)
        events = await log.read(GAME_EVENTS)
        # A move command, a claim (whose consequences span three services), an event of each
        # service's stream, and the first and last messages of each topic.
        picks = [(GAME_COMMANDS, i) for i, c in enumerate(commands)
                 if c.type in ("SubmitMove", "ClaimDraw", "CreateGame")][:6]
        picks += [(GAME_COMMANDS, len(commands) - 1)]
        seen_streams = set()
        for i, e in enumerate(events):
            if e.stream not in seen_streams:
                seen_streams.add(e.stream)
                picks.append((GAME_EVENTS, i))
        picks += [(GAME_EVENTS, 0), (GAME_EVENTS, len(events) - 1)]
        for topic, i in picks:
            log.redeliver(topic, i)
        await log.idle()
        assert log.pending() == 0
        assert await dump(log) == before
    finally:
        await log.stop()


async def copy_log(old: MemoryLog, keep=None) -> MemoryLog:
    """A new log holding ``old``'s messages in their publish order (optionally only those for
    which ``keep(msg)``)."""
    new = MemoryLog()
    for m in await old.read_many(TOPICS):
        if keep is None or keep(m):
            await new.publish(type(m.payload).TOPIC, m)
    return new


async def test_restart_after_clean_stop_equals_uninterrupted_run():
    reference, _ = await uninterrupted()
    want = await dump(reference)

    log = MemoryLog()
    System(log, ticks=False)
    await log.start()
    await Driver(log).run(stop=HALF)
    await log.stop()  # the process dies

    revived = await copy_log(log)
    system = System(revived, ticks=False)
    await system.recover()
    await revived.start()
    try:
        await revived.idle()
        assert await dump(revived) == await dump(log)  # recovery adds nothing
        await Driver(revived).run(start=HALF)
        got = await dump(revived)
    finally:
        await revived.stop()
    assert_gap_free(got)
    assert got == want


async def test_crash_before_effects_written_recovers_them():
    """A crash right after command ``HALF - 1`` was logged but before any service wrote its
    decisions: the restarted services derive the missing decisions, so each stream ends up equal
    to the uninterrupted run's (the order between streams may differ)."""
    reference, _ = await uninterrupted()
    want = await dump(reference)
    lost_cause = UUID(int=HALF)  # event id of command index HALF - 1

    log = MemoryLog()
    System(log, ticks=False)
    await log.start()
    await Driver(log).run(stop=HALF)
    await log.stop()

    # Drop everything caused, directly or indirectly, by the last command.
    msgs = await log.read_many(TOPICS)
    lost = {lost_cause}
    for m in msgs:
        if m.causation_id in lost:
            lost.add(m.event_id)
    assert len(lost) > 2  # MoveAccepted and ClockUpdated at least
    revived = await copy_log(log, keep=lambda m: m.event_id == lost_cause or m.event_id not in lost)

    system = System(revived, ticks=False)
    await system.recover()
    await revived.start()
    try:
        await revived.idle()
        mid = await dump(revived)
        assert len(mid) == len(await dump(log))  # the lost decisions are back, once
        await Driver(revived).run(start=HALF)
        got = await dump(revived)
    finally:
        await revived.stop()
    assert_gap_free(got)
    assert by_stream(got) == by_stream(want)
    assert len(got) == len(want)
