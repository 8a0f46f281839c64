"""The organiser's pages in a real Chromium, on ``arbiter demo --serve`` (its organiser token):
an organiser creates a Swiss event from the form (a refused time control first shows its
reason and code), registers players by the form and by CSV (a bad row shown with its line and
left out), pairs round 1, and the pairings appear in the event's lobby as the API has them;
the pages in Chinese and at phone width. An unpublished event whose clocks start on command:
round 1 paired, then started from the page, its TRF and a game's PGN downloaded with the
organiser's token; a pairing by hand refused in the page without its reason, recorded with
it; the index's links to the officials' pages."""
from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE

WAIT_MS = 30_000
TID = "club-swiss"
CSV = """player_id,name,rating,club
bo,Bo Li,2210,Hilltop CC
cy,Cyrus Adams,2050,
di,Dina Weiss,1980,Riverside
ed,Ed Marsh,abc,
fu,Fu Ming,1875,
"""


def _get(demo, path: str):
    return httpx.get(f"{demo.url}{path}", timeout=10).json()


def _organiser_page(browser, demo, path="/ui/organiser", lang="en", viewport=DESKTOP):
    page = browser.new_page(viewport=viewport)
    page.goto(f"{demo.url}{path}?lang={lang}&token={demo.tokens['organiser']}")
    return page


def test_an_organiser_creates_a_swiss_event_registers_players_and_pairs_round_1(browser, live_demo, shot):
    d = live_demo
    page = _organiser_page(browser, d)
    expect(page.locator("#who")).to_have_text("organiser1 · organiser", timeout=WAIT_MS)
    # the choices are the API's: every system of CreateTournament, the FIDE editions
    systems = page.locator("#f-system option").evaluate_all("os => os.map(o => o.value)")
    assert systems == ["round-robin", "double-round-robin", "swiss", "chinese-swiss", "mcmahon", "knockout",
                       "team-round-robin", "double-elimination"]
    page.fill("#f-name", "Club Swiss")
    page.fill("#f-tournament_id", TID)
    # a round robin's and a knockout's rounds follow from the field: the API refuses them
    rounds = page.locator('[data-field="rounds"]')
    for system in ("round-robin", "knockout"):
        page.select_option("#f-system", system)
        expect(rounds).to_be_hidden()
    page.select_option("#f-system", "swiss")
    expect(rounds).to_be_visible()
    page.fill("#f-rounds", "3")
    # a time control the API refuses: its reason and code are shown, nothing is created
    page.select_option("#tc-kind", "")
    page.fill("#f-time_control", "abc")
    page.click("#create-form button[type=submit]")
    out = page.locator("#create-outcome")
    expect(out).to_contain_text("malformed TimeControl 'abc'", timeout=WAIT_MS)
    expect(out).to_have_attribute("data-code", "invalid")
    assert httpx.get(f"{d.url}/tournaments/{TID}", timeout=10).status_code == 404
    # Fischer: 5 minutes + 3 s a move, built from the parser's form
    page.select_option("#tc-kind", "fischer")
    page.fill("#tc-base", "5")
    page.fill("#tc-step", "3")
    expect(page.locator("#f-time_control")).to_have_value("300+3")
    for code in ("BH-C1", "BH"):
        page.select_option("#tb-pick", code)
        page.click("#tb-add")
    # by the keyboard: SB chosen, Tab to "Add", Enter; then Tab to its "up" button, Enter
    page.select_option("#tb-pick", "SB")
    page.focus("#tb-pick")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator("#tb-list li")).to_have_count(3)
    page.focus('#tb-list li[data-code="BH"] button[aria-label="remove BH"]')
    page.keyboard.press("Tab")
    expect(page.locator('#tb-list li[data-code="SB"] button[aria-label="up SB"]')).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator('#tb-list li[data-code="SB"] button[aria-label="up SB"]')).to_be_focused()  # it stays with SB
    # the cut modifiers read apart: BH, BH-C1, BH-M1 share their meaning
    expect(page.locator('#tb-pick option[value="BH-C1"]')).to_have_text(
        "BH-C1: Buchholz: the sum of the opponents' scores (without the least significant value)")
    expect(page.locator('#tb-pick option[value="BH-M2"]')).to_have_text(
        "BH-M2: Buchholz: the sum of the opponents' scores (without the two highest and the two lowest values)")
    # the edition's default choice is shown whole (it was cut: "the edition in force on the d")
    fits = page.locator("#f-tiebreak_edition").evaluate(
        "s => { const c = document.createElement('canvas').getContext('2d'); c.font = getComputedStyle(s).font;"
        " return c.measureText(s.options[s.selectedIndex].text).width + 30 <= s.clientWidth }")
    assert fits
    page.select_option("#f-tiebreak_edition", "fide2024")
    expect(page.locator('[data-field="go_rules"]')).to_be_hidden()  # a Go field, not for chess
    shot(page, "organiser-create-desktop")
    page.click("#create-form button[type=submit]")
    expect(out).to_contain_text(f"Created: {TID}.", timeout=WAIT_MS)
    t = _get(d, f"/tournaments/{TID}")
    assert (t["name"], t["game"], t["system"], t["planned_rounds"], t["time_control"]) == (
        "Club Swiss", "chess", "swiss", 3, "300+3")
    assert (t["tiebreaks"], t["tiebreak_edition"]) == (["BH-C1", "SB", "BH"], "fide2024")
    expect(page.locator(f'#events-table tr[data-tournament-id="{TID}"]')).to_contain_text("Club Swiss")

    # the event's page: a player by the form
    page.click("#created-link")
    expect(page.locator("#event-name")).to_have_text("Club Swiss", timeout=WAIT_MS)
    page.fill("#f-reg-player_id", "al")
    page.fill("#f-reg-name", "Al Brandt")
    page.fill("#f-reg-rating", "2300")
    page.click("#register-form button[type=submit]")
    expect(page.locator('#players-table tr[data-player-id="al"]')).to_contain_text("Al Brandt", timeout=WAIT_MS)
    # five by CSV: the row with rating "abc" is left out, named by its line
    page.fill("#csv-text", CSV)
    page.click("#csv-read")
    expect(page.locator("#import-errors li")).to_have_text(["line 5: rating: Input should be a valid integer (invalid)"],
                                                           timeout=WAIT_MS)
    expect(page.locator("#import-table tbody tr")).to_have_count(4)
    # the preview shows the club column the CSV gives
    expect(page.locator('#import-table tr[data-player-id="bo"]')).to_contain_text("Hilltop CC")
    expect(page.locator("#import-table thead")).to_contain_text("Club")
    page.click("#import-register")
    expect(page.locator("#players-table tbody tr")).to_have_count(5, timeout=WAIT_MS)
    shot(page, "organiser-players-desktop")
    players = {p["player_id"]: (p["name"], p["rating"]) for p in _get(d, f"/tournaments/{TID}")["players"]}
    assert players == {"al": ("Al Brandt", 2300), "bo": ("Bo Li", 2210), "cy": ("Cyrus Adams", 2050),
                       "di": ("Dina Weiss", 1980), "fu": ("Fu Ming", 1875)}

    # round 1, paired by the Dutch system: five players, two boards and the bye
    page.click('.tabs a[href="#pairing"]')
    page.click("#pair-auto")
    expect(page.locator("#outcome")).to_contain_text("Round 1 paired.", timeout=WAIT_MS)
    rd = _get(d, f"/tournaments/{TID}")["rounds"][0]
    assert len(rd["boards"]) == 2 and rd["bye"] == "fu"  # the lowest-rated of an odd field
    expect(page.locator('table.pairings[data-round="1"] tbody tr')).to_have_count(2, timeout=WAIT_MS)
    shot(page, "organiser-pairing-desktop")
    # finishing while round 1 runs is refused, with the reason and code
    page.click('.tabs a[href="#finish"]')
    page.fill("#f-fin-reason", "testing the refusal")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#finish-event")
    expect(page.locator("#outcome")).to_contain_text("Refused", timeout=WAIT_MS)
    assert _get(d, f"/tournaments/{TID}")["status"] == "running"

    # the lobby shows round 1's pairings as the API has them
    page.click("#lobby-link")
    expect(page.locator("#event-name")).to_have_text("Club Swiss", timeout=WAIT_MS)
    page.click('.tabs a[href="#rounds"]')
    rows = page.locator('table.pairings[data-round="1"] tbody tr')
    expect(rows).to_have_count(2, timeout=WAIT_MS)
    names = {"al": "Al Brandt", "bo": "Bo Li", "cy": "Cyrus Adams", "di": "Dina Weiss", "fu": "Fu Ming"}
    for i, b in enumerate(rd["boards"]):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[:3] == [str(b["board"]), names[b["white"]], names[b["black"]]]
    expect(page.locator("#rounds")).to_contain_text("bye: Fu Ming")
    # round 1 runs: no round is completed, no standings rank the crosstable yet
    page.click('.tabs a[href="#crosstable"]')
    expect(page.locator("#crosstable-note")).to_have_text(
        "Score: the points of the games finished so far; Rank: none yet, no round is completed.", timeout=WAIT_MS)
    # a game of the event names its players as registered, as the lobby does
    b = rd["boards"][0]
    page.goto(f"{d.url}/ui/games/{b['game_id']}?lang=en")
    expect(page.locator("#title")).to_contain_text(f"{names[b['white']]} – {names[b['black']]}", timeout=WAIT_MS)
    expect(page.locator("#bottom-name")).to_have_text(f"{names[b['white']]} (white)")
    page.close()


def test_the_organiser_pages_in_chinese_and_at_phone_width(browser, live_demo, shot):
    d = live_demo
    page = _organiser_page(browser, d, lang="zh", viewport=PHONE)
    expect(page.locator("h1")).to_have_text("我的赛事", timeout=WAIT_MS)
    expect(page.locator('label[for="f-name"]')).to_have_text("赛事名称")
    expect(page.locator("#f-system option[value=swiss]")).to_have_text("瑞士制")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]  # no sideways scroll
    shot(page, "organiser-events-zh-phone")
    page.click("#lang")  # the switch: English at once
    expect(page.locator("h1")).to_have_text("My events")
    shot(page, "organiser-events-phone")
    page.close()
    page = _organiser_page(browser, d, path=f"/ui/organiser/{d.events[0]}", lang="zh", viewport=DESKTOP)
    expect(page.locator("#event-name")).to_have_text("Arbiter Open 1", timeout=WAIT_MS)
    expect(page.locator(".tabs a").first).to_have_text("棋手")
    page.click('.tabs a[href="#players"]')
    expect(page.locator("#register-form label").first).to_have_text("棋手编号")
    shot(page, "organiser-event-zh-desktop")
    page.click('.tabs a[href="#pairing"]')
    shot(page, "organiser-pairing-zh-desktop")
    page.close()
    page = _organiser_page(browser, d, path=f"/ui/organiser/{d.events[0]}", lang="zh", viewport=PHONE)
    expect(page.locator("#event-name")).to_have_text("Arbiter Open 1", timeout=WAIT_MS)
    page.click('.tabs a[href="#players"]')
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "organiser-event-zh-phone")
    page.close()


def test_lots_tokens_and_a_pairing_by_hand(browser, live_demo, shot):
    """A round robin of four: the organiser records the lots drawn in the page, issues and
    prints the players' tokens, and pairs round 1 by hand; the API has what the page sent."""
    import jwt

    d = live_demo
    auth = {"authorization": f"Bearer {d.tokens['organiser']}"}
    tid, ids = "club-rr", ["ann", "ben", "cat", "dan"]
    r = httpx.post(f"{d.url}/tournaments", headers=auth, timeout=30,
                   json={"tournament_id": tid, "name": "Club RR", "system": "round-robin", "time_control": "600+5"})
    assert r.status_code == 200, r.text
    for i, pid in enumerate(ids):
        r = httpx.post(f"{d.url}/tournaments/{tid}/players", headers=auth, timeout=30,
                       json={"player_id": pid, "name": pid.title(), "rating": 2000 - 10 * i})
        assert r.status_code == 200, r.text
    page = _organiser_page(browser, d, path=f"/ui/organiser/{tid}")
    expect(page.locator("#players-table tbody tr")).to_have_count(4, timeout=WAIT_MS)
    # lots: drawn in the browser, recorded as the page shows them
    page.click('.tabs a[href="#lots"]')
    page.click("#draw-random")
    shown = {pid: int(page.input_value(f"#lot-{pid}")) for pid in ids}
    assert sorted(shown.values()) == [1, 2, 3, 4]
    page.click("#record-lots")
    expect(page.locator("#outcome")).to_have_text("Lots recorded.", timeout=WAIT_MS)
    assert {p["player_id"]: p["number"] for p in _get(d, f"/tournaments/{tid}")["players"]} == shown
    # tokens: one a player, scoped to this event, each card with its sign-in link
    page.click('.tabs a[href="#tokens"]')
    page.click("#issue-tokens")
    cards = page.locator(".token-card")
    expect(cards).to_have_count(4, timeout=WAIT_MS)
    link = cards.first.locator(".token a")
    prefix = f"{d.url}/ui/tournaments/{tid}?token="
    href = link.get_attribute("href")
    assert href.startswith(prefix) and link.inner_text() == href  # printed, the link is readable
    claims = jwt.decode(href[len(prefix):], options={"verify_signature": False})
    assert (claims["role"], claims["sub"], claims["events"]) == ("player", cards.first.get_attribute("data-player-id"), [tid])
    shot(page, "organiser-tokens-desktop")
    page.close()
    # round 1 by hand, at phone width: ann-dan and cat-ben
    page = _organiser_page(browser, d, path=f"/ui/organiser/{tid}", viewport=PHONE)
    page.goto(f"{d.url}/ui/organiser/{tid}?lang=en#pairing")
    expect(page.locator("#pair-auto")).to_have_text("Pair round 1 (round-robin)", timeout=WAIT_MS)
    expect(page.locator("#pairing > details.byes")).to_be_hidden()  # a round robin pairs everyone
    page.click("details.manual summary")
    page.select_option("#mw-1", "ann")
    page.select_option("#mb-1", "dan")
    page.select_option("#mw-2", "cat")
    page.select_option("#mb-2", "ben")
    page.click("#manual-pair")  # without its reason: the page asks for it, nothing is sent
    expect(page.locator("#outcome")).to_have_attribute("data-code", "reason-required", timeout=WAIT_MS)
    expect(page.locator("#f-manual-reason")).to_be_focused()
    assert _get(d, f"/tournaments/{tid}")["rounds"] == []
    page.fill("#f-manual-reason", "ann and dan travel together and leave early")
    shot(page, "organiser-manual-phone")
    page.click("#manual-pair")
    expect(page.locator("#outcome")).to_contain_text("Round 1 paired by hand.", timeout=WAIT_MS)
    rd = _get(d, f"/tournaments/{tid}")["rounds"][0]
    assert (rd["manual"], rd["reason"]) == (True, "ann and dan travel together and leave early")
    expect(page.locator("#rounds-paired")).to_contain_text("paired by hand: ann and dan travel together and leave early")
    page.goto(f"{d.url}/ui/tournaments/{tid}?lang=en#rounds")  # the lobby shows the reason too
    expect(page.locator("#rounds")).to_contain_text("paired by hand: ann and dan travel together and leave early",
                                                    timeout=WAIT_MS)
    page.goto(f"{d.url}/ui/organiser/{tid}?lang=en#pairing")
    assert [(b["white"], b["black"]) for b in rd["boards"]] == [("ann", "dan"), ("cat", "ben")]
    expect(page.locator('table.pairings[data-round="1"] tbody tr')).to_have_count(2, timeout=WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.close()


def test_players_imported_from_a_trf_file(browser, live_demo, shared_data, shot):
    """A real FIDE TRF-16 file (lichess's Mai 5+0 Swiss, 13 players) read by the project's TRF
    reader on the gateway; the page registers its players in start-number order."""
    from shared.domain.trf import read_trf

    d = live_demo
    path = shared_data("data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf")
    auth = {"authorization": f"Bearer {d.tokens['organiser']}"}
    r = httpx.post(f"{d.url}/tournaments", headers=auth, timeout=30,
                   json={"tournament_id": "mai", "name": "Mai 5+0", "system": "swiss", "rounds": 10})
    assert r.status_code == 200, r.text
    page = _organiser_page(browser, d, path="/ui/organiser/mai")
    expect(page.locator("#event-name")).to_have_text("Mai 5+0", timeout=WAIT_MS)
    page.set_input_files("#trf-file", str(path))
    page.click("#trf-read")
    expect(page.locator("#import-table tbody tr")).to_have_count(13, timeout=WAIT_MS)
    page.click("#import-register")
    expect(page.locator("#players-table tbody tr")).to_have_count(13, timeout=WAIT_MS)
    assert [p["name"] for p in _get(d, "/tournaments/mai")["players"]] == [p.name for p in read_trf(path).players]
    page.close()


def test_an_unpublished_event_started_on_command_and_its_exports(browser, live_demo, shot):
    """Created from the form with its clocks starting on command and unpublished; round 1 is
    paired (its games wait), started from the page (its clocks run), and its TRF and a game's
    PGN are downloaded with the organiser's token (anonymous reads are refused: 401)."""
    d = live_demo
    tid = "club-cmd"
    auth = {"authorization": f"Bearer {d.tokens['organiser']}"}
    page = _organiser_page(browser, d)
    expect(page.locator("#who")).to_have_text("organiser1 · organiser", timeout=WAIT_MS)
    page.fill("#f-name", "Club Rapid")
    page.fill("#f-tournament_id", tid)
    page.select_option("#f-system", "round-robin")
    expect(page.locator("#f-round_start option")).to_have_text(["with the pairing", "on command (Start round)"])
    page.select_option("#f-round_start", "on-command")
    page.uncheck("#f-public")
    page.click("#create-form button[type=submit]")
    expect(page.locator("#create-outcome")).to_contain_text(f"Created: {tid}.", timeout=WAIT_MS)
    t = httpx.get(f"{d.url}/tournaments/{tid}", headers=auth, timeout=10).json()
    assert (t["round_start"], t["public"]) == ("on-command", False)
    assert httpx.get(f"{d.url}/tournaments/{tid}", timeout=10).json()["code"] == "read-scope"
    names = {"kim": "Kim Ode", "lea": "Lea Marr", "max": "Max Holt", "nia": "Nia Berg"}
    for i, (pid, name) in enumerate(names.items()):
        r = httpx.post(f"{d.url}/tournaments/{tid}/players", headers=auth, timeout=30,
                       json={"player_id": pid, "name": name, "rating": 2100 - 50 * i})
        assert r.status_code == 200, r.text

    page.goto(f"{d.url}/ui/organiser/{tid}?lang=en#pairing")  # the page reads it with the token
    expect(page.locator("#event-facts")).to_contain_text("clocks start on command · unpublished", timeout=WAIT_MS)
    page.click("#pair-auto")
    expect(page.locator("#start-round")).to_have_text("Start round 1", timeout=WAIT_MS)
    expect(page.locator("#rounds-paired")).to_contain_text("its clocks wait for the start")
    rd = httpx.get(f"{d.url}/tournaments/{tid}", headers=auth, timeout=10).json()["rounds"][0]
    gid = rd["boards"][0]["game_id"]
    game = httpx.get(f"{d.url}/games/{gid}", headers=auth, timeout=10).json()
    assert (rd["begun"], game["waiting"], game["clock"]["running"]) == (False, True, None)
    shot(page, "organiser-start-round-desktop")
    page.click("#start-round")
    expect(page.locator("#outcome")).to_contain_text("Round 1 started: its clocks run.", timeout=WAIT_MS)
    expect(page.locator("#start-round")).to_have_count(0, timeout=WAIT_MS)
    assert httpx.get(f"{d.url}/tournaments/{tid}", headers=auth, timeout=10).json()["rounds"][0]["begun"] is True
    game = httpx.get(f"{d.url}/games/{gid}", headers=auth, timeout=10).json()
    assert (game["waiting"], game["clock"]["running"]) == (False, "white")

    # the exports: fetched with the token (an anonymous read is 401), saved from a Blob
    assert httpx.get(f"{d.url}/tournaments/{tid}/trf", timeout=10).status_code == 401
    page.click('.tabs a[href="#exports"]')
    with page.expect_download() as dl:
        page.click("#export-trf")
    assert dl.value.suggested_filename == f"{tid}.trf"
    trf = open(dl.value.path(), encoding="utf-8").read()
    players = [line for line in trf.splitlines() if line.startswith("001")]
    assert len(players) == 4 and all(any(n in line for line in players) for n in names.values())
    assert trf.splitlines()[0] == "012 Club Rapid"
    expect(page.locator("#outcome")).to_have_text(f"Downloaded: {tid}.trf.")
    expect(page.locator("#export-games tbody tr")).to_have_count(2)
    with page.expect_download() as dl:
        page.click(f"#export-{gid}")
    assert dl.value.suggested_filename == f"{gid}.pgn"
    pgn = open(dl.value.path(), encoding="utf-8").read()
    assert f'[White "{names[rd["boards"][0]["white"]]}"]' in pgn and '[Event "Club Rapid"]' in pgn  # names
    shot(page, "organiser-exports-desktop")
    page.close()
    page = _organiser_page(browser, d, path=f"/ui/organiser/{tid}", lang="zh", viewport=PHONE)
    page.goto(f"{d.url}/ui/organiser/{tid}#exports")
    expect(page.locator("#export-trf")).to_have_text("赛事报告（TRF）", timeout=WAIT_MS)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    shot(page, "organiser-exports-zh-phone")
    page.close()

    # the unpublished event's lobby and game page open signed in (a link sends no token: the
    # pages are shells whose scripts read with the one the browser keeps); anonymous, the
    # lobby says why it shows nothing
    page = _organiser_page(browser, d, path=f"/ui/tournaments/{tid}")
    expect(page.locator("#event-facts")).not_to_contain_text("not public", timeout=WAIT_MS)
    expect(page.locator("main")).to_contain_text(names[rd["boards"][0]["white"]], timeout=WAIT_MS)
    page.goto(f"{d.url}/ui/games/{gid}?lang=en")
    expect(page.locator(".cm-chessboard")).to_have_count(1, timeout=WAIT_MS)
    page.close()
    page = browser.new_page(viewport=DESKTOP)
    page.goto(f"{d.url}/ui/tournaments/{tid}?lang=en")
    expect(page.locator("#event-facts")).to_contain_text("not public", timeout=WAIT_MS)
    page.close()


def test_the_index_links_to_the_officials_pages(browser, live_demo, shot):
    d = live_demo
    page = browser.new_page(viewport=PHONE)
    page.goto(f"{d.url}/?lang=en&token={d.tokens['organiser']}")
    mine = page.locator('#officials li[data-role="organiser"]')
    expect(mine).to_have_class("mine", timeout=WAIT_MS)
    expect(mine.locator(".hint")).to_have_text("signed in as organiser1 (organiser)")
    other = page.locator('#officials li[data-role="arbiter"]')
    expect(other.locator(".hint")).to_have_text("sign in there with a token of role arbiter")
    expect(other.locator("a")).to_have_attribute("href", "/ui/arbiter")
    page.click("#lang")
    expect(mine.locator("a")).to_have_text("组织者页面")
    shot(page, "organiser-index-zh-phone")
    mine.locator("a").click()
    expect(page.locator("h1")).to_have_text("我的赛事", timeout=WAIT_MS)
    page.close()


@pytest.mark.parametrize("live_demo", ["xiangqi", "go"], indirect=True)
def test_game_records_in_the_games_own_format(browser, live_demo, shot):
    """The exports of the demo's xiangqi event (every game's PGN in WXF notation, read back by
    the project's xiangqi PGN reader) and Go event (a game's SGF, no event PGN)."""
    from shared.rules.xiangqi_record import parse_pgn

    d = live_demo
    tid = d.events[0]
    page = _organiser_page(browser, d, path=f"/ui/organiser/{tid}")
    page.goto(f"{d.url}/ui/organiser/{tid}?lang=en#exports")
    rows = page.locator("#export-games tbody tr")
    expect(rows.first).to_be_visible(timeout=WAIT_MS)
    gid = rows.first.get_attribute("data-game-id")
    if _get(d, f"/tournaments/{tid}")["game"] == "xiangqi":
        page.select_option("#export-notation", "wxf")
        with page.expect_download() as dl:
            page.click("#export-pgn")
        assert dl.value.suggested_filename == f"{tid}-wxf.pgn"
        records = parse_pgn(open(dl.value.path(), encoding="utf-8").read())
        assert len(records) == rows.count() and all(r.headers.get("Format") == "WXF" for r in records)
        shot(page, "organiser-exports-xiangqi-desktop")
    else:
        expect(page.locator("#export-pgn")).to_have_count(0)  # Go's records are SGF, one a game
        with page.expect_download() as dl:
            page.click(f"#export-{gid}")
        assert dl.value.suggested_filename == f"{gid}.sgf"
        sgf = open(dl.value.path(), encoding="utf-8").read()
        assert sgf.startswith("(;") and "FF[4]" in sgf and f"EV[{tid}]" in sgf
    page.close()
