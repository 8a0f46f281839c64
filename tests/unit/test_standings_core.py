"""Standings core: hand-computed tie-breaks, and real round robins from ../shared/data."""
from __future__ import annotations

import re

import chess.pgn
import pytest

from services.standings.core import (
    Bye,
    GameResult,
    Player,
    StandingsError,
    compute_standings,
)

# 4-player round robin, computed by hand:
#   R1: A 1-0 D, B 1-0 C   R2: A 1/2 C, B 1/2 D   R3: A 1-0 B, C 1-0 D
#   scores: A 1+.5+1 = 2.5, B 1+.5+0 = 1.5, C 0+.5+1 = 1.5, D 0+.5+0 = 0.5   (sum 6 = 6 games)
#   SB: A = D .5 + 1/2*C 1.5 + B 1.5 = 2.75     B = C 1.5 + 1/2*D .5 = 1.75
#       C = 1/2*A 2.5 + D .5 = 1.75             D = 1/2*B 1.5 = 0.75
#   BH: A = .5+1.5+1.5 = 3.5   B = 1.5+.5+2.5 = 4.5   C = 1.5+2.5+.5 = 4.5   D = 2.5+1.5+1.5 = 5.5
#   BH-C1 (drop lowest): A 3.0, B 4.0, C 4.0, D 5.5-1.5 = 4.0
#   WIN: A 2, B 1, C 1, D 0.   BPG: A 0, B 1 (R3), C 2 (R1, R2), D 3.   BWG: all 0.
#   KS (limit 3 rounds / 2 = 1.5: opponents A, B, C): A = B 1 + C .5 = 1.5, B = C 1 + A 0 = 1.0,
#       C = A .5 + B 0 = 0.5, D = A 0 + B .5 + C 0 = 0.5
#   DE between B and C (tied on 1.5, SB 1.75, WIN 1): B beat C -> B 1.0, C 0.0
PLAYERS4 = [Player("A", "Alpha"), Player("B", "Bravo"), Player("C", "Charlie"), Player("D", "Delta")]
GAMES4 = [
    GameResult(1, "A", "D", "1-0"),
    GameResult(1, "B", "C", "1-0"),
    GameResult(2, "A", "C", "1/2-1/2"),
    GameResult(2, "B", "D", "1/2-1/2"),
    GameResult(3, "A", "B", "1-0"),
    GameResult(3, "C", "D", "1-0"),
]


def test_hand_computed_round_robin():
    # DE third: B and C are still tied after SB and WIN, so DE separates them
    st = compute_standings(PLAYERS4, GAMES4, order=("SB", "WIN", "DE", "BH", "BH-C1", "BPG", "BWG", "KS"))
    table = {r.id: (r.score, r.tiebreaks) for r in st.rows}
    assert table["A"] == (2.5, {"SB": 2.75, "BH": 3.5, "BH-C1": 3.0, "WIN": 2, "BPG": 0, "BWG": 0, "KS": 1.5, "DE": 0.0})
    assert table["B"] == (1.5, {"SB": 1.75, "BH": 4.5, "BH-C1": 4.0, "WIN": 1, "BPG": 1, "BWG": 0, "KS": 1.0, "DE": 1.0})
    assert table["C"] == (1.5, {"SB": 1.75, "BH": 4.5, "BH-C1": 4.0, "WIN": 1, "BPG": 2, "BWG": 0, "KS": 0.5, "DE": 0.0})
    assert table["D"] == (0.5, {"SB": 0.75, "BH": 5.5, "BH-C1": 4.0, "WIN": 0, "BPG": 3, "BWG": 0, "KS": 0.5, "DE": 0.0})
    assert [(r.rank, r.id, r.name) for r in st.rows] == [(1, "A", "Alpha"), (2, "B", "Bravo"), (3, "C", "Charlie"), (4, "D", "Delta")]
    assert st.de_rank("B") == 1 and st.de_rank("C") == 2 and st.de_rank("A") == 0


def test_equal_tiebreaks_share_rank():
    st = compute_standings(PLAYERS4, GAMES4, order=("SB", "WIN"))
    assert [(r.rank, r.id) for r in st.rows] == [(1, "A"), (2, "B"), (2, "C"), (4, "D")]
    assert all(set(r.tiebreaks) == {"SB", "WIN"} for r in st.rows)


def test_de_is_positional_after_preceding_tiebreaks():
    # B and C: DE alone separates them (B won); placed after KS, KS already separated them
    # (B 1.0 > C 0.5) so each is alone when DE is reached and DE is 0 for both.
    first = compute_standings(PLAYERS4, GAMES4, order=("DE", "KS"))
    assert first.row("B").tiebreaks["DE"] == 1.0 and first.row("C").tiebreaks["DE"] == 0.0
    later = compute_standings(PLAYERS4, GAMES4, order=("KS", "DE"))
    assert later.row("B").tiebreaks["DE"] == 0.0 and later.row("C").tiebreaks["DE"] == 0.0
    assert [r.id for r in later.rows] == ["A", "B", "C", "D"]


def test_forfeits_byes_and_incomplete_direct_encounter():
    players = [Player(x, x) for x in "PQRST"]
    games = [
        GameResult(1, "P", "Q", "1-0"),
        GameResult(1, "R", "S", "+-"),  # R wins by forfeit: WIN yes, WON no, no game played
        GameResult(2, "T", "P", "0-1"),
        GameResult(2, "Q", "R", "1/2-1/2"),
    ]
    byes = [Bye(1, "T", 1.0), Bye(2, "S", 1.0)]
    st = compute_standings(players, games, byes, order=("DE", "WIN", "WON", "BPG", "BWG", "BH"))
    score = {r.id: r.score for r in st.rows}
    assert score == {"P": 2.0, "Q": 0.5, "R": 1.5, "S": 1.0, "T": 1.0}
    tb = {r.id: r.tiebreaks for r in st.rows}
    assert tb["R"]["WIN"] == 1 and tb["R"]["WON"] == 0
    assert tb["S"]["WIN"] == 1 and tb["T"]["WIN"] == 1  # full-point byes count as wins (7.1)
    assert tb["P"]["BPG"] == 1 and tb["P"]["BWG"] == 1
    assert tb["R"]["BPG"] == 1 and tb["R"]["BWG"] == 0
    assert tb["S"]["BPG"] == 0  # forfeited game not played
    # S and T are tied on 1.0 and never met: DE does not separate them
    assert tb["S"]["DE"] == 0.0 and tb["T"]["DE"] == 0.0 and st.de_rank("S") == 0
    # BH changed by FIDE C.07 2023 art. 16 (was S 1.5, T 2.0 with real opponents only): every
    # unplayed round (forfeit or bye) counts a dummy opponent with the player's own score.
    #   S (1.0): R1 forfeit loss -> 1.0, R2 bye -> 1.0          = 2.0
    #   T (1.0): R1 bye -> 1.0, R2 played P (2.0, no VUR)       = 3.0
    assert tb["S"]["BH"] == 2.0 and tb["T"]["BH"] == 3.0
    # the pre-2023 'simple' value (real opponent of a forfeit, byes nothing): S met R (1.5); T met P (2.0)
    simple = compute_standings(players, games, byes, order=("BH",), unplayed="none")
    assert simple.row("S").tiebreaks["BH"] == 1.5 and simple.row("T").tiebreaks["BH"] == 2.0
    assert [(r.rank, r.id) for r in st.rows] == [(1, "P"), (2, "R"), (3, "T"), (4, "S"), (5, "Q")]
    shared = compute_standings(players, games, byes, order=("DE", "WIN", "WON"))
    assert [(r.rank, r.id) for r in shared.rows] == [(1, "P"), (2, "R"), (3, "S"), (3, "T"), (5, "Q")]


@pytest.mark.parametrize(
    "games,byes,order,match",
    [
        ([GameResult(1, "A", "Z", "1-0")], [], ("SB",), "unknown player 'Z'"),
        ([GameResult(1, "A", "B", "2-0")], [], ("SB",), "unknown result"),
        ([GameResult(1, "A", "A", "1-0")], [], ("SB",), "cannot play himself"),
        ([GameResult(0, "A", "B", "1-0")], [], ("SB",), "round must be"),
        ([GameResult(1, "A", "B", "1-0"), GameResult(1, "A", "C", "1-0")], [], ("SB",), "twice in round 1"),
        ([GameResult(1, "A", "B", "1-0")], [Bye(1, "A")], ("SB",), "twice in round 1"),
        ([], [Bye(1, "A", 2.0)], ("SB",), "points must be"),
        ([], [], ("SB", "XYZ"), "unknown tie-break 'XYZ'"),
        ([], [], ("SB", "SB"), "repeats"),
    ],
)
def test_bad_input_raises(games, byes, order, match):
    with pytest.raises(StandingsError, match=match):
        compute_standings(PLAYERS4, games, byes, order=order)


def test_duplicate_player_rejected():
    with pytest.raises(StandingsError, match="duplicate player id"):
        compute_standings([Player("A", "x"), Player("A", "y")], [])


# ------------------------------------------------------------------------------ real data

TAG = re.compile(r'^\[(\w+) "([^"]*)"\]$', re.M)
EXPECTED_LINE = re.compile(
    r"PlayerWithScore\(Player\((\d+),Some\((\d+)\)\),([\d.]+),List\(([\d.]+), ([\d.]+), ([\d.]+), ([\d.]+), ([\d.]+)\)\)"
)


def read_header_blocks(path):
    """Tag blocks of a header-only PGN: one dict per game."""
    blocks = re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))
    return [dict(TAG.findall(b)) for b in blocks if "[White " in b]


@pytest.mark.realdata
def test_uzchess_cup_2025_matches_scalachess_snapshot(shared_data):
    tags = read_header_blocks(shared_data("data/chess/pgn/uzchess-cup-masters-2025-headers-only.pgn"))
    assert len(tags) == 45
    players: dict[str, Player] = {}
    games = []
    for t in tags:
        for side in ("White", "Black"):
            fid = t[f"{side}FideId"]
            players.setdefault(fid, Player(fid, t[side], int(t[f"{side}Elo"])))
        games.append(GameResult(int(t["Round"].split(".")[0]), t["WhiteFideId"], t["BlackFideId"], t["Result"]))
    assert len(players) == 10

    expected_text = shared_data("data/chess/pgn/uzchess-cup-masters-2025.expected-tiebreaks.txt").read_text()
    expected = EXPECTED_LINE.findall(expected_text)
    assert len(expected) == 10

    # the snapshot's order: DirectEncounter, SonnebornBerger, NbWins, NbBlackWins, Koya
    st = compute_standings(players.values(), games, order=("DE", "SB", "WIN", "BWG", "KS"))
    for fid, rating, points, de, sb, win, bwg, ks in expected:
        row = st.row(fid)
        assert players[fid].rating == int(rating)
        assert row.score == float(points), fid
        assert st.de_rank(fid) == float(de), fid  # scalachess reports DE as the rank in the tie
        assert row.tiebreaks["SB"] == float(sb), fid
        assert row.tiebreaks["WIN"] == float(win), fid
        assert row.tiebreaks["BWG"] == float(bwg), fid
        assert row.tiebreaks["KS"] == float(ks), fid
    # three players on 5.5: Praggnanandhaa beat both Sindarov and Abdusattorov -> DE 2 points
    top = st.rows[0]
    assert (top.rank, top.name, top.score, top.tiebreaks["DE"]) == (1, "Praggnanandhaa R", 5.5, 2.0)
    assert [(r.rank, r.name) for r in st.rows[1:3]] == [(2, "Abdusattorov, Nodirbek"), (3, "Sindarov, Javokhir")]


@pytest.mark.realdata
def test_chebanenko_memorial_2020_scores(shared_data):
    path = shared_data("data/chess/pgn/chebanenko-memorial-2020-round-robin-10-players.pgn")
    games, names = [], {}
    with path.open(encoding="utf-8") as f:
        while (h := chess.pgn.read_headers(f)) is not None:
            names[h["White"]] = names[h["Black"]] = None
            games.append(GameResult(int(h["Round"].split(".")[0]), h["White"], h["Black"], h["Result"]))
    assert len(games) == 45 and len(names) == 10
    st = compute_standings([Player(n, n) for n in names], games, order=("SB", "WIN", "DE"))
    assert sum(r.score for r in st.rows) == 45.0
    assert (st.rows[0].rank, st.rows[0].name, st.rows[0].score) == (1, "Macovei,Andrei", 6.0)
    assert {r.name: r.score for r in st.rows if r.score == 5.5} == {"Iordachescu,V": 5.5, "Nevednichy,V": 5.5}
    assert sorted(r.score for r in st.rows) == [2.0, 2.0, 4.5, 4.5, 5.0, 5.0, 5.0, 5.5, 5.5, 6.0]
