"""``arbiter audit``: re-derive every decision of a log and report each difference.

The log of a game or a tournament holds the commands that came in (from the gateway: moves,
claims, rulings, with their receive times) and the decisions the services made. The audit
feeds the recorded commands, in log order, to fresh copies of all services on a memory log
(the same code, so the same pure decisions), replays the clock's timer at the instants where the
log shows a flag observed by a tick, and compares every re-derived event with the recorded one
by (stream, seq): type, event time, cause and payload. Event ids are deterministic, so an
untouched log re-derives byte for byte. It also checks that every stream's seq is gap-free and
that no event id occurs twice (DESIGN.md invariant 3).

A game created by a tournament's pairing (whose RoundPaired is not in a game's log) is seeded
with its recorded GameStarted.

The audit covers the aggregates (``game-<id>``, ``tournament-<id>``) whose messages are in the
log and nothing else: a decision re-derived for another aggregate (the replay game a Go game's
endless-cycle ruling starts, 1988 art. 20.3, has its own log: ``export-log --stream
game-<id>-replay1``) is outside the log audited and is not compared, so the audit of any
``export-log`` selection of an untouched log finds 0 differences.
"""
from __future__ import annotations

from dataclasses import dataclass

from contracts.envelope import Envelope
from contracts.messages import TOPICS, GameStarted
from shared.eventlog.memory import MemoryLog
from shared.system import System


@dataclass
class Difference:
    """One disagreement: the recorded event (or None), what differs, recorded vs re-derived."""

    stream: str
    seq: int
    type: str
    event_id: str | None
    what: str
    recorded: object
    rederived: object

    def __str__(self) -> str:
        return (f"{self.stream} seq {self.seq} {self.type} (event {self.event_id}): {self.what}: "
                f"recorded {self.recorded!r}, re-derived {self.rederived!r}")

    def as_dict(self) -> dict:
        return {"stream": self.stream, "seq": self.seq, "type": self.type,
                "event_id": self.event_id, "what": self.what,
                "recorded": _jsonable(self.recorded), "rederived": _jsonable(self.rederived)}


def _jsonable(v):
    return v if isinstance(v, (str, int, float, bool, type(None), list, dict)) else str(v)


def _is_command(m: Envelope) -> bool:
    return m.payload.KIND == "command"


async def audit(messages: list[Envelope]) -> list[Difference]:
    """Re-derive the decisions of ``messages`` (a log in append order); the differences, for
    the aggregates that have messages in ``messages`` (see the module doc)."""
    diffs = _integrity(messages)
    recorded = [m for m in messages if not _is_command(m)]
    commands = [m for m in messages if _is_command(m)]
    causes = {m.event_id for m in messages}
    log = MemoryLog()
    system = System(log, ticks=False)
    await log.start()
    try:
        for m in recorded:  # games whose creation is outside this log
            if isinstance(m.payload, GameStarted) and m.causation_id not in causes:
                await log.publish(m.payload.TOPIC, m)
        await log.idle()
        for cmd in commands:
            await log.publish(cmd.payload.TOPIC, cmd)
            await log.idle()
        scope = {m.aggregate for m in messages}
        rederived = [m for m in await log.read_many(TOPICS)
                     if not _is_command(m) and m.aggregate in scope]
    finally:
        await log.stop()
    return diffs + compare(recorded, rederived)


def _integrity(messages: list[Envelope]) -> list[Difference]:
    diffs = []
    seen: dict = {}
    last: dict[str, int] = {}
    for m in messages:
        if m.event_id in seen:
            diffs.append(Difference(m.stream, m.seq, m.type, str(m.event_id), "duplicate event id",
                                    f"{seen[m.event_id]}", f"{m.stream}#{m.seq}"))
        seen[m.event_id] = f"{m.stream}#{m.seq}"
        expected = last.get(m.stream, 0) + 1
        if m.seq != expected:
            diffs.append(Difference(m.stream, m.seq, m.type, str(m.event_id), "seq gap or repeat",
                                    m.seq, expected))
        last[m.stream] = m.seq
    return diffs


def compare(recorded: list[Envelope], rederived: list[Envelope]) -> list[Difference]:
    """Field-by-field comparison of two event lists matched by (stream, seq)."""
    rec = {(m.stream, m.seq): m for m in recorded}
    red = {(m.stream, m.seq): m for m in rederived}
    diffs = []
    for key in sorted(set(rec) | set(red), key=lambda k: (k[0], k[1])):
        a, b = rec.get(key), red.get(key)
        if a is None:
            diffs.append(Difference(key[0], key[1], b.type, None, "missing from the log",
                                    None, b.model_dump(mode="json")["payload"]))
            continue
        if b is None:
            diffs.append(Difference(key[0], key[1], a.type, str(a.event_id),
                                    "not re-derived (no rule produces it)", a.model_dump(mode="json")["payload"], None))
            continue
        if a.type != b.type:
            diffs.append(Difference(key[0], key[1], a.type, str(a.event_id), "type", a.type, b.type))
            continue
        da, db = a.model_dump(mode="json"), b.model_dump(mode="json")
        for field in ("occurred_at", "causation_id", "event_id"):
            if da[field] != db[field]:
                diffs.append(Difference(key[0], key[1], a.type, str(a.event_id), field, da[field], db[field]))
        for k in sorted(set(da["payload"]) | set(db["payload"])):
            if da["payload"].get(k) != db["payload"].get(k):
                diffs.append(Difference(key[0], key[1], a.type, str(a.event_id), f"payload.{k}",
                                        da["payload"].get(k), db["payload"].get(k)))
    return diffs
