"""What the webhooks process delivers, when, and what an attempt's answer means: pure, no I/O,
no clock (time comes in as ``now_ms``, epoch ms).

The input is the log as the process reads it, in order (:meth:`DeliveryCore.handle`): the
subscription commands and delivery attempts fold into a :class:`shared.webhooks.WebhookBook`;
every other message is queued for each subscription that wants it (its scope and types; read
after the subscription's registration; a stream's seq not yet delivered), in the order read,
so a game's messages reach a subscriber in the game's order. :meth:`DeliveryCore.due` names
each subscription's head when it is due; :func:`judge` turns an attempt's HTTP status into the
:class:`~contracts.messages.WebhookAttempted` the process writes on the log: delivered (2xx),
retried after an exponential backoff, or failed once ``max_attempts`` are used up (the
subscription then stops until its owner re-enables it).
"""
from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from contracts.envelope import Envelope, key_of
from contracts.messages import WEBHOOK_MESSAGES, RegisterWebhook, RemoveWebhook, WebhookAttempted
from shared.webhooks import Subscription, WebhookBook, delivery_id, message_id

#: The longest delay between two attempts (ms).
MAX_BACKOFF_MS = 3_600_000


@dataclass(frozen=True)
class Policy:
    """Retries: ``max_attempts`` per message, the first retry after ``backoff_ms``, each next
    one after twice the previous delay, at most :data:`MAX_BACKOFF_MS`."""

    max_attempts: int = 8
    backoff_ms: int = 1000

    def delay_ms(self, attempt: int) -> int:
        """The delay after failed attempt ``attempt`` (1, 2, ...): ``backoff_ms * 2**(attempt-1)``."""
        return min(MAX_BACKOFF_MS, self.backoff_ms * 2 ** min(attempt - 1, 40))


def judge(sub: Subscription, msg: Envelope, status: int | None, error: str, now_ms: int,
          policy: Policy) -> WebhookAttempted:
    """The record of attempt ``sub.attempts + 1`` of ``msg`` to ``sub`` answered with HTTP
    ``status`` (None: no answer; ``error`` says why) at ``now_ms``: ``delivered`` for a 2xx,
    else ``retry`` at ``now_ms`` + :meth:`Policy.delay_ms`, or ``failed`` at the last attempt."""
    attempt = sub.attempts + 1
    mid = message_id(msg)
    common = dict(subscription_id=sub.id, delivery_id=delivery_id(sub.id, mid), message_id=mid,
                  message_type=msg.type, attempt=attempt, status=status, error=error[:500])
    if status is not None and 200 <= status < 300:
        return WebhookAttempted(outcome="delivered", **common)
    if attempt >= policy.max_attempts:
        return WebhookAttempted(outcome="failed", **common)
    return WebhookAttempted(outcome="retry", next_retry_at_ms=now_ms + policy.delay_ms(attempt), **common)


class DeliveryCore:
    """The subscriptions (``book``) and, per subscription, the messages still to deliver in
    order (``queues``: message id -> message); ``scoped``: the subscriptions by what their
    scope names (:attr:`Subscription.key`; None: scope all), so that a message costs the
    subscriptions that may want it, not all of them."""

    def __init__(self) -> None:
        self.book = WebhookBook()
        self.queues: dict[str, OrderedDict[str, Envelope]] = {}
        self.scoped: dict[str | None, dict[str, Subscription]] = {}

    def handle(self, msg: Envelope) -> None:
        """Take ``msg``, the next message of the log as read (see the module doc)."""
        if msg.type in WEBHOOK_MESSAGES:
            self._control(msg)
            return
        if not self.book.subs:
            return
        agg = msg.aggregate
        for key in dict.fromkeys((agg, key_of(agg), None)):
            for sid, sub in self.scoped.get(key, {}).items():
                if sub.wants(msg):
                    self.queues.setdefault(sid, OrderedDict()).setdefault(message_id(msg), msg)

    def _control(self, msg: Envelope) -> None:
        sub = self.book.apply(msg)
        p = msg.payload
        if isinstance(p, RegisterWebhook) and sub is not None:
            self.scoped.setdefault(sub.key, {})[sub.id] = sub
        elif isinstance(p, RemoveWebhook):
            self.queues.pop(p.subscription_id, None)
            for subs in self.scoped.values():
                subs.pop(p.subscription_id, None)
        elif isinstance(p, WebhookAttempted) and p.outcome == "delivered":
            self.queues.get(p.subscription_id, OrderedDict()).pop(p.message_id, None)

    def due(self, now_ms: int, busy: frozenset[str] = frozenset()) -> list[tuple[Subscription, Envelope]]:
        """Each subscription's next message to attempt at ``now_ms``: the head of its queue,
        unless it is failing, waiting for its retry time, or in ``busy`` (an attempt under way)."""
        out = []
        for sid, q in self.queues.items():
            sub = self.book.subs.get(sid)
            if q and sub is not None and not sub.failing and sid not in busy and sub.next_at_ms <= now_ms:
                out.append((sub, next(iter(q.values()))))
        return out

    def next_deadline(self) -> int | None:
        """The earliest retry time (epoch ms) of a waiting subscription, or None."""
        return min((s.next_at_ms for sid, s in self.book.subs.items()
                    if self.queues.get(sid) and not s.failing and s.next_at_ms), default=None)
