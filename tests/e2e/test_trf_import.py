"""``arbiter import trf`` on the real TRFs: import through the services, export, compare."""
from __future__ import annotations

import pytest

from contracts.messages import TOPICS
from services.pairing.trf import parse_trf, read_trf
from services.tools.embedded import arbiter_client
from services.tools.logio import select
from services.tools.trfexport import export_trf
from services.tools.trfimport import import_trf

TRFS = {
    # file: (players, rounds recorded, games paired (played or forfeited)) counted from the file
    "karl-mala-gedenkturnier-2005-frankfurt.trf": (284, 7, 980),
    "lichess-swiss-mai-5plus0-2020-05-29.trf": (13, 10, 56),
    "lichess-swiss-zulfikar-sali-bullet-2020-05-10.trf": (112, 20, 574),  # XXR 21, 20 played
}
#: How our export writes a round without an opponent: U stays U; F and "+" (forfeit win without
#: an opponent) are full-point byes F; H stays H; "-", Z and a blank are "not paired": Z.
_NO_OPPONENT = {"U": "U", "F": "F", "+": "F", "H": "H", "Z": "Z", "-": "Z"}


def _rounds(t, rnd: int) -> tuple[set, dict]:
    """Round ``rnd`` by names: {(white, black, white's result letter)} and {name: bye letter}."""
    name = {p.number: p.name for p in t.players}
    games, byes = set(), {}
    for p in t.players:
        e = p.entry(rnd)
        if e is None:
            byes[p.name] = "Z"
        elif e.opponent is None:
            byes[p.name] = _NO_OPPONENT[e.result]
        elif e.colour == "w" or (e.colour == "-" and p.number < e.opponent):
            games.add((p.name, name[e.opponent], {"W": "1", "L": "0", "D": "="}.get(e.result, e.result)))
    return games, byes


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
    assert {p.name: p.points for p in out.players} == {p.name: p.points for p in src.players}
    for rnd in range(1, rounds + 1):
        assert _rounds(out, rnd) == _rounds(src, rnd), f"round {rnd}"
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
    bad = tmp_path / "bad.trf"
    bad.write_text("012 nothing\n")
    res = CliRunner().invoke(app, ["import", "trf", str(bad), "--log", str(log)])
    assert res.exit_code == 2 and "not a TRF" in res.output
