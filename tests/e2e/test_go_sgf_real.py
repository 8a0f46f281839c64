"""Every real SGF of ../shared/data/go/sgf (PROVENANCE.md: 10 AlphaGo, 108 Tencent 2018, 74 GNU Go
KGS regression games) read, written back, replayed and, where the record was counted with
territory marks, re-counted.

What the records hold (measured; the counts are asserted below):

* All 192 replay with every move legal under their declared rules (RU; absent -> chinese, the
  platform default: 98 files, all Tencent and Fan Hui games, both events were played under
  Chinese rules; RU[AGA] -> aga, 40 files: situational superko, pass stones), with no warning. 5 Tencent files omit 7 passes (the same colour
  moves twice: the YuanYu app writes no passes), read as implicit passes.
* Counted results (RE with a margin): 44 = 1 AlphaGo + 10 Tencent + 33 KGS.
  - The 33 KGS ones end with two passes and carry CGoban's TB/TW marks: our count with the dead
    stones the marks imply reproduces all 33 (2 Chinese, 18 Japanese, 13 AGA). The 9 AGA
    handicap games need AGA's N-1 compensation (AGA rule 4, the scorer's): with China's N each is
    exactly one point off in White's favour.
  - The 11 AlphaGo/Tencent ones end without passes and without marks: the bots stopped with dead
    stones on the board and dame open (the servers counted them), so no count can be re-derived
    from the record; the all-alive counts are far off (e.g. S_1-3 RE[B+0.2], itself no count a
    half-point komi allows).
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from services.tools.replay import replay_files
from services.tools.score import score_record
from shared.rules import go_scoring
from shared.rules.sgf import dead_from_marks, play_record, read_sgf, write_sgf

pytestmark = pytest.mark.realdata

FOLDERS = {
    "alphago-vs-fan-hui-2015-and-lee-sedol-2016": "alphago",
    "tencent-world-ai-weiqi-competition-2018": "tencent",
    "gnugo-regression-kgs-2004-2005": "kgs",
}

#: moves in the main lines (sgfmill main sequence, passes included), measured
MOVES = {"alphago": 2032, "tencent": 23057, "kgs": 15980}


@pytest.fixture
def records(shared_data):
    root = shared_data("data/go/sgf")
    out = {}
    for folder, short in FOLDERS.items():
        files = sorted(p for p in (root / folder).iterdir() if p.suffix.lower() == ".sgf")
        out[short] = [(p, read_sgf(p.read_bytes())) for p in files]
    return out


def test_files_rules_and_komi_quirks(records):
    assert {k: len(v) for k, v in records.items()} == {"alphago": 10, "tencent": 108, "kgs": 74}
    rules = {k: Counter((r.rules_raw, r.rules) for _, r in v) for k, v in records.items()}
    assert rules["alphago"] == {("Chinese", "chinese"): 5, (None, "chinese"): 5}
    assert rules["tencent"] == {("Chinese", "chinese"): 15, (None, "chinese"): 93}
    assert rules["kgs"] == {("AGA", "aga"): 40, ("Japanese", "japanese"): 31, ("Chinese", "chinese"): 3}
    notes = Counter(n for v in records.values() for _, r in v for n in r.notes)
    # Fan Hui files: KO[7.5]; Tencent semi-finals: KM[375] = 3.75 stones = 7.5 points
    assert notes["komi from the non-standard root KO[7.5] (YuanYu), no KM"] == 5
    assert notes["KM[375] read as 3.75 stones x100 = 7.5 points"] == 8
    komi = {k: Counter(r.komi for _, r in v) for k, v in records.items()}
    assert komi["alphago"] == {7.5: 10} and komi["tencent"] == {7.5: 108}
    assert komi["kgs"] == {0.5: 59, 5.5: 7, 6.5: 6, 7.5: 2}
    # handicap games carry their AB stones: HA = number of AB stones
    ha = [(r.handicap, len(r.setup_black)) for _, r in records["kgs"] if r.handicap]
    assert len(ha) == 41 and all(h == n for h, n in ha)
    # time settings: KGS Canadian/byo-yomi OT; Tencent TC/TT and Fan Hui LC/LT byo-yomi
    kinds = {k: Counter(r.time.overtime.kind if r.time.overtime else None for _, r in v)
             for k, v in records.items()}
    assert kinds["kgs"] == {"canadian": 70, "byo-yomi": 2, None: 2}
    assert kinds["tencent"] == {"byo-yomi": 108}
    assert kinds["alphago"] == {"byo-yomi": 10}


def test_every_sgf_of_the_go_data_reads_without_warning_and_replays(shared_data):
    # the 192 games above and the 30 GNU Go scoring boards: 222 files
    files = sorted(p for p in shared_data("data/go").rglob("*") if p.suffix.lower() == ".sgf")
    assert len(files) == 222
    for path in files:
        r = read_sgf(path.read_bytes())
        assert r.warnings == [], path.name
        assert play_record(r).first_rejected is None, path.name


def test_write_then_read_gives_the_same_record(records):
    for v in records.values():
        for path, r in v:
            assert read_sgf(write_sgf(r)) == r, path.name


def test_every_record_replays_legally(records):
    paths = [p for v in records.values() for p, _ in v]
    rows = replay_files(paths)
    by_folder = Counter()
    moves = Counter()
    implicit = Counter()
    for row, path in zip(rows, paths):
        short = FOLDERS[path.parent.name]
        assert row["first_rejected"] is None, (path.name, row["first_rejected"])
        assert row["accepted"] == row["moves"]
        by_folder[short] += 1
        moves[short] += row["moves"]
        implicit[short] += len(row["implicit_passes"])
    assert by_folder == {"alphago": 10, "tencent": 108, "kgs": 74}
    assert moves == MOVES and sum(moves.values()) == 41069
    assert +implicit == {"tencent": 7}
    # decided on the board (two passes, territory marks): the 33 counted KGS games, all equal to
    # RE, and 3 more: GNU-goodluck RE[W+Resign] (resigned after both passed and marked; we count
    # W+93.5, same winner) and yagr.sgf / yagr-gab9.sgf (marked, no RE written)
    decided = {Path(r["file"]).name: (r["recorded_result"], r["result"]) for r in rows if r["result"] != "*"}
    assert len(decided) == 36
    assert sum(rec == ours for rec, ours in decided.values()) == 33
    assert {k: v for k, v in decided.items() if v[0] != v[1]} == {
        "GNU-goodluck.sgf": ("W+R", "W+93.5"), "yagr.sgf": ("*", "W+7.5"), "yagr-gab9.sgf": ("*", "W+2.5")}


def _counted(records):
    return {k: [(p, r) for p, r in v if r.result and r.result.kind == "score"] for k, v in records.items()}


def test_counted_results_with_marks_are_reproduced(records):
    counted = _counted(records)
    assert {k: len(v) for k, v in counted.items()} == {"alphago": 1, "tencent": 10, "kgs": 33}
    reproduced = Counter()
    for short, items in counted.items():
        for path, r in items:
            marked = bool(r.territory_black or r.territory_white)
            board = play_record(r).board
            if not marked:
                # no marks, and play did not stop with two passes: nothing to re-derive
                assert board.consecutive_passes == 0, path.name
                continue
            assert board.consecutive_passes >= 2, path.name
            row = score_record(r)
            assert row["dead_source"] == "marks"
            if row["result"] == r.result.text:
                reproduced[(short, r.rules_raw)] += 1
            else:
                pytest.fail(f"{path.name}: RE[{r.result.raw}] but we count {row['result']}")
    assert reproduced == {("kgs", "Chinese"): 2, ("kgs", "Japanese"): 18, ("kgs", "AGA"): 13}


def test_aga_handicap_games_need_n_minus_1(records):
    # Counted with China's compensation (N points for N stones) instead of AGA's N-1, each AGA
    # handicap game comes out exactly one point better for White than its RE.
    off = []
    for path, r in _counted(records)["kgs"]:
        if r.rules_raw != "AGA" or r.handicap < 2:
            continue
        board = play_record(r).board
        s = go_scoring.score(board, "chinese", r.komi, dead_from_marks(r, board.stones),
                             handicap=r.handicap)
        signed = r.result.margin if r.result.winner == "black" else -r.result.margin
        off.append(s.margin - signed)
    assert off == [-1.0] * 9
