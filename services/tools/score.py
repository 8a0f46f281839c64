"""``arbiter score``: count a finished Go record (SGF) under any of the platform's Go rulesets.

The record is read with :func:`shared.rules.sgf.read_sgf`, played on the engine
(:func:`shared.rules.sgf.play_record`) and its final board scored by
:func:`shared.rules.go_scoring.score` with the dead stones of :func:`resolve_dead`: given
(``--dead D4,Q16``), none (``--dead none``), or, by default, those the record's territory marks
(``TB``/``TW``) imply; a record without marks (or ``--dead auto``) is counted with the
Monte-Carlo estimate of :func:`shared.rules.go_ownership.estimate_dead_by_playouts` (200 seeded
random games: deterministic, not a rule); under Tromp-Taylor rules none, by the rules (rule 9:
every stone on the board counts). The JSON's ``dead_source`` says which: "given", "none",
"marks", "estimate" or "rules". ``arbiter adjudicate --game go`` counts with the same sources
(:func:`count_board`). The rules of the count are the ones asked for, which may differ from the
record's ``RU`` (the moves are then replayed under them too).
"""
from __future__ import annotations

from pathlib import Path

from shared.rules.sgf import GoRecord, SgfError, dead_from_marks, play_record, read_sgf
from shared.errors import RulesError


class ScoreError(RulesError):
    """The record cannot be counted: unreadable, a move the rules refuse, a bad dead-stone list."""


def parse_points(text: str, size: int) -> list:
    """``"D4,Q16 dd"`` -> Points (GTP or SGF coordinates, comma or space separated). Raises
    :class:`ScoreError` naming a bad entry or a pass."""
    from shared.rules import go

    pts = []
    for item in text.replace(",", " ").split():
        try:
            p = go.parse_point(item, size)
        except go.GoError as e:
            raise ScoreError(f"dead stone {item!r}: {e}") from None
        if p is None:
            raise ScoreError(f"dead stone {item!r}: a pass is not a point")
        pts.append(p)
    return pts


def load(path: str | Path) -> GoRecord:
    """Read an SGF file; :class:`ScoreError` for an unreadable file or bad SGF (named)."""
    try:
        return read_sgf(Path(path).read_bytes())
    except OSError as e:
        raise ScoreError(f"cannot read {path}: {e.strerror}") from None
    except SgfError as e:
        raise ScoreError(f"{path}: {e}") from None


def resolve_dead(record: GoRecord, board, rules: str, dead: list | str | None = None) -> tuple[list, str, dict | None]:
    """The dead stones to count ``board`` (the record's final board) with under ``rules``:
    ``(points, source, estimate)``. ``dead``: Points (source "given"), "none", "auto" (the
    Monte-Carlo estimate, source "estimate", ``estimate`` its settings), or None: the stones the
    record's ``TB``/``TW`` marks imply ("marks", none when no stone stands on the other
    colour's marked territory), else (no marks) the estimate. Under rules that take no
    dead stones off (Tromp-Taylor rule 9) none, source "rules". Raises :class:`ScoreError` for
    another word, or dead stones given under such rules."""
    from shared.rules import go

    if isinstance(dead, str) and dead not in ("auto", "none"):
        raise ScoreError(f"dead stones {dead!r}: points, 'auto' or 'none'")
    if not go.spec(rules).dead_removed:
        if dead and not isinstance(dead, str):
            raise ScoreError(f"{rules} rules take no dead stones off (Tromp-Taylor rule 9: every "
                             "stone on the board counts): --dead is not for them")
        return [], "rules", None
    if dead == "none":
        return [], "none", None
    if dead is None and (record.territory_black or record.territory_white):
        return sorted(dead_from_marks(record, board.stones)), "marks", None
    if dead is None or dead == "auto":
        from shared.rules import go_ownership as mc

        found = sorted(mc.estimate_dead_by_playouts(board, mc.DEFAULT_PLAYOUTS, mc.DEFAULT_SEED).dead)
        return found, "estimate", {"method": "playouts", "playouts": mc.DEFAULT_PLAYOUTS,
                                   "seed": mc.DEFAULT_SEED}
    return list(dead), "given", None


def count_board(record: GoRecord, board, rules: str, komi: float | None = None,
                dead: list | str | None = None) -> dict:
    """Count ``board`` (``record`` played under ``rules``) with the dead stones of
    :func:`resolve_dead` and ``komi`` points (default the record's, else the rules' default,
    :func:`shared.rules.go.default_komi`; when neither the caller nor the record gives one and that
    default exceeds the board's points, e.g. 7.5 on a 2x2 board, :class:`ScoreError` "no komi
    given ...: pass --komi": we do not silently count with 0, which could change the result).
    Handicap compensation is the rules' (:func:`shared.rules.go_scoring.handicap_bonus`).

    Returns ``{"black", "white" (points, komi included), "result" ("B+3.5"/"W+0.5"/"Draw"),
    "margin", "rule", "rules", "komi", "handicap", "dead": [GTP...], "dead_source", "estimate":
    null | {"method": "playouts", "playouts", "seed"}, "detail"}``. Raises :class:`ScoreError`
    for a bad dead-stone list or komi."""
    from shared.rules import go, go_scoring

    dead, source, estimate = resolve_dead(record, board, rules, dead)
    komi = record.komi if komi is None else komi
    if komi is None:  # the ruleset's default: say so when it cannot fit
        default = go.default_komi(rules, record.handicap)
        try:
            go.check_komi(default, record.size, default=True)
        except go.GoError:
            n = record.size
            raise ScoreError(f"no komi given (no --komi, no KM[] in the record); the {rules} default "
                             f"{default:g} does not fit a {n}x{n} board of {n * n} points: pass "
                             f"--komi") from None
    try:
        s = go_scoring.score(board, rules, komi, dead, handicap=record.handicap)
    except go.GoError as e:
        raise ScoreError(str(e)) from None
    return {"black": s.black, "white": s.white, "result": s.result, "margin": s.margin,
            "rule": s.rule, "rules": rules, "komi": s.detail["komi"], "handicap": record.handicap,
            "dead": [go.to_gtp(p, record.size) for p in sorted(dead)], "dead_source": source,
            "estimate": estimate, "detail": s.detail}


def score_record(record: GoRecord, rules: str | None = None, komi: float | None = None,
                 dead: list | str | None = None) -> dict:
    """Score ``record``'s final board (:func:`count_board`). ``rules``: one of
    :data:`shared.rules.go.RULESETS` (default the record's; it overrides ``RU``), under which the
    moves are replayed too. Returns :func:`count_board`'s row plus ``"recorded_result"``,
    ``"notes"`` and ``"warnings"`` (the record's: an unknown ``RU``, an ``RE`` outside FF[4]).
    Raises :class:`ScoreError` for unknown rules, a recorded move the rules refuse, and as
    :func:`count_board`."""
    from shared.rules import go

    rules = rules or record.rules
    if rules not in go.RULESETS:
        raise ScoreError(f"unknown rules {rules!r}: {', '.join(go.RULESETS)}")
    try:
        run = play_record(record, rules)
    except go.GoError as e:  # a setup that is no position (read_sgf refuses these from files)
        raise ScoreError(f"the record's setup cannot be played: {e}") from None
    if run.first_rejected:
        fr = run.first_rejected
        raise ScoreError(f"the record cannot be played under {rules} rules: ply {fr['ply']} "
                         f"{fr['move']}: {fr['message']}")
    row = count_board(record, run.board, rules, komi, dead)
    return {**row, "recorded_result": record.result.raw if record.result else None,
            "notes": list(record.notes), "warnings": list(record.warnings)}


def dead_words(dead: str | None, size: int) -> list | str | None:
    """``--dead`` text as :func:`resolve_dead` takes it: None, "auto", "none", or Points
    (:func:`parse_points`)."""
    word = dead.strip().lower() if dead is not None else None
    return dead if dead is None else word if word in ("auto", "none") else parse_points(dead, size)


def score_file(path: str | Path, rules: str | None = None, komi: float | None = None,
               dead: str | None = None) -> dict:
    """:func:`score_record` on an SGF file, ``dead`` as text (``"D4,Q16"``, ``"auto"`` or
    ``"none"``; None: marks, else the estimate); adds ``"file"``."""
    record = load(path)
    row = score_record(record, rules, komi, dead_words(dead, record.size))
    return {"file": str(path), **row}
