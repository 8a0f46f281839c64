"""``arbiter score``: count a finished Go record (SGF) under Chinese, Japanese or Ing rules.

The record is read with :func:`shared.rules.sgf.read_sgf`, played on the engine
(:func:`shared.rules.sgf.play_record`) and its final board scored by
:func:`shared.rules.go_scoring.score` with the dead stones given (``--dead D4,Q16``), none
(``--dead none``), or, by default, those the record's territory marks (``TB``/``TW``) imply; a
record without marks (or ``--dead auto``) is counted with the Monte-Carlo estimate of
:func:`shared.rules.go_ownership.estimate_dead_by_playouts` (200 seeded random games:
deterministic, not a rule -- the JSON's ``dead_source`` says which: "given", "none", "marks" or
"estimate"). The rules of the count are the ones asked for, which may differ from the record's
``RU`` (the moves are then replayed under them too).
"""
from __future__ import annotations

from pathlib import Path

from shared.rules.sgf import GoRecord, SgfError, dead_from_marks, play_record, read_sgf, scoring_terms


class ScoreError(ValueError):
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


def score_record(record: GoRecord, rules: str | None = None, komi: float | None = None,
                 dead: list | str | None = None) -> dict:
    """Score ``record``'s final board. ``rules``: "chinese"/"japanese"/"ing" (default the
    record's); ``komi`` in points (default the record's, else the rules' default,
    :data:`shared.rules.go.DEFAULT_KOMI`, 0 with 2+ handicap stones; when neither the caller nor
    the record gives one and that default exceeds the board's points, e.g. 7.5 on a 2x2 board,
    :class:`ScoreError` "no komi given ...: pass --komi": we do not silently count with 0,
    which could change the result);
    ``dead``: Points; "none" (no dead stones); "auto" (the Monte-Carlo estimate); or None: the
    stones the ``TB``/``TW`` marks imply, else (no marks) the estimate.

    Returns ``{"black", "white" (points, komi included), "result" ("B+3.5"/"W+0.5"/"Draw"),
    "margin", "rule", "rules", "komi", "handicap", "dead": [GTP...], "dead_source":
    "given"|"none"|"marks"|"estimate", "estimate": null | {"method": "playouts", "playouts",
    "seed"}, "recorded_result", "notes", "detail"}``. Raises :class:`ScoreError` when a recorded
    move is refused, a dead point holds no stone or ``dead`` is another word."""
    from shared.rules import go, go_scoring

    rules = rules or record.rules
    if rules not in go.RULESETS:
        raise ScoreError(f"unknown rules {rules!r}: chinese, japanese or ing")
    try:
        run = play_record(record, rules)
    except go.GoError as e:  # a setup that is no position (read_sgf refuses these from files)
        raise ScoreError(f"the record's setup cannot be played: {e}") from None
    if run.first_rejected:
        fr = run.first_rejected
        raise ScoreError(f"the record cannot be played under {rules} rules: ply {fr['ply']} "
                         f"{fr['move']}: {fr['message']}")
    board = run.board
    estimate = None
    if isinstance(dead, str) and dead not in ("auto", "none"):
        raise ScoreError(f"dead stones {dead!r}: points, 'auto' or 'none'")
    if dead == "none":
        dead, source = [], "none"
    elif dead is None and (marked := sorted(dead_from_marks(record, board.stones))):
        dead, source = marked, "marks"
    elif dead is None or dead == "auto":
        from shared.rules import go_ownership as mc

        dead = sorted(mc.estimate_dead_by_playouts(board, mc.DEFAULT_PLAYOUTS, mc.DEFAULT_SEED).dead)
        source = "estimate"
        estimate = {"method": "playouts", "playouts": mc.DEFAULT_PLAYOUTS, "seed": mc.DEFAULT_SEED}
    else:
        source = "given"
    rec_komi, handicap, note = scoring_terms(record, rules)
    if komi is not None:  # the komi asked for replaces the record's (and any compensation in it)
        rec_komi, note = komi, None
    elif rec_komi is None and handicap < 2:  # the ruleset's default: say so when it cannot fit
        default = go.DEFAULT_KOMI[rules]
        try:
            go.check_komi(default, record.size, default=True)
        except go.GoError:
            n = record.size
            raise ScoreError(f"no komi given (no --komi, no KM[] in the record); the {rules} default "
                             f"{default:g} does not fit a {n}x{n} board of {n * n} points: pass "
                             f"--komi") from None
    try:
        s = go_scoring.score(board, rules, rec_komi, dead, handicap=handicap)
    except go.GoError as e:
        raise ScoreError(str(e)) from None
    return {"black": s.black, "white": s.white, "result": s.result, "margin": s.margin,
            "rule": s.rule, "rules": rules,
            "komi": s.detail["komi"], "handicap": record.handicap,
            "dead": [go.to_gtp(p, record.size) for p in sorted(dead)], "dead_source": source,
            "estimate": estimate, "recorded_result": record.result.raw if record.result else None,
            "notes": record.notes + ([note] if note else []), "detail": s.detail}


def score_file(path: str | Path, rules: str | None = None, komi: float | None = None,
               dead: str | None = None) -> dict:
    """:func:`score_record` on an SGF file, ``dead`` as text (``"D4,Q16"``, ``"auto"`` or
    ``"none"``; None: marks, else the estimate); adds ``"file"``."""
    record = load(path)
    word = dead.strip().lower() if dead is not None else None
    pts = dead if dead is None else word if word in ("auto", "none") else parse_points(dead, record.size)
    row = score_record(record, rules, komi, pts)
    return {"file": str(path), **row}
