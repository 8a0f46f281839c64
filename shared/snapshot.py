"""A snapshot of a partition's state taken a piece at a time, in the deciding loop itself,
without stopping it for long and without forking (DESIGN.md invariant 3; used by
:mod:`shared.kafkahost`).

A core names its maps keyed by aggregate (``Core.aggregates``: the validation, clock,
adjudication and penalties cores' ``games``, game id -> that game's state); the processor keeps
each one as a :class:`Tracked` dict. :class:`Snapshot` serialises the state as it is at the
instant it is made, the same bytes a pickle of the whole state then would hold, in two parts:

- at once, everything but the entries of the tracked maps: the processor's per-stream books,
  the cores' other fields (a few milliseconds for 1,250 live games);
- the entries afterwards, a few at a time (:meth:`Snapshot.step`, a time budget per turn of the
  loop) while the loop goes on deciding. An entry is written as it was at the instant: the
  first time a decision after it reads, writes or removes an entry not yet written, the map
  hands the entry to the snapshot first (copy-on-access, per aggregate). Entries added after
  the instant are not in the snapshot.

One pickler writes every part, so an object reached from two entries, or from an entry and the
rest of the state, is written once, when it is first reached, and loads as one object. This
holds the instant's state as long as the per-aggregate state changes only through its map,
which a core's decision reaches by the aggregate's id (``games[game_id]``): what it reaches
otherwise is written at once with the rest.

The bytes are ``zlib`` (level 1) of a stream of pickles: the state with each tracked map empty,
each map's keys in their order at the instant, ``(map index, key, value)`` per entry, ``None``.
:func:`load` reads it back: the same state, the maps in the same order, as a pickle of the whole
state at the instant would give.

Why not a forked child, as before: after a fork every page the deciding process writes is copied
(some 25,000 in the next second for 10,000 live games), and at 1,200 moves/s the transactions of
that second took 3 times as long (p99 of the move path 246 ms against 49 without snapshots;
README "Figures"). A whole pickle inline stops the loop: 80 us a game, 100 ms a partition.
"""
from __future__ import annotations

import io
import pickle
import time
import zlib
from collections.abc import Callable

__all__ = ["Tracked", "Snapshot", "load"]

#: How often :meth:`Snapshot.step` looks at the clock (entries between two looks).
_CHECK_EVERY = 8


class Tracked(dict):
    """A dict of per-aggregate state (key: the aggregate's id) whose entries a snapshot in
    progress (:class:`Snapshot`) captures before anything reads or changes them. With no
    snapshot in progress it is a dict (each keyed access costs one attribute test more).
    Pickled as a plain dict of its entries would be."""

    __slots__ = ("snapshot",)

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.snapshot: Snapshot | None = None

    def __reduce__(self):
        return (Tracked, (), None, None, iter(dict.items(self)))

    def _all(self) -> None:
        if self.snapshot is not None:
            self.snapshot.capture_all(self)

    def __getitem__(self, key):
        if self.snapshot is not None:
            self.snapshot.capture(self, key)
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        if self.snapshot is not None:
            self.snapshot.capture(self, key)
        return dict.get(self, key, default)

    def __setitem__(self, key, value) -> None:
        if self.snapshot is not None:
            self.snapshot.capture(self, key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key) -> None:
        if self.snapshot is not None:
            self.snapshot.capture(self, key)
        dict.__delitem__(self, key)

    def pop(self, key, *default):
        if self.snapshot is not None:
            self.snapshot.capture(self, key)
        return dict.pop(self, key, *default)

    def setdefault(self, key, default=None):
        if self.snapshot is not None:
            self.snapshot.capture(self, key)
        return dict.setdefault(self, key, default)

    # what hands out values without a key, or changes many entries: every entry captured first
    def values(self):
        self._all()
        return dict.values(self)

    def items(self):
        self._all()
        return dict.items(self)

    def popitem(self):
        self._all()
        return dict.popitem(self)

    def clear(self) -> None:
        self._all()
        dict.clear(self)

    def update(self, *args, **kwargs) -> None:
        self._all()
        dict.update(self, *args, **kwargs)

    def __ior__(self, other):
        self._all()
        return dict.__ior__(self, other)


class Snapshot:
    """``state`` serialised as it is now (see the module doc): the part outside ``maps`` (a list
    of ``(holder, attribute)`` naming each :class:`Tracked` map inside ``state``) at once, the
    maps' entries by :meth:`step` or as they are reached. :meth:`finish` returns the bytes;
    :meth:`abort` gives up. One snapshot at a time per map."""

    def __init__(self, state, maps: list[tuple[object, str]]) -> None:
        self._buf = io.BytesIO()
        self._pickler = pickle.Pickler(self._buf, protocol=pickle.HIGHEST_PROTOCOL)
        self._zip = zlib.compressobj(1)
        self._parts: list[bytes] = []
        tracked = [getattr(holder, attr) for holder, attr in maps]
        if any(m.snapshot is not None for m in tracked):
            raise RuntimeError("a snapshot of these maps is already in progress")
        for (holder, attr) in maps:
            setattr(holder, attr, Tracked())
        try:
            self._pickler.dump(state)
        finally:
            for (holder, attr), m in zip(maps, tracked):
                setattr(holder, attr, m)
        self._pickler.dump([list(m.keys()) for m in tracked])  # each map's order at the instant
        self._maps = tracked
        self._failed: Exception | None = None
        self._index = {id(m): i for i, m in enumerate(tracked)}
        self._left = [set(m.keys()) for m in tracked]  # keys of the instant not written yet
        # what step() goes through, map by map from the last (no object per entry: the part
        # written at once allocates next to nothing, so no collection falls in it)
        self._todo = [list(m.keys()) for m in tracked]
        for m in tracked:
            m.snapshot = self
        self._drain()

    def capture(self, m: Tracked, key) -> None:
        """Write entry ``key`` of map ``m`` now, if it was there at the instant and is not
        written yet (its map calls this before handing it out or changing it)."""
        i = self._index[id(m)]
        left = self._left[i]
        if key in left:
            left.discard(key)
            try:
                self._pickler.dump((i, key, dict.__getitem__(m, key)))
            except Exception as e:  # never into the decision that reached the entry
                self._failed = e
                self.abort()

    def capture_all(self, m: Tracked) -> None:
        """Write every entry of map ``m`` not written yet."""
        i = self._index[id(m)]
        for key in list(self._left[i]):
            self.capture(m, key)

    def step(self, until: float) -> bool:
        """Write entries until ``time.perf_counter()`` reaches ``until`` (seconds) or none is
        left; True when none is left. Raises ``RuntimeError`` when an entry could not be
        written (the maps are no longer tracked then)."""
        todo, n = self._todo, 0
        while todo and self._failed is None:
            keys = todo[-1]
            if not keys:
                todo.pop()
                continue
            self.capture(self._maps[len(todo) - 1], keys.pop())
            n += 1
            if n % _CHECK_EVERY == 0 and time.perf_counter() >= until:
                break
        if self._failed is not None:
            raise RuntimeError(f"an entry could not be written: {self._failed!r}") from self._failed
        self._drain()
        return not any(todo)

    def finish(self) -> bytes:
        """The snapshot's bytes (every entry not written yet is written now); the maps are no
        longer tracked. Raises ``RuntimeError`` as :meth:`step`."""
        self.step(float("inf"))
        self._pickler.dump(None)
        self._drain()
        self.abort()
        self._parts.append(self._zip.flush())
        return b"".join(self._parts)

    def abort(self) -> None:
        """Stop tracking the maps (the bytes are not needed)."""
        for m in self._maps:
            if m.snapshot is self:
                m.snapshot = None

    def _drain(self) -> None:
        """Compress what the pickler wrote since the last drain."""
        data = self._buf.getbuffer()
        if len(data):
            self._parts.append(self._zip.compress(data))
        del data
        self._buf.seek(0)
        self._buf.truncate()


def load(blob: bytes, maps_of: Callable[[object], list[tuple[object, str]]]):
    """The state a :class:`Snapshot` serialised into ``blob``: the state, then each entry put
    back into its map, the maps found in the loaded state by ``maps_of(state)`` (the same
    ``(holder, attribute)`` list, in the same order, as when it was written). Raises what
    unpickling or decompressing raises on other bytes (``ValueError`` for a stream that does
    not end as written)."""
    u = pickle.Unpickler(io.BytesIO(zlib.decompress(blob)))
    state = u.load()
    order = u.load()
    entries = [{} for _ in order]
    while (entry := u.load()) is not None:
        i, key, value = entry
        entries[i][key] = value
    maps = [getattr(holder, attr) for holder, attr in maps_of(state)]
    if len(maps) != len(order) or any(len(e) != len(keys) for e, keys in zip(entries, order)):
        raise ValueError("a snapshot whose entries do not match its maps")
    for m, keys, found in zip(maps, order, entries):
        for key in keys:
            dict.__setitem__(m, key, found[key])
    return state
