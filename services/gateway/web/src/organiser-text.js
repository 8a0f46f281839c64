// The organiser's pages' text: the labels of the API's fields (English) and the Chinese of
// every string the pages show (i18n.js's addStrings). The choices themselves come from the API.
export const LABELS = {
    name: "Name", tournament_id: "Event ID", game: "Game", system: "System", rounds: "Rounds",
    time_control: "Time control", tiebreaks: "Tie-break order", tiebreak_edition: "FIDE tie-break edition",
    default_time_s: "Default time (seconds late before a forfeit; 0: none)", initial_colour: "Colour of board 1's higher-ranked player in round 1",
    late_entries: "Late entries score the missed rounds as", natural_limit_moves: "Natural move limit (moves without a capture)",
    repetition_rulings: "Repetition (棋例) rulings", board_size: "Board size (lines)", go_rules: "Go rules", komi: "Komi",
    handicap: "Handicap stones", mcmahon_bar: "McMahon top bar (grade)", mcmahon_floor: "McMahon bottom bar (grade)",
    games_per_match: "Games a match", seeding: "Seeding", playoff_games: "Play-off games a level match may take",
    playoff_decider: "Then decided by", team_boards: "Boards a team match", team_format: "Team format",
    player_id: "Player ID", rating: "Rating", title: "Title", fide_id: "FIDE ID", federation: "Federation", grade: "Grade (e.g. 3d, 5k)",
    club: "Club", team: "Team", board: "Board in the team's order", reason: "Reason",
    round_start: "Clocks start", public: "Published (anyone reads it)",
}

// English names of the API's values where the value alone says too little (the key of their Chinese)
export const VALUES = {
    Z: "Z: zero-point byes", H: "H: half-point byes", "on-request": "on request (art. 24)", automatic: "automatic",
    "sudden-death": "sudden death", fischer: "Fischer increment", bronstein: "Bronstein delay", "simple-delay": "simple delay",
    "moves-in-time": "moves in a time, repeating", "byo-yomi": "byo-yomi", canadian: "Canadian overtime",
    reserve: "Chinese reserve (读秒, 1988 art. 12.2)", "higher-seed": "the higher seed", "all-play-all": "all play all",
    auto: "with the pairing", "on-command": "on command (Start round)",
}

export const ZH_ORGANISER = {
    // fields
    "Name": "姓名", "Event name": "赛事名称", "Event ID": "赛事编号", "Game": "棋种", "System": "赛制", "Rounds": "轮数", "Time control": "用时",
    "Tie-break order": "破同分顺序", "FIDE tie-break edition": "国际棋联破同分规程版本",
    "Default time (seconds late before a forfeit; 0: none)": "迟到判负时限（秒；0：不限）",
    "Colour of board 1's higher-ranked player in round 1": "第一轮第1台排名较高者的执色",
    "Late entries score the missed rounds as": "迟报名者所缺轮次计为", "Natural move limit (moves without a capture)": "自然限着（无吃子回合数）",
    "Repetition (棋例) rulings": "棋例裁决", "Board size (lines)": "棋盘路数", "Go rules": "围棋规则", "Komi": "贴目",
    "Handicap stones": "让子数", "McMahon top bar (grade)": "麦克马洪上限（段级位）", "McMahon bottom bar (grade)": "麦克马洪下限（段级位）",
    "Games a match": "每场对局数", "Seeding": "种子排序", "Play-off games a level match may take": "平局后加赛局数上限",
    "Then decided by": "仍平则按", "Boards a team match": "团体赛每场台数", "Team format": "团体赛形式",
    "Player ID": "棋手编号", "Rating": "等级分", "Title": "称号", "FIDE ID": "国际棋联编号", "Federation": "协会",
    "Grade (e.g. 3d, 5k)": "段级位（如 3d、5k）", "Club": "单位", "Team": "队", "Board in the team's order": "队内台次", "Reason": "理由",
    // choices
    "(the API's default)": "（接口默认）", "the edition in force on the day": "创建当日施行的版本",
    "team-round-robin": "团体循环赛", "double-elimination": "双败淘汰制",
    "chinese": "中国规则", "japanese": "日本规则", "ing": "应氏规则", "tromp-taylor": "Tromp-Taylor规则", "aga": "美国围棋协会规则",
    "nz": "新西兰规则", "korean": "韩国规则", "automatic": "自动裁决",
    "Z: zero-point byes": "零分轮空 Z", "H: half-point byes": "半分轮空 H", "on request (art. 24)": "应请求裁决（第24条）",
    "the higher seed": "种子排名较高者胜", "all play all": "全员对抗", "rating": "按等级分", "registration": "按报名顺序", "lots": "抽签",
    "fixed": "固定台次", "reserves": "含替补", "per-match": "每场排阵",
    "member-total": "按队员名次合计",
    "sudden death": "包干制", "Fischer increment": "费舍尔加秒", "Bronstein delay": "布朗斯坦延时", "simple delay": "简单延时",
    "moves in a time, repeating": "限时限着（循环）", "byo-yomi": "读秒", "Canadian overtime": "加拿大读秒",
    "Chinese reserve (读秒, 1988 art. 12.2)": "保留读秒（1988规则第12.2条）",
    "typed by hand": "手动输入", "preset": "预设", "Kind": "方式", "Time control text": "用时文本",
    "Base time (minutes)": "基本用时（分钟）", "Moves": "步数", "Seconds a move (increment, delay, byo-yomi)": "每步秒数（加秒、延时、读秒）",
    "Periods (byo-yomi), moves (Canadian), minutes (reserve)": "次数（读秒）、步数（加拿大）、分钟（保留）",
    "The text the API reads (PGN TimeControl in seconds, a Go overtime form or a preset name).": "接口读取的文本（以秒计的PGN TimeControl、围棋读秒形式或预设名称）。",
    "Add": "添加", "Tie-break code": "破同分代码", "up": "上移", "down": "下移", "remove": "删除",
    "None chosen: the API's default order for the game and system.": "未选择：按棋种和赛制的接口默认顺序。",
    "Letters, digits, - and _; left empty, the gateway draws one.": "字母、数字、- 和 _；留空则由网关生成。",
    // my events
    "My events": "我的赛事", "Create an event": "创建赛事", "Create the event": "创建赛事", "Created: {id}.": "已创建：{id}。",
    "Run it: players, lots, pairings": "管理：棋手、抽签、编排", "Event": "赛事", "Status": "状态", "Players": "棋手", "Lobby": "赛事大厅",
    "No event yet: create one below.": "尚无赛事：请在下方创建。", "Sign in to see your events.": "登录后可查看你的赛事。",
    "Organiser": "组织者", "Organiser's token": "组织者令牌", "Sign in": "登录", "Sign out": "退出",
    "Signed in as {sub} ({role}).": "已登录：{sub}（{role}）。",
    "A token of role organiser (arbiter token issue --role organiser --sub YOU), or the administrator's. A gateway without identity needs none.":
        "组织者角色的令牌（arbiter token issue --role organiser --sub 你的编号）或管理员令牌。未启用身份验证的网关无需令牌。",
    "Refused": "被拒绝", "Sent; no decision yet: it shows here once made.": "已发送，尚未裁定：裁定后显示于此。",
    // an event
    "The event's lobby": "赛事大厅", "Tokens": "令牌", "Lots": "抽签", "Pairing": "编排", "Finish": "结束",
    "{n} of {of} rounds paired": "已编排{n}轮（共{of}轮）", "{n} rounds paired": "已编排{n}轮", "No.": "序号", "ID": "编号", "Grade": "段级位",
    "Register a player": "登记棋手", "Register": "登记", "Registered: {name}.": "已登记：{name}。",
    "Import players": "导入棋手", "CSV (a header row, then a player a row)": "CSV（首行为列名，之后每行一名棋手）",
    "Columns: name (required) and any of {cols}; comma, semicolon or tab.": "列：name（必填）及 {cols} 中任意列；以逗号、分号或制表符分隔。",
    "or a CSV file": "或选择CSV文件", "Read the CSV": "读取CSV", "FIDE TRF-16 file (its players, not its rounds)": "国际棋联TRF-16文件（只导入棋手，不导入轮次）",
    "Read the TRF": "读取TRF", "Read from the {source}: {n} players": "从{source}读取：{n}名棋手", "Rows left out:": "未采用的行：",
    "line {line}": "第{line}行", "Outcome": "结果", "registered": "已登记", "Register these {n} players": "登记这{n}名棋手",
    "{n} of {of} players registered.": "已登记{n}名棋手（共{of}名）。",
    "Player tokens": "棋手令牌", "Valid for (seconds)": "有效期（秒）", "Issue tokens for the {n} players": "为{n}名棋手签发令牌",
    "{n} tokens issued, valid until {when}.": "已签发{n}个令牌，有效期至{when}。", "Print": "打印", "Sign-in link": "登录链接",
    "Each player signs in with his token: the link opens the event's lobby signed in. Tokens are not stored: print them or send them now.":
        "棋手凭令牌登录：链接以登录状态打开赛事大厅。令牌不会保存：请现在打印或发送。",
    "Draw lots": "抽签", "Draw at random": "随机抽签", "Record the lots": "记录抽签结果", "Lots recorded.": "抽签结果已记录。", "Number": "签号",
    "The draw numbers (1 to {n}, each once) place the players in the Berger tables of a round robin and seed a knockout; a Swiss event pairs by rating.":
        "签号（1至{n}，各用一次）决定循环赛贝格尔表中的位置和淘汰赛的种子；瑞士制按等级分编排。",
    "Pair round {n} ({system})": "编排第{n}轮（{system}）", "Pair round {n} as entered": "按所填编排第{n}轮", "Pair by hand": "手动编排",
    "Pairing a round publishes its pairings and starts its games.": "编排一轮即公布对阵并开始该轮对局。",
    "Requested byes (F full point, H half, Z zero)": "申请轮空（F 计一分，H 计半分，Z 计零分）", "plays": "参赛",
    "bye F": "轮空 F（一分）", "bye H": "轮空 H（半分）", "bye Z": "轮空 Z（零分）", "no bye": "无轮空",
    "Bye (the pairing's, one point)": "编排轮空（计一分）", "Add a board": "添加台次", "remove the board": "删除此台",
    "Round {n} paired.": "第{n}轮已编排。", "Round {n} paired by hand.": "第{n}轮已手动编排。", "See it in the lobby": "在赛事大厅查看",
    "Rounds paired": "已编排的轮次", "Every planned round is paired.": "所有计划轮次均已编排。",
    "The event is finished.": "赛事已结束。", "Finish the event": "结束赛事",
    "Finish {event} now? The rounds played stand; no round can be paired after.": "现在结束{event}吗？已赛轮次有效；之后不能再编排。",
    "An event ends by itself after its last round; finish it here to end it early (the reason is recorded).":
        "赛事在最后一轮后自动结束；在此可提前结束（理由将被记录）。",
    // starting a round, a pairing by hand's reason, publication
    "Clocks start": "计时开始", "with the pairing": "编排后即开始", "on command (Start round)": "按指令（开始本轮）",
    "Published (anyone reads it)": "公开（任何人可查看）",
    "On command: a round's pairings are published first and its games wait; their clocks start when the organiser or an arbiter starts the round (FIDE Laws 1994 art. 12.3).":
        "按指令：先公布一轮的对阵，对局等待；组织者或裁判开始本轮时计时开始（国际棋联1994年规则第12.3条）。",
    "Unpublished: only the organiser, the event's arbiters and players and integrators whose token names it read it.":
        "不公开：仅组织者、本赛事的裁判、棋手及令牌包含本赛事的接入方可查看。",
    "clocks start on command": "按指令开始计时", "unpublished": "不公开",
    "Start round {n}": "开始第{n}轮", "Round {n} started: its clocks run.": "第{n}轮已开始：棋钟开始计时。",
    "Round {n} is paired and published; its games wait: their clocks start when you start the round.":
        "第{n}轮已编排并公布；对局等待中：开始本轮后棋钟开始计时。",
    "Pairing a round publishes its pairings; its clocks start when you start the round.": "编排一轮即公布对阵；开始本轮后棋钟开始计时。",
    "Why by hand (recorded with the round)": "手动编排的理由（随本轮记录）",
    "e.g. two players of one family kept apart; a pairing error corrected": "例如：避免同一家庭的棋手相遇；更正编排错误",
    "a pairing by hand needs its reason": "手动编排须填写理由",
    // exports
    "Exports": "导出", "Downloaded: {file}.": "已下载：{file}。", "Tournament report (TRF)": "赛事报告（TRF）",
    "Files the gateway writes from the event's log: the tournament report for the rating office (FIDE TRF-16) and the games' records (PGN: chess and xiangqi; SGF: Go). The page fetches them signed in: an unpublished event's files need your token.":
        "网关根据赛事日志生成的文件：供等级分机构使用的赛事报告（国际棋联TRF-16）和对局记录（PGN：国际象棋、中国象棋；SGF：围棋）。本页以登录身份下载：不公开赛事的文件需要你的令牌。",
    "Notation of the PGN files": "PGN文件的记谱法", "Chinese notation (炮二平五)": "中文记谱（炮二平五）",
    "WXF (C2=5)": "WXF记谱（C2=5）", "ICCS (h2e2)": "ICCS坐标（h2e2）", "Every game (PGN)": "全部对局（PGN）",
    "Each game's record": "各局棋谱", "Round": "轮次", "Record": "棋谱", "No game yet: the records come with the pairings.": "尚无对局：编排后即有棋谱。",
}
