"""FIDE Tournament Report File (TRF-16) reading and writing; pure except :func:`read_trf`.

Format: FIDE Handbook C.04.A annex 2 (TRF16), with the JaVaFo/bbpPairings extensions ``XXR``
(number of rounds) and ``XXC`` (configuration: ``white1``/``black1`` = colour of the top seed
in round 1, ``rank`` = pairing numbers by rank).  Player lines ``001`` use fixed columns
(1-based, inclusive)::

    1-3 "001"   5-8 start rank   10 sex   11-13 title   15-47 name   49-52 rating
    54-56 federation   58-68 FIDE id   70-79 birth date   81-84 points   86-89 rank
    round i (i = 1, 2, ...): 92-95 opponent (0000 = none), 97 colour (w/b/-), 99 result,
    each block 10 columns further right.

Results (column 99): ``1 0 =`` played game; ``W D L`` played, unrated (win/draw/loss);
``+ -`` forfeit win/loss (with an opponent: paired but not played); ``H`` half-point bye,
``F`` full-point bye, ``U`` pairing-allocated bye (one point), ``Z`` zero-point bye; ``-`` with
no opponent: absent, zero.  An all-blank round block means "not in the event that round"
(withdrawn, not yet entered).

lichess flavour (``SwissTrf.scala``): user name in the name field, no federation/birth/id,
byes written as the bare letter in column 99 (no ``0000``), player lines not sorted by number.
Those are read as their standard equivalents; :func:`write_trf` always writes the standard
form (``0000 - U``), so a lichess file round-trips in content, not byte for byte.

TRF-26 (FIDE, effective 2026) keeps the 001 column layout above for the fields used here.

Numbers are ASCII digits only (``²`` or other Unicode digits are refused, not read by
``int``); a UTF-8 byte-order mark before the first line is skipped.  ``XXR`` and the rounds a
line records are at most :data:`MAX_ROUNDS`.  A player recorded against himself is refused.

Errors: :class:`TrfError` (a ``ValueError``) naming the line and column.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from shared.domain.record import Cell
from shared.domain.results import LETTER_POINTS, PLAYED_LETTERS
from shared.errors import PairingError

__all__ = ["TrfError", "RoundEntry", "TrfPlayer", "Tournament", "parse_trf", "read_trf",
           "write_trf", "PLAYED", "RESULT_POINTS", "MAX_ROUNDS", "decode_trf", "slug", "player_ids",
           "registrations"]

#: Most rounds a TRF may declare (``XXR``) or record: the bound of ``CreateTournament.rounds``
#: (contracts), so ``import trf``, ``standings`` and ``check-pairings`` refuse the same files.
MAX_ROUNDS = 99

PLAYED = PLAYED_LETTERS
RESULT_POINTS = LETTER_POINTS
_COLOURS = frozenset("wb-")
_FIRST_ROUND_COL = 92  # 1-based column of round 1's opponent field
_BLOCK = 10


class TrfError(PairingError):
    """Malformed TRF input; ``line`` and ``column`` are 1-based (column 0: the whole line;
    line 0: the whole file, named by no line)."""

    def __init__(self, message: str, line: int, column: int = 0):
        self.line, self.column = line, column
        where = f" line {line}" + (f", column {column}" if column else "") if line else ""
        super().__init__(f"TRF{where}: {message}")


@dataclass(frozen=True)
class RoundEntry:
    """One round of one player: ``opponent`` start rank or ``None`` (bye/absent),
    ``colour`` ``'w'``/``'b'``/``'-'``, ``result`` one of ``1 0 = W D L + - H F U Z``."""

    opponent: int | None
    colour: str
    result: str

    @property
    def played(self) -> bool:
        """A game was played over the board (counts for rematches and colours)."""
        return self.opponent is not None and self.result in PLAYED

    @property
    def paired(self) -> bool:
        """The pairing program paired this player against an opponent (played or forfeit)."""
        return self.opponent is not None

    @property
    def points(self) -> float:
        return RESULT_POINTS[self.result]


@dataclass
class TrfPlayer:
    number: int
    name: str
    sex: str = ""
    title: str = ""
    rating: int | None = None
    federation: str = ""
    fide_id: str = ""
    birth: str = ""
    points: float | None = None
    rank: int | None = None
    rounds: list[RoundEntry | None] = field(default_factory=list)  # None: blank block

    def entry(self, rnd: int) -> RoundEntry | None:
        return self.rounds[rnd - 1] if rnd <= len(self.rounds) else None

    @property
    def result_sum(self) -> float:
        return sum(e.points for e in self.rounds if e is not None)


@dataclass
class Tournament:
    """A parsed TRF.  ``headers``: the non-001 lines in file order as ``(code, content)``
    (kept for writing back).  ``rounds``: from ``XXR`` if present, else the longest record."""

    players: list[TrfPlayer]
    headers: list[tuple[str, str]] = field(default_factory=list)
    rounds: int = 0
    first_white: bool = True  # XXC white1 (default) / black1
    by_rank: bool = False  # XXC rank

    def header(self, code: str) -> str | None:
        return next((c for k, c in self.headers if k == code), None)

    @property
    def name(self) -> str | None:
        return self.header("012")

    @property
    def start_date(self) -> str | None:
        return self.header("042")

    @property
    def end_date(self) -> str | None:
        return self.header("052")

    @property
    def declared_players(self) -> int | None:
        v = self.header("062")
        return int(v) if v and _is_number(v.strip()) else None

    def player(self, number: int) -> TrfPlayer:
        return self._by_no[number]

    @property
    def _by_no(self) -> dict[int, TrfPlayer]:
        return {p.number: p for p in self.players}

    @property
    def rounds_recorded(self) -> int:
        """Rounds with at least one non-blank entry."""
        return max((i + 1 for p in self.players for i, e in enumerate(p.rounds) if e), default=0)

    def games(self) -> int:
        """Pairings of two players (played or forfeited), each counted once."""
        return sum(1 for p in self.players for e in p.rounds
                   if e and e.opponent is not None) // 2

    def played_games(self) -> int:
        return sum(1 for p in self.players for e in p.rounds if e and e.played) // 2


# ----------------------------------------------------------------------------------- parsing
def _field(line: str, a: int, b: int) -> str:
    return line[a - 1:b].strip()


def _is_number(s: str) -> bool:
    """ASCII digits only (``str.isdigit`` also accepts ``²`` and other digits ``int`` refuses)."""
    return s.isascii() and s.isdigit()


def _int(line: str, a: int, b: int, lineno: int, what: str, optional: bool = True) -> int | None:
    s = _field(line, a, b)
    if not s:
        if optional:
            return None
        raise TrfError(f"{what} missing", lineno, a)
    if not _is_number(s):
        raise TrfError(f"{what} must be a number, got {s!r}", lineno, a)
    return int(s)


def _parse_round(block: str, lineno: int, col: int) -> RoundEntry | None:
    """``block`` = columns col..col+7 (opponent 4, space, colour, space, result)."""
    block = block.ljust(8)
    if not block.strip():
        return None
    opp_s, colour, result = block[0:4].strip(), block[5], block[7]
    if block[4] != " " or block[6] != " ":
        raise TrfError(f"round block {block!r} is not 'oooo c r'", lineno, col)
    if result not in RESULT_POINTS:
        raise TrfError(f"unknown result {result!r}", lineno, col + 7)
    colour = colour if colour != " " else "-"
    if colour not in _COLOURS:
        raise TrfError(f"unknown colour {colour!r}", lineno, col + 5)
    if opp_s and not _is_number(opp_s):
        raise TrfError(f"opponent must be a number, got {opp_s!r}", lineno, col)
    opp = int(opp_s) if opp_s else 0
    if opp == 0:
        if result in PLAYED:
            raise TrfError(f"result {result!r} needs an opponent", lineno, col + 7)
        return RoundEntry(None, "-", result)
    if result in "HFUZ":
        raise TrfError(f"bye result {result!r} with an opponent {opp}", lineno, col + 7)
    if result in PLAYED and colour == "-":
        raise TrfError("played game without colour", lineno, col + 5)
    return RoundEntry(opp, colour, result)


def _parse_player(line: str, lineno: int) -> TrfPlayer:
    number = _int(line, 5, 8, lineno, "start rank", optional=False)
    pts_s = _field(line, 81, 84)
    try:
        points = float(pts_s) if pts_s else None
    except ValueError:
        raise TrfError(f"points must be a number, got {pts_s!r}", lineno, 81) from None
    rounds: list[RoundEntry | None] = []
    col = _FIRST_ROUND_COL
    while col <= len(line.rstrip()):
        rounds.append(_parse_round(line[col - 1:col + 7], lineno, col))
        col += _BLOCK
    while rounds and rounds[-1] is None:
        rounds.pop()
    if len(rounds) > MAX_ROUNDS:
        raise TrfError(f"{len(rounds)} rounds recorded, more than {MAX_ROUNDS}", lineno,
                       _FIRST_ROUND_COL + MAX_ROUNDS * _BLOCK)
    return TrfPlayer(number=number, sex=_field(line, 10, 10), title=_field(line, 11, 13),
                     name=_field(line, 15, 47), rating=_int(line, 49, 52, lineno, "rating"),
                     federation=_field(line, 54, 56), fide_id=_field(line, 58, 68),
                     birth=_field(line, 70, 79), points=points,
                     rank=_int(line, 86, 89, lineno, "rank"), rounds=rounds)


def parse_trf(text: str) -> Tournament:
    """Parse TRF text (pure; a leading byte-order mark ``\\ufeff`` is skipped).  Raises
    :class:`TrfError` naming line and column: malformed fields, non-ASCII digits, ``XXR`` above
    :data:`MAX_ROUNDS`, a player paired with himself, two lines disagreeing on a pairing."""
    text = text.removeprefix("\ufeff")
    players: list[TrfPlayer] = []
    headers: list[tuple[str, str]] = []
    line_of: dict[int, int] = {}
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        if not line.strip():
            continue
        if line[:3] == "001":
            players.append(_player_line(line, lineno))
            line_of.setdefault(players[-1].number, lineno)
        else:
            headers.append(_header_line(line, lineno))
    if not players:
        raise TrfError("no player lines (001): not a TRF", 0)
    _check_start_ranks_unique(players, line_of)
    players.sort(key=lambda p: p.number)
    first_white, by_rank = _xxc_options(headers)
    t = Tournament(players=players, headers=headers, first_white=first_white, by_rank=by_rank)
    xxr = [int(content) for code, content in headers if code == "XXR"]
    t.rounds = xxr[-1] if xxr else t.rounds_recorded
    _check_opponents_listed(players, line_of)
    _check_pairings_agree(players, line_of)
    return t


def _player_line(line: str, lineno: int) -> TrfPlayer:
    """A ``001`` line, which must reach the points field (columns 81-84)."""
    if len(line.rstrip()) < 84:
        raise TrfError("player line ends before the points field (columns 81-84)", lineno,
                       len(line.rstrip()) + 1)
    return _parse_player(line, lineno)


def _header_line(line: str, lineno: int) -> tuple[str, str]:
    """Any other line: (code, content); ``XXR`` must be a number of rounds from 1 to
    :data:`MAX_ROUNDS`."""
    code = line[:3]
    content = line[4:] if len(line) > 3 else ""
    if len(line) > 3 and line[3] != " ":
        raise TrfError(f"expected a space after the code {code!r}", lineno, 4)
    if code == "XXR":
        if not _is_number(content.strip()):
            raise TrfError(f"XXR needs a number of rounds, got {content!r}", lineno, 5)
        if not 1 <= int(content) <= MAX_ROUNDS:
            raise TrfError(f"XXR {int(content)}: the number of rounds must be 1 to {MAX_ROUNDS}",
                           lineno, 5)
    return code, content


def _xxc_options(headers: list[tuple[str, str]]) -> tuple[bool, bool]:
    """(first_white, by_rank) from the ``XXC`` words ``white1`` / ``black1`` / ``rank``, the
    last word read winning (defaults: True, False)."""
    first_white, by_rank = True, False
    for code, content in headers:
        if code != "XXC":
            continue
        for word in content.split():
            if word == "white1":
                first_white = True
            elif word == "black1":
                first_white = False
            elif word == "rank":
                by_rank = True
    return first_white, by_rank


def _check_start_ranks_unique(players: list[TrfPlayer], line_of: dict[int, int]) -> None:
    """Each start rank has one ``001`` line. Raises TrfError at the first line of a repeated one."""
    seen: set[int] = set()
    for p in players:
        if p.number in seen:
            raise TrfError(f"start rank {p.number} appears twice", line_of[p.number])
        seen.add(p.number)


def _check_opponents_listed(players: list[TrfPlayer], line_of: dict[int, int]) -> None:
    """Every opponent named in a round has a ``001`` line. Raises TrfError at the round."""
    numbers = {p.number for p in players}
    for p in players:
        for i, e in enumerate(p.rounds):
            if e and e.opponent is not None and e.opponent not in numbers:
                raise TrfError(f"player {p.number} round {i + 1}: opponent {e.opponent} "
                               "has no 001 line", line_of[p.number], _FIRST_ROUND_COL + i * _BLOCK)


def _check_pairings_agree(players: list[TrfPlayer], line_of: dict[int, int]) -> None:
    """Both lines of a pairing tell the same game: each names the other, the results mirror
    (:data:`_MIRROR`) and the colours differ (a ``-`` agrees with any). No one is paired with
    himself. Raises TrfError at the first round that breaks this."""
    by_no = {p.number: p for p in players}
    for p in players:
        for i, e in enumerate(p.rounds):
            if not e or e.opponent is None:
                continue
            if e.opponent == p.number:
                raise TrfError(f"player {p.number} round {i + 1} is paired with himself",
                               line_of[p.number], _FIRST_ROUND_COL + i * _BLOCK)
            o = by_no[e.opponent].rounds
            f = o[i] if i < len(o) else None
            ok = (f is not None and f.opponent == p.number and (e.result, f.result) in _MIRROR
                  and (e.colour == "-" or f.colour == "-" or {e.colour, f.colour} == {"w", "b"}))
            if not ok:
                raise TrfError(f"player {p.number} round {i + 1} ({e.opponent} {e.colour} {e.result}) "
                               f"does not match player {e.opponent}'s entry for that round",
                               line_of[p.number], _FIRST_ROUND_COL + i * _BLOCK)


#: The result pairs the two lines of one pairing may carry (``--``: both lost by forfeit).
_MIRROR = {("1", "0"), ("0", "1"), ("=", "="), ("+", "-"), ("-", "+"), ("-", "-"), ("W", "L"),
           ("L", "W"), ("D", "D"), ("1", "L"), ("L", "1"), ("0", "W"), ("W", "0"), ("=", "D"), ("D", "=")}


def read_trf(path: str | Path) -> Tournament:
    """Read a TRF file (UTF-8, a byte-order mark skipped, falling back to Latin-1) and parse
    it; raises :class:`TrfError` (see :func:`parse_trf`) or ``OSError``."""
    return parse_trf(decode_trf(Path(path).read_bytes()))


def decode_trf(data: bytes) -> str:
    """A TRF file's bytes as text: UTF-8, else Latin-1 (the older pairing programs' files)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def slug(name: str) -> str:
    """A player id from a name: ASCII letters (accents dropped), digits, ``-``; at most 60
    characters (``"Ğüç, Ali"`` -> ``"Guc-Ali"``; a name without any: ``"player"``)."""
    ascii_ = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    s = re.sub(r"[^A-Za-z0-9]+", "-", ascii_).strip("-")
    return (s or "player")[:60]


def player_ids(t: Tournament) -> dict[int, str]:
    """Start number -> the player id an import registers him under: the :func:`slug` of his
    name (``player-<no.>`` without one), or ``p<no.>-<slug>`` for every player when two slugs
    collide."""
    ids = {p.number: slug(p.name or f"player-{p.number}") for p in t.players}
    if len(set(ids.values())) != len(ids):
        ids = {n: f"p{n}-{s}"[:60] for n, s in ids.items()}
    return ids


def registrations(t: Tournament) -> list[dict]:
    """The players of ``t`` as the fields of their registrations (``RegisterPlayer``, in
    start-number order as the file lists them): ``player_id`` (:func:`player_ids`), name,
    rating, FIDE id, title, start number, sex, federation and birth date as written (None
    where the file leaves them blank). The rounds the file records are not in them."""
    ids = player_ids(t)
    return [{"player_id": ids[p.number], "name": p.name or ids[p.number], "rating": p.rating or None,
             "fide_id": p.fide_id or None, "title": p.title or None, "start_number": p.number,
             "sex": p.sex or None, "federation": p.federation or None, "birth_date": p.birth or None}
            for p in t.players]


# ----------------------------------------------------------------------------------- writing
def _fmt_round(e: RoundEntry | None) -> str:
    if e is None:
        return " " * 8
    opp = "0000" if e.opponent is None else f"{e.opponent:4d}"
    return f"{opp} {e.colour} {e.result}"


def player_line(p: TrfPlayer, max_rounds: int | None = None) -> str:
    pts = "" if p.points is None else f"{p.points:.1f}"
    head = (f"001 {p.number:4d} {p.sex:1.1}{p.title:>3.3} {p.name:<33.33} "
            f"{'' if p.rating is None else p.rating:>4} {p.federation:<3.3} {p.fide_id:>11.11} "
            f"{p.birth:<10.10} {pts:>4} {'' if p.rank is None else p.rank:>4}")
    rounds = p.rounds if max_rounds is None else p.rounds[:max_rounds]
    return (head + "".join("  " + _fmt_round(e) for e in rounds)).rstrip()


def write_trf(t: Tournament) -> str:
    """TRF-16 text: header lines in their original order, then players by start rank."""
    lines = [f"{code} {content}".rstrip() if content else code for code, content in t.headers]
    if t.header("XXR") is None and t.rounds:
        lines.append(f"XXR {t.rounds}")
    lines += [player_line(p) for p in sorted(t.players, key=lambda p: p.number)]
    return "\n".join(lines) + "\n"


def entries_from_cells(cells: dict[str, list[Cell]], numbers: dict[str, int]
                       ) -> dict[str, list[RoundEntry | None]]:
    """Each player's TRF round entries from the tournament record's table
    (:meth:`shared.domain.record.TournamentRecord.cells`): a board (a game or a withdrawal's
    forfeit) is the opponent's start number, colour and letter, ``None`` (blank) while its game
    runs; any other round ``0000 - <letter>`` (``U`` the pairing bye, ``Z`` a rest, an annulled
    game or an absence, ``F``/``H``/``Z`` requested, a late entry's ``missed``).
    ``numbers``: player id -> start number."""
    def entry(c: Cell) -> RoundEntry | None:
        if c.letter is None:
            return None
        if c.kind in ("game", "forfeit"):
            return RoundEntry(numbers[c.opponent], c.colour, c.letter)
        return RoundEntry(None, "-", c.letter)
    return {pid: [entry(c) for c in cs] for pid, cs in cells.items()}
