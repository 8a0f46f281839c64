"""Xiangqi move notations in and out (pure, no I/O).

Four spellings of a move, all read by :func:`parse_move` (auto-detected) and written by
:func:`to_iccs`, :func:`to_uci`, :func:`to_wxf` and :func:`to_chinese`:

* **ICCS** ``h2e2``: file letter a-i from Red's left, rank digit 0-9 from Red's back rank
  (also ``H2-E2``).
* **UCI** of the engines (Fairy-Stockfish) ``h3e3``: the same with ranks 1-10.
* **WXF** (World Xiangqi Federation notation), shape ``<piece><from><op><to>``: piece letter
  K (general), A (advisor), E or B (elephant), H or N (horse), R (chariot), C (cannon),
  P (soldier); ``<from>`` the file the piece stands on, 1-9 counted from the mover's own right;
  ``<op>`` ``+`` forward, ``-`` backward, ``.`` or ``=`` sideways (traverse); ``<to>`` the
  number of ranks moved for a chariot, cannon, soldier or general moving along its file, else the
  file it arrives on. Examples ``C2.5`` = ``C2=5``, ``H2+3``, ``R9=8``, ``E7+5``, ``A6+5``.
  Two pieces of a kind on one file (tandem pieces) are told apart by ``+`` (front) and ``-``
  (rear) in place of the file: ``C+.5``, ``H++7``, ``P-+1``. Soldiers when one file holds three
  or more of them, or two files hold two or more each: ``<n><file>`` with ``n`` = 1 for the
  front-most, no letter: ``15=6``, ``35+1``, ``26=5`` (Fairy-Stockfish's reading of WXF).
* **Chinese notation** of the 1999 competition rules, art. 7.5 (and art. 1.1 for the files):
  ``炮二平五`` / ``马８进７``, shape ``<piece><from><op><to>``. Red's files are Chinese numerals
  一..九 counted from Red's right, Black's are Arabic digits 1-9 counted from Black's right
  (full-width １-９ as in printed records; half-width accepted); ``进`` forward, ``退``
  backward, ``平`` sideways; ``<to>`` as in WXF (steps, written in the mover's own numerals, or
  the file arrived on). Two pieces of a kind on one file: ``前`` (front) / ``后`` (rear) replace
  the file and go before the piece: ``前车平八``, ``后马进六``, ``前炮进２``. Soldiers, three on a
  file: ``前兵`` ``中兵`` ``后兵``; four or five: ``一兵`` .. ``五兵`` from the front. Art. 7.5
  does not cover soldiers stacked on two files at once; here the piece is dropped and the file
  kept, as computer records do and like WXF's ``26=5``: ``前七平六``, ``后５进１`` (the
  five-character ``前兵七平六`` is read too). Input also accepts the variant characters of real files: 帅/帥/将/將, 仕/士,
  相/象, 马/馬/傌/碼, 车/車/俥/硨, 炮/砲/包, 兵/卒, 进/進, 退, 平, 后/後.

Advisors and elephants on one file are always written with their file (``仕六进五``,
``A6+5``): the direction alone tells them apart. On input, ``前``/``后`` (``+``/``-``) are
accepted for them too, and the file form is accepted for tandem pieces when only one of the two
can make the move (Fairy-Stockfish writes ``R9-1`` in such cases).

Errors (all :class:`NotationError`, a :class:`~shared.rules.xiangqi.XiangqiError`):
:class:`MalformedMoveError` (the text is not a move in any notation),
:class:`NoSuchPieceError` (no such piece where the text says),
:class:`IllegalMoveError` (the piece is there but the move breaks the rules of art. 2),
:class:`AmbiguousMoveError` (the text fits more than one legal move).
"""
from __future__ import annotations

import re

from shared.rules.xiangqi import FILES, Board, Move, XiangqiError, colour_of, square_name

__all__ = [
    "NotationError", "MalformedMoveError", "IllegalMoveError", "NoSuchPieceError",
    "AmbiguousMoveError", "parse_move", "parse_iccs", "parse_uci", "parse_wxf", "parse_chinese",
    "to_iccs", "to_uci", "to_wxf", "to_chinese", "format_move", "detect_notation",
    "NOTATIONS",
]

NOTATIONS = ("iccs", "uci", "wxf", "chinese")


class NotationError(XiangqiError):
    """A move text that cannot be turned into a legal move. ``text``: the input; ``reason``:
    why, in words."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason
        super().__init__(f"{text}: {reason}")


class MalformedMoveError(NotationError):
    """The text is not a move in the notation (or in any notation when auto-detecting)."""


class IllegalMoveError(NotationError):
    """The text reads as a move, but that move is not legal in the position."""


class NoSuchPieceError(IllegalMoveError):
    """The text names a piece that is not where it says (``炮二平五: no cannon on file 二``)."""


class AmbiguousMoveError(NotationError):
    """The text fits more than one legal move."""


# ------------------------------------------------------------------------------- characters
_NAMES = {"K": "general", "A": "advisor", "B": "elephant", "N": "horse", "R": "chariot",
          "C": "cannon", "P": "soldier"}
_CN_RED = {"K": "帅", "A": "仕", "B": "相", "N": "马", "R": "车", "C": "炮", "P": "兵"}
_CN_BLACK = {"K": "将", "A": "士", "B": "象", "N": "马", "R": "车", "C": "炮", "P": "卒"}
_CN_PIECE_IN = {}
for _t, _chars in {"K": "帅帥将將", "A": "仕士", "B": "相象", "N": "马馬傌碼",
                   "R": "车車俥硨", "C": "炮砲包", "P": "兵卒"}.items():
    for _ch in _chars:
        _CN_PIECE_IN[_ch] = _t
_CN_NUM = "一二三四五六七八九"
_FW_NUM = "１２３４５６７８９"
_NUM_IN = {}
for _i in range(9):
    _NUM_IN[_CN_NUM[_i]] = _i + 1
    _NUM_IN[_FW_NUM[_i]] = _i + 1
    _NUM_IN[str(_i + 1)] = _i + 1
_CN_OP_IN = {"进": "+", "進": "+", "退": "-", "平": "="}
_CN_OP_OUT = {"+": "进", "-": "退", "=": "平"}
_CN_ORD_IN = {"前": "front", "后": "rear", "後": "rear", "中": "middle"}
_WXF_PIECE_IN = {"K": "K", "G": "K", "A": "A", "E": "B", "B": "B", "H": "N", "N": "N",
                 "R": "R", "C": "C", "P": "P"}
_WXF_PIECE_OUT = {"K": "K", "A": "A", "B": "E", "N": "H", "R": "R", "C": "C", "P": "P"}
_STRAIGHT = frozenset("RCPK")  # move along the file: <to> counts ranks

_COORD_RE = re.compile(r"^([a-i])(10|[0-9])-?([a-i])(10|[0-9])$")
_WXF_RE = re.compile(r"^([KGAEBHNRCP])([1-9+\-])([+\-.=])([1-9])$")
_WXF_PAWN_RE = re.compile(r"^P?([1-5])([1-9])([+\-.=])([1-9])$")


# ---------------------------------------------------------------------------------- helpers
def _rf(sq: int) -> tuple[int, int]:
    return divmod(sq, 9)


def _file_no(colour: str, file: int) -> int:
    """File number 1-9 counted from the mover's own right (art. 1.1)."""
    return 9 - file if colour == "red" else file + 1


def _file_idx(colour: str, number: int) -> int:
    return 9 - number if colour == "red" else number - 1


def _forward(colour: str) -> int:
    return 1 if colour == "red" else -1


def _own(board: Board, colour: str, kind: str) -> str:
    return kind if colour == "red" else kind.lower()


def _on_file(board: Board, colour: str, kind: str, file: int) -> list[int]:
    """Squares of the mover's ``kind`` pieces on ``file``, front-most first."""
    p = _own(board, colour, kind)
    sqs = [r * 9 + file for r in range(10) if board.squares[r * 9 + file] == p]
    return sqs[::-1] if colour == "red" else sqs


def _stacked_files(board: Board, colour: str, kind: str) -> list[int]:
    """Files holding two or more of the mover's ``kind`` pieces, from the mover's right."""
    files = [f for f in range(9) if len(_on_file(board, colour, kind, f)) >= 2]
    return sorted(files, key=lambda f: _file_no(colour, f))


def _cn_num(colour: str, n: int, fullwidth: bool = True) -> str:
    if colour == "red":
        return _CN_NUM[n - 1]
    return _FW_NUM[n - 1] if fullwidth else str(n)


def _cn_file_word(colour: str, n: int) -> str:
    return _cn_num(colour, n)


def _why(board: Board, m: Move) -> str:
    why = getattr(board, "why_illegal", None)
    reason = why(m) if why else ""
    return reason or (f"{square_name(m.from_sq)}{square_name(m.to_sq)} is not legal")


def _piece_name(kind: str) -> str:
    return _NAMES[kind]


# --------------------------------------------------------------------------- coordinate forms
def to_iccs(move: Move) -> str:
    """ICCS ``h2e2`` (ranks 0-9)."""
    return move.iccs()


def to_uci(move: Move) -> str:
    """Engines' UCI ``h3e3`` (ranks 1-10)."""
    return move.uci()


def _coord(board: Board, text: str, ranks_from: int) -> Move:
    t = text.strip().lower()
    m = _COORD_RE.match(t)
    if not m:
        raise MalformedMoveError(text, "not a coordinate move like h2e2")
    a, ra, b, rb = m.groups()
    lo, hi = ranks_from, 9 + ranks_from
    for r in (ra, rb):
        if not lo <= int(r) <= hi:
            kind = "ICCS" if ranks_from == 0 else "UCI"
            raise MalformedMoveError(text, f"rank {r} is not on the board in {kind} "
                                           f"(ranks {lo}-{hi})")
    mv = Move((int(ra) - ranks_from) * 9 + FILES.index(a), (int(rb) - ranks_from) * 9 + FILES.index(b))
    _check_legal(board, text, mv)
    return mv


def _check_legal(board: Board, text: str, mv: Move) -> None:
    p = board.piece_at(mv.from_sq)
    if p is None:
        raise NoSuchPieceError(text, f"no piece on {square_name(mv.from_sq)}")
    if colour_of(p) != board.turn:
        raise NoSuchPieceError(text, f"the piece on {square_name(mv.from_sq)} is "
                                     f"{colour_of(p)}'s; {board.turn} to move")
    if not board.is_legal(mv):
        raise IllegalMoveError(text, _why(board, mv))


def parse_iccs(board: Board, text: str) -> Move:
    """Read ICCS (``h2e2``, ``H2-E2``; ranks 0-9) and check the move is legal."""
    return _coord(board, text, 0)


def parse_uci(board: Board, text: str) -> Move:
    """Read the engines' UCI (``h3e3``, ``h10g8``; ranks 1-10) and check the move is legal."""
    return _coord(board, text, 1)


# ------------------------------------------------------------------ shared structured reading
def _destination(colour: str, kind: str, from_sq: int, op: str, arg: int,
                 word=str) -> tuple[int | None, str, bool]:
    """Target square of ``kind`` on ``from_sq`` moving ``op`` (``+ - =``) by ``arg`` (steps or
    file number), or (None, why not, whether no position could ever allow it)."""
    r, f = _rf(from_sq)
    if op == "=":
        if kind not in _STRAIGHT:
            return None, f"a {_NAMES[kind]} cannot move sideways (平/=)", True
        tf = _file_idx(colour, arg)
        if tf == f:
            return None, f"a sideways move must change file (already on file {word(arg)})", True
        return r * 9 + tf, "", False
    d = _forward(colour) * (1 if op == "+" else -1)
    if kind in _STRAIGHT:
        tr, tf = r + d * arg, f
    else:
        tf = _file_idx(colour, arg)
        df = abs(tf - f)
        if kind == "N":
            dr = {1: 2, 2: 1}.get(df)
        elif kind == "A":
            dr = 1 if df == 1 else None
        else:  # elephant
            dr = 2 if df == 2 else None
        if dr is None:
            return None, (f"a {_NAMES[kind]} cannot reach file {word(arg)} from file "
                          f"{word(_file_no(colour, f))}"), True
        tr = r + d * dr
    if not 0 <= tr <= 9:
        return None, f"the {_NAMES[kind]} would leave the board", False
    return tr * 9 + tf, "", False


def _resolve(board: Board, text: str, kind: str, file_no: int | None, ordinal, op: str,
             arg: int, file_word, num_word) -> Move:
    """Find the one legal move for a parsed designation.

    ``ordinal``: None (the piece is named by its file), ``"front"``, ``"rear"``, ``"middle"`` or
    a 0-based index from the front. ``file_word``/``num_word`` render numbers in messages."""
    colour = board.turn
    name = _NAMES[kind]
    if ordinal is None:
        cands = _on_file(board, colour, kind, _file_idx(colour, file_no))
        if not cands:
            raise NoSuchPieceError(text, f"no {name} on file {file_word(file_no)}")
    else:
        files = ([_file_idx(colour, file_no)] if file_no is not None
                 else _stacked_files(board, colour, kind))
        cands = []
        for f in files:
            col = _on_file(board, colour, kind, f)
            if len(col) < 2:
                continue
            if ordinal == "front":
                cands.append(col[0])
            elif ordinal == "rear":
                cands.append(col[-1])
            elif ordinal == "middle":
                if len(col) == 3:
                    cands.append(col[1])
            elif ordinal < len(col):
                cands.append(col[ordinal])
        if not cands:
            where = f" on file {file_word(file_no)}" if file_no is not None else ""
            what = {"front": "front", "rear": "rear", "middle": "middle"}.get(
                ordinal, f"no. {ordinal + 1 if isinstance(ordinal, int) else ordinal}")
            raise NoSuchPieceError(text, f"no {what} {name}{where}: that needs "
                                         f"{'three' if ordinal == 'middle' else 'several'} "
                                         f"{name}s on one file")
    legal, reasons, structural = [], [], []
    for sq in cands:
        to, why, never = _destination(colour, kind, sq, op, arg, num_word)
        structural.append(never)
        if to is None:
            reasons.append(why)
            continue
        mv = Move(sq, to)
        if board.is_legal(mv):
            legal.append(mv)
        else:
            reasons.append(_why(board, mv))
    if len(legal) == 1:
        return legal[0]
    if len(legal) > 1:
        raise AmbiguousMoveError(text, f"{len(legal)} {name}s can make this move "
                                       f"({', '.join(m.iccs() for m in legal)}); "
                                       f"name the front or rear one")
    if all(structural):
        raise MalformedMoveError(text, "; ".join(dict.fromkeys(reasons)))
    raise IllegalMoveError(text, "; ".join(dict.fromkeys(reasons)))


# ----------------------------------------------------------------------------------------- WXF
def parse_wxf(board: Board, text: str) -> Move:
    """Read WXF notation (``C2.5``, ``C2=5``, ``H2+3``, ``C+.5``, ``P-+1``, ``15=6``) for the side
    to move and return the legal move it names."""
    t = text.strip().upper()
    m = _WXF_PAWN_RE.match(t)
    if m:
        idx, fno, op, arg = int(m[1]), int(m[2]), m[3], int(m[4])
        return _resolve(board, text, "P", fno, idx - 1, "=" if op == "." else op, arg, str, str)
    m = _WXF_RE.match(t)
    if not m:
        raise MalformedMoveError(text, "not WXF notation (<piece><file or +/-><+ - . =><digit>, "
                                       "e.g. C2.5, H2+3, C+.5)")
    kind = _WXF_PIECE_IN[m[1]]
    op = "=" if m[3] == "." else m[3]
    arg = int(m[4])
    if m[2] in "+-":
        return _resolve(board, text, kind, None, "front" if m[2] == "+" else "rear", op, arg,
                        str, str)
    return _resolve(board, text, kind, int(m[2]), None, op, arg, str, str)


def _designation(board: Board, move: Move) -> tuple[str, int, object, bool]:
    """(kind, file number, ordinal, numbered-soldier form) of the moving piece."""
    colour = board.turn
    p = board.piece_at(move.from_sq)
    kind = p.upper()
    f = move.from_sq % 9
    fno = _file_no(colour, f)
    col = _on_file(board, colour, kind, f)
    if len(col) < 2 or kind in "ABK":
        return kind, fno, None, False
    idx = col.index(move.from_sq)
    if kind == "P" and (len(col) >= 3 or len(_stacked_files(board, colour, "P")) >= 2):
        return kind, fno, idx, True
    return kind, fno, ("front" if idx == 0 else "rear"), False


def _op_arg(board: Board, move: Move) -> tuple[str, int]:
    colour = board.turn
    (fr, ff), (tr, tf) = _rf(move.from_sq), _rf(move.to_sq)
    if fr == tr:
        return "=", _file_no(colour, tf)
    op = "+" if (tr - fr) * _forward(colour) > 0 else "-"
    return op, (abs(tr - fr) if ff == tf else _file_no(colour, tf))


def _check_formattable(board: Board, move: Move) -> None:
    p = board.piece_at(move.from_sq)
    if p is None or colour_of(p) != board.turn:
        raise NoSuchPieceError(move.iccs(), f"no piece of {board.turn} on {square_name(move.from_sq)}")
    if not board.is_legal(move):
        raise IllegalMoveError(move.iccs(), _why(board, move))


def to_wxf(board: Board, move: Move, *, traverse: str = "=") -> str:
    """WXF notation of the legal ``move`` of the side to move (``C2=5``; ``traverse="."`` gives
    ``C2.5``). Tandem pieces get ``+``/``-``; stacked soldiers the numbered form ``15=6``."""
    _check_formattable(board, move)
    kind, fno, ordinal, numbered = _designation(board, move)
    op, arg = _op_arg(board, move)
    sop = traverse if op == "=" else op
    if numbered:
        return f"{ordinal + 1}{fno}{sop}{arg}"
    letter = _WXF_PIECE_OUT[kind]
    if ordinal is None:
        return f"{letter}{fno}{sop}{arg}"
    return f"{letter}{'+' if ordinal == 'front' else '-'}{sop}{arg}"


# ------------------------------------------------------------------------------------- Chinese
_CN_ORD_NUM = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4}


def parse_chinese(board: Board, text: str) -> Move:
    """Read Chinese notation (art. 7.5: ``炮二平五``, ``马８进７``, ``前车平八``, ``后马进六``,
    ``中兵进一``, ``前七平六``) for the side to move and return the legal move it names.

    Red and Black numerals, full-width and half-width digits are all accepted for either side;
    the side to move decides how files are counted."""
    t = "".join(text.split())
    colour = board.turn

    def word(n: int) -> str:
        return _cn_num(colour, n)

    if len(t) not in (4, 5):
        raise MalformedMoveError(text, "Chinese notation has four characters "
                                       "(piece, file, 进/退/平, number), e.g. 炮二平五")
    op = _CN_OP_IN.get(t[-2])
    arg = _NUM_IN.get(t[-1])
    if op is None:
        raise MalformedMoveError(text, f"third character {t[-2]!r} is not 进, 退 or 平")
    if arg is None:
        raise MalformedMoveError(text, f"last character {t[-1]!r} is not a number 1-9")
    head = t[:-2]
    if len(head) == 2 and head[0] in _CN_PIECE_IN:          # 炮二 / 马８
        kind = _CN_PIECE_IN[head[0]]
        fno = _NUM_IN.get(head[1])
        if fno is not None:
            return _resolve(board, text, kind, fno, None, op, arg, word, word)
        ordinal = _CN_ORD_IN.get(head[1])                   # 车前 (rare order)
        if ordinal is None:
            raise MalformedMoveError(text, f"{head[1]!r} is neither a file number nor 前/后")
        return _resolve(board, text, kind, None, ordinal, op, arg, word, word)
    ordinal = _CN_ORD_IN.get(head[0])
    if ordinal is None and head[0] in _CN_ORD_NUM:
        ordinal = _CN_ORD_NUM[head[0]]
    if ordinal is None:
        raise MalformedMoveError(text, f"first character {head[0]!r} is neither a piece "
                                       "nor 前/中/后/一..五")
    rest = head[1:]
    if len(rest) == 1 and rest in _CN_PIECE_IN:             # 前车
        return _resolve(board, text, _CN_PIECE_IN[rest], None, ordinal, op, arg, word, word)
    if len(rest) == 1 and rest in _NUM_IN:                  # 前七 (stacked soldiers)
        return _resolve(board, text, "P", _NUM_IN[rest], ordinal, op, arg, word, word)
    if len(rest) == 2 and rest[0] in _CN_PIECE_IN and rest[1] in _NUM_IN:   # 前兵七
        return _resolve(board, text, _CN_PIECE_IN[rest[0]], _NUM_IN[rest[1]], ordinal, op, arg,
                        word, word)
    raise MalformedMoveError(text, f"cannot read the piece in {head!r}")


def to_chinese(board: Board, move: Move, fullwidth: bool = True) -> str:
    """Chinese notation (art. 7.5) of the legal ``move`` of the side to move: ``炮二平五``,
    ``马８进７`` (``fullwidth=False``: ``马8进7``), ``前车平八``, ``中兵进一``, ``前七平六``."""
    _check_formattable(board, move)
    colour = board.turn
    kind, fno, ordinal, numbered = _designation(board, move)
    op, arg = _op_arg(board, move)
    names = _CN_RED if colour == "red" else _CN_BLACK

    def num(n: int) -> str:
        return _cn_num(colour, n, fullwidth)

    tail = _CN_OP_OUT[op] + num(arg)
    if ordinal is None:
        return names[kind] + num(fno) + tail
    if isinstance(ordinal, str):
        return ("前" if ordinal == "front" else "后") + names[kind] + tail
    n_file = len(_on_file(board, colour, kind, move.from_sq % 9))
    if n_file == 2:
        word = "前后"[ordinal]
    elif n_file == 3:
        word = "前中后"[ordinal]
    else:
        word = "一二三四五"[ordinal]
    if len(_stacked_files(board, colour, "P")) >= 2:
        return word + num(fno) + tail        # 前七平六: piece dropped, file kept
    return word + names[kind] + tail


# ---------------------------------------------------------------------------------- dispatch
_CJK_RE = re.compile(r"[\u4e00-\u9fff]")


def detect_notation(text: str) -> str:
    """``"iccs"``/``"uci"`` (coordinates; ``"coord"`` when the ranks fit both), ``"wxf"`` or
    ``"chinese"``. Raises :class:`MalformedMoveError` for text that is none of them."""
    t = text.strip()
    if _CJK_RE.search(t):
        return "chinese"
    m = _COORD_RE.match(t.lower())
    if m:
        ranks = (m[2], m[4])
        if "10" in ranks:
            return "uci"
        if "0" in ranks:
            return "iccs"
        return "coord"
    u = t.upper()
    if _WXF_RE.match(u) or _WXF_PAWN_RE.match(u):
        return "wxf"
    raise MalformedMoveError(text, "not a move in ICCS (h2e2), UCI (h3e3), WXF (C2.5) or "
                                   "Chinese notation (炮二平五)")


def parse_move(board: Board, text: str, notation: str | None = None) -> Move:
    """The legal move ``text`` names in ``board`` (side to move).

    ``notation``: one of ``"iccs"``, ``"uci"``, ``"wxf"``, ``"chinese"``, or None to detect it.
    Coordinates without a rank 0 or 10 (``h2e2``) could be ICCS or UCI: when detecting, ICCS (the
    xiangqi standard) is read first and the UCI reading is taken only when the ICCS one is not
    legal; pass ``notation`` to read one of them only. Raises a :class:`NotationError` subclass
    saying why the text is not a legal move (for coordinates: the ICCS reading's reason)."""
    if notation is not None:
        n = notation.lower()
        parser = {"iccs": parse_iccs, "uci": parse_uci, "wxf": parse_wxf,
                  "chinese": parse_chinese}.get(n)
        if parser is None:
            raise ValueError(f"unknown notation {notation!r}; one of {NOTATIONS}")
        return parser(board, text)
    kind = detect_notation(text)
    if kind != "coord":
        return {"iccs": parse_iccs, "uci": parse_uci, "wxf": parse_wxf,
                "chinese": parse_chinese}[kind](board, text)
    try:
        return parse_iccs(board, text)
    except NotationError as iccs_error:
        try:
            return parse_uci(board, text)
        except NotationError:
            raise iccs_error from None


def format_move(board: Board, move: Move, notation: str = "iccs", **kw) -> str:
    """``move`` in ``notation`` (``"iccs"``, ``"uci"``, ``"wxf"``, ``"chinese"``)."""
    n = notation.lower()
    if n == "iccs":
        _check_formattable(board, move)
        return move.iccs()
    if n == "uci":
        _check_formattable(board, move)
        return move.uci()
    if n == "wxf":
        return to_wxf(board, move, **kw)
    if n == "chinese":
        return to_chinese(board, move, **kw)
    raise ValueError(f"unknown notation {notation!r}; one of {NOTATIONS}")
