// The game page (/ui/games/{gid}): board, clocks, move list, a player's commands, live over the
// gateway's SSE stream of the game. The read model (GET /games/{gid}) is the truth: every event
// of the stream makes the page read it again; a refusal is shown from the command's answer.
import {createBoard, toMove} from "./boards.js"
import {identity, api, serverClock, describeRule, coalesced, followStream, getWithToken, showClock, titleOf, renderMoves, seatWord, sideName, endOf} from "./common.js"
import {t, setupLanguage} from "./i18n.js"

const gid = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop())
const $ = (id) => document.getElementById(id)
const me = identity()
let game = null        // the last GET /games/{gid}
let board = null
let myColour = null    // "white" / "black" when the signed-in player plays this game
let clockOffset = 0    // server epoch ms minus local epoch ms

function seatOf(g) {
    if (!me.sub) return null
    if (g.white === me.sub) return "white"
    if (g.black === me.sub) return "black"
    return null
}

function showRefusal(text) {
    const el = $("refusal")
    el.textContent = text || ""
    el.hidden = !text
}

async function command(path, body) {
    showRefusal(null)
    const {ok, data} = await api(`/games/${encodeURIComponent(gid)}${path}`, body, me.token)
    if (!ok) {
        const rule = data.payload && data.payload.rule ? ` (${describeRule(data.payload.rule)})` : ""
        const detail = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail)
        showRefusal(`${t("Refused")}${data.code ? " (" + data.code + ")" : ""}: ${detail}${rule}`)
    }
    await refresh()
    return ok
}

function submitMove(move) {
    return command("/moves", {player_id: me.sub, move})
}

// the notations the gateway reads, as examples
const PLACEHOLDERS = {chess: "e4, Nf3, e7e8q", xiangqi: "h2e2, C2.5, 炮二平五", go: "D4, pass"}

function renderStatus(g) {
    const el = $("status")
    el.replaceChildren()
    if (g.status === "ended") {
        el.append(...endOf(g))
        el.append(" ", Object.assign(document.createElement("a"), {id: "replay-link", href: `/ui/games/${encodeURIComponent(g.game_id)}/replay`, textContent: t("Replay")}))
    } else if (g.status === "created") {
        el.append(t("Waiting for the game to start"))
    } else {
        const side = toMove(g)
        el.append(t("{side} to move", {side: sideName(g, side)}) + (myColour === side ? t(" (you)") : ""))
        if (g.go && g.go.phase !== "play") el.append(Object.assign(document.createElement("span"), {className: "rule",
            textContent: `${t(g.go.phase)}: ` + (Object.entries(g.go.proposals || {})
                .map(([c, dead]) => t("{side} proposes as dead: {stones}", {side: seatWord(g, c), stones: dead.join(" ") || t("none")}))
                .join("; ") || t("no proposal yet"))}))
        if (g.draw_offer) el.append(Object.assign(document.createElement("span"), {className: "rule",
            textContent: t("{side} offers a draw", {side: sideName(g, g.draw_offer.colour)})}))
    }
    el.dataset.result = g.result || ""
}

function renderActions(g) {
    const live = myColour && g.status === "ongoing"
    $("actions").hidden = !live
    $("move-form").hidden = !live
    const offered = g.draw_offer && g.draw_offer.colour !== myColour
    $("accept-draw").hidden = !offered
    $("decline-draw").hidden = !offered
    $("offer-draw").hidden = !!offered
    const go = g.go || {}
    $("pass").hidden = g.game !== "go" || go.phase !== "play"
    const proposed = go.phase === "scoring" && Object.keys(go.proposals || {}).some((c) => c !== myColour)
    $("accept-dead").hidden = $("reject-dead").hidden = !proposed
}

function seatNames(g) {
    const bottom = myColour === "black" ? "black" : "white"
    const top = bottom === "white" ? "black" : "white"
    $("top-name").textContent = `${g[top] || "?"} (${seatWord(g, top)})`
    $("bottom-name").textContent = `${g[bottom] || "?"} (${seatWord(g, bottom)})`
    $("top-clock").dataset.side = top
    $("bottom-clock").dataset.side = bottom
}

function renderClocks() {
    if (!game) return
    for (const el of [$("top-clock"), $("bottom-clock")]) showClock(el, game, el.dataset.side, clockOffset)
}

function render(g) {
    game = g
    myColour = seatOf(g)
    document.title = `${g.white} – ${g.black} · Arbiter`
    $("title").replaceChildren(...titleOf(g))
    $("who").textContent = me.sub ? `${me.sub} (${myColour ? seatWord(g, myColour) : t(me.role)})` : t("spectator")
    $("move-input").placeholder = PLACEHOLDERS[g.game]
    seatNames(g)
    if (!board) board = createBoard($("board"), g, myColour === "black" ? "black" : "white", submitMove)
    board.update(g, g.status === "ongoing" ? myColour : null)
    $("board").dataset.fen = g.fen
    renderMoves($("moves"), g)
    renderStatus(g)
    renderActions(g)
    renderClocks()
}

// one read at a time; events that come during a read cause one more read after it
const refresh = coalesced(async () => {
    const r = await getWithToken(`/games/${encodeURIComponent(gid)}`)
    if (r.ok) render(await r.json())
    else $("status").textContent = (await r.json()).detail
})

function follow() {
    // every message type is its own SSE event name; the page names the game events (ui.py)
    followStream(`/games/${encodeURIComponent(gid)}/events`, document.querySelector("main").dataset.events.split(" "), refresh)
}

$("move-form").addEventListener("submit", (e) => {
    e.preventDefault()
    const input = $("move-input")
    const mv = input.value.trim()
    if (mv) submitMove(mv).then((ok) => { if (ok) input.value = "" })
})
$("offer-draw").addEventListener("click", () => command("/draw/offer", {player_id: me.sub}))
$("accept-draw").addEventListener("click", () => command("/draw/accept", {player_id: me.sub}))
$("decline-draw").addEventListener("click", () => command("/draw/decline", {player_id: me.sub}))
$("pass").addEventListener("click", () => submitMove("pass"))
$("accept-dead").addEventListener("click", () => command("/dead/accept", {player_id: me.sub}))
$("reject-dead").addEventListener("click", () => command("/dead/reject", {player_id: me.sub}))
$("resign").addEventListener("click", () => {
    if (confirm(t("Resign this game?"))) command("/resign", {player_id: me.sub})
})

setupLanguage(() => { if (game) render(game) })
serverClock().then((off) => { clockOffset = off })
setInterval(renderClocks, 200)
refresh().then(follow)
