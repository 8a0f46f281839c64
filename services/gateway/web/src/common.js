// What every page needs: who the visitor is, the gateway's commands, its clock, and formatting.

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

export function describeRule(rule) {
    if (!rule) return ""
    return `${rule.game} ${rule.ruleset} art. ${rule.article}${rule.summary ? ": " + rule.summary : ""}`
}
