"""Authenticated snapshots: a snapshot is a pickle, and unpickling runs code, so whoever can
write a snapshot topic could run code in every process that loads one. Snapshots are
therefore sealed with HMAC-SHA256 (RFC 2104) under a secret every Arbiter process of a
deployment shares, ``ARBITER_SNAPSHOT_KEY``, and nothing is decompressed or unpickled unless
its seal verifies.

Without the variable a process draws a key of its own and says so: it writes and reads its
snapshots as before while it lives, but what it wrote cannot be loaded after a restart (a
restart then replays the log). ``arbiter up`` and the test and benchmark supervisors hand
their processes one key per run (:func:`services.tools.supervisor.spawn`).
"""
from __future__ import annotations

import hashlib
import hmac
import logging

from shared.config import key_or_drawn, settings

KEY_ENV = "ARBITER_SNAPSHOT_KEY"
TAG_BYTES = 32  # SHA-256
log = logging.getLogger("arbiter.sealing")


def snapshot_key() -> bytes:
    """The deployment's snapshot key (``ARBITER_SNAPSHOT_KEY``, any string, UTF-8), or this
    process's own random one (see :func:`warn_without_key`)."""
    return key_or_drawn("snapshot_key")[0]


def snapshot_keys() -> tuple[bytes, ...]:
    """The keys a snapshot may be sealed under: the deployment's (:func:`snapshot_key`), then
    ``ARBITER_SNAPSHOT_KEY_PREVIOUS`` if set. A rotation sets the new key and the old one as
    previous: the snapshots written before it still load (each process seals its next ones
    under the new key), so no process replays its whole log for it; unset the previous key
    once every snapshot topic holds a snapshot sealed under the new one."""
    prev = settings().snapshot_key_previous
    return (snapshot_key(),) + ((prev.get_secret_value().encode(),) if prev is not None else ())


def verifies(tag: bytes, data: bytes, keys: bytes | tuple[bytes, ...]) -> bytes | None:
    """The key of ``keys`` (one, or several: :func:`snapshot_keys`) under which ``tag`` is the
    HMAC of ``data``, or None."""
    for k in (keys,) if isinstance(keys, bytes) else keys:
        if hmac.compare_digest(tag, mac(k, data)):
            return k
    return None


def warn_without_key(who: str) -> None:
    """Log, for a process that writes snapshots (``who``), that without the deployment's key
    they serve only itself."""
    if settings().snapshot_key is None:
        log.warning("%s: %s is not set: the snapshots this process writes can be loaded only by "
                    "itself (a restart replays the log); give every process the same secret",
                    who, KEY_ENV)


def mac(key: bytes, data: bytes) -> bytes:
    """HMAC-SHA256 of ``data`` under ``key`` (32 bytes)."""
    return hmac.new(key, data, hashlib.sha256).digest()


def seal(blob: bytes, key: bytes) -> bytes:
    """``blob`` with its HMAC in front (32 bytes more)."""
    return mac(key, blob) + blob


def unseal(sealed: bytes, keys: bytes | tuple[bytes, ...]) -> bytes | None:
    """The blob :func:`seal` sealed under ``keys`` (one key, or any of several:
    :func:`snapshot_keys`), or None when the seal does not verify (another key, a forged or
    damaged record): never unpickle it then."""
    tag, blob = sealed[:TAG_BYTES], sealed[TAG_BYTES:]
    return blob if len(tag) == TAG_BYTES and verifies(tag, blob, keys) is not None else None
