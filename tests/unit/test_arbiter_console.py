"""The arbiter console's reads (services/gateway/console.py) on the embedded platform: what
needs an arbiter now, with the facts and articles, and a game's audit.

- Go: the real 9x9 KGS game of tests/integration/test_go_gateway.py up to its disputed
  dead-stone agreement (both proposals standing, different): an open ``dead-stones`` item
  citing Chinese rules 1988 art. 16.4, 25.1; once the arbiter rules, a decided item, and the
  game's audit lists the ruling with its article and finds no difference.
- Xiangqi, rulings on request (art. 24 待判局面): the position of
  tests/unit/test_xiangqi_services.py repeated three times is an open ``repetition`` item; the
  ruling asked for ends the request (RepetitionRuled black-loses, 24.1) and the claim is
  listed as ruled.
- A player who has not moved at the default time (xiangqi 1999 art. 4.1.5) is an open
  ``absence`` item only once the time has passed.
"""
from __future__ import annotations

import uuid

from services.tools.embedded import arbiter_client
from tests.unit.test_go_services import WHITE_DEAD, record_moves

NO_TOKEN = {"X-Arbiter-Token": ""}


async def _ok(c, path: str, body: dict) -> dict:
    r = await c.post(path, json=body)
    assert r.status_code == 200, (path, body, r.text)
    return r.json()


async def _items(c, gid: str) -> list[dict]:
    r = await c.get("/arbiter/attention")
    assert r.status_code == 200, r.text
    return [i for i in r.json()["items"] if i["game_id"] == gid]


async def disputed_go_game(c, moves: list[str]) -> str:
    """The KGS game played to its end, then White's and Black's differing proposals."""
    gid = f"go-{uuid.uuid4().hex[:8]}"
    await _ok(c, "/games", {"game_id": gid, "white": "alice", "black": "bob", "game": "go",
                            "board_size": 9, "go_rules": "chinese", "komi": 0.5, "time_control": "3600+10"})
    for i, mv in enumerate(moves):
        await _ok(c, f"/games/{gid}/moves", {"player_id": ["bob", "alice"][i % 2], "move": mv})
    await _ok(c, f"/games/{gid}/dead", {"player_id": "alice", "dead": list(WHITE_DEAD)})
    await _ok(c, f"/games/{gid}/dead", {"player_id": "bob", "dead": ["E8", "F7"]})
    return gid


async def test_a_go_dead_stone_dispute_is_open_until_the_arbiter_rules(shared_data):
    async with arbiter_client("memory", ticks=False) as c:
        gid = await disputed_go_game(c, record_moves(shared_data))
        assert (await c.get("/arbiter/attention", headers=NO_TOKEN)).status_code == 403
        [item] = await _items(c, gid)
        assert (item["kind"], item["open"], item["actions"]) == ("dead-stones", True, ["rule-dead", "result", "penalty"])
        assert item["facts"]["proposals"] == {
            "white": ["B1", "C1", "C2", "C3", "C4", "C5", "D1", "D3", "D5", "E2", "E8", "F7"],
            "black": ["E8", "F7"]}
        assert [(a["ruleset"], a["article"]) for a in item["articles"]] == [
            ("Chinese rules 1988", "16.4, 25.1"), ("Chinese rules 1988", "8, 9"), ("Chinese rules 1988", "21.1, 21.3")]
        assert item["game"]["plies"] == 60 and item["game"]["go_board"][0] == "..X......"
        await _ok(c, f"/games/{gid}/dead/ruling", {"dead": list(WHITE_DEAD), "reason": "C3 has one eye"})
        g = (await c.get(f"/games/{gid}")).json()
        assert (g["result"], g["score"]) == ("1-0", "W+5.5")
        [item] = await _items(c, gid)
        assert (item["kind"], item["open"], item["facts"]["ruling"]["reason"]) == ("dead-stones", False, "C3 has one eye")

        audit = (await c.get(f"/games/{gid}/audit")).json()
        assert audit["differences"] == []
        assert audit["routine"]["MoveAccepted"] == 60
        ruled = [d for d in audit["decisions"] if d["type"] == "DeadStonesRuled"]
        assert [(d["rule"]["article"], d["by"]) for d in ruled] == [("16.4, 25.1", "arbiter:arbiter")]
        ended = [d for d in audit["decisions"] if d["type"] == "GameEnded"]
        assert [(d["rule"]["ruleset"], d["rule"]["article"]) for d in ended] == [("Chinese rules 2002", "9")]
        assert (await c.get(f"/games/{gid}/audit", headers=NO_TOKEN)).status_code == 403
        assert (await c.get("/games/nope/audit")).status_code == 404


XQ_FEN = "3k5/9/9/9/9/5p3/9/5p3/5K3/5C3 w - - 0 1"
XQ_CYCLE = "f1e1 f2e2 e1f1 e2f2 f1e1 f2e2 e1f1 e2f2".split()  # ICCS (the uci of the unit test, ranks 0-9)


async def test_a_xiangqi_repetition_awaits_a_ruling_on_request():
    async with arbiter_client("memory", ticks=False) as c:
        gid = f"xq-{uuid.uuid4().hex[:8]}"
        await _ok(c, "/games", {"game_id": gid, "white": "alice", "black": "bob", "game": "xiangqi",
                                "start_fen": XQ_FEN, "repetition_rulings": "on-request", "time_control": "600+5"})
        for i, mv in enumerate(XQ_CYCLE[:4]):
            await _ok(c, f"/games/{gid}/moves", {"player_id": ["alice", "bob"][i % 2], "move": mv})
        assert await _items(c, gid) == []  # twice is not yet a ruling's case
        for i, mv in enumerate(XQ_CYCLE[4:]):
            await _ok(c, f"/games/{gid}/moves", {"player_id": ["alice", "bob"][i % 2], "move": mv})
        [item] = await _items(c, gid)
        assert (item["kind"], item["open"], item["facts"]["repetitions"], item["facts"]["player_id"]) == (
            "repetition", True, 3, "alice")
        assert [a["article"] for a in item["articles"]] == ["24", "24.1", "4.2.3", "4.1.7"]
        assert [m["uci"] for m in item["game"]["moves"]] == XQ_CYCLE
        r = await c.post(f"/games/{gid}/draw/claim", json={"player_id": "alice", "reason": "repetition"})
        assert r.status_code == 200, r.text
        items = await _items(c, gid)
        assert sorted(i["kind"] for i in items) == ["claim", "ruling"] and not any(i["open"] for i in items)
        claim = next(i for i in items if i["kind"] == "claim")
        assert (claim["facts"]["outcome"], claim["facts"]["answer"]["verdict"]) == ("ruled", "black-loses")
        ruling = next(i for i in items if i["kind"] == "ruling")
        assert ruling["articles"][0]["article"] == "24.1, 26.1" and ruling["facts"]["verdict"] == "black-loses"
        assert (await c.get(f"/games/{gid}")).json()["result"] == "1-0"


async def test_a_player_absent_at_the_default_time_is_open_once_it_passed():
    now = [1_800_000_000_000]
    async with arbiter_client("memory", ticks=False, now_ms=lambda: now[0]) as c:
        gid = f"xq-{uuid.uuid4().hex[:8]}"
        await _ok(c, "/games", {"game_id": gid, "white": "alice", "black": "bob", "game": "xiangqi",
                                "default_time_s": 900, "time_control": "600+5"})
        now[0] += 899_000
        assert await _items(c, gid) == []
        now[0] += 1_000
        [item] = await _items(c, gid)
        assert (item["kind"], item["open"], item["facts"]["player_id"], item["facts"]["due_ms"]) == (
            "absence", True, "alice", 1_800_000_900_000)
        assert (item["articles"][0]["ruleset"], item["articles"][0]["article"]) == ("CXA-1999", "4.1.5")
        r = await c.post(f"/games/{gid}/absence", json={"player_id": "alice"})
        assert r.status_code == 200, r.text
        [item] = await _items(c, gid)
        assert (item["kind"], item["open"], item["facts"]["report"]) == ("absence", False, "AbsenceReported")
        assert (await c.get(f"/games/{gid}")).json()["result"] == "0-1"


async def test_a_chess_draw_claim_refused_is_listed_with_both_articles():
    """FIDE 1994 art. 10.10: a threefold claim on a position that has not occurred three times
    is refused (DrawClaimRejected, with its article); the console lists the claim as decided,
    ``rejected``, with the claim's article and the refusal's."""
    async with arbiter_client("memory", ticks=False) as c:
        gid = f"ch-{uuid.uuid4().hex[:8]}"
        await _ok(c, "/games", {"game_id": gid, "white": "alice", "black": "bob", "time_control": "600+5"})
        await _ok(c, f"/games/{gid}/moves", {"player_id": "alice", "move": "e4"})
        r = await c.post(f"/games/{gid}/draw/claim", json={"player_id": "bob", "reason": "threefold"})
        assert (r.status_code, r.json()["code"], r.json()["event"]) == (409, "incorrect-claim", "DrawClaimRejected"), r.text
        [item] = await _items(c, gid)
        assert (item["kind"], item["open"], item["facts"]["outcome"], item["facts"]["colour"]) == (
            "claim", False, "rejected", "black")
        assert [(a["ruleset"], a["article"]) for a in item["articles"]] == [("FIDE-1994", "10.10"), ("FIDE-1994", "10.13(2)")]
        assert item["facts"]["answer"]["detail"] == "position occurred 1 time(s)"
        assert (item["facts"]["code"], item["facts"]["detail"]) == (
            "incorrect-claim", "threefold claim refused: position occurred 1 time(s)")
        assert item["game"]["moves"][0]["san"] == "e4" and item["game"]["status"] == "ongoing"


async def test_one_events_console_is_the_console_with_the_event_chosen():
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.get("/ui/tournaments/open-1/arbiter?lang=zh&token=T")
        assert (r.status_code, r.headers["location"]) == (307, "/ui/arbiter?event=open-1&lang=zh&token=T")
        page = await c.get("/ui/arbiter")
        assert page.status_code == 200 and '<script type="module" src="/ui/static/console.js">' in page.text
        assert 'href="/ui/static/console.css"' in page.text
        assert (await c.get("/ui/static/console.css")).status_code == 200


async def test_a_chess_threefold_claim_upheld_is_listed_as_upheld_10_10():
    async with arbiter_client("memory", ticks=False) as c:
        gid = f"ch-{uuid.uuid4().hex[:8]}"
        await _ok(c, "/games", {"game_id": gid, "white": "alice", "black": "bob", "time_control": "600+5"})
        for i, mv in enumerate("Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8".split()):
            await _ok(c, f"/games/{gid}/moves", {"player_id": ["alice", "bob"][i % 2], "move": mv})
        r = await c.post(f"/games/{gid}/draw/claim", json={"player_id": "alice", "reason": "threefold"})
        assert r.json()["decision"]["event"] == "GameEnded", r.text
        [item] = await _items(c, gid)
        assert (item["kind"], item["open"], item["facts"]["outcome"]) == ("claim", False, "upheld")
        assert [(a["ruleset"], a["article"]) for a in item["articles"]] == [("FIDE-1994", "10.10")]
        assert (item["game"]["result"], item["game"]["reason"]) == ("1/2-1/2", "threefold")
