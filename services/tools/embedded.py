"""An Arbiter in one process, or a client of a running one: the gateway behind an HTTP client.

``arbiter demo`` and ``arbiter run-tournament`` talk to Arbiter only through the gateway's HTTP
API, exactly as an organiser's tool would. :func:`arbiter_client` gives them that client:

- ``bus="memory"``: the game and tournament processes and the gateway in this process on the memory log;
- ``bus="kafka://HOST:PORT"``: the same on Kafka (each process in a KafkaHost, as when run alone)
  (every message goes through the broker);
- ``gateway="http://..."``: nothing is started; the client talks to a running gateway (``arbiter
  up``), whose services run as separate processes.
"""
from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx

ADMIN_TOKEN_ENV = "ARBITER_ADMIN_TOKEN"


@asynccontextmanager
async def arbiter_client(bus: str = "memory", *, gateway: str | None = None, ticks: bool = True,
                         now_ms=None) -> AsyncIterator[httpx.AsyncClient]:
    """An ``httpx.AsyncClient`` on the gateway, carrying the arbiter token.

    ``ticks``: run the clock's flag timer on wall time (off when hosting recorded games, whose
    moves carry recorded times). Raises ``ValueError`` for a bad ``bus``.
    """
    token = os.environ.get(ADMIN_TOKEN_ENV, "local-arbiter")
    headers = {"X-Arbiter-Token": token}
    if gateway:
        async with httpx.AsyncClient(base_url=gateway, headers=headers, timeout=60) as c:
            yield c
        return
    from services.gateway.app import create_app
    from shared.eventlog.base import open_log
    from shared.system import System

    log = open_log(bus)
    system = System(log, ticks=ticks, now_ms=now_ms)
    app = create_app(log, admin_token=token, manage_log=False, now_ms=now_ms, wait_timeout=30.0)
    await system.recover()
    await log.start()
    await system.start_timers()
    try:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://arbiter",
                                         headers=headers, timeout=60) as c:
                c.arbiter_log = log  # type: ignore[attr-defined]  (export, tests)
                yield c
    finally:
        await system.stop()
        await log.stop()
