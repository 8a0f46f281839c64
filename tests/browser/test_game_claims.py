"""Draw claims from the game page in a real Chromium, on ``arbiter demo --serve``: the visitor
(White) repeats knight moves against an opponent moved over HTTP; a threefold claim when the
position has occurred twice is refused with its code, reason and article (FIDE 1994 art.
10.13(2)), in English and Chinese; at the third time the claim is upheld and the game ends
drawn (art. 10.10). A xiangqi game's natural-limit claim (1999 rules art. 4.2.4, 23.3) goes
the same way. A move typed while the previous one's answer is still on its way is kept."""
from __future__ import annotations

import httpx
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, to_phone

WAIT_MS = 20_000
OPPONENT = "Carol"  # moved by the test with the administrator's token


def _create(demo, gid: str, **settings) -> None:
    r = httpx.post(f"{demo.url}/games", headers={"X-Arbiter-Token": demo.admin}, timeout=30,
                   json={"game_id": gid, "white": "you", "black": OPPONENT, "time_control": "600+5", **settings})
    assert r.status_code == 200, r.text


def _opponent_moves(demo, gid: str, move: str) -> None:
    r = httpx.post(f"{demo.url}/games/{gid}/moves", headers={"X-Arbiter-Token": demo.admin}, timeout=30,
                   json={"player_id": OPPONENT, "move": move})
    assert r.status_code == 200, r.text


def _server_game(demo, gid: str) -> dict:
    return httpx.get(f"{demo.url}/games/{gid}", timeout=10).json()


def _play(page, demo, gid: str, moves: list[str]) -> None:
    """The visitor types White's moves, the opponent answers each over HTTP once the page shows it."""
    for i, mv in enumerate(moves):
        ply = len(page.locator("#moves .ply[data-ply]").all()) + 1
        if i % 2 == 0:
            page.fill("#move-input", mv)
            page.press("#move-input", "Enter")
            expect(page.locator(f'#moves .ply[data-ply="{ply}"]')).to_have_count(1, timeout=WAIT_MS)
        else:
            _opponent_moves(demo, gid, mv)
            expect(page.locator(f'#moves .ply[data-ply="{ply}"]')).to_have_count(1, timeout=WAIT_MS)


def _open(browser, demo, gid: str, status: str, viewport=DESKTOP):
    page = browser.new_page(viewport=viewport)
    page.goto(f"{demo.url}/ui/games/{gid}?lang=en&token={demo.tokens['player']}")
    expect(page.locator("#status")).to_have_text(status, timeout=WAIT_MS)
    return page


def _claim(page, reason: str, outcome: str | None = None):
    """The visitor claims ``reason``; the claim box (#claim-outcome), once it says ``outcome``
    (``rejected``, ``upheld``, ``ruled``) when given."""
    page.select_option("#claim-reason", reason)
    page.click("#claim")
    box = page.locator("#claim-outcome")
    if outcome:
        expect(box).to_have_attribute("data-outcome", outcome, timeout=WAIT_MS)
    return box


def test_a_threefold_claim_refused_then_upheld(browser, live_demo, shot):
    d, gid = live_demo, "claims-chess"
    _create(d, gid)
    page = _open(browser, d, gid, "White to move (you)")
    expect(page.locator("#claim-form legend")).to_have_text("Claim a draw")
    assert page.locator("#claim-reason option").all_inner_texts() == [
        "Threefold repetition (art. 10.10)", "50 moves without a capture or pawn move (art. 10.12)"]
    expect(page.locator("#claim-outcome")).to_be_hidden()

    _play(page, d, gid, "Nf3 Nf6 Ng1 Ng8".split())
    expect(page.locator("#status")).to_have_text("White to move (you)", timeout=WAIT_MS)
    outcome = _claim(page, "threefold", "rejected")
    expect(outcome).to_contain_text("White's claim refused (threefold, incorrect-claim): position occurred 2 time(s)")
    expect(outcome.locator(".rule")).to_contain_text("chess FIDE-1994 art. 10.13(2)")
    expect(page.locator("#refusal")).to_be_hidden()  # shown once, with the claim
    g = _server_game(d, gid)
    assert g["status"] == "ongoing" and [p["time_delta_ms"] for p in g["penalties"]] == [-300_000]
    shot(page, "claim-refused-desktop")
    # nothing wider than the phone (a fieldset's min-content width would push the page sideways)
    to_phone(page, WAIT_MS)
    expect(page.locator("#claim")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "claim-refused-phone")

    page.click("#lang")
    # the code with its meaning in Chinese, beside the server's detail
    expect(outcome).to_contain_text("白方的申请不成立（三次重复，incorrect-claim：申请不成立）：position occurred 2 time(s)")
    expect(page.locator("#claim-form legend")).to_have_text("申请和棋")
    expect(page.locator("#claim")).to_have_text("申请")
    shot(page, "claim-refused-zh-phone")
    page.click("#lang")
    page.set_viewport_size(DESKTOP)

    _play(page, d, gid, "Nf3 Nf6 Ng1 Ng8".split())
    page.click("#claim")
    expect(page.locator("#status")).to_contain_text("Game over: 1/2-1/2 (threefold)", timeout=WAIT_MS)
    expect(page.locator("#status .rule")).to_contain_text("chess FIDE-1994 art. 10.10")
    expect(outcome).to_have_attribute("data-outcome", "upheld")
    expect(outcome).to_contain_text("White's claim upheld (threefold): 1/2-1/2")
    expect(page.locator("#claim-form")).to_be_hidden()
    g = _server_game(d, gid)
    assert (g["result"], g["reason"], g["rule"]["article"], len(g["moves"])) == ("1/2-1/2", "threefold", "10.10", 8)
    shot(page, "claim-upheld-desktop")
    page.click("#lang")
    expect(page.locator("#status")).to_contain_text("对局结束：1/2-1/2 (三次重复)")
    expect(outcome).to_contain_text("白方的申请成立（三次重复）：1/2-1/2")
    shot(page, "claim-upheld-zh-desktop")
    page.close()


def test_a_xiangqi_natural_limit_claim_and_the_ruling_request(browser, live_demo, shot):
    """The event's natural limit set to 2 moves (art. 4.2.4): after Red's first move the claim is
    untrue (refused, art. 23.3: a foul); after the second it is upheld, a draw."""
    d, gid = live_demo, "claims-xiangqi"
    _create(d, gid, game="xiangqi", natural_limit_moves=2, repetition_rulings="on-request")
    page = _open(browser, d, gid, "Red to move (you)", viewport=PHONE)
    assert page.locator("#claim-reason option").all_inner_texts() == [
        "Natural move limit without a capture (art. 4.2.4)",
        "The 棋例 ruling on a position repeated three times (art. 24)"]
    expect(page.locator("#claim-move-field")).to_be_hidden()  # xiangqi claims name no move
    _play(page, d, gid, ["h0g2", "h9g7"])
    outcome = _claim(page, "repetition", "rejected")
    expect(outcome).to_contain_text("Red's claim refused (repetition, too-few-repetitions): the position has occurred 1 time(s)",
                                    timeout=WAIT_MS)
    expect(outcome.locator(".rule")).to_contain_text("xiangqi CXA-1999 art. 24")
    _claim(page, "natural-limit")
    expect(outcome).to_contain_text("Red's claim refused (natural-limit, incorrect-claim)", timeout=WAIT_MS)
    expect(outcome.locator(".rule")).to_contain_text("xiangqi CXA-1999 art. 23.3")
    _play(page, d, gid, ["b0c2", "b9c7"])
    _claim(page, "natural-limit")
    expect(page.locator("#status")).to_contain_text("Game over: 1/2-1/2 (natural-limit)", timeout=WAIT_MS)
    expect(outcome).to_contain_text("Red's claim upheld (natural-limit): 1/2-1/2")
    expect(outcome.locator(".rule")).to_have_count(0)  # the status names the article
    page.click("#lang")
    expect(outcome).to_contain_text("红方的申请成立（自然限着）：1/2-1/2")
    shot(page, "claim-xiangqi-zh-phone")
    g = _server_game(d, gid)
    assert (g["result"], g["rule"]["article"]) == ("1/2-1/2", "4.2.4")
    page.close()


XQ_FEN = "3k5/9/9/9/9/5p3/9/5p3/5K3/5C3 w - - 0 1"  # Black's pawn checks Red's king again and again
XQ_CYCLE = "f1e1 f2e2 e1f1 e2f2".split()


def test_a_xiangqi_ruling_asked_for_after_a_third_repetition(browser, live_demo, shot):
    """Rulings on request (1999 rules art. 24): Black's pawn checks at every move of the cycle;
    Red asks for the 棋例 ruling when the position has occurred three times: Black's one-sided
    perpetual check loses (24.1, 26.1)."""
    d, gid = live_demo, "claims-ruling"
    _create(d, gid, game="xiangqi", start_fen=XQ_FEN, repetition_rulings="on-request")
    page = _open(browser, d, gid, "Red to move (you)", viewport=PHONE)
    _play(page, d, gid, XQ_CYCLE + XQ_CYCLE)
    outcome = _claim(page, "repetition", "ruled")
    expect(outcome).to_contain_text("棋例 ruling asked for by Red: Black loses; black checks on every move of the cycle")
    expect(outcome.locator(".rule")).to_contain_text("xiangqi CXA-1999 art. 24.1, 26.1")
    expect(page.locator("#status")).to_contain_text("Game over: 1-0 (perpetual-check)", timeout=WAIT_MS)
    page.click("#lang")
    expect(outcome).to_contain_text("红方请求的棋例裁决：黑方负；black checks")
    shot(page, "claim-ruling-zh-phone")
    page.close()


def test_a_xiangqi_draw_offer_is_offered_only_when_art_23_1_allows_it(browser, live_demo, shot):
    """"Offer draw" shows exactly when the game service takes the offer (1999 rules art. 23.1 as
    services/validation applies it): right after one's own move, no offer pending, and offers
    alternate (a declined offer of Red's keeps Red from offering again before Black has)."""
    d, gid = live_demo, "offer-xiangqi"
    _create(d, gid, game="xiangqi")
    page = _open(browser, d, gid, "Red to move (you)")
    offer = page.locator("#offer-draw")
    expect(offer).to_be_hidden()  # no move yet
    _play(page, d, gid, ["h2e2"])
    expect(page.locator("#status")).to_have_text("Black to move", timeout=WAIT_MS)
    expect(offer).to_be_visible()  # right after Red's own move
    offer.click()
    expect(page.locator("#status")).to_contain_text("Red offers a draw", timeout=WAIT_MS)
    expect(offer).to_be_hidden()  # pending
    r = httpx.post(f"{d.url}/games/{gid}/draw/decline", headers={"X-Arbiter-Token": d.admin}, timeout=30,
                   json={"player_id": OPPONENT})
    assert r.status_code == 200, r.text
    expect(page.locator("#status")).not_to_contain_text("offers a draw", timeout=WAIT_MS)
    expect(offer).to_be_hidden()  # declined: Red's was the last offer
    _opponent_moves(d, gid, "h9g7")
    expect(page.locator("#status")).to_have_text("Red to move (you)", timeout=WAIT_MS)
    expect(offer).to_be_hidden()  # Red to move
    _play(page, d, gid, ["h0g2"])
    expect(page.locator("#status")).to_have_text("Black to move", timeout=WAIT_MS)
    expect(offer).to_be_hidden()  # after Red's own move, but offers alternate
    shot(page, "offer-xiangqi-alternate-desktop")
    # the game service agrees: Red's offer now is refused
    r = httpx.post(f"{d.url}/games/{gid}/draw/offer", headers={"X-Arbiter-Token": d.admin}, timeout=30,
                   json={"player_id": "you"})
    assert r.status_code == 409 and "alternate" in r.json()["detail"], r.text
    page.close()


# The page's fetch, wrapped: the answer to a move (POST .../moves) is held until the test
# releases it; GETs of the game are counted.
HOLD_MOVE_ANSWERS = """
(() => {
    const fetch0 = window.fetch
    window.heldAnswers = []
    window.gameReads = 0
    window.fetch = async (url, opts) => {
        const r = await fetch0(url, opts)
        if (opts && opts.method === "POST" && String(url).endsWith("/moves"))
            await new Promise((release) => window.heldAnswers.push(release))
        else if (!(opts && opts.method) && /^\\/games\\/[^/]+$/.test(String(url))) window.gameReads++
        return r
    }
})()
"""


def test_a_move_typed_ahead_is_kept_when_the_previous_answer_arrives(browser, live_demo, shot):
    """The visitor plays e4; before the answer to that request reaches the page (held by the test)
    the opponent replies and the visitor types Nf3. The late answer clears the move box only if
    it still holds the move it answered: Nf3 stays, and Enter plays it. (A clean-clone CI run
    lost a typed move this way: the box was cleared after the next move had been typed.)"""
    d, gid = live_demo, "typed-ahead"
    _create(d, gid)
    page = browser.new_page(viewport=DESKTOP)
    page.add_init_script(HOLD_MOVE_ANSWERS)
    page.goto(f"{d.url}/ui/games/{gid}?lang=en&token={d.tokens['player']}")
    expect(page.locator("#status")).to_have_text("White to move (you)", timeout=WAIT_MS)
    page.fill("#move-input", "e4")
    page.press("#move-input", "Enter")
    expect(page.locator('#moves .ply[data-ply="1"]')).to_have_text("e4", timeout=WAIT_MS)  # over SSE
    _opponent_moves(d, gid, "e5")
    expect(page.locator('#moves .ply[data-ply="2"]')).to_have_text("e5", timeout=WAIT_MS)
    page.fill("#move-input", "Nf3")
    assert page.evaluate("window.heldAnswers.length") == 1
    reads = page.evaluate("window.gameReads")
    page.evaluate("window.heldAnswers.shift()()")  # e4's answer arrives; the page reads the game
    page.wait_for_function(f"window.gameReads > {reads}", timeout=WAIT_MS)
    page.evaluate("new Promise((done) => setTimeout(done, 200))")  # the answer's handler has run
    expect(page.locator("#move-input")).to_have_value("Nf3")
    page.press("#move-input", "Enter")
    expect(page.locator('#moves .ply[data-ply="3"]')).to_have_text("Nf3", timeout=WAIT_MS)
    page.wait_for_function("window.heldAnswers.length === 1", timeout=WAIT_MS)
    page.evaluate("window.heldAnswers.shift()()")
    expect(page.locator("#move-input")).to_have_value("", timeout=WAIT_MS)  # cleared: it held Nf3
    assert [m["san"] for m in _server_game(d, gid)["moves"]] == ["e4", "e5", "Nf3"]
    page.close()
