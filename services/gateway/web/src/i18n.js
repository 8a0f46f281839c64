// English and Chinese. The English text is the key; a page's fixed text carries it in
// data-i18n (set by the gateway) and is rewritten on a switch, its live text is rendered with t().
// The language: ?lang=zh|en, else the last choice (localStorage), else the browser's.
const ZH = {
    "Games": "对局", "game": "对局", "players": "棋手", "event": "赛事", "status": "状态",
    "result": "结果", "Events": "赛事", "No games yet.": "暂无对局。", "API": "接口",
    "ongoing": "进行中", "ended": "已结束", "created": "未开始",
    "Move": "着法", "Play": "走棋", "Offer draw": "提和", "Accept draw": "同意和棋",
    "Decline draw": "拒绝和棋", "Resign": "认输", "Pass": "停一手",
    "Accept the dead stones": "同意死子", "Resume play": "继续对局", "moves": "棋谱",
    "White": "白方", "Black": "黑方", "Red": "红方", "white": "白方", "black": "黑方", "red": "红方",
    "spectator": "观众", "player": "棋手", "arbiter": "裁判", "organiser": "组织者", "admin": "管理员",
    "{side} to move": "{side}走棋", " (you)": "（你）", "Waiting for the game to start": "等待对局开始",
    "Game over: {result}": "对局结束：{result}", "{side} offers a draw": "{side}提和",
    "Refused": "被拒绝", "Resign this game?": "确定认输吗？", "result pending": "结果待定",
    "{side} proposes as dead: {stones}": "{side}提出死子：{stones}", "none": "无",
    "no proposal yet": "尚无死子提议", "scoring": "点目", "counting": "数子", "counted": "已数子",
    // reasons of a result (GameEnded.reason)
    "resignation": "认输", "checkmate": "将死", "stalemate": "无子可动", "timeout": "超时",
    "agreement": "议和", "forfeit": "判负", "double-forfeit": "双方判负", "threefold": "三次重复",
    "fifty-moves": "五十回合", "insufficient-material": "子力不足", "repetition": "重复局面",
    "count": "数子", "natural-limit": "自然限着", "fivefold-repetition": "五次重复",
    "seventyfive-moves": "七十五回合", "dead-position": "死局", "perpetual-check": "长将",
    "repetition-ruling": "棋例裁决", "repetition-draw": "重复和棋", "count-failed": "数子未成",
    "stone-removal-timeout": "提死子超时", "play": "对弈",
}

const KEY = "arbiter.lang"

function initial() {
    const q = new URLSearchParams(location.search).get("lang")
    if (q === "zh" || q === "en") localStorage.setItem(KEY, q)
    const saved = localStorage.getItem(KEY)
    if (saved === "zh" || saved === "en") return saved
    return (navigator.language || "").toLowerCase().startsWith("zh") ? "zh" : "en"
}

let lang = initial()

export function t(en, vars = {}) {
    const text = (lang === "zh" && ZH[en]) || en
    return text.replace(/\{(\w+)\}/g, (_, k) => vars[k])
}

function applyFixed() {
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en"
    for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n)
    for (const el of document.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel))
    const b = document.getElementById("lang")
    if (b) {
        b.textContent = lang === "zh" ? "English" : "中文"
        b.setAttribute("lang", lang === "zh" ? "en" : "zh")
    }
}

// Sets the page's fixed text and the switch (#lang); onChange re-renders the live text.
export function setupLanguage(onChange = () => {}) {
    applyFixed()
    const b = document.getElementById("lang")
    if (b) b.addEventListener("click", () => {
        lang = lang === "zh" ? "en" : "zh"
        localStorage.setItem(KEY, lang)
        applyFixed()
        onChange()
    })
}
