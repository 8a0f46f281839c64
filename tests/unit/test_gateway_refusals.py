"""The gateway's refusals are documented (issue 11 item 5): the OpenAPI document gives each
command route's 4xx answers the body ``{"detail", "code"}`` with ``code`` a closed list, the
game service's RejectCode or the tournament service's TournamentRejectCode with the gateway's
own GatewayCode; GatewayCode is exactly the codes the gateway's code writes; and real refusals
of the running platform fit the documented bodies."""
from __future__ import annotations

import ast
import pathlib
from typing import get_args

from contracts.messages import PAYLOAD_TYPES, RejectCode, TournamentRejectCode
from services.gateway.app import COMMAND_ROUTES, REJECTIONS, create_app
from services.gateway.errors import (
    STATUS_CODES, ClaimRejectCode, GameRefusal, GatewayCode, TournamentRefusal,
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
        service = (set(get_args(RejectCode)) | set(get_args(ClaimRejectCode)) if route.aggregate == "game"
                   else set(get_args(TournamentRejectCode)))
        for status in ("401", "403", "404", "409", "413", "422", "429"):
            schema = responses[status]["content"]["application/json"]["schema"]
            assert _enum(schema, components) == service | gateway, (route.path, status)
    claims = set(get_args(ClaimRejectCode))
    for path, service in (("/games", RejectCode), ("/tournaments", TournamentRejectCode),
                          ("/games/{gid}/correction", TournamentRejectCode)):
        schema = doc["paths"][path]["post"]["responses"]["409"]["content"]["application/json"]["schema"]
        extra = claims if service is RejectCode else set()  # /games documents GameRefusal too
        assert _enum(schema, components) == set(get_args(service)) | extra | gateway, path


def test_every_rejection_event_is_answered_as_a_refusal():
    """Each ``...Rejected`` event of the contracts (a service refusing a command: nothing
    changed) makes the command's answer a 4xx, not a 200."""
    assert REJECTIONS == {n for n in PAYLOAD_TYPES if n.endswith("Rejected")}


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


CHESS_SHUFFLE = "Nf3 Nf6 Ng1 Ng8".split()


async def _play(c, gid: str, moves: list[str], first: str = "alice") -> None:
    players = ["alice", "bob"] if first == "alice" else ["bob", "alice"]
    for i, mv in enumerate(moves):
        r = await c.post(f"/games/{gid}/moves", json={"player_id": players[i % 2], "move": mv})
        assert r.status_code == 200, (mv, r.text)


async def _claim(c, gid: str, player: str, reason: str, move: str | None = None):
    return await c.post(f"/games/{gid}/draw/claim", json={"player_id": player, "reason": reason,
                                                          **({"move": move} if move else {})})


async def test_a_refused_draw_claim_is_409_and_an_upheld_one_200():
    """FIDE 1994 art. 10.10: after 1.Nf3 Nf6 2.Ng1 Ng8 the initial position has occurred twice:
    White's threefold claim is refused, 409 ``incorrect-claim`` citing 10.13(2) (and costs 5
    minutes); after 3.Nf3 Nf6 4.Ng1 Ng8 it has occurred three times: the claim is upheld, 200,
    the game drawn under 10.10."""
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/games", json={"game_id": "g1", "white": "alice", "black": "bob",
                                         "time_control": "600+0"})
        assert r.status_code == 200, r.text
        await _play(c, "g1", CHESS_SHUFFLE)
        r = await _claim(c, "g1", "alice", "threefold")
        body = r.json()
        assert (r.status_code, body["code"], body["outcome"], body["event"]) == (
            409, "incorrect-claim", "rejected", "DrawClaimRejected"), r.text
        assert body["detail"] == "threefold claim refused: position occurred 2 time(s)"
        assert (body["payload"]["rule"]["ruleset"], body["payload"]["rule"]["article"]) == ("FIDE-1994", "10.13(2)")
        GameRefusal.model_validate(body)
        g = (await c.get("/games/g1")).json()
        assert g["status"] == "ongoing" and g["penalties"][0]["time_delta_ms"] == -300_000
        assert [(k["reason"], k["outcome"], k["code"]) for k in g["claims"]] == [
            ("threefold", "rejected", "incorrect-claim")]

        await _play(c, "g1", CHESS_SHUFFLE)
        r = await _claim(c, "g1", "alice", "threefold")
        assert (r.status_code, r.json()["event"], r.json()["decision"]["event"]) == (
            200, "DrawClaimed", "GameEnded"), r.text
        ended = r.json()["decision"]["payload"]
        assert (ended["result"], ended["reason"], ended["rule"]["article"]) == ("1/2-1/2", "threefold", "10.10")
        g = (await c.get("/games/g1")).json()
        assert (g["status"], g["result"], g["claims"][-1]["outcome"]) == ("ended", "1/2-1/2", "upheld")


async def test_a_claim_with_the_intended_move_is_judged_on_the_position_after_it():
    """FIDE 1994 art. 10.10(1): 1.Nf3 Nf6 2.Ng1 Ng8 3.Nf3 Nf6 4.Nh4 Ng8: the position on the
    board has occurred once, so a threefold claim without a move is refused (409), but the
    position after the written move 5.Nf3 would occur the third time (after 1.Nf3 and 3.Nf3):
    that claim is upheld (200)."""
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/games", json={"game_id": "g2", "white": "alice", "black": "bob",
                                         "time_control": "600+0"})
        assert r.status_code == 200, r.text
        await _play(c, "g2", "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Nh4 Ng8".split())
        r = await _claim(c, "g2", "alice", "threefold")
        assert (r.status_code, r.json()["detail"]) == (409, "threefold claim refused: position occurred 1 time(s)")
        r = await _claim(c, "g2", "alice", "threefold", move="Nf3")
        assert (r.status_code, r.json()["decision"]["payload"]["reason"]) == (200, "threefold"), r.text
        g = (await c.get("/games/g2")).json()
        assert (g["result"], g["claims"][-1]["move"], len(g["moves"])) == ("1/2-1/2", "h4f3", 8)


XQ_FEN = "3k5/9/9/9/9/5p3/9/5p3/5K3/5C3 w - - 0 1"  # the arbiter console's case
XQ_CYCLE = "f1e1 f2e2 e1f1 e2f2".split()


async def test_xiangqi_claims_refused_409_and_upheld_200():
    """Xiangqi 1999 rules: a 棋例 ruling asked for on a position that has occurred twice is
    refused, 409 ``too-few-repetitions`` (art. 24 needs three); asked for at the third time it
    is given (RepetitionRuled, 200). A natural-limit claim (4.2.4, the event's limit 2 here) by
    Red after one move without a capture is refused 409 ``incorrect-claim`` (23.3); after two it
    is upheld, a draw."""
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/games", json={"game_id": "x1", "white": "alice", "black": "bob", "game": "xiangqi",
                                         "start_fen": XQ_FEN, "repetition_rulings": "on-request",
                                         "time_control": "600+5"})
        assert r.status_code == 200, r.text
        await _play(c, "x1", XQ_CYCLE)
        r = await _claim(c, "x1", "bob", "repetition")
        assert (r.status_code, r.json()["code"], r.json()["payload"]["rule"]["article"]) == (
            409, "too-few-repetitions", "24"), r.text
        assert r.json()["detail"].startswith("repetition claim refused: the position has occurred 2 time(s)")
        GameRefusal.model_validate(r.json())
        await _play(c, "x1", XQ_CYCLE)
        r = await _claim(c, "x1", "bob", "repetition")
        assert (r.status_code, r.json()["decision"]["event"]) == (200, "RepetitionRuled"), r.text
        assert (await c.get("/games/x1")).json()["claims"][-1]["outcome"] == "ruled"

        r = await c.post("/games", json={"game_id": "x2", "white": "alice", "black": "bob", "game": "xiangqi",
                                         "natural_limit_moves": 2, "time_control": "600+5"})
        assert r.status_code == 200, r.text
        await _play(c, "x2", ["h0g2", "h9g7"])
        r = await _claim(c, "x2", "alice", "natural-limit")
        assert (r.status_code, r.json()["code"], r.json()["payload"]["rule"]["article"]) == (
            409, "incorrect-claim", "23.3"), r.text
        await _play(c, "x2", ["b0c2", "b9c7"])
        r = await _claim(c, "x2", "alice", "natural-limit")
        ended = r.json()["decision"]["payload"]
        assert (r.status_code, ended["result"], ended["reason"], ended["rule"]["article"]) == (
            200, "1/2-1/2", "natural-limit", "4.2.4"), r.text
