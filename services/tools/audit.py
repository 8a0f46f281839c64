"""``arbiter audit``: re-derive every decision of a log and report each difference.

The log of a game or a tournament holds the inputs that came in (the gateway's commands with
their receive times, the timer's CheckClock commands) and the decisions the processes made
(:mod:`services.system`). Every decision is a function of one process's ordered input, so the
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

from contracts.envelope import Envelope
from shared.differences import Difference
from services.rederive import rederive


async def audit(messages: list[Envelope], workers: int = 1,
                pending: dict[str, set] | None = None) -> list[Difference]:
    """Re-derive the decisions of ``messages`` (a log in append order); the differences, for
    the aggregates that have messages in ``messages`` (see the module doc). ``workers`` and
    ``pending``: see :func:`rederive`."""
    return rederive(messages, workers, pending=pending)


__all__ = ["audit", "rederive"]
