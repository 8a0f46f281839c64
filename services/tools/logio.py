"""Reading an aggregate's messages from a log (``export-log``, ``audit --bus``).

:func:`select` and :func:`export_messages` keep the log as it is (``audit`` reports a repeated
message as a difference); a reader that folds the messages into state (``export trf``) first
passes them through :func:`applied_once`, the consumers' rule of the README's "nothing
doubled" invariant.
"""
from __future__ import annotations

import time
from pathlib import Path

from pydantic import ValidationError

from contracts.envelope import Envelope, key_of
from contracts.messages import LOG_TOPICS, GameStarted, RoundPaired, parse_message
from shared.eventlog.base import applied_once, open_log  # applied_once: read here by its users


def read_ndjson(path: str | Path) -> list[Envelope]:
    """The messages of an ``export-log`` file (one JSON envelope a line, UTF-8), in file order.
    Raises ``ValueError`` "line N of FILE: not a valid Arbiter message: <reason>" for a line
    that does not parse (e.g. a truncated last line), or naming the file, line and byte of the
    first one that is not UTF-8 (a binary file); ``OSError`` when the file is unreadable. A
    UTF-8 byte order mark at the start (an editor's) is skipped. Lines end at ``\n`` only
    (NDJSON): a message's JSON holds U+2028, U+2029 or NEL unescaped where a recorded name has
    one, which ``str.splitlines`` would cut."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise ValueError(f"line {line} of {path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
                         f"{e.start}): export-log writes UTF-8 NDJSON, one message a line") from None
    out = []
    for i, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append(parse_message(line))
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(x) for x in first.get("loc", ())[1:])
            reason = first["msg"] + (f" (at {where})" if where else "")
            raise ValueError(f"line {i} of {path}: not a valid Arbiter message: {reason}") from None
        except ValueError as e:
            raise ValueError(f"line {i} of {path}: not a valid Arbiter message: "
                             f"{str(e).splitlines()[0]}") from None
    return out


def select(messages: list[Envelope], aggregate: str) -> list[Envelope]:
    """Messages of ``aggregate`` (``game-<id>`` or ``tournament-<id>``), in log order. A
    tournament includes every message of the games it paired and of the Go games replaying them
    (GameStarted ``replay_of``, 1988 art. 20.3: a replay's result is its board's). Raises
    ``ValueError`` for an id of another form."""
    if not (aggregate.startswith("game-") or aggregate.startswith("tournament-")):
        raise ValueError(f"--stream must be game-<id> or tournament-<id>, not {aggregate!r}")
    keys = {aggregate}
    if aggregate.startswith("tournament-"):
        for m in messages:
            if m.aggregate == aggregate and isinstance(m.payload, RoundPaired):
                keys |= {f"game-{b.game_id}" for b in m.payload.boards}
        for m in messages:  # log order: a replay starts after the game it replays
            if isinstance(m.payload, GameStarted) and f"game-{m.payload.replay_of}" in keys:
                keys.add(f"game-{m.payload.game_id}")
    return [m for m in messages if m.aggregate in keys]


async def audit_input(bus: str, aggregate: str | None = None) -> tuple[list[Envelope], dict[str, set]]:
    """What ``arbiter audit --bus`` re-derives: the messages of ``aggregate`` (None: the whole
    log) as :func:`export_messages` gives them, and per process (``game``, ``tournament``) the
    event ids of its inputs that it had not decided when the log was read. A live log is being
    written while it is read: a move in flight is in the log before its decision is, so the
    audit leaves those inputs, and the decisions they caused, out (:func:`services.tools.
    audit.rederive`). Each process's decided offsets (:func:`shared.kafkahost.
    decided_everywhere`) are read first, then the log: the decisions of every input before
    them were committed with them, so they are in what is read. Another bus: nothing pending."""
    from shared.eventlog.kafka import KafkaLog
    from shared.kafkahost import decided_everywhere
    from services.system import SERVICES, make_processor

    log = open_log(bus)
    if not isinstance(log, KafkaLog):
        await log.stop()
        return await export_messages(bus, aggregate), {}
    try:
        inputs = {name: make_processor(name).inputs for name in SERVICES}
        read_at = time.time_ns() // 1_000_000
        decided = {name: await decided_everywhere(log.bootstrap, name, inputs[name]) for name in SERVICES}
        placed = await log.read_placed(LOG_TOPICS, key=key_of(aggregate) if aggregate else None,
                                       until=await log.ends(LOG_TOPICS))
    finally:
        await log.stop()
    messages = [m for *_, m in placed]
    pending = {name: {m.event_id for pos, offset, _, m in placed
                      if pos[0] in inputs[name] and offset >= decided[name].get(pos, 0)}
               for name in SERVICES}
    # the topics' ends are taken in one request, not at one instant: a decision appended in
    # between may be read without its input; written after the decided offsets were read, it
    # is as undecided as that input (an older one without its cause is compared: a difference)
    read = {m.event_id for m in messages}
    for pos, _, ts, m in placed:
        if m.actor.kind == "service" and m.causation_id is not None and m.causation_id not in read \
                and ts >= read_at - 1_000:
            for name in SERVICES:
                if pos[0] not in inputs[name]:
                    pending[name].add(m.event_id)
    return (select(messages, aggregate) if aggregate else messages), pending


async def export_messages(bus: str, aggregate: str | None = None) -> list[Envelope]:
    """Every message of ``aggregate`` on ``bus`` (see :func:`select`), read from the one
    partition its key maps to; without ``aggregate``, every message of the log, each partition
    in offset order, partitions merged by record time (:meth:`EventLog.read_many`)."""
    log = open_log(bus)
    try:
        if aggregate is None:
            return await log.read_many(LOG_TOPICS)
        return select(await log.read_key(LOG_TOPICS, key_of(aggregate)), aggregate)
    finally:
        await log.stop()
