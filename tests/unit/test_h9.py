"""OpenGotha results lists (.h9): the reader (shared/domain/h9.py) on the two real files and on
malformed input, and the import's pure mapping (services/tools/h9import.py)."""
from __future__ import annotations

import pytest

from services.tools.h9import import check_importable, implied_bars, platform_grade, player_ids, read_h9, round_plan
from shared.domain.h9 import H9Cell, H9Error, decode_h9, parse_h9
from shared.errors import PairingError

HEAD = "; EV[Test]\n; KM[6.5]\n; HA[h2]\n; Pl Name                            Rk Co Club  MMS  SOS\n"


def line(place, name, rank, values, cells, club="Club"):
    """A player line in OpenGotha's columns."""
    return (f"{place:>4} {name:<30} {rank:>3} FR {club:>4}" + "".join(f" {v:>4}" for v in values)
            + "".join(f" {c:>8}" for c in cells) + "\n")


def two(cells_a=("2+/w0",), cells_b=("1-/b0",)) -> str:
    return HEAD + line(1, "A a", "3D", (33, 32, 0, 0), cells_a) + line(2, "B b", "2K", (28, 33, 0, 0), cells_b)


@pytest.fixture
def juvisy(shared_data):
    return read_h9(shared_data("data/go/tournaments/tournoi-de-juvisy-2019.h9"))


@pytest.fixture
def egc(shared_data):
    return read_h9(shared_data("data/go/tournaments/egc-2013-olsztyn-main-mcmahon.h9"))


def test_juvisy_headers_players_and_cells(juvisy):
    t = juvisy
    assert t.headers == {"CL": "A", "EV": "Tournoi de Juvisy", "PC": ",Juvisy", "DT": "2019-10-26,2019-10-28",
                         "HA": "h1", "KM": "7.5", "TM": "82", "CM": "Standard byo-yomi"}
    assert (t.name, t.komi, t.handicap_correction, t.generator) == ("Tournoi de Juvisy", 7.5, 1, "OpenGotha 3.49.03")
    assert t.criteria == ("MMS", "SOS", "SOSOS")
    assert (len(t.players), t.rounds, t.games()) == (19, 4, 36)
    p = t.players[0]
    assert (p.number, p.place, p.name, p.grade, p.country, p.club) == (1, 1, "Minieri Davide", "3D", "FR", "75Ju")
    assert p.scores == {"MMS": 36, "SOS": 128, "SOSOS": 503}
    assert p.cells == (H9Cell(2, "+", False, "w", 0), H9Cell(3, "+", False, "b", 0),
                       H9Cell(4, "+", False, "w", 0), H9Cell(15, "+", False, "w", 4))
    # ISO-8859-15 names; Rebelo (18K) received 9 stones from Ravera in round 4
    assert [t.player(n).name for n in (5, 8, 9)] == ["Nemo André", "Burq François", "Moscardo Léo"]
    assert t.player(19).cells[3] == H9Cell(13, "-", False, "b", 9)
    # Daguenet absent rounds 2-4 (0=: half a win each), Vargas round 1
    assert t.player(2).cells[1:] == (H9Cell(None, "="),) * 3 and t.player(2).points == 1.5
    assert t.player(14).cells[0] == H9Cell(None, "=") and t.player(14).points == 1.5


def test_egc_ex_aequo_places_half_points_and_games_by_default(egc):
    t = egc
    assert (len(t.players), t.rounds, t.games(), t.criteria, t.handicap_correction) == (594, 10, 2259, ("MMS", "SOS"), 3)
    assert sum(p.place is None for p in t.players) == 44  # ex aequo: the place column blank
    assert t.player(3).scores == {"MMS": 41, "SOS": 408.5}  # "408?": ½ is not in ISO-8859-15
    assert t.player(22).scores == {"MMS": 39.5, "SOS": 389.5}
    cells = [c for p in t.players for c in p.cells]
    assert sum(c.by_default for c in cells) == 66  # 33 games won by default, both lines
    assert [sum(c.opponent is None and c.result == r for c in cells) for r in "+=-"] == [2, 1418, 2]
    assert t.player(6).cells[7] == H9Cell(22, "+", True, "w", 0)
    assert {c.handicap for c in cells if c.opponent} == {0}


def test_decoding_prefers_utf8_then_iso_8859_15():
    assert decode_h9("Léo".encode()) == "Léo"
    assert decode_h9("Léo €".encode("iso-8859-15")) == "Léo €"


@pytest.mark.parametrize("text, line_no, words", [
    (two(("2+/x0",)), 5, "round 1: '2+/x0' is not a round cell"),
    (two(("2+",)), 5, "a game needs /colour+handicap"),
    (two(("0?",)), 5, "a round without opponent is 0+, 0= or 0-"),
    (two(("2+/w0", "0=")), 6, "1 rounds, the first player line has 2"),
    (two(("3+/w0",)), 5, "opponent 3 is not another player (1..2)"),
    (two(("1+/w0",)), 5, "opponent 1 is not another player"),
    (two(("2+/w0",), ("1=/b0",)), 5, "is not the same game on line 6"),
    (two(("2?/w0",), ("1-/b0",)), 5, "is not the same game on line 6"),
    (two(("2+/w1",), ("1-/b0",)), 5, "is not the same game"),
    (two(("2+!w0",), ("1-/b0",)), 5, "is not the same game"),
    (HEAD.replace("; Pl Name", "; Xx") + line(1, "A a", "3D", (1, 2, 0, 0), ()), 5, "before the '; Pl Name"),
    (HEAD + line(1, "A a", "3D", (33, "x2", 0, 0), ()), 5, "SOS: 'x2' is not a score value"),
    (HEAD + line(1, "A a", "3D", (33,), ()), 5, "1 value(s) after the club, 4 score values expected"),
    (HEAD + "   1 A a 3D FR Club 33 32 0 0\n", 5, "not a player line"),
    (HEAD, 0, "no player lines"),
])
def test_malformed_input_names_the_line(text, line_no, words):
    with pytest.raises(H9Error) as e:
        parse_h9(text)
    assert isinstance(e.value, PairingError) and isinstance(e.value, ValueError)
    assert e.value.line == line_no and words in str(e.value)
    assert str(e.value).startswith(f"h9 line {line_no}: " if line_no else "h9: ")


def test_a_minimal_list_reads():
    t = parse_h9("\ufeff" + two(("2+/w0", "0+", "2-!b0"), ("1-/b0", "0-", "1+!w0")))
    assert [p.points for p in t.players] == [2.0, 1.0]
    assert t.player(1).scores == {"MMS": 33, "SOS": 32} and t.komi == 6.5 and t.handicap_correction == 2


def test_platform_grades_and_implied_bars(juvisy, egc):
    assert [platform_grade(g) for g in ("30K", "25K", "18K", "1K", "1D", "7D", "9D")] == [
        "25k", "25k", "18k", "1k", "1d", "7d", "7d"]
    assert implied_bars(juvisy) == ("3d", "18k")
    assert implied_bars(egc) == ("5d", "20k")
    assert len(set(player_ids(egc).values())) == 594


def test_round_plans(juvisy, egc):
    games, bye, requested = round_plan(juvisy, 1)
    assert len(games) == 9 and bye is None and requested == {14: "H"}
    assert games[0] == (1, 2, "1-0", "recorded result")
    assert (15, 9, "0-1", "recorded result") not in games and (9, 15, "1-0", "recorded result") in games
    games, bye, requested = round_plan(egc, 3)  # Frost (line 585) has the bye; 0- lines unpaired
    assert bye == 585 and 575 not in requested and len(requested) == sum(
        p.cells[2] == H9Cell(None, "=") for p in egc.players)
    games, _, _ = round_plan(egc, 8)
    assert (6, 22, "1-0", "forfeit") in games  # Silt 22+!w0: won by default


def test_results_we_cannot_enter_are_refused():
    check_importable(parse_h9(two()))
    games, _, _ = round_plan(parse_h9(two(("2-!w0",), ("1-!b0",))), 1)  # both lost by default
    assert games == [(1, 2, "0-0", "double-forfeit")]
    for a, b, words in [("2?/w0", "1?/b0", "has no result"), ("2=!w0", "1=!b0", "no equivalent"),
                        ("2+!w0", "1+!b0", "no equivalent"), ("2-/w0", "1-/b0", "no equivalent")]:
        with pytest.raises(ValueError, match=words):
            check_importable(parse_h9(two((a,), (b,))))
    with pytest.raises(ValueError, match="two players and a round"):
        check_importable(parse_h9(two((), ())))
