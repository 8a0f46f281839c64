"""Reading and writing xiangqi game records (pure parsing; file access only in :func:`read_records`).

Two formats as real files use them:

* **Tournament text** (the 2001 全国象棋排位赛 files): section lines such as
  ``第一站2001·8·14（上午）`` or ``第一站（加赛）``; one header line per game
  ``红方名  红先胜  黑方名`` (``红先胜`` Red wins, ``红先和`` draw, ``红先负`` Red loses; the
  spaces around the result word may be missing, names keep their province/club prefix, and a
  trailing ``（加1）`` marks a tie-break game); then numbered move rows
  ``  1. 炮二平五  马８进７    2. 马二进三  车９平８`` in Chinese notation (art. 7.5).
  A section without a date (``第一站（加赛）``) takes the date of the last dated section of the same
  stage (``第一站``).
* **Xiangqi PGN**: tag pairs (``[Game "Chinese Chess"]`` or ``[Variant "xiangqi"]``, ``[Red]``,
  ``[Black]``, ``[Result]``, ``[FEN]``, ``[Format "ICCS"|"WXF"|"Chinese"]``...) then movetext with
  move numbers, one or two moves per line, ``{comments}`` and a result token. Moves are read in the
  notation the ``Format`` tag names, else detected move by move (ICCS, UCI, WXF or Chinese).

Every game is replayed on :class:`~shared.rules.xiangqi.Board`; a move that cannot be read or is
illegal raises :class:`RecordError` naming the file, game, move number, text and reason.
:func:`write_pgn` writes a record back as xiangqi PGN (``Format`` ICCS, WXF or Chinese).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from shared.rules.xiangqi import START_FEN, Board, Move, XiangqiError
from shared.rules.xiangqi_notation import NotationError, format_move, parse_move

__all__ = ["XiangqiRecord", "RecordError", "read_records", "parse_tournament_text",
           "parse_pgn", "write_pgn", "replay", "board_ending", "RESULTS"]

RESULTS = ("1-0", "0-1", "1/2-1/2")
_TXT_RESULT = {"胜": "1-0", "和": "1/2-1/2", "负": "0-1"}


class RecordError(XiangqiError):
    """A record that cannot be read. Fields: ``source`` (file or label), ``game`` (1-based in the
    file), ``move_no`` (move number as written, None when not about a move), ``side`` (``"red"`` /
    ``"black"``), ``ply`` (1-based half-move of the game), ``text`` (the offending text),
    ``line`` (line of the game's header), ``reason``."""

    def __init__(self, source: str, game: int | None, reason: str, *, move_no: int | None = None,
                 side: str | None = None, ply: int | None = None, text: str | None = None,
                 line: int | None = None) -> None:
        self.source, self.game, self.reason = source, game, reason
        self.move_no, self.side, self.ply, self.text, self.line = move_no, side, ply, text, line
        where = [source]
        if line is not None:
            where.append(f"line {line}")
        if game is not None:
            where.append(f"game {game}")
        if move_no is not None:
            where.append(f"move {move_no}" + (f" ({side})" if side else ""))
        msg = ", ".join(where)
        if text is not None:
            msg += f": {text!r}"
        super().__init__(f"{msg}: {reason}")


@dataclass
class XiangqiRecord:
    """One recorded game. ``moves`` are the replayed :class:`Move` s, ``move_texts`` the texts as
    written; ``result`` is ``"1-0"`` (Red won), ``"0-1"``, ``"1/2-1/2"`` or ``"*"``.
    ``event`` is the Event tag, or for tournament text the section line it stands under;
    ``section`` the section line (text files); ``round`` the Round tag or a tie-break mark such as
    ``"加1"``; ``date`` ISO ``YYYY-MM-DD`` when known; ``headers`` every tag (PGN) or the derived
    ones (text); ``source``/``game_no``/``line`` where it came from."""

    red: str
    black: str
    result: str
    start_fen: str = START_FEN
    moves: list[Move] = field(default_factory=list)
    move_texts: list[str] = field(default_factory=list)
    event: str | None = None
    section: str | None = None
    round: str | None = None
    date: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    source: str = ""
    game_no: int = 0
    line: int | None = None

    def final_board(self) -> Board:
        """The position after the last move."""
        return replay(self.start_fen, self.moves)

    def ending(self) -> str | None:
        """``"checkmate"`` / ``"stalemate"`` when the game ends on the board after the last
        move (art. 3.1, 3.2), else None. See :func:`board_ending`."""
        return board_ending(self.final_board())


def replay(start_fen: str, moves: list[Move]) -> Board:
    """The board after playing ``moves`` from ``start_fen`` (each checked legal)."""
    b = Board(start_fen)
    for m in moves:
        if not b.is_legal(m):
            raise XiangqiError(f"{m.iccs()} is not legal in {b.fen()}")
        b.push(m)
    return b


def board_ending(board: Board) -> str | None:
    """``"checkmate"`` if the side to move is mated (art. 3.1, 4.1.1), ``"stalemate"`` if it has
    no legal move and is not in check (困毙, art. 3.2, 4.1.3), else None."""
    if board.legal_moves():
        return None
    return "checkmate" if board.is_check() else "stalemate"


def _replay_texts(texts: list[tuple[int, str]], start_fen: str, notation: str | None,
                  source: str, game: int, line: int | None) -> list[Move]:
    """Moves of ``texts`` ((move number, text) per ply) replayed from ``start_fen``."""
    try:
        board = Board(start_fen)
    except XiangqiError as e:
        raise RecordError(source, game, f"bad start position: {e}", line=line) from None
    moves = []
    for ply, (move_no, text) in enumerate(texts, 1):
        try:
            m = parse_move(board, text, notation)
        except NotationError as e:
            raise RecordError(source, game, e.reason, move_no=move_no, side=board.turn, ply=ply,
                              text=text, line=line) from None
        board.push(m)
        moves.append(m)
    return moves


# ----------------------------------------------------------------------- tournament text files
_HEADER_RE = re.compile(r"^(?P<red>.*?)\s*红先(?P<res>[胜和负])\s*(?P<black>.*?)\s*"
                        r"(?:[（(](?P<tag>[^）)]*)[）)])?\s*$")
_ROW_RE = re.compile(r"^\s*[0-9]+\.")
_NUM_SPLIT = re.compile(r"(?:^|\s)([0-9]+)\.")
_DATE_RE = re.compile(r"(\d{4})\s*[·.\-/年]\s*(\d{1,2})\s*[·.\-/月]\s*(\d{1,2})")
_STAGE_RE = re.compile(r"^(第.+?站)")


def _iso_date(text: str) -> str | None:
    m = _DATE_RE.search(text)
    if not m:
        return None
    y, mo, d = (int(x) for x in m.groups())
    return f"{y:04d}-{mo:02d}-{d:02d}"


def parse_tournament_text(text: str, source: str = "<text>") -> list[XiangqiRecord]:
    """Games of a tournament text file (format in the module docstring), replayed."""
    games: list[XiangqiRecord] = []
    plies: list[list[tuple[int, str]]] = []
    section: str | None = None
    date: str | None = None
    stage_dates: dict[str, str] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("\ufeff")
        if not line:
            continue
        if _ROW_RE.match(raw):
            if not games:
                raise RecordError(source, None, "move row before any game header", line=lineno)
            parts = _NUM_SPLIT.split(raw)
            # parts: [before, no, moves, no, moves, ...]
            if parts[0].strip():
                raise RecordError(source, len(games), "text before the first move number",
                                  line=lineno, text=parts[0].strip())
            for i in range(1, len(parts), 2):
                no = int(parts[i])
                toks = parts[i + 1].split()
                expected = plies[-1][-1][0] + (0 if len(plies[-1]) % 2 else 1) if plies[-1] else 1
                if no != expected or len(toks) > 2 or (len(plies[-1]) % 2):
                    raise RecordError(source, len(games), f"move number {no} out of order "
                                      f"(expected {expected})", line=lineno, move_no=no)
                for tok in toks:
                    plies[-1].append((no, tok))
            continue
        m = _HEADER_RE.match(line)
        if m:
            red, black = m["red"].strip(), m["black"].strip()
            if not red or not black:
                raise RecordError(source, len(games) + 1, "game header without both players",
                                  line=lineno, text=line)
            headers = {"Red": red, "Black": black, "Result": _TXT_RESULT[m["res"]]}
            if section:
                headers["Section"] = section
            if date:
                headers["Date"] = date
            if m["tag"]:
                headers["Round"] = m["tag"].strip()
            games.append(XiangqiRecord(red=red, black=black, result=_TXT_RESULT[m["res"]],
                                       event=section, section=section, round=m["tag"],
                                       date=date, headers=headers, source=source,
                                       game_no=len(games) + 1, line=lineno))
            plies.append([])
            continue
        # anything else is a section line
        section = line
        stage = _STAGE_RE.match(line)
        date = _iso_date(line)
        if stage:
            if date:
                stage_dates[stage[1]] = date
            else:
                date = stage_dates.get(stage[1])
    for rec, texts in zip(games, plies):
        rec.move_texts = [t for _, t in texts]
        rec.moves = _replay_texts(texts, rec.start_fen, "chinese", source, rec.game_no, rec.line)
    return games


# ------------------------------------------------------------------------------------------ PGN
_TAG_RE = re.compile(r'^\[\s*(\w+)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_RESULT_TOKENS = {"1-0", "0-1", "1/2-1/2", "*", "½-½"}
_MOVE_NO_RE = re.compile(r"^[0-9]+\.+")
_FORMATS = {"iccs": "iccs", "wxf": "wxf", "chinese": "chinese", "uci": "uci", "cn": "chinese",
            "chn": "chinese"}
_XQ_VARIANTS = {"xiangqi", "chinese chess", "chinesechess", "象棋", "中国象棋"}


def _pgn_blocks(text: str) -> list[tuple[int, list[tuple[str, str]], list[tuple[int, str]]]]:
    """(first line, tags, movetext lines) per game."""
    blocks = []
    tags: list[tuple[str, str]] = []
    body: list[tuple[int, str]] = []
    start = 1
    in_moves = False
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip().lstrip("\ufeff")
        m = _TAG_RE.match(line)
        if m:
            if in_moves:
                blocks.append((start, tags, body))
                tags, body, in_moves = [], [], False
            if not tags:
                start = lineno
            tags.append((m[1], m[2].replace('\\"', '"').replace("\\\\", "\\")))
        elif line:
            if not tags and not in_moves:
                start = lineno
            in_moves = True
            body.append((lineno, line))
    if tags or body:
        blocks.append((start, tags, body))
    return blocks


def _movetext_tokens(body: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], str | None]:
    """(move number, move text) per ply and the result token, comments and variations removed."""
    text = "\n".join(line for _, line in body)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r";[^\n]*", " ", text)
    while re.search(r"\([^()]*\)", text):
        text = re.sub(r"\([^()]*\)", " ", text)
    out, result, number = [], None, 0
    for tok in text.split():
        if tok in _RESULT_TOKENS:
            result = "1/2-1/2" if tok == "½-½" else tok
            continue
        if tok.startswith("$") or set(tok) <= {"."}:   # NAGs, "..." before a black first move
            continue
        m = _MOVE_NO_RE.match(tok)
        if m and not re.match(r"^[1-5][1-9][.=+\-][1-9]$", tok):   # keep WXF pawn form 15.6
            number = int(tok[:m.end()].rstrip("."))
            tok = tok[m.end():]
            if not tok:
                continue
        out.append((number or 1, tok.rstrip("!?")))
    return out, result


def parse_pgn(text: str, source: str = "<pgn>") -> list[XiangqiRecord]:
    """Games of a xiangqi PGN text (format in the module docstring), replayed."""
    records = []
    for game_no, (line, tags, body) in enumerate(_pgn_blocks(text), 1):
        headers = dict(tags)
        variant = (headers.get("Variant") or headers.get("Game") or "xiangqi").strip().lower()
        if variant not in _XQ_VARIANTS:
            raise RecordError(source, game_no, f"not a xiangqi game (Variant/Game {variant!r})",
                              line=line)
        fmt = headers.get("Format", "").strip().lower()
        notation = None
        if fmt:
            notation = _FORMATS.get(fmt)
            if notation is None:
                raise RecordError(source, game_no, f"unknown Format tag {headers['Format']!r} "
                                  "(ICCS, WXF or Chinese)", line=line)
        fen = headers.get("FEN", "").strip() or START_FEN
        fen = re.sub(r"^(\S+)\s+r(\s|$)", r"\1 w\2", fen)  # some files write r for Red to move
        tokens, result_tok = _movetext_tokens(body)
        moves = _replay_texts(tokens, fen, notation, source, game_no, line)
        result = headers.get("Result", "").strip() or result_tok or "*"
        if result not in RESULTS + ("*",):
            raise RecordError(source, game_no, f"unknown result {result!r}", line=line)
        if result_tok and result_tok != "*" and result != "*" and result_tok != result:
            raise RecordError(source, game_no, f"Result tag {result} and movetext result "
                              f"{result_tok} disagree", line=line)
        red = headers.get("Red") or headers.get("White") or "?"
        black = headers.get("Black") or "?"
        date = _iso_date(headers.get("Date", ""))
        def tag(name: str) -> str | None:   # "?" is PGN's "unknown"
            value = headers.get(name, "").strip()
            return None if value in ("", "?") else value

        records.append(XiangqiRecord(
            red=red, black=black, result=result, event=tag("Event"),
            section=None, round=tag("Round"), date=date, headers=headers,
            start_fen=fen, moves=moves, move_texts=[t for _, t in tokens], source=source,
            game_no=game_no, line=line))
    return records


def write_pgn(game: XiangqiRecord, notation: str = "Chinese", *, fullwidth: bool = True) -> str:
    """``game`` as xiangqi PGN with ``[Variant "xiangqi"]`` and ``[Format notation]`` (``"ICCS"``,
    ``"WXF"`` or ``"Chinese"``), one move pair per line. Readable by :func:`parse_pgn`."""
    fmt = {"iccs": "ICCS", "wxf": "WXF", "chinese": "Chinese"}.get(notation.lower())
    if fmt is None:
        raise ValueError(f"notation {notation!r}: ICCS, WXF or Chinese")
    tags = {"Game": "Chinese Chess", "Variant": "xiangqi", "Event": game.event or "?",
            "Site": game.headers.get("Site", "?"), "Date": game.date or "?",
            "Round": game.round or "?", "Red": game.red, "Black": game.black,
            "Result": game.result}
    if game.start_fen != START_FEN:
        tags["FEN"] = game.start_fen
    tags["Format"] = fmt
    out = [f'[{k} "{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]'
           for k, v in tags.items()]
    out.append("")
    board = Board(game.start_fen)
    kw = {"fullwidth": fullwidth} if fmt == "Chinese" else {}
    number = board.fullmove if hasattr(board, "fullmove") else 1
    row: list[str] = []
    lines = []
    if board.turn == "black":
        row = [f"{number}.", "..."]
    for m in game.moves:
        if board.turn == "red":
            row = [f"{number}."]
        row.append(format_move(board, m, fmt.lower(), **kw))
        board.push(m)
        if board.turn == "red":
            lines.append(" ".join(row))
            row = []
            number += 1
    if row:
        lines.append(" ".join(row))
    lines.append(game.result)
    out.extend(lines)
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------------------- files
def read_records(path: str | Path) -> list[XiangqiRecord]:
    """Every game of a xiangqi record file: PGN (a tag line ``[...]``) or tournament text,
    detected from the content. Raises :class:`RecordError` for a game that cannot be read."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise RecordError(str(p), None, f"cannot read the file: {e.strerror or e}") from None
    for enc in ("utf-8-sig", "gb18030"):
        try:
            text = raw.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    else:  # pragma: no cover - gb18030 decodes any byte string
        raise RecordError(str(p), None, "not UTF-8 or GB18030 text")
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    if first.startswith("["):
        return parse_pgn(text, str(p))
    return parse_tournament_text(text, str(p))
