"""One interface over the games' rules, so the services need not know which game they run.

:func:`position` gives a :class:`Position` for ``"chess"`` (python-chess, FIDE Laws) or
``"xiangqi"`` (:mod:`shared.rules.xiangqi`, 1999 competition rules). Seats are ``white`` and
``black`` for both games: in xiangqi Red sits in the ``white`` seat and moves first.

A position parses move text (raising :class:`MoveError` with code ``malformed`` or ``illegal``),
plays moves, reports the status of the position after a move and answers the questions
adjudication asks (can a side still win, does a draw claim hold). ``RULES`` of a position maps a
decision (``checkmate``, ``timeout``, ``absence`` ...) to the article of that game's rules.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import chess

from contracts.messages import Rule
from shared.rules import chess as chess_rules
from shared.rules import xiangqi
from shared.rules.chess import MoveError

__all__ = ["GAMES", "MoveError", "Played", "Position", "position", "rules_of", "start_fen"]

GAMES = ("chess", "xiangqi")


@dataclass(frozen=True)
class Played:
    """A move as the record keeps it: ``uci`` the coordinate move (chess UCI / xiangqi ICCS),
    ``san`` the human notation (chess SAN / xiangqi Chinese notation), ``wxf`` (xiangqi only),
    ``status`` of the position after it, ``halfmove_clock`` and ``repetitions`` after it."""

    uci: str
    san: str
    fen_after: str
    status: str
    halfmove_clock: int
    repetitions: int
    wxf: str | None = None


class Position:
    """A game in progress (mutable). Subclasses: chess and xiangqi."""

    game: str
    RULES: dict[str, Rule]

    @property
    def turn(self) -> str:
        """Seat colour to move: ``"white"`` or ``"black"`` (xiangqi Red = white)."""
        raise NotImplementedError

    @property
    def ply(self) -> int:
        raise NotImplementedError

    def fen(self) -> str:
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        """The legal move ``text`` names. Raises :class:`MoveError`."""
        raise NotImplementedError

    def play(self, move: Any) -> Played:
        """Play a move returned by :meth:`parse`; returns the record of it."""
        raise NotImplementedError

    def play_coord(self, coord: str) -> None:
        """Replay a recorded coordinate move (``Played.uci``) without checks."""
        raise NotImplementedError

    def coord(self, move: Any) -> str:
        raise NotImplementedError

    def status(self) -> str:
        """``ongoing`` or the terminal status of the position (``checkmate`` ...)."""
        raise NotImplementedError

    def can_win(self, colour: str) -> bool:
        """Whether the seat ``colour`` still has material that could mate."""
        raise NotImplementedError

    def outcome(self, status: str, mover: str) -> tuple[str, str | None]:
        """For a terminal ``status`` after ``mover``'s move: (result, winner colour or None)."""
        raise NotImplementedError

    def claim(self, reason: str, move: Any, limit: int, claimant: str) -> tuple[bool, str]:
        """Does the draw claim of seat ``claimant`` hold? Returns (valid, detail)."""
        raise NotImplementedError


_WIN = {"white": "1-0", "black": "0-1"}


class ChessPosition(Position):
    """Chess on python-chess (FIDE 1994 / 2023 articles in :data:`shared.rules.chess.RULES`)."""

    game = "chess"
    RULES = chess_rules.RULES

    def __init__(self, fen: str | None) -> None:
        self.board = chess_rules.board_from_fen(fen)

    @property
    def turn(self) -> str:
        return chess_rules.colour_name(self.board.turn)

    @property
    def ply(self) -> int:
        return len(self.board.move_stack)

    def fen(self) -> str:
        return self.board.fen()

    def parse(self, text: str) -> chess.Move:
        return chess_rules.parse_move(self.board, text)

    def coord(self, move: chess.Move) -> str:
        return move.uci()

    def play(self, move: chess.Move) -> Played:
        san = self.board.san(move)
        self.board.push(move)
        return Played(move.uci(), san, self.board.fen(), self.status(), self.board.halfmove_clock,
                      chess_rules.repetitions(self.board))

    def play_coord(self, coord: str) -> None:
        self.board.push(chess.Move.from_uci(coord))

    def status(self) -> str:
        return chess_rules.position_status(self.board)

    def can_win(self, colour: str) -> bool:
        return chess_rules.can_checkmate(self.board, colour)

    def outcome(self, status: str, mover: str) -> tuple[str, str | None]:
        return (_WIN[mover], mover) if status == "checkmate" else ("1/2-1/2", None)

    def claim(self, reason: str, move: chess.Move | None, limit: int, claimant: str) -> tuple[bool, str]:
        return chess_rules.claim_is_valid(self.board, reason, move)  # the claimant is to move


_SEAT = {xiangqi.RED: "white", xiangqi.BLACK: "black"}


class XiangqiPosition(Position):
    """Xiangqi on :mod:`shared.rules.xiangqi` (1999 rules; articles in ``xiangqi.RULES``).

    Moves are read in ICCS (coordinates always mean ICCS), WXF or Chinese notation
    (:mod:`shared.rules.xiangqi_notation`).
    Terminal statuses: ``checkmate`` and ``stalemate`` (both lose, art. 4.1.1, 4.1.3) and
    ``insufficient-material`` (neither side can win, a draw, 4.2.1)."""

    game = "xiangqi"
    RULES = xiangqi.RULES

    def __init__(self, fen: str | None) -> None:
        try:
            self.board = xiangqi.Board(fen or xiangqi.START_FEN)
        except xiangqi.XiangqiError as e:
            raise ValueError(str(e)) from None
        self.seen: Counter[str] = Counter([self.board.position_key()])

    @property
    def turn(self) -> str:
        return _SEAT[self.board.turn]

    @property
    def ply(self) -> int:
        return len(self.board.move_stack)

    def fen(self) -> str:
        return self.board.fen()

    def parse(self, text: str) -> xiangqi.Move:
        from shared.rules import xiangqi_notation as notation

        # Coordinates are ICCS, always (the platform's contract: ranks 0-9 from Red's side); the
        # engines' UCI (ranks 1-10) is not guessed from the position, so a move means one thing.
        try:
            kind = "iccs" if notation.detect_notation(text) == "coord" else None
            return notation.parse_move(self.board, text, kind)
        except notation.MalformedMoveError as e:
            raise MoveError("malformed", str(e)) from None
        except xiangqi.XiangqiError as e:
            raise MoveError("illegal", str(e)) from None

    def coord(self, move: xiangqi.Move) -> str:
        return move.iccs()

    def play(self, move: xiangqi.Move) -> Played:
        from shared.rules import xiangqi_notation as notation

        chinese = notation.to_chinese(self.board, move)
        wxf = notation.to_wxf(self.board, move)
        self.play_coord(move.iccs())
        return Played(move.iccs(), chinese, self.board.fen(), self.status(),
                      self.board.halfmove_clock, self.seen[self.board.position_key()], wxf)

    def play_coord(self, coord: str) -> None:
        self.board.push(xiangqi.Move.from_iccs(coord))
        self.seen[self.board.position_key()] += 1

    def status(self) -> str:
        if not self.board.legal_moves():
            return "checkmate" if self.board.is_check() else "stalemate"
        if not self.board.can_win(xiangqi.RED) and not self.board.can_win(xiangqi.BLACK):
            return "insufficient-material"
        return "ongoing"

    def can_win(self, colour: str) -> bool:
        return self.board.can_win(xiangqi.RED if colour == "white" else xiangqi.BLACK)

    def outcome(self, status: str, mover: str) -> tuple[str, str | None]:
        if status in ("checkmate", "stalemate"):
            return _WIN[mover], mover
        return "1/2-1/2", None

    def claim(self, reason: str, move: Any, limit: int, claimant: str) -> tuple[bool, str]:
        """Art. 4.2.4 / 23.3: ``natural-limit`` holds when the claimant's moves since the last
        capture, with at most 10 of its checks counted, reach ``limit``."""
        if reason != "natural-limit":
            return False, f"xiangqi has no {reason} claim; claim natural-limit (art. 4.2.4)"
        moves, checks, counted = self.board.natural_limit(
            xiangqi.RED if claimant == "white" else xiangqi.BLACK)
        detail = (f"{moves} moves without a capture, {checks} of them checks; {counted} count "
                  f"(at most 10 checks, art. 23.3) against a limit of {limit}")
        return counted >= limit, detail


def position(game: str, fen: str | None = None) -> Position:
    """A new position of ``game`` (``"chess"`` or ``"xiangqi"``) from ``fen`` (the game's start
    position when None). Raises ``ValueError`` for an unknown game or an invalid FEN."""
    if game == "chess":
        return ChessPosition(fen)
    if game == "xiangqi":
        return XiangqiPosition(fen)
    raise ValueError(f"unknown game {game!r}; known: {', '.join(GAMES)}")


def rules_of(game: str) -> dict[str, Rule]:
    """The decision -> article map of ``game``."""
    return xiangqi.RULES if game == "xiangqi" else chess_rules.RULES


def start_fen(game: str) -> str:
    """The standard start position of ``game``."""
    return xiangqi.START_FEN if game == "xiangqi" else chess.STARTING_FEN
