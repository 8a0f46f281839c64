"""Run one service as its own process on Kafka: ``python -m services.<name> [--bus ...] [--port N]``.

Each back-end service is its pure core in a :class:`shared.service.ServiceHost` on a
:class:`shared.eventlog.kafka.KafkaLog` (FastStream subscribers in consumer group = service name),
plus a small HTTP app with ``/healthz`` and ``/metrics`` (Prometheus). On start the service
rebuilds its state from the log (crash recovery) before it consumes live. The gateway runs its
FastAPI app (``/docs``, ``/healthz``, ``/metrics``).
"""
from __future__ import annotations

import argparse
import logging
import os
from contextlib import asynccontextmanager

PORTS = {"gateway": 8000, "game": 8001, "pairing": 8002, "standings": 8003}
DEFAULT_BUS = os.environ.get("ARBITER_BUS", "kafka://127.0.0.1:19092")


def service_app(name: str, bus: str):
    """The FastAPI app hosting back-end service ``name`` on ``bus``. Raises ``ValueError`` for
    an unknown service or bus."""
    from fastapi import FastAPI
    from fastapi.responses import Response
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    from shared.eventlog.base import open_log
    from shared.system import SERVICES, System

    if name not in SERVICES:
        raise ValueError(f"unknown service {name!r}; one of gateway, {', '.join(SERVICES)}")
    log = open_log(bus)
    system = System(log, [name], ticks=True)
    state = {"ready": False, "replayed": 0}

    @asynccontextmanager
    async def lifespan(app):
        host = system.hosts[name]
        state["replayed"] = await host.recover()
        await log.start()
        await system.start_timers()
        state["ready"] = True
        try:
            yield
        finally:
            state["ready"] = False
            await system.stop()
            await log.stop()

    app = FastAPI(title=f"Arbiter {name}", lifespan=lifespan)

    @app.get("/healthz")
    async def healthz():
        return {"service": name, "ready": state["ready"], "replayed_on_start": state["replayed"],
                "bus": bus}

    @app.get("/metrics")
    async def metrics():
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return app


def run_service(name: str, bus: str = DEFAULT_BUS, port: int | None = None) -> None:
    """Serve service ``name`` (or the gateway) on 127.0.0.1:``port`` until stopped."""
    import uvicorn

    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s {name} %(levelname)s %(message)s")
    if name == "gateway":
        from services.gateway.app import create_app
        from shared.eventlog.base import open_log

        app = create_app(open_log(bus), admin_token=os.environ.get("ARBITER_ADMIN_TOKEN", "local-arbiter"),
                         wait_timeout=30.0)
    else:
        app = service_app(name, bus)
    uvicorn.run(app, host="127.0.0.1", port=port or PORTS.get(name, 8000), log_level="warning")


def main(name: str) -> None:
    """Entry point of ``python -m services.<name>``."""
    ap = argparse.ArgumentParser(prog=f"python -m services.{name}")
    ap.add_argument("--bus", default=DEFAULT_BUS, help="kafka://HOST:PORT")
    ap.add_argument("--port", type=int, default=None, help=f"HTTP port (default {PORTS.get(name)})")
    a = ap.parse_args()
    try:
        run_service(name, a.bus, a.port)
    except ValueError as e:
        raise SystemExit(f"{name}: {e}")
