"""The Prometheus metrics of every back-end service (one place; the gateway adds its own in
:mod:`services.gateway.app`). Names are what ``deploy/`` dashboards and alert rules use; a test
checks that every metric they reference is defined here or in the gateway.

Labels: ``service`` is the process's service name (``game``, ``pairing`` ...), ``type`` a message
type, ``partition`` an input partition number.
"""
from __future__ import annotations

import gc
import time

from prometheus_client import Counter, Gauge, Histogram

HANDLED = Counter("arbiter_messages_handled_total", "Input messages decided", ["service"])
EMITTED = Counter("arbiter_messages_emitted_total", "Decisions (events) written", ["service", "type"])
ERRORS = Counter("arbiter_handler_errors_total", "Messages a core failed on (logged)", ["service", "type"])
LATENCY = Histogram("arbiter_handle_seconds", "Time to decide one input message and all it causes, seconds",
                    ["service"], buckets=(.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1))
BATCH = Histogram("arbiter_batch_seconds", "Consume-decide-commit time of one input batch, seconds",
                  ["service"], buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5))
LAG = Gauge("arbiter_consumer_lag_messages", "Input messages not yet handled, per partition",
            ["service", "topic", "partition"])
REBALANCES = Counter("arbiter_rebalances_total", "Partition assignments and revocations",
                     ["service", "change"])
ASSIGNED = Gauge("arbiter_assigned_partitions", "Input partitions this instance owns", ["service"])
OFFLOADED = Counter("arbiter_offloaded_total", "Slow pure computations of a decision run in a forked "
                    "child while the partition's inputs wait (shared.offload)", ["service"])
SNAPSHOT_SECONDS = Histogram(
    "arbiter_snapshot_seconds", "Partition snapshots (shared.snapshot): phase 'instant' is the part "
    "written at once, while the loop waits; 'written' the instant to the last entry written, while "
    "the loop decides", ["service", "phase"],
    buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30))
SNAPSHOT_AGE = Gauge("arbiter_snapshot_age_seconds", "Seconds since this instance last wrote a snapshot",
                     ["service"])
TXN_ABORTS = Counter("arbiter_transaction_aborts_total", "Kafka transactions aborted", ["service"])
TXN_SECONDS = Histogram("arbiter_transaction_seconds", "Kafka transactions committed: begin to commit "
                        "acknowledged, seconds", ["service"],
                        buckets=(.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5))
RECOVERY = Gauge("arbiter_recovery_messages", "Messages read to restore state at the latest assignment",
                 ["service"])
RECOVERY_SECONDS = Gauge("arbiter_recovery_seconds", "Time to restore state at the latest assignment",
                         ["service"])
READY = Gauge("arbiter_ready", "1 when the instance serves (state restored), else 0", ["service"])
RESTARTS = Counter("arbiter_restarts_total", "Restarts of a service process by its supervisor",
                   ["service"])
TIMERS = Counter("arbiter_timer_commands_total", "Timer commands (CheckClock) published", ["service"])
GC_SECONDS = Histogram("arbiter_gc_seconds", "Pauses of Python's cyclic garbage collector (the "
                       "process decides nothing meanwhile), seconds", ["service", "generation"],
                       buckets=(.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5))
_gc_service: list[str] = []
_gc_pauses: dict = {}  # generation -> its GC_SECONDS child, made once
_gc_started: list[float] = []


def _on_gc(phase: str, info: dict) -> None:
    # no prometheus lock is taken here: labels() (the metric's lock, held by a scrape while it
    # copies a dict, which may collect) ran in observe_gc; a child's observe() only takes its
    # values' locks, inside which nothing is allocated that the collector tracks
    if phase == "start":
        _gc_started.append(time.perf_counter())
    elif _gc_started:
        child = _gc_pauses.get(info.get("generation"))
        seconds = time.perf_counter() - _gc_started.pop()
        if child is not None:
            child.observe(seconds)


def observe_gc(service: str) -> None:
    """Time every collection of Python's cyclic garbage collector into :data:`GC_SECONDS`
    under ``service`` (``gc.callbacks``; installed once per process, the first name kept): a
    full collection over a large heap stops the event loop, and shows in the tail of every
    decision's latency."""
    if not _gc_service:
        _gc_service.append(service)
        _gc_pauses.update({g: GC_SECONDS.labels(service, str(g)) for g in range(3)})
        gc.callbacks.append(_on_gc)
