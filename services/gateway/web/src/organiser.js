// The organiser's pages: /ui/organiser (my events, the creation form) and /ui/organiser/{tid}
// (players by form, CSV and TRF; tokens; lots; pairing, automatic or by hand with a reason;
// starting a round whose clocks wait; exports: TRF, PGN, SGF; finish). The
// forms are built from the request bodies' JSON Schemas the gateway gives with the page
// (data-choices: services/gateway/organiser.py), so every choice is the API's own; every
// refusal is shown with its reason (detail) and code. The read model is the truth: each
// message of the event's stream makes the page read GET /tournaments/{tid} again.
import {identity, el, coalesced, followStream, roundNotes, showTabs} from "./common.js"
import {t, codeText, setupLanguage, addStrings} from "./i18n.js"
import {ZH_ORGANISER, LABELS, VALUES} from "./organiser-text.js"

addStrings(ZH_ORGANISER)
const main = document.querySelector("main")
const choices = JSON.parse(main.dataset.choices)
const schemas = choices.schemas
const tid = main.dataset.tid || null
const me = identity()
const $ = (id) => document.getElementById(id)
const enc = encodeURIComponent
const lobbyHref = (id) => `/ui/tournaments/${enc(id)}`
const manageHref = (id) => `/ui/organiser/${enc(id)}`

// ------------------------------------------------------------------------------ requests
// The caller's bearer token when signed in (an unpublished event's reads need it too)
const authHeaders = () => (me.token ? {authorization: `Bearer ${me.token}`} : {})

// An answer's JSON body (a refusal's {detail, code}; a body that is not JSON: its status)
async function answerOf(r) {
    try { return await r.json() } catch (e) { return {detail: `${r.status} ${r.statusText}`} }
}

// {ok, status, data}: the gateway's answer; the caller's bearer token when signed in
async function call(method, path, body = undefined, type = "application/json") {
    const headers = authHeaders()
    if (body !== undefined) headers["content-type"] = type
    const r = await fetch(path, {method, headers, body: body === undefined ? undefined
        : type === "application/json" ? JSON.stringify(body) : body})
    return {ok: r.ok, status: r.status, data: await answerOf(r)}
}

// Fetches `path` signed in and saves the answer as file `name` (a Blob: a bare link would not
// carry the token an unpublished event's exports need); the outcome, or the refusal, in `out`
async function download(path, name, out) {
    const r = await fetch(path, {headers: authHeaders()})
    if (!r.ok) { showOutcome(out, {ok: false, status: r.status, data: await answerOf(r)}, ""); return }
    const url = URL.createObjectURL(await r.blob())
    const a = el("a", {href: url, download: name, hidden: true})
    document.body.append(a)
    a.click()
    a.remove()
    setTimeout(() => URL.revokeObjectURL(url), 60_000)
    showOutcome(out, {ok: true, status: r.status}, t("Downloaded: {file}.", {file: name}))
}

// A refusal's reason and code: "reason (code)"; a malformed body's problems one by one
function reasonOf(data) {
    const d = data.detail
    const text = Array.isArray(d) ? d.map((p) => `${(p.loc || []).filter((x) => x !== "body").join(".")}: ${p.msg}`).join("; ") : String(d)
    return data.code ? `${text} (${codeText(data.code)})` : text
}

// Shows an answer in element out: accepted (ok text), pending (202) or refused (reason, code)
function showOutcome(out, r, okText, extra = null) {
    out.hidden = false
    out.className = "outcome " + (r.ok ? "good" : "bad")
    out.dataset.code = r.ok ? "" : (r.data.code || "")
    const text = r.status === 202 ? t("Sent; no decision yet: it shows here once made.")
        : r.ok ? okText : `${t("Refused")}: ${reasonOf(r.data)}`
    out.replaceChildren(text, ...(extra ? [" ", extra] : []))
}

// ------------------------------------------------------------------------ form fields
// A control for field `name` of a body's JSON Schema: {root, get()} (get: the value to send,
// undefined to leave it to the API's default)
function field(schema, name, opts = {}) {
    const prop = schema.properties[name]
    const nullable = Array.isArray(prop.anyOf)
    const base = nullable ? prop.anyOf.find((a) => a.type !== "null") : prop
    const id = `f-${opts.prefix || ""}${name}`
    let input
    if (base.enum || opts.options) {
        input = el("select", {id, name})
        if (nullable || opts.blank) input.append(el("option", {value: ""}, t(opts.blank || "(the API's default)")))
        for (const [value, label, title] of opts.options || base.enum.map((v) => [v, t(VALUES[v] || v)])) {
            const o = el("option", {value}, label)
            if (title) o.title = title
            input.append(o)
        }
        if (prop.default != null) input.value = prop.default
    } else if (base.type === "integer" || base.type === "number") {
        input = el("input", {id, name, type: "number", step: base.type === "integer" ? "1" : "any"})
        if (base.minimum != null) input.min = base.minimum
        if (base.maximum != null && base.maximum < 1e9) input.max = base.maximum
        if (prop.default != null) input.value = prop.default
    } else if (base.type === "boolean") {
        input = el("input", {id, name, type: "checkbox", checked: !!prop.default})
    } else {
        input = el("input", {id, name, type: "text", autocomplete: "off"})
        if (base.maxLength) input.maxLength = base.maxLength
        if (prop.default != null) input.value = prop.default
    }
    if ((schema.required || []).includes(name)) input.required = true
    const label = el("label", {htmlFor: id}, t(opts.label || LABELS[name] || name))
    const root = el("div", {className: "field"}, label, input, opts.hint ? el("small", {className: "hint"}, opts.hint) : null)
    root.dataset.field = name
    const get = () => {
        if (input.type === "checkbox") return input.checked
        const v = input.value.trim()
        if (v === "") return undefined
        return input.type === "number" ? Number(v) : v
    }
    return {root, input, get}
}

// The body of the fields in `fields` (name -> control), leaving out the undefined ones
function bodyOf(fields) {
    const out = {}
    for (const [name, f] of Object.entries(fields)) {
        if (f.root.hidden) continue
        const v = f.get()
        if (v !== undefined) out[name] = v
    }
    return out
}

// ------------------------------------------------------------------------------ sign in
function renderSignin() {
    const who = $("who")
    if (who) who.textContent = me.sub ? `${me.sub} · ${t(me.role)}` : ""
    const box = $("signin")
    if (!box) return
    if (me.token) {
        box.replaceChildren(el("p", {className: "note"}, t("Signed in as {sub} ({role}).", {sub: me.sub, role: t(me.role)}), " ",
            el("a", {href: "?token="}, t("Sign out"))))
        return
    }
    const input = el("input", {id: "token-input", name: "token", type: "password", autocomplete: "off"})
    const form = el("form", {className: "signin"}, el("label", {htmlFor: "token-input"}, t("Organiser's token")), input,
        el("button", {type: "submit"}, t("Sign in")),
        el("small", {className: "hint"}, t("A token of role organiser (arbiter token issue --role organiser --sub YOU), or the administrator's. A gateway without identity needs none.")))
    form.addEventListener("submit", (e) => {
        e.preventDefault()
        if (input.value.trim()) location.search = `?token=${enc(input.value.trim())}`
    })
    box.replaceChildren(form)
}

// ============================================================================ my events
async function renderEvents() {
    const r = await call("GET", "/organiser/events")
    const table = $("events-table")
    if (!r.ok) {
        table.replaceChildren()
        $("events-note").textContent = r.status === 401 ? t("Sign in to see your events.") : `${t("Refused")}: ${reasonOf(r.data)}`
        return
    }
    const items = r.data.items
    $("events-note").textContent = items.length ? "" : t("No event yet: create one below.")
    table.hidden = !items.length
    const head = el("tr", {}, ...["Event", "Game", "System", "Status", "Rounds", "Players", "Lobby"].map((h) => el("th", {}, t(h))))
    const rows = items.map((e) => {
        const tr = el("tr", {}, el("td", {}, el("a", {href: manageHref(e.tournament_id)}, e.name || e.tournament_id),
            el("span", {className: "id"}, ` ${e.tournament_id}`)),
            el("td", {}, t(e.game)), el("td", {}, t(e.system || "")), el("td", {}, t(e.status)),
            el("td", {}, e.rounds ? `${e.rounds_paired} / ${e.rounds}` : String(e.rounds_paired)), el("td", {}, String(e.players)),
            el("td", {}, el("a", {href: lobbyHref(e.tournament_id)}, t("Lobby"))))
        tr.dataset.tournamentId = e.tournament_id
        return tr
    })
    table.replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows))
}

// When a field of the creation form shows: {game: [...]} and/or {system: [...]}
const CREATE_FIELDS = [
    ["name"], ["tournament_id"], ["game"], ["system"], ["rounds", {system: choices.rounds_systems}], ["time_control"], ["tiebreaks"],
    ["tiebreak_edition"], ["default_time_s"], ["round_start"], ["public"],
    ["initial_colour", {system: ["swiss"]}], ["late_entries", {system: ["swiss", "chinese-swiss", "mcmahon"]}],
    ["natural_limit_moves", {game: ["xiangqi"]}], ["repetition_rulings", {game: ["xiangqi"]}],
    ["board_size", {game: ["go"]}], ["go_rules", {game: ["go"]}], ["komi", {game: ["go"]}], ["handicap", {game: ["go"]}],
    ["mcmahon_bar", {system: ["mcmahon"]}], ["mcmahon_floor", {system: ["mcmahon"]}],
    ["games_per_match", {system: ["knockout", "double-elimination"]}], ["seeding", {system: ["knockout", "double-elimination"]}],
    ["playoff_games", {system: ["knockout", "double-elimination"]}], ["playoff_decider", {system: ["knockout", "double-elimination"]}],
    ["team_boards", {system: ["team-round-robin"]}], ["team_format", {system: ["team-round-robin"]}],
]

// The creation form's hints, by field
const HINTS = {
    tournament_id: "Letters, digits, - and _; left empty, the gateway draws one.",
    round_start: "On command: a round's pairings are published first and its games wait; their clocks start when the organiser or an arbiter starts the round (FIDE Laws 1994 art. 12.3).",
    public: "Unpublished: only the organiser, the event's arbiters and players and integrators whose token names it read it.",
}

// The time control: a text the API reads, built from a preset or one of the forms its parser
// reads (choices.time_controls: a template over base, moves, step, periods), or typed
function timeControlField(schema) {
    const text = field(schema, "time_control", {hint: t("The text the API reads (PGN TimeControl in seconds, a Go overtime form or a preset name).")})
    const kind = el("select", {id: "tc-kind"}, el("option", {value: ""}, t("typed by hand")),
        ...choices.time_controls.map((f) => el("option", {value: f.kind, title: f.source}, t(VALUES[f.kind] || f.kind))),
        el("option", {value: "preset"}, t("preset")))
    const preset = el("select", {id: "tc-preset"}, ...Object.entries(choices.presets).map(([n, v]) => el("option", {value: n}, `${n} (${v})`)))
    const nums = {base: ["Base time (minutes)", 90], moves: ["Moves", 40], step: ["Seconds a move (increment, delay, byo-yomi)", 30],
                  periods: ["Periods (byo-yomi), moves (Canadian), minutes (reserve)", 5]}
    const inputs = {}
    const parts = Object.entries(nums).map(([k, [label, v]]) => {
        inputs[k] = el("input", {id: `tc-${k}`, type: "number", min: "0", step: "any", value: String(v)})
        const d = el("div", {className: "field small"}, el("label", {htmlFor: `tc-${k}`}, t(label)), inputs[k])
        d.dataset.part = k
        return d
    })
    const presetBox = el("div", {className: "field small"}, el("label", {htmlFor: "tc-preset"}, t("preset")), preset)
    const build = () => {
        const form = choices.time_controls.find((f) => f.kind === kind.value)
        presetBox.hidden = kind.value !== "preset"
        for (const d of parts) d.hidden = !form || !form.template.includes(`{${d.dataset.part}}`)
        if (kind.value === "preset") text.input.value = preset.value
        else if (form) {
            const v = {base: Math.round(Number(inputs.base.value) * 60), moves: inputs.moves.value, step: inputs.step.value, periods: inputs.periods.value}
            text.input.value = form.template.replace(/\{(\w+)\}/g, (_, k) => String(v[k]))
        }
    }
    kind.value = "fischer"
    for (const c of [kind, preset, ...Object.values(inputs)]) c.addEventListener("input", build)
    build()
    const builder = el("fieldset", {className: "tc"}, el("legend", {}, t(LABELS.time_control)),
        el("div", {className: "field small"}, el("label", {htmlFor: "tc-kind"}, t("Kind")), kind), presetBox, ...parts, text.root)
    text.root.querySelector("label").textContent = t("Time control text")
    builder.dataset.field = "time_control"
    return {root: builder, input: text.input, get: text.get}
}

// The tie-break order: codes added from the list (each explained), moved up and down, removed
function tiebreaksField() {
    const order = []
    const list = el("ol", {className: "tb-list", id: "tb-list"})
    const meaning = (c) => {
        const m = choices.tiebreaks.find((x) => x.code === c)
        return m ? `${t(m.meaning)}${m.cut ? "; " + t(m.cut) : ""} (${m.source}${m.cut_source ? ", " + m.cut_source : ""})` : ""
    }
    // the modifier's cut in the option's text: BH, BH-C1, BH-M1... share their meaning
    const pick = el("select", {id: "tb-pick"}, ...choices.tiebreaks.map((m) => el("option", {value: m.code, title: meaning(m.code)},
        `${m.code}: ${t(m.meaning)}${m.cut ? ` (${t(m.cut)})` : ""}`)))
    const render = () => {
        list.replaceChildren(...order.map((c, i) => {
            const btn = (label, text, fn, off) => {
                const b = el("button", {type: "button", textContent: text, disabled: off})
                b.setAttribute("aria-label", `${t(label)} ${c}`)
                b.addEventListener("click", () => {   // the focus stays with the code moved (keyboard use)
                    fn()
                    render()
                    const moved = [...list.querySelectorAll(`li[data-code="${c}"] button`)].filter((x) => !x.disabled)
                    const same = moved.find((x) => x.textContent === text)
                    ;(same || moved[0] || pick).focus()
                })
                return b
            }
            const li = el("li", {}, el("code", {}, c), el("span", {className: "hint"}, ` ${meaning(c)} `),
                btn("up", "↑", () => order.splice(i - 1, 0, ...order.splice(i, 1)), i === 0),
                btn("down", "↓", () => order.splice(i + 1, 0, ...order.splice(i, 1)), i === order.length - 1),
                btn("remove", "✕", () => order.splice(i, 1), false))
            li.dataset.code = c
            return li
        }))
        empty.hidden = order.length > 0
    }
    const add = el("button", {type: "button", id: "tb-add"}, t("Add"))
    add.addEventListener("click", () => { if (!order.includes(pick.value)) order.push(pick.value); render() })
    const empty = el("small", {className: "hint"}, t("None chosen: the API's default order for the game and system."))
    const root = el("fieldset", {className: "tb"}, el("legend", {}, t(LABELS.tiebreaks)),
        el("div", {className: "tb-add"}, el("label", {htmlFor: "tb-pick", className: "sr-only"}, t("Tie-break code")), pick, add), list, empty)
    root.dataset.field = "tiebreaks"
    render()
    return {root, get: () => (order.length ? [...order] : undefined)}
}

function createForm() {
    const schema = schemas.create
    const fields = {}
    for (const [name] of CREATE_FIELDS) {
        if (name === "time_control") fields[name] = timeControlField(schema)
        else if (name === "tiebreaks") fields[name] = tiebreaksField()
        else if (name === "tiebreak_edition") fields[name] = field(schema, name, {blank: "the edition in force on the day",
            options: Object.entries(choices.editions).map(([k, src]) => [k, k, t(src)])})
        else fields[name] = field(schema, name, {label: name === "name" ? "Event name" : null,
            hint: HINTS[name] ? t(HINTS[name]) : ""})
    }
    fields.tiebreak_edition.root.classList.add("wide")   // a row of its own: its choices' text is long
    const form = $("create-form")
    const show = () => {
        const game = fields.game.get(), system = fields.system.get()
        for (const [name, when] of CREATE_FIELDS) {
            fields[name].root.hidden = !!when && ((when.game && !when.game.includes(game)) || (when.system && !when.system.includes(system)))
        }
    }
    fields.game.input.addEventListener("change", show)
    fields.system.input.addEventListener("change", show)
    show()
    const submit = el("button", {type: "submit", className: "primary"}, t("Create the event"))
    form.replaceChildren(...Object.values(fields).map((f) => f.root), el("div", {className: "actions"}, submit))
    form.addEventListener("submit", async (e) => {
        e.preventDefault()
        submit.disabled = true
        const r = await call("POST", "/tournaments", bodyOf(fields))
        submit.disabled = false
        const id = r.data.tournament_id
        showOutcome($("create-outcome"), r, t("Created: {id}.", {id}),
            id && r.status !== 422 && r.ok ? el("a", {href: manageHref(id), id: "created-link"}, t("Run it: players, lots, pairings")) : null)
        if (r.ok) renderEvents()
    })
}

// ============================================================================= an event
let event = null
const SECTIONS = ["players", "tokens", "lots", "pairing", "exports", "finish"]
// the systems whose automatic pairing leaves out the players who asked for a bye (StartRound)
const SWISS_SYSTEMS = ["swiss", "chinese-swiss", "mcmahon"]

function currentSection() {
    const id = location.hash.slice(1)
    return SECTIONS.includes(id) ? id : (event && event.rounds.length ? "pairing" : "players")
}

function showSection() {
    showTabs(SECTIONS, currentSection())
}

const nameOf = (pid) => (event.players.find((p) => p.player_id === pid) || {}).name || pid

function renderFacts() {
    $("event-name").textContent = event.name || event.tournament_id
    document.title = `${event.name || event.tournament_id} · ${t("Organiser")}`
    $("title").textContent = event.tournament_id
    $("lobby-link").href = lobbyHref(event.tournament_id)
    $("event-facts").textContent = [t(event.game), t(event.system), event.time_control, t(event.status),
        event.planned_rounds ? t("{n} of {of} rounds paired", {n: event.rounds.length, of: event.planned_rounds})
                             : t("{n} rounds paired", {n: event.rounds.length}),
        t("{n} players", {n: event.players.length}),
        event.round_start === "on-command" ? t("clocks start on command") : null,
        event.public === false ? t("unpublished") : null,
        event.tiebreaks.length ? `${t("Tie-breaks")}: ${event.tiebreaks.join(", ")}` : null,
        event.tiebreak_edition].filter(Boolean).join(" · ")
}

// ----------------------------------------------------------------------------- players
const REGISTER_FIELDS = {chess: ["player_id", "name", "rating", "title", "fide_id", "federation", "club", "team", "board"],
                         xiangqi: ["player_id", "name", "rating", "club", "team", "board"],
                         go: ["player_id", "name", "grade", "rating", "club", "team", "board"]}
let imported = null   // {players, errors, source} read from a file, not yet registered

function playersTable() {
    const cols = ["No.", "ID", "Name", event.game === "go" ? "Grade" : "Rating", "Club", "Team"]
    const head = el("tr", {}, ...cols.map((h) => el("th", {}, t(h))))
    const rows = event.players.map((p) => {
        const tr = el("tr", {}, el("td", {}, String(p.number)), el("td", {}, p.player_id), el("td", {}, p.name),
            el("td", {}, String((event.game === "go" ? p.grade : p.rating) ?? "")), el("td", {}, p.club || ""), el("td", {}, p.team || ""))
        tr.dataset.playerId = p.player_id
        return tr
    })
    return el("div", {className: "scroll"}, el("table", {id: "players-table", className: "list"}, el("thead", {}, head), el("tbody", {}, ...rows)))
}

function registerForm() {
    const fields = {}
    for (const name of REGISTER_FIELDS[event.game] || REGISTER_FIELDS.chess) fields[name] = field(schemas.register, name, {prefix: "reg-"})
    const out = el("p", {className: "outcome", role: "alert", hidden: true})
    const submit = el("button", {type: "submit", className: "primary"}, t("Register"))
    const form = el("form", {id: "register-form", className: "org-form", noValidate: true}, ...Object.values(fields).map((f) => f.root),
        el("div", {className: "actions"}, submit))
    form.addEventListener("submit", async (e) => {
        e.preventDefault()
        const body = bodyOf(fields)
        const r = await call("POST", `/tournaments/${enc(tid)}/players`, body)
        showOutcome(out, r, t("Registered: {name}.", {name: body.name || ""}))
        if (r.ok) { form.reset(); fields.player_id.input.focus() }
    })
    return [el("h2", {}, t("Register a player")), form, out]
}

function importForms() {
    const cols = Object.keys(schemas.register.properties)
    const csvText = el("textarea", {id: "csv-text", rows: 5, spellcheck: false})
    const csvFile = el("input", {id: "csv-file", type: "file", accept: ".csv,text/csv,text/plain"})
    const trfFile = el("input", {id: "trf-file", type: "file", accept: ".trf,.txt,text/plain"})
    const out = el("p", {className: "outcome", role: "alert", hidden: true})
    const preview = el("div", {id: "import-preview"})
    const read = async (path, body, source) => {
        const r = await call("POST", path, body, "text/plain")
        if (!r.ok) { imported = null; showOutcome(out, r, ""); renderPreview(preview, out); return }
        out.hidden = true
        imported = {players: r.data.players, errors: r.data.errors || [], source}
        renderPreview(preview, out)
    }
    csvFile.addEventListener("change", async () => { if (csvFile.files[0]) csvText.value = await csvFile.files[0].text() })
    const csvBtn = el("button", {type: "button", id: "csv-read"}, t("Read the CSV"))
    csvBtn.addEventListener("click", () => read("/organiser/players/csv", csvText.value, "CSV"))
    const trfBtn = el("button", {type: "button", id: "trf-read"}, t("Read the TRF"))
    trfBtn.addEventListener("click", async () => {
        if (!trfFile.files[0]) { trfFile.focus(); return }
        read("/organiser/players/trf", await trfFile.files[0].arrayBuffer(), "TRF")
    })
    return [el("h2", {}, t("Import players")),
        el("div", {className: "org-form"},
            el("div", {className: "field wide"}, el("label", {htmlFor: "csv-text"}, t("CSV (a header row, then a player a row)")), csvText,
                el("small", {className: "hint"}, t("Columns: name (required) and any of {cols}; comma, semicolon or tab.", {cols: cols.filter((c) => c !== "name").join(", ")}))),
            el("div", {className: "field"}, el("label", {htmlFor: "csv-file"}, t("or a CSV file")), csvFile),
            el("div", {className: "actions"}, csvBtn),
            el("div", {className: "field"}, el("label", {htmlFor: "trf-file"}, t("FIDE TRF-16 file (its players, not its rounds)")), trfFile),
            el("div", {className: "actions"}, trfBtn)),
        out, preview]
}

function renderPreview(box, out) {
    if (!imported) { box.replaceChildren(); return }
    const {players, errors, source} = imported
    const head = el("tr", {}, ...["ID", "Name", "Rating", "Grade", "Club", "Outcome"].map((h) => el("th", {}, t(h))))
    const rows = players.map((p) => {
        const tr = el("tr", {}, el("td", {}, p.player_id), el("td", {}, p.name), el("td", {}, String(p.rating ?? "")),
            el("td", {}, p.grade || ""), el("td", {}, p.club || ""), el("td", {className: "row-outcome"}))
        tr.dataset.playerId = p.player_id
        return tr
    })
    const errs = errors.map((e) => el("li", {}, t("line {line}", {line: e.line}), `: ${e.detail} (${codeText(e.code)})`))
    const go = el("button", {type: "button", id: "import-register", className: "primary", disabled: !players.length},
        t("Register these {n} players", {n: players.length}))
    go.addEventListener("click", async () => {
        go.disabled = true
        let done = 0
        for (const [i, p] of players.entries()) {   // one at a time: the log keeps their order
            const r = await call("POST", `/tournaments/${enc(tid)}/players`, p)
            const cell = rows[i].querySelector(".row-outcome")
            cell.textContent = r.ok ? t("registered") : reasonOf(r.data)
            cell.className = "row-outcome " + (r.ok ? "good" : "bad")
            if (r.ok) done++
        }
        out.hidden = false
        out.className = "outcome " + (done === players.length ? "good" : "bad")
        out.textContent = t("{n} of {of} players registered.", {n: done, of: players.length})
    })
    box.replaceChildren(el("h3", {}, t("Read from the {source}: {n} players", {source, n: players.length})),
        errs.length ? el("div", {className: "outcome bad"}, t("Rows left out:"), el("ul", {id: "import-errors"}, ...errs)) : "",
        el("div", {className: "scroll"}, el("table", {className: "list", id: "import-table"}, el("thead", {}, head), el("tbody", {}, ...rows))),
        el("div", {className: "actions"}, go))
}

// ------------------------------------------------------------------------------ tokens
let issued = null   // the last answer of POST /tournaments/{tid}/tokens (kept in this page only)

function renderTokens() {
    const sec = $("tokens")
    const ttl = field(schemas.tokens, "ttl_s", {prefix: "tok-"})
    ttl.root.querySelector("label").textContent = t("Valid for (seconds)")
    const out = $("outcome")
    const btn = el("button", {type: "button", id: "issue-tokens", className: "primary", disabled: !event.players.length},
        t("Issue tokens for the {n} players", {n: event.players.length}))
    btn.addEventListener("click", async () => {
        const r = await call("POST", `/tournaments/${enc(tid)}/tokens`, {role: "player", ids: event.players.map((p) => p.player_id), ttl_s: ttl.get()})
        showOutcome(out, r, t("{n} tokens issued, valid until {when}.", {n: Object.keys(r.data.tokens || {}).length,
            when: r.data.expires_at_s ? new Date(r.data.expires_at_s * 1000).toLocaleString() : ""}))
        issued = r.ok ? r.data : null
        renderTokenSheet()
    })
    sec.replaceChildren(el("h2", {}, t("Player tokens")),
        el("p", {className: "note"}, t("Each player signs in with his token: the link opens the event's lobby signed in. Tokens are not stored: print them or send them now.")),
        el("div", {className: "org-form"}, ttl.root, el("div", {className: "actions"}, btn)),
        el("div", {id: "token-sheet"}))
    renderTokenSheet()
}

function renderTokenSheet() {
    const box = $("token-sheet")
    if (!box) return
    if (!issued) { box.replaceChildren(); return }
    const print = el("button", {type: "button", id: "print-tokens"}, t("Print"))
    print.addEventListener("click", () => window.print())
    const cards = Object.entries(issued.tokens).map(([pid, token]) => {
        const url = `${location.origin}${lobbyHref(tid)}?token=${token}`
        const card = el("article", {className: "token-card"}, el("h3", {}, nameOf(pid)), el("p", {}, `${t("ID")}: ${pid}`),
            el("p", {}, t("Sign-in link"), ":"), el("p", {className: "token"}, el("a", {href: url}, url)))
        card.dataset.playerId = pid
        return card
    })
    box.replaceChildren(el("div", {className: "actions"}, print), el("div", {className: "token-cards printable"}, ...cards))
}

// -------------------------------------------------------------------------------- lots
function renderLots() {
    const sec = $("lots")
    const n = event.players.length
    const inputs = event.players.map((p) => {
        const i = el("input", {type: "number", min: "1", max: String(n), step: "1", value: String(p.number), id: `lot-${p.player_id}`})
        i.dataset.playerId = p.player_id
        return i
    })
    const rows = event.players.map((p, k) => el("tr", {}, el("td", {}, el("label", {htmlFor: inputs[k].id}, p.name)), el("td", {}, p.player_id), el("td", {}, inputs[k])))
    const draw = el("button", {type: "button", id: "draw-random"}, t("Draw at random"))
    draw.addEventListener("click", () => {   // a Fisher-Yates shuffle on the browser's crypto source
        const nums = Array.from({length: n}, (_, i) => i + 1)
        const rnd = new Uint32Array(n)
        crypto.getRandomValues(rnd)
        for (let i = n - 1; i > 0; i--) { const j = rnd[i] % (i + 1); [nums[i], nums[j]] = [nums[j], nums[i]] }
        inputs.forEach((inp, i) => { inp.value = String(nums[i]) })
    })
    const out = $("outcome")
    const save = el("button", {type: "button", id: "record-lots", className: "primary", disabled: !n}, t("Record the lots"))
    save.addEventListener("click", async () => {
        const numbers = Object.fromEntries(inputs.map((i) => [i.dataset.playerId, Number(i.value)]))
        const r = await call("POST", `/tournaments/${enc(tid)}/lots`, {numbers})
        showOutcome(out, r, t("Lots recorded."))
    })
    sec.replaceChildren(el("h2", {}, t("Draw lots")),
        el("p", {className: "note"}, t("The draw numbers (1 to {n}, each once) place the players in the Berger tables of a round robin and seed a knockout; a Swiss event pairs by rating.", {n})),
        el("div", {className: "scroll"}, el("table", {className: "list"}, el("thead", {}, el("tr", {}, ...["Name", "ID", "Number"].map((h) => el("th", {}, t(h))))), el("tbody", {}, ...rows))),
        el("div", {className: "actions"}, draw, save))
}

// ----------------------------------------------------------------------------- pairing
function playerSelect(id, blank) {
    const s = el("select", {id}, el("option", {value: ""}, t(blank)), ...event.players.map((p) => el("option", {value: p.player_id}, `${p.name} (${p.player_id})`)))
    return s
}

function byeChoices(prefix) {
    const prop = schemas.round.properties.requested_byes   // player id -> kind (F, H, Z)
    const kinds = (Object.values(prop.patternProperties || {})[0] || prop.additionalProperties).enum
    const rows = event.players.map((p) => {
        const s = el("select", {id: `${prefix}-${p.player_id}`}, el("option", {value: ""}, t("plays")), ...kinds.map((k) => el("option", {value: k}, t(`bye ${k}`))))
        s.dataset.playerId = p.player_id
        return el("div", {className: "field small"}, el("label", {htmlFor: s.id}, p.name), s)
    })
    const get = () => Object.fromEntries(rows.map((d) => d.querySelector("select")).filter((s) => s.value).map((s) => [s.dataset.playerId, s.value]))
    return {root: el("details", {className: "byes"}, el("summary", {}, t("Requested byes (F full point, H half, Z zero)")), el("div", {className: "org-form"}, ...rows)), get}
}

function manualForm(round, out) {
    const boards = el("ol", {id: "manual-boards", className: "manual-boards"})
    let k = 0
    const addBoard = () => {
        k++
        const w = playerSelect(`mw-${k}`, "White"), b = playerSelect(`mb-${k}`, "Black")
        const rm = el("button", {type: "button", textContent: "✕"})
        rm.setAttribute("aria-label", t("remove the board"))
        const li = el("li", {}, el("label", {htmlFor: w.id, className: "sr-only"}, t("White")), w, " – ",
            el("label", {htmlFor: b.id, className: "sr-only"}, t("Black")), b, rm)
        rm.addEventListener("click", () => li.remove())
        boards.append(li)
        return w
    }
    for (let i = 0; i < Math.floor(event.players.length / 2); i++) addBoard()
    const add = el("button", {type: "button", id: "manual-add"}, t("Add a board"))
    add.addEventListener("click", () => addBoard().focus())
    const bye = playerSelect("manual-bye", "no bye")
    const byes = byeChoices("mbye")
    // the API keeps StartRound's reason optional; a pairing changed by hand is recorded with one
    const reason = field(schemas.round, "reason", {prefix: "manual-", label: "Why by hand (recorded with the round)",
        hint: t("e.g. two players of one family kept apart; a pairing error corrected")})
    reason.input.required = true
    const go = el("button", {type: "submit", className: "primary", id: "manual-pair"}, t("Pair round {n} as entered", {n: round}))
    const form = el("form", {id: "manual-form", noValidate: true}, boards, el("div", {className: "actions"}, add),
        el("div", {className: "field"}, el("label", {htmlFor: "manual-bye"}, t("Bye (the pairing's, one point)")), bye), byes.root,
        reason.root, el("div", {className: "actions"}, go))
    form.addEventListener("submit", async (e) => {
        e.preventDefault()
        if (!reason.get()) {
            showOutcome(out, {ok: false, status: 0, data: {detail: t("a pairing by hand needs its reason"), code: "reason-required"}}, "")
            reason.input.focus()
            return
        }
        const pairs = [...boards.querySelectorAll("li")].map((li) => li.querySelectorAll("select")).map(([w, b]) => ({white: w.value, black: b.value}))
        const body = {round, boards: pairs, requested_byes: byes.get(), reason: reason.get()}
        if (bye.value) body.bye = bye.value
        const r = await call("POST", `/tournaments/${enc(tid)}/rounds`, body)
        showOutcome(out, r, t("Round {n} paired by hand.", {n: round}), r.ok ? lobbyLink("#rounds") : null)
    })
    return el("details", {className: "manual"}, el("summary", {}, t("Pair by hand")), form)
}

function lobbyLink(hash = "") {
    return el("a", {href: lobbyHref(tid) + hash}, t("See it in the lobby"))
}

function roundTables() {
    return [...event.rounds].reverse().map((r) => {
        const head = el("tr", {}, ...["Board", "White", "Black", "Result"].map((h) => el("th", {}, t(h))))
        const rows = r.boards.map((b) => el("tr", {}, el("td", {}, String(b.board)), el("td", {}, nameOf(b.white)), el("td", {}, nameOf(b.black)),
            el("td", {}, el("a", {href: `/ui/games/${enc(b.game_id)}`}, b.code || b.result || t(b.status || "created")))))
        const table = el("table", {className: "list pairings"}, el("thead", {}, head), el("tbody", {}, ...rows))
        table.dataset.round = r.round
        const notes = roundNotes(r, nameOf)
        return el("section", {}, el("h3", {}, t("Round {n}", {n: r.round})), el("div", {className: "scroll"}, table),
            notes.length ? el("p", {className: "note"}, notes.join("; ")) : null)
    })
}

// Round `round`, paired, whose clocks wait (round_start on-command): the button that starts it
function startRoundBox(round, out) {
    const go = el("button", {type: "button", id: "start-round", className: "primary"}, t("Start round {n}", {n: round}))
    go.addEventListener("click", async () => {
        go.disabled = true
        const r = await call("POST", `/tournaments/${enc(tid)}/rounds/start`, {round})
        go.disabled = false
        showOutcome(out, r, t("Round {n} started: its clocks run.", {n: round}), r.ok ? lobbyLink("#live") : null)
    })
    return el("div", {id: "start-box"}, el("p", {className: "note"},
        t("Round {n} is paired and published; its games wait: their clocks start when you start the round.", {n: round})),
        el("div", {className: "actions"}, go))
}

function renderPairing() {
    const sec = $("pairing")
    const round = event.rounds.length + 1
    const last = event.rounds[event.rounds.length - 1]
    const out = $("outcome")
    const parts = [el("h2", {}, t("Pairing"))]
    if (event.status === "finished") parts.push(el("p", {className: "note"}, t("The event is finished.")))
    else if (last && last.begun === false) parts.push(startRoundBox(last.round, out))
    else if (event.planned_rounds && round > event.planned_rounds) parts.push(el("p", {className: "note"}, t("Every planned round is paired.")))
    else {
        const byes = byeChoices("abye")
        byes.root.hidden = !SWISS_SYSTEMS.includes(event.system)   // StartRound: a round robin takes none
        const auto = el("button", {type: "button", id: "pair-auto", className: "primary"}, t("Pair round {n} ({system})", {n: round, system: t(event.system)}))
        auto.addEventListener("click", async () => {
            auto.disabled = true
            const r = await call("POST", `/tournaments/${enc(tid)}/rounds`, {round, requested_byes: byes.get()})
            auto.disabled = false
            showOutcome(out, r, t("Round {n} paired.", {n: round}), r.ok ? lobbyLink("#rounds") : null)
        })
        parts.push(el("p", {className: "note"}, event.round_start === "on-command"
            ? t("Pairing a round publishes its pairings; its clocks start when you start the round.")
            : t("Pairing a round publishes its pairings and starts its games.")),
            byes.root, el("div", {className: "actions"}, auto), manualForm(round, out))
    }
    sec.replaceChildren(...parts, el("div", {id: "rounds-paired"}))
}

function renderRoundsPaired() {
    $("rounds-paired").replaceChildren(...(event.rounds.length ? [el("h2", {}, t("Rounds paired")), ...roundTables()] : []))
}

// ----------------------------------------------------------------------------- exports
// xiangqi's notations of a PGN export (services/gateway/exports.py): the query's value, its label
const NOTATIONS = [["chinese", "Chinese notation (炮二平五)"], ["wxf", "WXF (C2=5)"], ["iccs", "ICCS (h2e2)"]]
let notationChosen = "chinese"   // kept while the section is rebuilt (a result, a round paired)

function renderExports() {
    const sec = $("exports")
    const out = $("outcome")
    const base = `/tournaments/${enc(tid)}`
    const button = (id, label, fn) => {
        const b = el("button", {type: "button", id}, label)
        b.addEventListener("click", fn)
        return b
    }
    const notation = el("select", {id: "export-notation"}, ...NOTATIONS.map(([v, label]) => el("option", {value: v}, t(label))))
    notation.value = notationChosen
    notation.addEventListener("change", () => { notationChosen = notation.value })
    const q = () => (event.game === "xiangqi" ? `?notation=${notation.value}` : "")
    const suffix = () => (event.game === "xiangqi" && notation.value !== "chinese" ? `-${notation.value}` : "")
    const record = event.game === "go" ? "sgf" : "pgn"
    const parts = [el("h2", {}, t("Exports")),
        el("p", {className: "note"}, t("Files the gateway writes from the event's log: the tournament report for the rating office (FIDE TRF-16) and the games' records (PGN: chess and xiangqi; SGF: Go). The page fetches them signed in: an unpublished event's files need your token.")),
        event.game === "xiangqi" ? el("div", {className: "org-form"},
            el("div", {className: "field"}, el("label", {htmlFor: "export-notation"}, t("Notation of the PGN files")), notation)) : null,
        el("div", {className: "actions"}, button("export-trf", t("Tournament report (TRF)"), () => download(`${base}/trf`, `${tid}.trf`, out)),
            record === "pgn" ? button("export-pgn", t("Every game (PGN)"), () => download(`${base}/pgn${q()}`, `${tid}${suffix()}.pgn`, out)) : null)]
    const games = event.rounds.flatMap((r) => r.boards.map((b) => ({round: r.round, ...b})))
    if (games.length) {
        const head = el("tr", {}, ...["Round", "Board", "Players", "Result", "Record"].map((h) => el("th", {}, t(h))))
        const rows = games.map((g) => {
            const get = button(`export-${g.game_id}`, record.toUpperCase(),
                () => download(`/games/${enc(g.game_id)}/${record}${record === "pgn" ? q() : ""}`, `${g.game_id}${record === "pgn" ? suffix() : ""}.${record}`, out))
            get.setAttribute("aria-label", `${record.toUpperCase()} ${g.game_id}`)
            const tr = el("tr", {}, el("td", {}, String(g.round)), el("td", {}, String(g.board)),
                el("td", {}, `${nameOf(g.white)} – ${nameOf(g.black)}`), el("td", {}, g.code || g.result || t(g.status || "created")), el("td", {}, get))
            tr.dataset.gameId = g.game_id
            return tr
        })
        parts.push(el("h3", {}, t("Each game's record")),
            el("div", {className: "scroll"}, el("table", {className: "list", id: "export-games"}, el("thead", {}, head), el("tbody", {}, ...rows))))
    } else parts.push(el("p", {className: "note"}, t("No game yet: the records come with the pairings.")))
    sec.replaceChildren(...parts.filter(Boolean))
}

// ------------------------------------------------------------------------------ finish
function renderFinish() {
    const sec = $("finish")
    if (event.status === "finished") {
        sec.replaceChildren(el("h2", {}, t("Finish")), el("p", {className: "note"}, t("The event is finished.")), el("p", {}, lobbyLink("#standings")))
        return
    }
    const reason = field(schemas.finish, "reason", {prefix: "fin-"})
    const out = $("outcome")
    const btn = el("button", {type: "submit", className: "danger", id: "finish-event"}, t("Finish the event"))
    const form = el("form", {className: "org-form", noValidate: true}, reason.root, el("div", {className: "actions"}, btn))
    form.addEventListener("submit", async (e) => {
        e.preventDefault()
        if (!confirm(t("Finish {event} now? The rounds played stand; no round can be paired after.", {event: event.name || tid}))) return
        const r = await call("POST", `/tournaments/${enc(tid)}/finish`, {reason: reason.get() || ""})
        showOutcome(out, r, t("The event is finished."))
    })
    sec.replaceChildren(el("h2", {}, t("Finish the event")),
        el("p", {className: "note"}, t("An event ends by itself after its last round; finish it here to end it early (the reason is recorded).")), form)
}

// -------------------------------------------------------------------------------- load
let built = {}   // section -> the key of what its form was built from
function renderEvent() {
    if (!event) return
    renderFacts()
    if (!built.players) {   // the forms keep what is typed: built once, the players' table re-read
        $("players").replaceChildren(el("h2", {}, t("Players")), el("div", {id: "players-list"}), ...registerForm(), ...importForms())
        built.players = true
    }
    $("players-list").replaceChildren(playersTable())
    // a section's form is rebuilt only when what it is built from changed (what is typed stays)
    const players = event.players.map((p) => `${p.player_id}:${p.number}`).join(",")
    const begun = event.rounds.map((r) => r.begun)
    const rebuild = {tokens: [players], lots: [players], pairing: [players, event.rounds.length, begun, event.status, event.system],
                     exports: [event.rounds.map((r) => r.boards.map((b) => b.code || b.result || b.status)), event.game],
                     finish: [event.status]}
    const renders = {tokens: renderTokens, lots: renderLots, pairing: renderPairing, exports: renderExports, finish: renderFinish}
    for (const [id, key] of Object.entries(rebuild)) {
        const k = JSON.stringify(key)
        if (built[id] !== k) { renders[id](); built[id] = k }
    }
    renderRoundsPaired()
    showSection()
}

const refreshEvent = coalesced(async () => {
    const r = await call("GET", `/tournaments/${enc(tid)}`)
    if (r.ok) { event = r.data; renderEvent() }
    else if (!event) showOutcome($("outcome"), r, "")
})

function rerender() {
    renderSignin()
    if (!tid) $("title").textContent = t("My events")
    if (tid) { built = {}; renderEvent() } else { renderEvents(); createForm() }
}

setupLanguage(rerender)
renderSignin()
if (tid) {
    window.addEventListener("hashchange", showSection)
    refreshEvent().finally(() => followStream(`/tournaments/${enc(tid)}/events`, main.dataset.events.split(" "), refreshEvent))
} else {
    $("title").textContent = t("My events")
    renderEvents()
    createForm()
}
