"""A token revocation on a running platform (every service in one process, memory log): the
RevokeToken command sits on the tournament command topic, which the pairing and standings
services read; they pass it by, the platform goes on, and the audit of the whole log finds no
difference."""
from __future__ import annotations

from contracts.messages import TOPICS
from services.gateway.identity import issue_token
from services.tools.audit import audit
from services.tools.embedded import arbiter_client

SECRET = "an-integration-secret-of-forty-chars-000"


async def test_the_services_pass_a_revocation_by_and_the_audit_agrees(monkeypatch):
    monkeypatch.setenv("ARBITER_JWT_SECRET", SECRET)
    async with arbiter_client("memory", ticks=False) as c:  # carries the administrator's token
        olga = issue_token(SECRET, "organiser", "olga", [], ttl_s=3600)
        r = await c.post("/tokens/revocations", json={"token": olga, "reason": "left the club"})
        assert r.status_code == 200, r.text
        req = c.build_request("POST", "/tournaments", json={"tournament_id": "R1", "name": "R"},
                              headers={"Authorization": f"Bearer {olga}"})
        del req.headers["X-Arbiter-Token"]  # olga's own request
        r = await c.send(req)
        assert (r.status_code, r.json()["code"]) == (401, "token-revoked"), r.text
        r = await c.post("/tournaments", json={"tournament_id": "R1", "name": "R"})
        assert r.status_code == 200 and r.json()["event"] == "TournamentCreated", r.text
        for pid in ("a", "b"):
            r = await c.post("/tournaments/R1/players", json={"player_id": pid, "name": pid})
            assert r.status_code == 200 and r.json()["event"] == "PlayerRegistered", r.text
        r = await c.post("/tournaments/R1/rounds", json={"round": 1})
        assert r.status_code == 200 and r.json()["event"] == "RoundPaired", r.text
        msgs = await c.arbiter_log.read_many(TOPICS)
        assert [m.type for m in msgs].count("RevokeToken") == 1
        assert await audit(msgs) == []
