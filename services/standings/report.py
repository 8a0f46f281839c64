"""Standings of a finished event read from a file: a FIDE TRF (TRF-16 ``001`` lines) or a PGN of
results (headers only is enough).

:func:`standings_from_file` returns ``{"players": [{"name", "id", "score", "rank",
"tiebreaks": {code: value}}]}`` in ranking order, tie-break codes as in
:mod:`services.standings.core` (FIDE C.07 2023 codes).  For a TRF the recorded final rank (rank
column of the ``001`` line; ``None`` (JSON null) when the column is blank, 0 when the file
writes 0 for an unranked player) is added as ``"recorded_rank"``.

``tiebreaks`` is a list of codes (or a comma-separated string) or the name of a ruleset of
:data:`services.standings.core.RULESETS`, e.g. ``"forfeit-draw-2005"`` (BH, SB, WIN, SNO with
forfeits counted as draws and withdrawn players unranked: reproduces the recorded ranks of the
Karl-Mala-Gedenkturnier 2005 TRF).  A ruleset fixes the unplayed-game rule; giving a different
``unplayed`` with it is an error.

TRF files are read with the pairing service's reader (``shared.domain.trf.read_trf``);
:func:`read_trf_results` is a minimal private reader of the ``001`` lines kept as a fallback
and as a cross-check in the tests.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from services.standings import core as sc

__all__ = ["DEFAULT_TIEBREAKS", "TrfEvent", "read_trf_results", "standings_from_file", "standings_of",
           "withdrawn"]

DEFAULT_TIEBREAKS = ("BH-C1", "BH", "SB")

#: The result code of a played game from White's TRF letter (rated ``1 = 0``, unrated ``W D L``).
_PLAYED = {"1": "1-0", "0": "0-1", "=": "1/2-1/2", "W": "1-0", "L": "0-1", "D": "1/2-1/2"}


@dataclass
class TrfEvent:
    """What standings need from a TRF: players (id = start number), games, byes, number of
    rounds, the recorded points and final ranks per player id (``None``: rank column blank)."""

    players: list[sc.Player] = field(default_factory=list)
    games: list[sc.GameResult] = field(default_factory=list)
    byes: list[sc.Bye] = field(default_factory=list)
    rounds: int = 0
    points: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int | None] = field(default_factory=dict)


def _num(text: str) -> int | None:
    """The ASCII number in ``text``, else None (``str.isdigit`` alone accepts ``²``)."""
    text = text.strip()
    return int(text) if text.isascii() and text.isdigit() else None


def read_trf_results(path: str | Path) -> TrfEvent:
    """Read the ``001`` player lines (and ``XXR`` rounds) of a TRF-16 file.

    Round blocks (10 characters from column 92): opponent (4), colour ``w``/``b``/``-``,
    result.  Played: ``1 = 0`` and unrated ``W D L``; forfeits ``+ -`` against an opponent;
    without opponent: ``H`` half-point bye, ``F`` full-point bye, ``U`` pairing-allocated bye,
    ``+`` full point, ``Z`` or ``-`` or a blank block: zero (``-``/blank: absent).
    Raises :class:`ValueError` on a malformed line or an ``XXR`` above
    :data:`shared.domain.trf.MAX_ROUNDS`.
    """
    from shared.domain.trf import MAX_ROUNDS
    ev = TrfEvent()
    xxr = 0
    blocks: dict[str, list[tuple[int | None, str, str]]] = {}
    for lineno, line in enumerate(Path(path).read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if line.startswith("XXR"):
            xxr = _num(line[3:]) or 0
            if xxr > MAX_ROUNDS:
                raise ValueError(f"{path}:{lineno}: XXR {xxr}: more than {MAX_ROUNDS} rounds")
        if not line.startswith("001"):
            continue
        num = _num(line[4:8])
        if num is None:
            raise ValueError(f"{path}:{lineno}: no start number in 001 line")
        pid = str(num)
        ev.players.append(sc.Player(pid, line[14:47].strip(), _num(line[48:52]) or None, num))
        pts = line[80:84].strip()
        ev.points[pid] = float(pts) if pts else 0.0
        ev.ranks[pid] = _num(line[85:89])
        rb = []
        for k in range((max(len(line) - 91, 0) + 9) // 10):
            b = line[91 + 10 * k: 91 + 10 * k + 8].ljust(8)
            rb.append((_num(b[0:4]) or None, b[5].lower(), b[7]))
        blocks[pid] = rb
    return _from_blocks(ev, blocks, xxr, path)


def _from_blocks(ev: TrfEvent, blocks: dict, xxr: int, path) -> TrfEvent:
    """Fill ``ev``'s games and byes from round blocks ``{pid: [(opp, colour, result)]}``."""
    rounds = max([xxr] + [len(b) for b in blocks.values()])
    for pid, rb in blocks.items():
        for k, (opp, colour, res) in enumerate(rb, 1):
            if opp is not None and str(opp) in blocks:
                if colour == "b" or (colour != "w" and int(pid) > opp):
                    continue  # the game is taken from the white (or lower-numbered) side
                theirs = blocks[str(opp)][k - 1][2] if k - 1 < len(blocks[str(opp)]) else ""
                if res in _PLAYED:
                    result = _PLAYED[res]
                elif res == "+":
                    result = "+-"
                elif res == "-":
                    result = "--" if theirs == "-" else "-+"
                else:
                    raise ValueError(f"{path}: player {pid} round {k}: unknown result {res!r}")
                ev.games.append(sc.GameResult(k, pid, str(opp), result))
            elif res in ("H",):
                ev.byes.append(sc.Bye(k, pid, 0.5, voluntary=True))
            elif res in ("F", "U", "+", "1", "W"):
                ev.byes.append(sc.Bye(k, pid, 1.0))
            elif res == "Z":
                ev.byes.append(sc.Bye(k, pid, 0.0, voluntary=True))
            # "-", "0", blank: absent in that round (no entry: a voluntarily unplayed round)
    ev.rounds = rounds
    return ev


def _trf_reader(path: str | Path) -> TrfEvent:
    """The pairing service's TRF reader (``shared.domain.trf.read_trf``) when present, else
    :func:`read_trf_results`."""
    try:
        from shared.domain.trf import read_trf
    except ImportError:
        return read_trf_results(path)
    t = read_trf(path)
    ev = TrfEvent()
    blocks = {}
    for p in t.players:
        pid = str(p.number)
        ev.players.append(sc.Player(pid, p.name, p.rating or None, p.number))
        ev.points[pid] = p.points or 0.0
        ev.ranks[pid] = p.rank
        blocks[pid] = [(e.opponent, e.colour, e.result) if e is not None else (None, "-", " ")
                       for e in p.rounds]
    return _from_blocks(ev, blocks, t.rounds, path)


def _pgn_event(path: str | Path) -> TrfEvent:
    """Players and results from a PGN (headers only is enough); a player's id is the FIDE id
    of the White/BlackFideId tag when there is one, else the name. Raises ``ValueError`` for a
    game without a White or Black tag, or a file without games."""
    from shared.rules.pgnrecord import read_games

    ev = TrfEvent()
    seen: dict[str, sc.Player] = {}
    for g in read_games(path):
        t = g.tags
        ids = []
        for side in ("White", "Black"):
            name = t.get(side, "").strip()
            if not name or name == "?":
                raise ValueError(f"{path}: game {g.index + 1} has no {side} player")
            pid = t.get(f"{side}FideId", "").strip() or name
            elo = t.get(f"{side}Elo", "")
            seen.setdefault(pid, sc.Player(pid, name, int(elo) if elo.isdigit() else None))
            ids.append(pid)
        rnd = t.get("Round", "").split(".")[0]
        result = t.get("Result", "*")
        if result == "*":
            continue
        ev.games.append(sc.GameResult(int(rnd) if rnd.isdigit() else len(ev.games) + 1,
                                      ids[0], ids[1], result))
    if not seen:
        raise ValueError(f"{path}: no games")
    ev.players = list(seen.values())
    ev.rounds = max((g.round for g in ev.games), default=0)
    return ev


def withdrawn(ev: TrfEvent) -> set[str]:
    """Ids of the players with no game and no bye in the event's last round (withdrawn, or
    never started): the players a pairing program's TRF leaves unranked (rank 0)."""
    last = ev.rounds
    present = {g.white for g in ev.games if g.round == last} | {g.black for g in ev.games if g.round == last}
    present |= {b.player for b in ev.byes if b.round == last}
    return {p.id for p in ev.players if p.id not in present}


def standings_of(ev: TrfEvent, tiebreaks=DEFAULT_TIEBREAKS, **kwargs) -> dict:
    """Standings dict of an event (see the module docstring); ``tiebreaks``: codes or a
    ruleset name; ``kwargs`` go to :func:`services.standings.core.compute_standings`
    (``unplayed=None`` is the default rule).  Raises
    :class:`services.standings.core.StandingsError` for an unknown code or a ruleset given
    with a different ``unplayed`` rule."""
    if kwargs.get("unplayed", "") is None:
        del kwargs["unplayed"]
    if isinstance(tiebreaks, str) and tiebreaks in sc.RULESETS:
        rs = sc.RULESETS[tiebreaks]
        if kwargs.get("unplayed", rs.unplayed) != rs.unplayed:
            raise sc.StandingsError(f"ruleset {tiebreaks!r} counts unplayed games by {rs.unplayed!r}, "
                                    f"not {kwargs['unplayed']!r}; leave --unplayed out")
        kwargs["unplayed"] = rs.unplayed
        if rs.unranked_withdrawn:
            kwargs["unranked"] = withdrawn(ev)
        tiebreaks = rs.order
    elif isinstance(tiebreaks, str):
        tiebreaks = [c.strip() for c in tiebreaks.split(",") if c.strip()]
    st = sc.compute_standings(ev.players, ev.games, ev.byes, tuple(tiebreaks),
                              rounds=ev.rounds or None, **kwargs)
    out = []
    for r in st.rows:
        row = {"name": r.name, "id": r.id, "score": r.score, "rank": r.rank,
               "tiebreaks": dict(r.tiebreaks)}
        if r.id in ev.ranks:
            row["recorded_rank"] = ev.ranks[r.id]
        out.append(row)
    return {"players": out, "order": list(st.order)}


def standings_from_file(path: str | Path, tiebreaks=DEFAULT_TIEBREAKS, **kwargs) -> dict:
    """Standings of the TRF (``.trf``/``.txt`` with ``001`` lines) or PGN at ``path``."""
    path = Path(path)
    text_start = path.read_text(encoding="utf-8", errors="replace")[:4000]
    is_trf = path.suffix.lower() == ".trf" or any(l.startswith("001 ") for l in text_start.splitlines())
    ev = _trf_reader(path) if is_trf else _pgn_event(path)
    return standings_of(ev, tiebreaks, **kwargs)
