"""``arbiter audit``: re-derive every decision of a log and report each difference.

The log of a game or a tournament holds the inputs that came in (the gateway's commands with
their receive times, the timer's CheckClock commands) and the decisions the processes made
(:mod:`shared.system`). Every decision is a function of one process's ordered input, so the
audit hands each process (a fresh one, today's code) exactly the inputs the log recorded for
it, in log order, and compares what it decides with what the log holds by (stream, seq):
type, event time, cause and payload. Event ids are deterministic, so an untouched log
re-derives byte for byte, and a code change that would decide a past case differently shows
here. It also checks that every stream's seq is gap-free and that no event id occurs twice
(DESIGN.md invariant 3).

A game created by a tournament's pairing (whose RoundPaired is not in a game's log) is seeded
with its recorded GameStarted.

The audit covers the aggregates (``game-<id>``, ``tournament-<id>``) whose messages are in the
log and nothing else: a decision re-derived for another aggregate (the replay game a Go game's
endless-cycle ruling starts, 1988 art. 20.3, has its own log: ``export-log --stream
game-<id>-replay1``) is outside the log audited and is not compared, so the audit of any
``export-log`` selection of an untouched log finds 0 differences.

Signed checkpoints (:class:`contracts.messages.StreamsCheckpointed`) are attestations, not
decisions: they are left out here and verified, with every stream's hash chain, by
:func:`services.tools.integrity.check` (``arbiter audit`` runs both). The chain of a
re-derived decision is re-derived too, but not compared field by field: a chain that differs
is the integrity check's finding, named once.
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from contracts.envelope import Envelope
from contracts.messages import CHECKPOINTS, GameStarted
from shared.differences import Difference, compare
from shared.heap import paused_gc
from shared.system import SERVICES, make_processor


async def audit(messages: list[Envelope], workers: int = 1,
                pending: dict[str, set] | None = None) -> list[Difference]:
    """Re-derive the decisions of ``messages`` (a log in append order); the differences, for
    the aggregates that have messages in ``messages`` (see the module doc). ``workers`` and
    ``pending``: see :func:`rederive`."""
    return rederive(messages, workers, pending=pending)


def rederive(messages: list[Envelope], workers: int = 1, min_parallel: int = 20_000,
             pending: dict[str, set] | None = None) -> list[Difference]:
    """:func:`audit` without the event loop. The partition keys of a log (a tournament with its
    games, or a game) are decided independently, so with ``workers`` > 1 and at least
    ``min_parallel`` messages they are re-derived in that many forked processes. ``pending``:
    process name -> event ids of its inputs it had not decided when a live log was read
    (:func:`services.tools.logio.audit_input`): they are not decided again, and the recorded
    decisions they caused, directly or through others, are not compared."""
    global _PENDING
    messages = [m for m in messages if m.payload.TOPIC != CHECKPOINTS]
    # per process: its undecided inputs, and they with everything they caused (once, over the
    # whole log: the forked workers inherit it)
    _PENDING = {name: (skip, _caused_by(messages, skip)) for name, skip in (pending or {}).items() if skip}
    with paused_gc():
        diffs = _integrity(messages)
        if workers <= 1 or len(messages) < min_parallel:
            return diffs + _rederive(messages)
        by_key: dict[str, list[int]] = {}
        key_of_stream: dict[str, str] = {}
        for i, m in enumerate(messages):
            if (key := key_of_stream.get(m.stream)) is None:
                key = key_of_stream[m.stream] = m.key
            by_key.setdefault(key, []).append(i)
        chunks: list[list[int]] = [[] for _ in range(workers)]
        for idx in sorted(by_key.values(), key=len, reverse=True):  # the largest keys first, spread
            min(chunks, key=len).extend(idx)
        global _SHARED
        _SHARED = messages  # inherited by the forked workers, not pickled
        try:
            with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as ex:
                for part in ex.map(_rederive_chunk, [sorted(c) for c in chunks if c]):
                    diffs += part
        finally:
            _SHARED = None
        return diffs


_SHARED: list[Envelope] | None = None
_PENDING: dict[str, tuple[set, set]] = {}


def _rederive_chunk(indices: list[int]) -> list[Difference]:
    return _rederive([_SHARED[i] for i in indices])


def _rederive(messages: list[Envelope]) -> list[Difference]:
    """Each process re-decides its recorded inputs; its decisions compared with the log's."""
    scope = {m.aggregate for m in messages}
    causes = {m.event_id for m in messages}
    recorded, rederived = [], []
    for name in SERVICES:
        proc = make_processor(name)
        inputs = set(proc.inputs)
        skip, later = _PENDING.get(name, (set(), set()))
        mine = [m for m in messages if m.payload.TOPIC not in inputs and proc.owns(m)
                and (not later or m.event_id not in later)]
        recorded += mine
        for m in mine:  # games whose creation is outside this log
            if isinstance(m.payload, GameStarted) and m.causation_id not in causes:
                proc.seqs[m.stream] = max(proc.seqs.get(m.stream, 0), m.seq)
                proc.chains.wrote(m)
                rederived += [m, *proc.decide(m)]
        decide = proc.decide
        for m in messages:
            if m.payload.TOPIC in inputs and (not skip or m.event_id not in skip):
                rederived += decide(m)
    in_scope: dict[str, bool] = {}  # by stream
    for m in rederived:
        if m.stream not in in_scope:
            in_scope[m.stream] = m.aggregate in scope
    return compare(recorded, [m for m in rederived if in_scope[m.stream]])


def _caused_by(messages: list[Envelope], roots: set) -> set:
    """The event ids of ``roots`` and of every message caused by one of them, directly or
    through others (``causation_id`` chains)."""
    children: dict = {}
    for m in messages:
        if m.causation_id is not None:
            children.setdefault(m.causation_id, []).append(m.event_id)
    out, todo = set(roots), list(roots)
    while todo:
        for c in children.get(todo.pop(), ()):
            if c not in out:
                out.add(c)
                todo.append(c)
    return out


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
