"""Oversized headers get the gateway's refusal shape ``{"detail", "code"}`` (issue 12
follow-up): on the gateway served by uvicorn as ``python -m services.gateway`` and ``arbiter
demo --serve`` serve it (:func:`services.runner.uvicorn_options`), a 20 KB bearer token whose
head arrives in two parts (over h11's default 16 KiB buffer of an incomplete head, which
answered uvicorn's plain-text 400) is 401 ``token-malformed``, a 40 KB header section 431
``headers-too-large``; only a request head over the server's own limit is still uvicorn's
plain-text 400 (documented)."""
from __future__ import annotations

import asyncio
import json
import socket

import h11
import httpx
import pytest
import uvicorn

from services.gateway.app import create_app
from services.gateway.identity import MAX_TOKEN_CHARS, issue_token
from services.gateway.limits import MAX_HEADER_BYTES
from shared.eventlog.memory import MemoryLog
from services.runner import HTTP_HEAD_BYTES, uvicorn_options

SECRET = "a-gateway-secret-of-at-least-32-chars-000"


@pytest.fixture
async def served():
    """The gateway (identity on) served by uvicorn on a free loopback port: its base URL."""
    app = create_app(MemoryLog(), admin_token="admin-token", jwt_secret=SECRET)
    sock = socket.create_server(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, **uvicorn_options()))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started:
        await asyncio.sleep(0.01)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    await task


def test_the_limits_nest_and_the_server_waits_for_a_head_up_to_its_own():
    """A head that arrives in parts is buffered by h11 up to ``max_incomplete_event_size``
    (default 16 KiB: 20 KB of it was uvicorn's plain-text 400 before the gateway saw it)."""
    assert MAX_TOKEN_CHARS + 100 < MAX_HEADER_BYTES < HTTP_HEAD_BYTES
    part = b"GET /games HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer " + b"a" * 20_000
    server = h11.Connection(h11.SERVER, max_incomplete_event_size=uvicorn_options()["h11_max_incomplete_event_size"])
    server.receive_data(part)
    assert server.next_event() is h11.NEED_DATA
    default = h11.Connection(h11.SERVER)
    default.receive_data(part)
    with pytest.raises(h11.RemoteProtocolError, match="Receive buffer too long"):
        default.next_event()


async def _raw(base: str, parts: list[bytes]) -> tuple[int, str, bytes]:
    """Send ``parts`` on one connection (each written and flushed in turn), then read the
    answer: status, content type, body."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        for part in parts:
            writer.write(part)
            await writer.drain()
        head, _, body = (await reader.read(1_000_000)).partition(b"\r\n\r\n")
    finally:
        writer.close()
    lines = head.decode().split("\r\n")
    ctype = next(v for k, _, v in (x.partition(": ") for x in lines[1:]) if k.lower() == "content-type")
    return int(lines[0].split()[1]), ctype.split(";")[0], body


async def test_an_oversized_bearer_token_or_header_section_is_refused_in_the_gateways_shape(served):
    body = b'{"white": "alice", "black": "bob"}'
    start = b"POST /games HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n"
    end = b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    auth = b"Authorization: Bearer " + b"a" * 20_000 + b"\r\n"
    status, ctype, text = await _raw(served, [start + auth[:18_000], auth[18_000:] + end])
    assert (status, ctype) == (401, "application/json") and json.loads(text) == {
        "detail": "the bearer token has 20,000 characters, over the gateway's limit of 8,192",
        "code": "token-malformed"}
    async with httpx.AsyncClient(base_url=served) as c:
        r = await c.get("/games", headers={"X-Padding": "p" * 40_000})
        assert (r.status_code, r.json()["code"]) == (431, "headers-too-large"), r.text
        detail = r.json()["detail"]  # 40,000 bytes and httpx's own headers
        assert detail.startswith("the request's headers are 40,") and detail.endswith(
            " bytes, over the gateway's limit of 32,768")
        token = issue_token(SECRET, "player", "alice", ["*"], ttl_s=60)  # a real one is read as ever
        r = await c.post("/tournaments", json={"name": "x", "system": "swiss"},
                         headers={"Authorization": f"Bearer {token}"})
        assert (r.status_code, r.json()["code"]) == (403, "organisers-only"), r.text
    # a head still incomplete past the server's own limit: uvicorn's answer, not the gateway's
    status, ctype, text = await _raw(served, [start + b"X-Padding: " + b"p" * (HTTP_HEAD_BYTES + 10)])
    assert (status, ctype, text) == (400, "text/plain", b"Invalid HTTP request received.")


def test_no_token_is_issued_that_the_gateway_would_refuse():
    with pytest.raises(ValueError, match="a token of 100 events has .* over the gateway's limit of 8,192"):
        issue_token(SECRET, "organiser", "olga", [f"{i:080d}" for i in range(100)], ttl_s=60)
