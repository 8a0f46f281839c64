"""Re-derive every decision of a log and compare it with the log's (:func:`rederive`): the
one re-derivation that ``arbiter audit`` (:mod:`services.tools.audit`, a whole log) and the
arbiter console's per-game audit (``GET /games/{gid}/audit``, :mod:`services.gateway.console`)
both run, so that neither service package imports the other.

Every decision is a function of one process's ordered input, so each process (a fresh one,
today's code: :func:`services.system.make_processor`) is handed exactly the inputs the log
recorded for it, in log order, and what it decides is compared with what the log holds by
(stream, seq) (:func:`shared.differences.compare`). Every stream's seq must be gap-free and no
event id may occur twice (DESIGN.md invariant 3). Signed checkpoints are attestations, not
decisions: they are left out (:mod:`services.tools.integrity` verifies them).
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

from contracts.envelope import Envelope
from contracts.messages import CHECKPOINTS, GameStarted
from shared.differences import Difference, compare
from shared.heap import paused_gc
from services.system import SERVICES, make_processor


def rederive(messages: list[Envelope], workers: int = 1, min_parallel: int = 20_000,
             pending: dict[str, set] | None = None) -> list[Difference]:
    """The differences between the decisions of ``messages`` (a log in append order) and
    today's code's, for the aggregates that have messages in it (the seq and event-id checks
    first). The partition keys of a log (a tournament with its games, or a game) are decided
    independently, so with ``workers`` > 1 and at least
    ``min_parallel`` messages they are re-derived in that many forked processes. ``pending``:
    process name -> event ids of its inputs it had not decided when a live log was read
    (:func:`services.tools.logio.audit_input`): they are not decided again, and the recorded
    decisions they caused, directly or through others, are not compared."""
    global _PENDING
    messages = [m for m in messages if m.payload.TOPIC != CHECKPOINTS]
    # per process: its undecided inputs, and they with everything they caused (once, over the
    # whole log: the forked workers inherit it)
    _PENDING = {name: (skip, caused_by(messages, skip)) for name, skip in (pending or {}).items() if skip}
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


def caused_by(messages: list[Envelope], roots: set) -> set:
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
