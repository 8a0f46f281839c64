"""Xiangqi 棋例 (1999 rules art. 24-29, chapter 7): move classification and cycle rulings.

(a) the 16 worked cases of chapter 7 from tests/data/xiangqi-chapter7-cases.toml;
(b) the 22 Fairy-Stockfish cycles of ../shared/data/xiangqi/rules/repetition-cases.tsv, with the
    cases where the 1999 text rules differently from Fairy-Stockfish's AXF subset marked and argued;
(c) single classifications: art. 29.4, 27.1, 25.3 (crossed soldiers), 28.16 (false protection).
"""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from shared.rules.xiangqi import Board, Move, XiangqiError
from shared.rules.xiangqi_notation import parse_chinese
from shared.rules.xiangqi_repetition import (
    CHASE,
    CHECK,
    IDLE,
    MATE_THREAT,
    _counts_as_gain,
    classify_move,
    piece_value,
    rule_cycle,
)

DATA = Path(__file__).resolve().parent.parent / "data" / "xiangqi-chapter7-cases.toml"
CASES = tomllib.loads(DATA.read_text(encoding="utf-8"))["case"]


def _other(side: str) -> str:
    return "black" if side == "red" else "red"


# ----------------------------------------------------------------------------- (a) chapter 7
def test_all_sixteen_figures_are_in_the_data_file():
    assert sorted(c["figure"] for c in CASES) == list(range(1, 17))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_chapter7_position_fits_the_text(case):
    """The listed moves are legal in the built position, spell the text's Chinese moves, and give
    check exactly where the case says so."""
    ffish = pytest.importorskip("pyffish")
    board = Board(case["fen"])
    played: list[str] = []
    for cn, iccs, check in zip(case["moves_cn"], case["moves"], case["checks"], strict=True):
        move = Move.from_iccs(iccs)
        assert parse_chinese(board, cn) == move, (cn, iccs)
        assert board.is_legal(move), iccs
        assert move.uci() in ffish.legal_moves("xiangqi", case["fen"], played), iccs
        assert board.gives_check(move) is check
        assert ffish.gives_check("xiangqi", case["fen"], played + [move.uci()]) is check
        played.append(move.uci())
        board.push(move)
    # the text's checks (将) are exactly the moves classified as checks
    assert [k == CHECK for k in case["expected"]] == case["checks"]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_chapter7_verdict_and_classifications(case):
    ruling = rule_cycle(Board(case["fen"]), case["moves"])
    assert ruling.verdict == case["verdict"], ruling.reason
    n, start = len(case["moves"]), ruling.cycle_start
    period = n - start
    got = []
    for i in range(n):  # moves before the ruled cycle recur inside it, one period later
        j = i if i >= start else i + period
        got.append(ruling.moves[j - start].classification.kind)
    assert got == case["expected"], [m.classification.reason for m in ruling.moves]


@pytest.mark.parametrize("case", [c for c in CASES if c["verdict"].startswith("must-vary")],
                         ids=lambda c: c["name"])
def test_chapter7_forbidden_side_loses_on_the_next_repetition(case):
    """Art. 24.3 / 26.4: the side that must vary loses if the cycle is repeated once more."""
    side = case["verdict"].split(":")[1]
    ruling = rule_cycle(Board(case["fen"]), case["moves"], repetitions=4)
    assert ruling.verdict == f"{side}-loses"
    assert ruling.article == "24.3, 26.4"


def test_perpetual_check_loses_at_once_figure_1():
    case = next(c for c in CASES if c["figure"] == 1)
    ruling = rule_cycle(Board(case["fen"]), case["moves"])
    assert (ruling.verdict, ruling.article, ruling.result) == ("red-loses", "24.1, 26.1", "0-1")


def test_ruling_as_dict_is_json_with_every_move():
    case = next(c for c in CASES if c["figure"] == 13)
    d = rule_cycle(Board(case["fen"]), case["moves"]).as_dict()
    assert json.loads(json.dumps(d, ensure_ascii=False)) == d
    assert d["verdict"] == "draw" and d["rule"] == "xiangqi 1999 art. 24.2, 26.3"
    assert [(m["move"], m["side"], m["classification"]) for m in d["moves"]] == [
        ("c7b7", "black", CHASE), ("c6b6", "red", CHASE), ("b7c7", "black", CHASE),
        ("b6c6", "red", CHASE)]
    assert d["moves"][0]["targets"] == ["b1"] and d["moves"][2]["targets"] == ["c4"]


def test_rule_cycle_refuses_illegal_moves_and_non_cycles():
    case = next(c for c in CASES if c["figure"] == 2)
    with pytest.raises(XiangqiError):
        rule_cycle(Board(case["fen"]), ["g7f7", "f9e9", "a0a1"])
    with pytest.raises(XiangqiError):
        rule_cycle(Board(case["fen"]), ["g7f7", "f9e9"])


# ----------------------------------------------------------------------- (b) Fairy-Stockfish
#: Our 1999 verdict for each FSF case (source line -> verdict at the last position of the list).
#: FSF ends the game at once where the 1999 text first orders the forbidden side to vary
#: (art. 24.3): "must-vary:X" here is FSF's "X loses" one repetition earlier.
EXPECTED_1999 = {
    1160: "must-vary:red", 1162: "must-vary:red", 1166: "draw", 1168: "must-vary:red",
    1172: "black-loses", 1174: "black-loses", 1176: "must-vary:black", 1177: "must-vary:red",
    1179: "must-vary:black", 1180: "must-vary:black", 1183: "draw", 1184: "draw",
    1186: "must-vary:red", 1187: "draw", 1193: "draw", 1195: "must-vary:red",
    1199: "must-vary:black", 1201: "must-vary:black", 1205: "must-vary:black", 1207: "draw",
    1211: "must-vary:black", 1213: "must-vary:black",
}
#: Where the 1999 text rules differently from Fairy-Stockfish, and why.
DIFFERS_FROM_FSF = {
    1186: "FSF: draw (a cannon attacking an unprotected cannon that can take it back is an "
          "exchange offer). 1999: 捉兼兑、献、送吃按捉 (chapter 7 rule 5, 图五) and 图十四 (a cannon "
          "chasing a chariot while offered to the black cannon every move is a chase, art. "
          "27.4): red's c3a3 / a3c3 chase the unprotected black cannon; black's cannon moves are "
          "idle evasions, so red must vary.",
    1193: "FSF: red loses (a chariot pinned by the horse's leg does not chase). 1999 has no such "
          "exception: art. 28.3 / 29.1 ask whether the capture can be made next move, and the "
          "black chariot f9 can legally take the horse g9 (the cannon a9's protection through the "
          "chariot is false, 28.16) - each black advisor move newly uncovers that threat, and red "
          "chases too: both sides forbidden, draw (art. 26.3).",
    1195: "FSF: black loses (the red chariot d2, leg-pinned by the horse c2, does not chase). "
          "1999: the chariot's capture of the horse is legal and the horse unprotected, so both "
          "red advisor moves are new chases (28.3, 29.2); black's h2h4 newly aims the cannon at "
          "the chariot d2, but the chariot h2 could already win it through checks (h2h1+, "
          "Rxf1+, Cxd2), so by art. 29.2 it is no new chase: red forbidden, black allowed.",
}


def _fsf_rows(shared_data):
    path = shared_data("data/xiangqi/rules/repetition-cases.tsv")
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        src, comment, fen, moves, game_end, expected = line.split("\t")
        rows.append((int(src), comment, fen, moves.split(), game_end == "True", expected))
    return rows


@pytest.mark.realdata
def test_fsf_cases_all_present(shared_data):
    assert sorted(r[0] for r in _fsf_rows(shared_data)) == sorted(EXPECTED_1999)


@pytest.mark.realdata
@pytest.mark.parametrize("src", sorted(EXPECTED_1999))
def test_fsf_case(shared_data, src):
    row = next(r for r in _fsf_rows(shared_data) if r[0] == src)
    _, comment, fen, uci, game_end, expected = row
    assert game_end
    moves = [Move.from_uci(u) for u in uci]
    ruling = rule_cycle(Board(fen), moves)
    assert ruling.verdict == EXPECTED_1999[src], (comment, ruling.as_dict())
    side_to_move = "red" if len(moves) % 2 == 0 else "black"
    fsf_loser = {"side_to_move_wins": _other(side_to_move), "side_to_move_loses": side_to_move,
                 "draw": None}.get(expected, "?")
    our_loser = (None if ruling.verdict == "draw"
                 else ruling.verdict.split(":")[1] if ruling.verdict.startswith("must-vary")
                 else ruling.verdict.split("-")[0])
    if src in DIFFERS_FROM_FSF:
        assert our_loser != fsf_loser, "marked as differing but agrees: " + DIFFERS_FROM_FSF[src]
    elif fsf_loser != "?":
        assert our_loser == fsf_loser
    if ruling.verdict.startswith("must-vary"):  # one more repetition: FSF's loss (art. 24.3)
        assert rule_cycle(Board(fen), moves, repetitions=4).verdict == f"{our_loser}-loses"


# ------------------------------------------------------------------ (c) single classifications
def test_art_29_4_capture_that_allows_mate_is_idle():
    """图九: the black chariot attacks the red cannon on its file, but taking it lets red mate."""
    case = next(c for c in CASES if c["figure"] == 9)
    board = Board(case["fen"])
    board.push(Move.from_iccs(case["moves"][0]))          # 炮一平二: i4h4
    reply = Move.from_iccs(case["moves"][1])               # 车９平８: i6h6
    after = board.copy()
    after.push(reply)
    cannon = 4 * 9 + 7                                      # h4
    assert after.piece_at(cannon) == "C" and reply.to_sq in after.attackers(cannon, "black")
    c = classify_move(board, reply)
    assert c.kind == IDLE and "art. 29.4" in c.reason


def test_art_27_1_general_alone_is_idle_with_horses_a_chase():
    alone = Board("5k3/9/9/9/9/9/9/3K5/4p4/9 w - - 0 1")
    move = Move.from_iccs("d2e2")
    c = classify_move(alone, move)
    assert c.kind == IDLE and "27.1" in c.reason
    with_horses = Board("5k3/9/9/9/9/9/9/2NK1N3/4p4/9 w - - 0 1")
    c = classify_move(with_horses, move)
    assert c.kind == CHASE and [t.square for t in c.targets] == ["e1"]
    assert c.targets[0].by == "c2" and "27.1" in c.reason


def test_art_25_3_crossed_soldier_is_a_piece_uncrossed_is_not():
    crossed = Board("3aka3/9/9/9/9/9/2p6/9/9/R2K5 w - - 0 1")
    c = classify_move(crossed, Move.from_iccs("a0a3"))
    assert c.kind == CHASE and [(t.square, t.piece) for t in c.targets] == [("c3", "p")]
    uncrossed = Board("3aka3/9/9/2p6/9/9/9/9/9/R2K5 w - - 0 1")
    c = classify_move(uncrossed, Move.from_iccs("a0a6"))
    assert c.kind == IDLE


def test_art_25_3_floating_soldier_value():
    assert piece_value("P", 4 * 9) == 1 and piece_value("P", 5 * 9) == 2
    assert piece_value("p", 5 * 9) == 1 and piece_value("p", 4 * 9) == 2
    # a crossed soldier given for a horse is no gain (一兵换取数子…不算得子) ...
    assert not _counts_as_gain("red", [("red", "n", 60), ("black", "P", 60)])
    # ... nor a piece for soldiers (一子换取数兵) ...
    assert not _counts_as_gain("red", [("red", "p", 30), ("black", "R", 30), ("red", "p", 31)])
    # ... but a crossed soldier won for nothing and a horse for nothing are gains
    assert _counts_as_gain("red", [("red", "p", 30)])
    assert _counts_as_gain("red", [("red", "n", 60)])


def test_art_28_16_pinned_protector_is_false_protection():
    """The horse c7 is protected by the chariot e7 only, which the red chariot e2 pins to its
    general: attacking the horse is a chase. Without the pin the protection is real: idle."""
    pinned = Board("4k4/9/2n1r4/9/R8/9/9/4R4/9/3K5 w - - 0 1")
    c = classify_move(pinned, Move.from_iccs("a5c5"))
    assert c.kind == CHASE and [t.square for t in c.targets] == ["c7"]
    free = Board("4k4/9/2n1r4/9/R8/9/9/9/9/3K5 w - - 0 1")
    assert classify_move(free, Move.from_iccs("a5c5")).kind == IDLE


def test_insufficient_protection_chariot_attacked_by_horse():
    """28.16 少根: a chariot protected by an elephant but attacked by a horse is chased (horse for
    chariot loses value); the same horse move against a protected horse is idle (a 兑)."""
    chariot = Board("2bk5/9/4r4/9/9/1N7/9/9/9/5K3 w - - 0 1")
    c = classify_move(chariot, Move.from_iccs("b4d5"))
    assert c.kind == CHASE and [(t.square, t.how) for t in c.targets] == [("e7", "exchange")]
    horse = Board("2bk5/9/4n4/9/9/1N7/9/9/9/5K3 w - - 0 1")
    assert classify_move(horse, Move.from_iccs("b4d5")).kind == IDLE


def test_check_and_mate_threat_are_named():
    case = next(c for c in CASES if c["figure"] == 15)
    board = Board(case["fen"])
    c = classify_move(board, Move.from_iccs(case["moves"][0]))
    assert c.kind == CHECK and [t.square for t in c.targets] == ["d9"]
    board.push(Move.from_iccs(case["moves"][0]))
    c = classify_move(board, Move.from_iccs(case["moves"][1]))
    assert c.kind == MATE_THREAT and c.targets[0].square == "f2"
