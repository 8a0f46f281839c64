"""Python's cyclic garbage collector and the long-lived state of Arbiter's processes.

A process that holds hundreds of thousands of long-lived objects (an audit's envelopes, a game
processor's live games, the gateway's read model) and makes next to no reference cycles pays
for every full collection over them and gets nothing back. Both helpers keep what is freed by
reference counting freed as before.
"""
from __future__ import annotations

import asyncio
import gc
import os
import pickle
import zlib
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


def no_automatic_full_collections() -> None:
    """Turn off the collector's automatic full (oldest generation) collections in this process;
    the young generations are still collected as before. For the processes that hold live
    games (``python -m services.game`` / ``tournament``: :func:`services.runner.service_app`).
    What reaches the oldest generation there is their long-lived state (python-chess move
    stacks, ``_BoardState`` and ``Move``, two objects per ply; clock values), freed by
    reference counting and never cyclic, and a full pass over it stops every decision of the
    process. Measured at 1,000 moves/s on 10,000 games (``python -m loadtests.load``, the
    game process's ``arbiter_gc_seconds``): 4 full collections of 116 ms mean in 100 s. The
    state restored on assignment is frozen (:func:`freeze_heap`). The price: a reference
    cycle that dies after reaching the oldest generation is not reclaimed (it would not be
    either once frozen)."""
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 2**31 - 1)


async def serialised_in_child(state) -> bytes:
    """``zlib(pickle(state))`` (level 1), made by a forked child so the event loop never stops
    (the gateway's read model): the child sees the state as it is at the fork (copy-on-write)
    and serialises it at the lowest priority (niceness 19) while the parent goes on: on two
    cores a child at the priority of the processes that decide competes with them and the
    broker. The price is the fork: it stops the parent while its page tables are copied (26 ms
    for a 727 MB heap), and every page the parent writes while the child lives is copied too
    (the game processes, which write their state a game at a time instead, :mod:`shared.
    snapshot`, took some 25,000 such copies in the second after a fork). Raises
    ``RuntimeError`` when the child fails (nothing is returned then)."""
    def work() -> bytes:
        return zlib.compress(pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL), 1)
    return await in_child(work, nice=19)


async def in_child(work, nice: int = 0) -> bytes:
    """The bytes ``work()`` returns, computed by a forked child while the event loop goes on
    (the child sees the process as it is at the fork, copy-on-write). The long-lived state is
    frozen first (:func:`freeze_heap`) so that the collector does not touch, and so copy, the
    child's pages. ``nice``: the child's niceness increment (``os.nice``): work that may wait
    takes only the CPU that deciding leaves. Raises ``RuntimeError`` when the child fails or
    returns nothing."""
    loop = asyncio.get_running_loop()
    freeze_heap()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: work, write, leave without touching the event loop
        code = 0
        try:
            # nothing inherited but the pipe: a child outliving a killed parent must not hold
            # its listening socket (a restart could not bind the port)
            os.closerange(3, w)
            os.closerange(w + 1, os.sysconf("SC_OPEN_MAX"))
            if nice:
                os.nice(nice)
            blob = work()
            with os.fdopen(w, "wb") as f:
                f.write(blob)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    blob = await loop.run_in_executor(None, _read_all, r)
    _, status = await loop.run_in_executor(None, os.waitpid, pid, 0)
    if status != 0 or not blob:
        raise RuntimeError(f"the forked child failed (wait status {status})")
    return blob


def _read_all(fd: int) -> bytes:
    """Every byte from ``fd`` until EOF (closes it)."""
    chunks = []
    with os.fdopen(fd, "rb") as f:
        while chunk := f.read(1 << 20):
            chunks.append(chunk)
    return b"".join(chunks)
