// The arbiter console (/ui/arbiter[?event=T]): what needs the arbiter now, each item with its
// game's facts (position, last moves, clocks) and the articles involved, and the forms that rule
// through the gateway's arbiter endpoints with the signed-in arbiter's token (a refusal is shown
// with its reason and code); a game's audit (GET /games/{gid}/audit) in a dialog. The read model
// is the truth: the page reads GET /arbiter/attention again after every action and every 3 s.
import {createBoard} from "./boards.js"
import {identity, api, describeRule, coalesced, el, formatClock, seatWord, sideName, serverClock, clockOf, getWithToken, refusalText, verdictOf} from "./common.js"
import {t, setupLanguage, addStrings} from "./i18n.js"
import {ZH_CONSOLE} from "./console-i18n.js"

addStrings(ZH_CONSOLE)
const $ = (id) => document.getElementById(id)
const enc = encodeURIComponent
const me = identity()
const POLL_MS = 3000
let items = []
let force = false            // the next read goes ahead even while a form has the focus
let shownText = ""           // the items shown, as read
let changed = false          // a refusal to show: render even if the items are the same
let filter = new URLSearchParams(location.search).get("event") || ""
const refusals = new Map()   // item key -> the last refusal's text (kept across re-renders)
const drafts = new Map()     // input id -> what the arbiter typed (kept across re-renders)

async function get(path) {
    const r = await getWithToken(path)
    let data
    try { data = await r.json() } catch (e) { data = {detail: `${r.status} ${r.statusText}`} }
    return {ok: r.ok, status: r.status, data}
}

const keyOf = (i) => `${i.kind}:${i.game_id}:${i.at_ms || ""}`

// POST an arbiter command for item i; a refusal is kept to show on the item
async function act(i, path, body) {
    const {ok, data} = await api(`/games/${enc(i.game_id)}${path}`, body, me.token)
    if (ok && data.outcome !== "rejected") refusals.delete(keyOf(i))
    else refusals.set(keyOf(i), refusalText(data))
    force = changed = true
    await refresh()
    return ok
}

function articles(i) {
    return el("ul", {className: "articles", ariaLabel: t("articles")},
        ...i.articles.map((r) => el("li", {className: "rule"}, describeRule(r))))
}

let clockOffset = 0   // the gateway's epoch ms minus ours

// both clocks of game facts g; the running one counts down (tick() every 200 ms)
function clocks(g) {
    const out = el("span", {className: "clocks"})
    for (const s of ["white", "black"]) {
        const span = el("span", {className: "clock-of"})
        span.dataset.side = s
        span.game = g
        out.append(span, s === "white" ? " · " : "")
    }
    tick(out)
    return out
}

function tick(root = document) {
    for (const span of root.querySelectorAll(".clock-of")) {
        const g = span.game, s = span.dataset.side
        const {ms, running} = clockOf(g, s, clockOffset)
        span.textContent = `${seatWord(g, s)} ${ms == null ? "–" : formatClock(ms)}${running ? " ▶" : ""}`
    }
}

function gameFacts(g) {
    const where = g.tournament_id ? ` · ${t("{event} round {round} board {board}", {event: g.tournament_id, round: g.round, board: g.board})}` : ""
    const moves = g.moves.map((m) => m.san || m.uci).join(" ")
    return el("dl", {className: "facts-list"},
        el("dt", {}, t("game")), el("dd", {}, `${t(g.game)} · ${g.white} – ${g.black}${where}`),
        el("dt", {}, t("status")), el("dd", {}, `${t(g.status)}${g.result ? " " + g.result : ""}${g.reason ? " (" + t(g.reason) + ")" : ""}`),
        el("dt", {}, t("clocks")), el("dd", {}, clocks(g)),
        el("dt", {}, t("moves")), el("dd", {className: "last-moves"}, g.plies > g.moves.length ? `… ${moves}` : moves || "–"),
        g.game !== "go" ? el("dt", {}, "FEN") : null, g.game !== "go" ? el("dd", {className: "fen"}, g.fen) : null,
        g.penalties.length ? el("dt", {}, t("penalties")) : null,
        g.penalties.length ? el("dd", {className: "penalties"}, g.penalties.map((p) => `${t(p.kind)} ${p.player_id} (${describeRule(p.rule)})`).join("; ")) : null)
}

// the kind's own facts, as a sentence
function kindFacts(i) {
    const f = i.facts, g = i.game
    switch (i.kind) {
    case "claim": return t("{player} ({side}) claims: {reason}, after move {ply}", {player: f.player_id, side: sideName(g, f.colour), reason: t(f.reason), ply: f.ply})
        + ` — ${t(f.outcome)}` + (f.answer ? `: ${f.answer.verdict ? verdictOf(g, f.answer) + "; " : ""}${f.answer.detail || ""}` : "")
    case "repetition": return t("The position has occurred {n} times; rulings on request: {player} ({side}) to move.", {n: f.repetitions, player: f.player_id, side: sideName(g, f.to_move)})
    case "ruling": return `${verdictOf(g, f)}: ${f.detail}`
    case "dead-stones": return Object.entries(f.proposals || {}).map(([c, d]) => t("{side} proposes as dead: {stones}", {side: sideName(g, c), stones: d.join(" ") || t("none")})).join("; ")
        + (f.arbiter_called ? ` ${t("The arbiter was called")}: ${t(f.arbiter_called.reason)} ${f.arbiter_called.detail || ""}` : "")
        + (f.ruling ? `. ${t("Ruled")}: ${(f.dead || []).join(" ")} — ${f.ruling.reason}` : "")
    case "cycle": return t("The position after move {ply} occurred {n} times (a cycle of {len} moves; stones taken: black {b}, white {w}).", {ply: f.ply, n: f.occurrences, len: f.length, b: f.captured_black, w: f.captured_white})
        + (f.ruled ? ` ${t("Ruled")}: ${t(f.ruled.ruling)} — ${f.ruled.reason}` : "")
    case "absence": return f.report ? `${t(f.report)}: ${f.player_id} (${sideName(g, f.colour)})${f.late_ms != null ? " " + t("late {s} s", {s: Math.round(f.late_ms / 1000)}) : ""}`
        : t("{player} ({side}) has not moved; the default time ({s} s) has passed.", {player: f.player_id, side: sideName(g, f.colour), s: f.default_time_s})
    case "flag": return t("{side}'s flag fell", {side: sideName(g, f.colour)}) + ` (${seatWord(g, "white")} ${formatClock(f.white_ms)} · ${seatWord(g, "black")} ${formatClock(f.black_ms)})`
    }
    return ""
}

// input helpers: a labelled field whose value survives re-renders
function field(id, label, input) {
    input.id = id
    if (drafts.has(id)) input.value = drafts.get(id)
    input.addEventListener("input", () => drafts.set(id, input.value))
    return el("label", {htmlFor: id, className: "field"}, el("span", {}, t(label)), input)
}

function options(values, label = (v) => t(v)) {
    return values.map((v) => el("option", {value: v}, label(v)))
}

function form(id, title, fields, submit, onSubmit) {
    const f = el("form", {id, className: "action-form"}, el("h4", {}, t(title)), ...fields,
        el("button", {type: "submit"}, t(submit)))
    f.addEventListener("submit", (e) => { e.preventDefault(); onSubmit(f) })
    return f
}

const clear = (...ids) => ids.forEach((id) => drafts.delete(id))

function deadForm(i, board) {
    const id = `dead-${i.game_id}`
    const points = el("input", {autocomplete: "off", placeholder: "C3 E2"})
    const reason = el("input", {autocomplete: "off"})
    const take = Object.entries(i.facts.proposals || {}).map(([c, d]) => {
        const b = el("button", {type: "button", className: "take"}, t("Take {side}'s proposal", {side: sideName(i.game, c)}))
        b.addEventListener("click", () => { points.value = d.join(" "); drafts.set(`${id}-points`, points.value); show() })
        return b
    })
    const show = () => board && board.update(boardGame(i, points.value.split(/[\s,]+/).filter(Boolean)), null)
    points.addEventListener("input", show)
    const f = form(id, "Rule the dead stones", [el("div", {className: "takes"}, ...take),
        field(`${id}-points`, "Dead stones (GTP points)", points), field(`${id}-reason`, "Reason", reason)],
    "Rule", () => act(i, "/dead/ruling", {dead: points.value.split(/[\s,]+/).filter(Boolean), reason: reason.value.trim()})
        .then((ok) => ok && clear(`${id}-points`, `${id}-reason`)))
    return f
}

function cycleForm(i) {
    const id = `cycle-${i.game_id}`
    const ruling = el("select", {}, ...options(["draw", "replay", "no-result"]))
    const reason = el("input", {autocomplete: "off"})
    return form(id, "Rule the endless cycle", [field(`${id}-ruling`, "Ruling", ruling), field(`${id}-reason`, "Reason", reason)],
        "Rule", () => act(i, "/cycle/ruling", {ruling: ruling.value, reason: reason.value.trim()}))
}

function resultForm(i) {
    const id = `result-${i.game_id}`
    const result = el("select", {}, ...options(["1-0", "0-1", "1/2-1/2", "0-0"], (v) => v))
    const reason = el("input", {autocomplete: "off"})
    return form(id, "Enter a result", [field(`${id}-result`, "Result", result), field(`${id}-reason`, "Reason", reason)],
        "Enter the result", () => act(i, "/result", {result: result.value, reason: reason.value.trim() || "arbiter"}))
}

function penaltyForm(i) {
    const id = `penalty-${i.game_id}`, g = i.game
    const who = el("select", {}, ...options([g.white, g.black], (v) => `${v} (${seatWord(g, v === g.white ? "white" : "black")})`))
    const kind = el("select", {}, ...options(["warning", "time-penalty", "time-bonus", "foul", "loss", "played-twice"]))
    const secs = el("input", {type: "number", min: "0", value: "0", inputMode: "numeric"})
    const note = el("input", {autocomplete: "off"})
    return form(id, "Penalty", [field(`${id}-who`, "Player", who), field(`${id}-kind`, "Kind", kind),
        field(`${id}-s`, "Seconds", secs), field(`${id}-note`, "Note", note)],
    "Apply the penalty", () => act(i, "/penalties", {player_id: who.value, kind: kind.value, ms: Math.round(Number(secs.value || 0) * 1000), note: note.value.trim()}))
}

function correctionForm(i) {
    const id = `correct-${i.game_id}`
    const result = el("select", {}, ...options(["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"], (v) => v))
    const reason = el("input", {autocomplete: "off", required: true})
    return form(id, "Correct the result", [field(`${id}-result`, "Result", result), field(`${id}-reason`, "Reason", reason)],
        "Correct", () => act(i, "/correction", {result: result.value, reason: reason.value.trim()}))
}

function button(label, onClick, cls = "") {
    const b = el("button", {type: "button", className: cls}, label)
    b.addEventListener("click", onClick)
    return b
}

function actions(i, board) {
    const out = []
    for (const a of i.actions) {
        if (a === "request-ruling") out.push(button(t("Ask for the 棋例 ruling (art. 24)"), () => act(i, "/draw/claim", {player_id: i.facts.player_id, reason: "repetition"}), "primary request-ruling"))
        if (a === "report-absence") out.push(button(t("Report {player} absent (forfeit)", {player: i.facts.player_id}), () => act(i, "/absence", {player_id: i.facts.player_id}), "primary report-absence"))
        if (a === "rule-dead") out.push(deadForm(i, board))
        if (a === "rule-cycle") out.push(cycleForm(i))
        if (a === "result") out.push(resultForm(i))
        if (a === "penalty") out.push(penaltyForm(i))
    }
    if (!i.open && i.game.tournament_id && i.game.status === "ended") out.push(correctionForm(i))
    return out.length ? el("details", {className: "actions-box", open: i.open}, el("summary", {}, t("Actions")), ...out) : null
}

// the game view a board needs (Go: the rows and the stones to dim)
function boardGame(i, dead) {
    const g = i.game
    return {game: g.game, fen: g.fen, go: g.go_board ? {board: g.go_board, dead: dead || i.facts.dead || null} : null}
}

const KINDS = {claim: "Claim", repetition: "Repetition: ruling on request", ruling: "棋例 ruling",
    "dead-stones": "Dead-stone dispute", cycle: "Endless cycle", absence: "Absence", flag: "Flag fell"}

// item i's card; its board (open items) is drawn by the returned mount() once the card is in
// the page (a board measures its box)
function card(i) {
    const refusal = refusals.get(keyOf(i))
    const boardEl = i.open ? el("div", {className: "board mini"}) : null
    const audit = button(t("Audit"), () => openAudit(i.game_id), "audit-open")
    const root = el("article", {className: `item ${i.open ? "open" : "done"}`},
        el("h3", {}, el("span", {className: "kind"}, t(KINDS[i.kind])), " ",
            el("a", {href: `/ui/games/${enc(i.game_id)}`}, i.game_id)),
        el("p", {className: "what"}, kindFacts(i)),
        articles(i),
        el("div", {className: "item-body"}, boardEl, gameFacts(i.game)),
        refusal ? el("p", {className: "refusal", role: "alert"}, refusal) : null)
    root.dataset.kind = i.kind
    root.dataset.game = i.game_id
    const board = {update: () => {}}   // replaced by the real board at mount
    const acts = actions(i, board)
    if (acts) root.append(acts)
    root.append(audit)
    const mount = () => {
        if (!boardEl) return
        const b = createBoard(boardEl, boardGame(i), "white", () => {})
        board.update = (g, colour) => b.update(g, colour)
        b.update(boardGame(i, drafts.has(`dead-${i.game_id}-points`) ? drafts.get(`dead-${i.game_id}-points`).split(/[\s,]+/).filter(Boolean) : null), null)
    }
    return {root, mount}
}

function render() {
    const shown = items.filter((i) => !filter || i.game.tournament_id === filter)
    const open = shown.filter((i) => i.open).map(card), done = shown.filter((i) => !i.open).map(card)
    $("open-items").replaceChildren(...(open.length ? open.map((c) => c.root) : [el("p", {className: "note"}, t("Nothing needs an arbiter now."))]))
    $("done-items").replaceChildren(...(done.length ? done.map((c) => c.root) : [el("p", {className: "note"}, t("No decision to review."))]))
    open.forEach((c) => c.mount())
    const events = [...new Set(items.map((i) => i.game.tournament_id).filter(Boolean)), ...(filter ? [filter] : [])]
    const sel = $("event-filter")
    sel.replaceChildren(el("option", {value: ""}, t("All events")), ...[...new Set(events)].map((e) => el("option", {value: e}, e)))
    sel.value = filter
    $("who").textContent = me.sub ? `${me.sub} (${t(me.role)})` : ""
    $("title").textContent = document.title = t("arbiter console")
}

function note(text) {
    $("console-note").textContent = text || ""
    $("console-note").hidden = !text
}

const refresh = coalesced(async () => {
    // a form being filled in is not replaced under the arbiter's hands
    const busy = document.activeElement && document.activeElement.closest && document.activeElement.closest(".action-form")
    if (busy && !force) return
    force = false
    const {ok, data} = await get("/arbiter/attention")
    if (!ok) {
        note(refusalText(data))
        $("signin").hidden = false
        return
    }
    note(null)
    const text = JSON.stringify(data.items)
    if (text === shownText && !changed) return   // nothing new: the page (and its boards) stay
    shownText = text
    changed = false
    items = data.items
    render()
})

async function openAudit(gid) {
    const {ok, data} = await get(`/games/${enc(gid)}/audit`)
    $("audit-title").textContent = t("Audit of {game}", {game: gid})
    const table = $("audit-table"), diffs = $("audit-diffs")
    if (!ok) {
        $("audit-summary").textContent = refusalText(data)
        table.replaceChildren()
        diffs.replaceChildren()
    } else {
        const routine = Object.entries(data.routine).map(([k, n]) => `${k} ×${n}`).join(", ")
        $("audit-summary").textContent = t("{n} messages; routine decisions not listed: {routine}", {n: data.messages, routine: routine || t("none")})
        table.replaceChildren(el("thead", {}, el("tr", {}, ...["#", "decision", "asked by", "rule", "details"].map((h) => el("th", {}, t(h))))),
            el("tbody", {}, ...data.decisions.map((d) => el("tr", {},
                el("td", {}, `${d.stream.split(".").slice(1).join(".")} ${d.seq}`), el("td", {}, d.type),
                el("td", {}, d.by || "–"), el("td", {className: "rule"}, d.rule ? describeRule(d.rule) : "–"), el("td", {}, d.summary))),
                // the event's corrections of this game's result (its own stream keeps the first)
                ...(data.corrections || []).map((c) => el("tr", {className: "correction"},
                    el("td", {}, t("event")), el("td", {}, "ResultCorrected"), el("td", {}, t("arbiter")),
                    el("td", {className: "rule"}, "–"), el("td", {}, `${c.previous} → ${c.result}: ${c.reason}`)))))
        diffs.replaceChildren(data.differences.length
            ? el("div", {className: "refusal"}, el("p", {}, t("{n} difference(s) found by the re-derivation:", {n: data.differences.length})),
                el("ul", {}, ...data.differences.map((x) => el("li", {}, `${x.stream} ${x.seq} ${x.type}: ${x.what}: ${JSON.stringify(x.recorded)} ≠ ${JSON.stringify(x.rederived)}`))))
            : el("p", {className: "audit-ok"}, t("Re-derived by today's code: no difference.")))
    }
    $("audit").showModal()
}

$("audit-close").addEventListener("click", () => $("audit").close())
$("event-filter").addEventListener("change", (e) => {
    filter = e.target.value
    const q = new URLSearchParams(location.search)
    if (filter) q.set("event", filter); else q.delete("event")
    history.replaceState(null, "", location.pathname + (q.toString() ? `?${q}` : ""))
    render()
})
$("signin").addEventListener("submit", (e) => {
    e.preventDefault()
    const q = new URLSearchParams(location.search)
    q.set("token", $("token-input").value.trim())
    location.search = q.toString()
})
$("signin").hidden = !!me.token
setupLanguage(() => render())
serverClock().then((off) => { clockOffset = off })
setInterval(() => tick(), 200)
refresh()
setInterval(refresh, POLL_MS)
