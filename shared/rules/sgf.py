"""Go game records in SGF FF[4] (https://www.red-bean.com/sgf/), read and written with sgfmill.

:func:`read_sgf` turns one SGF game into a :class:`GoRecord` (the main line only; the rules
stay ours: the record is played on :mod:`shared.rules.go` by :func:`play_record`), and
:func:`write_sgf` writes one back. Points are the engine's ``(column, row)``, 0-based, row 0 the
bottom row (GTP row 1); SGF counts rows from the top, so ``"aa"`` on 19x19 is ``(0, 18)`` = A19.

Normalisations (each one applied is written to :attr:`GoRecord.notes`):

- ``RU``: ``Chinese``/``CN`` -> ``chinese``; ``Japanese``/``JP`` -> ``japanese``; ``Korean``
  -> ``korean``; ``GOE``/``Ing``/``SST`` -> ``ing``; ``AGA`` -> ``aga``; ``NZ``/``New Zealand``
  -> ``nz``; ``Tromp/Taylor``/``Tromp-Taylor``/``TT`` (CGOS, KataGo) -> ``tromp-taylor``.
  No ``RU``: ``chinese`` (the platform default, and the rules of every record we hold without
  ``RU``: the 2018 Tencent event and the 2015 Fan Hui match were played under Chinese rules),
  noted.  Any other ``RU``: ``chinese`` too, with a warning (:attr:`GoRecord.warnings`): the
  moves still replay, and a caller may choose the rules (``--rules``).
- komi in points: ``KM``; the YuanYu app's ``KO[7.5]`` when there is no ``KM`` (in FF[4] ``KO``
  is a move-node flag, so a root ``KO`` with a number is read as komi); a ``KM`` of 100 or more
  that is a multiple of 25 is komi in stones x100 (the 2018 Tencent semi-finals' ``KM[375]``
  = 3.75 stones = 2 x 3.75 = 7.5 points, Chinese counting: one stone = two points).
  No komi at all: ``None`` (the scorer then uses the rules' default).
- ``RE``: ``B+3.5``, ``W+R``/``W+Resign``, ``B+T``/``B+Time``, ``B+F``/``B+Forfeit``, ``B+``
  (win, margin not given), ``0``/``Draw``/``Jigo`` (a draw), ``Void``, ``?`` -> :class:`GameResult`.
  Another text (CGOS writes ``B+Illegal``: the opponent played an illegal move) is kept with a
  warning: a win for the colour it names (kind "win"), else an unknown result.
- ``TM`` main time in seconds (FF[4]); ``OT`` kept raw and parsed when it is KGS/CGoban text
  (``"3x60 byo-yomi"``, ``"25/600 Canadian"``, ``"10 fischer"``); the YuanYu ``LC``/``LT`` and
  ``TC``/``TT`` pairs (periods / seconds) are read as Japanese byo-yomi.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from sgfmill import sgf, sgf_grammar, sgf_properties

from shared.errors import RulesError

BLACK, WHITE = "black", "white"  # the platform's seat names (as shared.rules.go)
Point = tuple[int, int]

_COLOUR = {"b": BLACK, "w": WHITE}
_SGF_COLOUR = {BLACK: "b", WHITE: "w"}

RULES_ALIASES = {
    "chinese": "chinese", "cn": "chinese", "china": "chinese",
    "japanese": "japanese", "jp": "japanese", "japan": "japanese",
    "korean": "korean", "kr": "korean", "korea": "korean",
    "ing": "ing", "goe": "ing", "ing's": "ing", "ings": "ing", "sst": "ing",
    "aga": "aga", "nz": "nz", "new zealand": "nz", "new-zealand": "nz", "newzealand": "nz",
    "tromp/taylor": "tromp-taylor", "tromp-taylor": "tromp-taylor", "tromp taylor": "tromp-taylor",
    "tromptaylor": "tromp-taylor", "tt": "tromp-taylor",
}
#: How :func:`write_sgf` names our rule sets in ``RU`` (FF[4] names "GOE" for the Ing rules,
#: "AGA" and "NZ"; "Tromp-Taylor" as KataGo writes it).
RU_NAMES = {"chinese": "Chinese", "japanese": "Japanese", "ing": "GOE", "tromp-taylor": "Tromp-Taylor",
            "aga": "AGA", "nz": "NZ", "korean": "Korean"}


class SgfError(RulesError):
    """An SGF that cannot be read (or a record that cannot be written), naming what is wrong:
    the property, its value, or the node (ply) of a bad move."""


@dataclass(frozen=True)
class GameResult:
    """SGF ``RE``. ``winner``: "black"/"white"/None; ``kind``: "score" (counted, ``margin`` in
    points), "resign", "time", "forfeit", "win" (winner only), "draw", "void" (no result) or
    "unknown" (``?``); ``margin`` is None except for "score". ``raw`` is the text as written."""

    raw: str
    winner: str | None
    kind: str
    margin: float | None = None

    @property
    def text(self) -> str:
        """The result in the platform's Go notation: "B+3.5", "W+R", "B+T", "B+F", "B+",
        "Draw", "Void", "?" (the margin printed without trailing zeros: ``B+0.50`` -> ``B+0.5``)."""
        if self.kind == "draw":
            return "Draw"
        if self.kind == "void":
            return "Void"
        if self.kind == "unknown":
            return "?"
        side = "B" if self.winner == BLACK else "W"
        tail = {"resign": "R", "time": "T", "forfeit": "F", "win": ""}.get(self.kind)
        if tail is None:
            tail = f"{self.margin:g}"
        return f"{side}+{tail}"


@dataclass(frozen=True)
class Overtime:
    """Parsed overtime: ``kind`` "byo-yomi" (``periods`` of ``seconds`` each), "canadian"
    (``moves`` stones in ``seconds``) or "fischer" (``seconds`` added per move)."""

    kind: str
    seconds: float
    periods: int | None = None
    moves: int | None = None


@dataclass(frozen=True)
class TimeSettings:
    """``main_s``: ``TM`` in seconds; ``overtime_raw``: ``OT`` as written (None if absent);
    ``overtime``: its parsed form (None when absent or not a form we know)."""

    main_s: float | None = None
    overtime_raw: str | None = field(default=None, compare=False)
    overtime: Overtime | None = None


@dataclass
class GoRecord:
    """One Go game read from SGF.

    ``size``: board side (``SZ``, default 19); ``rules``: "chinese"/"japanese"/"ing" (normalised
    ``RU``, raw in ``rules_raw``); ``komi``: points (None: not recorded); ``handicap``: ``HA``
    (0 when absent); ``setup_black``/``setup_white``: root ``AB``/``AW`` points (handicap stones
    included); ``moves``: the main line as ``(colour, Point | None)``, None = pass;
    ``times``: ``{ply: (seconds_left, periods_or_stones_left | None)}`` from ``BL``/``WL``/
    ``OB``/``OW`` (ply 1 = first move); ``result``: ``RE`` (None when absent);
    ``territory_black``/``territory_white``: the last ``TB``/``TW`` marks of the main line;
    ``time``: ``TM``/``OT``; ``size``..``info`` take part in equality; ``info``: the game-info texts (``PB PW BR WR DT EV RO GN PC``) present.
    ``notes`` (every normalisation applied), ``warnings`` (what could not be read as written: an
    unknown ``RU``, an ``RE`` outside FF[4]; the game is still read) and ``properties`` (all root
    properties, raw text) do not take part in equality, so a written-then-read record equals
    the original."""

    size: int = 19
    rules: str = "chinese"  # one of shared.rules.go.RULESETS
    komi: float | None = None
    handicap: int = 0
    setup_black: tuple[Point, ...] = ()
    setup_white: tuple[Point, ...] = ()
    moves: list[tuple[str, Point | None]] = field(default_factory=list)
    times: dict[int, tuple[float, int | None]] = field(default_factory=dict)
    result: GameResult | None = None
    territory_black: frozenset[Point] = frozenset()
    territory_white: frozenset[Point] = frozenset()
    time: TimeSettings = field(default_factory=TimeSettings)
    info: dict[str, str] = field(default_factory=dict)
    rules_raw: str | None = field(default=None, compare=False)
    notes: list[str] = field(default_factory=list, compare=False)
    warnings: list[str] = field(default_factory=list, compare=False)
    properties: dict[str, str] = field(default_factory=dict, compare=False)

    @property
    def black(self) -> str:
        return self.info.get("PB", "?")

    @property
    def white(self) -> str:
        return self.info.get("PW", "?")

    def first_turn(self) -> str:
        """Who moves first: the colour of the first recorded move; without moves ``PL``, else
        White when handicap stones were placed (only Black stones set up), else Black."""
        if self.moves:
            return self.moves[0][0]
        pl = self.properties.get("PL", "").strip().upper()
        if pl in ("B", "W"):
            return BLACK if pl == "B" else WHITE
        return WHITE if self.setup_black and not self.setup_white else BLACK


# ------------------------------------------------------------------------------- reading
_RE_WIN = re.compile(r"^([BW])\+(.*)$", re.IGNORECASE)
_OT_BYO = re.compile(r"^\s*(\d+)\s*x\s*(\d+(?:\.\d+)?)\s*(?:byo-?yomi)?\s*$", re.IGNORECASE)
_OT_CAN = re.compile(r"^\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)\s*(?:canadian)?\s*$", re.IGNORECASE)
_OT_FIS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*fischer\s*$", re.IGNORECASE)
INFO_PROPS = ("PB", "PW", "BR", "WR", "DT", "EV", "RO", "GN", "PC")


def parse_result(text: str) -> GameResult:
    """Parse an SGF ``RE`` value (FF[4] "RE": ``B+3.5``, ``W+R``/``Resign``, ``B+T``/``Time``,
    ``B+F``/``Forfeit``, ``B+``, ``0``/``Draw``, ``Void``, ``?``; also ``Jigo``). Raises
    :class:`SgfError` for anything else, naming the value."""
    raw = text
    t = text.strip()
    low = t.lower()
    if low in ("0", "draw", "jigo", "b+0", "w+0", "b+0.0", "w+0.0"):
        return GameResult(raw, None, "draw")
    if low == "void":
        return GameResult(raw, None, "void")
    if low in ("?", ""):
        return GameResult(raw, None, "unknown")
    m = _RE_WIN.match(t)
    if not m:
        raise SgfError(f"RE[{raw}]: not an SGF result (B+3.5, W+R, B+T, B+F, 0, Void, ?)")
    winner = BLACK if m.group(1).upper() == "B" else WHITE
    tail = m.group(2).strip().lower()
    kind = {"r": "resign", "resign": "resign", "t": "time", "time": "time", "f": "forfeit",
            "forfeit": "forfeit", "": "win"}.get(tail)
    if kind:
        return GameResult(raw, winner, kind)
    try:
        margin = float(tail)
    except ValueError:
        raise SgfError(f"RE[{raw}]: the margin {m.group(2)!r} is not a number of points") from None
    if margin <= 0:
        raise SgfError(f"RE[{raw}]: a win by {margin:g} points (a draw is written RE[0])")
    return GameResult(raw, winner, "score", margin)


def parse_overtime(text: str) -> Overtime | None:
    """Parse an ``OT`` text as CGoban/KGS write it: ``"3x60 byo-yomi"`` (3 periods of 60 s),
    ``"25/600 Canadian"`` (25 stones in 600 s), ``"10 fischer"`` (10 s added per move).
    None for other (free-text) forms, which FF[4] allows."""
    if (m := _OT_BYO.match(text)):
        return Overtime("byo-yomi", float(m.group(2)), periods=int(m.group(1)))
    if (m := _OT_CAN.match(text)):
        return Overtime("canadian", float(m.group(2)), moves=int(m.group(1)))
    if (m := _OT_FIS.match(text)):
        return Overtime("fischer", float(m.group(1)))
    return None


def normalise_rules(ru: str | None) -> tuple[str, str | None]:
    """(our rule set, a note or None) for an ``RU`` value (None/"" -> chinese, noted). Raises
    :class:`SgfError` for a rule set we do not know."""
    if ru is None or not ru.strip():
        return "chinese", "no RU: chinese rules assumed (the platform default)"
    key = ru.strip().lower()
    if key not in RULES_ALIASES:
        raise SgfError(f"RU[{ru}]: unknown rules; known: Chinese, Japanese, Korean, AGA, GOE/Ing, "
                       "NZ, Tromp-Taylor")
    return RULES_ALIASES[key], None


def _lenient(read, text: str, fallback, warnings: list[str], consequence: str):
    """``read(text)``, or on :class:`SgfError` ``fallback(text)`` with the error and
    ``consequence`` added to ``warnings``."""
    try:
        return read(text)
    except SgfError as e:
        warnings.append(f"{e}; {consequence}")
        return fallback(text)


def _unreadable_result(text: str) -> GameResult:
    """A result outside FF[4]: a win for the colour named before "+" (``B+Illegal``), else
    unknown."""
    m = _RE_WIN.match(text.strip())
    if m is None:
        return GameResult(text, None, "unknown")
    return GameResult(text, BLACK if m.group(1).upper() == "B" else WHITE, "win")


def _text(node, prop: str, presenter) -> str | None:
    """A property's value as SimpleText (FF[4] escapes removed, decoded with the file's ``CA``),
    whatever its FF[4] type (so a root ``KO[7.5]`` reads as "7.5"); a list is joined by ","."""
    if not node.has_property(prop):
        return None
    values = node.get_raw_list(prop)
    return ",".join(sgf_properties.interpret_simpletext(v, presenter) for v in values)


def _point(rc: tuple[int, int], size: int) -> Point:
    """sgfmill's ``(row, col)`` (row 0 = bottom, already flipped from SGF's top-down letters)."""
    row, col = rc
    return (col, row)


def _rc(p: Point, size: int) -> tuple[int, int]:
    col, row = p
    return (row, col)


def _number(node, prop: str, presenter) -> float | None:
    t = _text(node, prop, presenter)
    if t is None or not t.strip():
        return None
    try:
        return float(t.strip())
    except ValueError:
        raise SgfError(f"{prop}[{t}]: not a number") from None


#: Handicap stones a record may declare (``HA``): the fixed placements go up to 9 (the gateway's
#: limit too, :class:`contracts.messages.GoSettings`).
MAX_HANDICAP = 9


def _check_setup(size: int, black: tuple, white: tuple) -> None:
    """The root setup must be a position: no point set up twice, every group with a liberty
    (Chinese 1988 art. 3-4: a group without liberties is not on the board). Raises SgfError."""
    from shared.rules import go

    both = sorted(set(black) & set(white))
    if both:
        raise SgfError(f"root AB/AW: {go.to_gtp(both[0], size)} is set up as both a black and a "
                       "white stone")
    try:
        go.Board(size, setup_black=black, setup_white=white)
    except go.GoError as e:
        raise SgfError(f"root AB/AW: {e}") from None


def read_sgf(data: bytes) -> GoRecord:
    """Read one SGF FF[4] Go game (``GM[1]``) from bytes: root properties, setup stones and the
    main line (variations ignored, noted). Raises :class:`SgfError` for a file that is not SGF,
    holds no game or several game trees (a collection: which game is meant is ambiguous, so it
    is refused rather than the first one read), is not Go, has a bad ``SZ``/``KM``,
    an ``HA`` above :data:`MAX_HANDICAP` or not matching the ``AB`` stones placed, a setup that
    is no position (a point set up twice, stones without liberties), a node with both a ``B``
    and a ``W`` move (the node named), or a move or setup point off the board (the ply named).
    An unknown ``RU`` or an ``RE`` outside FF[4] is no error: a warning (:attr:`GoRecord.warnings`),
    the game read as the module docstring says."""
    game = _one_game(data)
    root, pres = game.get_root(), game.presenter
    notes: list[str] = []
    warnings: list[str] = []
    props = {p: (_text(root, p, pres) or "") for p in root.properties()}
    size = _board_size(game, props)
    rules, note = _lenient(normalise_rules, props.get("RU"), lambda _: ("chinese", None), warnings,
                           "the moves are played under chinese rules (the platform default; "
                           "--rules chooses others)")
    if note:
        notes.append(note)
    komi = _komi(root, props, pres, notes)
    handicap = _handicap(props)
    setup_black, setup_white = _setup(root, size, handicap)
    moves, times, tb, tw = _main_line(game, size, pres)
    if any(len(n) > 1 for n in game.get_main_sequence()):
        notes.append("variations ignored: the main line is read")
    result = None
    if "RE" in props:
        result = _lenient(parse_result, props["RE"], _unreadable_result, warnings,
                          "kept as written, the moves replay")
    info = {p: props[p] for p in INFO_PROPS if props.get(p, "").strip()}
    return GoRecord(size=size, rules=rules, komi=komi, handicap=handicap,
                    setup_black=setup_black, setup_white=setup_white, moves=moves, times=times,
                    result=result, territory_black=frozenset(tb), territory_white=frozenset(tw),
                    time=_time_settings(root, props, pres, notes), info=info,
                    rules_raw=props.get("RU"), notes=notes, warnings=warnings, properties=props)


def _one_game(data: bytes) -> sgf.Sgf_game:
    """The one game tree of ``data``, if it is Go (``GM[1]``, the default); SgfError for bytes
    that are no SGF, a collection of several games, or another game."""
    if not isinstance(data, (bytes, bytearray)):
        raise SgfError("read_sgf takes the file's bytes")
    try:
        game = sgf.Sgf_game.from_bytes(bytes(data))
        trees = len(sgf_grammar.parse_sgf_collection(bytes(data)))
    except ValueError as e:
        raise SgfError(f"not a readable SGF game: {e}") from None
    if trees > 1:  # which game is meant is ambiguous: refused rather than guessed
        raise SgfError(f"the file holds {trees} game trees (a collection); give one game per "
                       "file")
    gm = (_text(game.get_root(), "GM", game.presenter) or "1").strip() or "1"
    if gm != "1":
        raise SgfError(f"GM[{gm}]: not a Go record (Go is GM[1])")
    return game


def _board_size(game: sgf.Sgf_game, props: dict[str, str]) -> int:
    """``SZ``: a square board of 2 to 25 lines (FF[4] allows 1-52 and rectangles; not Go as we
    host it)."""
    size = game.get_size()
    if not 2 <= size <= 25:
        raise SgfError(f"SZ[{props.get('SZ')}]: board size {size} out of range 2..25")
    if ":" in props.get("SZ", ""):
        raise SgfError(f"SZ[{props['SZ']}]: rectangular boards are not Go as we host it")
    return size


def _komi(root, props: dict[str, str], pres, notes: list[str]) -> float | None:
    """``KM`` in points, or YuanYu's root ``KO``; a multiple of 25 of 100 or more is read as
    stones x100 (the Chinese 3 3/4 stones = ``KM[375]``), 2 points a stone (noted)."""
    komi = _number(root, "KM", pres)
    if komi is None and props.get("KO", "").strip():
        komi = _number(root, "KO", pres)
        notes.append(f"komi from the non-standard root KO[{props['KO']}] (YuanYu), no KM")
    if komi is not None and abs(komi) >= 100 and komi % 25 == 0:
        stones = komi / 100
        notes.append(f"KM[{props['KM']}] read as {stones:g} stones x100 = {2 * stones:g} points")
        komi = 2 * stones
    return komi


def _handicap(props: dict[str, str]) -> int:
    """``HA``: 0, or 2 to :data:`MAX_HANDICAP` stones."""
    if not props.get("HA", "").strip():
        return 0
    try:
        handicap = int(float(props["HA"]))
    except ValueError:
        raise SgfError(f"HA[{props['HA']}]: not a number of stones") from None
    if handicap < 0 or handicap == 1 or handicap > MAX_HANDICAP:
        raise SgfError(f"HA[{props['HA']}]: not a number of handicap stones (0, or 2 to "
                       f"{MAX_HANDICAP})")
    return handicap


def _setup(root, size: int, handicap: int) -> tuple[tuple[Point, ...], tuple[Point, ...]]:
    """The root's ``AB`` / ``AW`` stones, sorted; a handicap is exactly its black stones and no
    white ones, and the setup must be a position (:func:`_check_setup`)."""
    try:
        ab, aw, _ = root.get_setup_stones()
    except ValueError as e:
        raise SgfError(f"root AB/AW/AE: bad point ({e or 'off the board'})") from None
    black = tuple(sorted(_point(p, size) for p in ab))
    white = tuple(sorted(_point(p, size) for p in aw))
    if handicap and (len(black) != handicap or white):
        raise SgfError(f"HA[{handicap}] with {len(black)} AB and {len(white)} AW "
                       f"setup stones: a handicap is {handicap} black stones placed (AB) and no "
                       "white ones")
    _check_setup(size, black, white)
    return black, white


def _main_line(game: sgf.Sgf_game, size: int, pres):
    """The main line's moves ``[(colour, point or None for a pass)]``, the time left after each
    (ply -> (``BL``/``WL`` seconds, ``OB``/``OW`` moves or None)) and the last ``TB``/``TW``
    marks. One move per node and no setup after the first move (FF[4])."""
    moves: list[tuple[str, Point | None]] = []
    times: dict[int, tuple[float, int | None]] = {}
    tb: set[Point] = set()
    tw: set[Point] = set()
    for i, node in enumerate(game.get_main_sequence()):
        if i > 0:
            if node.has_property("AB") or node.has_property("AW") or node.has_property("AE"):
                raise SgfError(f"node {i}: setup stones (AB/AW/AE) after the first move are not "
                               "a game record we can replay")
            if node.has_property("B") and node.has_property("W"):
                raise SgfError(f"node {i}: holds both a black and a white move (B and W); one "
                               "move per node (FF[4])")
            try:
                colour, rc = node.get_move()
            except ValueError:
                bad = _text(node, "B", pres) if node.has_property("B") else _text(node, "W", pres)
                raise SgfError(f"ply {len(moves) + 1}: move [{bad}] is off the {size}x{size} "
                               "board") from None
            if colour is not None:
                moves.append((_COLOUR[colour], None if rc is None else _point(rc, size)))
                left = _number(node, "BL" if colour == "b" else "WL", pres)
                if left is not None:
                    per = _number(node, "OB" if colour == "b" else "OW", pres)
                    times[len(moves)] = (left, None if per is None else int(per))
        if node.has_property("TB") or node.has_property("TW"):
            try:
                tb = {_point(p, size) for p in (node.get("TB") if node.has_property("TB") else ())}
                tw = {_point(p, size) for p in (node.get("TW") if node.has_property("TW") else ())}
            except ValueError:
                raise SgfError(f"node {i}: TB/TW mark off the board") from None
    return moves, times, tb, tw


def _time_settings(root, props: dict[str, str], pres, notes: list[str]) -> TimeSettings:
    """``TM`` main time (s) and ``OT`` overtime, or YuanYu's ``LC``/``LT`` / ``TC``/``TT`` read
    as byo-yomi periods and seconds (noted)."""
    ot_raw = props.get("OT")
    overtime = parse_overtime(ot_raw) if ot_raw else None
    for periods, secs, src in (("LC", "LT", "YuanYu LC/LT"), ("TC", "TT", "YuanYu TC/TT")):
        if overtime is None and props.get(periods, "").strip() and props.get(secs, "").strip():
            try:
                overtime = Overtime("byo-yomi", float(props[secs]), periods=int(props[periods]))
            except ValueError:
                raise SgfError(f"{periods}[{props[periods]}]{secs}[{props[secs]}]: not byo-yomi "
                               "periods and seconds") from None
            notes.append(f"{src} read as byo-yomi: {overtime.periods}x{overtime.seconds:g} s")
    return TimeSettings(_number(root, "TM", pres), ot_raw, overtime)


# ------------------------------------------------------------------------------- writing
def _overtime_text(ot: Overtime) -> str:
    if ot.kind == "byo-yomi":
        return f"{ot.periods}x{ot.seconds:g} byo-yomi"
    if ot.kind == "canadian":
        return f"{ot.moves}/{ot.seconds:g} Canadian"
    return f"{ot.seconds:g} fischer"


def write_sgf(record: GoRecord) -> bytes:
    """The record as SGF FF[4] bytes (UTF-8): ``GM FF CA SZ RU KM HA AB AW RE TM OT`` and the
    info texts, the main line with ``BL``/``WL``/``OB``/``OW``, and ``TB``/``TW`` on the last
    node. Komi is written in points (quirks are not reproduced); ``RU`` uses :data:`RU_NAMES`.
    Raises :class:`SgfError` for an unknown rule set or a point off the board."""
    if record.rules not in RU_NAMES:
        raise SgfError(f"rules {record.rules!r}: expected one of {', '.join(RU_NAMES)}")
    size = record.size
    if not 2 <= size <= 25:
        raise SgfError(f"board size {size} out of range 2..25")

    def rc(p: Point) -> tuple[int, int]:
        if not (0 <= p[0] < size and 0 <= p[1] < size):
            raise SgfError(f"point {p} is off the {size}x{size} board")
        return _rc(p, size)

    game = sgf.Sgf_game(size, encoding="UTF-8")
    _write_root(game.get_root(), record, rc)
    node = _write_main_line(game, record, rc)
    if record.territory_black:
        node.set("TB", {rc(p) for p in record.territory_black})
    if record.territory_white:
        node.set("TW", {rc(p) for p in record.territory_white})
    return game.serialise()


def _write_root(root, record: GoRecord, rc) -> None:
    """The root properties: ``RU KM HA AB AW``, the info texts, ``RE TM OT``; ``rc`` turns a
    Point into sgfmill's (row, col), raising SgfError off the board."""
    root.set("RU", RU_NAMES[record.rules])
    if record.komi is not None:
        root.set("KM", record.komi)
    if record.handicap:
        root.set("HA", record.handicap)
    if record.setup_black or record.setup_white:
        root.set_setup_stones([rc(p) for p in record.setup_black], [rc(p) for p in record.setup_white])
    for k in INFO_PROPS:
        if k in record.info:
            root.set(k, record.info[k])
    if record.result is not None:
        root.set("RE", record.result.raw)
    if record.time.main_s is not None:
        root.set("TM", record.time.main_s)
    ot = record.time.overtime_raw or (_overtime_text(record.time.overtime) if record.time.overtime else None)
    if ot:
        root.set("OT", ot)


def _write_main_line(game, record: GoRecord, rc):
    """One node a move, with ``BL``/``WL`` (time left) and ``OB``/``OW`` (overtime moves left)
    where the record has them; returns the last node (the root for no moves)."""
    node = game.get_root()
    for ply, (colour, p) in enumerate(record.moves, start=1):
        node = game.extend_main_sequence()
        node.set_move(_SGF_COLOUR[colour], None if p is None else rc(p))
        if ply in record.times:
            left, per = record.times[ply]
            node.set("BL" if colour == BLACK else "WL", left)
            if per is not None:
                node.set("OB" if colour == BLACK else "OW", per)
    return node


# ------------------------------------------------------------------------------- playing
@dataclass
class RecordPlay:
    """The outcome of :func:`play_record`: ``board`` after the last legal move; ``accepted``
    moves played (implicit passes not counted); ``implicit_passes``: the plies (1-based, in the
    record's numbering) before which a pass was inserted because the same colour moved twice;
    ``first_rejected``: None or ``{"ply", "move" (GTP), "reason" (IllegalMove.reason),
    "article", "message"}``."""

    board: object
    accepted: int = 0
    implicit_passes: list[int] = field(default_factory=list)
    first_rejected: dict | None = None


def play_record(record: GoRecord, rules: str | None = None, *, implicit_passes: bool = True) -> RecordPlay:
    """Play ``record`` on a :class:`shared.rules.go.Board` under ``rules`` (default the record's):
    setup stones (``AB``/``AW``, handicap included), then the main line, stopping at the first
    move the rules refuse. With ``implicit_passes`` a move by the colour that just moved is read
    as the opponent having passed (records of the YuanYu app, e.g. the 2018 Tencent files, do
    not write passes); without, it is refused as "wrong-turn" (1988 art. 17.1).
    Raises :class:`shared.rules.go.GoError` for an impossible setup (e.g. stones without liberties)."""
    from shared.rules import go

    board = go.Board(record.size, rules or record.rules, setup_black=record.setup_black,
                     setup_white=record.setup_white, turn=record.first_turn())
    run = RecordPlay(board)
    for ply, (colour, p) in enumerate(record.moves, start=1):
        if implicit_passes and colour != board.turn:
            board.play(None)
            run.implicit_passes.append(ply)
        try:
            board.play(p, colour)
        except go.IllegalMove as e:
            run.first_rejected = {"ply": ply, "move": go.to_gtp(p, record.size), "reason": e.reason,
                                  "article": e.article, "message": str(e)}
            break
        run.accepted += 1
    return run


def dead_from_marks(record: GoRecord, stones: dict[Point, str]) -> set[Point]:
    """The stones of ``stones`` ({Point: colour}, e.g. ``Board.stones`` at the end) that the
    record's ``TB``/``TW`` marks declare dead: a stone on a point marked as the other colour's
    territory (CGoban and KGS mark a dead stone's point as the capturer's territory)."""
    return {p for p, c in stones.items()
            if (c == BLACK and p in record.territory_white) or (c == WHITE and p in record.territory_black)}
