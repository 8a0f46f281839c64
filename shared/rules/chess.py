"""Chess rules used by validation and adjudication, on python-chess.

Articles cite the FIDE Laws of Chess 1994 (Chinese text in ../shared/rules/chess-fide-laws-1994-zh.txt)
and, where the current FIDE Laws (2023) differ or add a rule, those: fivefold repetition and the
75-move rule (2023 art. 9.6) did not exist in 1994; a position from which no series of legal
moves can lead to checkmate ends the game at once as a draw, a "dead position" (2023 art. 5.2.2;
1994 art. 10.4 only lists four endings: K v K, K v K+B, K v K+N, K+B v K+B with bishops on
squares of one colour); a flag against a player who cannot be mated by any series of legal moves
is a draw (2023 art. 6.9; 1994 art. 10.5/10.14 only spare a player whose opponent has a bare
king). Both are decided by :func:`mate_possible`: python-chess's material rule, then a bounded
search of the positions reachable from a locked pawn structure.
"""
from __future__ import annotations

import re

import chess

from contracts.messages import Rule
from shared.errors import RulesError

F94 = "FIDE-1994"
F23 = "FIDE-2023"

RULES: dict[str, Rule] = {
    "checkmate": Rule(ruleset=F94, article="10.1", summary="checkmate wins the game"),
    "resignation": Rule(ruleset=F94, article="10.2", summary="a player who resigns loses"),
    "stalemate": Rule(ruleset=F94, article="10.3", summary="stalemate is a draw"),
    "insufficient-material": Rule(ruleset=F94, article="10.4",
                                  summary="K v K, K v K+B or K+N, K+B v K+B same colour: draw"),
    "dead-position": Rule(ruleset=F23, article="5.2.2",
                          summary="no series of legal moves can lead to checkmate: draw at once"),
    "agreement": Rule(ruleset=F94, article="10.6", summary="draw by agreement"),
    "threefold": Rule(ruleset=F94, article="10.10", summary="threefold repetition claimed"),
    "fifty-moves": Rule(ruleset=F94, article="10.12", summary="50 moves without capture or pawn move claimed"),
    "incorrect-claim": Rule(ruleset=F94, article="10.13(2)",
                            summary="incorrect draw claim: 5 minutes added to the claimant's used time"),
    "timeout": Rule(ruleset=F94, article="10.14", summary="flag fell before the time control was met"),
    "timeout-vs-insufficient-material": Rule(
        ruleset=F23, article="6.9", summary="flag fell but the opponent has no mating material: "
                                            "draw (1994 art. 10.5/10.14: bare king)"),
    "timeout-vs-no-mating-sequence": Rule(
        ruleset=F23, article="6.9", summary="flag fell but no series of legal moves lets the "
                                            "opponent checkmate: draw"),
    "fivefold-repetition": Rule(ruleset=F23, article="9.6.1", summary="fivefold repetition: automatic draw"),
    "seventyfive-moves": Rule(ruleset=F23, article="9.6.2", summary="75 moves without capture or pawn move: automatic draw"),
    "absence": Rule(ruleset=F94, article="10.15", summary="absent at the default time: loses by forfeit"),
    "penalty": Rule(ruleset=F94, article="16.5", summary="arbiter penalty: warning, time, loss"),
    "pause": Rule(ruleset=F94, article="12.5",
                  summary="the game is interrupted: the arbiter stops the clocks (2023 art. 6.11)"),
    "arbiter": Rule(ruleset=F94, article="16.3", summary="result entered or ruled by the arbiter"),
}

UCI_RE = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")


class MoveError(RulesError):
    """A move that cannot be played: ``code`` is ``malformed`` (not UCI/SAN) or ``illegal``."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def board_from_fen(fen: str | None) -> chess.Board:
    """A board from FEN (standard start when None). Raises ``ValueError`` for an invalid FEN, a
    position that is not legal to start from (python-chess ``Board.is_valid``) or move counters
    out of range (halfmove clock 0-10000 plies, fullmove number 1-10000, as xiangqi's)."""
    board = chess.Board() if fen is None else chess.Board(fen)
    if not board.is_valid():
        raise ValueError(f"invalid start position: {board.status()!r}")
    if not 0 <= board.halfmove_clock <= 10_000 or not 1 <= board.fullmove_number <= 10_000:
        raise ValueError("FEN move counters out of range (0-10000 plies, moves 1-10000)")
    return board


_RUNS = [("1" * n, str(n)) for n in range(8, 1, -1)]  # runs of empty squares, longest first
_BACK_RANKS = chess.BB_RANK_1 | chess.BB_RANK_8
_CASTLING: dict[tuple, str] = {}  # castling_xfen by everything it reads (see _castling)


def fen(board: chess.Board) -> str:
    """``board.fen()`` (python-chess's default FEN: castling as KQkq, an en passant square only
    when an en passant capture is legal), computed from the piece bitboards: a FEN is written
    with every accepted move, and this costs a quarter of python-chess's square-by-square walk
    (the empty squares are counted by replacing runs of ``1`` in the 71-character board, the
    castling field is looked up, see :func:`_castling`). A test compares the two on thousands
    of positions."""
    cells = bytearray(b"1" * 64)
    black, white = board.occupied_co  # indexed by colour: BLACK is 0
    for mask, sym in ((board.pawns & white, 80), (board.pawns & black, 112),  # P p
                      (board.knights & white, 78), (board.knights & black, 110),  # N n
                      (board.bishops & white, 66), (board.bishops & black, 98),  # B b
                      (board.rooks & white, 82), (board.rooks & black, 114),  # R r
                      (board.queens & white, 81), (board.queens & black, 113),  # Q q
                      (board.kings & white, 75), (board.kings & black, 107)):  # K k
        while mask:
            low = mask & -mask
            cells[(low.bit_length() - 1) ^ 56] = sym  # a8 first
            mask ^= low
    s = cells.decode()
    s = "/".join((s[:8], s[8:16], s[16:24], s[24:32], s[32:40], s[40:48], s[48:56], s[56:]))
    for run, n in _RUNS:
        if run in s:
            s = s.replace(run, n)
    ep = chess.SQUARE_NAMES[board.ep_square] if board.ep_square is not None and board.has_legal_en_passant() else "-"
    return (f"{s} {'w' if board.turn else 'b'} {_castling(board)} {ep} "
            f"{board.halfmove_clock} {board.fullmove_number}")


def _castling(board: chess.Board) -> str:
    """``board.castling_xfen()``, remembered by everything it reads (python-chess 1.x: the
    castling rights, the Chess960 flag, whether moves were made, the kings, promoted men, and
    the rooks and white men on the back ranks): a few dozen keys in a game of chess."""
    rights = board.castling_rights
    if not rights:
        return "-"
    key = (rights, board.chess960, not board.move_stack, board.kings, board.promoted,
           board.rooks & _BACK_RANKS, board.occupied_co[chess.WHITE] & (_BACK_RANKS | board.kings))
    if (x := _CASTLING.get(key)) is None:
        if len(_CASTLING) > 100_000:  # Chess960 starts are many: never an unbounded table
            _CASTLING.clear()
        x = _CASTLING[key] = board.castling_xfen()
    return x


def parse_move(board: chess.Board, text: str) -> chess.Move:
    """Parse ``text`` as UCI (``e2e4``, ``e7e8q``) or SAN (``Nf3``, ``O-O``, ``exd8=Q+``) in
    ``board``. Raises :class:`MoveError` (``malformed`` / ``illegal``) naming the problem."""
    t = text.strip()
    if not t:
        raise MoveError("malformed", "empty move")
    if UCI_RE.match(t.lower()) or t == "0000":
        try:
            mv = chess.Move.from_uci(t.lower())
        except ValueError:
            raise MoveError("malformed", f"not a UCI move: {text!r}") from None
        if mv in board.legal_moves:
            return mv
        if mv.promotion is None and chess.Move(mv.from_square, mv.to_square, chess.QUEEN) in board.legal_moves:
            raise MoveError("illegal", f"{t} needs a promotion piece: {t}q, {t}r, {t}b or {t}n")
        raise MoveError("illegal", f"{t} is not legal in this position" + _why(board, mv))
    try:
        return board.parse_san(t)
    except chess.InvalidMoveError:
        raise MoveError("malformed", f"neither UCI nor SAN: {text!r}") from None
    except chess.AmbiguousMoveError:
        raise MoveError("illegal", f"ambiguous SAN {text!r}: add the file or rank") from None
    except chess.IllegalMoveError:
        if "=" not in t:
            try:
                board.parse_san(t.rstrip("+#") + "=Q")
                raise MoveError("illegal", f"{text} needs a promotion piece: {t}=Q, =R, =B or =N")
            except ValueError as e:
                if isinstance(e, MoveError):
                    raise
        raise MoveError("illegal", f"{text} is not legal in this position") from None


def _why(board: chess.Board, mv: chess.Move) -> str:
    piece = board.piece_at(mv.from_square)
    if piece is None:
        return f" (no piece on {chess.square_name(mv.from_square)})"
    if piece.color != board.turn:
        return f" (the piece on {chess.square_name(mv.from_square)} is not the mover's)"
    if board.is_pseudo_legal(mv):
        return " (it leaves the king in check)"
    return ""


def position_status(board: chess.Board) -> str:
    """Status of the position as the rules see it without a claim: ``checkmate``, ``stalemate``,
    ``insufficient-material`` (one of the four endings of 1994 art. 10.4), ``dead-position``
    (any other position from which no series of legal moves leads to checkmate, 2023 art.
    5.2.2, as far as :func:`mate_possible` decides it), ``fivefold-repetition``,
    ``seventyfive-moves`` (2023 art. 9.6) or ``ongoing``.

    The search of :func:`mate_possible` runs only after a capture or a pawn move (halfmove clock
    0) and on a game's first move: a king or bishop move changes neither material nor pawns, and
    every position reachable after it was reachable before it, so the search would have found
    the position dead one move earlier. (The converse can fail: a move can leave fewer positions
    reachable than before. Such a position is not searched again and stays undecided, which
    never draws a game wrongly.)"""
    if not any(board.generate_legal_moves()):  # is_checkmate / is_stalemate, one look
        return "checkmate" if board.is_check() else "stalemate"
    if board.is_insufficient_material():
        return "insufficient-material" if _fide94_ending(board) else "dead-position"
    if (board.halfmove_clock == 0 or len(board.move_stack) < 2) and mate_possible(board) is False:
        return "dead-position"
    if _may_recur(board, 5) and board.is_fivefold_repetition():
        return "fivefold-repetition"
    if board.is_seventyfive_moves():
        return "seventyfive-moves"
    return "ongoing"


def _fide94_ending(board: chess.Board) -> bool:
    """One of the endings of 1994 art. 10.4: K v K, K v K+B, K v K+N, K+B v K+B with both
    bishops on squares of one colour."""
    men = board.occupied & ~board.kings
    if chess.popcount(men) <= 1:
        return not men & (board.pawns | board.rooks | board.queens)
    one_each = all(chess.popcount(men & board.occupied_co[c]) == 1 for c in chess.COLORS)
    return (one_each and men == board.bishops
            and (not men & chess.BB_LIGHT_SQUARES or not men & chess.BB_DARK_SQUARES))


#: Positions :func:`mate_possible` may visit. Each costs some 40-60 us (python-chess's legal move
#: generation is most of it), so the bound is about 1 s, spent only after a capture or a pawn
#: move in a locked position of kings, bishops and pawns (:func:`position_status`) and at a flag
#: fall; it covers two kings and one bishop moving about behind a pawn chain (some 13 000
#: positions), not a bishop on each side (some 200 000).
MATE_SEARCH_NODES = 20_000


def mate_possible(board: chess.Board, colours: tuple[chess.Color, ...] = chess.COLORS,
                  max_nodes: int = MATE_SEARCH_NODES) -> bool | None:
    """Can a side in ``colours`` still checkmate by some series of legal moves from ``board``
    (both sides: 2023 art. 5.2.2, dead position; the flag-fall opponent's only: art. 6.9)?

    * ``False``, proven: every side in ``colours`` lacks mating material (python-chess
      ``has_insufficient_material``, which is guaranteed never to say so of a side that can
      win), or the search below visited every position reachable from ``board`` and none is a
      checkmate by ``colours``.
    * ``True``, proven: the search reached a checkmate by a side in ``colours``.
    * ``None``, undecided: the position is not one the search handles (a knight, rook or queen
      on the board, no pawns, or a pawn whose square ahead holds no pawn, so that it may
      advance), a capture is reachable (the material and the pawns would change: the search
      does not follow), or more than ``max_nodes`` positions are reachable.

    The search (cooperative, both sides' moves: a helpmate search) walks every position
    reachable by king and bishop moves among pawns that cannot move; it visits each position
    once, keyed by piece placement and side to move, and stops at ``max_nodes``. The cost is
    bounded by ``max_nodes`` and nothing is searched in a position with a knight, rook, queen
    or a pawn free to advance: a middlegame costs a few bit operations. Deterministic: the
    answer depends only on the position and ``max_nodes``; halfmove clock and repetitions are
    ignored (a mate "reachable" only past the 75-move rule counts as reachable, so a draw is
    never declared wrongly)."""
    wanted = tuple(c for c in colours if not board.has_insufficient_material(c))
    if not wanted:
        return False
    if not _locked(board):
        return None
    return _closure(board.copy(stack=False), wanted, max_nodes)


def _locked(board: chess.Board) -> bool:
    """Only kings, bishops and pawns, at least one pawn, and every pawn has a pawn on the square
    ahead (so no pawn moves unless it captures)."""
    if board.knights | board.rooks | board.queens or not board.pawns:
        return False
    white = board.pawns & board.occupied_co[chess.WHITE]
    ahead = chess.shift_up(white) | chess.shift_down(board.pawns & ~white)
    return ahead & ~board.pawns == 0


def _closure(b: chess.Board, wanted: tuple[chess.Color, ...], max_nodes: int) -> bool | None:
    """Depth-first walk of the positions reachable from ``b`` (see :func:`mate_possible`)."""
    seen = {_key(b)}
    path: list[list[chess.Move]] = []
    while True:  # b is a position not seen before
        moves = list(b.generate_legal_moves())
        if not moves and b.is_check() and (not b.turn) in wanted:
            return True
        if any(b.is_capture(m) for m in moves):  # pawns only move by capturing
            return None
        path.append(moves)
        while path:  # the next move to a position not seen yet, backtracking as needed
            if not path[-1]:
                path.pop()
                if path:
                    b.pop()
                continue
            move = path[-1].pop()
            key = _key(b, move)
            if key not in seen:
                break
        else:
            return False
        seen.add(key)
        if len(seen) > max_nodes:
            return None
        b.push(move)


def _key(b: chess.Board, move: chess.Move | None = None) -> tuple[int, int, int, bool]:
    """Kings, bishops, White's men and the side to move of ``b``, or of ``b`` after ``move``
    (a king or bishop move that captures nothing), without playing it."""
    kings, bishops, white = b.kings, b.bishops, b.occupied_co[chess.WHITE]
    if move is None:
        return kings, bishops, white, b.turn
    moved = chess.BB_SQUARES[move.from_square] | chess.BB_SQUARES[move.to_square]
    if kings & moved:
        kings ^= moved
    else:
        bishops ^= moved
    return kings, bishops, white ^ moved if b.turn else white, not b.turn


class Seats:
    """Mixin for anything with ``white`` and ``black`` player ids: which colour a player has."""

    white: str | None
    black: str | None

    def colour_of(self, player_id: str) -> str | None:
        """``"white"``, ``"black"``, or None when ``player_id`` does not play in the game."""
        return "white" if player_id == self.white else "black" if player_id == self.black else None


def colour_name(c: chess.Color) -> str:
    return "white" if c == chess.WHITE else "black"


def claim_is_valid(board: chess.Board, reason: str, move: chess.Move | None) -> tuple[bool, str]:
    """Check a draw claim by the side to move (1994 art. 10.10, 10.12).

    With ``move`` the claim is about the position after that (written, unplayed) move
    (art. 10.10(1)); without, about the current position (10.10(2)). Returns (valid, detail).
    """
    b = board.copy(stack=True)
    if move is not None:
        b.push(move)
    if reason == "threefold":
        n = repetitions(b)
        return n >= 3, f"position occurred {n} time(s)"
    if reason == "fifty-moves":
        return b.halfmove_clock >= 100, f"{b.halfmove_clock} half-moves without capture or pawn move"
    raise ValueError(f"unknown claim {reason!r}")


def repetitions(board: chess.Board) -> int:
    """How many times the current position (same pieces, side to move, castling and en passant
    rights: 1994 art. 10.10) has occurred in the game so far, this time included."""
    n = 1
    while _may_recur(board, n + 1) and board.is_repetition(n + 1):
        n += 1
    return n


def _may_recur(board: chess.Board, times: int) -> bool:
    """False when the position cannot have occurred ``times`` times, so that python-chess's
    ``is_repetition(times)``, which walks back the whole game, need not be asked: a recurrence
    takes at least 4 plies (each side's move undone by a later move of its own) and cannot
    span a capture or a pawn move, so it needs ``4 * (times - 1)`` on the halfmove clock."""
    return board.halfmove_clock >= 4 * (times - 1)


def flag_draw(board: chess.Board, flagged: str) -> str | None:
    """Why ``flagged``'s flag fall is a draw (2023 art. 6.9: "the opponent cannot checkmate the
    player's king by any possible series of legal moves"), or None when it loses:
    ``insufficient-material`` (the opponent lacks mating material) or ``no-mating-sequence``
    (:func:`mate_possible` proved it from the position, ``flagged`` to move). Undecided is a
    loss: the draw needs a proof. 1994 art. 10.14 / 10.5 draw only against a bare king; a bare
    king is insufficient material here too."""
    opponent = chess.BLACK if flagged == "white" else chess.WHITE
    if board.has_insufficient_material(opponent):
        return "insufficient-material"
    if mate_possible(board, (opponent,)) is False:
        return "no-mating-sequence"
    return None
