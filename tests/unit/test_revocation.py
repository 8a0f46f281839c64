"""Token revocation and the administrator's bootstrap (issue 12 item 1): a revoked token is
401 ``token-revoked`` at every gateway on the log, because the revocation is a RevokeToken on
the log folded by each gateway's read model, not one process's memory; expiry is enforced;
``arbiter admin create`` bootstraps the administrator explicitly.
"""
from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager

import httpx
import pytest
from typer.testing import CliRunner

from contracts.envelope import Actor
from contracts.messages import TOURNAMENT_COMMANDS
from services.cli import app as cli
from services.gateway.app import create_app
from services.gateway.identity import LEEWAY_S, MAX_TTL_S, AuthError, Revocations, issue_token, read_token
from shared.eventlog.memory import MemoryLog
from tests.unit.test_gateway import NOW, _gateway as gateway_on, _log as log_with
from tests.unit.test_identity import ADMIN, ADMIN_TOKEN, SECRET, Fake, _counts, _event, _game, bearer, refused


def _auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def _token(role: str, sub: str, events=("*",), ttl_s: int = 86_400, **kw) -> str:
    return issue_token(SECRET, role, sub, list(events), ttl_s=ttl_s, **kw)


@asynccontextmanager
async def _gateway(log):
    """A gateway with identity on, on a started ``log`` it does not manage: its client."""
    async with gateway_on(log, jwt_secret=SECRET) as (_, client):
        yield client


def _log():
    """A started memory log with the fake services (deaf to RevokeToken) on it."""
    return log_with(Fake)


async def _revocations(log) -> list:
    return [m for m in await log.read(TOURNAMENT_COMMANDS) if m.type == "RevokeToken"]


async def test_a_player_revokes_his_own_token_and_it_is_401_from_then_on():
    async with _log() as log, _gateway(log) as client:
        await _game(client)
        alice = _token("player", "alice")
        r = await client.post("/tokens/revocations", json={"token": alice, "reason": "phone lost"},
                              headers=_auth(alice))
        assert r.status_code == 200, r.text
        jti = read_token(SECRET, alice).jti
        assert (r.json()["jti"], r.json()["sub"], r.json()["role"]) == (jti, "alice", "player")
        [rev] = await _revocations(log)
        assert rev.stream.startswith("identity.commands.") and rev.actor == Actor(kind="player", id="alice")
        assert (rev.payload.jti, rev.payload.reason) == (jti, "phone lost")
        r = await refused(client, log, 401, "token-revoked", "/games/g1/moves",
                          {"player_id": "alice", "move": "e4"}, _auth(alice))
        assert r.headers["www-authenticate"] == "Bearer"
        # another token of hers is not revoked
        r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"},
                              headers=_auth(_token("player", "alice")))
        assert r.status_code == 200, r.text


async def test_the_organiser_revokes_his_events_tokens_and_no_one_elses():
    async with _log() as log, _gateway(log) as client:
        org = await _event(client, "T1", "olga")
        r = await client.post("/tournaments/T1/tokens", json={"role": "player", "ids": ["ann", "ben"]}, headers=org)
        ann, ben = r.json()["tokens"]["ann"], r.json()["tokens"]["ben"]
        # another organiser, another player, an integrator: 403, nothing written
        await refused(client, log, 403, "not-your-token", "/tokens/revocations", {"token": ann},
                      bearer("organiser", "otto"))
        await refused(client, log, 403, "not-your-token", "/tokens/revocations", {"token": ann}, _auth(ben))
        await refused(client, log, 403, "not-your-token", "/tokens/revocations",
                      {"token": _token("organiser", "otto")}, org)  # not a player's or arbiter's
        await refused(client, log, 403, "not-your-token", "/tokens/revocations",
                      {"token": _token("player", "zed", ["*"])}, org)  # not scoped to his events
        r = await client.post("/tokens/revocations", json={"token": ann}, headers=org)
        assert r.status_code == 200 and (await _revocations(log))[-1].actor == Actor(kind="organiser", id="olga")
        await refused(client, log, 401, "token-revoked", "/games/T1-r1-b1/resign", {"player_id": "ann"}, _auth(ann))
        await refused(client, log, 409, "already-revoked", "/tokens/revocations", {"token": ann}, org)


async def test_the_administrator_revokes_any_token_also_by_jti_and_bad_requests_change_nothing():
    async with _log() as log, _gateway(log) as client:
        await _game(client)
        ref = _token("arbiter", "ref")
        jti = read_token(SECRET, ref).jti
        await refused(client, log, 403, "admins-only", "/tokens/revocations", {"jti": jti},
                      bearer("organiser", "olga"))
        await refused(client, log, 422, "malformed", "/tokens/revocations", {"jti": jti, "token": ref}, ADMIN)
        await refused(client, log, 422, "malformed", "/tokens/revocations", {}, ADMIN)
        await refused(client, log, 422, "malformed", "/tokens/revocations", {"jti": "no spaces"}, ADMIN)
        # the reason is one line of text, as the other fields an arbiter sees (a helper's finding)
        r = await refused(client, log, 422, "malformed", "/tokens/revocations",
                          {"jti": jti, "reason": "test \u202e"}, ADMIN)
        assert "bidirectional control U+202E at position 5" in r.text, r.text
        forged = issue_token("another-secret-of-forty-characters-00000", "player", "x", ["*"], ttl_s=60)
        await refused(client, log, 422, "token-unreadable", "/tokens/revocations", {"token": forged}, ADMIN)
        await refused(client, log, 401, "unauthenticated", "/tokens/revocations", {"jti": jti})
        t0 = int(time.time())
        r = await client.post("/tokens/revocations", json={"jti": jti}, headers=ADMIN)
        assert r.status_code == 200 and (r.json()["sub"], r.json()["role"]) == (None, None), r.text
        assert t0 + MAX_TTL_S <= r.json()["expires_at_s"] <= int(time.time()) + MAX_TTL_S
        assert (await _revocations(log))[-1].actor == Actor(kind="arbiter", id="admin")
        await refused(client, log, 401, "token-revoked", "/games/g1/result", {"result": "1-0"}, _auth(ref))
        # an expired token can still be revoked (shown), e.g. one found in an old log
        old = _token("player", "bob", ttl_s=60)
        r = await client.post("/tokens/revocations", json={"token": old}, headers=ADMIN)
        assert r.status_code == 200 and r.json()["expires_at_s"] == read_token(SECRET, old).exp


async def test_every_gateway_on_the_log_refuses_a_revoked_token_a_new_one_too():
    """Revoked at gateway A: gateway B (running) learns it from the log, gateway C (started
    after) reads it at start."""
    async with _log() as log, _gateway(log) as a, _gateway(log) as b:
        await _game(a)
        alice = _token("player", "alice")
        r = await b.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"}, headers=_auth(alice))
        assert r.status_code == 200, r.text
        r = await a.post("/tokens/revocations", json={"token": alice}, headers=ADMIN)
        assert r.status_code == 200, r.text
        for _ in range(200):  # B's follower delivers the RevokeToken (at most 10 s)
            r = await b.post("/games/g1/resign", json={"player_id": "alice"}, headers=_auth(alice))
            if r.status_code == 401:
                break
            await asyncio.sleep(0.05)
        assert (r.status_code, r.json()["code"]) == (401, "token-revoked")
        async with _gateway(log) as c:
            r = await c.post("/games/g1/resign", json={"player_id": "alice"}, headers=_auth(alice))
            assert (r.status_code, r.json()["code"]) == (401, "token-revoked")


def test_revocations_are_a_fold_forgetting_expired_tokens():
    rv = Revocations()
    rv.apply("a", expires_at_s=1_000, at_s=500)
    rv.apply("b", expires_at_s=5_000, at_s=600)
    assert rv.revoked("a") and rv.revoked("b") and not rv.revoked("c") and not rv.revoked(None)
    rv.apply("c", expires_at_s=9_000, at_s=1_000 + LEEWAY_S)  # a still within the leeway
    assert rv.until == {"a": 1_000, "b": 5_000, "c": 9_000}
    rv.apply("d", expires_at_s=9_000, at_s=1_001 + LEEWAY_S)  # a expired: forgotten
    assert rv.until == {"b": 5_000, "c": 9_000, "d": 9_000}


def test_expiry_is_enforced_with_the_leeway_and_no_more():
    now = time.time()
    within = issue_token(SECRET, "player", "p", ["*"], ttl_s=60, now_s=now - 60 - LEEWAY_S + 5)
    assert read_token(SECRET, within).sub == "p"
    past = issue_token(SECRET, "player", "p", ["*"], ttl_s=60, now_s=now - 60 - LEEWAY_S - 5)
    with pytest.raises(AuthError) as e:
        read_token(SECRET, past)
    assert (e.value.status, e.value.code) == (401, "token-expired")
    assert read_token(SECRET, past, expired_ok=True).exp == int(now - LEEWAY_S - 5)


def test_admin_create_bootstraps_the_administrator_and_refuses_without_a_secret(monkeypatch):
    monkeypatch.setenv("ARBITER_JWT_SECRET", SECRET)
    r = CliRunner().invoke(cli, ["admin", "create", "--sub", "root", "--ttl", "7d"])
    assert r.exit_code == 0, r.output
    p = read_token(SECRET, r.stdout.strip().splitlines()[-1])
    assert (p.role, p.sub, p.exp - int(time.time()) > 7 * 86_400 - 60) == ("admin", "root", True)
    monkeypatch.delenv("ARBITER_JWT_SECRET")
    r = CliRunner().invoke(cli, ["admin", "create"])
    assert r.exit_code == 2 and "ARBITER_JWT_SECRET" in r.output


async def test_revocation_needs_identity_on():
    log = MemoryLog()
    Fake(log)
    app = create_app(log, admin_token=ADMIN_TOKEN, now_ms=lambda: NOW)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
            before = await _counts(log)
            r = await c.post("/tokens/revocations", json={"jti": "abc"}, headers=ADMIN)
            assert (r.status_code, r.json()["code"]) == (409, "identity-off")
            assert await _counts(log) == before
