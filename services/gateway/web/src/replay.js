// The replay viewer (/ui/games/{gid}/replay): any game, move by move, from the positions its log
// records (each MoveAccepted's fen_after, GET /games/{gid}/events?follow=false) and the game view
// (GET /games/{gid}: players, moves in the game's notation, clocks after each move, result).
// Buttons and keys: Left/Right a move back/forward, Home/End the start/the last position.
import {createBoard, atPosition} from "./boards.js"
import {formatClock, titleOf, playerName, playersOf, renderMoves, seatWord, endOf, getWithToken} from "./common.js"
import {t, setupLanguage} from "./i18n.js"

const parts = location.pathname.split("/").filter(Boolean)
const gid = decodeURIComponent(parts[parts.length - 2])
const $ = (id) => document.getElementById(id)
const enc = encodeURIComponent

let game = null          // GET /games/{gid}
let positions = []       // positions[i]: the position after i moves (0: the start)
let board = null
let step = 0

// positions[0..n] from the start position and the log's MoveAccepted messages (by ply)
function positionsOf(g, messages) {
    const after = new Map()
    for (const m of messages) if (m.type === "MoveAccepted") after.set(m.payload.ply, m.payload.fen_after)
    return [g.start_fen, ...g.moves.map((m) => after.get(m.ply))]
}

function renderClocks() {
    const m = game.moves[step - 1]
    for (const [id, side] of [["top-clock", "black"], ["bottom-clock", "white"]]) {
        const ms = m ? m[`${side}_ms`] : null
        $(id).textContent = ms == null ? "–" : formatClock(ms)
    }
}

function show(i) {
    step = Math.max(0, Math.min(positions.length - 1, i))
    const last = step === positions.length - 1
    board.update(atPosition(game, positions[step], last), null)
    $("board").dataset.fen = positions[step]
    $("board").dataset.step = step
    $("ply").textContent = t("move {n} of {of}", {n: step, of: positions.length - 1})
    $("first").disabled = $("prev").disabled = step === 0
    $("next").disabled = $("last").disabled = last
    renderMoves($("moves"), game, step, show)
    const cur = $("moves").querySelector(`[data-ply="${step}"]`)
    if (cur) cur.scrollIntoView({block: "nearest"})
    renderClocks()
}

function renderStatus() {
    const s = $("status")
    s.replaceChildren()
    if (game.status === "ended") {
        s.append(...endOf(game))
    } else {
        s.append(t("The game is not over: this replay shows its moves so far."))
    }
    const live = Object.assign(document.createElement("a"), {href: `/ui/games/${enc(gid)}`, textContent: t("Game page")})
    $("links").replaceChildren(live)
}

function render() {
    document.title = `${t("Replay")}: ${playersOf(game)} · Arbiter`
    $("title").replaceChildren(`${t("Replay")}: `, ...titleOf(game))
    $("top-name").textContent = `${playerName(game, "black")} (${seatWord(game, "black")})`
    $("bottom-name").textContent = `${playerName(game, "white")} (${seatWord(game, "white")})`
    renderStatus()
    show(step)
}

function onKey(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) return
    const to = {ArrowLeft: step - 1, ArrowRight: step + 1, Home: 0, End: positions.length - 1}[e.key]
    if (to === undefined) return
    e.preventDefault()
    show(to)
}

async function load() {
    const [r, log] = await Promise.all([getWithToken(`/games/${enc(gid)}`), getWithToken(`/games/${enc(gid)}/events?follow=false`)])
    if (!r.ok || !log.ok) {
        $("status").textContent = (await (r.ok ? log : r).json()).detail
        return
    }
    game = await r.json()
    positions = positionsOf(game, await log.json())
    board = createBoard($("board"), atPosition(game, positions[0], false), "white", () => {})
    step = positions.length - 1  // a finished game opens on its last position
    render()
}

$("first").addEventListener("click", () => show(0))
$("prev").addEventListener("click", () => show(step - 1))
$("next").addEventListener("click", () => show(step + 1))
$("last").addEventListener("click", () => show(positions.length - 1))
document.addEventListener("keydown", onKey)
setupLanguage(() => { if (game) render() })
load()
