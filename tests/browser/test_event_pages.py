"""The spectator's event pages in a real Chromium, on ``arbiter demo --serve`` (its bots' event
``open-1``, a round robin of six): the lobby's live boards move without a reload, a result the
arbiter enters appears in the pairings without one, the standings and crosstable shown equal
the API's with every tie-break code explained, and the replay viewer's position after N steps
is the game's position after N moves (chess, xiangqi, Go), by buttons and by keys."""
from __future__ import annotations

import re
import time

import chess
import httpx
import pytest
from playwright.sync_api import expect

from shared.domain.tiebreaks import TIEBREAK_EDITIONS, tiebreak_meaning
from shared.rules import go, xiangqi
from tests.browser.conftest import DESKTOP, PHONE, to_phone

WAIT_MS = 30_000


def _get(demo, path: str):
    return httpx.get(f"{demo.url}{path}", timeout=10).json()


def _num(v: float) -> str:
    """A number as the pages show it (two decimals at most: 1.5, 2, 6.25)."""
    return f"{round(v, 2):g}"


def _event_page(browser, demo, tab: str = "", viewport=DESKTOP):
    page = browser.new_page(viewport=viewport)
    page.goto(f"{demo.url}/ui/tournaments/{demo.events[0]}?lang=en{tab}")
    expect(page.locator("#event-name")).to_have_text("Arbiter Open 1", timeout=WAIT_MS)
    return page


def _end_round(demo, rnd: int) -> list[dict]:
    """The arbiter enters 1-0 on each board of round ``rnd`` still running; its boards."""
    auth = {"authorization": f"Bearer {demo.tokens['arbiter']}"}
    boards = _get(demo, f"/tournaments/{demo.events[0]}")["rounds"][rnd - 1]["boards"]
    for b in boards:
        if b["status"] != "ended":
            r = httpx.post(f"{demo.url}/games/{b['game_id']}/result", headers=auth, timeout=30,
                           json={"result": "1-0", "reason": "arbiter"})
            assert r.status_code in (200, 409), r.text  # 409: it ended on the board meanwhile
    return boards


def test_the_lobby_shows_live_boards_that_move_without_a_reload(browser, live_demo, shot):
    d = live_demo
    page = _event_page(browser, d)
    cards = page.locator(".live-card")
    expect(cards).to_have_count(3, timeout=WAIT_MS)  # round 1's three boards
    expect(page.locator(".tabs a[aria-current=page]")).to_have_text("Live boards")
    page.wait_for_function("[...document.querySelectorAll('.live-card')].some(c => Number(c.dataset.plies) > 0)",
                           timeout=WAIT_MS)
    seen = page.evaluate("Object.fromEntries([...document.querySelectorAll('.live-card')]"
                         ".map(c => [c.dataset.gameId, Number(c.dataset.plies || 0)]))")
    # a bot moves: the card shows it, pushed over the game's SSE stream (no reload)
    page.wait_for_function(
        "seen => [...document.querySelectorAll('.live-card')].some(c => Number(c.dataset.plies) > (seen[c.dataset.gameId] ?? 1e9))",
        arg=seen, timeout=WAIT_MS)
    gid, plies, fen = page.evaluate(
        "seen => { const c = [...document.querySelectorAll('.live-card')].find(c => Number(c.dataset.plies) > (seen[c.dataset.gameId] ?? 1e9));"
        " return [c.dataset.gameId, Number(c.dataset.plies), c.querySelector('.board').dataset.fen] }", seen)
    g = _get(d, f"/games/{gid}")
    board = chess.Board()
    for m in g["moves"][:plies]:
        board.push_san(m["san"])
    assert fen == board.fen()  # the card's position is the game's after the moves it counts
    card = page.locator(f'.live-card[data-game-id="{gid}"]')
    expect(card.locator("h3 a")).to_have_attribute("href", f"/ui/games/{gid}")
    names = card.locator(".name").all_inner_texts()
    assert names == [g["black"], g["white"]]
    for clock in card.locator(".clock").all_inner_texts():
        assert clock.count(":") == 1 and clock.split(":")[0].isdigit()
    shot(page, "event-live-desktop")
    page.click(f'.live-card[data-game-id="{gid}"] h3 a')  # its game page links back to the lobby
    expect(page.locator("#title a.event-link")).to_have_text(
        f"{d.events[0]} round {g['round']} board {g['board']}", timeout=WAIT_MS)
    page.click("#title a.event-link")
    expect(page.locator(f'.live-card[data-game-id="{gid}"]')).to_be_visible(timeout=WAIT_MS)
    to_phone(page, WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "event-live-phone")
    page.click("#lang")
    expect(page.locator('.tabs a[href="#live"]')).to_have_text("直播棋盘")
    expect(page.locator(".live-card h3 a").first).to_have_text("第1台")
    shot(page, "event-live-zh-phone")
    page.set_viewport_size(DESKTOP)
    shot(page, "event-live-zh-desktop")
    page.close()


def test_results_arrive_live_and_the_standings_shown_equal_the_api(browser, live_demo, shot):
    d = live_demo
    page = _event_page(browser, d, "#rounds")
    first = page.locator('table.pairings[data-round="1"]')
    expect(first.locator("tbody tr")).to_have_count(3, timeout=WAIT_MS)
    boards = _end_round(d, 1)
    t = _get(d, f"/tournaments/{d.events[0]}")
    for b in t["rounds"][0]["boards"]:  # each result in the pairings, without a reload
        want = b["code"] or b["result"]
        expect(first.locator(f'tr[data-game-id="{b["game_id"]}"] td.result a')).to_have_text(want, timeout=WAIT_MS)
    assert [r.locator("td").nth(1).inner_text() for r in first.locator("tbody tr").all()] == [b["white"] for b in boards]
    shot(page, "event-rounds-desktop")

    page.click('.tabs a[href="#standings"]')
    expect(page.locator("#standings-note")).to_contain_text("After round", timeout=WAIT_MS)
    st = _get(d, f"/tournaments/{d.events[0]}/standings")
    expect(page.locator("#standings-note")).to_have_text(f"After round {st['round']}", timeout=WAIT_MS)
    assert st["order"] == ["SB", "WIN", "DE"] and st["tiebreak_edition"] == "fide2024"
    head = page.locator("#standings-table thead th").all_inner_texts()
    assert head == ["Rank", "Player", "Score", "Played", *st["order"]]
    shown = [r.locator("td").all_inner_texts() for r in page.locator("#standings-table tbody tr").all()]
    assert shown == [[str(r["rank"]), r["name"], _num(r["score"]), str(r["games"]),
                      *(_num(r["tiebreaks"][c]) for c in st["order"])] for r in st["rows"]]
    assert len(shown) == 6
    # each code explained: its column's title, the legend, and the edition the API names
    sb = tiebreak_meaning("SB")
    assert page.locator("#standings-table thead th").nth(4).get_attribute("title") == f"{sb['meaning']} ({sb['source']})"
    assert page.locator("#legend dt").all_inner_texts() == st["order"]
    assert page.locator("#legend dd").all_inner_texts() == [
        f"{tiebreak_meaning(c)['meaning']} ({tiebreak_meaning(c)['source']})" for c in st["order"]]
    expect(page.locator("#edition")).to_have_text(
        f"Tie-break regulations: fide2024 ({TIEBREAK_EDITIONS['fide2024'].source})")
    shot(page, "event-standings-desktop")

    page.click('.tabs a[href="#crosstable"]')
    ct = _get(d, f"/tournaments/{d.events[0]}/crosstable")
    rows = page.locator("#crosstable-table tbody tr")
    expect(rows).to_have_count(6)
    first_row = ct["rows"][0]
    expect(rows.first.locator("td.cell").first).to_have_text(first_row["cells"][0])
    expect(page.locator("#crosstable-note")).to_contain_text(f"after round {st['round']}")
    assert rows.first.locator("td").nth(1).inner_text() == first_row["name"]
    shot(page, "event-crosstable-desktop")

    page.click("#lang")  # Chinese: the tabs, the headings and the tie-breaks' meanings
    expect(page.locator('.tabs a[href="#standings"]')).to_have_text("排名")
    page.click('.tabs a[href="#standings"]')
    expect(page.locator("#standings-table thead th").first).to_have_text("名次")
    expect(page.locator("#legend dd").first).to_have_text("小分（索伯分）：每局得分乘以该对手积分之和 (FIDE C.07 art. 9.1)")
    shot(page, "event-standings-zh-desktop")
    to_phone(page, WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "event-standings-zh-phone")
    page.click("#lang")
    page.close()


def _replay(browser, demo, gid: str, viewport=DESKTOP, lang: str = "en"):
    page = browser.new_page(viewport=viewport)
    page.goto(f"{demo.url}/ui/games/{gid}/replay?lang={lang}")
    expect(page.locator("#board")).to_have_attribute("data-step", re.compile(r"\d+"), timeout=WAIT_MS)
    return page


def _until(check, what: str):
    """``check()``'s value once it is true (polled; fails after WAIT_MS saying ``what``)."""
    end = time.monotonic() + WAIT_MS / 1000
    while not (value := check()):
        assert time.monotonic() < end, f"waited {WAIT_MS} ms for {what}"
        time.sleep(0.1)
    return value


def _finished_game(demo) -> dict:
    """Board 1 of round 1 once it has six moves or ended, ended (by the arbiter if the bots
    have not finished it)."""
    gid = f"{demo.events[0]}-r1-b1"
    _until(lambda: (g := _get(demo, f"/games/{gid}"))["status"] == "ended" or len(g["moves"]) >= 6,
           f"{gid} to have six moves")
    _end_round(demo, 1)
    g = _get(demo, f"/games/{gid}")
    assert g["status"] == "ended" and len(g["moves"]) >= 1
    return g


def _stepped(browser, demo, most: int, *, keys: bool, viewport=DESKTOP, lang: str = "en"):
    """The replay of a finished game (:func:`_finished_game`) stepped from the start
    ``min(most, moves)`` moves forward by the keys (Home, ArrowRight) or by the buttons;
    (page, game, steps)."""
    g = _finished_game(demo)
    steps = min(most, len(g["moves"]))
    page = _replay(browser, demo, g["game_id"], viewport, lang)
    page.keyboard.press("Home") if keys else page.click("#first")
    for _ in range(steps):
        page.keyboard.press("ArrowRight") if keys else page.click("#next")
    expect(page.locator("#board")).to_have_attribute("data-step", str(steps))
    return page, g, steps


def test_the_replay_viewer_steps_through_a_chess_game(browser, live_demo, shot):
    d = live_demo
    g = _finished_game(d)
    n = len(g["moves"])
    page = _replay(browser, d, g["game_id"])
    expect(page.locator("#ply")).to_have_text(f"move {n} of {n}")  # it opens on the end
    assert page.locator("#board").get_attribute("data-fen") == g["fen"]
    page.keyboard.press("Home")
    expect(page.locator("#ply")).to_have_text(f"move 0 of {n}")
    steps = min(5, n)
    for _ in range(steps):
        page.keyboard.press("ArrowRight")
    board = chess.Board()
    for m in g["moves"][:steps]:
        board.push_san(m["san"])
    expect(page.locator("#board")).to_have_attribute("data-fen", board.fen())
    expect(page.locator("#board")).to_have_attribute("data-step", str(steps))
    # the pieces drawn are that position's (once cm-chessboard's animation is over)
    want = sorted(f"{'w' if p.color else 'b'}{p.symbol().lower()}@{chess.square_name(s)}"
                  for s, p in board.piece_map().items())
    page.wait_for_function(
        "want => JSON.stringify([...document.querySelectorAll('#board [data-piece][data-square]')]"
        ".map(e => e.dataset.piece + '@' + e.dataset.square).sort()) === JSON.stringify(want)",
        arg=want, timeout=WAIT_MS)
    expect(page.locator(f'#moves .ply[data-ply="{steps}"]')).to_have_attribute("aria-current", "step")
    page.click("#prev")  # the buttons too
    expect(page.locator("#board")).to_have_attribute("data-step", str(steps - 1))
    board.pop()
    assert page.locator("#board").get_attribute("data-fen") == board.fen()
    page.keyboard.press("End")
    expect(page.locator("#board")).to_have_attribute("data-fen", g["fen"])
    expect(page.locator("#next")).to_be_disabled()
    page.click('#moves .ply[data-ply="1"]')  # a move of the list
    expect(page.locator("#board")).to_have_attribute("data-step", "1")
    expect(page.locator("#status")).to_contain_text(f"Game over: {g['result']}")
    shot(page, "replay-desktop")
    page.click("#lang")
    expect(page.locator("#ply")).to_have_text(f"第1步（共{n}步）")
    page.set_viewport_size(PHONE)
    shot(page, "replay-zh-phone")
    page.click("#lang")
    page.close()


@pytest.mark.parametrize("live_demo", ["xiangqi"], indirect=True)
def test_the_replay_viewer_steps_through_a_xiangqi_game(browser, live_demo, shot):
    page, g, steps = _stepped(browser, live_demo, 4, keys=False, lang="zh")
    expect(page.locator("#next")).to_have_attribute("aria-label", "前进一步")
    board = xiangqi.Board(g["start_fen"])
    for m in g["moves"][:steps]:
        board.push(xiangqi.Move.from_iccs(m["uci"]))
    expect(page.locator("#board")).to_have_attribute("data-fen", board.fen())
    drawn = page.evaluate("Object.fromEntries([...document.querySelectorAll('#board .piece')]"
                          ".map(e => [e.dataset.square, e.dataset.piece]))")
    want = {xiangqi.square_name(sq): board.piece_at(sq) for sq in range(90) if board.piece_at(sq)}
    assert drawn == want
    expect(page.locator("#ply")).to_have_text(f"第{steps}步（共{len(g['moves'])}步）")
    shot(page, "replay-xiangqi-zh-desktop")
    page.close()


@pytest.mark.parametrize("live_demo", ["go"], indirect=True)
def test_the_replay_viewer_steps_through_a_go_game(browser, live_demo, shot):
    page, g, steps = _stepped(browser, live_demo, 6, keys=True, viewport=PHONE)
    board = go.Board.from_text(g["start_fen"])
    for m in g["moves"][:steps]:
        board.play(None if m["san"] == "pass" else m["san"])
    rows = str(board).split("\n")
    signs = {"X": "1", "O": "-1", ".": "0"}
    drawn = page.evaluate("[...document.querySelectorAll('#board .shudan-vertex')].map(v => "
                          "[Number(v.dataset.x), Number(v.dataset.y), (v.className.match(/shudan-sign_(-?\\d)/) || [])[1]])")
    assert {(x, y): s for x, y, s in drawn} == {(x, y): signs[c] for y, row in enumerate(rows)
                                                 for x, c in enumerate(row)}
    shot(page, "replay-go-phone")
    page.close()
