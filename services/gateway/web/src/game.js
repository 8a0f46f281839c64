// The game page (/ui/games/{gid}): board, clocks, move list, a player's commands, live over the
// gateway's SSE stream of the game. The read model (GET /games/{gid}) is the truth: every event
// of the stream makes the page read it again; a refusal is shown from the command's answer.
import {Chessboard, COLOR, INPUT_EVENT_TYPE} from "cm-chessboard/src/Chessboard.js"
import {Markers} from "cm-chessboard/src/extensions/markers/Markers.js"
import {PromotionDialog, PROMOTION_DIALOG_RESULT_TYPE} from "cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js"
import {identity, api, serverClock, formatClock, describeRule} from "./common.js"

const gid = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop())
const $ = (id) => document.getElementById(id)
const me = identity()
let game = null        // the last GET /games/{gid}
let board = null
let inputEnabled = false
let myColour = null    // "white" / "black" when the signed-in player plays this game
let clockOffset = 0    // server epoch ms minus local epoch ms

function seatOf(g) {
    if (!me.sub) return null
    if (g.white === me.sub) return "white"
    if (g.black === me.sub) return "black"
    return null
}

function toMove(g) {
    return g.fen.split(" ")[1] === "b" ? "black" : "white"
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
        showRefusal(`Refused${data.code ? " (" + data.code + ")" : ""}: ${detail}${rule}`)
    }
    await refresh()
    return ok
}

function submitMove(move) {
    return command("/moves", {player_id: me.sub, move})
}

function onMoveInput(event) {
    if (event.type === INPUT_EVENT_TYPE.moveInputStarted) {
        return !!event.piece && event.piece.charAt(0) === myColour.charAt(0) && toMove(game) === myColour
    }
    if (event.type !== INPUT_EVENT_TYPE.validateMoveInput) return true
    const {squareFrom, squareTo, piece} = event
    const lastRank = myColour === "white" ? "8" : "1"
    if (piece.charAt(1) === "p" && squareTo.charAt(1) === lastRank) {
        board.showPromotionDialog(squareTo, myColour === "white" ? COLOR.white : COLOR.black, (r) => {
            if (r.type === PROMOTION_DIALOG_RESULT_TYPE.pieceSelected) {
                submitMove(squareFrom + squareTo + r.piece.charAt(1))
            } else {
                board.setPosition(game.fen, false)
            }
        })
        return true
    }
    submitMove(squareFrom + squareTo)
    return true  // shown at once; the read model puts it back if the move is refused
}

function renderMoves(g) {
    const ol = $("moves")
    ol.replaceChildren()
    let li = null
    for (const m of g.moves) {
        if (m.colour === "white" || !li) {
            li = document.createElement("li")
            ol.append(li)
            if (m.colour === "black") li.append(Object.assign(document.createElement("span"), {className: "ply", textContent: "…"}))
        }
        const span = document.createElement("span")
        span.className = "ply"
        span.dataset.ply = m.ply
        span.textContent = m.san || m.uci
        li.append(span)
    }
    ol.scrollTop = ol.scrollHeight
}

function renderStatus(g) {
    const el = $("status")
    el.replaceChildren()
    if (g.status === "ended") {
        el.append(`Game over: ${g.result || "result pending"}${g.reason ? " (" + g.reason + ")" : ""}`)
        if (g.rule) {
            el.append(Object.assign(document.createElement("span"), {className: "rule", textContent: describeRule(g.rule)}))
        }
    } else if (g.status === "created") {
        el.append("Waiting for the game to start")
    } else {
        const side = toMove(g)
        el.append(`${side === "white" ? "White" : "Black"} to move${myColour === side ? " (you)" : ""}`)
        if (g.draw_offer) el.append(Object.assign(document.createElement("span"), {className: "rule",
            textContent: `${g.draw_offer.colour} offers a draw`}))
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
}

function seatNames(g) {
    const bottom = myColour === "black" ? "black" : "white"
    const top = bottom === "white" ? "black" : "white"
    $("top-name").textContent = `${g[top] || "?"} (${top})`
    $("bottom-name").textContent = `${g[bottom] || "?"} (${bottom})`
    $("top-clock").dataset.side = top
    $("bottom-clock").dataset.side = bottom
}

function renderClocks() {
    if (!game) return
    const c = game.clock
    for (const el of [$("top-clock"), $("bottom-clock")]) {
        const side = el.dataset.side
        let ms = c[`${side}_ms`]
        const running = c.running === side && game.status === "ongoing"
        if (running && c.deadline_ms != null) ms = c.deadline_ms - (Date.now() + clockOffset)
        el.textContent = ms == null ? "–" : formatClock(Math.max(0, ms))
        el.classList.toggle("running", running)
        el.classList.toggle("low", ms != null && ms < 10000 && running)
    }
}

function render(g) {
    game = g
    myColour = seatOf(g)
    document.title = `${g.white} – ${g.black} · Arbiter`
    $("title").textContent = `${g.white} – ${g.black}${g.tournament_id ? ` · ${g.tournament_id} round ${g.round} board ${g.board}` : ""}`
    $("who").textContent = me.sub ? `${me.sub} (${myColour || me.role || "spectator"})` : "spectator"
    seatNames(g)
    if (g.game === "chess") {
        if (!board) {
            board = new Chessboard($("board"), {
                position: g.fen, assetsUrl: "/ui/static/cm-chessboard/",
                orientation: myColour === "black" ? COLOR.black : COLOR.white,
                style: {cssClass: "default", borderType: "thin", animationDuration: 150},
                extensions: [{class: Markers, props: {autoMarkers: null}}, {class: PromotionDialog}],
            })
        } else if (board.getPosition() !== g.fen.split(" ")[0]) {
            board.setPosition(g.fen, true)
        }
        $("board").dataset.fen = g.fen
        const input = !!myColour && g.status === "ongoing"
        if (input !== inputEnabled) {  // cm-chessboard refuses to enable its input twice
            if (input) board.enableMoveInput(onMoveInput, myColour === "white" ? COLOR.white : COLOR.black)
            else board.disableMoveInput()
            inputEnabled = input
        }
    } else {
        $("board").textContent = `The ${g.game} board is not drawn yet; position: ${g.fen}`
    }
    renderMoves(g)
    renderStatus(g)
    renderActions(g)
    renderClocks()
}

let refreshing = null, again = false
async function refresh() {
    // one read at a time; events that come during a read cause one more read after it
    if (refreshing) { again = true; return refreshing }
    refreshing = (async () => {
        do {
            again = false
            const r = await fetch(`/games/${encodeURIComponent(gid)}`)
            if (r.ok) render(await r.json())
            else $("status").textContent = (await r.json()).detail
        } while (again)
        refreshing = null
    })()
    return refreshing
}

function follow() {
    const es = new EventSource(`/games/${encodeURIComponent(gid)}/events`)
    es.onmessage = refresh
    // every message type is its own SSE event name
    for (const t of ["MoveAccepted", "MoveRejected", "ClockStarted", "ClockUpdated", "ClockStopped",
                     "ClockAdjusted", "FlagFell", "GameStarted", "GameEnded", "DrawOffered",
                     "DrawOfferDeclined", "DrawAgreed", "Resigned", "ResultRecorded", "PenaltyApplied",
                     "ResultCorrected", "RepetitionRuled"]) {
        es.addEventListener(t, refresh)
    }
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
$("resign").addEventListener("click", () => {
    if (confirm("Resign this game?")) command("/resign", {player_id: me.sub})
})

serverClock().then((off) => { clockOffset = off })
setInterval(renderClocks, 200)
refresh().then(follow)
