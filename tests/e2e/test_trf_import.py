"""``arbiter import trf`` on the real TRFs: import through the services, export, compare."""
from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from typer.testing import CliRunner

from services.cli import app
from services.pairing.check import check_pairings

from contracts.messages import TOPICS
from shared.domain.trf import RoundEntry, parse_trf, read_trf
from services.tools.embedded import arbiter_client
from services.tools.logio import select
from shared.domain.trfexport import export_trf
from services.tools.trfimport import import_trf

TRFS = {
    # file: (players, rounds recorded, games paired (played or forfeited)) counted from the file
    "karl-mala-gedenkturnier-2005-frankfurt.trf": (284, 7, 980),
    "lichess-swiss-mai-5plus0-2020-05-29.trf": (13, 10, 56),
    "lichess-swiss-zulfikar-sali-bullet-2020-05-10.trf": (112, 20, 574),  # XXR 21, 20 played
}
#: The result letters our events do not tell apart: unrated W/L/D come back as 1/0/=.
_RATED = {"W": "1", "L": "0", "D": "="}


def _unranked(t) -> list:
    """The players with the rank column blanked (ours is our standings' rank, not the file's)
    and unrated results as rated ones."""
    return [dataclasses.replace(p, rank=None, rounds=[
        e if e is None else dataclasses.replace(e, result=_RATED.get(e.result, e.result))
        for e in p.rounds]) for p in t.players]


@pytest.mark.parametrize("fname", sorted(TRFS))
async def test_import_then_export_gives_the_same_points_and_pairings(fname, shared_data):
    path = shared_data(f"data/chess/trf/{fname}")
    src = read_trf(path)
    players, rounds, games = TRFS[fname]
    assert (len(src.players), src.rounds_recorded, src.games()) == (players, rounds, games)
    async with arbiter_client("memory", ticks=False) as c:
        report = await import_trf(c, path, tournament_id="imported")
        msgs = select(await c.arbiter_log.read_many(TOPICS), "tournament-imported")
    assert report.scores_match_record, report.problems[:5]
    assert len(report.games) == games
    out = parse_trf(export_trf(msgs, "imported"))  # both lines of every pairing agree
    # everything the file had comes back: start numbers, name, sex, title, rating, federation,
    # FIDE id, birth date, points, every round cell (forfeits without colours, "-" absences,
    # "0000 - +" byes, blank cells), the header lines (XXC, dates...) with XXR added if absent
    assert _unranked(out) == _unranked(src)
    assert [h for h in out.headers if h[0] != "XXR"] == [h for h in src.headers if h[0] != "XXR"]
    assert out.rounds == src.rounds or (src.header("XXR") is None and out.rounds == rounds)
    types = [m.type for m in msgs if m.stream == "tournament-imported"]
    assert types.count("RoundPaired") == rounds and types.count("PlayerRegistered") == players


async def test_a_forfeit_and_a_half_point_bye_are_events(shared_data):
    """The lichess Mai event: round 1 has defrank and mainspringer on a half-point bye (H) and
    presidentlangen on the pairing bye (U); our RoundPaired says so, and defrank's 5.5 points
    (TRF) include that ½. Karl-Mala 2005: the 10 forfeit pairings are GameEnded with reason
    ``forfeit``."""
    path = shared_data("data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf")
    async with arbiter_client("memory", ticks=False) as c:
        await import_trf(c, path, tournament_id="mai")
        msgs = select(await c.arbiter_log.read_many(TOPICS), "tournament-mai")
    r1 = next(m.payload for m in msgs if m.type == "RoundPaired" and m.payload.round == 1)
    assert r1.bye == "presidentlangen" and r1.manual
    assert r1.requested_byes == {"defrank": "H", "mainspringer": "H"}
    st = [m.payload for m in msgs if m.type == "StandingsUpdated"][-1]
    assert {r.player_id: r.score for r in st.rows}["defrank"] == 5.5
    path = shared_data("data/chess/trf/karl-mala-gedenkturnier-2005-frankfurt.trf")
    async with arbiter_client("memory", ticks=False) as c:
        report = await import_trf(c, path, tournament_id="km")
    assert sum(g["reason"] == "forfeit" for g in report.games) == 10


def test_arbiter_import_trf_writes_a_log_that_exports(shared_data, tmp_path):
    """``arbiter import trf FILE --log F`` then ``arbiter export trf --log F``: the same points;
    a file that is not a TRF exits 2 with the reader's reason."""
    from typer.testing import CliRunner

    from services.cli import app
    path = shared_data("data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf")
    log = tmp_path / "mai.ndjson"
    res = CliRunner().invoke(app, ["import", "trf", str(path), "--log", str(log), "--tournament-id", "mai"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["export", "trf", "--tournament", "mai", "--log", str(log)])
    assert res.exit_code == 0
    assert {p.name: p.points for p in parse_trf(res.stdout).players} == {
        p.name: p.points for p in read_trf(path).players}
    # the log's only tournament is the default; two tournaments need --tournament
    assert CliRunner().invoke(app, ["export", "trf", "--log", str(log)]).stdout == res.stdout
    two = tmp_path / "two.ndjson"
    two.write_text(log.read_text() + log.read_text().replace('"mai"', '"mai2"'))
    res = CliRunner().invoke(app, ["export", "trf", "--log", str(two)])
    assert res.exit_code == 2 and "2 tournaments" in " ".join(res.output.split())
    bad = tmp_path / "bad.trf"
    bad.write_text("012 nothing\n")
    res = CliRunner().invoke(app, ["import", "trf", str(bad), "--log", str(log)])
    assert res.exit_code == 2 and "not a TRF" in res.output


@pytest.mark.parametrize("fname, matched", [
    # the rounds test_check_pairings.MATCHED records for the original files
    ("lichess-swiss-mai-5plus0-2020-05-29.trf", [4, 5, 6, 7, 8, 9, 10]),
    ("karl-mala-gedenkturnier-2005-frankfurt.trf", [5])])
async def test_check_pairings_answers_the_same_on_the_round_tripped_file(fname, matched, shared_data, tmp_path):
    path = shared_data(f"data/chess/trf/{fname}")
    async with arbiter_client("memory", ticks=False) as c:
        await import_trf(c, path, tournament_id="rt")
        msgs = select(await c.arbiter_log.read_many(TOPICS), "tournament-rt")
    out = tmp_path / fname
    out.write_text(export_trf(msgs, "rt"))
    strip = lambda rep: [{k: v for k, v in r.items() if k != "seconds"} for r in rep["rounds"]]  # noqa: E731
    a, b = check_pairings(path), check_pairings(out)
    assert [r["round"] for r in b["rounds"] if r["matched"]] == matched
    assert strip(a) == strip(b)


def test_export_of_a_log_written_twice_applies_each_message_once(shared_data, tmp_path):
    """``cat L L``: every (stream, seq) twice; the export skips the repeats as consumers do
    (README: nothing doubled): 13 players numbered 1..13 once, 062 13, the same text."""
    path = shared_data("data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf")
    log, twice = tmp_path / "mai.ndjson", tmp_path / "twice.ndjson"
    res = CliRunner().invoke(app, ["import", "trf", str(path), "--log", str(log), "--tournament-id", "mai"])
    assert res.exit_code == 0, res.output
    twice.write_text(log.read_text() * 2)
    once = CliRunner().invoke(app, ["export", "trf", "--tournament", "mai", "--log", str(log)])
    doubled = CliRunner().invoke(app, ["export", "trf", "--tournament", "mai", "--log", str(twice)])
    assert once.exit_code == doubled.exit_code == 0
    assert doubled.stdout == once.stdout
    t = parse_trf(doubled.stdout)
    assert t.declared_players == 13 and [p.number for p in t.players] == list(range(1, 14))
    # a truncated log: the line and the file, no pydantic dump; exit 2
    lines = log.read_text().splitlines()
    cut = tmp_path / "cut.ndjson"
    cut.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:100] + "\n")
    res = CliRunner().invoke(app, ["export", "trf", "--tournament", "mai", "--log", str(cut)])
    assert res.exit_code == 2
    assert f"line {len(lines)} of" in res.output and "tagged-union" not in res.output


async def test_mid_round_export_points_are_the_rows_written(tmp_path):
    """Three players, round 1 played (P1-P2 1-0, P3 the pairing bye), round 2 paired and its
    game running: each points column is the sum of the results written on its line (the bye
    of round 2 counts, the running game is blank and counts 0), and no rank while a written
    game has no result."""
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/tournaments", json={"tournament_id": "mid", "name": "Mid", "system": "swiss", "rounds": 2})
        assert r.status_code == 200, r.text
        for i, rating in enumerate((2400, 2300, 2200), 1):
            r = await c.post("/tournaments/mid/players", json={"player_id": f"p{i}", "name": f"P{i}", "rating": rating})
            assert r.status_code == 200, r.text

        async def paired(rnd):
            for _ in range(400):
                t = (await c.get("/tournaments/mid")).json()
                if len(t["rounds"]) >= rnd and all(b.get("status") not in (None, "created") for b in t["rounds"][rnd - 1]["boards"]):
                    return t["rounds"][rnd - 1]
                await asyncio.sleep(0.02)
            raise AssertionError(f"round {rnd} not paired")
        assert (await c.post("/tournaments/mid/rounds", json={"round": 1})).status_code == 200
        (b1,) = (await paired(1))["boards"]
        await c.post(f"/games/{b1['game_id']}/result", json={"result": "1-0"})
        for _ in range(400):
            if (await c.post("/tournaments/mid/rounds", json={"round": 2})).status_code == 200:
                break
            await asyncio.sleep(0.02)
        await paired(2)
        await asyncio.sleep(0.2)
        msgs = select(await c.arbiter_log.read_many(TOPICS), "tournament-mid")
    t = parse_trf(export_trf(msgs, "mid"))
    assert [p.points for p in t.players] == [p.result_sum for p in t.players]
    assert all(p.rank is None for p in t.players)
    byes = [p.number for p in t.players if p.entry(2) == RoundEntry(None, "-", "U")]
    assert len(byes) == 1 and t.player(byes[0]).points == t.player(byes[0]).entry(1).points + 1.0
    running = [p.number for p in t.players if p.entry(2) is None]
    assert len(running) == 2  # the round-2 game, no result yet


def test_import_usage_errors_exit_2_before_importing(tmp_path):
    one = tmp_path / "one.trf"
    one.write_text("012 Test\nXXR 2\n001    1      A" + " " * 33 + "2000" + " " * 29 + "0.0\n")
    log = tmp_path / "new" / "dir" / "one.ndjson"
    res = CliRunner().invoke(app, ["import", "trf", str(one), "--log", str(log)])
    assert res.exit_code == 2 and "at least two players" in res.output and not log.exists()
    two = tmp_path / "two.trf"
    two.write_text(one.read_text() + "001    2      B" + " " * 33 + "1900" + " " * 29 + "0.0\n")
    res = CliRunner().invoke(app, ["import", "trf", str(two), "--log", str(log), "--tournament-id", "a b"])
    assert res.exit_code == 2 and "--tournament-id" in res.output
    # a --log in a directory that does not exist yet: created, as --json does
    res = CliRunner().invoke(app, ["import", "trf", str(two), "--log", str(log), "--tournament-id", "ab"])
    assert log.exists() and json.loads(log.read_text().splitlines()[0])["stream"].startswith("tournament-ab")


def test_an_imported_log_is_signed_and_audits_clean_with_the_key(shared_data, tmp_path, monkeypatch):
    """``import trf --log F`` writes the checkpoints with the messages (as ``export-log``): with
    the importer's key given, ``audit --log F --verify-key`` finds nothing (a log without them
    is ``end not signed`` at each of its 56 games' GameEnded and the event's end), and the file
    cut after a game's end checkpoint is ``truncated``."""
    from shared.signing import new_key

    private, public = new_key()
    monkeypatch.setenv("ARBITER_SIGNING_KEY", private)
    monkeypatch.delenv("ARBITER_VERIFY_KEYS", raising=False)
    path = shared_data("data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf")
    log = tmp_path / "mai.ndjson"
    res = CliRunner().invoke(app, ["import", "trf", str(path), "--log", str(log), "--tournament-id", "mai"])
    assert res.exit_code == 0, res.output
    lines = log.read_text().splitlines()
    ends = [i for i, line in enumerate(lines) if json.loads(line)["type"] == "GameEnded"]
    assert len(ends) == 56
    assert sum(json.loads(line)["type"] == "StreamsCheckpointed" for line in lines) >= 57
    res = CliRunner().invoke(app, ["audit", "--log", str(log), "--verify-key", public])
    out = " ".join(res.output.split())
    assert res.exit_code == 0 and "0 integrity finding(s)" in out and "0 difference(s)" in out, out
    cut = tmp_path / "cut.ndjson"  # the last game's result cut off, its checkpoint kept
    cut.write_text("\n".join(lines[:ends[-1]] + lines[ends[-1] + 1:]) + "\n")
    res = CliRunner().invoke(app, ["audit", "--log", str(cut), "--verify-key", public])
    assert res.exit_code == 1 and "truncated" in " ".join(res.output.split())
