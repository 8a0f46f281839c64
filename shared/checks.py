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
