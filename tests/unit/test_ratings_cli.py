"""``arbiter ratings --trf FILE`` on real TRFs of ../shared (FIDE B.02 tables 8.1.a/8.1.b,
art. 8.3.1-8.3.3), each checked value worked by hand in the test's docstring, and its one-line
errors."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from services.cli import app

KARL = "data/chess/trf/karl-mala-gedenkturnier-2005-frankfurt.trf"
BBP13 = "data/chess/trf-generated/bbp-dutch2025-seed0008-013p-06r.trf"


def _ratings(path, tmp_path, *extra):
    out = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["ratings", "--trf", str(path), "--json", str(out), *extra])
    assert res.exit_code == 0, res.output
    return res.output, {p["number"]: p for p in json.loads(out.read_text())["players"]}


def test_generated_swiss_by_hand(shared_data, tmp_path):
    """bbp-dutch2025 seed 8 (13 players, 6 rounds), no birth dates, so K = --k 20 under 2400.
    Player 8 (1925): loses to 2 (2623: D -698 counts -400 -> PD .08), 6 (2275: D -350,
    345-357 -> .89 for the higher, .11 for him) and 10 (1765: D 160, 154-162 -> .71); round 4
    a pairing bye (not rated); beats 11 (1354: D 571 -> 400 -> .92) and 13 (1219: -> .92).
    W 2, We .08 + .11 + .71 + .92 + .92 = 2.74, 20 x (2 - 2.74) = -14.8 -> -15.
    Rp: Ra 9236 / 5 = 1847.2 -> 1847, p 2/5 = .40 -> -dp(.60) = -72 -> 1775.
    Player 1 (2641, K 10 from the rating; below 2650, so capped): beats 7 (2187: 454 -> 400,
    .92), 4 (2303: 338, .88), 6 (2275: 366, .90), 3 (2415: 226, .79), 5 (2300: 341, .88);
    loses to 2 (2623: 18, .53).  W - We = .08 + .12 + .10 + .21 + .12 - .53 = .10 -> +1.0."""
    text, rows = _ratings(shared_data(BBP13), tmp_path)
    p8 = rows[8]
    assert (p8["k"], p8["k_source"], p8["games"], p8["score"], p8["expected"]) == (20, "given", 5, 2, 2.74)
    assert (p8["change"], p8["rounded"], p8["performance"]) == (-14.8, -15, 1775)
    assert (rows[1]["k"], rows[1]["k_source"], rows[1]["change"], rows[1]["rounded"]) == (10, "rating", 1.0, 1)
    assert "-14.80" in text and "1775" in text


def test_karl_mala_junior_k40_and_forfeit_not_rated(shared_data, tmp_path):
    """Karl-Mala-Gedenkturnier 2005 (ends 31.07.2005).
    No 25 Strohhaeker 2251, born 1987: 2005 is the year of his 18th birthday and he is under
    2300 -> K 40.  Beats 165 (unrated: not rated), 104 (2022: D 229, .79), 74 (2086: 165, .72),
    2 (2482: -231, .21), 10 (2415: -164, .28); draws 1 (2558: -307, .14); loses to 5 (2451:
    -200, .24).  W 4.5, We 2.38, 40 x 2.12 = +84.8 -> 85; Rp: Ra 14014 / 6 = 2335.67 -> 2336,
    p .75 -> 193 -> 2529.
    No 63 Heidorn 2105, born 1974 -> K given (20).  Round 1 a forfeit win over 204 and round 7
    a win over unrated 175: neither rated.  Beats 134 (1929: D 176, .73); draws 18 (2320:
    -215, .23), 14 (2362: -257, .18), 21 (2302: -197, .25), 10 (2415: -310, .14).  W 3,
    We 1.53, 20 x 1.47 = +29.4 -> 29; with --k 40: +58.8 -> 59.  Rp: Ra 11328 / 5 = 2265.6
    -> 2266, p .60 -> 72 -> 2338."""
    _, rows = _ratings(shared_data(KARL), tmp_path)
    s = rows[25]
    assert (s["k"], s["k_source"], s["games"], s["score"], s["expected"]) == (40, "age", 6, 4.5, 2.38)
    assert (s["change"], s["rounded"], s["performance"]) == (84.8, 85, 2529)
    h = rows[63]
    assert (h["k"], h["k_source"], h["games"], h["score"], h["expected"]) == (20, "given", 5, 3, 1.53)
    assert (h["change"], h["rounded"], h["performance"]) == (29.4, 29, 2338)
    _, rows40 = _ratings(shared_data(KARL), tmp_path, "--k", "40")
    assert (rows40[63]["k"], rows40[63]["change"], rows40[63]["rounded"]) == (40, 58.8, 59)
    assert rows40[25]["k"] == 40 and rows40[1]["k"] == 10  # only the "given" K follows --k
    assert rows[165]["rating"] is None and rows[165]["change"] is None  # unrated: no change


@pytest.mark.parametrize("make, expected", [
    (lambda d: d / "missing.trf", "cannot read"),
    (lambda d: d, "cannot read"),  # a folder
    (lambda d: (d / "x.trf").write_text("hello\n") and d / "x.trf", "TRF line 1"),
])
def test_bad_path_one_line_error(tmp_path, make, expected):
    path = make(tmp_path)
    res = CliRunner().invoke(app, ["ratings", "--trf", str(path)])
    text = " ".join(res.output.split())  # rich wraps one message at the console's width
    assert res.exit_code == 2
    assert text.startswith("arbiter: ") and text.count("arbiter: ") == 1 and expected in text
    assert "Traceback" not in res.output


def test_k_must_be_positive(shared_data):
    res = CliRunner().invoke(app, ["ratings", "--trf", str(shared_data(BBP13)), "--k", "0"])
    assert res.exit_code == 2 and "--k must be a positive whole number" in " ".join(res.output.split())


def test_unrated_results_forfeits_and_byes_are_not_rated():
    """B.02 5.1 / TRF result letters: 1 beats 2 over the board, marked unrated (W/L): not
    rated; 1 wins 3 by forfeit (+/-): not rated; 1 has a full-point bye (F); 1 draws 4 (=):
    rated, 2000 v 2000 -> PD .50, change 20 x 0 = 0 over one game, Rp = 2000 + dp(.5) = 2000."""
    from shared.domain.trf import RoundEntry as E, Tournament, TrfPlayer
    from services.ratings.report import event_changes
    players = [
        TrfPlayer(1, "A", rating=2000, rounds=[E(2, "w", "W"), E(3, "b", "+"), E(None, "-", "F"), E(4, "w", "=")]),
        TrfPlayer(2, "B", rating=1900, rounds=[E(1, "b", "L")]),
        TrfPlayer(3, "C", rating=1800, rounds=[None, E(1, "w", "-")]),
        TrfPlayer(4, "D", rating=2000, rounds=[None, None, None, E(1, "b", "=")]),
    ]
    a = event_changes(Tournament(players=players, rounds=4))[0]
    assert (a.games, a.score, a.expected, a.change, a.performance) == (1, 0.5, 0.5, 0.0, 2000)
