"""``arbiter import h9`` on the real OpenGotha results list of Juvisy 2019 (19 players, 4 rounds)."""
from __future__ import annotations

from typer.testing import CliRunner

from services.cli import app
from services.tools.h9import import read_h9
from shared.domain.trf import parse_trf


def test_arbiter_import_h9_writes_a_log_that_exports(shared_data, tmp_path):
    """``arbiter import h9 FILE --log F`` hosts the McMahon (exit 0: the points match the file),
    ``arbiter export trf --log F`` gives every player the file's points (wins, Daguenet's and
    Vargas's absences ½ each as half-point byes); a file that is not a results list exits 2
    with the reader's reason, an unknown kind of import exits 2 naming both."""
    path = shared_data("data/go/tournaments/tournoi-de-juvisy-2019.h9")
    log = tmp_path / "juvisy.ndjson"
    res = CliRunner().invoke(app, ["import", "h9", str(path), "--log", str(log), "--tournament-id", "juvisy"])
    assert res.exit_code == 0, res.output
    assert "19 players, 36 games; scores match the H9: True" in " ".join(res.output.split())
    res = CliRunner().invoke(app, ["export", "trf", "--tournament", "juvisy", "--log", str(log)])
    assert res.exit_code == 0
    points = {p.name: p.points for p in parse_trf(res.stdout).players}
    assert points == {p.name: p.points for p in read_h9(path).players}
    assert (points["Minieri Davide"], points["Daguenet Mathieu"], points["Vargas Olga"]) == (4.0, 1.5, 1.5)
    bad = tmp_path / "bad.h9"
    bad.write_text("; EV[x]\n")
    res = CliRunner().invoke(app, ["import", "h9", str(bad), "--log", str(log)])
    assert res.exit_code == 2 and "no player lines" in res.output
    res = CliRunner().invoke(app, ["import", "sgf", str(bad), "--log", str(log)])
    assert res.exit_code == 2 and "trf, h9" in res.output
