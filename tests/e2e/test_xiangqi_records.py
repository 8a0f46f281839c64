"""Real xiangqi records replayed on our engine (issue 3, bullet 7; data: ../shared/data/xiangqi/games,
see ../shared/data/PROVENANCE.md): the 84 games of the 2001 national ranking tournament in
Chinese notation and one online game in xiangqi PGN. Every move must be legal on our engine; the
final positions are cross-checked with pyffish (Fairy-Stockfish, test dependency)."""
from __future__ import annotations

import collections

import pytest

from shared.rules.xiangqi import START_FEN, Board, Move
from shared.rules.xiangqi_notation import to_chinese
from shared.rules.xiangqi_record import (
    RecordError, XiangqiRecord, board_ending, parse_pgn, parse_tournament_text, read_records,
    write_pgn,
)

GAMES = "data/xiangqi/games/"
TXT = {  # file -> (games, red wins / draws / red losses) as PROVENANCE.md gives them
    "2001-xiangqi-ranking-tournament-stage1-part-a.txt": (16, 4, 5, 7),
    "2001-xiangqi-ranking-tournament-stage1-part-b-and-stage2-am.txt": (41, 18, 17, 6),
    "2001-xiangqi-ranking-tournament-stage2-pm.txt": (27, 10, 12, 5),
}
PGN = "online-game-2017-03-20-huashan.pgn"


@pytest.fixture(scope="module")
def records(request):
    from tests.conftest import require_shared

    out = {}
    for name in list(TXT) + [PGN]:
        out[name] = read_records(require_shared(GAMES + name))
    return out


def _all(records) -> list[XiangqiRecord]:
    return [r for name in records for r in records[name]]


def test_the_2001_files_give_84_games_with_the_published_results(records):
    for name, (n, wins, draws, losses) in TXT.items():
        games = records[name]
        assert len(games) == n, name
        c = collections.Counter(g.result for g in games)
        assert (c["1-0"], c["1/2-1/2"], c["0-1"]) == (wins, draws, losses), name
        assert [g.game_no for g in games] == list(range(1, n + 1))
    assert sum(len(records[n]) for n in TXT) == 84


def test_every_move_of_every_record_is_legal_and_pyffish_reaches_the_same_positions(records):
    sf = pytest.importorskip("pyffish")
    plies = 0
    for r in _all(records):
        b = Board(r.start_fen)
        assert len(r.moves) == len(r.move_texts) > 0
        for m in r.moves:
            assert b.is_legal(m), (r.source, r.game_no, m)
            b.push(m)
        plies += len(r.moves)
        theirs = sf.get_fen("xiangqi", r.start_fen, [m.uci() for m in r.moves])
        assert b.fen().split()[:2] == theirs.split()[:2], (r.source, r.game_no)
    assert plies == 8251
    assert sum(len(r.moves) for name in TXT for r in records[name]) == 8149


def test_our_chinese_notation_writes_the_records_own_texts(records):
    """Formatting each replayed move gives back the record's text, 前/后 forms included; the one
    difference is the 2001 files' red advisor written 士 where we write 仕 (art. 1.2 names it 仕)."""
    advisor_spelling = tandem = advisor_elephant = 0
    for r in _all(records):
        b = Board(r.start_fen)
        for m, text in zip(r.moves, r.move_texts):
            ours = to_chinese(b, m)
            if ours != text:
                assert (ours[0], text[0], ours[1:]) == ("仕", "士", text[1:]), (r.source, text)
                advisor_spelling += 1
            tandem += text[0] in "前后"
            advisor_elephant += b.piece_at(m.from_sq).upper() in "AB"
            b.push(m)
    assert advisor_spelling == 197
    assert (tandem, advisor_elephant) == (112, 856)    # 前/后 moves; advisor and elephant moves


def test_headers_of_the_text_files(records):
    a = records["2001-xiangqi-ranking-tournament-stage1-part-a.txt"]
    first = a[0]
    assert (first.red, first.black, first.result) == ("辽宁卜凤波", "北京张强", "1-0")
    assert first.section == "第一站2001·8·14（上午）" and first.date == "2001-08-14"
    assert len(first.moves) == 111 and first.move_texts[:2] == ["炮二平五", "马８进７"]
    assert first.moves[0] == Move.from_iccs("h2e2") and first.move_texts[-1] == "车五平六"
    assert first.start_fen == START_FEN and first.round is None
    # headers without spaces around the result word
    assert (a[2].red, a[2].black, a[2].result) == ("火车头金波", "湖南张申宏", "0-1")
    assert (a[3].red, a[3].black) == ("廖二平", "吉林陶汉明")
    b = records["2001-xiangqi-ranking-tournament-stage1-part-b-and-stage2-am.txt"]
    playoff = [g for g in b if g.round]
    assert [(g.round, g.red) for g in playoff][:4] == [("加1", "邮电袁洪梁"), ("加2", "江苏徐天红"),
                                                      ("加3", "邮电袁洪梁"), ("加4", "江苏徐天红")]
    assert {g.section for g in b} == {"第一站2001·8·14（下午）", "第一站（加赛）",
                                      "第二站2001·8·15（上午）"}
    # the undated tie-break section takes its stage's date
    assert {g.date for g in b if g.section == "第一站（加赛）"} == {"2001-08-14"}
    assert all(g.headers["Result"] == g.result and g.headers["Red"] == g.red for g in b)


def test_the_online_pgn(records):
    (g,) = records[PGN]
    assert (g.red, g.black, g.result) == ("永远在路上(北斗)", "奕天下棋手(北斗)", "1/2-1/2")
    assert g.date == "2017-03-20" and g.headers["TimeControl"] == "15-5-15"
    assert g.headers["Site"] == "华山" and g.start_fen == START_FEN
    assert len(g.moves) == 102 and g.move_texts[:2] == ["相七进五", "炮２平５"]
    assert g.move_texts[-1] == "后炮进１"


def test_games_ending_on_the_board(records):
    """None of the 85 games ends in checkmate or stalemate on the board: they stop at a
    resignation, an agreed draw or a repetition. Four stop with the side to move in check."""
    endings = collections.Counter()
    in_check = []
    for r in _all(records):
        b = r.final_board()
        endings[board_ending(b)] += 1
        if b.is_check():
            in_check.append((r.source.rsplit("/", 1)[-1], r.game_no, r.result,
                             len(b.legal_moves())))
    assert endings == {None: 85}
    a, b = list(TXT)[:2]
    # (file, game, result, legal replies): e.g. game 7 of part b is a Red win whose record ends
    # with Black's checking 炮８进９
    assert in_check == [(a, 2, "0-1", 2), (a, 9, "0-1", 1), (b, 7, "1-0", 3), (b, 25, "1-0", 1)]
    # the detector itself: a mate and a 困毙 built by hand
    mate = Board("R2k5/1R7/9/9/9/9/9/9/9/5K3 b - - 0 1")
    assert board_ending(mate) == "checkmate"
    stale = Board("3k5/R8/9/9/4R4/9/9/9/9/5K3 b - - 0 1")
    assert board_ending(stale) == "stalemate"


@pytest.mark.parametrize("notation", ["Chinese", "ICCS", "WXF"])
def test_write_pgn_reads_back_the_same_games(records, notation):
    for r in _all(records):
        text = write_pgn(r, notation)
        assert f'[Format "{notation}"]' in text and '[Variant "xiangqi"]' in text
        (back,) = parse_pgn(text, "written")
        assert back.moves == r.moves, (r.source, r.game_no)
        assert (back.red, back.black, back.result, back.date) == (r.red, r.black, r.result, r.date)
        assert back.start_fen == r.start_fen
    one = write_pgn(records[PGN][0], "Chinese", fullwidth=False)
    assert "1. 相七进五 炮2平5\n" in one and one.rstrip().endswith("1/2-1/2")


def test_pgn_tags_and_movetext_variants():
    pgn = """[Variant "xiangqi"]
[Red "A"]
[Black "B"]
[Format "ICCS"]
[FEN "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"]
1. h2e2 {central cannon} h9g7 2. h0g2 (2. b2e2?) i9h9 *

[Game "Chinese Chess"]
[Format "WXF"]
[Result "0-1"]
1. C2.5 H8+7 2. H2+3 R9.8 0-1
"""
    a, b = parse_pgn(pgn, "inline")
    assert [m.iccs() for m in a.moves] == ["h2e2", "h9g7", "h0g2", "i9h9"] and a.result == "*"
    assert (a.red, a.black) == ("A", "B")
    assert [m.iccs() for m in b.moves] == ["h2e2", "h9g7", "h0g2", "i9h9"] and b.result == "0-1"
    assert b.red == "?" and b.game_no == 2
    # Black to move first: "1. ..." in and out, and tags survive a round trip
    black_first = parse_pgn('[Variant "xiangqi"]\n[Event "Training"]\n[Round "3"]\n'
                            f'[FEN "{START_FEN.replace(" w ", " b ")}"]\n'
                            "1. ... 马８进７ 2. 炮二平五 卒３进１ *\n")[0]
    assert [m.iccs() for m in black_first.moves] == ["h9g7", "h2e2", "c6c5"]
    written = write_pgn(black_first)
    assert "1. ... 马８进７\n2. 炮二平五 卒３进１\n*" in written
    again = parse_pgn(written)[0]
    assert (again.moves, again.event, again.round) == (black_first.moves, "Training", "3")


def test_a_record_that_cannot_be_read_names_file_game_move_and_reason(records, tmp_path):
    from tests.conftest import require_shared

    text = require_shared(GAMES + "2001-xiangqi-ranking-tournament-stage1-part-a.txt").read_text(
        encoding="utf-8")
    # game 2, move 12 red: 前车平八 -> a chariot that is not there
    bad = text.replace("12. 前车平八", "12. 前马平八", 1)
    assert bad != text
    with pytest.raises(RecordError) as e:
        parse_tournament_text(bad, "part-a")
    err = e.value
    assert (err.source, err.game, err.move_no, err.side, err.text) == ("part-a", 2, 12, "red",
                                                                       "前马平八")
    assert "cannot move sideways" in err.reason or "no front horse" in err.reason
    assert "game 2" in str(err) and "move 12 (red)" in str(err)
    # an illegal move (black's 马８进７ answered again by 马８进７) through read_records
    f = tmp_path / "broken.pgn"
    f.write_text('[Game "Chinese Chess"]\n1. 炮二平五 马８进７\n2. 马二进三 马８进７\n',
                 encoding="utf-8")
    with pytest.raises(RecordError) as e:
        read_records(f)
    assert (e.value.game, e.value.move_no, e.value.side) == (1, 2, "black")
    assert "no horse on file ８" in str(e.value)
    # wrong variant, unknown format, missing file
    with pytest.raises(RecordError, match="not a xiangqi game"):
        parse_pgn('[Variant "chess"]\n1. e4 e5 *\n')
    with pytest.raises(RecordError, match="unknown Format"):
        parse_pgn('[Variant "xiangqi"]\n[Format "SAN"]\n1. h2e2 *\n')
    with pytest.raises(RecordError, match="cannot read the file"):
        read_records(tmp_path / "absent.txt")
