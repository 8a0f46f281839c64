"""Xiangqi 棋例 (1999 rules art. 24-29, chapter 7): move classification and cycle rulings.

(a) the 16 worked cases of chapter 7 from tests/data/xiangqi-chapter7-cases.toml;
(b) the 22 Fairy-Stockfish cycles of ../shared/data/xiangqi/rules/repetition-cases.tsv, with the
    cases where the 1999 text rules differently from Fairy-Stockfish's AXF subset marked and argued;
(c) single classifications: art. 29.4, 27.1, 25.3 (crossed soldiers), 28.16 (false protection);
(d) art. 29.2, the "new chase" test, on positions worked by hand: a chaser following a piece
    between two squares, threats that survive a move, threats through checks and exchanges.
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
    _threats,
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
    1186: "must-vary:red", 1187: "draw", 1193: "draw", 1195: "draw",
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
          "red advisor moves are new chases (28.3, 29.2); black chases too: h4h2 brings the "
          "chariot onto the unprotected chariot d2 once the advisor has left e2, and h2h4 "
          "unmasks the cannon i2 onto d2 over the advisor - a threat by another piece, new by "
          "art. 29.2 although the chariot could have won d2 through checks before. Both sides "
          "forbidden: draw (art. 26.3).",
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
    assert c.kind == MATE_THREAT and c.targets[0].square == "f0"
    assert c.targets[0].by == "a4a0 d3d0 a0d0"  # 车a0+ 车d0 车xd0, the horse h2 takes f1


# ------------------------------------------------------------- art. 27.3, from the position
@pytest.mark.parametrize("figure,played,move,why,target", [
    # 图十五 (built position, red K f0 R e3; black K d9 B e7 R a4 N h2): 车d3-e3 parries 车a4-a0+
    # 车d0 车xd0 mate (on e3 the chariot blocks on e0, where the general retakes) and on the way
    # attacks the unprotected elephant e7
    (15, 2, "d3e3", "on e3 it parries a mate threat", "elephant e7"),
    # 图十六 (炮不离位固守防御): on d6 the black cannon keeps the red cannon b6 from 炮b6-d6+ (the
    # advisor d7 its screen); it attacks the advisor d0 over d2
    (16, 3, "c6d6", "on d6 it bars a check", "advisor d0"),
])
def test_art_27_3_the_defensive_point_is_read_from_the_position(figure, played, move, why, target):
    """Art. 27.3: the attack on an advisor / elephant is idle because the move occupies a
    defensive point that makes a simple draw, and the reason names what the point stops."""
    case = next(c for c in CASES if c["figure"] == figure)
    board = Board(case["fen"])
    for iccs in case["moves"][:played]:
        board.push(Move.from_iccs(iccs))
    c = classify_move(board, Move.from_iccs(move))
    assert c.kind == IDLE and c.article == "27.3"
    assert why in c.reason and target in c.reason


#: Chariot against chariot (red K e0, elephant e2; black K e9, chariot h8): the red chariot follows
#: the black elephant between c5 and a7 along rank 2. It shields nothing: taken off the board,
#: black would have no check, mate threat or capture it lacks with the chariot there.
HUNTED_ELEPHANT = "4k4/7r1/9/9/2b6/9/9/R3B4/9/4K4 w - - 0 1"


def test_art_27_3_hunting_an_elephant_from_no_defensive_point_is_a_chase():
    """Art. 27.3 covers attacks on advisors / elephants that arise from occupying a defensive
    point; equal material alone does not make them idle. Each chariot move newly attacks the
    unprotected elephant (c5 from c2, a7 from a2): 长捉 of an elephant, a forbidden move against
    black's idle ones, so red must vary (art. 26.4)."""
    moves = ["a2c2", "c5a7", "c2a2", "a7c5", "a2c2", "c5a7", "c2a2"]
    board = Board(HUNTED_ELEPHANT)
    c = classify_move(board, Move.from_iccs("a2c2"))
    assert c.kind == CHASE and [(t.square, t.piece) for t in c.targets] == [("c5", "b")]
    ruling = rule_cycle(Board(HUNTED_ELEPHANT), moves)
    assert ruling.verdict == "must-vary:red"
    assert [m.classification.kind for m in ruling.moves] == [IDLE, CHASE, IDLE, CHASE]


def test_art_27_3_the_stronger_side_does_not_hold_a_draw():
    """The same defensive move by a side with more attacking force (a red horse on i9 and a
    crossed soldier on g7 added, out of the play: 16 against 15 by art. 25.3's values) holds no
    simple draw (和棋, art. 27.3): the elephant e7 is chased."""
    case = next(c for c in CASES if c["figure"] == 15)
    board = Board(case["fen"].replace("3k5/9/4b4/", "3k4N/9/4b1P2/", 1))
    for iccs in case["moves"][:2]:
        board.push(Move.from_iccs(iccs))
    c = classify_move(board, Move.from_iccs("d3e3"))
    assert c.kind == CHASE and [(t.square, t.piece) for t in c.targets] == [("e7", "b")]


# ------------------------------------------------------------------- (d) art. 29.2, new chase
#: 图七's pattern with the red cannon shuttling on the red back rank: the black chariot b8 can
#: win the cannon a0 through a check (b8b0+, the general d0 must step to d1, b0xa0) before it
#: follows it to a8 - the case the old "capturable before by any means" test ruled idle.
FOLLOW_BACK_RANK = "4k4/1r7/4b2R1/9/9/9/9/9/9/1C1K5 w - - 0 1"
#: The same along rank 2: from b5 the chariot checks on b2 (the general d2) and takes a2.
FOLLOW_RANK_2 = "9/9/5k3/9/r8/9/9/C2K5/9/9 w - - 0 1"


@pytest.mark.parametrize("fen,moves", [
    (FOLLOW_BACK_RANK, ["b0a0", "b8a8", "a0b0", "a8b8", "b0a0"]),
    (FOLLOW_RANK_2, ["a2b2", "a5b5", "b2a2", "b5a5", "a2b2"]),
], ids=["back-rank", "rank-2"])
def test_chariot_following_a_shuttling_cannon_chases_every_move_figure_7(fen, moves):
    """图七 (黑车长捉红炮 ... 黑方作负): a chariot that follows a cannon from file to file makes a
    new capture threat with every move (art. 28.3, 29.2), whatever else could win the cannon
    before; the cannon's moves are idle. Black must vary (art. 24.3, 26.4)."""
    ruling = rule_cycle(Board(fen), moves)
    black = [m.classification for m in ruling.moves if m.side == "black"]
    red = [m.classification for m in ruling.moves if m.side == "red"]
    assert [(c.kind, c.article) for c in black] == [(CHASE, "28.3, 29")] * 2
    assert [[(t.piece, t.how) for t in c.targets] for c in black] == [[("C", "direct")]] * 2
    assert {c.kind for c in red} == {IDLE}
    assert ruling.verdict == "must-vary:black"


def test_the_threat_through_checks_before_the_chariot_follows_is_another_threat():
    """Before 车２平１ in FOLLOW_BACK_RANK the chariot b8 can already win the cannon a0, but
    through a check (art. 29.1); after it the chariot a8 takes the cannon directly. Art. 29.2
    compares threat by threat: the direct capture did not exist, so the move is a chase. Moving
    the chariot down its own file instead keeps the threat through checks as it was (b7b0+):
    从捉到捉, idle by art. 29.2."""
    board = Board(FOLLOW_BACK_RANK)
    board.push(Move.from_iccs("b0a0"))
    before, _ = _threats(board.copy())
    a0 = 0
    assert [(t.by, t.how) for t in before[a0]] == [(8 * 9 + 1, "checks")]   # the chariot b8
    c = classify_move(board, Move.from_iccs("b8a8"))
    assert c.kind == CHASE and [(t.square, t.how, t.by) for t in c.targets] == [("a0", "direct", "a8")]
    c = classify_move(board, Move.from_iccs("b8b7"))
    assert (c.kind, c.article) == (IDLE, "29.2") and "a0" in c.reason


#: The red chariot a0 wins the unprotected black horse i9 through a check: a0a9+, the general
#: e9 can only step to e8 (d9, f9 stay on the checked rank; e8 is free as the red general is on
#: d0), then a9xi9 along the emptied rank. The red soldier a5 blocks the a-file.
THROUGH_CHECKS = "4k3n/9/9/9/P8/9/9/9/9/R2K5 w - - 0 1"


def test_threat_through_checks_created_by_the_move_is_a_chase():
    """Art. 29.1 能够通过连续照将吃子: the soldier stepping aside (a5b5) opens the a-file; the
    threat through checks on the horse did not exist before the move (art. 29.2)."""
    c = classify_move(Board(THROUGH_CHECKS), Move.from_iccs("a5b5"))
    assert (c.kind, c.article) == (CHASE, "28.3, 29")
    assert [(t.square, t.piece, t.how, t.by) for t in c.targets] == [("i9", "n", "checks", "a0")]


@pytest.mark.parametrize("move", ["a0a1", "d0d1", "b5b6"],
                         ids=["chariot-own-move", "general", "soldier"])
def test_threat_through_checks_that_survives_a_move_is_idle(move):
    """With the a-file open the threat through checks on i9 exists already; a move of the
    chariot itself (a1a9+ works as well), of the general or of the soldier leaves it as it was:
    从捉到捉 (chapter 7 rule 6), idle by art. 29.2."""
    board = Board("4k3n/9/9/9/1P7/9/9/9/9/R2K5 w - - 0 1")
    c = classify_move(board, Move.from_iccs(move))
    assert (c.kind, c.article) == (IDLE, "29.2") and "i9" in c.reason


def test_piece_whose_direct_threat_survives_its_own_move_is_idle_figure_8():
    """图八's black chariot: on g2 and on h2 it attacks the unprotected cannon b2 along rank 2;
    its move between the two keeps the threat (从捉到捉, art. 29.2). The same chariot coming
    onto rank 2 from g3 makes the threat: a chase (art. 28.3)."""
    along = Board("4k4/9/9/9/9/9/9/1C4r2/9/3K5 b - - 0 1")
    c = classify_move(along, Move.from_iccs("g2h2"))
    assert (c.kind, c.article) == (IDLE, "29.2") and "b2" in c.reason
    onto = Board("4k4/9/9/9/9/9/6r2/1C7/9/3K5 b - - 0 1")
    c = classify_move(onto, Move.from_iccs("g3g2"))
    assert c.kind == CHASE and [(t.square, t.how) for t in c.targets] == [("b2", "direct")]


def test_capture_threat_weakened_to_an_exchange_is_the_same_threat():
    """The red horse g6 attacks the black chariot e7 (art. 29.1 直接吃子, a gain of 10). The
    soldier c7 stepping forward opens rank 7 for the black chariot a7, which now protects e7:
    the horse still wins material in the complete exchange (马 for 车, a gain of 5: 通过完整的
    交换过程得子). The move made the same capture weaker, not a new one: idle (art. 29.2)."""
    board = Board("5k3/9/r1P1r4/6N2/9/9/9/9/9/3K5 w - - 0 1")
    before, _ = _threats(board.copy())
    assert [t.how for t in before[7 * 9 + 4]] == ["direct"]
    c = classify_move(board, Move.from_iccs("c7c8"))
    assert (c.kind, c.article) == (IDLE, "29.2") and "e7" in c.reason


def test_exchange_threat_created_by_the_move_is_a_chase():
    """The horse attacks the protected chariot e7 from d5 after b4d5: horse for chariot wins 5 in
    the complete exchange (art. 29.1, 28.16 少根); nothing threatened e7 before: a chase."""
    board = Board("2bk5/9/4r4/9/9/1N7/9/9/9/5K3 w - - 0 1")
    c = classify_move(board, Move.from_iccs("b4d5"))
    assert (c.kind, c.article) == (CHASE, "28.3, 29")
    assert [(t.square, t.how, t.by) for t in c.targets] == [("e7", "exchange", "d5")]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_chapter7_every_classification_names_its_article(case):
    """Each move of the ruled cycle says which article decided it: 28.1 将, 28.2 杀, 28.3 / 29
    捉; an idle move the article that set its threats aside (29.2 从捉到捉, 29.4, 27.1-27.3) or
    28.9 when it had none."""
    ruling = rule_cycle(Board(case["fen"]), case["moves"])
    lead = {CHECK: "28.1", MATE_THREAT: "28.2"}
    for m in ruling.moves:
        c = m.classification
        assert c.article, m.move
        if c.kind in lead:
            assert c.article == lead[c.kind]
        elif c.kind == CHASE:
            assert c.article.startswith(("28.3, 29", "27.2")), (m.move, c.article)
        else:
            assert set(c.article.split(", ")) <= {"29.2", "29.4", "27.1", "27.2", "27.3", "28.9"}
        assert m.as_dict()["rule"] == f"xiangqi 1999 art. {c.article}"


def test_chapter7_idle_moves_name_the_article_the_text_gives():
    """图六 / 图八 (从捉到捉): the evading moves are idle by art. 29.2; 图九: the chariot's
    apparent chase is idle by art. 29.4; 图十五 / 图十六: the incidental attacks on advisors or
    elephants are idle by art. 27.3."""
    def idle_articles(figure: int) -> list[set[str]]:
        case = next(c for c in CASES if c["figure"] == figure)
        ruling = rule_cycle(Board(case["fen"]), case["moves"])
        return [set(m.classification.article.split(", ")) for m in ruling.moves
                if m.classification.kind == IDLE]
    assert all("29.2" in a for a in idle_articles(6)) and len(idle_articles(6)) == 2
    assert all("29.2" in a for a in idle_articles(8)) and len(idle_articles(8)) == 2
    assert all("29.4" in a for a in idle_articles(9)) and len(idle_articles(9)) == 2
    assert any("27.3" in a for a in idle_articles(15))
    assert all("27.3" in a for a in idle_articles(16) if a != {"28.9"})
    assert sum("27.3" in a for a in idle_articles(16)) == 2   # the two cannon moves
