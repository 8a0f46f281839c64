"""Signed webhooks, the parts the gateway and the webhooks process share (issue 12 item 4).

- Secrets. A subscription's signing secret is never on the log: it is
  ``hex(HMAC-SHA256(ARBITER_WEBHOOK_KEY, "arbiter-webhook:" + subscription id))``
  (:func:`signing_secret`), so the gateway that registers it and the process that signs the
  deliveries derive the same one, and a leaked log reveals none. Without the key a process
  draws one of its own (in-process use: ``arbiter demo``, the tests; the webhooks process
  refuses to listen beyond loopback, :func:`shared.config.require_for_address`).
- Signatures. ``X-Arbiter-Signature: sha256=<hex>``: HMAC-SHA256 under the secret (its UTF-8
  bytes) over ``<X-Arbiter-Timestamp> "." <body>`` (:func:`signature`), the scheme of Stripe
  and GitHub webhooks; the timestamp (epoch seconds) lets a receiver refuse replays.
- Targets. A subscription's URL must reach a public address: a loopback, private, link-local,
  reserved, multicast, unspecified or otherwise non-global one (169.254.169.254, the cloud
  metadata service; 127.0.0.1; 10.0.0.0/8...) is refused (server-side request forgery), by
  literal address and by a host name resolving to one (:class:`TargetPolicy`, :func:`resolve`),
  unless the operator allows it in ``ARBITER_WEBHOOK_ALLOW_HOSTS`` (host names, addresses,
  networks). The gateway checks at registration (422 ``forbidden-address``); the webhooks
  process checks again at each connection, on the addresses it then connects to (a name that
  resolved to a public address at registration and to a private one later, DNS rebinding,
  is refused and the attempt logged), :mod:`services.webhooks.targets`.
- The subscriptions' fold (:class:`WebhookBook`): the subscription commands and the delivery
  attempts of the log, in log order, into each subscription's state: scope, types, failing,
  the attempt due, the last delivered seq of each stream, and (``keep_log``) the attempts.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import logging
import socket
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from contracts.envelope import Actor, Envelope, key_of
from contracts.messages import (
    IDENTITY, PAYLOAD_TYPES, TOPICS, WEBHOOK, WEBHOOK_MESSAGES, EnableWebhook, RegisterWebhook,
    RemoveWebhook, WebhookAttempted,
)
from shared.config import ENV_PREFIX, IPNetwork, Settings, key_or_drawn, parse_hosts

log = logging.getLogger("arbiter.webhooks")
SCHEMES = ("http", "https")
#: Attempts kept per subscription for ``GET /webhooks/{id}/deliveries`` (the latest ones).
KEPT_ATTEMPTS = 1000
#: The message types a subscription may ask for: every command and event of the four topics,
#: but the subscriptions' own and the token revocations.
DELIVERABLE = frozenset(n for n, p in PAYLOAD_TYPES.items() if p.TOPIC in TOPICS
                        and n not in WEBHOOK_MESSAGES and n != "RevokeToken")
_NS = uuid.UUID("0b7f4c52-6a43-4f0e-9d43-2f7b8e3c9a11")
_warned = False


def webhook_key() -> bytes:
    """The deployment's webhook key (``ARBITER_WEBHOOK_KEY``, UTF-8), or this process's own
    random one (logged as a warning once)."""
    global _warned
    key, drawn = key_or_drawn("webhook_key")
    if drawn and not _warned:
        _warned = True
        log.warning("ARBITER_WEBHOOK_KEY is not set: webhook secrets come from a key of this "
                    "process's own, which no other process shares")
    return key


def signing_secret(key: bytes, subscription_id: str) -> str:
    """The signing secret of subscription ``subscription_id`` under ``key``: 64 hex digits."""
    return hmac.new(key, f"arbiter-webhook:{subscription_id}".encode(), hashlib.sha256).hexdigest()


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=<hex>``: HMAC-SHA256 under ``secret`` (UTF-8) over ``timestamp "." body``."""
    mac = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def verify(secret: str, timestamp: str, body: bytes, header: str) -> bool:
    """True when ``header`` (``X-Arbiter-Signature``) signs ``timestamp`` and ``body`` (constant time)."""
    return hmac.compare_digest(signature(secret, timestamp, body).encode(), header.encode())


def delivery_id(subscription_id: str, message_id: str) -> str:
    """The id of a message's delivery to a subscription: the same at every attempt and after a
    restart (UUIDv5), so a receiver drops an at-least-once duplicate by it."""
    return str(uuid.uuid5(_NS, f"{subscription_id}:{message_id}"))


def check_url(url: str) -> str:
    """``url`` when it is an absolute http or https URL with a host and no credentials; else
    ``ValueError`` saying what is wrong. Where the host leads is :class:`TargetPolicy`'s."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as e:
        raise ValueError(f"not a URL: {e}") from None
    if parts.scheme.lower() not in SCHEMES:
        raise ValueError(f"the scheme must be http or https, not {parts.scheme or 'none'!r}")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValueError("credentials in the URL are refused (the signature authenticates us)")
    if not parts.hostname:
        raise ValueError("the URL has no host")
    if port == 0 or any(c.isspace() for c in url):
        raise ValueError("the URL has port 0 or white space")
    return url


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
#: Seconds a target's name resolution may take before it counts as not resolving.
RESOLVE_TIMEOUT_S = 5.0
#: What an address is that no webhook goes to unless allowed: the ``ipaddress`` property that
#: says so (IANA special-purpose registries, RFC 6890), in the order the refusal names them.
_NOT_PUBLIC = (("loopback", "is_loopback"), ("link-local", "is_link_local"),
               ("unspecified", "is_unspecified"), ("multicast", "is_multicast"),
               ("private", "is_private"), ("reserved", "is_reserved"))


def not_public(ip: IPAddress) -> str | None:
    """Why ``ip`` is no webhook target (``"loopback"``, ``"link-local"``, ``"unspecified"``,
    ``"multicast"``, ``"private"``, ``"reserved"``, ``"not global"``: e.g. 100.64.0.0/10,
    shared address space), or None for a global unicast address. An IPv4-mapped IPv6 address
    (``::ffff:a.b.c.d``) and a 6to4 one (``2002:AABB:CCDD::``, RFC 3056: the IPv4 address
    ``A.B.C.D`` it tunnels to; ``ipaddress`` counts 2002::/16 as global) are judged as their
    IPv4 address."""
    if isinstance(ip, ipaddress.IPv6Address):
        ip = ip.ipv4_mapped or ip.sixtofour or ip
    for what, prop in _NOT_PUBLIC:
        if getattr(ip, prop):
            return what
    return None if ip.is_global else "not global"


@dataclass(frozen=True)
class TargetPolicy:
    """Which webhook targets are allowed although not public: host ``names`` (lower case, any
    address they resolve to) and ``networks`` (an address in one). ``TargetPolicy()``: none."""

    names: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_settings(cls, s: Settings) -> TargetPolicy:
        """The policy of ``ARBITER_WEBHOOK_ALLOW_HOSTS`` (:func:`shared.config.parse_hosts`)."""
        names, networks = parse_hosts(s.webhook_allow_hosts)
        return cls(names, networks)

    def refusal(self, host: str, addresses: list[IPAddress]) -> str | None:
        """None when ``host`` may be a target at ``addresses`` (its resolution, or the address
        it is); else why not, naming the first address refused and what it is."""
        if host.lower().rstrip(".").strip("[]") in self.names:
            return None
        for ip in addresses:
            why = not_public(ip)
            plain = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped else ip
            if why is None or any(a in n for n in self.networks for a in {ip, plain}):
                continue
            where = host.strip("[]") if [ip] == _literal(host) else f"{host} resolves to {ip}, which"
            return (f"{where} is {why}: no webhook goes to an address that is not public unless "
                    f"the operator allows it ({ENV_PREFIX}WEBHOOK_ALLOW_HOSTS)")
        return None


def _literal(host: str) -> list[IPAddress]:
    """``[address]`` when ``host`` is an IP address in its standard notation, else ``[]``."""
    try:
        return [ipaddress.ip_address(host.strip("[]"))]
    except ValueError:
        return []


async def resolve(host: str, port: int | None = None,
                  timeout_s: float = RESOLVE_TIMEOUT_S) -> list[IPAddress]:
    """The addresses of ``host``, in the resolver's order without repeats: an IP literal is
    its own (brackets allowed); a name is resolved (the event loop's ``getaddrinfo``, what a
    connection would use: numeric forms such as ``2130706433`` too). ``[]`` when it does not
    resolve within ``timeout_s`` seconds."""
    if literal := _literal(host):
        return literal
    bare = host.strip("[]")
    try:
        infos = await asyncio.wait_for(asyncio.get_running_loop().getaddrinfo(
            bare, port, type=socket.SOCK_STREAM), timeout_s)
    except (OSError, UnicodeError, asyncio.TimeoutError):
        return []
    out: list[IPAddress] = []
    for *_, sockaddr in infos:
        ip = ipaddress.ip_address(sockaddr[0])
        if ip not in out:
            out.append(ip)
    return out


def message_id(msg: Envelope) -> str:
    """``<stream>:<seq>``: a message's id in the deliveries (unique on the log)."""
    return f"{msg.stream}:{msg.seq}"


def aggregate_of(subscription_id: str) -> str:
    """The aggregate of a subscription's commands and attempts: ``webhook-<id>``."""
    return f"{WEBHOOK}-{subscription_id}"


@dataclass
class Subscription:
    """One subscription as the log tells it: the registration's fields and owner
    (``owner``: the actor who registered it), ``failing`` (attempts used up), the head's
    ``attempts`` so far and ``next_at_ms`` (epoch ms) of its next one, ``done``: stream -> the
    last seq delivered, ``attempts_log``: the latest attempts (dicts) when kept."""

    id: str
    owner: Actor
    spec: RegisterWebhook
    registered_at_ms: int
    failing: bool = False
    attempts: int = 0
    next_at_ms: int = 0
    done: dict[str, int] = field(default_factory=dict)
    attempts_log: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.types = frozenset(self.spec.types)

    @property
    def key(self) -> str | None:
        """What the scope names: ``game-<id>`` (an aggregate), ``tournament-<id>`` (a partition
        key, :func:`contracts.envelope.key_of`), None for ``all``."""
        return None if self.spec.scope == "all" else f"{self.spec.scope}-{self.spec.scope_id}"

    def wants(self, msg: Envelope) -> bool:
        """True when ``msg`` is of a subscribed type, in the scope, not already delivered, and
        not a subscription's or identity message (never delivered: secrets of others)."""
        agg = msg.aggregate
        if msg.type not in self.types or agg == IDENTITY or agg.startswith(WEBHOOK + "-"):
            return False
        if msg.seq <= self.done.get(msg.stream, 0):
            return False
        s = self.spec
        if s.scope == "game":
            return agg == self.key
        key = key_of(agg)  # tournament-<tid> for an event and every game it paired
        if s.scope == "tournament":
            return key == self.key
        return "*" in s.events or (key.startswith("tournament-") and key[len("tournament-"):] in s.events)

    def as_dict(self) -> dict:
        """The subscription as ``GET /webhooks/{id}`` shows it (no secret)."""
        s = self.spec
        return {"subscription_id": self.id, "owner": f"{self.owner.kind}:{self.owner.id}",
                "url": s.url, "scope": s.scope, "scope_id": s.scope_id, "types": list(s.types),
                "events": list(s.events), "failing": self.failing,
                "next_retry_at_ms": self.next_at_ms if self.attempts else None}


class WebhookBook:
    """Every subscription, folded in log order from the webhook messages
    (:data:`contracts.messages.WEBHOOK_MESSAGES`): pure, the same input gives the same state
    in the gateway and in the webhooks process. ``keep_log``: keep the latest
    :data:`KEPT_ATTEMPTS` attempts of each (the gateway's delivery log)."""

    def __init__(self, keep_log: bool = False) -> None:
        self.subs: dict[str, Subscription] = {}
        self.keep_log = keep_log

    def apply(self, msg: Envelope) -> Subscription | None:
        """Fold ``msg`` (other types are ignored); returns the subscription it touched."""
        if msg.type not in WEBHOOK_MESSAGES:
            return None
        p = msg.payload
        if isinstance(p, RegisterWebhook):
            if p.subscription_id not in self.subs:
                self.subs[p.subscription_id] = Subscription(p.subscription_id, msg.actor, p, msg.at_ms)
            return self.subs[p.subscription_id]
        sub = self.subs.get(p.subscription_id)
        if sub is None:
            return None
        if isinstance(p, RemoveWebhook):
            del self.subs[p.subscription_id]
        elif isinstance(p, EnableWebhook):
            sub.failing, sub.attempts, sub.next_at_ms = False, 0, 0
        elif isinstance(p, WebhookAttempted):
            self._attempted(sub, p, msg.at_ms)
        return sub

    def _attempted(self, sub: Subscription, p: WebhookAttempted, at_ms: int) -> None:
        if p.outcome == "delivered":
            stream, _, seq = p.message_id.rpartition(":")
            sub.done[stream] = max(sub.done.get(stream, 0), int(seq))
            sub.attempts, sub.next_at_ms = 0, 0
        elif p.outcome == "retry":
            sub.attempts, sub.next_at_ms = p.attempt, p.next_retry_at_ms or 0
        else:
            sub.failing, sub.attempts, sub.next_at_ms = True, p.attempt, 0
        if self.keep_log:
            sub.attempts_log.append({"at_ms": at_ms, **p.model_dump(mode="json")})
            del sub.attempts_log[:-KEPT_ATTEMPTS]
