"""Read scopes (issue 12 item 2): public events read by anyone, an unpublished event
(``public: false``) only by its scope (401 without a token, 403 with another's), the players'
private fields (FIDE id, birth date, sex) only for the event's organiser, arbiters and
integrators, in the JSON view, the TRF and the message feeds. Real services, identity on."""
from __future__ import annotations

import asyncio
import json

from services.gateway.identity import issue_token
from shared.domain.trf import parse_trf
from tests.integration.test_bulk_pairing import Clock, auth, gateway, tok

PLAYERS = [("p1", "Ding, Liren", "8603677", "1992/10/24"), ("p2", "Gukesh, D", "46616543", "2006/05/29")]


async def _event(c, tid: str, org: dict, public: bool) -> None:
    r = await c.post("/tournaments", headers=org, json={"tournament_id": tid, "name": tid,
                                                        "system": "round-robin", "public": public})
    assert r.status_code == 200, r.text
    for pid, name, fide, born in PLAYERS:
        r = await c.post(f"/tournaments/{tid}/players", headers=org, json={
            "player_id": pid, "name": name, "fide_id": fide, "birth_date": born, "sex": "m", "rating": 2700})
        assert r.status_code == 200, r.text
    assert (await c.post(f"/tournaments/{tid}/rounds", headers=org, json={"round": 1})).status_code == 200
    for _ in range(100):  # the game exists once the game process has created it
        if (await c.get(f"/games/{tid}-r1-b1", headers=org)).status_code == 200:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{tid}: round 1 not paired")


async def test_an_unpublished_event_is_read_only_by_its_scope():
    async with gateway(Clock()) as c:
        org = auth(tok("organiser", "olga"))
        await _event(c, "priv", org, public=False)
        await _event(c, "pub", org, public=True)
        gid = "priv-r1-b1"
        reads = ["/tournaments/priv", "/tournaments/priv/standings", "/tournaments/priv/crosstable",
                 "/tournaments/priv/trf", "/tournaments/priv/pgn", "/tournaments/priv/events?follow=false",
                 "/feeds/event/priv?follow=false&since=0", f"/games/{gid}", f"/games/{gid}/pgn",
                 f"/feeds/game/{gid}?follow=false&since=0"]
        stranger = auth(tok("player", "p1", events=("pub",)))
        for path in reads:
            r = await c.get(path)
            assert (r.status_code, r.json()["code"]) == (401, "read-scope"), (path, r.text)
            assert r.headers["www-authenticate"] == "Bearer"
            r = await c.get(path, headers=stranger)
            assert (r.status_code, r.json()["code"]) == (403, "not-your-event"), (path, r.text)
        for who in (org, auth(tok("player", "p2", events=("priv",))), auth(tok("integrator", "tv", events=("priv",))),
                    auth(tok("arbiter", "arb", events=("priv",))), auth(tok("admin", "root"))):
            assert (await c.get("/tournaments/priv", headers=who)).status_code == 200
            assert (await c.get(f"/games/{gid}", headers=who)).status_code == 200
        # the pages are shells a link opens without a token; their scripts read with it
        for page in ("/ui/tournaments/priv", f"/ui/games/{gid}", f"/ui/games/{gid}/replay"):
            r = await c.get(page)
            assert r.status_code == 200 and not [n for _, n, *_ in PLAYERS if n in r.text], page
        # a browser's EventSource carries the token in the query (RFC 6750 2.3)
        token = tok("player", "p2", events=("priv",))
        assert (await c.get(f"/games/{gid}?access_token={token}")).status_code == 200
        # lists: the unpublished event and its games only for its scope
        anon = (await c.get("/tournaments")).json()["items"]
        assert [t["tournament_id"] for t in anon] == ["pub"]
        assert {g["tournament_id"] for g in (await c.get("/games")).json()["items"]} == {"pub"}
        mine = (await c.get("/tournaments", headers=org)).json()["items"]
        assert [t["tournament_id"] for t in mine] == ["priv", "pub"]
        index = (await c.get("/")).text  # the browser's page: it carries no token
        assert 'href="/ui/tournaments/pub"' in index and 'href="/ui/games/pub-r1-b1"' in index
        assert "/ui/tournaments/priv" not in index and gid not in index
        # a bad token is 401 even on a public read
        forged = issue_token("another-secret-of-forty-characters-00000", "admin", "root", ttl_s=60)
        r = await c.get("/tournaments/pub", headers=auth(forged))
        assert (r.status_code, r.json()["code"]) == (401, "token-forged")


async def test_private_fields_only_for_the_events_officials_and_integrators():
    async with gateway(Clock()) as c:
        org = auth(tok("organiser", "olga"))
        await _event(c, "pub", org, public=True)
        player = auth(tok("player", "p1", events=("pub",)))
        tv = auth(tok("integrator", "ratings", events=("pub",)))
        for who, shown in ((None, False), (player, False), (org, True), (tv, True)):
            h = who or {}
            players = (await c.get("/tournaments/pub", headers=h)).json()["players"]
            assert [p["fide_id"] for p in players] == (["8603677", "46616543"] if shown else [None, None])
            trf = parse_trf((await c.get("/tournaments/pub/trf", headers=h)).text)
            assert sorted((x.fide_id, x.birth, x.sex) for x in trf.players) == (
                [("46616543", "2006/05/29", "m"), ("8603677", "1992/10/24", "m")] if shown
                else [("", "", ""), ("", "", "")])
            assert sorted(x.points for x in trf.players) == [0.0, 0.0]
            for path in ("/tournaments/pub/events?follow=false", "/feeds/event/pub?follow=false&since=0",
                         "/feeds/tournament/pub?follow=false&since=0"):
                text = (await c.get(path, headers=h)).text
                types = [m["type"] for m in json.loads(text)]
                assert ("PlayerRegistered" in types) == shown and "RoundPaired" in types, (path, who)
                # the organiser's RegisterPlayer command carries the same private fields
                assert ("RegisterPlayer" in types) == shown, (path, who)
                assert all((fide in text and born in text) == shown for _, _, fide, born in PLAYERS), (path, who)


async def test_a_websocket_feed_takes_its_token_in_the_query_and_is_refused_without_it():
    from tests.e2e.test_feeds import Tap

    async with gateway(Clock()) as c:
        org_token = tok("organiser", "olga")
        await _event(c, "priv", auth(org_token), public=False)
        app = c.app
        async with Tap(app, "websocket", "/feeds/event/priv", query="since=0") as tap:
            await tap.until(lambda t: t.close_code is not None)
        assert tap.close_code == 4401 and tap.refusal["code"] == "read-scope"
        player = tok("player", "p1", events=("priv",))
        for token, registrations in ((player, False), (org_token, True)):
            async with Tap(app, "websocket", "/feeds/event/priv", query=f"since=0&access_token={token}") as tap:
                await tap.until(lambda t: any(ty == "RoundPaired" for _, ty in t.items))
            assert tap.status == 101
            assert any(ty == "PlayerRegistered" for _, ty in tap.items) == registrations
