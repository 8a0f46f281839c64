"""Our FEN writer (:func:`shared.rules.chess.fen`, used for every MoveAccepted) against
python-chess's ``Board.fen()`` on positions with castling rights lost on either side, en passant
squares with and without a legal capture, promotions and long games; the position status
(:func:`shared.rules.chess.position_status`) against python-chess's own tests; the derived event
ids (:func:`shared.service.derived_id`) against ``uuid.uuid5``."""
from __future__ import annotations

import random

import chess

from shared.rules.chess import fen, position_status, repetitions


def test_known_positions():
    b = chess.Board()
    assert fen(b) == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    b.push_san("e4")  # no black pawn can take en passant: no square written
    assert fen(b) == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    b = chess.Board("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3")
    b.push_san("c4")  # d4xc3 en passant is legal: c3 written
    assert fen(b) == "rnbqkbnr/ppp1pppp/8/8/2PpP3/8/PP1P1PPP/RNBQKBNR b KQkq c3 0 3"


def _fens_equal_along_a_random_game(b: chess.Board, rng: random.Random, most: int) -> int:
    """Play up to ``most`` random legal plies from ``b``, asserting our FEN equals python-chess's
    at the start and after each; the plies played."""
    assert fen(b) == b.fen()
    plies = 0
    for _ in range(rng.randint(1, most)):
        moves = list(b.legal_moves)
        if not moves:
            break
        b.push(rng.choice(moves))
        assert fen(b) == b.fen()
        plies += 1
    return plies


def test_equal_to_python_chess_on_random_games():
    rng = random.Random(2026)
    starts = [chess.STARTING_FEN,
              "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",  # perft "kiwipete"
              "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1"]
    checked = 0
    for g in range(150):
        checked += _fens_equal_along_a_random_game(chess.Board(starts[g % len(starts)]), rng, 160)
    assert checked > 5_000


def test_equal_to_python_chess_in_chess960():
    """X-FEN castling letters (a rook that is not the outermost is named by its file), which the
    castling field's table (``_castling``) must keep apart from standard chess's KQkq."""
    rng = random.Random(960)
    checked = 0
    for n in range(0, 960, 7):
        checked += _fens_equal_along_a_random_game(chess.Board.from_chess960_pos(n), rng, 60)
    assert checked > 2_000


def _status(b: chess.Board) -> str:
    """What position_status was before it looked for a legal move once (and before it told the
    1994 art. 10.4 endings from other dead positions: see :func:`_as_before`)."""
    for status, test in (("checkmate", b.is_checkmate), ("stalemate", b.is_stalemate),
                         ("insufficient-material", b.is_insufficient_material),
                         ("fivefold-repetition", b.is_fivefold_repetition),
                         ("seventyfive-moves", b.is_seventyfive_moves)):
        if test():
            return status
    return "ongoing"


def _as_before(status: str) -> str:
    """``position_status`` with a dead position read as insufficient material, as it was."""
    return "insufficient-material" if status == "dead-position" else status


def test_position_status_equal_to_python_chess():
    rng = random.Random(7)
    seen = set()
    for fen_ in ("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3",  # mate
                 "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",  # stalemate
                 "8/8/4k3/8/8/3K4/8/8 w - - 0 1"):  # bare kings
        seen.add(position_status(chess.Board(fen_)))
        assert _as_before(position_status(chess.Board(fen_))) == _status(chess.Board(fen_))
    shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"] * 5  # the start position five times, and more
    for g in range(301):  # random games from few pieces reach mates, stalemates and repetitions
        b = chess.Board(["4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "6k1/5ppp/8/8/8/8/5PPP/3QR1K1 w - - 0 1",
                         chess.STARTING_FEN][g % 3])
        if g == 300:
            b = chess.Board()
        for k in range(len(shuffle) if g == 300 else rng.randint(1, 300)):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(chess.Move.from_uci(shuffle[k]) if g == 300 else rng.choice(moves))
            assert _as_before(position_status(b)) == _status(b)
            seen.add(position_status(b))
            n = 1  # repetitions() before it skipped what the halfmove clock rules out
            while b.is_repetition(n + 1):
                n += 1
            assert repetitions(b) == n
            seen.add(n)
    assert {"checkmate", "stalemate", "insufficient-material", "fivefold-repetition", "ongoing",
            3, 4, 5} <= seen


def test_derived_ids_are_uuid5():
    import uuid

    from shared.service import _NS, derived_id

    rng = random.Random(3)
    for k in range(2_000):
        cause = uuid.UUID(int=rng.getrandbits(128)) if k % 5 else None
        want = uuid.uuid5(_NS, f"clock:{cause}:{k % 3}:")
        got = derived_id("clock", cause, k % 3)
        assert (got, str(got), got.version, got.variant) == (want, str(want), want.version, want.variant)
