"""Snapshots written a game at a time (shared.snapshot): while the loop goes on deciding, the
bytes hold the state of the instant the snapshot was made, and a processor loaded from them
decides what follows exactly as the one that went on."""
from __future__ import annotations

import functools
import pickle
import time

import pytest

from services.system import make_processor
from shared.snapshot import Snapshot, Tracked, load


@functools.lru_cache(maxsize=1)
def _inputs() -> tuple:
    """The game process's inputs of the audit benchmark's log (60 games played out, and two
    tournaments), in order."""
    from loadtests.bench import audit_log

    topics = set(make_processor("game").inputs)
    return tuple(m for m in audit_log(60) if m.payload.TOPIC in topics)


def _maps(state):
    return state["proc"].aggregate_maps()


def _snapshot_while_deciding(every: int):
    """A processor decides the first half of the inputs; a snapshot is made; the second half is
    decided while the snapshot is written ``_CHECK_EVERY`` entries every ``every`` inputs.
    Returns (the state at the instant, pickled after one round trip; the loaded snapshot's
    processor; the decisions of the second half)."""
    inputs = _inputs()
    return snapshot_while_deciding(inputs, len(inputs) // 2, every)[:3]


def snapshot_while_deciding(inputs, cut: int, every: int):
    """A processor decides ``inputs[:cut]``; a snapshot is made; the rest is decided while the
    snapshot is written ``_CHECK_EVERY`` entries every ``every`` inputs (and the timer's
    schedule read after each, as the loop does). Returns (the state at the instant, pickled
    after one round trip; the loaded snapshot's processor; the decisions after the instant;
    the processor that went on)."""
    proc = make_processor("game")
    for m in inputs[:cut]:
        proc.decide(m)
    at_instant = pickle.dumps(pickle.loads(pickle.dumps(proc)))
    snap = Snapshot({"proc": proc}, proc.aggregate_maps())
    after = []
    for k, m in enumerate(inputs[cut:]):
        after += proc.decide(m)
        proc.next_deadline()
        if k % every == 0:
            snap.step(time.perf_counter())  # a few entries, as a turn of the loop would
    loaded = load(snap.finish(), _maps)["proc"]
    loaded.loaded()
    assert all(m.snapshot is None for m in (getattr(c, a) for c, a in proc.aggregate_maps()))
    return at_instant, loaded, after, proc


@pytest.mark.parametrize("every", [1, 40])
def test_the_snapshot_holds_the_instant_while_decisions_go_on(every):
    """Whatever the decisions after the instant change (moves, clocks, results, games created
    or ended), the loaded state is the instant's, byte for byte, and decides the rest of the
    log as the processor that went on did."""
    at_instant, loaded, after = _snapshot_while_deciding(every)
    assert pickle.dumps(loaded) == at_instant
    again = [d for m in _inputs()[len(_inputs()) // 2:] for d in loaded.decide(m)]
    assert len(after) > 1000
    assert [d.model_dump_json() for d in again] == [d.model_dump_json() for d in after]


def test_without_capture_on_access_the_snapshot_would_not_hold_the_instant(monkeypatch):
    """The control: a map that hands out its entries without letting the snapshot write them
    first gives a state that is not the instant's (the test above can fail)."""
    monkeypatch.setattr(Tracked, "get", dict.get)
    monkeypatch.setattr(Tracked, "__getitem__", dict.__getitem__)
    at_instant, loaded, _ = _snapshot_while_deciding(40)
    assert pickle.dumps(loaded) != at_instant


class Holder:
    """A core's stand-in: an object with a tracked map."""


def test_tracked_maps_pickle_as_their_entries_and_hand_out_values_only_once_written():
    holder = Holder()
    holder.games = Tracked({"a": [1], "b": [2]})
    assert pickle.loads(pickle.dumps(holder.games)) == {"a": [1], "b": [2]}
    assert type(pickle.loads(pickle.dumps(holder.games))) is Tracked
    snap = Snapshot({"h": holder}, [(holder, "games")])
    for v in holder.games.values():  # no key: every entry written first
        v.append(0)
    holder.games["c"] = [3]  # added after the instant: not in the snapshot
    del holder.games["a"]
    state = load(snap.finish(), lambda s: [(s["h"], "games")])
    assert dict(state["h"].games) == {"a": [1], "b": [2]}
    first = Snapshot({"h": holder}, [(holder, "games")])
    with pytest.raises(RuntimeError):
        Snapshot({"h": holder}, [(holder, "games")])  # one at a time
    first.abort()
    assert holder.games.snapshot is None


def test_an_entry_that_cannot_be_written_fails_the_snapshot_not_the_decision():
    """A decision reaching an entry the snapshot cannot write still gets the entry; the
    snapshot stops tracking and says why when it is stepped or finished."""
    holder = Holder()
    holder.games = Tracked({"a": [1], "b": [lambda: None]})  # a lambda does not pickle
    snap = Snapshot({"h": holder}, [(holder, "games")])
    assert holder.games["b"] and holder.games.snapshot is None
    with pytest.raises(RuntimeError, match="could not be written"):
        snap.finish()
