"""Python's cyclic garbage collector and the long-lived state of Arbiter's processes.

A process that holds hundreds of thousands of long-lived objects (an audit's envelopes, a game
processor's live games, the gateway's read model) and makes next to no reference cycles pays
for every full collection over them and gets nothing back. Both helpers keep what is freed by
reference counting freed as before.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def paused_gc():
    """The cyclic garbage collector off for the block (restored after). An audit allocates
    hundreds of thousands of long-lived envelopes and next to no reference cycles (a few
    hundred objects for 70,000 messages), so the collector's passes over the growing heap
    found nothing and cost more than a third of the parsing and of the re-derivation. Forked
    workers inherit the setting. At the end what the block allocated joins the oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()``) instead of being traversed at once
    by the first collection after it, as one young generation of millions of objects."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if was:
            gc.enable()


def freeze_heap() -> None:
    """Keep the long-lived state (games in play: millions of objects) out of the collector
    for good: a full collection over 10,000 live games takes seconds, during which no game of
    the process moves. The young generations are collected first; what is frozen is still
    freed by reference counting."""
    gc.collect(1)
    gc.freeze()
