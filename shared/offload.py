"""Long pure computations inside a decision, computed off the host's event loop (issue 13: "a
long pairing never stalls other events"; DESIGN.md invariant 1 unchanged).

A core whose decision on some input calls a slow pure function (the Dutch pairing of a large
round: seconds at 1,000 players, minutes at 3,000) names that call before deciding:
``Core.prepare(msg) -> [Job]`` (:class:`shared.service.Core`). The Kafka host
(:mod:`shared.kafkahost`) computes a partition's jobs in a forked child
(:func:`shared.heap.in_child`) and holds that partition's inputs, in their order, until the
outcome is there, while every other partition goes on deciding. The core itself always calls
:func:`call`: the outcome computed beforehand when there is one (taken once), else the function
now, inline. The function being pure, the decision is the same either way, byte for byte (the
same events, seqs, ids and event times); only the moment it is made differs. An exception is an
outcome too: :func:`call` raises it again, as the call would have.

Pure bookkeeping, no I/O: a bounded map from a job's key (SHA-256 of the pickled function name
and arguments) to its outcome, in this process.
"""
from __future__ import annotations

import hashlib
import pickle
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Job", "call", "ready", "put", "outcome_bytes", "put_bytes", "KEPT"]

#: Outcomes kept at most (the oldest dropped first): one per partition waiting, in practice.
KEPT = 32

_outcomes: OrderedDict[bytes, tuple[bool, Any]] = OrderedDict()


def _key(fn: Callable, args: tuple) -> bytes:
    """SHA-256 of ``fn``'s module and qualified name and the pickled ``args``."""
    return hashlib.sha256(pickle.dumps((fn.__module__, fn.__qualname__, args),
                                       protocol=pickle.HIGHEST_PROTOCOL)).digest()


@dataclass(frozen=True)
class Job:
    """``fn(*args)``: a pure, module-level function and picklable arguments."""

    fn: Callable
    args: tuple

    @property
    def key(self) -> bytes:
        return _key(self.fn, self.args)


def ready(job: Job) -> bool:
    """Whether ``job``'s outcome is here (computed beforehand, not taken yet)."""
    return job.key in _outcomes


def put(job: Job, ok: bool, value: Any) -> None:
    """Keep ``job``'s outcome: its return value (``ok``) or the exception it raised."""
    _outcomes[job.key] = (ok, value)
    while len(_outcomes) > KEPT:
        _outcomes.popitem(last=False)


def outcome_bytes(job: Job) -> bytes:
    """``job`` computed here, its outcome pickled (what a forked child hands back): ``(True,
    value)`` or ``(False, exception)``."""
    try:
        out = (True, job.fn(*job.args))
    except Exception as e:  # an outcome like any other: call() raises it
        out = (False, e)
    return pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL)


def put_bytes(job: Job, blob: bytes) -> None:
    """Keep the outcome :func:`outcome_bytes` made (in a child) for ``job``."""
    ok, value = pickle.loads(blob)
    put(job, ok, value)


def call(fn: Callable, *args: Any) -> Any:
    """``fn(*args)``: the outcome computed beforehand when there is one (taken, so kept once),
    else computed now. Raises what ``fn`` raised."""
    found = _outcomes.pop(_key(fn, args), None)
    if found is None:
        return fn(*args)
    ok, value = found
    if ok:
        return value
    raise value
