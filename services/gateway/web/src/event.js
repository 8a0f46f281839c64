// The event lobby (/ui/tournaments/{tid}): live boards with both clocks, rounds and pairings
// with results, standings with the tie-breaks explained, the crosstable. The read model is the
// truth: each message of the event's SSE stream makes the page read GET /tournaments/{tid}, its
// standings and crosstable again; each live board reads its game on each message of the game's.
import {createBoard} from "./boards.js"
import {serverClock, showClock, coalesced, followStream, getWithToken, el, resultLine, roundNotes, showTabs} from "./common.js"
import {t, setupLanguage} from "./i18n.js"

const main = document.querySelector("main")
const tid = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop())
const legend = JSON.parse(main.dataset.legend)   // the event's tie-break codes explained (ui.py)
const gameEvents = main.dataset.gameEvents.split(" ")
const $ = (id) => document.getElementById(id)
const enc = encodeURIComponent
const TABS = ["live", "rounds", "standings", "crosstable"]
// Boards followed live, each over its game's SSE stream: a browser opens at most 6 connections
// to one host over HTTP/1.1, and the event's stream and the page's reads need theirs.
const LIVE_BOARDS = 4

let event = null, standings = null, crosstable = null
let clockOffset = 0
const cards = new Map()   // game id -> {root, board, game, stream, refresh}

const gameHref = (gid) => `/ui/games/${enc(gid)}`
const replayHref = (gid) => `${gameHref(gid)}/replay`

function nameOf(pid) {
    const p = event && event.players.find((x) => x.player_id === pid)
    return p ? p.name : pid
}

// a number as the API gives it, to two decimals at most (1.5, 2, 6.25)
function num(v) {
    return v == null ? "" : String(Math.round(v * 100) / 100)
}

function latestRound() {
    return event && event.rounds.length ? event.rounds[event.rounds.length - 1] : null
}

// ------------------------------------------------------------------------------------- tabs
function currentTab() {
    const id = location.hash.slice(1)
    if (TABS.includes(id)) return id
    const r = latestRound()
    return r && r.boards.some((b) => b.status === "ongoing") ? "live" : "rounds"
}

function showTab() {
    showTabs(TABS, currentTab())
}

// ------------------------------------------------------------------------------------ facts
function renderFacts() {
    $("event-name").textContent = event.name || event.tournament_id
    document.title = `${event.name || event.tournament_id} · Arbiter`
    $("title").textContent = event.tournament_id
    const r = latestRound()
    const rounds = r ? (event.planned_rounds ? t("round {n} of {of}", {n: r.round, of: event.planned_rounds})
                                            : t("round {n}", {n: r.round})) : t("not paired yet")
    $("event-facts").textContent = [t(event.game), t(event.system), event.time_control, t(event.status), rounds,
        t("{n} players", {n: event.players.length})].filter(Boolean).join(" · ")
}

// ----------------------------------------------------------------------------------- rounds
function resultText(b) {
    if (b.code) return b.code
    if (b.result) return b.result
    return t(b.status || "created")
}

function boardRow(b) {
    const ended = b.status === "ended" || b.code
    const result = ended ? el("a", {href: replayHref(b.game_id), title: t("Replay")}, resultText(b))
                         : el("a", {href: gameHref(b.game_id)}, resultText(b))
    const tr = el("tr", {}, el("td", {}, el("a", {href: gameHref(b.game_id)}, String(b.board))),
        el("td", {}, nameOf(b.white)), el("td", {}, nameOf(b.black)),
        el("td", {className: "result"}, result, b.reason ? el("span", {className: "reason"}, ` ${t(b.reason)}`) : null))
    tr.dataset.gameId = b.game_id
    return tr
}

function renderRounds() {
    const sec = $("rounds")
    sec.replaceChildren()
    if (!event.rounds.length) sec.append(el("p", {className: "note"}, t("No round paired yet.")))
    for (const r of [...event.rounds].reverse()) {
        const head = el("tr", {}, ...["Board", "White", "Black", "Result"].map((h) => el("th", {}, t(h))))
        const table = el("table", {className: "pairings"}, el("thead", {}, head), el("tbody", {}, ...r.boards.map(boardRow)))
        table.dataset.round = r.round
        const extra = roundNotes(r, nameOf)
        sec.append(el("h2", {}, t("Round {n}", {n: r.round})), el("div", {className: "scroll"}, table))
        if (extra.length) sec.append(el("p", {className: "note"}, extra.join("; ")))
    }
}

// ------------------------------------------------------------------------------ live boards
function liveBoards() {
    const r = latestRound()
    if (!r) return []
    const ongoing = r.boards.filter((b) => b.status === "ongoing")
    const rest = r.boards.filter((b) => b.status !== "ongoing")
    return [...ongoing, ...rest].slice(0, LIVE_BOARDS).sort((a, b) => a.board - b.board)
}

function newCard(b) {
    const side = (s) => el("div", {className: `player ${s === "black" ? "top" : "bottom"}`},
        el("span", {className: "name"}), el("span", {className: "clock", role: "timer"}))
    const boardEl = el("div", {className: "board mini"})
    const root = el("article", {className: "live-card"}, el("h3", {}, el("a", {href: gameHref(b.game_id)})),
        side("black"), boardEl, side("white"), el("p", {className: "card-status"}))
    root.dataset.gameId = b.game_id
    root.querySelector(".top .clock").dataset.side = "black"
    root.querySelector(".bottom .clock").dataset.side = "white"
    const card = {root, boardEl, board: null, game: null, stream: null}
    card.refresh = coalesced(async () => {
        const r = await getWithToken(`/games/${enc(b.game_id)}`)
        if (r.ok) renderCard(card, await r.json())
    })
    card.stream = followStream(`/games/${enc(b.game_id)}/events`, gameEvents, card.refresh)
    return card
}

// the card's text that does not come from its game: board number and names (the language)
function labelCard(card, b) {
    card.root.querySelector("h3 a").textContent = t("Board {n}", {n: b.board})
    card.root.querySelector(".top .name").textContent = nameOf(b.black)
    card.root.querySelector(".bottom .name").textContent = nameOf(b.white)
}

function renderCard(card, g) {
    const was = card.game
    card.game = g
    if (!card.board) card.board = createBoard(card.boardEl, g, "white", () => {})
    card.board.update(g, null)
    card.boardEl.dataset.fen = g.fen
    card.root.dataset.plies = g.moves.length
    const last = g.moves[g.moves.length - 1]
    const status = card.root.querySelector(".card-status")
    if (g.status === "ended") {
        status.replaceChildren(el("a", {href: replayHref(g.game_id)}, resultLine(g)))
        if (card.stream) { card.stream.close(); card.stream = null }
        if (was && was.status !== "ended") refreshEvent()  // its result, at once
    } else {
        status.textContent = last ? t("{n} moves, last {move}", {n: g.moves.length, move: last.san || last.uci}) : t(g.status)
    }
    renderCardClocks(card)
}

function renderCardClocks(card) {
    if (!card.game) return
    for (const c of card.root.querySelectorAll(".clock")) showClock(c, card.game, c.dataset.side, clockOffset)
}

function renderLive() {
    const want = liveBoards()
    const ids = new Set(want.map((b) => b.game_id))
    for (const [gid, card] of cards) {
        if (!ids.has(gid)) {
            if (card.stream) card.stream.close()
            card.root.remove()
            cards.delete(gid)
        }
    }
    for (const b of want) {
        if (!cards.has(b.game_id)) {
            const card = newCard(b)
            cards.set(b.game_id, card)
            card.refresh()
        }
    }
    for (const b of want) labelCard(cards.get(b.game_id), b)
    $("live-boards").replaceChildren(...want.map((b) => cards.get(b.game_id).root))
    const r = latestRound()
    const more = r ? r.boards.filter((b) => b.status === "ongoing" && !ids.has(b.game_id)).length : 0
    $("live-note").textContent = !r ? t("No round paired yet.")
        : more ? t("{n} more games in progress: see Rounds.", {n: more})
        : want.some((b) => b.status === "ongoing") ? "" : t("No game in progress.")
}

// -------------------------------------------------------------------------------- standings
function codeTitle(code) {
    const m = legend.codes[code]
    if (!m || !m.meaning) return code
    return `${t(m.meaning)}${m.cut ? "; " + t(m.cut) : ""} (${m.source}${m.cut_source ? ", " + m.cut_source : ""})`
}

function renderStandings() {
    const s = standings
    const order = s.order || []
    const head = el("tr", {}, ...["Rank", "Player", "Score", "Played"].map((h) => el("th", {}, t(h))),
        ...order.map((code) => el("th", {title: codeTitle(code)}, el("abbr", {title: codeTitle(code)}, code))))
    const rows = (s.rows || []).map((r) => {
        const tr = el("tr", {}, el("td", {}, String(r.rank)), el("td", {}, r.name || r.player_id), el("td", {}, num(r.score)),
                      el("td", {}, String(r.games)), ...order.map((code) => el("td", {}, num(r.tiebreaks[code]))))
        tr.dataset.playerId = r.player_id
        return tr
    })
    $("standings-table").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows))
    $("standings-note").textContent = s.withheld ? t("The standings of a later round were withheld: {why}", {why: s.withheld})
        : rows.length ? t("After round {n}", {n: s.round})
        : t("No standings yet: they are published once every game of a round has ended.")
    renderLegend(order)
}

function renderLegend(order) {
    const ed = legend.edition
    $("edition").textContent = ed.key ? t("Tie-break regulations: {edition}", {edition: ed.key}) + (ed.source ? ` (${t(ed.source)})` : "")
        : t("No FIDE tie-break edition: the event ranks by the rules named below.")
    $("edition").dataset.edition = ed.key || ""
    $("legend").replaceChildren(...order.flatMap((code) => {
        const m = legend.codes[code] || {}
        const dd = el("dd", {}, m.meaning ? `${t(m.meaning)}${m.cut ? "; " + t(m.cut) : ""}` : t("no description"),
            m.source ? el("span", {className: "source"}, ` (${m.source}${m.cut_source ? ", " + m.cut_source : ""})`) : null)
        return [el("dt", {}, code), dd]
    }))
}

// ------------------------------------------------------------------------------- crosstable
function renderCrosstable() {
    const c = crosstable
    const head = el("tr", {}, el("th", {}, t("No.")), el("th", {}, t("Player")), el("th", {}, t("Rating")),
        ...c.rounds.map((n) => el("th", {}, t("R{n}", {n}))), el("th", {}, t("Score")), el("th", {}, t("Rank")))
    const rows = c.rows.map((r) => {
        const tr = el("tr", {}, el("td", {}, String(r.number)), el("td", {}, r.name || r.player_id), el("td", {}, r.rating == null ? "" : String(r.rating)),
            ...c.rounds.map((_, i) => el("td", {className: "cell"}, r.cells[i] || "")), el("td", {}, num(r.score)),
            el("td", {}, r.rank == null ? "" : String(r.rank)))
        tr.dataset.playerId = r.player_id
        return tr
    })
    $("crosstable-table").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows))
    const ranked = standings && standings.round > 0 ? standings.round : null   // the last round completed
    $("crosstable-note").textContent = ranked
        ? t("Score: the points of the games finished so far; Rank: the latest standings' (after round {n}).", {n: ranked})
        : t("Score: the points of the games finished so far; Rank: none yet, no round is completed.")
}

// ------------------------------------------------------------------------------------- load
function render() {
    if (!event) return
    renderFacts()
    renderRounds()
    renderLive()
    if (standings) renderStandings()
    if (crosstable) renderCrosstable()
    showTab()
}

async function read(path) {
    const r = await getWithToken(`/tournaments/${enc(tid)}${path}`)
    if (!r.ok) throw new Error((await r.json()).detail)
    return r.json()
}

const refreshEvent = coalesced(async () => {
    try {
        [event, standings, crosstable] = await Promise.all([read(""), read("/standings"), read("/crosstable")])
        render()
    } catch (e) {
        $("event-facts").textContent = String(e.message || e)
    }
})

window.addEventListener("hashchange", showTab)
setupLanguage(() => {
    render()
    for (const card of cards.values()) if (card.game) renderCard(card, card.game)
})
serverClock().then((off) => { clockOffset = off })
setInterval(() => { for (const card of cards.values()) renderCardClocks(card) }, 200)
refreshEvent().then(() => followStream(`/tournaments/${enc(tid)}/events`, main.dataset.events.split(" "), refreshEvent))
