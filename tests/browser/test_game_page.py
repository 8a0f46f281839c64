"""The game page in a real Chromium, on ``arbiter demo --serve``: a player moves by clicking and
sees the bot's reply arrive live, a refused move shows its reason and article, resigning shows
the result; a spectator's board follows the bots' game without a reload."""
from __future__ import annotations

import re
import uuid

import chess
import pytest
import httpx
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE

WAIT_MS = 20_000


def _server_game(demo, gid: str) -> dict:
    return httpx.get(f"{demo.url}/games/{gid}", timeout=10).json()


def _page_moves(page) -> list[str]:
    return page.locator("#moves .ply[data-ply]").all_inner_texts()


def _player_page(browser, demo, status: str):
    """The visitor's game page, once it says ``status`` (whose turn)."""
    page = browser.new_page(viewport=DESKTOP)
    page.goto(demo.urls()["player"])
    expect(page.locator("#status")).to_have_text(status, timeout=WAIT_MS)
    assert "token=" not in page.url  # kept in localStorage, not in the history (a reviewer's find)
    return page


def _shots_and_close(page, shot, name: str) -> None:
    shot(page, f"{name}-desktop")
    page.set_viewport_size(PHONE)
    shot(page, f"{name}-phone")
    page.close()


def test_a_player_moves_by_clicking_and_sees_the_reply_live(browser, live_demo, shot):
    d = live_demo
    page = _player_page(browser, d, "White to move (you)")
    expect(page.locator("#who")).to_have_text("you (white)")
    shot(page, "player-start-desktop")

    page.click('#board rect[data-square="e2"]')
    page.click('#board rect[data-square="e4"]')
    expect(page.locator('#moves .ply[data-ply="1"]')).to_have_text("e4", timeout=WAIT_MS)
    expect(page.locator('#moves .ply[data-ply="2"]')).to_have_count(1, timeout=WAIT_MS)  # the bot's
    expect(page.locator("#status")).to_have_text("White to move (you)", timeout=WAIT_MS)

    g = _server_game(d, d.player_game)
    assert [m["san"] for m in g["moves"]] == _page_moves(page) == ["e4", g["moves"][1]["san"]]
    board = chess.Board()
    for m in g["moves"]:
        board.push_san(m["san"])
    assert g["fen"] == board.fen()
    assert page.locator("#board").get_attribute("data-fen") == board.fen()
    assert g["moves"][1]["colour"] == "black" and g["moves"][1]["player_id"] == "Boris"
    shot(page, "player-after-reply-desktop")

    # a move typed (keyboard) and refused by the validation service: its code and reason
    page.fill("#move-input", "Ke3")
    page.press("#move-input", "Enter")
    refusal = page.locator("#refusal")
    # (the validation service names no article for an illegal chess move; where a refusal
    # carries one, the page adds it: "(chess FIDE-1994 art. ...)")
    expect(refusal).to_have_text("Refused (illegal): Ke3 is not legal in this position",
                                 timeout=WAIT_MS)
    expect(page.locator('#moves .ply[data-ply]')).to_have_count(2)
    assert len(_server_game(d, d.player_game)["moves"]) == 2
    shot(page, "player-refused-desktop")

    page.set_viewport_size(PHONE)
    shot(page, "player-phone")

    page.on("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    expect(page.locator("#status")).to_contain_text("Game over: 0-1 (resignation)", timeout=WAIT_MS)
    g = _server_game(d, d.player_game)
    assert (g["result"], g["reason"]) == ("0-1", "resignation")
    expect(page.locator("#status .rule")).to_have_text(
        f"{g['rule']['game']} {g['rule']['ruleset']} art. {g['rule']['article']}"
        + (f": {g['rule']['summary']}" if g["rule"].get("summary") else ""))
    expect(page.locator("#actions")).to_be_hidden()
    shot(page, "player-ended-desktop")
    page.close()


def test_a_spectator_follows_a_live_game_without_reloading(browser, live_demo, shot):
    d = live_demo
    gid = d.live_games[-1]
    page = browser.new_page(viewport=PHONE)
    page.goto(d.urls()["spectator"])
    expect(page.locator("#who")).to_have_text("spectator", timeout=WAIT_MS)
    plies = page.locator("#moves .ply[data-ply]")
    expect(plies.first).to_be_attached(timeout=WAIT_MS)
    seen = plies.count()
    # the bots keep moving: more plies appear, pushed over the game's SSE stream
    page.wait_for_function(f"document.querySelectorAll('#moves .ply[data-ply]').length > {seen}",
                           timeout=WAIT_MS)
    expect(page.locator("#move-form")).to_be_hidden()
    expect(page.locator("#actions")).to_be_hidden()
    shown = _page_moves(page)
    server = [m["san"] for m in _server_game(d, gid)["moves"]]
    assert server[:len(shown)] == shown  # the page shows the game's own moves, in order
    shot(page, "spectator-phone")
    page.set_viewport_size(DESKTOP)
    shot(page, "spectator-desktop")
    page.goto(f"{d.url}/")
    expect(page.locator(f'a[href="/ui/games/{gid}"]')).to_be_visible()
    shot(page, "index-desktop")
    page.close()


@pytest.mark.parametrize("live_demo", ["xiangqi"], indirect=True)
def test_a_xiangqi_player_moves_by_clicking(browser, live_demo, shot):
    d = live_demo
    page = _player_page(browser, d, "Red to move (you)")
    expect(page.locator('#board .piece[data-square="h2"]')).to_have_attribute("data-piece", "C")
    page.click('#board rect[data-square="h2"]')
    page.click('#board rect[data-square="e2"]')
    expect(page.locator('#moves .ply[data-ply="1"]')).to_have_text("炮二平五", timeout=WAIT_MS)
    expect(page.locator('#moves .ply[data-ply="1"]')).to_have_attribute("title", "C2=5")
    expect(page.locator('#moves .ply[data-ply="2"]')).to_have_count(1, timeout=WAIT_MS)  # the bot's
    expect(page.locator("#status")).to_have_text("Red to move (you)", timeout=WAIT_MS)
    g = _server_game(d, d.player_game)
    assert _page_moves(page) == [m["san"] for m in g["moves"]]
    assert g["moves"][0]["uci"] == "h2e2"
    # the board drawn is the position after the moves: the cannon now stands on e2
    expect(page.locator('#board .piece[data-square="e2"]')).to_have_attribute("data-piece", "C")
    expect(page.locator('#board .piece[data-square="h2"]')).to_have_count(0)
    assert page.locator("#board").get_attribute("data-fen") == g["fen"]
    # a refused move names its article (xiangqi 1999 art. 4.1.6)
    page.fill("#move-input", "e2e9")
    page.press("#move-input", "Enter")
    expect(page.locator("#refusal")).to_contain_text("(xiangqi CXA-1999 art. 4.1.6", timeout=WAIT_MS)
    _shots_and_close(page, shot, "xiangqi-player")


@pytest.mark.parametrize("live_demo", ["xiangqi"], indirect=True)
def test_the_page_switches_to_chinese_and_keeps_the_choice(browser, live_demo, shot):
    page = _player_page(browser, live_demo, "Red to move (you)")
    page.click("#lang")
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.locator("#status")).to_have_text("红方走棋（你）")
    expect(page.locator("#resign")).to_have_text("认输")
    expect(page.locator("#top-name")).to_have_text("Boris (黑方)")
    expect(page.locator("#lang")).to_have_text("English")
    page.reload()  # the choice is kept (localStorage)
    expect(page.locator("#status")).to_have_text("红方走棋（你）", timeout=WAIT_MS)
    _shots_and_close(page, shot, "xiangqi-player-zh")
    page = browser.new_page(viewport=DESKTOP)  # the index switches too
    page.goto(f"{live_demo.url}/?lang=en")
    expect(page.locator("h1")).to_have_text("Games")
    page.click("#lang")
    expect(page.locator("h1")).to_have_text("对局")
    expect(page.locator("#title")).to_have_text("对局")  # the title and the games' names too
    expect(page.locator('td[data-i18n="xiangqi"]').first).to_have_text("中国象棋")
    shot(page, "index-zh-desktop")
    page.close()


@pytest.mark.parametrize("live_demo", ["go"], indirect=True)
def test_a_go_player_places_a_stone_by_clicking(browser, live_demo, shot):
    d = live_demo
    page = browser.new_page(viewport=DESKTOP)
    page.goto(d.urls()["player"])
    # Black (the bot) opens; then it is the visitor's turn
    expect(page.locator("#status")).to_have_text("White to move (you)", timeout=WAIT_MS)
    g = _server_game(d, d.player_game)
    rows = g["go"]["board"]
    x, y = next((x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == ".")
    page.click(f'#board .shudan-vertex[data-x="{x}"][data-y="{y}"]')
    mine = "ABCDEFGHJ"[x] + str(9 - y)
    expect(page.locator('#moves .ply[data-ply="2"]')).to_have_text(mine, timeout=WAIT_MS)
    expect(page.locator('#moves .ply[data-ply="3"]')).to_have_count(1, timeout=WAIT_MS)  # the bot's
    g = _server_game(d, d.player_game)
    assert g["moves"][1]["san"] == mine and g["moves"][1]["player_id"] == "you"
    assert g["go"]["board"][y][x] == "O"  # a white stone where the visitor clicked
    expect(page.locator(f'#board .shudan-vertex[data-x="{x}"][data-y="{y}"]')).to_have_class(
        re.compile(r"shudan-sign_-1"))
    assert _page_moves(page)[:3] == [m["san"] for m in g["moves"]][:3]
    _shots_and_close(page, shot, "go-player")


@pytest.mark.parametrize("live_demo", ["go"], indirect=True)
def test_a_go_player_marks_the_dead_stones_by_clicking_and_proposes_them(browser, live_demo, shot, shared_data):
    """The real 9x9 KGS game (maproom-gnugo3pt6.sgf, two passes at the end) with the visitor as
    Black: while the dead stones are settled (Japanese rules 1989 art. 9-1, Chinese 1988 art. 8)
    he clicks White's stones at E8 and F7, sees them marked, and proposes them; the proposal is
    recorded as his (MarkDead), and White's acceptance counts the game."""
    from tests.unit.test_go_services import record_moves

    d = live_demo
    gid = f"go-dead-{uuid.uuid4().hex[:6]}"
    admin = {"X-Arbiter-Token": d.admin}

    def post(path: str, body: dict) -> dict:
        r = httpx.post(f"{d.url}{path}", json=body, headers=admin, timeout=30)
        assert r.status_code == 200, (path, r.text)
        return r.json()

    post("/games", {"game_id": gid, "white": "alice", "black": "you", "game": "go", "board_size": 9,
                    "go_rules": "chinese", "komi": 0.5, "time_control": "3600+10"})
    for i, mv in enumerate(record_moves(shared_data)):
        post(f"/games/{gid}/moves", {"player_id": ["you", "alice"][i % 2], "move": mv})
    assert _server_game(d, gid)["go"]["phase"] == "scoring"
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{d.url}/ui/games/{gid}?lang=en&token={d.tokens['player']}")
    expect(page.locator("#dead-form")).to_be_visible(timeout=WAIT_MS)
    for point in ("E8", "F7"):
        x, y = "ABCDEFGHJ".index(point[0]), 9 - int(point[1:])
        page.click(f'#board .shudan-vertex[data-x="{x}"][data-y="{y}"]')
    expect(page.locator("#marked-dead")).to_have_text("E8 F7")
    expect(page.locator('#board .shudan-vertex[data-x="4"][data-y="1"]')).to_have_class(re.compile("shudan-dimmed"))
    shot(page, "go-dead-marked-desktop")
    page.click("#propose-dead")
    expect(page.locator("#status")).to_contain_text("black proposes as dead: E8 F7", timeout=WAIT_MS)
    assert _server_game(d, gid)["go"]["proposals"]["black"] == ["E8", "F7"]
    post(f"/games/{gid}/dead/accept", {"player_id": "alice"})
    expect(page.locator("#status")).to_contain_text("Game over", timeout=WAIT_MS)
    g = _server_game(d, gid)
    assert g["status"] == "ended" and g["go"]["dead"] == ["E8", "F7"]
    page.close()
