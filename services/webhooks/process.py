"""The webhooks process: the thin adapter around :mod:`services.webhooks.core` (log in, HTTP out).

Where the delivery state lives: **on the log**. Every attempt is a
:class:`~contracts.messages.WebhookAttempted` the process writes (stream
``webhook-<subscription>.deliveries.<instance>``, topic ``arbiter.tournament.commands``, like
the subscription commands, chained: :mod:`shared.chain`) before it attempts the next message
of that subscription. At start the process reads the whole log up to its end and folds it
(subscriptions, attempts, and the messages each subscription wants) *without delivering*,
then follows the log and delivers. So a restart loses no delivery (what was not recorded
delivered is queued again) and repeats at most the one message per subscription that was
in flight (answered, not yet recorded: at-least-once; the receiver drops it by its
``X-Arbiter-Delivery`` id), and a retry keeps its recorded time and attempt count. The
gateway reads the same records for ``GET /webhooks/{id}/deliveries`` (its read model keeps
every aggregate's messages), so there is no second store to keep in step. The cost: one
record on the log per attempt, and a start that reads the whole log (as a gateway without a
snapshot does).

One instance at a time: it owns no partitions; two would each deliver every message (still
at-least-once, with twice the duplicates).

Each POST: body = the message's envelope as the log holds it (JSON); headers
``X-Arbiter-Subscription``, ``X-Arbiter-Delivery`` (the same for every attempt of a message),
``X-Arbiter-Message`` (``<stream>:<seq>``), ``X-Arbiter-Attempt``, ``X-Arbiter-Timestamp``
(epoch s) and ``X-Arbiter-Signature`` (:func:`shared.webhooks.signature`). A 2xx is
delivered; anything else, a timeout or a refused connection is retried (:func:`.core.judge`);
redirects are not followed. A connection goes only to a public address, or one
``ARBITER_WEBHOOK_ALLOW_HOSTS`` allows, checked on the addresses connected to
(:mod:`.targets`): a refused one is an attempt without answer whose error says
``forbidden-address`` and why.
"""
from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable

import httpx

from contracts.envelope import Actor, Envelope, dt_of
from contracts.messages import TOPICS, WebhookAttempted, envelope
from services.webhooks.core import DeliveryCore, Policy, judge
from services.webhooks.targets import guarded_transport
from shared.chain import canonical_text, chained
from shared.eventlog.base import Deduper, EventLog, Follower
from shared.webhooks import (
    Subscription, TargetPolicy, aggregate_of, delivery_id, message_id, signature, signing_secret,
    webhook_key,
)

log = logging.getLogger("arbiter.webhooks")
ACTOR = Actor(kind="service", id="webhooks")
#: Seconds an attempt waits for the receiver's answer.
TIMEOUT_S = 10.0
#: Seconds before a subscription's attempt is made again when its record could not be written.
UNRECORDED_PAUSE_S = 1.0


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000


class WebhookProcess:
    """Delivers the subscriptions on ``log`` (see the module doc). ``key``: the webhook key
    (default :func:`shared.webhooks.webhook_key`); ``policy``: retries (default the settings'
    ``ARBITER_WEBHOOK_MAX_ATTEMPTS`` and ``_BACKOFF_MS``); ``now_ms``: epoch-ms clock;
    ``transport``: an httpx transport (default: one connecting only to the public addresses
    and those ``ARBITER_WEBHOOK_ALLOW_HOSTS`` allows, :mod:`.targets`). :meth:`start` after
    the log is started."""

    def __init__(self, log: EventLog, *, key: bytes | None = None, policy: Policy | None = None,
                 now_ms: Callable[[], int] | None = None, timeout_s: float = TIMEOUT_S,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        from shared.config import settings

        s = settings()
        self.log = log
        self.key = key or webhook_key()
        self.policy = policy or Policy(s.webhook_max_attempts, s.webhook_backoff_ms)
        self.now_ms = now_ms or _wall_ms
        self.core = DeliveryCore()
        self.dedupe = Deduper()
        self.instance = secrets.token_hex(4)
        self.seqs: dict[str, int] = {}
        self.heads: dict[str, str] = {}
        self.busy: set[str] = set()
        self.tasks: set[asyncio.Task] = set()
        self.ready = False
        self.attempted = 0
        transport = transport or guarded_transport(TargetPolicy.from_settings(s))
        self._client = httpx.AsyncClient(timeout=timeout_s, follow_redirects=False, transport=transport,
                                         trust_env=False)  # an environment proxy would bypass it
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task | None = None
        self._stopping = False
        self.follower: Follower | None = None

    # ------------------------------------------------------------------------------- the log
    async def start(self) -> None:
        """Fold the log up to its end (nothing delivered meanwhile), then follow it and deliver."""
        msgs, ends = await self.log.read_tail(TOPICS, {})
        for _, _, m in msgs:
            self.ingest(m)
        self.follower = self.log.follow(TOPICS, ends, self._on_message)
        self._loop_task = asyncio.create_task(self._loop(), name="webhooks")
        self.ready = True

    async def stop(self) -> None:
        """Stop delivering (attempts under way are cancelled: not recorded, made again at the
        next start) and following the log."""
        self.ready = False
        self._stopping = True  # the loop ends at its next turn (a cancel inside wait_for can be
        self._wake.set()       # swallowed on Python 3.11, leaving the loop running)
        for t in self.tasks:
            t.cancel()
        await asyncio.gather(*[t for t in [self._loop_task, *self.tasks] if t], return_exceptions=True)
        if self.follower is not None:
            await self.follower.stop()
        await self._client.aclose()

    def ingest(self, msg: Envelope) -> None:
        """Hand ``msg`` to the core once (a redelivered copy, or this process's own record
        coming back from the log, is skipped)."""
        if self.dedupe.seen(msg):
            return
        self.dedupe.mark(msg)
        self.core.handle(msg)

    async def _on_message(self, topic: str, msg: Envelope) -> None:
        self.ingest(msg)
        self._wake.set()

    def status(self) -> dict:
        """``/healthz``'s body: ready, subscriptions, messages queued, attempts made."""
        return {"ready": self.ready, "subscriptions": len(self.core.book.subs),
                "queued": sum(len(q) for q in self.core.queues.values()),
                "failing": sorted(s.id for s in self.core.book.subs.values() if s.failing),
                "attempted": self.attempted, "instance": self.instance}

    # ----------------------------------------------------------------------------- delivery
    async def _loop(self) -> None:
        while not self._stopping:
            for sub, msg in self.core.due(self.now_ms(), frozenset(self.busy)):
                self.busy.add(sub.id)
                t = asyncio.create_task(self._attempt(sub, msg), name=f"webhook-{sub.id}")
                self.tasks.add(t)
                t.add_done_callback(self.tasks.discard)
            deadline = self.core.next_deadline()
            delay = 0.5 if deadline is None else min(0.5, max(0.001, (deadline - self.now_ms()) / 1000))
            self._wake.clear()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=delay)
            except asyncio.TimeoutError:
                pass

    async def _attempt(self, sub: Subscription, msg: Envelope) -> None:
        """POST ``msg`` to ``sub``, then record the attempt on the log (and fold it at once)."""
        try:
            status, error = await self._post(sub, msg)
            self.attempted += 1
            now = self.now_ms()
            await self._record(judge(sub, msg, status, error, now, self.policy), now)
        except Exception:  # the record was not written: the attempt is made again
            log.warning("webhooks: attempt of %s to %s not recorded", message_id(msg), sub.id, exc_info=True)
            await asyncio.sleep(UNRECORDED_PAUSE_S)
        finally:
            self.busy.discard(sub.id)
            self._wake.set()

    async def _post(self, sub: Subscription, msg: Envelope) -> tuple[int | None, str]:
        """The receiver's HTTP status (None: no answer) and, unless a 2xx, why."""
        body = msg.model_dump_json().encode()
        ts = str(self.now_ms() // 1000)
        mid = message_id(msg)
        headers = {"content-type": "application/json", "user-agent": "arbiter-webhooks/1",
                   "X-Arbiter-Subscription": sub.id, "X-Arbiter-Delivery": delivery_id(sub.id, mid),
                   "X-Arbiter-Message": mid, "X-Arbiter-Attempt": str(sub.attempts + 1),
                   "X-Arbiter-Timestamp": ts,
                   "X-Arbiter-Signature": signature(signing_secret(self.key, sub.id), ts, body)}
        try:
            r = await self._client.post(sub.spec.url, content=body, headers=headers)
        except httpx.HTTPError as e:
            return None, f"{type(e).__name__}: {e}"
        return r.status_code, "" if 200 <= r.status_code < 300 else f"HTTP {r.status_code}"

    async def _record(self, p: WebhookAttempted, at_ms: int) -> None:
        """Write ``p`` (judged at ``at_ms``, its event time) on this instance's deliveries stream of its subscription (chained; a
        publish that may or may not have happened moves the instance to new streams, as the
        gateway does) and fold it."""
        stream = f"{aggregate_of(p.subscription_id)}.deliveries.{self.instance}"
        seq = self.seqs.get(stream, 0) + 1
        msg = envelope(p, stream=stream, seq=seq, occurred_at=dt_of(at_ms), actor=ACTOR)
        msg = chained(msg, self.heads.get(stream), canonical_text(msg))
        try:
            await self.log.publish(p.TOPIC, msg)
        except Exception:
            self.instance = secrets.token_hex(4)
            raise
        self.seqs[stream], self.heads[stream] = seq, msg.chain
        self.ingest(msg)


def webhooks_app(bus: str):
    """The FastAPI app hosting the webhooks process on ``bus`` (``kafka://HOST:PORT``):
    ``/healthz`` (200 once the log is folded and deliveries run; 503 before) and ``/metrics``.
    Raises ``ValueError`` for a bus that is not Kafka."""
    from contextlib import asynccontextmanager

    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, Response
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    from shared.eventlog.base import open_log

    if not bus.startswith("kafka://") or len(bus) <= len("kafka://"):
        raise ValueError(f"the webhooks process runs on Kafka: --bus kafka://HOST:PORT, not {bus!r}")
    event_log = open_log(bus)
    proc = WebhookProcess(event_log)

    @asynccontextmanager
    async def lifespan(app):
        await event_log.start()
        await proc.start()
        try:
            yield
        finally:
            await proc.stop()
            await event_log.stop()

    app = FastAPI(title="Arbiter webhooks", lifespan=lifespan)

    @app.get("/healthz")
    async def healthz():
        st = {"service": "webhooks", "bus": bus, **proc.status()}
        return JSONResponse(st, status_code=200 if st["ready"] else 503)

    @app.get("/metrics")
    async def metrics():
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return app
