"""Our FEN writer (:func:`shared.rules.chess.fen`, used for every MoveAccepted) against
python-chess's ``Board.fen()`` on positions with castling rights lost on either side, en passant
squares with and without a legal capture, promotions and long games."""
from __future__ import annotations

import random

import chess

from shared.rules.chess import fen


def test_known_positions():
    b = chess.Board()
    assert fen(b) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    b.push_san("e4")  # no black pawn can take en passant: no square written
    assert fen(b) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    b = chess.Board("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3")
    b.push_san("c4")  # d4xc3 en passant is legal: c3 written
    assert fen(b) == "rnbqkbnr/ppp1pppp/8/8/2PpP3/8/PP1P1PPP/RNBQKBNR b KQkq c3 0 3"


def test_equal_to_python_chess_on_random_games():
    rng = random.Random(2026)
    starts = [chess.STARTING_FEN,
              "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # perft "kiwipete"
              "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"]
    checked = 0
    for g in range(150):
        b = chess.Board(starts[g % len(starts)])
        for _ in range(rng.randint(1, 160)):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
            assert fen(b) == b.fen()
            checked += 1
    assert checked > 5_000
