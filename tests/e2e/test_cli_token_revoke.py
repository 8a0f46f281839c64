"""``arbiter token revoke`` against a running gateway (identity on, every service behind it,
served by uvicorn on loopback): the holder revokes his own token read from standard input, the
administrator revokes by jti, and refusals are one line naming the gateway's code, exit 1."""
from __future__ import annotations

import json

import httpx
import pytest
from typer.testing import CliRunner

from services.cli import app
from services.gateway.identity import issue_token, read_token
from tests.e2e.test_api_fuzz import ADMIN, SECRET, running_platform


@pytest.fixture(scope="module")
def gateway():
    with running_platform() as (base, _):
        yield base


def _revoke(base: str, *args: str, stdin: str | None = None):
    return CliRunner().invoke(app, ["token", "revoke", "--gateway", base, *args], input=stdin)


def test_token_revoke_by_holder_and_administrator(gateway, monkeypatch):
    monkeypatch.delenv("ARBITER_ADMIN_TOKEN", raising=False)
    monkeypatch.delenv("ARBITER_BEARER", raising=False)
    alice = issue_token(SECRET, "player", "alice", ["*"], ttl_s=3600)
    r = _revoke(gateway, "--token", "-", "--reason", "phone lost", stdin=alice + "\n")
    assert r.exit_code == 0, r.output
    answer = json.loads(r.stdout)
    assert (answer["sub"], answer["role"], answer["jti"]) == ("alice", "player",
                                                              read_token(SECRET, alice).jti)
    moved = httpx.post(f"{gateway}/games/g1/moves", json={"player_id": "alice", "move": "e4"},
                       headers={"Authorization": f"Bearer {alice}"})
    assert (moved.status_code, moved.json()["code"]) == (401, "token-revoked")
    again = _revoke(gateway, "--token", alice)  # the revoked token no longer authenticates
    assert again.exit_code == 1 and "401 token-revoked" in again.output
    again = _revoke(gateway, "--token", alice, "--bearer", issue_token(SECRET, "admin", "root", [], ttl_s=60))
    assert again.exit_code == 1 and "409 already-revoked" in again.output
    bob = issue_token(SECRET, "player", "bob", ["*"], ttl_s=3600)
    by_player = _revoke(gateway, "--jti", "a-jti-of-someone", "--bearer", bob)
    assert by_player.exit_code == 1 and "403 admins-only" in by_player.output
    monkeypatch.setenv("ARBITER_ADMIN_TOKEN", ADMIN["X-Arbiter-Token"])
    by_admin = _revoke(gateway, "--jti", "a-jti-of-someone")
    assert by_admin.exit_code == 0, by_admin.output
    assert json.loads(by_admin.stdout) | {"command_id": None, "seq": None, "stream": None,
                                          "expires_at_s": None} == {
        "jti": "a-jti-of-someone", "sub": None, "role": None, "expires_at_s": None,
        "command_id": None, "seq": None, "stream": None}


def test_token_revoke_usage_and_an_unreachable_gateway(monkeypatch):
    monkeypatch.delenv("ARBITER_ADMIN_TOKEN", raising=False)
    r = _revoke("http://127.0.0.1:9", "--token", "x", "--jti", "y")
    assert r.exit_code == 2 and "exactly one of --token and --jti" in r.output
    r = _revoke("http://127.0.0.1:9", "--jti", "y")
    assert r.exit_code == 1 and "cannot reach the gateway" in r.output
