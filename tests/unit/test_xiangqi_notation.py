"""Xiangqi notations: ICCS / UCI coordinates, WXF, Chinese notation of the 1999 rules art. 7.5.

Expected values come from Fairy-Stockfish's test cases (../shared/data/xiangqi/rules/
notation-cases.tsv, through the ``shared_data`` fixture), from art. 7.5's worked record, and from
pyffish (Fairy-Stockfish, test dependency) on positions reached by random play and on constructed
positions with stacked soldiers.
"""
from __future__ import annotations

import random

import pytest

from shared.rules.xiangqi import START_FEN, Board, Move
from shared.rules.xiangqi_notation import (
    AmbiguousMoveError, IllegalMoveError, MalformedMoveError, NoSuchPieceError, NotationError,
    detect_notation, format_move, parse_chinese, parse_move, parse_wxf, to_chinese, to_iccs,
    to_uci, to_wxf,
)

sf = pytest.importorskip("pyffish")
WXF = sf.NOTATION_XIANGQI_WXF


def play(fen: str, texts: list[str], notation: str | None = None) -> tuple[Board, list[Move]]:
    b = Board(fen)
    moves = []
    for t in texts:
        m = parse_move(b, t, notation)
        moves.append(m)
        b.push(m)
    return b, moves


# ----------------------------------------------------------------- Fairy-Stockfish's cases
def _cases(path):
    header_seq = None
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# Sequence case"):
            header_seq = line
        if line.startswith("#") or not line.strip():
            continue
        ln, fen, move, notation, expected = line.split("\t")
        rows.append((ln, fen, move, notation, expected))
    return header_seq, rows


def test_every_wxf_case_of_the_fairy_stockfish_table(shared_data):
    _, rows = _cases(shared_data("data/xiangqi/rules/notation-cases.tsv"))
    wxf = [r for r in rows if r[3] == "WXF"]
    assert len(wxf) == 9 and len(rows) == 16
    for ln, fen, uci, _, expected in wxf:
        b = Board(fen)
        m = Move.from_uci(uci)
        assert to_wxf(b, m) == expected, ln
        assert parse_wxf(b, expected) == m, ln
        assert parse_move(b, expected) == m, ln
        # the '.' spelling of a traverse reads the same
        assert parse_move(b, expected.replace("=", ".")) == m, ln
        # and Fairy-Stockfish agrees with the table
        assert sf.get_san("xiangqi", fen, uci, False, WXF) == expected, ln


def test_the_sequence_case_in_the_table_header(shared_data):
    seq, _ = _cases(shared_data("data/xiangqi/rules/notation-cases.tsv"))
    # "... (from the start position, WXF): h3e3 h10g8 ... -> C2=5 H8+7 ..."
    ucis, wxfs = seq.split("WXF):")[1].split("->")
    ucis, wxfs = ucis.split(), wxfs.split()
    assert len(ucis) == len(wxfs) == 6
    b = Board(START_FEN)
    for uci, expected in zip(ucis, wxfs):
        m = Move.from_uci(uci)
        assert to_wxf(b, m) == expected
        assert parse_move(b, expected) == m
        b.push(m)
    assert [to_wxf(Board(), Move.from_uci("h3e3"))] == ["C2=5"]


def test_tandem_and_stacked_soldiers_in_chinese():
    """The table's tandem positions (lines 840-858) in Chinese notation."""
    fen1 = "rnbakabnr/9/1c5c1/p1p1p1p1p/4P4/1NB6/P1P1P3P/1C1A3C1/9/RNBAK4 w - - 0 1"
    fen2 = "rnbakabnr/9/1c5c1/p1p1P1p1p/4P4/9/P3P3P/1C5C1/9/RNBAKABNR w - - 0 1"
    fen3 = "5k3/9/3P5/3P1P1P1/5P3/9/9/9/9/4K4 w - - 0 1"
    cases = [
        (fen1, "b5c7", "前马进七"), (fen1, "b1c3", "后马进七"), (fen1, "e4e5", "后兵进一"),
        (fen1, "e6e7", "前兵进一"), (fen1, "d1e2", "仕六进五"),
        (fen2, "e7d7", "前兵平六"), (fen2, "e6f6", "中兵平四"), (fen2, "e4e5", "后兵进一"),
        (fen3, "d7e7", "后六平五"), (fen3, "d8d9", "前六进一"), (fen3, "f7e7", "前四平五"),
        (fen3, "h7g7", "兵二平三"),
    ]
    for fen, uci, expected in cases:
        b = Board(fen)
        m = Move.from_uci(uci)
        assert to_chinese(b, m) == expected, (fen, uci)
        assert parse_chinese(b, expected) == m, (fen, uci)
    # the five-character form with the piece kept reads too
    assert parse_move(Board(fen3), "后兵六平五") == Move.from_uci("d7e7")


def test_four_and_five_soldiers_on_a_file_are_numbered_from_the_front():
    fen = "3k5/4P4/4P4/4P4/4P4/9/9/9/9/5K3 w - - 0 1"     # soldiers e5..e8 (ICCS ranks)
    b = Board(fen)
    col = [Move.from_iccs(f"e{r}d{r}") for r in (8, 7, 6, 5)]
    assert [to_chinese(b, m) for m in col] == ["一兵平六", "二兵平六", "三兵平六", "四兵平六"]
    assert [to_wxf(b, m) for m in col] == ["15=6", "25=6", "35=6", "45=6"]
    for m in col:
        assert parse_move(b, to_chinese(b, m)) == m
        assert parse_move(b, to_wxf(b, m)) == m
        assert sf.get_san("xiangqi", b.fen(), m.uci(), False, WXF) == to_wxf(b, m)
    # black: files from Black's right, full-width digits, 卒
    bb = Board("3k5/9/9/9/9/9/4p4/4p4/4p4/5K3 b - - 0 1")
    front, rear = Move.from_iccs("e1f1"), Move.from_iccs("e3f3")   # Black's front is rank 0's side
    assert to_chinese(bb, front) == "前卒平６" and to_chinese(bb, front, fullwidth=False) == "前卒平6"
    assert to_chinese(bb, rear) == "后卒平６" and to_chinese(bb, Move.from_iccs("e2d2")) == "中卒平４"
    assert [to_wxf(bb, front), to_wxf(bb, rear)] == ["15=6", "35=6"]
    assert parse_move(bb, "後卒平6") == rear


# ------------------------------------------------------------------- art. 7.5 and real spellings
def test_art_7_5_record_and_variant_characters():
    texts = ["炮二平五", "马８进７", "马二进三", "车９平８", "车一平二", "炮８进４"]
    b, moves = play(START_FEN, texts)
    assert [m.iccs() for m in moves] == ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "h7h3"]
    assert [m.uci() for m in moves] == ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1", "h8h4"]
    # half-width digits, traditional and variant characters read the same
    for variant in (["炮二平五", "马8进7", "马二进三", "车9平8", "车一平二", "炮8进4"],
                    ["砲二平五", "馬８進７", "傌二進三", "車９平８", "俥一平二", "包８進４"],
                    ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0", "h7h3"],
                    ["C2.5", "H8+7", "H2+3", "R9.8", "R1.2", "C8+4"]):
        assert play(START_FEN, variant)[1] == moves
    # formatting gives the record's own spelling back
    b = Board()
    out = []
    for m in moves:
        out.append(to_chinese(b, m))
        b.push(m)
    assert out == texts
    b = Board()
    assert to_chinese(b, moves[0]) == "炮二平五" and to_iccs(moves[0]) == "h2e2"
    assert to_uci(moves[0]) == "h3e3" and format_move(b, moves[0], "wxf", traverse=".") == "C2.5"
    b.push(moves[0])
    assert to_chinese(b, moves[1], fullwidth=False) == "马8进7"
    assert format_move(b, moves[1], "chinese") == "马８进７"


def test_advisor_elephant_general_and_backward_moves():
    texts = ["相三进五", "象７进５", "仕四进五", "士６进５", "帅五平四", "车９进１"]
    b, moves = play(START_FEN, texts)
    assert [m.iccs() for m in moves] == ["g0e2", "g9e7", "f0e1", "f9e8", "e0f0", "i9i8"]
    with pytest.raises(IllegalMoveError, match="face"):   # 将５平６ would face the red general
        parse_move(play(START_FEN, texts[:5])[0], "将５平６")
    assert b.fen().split()[0] == sf.get_fen("xiangqi", START_FEN, [m.uci() for m in moves]).split()[0]
    # backward moves: elephant and advisor back, general forward and back
    for t in ["相五退三", "象５退７", "仕五进四", "士５进６", "帅四进一", "将５进１", "帅四退一"]:
        m = parse_move(b, t)
        assert to_chinese(b, m) == t
        b.push(m)


# ------------------------------------------------------------------------------- errors
@pytest.mark.parametrize("text, error, words", [
    ("炮一平五", NoSuchPieceError, "no cannon on file 一"),
    ("马３进４", NoSuchPieceError, "no horse on file 三"),      # red to move: file 3 is 三
    ("炮二平二", MalformedMoveError, "must change file"),
    ("马二平三", MalformedMoveError, "cannot move sideways"),
    ("马二进五", MalformedMoveError, "cannot reach file 五"),
    ("车九进三", IllegalMoveError, "a3 holds red's own piece"),
    ("兵七进二", IllegalMoveError, "cannot move to c5"),
    ("前车进一", NoSuchPieceError, "no front chariot"),
    ("炮二平", MalformedMoveError, "four characters"),
    ("炮二走五", MalformedMoveError, "not 进, 退 or 平"),
    ("炮二平十", MalformedMoveError, "not a number 1-9"),
    ("xx", MalformedMoveError, "not a move in ICCS"),
    ("Z2+3", MalformedMoveError, "not a move"),
    ("C2+0", MalformedMoveError, "not a move"),
    ("h2h8", IllegalMoveError, "cannot move to h8"),
    ("d4d5", NoSuchPieceError, "no piece on d4"),
    ("h7h0", NoSuchPieceError, "black's; red to move"),
    ("h12e2", MalformedMoveError, "not a move"),
])
def test_bad_inputs_give_the_specific_error(text, error, words):
    with pytest.raises(error) as e:
        parse_move(Board(), text)
    assert words in str(e.value)
    assert e.value.text == text and isinstance(e.value, NotationError)
    assert isinstance(e.value, ValueError)


def test_explicit_notation_errors():
    b = Board()
    with pytest.raises(MalformedMoveError, match="ranks 1-10"):
        parse_move(b, "h0e0", "uci")
    with pytest.raises(MalformedMoveError, match="not WXF"):
        parse_move(b, "炮二平五", "wxf")
    with pytest.raises(ValueError, match="unknown notation"):
        parse_move(b, "h2e2", "san")
    with pytest.raises(IllegalMoveError, match="cannot move"):
        to_wxf(b, Move.from_iccs("h2h8"))
    with pytest.raises(NoSuchPieceError):
        to_chinese(b, Move.from_iccs("h7h0"))


def test_ambiguities_are_refused():
    rooks = Board("3k5/9/9/9/9/9/9/R8/9/R3K4 w - - 0 1")     # red chariots a0 and a2
    with pytest.raises(AmbiguousMoveError, match="2 chariots"):
        parse_move(rooks, "车九进一")
    with pytest.raises(AmbiguousMoveError):
        parse_move(rooks, "R9+1")
    assert parse_move(rooks, "前车进一") == Move.from_iccs("a2a3")
    assert parse_move(rooks, "后车进一") == Move.from_iccs("a0a1")
    assert parse_move(rooks, "R-+1") == Move.from_iccs("a0a1")
    # file form accepted when only one of the pair can make the move (Fairy-Stockfish writes it)
    assert parse_move(rooks, "车九进七") == Move.from_iccs("a2a9")
    # coordinates legal both as ICCS and as UCI: ICCS wins unless the notation is given
    two = Board("3k5/9/9/9/9/9/9/9/R8/R3K4 w - - 0 1")        # chariots a0, a1
    assert parse_move(two, "a1b1") == Move.from_iccs("a1b1")
    assert parse_move(two, "a1b1", "iccs") == Move.from_iccs("a1b1")
    # the UCI reading only when the ICCS one is not legal (h3e3 in the start position)
    assert parse_move(Board(), "h3e3") == Move.from_iccs("h2e2")
    assert parse_move(two, "a1b1", "uci") == Move.from_iccs("a0b0")
    assert detect_notation("a1b1") == "coord" and detect_notation("h0e0") == "iccs"
    assert detect_notation("h10g8") == "uci" and detect_notation("马８进７") == "chinese"


# ------------------------------------------------------------------- random play vs pyffish
def _tandem_quirk(ours: str, fsf: str) -> bool:
    """Fairy-Stockfish names a tandem piece by its file when the other piece of the pair could not
    make the same displacement (``C6+1`` where WXF writes ``C-+1``); nothing else may differ."""
    return (len(ours) == len(fsf) == 4 and ours[0] == fsf[0] and ours[1] in "+-"
            and fsf[1].isdigit() and ours[2:] == fsf[2:])


def _check_position(b: Board, rng: random.Random, stats: dict, sample: int) -> None:
    fen = b.fen()
    moves = b.legal_moves()
    for m in moves:
        c, ch, w = to_chinese(b, m), to_chinese(b, m, fullwidth=False), to_wxf(b, m)
        assert parse_move(b, c) == m, (fen, m, c)
        assert parse_move(b, ch) == m, (fen, m, ch)
        assert parse_move(b, w) == m, (fen, m, w)
        assert parse_move(b, m.iccs(), "iccs") == m and parse_move(b, m.uci(), "uci") == m
        stats["moves"] += 1
        if c[0] in "前中后一二三四五":
            stats["ordinal"] += 1
    checked = set(rng.sample(moves, min(sample, len(moves))))
    checked |= {m for m in moves if b.piece_at(m.from_sq).upper() in "RNCP"
                and sum(1 for r in range(10) if b.squares[r * 9 + m.from_sq % 9] == b.piece_at(m.from_sq)) > 1}
    for m in checked:
        fsf = sf.get_san("xiangqi", fen, m.uci(), False, WXF)
        ours = to_wxf(b, m)
        assert parse_move(b, fsf) == m, (fen, m, fsf)
        stats["pyffish"] += 1
        if fsf != ours:
            assert _tandem_quirk(ours, fsf), (fen, m.uci(), ours, fsf)
            stats["quirk"] += 1


def test_round_trip_on_random_play_and_pyffish_agrees():
    rng = random.Random(20240611)
    stats = {"positions": 0, "moves": 0, "ordinal": 0, "pyffish": 0, "quirk": 0}
    while stats["positions"] < 2500:
        b = Board()
        for _ in range(rng.randrange(60, 220)):
            moves = b.legal_moves()
            if not moves:
                break
            _check_position(b, rng, stats, sample=1)
            stats["positions"] += 1
            caps = [m for m in moves if b.piece_at(m.to_sq)]
            b.push(rng.choice(caps) if caps and rng.random() < 0.4 else rng.choice(moves))
    assert stats["moves"] > 50_000
    assert stats["ordinal"] > 100          # tandem pieces do come up
    assert stats["pyffish"] > 2500
    # the only disagreements are Fairy-Stockfish's file-named tandem pieces, and they are rare
    assert stats["quirk"] < stats["pyffish"] // 20


def _stacked_soldier_position(rng: random.Random) -> Board | None:
    sq: list[str | None] = [None] * 90
    sq[rng.choice([3, 4, 5, 12, 13, 14])] = "K"
    sq[rng.choice([84, 85, 86, 75, 76, 77])] = "k"
    for piece, ranks in (("P", range(5, 10)), ("p", range(0, 5))):
        files = rng.sample(range(9), rng.choice([1, 2, 2, 3]))
        for _ in range(5):
            s = rng.choice(list(ranks)) * 9 + rng.choice(files)
            if sq[s] is None:
                sq[s] = piece
    for piece in "RrNnCc":
        if rng.random() < 0.5:
            s = rng.randrange(90)
            if sq[s] is None:
                sq[s] = piece
    rows = []
    for r in range(9, -1, -1):
        row, empty = "", 0
        for f in range(9):
            p = sq[r * 9 + f]
            if p is None:
                empty += 1
            else:
                row += (str(empty) if empty else "") + p
                empty = 0
        rows.append(row + (str(empty) if empty else ""))
    turn = rng.choice("wb")
    fen = "/".join(rows) + f" {turn} - - 0 1"
    try:
        b = Board(fen)
        other = Board("/".join(rows) + f" {'b' if turn == 'w' else 'w'} - - 0 1")
    except Exception:
        return None
    if other.is_check() or not b.legal_moves():   # the side not to move may not stand in check
        return None
    return b


def test_stacked_soldiers_on_constructed_positions_agree_with_pyffish():
    rng = random.Random(99)
    stats = {"positions": 0, "moves": 0, "ordinal": 0, "pyffish": 0, "quirk": 0}
    while stats["positions"] < 400:
        b = _stacked_soldier_position(rng)
        if b is None:
            continue
        _check_position(b, rng, stats, sample=2)
        stats["positions"] += 1
    assert stats["ordinal"] > 500
    assert stats["pyffish"] > 1000
