"""An Arbiter in one process, or a client of a running one: the gateway behind an HTTP client.

``arbiter demo`` and ``arbiter run-tournament`` talk to Arbiter only through the gateway's HTTP
API, exactly as an organiser's tool would. :func:`arbiter_client` gives them that client:

- ``bus="memory"``: the game and tournament processes, the gateway and the webhooks process in
  this process on the memory log;
- ``bus="kafka://HOST:PORT"``: the same on Kafka (each process in a KafkaHost, as when run alone)
  (every message goes through the broker);
- ``gateway="http://..."``: nothing is started; the client talks to a running gateway (``arbiter
  up``), whose services run as separate processes.
"""
from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx


@asynccontextmanager
async def arbiter_client(bus: str = "memory", *, gateway: str | None = None, ticks: bool = True,
                         now_ms=None) -> AsyncIterator[httpx.AsyncClient]:
    """An ``httpx.AsyncClient`` on the gateway, carrying the arbiter token: a running
    gateway's ``ARBITER_ADMIN_TOKEN`` (none when unset: its arbiter endpoints are then open,
    on loopback only), or for one started here a token drawn for it.

    ``ticks``: run the clock's flag timer on wall time (off when hosting recorded games, whose
    moves carry recorded times). Raises ``ValueError`` for a bad ``bus``.
    """
    from shared.config import settings

    s = settings()
    configured = s.admin_token
    token = configured.get_secret_value() if configured else (None if gateway else secrets.token_hex(16))
    headers = {"X-Arbiter-Token": token} if token else {}
    if gateway:
        async with httpx.AsyncClient(base_url=gateway, headers=headers, timeout=60) as c:
            yield c
        return
    from services.gateway.app import create_app
    from services.webhooks.process import WebhookProcess
    from shared.eventlog.base import open_log
    from services.system import System

    log = open_log(bus)
    system = System(log, ticks=ticks, now_ms=now_ms)
    app = create_app(log, admin_token=token, manage_log=False, now_ms=now_ms, wait_timeout=30.0,
                     jwt_secret=s.jwt_secret.get_secret_value() if s.jwt_secret else None)
    await system.recover()
    await log.start()
    await system.start_timers()
    webhooks = WebhookProcess(log, now_ms=now_ms)
    await webhooks.start()
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://arbiter",
                                         headers=headers, timeout=60) as c:
                c.arbiter_log = log  # type: ignore[attr-defined]  (export, tests)
                c.arbiter_webhooks = webhooks  # type: ignore[attr-defined]  (tests)
                c.arbiter_app = app  # type: ignore[attr-defined]  (tests: streams, driven as ASGI)
                yield c
    finally:
        await webhooks.stop()
        await system.stop()
        await log.stop()
