"""Go scoring on real finished boards (../shared/data/go/scoring, see its PROVENANCE.md).

OGS (online-go/goban autoscore test files): each ``correct_ownership`` point is ``B``/``W``
(owned), `` `` (no one's: dame, seki, or an area still open), ``*`` (don't care) or ``s``
(in goban's own test: "needs sealing", a boundary point where a stone is missing -- not seki;
goban's test treats it as a wildcard, so do we).  Dead stones are those the ownership implies:
a stone on a point owned by the other colour; and, under area counting (every file except the
one marked ``rules: japanese``), a stone OGS scores for no one, because area counting scores every
live stone (Chinese 1988 art. 9), so an unscored stone was taken off (dead stones in an area not
yet sealed, which then counts for no one).

GNU Go (regression/score.tst): the maintainers' expected final score is the oracle; the dead
stones come from our estimates, never from the expected value: the Monte-Carlo ownership of
:func:`shared.rules.go_ownership.estimate_dead_by_playouts` (200 seeded random games, Benson-alive
chains kept), and for comparison the static one of :func:`shared.rules.go_scoring.estimate_dead`.
GNU Go's ``final_score`` first lets GNU Go finish the game against itself (genmove_conservative
until two passes), then settles it (aftermath.c) and counts territory + prisoners + komi; with
the dead stones GNU Go 3.8 lists (``final_status_list dead``) our Japanese count equals the
expected score on 29 of the 30 boards (score7, with seki, by 1 point): once the dead stones are
off, every board is closed (no dame), so every miss below is a dead-stone reading.
"""
from __future__ import annotations

import csv
import json

import pytest

from shared.rules.go import Board
from shared.rules.go_ownership import estimate_dead_by_playouts
from shared.rules.go_scoring import estimate_dead, score
from shared.rules.sgf import play_record, read_sgf

OGS = "data/go/scoring/ogs-autoscore"
GNUGO = "data/go/scoring/gnugo-final-score"
OK = {"B": {"black"}, "W": {"white"}, " ": {"dame", "seki"}}


def ogs_case(path):
    d = json.loads(path.read_text())
    rows, co = d["board"], d["correct_ownership"]
    n = len(rows)
    rules = d.get("rules") or "chinese"
    bl, wh, dead = [], [], []
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            p, own = (x, n - 1 - y), co[y][x]
            if ch not in "bW":
                continue
            (bl if ch == "b" else wh).append(p)
            if (own in "BW" and own != ch.upper()) or (own == " " and rules != "japanese"):
                dead.append(p)
    board = Board(n, "chinese", setup_black=bl, setup_white=wh)
    s = score(board, rules, dead=dead)
    diffs = sorted(("ABCDEFGHJKLMNOPQRST"[x] + str(n - y), co[y][x], s.ownership[(x, n - 1 - y)])
                   for y in range(n) for x in range(n)
                   if co[y][x] in OK and s.ownership[(x, n - 1 - y)] not in OK[co[y][x]])
    return d, s, diffs


def test_ogs_area_boards_match_point_for_point(shared_data):
    folder = shared_data(OGS)
    files = sorted(p for p in folder.glob("*.json") if not json.loads(p.read_text()).get("rules"))
    assert len(files) == 20
    for path in files:
        _d, s, diffs = ogs_case(path)
        assert diffs == [], f"{path.name}: {diffs}"
        assert s.result.startswith(("B+", "W+"))


def test_ogs_japanese_seki_board(shared_data):
    # game_seki_64848549 (rules: japanese), scored with the dead stones its ownership implies.
    _d, s, diffs = ogs_case(shared_data(OGS) / "game_seki_64848549.json")
    # Every point we find in seki (shared liberties and the eyes of groups in seki, art. 8) is a
    # point OGS gives no one: 14 points (A1 A3 A19 B17 C1 C3 C19 J1 N1 P11 P19 Q11 R19 T19; the
    # single-point test alone found 10 of them, the region test of shared liberties adds 4).
    co = _d["correct_ownership"]
    n = len(co)
    seki = [p for p, o in s.ownership.items() if o == "seki"]
    assert len(seki) == 14 and all(co[n - 1 - r][c] == " " for c, r in seki)
    # Measured: 13 points differ (OGS mark, ours).  Stones OGS scores for no one (seki stones in
    # its reading) that we keep as live stones: M19 N19 (white), S12 A8 (black).  Empty points
    # OGS gives no one that we count as territory: N13 L4 S4 T4 T8 (black), E5 L8 T1 (white) --
    # eyes of groups OGS reads as in seki where our self-atari test finds no seki (the shared
    # region there has a point one side can fill without putting itself in atari).  A10: OGS
    # gives it White, we find it bordered by both colours (dame).
    assert [d[0] for d in diffs] == ["A10", "A8", "E5", "L4", "L8", "M19", "N13", "N19", "S12",
                                     "S4", "T1", "T4", "T8"]




def gnugo_rows(folder):
    lines = (folder / "expected-scores.tsv").read_text().splitlines()
    return list(csv.reader((ln for ln in lines if ln and not ln.startswith("#")), delimiter="\t"))


def test_gnugo_final_scores(shared_data):
    folder = shared_data(GNUGO)
    rows = gnugo_rows(folder)
    assert len(rows) == 30
    by_playouts, by_static = [], []
    for row in rows:
        name, expected = row[0], row[1]
        record = read_sgf((folder / name).read_bytes())
        run = play_record(record, "japanese")
        assert run.first_rejected is None, (name, run.first_rejected)
        board = run.board
        assert record.komi == 5.5 and record.rules == "japanese"
        s = score(board, "japanese", komi=record.komi, dead=estimate_dead_by_playouts(board).dead)
        if s.result == expected:
            by_playouts.append(name)
        if score(board, "japanese", komi=record.komi, dead=estimate_dead(board)).result == expected:
            by_static.append(name)
    # Measured, Monte-Carlo estimate (200 games, seed 0): 18 of 30.  The 12 misses (expected,
    # ours) and the chains GNU Go 3.8 reads otherwise (share of our games the chain ends owned by
    # the opponent; GNU Go says dead unless noted):
    #   score1  W+141.5 B+14.5  (commented out in score.tst, "Unfinished") C3, D2 x11, G6 x12
    #           0.24-0.26; White E3 x2 (0.74) alive for GNU Go
    #   score2  W+100.5 B+2.5   A8 x15 0.34, E14 x4 0.43, E12 0.45
    #   score6  W+36.5  B+25.5  O18 x4, R16 x5: 0.49 (a coin flip for random play)
    #   score7  W+16.5  W+15.5  same dead stones as GNU Go; 1 point in the count of a seki
    #   score9  W+97.5  B+57.5  the centre Black group (C10 x14 and 9 chains linked to it,
    #           0.14-0.35): GNU Go wins the capturing race against White's inner group
    #   score10 W+104.5 W+14.5  A14 x8, D15 x7: 0.48-0.49
    #   score11 W+132.5 W+66.5  (GNU Go known failure) A12 x11, D17 x4, F17 x10 (0.26-0.31);
    #           White G19 x2 (0.67) alive for GNU Go
    #   score13 W+223.5 W+88.5  H10 x26 0.37, H8 x2 0.41
    #   score14 W+73.5  B+21.5  (GNU Go known failure) A17 x7, B14 x4, E16 x6 0.36, H16 0.47
    #   score17 W+165.5 W+107.5 B4 x12, B8, E8, F4 (0.31-0.46); White A2, B3 (0.55) alive for GNU Go
    #   score21 B+66.5  W+37.5  White E6 x18, J4 x11 (0.38-0.40); Black H6 (0.62) alive for GNU Go
    #   score23 B+83.5  W+28.5  one White stone, N6 (0.49): left on the board it keeps a wide
    #           Black area open (dame), 112 points
    # Random games let weak groups live that GNU Go's reading kills (capturing races, groups
    # of one eye with outside liberties); the shares near 0.5 move with the seed.
    assert by_playouts == ["score3.sgf", "score4.sgf", "score5.sgf", "score8.sgf", "score12.sgf",
                           "score15.sgf", "score16.sgf", "score18.sgf", "score19.sgf", "score20.sgf",
                           "score22.sgf", "score24.sgf", "score25.sgf", "score26.sgf", "score27.sgf",
                           "score28.sgf", "score29.sgf", "score30.sgf"]
    # The static estimate (Benson, then eyeless enclosed chains): 4 of 30, all among the above.
    assert by_static == ["score5.sgf", "score20.sgf", "score25.sgf", "score28.sgf"]


def test_gnugo_score20_in_detail(shared_data):
    # score20 (TSV: B+34.5, KM 5.5): the estimate marks 12 stones dead -- the chains GNU Go 3.8
    # lists -- 9 white (Q5 Q6 R4 R5 S3 S4 S5 T2 T4, a white group without eyes) and 3 black
    # (R14 S13 S15).  Japanese count (1989 art. 10): territory + prisoners + dead stones; the
    # prisoners come from the replay (Black took 9, White 10).
    record = read_sgf((shared_data(GNUGO) / "score20.sgf").read_bytes())
    board = play_record(record, "japanese").board
    est = estimate_dead_by_playouts(board)
    gtp = sorted("ABCDEFGHJKLMNOPQRST"[c] + str(r + 1) for c, r in est.dead)
    assert gtp == ["Q5", "Q6", "R14", "R4", "R5", "S13", "S15", "S3", "S4", "S5", "T2", "T4"]
    s = score(board, "japanese", komi=record.komi, dead=est.dead)
    d = s.detail
    assert d["prisoners"] == {"black": 9, "white": 10} and d["dead"] == {"black": 3, "white": 9}
    assert d["dame"] == 0  # once the dead stones are off, the board is closed
    assert s.black == d["territory"]["black"] + 9 + 9
    assert s.white == d["territory"]["white"] + 10 + 3 + 5.5
    assert s.result == "B+34.5"
    # the same seed gives the same estimate
    assert estimate_dead_by_playouts(board).dead == est.dead


@pytest.mark.parametrize("name", ["score5.sgf", "score20.sgf"])
def test_gnugo_reproduced_detail(shared_data, name):
    # prisoners come from the replay of the record (captures under our engine)
    record = read_sgf((shared_data(GNUGO) / name).read_bytes())
    board = play_record(record, "japanese").board
    s = score(board, "japanese", komi=record.komi, dead=estimate_dead_by_playouts(board).dead)
    d = s.detail
    black = d["territory"]["black"] + d["prisoners"]["black"] + d["dead"]["white"]
    white = d["territory"]["white"] + d["prisoners"]["white"] + d["dead"]["black"] + record.komi
    assert (s.black, s.white) == (black, white) and record.komi == 5.5


def test_arbiter_score_uses_the_estimate_without_marks(shared_data):
    # score20.sgf has no TB/TW marks: `arbiter score` counts it with the estimate (B+34.5, the
    # TSV's value); "--dead none" counts every stone alive: the open areas around the 12 dead
    # stones are then no one's, B+18.5 (measured); a word other than auto/none is refused.
    from services.tools.score import ScoreError, score_file

    path = shared_data(GNUGO) / "score20.sgf"
    row = score_file(path)
    assert (row["result"], row["dead_source"], len(row["dead"])) == ("B+34.5", "estimate", 12)
    assert row["estimate"] == {"method": "playouts", "playouts": 200, "seed": 0}
    assert score_file(path, dead="auto")["dead"] == row["dead"]
    none = score_file(path, dead="none")
    assert (none["result"], none["dead_source"], none["dead"]) == ("B+18.5", "none", [])
    with pytest.raises(ScoreError):
        score_file(path, dead="guess")
