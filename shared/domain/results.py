"""Result codes and result letters with their points: the only points tables.

Two notations, one scale (points, not half-points: a win 1, a draw ½, a loss 0):

- result codes (:data:`contracts.messages.ResultCode`), one per board, White's side first:
  ``1-0`` ``0-1`` ``1/2-1/2`` played over the board; ``+-`` / ``-+`` won / lost by forfeit and
  ``--`` a double forfeit (xiangqi 1999 art. 21.3-21.4: ``+`` is 1 point for an individual,
  ``-`` 0, "not played"); ``0-0`` is read as ``--`` (RecordResult's spelling);
- result letters of FIDE TRF-16 (C.04.A annex 2), one per player and round: ``1 0 =``
  played, ``W D L`` played unrated, ``+ -`` forfeit, and the rounds without a game: ``U`` the
  pairing-allocated bye (1 point, C.04.1 c), ``F`` / ``H`` / ``Z`` the full-, half- and
  zero-point byes a player asked for, ``-`` absent (0).
"""
from __future__ import annotations

from contracts.messages import GameEnded

#: Points of a TRF-16 result letter (C.04.A annex 2).
LETTER_POINTS: dict[str, float] = {
    "1": 1.0, "0": 0.0, "=": 0.5, "W": 1.0, "D": 0.5, "L": 0.0, "+": 1.0, "-": 0.0,
    "U": 1.0, "F": 1.0, "H": 0.5, "Z": 0.0,
}
#: The letters of a game played over the board (counts for rematches and colours).
PLAYED_LETTERS = frozenset("10=WDL")
#: A result code -> the (White, Black) TRF letters; their points are the code's points.
CODE_LETTERS: dict[str, tuple[str, str]] = {
    "1-0": ("1", "0"), "0-1": ("0", "1"), "1/2-1/2": ("=", "="),
    "+-": ("+", "-"), "-+": ("-", "+"), "--": ("-", "-"),
}
#: Result codes of a game decided without play (21.4: ``+`` / ``-``; 21.3 a double forfeit).
FORFEITS = frozenset({"+-", "-+", "--"})


def normal_code(code: str) -> str:
    """``code`` with ``0-0`` read as the double forfeit ``--``; ``ValueError`` for a string
    that is no result code."""
    code = "--" if code == "0-0" else code
    if code not in CODE_LETTERS:
        raise ValueError(f"unknown result {code!r}; one of {', '.join(CODE_LETTERS)}, 0-0")
    return code


def points(code: str) -> tuple[float, float]:
    """(White's, Black's) points of result code ``code`` (``1-0`` -> (1, 0), ``+-`` -> (1, 0),
    ``1/2-1/2`` -> (½, ½), ``--``/``0-0`` -> (0, 0)); ``ValueError`` for an unknown code."""
    w, b = CODE_LETTERS[normal_code(code)]
    return LETTER_POINTS[w], LETTER_POINTS[b]


def played(code: str) -> bool:
    """True when the game of ``code`` was played over the board (not a forfeit, 21.4)."""
    return normal_code(code) not in FORFEITS


def letter(code: str, colour: str) -> str:
    """The TRF letter of result code ``code`` for the player of ``colour`` (``w``/``b``)."""
    return CODE_LETTERS[normal_code(code)][colour != "w"]


def result_code(p: GameEnded) -> str:
    """The result code of a GameEnded: ``1-0``/``0-1``/``1/2-1/2``, ``+-``/``-+`` when it
    ended by forfeit (xiangqi 1999 art. 21.4 marks forfeits + and -), ``--`` for ``0-0``:
    a double forfeit (21.3) or a Go game with no result (Japanese rules 1989 art. 12)."""
    if p.reason == "forfeit":
        return "+-" if p.result == "1-0" else "-+"
    return normal_code(p.result)
