"""The event envelope of DESIGN.md, shared by every command and event.

Every message on the log is ``Envelope`` subclass ``<Type>`` with a typed ``payload``; the
concrete classes are built from the payload models in :mod:`contracts.messages` so the envelope
is written once. Streams are single-writer: each stream id names its owner (see
:func:`stream_for`), so ``seq`` is gap-free from 1 per stream. The Kafka partition key
(:attr:`Envelope.key`) is the tournament for a tournament's own streams and all its games, else
the game, so all of one game's streams stay in order on one partition.
"""
from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta, timezone
from typing import ClassVar, Literal
from uuid import UUID, uuid4

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Actor(BaseModel):
    """Who caused a message: a player (by player id), an arbiter, an organiser, an integrator
    (webhook subscriptions), or a service (by name)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: Literal["player", "arbiter", "service", "organiser", "integrator"]
    id: str = Field(min_length=1, max_length=120)


class Payload(BaseModel):
    """Base of every command/event payload.

    Class variables (not serialised): ``VERSION`` (the schema_version of the message), ``TOPIC``
    (logical topic, see :mod:`contracts.topics`), ``KIND`` ("command" or "event").
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    VERSION: ClassVar[int] = 1
    TOPIC: ClassVar[str] = ""
    KIND: ClassVar[str] = "event"


class Envelope(BaseModel):
    """Fields every message carries (DESIGN.md, Events).

    - ``event_id``: UUID of this message (commands too), the idempotency key.
    - ``type``: the payload's type name (discriminator), e.g. ``"MoveAccepted"``.
    - ``schema_version``: integer version of this type's payload schema.
    - ``stream``: single-writer stream id, e.g. ``game-g1`` (validation), ``game-g1.clock``,
      ``game-g1.commands.<gateway instance>``.
    - ``seq``: position in the stream, gap-free from 1.
    - ``occurred_at``: UTC instant with microseconds (event time; for commands the gateway's
      receive time).
    - ``causation_id``/``correlation_id``: the message that caused this one / the original request.
    - ``actor``: who caused it.
    - ``chain``: the stream's hash chain at this message, 64 lower-case hex digits:
      SHA-256(previous message's ``chain`` as 32 bytes, or 32 zero bytes at seq 1 || this
      message's canonical bytes, i.e. its JSON with ``"chain":null``): :mod:`shared.chain`.
      The last field (declared last: the canonical form relies on it). None in logs written
      before the chain (the audit calls them "unchained").
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    event_id: UUID = Field(default_factory=uuid4)
    type: str
    schema_version: int
    stream: str = Field(min_length=3, max_length=200, pattern=r"^[A-Za-z0-9_\-]+(\.[a-z]+(\.[a-z0-9]+)?)?$")
    seq: int = Field(ge=1)
    occurred_at: datetime
    causation_id: UUID | None = None
    correlation_id: UUID | None = None
    actor: Actor
    payload: Payload
    chain: str | None = Field(None, pattern=r"^[0-9a-f]{64}$")

    @field_validator("occurred_at")
    @classmethod
    def _utc(cls, v: datetime) -> datetime:
        if v.tzinfo is None:
            raise ValueError("occurred_at must be timezone-aware (UTC)")
        return v.astimezone(timezone.utc)

    @property
    def aggregate(self) -> str:
        """The aggregate the stream belongs to: ``game-<id>`` or ``tournament-<id>``."""
        return self.stream.split(".", 1)[0]

    @property
    def key(self) -> str:
        """Kafka partition key: the tournament for a tournament and every game it paired
        (``tournament-<tid>``; its game ids are ``<tid>-r<round>-b<board>``), else the game.
        A Go replay game (``<game>-replay<n>``, 1988 art. 20.3) goes with the game it replays,
        whose processor starts it. One key for a tournament and its games puts them on the same
        partition number of every topic, so each instance of a service in a consumer group sees
        all of a tournament."""
        return key_of(self.aggregate)

    @property
    def at_ms(self) -> int:
        """``occurred_at`` as integer epoch milliseconds (what the domain cores use)."""
        return ms_of(self.occurred_at)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = timedelta(milliseconds=1)
_TOURNAMENT_GAME = re.compile(r"^game-(.+)-r\d+-b\d+$")
_REPLAY = re.compile(r"(-replay\d+)+$")


@functools.lru_cache(maxsize=1 << 16)
def key_of(aggregate: str) -> str:
    """The partition key of an aggregate (``game-<id>`` or ``tournament-<id>``): see
    :attr:`Envelope.key`."""
    agg = _REPLAY.sub("", aggregate)
    m = _TOURNAMENT_GAME.match(agg)
    return f"tournament-{m.group(1)}" if m else agg


def ms_of(dt: datetime) -> int:
    """Epoch milliseconds (int) of an aware datetime; sub-millisecond parts are floored."""
    return (dt - _EPOCH) // _MS


def dt_of(ms: int) -> datetime:
    """Aware UTC datetime of integer epoch milliseconds."""
    return _EPOCH + timedelta(milliseconds=ms)


def stream_for(aggregate: str, owner: str | None = None) -> str:
    """Stream id of an aggregate's stream written by ``owner``.

    ``stream_for("game-g1")`` is the validation service's game record; ``stream_for("game-g1",
    "clock")`` is the clock's stream of that game; ``"commands"`` is the gateway's command stream.
    """
    return aggregate if owner is None else f"{aggregate}.{owner}"
