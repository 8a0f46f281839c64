"""Standings of real events from ../shared/data through services.standings.report."""
from __future__ import annotations

import re

import pytest

from services.standings.report import read_trf_results, standings_from_file, standings_of

TRF = "data/chess/trf/"
UZ = "data/chess/pgn/uzchess-cup-masters-2025-headers-only.pgn"
UZ_EXPECTED = "data/chess/pgn/uzchess-cup-masters-2025.expected-tiebreaks.txt"

pytestmark = pytest.mark.realdata


@pytest.mark.parametrize("name", ["karl-mala-gedenkturnier-2005-frankfurt.trf",
                                  "lichess-swiss-mai-5plus0-2020-05-29.trf",
                                  "lichess-swiss-zulfikar-sali-bullet-2020-05-10.trf"])
def test_trf_scores_equal_recorded_points(shared_data, name):
    ev = read_trf_results(shared_data(TRF + name))
    st = standings_of(ev, ())
    assert st["players"] and all(p["score"] == ev.points[p["id"]] for p in st["players"])


def test_karl_mala_2005_ranks(shared_data):
    # 284 players, 276 with a recorded rank.  The record is reproduced in full by points, then
    # Buchholz, Sonneborn-Berger, wins and start number, with forfeits counted as draws in the
    # opponents' scores (ruleset forfeit-draw-2005; core docstring, unplayed="forfeit-draw").
    # Found by a search over orders and unplayed-game conventions (the best FIDE-rule order before,
    # BH/BH-M1/SB with real opponents and withdrawn players ranked, gave 72 of 276).  The 8 unranked (rank 0) are the players with no entry in
    # round 7: 13 (never played), 27 (left after R5), 121, 126, 179 (after R3), 156, 180 (after
    # R6) and 284 "spielfrei" (the bye pseudo-player); our rank 0 for them equals the record.
    path = shared_data(TRF + "karl-mala-gedenkturnier-2005-frankfurt.trf")
    st = standings_from_file(path, "forfeit-draw-2005")
    assert st["order"] == ["BH", "SB", "WIN", "SNO"]
    ranked = [p for p in st["players"] if p["recorded_rank"] > 0]
    assert len(ranked) == 276 and len(st["players"]) == 284
    assert [p["rank"] for p in st["players"]] == [p["recorded_rank"] for p in st["players"]]
    assert sorted(int(p["id"]) for p in st["players"] if p["rank"] == 0) == [13, 27, 121, 126, 156, 179, 180, 284]
    by_id = {p["id"]: p for p in st["players"]}
    # 195 (rank 152) and 153 (rank 153), 3.5 points: BH equal only when 59's forfeit loss to 195
    # keeps its 0 for 195 (59: 2.5 + his R6 forfeit as a draw .5 = 3.0; 195's others 19.0) and
    # 13 (who never played) counts 0 for 153 (153's others 22.0): 22.0 each.  SB: 195 = 6.25 +
    # forfeit win 1/2 x 3.0 = 7.75, 153 = 7.75 + 1/2 x 0 = 7.75; WIN 3 > 2 decides.
    assert (by_id["195"]["tiebreaks"], by_id["153"]["tiebreaks"]) == (
        {"BH": 22.0, "SB": 7.75, "WIN": 3.0, "SNO": 195.0}, {"BH": 22.0, "SB": 7.75, "WIN": 2.0, "SNO": 153.0})
    # 282 (1.0 point, the only bye, written 0000 - +) ranks first of the 1.0 group (269) only if
    # the bye counts at least 2.0 in his BH: the average of his opponents' values, 15.5 / 6
    assert by_id["282"]["rank"] == 269 and by_id["282"]["tiebreaks"]["BH"] == pytest.approx(15.5 + 15.5 / 6)
    # the other rules fall well short of the record (same order, withdrawn players unranked)
    from services.standings.report import withdrawn
    ev = read_trf_results(path)
    for rule, equal in (("none", 124), ("fide2009", 132), ("fide2023", 86)):
        other = standings_of(ev, ("BH", "SB", "WIN", "SNO"), unplayed=rule, unranked=withdrawn(ev))
        assert sum(p["rank"] == p["recorded_rank"] for p in other["players"] if p["recorded_rank"]) == equal


def test_lichess_mai_2020_ranks(shared_data):
    # lichess exports the players in final order (start number = final rank; the rank column is
    # blank).  lichess Swiss ranks by score, then Sonneborn-Berger, then performance rating (not in
    # the file: no ratings).  SB alone: 12 of 13 (3 and 4 tie on 6.5 and SB 27.5, with either
    # unplayed rule); PS then separates them as recorded: 13 of 13 (an approximation of lichess's
    # performance tie-break; DE would reverse them: 4 beat 3 in round 6).
    ev = read_trf_results(shared_data(TRF + "lichess-swiss-mai-5plus0-2020-05-29.trf"))
    for rule in ("fide2023", "none"):
        sb = standings_of(ev, ("SB",), unplayed=rule)["players"]
        assert sum(p["rank"] == int(p["id"]) for p in sb) == 12
        sb_ps = standings_of(ev, ("SB", "PS"), unplayed=rule)["players"]
        assert [p["rank"] for p in sb_ps] == [int(p["id"]) for p in sb_ps] == list(range(1, 14))


def test_zulfikar_2020_has_no_recorded_ranks(shared_data):
    # "XXC rank": start numbers follow rating (player 1: 2529, 14.5 points; player 2: 2495, 7.0),
    # not the final order, and the rank column is blank: nothing to compare beyond scores.
    ev = read_trf_results(shared_data(TRF + "lichess-swiss-zulfikar-sali-bullet-2020-05-10.trf"))
    assert set(ev.ranks.values()) == {None} and ev.rounds == 21 and len(ev.players) == 112
    st = standings_from_file(shared_data(TRF + "lichess-swiss-zulfikar-sali-bullet-2020-05-10.trf"), "SB,BH-C1")
    assert st["players"][0]["score"] == max(ev.points.values())


def test_uzchess_pgn_through_report(shared_data):
    st = standings_from_file(shared_data(UZ), ["DE", "SB", "WIN", "BWG", "KS"])
    exp = re.findall(r"Player\((\d+),Some\((\d+)\)\),([\d.]+),List\(([^)]*)\)", shared_data(UZ_EXPECTED).read_text())
    expected = {(float(pts), *[float(x) for x in vals.split(", ")[1:]]) for _, _, pts, vals in exp}
    ours = {(p["score"], p["tiebreaks"]["SB"], p["tiebreaks"]["WIN"], p["tiebreaks"]["BWG"], p["tiebreaks"]["KS"])
            for p in st["players"]}
    assert len(st["players"]) == 10 and ours == expected
    assert (st["players"][0]["name"], st["players"][0]["rank"]) == ("Praggnanandhaa R", 1)


@pytest.mark.parametrize("name", ["karl-mala-gedenkturnier-2005-frankfurt.trf",
                                  "lichess-swiss-mai-5plus0-2020-05-29.trf",
                                  "lichess-swiss-zulfikar-sali-bullet-2020-05-10.trf"])
def test_pairing_trf_reader_gives_the_same_event(shared_data, name):
    from services.standings.report import _trf_reader

    a, b = read_trf_results(shared_data(TRF + name)), _trf_reader(shared_data(TRF + name))
    # same content; the pairing reader orders players by start number, ours by line order
    key = lambda p: int(p.id)  # noqa: E731
    assert sorted(a.players, key=key) == sorted(b.players, key=key)
    assert (set(a.games), set(a.byes), a.rounds, a.points, a.ranks) == (set(b.games), set(b.byes), b.rounds, b.points, b.ranks)
    assert len(a.games) == len(b.games) and len(a.byes) == len(b.byes)


def test_cli_standings_with_the_2005_ruleset(shared_data, tmp_path):
    import json

    from typer.testing import CliRunner

    from services.cli import app

    path = str(shared_data(TRF + "karl-mala-gedenkturnier-2005-frankfurt.trf"))
    out = tmp_path / "st.json"
    res = CliRunner().invoke(app, ["standings", "--trf", path, "--tiebreaks", "forfeit-draw-2005", "--json", str(out)])
    assert res.exit_code == 0, res.output
    players = json.loads(out.read_text())["players"]
    assert len(players) == 284 and all(p["rank"] == p["recorded_rank"] for p in players)
    # a ruleset fixes its unplayed-game rule: another one is refused with the reason
    res = CliRunner().invoke(app, ["standings", "--trf", path, "--tiebreaks", "forfeit-draw-2005", "--unplayed", "none"])
    assert res.exit_code != 0 and "leave --unplayed out" in res.output


def test_cli_json_recorded_rank_is_null_where_the_file_has_none(shared_data, tmp_path):
    """lichess Mai: the rank column is blank on every line -> "recorded_rank": null (not 0);
    Karl-Mala writes 0 for its 8 unranked players -> 0 is kept."""
    import json

    from typer.testing import CliRunner

    from services.cli import app
    out = tmp_path / "st.json"
    res = CliRunner().invoke(app, ["standings", "--trf", str(shared_data(TRF + "lichess-swiss-mai-5plus0-2020-05-29.trf")),
                                   "--json", str(out)])
    assert res.exit_code == 0, res.output
    players = json.loads(out.read_text())["players"]
    assert len(players) == 13 and all(p["recorded_rank"] is None for p in players)
    assert '"recorded_rank": null' in out.read_text()
    ev = read_trf_results(shared_data(TRF + "karl-mala-gedenkturnier-2005-frankfurt.trf"))
    assert sorted(ev.ranks.values(), key=lambda r: (r is None, r))[:8] == [0] * 8


def test_cli_standings_refuses_an_absurd_xxr(tmp_path):
    """XXR 99999999 (the round count the tie-breaks iterate over) is refused at once, naming the
    line, with the bound of import trf (99 rounds)."""
    from typer.testing import CliRunner

    from services.cli import app
    f = tmp_path / "x.trf"
    f.write_text("012 T\nXXR 99999999\n"
                 "001    1      A                                 2000                             1.0          2 w 1\n"
                 "001    2      B                                 1900                             0.0          1 b 0\n")
    res = CliRunner().invoke(app, ["standings", "--trf", str(f)])
    assert res.exit_code == 2 and "line 2, column 5" in res.output and "must be 1 to" in res.output
    with pytest.raises(ValueError, match="more than 99"):
        read_trf_results(f)
