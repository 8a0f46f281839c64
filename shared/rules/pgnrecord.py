"""Reading tournament records from PGN (PGN standard; python-chess for movetext).

:func:`read_games` returns every game of a file as :class:`RecordedGame` (tags, SAN/UCI moves,
``[%clk]`` readings in ms). Files of headers only (results without moves, e.g. a broadcast's
results list) are read tag block by tag block, since python-chess needs movetext to split games.
:func:`read_round_robin` groups a complete round-robin record into rounds and players.
"""
from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

from shared.errors import RulesError

logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)  # errors are reported via RecordedGame.error

TAG_RE = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
RESULTS = ("1-0", "0-1", "1/2-1/2")


class RecordError(RulesError):
    """A record that cannot be hosted, with the reason (file, game and what is wrong)."""


@dataclass
class RecordedGame:
    """One game of a record. ``moves``: UCI strings; ``clocks_ms``: remaining time after each
    move from ``[%clk]`` (None where absent); ``index``: 0-based position in the file."""

    index: int
    tags: dict[str, str]
    moves: list[str] = field(default_factory=list)
    sans: list[str] = field(default_factory=list)
    clocks_ms: list[int | None] = field(default_factory=list)
    start_fen: str | None = None
    error: str | None = None  # python-chess's first parse error, if any
    game: str = "chess"  # "xiangqi": moves are ICCS, sans the record's own notation

    @property
    def white(self) -> str:
        return self.tags.get("White", "?")

    @property
    def black(self) -> str:
        return self.tags.get("Black", "?")

    @property
    def result(self) -> str:
        return self.tags.get("Result", "*")

    def round_board(self) -> tuple[int, int | None]:
        """(round, board) from the Round tag (``"3.2"`` -> (3, 2), ``"3"`` -> (3, None)).
        Raises :class:`RecordError` when the tag is missing or not numeric."""
        m = re.match(r"^\s*(\d+)(?:\.(\d+))?", self.tags.get("Round", ""))
        if not m:
            raise RecordError(f"game {self.index + 1} ({self.white} - {self.black}): "
                              f"no round number in Round tag {self.tags.get('Round')!r}")
        return int(m.group(1)), int(m.group(2)) if m.group(2) else None


def _tag_blocks(text: str) -> list[tuple[dict[str, str], str]]:
    """Split PGN text into (tags, movetext) blocks by tag sections."""
    blocks: list[tuple[dict[str, str], list[str]]] = []
    in_tags = False
    for line in text.splitlines():
        m = TAG_RE.match(line.strip())
        if m:
            if not in_tags:
                blocks.append(({}, []))
                in_tags = True
            blocks[-1][0][m.group(1)] = m.group(2)
        else:
            in_tags = False
            if blocks and line.strip():
                blocks[-1][1].append(line)
    return [(t, "\n".join(mv)) for t, mv in blocks]


_XIANGQI_PGN = re.compile(r'^\[(Game|Variant)\s+"(Chinese Chess|xiangqi|Xiangqi|chinese chess)"\]', re.M)


def is_xiangqi(path: str | Path, text: str) -> bool:
    """A xiangqi record: a text file of games in Chinese notation (``.txt``) or a PGN whose Game
    or Variant tag names xiangqi (``[Game "Chinese Chess"]``, ``[Variant "xiangqi"]``)."""
    return Path(path).suffix.lower() == ".txt" or bool(_XIANGQI_PGN.search(text))


def _xiangqi_games(path: str | Path) -> list[RecordedGame]:
    from shared.rules.xiangqi_record import read_records

    try:
        records = read_records(path)
    except ValueError as e:
        raise RecordError(f"{path}: {e}") from None
    games = []
    for i, r in enumerate(records):
        tags = {"White": r.red, "Black": r.black, "Result": r.result, "Variant": "xiangqi",
                **{k: v for k, v in (r.headers or {}).items() if k not in ("Red", "Black")}}
        if getattr(r, "event", None):
            tags.setdefault("Event", r.event)
        games.append(RecordedGame(i, tags, moves=[m.iccs() for m in r.moves],
                                  sans=list(r.move_texts), clocks_ms=[None] * len(r.moves),
                                  start_fen=r.start_fen, game="xiangqi",
                                  error=getattr(r, "error", None)))
    return games


def read_games(path: str | Path) -> list[RecordedGame]:
    """Every game in the file at ``path``: a chess PGN, or a xiangqi record (PGN with a xiangqi
    Game/Variant tag, or the text format of Chinese tournament books), whose games carry
    ``game="xiangqi"`` and ICCS moves. Raises :class:`RecordError` if unreadable."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror}") from None
    if is_xiangqi(path, text):
        return _xiangqi_games(path)
    blocks = _tag_blocks(text)
    if not blocks:
        raise RecordError(f"{path}: no PGN games found")
    if all(not mv.strip() for _, mv in blocks):
        return [RecordedGame(i, tags) for i, (tags, _) in enumerate(blocks)]
    games = []
    stream = io.StringIO(text)
    i = 0
    while True:
        g = chess.pgn.read_game(stream)
        if g is None:
            break
        rec = RecordedGame(i, dict(g.headers))
        if "FEN" in g.headers:
            rec.start_fen = g.headers["FEN"]
        if g.errors:
            rec.error = str(g.errors[0])
        board = g.board()
        for node in g.mainline():
            rec.sans.append(board.san(node.move))
            rec.moves.append(node.move.uci())
            clk = node.clock()
            rec.clocks_ms.append(None if clk is None else round(clk * 1000))
            board.push(node.move)
        games.append(rec)
        i += 1
    return games


@dataclass
class RoundRobinRecord:
    """An event's record: ``players`` in order of first appearance (name -> rating),
    ``rounds`` {round: [games sorted by board]}. ``kind`` ``round-robin`` (complete, ``cycles``
    1 or 2) or ``recorded`` (any other event, rounds as played, ``cycles`` 0: it is hosted with
    the recorded pairings); ``game`` chess or xiangqi."""

    name: str
    players: dict[str, int | None]
    rounds: dict[int, list[RecordedGame]]
    cycles: int
    time_control: str | None
    kind: str = "round-robin"
    game: str = "chess"


def read_event(path: str | Path) -> RoundRobinRecord:
    """A record to host: a complete round robin (:func:`read_round_robin`) or, for a xiangqi
    record (sessions of a knockout or ranking event, tie-break games), the games in the order
    played, grouped into rounds: a new round starts at each new section (Event) of the record
    and whenever a game's player has already played in the current round. Raises
    :class:`RecordError`."""
    games = read_games(path)
    if not games or games[0].game != "xiangqi":
        return read_round_robin(path)
    broken = [g for g in games if g.error]
    if broken:
        g = broken[0]
        raise RecordError(f"{path}: game {g.index + 1} ({g.white} - {g.black}) cannot be read: {g.error}")
    players: dict[str, int | None] = {}
    rounds: dict[int, list[RecordedGame]] = {}
    seen: set[str] = set()
    section = None
    for g in games:
        players.setdefault(g.white, None)
        players.setdefault(g.black, None)
        new_section = g.tags.get("Event") != section
        if not rounds or new_section or g.white in seen or g.black in seen:
            rounds[len(rounds) + 1] = []
            seen = set()
            section = g.tags.get("Event")
        rounds[len(rounds)].append(g)
        seen |= {g.white, g.black}
    return RoundRobinRecord(Path(path).stem, players, rounds, 0, None, kind="recorded", game="xiangqi")


def read_round_robin(path: str | Path) -> RoundRobinRecord:
    """Read a complete round-robin event from PGN. Raises :class:`RecordError` when the file is
    not one: missing round numbers, a player twice in a round, pairs meeting an unequal number
    of times, or a round count that does not fit n players."""
    games = read_games(path)
    players: dict[str, int | None] = {}
    rounds: dict[int, list[RecordedGame]] = {}
    for g in games:
        for name, elo in ((g.white, g.tags.get("WhiteElo")), (g.black, g.tags.get("BlackElo"))):
            if name not in players:
                players[name] = int(elo) if elo and elo.isdigit() else None
        r, _ = g.round_board()
        rounds.setdefault(r, []).append(g)
    for r, gs in rounds.items():
        gs.sort(key=lambda g: (g.round_board()[1] or 0, g.index))
        seen: set[str] = set()
        for g in gs:
            for p in (g.white, g.black):
                if p in seen:
                    raise RecordError(f"round {r}: {p} plays twice")
                seen.add(p)
    n = len(players)
    meetings: dict[frozenset, int] = {}
    for g in games:
        k = frozenset((g.white, g.black))
        meetings[k] = meetings.get(k, 0) + 1
    counts = set(meetings.values())
    if len(meetings) != n * (n - 1) // 2 or len(counts) != 1:
        raise RecordError(f"{path}: not a complete round robin: {n} players, "
                          f"{len(meetings)} of {n * (n - 1) // 2} pairs met")
    cycles = counts.pop()
    broken = [g for g in games if g.error]
    if broken:
        g = broken[0]
        raise RecordError(f"{path}: game {g.index + 1} ({g.white} - {g.black}, round "
                          f"{g.tags.get('Round')}) has an unreadable move after ply {len(g.moves)}: "
                          f"{g.error} ({len(broken)} game(s) with errors)")
    if sorted(rounds) != list(range(1, len(rounds) + 1)):
        raise RecordError(f"{path}: rounds are not numbered 1..{len(rounds)}: {sorted(rounds)}")
    first = games[0].tags
    name = first.get("Event", Path(path).stem)
    if name.startswith("Round "):
        name = Path(path).stem
    return RoundRobinRecord(name, players, dict(sorted(rounds.items())), cycles,
                            first.get("TimeControl"))
