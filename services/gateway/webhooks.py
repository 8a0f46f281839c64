"""Webhook subscriptions at the gateway (issue 12 item 4): ``/webhooks``.

An integrator registers a target URL, a scope (one game, one event with all its games, or
everything his token may read) and the message types wanted; the answer carries the
subscription id and its signing secret, shown this once (derived from ``ARBITER_WEBHOOK_KEY``,
never on the log: :mod:`shared.webhooks`). Registration, removal and re-enabling are commands
on the log (:class:`~contracts.messages.RegisterWebhook`, ``RemoveWebhook``, ``EnableWebhook``,
aggregate ``webhook-<id>``), so they survive restarts and replays; the webhooks process
(:mod:`services.webhooks`) delivers and records each attempt on the same aggregate, which this
module folds (:class:`shared.webhooks.WebhookBook`) from the read model's history for
``GET /webhooks/{id}`` and ``GET /webhooks/{id}/deliveries``.

Identity on: the administrator, integrators and organisers (within their tokens' events),
and only the owner (or the administrator) reads, removes or re-enables a subscription (403).
Identity off: open, like the other routes (loopback only then).
"""
from __future__ import annotations

import secrets
from collections import OrderedDict
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from contracts.envelope import Actor
from contracts.messages import EnableWebhook, RegisterWebhook, RemoveWebhook, parse_message
from services.gateway import identity
from services.gateway.errors import HTTPError
from shared.config import settings
from shared.webhooks import (
    DELIVERABLE, Subscription, TargetPolicy, WebhookBook, aggregate_of, check_url, resolve,
    signing_secret, webhook_key,
)

_ID = r"^[A-Za-z0-9_\-]{1,80}$"
#: The owner recorded when identity is off (nobody is authenticated).
ANONYMOUS = Actor(kind="integrator", id="anonymous")
#: Subscriptions whose fold is kept between requests (the latest used).
CACHED = 1000


class WebhookBody(BaseModel):
    """A subscription: ``url`` (http or https, no credentials), ``scope`` (``game``,
    ``tournament``: ``scope_id`` names it; ``all``: none), ``types`` (message type names,
    e.g. ``["MoveAccepted", "GameEnded"]``)."""

    model_config = ConfigDict(extra="forbid")
    url: str = Field(min_length=1, max_length=2000)
    scope: Literal["game", "tournament", "all"]
    scope_id: str | None = Field(default=None, pattern=_ID)
    types: list[Annotated[str, Field(max_length=80)]] = Field(min_length=1, max_length=200)


def _checked(body: WebhookBody) -> None:
    """422 ``bad-url``, ``unknown-type`` or ``malformed`` (a scope id missing or extra)."""
    try:
        check_url(body.url)
    except ValueError as e:
        raise HTTPError(422, f"url: {e}", code="bad-url") from None
    if unknown := sorted(set(body.types) - DELIVERABLE):
        raise HTTPError(422, f"types: not message types a webhook delivers: {unknown[:10]}",
                        code="unknown-type")
    if (body.scope == "all") != (body.scope_id is None):
        raise HTTPError(422, "scope_id names the game or tournament of scope game or tournament, "
                             "and is absent for scope all", code="malformed")


async def _target_allowed(url: str) -> None:
    """422 ``forbidden-address`` when ``url``'s host is, or resolves to, an address that is not
    public (loopback, private, link-local...: :class:`shared.webhooks.TargetPolicy`) and
    ``ARBITER_WEBHOOK_ALLOW_HOSTS`` does not allow it. A name that does not resolve now is
    accepted: the webhooks process checks each connection's addresses again."""
    host, port = urlsplit(url).hostname, urlsplit(url).port  # check_url made sure both parse
    why = TargetPolicy.from_settings(settings()).refusal(host, await resolve(host, port))
    if why is not None:
        raise HTTPError(422, f"url: {why}", code="forbidden-address")


def _scope_known(gw: Any, body: WebhookBody) -> None:
    """404 ``no-such-game`` or ``no-such-tournament`` (the codes the game and tournament
    services reject a command on an unknown aggregate with) when the scope names a game or a
    tournament this gateway does not know: a subscription to nothing would stay silent."""
    if body.scope == "game" and gw.rm.game(body.scope_id) is None:
        raise HTTPError(404, f"no such game: {body.scope_id}", code="no-such-game")
    if body.scope == "tournament" and gw.rm.tournament(body.scope_id) is None:
        raise HTTPError(404, f"no such tournament: {body.scope_id}", code="no-such-tournament")


class _Folds:
    """Each subscription's fold of its aggregate's history (``rm.history``, append-only),
    kept for the latest :data:`CACHED` and brought up to date on each read."""

    def __init__(self) -> None:
        self.folds: OrderedDict[str, tuple[int, WebhookBook]] = OrderedDict()

    def get(self, gw: Any, sid: str) -> Subscription:
        """The subscription ``sid`` as the log tells it; 404 ``not-found`` (never registered,
        or removed)."""
        history = gw.rm.history.get(aggregate_of(sid), ()) if _valid(sid) else ()
        done, book = self.folds.pop(sid, (0, None))
        if book is None or done > len(history):
            done, book = 0, WebhookBook(keep_log=True)
        for r in history[done:]:
            book.apply(parse_message(r.json))
        self.folds[sid] = (len(history), book)
        if len(self.folds) > CACHED:
            self.folds.popitem(last=False)
        if (sub := book.subs.get(sid)) is None:
            raise HTTPError(404, f"no webhook subscription {sid}", code="not-found")
        return sub


def _valid(sid: str) -> bool:
    return 1 <= len(sid) <= 80 and all(c.isascii() and (c.isalnum() or c in "_-") for c in sid)


def _owner(gw: Any, ctx: Any, sub: Subscription) -> identity.Principal | None:
    """The caller (None: identity off). Identity on: 403 ``not-your-subscription`` unless the
    caller owns ``sub`` (or is the administrator); 401 without credentials."""
    p = gw.caller(ctx)
    if p is not None and not identity.owns_subscription(p, sub.owner):
        raise identity.AuthError(403, "not-your-subscription",
                                 f"{p.role} {p.sub} does not own webhook subscription {sub.id}")
    return p


def _registrant(gw: Any, ctx: Any, body: WebhookBody) -> tuple[Actor, tuple[str, ...]]:
    """The owner and events of a new subscription (:func:`identity.subscriber_actor`)."""
    p = gw.caller(ctx)
    if p is None:
        return ANONYMOUS, ("*",)
    tid = body.scope_id if body.scope == "tournament" else None
    if body.scope == "game" and (g := gw.rm.game(body.scope_id)) is not None:
        tid = g.tournament_id
    t = gw.rm.tournament(tid) if tid else None
    return identity.subscriber_actor(p, tid, t.created_by if t else None, body.scope == "all")


def webhook_router(gateway: Any, context: Any) -> APIRouter:
    """A router with the ``/webhooks`` routes; ``gateway`` the dependency giving the gateway
    (its ``caller``, ``send`` and read model), ``context`` the command-context dependency."""
    router = APIRouter(tags=["webhooks"])
    folds = _Folds()

    @router.post("/webhooks", status_code=201)
    async def register_webhook(body: WebhookBody, ctx: Any = context, gw: Any = gateway) -> dict:
        """Register a subscription. Answer 201 ``{"subscription_id", "secret", ...}``: keep the
        secret, it is not shown again (``X-Arbiter-Signature`` is ``sha256=`` HMAC-SHA256
        under it over ``<X-Arbiter-Timestamp>.<body>``). 422 ``bad-url`` (not http/https,
        credentials in it), ``forbidden-address`` (a host that is or resolves to an address
        that is not public, unless ``ARBITER_WEBHOOK_ALLOW_HOSTS`` allows it),
        ``unknown-type``, ``malformed``; 404 ``no-such-game``,
        ``no-such-tournament`` (the scope names none this gateway knows); 401; 403
        ``integrators-only``, ``not-your-event``. Nothing is written on a refusal."""
        _checked(body)
        await _target_allowed(body.url)
        _scope_known(gw, body)
        actor, events = _registrant(gw, ctx, body)
        sid = secrets.token_hex(8)
        payload = RegisterWebhook(subscription_id=sid, url=body.url, scope=body.scope,
                                  scope_id=body.scope_id, types=tuple(dict.fromkeys(body.types)),
                                  events=events)
        cmd, _ = await gw.send(payload, aggregate_of(sid), actor, at_ms=None, wait=False)
        return {"subscription_id": sid, "secret": signing_secret(webhook_key(), sid),
                "url": body.url, "scope": body.scope, "scope_id": body.scope_id,
                "types": list(payload.types), "events": list(events), "owner": f"{actor.kind}:{actor.id}",
                "command_id": str(cmd.event_id), "stream": cmd.stream, "seq": cmd.seq}

    @router.get("/webhooks/{sid}")
    async def get_webhook(sid: str, ctx: Any = context, gw: Any = gateway) -> dict:
        """The subscription (no secret): url, scope, types, ``failing``, ``next_retry_at_ms``."""
        sub = folds.get(gw, sid)
        _owner(gw, ctx, sub)
        return sub.as_dict()

    @router.get("/webhooks/{sid}/deliveries")
    async def get_deliveries(sid: str, limit: int = Query(100, ge=1, le=1000), ctx: Any = context,
                             gw: Any = gateway) -> dict:
        """The latest ``limit`` delivery attempts, oldest first: ``at_ms`` (epoch ms),
        ``message_id`` (``<stream>:<seq>``), ``message_type``, ``delivery_id``, ``attempt``,
        ``status`` (HTTP; null: no answer), ``error``, ``outcome`` (delivered, retry, failed),
        ``next_retry_at_ms``; and the subscription's ``failing`` and ``next_retry_at_ms``."""
        sub = folds.get(gw, sid)
        _owner(gw, ctx, sub)
        return {**sub.as_dict(), "attempts": sub.attempts_log[-limit:]}

    @router.delete("/webhooks/{sid}")
    async def remove_webhook(sid: str, ctx: Any = context, gw: Any = gateway) -> JSONResponse:
        """End the subscription (RemoveWebhook on the log): nothing more is delivered."""
        return await _command(gw, ctx, folds.get(gw, sid), RemoveWebhook)

    @router.post("/webhooks/{sid}/enable")
    async def enable_webhook(sid: str, ctx: Any = context, gw: Any = gateway) -> JSONResponse:
        """Re-enable a failing subscription (EnableWebhook on the log): the message it failed
        on is delivered again from attempt 1. 409 ``not-failing`` when it is not failing."""
        sub = folds.get(gw, sid)
        if not sub.failing:
            _owner(gw, ctx, sub)
            raise HTTPError(409, f"webhook subscription {sid} is not failing", code="not-failing")
        return await _command(gw, ctx, sub, EnableWebhook)

    return router


async def _command(gw: Any, ctx: Any, sub: Subscription, kind: type) -> JSONResponse:
    """Publish ``kind(subscription_id)`` for the owner (or the administrator): 200 with the
    command's id, stream and seq."""
    p = _owner(gw, ctx, sub)
    actor = identity.subscriber_actor(p, None, None)[0] if p is not None and p.role == "admin" else sub.owner
    cmd, _ = await gw.send(kind(subscription_id=sub.id), aggregate_of(sub.id), actor, at_ms=None, wait=False)
    return JSONResponse({"subscription_id": sub.id, "command": cmd.type, "command_id": str(cmd.event_id),
                         "stream": cmd.stream, "seq": cmd.seq})
