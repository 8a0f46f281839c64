"""Input checks the pure cores share."""
from __future__ import annotations

from collections.abc import Iterable


def player_ids(players: Iterable[object], cls: type, error: type[Exception]) -> dict[str, object]:
    """Check that every item of ``players`` is a ``cls`` with a non-empty ``str`` ``id`` and that
    the ids are unique; returns ``{id: player}`` in input order. Raises ``error`` (the calling
    core's exception type) naming the first offending item."""
    by_id: dict[str, object] = {}
    for p in players:
        if not isinstance(p, cls):
            raise error(f"expected {cls.__name__}, got {type(p).__name__}")
        pid = p.id  # type: ignore[attr-defined]
        if not isinstance(pid, str) or not pid:
            raise error(f"player id must be a non-empty str, got {pid!r}")
        if pid in by_id:
            raise error(f"duplicate player id {pid!r}")
        by_id[pid] = p
    return by_id


def pairing_history(p: object, colours: tuple[str, ...], error: type[Exception]) -> None:
    """Check one pairing input's history: ``p.score`` a number >= 0 (not a bool), each letter
    of ``p.colours`` one of ``colours`` (the system's letters, e.g. ``("w", "b", "-")`` for
    chess, ``("r", "b", "-")`` for xiangqi; ``-`` a round not played), and ``p.id`` not among
    ``p.opponents``. Raises ``error`` (the calling core's exception type) naming the player."""
    pid, score = p.id, p.score  # type: ignore[attr-defined]
    if isinstance(score, bool) or not isinstance(score, (int, float)) or score < 0:
        raise error(f"score of {pid!r} must be a number >= 0, got {score!r}")
    bad = [c for c in p.colours if c not in colours]  # type: ignore[attr-defined]
    if bad:
        allowed = ", ".join(repr(c) for c in colours[:-1]) + f" or {colours[-1]!r}"
        raise error(f"colours of {pid!r} must be {allowed}, got {bad[0]!r}")
    if pid in p.opponents:  # type: ignore[attr-defined]
        raise error(f"player {pid!r} lists himself as an opponent")
