"""Signed webhooks (issue 12 item 4) on the platform in one process (memory log), delivering
to a real HTTP receiver on loopback: the subscribed game's messages arrive in order, exactly
the types asked for, each signed; a receiver failing twice gets the message at the third
attempt and the delivery log says so; a failing subscription stops until re-enabled; a
restarted delivery process neither loses nor repeats; bad URLs are 422 and non-permitted
principals 403, nothing written; the audit of the whole log finds no difference."""
from __future__ import annotations

import asyncio
import json
import secrets
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from contracts.messages import TOPICS, parse_message
from services.gateway.identity import issue_token
from services.tools.audit import audit
from services.tools.embedded import arbiter_client
from services.webhooks.process import WebhookProcess
from shared.webhooks import delivery_id, signing_secret, verify

KEY = "a-webhook-key-for-the-tests"
SECRET = "an-integration-secret-of-forty-chars-000"
FOOLS_MATE = (("alice", "f3"), ("bob", "e5"), ("alice", "g4"), ("bob", "Qh4#"))


class Receiver:
    """An HTTP server on a free loopback port recording every POST (headers, body) and
    answering the planned statuses in turn (then 200)."""

    def __init__(self, statuses: tuple[int, ...] = ()) -> None:
        self.requests: list[tuple[dict, bytes]] = []
        self.statuses = list(statuses)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                outer.requests.append((dict(self.headers), body))
                self.send_response(outer.statuses.pop(0) if outer.statuses else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    async def wait_for(self, n: int, timeout_s: float = 30.0) -> None:
        """Until ``n`` requests came (a test that fails waits at most ``timeout_s``)."""
        for _ in range(int(timeout_s / 0.05)):
            if len(self.requests) >= n:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"{len(self.requests)} requests of {n} within {timeout_s} s")

    def delivered(self) -> list[dict]:
        """Every request's body, parsed (the receiver answers 2xx unless statuses were planned)."""
        return [json.loads(b) for _, b in self.requests]


@pytest.fixture
def receiver(monkeypatch):
    """Receivers on loopback, which the operator must allow as webhook targets: the tests'
    deployment sets ARBITER_WEBHOOK_ALLOW_HOSTS (without it, 422 forbidden-address)."""
    monkeypatch.setenv("ARBITER_WEBHOOK_ALLOW_HOSTS", "127.0.0.1")
    made: list[Receiver] = []

    def make(*statuses: int) -> Receiver:
        made.append(Receiver(statuses))
        return made[-1]

    yield make
    for r in made:
        r.close()


async def _subscribe(c, url: str, types: list[str], scope: str = "all", scope_id: str | None = None,
                     **kw) -> dict:
    r = await c.post("/webhooks", json={"url": url, "scope": scope, "scope_id": scope_id,
                                        "types": types}, **kw)
    assert r.status_code == 201, r.text
    return r.json()


async def _play(c, moves=FOOLS_MATE, gid: str = "g1", create: bool = True) -> None:
    if create:
        r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob",
                                         "time_control": "300+2"})
        assert r.status_code == 200, r.text
    for player, move in moves:
        r = await c.post(f"/games/{gid}/moves", json={"player_id": player, "move": move})
        assert r.status_code == 200 and r.json()["event"] == "MoveAccepted", r.text


async def test_a_game_reaches_the_receiver_in_order_signed_with_exactly_the_types_asked(monkeypatch, receiver):
    monkeypatch.setenv("ARBITER_WEBHOOK_KEY", KEY)
    rx = receiver()
    async with arbiter_client("memory", ticks=False) as c:
        await _play(c, moves=())  # a game's subscription names a game that exists (else 404)
        sub = await _subscribe(c, rx.url, ["GameStarted", "MoveAccepted", "GameEnded"], "game", "g1")
        sid = sub["subscription_id"]
        assert sub["secret"] == signing_secret(KEY.encode(), sid)
        await _play(c, create=False)
        await rx.wait_for(5)
        await asyncio.sleep(0.3)  # nothing more comes (no ClockUpdated, no other type)
        bodies = rx.delivered()  # what the log holds after the registration (not GameStarted)
        assert [b["type"] for b in bodies] == ["MoveAccepted"] * 4 + ["GameEnded"]
        assert [b["payload"]["san"] for b in bodies[:4]] == ["f3", "e5", "g4", "Qh4#"]
        end = bodies[-1]["payload"]
        assert (end["result"], end["reason"], end["winner"], end["rule"]["game"], end["rule"]["article"]) == \
            ("0-1", "checkmate", "black", "chess", "10.1")  # FIDE Laws 1994 art. 10.1
        log = {f"{m.stream}:{m.seq}": m for m in await c.arbiter_log.read_many(TOPICS)}
        for headers, body in rx.requests:
            h = {k.lower(): v for k, v in headers.items()}
            assert verify(sub["secret"], h["x-arbiter-timestamp"], body, h["x-arbiter-signature"])
            assert not verify(sub["secret"], h["x-arbiter-timestamp"], body + b" ", h["x-arbiter-signature"])
            mid = h["x-arbiter-message"]
            assert parse_message(body) == log[mid]  # the complete envelope, as the log holds it
            assert (h["x-arbiter-subscription"], h["x-arbiter-delivery"], h["x-arbiter-attempt"]) == \
                (sid, delivery_id(sid, mid), "1")
        r = await c.get(f"/webhooks/{sid}/deliveries")
        assert [a["outcome"] for a in r.json()["attempts"]] == ["delivered"] * 5
        assert await audit(list(log.values())) == []


async def test_a_receiver_failing_twice_gets_the_message_at_the_third_attempt(monkeypatch, receiver):
    monkeypatch.setenv("ARBITER_WEBHOOK_BACKOFF_MS", "20")
    rx = receiver(500, 500)
    async with arbiter_client("memory", ticks=False) as c:
        sid = (await _subscribe(c, rx.url, ["GameStarted"]))["subscription_id"]
        await _play(c, moves=())
        await rx.wait_for(3)
        for _ in range(100):  # the third attempt's record follows its answer
            d = (await c.get(f"/webhooks/{sid}/deliveries")).json()
            if len(d["attempts"]) == 3:
                break
            await asyncio.sleep(0.05)
        got = [(a["attempt"], a["status"], a["outcome"]) for a in d["attempts"]]
        assert got == [(1, 500, "retry"), (2, 500, "retry"), (3, 200, "delivered")]
        first, second, third = d["attempts"]
        assert second["next_retry_at_ms"] - second["at_ms"] == 40 and first["next_retry_at_ms"] - first["at_ms"] == 20
        assert third["next_retry_at_ms"] is None and not d["failing"]
        assert len({a["delivery_id"] for a in d["attempts"]}) == 1
        assert [h["X-Arbiter-Attempt"] for h, _ in rx.requests] == ["1", "2", "3"]
        assert {h["X-Arbiter-Delivery"] for h, _ in rx.requests} == {d["attempts"][0]["delivery_id"]}


async def test_attempts_used_up_mark_the_subscription_failing_until_it_is_re_enabled(monkeypatch, receiver):
    monkeypatch.setenv("ARBITER_WEBHOOK_BACKOFF_MS", "10")
    monkeypatch.setenv("ARBITER_WEBHOOK_MAX_ATTEMPTS", "2")
    rx = receiver(503, 503)
    async with arbiter_client("memory", ticks=False) as c:
        sid = (await _subscribe(c, rx.url, ["GameStarted", "MoveAccepted"]))["subscription_id"]
        r = await c.post(f"/webhooks/{sid}/enable")
        assert (r.status_code, r.json()["code"]) == (409, "not-failing")
        await _play(c, moves=FOOLS_MATE[:1])
        await rx.wait_for(2)
        for _ in range(100):
            d = (await c.get(f"/webhooks/{sid}")).json()
            if d["failing"]:
                break
            await asyncio.sleep(0.05)
        assert d["failing"]
        await asyncio.sleep(0.3)
        assert len(rx.requests) == 2  # stopped: the move is not attempted
        r = await c.post(f"/webhooks/{sid}/enable")
        assert r.status_code == 200 and r.json()["command"] == "EnableWebhook", r.text
        await rx.wait_for(4)
        assert [json.loads(b)["type"] for _, b in rx.requests] == ["GameStarted"] * 3 + ["MoveAccepted"]
        d = (await c.get(f"/webhooks/{sid}/deliveries")).json()
        assert [(a["attempt"], a["outcome"]) for a in d["attempts"]][:3] == [(1, "retry"), (2, "failed"), (1, "delivered")]
        r = await c.delete(f"/webhooks/{sid}")
        assert r.status_code == 200 and r.json()["command"] == "RemoveWebhook"
        assert (await c.get(f"/webhooks/{sid}")).status_code == 404


async def test_a_restarted_delivery_process_neither_loses_nor_repeats(receiver):
    rx = receiver()
    async with arbiter_client("memory", ticks=False) as c:
        await _subscribe(c, rx.url, ["GameStarted", "MoveAccepted"])
        await _play(c, moves=FOOLS_MATE[:2])
        await rx.wait_for(3)
        await asyncio.sleep(0.2)
        await c.arbiter_webhooks.stop()  # the process stops; the game goes on meanwhile
        await _play(c, FOOLS_MATE[2:], create=False)
        assert len(rx.requests) == 3
        again = WebhookProcess(c.arbiter_log)
        await again.start()
        try:
            await rx.wait_for(5)
            await asyncio.sleep(0.3)
        finally:
            await again.stop()
        assert [json.loads(b)["payload"].get("san") for _, b in rx.requests] == [None, "f3", "e5", "g4", "Qh4#"]


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/hook", "http://user:pw@127.0.0.1/hook",
                                 "javascript:alert(1)", "127.0.0.1:9/hook", "http:///nohost",
                                 "file:///etc/passwd", "http://127.0.0.1:0/x"])
async def test_a_bad_url_or_scheme_is_refused_422_and_nothing_is_written(url):
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/webhooks", json={"url": url, "scope": "all", "types": ["GameEnded"]})
        assert (r.status_code, r.json()["code"]) == (422, "bad-url"), r.text
        r = await c.post("/webhooks", json={"url": "https://example.org/h", "scope": "all",
                                            "types": ["GameEnded", "NoSuchType"]})
        assert (r.status_code, r.json()["code"]) == (422, "unknown-type"), r.text
        r = await c.post("/webhooks", json={"url": "https://example.org/h", "scope": "game",
                                            "types": ["GameEnded"]})
        assert (r.status_code, r.json()["code"]) == (422, "malformed"), r.text
        assert not [m for m in await c.arbiter_log.read_many(TOPICS) if m.type == "RegisterWebhook"]


@pytest.mark.parametrize("scope,code", [("game", "no-such-game"), ("tournament", "no-such-tournament")])
async def test_a_subscription_to_an_unknown_game_or_tournament_is_404_and_nothing_is_written(scope, code):
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/webhooks", json={"url": "https://tv.example/h", "scope": scope,
                                            "scope_id": "nowhere", "types": ["GameEnded"]})
        assert (r.status_code, r.json()["code"]) == (404, code), r.text
        assert r.json()["detail"] == f"no such {scope}: nowhere"
        assert not [m for m in await c.arbiter_log.read_many(TOPICS) if m.type == "RegisterWebhook"]


def _fake_dns(monkeypatch, answers: dict[str, list[str]]) -> None:
    """Names resolving to the addresses given, in turn (the last one stays): what a DNS whose
    owner changes a record (rebinding) answers; every other name as the system resolves it."""
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kw):
        name = host.decode() if isinstance(host, bytes) else host  # anyio passes IDNA bytes
        if name not in answers:
            return real(host, port, *args, **kw)
        ips = answers[name]
        ip = ips.pop(0) if len(ips) > 1 else ips[0]
        family = socket.AF_INET6 if ":" in ip else socket.AF_INET
        return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (ip, int(port or 0)))]
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


@pytest.mark.parametrize("url,said", [
    ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is link-local"),
    ("http://127.0.0.1:8080/hook", "127.0.0.1 is loopback"),
    ("http://[::1]/hook", "::1 is loopback"),
    ("http://10.0.0.5/hook", "10.0.0.5 is private"),
    ("http://[::ffff:169.254.169.254]/x", "::ffff:169.254.169.254 is link-local"),
    ("http://0.0.0.0:80/x", "0.0.0.0 is unspecified"),
    ("http://100.100.100.200/x", "100.100.100.200 is not global"),  # a cloud's metadata (CGNAT)
    ("http://2130706433/x", "2130706433 resolves to 127.0.0.1, which is loopback"),
    ("http://localhost:9/x", "localhost resolves to 127.0.0.1, which is loopback"),
    ("https://metadata.test/x", "metadata.test resolves to 169.254.169.254, which is link-local"),
    ("https://intranet.test/x", "intranet.test resolves to 192.168.1.20, which is private"),
])
async def test_a_target_that_is_not_public_is_refused_422_unless_allowed(monkeypatch, url, said):
    """Server-side request forgery: no subscription to the cloud metadata service, loopback
    or a private network, by address or by a name resolving there; nothing is written. The
    operator's ARBITER_WEBHOOK_ALLOW_HOSTS lets one through (by network or by name)."""
    _fake_dns(monkeypatch, {"metadata.test": ["169.254.169.254"], "intranet.test": ["192.168.1.20"],
                            "localhost": ["127.0.0.1"]})
    monkeypatch.delenv("ARBITER_WEBHOOK_ALLOW_HOSTS", raising=False)
    body = {"url": url, "scope": "all", "types": ["GameEnded"]}
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/webhooks", json=body)
        assert (r.status_code, r.json()["code"]) == (422, "forbidden-address"), r.text
        assert r.json()["detail"].startswith(f"url: {said}: "), r.text
        assert "ARBITER_WEBHOOK_ALLOW_HOSTS" in r.json()["detail"]
        assert not [m for m in await c.arbiter_log.read_many(TOPICS) if m.type == "RegisterWebhook"]
        monkeypatch.setenv("ARBITER_WEBHOOK_ALLOW_HOSTS", "10.0.0.0/8, ::1, 192.168.1.0/24, "
                           "metadata.test, 0.0.0.0, 100.64.0.0/10, 169.254.169.254, 127.0.0.0/8")
        r = await c.post("/webhooks", json=body)
        assert r.status_code == 201, r.text


async def test_a_name_rebound_to_loopback_after_registration_is_not_delivered_and_logged(monkeypatch, receiver):
    """DNS rebinding: the name resolved to a public address when it was registered, and to
    the loopback receiver at delivery; the webhooks process checks the addresses it connects
    to, so nothing reaches the receiver and the delivery log says why."""
    rx = receiver()
    monkeypatch.delenv("ARBITER_WEBHOOK_ALLOW_HOSTS")
    monkeypatch.setenv("ARBITER_WEBHOOK_BACKOFF_MS", "3600000")  # one attempt in this test
    _fake_dns(monkeypatch, {"rebind.test": ["93.184.216.34", "127.0.0.1"]})
    port = rx.server.server_address[1]
    async with arbiter_client("memory", ticks=False) as c:
        sid = (await _subscribe(c, f"http://rebind.test:{port}/hook", ["GameStarted"]))["subscription_id"]
        await _play(c, moves=())
        for _ in range(200):
            d = (await c.get(f"/webhooks/{sid}/deliveries")).json()
            if d["attempts"]:
                break
            await asyncio.sleep(0.05)
        [a] = d["attempts"]
        assert (a["attempt"], a["status"], a["outcome"], a["message_type"]) == (1, None, "retry", "GameStarted")
        assert a["error"].startswith("ConnectError: forbidden-address: rebind.test resolves to "
                                     "127.0.0.1, which is loopback"), a["error"]
        assert rx.requests == []


async def test_a_name_the_operator_allows_is_delivered_to_the_address_checked(monkeypatch, receiver):
    """Allowed by name, the target is reached at the address the transport resolved and
    checked (no second resolution), with the URL's host in the Host header."""
    rx = receiver()
    monkeypatch.setenv("ARBITER_WEBHOOK_ALLOW_HOSTS", "hooks.internal")
    _fake_dns(monkeypatch, {"hooks.internal": ["127.0.0.1"]})
    port = rx.server.server_address[1]
    async with arbiter_client("memory", ticks=False) as c:
        await _subscribe(c, f"http://hooks.internal:{port}/hook", ["GameStarted"])
        await _play(c, moves=())
        await rx.wait_for(1)
    [(headers, body)] = rx.requests
    assert headers["Host"] == f"hooks.internal:{port}" and json.loads(body)["type"] == "GameStarted"


async def _as(c, method: str, url: str, token: str | None, **kw):
    req = c.build_request(method, url, headers={"Authorization": f"Bearer {token}"} if token else {}, **kw)
    del req.headers["X-Arbiter-Token"]  # the principal's own request, not the administrator's
    return await c.send(req)


async def test_identity_on_only_permitted_principals_subscribe_and_read_their_own(monkeypatch, receiver):
    monkeypatch.setenv("ARBITER_JWT_SECRET", SECRET)
    rx = receiver()
    body = {"url": rx.url, "scope": "tournament", "scope_id": "T1", "types": ["GameEnded"]}
    player = issue_token(SECRET, "player", "alice", ["*"], ttl_s=3600)
    elsewhere = issue_token(SECRET, "integrator", "tv", ["T2"], ttl_s=3600)
    tv = issue_token(SECRET, "integrator", "tv", ["T1"], ttl_s=3600)
    radio = issue_token(SECRET, "integrator", "radio", ["*"], ttl_s=3600)
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/tournaments", json={"tournament_id": "T1", "name": "T1", "system": "round-robin"})
        assert r.status_code == 200, r.text
        r = await _as(c, "POST", "/webhooks", None, json=body)
        assert (r.status_code, r.json()["code"]) == (401, "unauthenticated")
        r = await _as(c, "POST", "/webhooks", player, json=body)
        assert (r.status_code, r.json()["code"]) == (403, "integrators-only")
        r = await _as(c, "POST", "/webhooks", elsewhere, json=body)
        assert (r.status_code, r.json()["code"]) == (403, "not-your-event")
        r = await _as(c, "POST", "/webhooks", elsewhere, json={**body, "scope": "all", "scope_id": None})
        assert r.status_code == 201 and r.json()["events"] == ["T2"], r.text
        assert not [m for m in await c.arbiter_log.read_many(TOPICS)
                    if m.type == "RegisterWebhook" and m.payload.scope != "all"]
        r = await _as(c, "POST", "/webhooks", tv, json=body)
        assert r.status_code == 201 and r.json()["owner"] == "integrator:tv", r.text
        sid = r.json()["subscription_id"]
        assert (await _as(c, "GET", f"/webhooks/{sid}/deliveries", tv)).status_code == 200
        r = await _as(c, "GET", f"/webhooks/{sid}/deliveries", radio)
        assert (r.status_code, r.json()["code"]) == (403, "not-your-subscription")
        r = await _as(c, "DELETE", f"/webhooks/{sid}", radio)
        assert (r.status_code, r.json()["code"]) == (403, "not-your-subscription")
        assert (await c.get(f"/webhooks/{sid}")).status_code == 200  # the administrator
        [reg] = [m for m in await c.arbiter_log.read_many(TOPICS)
                 if m.type == "RegisterWebhook" and m.payload.subscription_id == sid]
        assert (reg.actor.kind, reg.actor.id, reg.stream.split(".")[0]) == ("integrator", "tv", f"webhook-{sid}")
        assert "secret" not in reg.model_dump_json()


@pytest.mark.kafka
async def test_on_kafka_the_game_arrives_and_a_restarted_process_resumes_where_the_log_says(kafka_bus, receiver):
    """The production path: the delivery process on Kafka (read to the end, then follow); a
    new process on the same log delivers only what no attempt recorded as delivered."""
    from shared.eventlog.base import open_log

    rx = receiver()
    gid = f"wh-{secrets.token_hex(4)}"
    async with arbiter_client(kafka_bus, ticks=False) as c:
        await _play(c, (), gid=gid)
        sub = await _subscribe(c, rx.url, ["GameStarted", "MoveAccepted"], "game", gid)
        await _play(c, FOOLS_MATE[:2], gid=gid, create=False)
        await rx.wait_for(2, timeout_s=60)
        await c.arbiter_webhooks.stop()
        await _play(c, FOOLS_MATE[2:3], gid=gid, create=False)
        log = open_log(kafka_bus)
        again = WebhookProcess(log)
        await log.start()
        await again.start()
        try:
            await rx.wait_for(3, timeout_s=60)
            await asyncio.sleep(1.0)
        finally:
            await again.stop()
            await log.stop()
    assert [json.loads(b)["payload"].get("san") for _, b in rx.requests] == ["f3", "e5", "g4"]
    for headers, body in rx.requests:
        assert verify(sub["secret"], headers["X-Arbiter-Timestamp"], body, headers["X-Arbiter-Signature"])
