"""The HTTP API fuzzed from its own OpenAPI document (issue 12, "Done when"): schemathesis
generates requests for every operation, sent over real HTTP to a gateway with identity on and
every service behind it (one process, memory log), with valid credentials (the administrator's
token, or a player's bearer token). Every answer must be below 500, and an answer 4xx must have
published nothing, unless it is a service's recorded rejection (``"outcome": "rejected"``),
which by design (DESIGN.md invariant 4) changes no state.

Derandomised (the same cases every run); the event streams are read as lists (``follow=false``:
a live SSE stream does not end); the path's ids are pointed at a live game, a
tournament game and a tournament of the fixture, or at an unknown id, so generated bodies reach
the rules and not only the 404.
"""
from __future__ import annotations

import asyncio
import socket
import threading
import time
import zlib
from contextlib import contextmanager

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from services.gateway.app import create_app
from services.gateway.identity import issue_token
from services.gateway.limits import HttpLimits
from shared.config import Settings
from shared.eventlog.memory import MemoryLog
from services.system import System

SECRET = "a-fuzzing-secret-of-forty-characters-000"
ADMIN = {"X-Arbiter-Token": "fuzz-admin"}
GAMES = ("g1", "T1-r1-b1", "nosuch")
EVENTS = ("T1", "nosuch")
EXAMPLES = 10  # per operation


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def platform():
    with running_platform() as held:
        yield held


@contextmanager
def running_platform():
    """The gateway (identity on, the deployment's default limits) and every service, served by
    uvicorn on a loopback port in a thread of its own: (base URL, the gateway)."""
    import uvicorn

    port, held = _free_port(), {}

    async def main() -> None:
        log = MemoryLog()
        system = System(log, ticks=False)
        app = create_app(log, admin_token=ADMIN["X-Arbiter-Token"], jwt_secret=SECRET,
                         manage_log=False, wait_timeout=0.3,
                         limits=HttpLimits.from_settings(Settings(_env_file=None)))
        await system.recover()
        await log.start()
        held["gw"], held["server"] = app.state.gateway, uvicorn.Server(
            uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        try:
            await held["server"].serve()
        finally:
            await system.stop()
            await log.stop()

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{port}"
    with httpx.Client(base_url=base, headers=ADMIN, timeout=30) as c:
        for _ in range(300):  # the server comes up (at most 30 s)
            try:
                if c.get("/healthz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        _seed(c)
    yield base, held["gw"]
    held["server"].should_exit = True
    thread.join(30)


def _seed(c: httpx.Client) -> None:
    """A game g1 (alice - bob) and a round robin T1 of four players, round 1 paired."""
    r = c.post("/games", json={"game_id": "g1", "white": "alice", "black": "bob"})
    assert r.status_code == 200, r.text
    r = c.post("/tournaments", json={"tournament_id": "T1", "name": "Fuzz"})
    assert r.status_code == 200, r.text
    for pid in ("alice", "bob", "carol", "dave"):
        r = c.post("/tournaments/T1/players", json={"player_id": pid, "name": pid})
        assert r.status_code == 200, r.text
    r = c.post("/tournaments/T1/rounds", json={"round": 1})
    assert r.status_code == 200, r.text


def _published(gw) -> int:
    """Commands the gateway has published (the sum of its command streams' seqs)."""
    return sum(dict(gw.seqs).values())


def _pick(options: tuple[str, ...], generated: str) -> str:
    return options[zlib.crc32(generated.encode()) % len(options)]


def test_the_api_fuzzed_from_its_openapi_document_never_fails_and_refusals_change_nothing(platform):
    base, gw = platform
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    player = {"Authorization": f"Bearer {issue_token(SECRET, 'player', 'alice', ['*'], ttl_s=3600)}"}
    operations = [op.ok() for op in schema.get_all_operations()]
    assert len(operations) >= 30
    seen: dict[int, int] = {}

    def check(case) -> None:
        params = case.path_parameters or {}
        if "gid" in params:
            params["gid"] = _pick(GAMES, str(params["gid"]))
        if "tid" in params:
            params["tid"] = _pick(EVENTS, str(params["tid"]))
        if case.formatted_path.endswith("/events") or case.formatted_path.startswith("/feeds/"):
            case.query = {**(case.query or {}), "follow": "false"}  # a live SSE stream never ends
        case.headers = {k: v for k, v in (case.headers or {}).items()  # the credentials are ours
                        if k.lower() not in ("x-arbiter-token", "authorization")}
        creds = player if zlib.crc32(repr(case.body).encode()) % 3 == 0 else ADMIN
        before = _published(gw)
        response = case.call(headers=creds, timeout=30)
        case.validate_response(response, checks=[not_a_server_error])
        seen[response.status_code] = seen.get(response.status_code, 0) + 1
        if 400 <= response.status_code < 500 and _published(gw) != before:
            body = response.json()
            assert body.get("outcome") == "rejected" and body.get("event"), (
                case.method, case.formatted_path, response.status_code, response.text[:300])

    for op in operations:
        run = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                       suppress_health_check=list(HealthCheck))(given(case=op.as_strategy())(check))
        run()
    assert not any(status >= 500 for status in seen)
    assert {200, 403, 404, 409, 422} <= set(seen), seen  # the rules were reached, not only the 404
    assert 401 not in seen, seen  # every request carried valid credentials
