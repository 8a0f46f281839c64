"""The organiser's pages without a browser (services/gateway/organiser.py): the forms' choices
are the API's models, the time-control forms the page builds parse as they say, CSV and TRF
files read into registration bodies the API accepts (bad rows and files refused with their
line and code), "my events" for an organiser with identity on, and the pages' 404 (the browser
tests are in tests/browser/test_organiser_pages.py)."""
from __future__ import annotations

import html
import json
import re
from typing import get_args

import httpx
import pytest

from contracts.messages import CreateTournament, GameKind
from services.gateway.app import ORGANISER_BODIES
from services.gateway.organiser import TIME_CONTROL_FORMS, choices
from services.pairing.creation import system_problem
from services.tools.embedded import arbiter_client
from shared.domain.tiebreaks import TIEBREAK_EDITIONS, TIEBREAKS
from shared.domain.timecontrol import PRESETS, TimeControl
from shared.domain.trf import read_trf
from tests.unit.test_identity import ADMIN, _host, bearer

MAI = "data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf"


def test_the_choices_are_the_api_models():
    c = choices(ORGANISER_BODIES)
    create = c["schemas"]["create"]["properties"]
    assert create["system"]["enum"] == list(get_args(CreateTournament.model_fields["system"].annotation))
    assert create["game"]["enum"] == list(get_args(GameKind)) == ["chess", "xiangqi", "go"]
    assert create["rounds"]["anyOf"][0] == {"maximum": 99, "minimum": 1, "type": "integer"}
    assert [m["code"] for m in c["tiebreaks"]] == list(TIEBREAKS)
    assert c["tiebreaks"][TIEBREAKS.index("BH")]["source"] == "FIDE C.07 art. 8.1"
    assert set(c["editions"]) == set(TIEBREAK_EDITIONS) and c["presets"] == PRESETS
    bye = c["schemas"]["round"]["properties"]["requested_byes"]["patternProperties"]
    assert list(bye.values())[0]["enum"] == ["F", "H", "Z"]


def test_the_rounds_field_is_offered_for_exactly_the_systems_the_creation_takes_it_for():
    """The form shows Rounds for ``rounds_systems`` only: the creation refuses ``rounds`` for
    the others (a round robin's and a knockout's rounds follow from the field)."""
    takes = [s for s in get_args(CreateTournament.model_fields["system"].annotation)
             if system_problem(CreateTournament(tournament_id="t", name="x", system=s, rounds=3)) is None]
    assert takes == choices(ORGANISER_BODIES)["rounds_systems"] == ["swiss", "chinese-swiss", "mcmahon"]
    assert "leave rounds out" in system_problem(CreateTournament(tournament_id="t", name="x", system="round-robin", rounds=3))


@pytest.mark.parametrize("kind, expected", [
    ("sudden-death", lambda tc: (tc.periods[0].base_ms, tc.periods[0].increment_ms) == (600_000, 0)),
    ("fischer", lambda tc: (tc.periods[0].base_ms, tc.periods[0].increment_ms) == (600_000, 5_000)),
    ("bronstein", lambda tc: (tc.periods[0].delay, tc.periods[0].delay_ms) == ("bronstein", 5_000)),
    ("simple-delay", lambda tc: (tc.periods[0].delay, tc.periods[0].delay_ms) == ("simple", 5_000)),
    ("moves-in-time", lambda tc: (tc.periods[0].moves, tc.periods[0].base_ms) == (40, 600_000)),
    ("byo-yomi", lambda tc: (tc.overtime.kind, tc.overtime.count, tc.overtime.length_ms) == ("byo-yomi", 3, 5_000)),
    ("canadian", lambda tc: (tc.overtime.kind, tc.overtime.count, tc.overtime.length_ms) == ("canadian", 3, 5_000)),
    ("reserve", lambda tc: (tc.overtime.kind, tc.overtime.count, tc.periods[0].base_ms) == ("reserve", 3, 600_000 - 3 * 60_000)),
])
def test_each_time_control_form_the_page_builds_parses_as_it_says(kind, expected):
    form = next(f for f in TIME_CONTROL_FORMS if f["kind"] == kind)
    text = form["template"].format(base=600, moves=40, step=5, periods=3)
    assert expected(TimeControl.parse(text)), text


async def test_csv_players_read_into_bodies_the_api_accepts():
    text = ("\ufeffPlayer ID;Name;Rating;Club\n"
            "wang;王天一;2650;浙江\n"
            ";吕钦;2600;\n"
            ";Zhao Xinxin;abc;\n"
            ";赵鑫鑫;;\n"
            "\n")
    async with arbiter_client("memory") as c:
        r = await c.post("/organiser/players/csv", content=text.encode())
        assert r.status_code == 200, r.text
        body = r.json()
        # a name without ASCII letters gets "player", the next one "player-2"; empty cells left out
        assert body["players"] == [{"player_id": "wang", "name": "王天一", "rating": 2650, "club": "浙江"},
                                   {"player_id": "player", "name": "吕钦", "rating": 2600},
                                   {"player_id": "player-2", "name": "赵鑫鑫"}]
        assert body["errors"] == [{"line": 4, "detail": "rating: Input should be a valid integer", "code": "invalid"}]
        await c.post("/tournaments", json={"tournament_id": "t1", "name": "T1", "game": "xiangqi"})
        for p in body["players"]:
            assert (await c.post("/tournaments/t1/players", json=p)).status_code == 200
        assert [p["name"] for p in (await c.get("/tournaments/t1")).json()["players"]] == ["王天一", "吕钦", "赵鑫鑫"]


@pytest.mark.parametrize("content, code, says", [
    (b"name,elo\nAnn,2000\n", "csv-header", "unknown: elo"),
    (b"player_id,rating\nann,2000\n", "csv-header", "name (required)"),
    (b"name,rating\n\n", "csv-empty", "no player rows"),
    ("name\nJosé\n".encode("latin-1"), "not-utf8", "not UTF-8"),
    (b"name\n" + b"x" * 200_000 + b"\n", "csv-malformed", "field larger than field limit"),
    (b"name\n" + b"p\n" * 2001, "too-many-rows", "2001 rows"),
])
async def test_a_csv_file_that_cannot_be_read_is_refused_saying_why(content, code, says):
    async with arbiter_client("memory") as c:
        r = await c.post("/organiser/players/csv", content=content)
        assert (r.status_code, r.json()["code"]) == (422, code) and says in r.json()["detail"]


async def test_trf_players_are_the_readers_and_register(shared_data):
    path = shared_data(MAI)
    trf = read_trf(path)
    async with arbiter_client("memory") as c:
        r = await c.post("/organiser/players/trf", content=path.read_bytes())
        assert r.status_code == 200, r.text
        body = r.json()
        assert (body["name"], body["rounds"]) == ("Mai 5 Plus 0 Turnier", 10)
        assert [(p["start_number"], p["name"]) for p in body["players"]] == [(p.number, p.name) for p in trf.players]
        assert len(body["players"]) == 13
        await c.post("/tournaments", json={"tournament_id": "mai", "name": "Mai", "system": "swiss", "rounds": 10})
        for p in body["players"]:
            r = await c.post("/tournaments/mai/players", json={k: v for k, v in p.items() if v is not None})
            assert r.status_code == 200, r.text
        r = await c.post("/organiser/players/trf", content=b"012 x\n001    1    ")
        assert (r.status_code, r.json()["code"]) == (422, "trf-malformed")
        assert re.match(r"TRF line 2, column \d+", r.json()["detail"])
        r = await c.post("/organiser/players/trf", content=b"012 An event without players\n")
        assert r.json() == {"detail": "TRF: no player lines (001): not a TRF", "code": "trf-malformed"}


async def test_my_events_are_those_an_organiser_created_or_his_token_names():
    _, app = await _host("a-test-secret-of-forty-characters-000000")
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
            olga, ivan = bearer("organiser", "olga"), bearer("organiser", "ivan", events=["e3"])
            for tid, who in (("e1", olga), ("e2", bearer("organiser", "ivan")), ("e3", ADMIN), ("e4", olga)):
                r = await c.post("/tournaments", json={"tournament_id": tid, "name": tid}, headers=who)
                assert r.status_code == 200, r.text
            r = await c.get("/organiser/events", headers=olga)
            assert [e["tournament_id"] for e in r.json()["items"]] == ["e4", "e1"]  # latest first
            r = await c.get("/organiser/events", headers=ivan)
            assert [e["tournament_id"] for e in r.json()["items"]] == ["e3", "e2"]
            r = await c.get("/organiser/events", headers=ADMIN)
            assert [e["tournament_id"] for e in r.json()["items"]] == ["e4", "e3", "e2", "e1"]
            r = await c.get("/organiser/events")
            assert (r.status_code, r.json()["code"]) == (401, "unauthenticated")


async def test_the_pages_carry_the_choices_and_an_unknown_event_is_404():
    async with arbiter_client("memory") as c:
        r = await c.get("/ui/organiser")
        assert r.status_code == 200 and '<script type="module" src="/ui/static/organiser.js">' in r.text
        data = json.loads(html.unescape(re.search(r'data-choices="([^"]*)"', r.text).group(1)))
        assert data == json.loads(json.dumps(choices(ORGANISER_BODIES)))
        await c.post("/tournaments", json={"tournament_id": "t1", "name": "T1"})
        r = await c.get("/ui/organiser/t1")
        assert r.status_code == 200 and 'data-tid="t1"' in r.text and "TournamentCreated" in r.text
        r = await c.get("/ui/organiser/nope")
        assert r.status_code == 404 and "No such event: nope" in r.text
        assert (await c.get("/ui/static/organiser.js")).status_code == 200
