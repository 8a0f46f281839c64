"""The arbiter console (/ui/arbiter) in a real Chromium, on ``arbiter demo --serve``, signed in
with the demo's arbiter token:

- Go: the real 9x9 KGS game of tests/integration/test_go_gateway.py (``maproom-gnugo3pt6.sgf``,
  RE[W+5.50]) ends with a disputed dead-stone agreement (White marks the stones its territory
  implies, Black only two); the console shows the dispute with both proposals and Chinese
  rules 1988 art. 16.4, 25.1; a ruling without a reason is refused with its code; the arbiter
  takes White's proposal and rules: the game is counted W+5.5 (1-0), the item moves to the
  decided ones, and the game's audit lists the ruling with its article and no difference.
- Xiangqi, rulings on request (1999 art. 24 待判局面): the position of
  tests/unit/test_xiangqi_services.py repeated three times; the arbiter asks for the 棋例
  ruling in the console: black loses (one-sided perpetual check, 24.1), 1-0.

Screenshots (en and zh, desktop and phone width) go to out/screenshots/console-*.png."""
from __future__ import annotations

import uuid

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.unit.test_arbiter_console import XQ_CYCLE, XQ_FEN
from tests.unit.test_go_services import DEAD_ALL, record_moves

WAIT_MS = 20_000


def _post(demo, path: str, body: dict) -> dict:
    r = httpx.post(f"{demo.url}{path}", json=body, headers={"X-Arbiter-Token": demo.admin}, timeout=30)
    assert r.status_code == 200, (path, body, r.text)
    return r.json()


def _game(demo, gid: str) -> dict:
    return httpx.get(f"{demo.url}/games/{gid}", timeout=10).json()


def _console(browser, demo, viewport=DESKTOP, lang: str = "en"):
    page = browser.new_page(viewport=viewport)
    page.goto(f"{demo.url}/ui/arbiter?lang={lang}&token={demo.tokens['arbiter']}")
    expect(page.locator("#who")).to_contain_text("arbiter1", timeout=WAIT_MS)
    assert "token=" not in page.url
    return page


def _shots(browser, demo, shot, name: str, item_selector: str) -> None:
    """The console in English and Chinese, at desktop and phone width."""
    for lang in ("en", "zh"):
        for label, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page = _console(browser, demo, viewport, lang)
            expect(page.locator(item_selector).first).to_be_visible(timeout=WAIT_MS)
            shot(page, f"console-{name}-{lang}-{label}")
            page.close()


@pytest.mark.parametrize("live_demo", ["go"], indirect=True)
def test_a_go_dead_stone_dispute_is_settled_in_the_console(browser, live_demo, shot, shared_data):
    d = live_demo
    gid = f"go-{uuid.uuid4().hex[:6]}"
    _post(d, "/games", {"game_id": gid, "white": "alice", "black": "bob", "game": "go", "board_size": 9,
                        "go_rules": "chinese", "komi": 0.5, "time_control": "3600+10"})
    for i, mv in enumerate(record_moves(shared_data)):
        _post(d, f"/games/{gid}/moves", {"player_id": ["bob", "alice"][i % 2], "move": mv})
    _post(d, f"/games/{gid}/dead", {"player_id": "alice", "dead": ["C3", "E2", "E8", "F7"]})
    _post(d, f"/games/{gid}/dead", {"player_id": "bob", "dead": ["E8", "F7"]})

    item = f'#open-items article[data-game="{gid}"][data-kind="dead-stones"]'
    _shots(browser, d, shot, "go-dispute", item)
    page = _console(browser, d)
    card = page.locator(item)
    expect(card.locator(".what")).to_have_text(
        "White proposes as dead: " + " ".join(DEAD_ALL) + "; Black proposes as dead: E8 F7")
    expect(card.locator(".articles li").first).to_contain_text("go Chinese rules 1988 art. 16.4, 25.1")
    expect(card.locator(".board.mini .shudan-goban")).to_be_visible()

    # keyboard: White's proposal taken, the ruling submitted with Enter, first without a reason
    card.get_by_role("button", name="Take White's proposal").focus()
    page.keyboard.press("Enter")
    points = card.get_by_label("Dead stones (GTP points)")
    expect(points).to_have_value(" ".join(DEAD_ALL))
    points.press("Enter")
    expect(card.locator(".refusal")).to_contain_text("Refused (malformed)", timeout=WAIT_MS)
    assert _game(d, gid)["status"] == "ongoing"  # nothing was published
    ruling = page.locator(f"#dead-{gid}")
    expect(ruling.get_by_label("Dead stones (GTP points)")).to_have_value(" ".join(DEAD_ALL))  # kept
    ruling.get_by_label("Reason").fill("the black group at C3 has a single eye")
    ruling.get_by_label("Reason").press("Enter")

    done = page.locator(f'#done-items article[data-game="{gid}"][data-kind="dead-stones"]')
    expect(done).to_be_visible(timeout=WAIT_MS)
    expect(done.locator(".what")).to_contain_text("Ruled: " + " ".join(DEAD_ALL) + " — the black group at C3 has a single eye")
    g = _game(d, gid)
    assert (g["result"], g["score"], g["reason"]) == ("1-0", "W+5.5", "counting")
    assert g["go"]["count"]["how"] == "arbiter" and g["go"]["ruling"]["rule"]["article"] == "16.4, 25.1"
    expect(page.locator(item)).to_have_count(0)

    done.get_by_role("button", name="Audit").click()
    audit = page.locator("#audit")
    expect(audit.locator(".audit-ok")).to_have_text("Re-derived by today's code: no difference.", timeout=WAIT_MS)
    ruled = audit.locator("tr", has_text="DeadStonesRuled")
    expect(ruled).to_contain_text("arbiter:arbiter1")
    expect(ruled).to_contain_text("art. 16.4, 25.1")
    expect(audit.locator("tr", has_text="GameEnded")).to_contain_text("Chinese rules 2002 art. 9")
    shot(page, "console-go-audit-en-desktop")
    page.keyboard.press("Escape")
    expect(audit).to_be_hidden()
    shot(page, "console-go-ruled-en-desktop")
    page.close()


@pytest.mark.parametrize("live_demo", ["xiangqi"], indirect=True)
def test_a_xiangqi_repetition_ruling_request_is_ruled_in_the_console(browser, live_demo, shot):
    d = live_demo
    gid = f"xq-{uuid.uuid4().hex[:6]}"
    _post(d, "/games", {"game_id": gid, "white": "alice", "black": "bob", "game": "xiangqi",
                        "start_fen": XQ_FEN, "repetition_rulings": "on-request", "time_control": "600+5"})
    for i, mv in enumerate(XQ_CYCLE):
        _post(d, f"/games/{gid}/moves", {"player_id": ["alice", "bob"][i % 2], "move": mv})

    item = f'#open-items article[data-game="{gid}"][data-kind="repetition"]'
    _shots(browser, d, shot, "xiangqi-repetition", item)
    page = _console(browser, d, lang="zh")
    card = page.locator(item)
    expect(card.locator(".what")).to_have_text("同一局面已出现3次；按申请裁决：轮到alice（红方）走棋。")
    expect(card.locator(".articles li")).to_have_count(4)
    expect(card.locator(".articles li").nth(1)).to_contain_text("CXA-1999 art. 24.1")
    # a warning first (xiangqi 1999 art. 18.1), from the penalty form, by keyboard
    page.select_option(f"#penalty-{gid}-who", "bob")
    page.select_option(f"#penalty-{gid}-kind", "warning")
    page.fill(f"#penalty-{gid}-note", "knocking on the table")
    page.press(f"#penalty-{gid}-note", "Enter")
    expect(card.locator(".penalties")).to_have_text("警告 bob (xiangqi CXA-1999 art. 18.1: a warning by the game arbiter)", timeout=WAIT_MS)
    [warning] = _game(d, gid)["penalties"]
    assert (warning["player_id"], warning["kind"], warning["rule"]["article"]) == ("bob", "warning", "18.1")
    expect(card.locator(".refusal")).to_have_count(0)
    card.get_by_role("button", name="申请棋例裁决（第24条）").press("Enter")

    ruling = page.locator(f'#done-items article[data-game="{gid}"][data-kind="ruling"]')
    expect(ruling).to_be_visible(timeout=WAIT_MS)
    expect(ruling.locator(".what")).to_contain_text("黑方负: black checks on every move of the cycle")
    expect(ruling.locator(".articles li")).to_contain_text("xiangqi CXA-1999 art. 24.1, 26.1")
    claim = page.locator(f'#done-items article[data-game="{gid}"][data-kind="claim"]')
    expect(claim.locator(".what")).to_contain_text("已裁决")
    g = _game(d, gid)
    assert (g["result"], g["reason"]) == ("1-0", "perpetual-check")
    assert g["rulings"][0]["verdict"] == "black-loses"
    shot(page, "console-xiangqi-ruled-zh-desktop")
    page.set_viewport_size(PHONE)
    shot(page, "console-xiangqi-ruled-zh-phone")
    page.close()
