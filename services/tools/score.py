"""``arbiter score``: count a finished Go record (SGF) under Chinese, Japanese or Ing rules.

The record is read with :func:`shared.rules.sgf.read_sgf`, played on the engine
(:func:`shared.rules.sgf.play_record`) and its final board scored by
:func:`shared.rules.go_scoring.score` with the dead stones given (``--dead``) or, when none are
given, those the record's territory marks (``TB``/``TW``) imply. The rules of the count are the
ones asked for, which may differ from the record's ``RU`` (the moves are then replayed under
them too).
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
                 dead: list | None = None) -> dict:
    """Score ``record``'s final board. ``rules``: "chinese"/"japanese"/"ing" (default the
    record's); ``komi`` in points (default the record's, else the rules' default);
    ``dead``: Points, or None to take the stones the ``TB``/``TW`` marks imply.

    Returns ``{"black", "white" (points, komi included), "result" ("B+3.5"/"W+0.5"/"Draw"),
    "margin", "rule", "rules", "komi", "handicap", "dead": [GTP...], "dead_source":
    "given"|"marks"|"none", "recorded_result", "notes", "detail"}``. Raises :class:`ScoreError` when a
    recorded move is refused or a dead point holds no stone."""
    from shared.rules import go, go_scoring

    rules = rules or record.rules
    if rules not in go.RULESETS:
        raise ScoreError(f"unknown rules {rules!r}: chinese, japanese or ing")
    run = play_record(record, rules)
    if run.first_rejected:
        fr = run.first_rejected
        raise ScoreError(f"the record cannot be played under {rules} rules: ply {fr['ply']} "
                         f"{fr['move']}: {fr['message']}")
    board = run.board
    if dead is None:
        dead = sorted(dead_from_marks(record, board.stones))
        source = "marks" if dead else "none"
    else:
        source = "given"
    rec_komi, handicap, note = scoring_terms(record, rules)
    if komi is not None:  # the komi asked for replaces the record's (and any compensation in it)
        rec_komi, note = komi, None
    try:
        s = go_scoring.score(board, rules, rec_komi, dead, handicap=handicap)
    except go.GoError as e:
        raise ScoreError(str(e)) from None
    return {"black": s.black, "white": s.white, "result": s.result, "margin": s.margin,
            "rule": s.rule, "rules": rules,
            "komi": s.detail["komi"], "handicap": record.handicap,
            "dead": [go.to_gtp(p, record.size) for p in sorted(dead)], "dead_source": source,
            "recorded_result": record.result.raw if record.result else None,
            "notes": record.notes + ([note] if note else []), "detail": s.detail}


def score_file(path: str | Path, rules: str | None = None, komi: float | None = None,
               dead: str | None = None) -> dict:
    """:func:`score_record` on an SGF file, ``dead`` as text (``"D4,Q16"``); adds ``"file"``."""
    record = load(path)
    pts = None if dead is None else parse_points(dead, record.size)
    row = score_record(record, rules, komi, pts)
    return {"file": str(path), **row}
