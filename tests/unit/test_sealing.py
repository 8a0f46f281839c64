"""Snapshot keys (shared/sealing.py): a snapshot opens only under the key it was sealed with;
after a rotation (ARBITER_SNAPSHOT_KEY the new key, ARBITER_SNAPSHOT_KEY_PREVIOUS the old one)
the snapshots sealed before it still open, and new ones are sealed under the new key; without
the previous key they do not open (the process replays its log, as before)."""
from __future__ import annotations

import asyncio
import json

from shared.eventlog.kafka import _canonical, _verified
from shared.eventlog.memory import MemoryLog
from shared.sealing import mac, seal, snapshot_key, snapshot_keys, unseal


def test_a_rotation_keeps_the_snapshots_sealed_before_it(monkeypatch):
    monkeypatch.setenv("ARBITER_SNAPSHOT_KEY", "old-key")
    monkeypatch.delenv("ARBITER_SNAPSHOT_KEY_PREVIOUS", raising=False)
    sealed = seal(b"state", snapshot_key())
    monkeypatch.setenv("ARBITER_SNAPSHOT_KEY", "new-key")
    assert unseal(sealed, snapshot_keys()) is None  # a new key alone: replay
    monkeypatch.setenv("ARBITER_SNAPSHOT_KEY_PREVIOUS", "old-key")
    assert snapshot_keys() == (b"new-key", b"old-key") and snapshot_key() == b"new-key"
    assert unseal(sealed, snapshot_keys()) == b"state"
    assert unseal(seal(b"next", snapshot_key()), (b"new-key",)) == b"next"
    assert unseal(seal(b"x", b"someone-else"), snapshot_keys()) is None


def test_the_memory_log_and_the_kafka_manifest_open_under_either_key():
    log = MemoryLog()
    asyncio.run(log.save_snapshot("game", b"blob", b"old-key", "tag"))
    assert asyncio.run(log.load_snapshot("game", (b"new-key", b"old-key"), "tag")) == b"blob"
    assert asyncio.run(log.load_snapshot("game", b"new-key", "tag")) is None
    body = {"chunks": [3, 4], "bytes": 10, "tag": "tag", "blob_mac": mac(b"old-key", b"x").hex()}
    manifest = json.dumps({**body, "mac": mac(b"old-key", _canonical(body)).hex()}).encode()
    assert _verified(manifest, (b"new-key", b"old-key"), "tag", 0, 5) == (body, b"old-key")
    assert _verified(manifest, (b"new-key",), "tag", 0, 5) is None
