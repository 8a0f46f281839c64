// The game page (/ui/games/{gid}): board, clocks, move list, a player's commands, live over the
// gateway's SSE stream of the game. The read model (GET /games/{gid}) is the truth: every event
// of the stream makes the page read it again; a refusal is shown from the command's answer.
import {createBoard, toMove} from "./boards.js"
import {identity, api, serverClock, describeRule, coalesced, followStream, getWithToken, refusalText, showClock, titleOf, playerName, playersOf, renderMoves, seatWord, sideName, endOf, el, verdictOf} from "./common.js"
import {t, codeText, setupLanguage} from "./i18n.js"

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

// POST a command of this game; a refusal is shown (#refusal) unless shownElsewhere(answer)
async function command(path, body, shownElsewhere = () => false) {
    showRefusal(null)
    const {ok, data} = await api(`/games/${encodeURIComponent(gid)}${path}`, body, me.token)
    if (!ok && !shownElsewhere(data)) showRefusal(refusalText(data))
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

// ---- Go dead stones (Japanese rules 1989 art. 9, Chinese 1988 art. 8): while they are settled
// a player clicks stones to mark them dead (any stone of a group: the proposal is whole groups)
// and proposes them; the opponent accepts, or play resumes
let marks = null   // the points this player has marked, null outside the phase

function syncMarks(g) {
    const scoring = g.go && g.go.phase === "scoring" && myColour && g.status === "ongoing"
    if (!scoring) marks = null
    else if (marks === null) marks = new Set((g.go.proposals || {})[myColour] || [])
}

function toggleDead(point) {
    if (marks === null) return
    if (marks.has(point)) marks.delete(point)
    else marks.add(point)
    board.update(game, myColour, [...marks])
    $("marked-dead").textContent = [...marks].sort().join(" ") || t("none")
}

// Whether this player may offer a draw now, as the game service decides (services/validation
// core.py, OfferDraw): Go has no offers, nor is one made while an offer is pending; in xiangqi
// (1999 rules art. 23.1) only right after one's own move (the opponent to move) and not twice
// running (the latest offer, answered or not, must be the opponent's)
function mayOfferDraw(g) {
    if (g.game === "go" || g.draw_offer) return false
    if (g.game !== "xiangqi") return true
    return g.moves.length > 0 && toMove(g) !== myColour && (g.last_draw_offer || {}).colour !== myColour
}

function renderActions(g) {
    const live = myColour && g.status === "ongoing"
    $("actions").hidden = !live
    $("move-form").hidden = !live
    const offered = g.draw_offer && g.draw_offer.colour !== myColour
    $("accept-draw").hidden = !offered
    $("decline-draw").hidden = !offered
    $("offer-draw").hidden = !mayOfferDraw(g)
    const go = g.go || {}
    $("pass").hidden = g.game !== "go" || go.phase !== "play"
    const proposed = go.phase === "scoring" && Object.keys(go.proposals || {}).some((c) => c !== myColour)
    $("accept-dead").hidden = $("reject-dead").hidden = !proposed
    $("dead-form").hidden = !(live && go.phase === "scoring")
    if (marks !== null) $("marked-dead").textContent = [...marks].sort().join(" ") || t("none")
}

// ---- draw claims (chess FIDE 1994 art. 10.10, 10.12) and xiangqi requests (1999 art. 4.2.4, 24)
// the claims a player of game g may make: [reason, label]
function claimReasons(g) {
    if (g.game === "chess") return [["threefold", t("Threefold repetition (art. 10.10)")],
        ["fifty-moves", t("50 moves without a capture or pawn move (art. 10.12)")]]
    if (g.game !== "xiangqi") return []
    const out = [["natural-limit", t("Natural move limit without a capture (art. 4.2.4)")]]
    if (g.repetition_rulings === "on-request") out.push(["repetition", t("The 棋例 ruling on a position repeated three times (art. 24)")])
    return out
}

// chess: only the player to move claims (art. 10.10, 10.12); xiangqi: either player (23.3, 24)
function renderClaimForm(g) {
    const reasons = claimReasons(g)
    const mayClaim = myColour && g.status === "ongoing" && reasons.length && (g.game !== "chess" || toMove(g) === myColour)
    $("claim-form").hidden = !mayClaim
    if (!mayClaim) return
    const select = $("claim-reason"), chosen = select.value
    select.replaceChildren(...reasons.map(([value, label]) => el("option", {value, textContent: label})))
    if (reasons.some(([value]) => value === chosen)) select.value = chosen
    $("claim-legend").textContent = t(g.game === "chess" ? "Claim a draw" : "Claim a draw or ask for the 棋例 ruling")
    $("claim-move-field").hidden = g.game !== "chess"
    $("claim-hint").textContent = t(g.game === "chess"
        ? "Only the player to move claims. With a move written here, the claim is about the position after it and the move is not played (art. 10.10(1)). An incorrect claim costs 5 minutes (art. 10.13(2))."
        : "Either player may claim. An untrue natural-limit claim is a foul and costs 5 minutes (art. 23.3); a ruling asked for before the third repetition is refused without a foul.")
}

// claim c of game g (GET /games/{gid} claims[]) and its outcome, as a sentence
function claimText(g, c) {
    const vars = {side: sideName(g, c.colour), reason: t(c.reason), result: g.result, code: c.code && codeText(c.code), detail: c.answer && c.answer.detail}
    if (c.outcome === "upheld") return t("{side}'s claim upheld ({reason}): {result}", vars)
    if (c.outcome === "rejected") return t("{side}'s claim refused ({reason}, {code}): {detail}", vars)
    if (c.outcome === "ruled") return t("棋例 ruling asked for by {side}: {verdict}; {detail}", {...vars, verdict: verdictOf(g, c.answer)})
    return t("{side} claims: {reason}; waiting for the decision", vars)
}

// the game's latest claim, with the article of its answer (upheld: the status shows it)
function renderClaimOutcome(g) {
    const box = $("claim-outcome"), c = (g.claims || []).at(-1)
    box.hidden = !c
    if (!c) return
    const rule = c.outcome !== "upheld" && c.answer && c.answer.rule
    box.replaceChildren(claimText(g, c), rule ? el("span", {className: "rule", textContent: describeRule(rule)}) : "")
    box.dataset.outcome = c.outcome
    box.classList.toggle("good", c.outcome === "upheld")
    box.classList.toggle("bad", c.outcome === "rejected")
}

function claim() {
    const body = {player_id: me.sub, reason: $("claim-reason").value}
    const move = $("claim-move").value.trim()
    if (move && game.game === "chess") body.move = move
    // a claim the adjudication refused (DrawClaimRejected, 409) is shown with the claim
    return command("/draw/claim", body, (data) => data.event === "DrawClaimRejected").then((ok) => {
        if (ok && $("claim-move").value.trim() === move) $("claim-move").value = ""
    })
}

function seatNames(g) {
    const bottom = myColour === "black" ? "black" : "white"
    const top = bottom === "white" ? "black" : "white"
    $("top-name").textContent = `${playerName(g, top)} (${seatWord(g, top)})`
    $("bottom-name").textContent = `${playerName(g, bottom)} (${seatWord(g, bottom)})`
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
    document.title = `${playersOf(g)} · Arbiter`
    $("title").replaceChildren(...titleOf(g))
    $("who").textContent = me.sub ? `${me.sub} (${myColour ? seatWord(g, myColour) : t(me.role)})` : t("spectator")
    $("move-input").placeholder = PLACEHOLDERS[g.game]
    seatNames(g)
    if (!board) board = createBoard($("board"), g, myColour === "black" ? "black" : "white", submitMove, toggleDead)
    syncMarks(g)
    board.update(g, g.status === "ongoing" ? myColour : null, marks ? [...marks] : null)
    $("board").dataset.fen = g.fen
    renderMoves($("moves"), g)
    renderStatus(g)
    renderActions(g)
    renderClaimForm(g)
    renderClaimOutcome(g)
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
    // cleared once played, unless the player has typed the next move meanwhile
    if (mv) submitMove(mv).then((ok) => { if (ok && input.value.trim() === mv) input.value = "" })
})
$("claim-form").addEventListener("submit", (e) => {
    e.preventDefault()
    claim()
})
$("offer-draw").addEventListener("click", () => command("/draw/offer", {player_id: me.sub}))
$("accept-draw").addEventListener("click", () => command("/draw/accept", {player_id: me.sub}))
$("decline-draw").addEventListener("click", () => command("/draw/decline", {player_id: me.sub}))
$("pass").addEventListener("click", () => submitMove("pass"))
$("accept-dead").addEventListener("click", () => command("/dead/accept", {player_id: me.sub}))
$("reject-dead").addEventListener("click", () => command("/dead/reject", {player_id: me.sub}))
$("propose-dead").addEventListener("click", () => command("/dead", {player_id: me.sub, dead: [...(marks || [])]}))
$("resign").addEventListener("click", () => {
    if (confirm(t("Resign this game?"))) command("/resign", {player_id: me.sub})
})

setupLanguage(() => { if (game) render(game) })
serverClock().then((off) => { clockOffset = off })
setInterval(renderClocks, 200)
refresh().then(follow)
