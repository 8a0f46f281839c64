"""Identity and roles in the gateway (issue 12 items 1-2): bearer tokens (JWT) signed with
ARBITER_JWT_SECRET, and with it set, every write authenticated (401) and authorised (403)
before anything reaches the log; the principal recorded in the command's actor.

Real requests against the gateway on a MemoryLog, answered by the fake services of
test_gateway (plus results and finishes); every refusal counts the log before and after.
"""
from __future__ import annotations

import time

import httpx
import pytest
from typer.testing import CliRunner

from contracts.envelope import Actor
from contracts.messages import (
    GAME_COMMANDS, GAME_EVENTS, TOURNAMENT_COMMANDS, TOURNAMENT_EVENTS, GameEnded, Rule,
    TournamentFinished,
)
from services.cli import app as cli
from services.gateway.app import create_app
from services.gateway.identity import (
    MAX_TTL_S, AuthError, Principal, issue_token, parse_ttl, read_token, tokens_equal,
)
from shared.config import require_for_address, settings
from shared.eventlog.memory import MemoryLog
from tests.unit.test_gateway import NOW, FakeServices

SECRET = "a-test-secret-of-forty-characters-000000"
ADMIN_TOKEN = "sekret"
DAY = 86_400


class Fake(FakeServices):
    """The gateway tests' fake services, also ending a game on an arbiter's result and
    finishing an event; like the real ones, deaf to the gateway's RevokeToken."""

    async def on_command(self, topic, cmd):
        p = cmd.payload
        if cmd.type == "RevokeToken":
            return
        if cmd.type == "RecordResult":
            await self.emit(GAME_EVENTS, cmd, f"game-{p.game_id}.result", GameEnded(
                game_id=p.game_id, result=p.result, reason=p.reason,
                rule=Rule(ruleset="FIDE-1994", article="arbiter")))
        elif cmd.type == "FinishTournament":
            await self.emit(TOURNAMENT_EVENTS, cmd, f"tournament-{p.tournament_id}", TournamentFinished(
                tournament_id=p.tournament_id, rounds=1))
        else:
            await super().on_command(topic, cmd)


def bearer(role: str, sub: str, events=(), ttl_s: int = DAY, **kw) -> dict:
    return {"Authorization": f"Bearer {issue_token(SECRET, role, sub, list(events), ttl_s=ttl_s, **kw)}"}


ADMIN = {"X-Arbiter-Token": ADMIN_TOKEN}


async def _host(jwt_secret):
    log = MemoryLog()
    Fake(log)
    app = create_app(log, admin_token=ADMIN_TOKEN, now_ms=lambda: NOW, wait_timeout=0.3,
                     jwt_secret=jwt_secret)
    return log, app


@pytest.fixture
async def idn():
    """The gateway with identity on: (client, log)."""
    log, app = await _host(SECRET)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
            yield c, log


async def _counts(log) -> tuple[int, int]:
    return len(await log.read(GAME_COMMANDS)), len(await log.read(TOURNAMENT_COMMANDS))


async def refused(client, log, status: int, code: str, path: str, json: dict, headers: dict | None = None):
    """POST ``path``: answered ``status`` with ``code``, nothing published."""
    before = await _counts(log)
    r = await client.post(path, json=json, headers=headers or {})
    assert (r.status_code, r.json().get("code")) == (status, code), r.text
    assert await _counts(log) == before, "a refused command reached the log"
    return r


async def _last_actor(log, topic=GAME_COMMANDS) -> Actor:
    return (await log.read(topic))[-1].actor


async def _game(client, gid="g1", white="alice", black="bob"):
    r = await client.post("/games", json={"game_id": gid, "white": white, "black": black}, headers=ADMIN)
    assert r.status_code == 200, r.text


async def _event(client, tid: str, organiser: str, players=("ann", "ben")):
    """Event ``tid`` created by ``organiser`` with ``players`` registered and round 1 paired
    (game ``<tid>-r1-b1``, the first two players)."""
    org = bearer("organiser", organiser)
    r = await client.post("/tournaments", json={"tournament_id": tid, "name": tid, "system": "round-robin"},
                          headers=org)
    assert r.status_code == 200, r.text
    for pid in players:
        r = await client.post(f"/tournaments/{tid}/players", json={"player_id": pid, "name": pid}, headers=org)
        assert r.status_code == 200, r.text
    r = await client.post(f"/tournaments/{tid}/rounds", headers=org, json={
        "round": 1, "boards": [{"white": players[0], "black": players[1]}]})
    assert r.status_code == 200, r.text
    return org


# ------------------------------------------------------------------------------------ players
async def test_a_player_moves_for_himself_in_his_own_game(idn):
    client, log = idn
    await _game(client)
    r = await client.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"},
                          headers=bearer("player", "alice", ["*"]))
    assert r.status_code == 200 and r.json()["event"] == "MoveAccepted", r.text
    assert await _last_actor(log) == Actor(kind="player", id="alice")


async def test_player_a_moving_for_b_is_403_and_no_event(idn):
    client, log = idn
    await _game(client)
    alice = bearer("player", "alice", ["*"])
    r = await refused(client, log, 403, "not-yourself", "/games/g1/moves",
                      {"player_id": "bob", "move": "e4"}, alice)
    assert "alice" in r.json()["detail"] and "bob" in r.json()["detail"]
    # the issue's probe: resigning for the opponent
    await refused(client, log, 403, "not-yourself", "/games/g1/resign", {"player_id": "bob"}, alice)
    await refused(client, log, 403, "not-yourself", "/games/g1/draw/claim",
                  {"player_id": "bob", "reason": "repetition"}, alice)
    # who may act is decided before the game's state: once it is over, still 403, not 409
    r = await client.post("/games/g1/resign", json={"player_id": "alice"}, headers=alice)
    assert r.status_code == 200 and r.json()["event"] == "Resigned", r.text
    await refused(client, log, 403, "not-yourself", "/games/g1/resign", {"player_id": "bob"}, alice)
    await refused(client, log, 409, "game-over", "/games/g1/resign", {"player_id": "alice"}, alice)


async def test_a_player_in_a_game_he_does_not_play_is_403(idn):
    client, log = idn
    await _game(client)
    carol = bearer("player", "carol", ["*"])
    await refused(client, log, 403, "not-your-game", "/games/g1/moves",
                  {"player_id": "carol", "move": "e4"}, carol)
    await refused(client, log, 403, "not-your-game", "/games/g1/draw/offer", {"player_id": "carol"}, carol)


async def test_a_players_token_acts_only_in_its_events(idn):
    client, log = idn
    await _event(client, "T1", "olga")
    await _game(client, "free", "ann", "zed")
    ann_t1 = bearer("player", "ann", ["T1"])
    await refused(client, log, 403, "not-your-event", "/games/free/moves",
                  {"player_id": "ann", "move": "e4"}, ann_t1)
    # an organiser, an integrator: not players
    await refused(client, log, 403, "players-only", "/games/free/moves",
                  {"player_id": "ann", "move": "e4"}, bearer("organiser", "olga", ["*"]))
    await refused(client, log, 403, "players-only", "/games/free/resign",
                  {"player_id": "ann"}, bearer("integrator", "tv", ["*"]))
    # an arbiter of another event: not this game's arbiter (he is one, elsewhere)
    r = await refused(client, log, 403, "not-your-event", "/games/free/resign",
                      {"player_id": "ann"}, bearer("arbiter", "ref2", ["T2"]))
    assert r.json()["detail"] == "arbiter ref2 is not an arbiter of games outside any event (an arbiter token with events ['*'])"
    # a recorded time is an arbiter's
    await refused(client, log, 403, "arbiters-only", "/games/free/moves",
                  {"player_id": "ann", "move": "e4", "at_ms": NOW}, bearer("player", "ann", ["*"]))


async def test_a_refusal_names_the_role_with_its_article(idn):
    """The detail reads as English: "an organiser", "an arbiter", "an integrator"."""
    client, log = idn
    await _game(client, "free", "ann", "zed")
    r = await refused(client, log, 403, "players-only", "/games/free/moves",
                      {"player_id": "ann", "move": "e4"}, bearer("organiser", "olga", ["*"]))
    assert r.json()["detail"] == "an organiser does not act for a player here"
    r = await refused(client, log, 403, "organisers-only", "/games", {"white": "a", "black": "b"},
                      bearer("arbiter", "arb", ["*"]))
    assert r.json()["detail"].endswith("not an arbiter")
    r = await refused(client, log, 403, "integrators-only", "/webhooks", {
        "url": "https://tv.example/x", "scope": "all", "types": ["GameEnded"]}, bearer("player", "ann", ["*"]))
    assert r.json()["detail"].endswith("not a player")


# ------------------------------------------------------------------------------- credentials
async def test_anonymous_writes_are_401(idn):
    client, log = idn
    await _game(client)
    await _event(client, "T1", "olga")
    r = await refused(client, log, 401, "unauthenticated", "/games/g1/moves", {"player_id": "alice", "move": "e4"})
    assert r.headers["www-authenticate"] == "Bearer"
    await refused(client, log, 401, "unauthenticated", "/games/g1/result", {"result": "1-0"})
    await refused(client, log, 401, "unauthenticated", "/tournaments", {"name": "x", "system": "swiss"})
    await refused(client, log, 401, "unauthenticated", "/games", {"white": "a", "black": "b"})
    await refused(client, log, 401, "unauthenticated", "/tournaments/T1/players", {"player_id": "x", "name": "X"})
    await refused(client, log, 401, "unauthenticated", "/tournaments/T1/finish", {"reason": "gone"})
    await refused(client, log, 401, "unauthenticated", "/games/T1-r1-b1/correction",
                  {"result": "1-0", "reason": "x"})
    await refused(client, log, 401, "unauthenticated", "/tournaments/T1/tokens", {"role": "player", "ids": ["ann"]})
    # reading stays open
    assert (await client.get("/games/g1")).status_code == 200
    sid = (await client.post("/webhooks", headers=ADMIN, json={
        "url": "https://tv.example/x", "scope": "all", "types": ["GameEnded"]})).json()["subscription_id"]
    r = await client.get(f"/webhooks/{sid}/deliveries")  # a subscription's reads are its owner's
    assert r.status_code == 401 and "write" not in r.json()["detail"], r.text


@pytest.mark.parametrize("make,code", [
    (lambda: issue_token(SECRET, "player", "alice", ["*"], ttl_s=60, now_s=time.time() - 3600), "token-expired"),
    (lambda: issue_token("another-secret-of-forty-characters-00000", "player", "alice", ["*"], ttl_s=60),
     "token-forged"),
    (lambda: issue_token(SECRET, "player", "alice", ["*"], ttl_s=60)[:-4] + "AAAA", "token-forged"),
    (lambda: "not-a-jwt", "token-malformed"),
    (lambda: __import__("jwt").encode({"sub": "alice", "role": "admin", "events": ["*"], "iat": int(time.time()),
                                       "exp": int(time.time()) + 60, "jti": "j"}, None, algorithm="none"),
     "token-malformed"),  # alg none: unsigned
    (lambda: "é.ü.ß", "token-malformed"),
])
async def test_expired_forged_and_malformed_tokens_are_401(idn, make, code):
    client, log = idn
    await _game(client)
    await refused(client, log, 401, code, "/games/g1/moves", {"player_id": "alice", "move": "e4"},
                  {"Authorization": f"Bearer {make()}".encode()})


def _minted(iat: float = 0, exp: int = DAY, **claims) -> str:
    """A token signed with the gateway's real secret, not by :func:`issue_token`: a player
    alice's for every event, issued ``iat`` s from now and expiring ``exp`` s from now, with
    ``claims`` changed."""
    now = int(time.time())
    return __import__("jwt").encode({"sub": "alice", "role": "player", "events": ["*"], "iat": now + iat,
                                     "exp": now + exp, "jti": "j1", **claims}, SECRET, algorithm="HS256")


@pytest.mark.parametrize("claims,why", [
    ({"exp": MAX_TTL_S + 1}, f"a token lives 1 s to 366 days, not {MAX_TTL_S + 1} s"),
    ({"iat": -10 * MAX_TTL_S}, f"a token lives 1 s to 366 days, not {10 * MAX_TTL_S + DAY} s"),
    ({"exp": 0}, "a token lives 1 s to 366 days, not 0 s"),
    ({"role": "superuser"}, "role must be one of admin, organiser, arbiter, player, integrator, not 'superuser'"),
    ({"sub": "admin", "role": "arbiter", "chief": True}, "the id 'admin' is the platform administrator's"),
    ({"chief": True}, "only an arbiter token may carry chief"),
    ({"events": ["../T1"]}, "event ids must match [A-Za-z0-9_-]{1,80} or be '*': ['../T1']"),
    ({"sub": "al ice"}, "sub must match [A-Za-z0-9_-]{1,80}, not 'al ice'"),
    ({"iat": 0.5}, "claims are not role, sub, events, chief, jti, iat, exp as issued"),
])
async def test_a_token_the_gateway_would_never_issue_is_401_naming_the_limit(idn, claims, why):
    """Signed with the real secret (a leaked one, another minting tool) but outside what
    ``issue_token`` makes: a lifetime over a year and a day (or none), an unknown role, the
    administrator's id in another role, chief on a player, a bad event id or sub: refused."""
    client, log = idn
    await _game(client)
    r = await refused(client, log, 401, "token-malformed", "/games/g1/moves", {"player_id": "alice", "move": "e4"},
                      {"Authorization": f"Bearer {_minted(**claims)}"})
    assert why in r.json()["detail"], r.text
    assert read_token(SECRET, _minted(exp=MAX_TTL_S)).sub == "alice"  # the longest lifetime issued


async def test_a_token_with_edited_claims_or_another_scheme_is_401(idn):
    client, log = idn
    await _game(client)
    import base64
    import json
    h, _, s = issue_token(SECRET, "player", "alice", ["*"], ttl_s=60).split(".")
    body = base64.urlsafe_b64encode(json.dumps({"sub": "alice", "role": "admin", "events": [], "iat": 1,
                                                "exp": 4_000_000_000, "jti": "x"}).encode()).rstrip(b"=")
    await refused(client, log, 401, "token-forged", "/games/g1/result", {"result": "1-0"},
                  {"Authorization": f"Bearer {h}.{body.decode()}.{s}"})
    await refused(client, log, 401, "token-malformed", "/games/g1/moves", {"player_id": "alice", "move": "e4"},
                  {"Authorization": "Basic YWxpY2U6cHc="})
    await refused(client, log, 401, "token-invalid", "/games/g1/moves", {"player_id": "alice", "move": "e4"},
                  {"X-Arbiter-Token": "guess"})
    # a token without the required claims (no jti, no role)
    import jwt
    bare = jwt.encode({"sub": "alice", "exp": int(time.time()) + 60, "iat": int(time.time())}, SECRET)
    await refused(client, log, 401, "token-malformed", "/games/g1/moves", {"player_id": "alice", "move": "e4"},
                  {"Authorization": f"Bearer {bare}"})


async def test_a_non_ascii_arbiter_token_is_refused_not_a_500():
    for secret in (None, SECRET):
        log, app = await _host(secret)
        async with app.router.lifespan_context(app):
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
                await _game(c)
                bad = {"X-Arbiter-Token": "arbitre-été".encode()}
                want = 403 if secret is None else 401
                r = await c.post("/games/g1/result", json={"result": "1-0"}, headers=bad)
                assert r.status_code == want, r.text
                r = await c.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"}, headers=bad)
                assert r.status_code == (200 if secret is None else 401), r.text  # identity off: a player's move
                r = await c.post("/tournaments", json={"name": "x", "system": "swiss"}, headers=bad)
                assert r.status_code == (200 if secret is None else 401), r.text
    assert tokens_equal("été", "été") and not tokens_equal("été", "ete")


# ---------------------------------------------------------------------------------- arbiters
async def test_an_arbiter_of_t1_rules_in_t1_not_in_t2(idn):
    client, log = idn
    await _event(client, "T1", "olga")
    await _event(client, "T2", "otto", players=("cid", "dan"))
    ref = bearer("arbiter", "ref1", ["T1"])
    await refused(client, log, 403, "not-your-event", "/games/T2-r1-b1/result", {"result": "1-0"}, ref)
    await refused(client, log, 403, "not-your-event", "/games/T2-r1-b1/penalties",
                  {"player_id": "cid", "kind": "warning", "note": "phone"}, ref)
    r = await client.post("/games/T1-r1-b1/result", json={"result": "1-0", "reason": "arbiter"}, headers=ref)
    assert r.status_code == 200 and r.json()["event"] == "GameEnded", r.text
    assert await _last_actor(log) == Actor(kind="arbiter", id="ref1")
    # players and organisers do not rule
    await refused(client, log, 403, "not-your-event", "/games/T2-r1-b1/result", {"result": "0-1"},
                  bearer("player", "cid", ["T2"]))
    await refused(client, log, 403, "not-your-event", "/games/T2-r1-b1/result", {"result": "0-1"},
                  bearer("organiser", "otto", ["T2"]))


async def test_a_game_outside_events_is_ruled_by_the_admin_or_an_arbiter_of_every_event(idn):
    client, log = idn
    await _game(client)
    await refused(client, log, 403, "not-your-event", "/games/g1/arrival", {"player_id": "alice"},
                  bearer("arbiter", "ref1", ["T1"]))
    r = await client.post("/games/g1/draw/offer?wait=false", json={"player_id": "alice"},
                          headers=bearer("arbiter", "ref9", ["*"]))
    assert r.status_code == 202 and await _last_actor(log) == Actor(kind="arbiter", id="ref9")
    r = await client.post("/games/g1/result", json={"result": "1-0"}, headers=bearer("admin", "root"))
    assert r.status_code == 200 and await _last_actor(log) == Actor(kind="arbiter", id="admin:root")
    # a correction (tournament games only): a player hears 403 first, not the game's kind
    await refused(client, log, 403, "not-your-event", "/games/g1/correction",
                  {"result": "0-1", "reason": "appeal"}, bearer("player", "alice", ["*"]))
    await refused(client, log, 409, "invalid", "/games/g1/correction",
                  {"result": "0-1", "reason": "appeal"}, bearer("arbiter", "ref9", ["*"]))


async def test_corrections_after_the_event_is_finished_need_the_chief_arbiter(idn):
    client, log = idn
    org = await _event(client, "T1", "olga")
    ref, chief = bearer("arbiter", "ref1", ["T1"]), bearer("arbiter", "boss", ["T1"], chief=True)
    assert (await client.post("/games/T1-r1-b1/result", json={"result": "1-0"}, headers=ref)).status_code == 200
    r = await client.post("/games/T1-r1-b1/correction?wait=false", json={"result": "0-1", "reason": "scoresheet"},
                          headers=ref)
    assert r.status_code == 202 and await _last_actor(log, TOURNAMENT_COMMANDS) == Actor(kind="arbiter", id="ref1")
    assert (await client.post("/tournaments/T1/finish", json={"reason": "done"}, headers=org)).status_code == 200
    await refused(client, log, 403, "chief-arbiter-only", "/games/T1-r1-b1/correction",
                  {"result": "1-0", "reason": "appeal"}, ref)
    await refused(client, log, 403, "not-your-event", "/games/T1-r1-b1/correction",
                  {"result": "1-0", "reason": "appeal"}, bearer("arbiter", "boss2", ["T2"], chief=True))
    await refused(client, log, 422, "malformed", "/games/T1-r1-b1/correction", {"result": "1-0"}, chief)
    r = await client.post("/games/T1-r1-b1/correction?wait=false", json={"result": "1-0", "reason": "appeal"},
                          headers=chief)
    assert r.status_code == 202 and await _last_actor(log, TOURNAMENT_COMMANDS) == Actor(kind="arbiter", id="boss")
    r = await client.post("/games/T1-r1-b1/correction?wait=false", json={"result": "0-1", "reason": "appeal 2"},
                          headers=ADMIN)
    assert r.status_code == 202 and await _last_actor(log, TOURNAMENT_COMMANDS) == Actor(kind="arbiter", id="admin")


# -------------------------------------------------------------------------------- organisers
async def test_an_organiser_manages_only_his_events(idn):
    client, log = idn
    await _event(client, "T1", "olga")
    await _event(client, "T2", "otto", players=("cid", "dan"))
    olga = bearer("organiser", "olga")
    await refused(client, log, 403, "not-your-event", "/tournaments/T2/players", {"player_id": "eve", "name": "Eve"}, olga)
    await refused(client, log, 403, "not-your-event", "/tournaments/T2/withdrawals", {"player_id": "cid", "from_round": 2}, olga)
    await refused(client, log, 403, "not-your-event", "/tournaments/T2/finish", {"reason": "mine now"}, olga)
    await refused(client, log, 403, "not-your-event", "/games", {"white": "a", "black": "b", "tournament_id": "T2"}, olga)
    await refused(client, log, 403, "arbiters-only", "/games", {"white": "a", "black": "b", "at_ms": NOW}, olga)
    r = await client.post("/tournaments/T1/players", json={"player_id": "eve", "name": "Eve"}, headers=olga)
    assert r.status_code == 200 and await _last_actor(log, TOURNAMENT_COMMANDS) == Actor(kind="organiser", id="olga")
    # granted: an organiser token naming the event
    r = await client.post("/tournaments/T2/players", json={"player_id": "fay", "name": "Fay"},
                          headers=bearer("organiser", "olga", ["T2"]))
    assert r.status_code == 200
    # players, arbiters and integrators neither create nor manage events
    for role in ("player", "arbiter", "integrator"):
        await refused(client, log, 403, "organisers-only", "/tournaments", {"name": "x", "system": "swiss"},
                      bearer(role, "someone", ["*"]))
        await refused(client, log, 403, "organisers-only", "/games", {"white": "a", "black": "b"},
                      bearer(role, "someone", ["*"]))
    await refused(client, log, 403, "not-your-event", "/tournaments/T1/rounds", {"round": 2},
                  bearer("arbiter", "ref1", ["T1"]))
    # the administrator manages every event
    r = await client.post("/tournaments/T2/players", json={"player_id": "gus", "name": "Gus"}, headers=ADMIN)
    assert r.status_code == 200 and await _last_actor(log, TOURNAMENT_COMMANDS) == Actor(kind="arbiter", id="admin")


async def test_the_creator_is_recorded_and_an_organiser_needs_a_token_to_create(idn):
    client, log = idn
    await _event(client, "T1", "olga")
    cmd = (await log.read(TOURNAMENT_COMMANDS))[0]
    assert cmd.type == "CreateTournament" and cmd.actor == Actor(kind="organiser", id="olga")
    t = (await client.get("/tournaments/T1")).json()
    assert t["name"] == "T1"
    # another organiser may not re-create it
    await refused(client, log, 409, "already-exists", "/tournaments", {"tournament_id": "T1", "name": "x",
                                                                       "system": "swiss"}, bearer("organiser", "otto"))


# ----------------------------------------------------------------------- issuing for an event
async def test_the_organiser_issues_tokens_for_his_players_and_arbiters(idn):
    client, log = idn
    org = await _event(client, "T1", "olga")
    await _event(client, "T2", "otto", players=("cid", "dan"))
    before = await _counts(log)
    r = await client.post("/tournaments/T1/tokens", json={"role": "player", "ids": ["ann", "ben"], "ttl_s": 3600},
                          headers=org)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["events"] == ["T1"] and set(body["tokens"]) == {"ann", "ben"}
    assert abs(body["expires_at_s"] - (time.time() + 3600)) < 5
    assert await _counts(log) == before  # nothing published
    p = read_token(SECRET, body["tokens"]["ann"])
    assert (p.role, p.sub, p.events, p.chief) == ("player", "ann", frozenset({"T1"}), False)
    ann = {"Authorization": f"Bearer {body['tokens']['ann']}"}
    # ann resigns her own game; she cannot resign for ben
    await refused(client, log, 403, "not-yourself", "/games/T1-r1-b1/resign", {"player_id": "ben"}, ann)
    # unregistered ids: 422 naming them, no token at all
    r = await refused(client, log, 422, "not-registered", "/tournaments/T1/tokens",
                      {"role": "player", "ids": ["ann", "magnus"]}, org)
    assert "magnus" in r.json()["detail"]
    # the organiser of T2 issues nothing for T1, nor does a player
    await refused(client, log, 403, "not-your-event", "/tournaments/T1/tokens", {"role": "player", "ids": ["ann"]},
                  bearer("organiser", "otto"))
    await refused(client, log, 403, "not-your-event", "/tournaments/T1/tokens", {"role": "arbiter", "ids": ["x"]}, ann)
    # arbiters: a chief from the organiser, deputies from the chief (not chiefs)
    r = await client.post("/tournaments/T1/tokens", json={"role": "arbiter", "ids": ["boss"], "chief": True},
                          headers=org)
    chief = {"Authorization": f"Bearer {r.json()['tokens']['boss']}"}
    r = await client.post("/tournaments/T1/tokens", json={"role": "arbiter", "ids": ["dep"]}, headers=chief)
    assert r.status_code == 200, r.text
    dep = {"Authorization": f"Bearer {r.json()['tokens']['dep']}"}
    await refused(client, log, 403, "not-your-event", "/tournaments/T1/tokens",
                  {"role": "arbiter", "ids": ["dep2"], "chief": True}, chief)
    await refused(client, log, 403, "not-your-event", "/tournaments/T1/tokens", {"role": "arbiter", "ids": ["d3"]}, dep)
    r = await client.post("/games/T1-r1-b1/result", json={"result": "1-0"}, headers=dep)
    assert r.status_code == 200 and await _last_actor(log) == Actor(kind="arbiter", id="dep")
    await refused(client, log, 403, "not-your-event", "/games/T2-r1-b1/result", {"result": "1-0"}, dep)
    await refused(client, log, 422, "malformed", "/tournaments/T1/tokens",
                  {"role": "admin", "ids": ["me"]}, org)
    await refused(client, log, 422, "malformed", "/tournaments/T1/tokens",
                  {"role": "player", "ids": ["ann"], "ttl_s": 10 ** 9}, org)


async def test_without_a_secret_there_are_no_tokens_and_nothing_changes():
    log, app = await _host(None)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
            await _game(c)
            r = await c.post("/tournaments/T1/tokens", json={"role": "player", "ids": ["ann"]}, headers=ADMIN)
            assert (r.status_code, r.json()["code"]) == (409, "identity-off")
            # as before: a player's command acts for the player named, a bearer token is ignored
            r = await c.post("/games/g1/moves", json={"player_id": "alice", "move": "e4"},
                             headers=bearer("player", "bob", ["*"]))
            assert r.status_code == 200 and (await log.read(GAME_COMMANDS))[-1].actor == Actor(kind="player", id="alice")
    with pytest.raises(ValueError, match="32"):
        create_app(MemoryLog(), jwt_secret="short")


# ------------------------------------------------------------------------------- CLI, config
def test_the_cli_issues_a_token_the_gateway_reads(monkeypatch):
    monkeypatch.setenv("ARBITER_JWT_SECRET", SECRET)
    r = CliRunner().invoke(cli, ["token", "issue", "--role", "arbiter", "--sub", "ref1", "--event", "T1",
                                 "--event", "T2", "--ttl", "12h", "--chief"])
    assert r.exit_code == 0, r.output
    token = r.stdout.strip().splitlines()[-1]
    p = read_token(SECRET, token)
    assert p == Principal("arbiter", "ref1", frozenset({"T1", "T2"}), True, p.jti, p.exp) and p.jti
    import jwt
    claims = jwt.decode(token, SECRET, algorithms=["HS256"])
    assert claims["exp"] - claims["iat"] == 12 * 3600
    r = CliRunner().invoke(cli, ["token", "issue", "--role", "admin", "--sub", "root"])
    assert r.exit_code == 0 and read_token(SECRET, r.stdout.strip().splitlines()[-1]).role == "admin"
    for bad in (["--role", "king", "--sub", "x"], ["--role", "player", "--sub", "x y"],
                ["--role", "player", "--sub", "x", "--ttl", "forever"], ["--role", "player", "--sub", "x", "--ttl", "400d"],
                ["--role", "player", "--sub", "x", "--chief"]):
        r = CliRunner().invoke(cli, ["token", "issue", *bad])
        assert r.exit_code == 2 and "Traceback" not in r.output, (bad, r.output)
    monkeypatch.delenv("ARBITER_JWT_SECRET")
    r = CliRunner().invoke(cli, ["token", "issue", "--role", "admin", "--sub", "root"])
    assert r.exit_code == 2 and "ARBITER_JWT_SECRET" in r.output


async def test_a_cli_token_is_used_at_the_gateway(idn, monkeypatch):
    client, log = idn
    monkeypatch.setenv("ARBITER_JWT_SECRET", SECRET)
    r = CliRunner().invoke(cli, ["token", "issue", "--role", "organiser", "--sub", "olga"])
    org = {"Authorization": f"Bearer {r.stdout.strip().splitlines()[-1]}"}
    r = await client.post("/tournaments", json={"tournament_id": "T9", "name": "Nine", "system": "swiss"},
                          headers=org)
    assert r.status_code == 200 and (await log.read(TOURNAMENT_COMMANDS))[-1].actor == Actor(kind="organiser", id="olga")


def test_config_shows_the_secret_only_as_set_and_it_opens_the_network(monkeypatch):
    monkeypatch.delenv("ARBITER_ADMIN_TOKEN", raising=False)
    monkeypatch.delenv("ARBITER_JWT_SECRET", raising=False)
    r = CliRunner().invoke(cli, ["config"], env={"COLUMNS": "160"})
    assert "not set" in next(x for x in r.output.splitlines() if "ARBITER_JWT_SECRET" in x)
    monkeypatch.setenv("ARBITER_JWT_SECRET", SECRET)
    r = CliRunner().invoke(cli, ["config"], env={"COLUMNS": "160"})
    line = next(x for x in r.output.splitlines() if "ARBITER_JWT_SECRET" in x)
    assert SECRET not in r.output and " set " in f"{line} " and "not set" not in line
    require_for_address("gateway", "0.0.0.0", settings())  # every write needs a token
    monkeypatch.setenv("ARBITER_JWT_SECRET", "too-short")
    r = CliRunner().invoke(cli, ["config"])
    assert r.exit_code == 2 and "ARBITER_JWT_SECRET" in r.output


def test_token_lifetimes():
    assert parse_ttl("30d") == 30 * DAY and parse_ttl("15m") == 900 and parse_ttl("3600") == 3600
    for bad in ("0s", "367d", "1w", "-5m", ""):
        with pytest.raises(ValueError):
            parse_ttl(bad)
    with pytest.raises(ValueError, match="32"):
        issue_token("short", "admin", "root", ttl_s=60)
    with pytest.raises(AuthError):
        read_token(SECRET, "")


def test_the_read_model_knows_the_creator_whatever_order_it_reads_the_log_in():
    from contracts.envelope import dt_of
    from contracts.messages import CreateTournament, TournamentCreated, envelope
    from services.gateway.readmodel import ReadModel

    def pair(actor_id: str):
        cmd = envelope(CreateTournament(tournament_id="T1", name="x", system="swiss"),
                       stream="tournament-T1.commands.a", seq=1, occurred_at=dt_of(NOW),
                       actor=Actor(kind="organiser", id=actor_id))
        ev = envelope(TournamentCreated(tournament_id="T1", name="x", system="swiss", rounds=None,
                                        time_control="300", tiebreaks=()),
                      stream="tournament-T1", seq=1, occurred_at=dt_of(NOW),
                      actor=Actor(kind="service", id="pairing"), causation_id=cmd.event_id)
        return cmd, ev

    for order in ("command first", "event first"):
        rm = ReadModel()
        cmd, ev = pair("olga")
        rival = pair("otto")[0]  # a concurrent creation the pairing service refused
        for m in ([rival, cmd, ev] if order == "command first" else [ev, rival, cmd]):
            rm.apply(m)
        assert rm.tournament("T1").created_by == "organiser:olga", order


async def test_nobody_acts_under_the_administrators_name(idn):
    """A reviewer's find: an organiser minted a chief-arbiter token for the id ``admin`` and
    ruled in his event recorded as the administrator. The id is reserved; another admin token
    is recorded as ``admin:<sub>``, which no other id can spell (``:`` is in none)."""
    client, log = idn
    await _event(client, "T1", "olga")
    olga = bearer("organiser", "olga")
    await refused(client, log, 422, "reserved-id", "/tournaments/T1/tokens",
                  {"role": "arbiter", "ids": ["admin"], "chief": True}, olga)
    with pytest.raises(ValueError, match="administrator"):
        issue_token(SECRET, "arbiter", "admin", ["T1"], ttl_s=DAY)
    r = await client.post("/tournaments/T1/players", json={"player_id": "eve", "name": "Eve"},
                          headers=bearer("admin", "root"))
    assert r.status_code == 200 and await _last_actor(log, TOURNAMENT_COMMANDS) == Actor(kind="arbiter", id="admin:root")
    r = await client.post("/tournaments/T1/players", json={"player_id": "fay", "name": "Fay"},
                          headers=bearer("arbiter", "root", ["T1"], chief=True))
    assert r.status_code == 403  # an arbiter does not manage the event; nor is he "admin:root"
