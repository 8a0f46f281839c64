"""Run one process on Kafka: ``python -m services.<game|tournament|gateway|webhooks> [--bus ...] [--port N]``.

A back-end process (``game``, ``tournament``: :mod:`services.system`) is its processor in a
:class:`shared.kafkahost.KafkaHost` (any number of instances in one consumer group; each owns
partitions, restored from snapshot + tail on assignment) plus a small HTTP app with
``/healthz`` and ``/metrics`` (Prometheus). The gateway runs its FastAPI app (``/docs``,
``/healthz``, ``/metrics``); the webhooks process its deliverer
(:func:`services.webhooks.process.webhooks_app`).
"""
from __future__ import annotations

import argparse
import ipaddress
import logging
import os
import sys
from contextlib import asynccontextmanager

from shared.config import parse_networks, require_for_address, settings

PORTS = {"gateway": 8000, "game": 8001, "tournament": 8002, "webhooks": 8003}

#: The interpreter's thread switch interval in a back-end process (seconds; Python's default is
#: 0.005). Its event loop decides while the committing and polling threads wait for the GIL
#: after each blocking librdkafka call (a transaction makes three), up to an interval each.
#: At 1,000 moves/s (``python -m loadtests.load``, same machine, same hour) 0.0005 took the
#: moves' p95 / p99 from 365 / 508 ms to 231 / 380 ms for the same CPU (both runs with the
#: load generator's earlier collector, which timed records up to 100 ms late: compare, do not
#: quote).
SWITCH_INTERVAL_S = 0.0005
#: The largest request head (request line and headers, bytes) the HTTP server (uvicorn's h11,
#: whose default is 16 KiB) reads. A larger one never reaches the app: uvicorn answers it with
#: its own plain-text 400, which no app can shape. The gateway refuses headers above its own
#: smaller limit in its refusal shape (:data:`services.gateway.limits.MAX_HEADER_BYTES`: 431).
HTTP_HEAD_BYTES = 65_536


def uvicorn_options() -> dict:
    """The options every process's uvicorn server gets besides the app and its address. The
    client address (what the gateway's failed-authentication limit counts) is the connecting
    one, unless it is one of ``ARBITER_TRUSTED_PROXIES``: then the address its
    ``X-Forwarded-For`` names. uvicorn's own default (trust loopback) is not kept: a local
    tunnel or proxy passing a client's header through would let the client name any address.
    Raises :class:`shared.config.ConfigError` for settings that cannot be used."""
    if os.environ.get("FORWARDED_ALLOW_IPS"):
        logging.getLogger("arbiter").warning(
            "FORWARDED_ALLOW_IPS is not read: the proxies whose X-Forwarded-For names the client "
            "are ARBITER_TRUSTED_PROXIES")
    nets = parse_networks(settings().trusted_proxies)
    # on "::" an IPv4 proxy connects as ::ffff:a.b.c.d, which uvicorn does not match to a.b.c.d
    mapped = [ipaddress.ip_network(f"::ffff:{n.network_address}/{96 + n.prefixlen}")
              for n in nets if n.version == 4]
    proxies = ",".join(str(n) for n in (*nets, *mapped))
    return {"log_level": "warning", "h11_max_incomplete_event_size": HTTP_HEAD_BYTES,
            "proxy_headers": bool(proxies), "forwarded_allow_ips": proxies or None}


def service_app(name: str, bus: str, instance_id: str | None = None):
    """The FastAPI app hosting back-end process ``name`` (``game``, ``tournament``) on ``bus``
    (``kafka://HOST:PORT``) with a :class:`shared.kafkahost.KafkaHost` under static group
    membership ``instance_id`` (``ARBITER_INSTANCE_ID`` overrides it): ``/healthz`` (ready
    once every owned partition is restored; 503 before, with the recovery progress) and
    ``/metrics``. Raises ``ValueError`` for an unknown process, a bus that is not Kafka or a
    setting that cannot be used (:func:`shared.config.settings`)."""
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, Response
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

    from shared.heap import no_automatic_full_collections
    from shared.kafkahost import KafkaHost
    from shared.metrics import RESTARTS
    from services.system import SERVICES, make_processor

    if name not in SERVICES:
        raise ValueError(f"unknown service {name!r}; one of gateway, {', '.join(SERVICES)}")
    if not bus.startswith("kafka://") or len(bus) <= len("kafka://"):
        raise ValueError(f"a service process runs on Kafka: --bus kafka://HOST:PORT, not {bus!r}")
    s = settings()
    host = KafkaHost(name, bus[len("kafka://"):], lambda: make_processor(name), ticks=(name == "game"),
                     load_snapshots=s.load_snapshots, snapshot_every_s=s.snapshot_every_s,
                     commit_interval_ms=s.commit_interval_ms, instance_id=s.instance_id or instance_id)
    restarts = s.restarts  # set by arbiter up
    RESTARTS.labels(name).inc(restarts)
    no_automatic_full_collections()  # the process's live state: see shared.heap
    sys.setswitchinterval(SWITCH_INTERVAL_S)

    @asynccontextmanager
    async def lifespan(app):
        await host.start()
        try:
            yield
        finally:
            await host.stop()

    app = FastAPI(title=f"Arbiter {name}", lifespan=lifespan)

    @app.get("/healthz")
    async def healthz():
        st = {"service": name, "bus": bus, "restarts": restarts, **host.status()}
        return JSONResponse(st, status_code=200 if st["ready"] else 503)

    @app.get("/metrics")
    async def metrics():
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)

    return app


def run_service(name: str, bus: str | None = None, port: int | None = None,
                host: str = "127.0.0.1") -> None:
    """Serve service ``name`` (or the gateway) on ``host``:``port`` until stopped; ``bus``:
    ``ARBITER_BUS`` when None. Raises ``ValueError`` (:class:`shared.config.ConfigError`) for
    a setting that cannot be used, or an address the settings do not allow
    (:func:`shared.config.require_for_address`: the gateway beyond loopback needs
    ``ARBITER_JWT_SECRET``; a game or tournament process ``ARBITER_SIGNING_KEY``; webhooks
    ``ARBITER_WEBHOOK_KEY``). ``SystemExit`` (one line) when it cannot listen or no broker
    answers at a ``kafka://`` bus within 5 s."""
    import uvicorn

    from shared.metrics import observe_gc

    if name not in PORTS:  # before the broker is asked
        raise ValueError(f"unknown service {name!r}; one of {', '.join(PORTS)}")
    s = settings()
    require_for_address(name, host, s)
    bus = bus or s.bus
    port = port or PORTS.get(name, 8000)
    # the port first: a second instance started by mistake on a taken port stops here, before
    # its transactional producer (same id) would fence the instance that holds the port
    sock = _bind(name, host, port)
    if bus.startswith("kafka://"):
        from shared.eventlog.kafka import no_broker

        if (why := no_broker(bus)) is not None:  # one line, not the Kafka client's traceback
            sock.close()
            raise SystemExit(f"{name}: {why}")
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s {name}:{port} %(levelname)s %(message)s")
    # aiokafka tells every coordinator lookup at INFO and, while the broker is away, every failed
    # connection and fetch at ERROR, each many times a second (13 MB of log in 30 s of outage,
    # burying ours); the processes report outages in their own words (/healthz, warnings)
    logging.getLogger("aiokafka").setLevel(logging.CRITICAL)
    observe_gc(name)
    if name == "gateway":
        from services.gateway.app import create_app
        from services.gateway.limits import HttpLimits
        from shared.eventlog.base import open_log

        token = s.admin_token.get_secret_value() if s.admin_token else None
        secret = s.jwt_secret.get_secret_value() if s.jwt_secret else None
        app = create_app(open_log(bus), admin_token=token, jwt_secret=secret, wait_timeout=30.0,
                         snapshot_every_s=s.gateway_snapshot_every_s, load_snapshots=s.load_snapshots,
                         limits=HttpLimits.from_settings(s))
    elif name == "webhooks":
        from services.webhooks.process import webhooks_app

        app = webhooks_app(bus)
    else:
        import socket

        app = service_app(name, bus, f"{name}-{socket.gethostname()}-{port}")
    uvicorn.Server(uvicorn.Config(app, **uvicorn_options())).run(sockets=[sock])


def _bind(name: str, host: str, port: int):
    """A listening socket on ``host``:``port`` (IPv6 when ``host`` has a colon; ``::`` takes
    IPv4 too where the system allows); SystemExit naming the address when it cannot listen."""
    import errno
    import socket

    v6 = ":" in host
    try:
        sock = socket.create_server((host, port), family=socket.AF_INET6 if v6 else socket.AF_INET,
                                    dualstack_ipv6=v6 and host == "::" and socket.has_dualstack_ipv6())
    except OSError as e:
        why = (": another instance there? Give each instance its own --port"
               if e.errno == errno.EADDRINUSE else "")
        raise SystemExit(f"{name}: cannot listen on {host}:{port} ({e.strerror or e}){why}") from None
    sock.set_inheritable(True)
    return sock


def main(name: str) -> None:
    """Entry point of ``python -m services.<name>``."""
    ap = argparse.ArgumentParser(prog=f"python -m services.{name}")
    ap.add_argument("--bus", default=None, help="kafka://HOST:PORT (default: ARBITER_BUS)")
    ap.add_argument("--port", type=int, default=None, help=f"HTTP port (default {PORTS.get(name)})")
    ap.add_argument("--host", default="127.0.0.1", help="HTTP address (beyond loopback only "
                    "with the keys `arbiter config` names: the gateway ARBITER_JWT_SECRET)")
    a = ap.parse_args()
    try:
        run_service(name, a.bus, a.port, a.host)
    except ValueError as e:
        raise SystemExit(f"{name}: {e}")
