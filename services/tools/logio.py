"""Reading an aggregate's messages from a log (``export-log``, ``audit --bus``)."""
from __future__ import annotations

from contracts.envelope import Envelope
from contracts.messages import TOPICS, RoundPaired
from shared.eventlog.base import open_log


def select(messages: list[Envelope], aggregate: str) -> list[Envelope]:
    """Messages of ``aggregate`` (``game-<id>`` or ``tournament-<id>``), in log order. A
    tournament includes every message of the games it paired. Raises ``ValueError`` for an id
    of another form."""
    if not (aggregate.startswith("game-") or aggregate.startswith("tournament-")):
        raise ValueError(f"--stream must be game-<id> or tournament-<id>, not {aggregate!r}")
    keys = {aggregate}
    if aggregate.startswith("tournament-"):
        for m in messages:
            if m.aggregate == aggregate and isinstance(m.payload, RoundPaired):
                keys |= {f"game-{b.game_id}" for b in m.payload.boards}
    return [m for m in messages if m.aggregate in keys]


async def export_messages(bus: str, aggregate: str) -> list[Envelope]:
    """Every message of ``aggregate`` on ``bus`` (see :func:`select`)."""
    log = open_log(bus)
    try:
        return select(await log.read_many(TOPICS), aggregate)
    finally:
        await log.stop()
