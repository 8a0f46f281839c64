"""Xiangqi (Chinese chess) rules engine: board, moves, check, mate, stalemate (pure, no I/O).

Source: 中国象棋竞赛规则 (1999), chapter 1 (../shared/rules/xiangqi-competition-rules-1999.txt):
art. 1 the board (9 files x 10 ranks, the river, the two palaces), art. 2.2 how each piece moves
(general and advisors stay in the palace; elephants move two points diagonally, never across the
river, and are blocked by a piece on the "eye"; the horse moves one point straight then one
diagonally and is blocked by a piece on its "leg"; chariots move like rooks; the cannon moves like
a chariot and captures by jumping exactly one piece, the "screen"; soldiers move forward one point,
and sideways too once across the river), art. 2.2 / 4.1.2 the generals may never face each other
on an open file (a move that leaves them facing is illegal here, and art. 4.1.2 makes it a loss
where a referee lets it stand on the board), art. 3.1 check and checkmate, art. 3.2 / 4.1.3 a side
with no legal move is stalemated (困毙) and loses.

Coordinates
-----------
A square is ``sq = rank * 9 + file``: ``file`` 0..8 = a..i from Red's left, ``rank`` 0..9 from
Red's back rank (0) to Black's (9). Two move spellings:

* ICCS (``h2e2``): file letter and rank digit 0-9 (rank 0 = Red's back rank);
* the engines' UCI (Fairy-Stockfish, ``h3e3``): ranks 1-10.

FEN is the engines' xiangqi FEN: ranks from Black's back rank down, Red uppercase, ``w`` (or
``r``) = Red to move, ``b`` = Black; the castling and en-passant fields are ``-``; fields after the
placement may be left out (Red to move, counters 0 and 1); pieces K A B N R C P (general, advisor, elephant, horse, chariot, cannon, soldier). On input
the letters E (elephant) and H (horse) are accepted as well. Colours are ``"red"`` / ``"black"``.

Errors: :class:`XiangqiError` (a ``ValueError``) for a bad FEN, square or move text.
"""
from __future__ import annotations

from typing import NamedTuple

from contracts.messages import Rule
from shared.errors import RulesError

__all__ = [
    "RED", "BLACK", "START_FEN", "FILES", "XiangqiError", "Move", "Board", "colour_of",
    "square", "square_name", "other", "RULES",
]

RED, BLACK = "red", "black"
FILES = "abcdefghi"
START_FEN = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"
PIECES = "KABNRCP"


class XiangqiError(RulesError):
    """A bad FEN, square or move; the message says which and why."""


def colour_of(piece: str) -> str:
    """``"red"`` for an uppercase piece letter, ``"black"`` for lowercase."""
    return RED if piece.isupper() else BLACK


def other(colour: str) -> str:
    """The opposing colour."""
    return BLACK if colour == RED else RED


def square(name: str, *, ranks_from: int = 0) -> int:
    """Square index of ``name`` such as ``"h2"`` (ICCS, ``ranks_from=0``) or ``"h10"``
    (engines' UCI, ``ranks_from=1``). Raises :class:`XiangqiError`."""
    if len(name) < 2 or name[0] not in FILES or not name[1:].isdigit():
        raise XiangqiError(f"not a square: {name!r}")
    rank = int(name[1:]) - ranks_from
    if not 0 <= rank <= 9:
        raise XiangqiError(f"no rank {name[1:]} on the board: {name!r}")
    return rank * 9 + FILES.index(name[0])


def square_name(sq: int, *, ranks_from: int = 0) -> str:
    """``"h2"`` for ICCS (``ranks_from=0``), ``"h3"`` for the engines' UCI (``ranks_from=1``)."""
    return f"{FILES[sq % 9]}{sq // 9 + ranks_from}"


class Move(NamedTuple):
    """A move from ``from_sq`` to ``to_sq`` (square indices, see the module docstring)."""

    from_sq: int
    to_sq: int

    def iccs(self) -> str:
        """ICCS coordinates, ranks 0-9: ``h2e2``."""
        return square_name(self.from_sq) + square_name(self.to_sq)

    def uci(self) -> str:
        """Engines' UCI coordinates, ranks 1-10: ``h3e3``."""
        return square_name(self.from_sq, ranks_from=1) + square_name(self.to_sq, ranks_from=1)

    @classmethod
    def from_iccs(cls, text: str) -> Move:
        """Parse ICCS (``h2e2``, also ``H2-E2``). Raises :class:`XiangqiError`."""
        t = text.strip().lower().replace("-", "")
        if len(t) != 4:
            raise XiangqiError(f"not an ICCS move: {text!r}")
        return cls(square(t[:2]), square(t[2:]))

    @classmethod
    def from_uci(cls, text: str) -> Move:
        """Parse the engines' UCI (``h3e3``, ``h10g8``). Raises :class:`XiangqiError`."""
        t = text.strip().lower()
        for cut in (2, 3):
            a, b = t[:cut], t[cut:]
            if 2 <= len(b) <= 3 and a[1:].isdigit() and b[1:].isdigit():
                try:
                    return cls(square(a, ranks_from=1), square(b, ranks_from=1))
                except XiangqiError:
                    continue
        raise XiangqiError(f"not a UCI move: {text!r}")


# ------------------------------------------------------------------------- precomputed tables
def _rf(sq: int) -> tuple[int, int]:
    return divmod(sq, 9)


def _on(r: int, f: int) -> bool:
    return 0 <= r <= 9 and 0 <= f <= 8


def _palace(colour: str, r: int, f: int) -> bool:
    return 3 <= f <= 5 and (0 <= r <= 2 if colour == RED else 7 <= r <= 9)


def _own_half(colour: str, r: int) -> bool:
    return r <= 4 if colour == RED else r >= 5


_ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))
_DIAG = ((1, 1), (1, -1), (-1, 1), (-1, -1))
_HORSE = tuple((dr, df, (dr // 2, 0) if abs(dr) == 2 else (0, df // 2))
               for dr, df in ((2, 1), (2, -1), (-2, 1), (-2, -1), (1, 2), (1, -2), (-1, 2), (-1, -2)))

#: RAYS[sq] = four lists of squares outward from sq (up, down, right, left).
RAYS: list[tuple[tuple[int, ...], ...]] = []
#: KING_STEPS[colour][sq], ADVISOR_STEPS[colour][sq]: destination squares inside the palace.
KING_STEPS: dict[str, list[tuple[int, ...]]] = {RED: [], BLACK: []}
ADVISOR_STEPS: dict[str, list[tuple[int, ...]]] = {RED: [], BLACK: []}
#: ELEPHANT_STEPS[colour][sq] = ((to, eye), ...) on the own side of the river.
ELEPHANT_STEPS: dict[str, list[tuple[tuple[int, int], ...]]] = {RED: [], BLACK: []}
#: HORSE_STEPS[sq] = ((to, leg), ...); HORSE_FROM[sq] = ((from, leg), ...) horses attacking sq.
HORSE_STEPS: list[tuple[tuple[int, int], ...]] = []
HORSE_FROM: list[tuple[tuple[int, int], ...]] = []
#: SOLDIER_STEPS[colour][sq]: forward, and sideways once across the river.
SOLDIER_STEPS: dict[str, list[tuple[int, ...]]] = {RED: [], BLACK: []}

for _sq in range(90):
    _r, _f = _rf(_sq)
    rays = []
    for dr, df in _ORTHO:
        ray, r, f = [], _r + dr, _f + df
        while _on(r, f):
            ray.append(r * 9 + f)
            r, f = r + dr, f + df
        rays.append(tuple(ray))
    RAYS.append(tuple(rays))
    HORSE_STEPS.append(tuple(((_r + dr) * 9 + _f + df, (_r + lr) * 9 + _f + lf)
                             for dr, df, (lr, lf) in _HORSE if _on(_r + dr, _f + df)))
    # a horse on sq - (dr, df) jumps to sq over its leg next to itself
    HORSE_FROM.append(tuple(((_r - dr) * 9 + _f - df, (_r - dr + lr) * 9 + _f - df + lf)
                            for dr, df, (lr, lf) in _HORSE if _on(_r - dr, _f - df)))
    for c in (RED, BLACK):
        KING_STEPS[c].append(tuple((_r + dr) * 9 + _f + df for dr, df in _ORTHO
                                   if _palace(c, _r + dr, _f + df)))
        ADVISOR_STEPS[c].append(tuple((_r + dr) * 9 + _f + df for dr, df in _DIAG
                                      if _palace(c, _r + dr, _f + df)))
        ELEPHANT_STEPS[c].append(tuple(((_r + 2 * dr) * 9 + _f + 2 * df, (_r + dr) * 9 + _f + df)
                                       for dr, df in _DIAG
                                       if _on(_r + 2 * dr, _f + 2 * df) and _own_half(c, _r + 2 * dr)))
        fwd = 1 if c == RED else -1
        steps = [(_r + fwd) * 9 + _f] if _on(_r + fwd, _f) else []
        if not _own_half(c, _r):
            steps += [_r * 9 + _f + d for d in (-1, 1) if _on(_r, _f + d)]
        SOLDIER_STEPS[c].append(tuple(steps))


# ------------------------------------------------------------------------- motion (art. 2.2-2.3)
def _chariot_targets(s: list, sq: int, c: str, captures_only: bool):
    """Chariot: any distance along a rank or file, stopping at the first piece (art. 2.2)."""
    for ray in RAYS[sq]:
        for t in ray:
            if s[t] is None:
                if not captures_only:
                    yield t
                continue
            yield t
            break


def _cannon_targets(s: list, sq: int, c: str, captures_only: bool):
    """Cannon: moves like a chariot, captures by jumping exactly one screen (art. 2.2)."""
    for ray in RAYS[sq]:
        screen = False
        for t in ray:
            if not screen:
                if s[t] is None:
                    if not captures_only:
                        yield t
                else:
                    screen = True
            elif s[t] is not None:
                yield t
                break


def _horse_targets(s: list, sq: int, c: str, captures_only: bool):
    """Horse: one step orthogonally then one diagonally, unless its leg is blocked (art. 2.2)."""
    return [t for t, leg in HORSE_STEPS[sq] if s[leg] is None]


def _elephant_targets(s: list, sq: int, c: str, captures_only: bool):
    """Elephant: two points diagonally on its own side, unless the eye is blocked (art. 2.2)."""
    return [t for t, eye in ELEPHANT_STEPS[c][sq] if s[eye] is None]


def _advisor_targets(s: list, sq: int, c: str, captures_only: bool):
    """Advisor: one point diagonally inside the palace (art. 2.2)."""
    return ADVISOR_STEPS[c][sq]


def _soldier_targets(s: list, sq: int, c: str, captures_only: bool):
    """Soldier: one point forward, sideways too once across the river (art. 2.2)."""
    return SOLDIER_STEPS[c][sq]


def _general_targets(s: list, sq: int, c: str, captures_only: bool):
    """General: one point orthogonally inside the palace (art. 2.2), plus the enemy general's
    square when the two face each other on an open file (art. 2.2, the flying-general line)."""
    yield from KING_STEPS[c][sq]
    enemy = "k" if c == RED else "K"
    for t in RAYS[sq][0 if c == RED else 1]:
        if s[t] is not None:
            if s[t] == enemy:
                yield t
            break


_MOTION = {"R": _chariot_targets, "C": _cannon_targets, "N": _horse_targets, "B": _elephant_targets,
           "A": _advisor_targets, "P": _soldier_targets, "K": _general_targets}


# --------------------------------------------------------------------------------------- FEN
_FEN_ALIASES = {"e": "b", "h": "n"}


def _parse_fen(fen: str) -> tuple[list[str | None], str, int, int]:
    parts = fen.strip().split()
    if not parts:
        raise XiangqiError("empty FEN")
    rows = parts[0].split("/")
    if len(rows) != 10:
        raise XiangqiError(f"FEN needs 10 ranks separated by '/', got {len(rows)}")
    squares: list[str | None] = [None] * 90
    for i, row in enumerate(rows):
        rank, f = 9 - i, 0
        for ch in row:
            if ch.isdigit():
                f += int(ch)
                continue
            p = _FEN_ALIASES.get(ch.lower(), ch.lower())
            if p.upper() not in PIECES:
                raise XiangqiError(f"unknown piece {ch!r} in FEN rank {rank}")
            if f > 8:
                raise XiangqiError(f"FEN rank {rank} has more than 9 files")
            squares[rank * 9 + f] = p.upper() if ch.isupper() else p
            f += 1
        if f != 9:
            raise XiangqiError(f"FEN rank {rank} has {f} files, not 9")
    turn = parts[1] if len(parts) > 1 else "w"
    if turn not in ("w", "r", "b"):
        raise XiangqiError(f"side to move must be w (red) or b (black), got {turn!r}")
    if len(parts) > 6:
        raise XiangqiError(f"FEN has {len(parts)} fields; at most 6 (placement, side, -, -, "
                           "halfmove clock, move number)")
    for i, name in ((2, "castling"), (3, "en passant")):
        if len(parts) > i and parts[i] != "-":
            raise XiangqiError(f"xiangqi FEN has no {name} field: '-' expected, got {parts[i]!r}")
    try:
        half = int(parts[4]) if len(parts) > 4 else 0
        full = int(parts[5]) if len(parts) > 5 else 1
    except ValueError:
        raise XiangqiError("FEN move counters must be integers") from None
    if not 0 <= half <= 10_000 or not 1 <= full <= 10_000:
        raise XiangqiError("FEN move counters out of range (0-10000 plies, moves 1-10000)")
    return squares, RED if turn in ("w", "r") else BLACK, half, full


_ELEPHANT_POINTS = {(0, 2), (0, 6), (2, 0), (2, 4), (2, 8), (4, 2), (4, 6)}


def _check_placement(squares: list[str | None]) -> None:
    """Every piece on a point it can reach (art. 2.2) and exactly one general a side."""
    for c in (RED, BLACK):
        kings = [s for s, p in enumerate(squares) if p == ("K" if c == RED else "k")]
        if len(kings) != 1:
            raise XiangqiError(f"{c} must have exactly one general, has {len(kings)}")
    limits = {"K": 1, "A": 2, "B": 2, "N": 2, "R": 2, "C": 2, "P": 5}
    for sq, p in enumerate(squares):
        if p is None:
            continue
        c, r, f, u = colour_of(p), sq // 9, sq % 9, p.upper()
        if sum(1 for q in squares if q == p) > limits[u]:
            raise XiangqiError(f"{c} has more than {limits[u]} of piece {u}")
        bad = ((u in "KA" and not _palace(c, r, f))
               or (u == "A" and (r + f) % 2 != (1 if c == RED else 0))
               or (u == "B" and ((r if c == RED else 9 - r), f) not in _ELEPHANT_POINTS)
               or (u == "P" and (r < 3 if c == RED else r > 6))
               or (u == "P" and _own_half(c, r) and f % 2 == 1))
        if bad:
            raise XiangqiError(f"{c} {u} cannot stand on {square_name(sq)}")


# ------------------------------------------------------------------------------------- board
class Board:
    """A xiangqi position with its move history (mutable, like python-chess's ``Board``).

    ``squares``: 90 entries, piece letter or None. ``turn``: ``"red"`` / ``"black"``.
    ``halfmove_clock``: plies since the last capture (art. 4.2.4 counts moves without a capture).
    Raises :class:`XiangqiError` for an invalid FEN or placement (pieces off their points, a side
    without exactly one general, the side not to move in check or generals facing).
    """

    __slots__ = ("squares", "turn", "halfmove_clock", "fullmove", "move_stack", "_undo", "_kings",
                 "start_fen")

    def __init__(self, fen: str = START_FEN, *, validate: bool = True) -> None:
        self.squares, self.turn, self.halfmove_clock, self.fullmove = _parse_fen(fen)
        if validate:
            _check_placement(self.squares)
        self._kings = {RED: self.squares.index("K") if "K" in self.squares else None,
                       BLACK: self.squares.index("k") if "k" in self.squares else None}
        self.move_stack: list[Move] = []
        self._undo: list[tuple[str | None, int]] = []
        if validate and self.is_check(other(self.turn)):
            raise XiangqiError(f"{other(self.turn)} is in check (or the generals face) "
                               f"but it is {self.turn}'s turn")
        self.start_fen = self.fen()

    # -------------------------------------------------------------------------- queries
    def piece_at(self, sq: int) -> str | None:
        """The piece letter on ``sq`` or None."""
        return self.squares[sq]

    def king_square(self, colour: str) -> int | None:
        """The square of ``colour``'s general."""
        return self._kings[colour]

    def copy(self) -> Board:
        """An independent copy with the same history."""
        b = Board.__new__(Board)
        b.squares = list(self.squares)
        b.turn, b.halfmove_clock, b.fullmove = self.turn, self.halfmove_clock, self.fullmove
        b.move_stack, b._undo, b._kings = list(self.move_stack), list(self._undo), dict(self._kings)
        b.start_fen = self.start_fen
        return b

    def fen(self) -> str:
        """The position as xiangqi FEN (``w`` = Red to move)."""
        rows = []
        for rank in range(9, -1, -1):
            row, empty = "", 0
            for f in range(9):
                p = self.squares[rank * 9 + f]
                if p is None:
                    empty += 1
                    continue
                if empty:
                    row, empty = row + str(empty), 0
                row += p
            rows.append(row + (str(empty) if empty else ""))
        return (f"{'/'.join(rows)} {'w' if self.turn == RED else 'b'} - - "
                f"{self.halfmove_clock} {self.fullmove}")

    def position_key(self) -> str:
        """Placement and side to move: equal keys are the same position (art. 24 repetition)."""
        return "".join(p or "." for p in self.squares) + self.turn[0]

    # ---------------------------------------------------------------------- attacks
    def attacks(self, sq: int) -> list[int]:
        """Squares the piece on ``sq`` could capture on (or move to if empty) by its own motion,
        ignoring its own general's safety (art. 2.2-2.3); the general includes the square of the
        enemy general when they face on an open file. Empty ``sq``: []."""
        p = self.squares[sq]
        if p is None:
            return []
        return [t for t in self._targets(sq, p, captures_only=False)]

    def _targets(self, sq: int, p: str, captures_only: bool):
        """Squares piece ``p`` on ``sq`` reaches by its own motion (art. 2.2-2.3): an iterable of
        square indices, empty ones left out when ``captures_only``."""
        c = RED if p.isupper() else BLACK
        return _MOTION[p.upper()](self.squares, sq, c, captures_only)

    def attackers(self, sq: int, colour: str) -> list[int]:
        """Squares of ``colour``'s pieces that could capture on ``sq`` (pseudo-legal: their own
        general's safety is not considered; a general counts along an open file to the other
        general, art. 2.2)."""
        return [a for a in range(90) if self.squares[a] is not None
                and colour_of(self.squares[a]) == colour and sq in self._targets(a, self.squares[a], True)]

    def _attacked(self, sq: int, by: str) -> bool:
        """Is ``sq`` attacked by ``by`` (fast path for check detection)."""
        s = self.squares
        up = by == RED
        rook, cannon, horse, pawn, king = (("R", "C", "N", "P", "K") if up else ("r", "c", "n", "p", "k"))
        for ray in RAYS[sq]:
            screen = False
            for t in ray:
                q = s[t]
                if q is None:
                    continue
                if not screen:
                    if q == rook or (q == king and t % 9 == sq % 9):
                        return True
                    screen = True
                else:
                    if q == cannon:
                        return True
                    break
        for frm, leg in HORSE_FROM[sq]:
            if s[frm] == horse and s[leg] is None:
                return True
        r, f = divmod(sq, 9)
        back = r - 1 if up else r + 1  # a soldier attacking sq stands one rank behind it
        if 0 <= back <= 9 and s[back * 9 + f] == pawn:
            return True
        if not _own_half(by, r):  # sideways only once across the river
            for d in (-1, 1):
                if 0 <= f + d <= 8 and s[r * 9 + f + d] == pawn:
                    return True
        return False

    def is_check(self, colour: str | None = None) -> bool:
        """Is ``colour``'s general (default: the side to move) attacked, the facing generals
        included (art. 3.1, 2.2)?"""
        c = self.turn if colour is None else colour
        k = self._kings[c]
        return k is not None and self._attacked(k, other(c))

    # ------------------------------------------------------------------------ moves
    def pseudo_moves(self, colour: str | None = None) -> list[Move]:
        """Moves by the motion rules of art. 2.2-2.3, own general's safety not checked."""
        c = self.turn if colour is None else colour
        s = self.squares
        out = []
        for sq in range(90):
            p = s[sq]
            if p is None or (p.isupper() != (c == RED)):
                continue
            for t in self._targets(sq, p, False):
                q = s[t]
                if q is None or q.isupper() != p.isupper():
                    if p.upper() == "K" and q is not None and q.upper() == "K":
                        continue  # the facing line is an attack, not a move
                    out.append(Move(sq, t))
        return out

    def _make(self, m: Move) -> None:
        s = self.squares
        p, cap = s[m.from_sq], s[m.to_sq]
        s[m.to_sq], s[m.from_sq] = p, None
        if p == "K":
            self._kings[RED] = m.to_sq
        elif p == "k":
            self._kings[BLACK] = m.to_sq
        self._undo.append((cap, self.halfmove_clock))

    def _unmake(self, m: Move) -> None:
        s = self.squares
        cap, self.halfmove_clock = self._undo.pop()
        p = s[m.to_sq]
        s[m.from_sq], s[m.to_sq] = p, cap
        if p == "K":
            self._kings[RED] = m.from_sq
        elif p == "k":
            self._kings[BLACK] = m.from_sq

    def legal_moves(self) -> list[Move]:
        """Legal moves of the side to move: pseudo moves that leave its general neither attacked
        nor facing the other general (art. 2.2, 3.1)."""
        c, out = self.turn, []
        for m in self.pseudo_moves(c):
            self._make(m)
            if not self._attacked(self._kings[c], other(c)):
                out.append(m)
            self._unmake(m)
        return out

    def is_legal(self, m: Move) -> bool:
        """Is ``m`` a legal move of the side to move?"""
        p = self.squares[m.from_sq] if 0 <= m.from_sq < 90 else None
        if p is None or colour_of(p) != self.turn or not 0 <= m.to_sq < 90:
            return False
        q = self.squares[m.to_sq]
        if (q is not None and colour_of(q) == self.turn) or m.to_sq not in self.attacks(m.from_sq):
            return False
        if q is not None and q.upper() == "K":
            return False
        self._make(m)
        ok = not self._attacked(self._kings[self.turn], other(self.turn))
        self._unmake(m)
        return ok

    def why_illegal(self, m: Move) -> str:
        """A short reason why ``m`` is not legal ("" when it is)."""
        p = self.squares[m.from_sq]
        if p is None:
            return f"no piece on {square_name(m.from_sq)}"
        if colour_of(p) != self.turn:
            return f"the piece on {square_name(m.from_sq)} is {colour_of(p)}'s; {self.turn} to move"
        q = self.squares[m.to_sq]
        if q is not None and colour_of(q) == self.turn:
            return f"{square_name(m.to_sq)} holds {self.turn}'s own piece"
        if m.to_sq not in self.attacks(m.from_sq):
            return f"a {_NAMES[p.upper()]} on {square_name(m.from_sq)} cannot move to {square_name(m.to_sq)} (art. 2.2)"
        self._make(m)
        bad = self._attacked(self._kings[self.turn], other(self.turn))
        facing = bad and self._faces()
        self._unmake(m)
        if facing:
            return "the generals would face each other on an open file (art. 2.2, 4.1.2)"
        if bad:
            return f"{self.turn}'s general would be in check (art. 3.1)"
        return ""

    def _faces(self) -> bool:
        kr, kb = self._kings[RED], self._kings[BLACK]
        if kr is None or kb is None or kr % 9 != kb % 9:
            return False
        return all(self.squares[t] is None for t in range(kr + 9, kb, 9))

    def push(self, m: Move) -> None:
        """Play ``m`` (assumed legal; use :meth:`is_legal` first)."""
        capture = self.squares[m.to_sq] is not None
        self._make(m)
        self.halfmove_clock = 0 if capture else self.halfmove_clock + 1
        if self.turn == BLACK:
            self.fullmove += 1
        self.turn = other(self.turn)
        self.move_stack.append(m)

    def pop(self) -> Move:
        """Take back the last move."""
        m = self.move_stack.pop()
        self.turn = other(self.turn)
        if self.turn == BLACK:
            self.fullmove -= 1
        self._unmake(m)
        return m

    def gives_check(self, m: Move) -> bool:
        """Does ``m`` (legal) put the opponent's general in check?"""
        self.push(m)
        try:
            return self.is_check()
        finally:
            self.pop()

    def is_checkmate(self) -> bool:
        """The side to move is in check and has no legal move (art. 3.1)."""
        return self.is_check() and not self.legal_moves()

    def is_stalemate(self) -> bool:
        """The side to move is not in check and has no legal move: 困毙, a loss (art. 3.2, 4.1.3)."""
        return not self.is_check() and not self.legal_moves()

    def captured(self, ply: int = -1) -> str | None:
        """The piece captured by the move at ``ply`` of :attr:`move_stack` (None: no capture)."""
        return self._undo[ply][0]

    def can_win(self, colour: str) -> bool:
        """Whether ``colour`` still has material that could ever mate (art. 4.2.1 双方均无可能取胜的
        简单局势 is a draw only when neither side can). A chariot, horse or soldier can; a cannon
        can when some other piece than the two generals is on the board to serve as its screen;
        advisors and elephants never cross to the enemy palace and cannot."""
        own = [p for p in self.squares if p is not None and colour_of(p) == colour and p.upper() != "K"]
        if any(p.upper() in "RNP" for p in own):
            return True
        if any(p.upper() == "C" for p in own):
            return sum(1 for p in self.squares if p is not None and p.upper() != "K") >= 2
        return False

    def natural_limit(self, claimant: str, max_checks: int = 10) -> tuple[int, int, int]:
        """Art. 4.2.4 / 23.3 count for a natural-limit claim by ``claimant``: its moves since the
        last capture (by either side), how many of them gave check, and the moves that count,
        where at most ``max_checks`` checking moves are counted. Returns
        ``(moves, checks, counted)``; the claim holds when ``counted`` reaches the event's limit.
        A start position's FEN counter (plies without a capture before it) counts too: the
        claimant's share of those plies, as moves without check (whether they checked is not
        known)."""
        b = Board(self.start_fen, validate=False)
        before = b.halfmove_clock + (0 if b.turn == claimant else 1)  # the side not to move moved last
        moves, checks = before // 2, 0
        for m in self.move_stack:
            mover = b.turn
            capture = b.squares[m.to_sq] is not None
            b.push(m)
            if capture:
                moves = checks = 0
            elif mover == claimant:
                moves += 1
                checks += b.is_check()
        return moves, checks, moves - checks + min(checks, max_checks)

    def perft(self, depth: int) -> int:
        """Leaf nodes of the legal-move tree ``depth`` plies deep (bulk-counted at depth 1)."""
        if depth <= 0:
            return 1
        moves = self.legal_moves()
        if depth == 1:
            return len(moves)
        n = 0
        for m in moves:
            self.push(m)
            n += self.perft(depth - 1)
            self.pop()
        return n


_NAMES = {"K": "general", "A": "advisor", "B": "elephant", "N": "horse", "R": "chariot",
          "C": "cannon", "P": "soldier"}


X99 = "CXA-1999"


def _r(article: str, summary: str) -> Rule:
    return Rule(game="xiangqi", ruleset=X99, article=article, summary=summary)


#: The articles of the 1999 competition rules (中国象棋竞赛规则) the platform applies, by decision.
RULES: dict[str, Rule] = {
    "checkmate": _r("4.1.1", "the general is mated (将死): a loss"),
    "facing-generals": _r("4.1.2", "a move that leaves the generals facing is not allowed (2.2)"),
    "stalemate": _r("4.1.3", "no legal move (困毙): a loss"),
    "timeout": _r("4.1.4", "the set moves not made in the set time (22.1): a loss"),
    "absence": _r("4.1.5", "later than the event's default time (21.1): a loss"),
    "double-absence": _r("21.3", "both players past the default time: both forfeit (0-0)"),
    "illegal-move": _r("4.1.6", "a move against the rules of movement (art. 2) is refused"),
    "must-vary": _r("4.1.7", "a forbidden repetition not varied: a loss (24.3, 26.4)"),
    "fouls": _r("4.1.8", "three fouls (犯规) in one game: a loss"),
    "resignation": _r("4.1.9", "a player who resigns loses"),
    "disqualification": _r("4.1.10", "refusing the rules or serious misconduct: a loss (18.2)"),
    "insufficient-material": _r("4.2.1", "neither side can possibly win: a draw"),
    "agreement": _r("4.2.2", "a draw offered after one's own move and accepted (23.1)"),
    "repetition-draw": _r("4.2.3", "a repetition the 棋例 rule a draw (24.2, 26.2, 26.3)"),
    "natural-limit": _r("4.2.4", "the natural move limit without a capture (23.3): a draw"),
    "incorrect-claim": _r("23.3", "an untrue natural-limit claim: a foul (9.1.4) and 5 minutes added"),
    "perpetual-check": _r("24.1", "one-sided perpetual check (长将) loses (26.1)"),
    "repetition-ruling": _r("24", "position repeated three times: the 棋例 ruling (24, 26)"),
    "draw-offer": _r("23.1", "a draw is offered after one's own move, in turn, never twice running"),
    "warning": _r("18.1", "a warning by the game arbiter"),
    "foul": _r("9.1", "a foul (犯规), announced and recorded (9.2)"),
    "penalty": _r("18", "a penalty by the arbiter"),
    "arbiter": _r("18", "result entered or ruled by the arbiter"),
}
