"""A whole 9x9 Go game through the gateway and the services, with a disputed dead-stone agreement.

The game is the real KGS game ``maproom-gnugo3pt6.sgf`` (9x9, Chinese rules, komi 0.5,
``RE[W+5.50]``; alice has White, bob Black). After its two final passes play stops (Japanese
rules 1989 art. 9-1); White marks the dead stones its territory marks imply, Black rejects, play
resumes with White first (art. 9-3; Black's yielded turn is recorded as its pass), both pass
again; Black now marks only White's two dead stones, White keeps its proposal: still disputed,
the arbiter rules White's set with a reason. The count (worked out in
tests/unit/test_go_services.py: Black 17 stones + 21 points = 38, White 25 + 18 + 0.5 komi =
43.5) is the record's W+5.5, and the game ends 1-0 (White) with ``score`` W+5.5.
"""
from __future__ import annotations

import asyncio
import uuid

from services.tools.embedded import arbiter_client
from tests.unit.test_go_services import REAL_9X9, WHITE_DEAD, record_moves

NO_TOKEN = {"X-Arbiter-Token": ""}  # a player's request (the test client carries the arbiter's)


async def play_disputed_game(c, moves: list[str]) -> dict:
    """Play ``moves`` (Black first) and the disputed end; returns the finished game view."""
    gid = f"go-{uuid.uuid4().hex[:8]}"
    r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob", "game": "go",
                                      "board_size": 9, "go_rules": "chinese", "komi": 0.5,
                                      "time_control": "3600+10"})
    assert r.status_code == 200, r.text
    assert r.json()["start_fen"] == "go 9 chinese black ko=- passes=0 prisoners=0,0 B: W:"

    async def post(path: str, body: dict, **kw) -> dict:
        r = await c.post(f"/games/{gid}/{path}", json=body, **kw)
        assert r.status_code == 200, (path, body, r.text)
        return r.json()

    for i, mv in enumerate(moves):
        await post("moves", {"player_id": ["bob", "alice"][i % 2], "move": mv})
    g = (await c.get(f"/games/{gid}")).json()
    assert g["go"]["phase"] == "scoring" and g["status"] == "ongoing"
    r = await c.post(f"/games/{gid}/moves", json={"player_id": "bob", "move": "J9"})
    assert r.status_code == 409 and r.json()["code"] == "play-stopped" and "21.1" in r.json()["detail"]

    assert (await post("dead", {"player_id": "alice", "dead": list(WHITE_DEAD)}))["event"] == "DeadStonesProposed"
    resumed = await post("dead/reject", {"player_id": "bob"})
    assert (resumed["event"], resumed["to_move"]) == ("PlayResumed", "white")
    await post("moves", {"player_id": "alice", "move": "pass"})
    assert (await post("moves", {"player_id": "bob", "move": "pass"}))["status"] == "scoring"
    await post("dead", {"player_id": "bob", "dead": ["E8", "F7"]})
    await post("dead", {"player_id": "alice", "dead": list(WHITE_DEAD)})
    g = (await c.get(f"/games/{gid}")).json()
    assert g["go"]["proposals"] == {"black": ["E8", "F7"], "white": [
        "B1", "C1", "C2", "C3", "C4", "C5", "D1", "D3", "D5", "E2", "E8", "F7"]}

    ruling = {"dead": list(WHITE_DEAD), "reason": "the black group at C3 has a single eye"}
    r = await c.post(f"/games/{gid}/dead/ruling", json=ruling, headers=NO_TOKEN)
    assert r.status_code == 403
    assert (await post("dead/ruling", ruling))["event"] == "DeadStonesRuled"
    for _ in range(300):  # the count follows the ruling asynchronously on Kafka
        g = (await c.get(f"/games/{gid}")).json()
        if g["result"] is not None and g["go"]["count"] is not None:
            return g
        await asyncio.sleep(0.1)
    return g


def check_counted(g: dict) -> None:
    assert (g["result"], g["winner"], g["reason"], g["score"]) == ("1-0", "white", "counting", "W+5.5")
    assert (g["rule"]["ruleset"], g["rule"]["article"]) == ("Chinese rules 2002", "9")  # komi 0.5
    count = g["go"]["count"]
    assert (count["black"], count["white"], count["how"], count["komi"]) == (38.0, 43.5, "arbiter", 0.5)
    assert g["go"]["ruling"]["reason"] == "the black group at C3 has a single eye"
    assert g["go"]["ruling"]["rule"]["article"] == "16.4, 25.1"
    assert g["go"]["resumptions"] == [{"by": "black", "to_move": "white"}]
    assert len(g["moves"]) == 63  # 60 of the record, Black's yielded turn, two passes
    assert [m["uci"] for m in g["moves"][-3:]] == ["pass", "pass", "pass"]
    assert g["go"]["board"][0] == "..X......"  # row 9, top first


async def test_a_disputed_9x9_game_through_the_gateway(shared_data):
    async with arbiter_client("memory", ticks=False) as c:
        check_counted(await play_disputed_game(c, record_moves(shared_data)))


async def test_go_settings_and_grades_are_refused_by_the_owning_service_with_422():
    """The game service refuses a game's impossible Go settings, the pairing service an event's
    and a bad grade (code ``malformed``: 422); nothing is created or registered."""
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/games", json={"game_id": "bad-go", "white": "a", "black": "b", "game": "go",
                                          "board_size": 8, "handicap": 5})
        assert (r.status_code, r.json()["code"]) == (422, "malformed") and "at most 4" in r.json()["detail"]
        assert (await c.get("/games/bad-go")).status_code == 404
        r = await c.post("/tournaments", json={"tournament_id": "bad-go", "name": "Go cup", "game": "go",
                                                "board_size": 9, "komi": 150})
        assert (r.status_code, r.json()["code"]) == (422, "malformed"), r.text
        assert "komi 150 is out of range for a 9x9 board" in r.json()["detail"]
        assert (await c.get("/tournaments/bad-go")).status_code == 404
        r = await c.post("/tournaments", json={"name": "Go cup", "game": "go", "board_size": 9,
                                                "go_rules": "japanese"})
        assert r.status_code == 200, r.text
        tid = r.json()["tournament_id"]
        # 7 dan down to 25 kyu (Chinese amateur grading art. 4); no professional grades
        for i, (grade, status) in enumerate((("8d", 422), ("26k", 422), ("0k", 422), ("3p", 422),
                                              ("3d", 200), ("15级", 200))):
            r = await c.post(f"/tournaments/{tid}/players", json={
                "player_id": f"p{i}", "name": "x", "grade": grade, "club": "75Ju"})
            assert r.status_code == status, (grade, r.text)
            if status == 422:
                assert grade in r.json()["detail"] and r.json()["code"] == "malformed"
        players = (await c.get(f"/tournaments/{tid}")).json()["players"]
        assert [p["grade"] for p in players] == ["3d", "15k"]  # one stored form
        assert [p["club"] for p in players] == ["75Ju", "75Ju"]  # the same-club avoidance's input, shown
        # grades as typed are stored in one form (the McMahon parser's reading)
        for i, (typed, stored) in enumerate((("3k ", "3k"), ("3d\t", "3d"), ("3d\n", None), ("01k", "1k"),
                                             ("3D", "3d"), ("1 dan", "1d"), ("七段", None))):
            r = await c.post(f"/tournaments/{tid}/players", json={
                "player_id": f"q{i}", "name": "x", "grade": typed})
            assert r.status_code == (200 if stored else 422), (typed, r.text)
        players = (await c.get(f"/tournaments/{tid}")).json()["players"]
        assert [p["grade"] for p in players][2:] == ["3k", "3d", "1k", "3d", "1d"]


async def test_impossible_komi_is_refused_at_creation_and_resigning_while_scoring_ends_the_phase():
    async with arbiter_client("memory", ticks=False) as c:
        # komi bounded by the board's points: 9x9 = 81, 3x3 = 9; the Chinese default 7.5 on a
        # 2x2 board (4 points) needs an explicit komi
        for kw, why in ((dict(board_size=9, komi=150), "komi 150 is out of range for a 9x9 board"),
                        (dict(board_size=3, komi=-10), "komi -10 is out of range for a 3x3 board"),
                        (dict(board_size=2), "the default komi 7.5 is out of range for a 2x2 board")):
            r = await c.post("/games", json={"white": "a", "black": "b", "game": "go", **kw})
            assert r.status_code == 422 and why in r.json()["detail"], (kw, r.text)
        gid = f"go-{uuid.uuid4().hex[:8]}"
        r = await c.post("/games", json={"game_id": gid, "white": "w", "black": "b", "game": "go",
                                          "board_size": 9, "time_control": "3600"})
        assert r.status_code == 200, r.text
        for p, m in (("b", "E5"), ("w", "pass"), ("b", "pass")):
            assert (await c.post(f"/games/{gid}/moves", json={"player_id": p, "move": m})).status_code == 200
        assert (await c.get(f"/games/{gid}")).json()["go"]["phase"] == "scoring"
        assert (await c.post(f"/games/{gid}/resign", json={"player_id": "w"})).status_code == 200
        g = (await c.get(f"/games/{gid}")).json()
        assert (g["status"], g["result"], g["go"]["phase"]) == ("ended", "0-1", "ended")


async def test_the_stone_removal_time_counts_an_unanswered_proposal_through_the_gateway():
    """Platform rule (no rule text sets one): 30 s to settle the dead stones. Black proposes no
    dead stones, White never answers; on the clock's timer (driven by a test clock, event times
    only) the proposal stands and is counted: Black E5 + the 80 points it surrounds = 81, White
    0 + komi 7.5 (Chinese default, 3¾ stones: 2002 art. 9) -> B+73.5, 0-1."""
    now = {"ms": 1_700_000_000_000}
    async with arbiter_client("memory", ticks=True, now_ms=lambda: now["ms"]) as c:
        gid = f"go-{uuid.uuid4().hex[:8]}"
        r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob",
                                          "game": "go", "board_size": 9, "stone_removal_s": 30})
        assert r.status_code == 200, r.text
        for who, mv in (("bob", "E5"), ("alice", "pass"), ("bob", "pass")):
            now["ms"] += 1_000
            r = await c.post(f"/games/{gid}/moves", json={"player_id": who, "move": mv})
            assert r.status_code == 200, r.text
        # "tt" typed on a 9x9 board is no silent pass
        r = await c.post(f"/games/{gid}/moves", json={"player_id": "alice", "move": "tt"})
        assert r.status_code == 409 and r.json()["code"] == "play-stopped"
        now["ms"] += 1_000
        r = await c.post(f"/games/{gid}/dead", json={"player_id": "bob", "dead": []},
                         headers=NO_TOKEN)
        assert r.status_code == 200 and r.json()["event"] == "DeadStonesProposed", r.text
        g = (await c.get(f"/games/{gid}")).json()
        assert (g["go"]["stone_removal_s"], g["go"]["phase"]) == (30, "scoring")
        # 0.2 s past the 30 s since the proposal: too late for White, too early for the timer
        # (it waits the clock's 0.5 s grace), so the refusal cannot race the tick
        now["ms"] += 30_200
        r = await c.post(f"/games/{gid}/dead/accept", json={"player_id": "alice"}, headers=NO_TOKEN)
        assert r.status_code == 409 and r.json()["code"] == "stone-removal-timeout", r.text
        now["ms"] += 1_000  # now past the grace: the timer's next tick sees the time run out
        for _ in range(300):  # the timer ticks on its own task
            g = (await c.get(f"/games/{gid}")).json()
            if g["result"] is not None:
                break
            await asyncio.sleep(0.1)
        assert (g["result"], g["score"], g["reason"]) == ("0-1", "B+73.5", "counting")
        assert (g["rule"]["ruleset"], g["rule"]["article"]) == ("Chinese rules 2002", "9")
        assert g["go"]["count"]["how"] == "stone-removal-timeout"
        exp = g["go"]["stone_removal_expired"]
        assert (exp["proposed_by"], exp["dead"], exp["limit_s"]) == ("black", [], 30)
        # the audit re-derives the game, the timer's StoneRemovalExpired included
        from contracts.messages import TOPICS
        from services.tools.audit import audit
        from services.tools.logio import select

        msgs = select(await c.arbiter_log.read_many(TOPICS), f"game-{gid}")
        assert any(m.type == "StoneRemovalExpired" for m in msgs)
        assert await audit(msgs) == []


async def test_tt_typed_on_a_9x9_board_is_refused_not_a_pass():
    async with arbiter_client("memory", ticks=False) as c:
        gid = f"go-{uuid.uuid4().hex[:8]}"
        r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob",
                                          "game": "go", "board_size": 9})
        assert r.status_code == 200, r.text
        r = await c.post(f"/games/{gid}/moves", json={"player_id": "bob", "move": "tt"})
        assert r.status_code == 422 and r.json()["code"] == "malformed" and "pass" in r.json()["detail"]
        assert (await c.get(f"/games/{gid}")).json()["moves"] == []


async def test_a_byo_yomi_games_view_gives_the_overtime_its_clocks_are_shown_with():
    """``600 5x30 byo-yomi``: 10 minutes of main time, then five periods of 30 s (Japanese
    byo-yomi, SGF OT ``5x30 byo-yomi``). The view gives the overtime and the periods left, and
    the running side's deadline counts the main time left plus every period left (the flag
    falls at the end of the last period): the page shows the main time, not main + periods."""
    now = {"ms": 1_700_000_000_000}
    async with arbiter_client("memory", ticks=True, now_ms=lambda: now["ms"]) as c:
        gid = f"go-{uuid.uuid4().hex[:8]}"
        r = await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob", "game": "go",
                                          "board_size": 9, "time_control": "600 5x30 byo-yomi"})
        assert r.status_code == 200, r.text
        now["ms"] += 4_000
        r = await c.post(f"/games/{gid}/moves", json={"player_id": "bob", "move": "E5"})
        assert r.status_code == 200, r.text
        clock = (await c.get(f"/games/{gid}")).json()["clock"]
        assert clock["overtime"] == {"kind": "byo-yomi", "count": 5, "length_ms": 30_000}
        assert (clock["running"], clock["white_periods_left"], clock["black_periods_left"]) == ("white", 5, 5)
        assert clock["white_ms"] == 600_000
        assert clock["deadline_ms"] - now["ms"] == 600_000 + 5 * 30_000
