"""The collector settings of the processes that hold live games (shared/heap.py) and the
collector's pause metric (shared/metrics.py)."""
from __future__ import annotations

import gc

import pytest

from shared.heap import no_automatic_full_collections
from shared.metrics import _gc_service, observe_gc


@pytest.fixture
def thresholds():
    saved = gc.get_threshold()
    yield
    gc.set_threshold(*saved)


class Node:
    def __init__(self) -> None:
        self.other = None


def _cycles(n: int) -> list:
    """``n`` two-node reference cycles, kept alive by the returned list."""
    out = []
    for _ in range(n):
        a, b = Node(), Node()
        a.other, b.other = b, a
        out.append(a)
    return out


def test_no_automatic_full_collections_keeps_young_ones(thresholds):
    gc.set_threshold(700, 10, 10)
    no_automatic_full_collections()
    young, middle, old = gc.get_threshold()
    assert (young, middle) == (700, 10) and old == 2**31 - 1
    before = [s["collections"] for s in gc.get_stats()]
    keep = _cycles(100_000)  # long-lived: promoted to the oldest generation
    for _ in range(20):
        _cycles(10_000)  # garbage cycles, dead at once: the young collections reclaim them
    after = [s["collections"] for s in gc.get_stats()]
    assert after[0] > before[0] and after[1] > before[1]
    assert after[2] == before[2]  # no full pass over the 200,000 long-lived nodes
    assert len(keep) == 100_000


def test_observe_gc_times_each_generation():
    from prometheus_client import REGISTRY

    observe_gc("test-heap")  # once per process: the first name given is kept

    def count(gen: int) -> float:
        return REGISTRY.get_sample_value(
            "arbiter_gc_seconds_count", {"service": _gc_service[0], "generation": str(gen)}) or 0.0

    n0, n2 = count(0), count(2)
    gc.collect(2)
    gc.collect(0)
    assert (count(0), count(2)) == (n0 + 1, n2 + 1)
