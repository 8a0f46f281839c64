"""Audit: re-derive every decision of a real event's log; tampering is found and named."""
from __future__ import annotations

import json
import subprocess
import sys
from datetime import timedelta

import pytest

from contracts.messages import TOPICS
from services.tools.audit import audit
from services.tools.embedded import arbiter_client
from services.tools.host import host_record
from services.tools.logio import select

CHEB = "data/chess/pgn/chebanenko-memorial-2020-round-robin-10-players.pgn"


@pytest.fixture(scope="module")
def hosted_log(shared_data_module):
    """All messages of the Chebanenko Memorial hosted on the memory bus (tournament + games)."""
    import asyncio

    async def run():
        async with arbiter_client("memory", ticks=False) as c:
            await host_record(c, str(shared_data_module(CHEB)), pairings="berger", tournament_id="cheb")
            return select(await c.arbiter_log.read_many(TOPICS), "tournament-cheb")
    return asyncio.run(run())


@pytest.fixture(scope="module")
def shared_data_module():
    from tests.conftest import require_shared
    return require_shared


@pytest.mark.realdata
async def test_untouched_log_rederives_exactly(hosted_log):
    assert len(hosted_log) > 10_000
    assert await audit(hosted_log) == []


@pytest.mark.realdata
async def test_tampered_move_is_named(hosted_log):
    msgs = list(hosted_log)
    i = next(i for i, m in enumerate(msgs) if m.type == "MoveAccepted" and m.payload.game_id == "cheb-r3-b2"
             and m.payload.ply == 20)
    victim = msgs[i]
    forged = victim.payload.model_copy(update={"uci": "a2a3", "san": "a3"})
    msgs[i] = victim.model_copy(update={"payload": forged})
    diffs = await audit(msgs)
    assert {(d.stream, d.seq, d.type) for d in diffs} == {(victim.stream, victim.seq, "MoveAccepted")}
    assert {d.what for d in diffs} == {"payload.uci", "payload.san"}
    uci = next(d for d in diffs if d.what == "payload.uci")
    assert (uci.recorded, uci.rederived) == ("a2a3", victim.payload.uci)
    assert uci.event_id == str(victim.event_id)


@pytest.mark.realdata
async def test_tampered_timestamp_changes_the_clock_decision(hosted_log):
    msgs = list(hosted_log)
    i = next(i for i, m in enumerate(msgs) if m.type == "SubmitMove" and m.payload.game_id == "cheb-r5-b1"
             and m.seq == 12)
    cmd = msgs[i]
    msgs[i] = cmd.model_copy(update={"occurred_at": cmd.occurred_at + timedelta(seconds=7)})
    diffs = await audit(msgs)
    accepted = [d for d in diffs if d.type == "MoveAccepted"]
    clock = [d for d in diffs if d.type == "ClockUpdated"]
    # the move's event time and the clock reading after it change; nothing else
    assert [(d.what, d.stream) for d in accepted] == [("occurred_at", "game-cheb-r5-b1")]
    assert {d.stream for d in diffs} <= {"game-cheb-r5-b1", "game-cheb-r5-b1.clock"}
    assert any(d.what in ("payload.white_ms", "payload.black_ms") and
               abs(d.recorded - d.rederived) == 7000 for d in clock)


@pytest.mark.realdata
async def test_dropped_event_is_a_gap(hosted_log):
    msgs = list(hosted_log)
    i = next(i for i, m in enumerate(msgs) if m.type == "ClockUpdated" and m.payload.game_id == "cheb-r1-b1"
             and m.seq == 5)
    del msgs[i]
    diffs = await audit(msgs)
    assert any(d.what == "seq gap or repeat" and d.stream == "game-cheb-r1-b1.clock" for d in diffs)
    assert any(d.what == "missing from the log" and d.seq == 5 for d in diffs)


@pytest.mark.realdata
def test_audit_cli_exit_codes(hosted_log, tmp_path):
    good = tmp_path / "game.ndjson"
    game = [m for m in hosted_log if m.aggregate == "game-cheb-r2-b3"]
    good.write_text("".join(m.model_dump_json() + "\n" for m in game))
    r = subprocess.run([sys.executable, "-m", "services.cli", "audit", "--log", str(good)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 difference(s)" in r.stdout
    lines = good.read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if '"type":"ClockUpdated"' in line)
    row = json.loads(lines[k])
    row["payload"]["white_ms"] += 1000
    lines[k] = json.dumps(row)
    bad = tmp_path / "bad.ndjson"
    bad.write_text("\n".join(lines) + "\n")
    r = subprocess.run([sys.executable, "-m", "services.cli", "audit", "--log", str(bad)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    assert f"seq {row['seq']} ClockUpdated" in r.stdout and "payload.white_ms" in r.stdout
    junk = tmp_path / "junk.ndjson"
    junk.write_text('{"type": "Nope"}\n')
    r = subprocess.run([sys.executable, "-m", "services.cli", "audit", "--log", str(junk)],
                       capture_output=True, text=True, timeout=300)
    err = " ".join(r.stderr.split())
    assert r.returncode == 2 and "line 1 of" in err and "junk.ndjson" in err and "Traceback" not in err


async def test_the_export_of_a_go_game_ruled_a_replay_audits_clean_and_so_does_the_replay():
    """A triple ko ruled a replay (1988 art. 20.3) starts game ``<id>-replay1``: each game's own
    export (``export-log --stream game-<id>``) audits with 0 differences, the replay game's
    GameStarted and ClockStarted belonging to the other export, and tampering is still found."""
    from tests.unit.test_go_services import CYCLE, TRIPLE_KO

    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/games", json={"game_id": "cyc", "white": "alice", "black": "bob", "game": "go",
                                          "board_size": 9, "go_rules": "japanese",
                                          "start_fen": TRIPLE_KO, "time_control": "600"})
        assert r.status_code == 200, r.text
        for i, mv in enumerate(CYCLE * 2):
            r = await c.post("/games/cyc/moves", json={"player_id": ["bob", "alice"][i % 2], "move": mv})
            assert r.status_code == 200, r.text
        r = await c.post("/games/cyc/cycle/ruling", json={"ruling": "replay", "reason": "triple ko"})
        assert r.status_code == 200, r.text
        for who in ("bob", "alice"):
            r = await c.post("/games/cyc-replay1/moves", json={"player_id": who, "move": "pass"})
            assert r.status_code == 200, r.text
        everything = await c.arbiter_log.read_many(TOPICS)
    game, replay = select(everything, "game-cyc"), select(everything, "game-cyc-replay1")
    assert {m.aggregate for m in game} == {"game-cyc"} and any(m.type == "EndlessCycleRuled" for m in game)
    assert [m.type for m in replay][:2] == ["GameStarted", "ClockStarted"]
    assert await audit(game) == []
    assert await audit(replay) == []
    # a forged ruling in the game's own log is still named
    i = next(i for i, m in enumerate(game) if m.type == "EndlessCycleRuled")
    forged = game[i].payload.model_copy(update={"reason": "forged"})
    game[i] = game[i].model_copy(update={"payload": forged})
    assert [(d.type, d.what) for d in await audit(game)] == [("EndlessCycleRuled", "payload.reason")]


@pytest.mark.realdata
def test_the_audit_in_forked_workers_finds_what_one_process_finds(hosted_log):
    """The partition keys of a log are re-derived independently: in two forked workers the
    audit reports what one process reports, on the hosted Chebanenko round robin (one key)
    beside six games of their own (six keys), untouched and with one edited decision."""
    from contracts.messages import CreateGame, SubmitMove
    from services.tools.audit import rederive
    from tests.unit.test_game_services import ALICE, BOB, Bus

    bus = Bus()
    for g in range(6):
        bus.send(CreateGame(game_id=f"w{g}", white="alice", black="bob", time_control="300+2"), at=0, actor=ALICE)
        for k, mv in enumerate(["e4", "e5", "Nf3", "Nc6", "Bb5"]):
            bus.send(SubmitMove(game_id=f"w{g}", player_id="alice" if k % 2 == 0 else "bob", move=mv),
                     at=1000 * (k + 1), actor=ALICE if k % 2 == 0 else BOB)
    msgs = list(hosted_log) + bus.log
    assert len({m.key for m in msgs}) == 7
    assert rederive(msgs, workers=2, min_parallel=0) == [] == rederive(msgs)
    i = next(k for k, m in enumerate(msgs) if m.type == "MoveAccepted" and m.payload.game_id == "w3")
    forged = msgs[i].model_copy(update={"payload": msgs[i].payload.model_copy(update={"san": "d4"})})
    edited = msgs[:i] + [forged] + msgs[i + 1:]
    one, two = rederive(edited), rederive(edited, workers=2, min_parallel=0)
    assert sorted(map(str, one)) == sorted(map(str, two)) and [d.what for d in one] == ["payload.san"]
