"""OpenGotha results lists (``.h9``, the EGD "h" results table OpenGotha exports): reading.

Pure: bytes -> records, no I/O.  The format, as OpenGotha writes it (``ExternalDocument``'s EGF
export and ``ScoredPlayer.halfGamesStrings`` of lucvannier/opengotha, read for this reader),
encoded ISO-8859-15::

    ; CL[A]                          header comments ``; XX[value]``: CL class, EV event name,
    ; EV[Tournoi de Juvisy]          PC ``country,place``, DT ``start,end``, HA ``h<n>`` handicap
    ; DT[2019-10-26,2019-10-28]      (stones = McMahon score difference - n; absent: no
    ; HA[h1]                         handicap correction), KM komi, TM adjusted time in minutes,
    ; KM[7.5]                        CM comment (OpenGotha: the byo-yomi kind)
    ; Pl Name                            Rk Co Club  MMS  SOSSOSOS
       1 Minieri Davide                  3D FR 75Ju   36  128  503 0    2+/w0    3+/b0 ...

The column header names the placement criteria, 5 characters each after ``Club`` (``  MMS``,
``  SOS``, ``SOSOS``).  A player line: place (4 columns, blank for an ex aequo), name (30: the
surname then the first name, blanks inside each written ``_``), rank (3: ``30K``..``9D``),
country (2), club (4), then one value per criterion (at most 4 characters, so ``1231½`` is
written ``1231``; ``½`` is not in ISO-8859-15 and comes out ``?``: ``408?`` is 408½), padded
with ``0`` to four values, then one cell per round.  Players are numbered by their line (the
first player line is 1): the cells name opponents by that number, not by place.

A round cell ``oooortch``: opponent number, result ``+`` won, ``-`` lost, ``=`` jigo (both
half), ``?`` unknown; ``/`` played, or ``!`` result by default (not played: a forfeit); colour
``w``/``b`` (``?`` unknown); handicap stones.  Without a game (opponent ``0``) the result letter
is what the round gave the player: ``0+`` a bye worth a win, ``0=`` an absence (or bye) worth
half a win (OpenGotha's "absent" McMahon value ``genMMS2ValueAbsent`` = 1 half point, as in
Juvisy 2019's tournament file), ``0-`` nothing (participating but not paired, or an absence
valued 0).

Errors: :class:`H9Error` (a :class:`shared.errors.PairingError`, so a ``ValueError``) naming
the line: a malformed cell, field or value, lines with different numbers of rounds, an opponent
number outside the table or the player himself, two lines disagreeing on a game (opponent,
colour, handicap, by default or not, results other than mirrored or both won / both lost).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from shared.errors import PairingError

__all__ = ["H9Error", "H9Cell", "H9Player", "H9Tournament", "parse_h9", "decode_h9"]

_HEADER = re.compile(r"^;\s*([A-Z]{2})\[(.*)\]\s*$")
_PLAYER = re.compile(r"^(?P<place>[ \d]{4}) (?P<name>.{30}) (?P<rank>[ \d]\d[kKdD]) (?P<country>\S{2}) "
                     r"(?P<club>.{4})(?P<rest>.*)$")
_CELL = re.compile(r"^(?P<opp>\d{1,4})(?P<res>[-+=?])(?:(?P<typ>[/!])(?P<col>[wb?])(?P<hd>\d))?$")
_VALUE = re.compile(r"^-?\d{1,4}([?½¼¾])?$")
_FRACTION = {"?": 0.5, "½": 0.5, "¼": 0.25, "¾": 0.75}
#: Points of a result letter: a game's (``?`` unknown: none yet) or a round's without a game.
POINTS = {"+": 1.0, "=": 0.5, "-": 0.0, "?": 0.0}
#: The results the opponent's cell may show for each result letter: the mirrored one, or the
#: same for OpenGotha's "both win" / "both lose" (a double forfeit ``-!``/``-!``).
_MIRROR = {"+": "-+", "-": "+-", "=": "=", "?": "?"}
_COLOUR_MIRROR = {"w": "b", "b": "w", "?": "?"}
#: Score values padded to this many columns (OpenGotha fills with ``0`` up to four).
_MIN_VALUES = 4


class H9Error(PairingError):
    """Malformed OpenGotha results list; ``line`` is 1-based (0: the whole file)."""

    def __init__(self, message: str, line: int):
        self.line = line
        super().__init__(f"h9 line {line}: {message}" if line else f"h9: {message}")


@dataclass(frozen=True)
class H9Cell:
    """One round of one player.  ``opponent``: the opponent's line number (1-based), None for a
    round without a game; ``result``: ``+ - = ?`` (without a game: what the round gave, see
    :data:`POINTS`); ``by_default``: a game's result given without play (``!``, a forfeit);
    ``colour`` ``w``/``b``/``?`` (``""`` without a game); ``handicap``: stones (None without a
    game)."""

    opponent: int | None
    result: str
    by_default: bool = False
    colour: str = ""
    handicap: int | None = None

    @property
    def points(self) -> float:
        """What the round adds to the player's wins: 1, ½ or 0 (a bye ``0+`` 1, ``0=`` ½)."""
        return POINTS[self.result]


@dataclass(frozen=True)
class H9Player:
    """A player line.  ``number``: its line order (1-based, what cells name); ``place``: the
    place column (None: an ex aequo, left blank); ``grade`` as written (``3D``, ``18K``);
    ``scores``: criterion name (the column header's) -> value in points, the file's order;
    ``cells``: one per round."""

    number: int
    place: int | None
    name: str
    grade: str
    country: str
    club: str
    scores: dict[str, float]
    cells: tuple[H9Cell, ...]

    @property
    def points(self) -> float:
        """Sum of the rounds' points (wins, jigos ½, byes and absences as written)."""
        return sum(c.points for c in self.cells)


@dataclass
class H9Tournament:
    """A parsed results list: ``headers`` code -> value (``EV``, ``DT``, ``HA``, ``KM`` ...,
    file order), ``generator`` (the ``; Generated by`` comment), ``criteria`` (column header
    names), ``players`` in line order."""

    headers: dict[str, str]
    criteria: tuple[str, ...]
    players: list[H9Player]
    generator: str | None = None
    rounds: int = 0

    @property
    def name(self) -> str | None:
        return self.headers.get("EV") or None

    @property
    def komi(self) -> float | None:
        """``KM`` in points, None when absent or not a number."""
        try:
            return float(self.headers["KM"])
        except (KeyError, ValueError):
            return None

    @property
    def handicap_correction(self) -> int | None:
        """``HA[h<n>]``: handicap stones = McMahon score difference - n; None without ``HA``."""
        m = re.fullmatch(r"h(\d)", self.headers.get("HA", ""))
        return int(m.group(1)) if m else None

    def player(self, number: int) -> H9Player:
        return self.players[number - 1]

    def games(self) -> int:
        """Games (played or by default), each counted once."""
        return sum(1 for p in self.players for c in p.cells if c.opponent is not None) // 2


def decode_h9(data: bytes) -> str:
    """A results list's bytes as text: ISO-8859-15, the encoding OpenGotha writes (UTF-8 first
    when the bytes are valid UTF-8, as a hand-edited file may be)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("iso-8859-15")


def _criteria(line: str, lineno: int) -> tuple[str, ...]:
    at = line.find("Club")
    if at < 0:
        raise H9Error("column header without 'Club'", lineno)
    rest = line[at + 4:].rstrip()
    return tuple(rest[i:i + 5].strip() for i in range(0, len(rest), 5))


def _value(text: str, lineno: int, what: str) -> float:
    if not _VALUE.match(text):
        raise H9Error(f"{what}: {text!r} is not a score value", lineno)
    frac = _FRACTION.get(text[-1], 0.0)
    whole = int(text.rstrip("?½¼¾"))
    return whole - frac if whole < 0 else whole + frac


def _cell(text: str, lineno: int, rnd: int) -> H9Cell:
    m = _CELL.match(text)
    if not m:
        raise H9Error(f"round {rnd}: {text!r} is not a round cell (e.g. 12+/w0, 0=)", lineno)
    opp, res = int(m.group("opp")), m.group("res")
    if opp == 0:
        if m.group("typ") or res == "?":
            raise H9Error(f"round {rnd}: {text!r}: a round without opponent is 0+, 0= or 0-", lineno)
        return H9Cell(None, res)
    if not m.group("typ"):
        raise H9Error(f"round {rnd}: {text!r}: a game needs /colour+handicap (e.g. {opp}{res}/w0)", lineno)
    return H9Cell(opp, res, m.group("typ") == "!", m.group("col"), int(m.group("hd")))


def _player(line: str, lineno: int, number: int, criteria: tuple[str, ...]) -> H9Player:
    m = _PLAYER.match(line)
    if not m:
        raise H9Error("not a player line (place, name, rank, country, club in OpenGotha's "
                      "columns)", lineno)
    tokens = m.group("rest").split()
    n_values = max(len(criteria), _MIN_VALUES)
    if len(tokens) < n_values:
        raise H9Error(f"{len(tokens)} value(s) after the club, {n_values} score values expected", lineno)
    scores = {c: _value(t, lineno, c) for c, t in zip(criteria, tokens)}
    for t in tokens[len(criteria):n_values]:
        _value(t, lineno, "padding")
    cells = tuple(_cell(t, lineno, i + 1) for i, t in enumerate(tokens[n_values:]))
    place = m.group("place").strip()
    return H9Player(number, int(place) if place else None, m.group("name").strip(),
                    m.group("rank").strip().upper(), m.group("country"), m.group("club").strip(),
                    scores, cells)


def parse_h9(text: str) -> H9Tournament:
    """Parse an OpenGotha results list (pure; a leading byte-order mark is skipped).  Raises
    :class:`H9Error` naming the line (see the module docstring)."""
    headers: dict[str, str] = {}
    criteria: tuple[str, ...] | None = None
    generator = None
    players: list[H9Player] = []
    line_of: list[int] = []
    for lineno, raw in enumerate(text.removeprefix("\ufeff").splitlines(), 1):
        line = raw.rstrip("\r\n")
        if line.startswith(";"):
            if (h := _HEADER.match(line)) is not None:
                headers.setdefault(h.group(1), h.group(2))
            elif line[1:].strip().startswith("Pl Name"):
                criteria = _criteria(line, lineno)
            elif line[1:].strip().startswith("Generated by"):
                generator = line[1:].strip().removeprefix("Generated by").strip()
            continue
        if not line.strip():
            continue
        if criteria is None:
            raise H9Error("a player line before the '; Pl Name ... Club <criteria>' column header", lineno)
        players.append(_player(line, lineno, len(players) + 1, criteria))
        line_of.append(lineno)
    if not players:
        raise H9Error("no player lines: not an OpenGotha results list", 0)
    t = H9Tournament(headers, criteria or (), players, generator, len(players[0].cells))
    _check_rounds(t, line_of)
    return t


def _check_rounds(t: H9Tournament, line_of: list[int]) -> None:
    """Every line has ``t.rounds`` cells; every game names a listed other player whose cell of
    the same round names him back with the mirrored result, colour, handicap and kind."""
    n = len(t.players)
    for p in t.players:
        if len(p.cells) != t.rounds:
            raise H9Error(f"{len(p.cells)} rounds, the first player line has {t.rounds}", line_of[p.number - 1])
        for rnd, c in enumerate(p.cells, 1):
            if c.opponent is None:
                continue
            if not 1 <= c.opponent <= n or c.opponent == p.number:
                raise H9Error(f"round {rnd}: opponent {c.opponent} is not another player (1..{n})",
                              line_of[p.number - 1])
            o = t.player(c.opponent).cells[rnd - 1]
            want = H9Cell(p.number, o.result, c.by_default, _COLOUR_MIRROR[c.colour], c.handicap)
            if o != want or o.result not in _MIRROR[c.result]:
                raise H9Error(f"round {rnd}: player {p.number} vs {c.opponent} is not the same game on "
                              f"line {line_of[c.opponent - 1]}", line_of[p.number - 1])
