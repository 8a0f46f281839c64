"""The gateway's refusals are documented (issue 11 item 5): the OpenAPI document gives each
command route's 4xx answers the body ``{"detail", "code"}`` with ``code`` a closed list, the
game service's RejectCode or the tournament service's TournamentRejectCode with the gateway's
own GatewayCode; GatewayCode is exactly the codes the gateway's code writes; and real refusals
of the running platform fit the documented bodies."""
from __future__ import annotations

import ast
import pathlib
from typing import get_args

from contracts.messages import RejectCode, TournamentRejectCode
from services.gateway.app import COMMAND_ROUTES, create_app
from services.gateway.errors import (
    STATUS_CODES, GameRefusal, GatewayCode, TournamentRefusal,
)
from services.tools.embedded import arbiter_client
from shared.eventlog.memory import MemoryLog

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _codes_written() -> set[str]:
    """The string codes services/gateway writes: ``code="..."`` arguments and the code of each
    ``AuthError(status, "code", ...)``."""
    found = set()
    for f in (ROOT / "services" / "gateway").glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if not isinstance(node, ast.Call):
                continue
            found |= {k.value.value for k in node.keywords if k.arg == "code"
                      and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)}
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name == "AuthError" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                found.add(node.args[1].value)
    return found


def test_gateway_code_is_every_code_the_gateway_writes():
    assert _codes_written() | set(STATUS_CODES.values()) | {"refused"} == set(get_args(GatewayCode))


def _enum(schema: dict, components: dict) -> set[str]:
    """The codes a refusal schema (a ``$ref``) allows."""
    model = components[schema["$ref"].rsplit("/", 1)[1]]
    return {c for alt in model["properties"]["code"].get("anyOf", [model["properties"]["code"]])
            for c in alt["enum"]}


def test_every_command_route_documents_its_refusals_with_their_codes():
    doc = create_app(MemoryLog()).openapi()
    components = doc["components"]["schemas"]
    gateway = set(get_args(GatewayCode))
    for route in COMMAND_ROUTES:
        responses = doc["paths"][route.path]["post"]["responses"]
        service = RejectCode if route.aggregate == "game" else TournamentRejectCode
        for status in ("401", "403", "404", "409", "413", "422", "429"):
            schema = responses[status]["content"]["application/json"]["schema"]
            assert _enum(schema, components) == set(get_args(service)) | gateway, (route.path, status)
    for path, service in (("/games", RejectCode), ("/tournaments", TournamentRejectCode),
                          ("/games/{gid}/correction", TournamentRejectCode)):
        schema = doc["paths"][path]["post"]["responses"]["409"]["content"]["application/json"]["schema"]
        assert _enum(schema, components) == set(get_args(service)) | gateway, path


async def test_real_refusals_fit_the_documented_bodies():
    """On the running platform (memory log): an illegal move (FIDE 1994 art. 3: the bishop
    cannot move through its own pawn) is MoveRejected ``illegal``, 409; a move in an unknown
    game 404 ``not-found``; round 2 of a 4-player round robin (3 rounds) started before round
    1 has results is TournamentCommandRejected ``round-running``, 409; a malformed body
    422 ``malformed``."""
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/games", json={"game_id": "g1", "white": "alice", "black": "bob"})
        assert r.status_code == 200, r.text
        r = await c.post("/games/g1/moves", json={"player_id": "alice", "move": "f1c4"})
        assert (r.status_code, r.json()["code"], r.json()["outcome"]) == (409, "illegal", "rejected")
        GameRefusal.model_validate(r.json())
        r = await c.post("/games/nosuch/moves", json={"player_id": "alice", "move": "e2e4"})
        assert (r.status_code, r.json()["code"]) == (404, "not-found")
        GameRefusal.model_validate(r.json())
        r = await c.post("/games/g1/moves", json={"player_id": "alice", "move": 42})
        assert (r.status_code, r.json()["code"]) == (422, "malformed")
        GameRefusal.model_validate(r.json())

        r = await c.post("/tournaments", json={"tournament_id": "t", "name": "t", "system": "round-robin"})
        assert r.status_code == 200, r.text
        for pid in ("p1", "p2", "p3", "p4"):
            assert (await c.post("/tournaments/t/players", json={"player_id": pid, "name": pid})).status_code == 200
        assert (await c.post("/tournaments/t/rounds", json={"round": 1})).status_code == 200
        r = await c.post("/tournaments/t/rounds", json={"round": 2})
        assert (r.status_code, r.json()["code"]) == (409, "round-running"), r.text
        TournamentRefusal.model_validate(r.json())
