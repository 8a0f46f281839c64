"""The gateway's limits (issue 12 item 3): rate limits per principal and per game (429 with
Retry-After), the request body size limit (413 without reading the body), bounds on every
field of every request body (422), CORS off unless configured; every refusal in one shape and
none of them reaching the log (the log is counted before and after).

Rate limits are given per hour here, so a test's requests never leave the window.
"""
from __future__ import annotations

import json
import time
from contextlib import asynccontextmanager

import httpx
import pytest

from services.gateway.app import create_app
from services.gateway.identity import issue_token
from services.gateway.limits import AuthFailureLimit, BodyLimit, HttpLimits, RateLimits
from shared.config import ConfigError, settings
from shared.eventlog.memory import MemoryLog
from tests.unit.test_identity import ADMIN, ADMIN_TOKEN, SECRET, Fake, _counts, _game, bearer, refused
from tests.unit.test_gateway import NOW


@asynccontextmanager
async def started(limits: HttpLimits | None = None, jwt_secret: str | None = SECRET):
    """A started gateway on a MemoryLog with the fake services: (app, log)."""
    log = MemoryLog()
    Fake(log)
    app = create_app(log, admin_token=ADMIN_TOKEN, now_ms=lambda: NOW, wait_timeout=0.3,
                     jwt_secret=jwt_secret, limits=limits)
    async with app.router.lifespan_context(app):
        yield app, log


def client_of(app, address: str = "127.0.0.1") -> httpx.AsyncClient:
    """A client of ``app`` calling from client address ``address``."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(address, 50_000)), base_url="http://gw")


@asynccontextmanager
async def gateway(limits: HttpLimits | None = None, jwt_secret: str | None = SECRET):
    """A started gateway on a MemoryLog with the fake services: (client, log)."""
    async with started(limits, jwt_secret) as (app, log), client_of(app) as c:
        yield c, log


# ------------------------------------------------------------------------------- rate limits
async def test_a_principal_over_its_rate_is_429_with_retry_after_and_nothing_logged():
    """Three writes an hour for a player: the fourth is refused whatever it is, the refused
    ones (403) counting too; the administrator is not limited."""
    async with gateway(HttpLimits(principal_rate="3/hour")) as (client, log):
        await _game(client)
        alice = bearer("player", "alice", ["*"])
        r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"}, headers=alice)
        assert r.status_code == 200, r.text
        await refused(client, log, 403, "not-yourself", "/games/g1/resign", {"player_id": "bob"}, alice)
        r = await client.post("/games/g1/draw/offer", json={"player_id": "alice"}, headers=alice)
        assert r.status_code == 200, r.text
        r = await refused(client, log, 429, "rate-limited", "/games/g1/moves",
                          {"player_id": "alice", "move": "e5e5"}, alice)
        assert 1 <= int(r.headers["retry-after"]) <= 3600
        assert "player:alice" in r.json()["detail"] and "3 per 1 hour" in r.json()["detail"]
        # another principal has its own budget; the administrator none at all
        r = await client.post("/games/g1/moves", json={"player_id": "bob", "move": "e5"},
                              headers=bearer("player", "bob", ["*"]))
        assert r.status_code == 200, r.text
        for i in range(6):
            r = await client.post("/games", json={"game_id": f"a{i}", "white": "x", "black": "y"},
                                  headers=ADMIN)
            assert r.status_code == 200, r.text


async def test_a_game_over_its_rate_is_429_for_its_players_not_for_its_arbiter():
    """The issue's probe: refused moves flooding one game's log. Two commands an hour per
    game and actor: the player's third command is 429 and not logged; his opponent (whose
    clock may be running), the arbiter and the other games are not held back."""
    async with gateway(HttpLimits(game_rate="2/hour"), jwt_secret=None) as (client, log):
        r = await client.post("/games", json={"game_id": "g1", "white": "alice", "black": "bob"})
        assert r.status_code == 200, r.text
        for _ in range(2):
            r = await client.post("/games/g1/moves", json={"player_id": "bob", "move": "e5e5"})
            assert r.status_code == 409 and r.json()["code"] == "illegal", r.text
        r = await refused(client, log, 429, "rate-limited", "/games/g1/moves",
                          {"player_id": "bob", "move": "e5"})
        assert "game-g1 for player bob" in r.json()["detail"] and int(r.headers["retry-after"]) >= 1
        r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"})
        assert r.status_code == 200 and r.json()["event"] == "MoveAccepted", r.text
        r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e5e5"})
        assert r.status_code == 409, r.text
        r = await refused(client, log, 429, "rate-limited", "/games/g1/moves",
                          {"player_id": "alice", "move": "d4"})
        r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"}, headers=ADMIN)
        assert r.status_code == 200 and r.json()["event"] == "MoveAccepted", r.text
        r = await client.post("/games", json={"game_id": "g2", "white": "alice", "black": "bob"})
        assert r.status_code == 200, r.text


async def test_no_rate_limit_unless_configured_and_the_settings_defaults():
    """``create_app`` without limits counts nothing (the tests, the embedded tools); a
    deployment's come from the settings, whose defaults are ARBITER_RATE_PRINCIPAL 50/s and
    2000/min, ARBITER_RATE_GAME 10/s and 300/min; a rate that does not parse names its
    variable."""
    async with gateway(jwt_secret=None) as (client, _):
        await client.post("/games", json={"game_id": "g1", "white": "alice", "black": "bob"})
        for _ in range(30):
            r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e5e5"})
            assert r.status_code == 409, r.text
    cfg = HttpLimits.from_settings(settings())
    assert (cfg.principal_rate, cfg.game_rate) == ("50/second;2000/minute", "10/second;300/minute")
    assert cfg.auth_failure_rate == "10/minute"
    assert (cfg.max_body_bytes, cfg.cors_origins) == (1_000_000, ())


def test_settings_refuse_a_rate_they_cannot_read(monkeypatch):
    monkeypatch.setenv("ARBITER_RATE_AUTH_FAILURES", "many")
    with pytest.raises(ConfigError, match="ARBITER_RATE_AUTH_FAILURES"):
        settings()
    monkeypatch.setenv("ARBITER_RATE_AUTH_FAILURES", "")
    assert HttpLimits.from_settings(settings()).auth_failure_rate == ""
    monkeypatch.setenv("ARBITER_RATE_GAME", "lots")
    with pytest.raises(ConfigError, match="ARBITER_RATE_GAME"):
        settings()
    monkeypatch.setenv("ARBITER_RATE_GAME", "")
    monkeypatch.setenv("ARBITER_CORS_ORIGINS", "https://a.example, https://b.example")
    cfg = HttpLimits.from_settings(settings())
    assert cfg.game_rate == "" and cfg.cors_origins == ("https://a.example", "https://b.example")
    with pytest.raises(ValueError, match="not a list of rates"):
        HttpLimits(principal_rate="fast")
    with pytest.raises(ValueError, match="ARBITER_RATE_STORAGE 'bogus://x': unknown storage scheme"):
        create_app(MemoryLog(), limits=HttpLimits(storage="bogus://x"))


# ------------------------------------------------------------------ failed authentications
FORGED = {"Authorization": "Bearer " + bearer("player", "alice", ["*"])["Authorization"][7:-4] + "AAAA"}
MOVE = {"player_id": "alice", "move": "e4"}


async def test_an_address_over_its_failed_authentications_is_429_before_its_credentials_are_read():
    """Three failures an hour per address: forged tokens (writes, reads, an EventSource's
    ?access_token=) and a wrong administrator's token count; the fourth request of that address
    presenting credentials is 429 with Retry-After, the right token too (else the answers would
    tell the right guess); its requests without credentials, other addresses and valid
    requests are not held back, and nothing reaches the log."""
    async with started(HttpLimits(auth_failure_rate="3/hour")) as (app, log), \
            client_of(app, "10.0.0.66") as evil, client_of(app, "10.0.0.7") as alice:
        await _game(alice)
        await refused(evil, log, 401, "token-forged", "/games/g1/moves", MOVE, FORGED)
        r = await evil.get("/games/g1", headers=FORGED)
        assert (r.status_code, r.json()["code"]) == (401, "token-forged"), r.text
        await refused(evil, log, 401, "token-invalid", "/games/g1/moves", MOVE, {"X-Arbiter-Token": "guess"})
        for headers in (FORGED, bearer("player", "alice", ["*"]), ADMIN):
            r = await refused(evil, log, 429, "rate-limited", "/games/g1/moves", MOVE, headers)
            assert "address 10.0.0.66 is over its limit of 3 per 1 hour of failed authentications" in r.json()["detail"]
            assert 1 <= int(r.headers["retry-after"]) <= 3600
        token = bearer("player", "alice", ["*"])["Authorization"][7:]
        r = await evil.get(f"/games/g1?access_token={token}")
        assert (r.status_code, r.json()["code"]) == (429, "rate-limited"), r.text
        assert (await evil.get("/games/g1")).status_code == 200  # no credentials: a public read
        for _ in range(5):  # another address: valid requests count nothing
            r = await alice.post("/games/g1/draw/offer", json={"player_id": "alice"}, headers=bearer("player", "alice", ["*"]))
            assert r.status_code == 200, r.text
        await refused(alice, log, 401, "token-forged", "/games/g1/moves", MOVE, FORGED)  # its own budget


async def test_tokens_in_request_bodies_that_are_none_of_ours_count_as_failed_authentications():
    """A bulk pairing names its players by their tokens, a revocation shows the token: tokens
    that do not verify are guesses like one in the header (a helper checked 1,000 forged
    tokens a request with no limit), one failed authentication a request however many (one
    a token let an organiser's list of stale tokens lock every player at his address out of
    their games: another helper's finding). Three an hour here: a bulk with twelve tokens that
    are none of ours, a revocation of a malformed one and a forged header take them; then the address
    is 429, its organiser's own valid token too. An expired token in a bulk counts nothing."""
    org = bearer("organiser", "olga")
    good, forged = bearer("player", "ann", ["*"])["Authorization"][7:], FORGED["Authorization"][7:]
    expired = bearer("player", "ben", ["*"], ttl_s=60, now_s=time.time() - 3600)["Authorization"][7:]
    async with started(HttpLimits(auth_failure_rate="3/hour")) as (app, log), client_of(app, "10.0.0.66") as c:
        bulk = {"games": [{"white": forged, "black": good}, {"white": expired, "black": forged + "x"},
                          *({"white": forged + "y" * i, "black": forged + "z" * i} for i in range(1, 6))],
                "time_control": "600+5", "dry_run": True}
        r = await refused(c, log, 422, "bad-players", "/bulk-pairings", bulk, org)
        codes = [e["code"] for e in r.json()["errors"]]
        assert len(codes) == 13 and codes.count("token-expired") == 1, codes
        assert set(codes) <= {"token-forged", "token-malformed", "token-expired"}, codes
        r = await refused(c, log, 422, "token-unreadable", "/tokens/revocations", {"token": "not-a-jwt"}, org)
        r = await refused(c, log, 401, "token-forged", "/games/g1/moves", MOVE, FORGED)  # the third
        r = await refused(c, log, 429, "rate-limited", "/bulk-pairings", bulk, org)
        assert "address 10.0.0.66 is over its limit of 3 per 1 hour of failed authentications" in r.json()["detail"]


async def test_expired_and_revoked_tokens_are_no_guesses_and_no_limit_unless_configured():
    """A page polling with an expired token (the console every 3 s) does not lock its address
    out: the gateway signed that token. Without a rate (the default of ``create_app``) forged
    tokens are refused one by one, never 429."""
    expired = {"Authorization": "Bearer " + issue_token(SECRET, "player", "alice", ["*"], ttl_s=60, now_s=time.time() - 3600)}
    async with gateway(HttpLimits(auth_failure_rate="2/hour")) as (client, log):
        await _game(client)
        for _ in range(5):
            await refused(client, log, 401, "token-expired", "/games/g1/moves", MOVE, expired)
        r = await client.post("/games/g1/moves", json=MOVE, headers=bearer("player", "alice", ["*"]))
        assert r.status_code == 200, r.text
    async with gateway() as (client, log):
        await _game(client)
        for _ in range(20):
            await refused(client, log, 401, "token-forged", "/games/g1/moves", MOVE, FORGED)


async def test_a_websocket_from_an_address_over_its_failed_authentications_is_closed_4429():
    rates = RateLimits(HttpLimits(auth_failure_rate="1/hour"))
    scope = {"type": "websocket", "path": "/feeds/game/g1", "headers": [],
             "query_string": b"since=0&access_token=x", "client": ("10.0.0.66", 1)}
    rates.count_auth_failure(scope, "token-forged")

    async def app(scope, receive, send):  # pragma: no cover - must not be reached
        raise AssertionError("the app was called")

    sent = []

    async def receive():
        return {"type": "websocket.connect"}

    async def send(m):
        sent.append(m)

    await AuthFailureLimit(app, rates)(scope, receive, send)
    assert [m["type"] for m in sent] == ["websocket.accept", "websocket.send", "websocket.close"]
    assert json.loads(sent[1]["text"])["code"] == "rate-limited" and sent[2]["code"] == 4429


# ------------------------------------------------------------------------------- body size
async def _asgi(app, method: str, headers: list, chunks):
    """Drive ASGI ``app`` with a request whose body comes in ``chunks`` (an iterator); returns
    (status, body, chunks read)."""
    read, sent = 0, []

    async def receive():
        nonlocal read
        chunk = next(chunks, None)
        if chunk is None:
            return {"type": "http.disconnect"}
        read += 1
        return {"type": "http.request", "body": chunk, "more_body": True}

    async def send(m):
        sent.append(m)

    scope = {"type": "http", "method": method, "path": "/games", "headers": headers, "query_string": b""}
    await app(scope, receive, send)
    return sent[0]["status"], json.loads(sent[1]["body"]), read


async def test_a_body_over_the_limit_is_413_without_being_read():
    """Content-Length over the limit: refused before a byte of the body is read; a chunked
    body without a length: refused once the bytes read pass the limit, the rest unread."""
    async def app(scope, receive, send):  # pragma: no cover - must not be reached
        raise AssertionError("the app was called")

    limit = BodyLimit(app, max_bytes=100_000)
    status, body, read = await _asgi(limit, "POST", [(b"content-length", b"50000000")],
                                     iter(lambda: b"x" * 65_536, None))
    assert (status, body["code"], read) == (413, "too-large", 0)
    assert body["detail"] == "the request body is 50,000,000 bytes, over the gateway's limit of 100,000 bytes"
    status, body, read = await _asgi(limit, "POST", [(b"transfer-encoding", b"chunked")],
                                     iter(lambda: b"x" * 65_536, None))
    assert (status, body["code"], read) == (413, "too-large", 2)


async def test_a_body_within_the_limit_reaches_the_app_whole():
    got = []

    async def app(scope, receive, send):
        got.append(await receive())
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    chunks = iter([b'{"a": ', b'1}'])

    async def receive():
        c = next(chunks)
        return {"type": "http.request", "body": c, "more_body": c != b'1}'}

    async def send(m):
        pass

    await BodyLimit(app, max_bytes=1024)({"type": "http", "method": "POST", "headers": []}, receive, send)
    assert got == [{"type": "http.request", "body": b'{"a": 1}', "more_body": False}]


async def test_the_gateway_answers_413_over_its_configured_body_limit_and_logs_nothing():
    async with gateway(HttpLimits(max_body_bytes=2048), jwt_secret=None) as (client, log):
        before = await _counts(log)
        r = await client.post("/tournaments", json={"name": "x" * 3000})
        assert r.status_code == 413 and r.json()["code"] == "too-large", r.text
        assert await _counts(log) == before


async def test_a_command_over_the_logs_record_size_is_413_even_within_the_body_limit():
    """With a body limit above the log's record size (MAX_EVENT_BYTES, 1 MB) a manual round of
    5,000 boards and 10,000 requested byes of long ids is refused by the gateway's own check of
    the stamped command."""
    async with gateway(HttpLimits(max_body_bytes=5_000_000), jwt_secret=None) as (client, log):
        r = await client.post("/tournaments", json={"tournament_id": "T", "name": "T"})
        assert r.status_code == 200, r.text
        ids = [f"{i:05d}" + "p" * 75 for i in range(10_000)]
        boards = [{"white": ids[2 * i], "black": ids[2 * i + 1]} for i in range(5000)]
        before = await _counts(log)
        byes = {f"{i:05d}" + "q" * 75: "H" for i in range(10_000)}
        r = await client.post("/tournaments/T/rounds", json={"round": 1, "boards": boards,
                                                              "requested_byes": byes})
        assert r.status_code == 413, r.status_code
        assert "over the event log's limit of 1,000,000" in r.json()["detail"]
        assert await _counts(log) == before


# ------------------------------------------------------------------------------------ bounds
def _unbounded(schema: dict, comps: dict, where: str) -> list[str]:
    """The places in JSON Schema ``schema`` where a string has no maxLength (nor pattern), a
    number no range, an array no maxItems or a mapping no maxProperties."""
    if "$ref" in schema:
        return _unbounded(comps[schema["$ref"].rsplit("/", 1)[1]], comps, where)
    if "anyOf" in schema:
        return [w for s in schema["anyOf"] for w in _unbounded(s, comps, where)]
    if "enum" in schema or "const" in schema:
        return []
    t, out = schema.get("type"), []
    if t == "string" and "maxLength" not in schema and "pattern" not in schema:
        out.append(where)
    elif t in ("integer", "number") and not ({"minimum", "exclusiveMinimum"} & schema.keys()
                                             and {"maximum", "exclusiveMaximum"} & schema.keys()):
        out.append(where)
    elif t == "array":
        out += [] if "maxItems" in schema else [where]
        out += _unbounded(schema.get("items", {}), comps, where + "[]")
    elif t == "object":
        for name, s in schema.get("properties", {}).items():
            out += _unbounded(s, comps, f"{where}.{name}")
        if isinstance(extra := schema.get("additionalProperties"), dict):
            out += [] if "maxProperties" in schema and "propertyNames" in schema else [where + "{}"]
            out += _unbounded(extra, comps, where + "{}")
    return out


def test_every_field_of_every_request_body_is_bounded():
    doc = create_app(MemoryLog()).openapi()
    bodies = [(f"{m.upper()} {path}", op["requestBody"]["content"]["application/json"]["schema"])
              for path, ops in doc["paths"].items() for m, op in ops.items() if "requestBody" in op]
    assert len(bodies) >= 25
    found = [w for where, s in bodies for w in _unbounded(s, doc["components"]["schemas"], where)]
    assert found == []


def test_the_openapi_gives_the_one_line_rule_of_each_text_field_as_its_pattern():
    """An integrator reads the rule from the schema: each field refused below for a line break,
    a bidirectional control or an invisible character has :data:`~services.gateway.bounds.
    ONE_LINE` as its pattern (a required field once showed only its lengths: the contract's
    own field replaced the bound's schema)."""
    from services.gateway.bounds import ONE_LINE

    doc = create_app(MemoryLog()).openapi()
    comps = doc["components"]["schemas"]

    def text(path: str, field: str) -> dict:
        ref = doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]["schema"]
        s = comps[ref["$ref"].rsplit("/", 1)[1]]["properties"][field]
        return next(x for x in s.get("anyOf", [s]) if x.get("type") == "string")

    for path, field in (("/tournaments", "name"), ("/tournaments", "time_control"),
                        ("/tournaments/{tid}/players", "name"),
                        ("/tournaments/{tid}/players", "club"),
                        ("/tournaments/{tid}/players", "federation"),
                        ("/tournaments/{tid}/players", "team"),
                        ("/games", "time_control"), ("/games/{gid}/moves", "move"),
                        ("/games/{gid}/penalties", "note"), ("/games/{gid}/result", "reason")):
        assert text(path, field).get("pattern") == ONE_LINE, (path, field)


@pytest.mark.parametrize("path,body,field", [
    ("/tournaments", {"name": "x", "tiebreaks": ["SB"] * 21}, "tiebreaks"),
    ("/tournaments", {"name": "x", "start_fen": "8/" * 3000}, "start_fen"),
    ("/tournaments", {"name": "x", "time_control": "9" * 101}, "time_control"),
    ("/tournaments", {"name": "x", "default_time_s": 10 ** 9}, "default_time_s"),
    ("/tournaments", {"name": "x", "lots_seed": 2 ** 64}, "lots_seed"),
    ("/tournaments", {"name": "x", "unshared_places": [10_000]}, "unshared_places"),
    ("/tournaments/T/lots", {"numbers": {"ann": 0}}, "numbers"),
    ("/tournaments/T/lots", {"numbers": {"bad id": 1}}, "numbers"),
    ("/tournaments/T/lineups", {"team": "A", "round": 1, "members": ["p"] * 201}, "members"),
    ("/tournaments/T/players", {"player_id": "p", "name": "P", "fide_id": "1" * 21}, "fide_id"),
    ("/games", {"white": "a", "black": "b", "round": 100}, "round"),
    ("/games", {"white": "a", "black": "b", "tournament_id": "no such id!"}, "tournament_id"),
    ("/games/g1/moves", {"player_id": "alice", "move": "e4", "at_ms": 4_102_444_800_001}, "at_ms"),
    # a line break in a field written into a PGN tag or a TRF line would forge the next one
    ("/games", {"white": "a", "black": "b", "time_control": "300+2\n"}, "time_control"),
    ("/tournaments", {"name": "Open\n012 Forged"}, "name"),
    ("/tournaments/T/players", {"player_id": "p", "name": 'Evil"]\n[Result "0-1'}, "name"),
    ("/tournaments/T/players", {"player_id": "p", "name": "P", "club": "C\r\n001 x"}, "club"),
    ("/tournaments/T/players", {"player_id": "p", "name": "P", "federation": "F\x00"}, "federation"),
    # Unicode line breaks: str.splitlines (the TRF and NDJSON readers) cut there too
    ("/tournaments/T/players", {"player_id": "p", "name": "Evil\u2028001 x"}, "name"),
    ("/tournaments/T/players", {"player_id": "p", "name": "P", "club": "C\u2029x"}, "club"),
    ("/tournaments/T/players", {"player_id": "p", "name": "Evil\x85001 x"}, "name"),
    ("/tournaments", {"name": "Open\x9b012 Forged"}, "name"),
    # bidirectional embeddings, overrides and isolates reorder the rest of the line (Trojan Source)
    ("/tournaments/T/players", {"player_id": "p", "name": "Evil \u202etxet"}, "name"),
    ("/tournaments", {"name": "Open \u202aX"}, "name"),
    ("/tournaments/T/players", {"player_id": "p", "name": "P", "club": "C\u2066x\u2069"}, "club"),
    ("/tournaments/T/players", {"player_id": "p", "name": "P", "team": "T\u2069"}, "team"),
    # a move and an arbiter's reason are written into the log and shown in the console too
    # (a helper's finding: a move with NUL or U+202E was published and recorded as refused)
    ("/games/g1/moves", {"player_id": "alice", "move": "e4\x00"}, "move"),
    ("/games/g1/moves", {"player_id": "alice", "move": "\u202ee4"}, "move"),
    ("/games/g1/penalties", {"player_id": "alice", "kind": "warning", "note": "x\u202ey"}, "note"),
    ("/games/g1/result", {"result": "1-0", "reason": "forfeit\n[Result \"0-1\"]"}, "reason"),
])
async def test_a_field_out_of_its_bounds_is_422_naming_it_and_nothing_logged(path, body, field):
    async with gateway(jwt_secret=None) as (client, log):
        r = await client.post("/tournaments", json={"tournament_id": "T", "name": "T"})
        assert r.status_code == 200, r.text
        await _game(client)
        r = await refused(client, log, 422, "malformed", path, body, ADMIN)
        assert r.json()["detail"][0]["loc"][:2] == ["body", field], r.text


@pytest.mark.parametrize("name,what", [
    ("Evil\u202egnp.exe", "bidirectional control U+202E at position 4"),
    ("\u2067Ann", "bidirectional control U+2067 at position 0"),
    ("Ann\u2028B", "line separator U+2028 at position 3"),
    ("Ann\x1bB", "control character U+001B at position 3"),
    ("Al\u200bice", "invisible character U+200B at position 2"),
    ("\ufeffAnn", "invisible character U+FEFF at position 0"),
    ("\u3164", "invisible character U+3164 at position 0"),  # a Hangul filler (a helper's)
    ("Ann\u00adB", "invisible character U+00AD at position 3"),
    ("Al\u200dice", "invisible character U+200D at position 2 (it joins nothing there)"),
    (" Ann\ufe0f", "invisible character U+FE0F at position 4 (it joins nothing there)"),
    ("Ann\U000e0041", "invisible character U+E0041 at position 3 (it joins nothing there)"),
])
async def test_a_one_line_refusal_names_the_character_and_its_place(name, what):
    async with gateway(jwt_secret=None) as (client, log):
        r = await client.post("/tournaments", json={"tournament_id": "T", "name": "T"})
        assert r.status_code == 200, r.text
        r = await refused(client, log, 422, "malformed", "/tournaments/T/players",
                          {"player_id": "p", "name": name}, ADMIN)
        assert r.json()["detail"][0]["msg"] == f"Value error, one line of text: {what}", r.text


async def test_the_bidi_marks_of_hebrew_and_arabic_names_pass():
    """LRM and RLM (U+200E, U+200F) reorder nothing beyond their neighbours: a name keeps them."""
    async with gateway(jwt_secret=None) as (client, _):
        r = await client.post("/tournaments", json={"tournament_id": "T", "name": "T"})
        assert r.status_code == 200, r.text
        for pid, name in (("p1", "\u05d3\u05d5\u05d3 (Tel Aviv)\u200e"), ("p2", "\u0639\u0644\u064a\u200f 2")):
            r = await client.post("/tournaments/T/players", json={"player_id": pid, "name": name}, headers=ADMIN)
            assert r.status_code == 200, r.text


async def test_a_name_with_nothing_visible_is_refused_and_the_joiners_of_persian_names_pass():
    """A name of blanks, joiners or combining marks alone shows as nothing in the standings
    (a helper registered "\u200b"); the joiners where a script or an emoji sequence uses them
    pass: ZWNJ in Persian, ZWJ after a Devanagari virama, emoji ZWJ sequences, variation
    selectors, a subdivision flag's tags; the blanks around a name are dropped."""
    async with gateway(jwt_secret=None) as (client, log):
        r = await client.post("/tournaments", json={"tournament_id": "T", "name": "T"})
        assert r.status_code == 200, r.text
        for name in (" ", "\u200c\u200d", "\u0301", "\u3000"):
            r = await refused(client, log, 422, "malformed", "/tournaments/T/players",
                              {"player_id": "p", "name": name}, ADMIN)
            assert "nothing visible" in r.json()["detail"][0]["msg"], r.text
        names = {"p": "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",  # Persian, ZWNJ
                 "q": "\u0915\u094d\u200d\u0937",  # Devanagari, virama + ZWJ
                 "r": "Kim \U0001f468\u200d\U0001f469\u200d\U0001f467",  # an emoji family
                 "s": "\u2764\ufe0f 1\ufe0f\u20e3",  # emoji presentation, a keycap
                 "t": "Wales \U0001f3f4\U000e0067\U000e0062\U000e0077\U000e006c\U000e0073\U000e007f",
                 "u": "  Ann  "}
        for pid, name in names.items():
            r = await client.post("/tournaments/T/players", headers=ADMIN, json={"player_id": pid, "name": name})
            assert r.status_code == 200, r.text
        r = await client.get("/tournaments/T")
        assert r.status_code == 200, r.text
        shown = {p["player_id"]: p["name"] for p in r.json()["players"]}
        assert shown["u"] == "Ann" and shown["t"] == names["t"]  # the blanks around a name dropped


# ------------------------------------------------------------------------------------ CORS
async def test_cors_is_off_by_default_and_answers_only_the_configured_origins():
    pre = {"Origin": "https://club.example", "Access-Control-Request-Method": "POST",
           "Access-Control-Request-Headers": "authorization,content-type"}
    async with gateway(jwt_secret=None) as (client, _):
        r = await client.options("/games", headers=pre)
        assert "access-control-allow-origin" not in r.headers
        assert (r.status_code, r.json()["code"]) == (405, "method-not-allowed")
    async with gateway(HttpLimits(cors_origins=("https://club.example",), game_rate="1/hour"),
                       jwt_secret=None) as (client, _):
        r = await client.options("/games", headers=pre)
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == "https://club.example"
        assert "authorization" in r.headers["access-control-allow-headers"].lower()
        r = await client.options("/games", headers={**pre, "Origin": "https://evil.example"})
        assert r.status_code == 400 and "access-control-allow-origin" not in r.headers
        # a refusal carries the headers too, and lets the page read Retry-After
        h = {"Origin": "https://club.example"}
        await client.post("/games", json={"game_id": "g1", "white": "a", "black": "b"}, headers=h)
        await client.post("/games/g1/draw/offer", json={"player_id": "a"}, headers=h)
        r = await client.post("/games/g1/resign", json={"player_id": "a"}, headers=h)
        assert r.status_code == 429 and r.headers["access-control-allow-origin"] == "https://club.example"
        assert "retry-after" in r.headers["access-control-expose-headers"].lower()


# ---------------------------------------------------------------------------- one error shape
async def test_every_new_refusal_has_the_one_error_shape():
    """404, 405, 422 of FastAPI's own, and the new 413 and 429: ``{"detail", "code"}``."""
    async with gateway(HttpLimits(max_body_bytes=1024, principal_rate="1/hour")) as (client, _):
        alice = bearer("player", "alice", ["*"])
        answers = [await client.get("/nowhere"), await client.put("/games"),
                   await client.post("/games", json={"white": 1}, headers=ADMIN),
                   await client.post("/games", content=b"x" * 2000, headers=ADMIN),
                   await client.post("/games/x/resign", json={"player_id": "alice"}, headers=alice),
                   await client.post("/games/x/resign", json={"player_id": "alice"}, headers=alice)]
        got = [(r.status_code, r.json()["code"], bool(r.json()["detail"])) for r in answers]
        assert got == [(404, "not-found", True), (405, "method-not-allowed", True),
                       (422, "malformed", True), (413, "too-large", True),
                       (404, "not-found", True), (429, "rate-limited", True)]


async def test_a_body_that_cannot_be_decoded_is_malformed_and_changes_nothing():
    """A reviewer's find: invalid UTF-8, a 5,000-digit integer or deep nesting got FastAPI's
    400; every malformed body is 422 ``malformed``."""
    async with gateway(jwt_secret=None) as (client, log):
        for body in (b'{"white": "\\xff\xff"}', b'{"game_id": "g1", "white": "a", "black": "b", "rating": '
                     + b"9" * 5000 + b"}", b"[" * 200_000 + b"]" * 200_000):
            before = await _counts(log)
            r = await client.post("/games", content=body, headers={"Content-Type": "application/json"})
            assert (r.status_code, r.json()["code"]) == (422, "malformed"), r.text
            assert await _counts(log) == before


@asynccontextmanager
async def served_by_uvicorn(limits: HttpLimits, host: str = "127.0.0.1"):
    """The gateway served as ``arbiter serve`` serves it (uvicorn with
    :func:`services.runner.uvicorn_options`, read from the environment now) on a free port of
    ``host`` (``"::"``: IPv6 and IPv4 both): a client of it over IPv4 loopback."""
    import asyncio
    import socket

    import uvicorn

    from services.runner import uvicorn_options

    async with started(limits) as (app, log):
        sock = (socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True)
                if host == "::" else socket.create_server((host, 0)))
        server = uvicorn.Server(uvicorn.Config(app, **uvicorn_options()))
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:
            await asyncio.sleep(0.01)
        try:
            async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{sock.getsockname()[1]}") as c:
                yield c
        finally:
            server.should_exit = True
            await task


async def test_x_forwarded_for_names_the_client_only_from_a_trusted_proxy(monkeypatch):
    """The failed-authentication limit counts the client address. Without
    ARBITER_TRUSTED_PROXIES it is the connecting one: a caller on the same host as the gateway
    (a tunnel, a proxy passing the header through) cannot name a fresh address in each
    X-Forwarded-For to guess without limit (uvicorn's own default trusts loopback). With the
    proxy's address trusted, each client behind it has its own budget: one client's guesses
    do not lock out another behind the same proxy (a helper's finding)."""
    limits = HttpLimits(auth_failure_rate="3/hour")
    monkeypatch.delenv("ARBITER_TRUSTED_PROXIES", raising=False)
    async with served_by_uvicorn(limits) as c:
        codes = [(await c.get("/games", headers={**FORGED, "X-Forwarded-For": f"10.9.8.{i}"})).status_code
                 for i in range(5)]
        assert codes == [401, 401, 401, 429, 429]
    monkeypatch.setenv("ARBITER_TRUSTED_PROXIES", "127.0.0.0/8, ::1")
    async with served_by_uvicorn(limits) as c:
        codes = [(await c.get("/games", headers={**FORGED, "X-Forwarded-For": f"10.9.8.{i}"})).status_code
                 for i in range(5)]
        assert codes == [401] * 5
        codes = [(await c.get("/games", headers={**FORGED, "X-Forwarded-For": "10.9.8.66"})).status_code
                 for i in range(4)]
        assert codes == [401, 401, 401, 429]  # one client behind the proxy, its own budget
        r = await c.get("/games", headers={**bearer("player", "alice", ["*"]), "X-Forwarded-For": "10.9.8.7"})
        assert r.status_code == 200, r.text
    async with served_by_uvicorn(limits, "::") as c:  # IPv4 clients come as ::ffff:127.0.0.1
        codes = [(await c.get("/games", headers={**FORGED, "X-Forwarded-For": f"10.9.8.{i}"})).status_code
                 for i in range(5)]
        assert codes == [401] * 5
    monkeypatch.setenv("ARBITER_TRUSTED_PROXIES", "proxy.internal")
    with pytest.raises(ConfigError, match="ARBITER_TRUSTED_PROXIES: .*'proxy.internal' is not an IP address"):
        settings()
