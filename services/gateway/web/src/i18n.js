// English and Chinese. The English text is the key; a page's fixed text carries it in
// data-i18n (set by the gateway) and is rewritten on a switch, its live text is rendered with t().
// The language: ?lang=zh|en, else the last choice (localStorage), else the browser's.
// A refusal's code (the API's closed lists: GatewayCode, ClaimRejectCode, RejectCode,
// TournamentRejectCode) has its Chinese meaning in refusal-codes.json (test_ui_refusal_codes.py).
import REFUSAL_CODES from "./refusal-codes.json"

const ZH = {
    "Games": "对局", "games": "对局", "game": "对局", "players": "棋手", "event": "赛事", "status": "状态",
    "result": "结果", "Events": "赛事", "No games yet.": "暂无对局。", "API": "接口",
    "ongoing": "进行中", "ended": "已结束", "created": "未开始",
    "Move": "着法", "Play": "走棋", "Offer draw": "提和", "Accept draw": "同意和棋",
    "Decline draw": "拒绝和棋", "Resign": "认输", "Pass": "停一手",
    "Accept the dead stones": "同意死子", "Resume play": "继续对局",
    "Click the stones you hold dead. Marked:": "点击你认为是死子的棋子。已标记：", "Propose these dead stones": "提出这些死子", "moves": "棋谱",
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
    // draw claims and 棋例 ruling requests on the game page; a ruling's verdict (also the console's)
    "Claim a draw": "申请和棋", "Claim a draw or ask for the 棋例 ruling": "申请和棋或请求棋例裁决", "Claim": "申请",
    "Intended move (optional)": "拟走着法（可不填）",
    "Threefold repetition (art. 10.10)": "三次重复局面（第10.10条）",
    "50 moves without a capture or pawn move (art. 10.12)": "五十回合未吃子、未动兵（第10.12条）",
    "Natural move limit without a capture (art. 4.2.4)": "自然限着：限定步数内未吃子（第4.2.4条）",
    "The 棋例 ruling on a position repeated three times (art. 24)": "对三次重复的局面请求棋例裁决（第24条）",
    "Only the player to move claims. With a move written here, the claim is about the position after it and the move is not played (art. 10.10(1)). An incorrect claim costs 5 minutes (art. 10.13(2)).":
        "只有轮到走棋的一方可以申请。填写拟走着法时，申请针对该着法走后的局面，该着法不在棋盘上走出（第10.10(1)条）。申请不成立扣除5分钟（第10.13(2)条）。",
    "Either player may claim. An untrue natural-limit claim is a foul and costs 5 minutes (art. 23.3); a ruling asked for before the third repetition is refused without a foul.":
        "双方均可申请。自然限着申请不实判犯规一次并扣除5分钟（第23.3条）；局面重复不足三次时请求裁决不予受理，不判犯规。",
    "{side}'s claim upheld ({reason}): {result}": "{side}的申请成立（{reason}）：{result}",
    "{side}'s claim refused ({reason}, {code}): {detail}": "{side}的申请不成立（{reason}，{code}）：{detail}",
    "棋例 ruling asked for by {side}: {verdict}; {detail}": "{side}请求的棋例裁决：{verdict}；{detail}",
    "{side} claims: {reason}; waiting for the decision": "{side}申请：{reason}；等待裁决",
    "{side} loses": "{side}负", "{side} must vary": "{side}须变着", "draw": "和棋",
    // the event lobby, standings, crosstable and the replay viewer
    "sections": "栏目", "Live boards": "直播棋盘", "Rounds": "轮次", "Standings": "排名", "Crosstable": "成绩交叉表",
    "Tie-breaks": "破同分规则", "Board": "台次", "Result": "结果", "Round {n}": "第{n}轮", "Board {n}": "第{n}台",
    "round {n} of {of}": "第{n}轮（共{of}轮）", "round {n}": "第{n}轮", "not paired yet": "尚未编排",
    "{n} players": "{n}名棋手", "No round paired yet.": "尚未编排任何一轮。", "bye: {player}": "轮空：{player}",
    "No game in progress.": "没有进行中的对局。", "{n} more games in progress: see Rounds.": "另有{n}盘对局进行中：见“轮次”。",
    "{n} moves, last {move}": "{n}步，最后一步 {move}", "Rank": "名次", "Player": "棋手", "Score": "积分",
    "Played": "局数", "No.": "序号", "Rating": "等级分", "R{n}": "第{n}轮", "After round {n}": "第{n}轮后",
    "No standings yet: they are published once every game of a round has ended.": "暂无排名：一轮的所有对局结束后公布。",
    "The standings of a later round were withheld: {why}": "后一轮的排名未公布：{why}",
    "Tie-break regulations: {edition}": "破同分规程：{edition}",
    "No FIDE tie-break edition: the event ranks by the rules named below.": "不采用国际棋联破同分规程：本赛事按下列规则排名。",
    "no description": "无说明",
    "chess": "国际象棋", "xiangqi": "中国象棋", "go": "围棋", "swiss": "瑞士制", "round-robin": "单循环",
    "double-round-robin": "双循环", "knockout": "淘汰制", "chinese-swiss": "积分编排制", "mcmahon": "麦克马洪制",
    "open": "报名中", "running": "进行中", "finished": "已结束",
    "Score: the points of the games finished so far; Rank: the latest standings' (after round {n}).":
        "积分：已结束对局的得分；名次：最新排名（第{n}轮后）。",
    "Score: the points of the games finished so far; Rank: none yet, no round is completed.":
        "积分：已结束对局的得分；名次：暂无，尚无一轮全部结束。",
    "Replay": "复盘", "Game page": "对局页面", "move {n} of {of}": "第{n}步（共{of}步）",
    "The game is not over: this replay shows its moves so far.": "对局尚未结束：复盘显示目前为止的着法。",
    "replay": "复盘", "first": "开局", "back": "后退一步", "forward": "前进一步", "last": "终局",
    "{event} round {round} board {board}": "{event} 第{round}轮 第{board}台",
    "paired by hand": "手动编排", "its clocks wait for the start": "棋钟等待开始",
    // the index's links to the officials' pages
    "For officials": "裁判与组织者", "Organiser's pages": "组织者页面", "Arbiter console": "裁判控制台",
    "signed in as {sub} ({role})": "已登录：{sub}（{role}）", "sign in there with a token of role {role}": "请在该页以{role}角色的令牌登录",
    // tie-break codes' meanings and the FIDE editions' sources (shared/domain/tiebreaks.py)
    "FIDE C.07 Play-Off and Tie-Break Regulations approved by the FIDE Council on 1 Aug 2023, applied from 1 Sep 2023 (art. 16: dummy opponent)":
        "国际棋联 C.07 附加赛与破同分规程，2023年8月1日理事会批准，2023年9月1日起施行（第16条：虚拟对手）",
    "FIDE C.07 effective from 1 Apr 2024; FIDE news of 19 Jan 2024: no tie-break definition changed from the 2023 text, only the explanations":
        "国际棋联 C.07，2024年4月1日起施行；据国际棋联2024年1月19日公告，破同分定义与2023年文本相同，仅说明有所修订",
    "direct encounter: points scored in the games among the tied players": "直胜：同分棋手之间对局的得分",
    "rounds won (forfeit wins and full-point byes included)": "胜局数（含弃权胜和计一分的轮空）",
    "games won over the board": "实际对弈的胜局数",
    "games played over the board with Black": "执黑实际对弈的局数",
    "games won over the board with Black": "执黑实际对弈的胜局数",
    "progressive score: the sum of the running scores after each round": "累进分：每轮后累计积分之和",
    "Buchholz: the sum of the opponents' scores": "对手分（布赫霍尔茨）：所有对手的积分之和",
    "Sonneborn-Berger: the sum of points scored times the opponent's score": "小分（索伯分）：每局得分乘以该对手积分之和",
    "Koya: points scored against opponents with at least half the maximum score": "科亚分：对积分不少于满分一半的对手所得的分",
    "average rating of the opponents": "对手平均等级分",
    "tournament performance rating": "赛事表现等级分",
    "sum of the opponents' scores": "对手分：所有对手的积分之和",
    "sum of the opponents' SOS": "对手的对手分之和",
    "sum of the scores of the opponents defeated": "所胜对手的积分之和",
    "McMahon score: initial McMahon score plus points": "麦克马洪分：初始麦克马洪分加得分",
    "fouls (fewer ranks higher)": "犯规次数（少者列前）",
    "penalties: warnings and game disqualifications (fewer ranks higher)": "处罚：警告与判负（少者列前）",
    "start number (lower ranks higher)": "序号（小者列前）",
    "without the least significant value": "去掉最不利的一个值",
    "without the two least significant values": "去掉最不利的两个值",
    "without the highest and the lowest value": "去掉最高和最低各一个值",
    "without the two highest and the two lowest values": "去掉最高和最低各两个值",
    "A cell: the opponent's number, the colour (w white, b black) and the score (1, ½, 0); + / - a forfeit won / lost; bye; blank: not paired.":
        "格内：对手序号、执色（w 白，b 黑）和得分（1、½、0）；+ / - 弃权胜 / 负；bye 轮空；空白：未编排。",
    "Keys: ← → a move back / forward, Home / End the start / the last position.": "按键：← → 后退 / 前进一步，Home / End 开局 / 终局。",
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

// More Chinese text for a page's own strings (a page's module calls it before rendering)
export function addStrings(zh) {
    Object.assign(ZH, zh)
}

export function t(en, vars = {}) {
    const text = (lang === "zh" && ZH[en]) || en
    return text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? vars[k] : m))
}

// A refusal's code as shown beside the server's detail: the code, and in Chinese its meaning
// ("incorrect-claim：申请不成立")
export function codeText(code) {
    return lang === "zh" && REFUSAL_CODES[code] ? `${code}：${REFUSAL_CODES[code]}` : code
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

