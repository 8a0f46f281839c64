"""Reading recorded round robins for hosting (no services)."""
from __future__ import annotations

import pytest

from services.tools.host import DEFAULT_TC, berger_numbers, record_time_control, slug
from shared.rules.pgnrecord import RecordError, read_games, read_round_robin


def _pgn(tmp_path, games):
    text = ""
    for rnd, board, w, b, res, moves in games:
        text += (f'[Event "T"]\n[Round "{rnd}.{board}"]\n[White "{w}"]\n[Black "{b}"]\n'
                 f'[Result "{res}"]\n\n{moves} {res}\n\n')
    p = tmp_path / "t.pgn"
    p.write_text(text)
    return p


FOUR = [(1, 1, "A", "D", "1-0", "1. e4"), (1, 2, "B", "C", "0-1", "1. d4"),
        (2, 1, "D", "C", "1/2-1/2", "1. c4"), (2, 2, "A", "B", "1-0", "1. Nf3"),
        (3, 1, "B", "D", "0-1", "1. g3"), (3, 2, "C", "A", "1/2-1/2", "1. b3")]


def test_berger_numbers_from_round_one(tmp_path):
    rec = read_round_robin(_pgn(tmp_path, FOUR))
    # Berger round 1 for 4 players is 1-4, 2-3: board 1 white = 1, black = 4
    assert berger_numbers(rec) == {"A": 1, "D": 4, "B": 2, "C": 3}
    assert record_time_control(rec) == DEFAULT_TC


def test_clock_estimate_without_time_control_tag(tmp_path):
    moves = "1. e4 { [%clk 0:03:00] } e5 { [%clk 0:02:59] } 2. Nf3 { [%clk 0:03:01] } Nc6 { [%clk 0:02:58] }"
    games = [(r, b, w, bl, res, moves) for r, b, w, bl, res, _ in FOUR]
    rec = read_round_robin(_pgn(tmp_path, games))
    # first readings at most 3:00 -> 180 s; white's clock rose 1 s between two moves -> +1
    assert record_time_control(rec) == "180+1"


def test_incomplete_round_robin_is_refused(tmp_path):
    with pytest.raises(RecordError, match="not a complete round robin"):
        read_round_robin(_pgn(tmp_path, FOUR[:-1]))
    with pytest.raises(RecordError, match="plays twice"):
        read_round_robin(_pgn(tmp_path, FOUR[:1] + [(1, 2, "A", "C", "1-0", "1. e4")] + FOUR[2:]))


def test_headers_only_file(tmp_path):
    p = tmp_path / "h.pgn"
    p.write_text('[White "A"]\n[Black "B"]\n[Result "1-0"]\n[Round "1.1"]\n\n'
                 '[White "C"]\n[Black "D"]\n[Result "0-1"]\n[Round "1.2"]\n')
    games = read_games(p)
    assert [(g.white, g.black, g.result, g.moves) for g in games] == [("A", "B", "1-0", []), ("C", "D", "0-1", [])]


def test_slug():
    assert slug("Volkov,Sergey1") == "Volkov-Sergey1"
    assert slug("Ğüç, Ali") == "Guc-Ali"
    assert slug("王天一") == "player"  # the host then numbers the ids (p1-player, ...)
    assert slug("**") == "player"


def test_record_with_an_unreadable_move_is_refused(tmp_path):
    games = [list(g) for g in FOUR]
    games[1][5] = "1. d4 d4"  # black cannot play d4 after 1. d4
    with pytest.raises(RecordError, match=r"game 2 \(B - C, round 1.2\) has an unreadable move after ply 1"):
        read_round_robin(_pgn(tmp_path, [tuple(g) for g in games]))
