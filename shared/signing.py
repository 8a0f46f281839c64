"""Where the checkpoint keys come from (:mod:`shared.chain` signs and verifies with them).

- Signing (the game and tournament processes): ``ARBITER_SIGNING_KEY``, base64 of the 32-byte
  Ed25519 private key (``arbiter signing-key`` makes one and prints its public key). Every
  process of a deployment may share one, or each have its own: the audit trusts a list.
  Without it a process draws a key of its own and logs its public key (a warning); such a
  process refuses to listen beyond loopback (:func:`shared.config.require_for_address`), so
  only the embedded demo, tests and a loopback ``arbiter up`` (which draws one per run and
  prints it) sign with one. There is no default key.
- Verifying (``arbiter audit``): ``--verify-key`` or ``ARBITER_VERIFY_KEYS`` (comma-separated
  base64 public keys). The audit never trusts a key found in the log: a checkpoint signed by
  another key is a finding, and without any key it checks the chains but not the signatures
  (and says so).
- Rotation: give the processes the new signing key and the audit both public keys; the old
  checkpoints stay verifiable as long as the old public key is listed.
"""
from __future__ import annotations

import base64
import logging

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from shared.chain import key_id, parse_key32, parse_public, public_text
from shared.config import ConfigError, settings

log = logging.getLogger("arbiter.signing")
_own: Ed25519PrivateKey | None = None


def new_key() -> tuple[str, str]:
    """A fresh Ed25519 key pair as ``(private, public)``, each base64 of its 32 raw bytes."""
    k = Ed25519PrivateKey.generate()
    raw = k.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    return base64.b64encode(raw).decode(), public_text(k.public_key())


def signing_key() -> Ed25519PrivateKey:
    """The deployment's signing key (``ARBITER_SIGNING_KEY``), or this process's own, drawn
    once and announced with its public key (a warning). Raises :class:`ConfigError` for a
    value that is not base64 of 32 bytes."""
    global _own
    secret = settings().signing_key
    if secret is not None:
        try:
            raw = parse_key32(secret.get_secret_value(), "ARBITER_SIGNING_KEY")
        except ValueError as e:
            raise ConfigError(str(e)) from None
        return Ed25519PrivateKey.from_private_bytes(raw)
    if _own is None:
        _own = Ed25519PrivateKey.generate()
        log.warning("no ARBITER_SIGNING_KEY: this process signs its checkpoints with a key of its "
                    "own; audit them with --verify-key %s", public_text(_own.public_key()))
    return _own


def verify_keys(extra: list[str] | tuple[str, ...] = ()) -> dict[str, Ed25519PublicKey]:
    """The public keys the audit trusts, by key id: ``extra`` (``--verify-key``) and
    ``ARBITER_VERIFY_KEYS``. Raises :class:`ConfigError` for one that is not base64 of 32
    bytes."""
    texts = list(extra) + [t for t in (settings().verify_keys or "").split(",") if t.strip()]
    out = {}
    for t in texts:
        try:
            k = parse_public(t)
        except ValueError as e:
            raise ConfigError(f"ARBITER_VERIFY_KEYS / --verify-key: {e}") from None
        out[key_id(k)] = k
    return out
