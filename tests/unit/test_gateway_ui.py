"""The gateway's pages without a browser: what / lists, the game page, the replay viewer and
the event lobby (its tie-break legend) and their 404s, the static bundle and the gateway clock (the browser tests are in tests/browser)."""
from __future__ import annotations

import html
import json
import re

import pytest

from services.tools.embedded import arbiter_client
from shared.domain.tiebreaks import TIEBREAK_EDITIONS, tiebreak_meaning


async def test_index_lists_games_with_links_and_results():
    async with arbiter_client("memory") as c:
        r = await c.post("/games", json={"game_id": "g<1>", "white": "alice", "black": "bob"})
        assert r.status_code == 422  # ids are [A-Za-z0-9_-]: nothing to escape wrongly below
        await c.post("/games", json={"game_id": "g1", "white": "alice", "black": "bob"})
        await c.post("/games", json={"game_id": "g2", "white": "carol", "black": "dan"})
        await c.post("/games/g2/resign", json={"player_id": "dan"})
        r = await c.get("/")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        rows = re.findall(r'<tr><td><a href="/ui/games/(\w+)">.*?</tr>', r.text)
        assert rows == ["g2", "g1"]  # the most recent first
        # the game, the status and the result's reason marked for translation (i18n.js: 国际象棋, 认输)
        assert ('<td data-i18n="chess">chess</td><td>carol – dan</td><td></td><td data-i18n="ended">ended</td>'
                '<td>1-0 (<span data-i18n="resignation">resignation</span>)' in r.text)
        assert '<span id="title" data-i18n="games">games</span>' in r.text
        assert 'alice – bob</td><td></td><td data-i18n="ongoing">ongoing</td><td></td>' in r.text
        assert '<script type="module" src="/ui/static/site.js">' in r.text  # the language switch
        # the officials' pages, each marked with the role its token needs (site.js says if the visitor's has it)
        assert re.findall(r'<li data-role="(\w+)"><a href="([^"]+)"', r.text) == [
            ("organiser", "/ui/organiser"), ("arbiter", "/ui/arbiter")]


@pytest.mark.parametrize("page, script, part", [
    ("", "game.js", '<div id="board" class="board"'),
    ("/replay", "replay.js", '<button id="next" type="button"'),
])
async def test_game_page_replay_page_and_unknown_game(page, script, part):
    async with arbiter_client("memory") as c:
        await c.post("/games", json={"game_id": "g1", "white": "alice", "black": "bob"})
        r = await c.get(f"/ui/games/g1{page}")
        assert r.status_code == 200
        assert f'<script type="module" src="/ui/static/{script}">' in r.text
        assert part in r.text
        r = await c.get(f"/ui/games/nope{page}")
        assert r.status_code == 404 and "No such game: nope" in r.text
        r = await c.get(f"/ui/games/%3Cb%3E{page}")
        assert r.status_code == 404 and "No such game: &lt;b&gt;" in r.text and "<b>" not in r.text


async def test_static_bundle_and_gateway_clock():
    async with arbiter_client("memory", now_ms=lambda: 1_700_000_000_123) as c:
        js = await c.get("/ui/static/game.js")
        assert js.status_code == 200 and "javascript" in js.headers["content-type"]
        sprite = await c.get("/ui/static/cm-chessboard/pieces/standard.svg")
        assert sprite.status_code == 200 and sprite.text.lstrip().startswith("<")
        assert (await c.get("/ui/static/nope.js")).status_code == 404
        assert (await c.get("/ui/now")).json() == {"now_ms": 1_700_000_000_123}


async def test_event_page_explains_its_tiebreaks_and_unknown_ones_are_404():
    async with arbiter_client("memory") as c:
        r = await c.post("/tournaments", json={"tournament_id": "open26", "name": "Open", "system": "swiss",
                                               "rounds": 3, "tiebreaks": ["BH-C1", "SB"],
                                               "tiebreak_edition": "fide2023"})
        assert r.status_code == 200, r.text
        r = await c.get("/ui/tournaments/open26")
        assert r.status_code == 200
        assert '<script type="module" src="/ui/static/event.js">' in r.text
        legend = json.loads(html.unescape(re.search(r'data-legend="([^"]*)"', r.text).group(1)))
        assert legend == {"codes": {"BH-C1": tiebreak_meaning("BH-C1"), "SB": tiebreak_meaning("SB")},
                          "edition": {"key": "fide2023", "source": TIEBREAK_EDITIONS["fide2023"].source}}
        events = re.search(r'data-events="([^"]*)"', r.text).group(1).split()
        assert {"RoundPaired", "StandingsUpdated", "RecordGameEvent"} <= set(events)
        assert '<a href="/ui/tournaments/open26">Open</a>' in (await c.get("/")).text
        r = await c.get("/ui/tournaments/nope")
        assert r.status_code == 404 and "No such event: nope" in r.text
