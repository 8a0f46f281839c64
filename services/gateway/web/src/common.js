// What every page needs: who the visitor is, the gateway's commands, its clock, and formatting.
import {t, codeText} from "./i18n.js"

const TOKEN_KEY = "arbiter.token"
const AS_KEY = "arbiter.as"

function claims(token) {
    try {
        const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")
        return JSON.parse(atob(part + "===".slice((part.length + 3) % 4)))
    } catch (e) {
        return null
    }
}

// The visitor: a bearer token (?token=..., kept in localStorage; its `sub` and `role` are read,
// the gateway checks its signature) or, on a gateway without identity, a player id (?as=...).
// ?token= or ?as= empty signs out. The token is taken out of the address once kept, so it does
// not stay in the browser's history or a copied link.
export function identity() {
    const q = new URLSearchParams(location.search)
    for (const [param, key] of [["token", TOKEN_KEY], ["as", AS_KEY]]) {
        if (q.has(param)) {
            if (q.get(param)) localStorage.setItem(key, q.get(param))
            else localStorage.removeItem(key)
        }
    }
    if (q.has("token")) {
        q.delete("token")
        const rest = q.toString()
        history.replaceState(null, "", location.pathname + (rest ? `?${rest}` : "") + location.hash)
    }
    const token = localStorage.getItem(TOKEN_KEY)
    const c = token ? claims(token) : null
    if (c) return {token, sub: c.sub, role: c.role}
    const as = localStorage.getItem(AS_KEY)
    return as ? {token: null, sub: as, role: "player"} : {token: null, sub: null, role: null}
}

// POST a command; {ok, data}: the decision or the refusal's {detail, code, payload}
export async function api(path, body, token) {
    const headers = {"content-type": "application/json"}
    if (token) headers.authorization = `Bearer ${token}`
    const r = await fetch(path, {method: "POST", headers, body: JSON.stringify(body)})
    let data
    try { data = await r.json() } catch (e) { data = {detail: `${r.status} ${r.statusText}`} }
    return {ok: r.ok, status: r.status, data}
}

// GET path with the visitor's bearer token (an unpublished event's reads need it, and the
// private scope, e.g. the organiser's, sees its players' private fields and registrations)
export function getWithToken(path) {
    const {token} = identity()
    return fetch(path, token ? {headers: {authorization: `Bearer ${token}`}} : {})
}

// The gateway's epoch ms minus ours (the clocks' deadlines are in the gateway's time)
export async function serverClock() {
    const t0 = Date.now()
    const r = await fetch("/ui/now")
    const {now_ms} = await r.json()
    return now_ms - (t0 + Date.now()) / 2
}

export function formatClock(ms) {
    const s = Math.floor(ms / 1000)
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60
    const pad = (n) => String(n).padStart(2, "0")
    const base = h ? `${h}:${pad(m)}:${pad(sec)}` : `${m}:${pad(sec)}`
    return ms < 10000 ? `${base}.${Math.floor((ms % 1000) / 100)}` : base
}

// in the visitor's language: "white" / "black" / "red" (xiangqi's white seat)
export function seatWord(g, side) {
    return t(g.game === "xiangqi" && side === "white" ? "red" : side)
}

// "White" / "Black" / "Red" (xiangqi: Red sits in the white seat), capitalised, in the visitor's language
export function sideName(g, side) {
    if (g.game === "xiangqi") return t(side === "white" ? "Red" : "Black")
    return t(side === "white" ? "White" : "Black")
}

// An ended game's result: "Game over: 1-0 (reason)"
export function resultLine(g) {
    return t("Game over: {result}", {result: g.result || t("result pending")}) + (g.reason ? ` (${t(g.reason)})` : "")
}

// An ended game's result and, where the decision names one, its rule (a .rule span)
export function endOf(g) {
    return [resultLine(g), g.rule ? el("span", {className: "rule", textContent: describeRule(g.rule)}) : null]
        .filter((x) => x != null)
}

// a 棋例 ruling's verdict (RepetitionRuled) in words: "Red loses", "Black must vary", "draw"
export function verdictOf(g, ruling) {
    if (ruling.verdict.endsWith("-loses")) return t("{side} loses", {side: sideName(g, ruling.verdict.split("-")[0])})
    if (ruling.verdict === "must-vary") return t("{side} must vary", {side: sideName(g, ruling.must_vary)})
    return t(ruling.verdict)
}

// A refused command's answer {detail, code, payload} as a line: "Refused (code): detail (rule)";
// in Chinese the code with its meaning (codeText)
export function refusalText(data) {
    const detail = typeof data.detail === "string" ? data.detail : JSON.stringify(data.detail)
    const rule = data.payload && data.payload.rule ? ` (${describeRule(data.payload.rule)})` : ""
    return `${t("Refused")}${data.code ? ` (${codeText(data.code)})` : ""}: ${detail}${rule}`
}

export function describeRule(rule) {
    if (!rule) return ""
    return `${rule.game} ${rule.ruleset} art. ${rule.article}${rule.summary ? ": " + rule.summary : ""}`
}

// fn, run one call at a time: calls made while it runs cause one more run after it (so a burst
// of stream messages costs at most two reads, and the last read is after the last message)
export function coalesced(fn) {
    let running = null, again = false
    return function run() {
        if (running) { again = true; return running }
        running = (async () => {
            try {
                do { again = false; await fn() } while (again)
            } finally { running = null }
        })()
        return running
    }
}

// An SSE stream (`url`) whose messages of the given types (each an SSE event name) call onMessage
// (EventSource sends no headers: the visitor's token goes as ?access_token=, RFC 6750 2.3)
export function followStream(url, types, onMessage) {
    const {token} = identity()
    const es = new EventSource(token ? `${url}${url.includes("?") ? "&" : "?"}access_token=${encodeURIComponent(token)}` : url)
    es.onmessage = onMessage
    for (const type of types) es.addEventListener(type, onMessage)
    return es
}

// A side's clock in game view g: {ms, running} (ms null: no reading); the running clock counts
// down to the clock service's deadline_ms, in the gateway's time (offset: serverClock())
// Go byo-yomi (clock.overtime): the deadline counts the periods left after the main time, so the
// running clock shows the main time left, then the current period's; `periods`: the periods
// left (counting the current one in overtime), `period_ms` their length; null without byo-yomi
export function clockOf(g, side, offset) {
    const c = g.clock
    let ms = c[`${side}_ms`]
    const running = c.running === side && g.status === "ongoing"
    const ot = c.overtime && c.overtime.kind === "byo-yomi" ? c.overtime : null
    let periods = ot ? (c[`${side}_periods_left`] ?? ot.count) : null
    if (running && c.deadline_ms != null) {
        const total = c.deadline_ms - (Date.now() + offset)
        ms = total
        if (ot) {
            const reserve = periods * ot.length_ms
            if (total > reserve && ms > 0 && c[`${side}_ms`] > 0) ms = total - reserve
            else if (total > 0) { periods = Math.ceil(total / ot.length_ms); ms = total - (periods - 1) * ot.length_ms }
        }
    }
    return {ms: ms == null ? null : Math.max(0, ms), running, periods, period_ms: ot ? ot.length_ms : null}
}

// Shows clockOf(g, side, offset) in element el (text, .running, .low); byo-yomi: "10:00 · 5×30s"
export function showClock(el, g, side, offset) {
    const {ms, running, periods, period_ms} = clockOf(g, side, offset)
    el.textContent = (ms == null ? "–" : formatClock(ms))
        + (periods != null ? ` · ${periods}×${Math.round(period_ms / 1000)}s` : "")
    el.classList.toggle("running", running)
    el.classList.toggle("low", ms != null && ms < 10000 && running)
}

// Shows the section `current` of `ids` (elements by id), hides the others, and marks its link
// in the page's .tabs (aria-current="page")
export function showTabs(ids, current) {
    for (const id of ids) document.getElementById(id).hidden = id !== current
    for (const a of document.querySelectorAll(".tabs a")) {
        if (a.hash === `#${current}`) a.setAttribute("aria-current", "page")
        else a.removeAttribute("aria-current")
    }
}

// An element: el("a", {href: ...}, child, ...) (strings become text)
export function el(tag, attrs = {}, ...children) {
    const e = Object.assign(document.createElement(tag), attrs)
    e.append(...children.filter((c) => c != null))
    return e
}

// What a paired round's table does not show (GET /tournaments/{tid}'s round r), each a text: paired
// by hand (with its reason), its clocks waiting for the start (round_start on-command), its byes
export function roundNotes(r, nameOf) {
    return [r.manual ? (r.reason ? `${t("paired by hand")}: ${r.reason}` : t("paired by hand")) : null,
        r.begun === false ? t("its clocks wait for the start") : null,
        r.bye ? t("bye: {player}", {player: nameOf(r.bye)}) : null,
        ...Object.entries(r.requested_byes || {}).map(([pid, kind]) => `${t("bye: {player}", {player: nameOf(pid)})} (${kind})`)]
        .filter(Boolean)
}

// A seat's player as the pages name him: the name his event registered (GET /games/{gid}
// white_name / black_name), else his player id, else "?"
export function playerName(g, side) {
    return g[`${side}_name`] || g[side] || "?"
}

// "white – black", by their names (playerName)
export function playersOf(g) {
    return `${playerName(g, "white")} – ${playerName(g, "black")}`
}

// The game's title: "white – black", with a link to its event's lobby (round, board) if any
export function titleOf(g) {
    const out = [playersOf(g)]
    if (g.tournament_id) out.push(" · ", el("a", {href: `/ui/tournaments/${encodeURIComponent(g.tournament_id)}`, className: "event-link"},
        t("{event} round {round} board {board}", {event: g.tournament_id, round: g.round, board: g.board})))
    return out
}

// The move list of game view g in ol (<li> per move number: White's, Black's ply; Go's first
// is Black's), each ply a .ply with data-ply (SAN, Chinese notation with WXF as its title,
// GTP). With onPick, each ply is a button that calls onPick(ply) and ply `current` is marked.
export function renderMoves(ol, g, current = null, onPick = null) {
    ol.replaceChildren()
    let li = null
    const first = g.game === "go" ? "black" : "white"  // who opens a numbered move
    for (const m of g.moves) {
        if (m.colour === first || !li) {
            li = el("li")
            ol.append(li)
            if (m.colour !== first) li.append(el("span", {className: "ply", textContent: "…"}))
        }
        const ply = el(onPick ? "button" : "span", {className: "ply", textContent: m.san || m.uci})
        ply.dataset.ply = m.ply
        if (m.wxf) ply.title = m.wxf
        if (onPick) {
            ply.type = "button"
            ply.addEventListener("click", () => onPick(m.ply))
            if (m.ply === current) ply.setAttribute("aria-current", "step")
        }
        li.append(ply)
    }
    if (current == null) ol.scrollTop = ol.scrollHeight
}
