// The three boards behind one interface, so the pages do not care which game they show:
//   const b = createBoard(el, g, bottom, onMove)   (g: GET /games/{gid}; bottom: "white"/"black")
//   b.update(g, inputColour)   the position of g; moves by this colour allowed (null: none)
// onMove(move) receives the move in the notation the gateway reads for that game (chess UCI,
// xiangqi ICCS, Go GTP). The gateway validates every move: the boards only collect them.
import {Chessboard, COLOR, INPUT_EVENT_TYPE} from "cm-chessboard/src/Chessboard.js"
import {Markers} from "cm-chessboard/src/extensions/markers/Markers.js"
import {PromotionDialog, PROMOTION_DIALOG_RESULT_TYPE} from "cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js"
import {h, render} from "preact"
import {BoundedGoban} from "@sabaki/shudan"

export function toMove(g) {
    if (g.game === "go") return g.go && g.go.to_move
    return g.fen.split(" ")[1] === "b" ? "black" : "white"
}

// Game view g as at position `fen` (one of its positions: the start or a move's fen_after), for
// a board that shows it: a Go position's rows and turn are read from the position text, and its
// dead stones only shown in the game's last position (`final`).
export function atPosition(g, fen, final) {
    if (g.game !== "go") return {...g, fen}
    const {rows, turn} = goPosition(fen)
    const go = {...(g.go || {}), board: rows, to_move: turn}
    if (!final) Object.assign(go, {dead: null, proposals: {}})
    return {...g, fen, go}
}

// ------------------------------------------------------------------------------------- chess
function chessBoard(el, g, bottom, onMove) {
    let colour = null, enabled = false, game = g
    const board = new Chessboard(el, {
        position: g.fen, assetsUrl: "/ui/static/cm-chessboard/",
        orientation: bottom === "black" ? COLOR.black : COLOR.white,
        style: {cssClass: "default", borderType: "thin", animationDuration: 150},
        extensions: [{class: Markers, props: {autoMarkers: null}}, {class: PromotionDialog}],
    })
    function input(event) {
        if (event.type === INPUT_EVENT_TYPE.moveInputStarted) {
            return !!event.piece && event.piece.charAt(0) === colour.charAt(0) && toMove(game) === colour
        }
        if (event.type !== INPUT_EVENT_TYPE.validateMoveInput) return true
        const {squareFrom, squareTo, piece} = event
        if (piece.charAt(1) === "p" && squareTo.charAt(1) === (colour === "white" ? "8" : "1")) {
            board.showPromotionDialog(squareTo, colour === "white" ? COLOR.white : COLOR.black, (r) => {
                if (r.type === PROMOTION_DIALOG_RESULT_TYPE.pieceSelected) onMove(squareFrom + squareTo + r.piece.charAt(1))
                else board.setPosition(game.fen, false)
            })
            return true
        }
        onMove(squareFrom + squareTo)
        return true  // shown at once; the next read of the game puts it back if it is refused
    }
    return {
        update(g, inputColour) {
            game = g
            if (board.getPosition() !== g.fen.split(" ")[0]) board.setPosition(g.fen, true)
            const want = !!inputColour
            if (want !== enabled || inputColour !== colour) {  // cm-chessboard enables its input once
                if (enabled) board.disableMoveInput()
                colour = inputColour
                if (want) board.enableMoveInput(input, colour === "white" ? COLOR.white : COLOR.black)
                enabled = want
            }
        },
    }
}

// ------------------------------------------------------------------------------------ xiangqi
// Drawn in SVG: 9 files (a-i) x 10 ranks (0-9 from Red's side, as ICCS counts them).
const XQ_CHARS = {K: "帅", A: "仕", B: "相", N: "马", R: "车", C: "炮", P: "兵",
                  k: "将", a: "士", b: "象", n: "马", r: "车", c: "炮", p: "卒"}
const SVG = "http://www.w3.org/2000/svg"
const svg = (tag, attrs = {}, text) => {
    const e = document.createElementNS(SVG, tag)
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v)
    if (text !== undefined) e.textContent = text
    return e
}

export function xiangqiPieces(fen) {
    // {"e0": "K", ...} from the FEN's board (its first row is rank 9)
    const out = {}
    fen.split(" ")[0].split("/").forEach((row, i) => {
        let file = 0
        for (const ch of row) {
            if (/\d/.test(ch)) file += Number(ch)
            else out["abcdefghi"[file++] + (9 - i)] = ch
        }
    })
    return out
}

function xiangqiBoard(el, g, bottom, onMove) {
    const flip = bottom === "black"
    const X = (f) => 6 + 10 * (flip ? 8 - f : f), Y = (r) => 6 + 10 * (flip ? r : 9 - r)
    const root = svg("svg", {viewBox: "0 0 92 102", class: "xiangqi", role: "img", "aria-label": "xiangqi board"})
    const lines = svg("g", {class: "lines"})
    for (let r = 0; r <= 9; r++) lines.append(svg("line", {x1: X(0), y1: Y(r), x2: X(8), y2: Y(r)}))
    for (let f = 0; f <= 8; f++) {
        if (f === 0 || f === 8) lines.append(svg("line", {x1: X(f), y1: Y(0), x2: X(f), y2: Y(9)}))
        else {
            lines.append(svg("line", {x1: X(f), y1: Y(0), x2: X(f), y2: Y(4)}))
            lines.append(svg("line", {x1: X(f), y1: Y(5), x2: X(f), y2: Y(9)}))
        }
    }
    for (const [r0, r1] of [[0, 2], [7, 9]]) {  // the palaces' diagonals
        lines.append(svg("line", {x1: X(3), y1: Y(r0), x2: X(5), y2: Y(r1)}))
        lines.append(svg("line", {x1: X(5), y1: Y(r0), x2: X(3), y2: Y(r1)}))
    }
    root.append(lines)
    root.append(svg("text", {x: 28, y: 52.6, class: "river"}, "楚 河"), svg("text", {x: 64, y: 52.6, class: "river"}, "漢 界"))
    const pieces = svg("g", {class: "pieces"})
    const targets = svg("g", {class: "targets"})
    root.append(pieces, targets)
    el.replaceChildren(root)
    let colour = null, selected = null, game = g
    for (let f = 0; f <= 8; f++) {
        for (let r = 0; r <= 9; r++) {
            const sq = "abcdefghi"[f] + r
            const t = svg("rect", {x: X(f) - 5, y: Y(r) - 5, width: 10, height: 10, "data-square": sq})
            t.addEventListener("click", () => click(sq))
            targets.append(t)
        }
    }
    function mine(p) {
        return !!p && (colour === "white" ? p === p.toUpperCase() : p === p.toLowerCase())
    }
    function click(sq) {
        if (!colour || toMove(game) !== colour) return
        const here = xiangqiPieces(game.fen)[sq]
        if (mine(here)) selected = sq
        else if (selected) {
            onMove(selected + sq)
            selected = null
        }
        draw()
    }
    function draw() {
        pieces.replaceChildren()
        for (const [sq, p] of Object.entries(xiangqiPieces(game.fen))) {
            const f = sq.charCodeAt(0) - 97, r = Number(sq.slice(1))
            const red = p === p.toUpperCase()
            const grp = svg("g", {class: `piece ${red ? "red" : "black"}${sq === selected ? " selected" : ""}`, "data-square": sq, "data-piece": p})
            grp.append(svg("circle", {cx: X(f), cy: Y(r), r: 4.4}), svg("text", {x: X(f), y: Y(r) + 1.9}, XQ_CHARS[p]))
            pieces.append(grp)
        }
    }
    draw()
    return {
        update(g, inputColour) {
            if (g.fen !== game.fen) selected = null
            game = g
            colour = inputColour
            root.classList.toggle("input-enabled", !!colour)
            draw()
        },
    }
}

// ----------------------------------------------------------------------------------------- Go
const GTP_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"

export function gtp(x, y, size) {
    return GTP_LETTERS[x] + (size - y)
}

// A Go position's text ("go 9 chinese black ko=- passes=0 prisoners=0,0 B:dd,ee W:cc", stones
// in SGF coordinates, shared/rules/go.py Board.to_text): its rows (top first, X black, O white,
// . empty) and the colour to move
export function goPosition(text) {
    const parts = text.split(" ")
    const size = Number(parts[1])
    const rows = Array.from({length: size}, () => Array(size).fill("."))
    for (const [prefix, mark] of [["B:", "X"], ["W:", "O"]]) {
        const field = parts.find((p) => p.startsWith(prefix)) || prefix
        for (const sgf of field.slice(2).split(",").filter(Boolean)) {
            rows[sgf.charCodeAt(1) - 97][sgf.charCodeAt(0) - 97] = mark
        }
    }
    return {rows: rows.map((r) => r.join("")), turn: parts[3]}
}

// Go: `onMark(point)` (optional) is called when a player clicks a stone while the dead stones
// are settled (phase "scoring"); `marked` (update's third argument, GTP points) are dimmed then
function goBoard(el, g, bottom, onMove, onMark) {
    let colour = null, game = g, marked = null
    function draw() {
        const rows = (game.go && game.go.board) || []
        const size = rows.length
        const signMap = rows.map((row) => [...row].map((c) => (c === "X" ? 1 : c === "O" ? -1 : 0)))
        const go = game.go || {}
        const scoring = go.phase === "scoring"
        // agreed, else the player's own marks, else a proposal
        const dead = go.dead || (scoring && marked) || Object.values(go.proposals || {})[0] || []
        const dimmed = dead.map((v) => [GTP_LETTERS.indexOf(v[0]), size - Number(v.slice(1))])
        const width = el.clientWidth || 480
        render(h(BoundedGoban, {
            signMap, maxWidth: width, maxHeight: width, showCoordinates: true, dimmedVertices: dimmed,
            busy: !colour, fuzzyStonePlacement: false, animateStonePlacement: false,
            onVertexClick: (evt, [x, y]) => {
                if (colour && scoring && signMap[y][x] !== 0 && onMark) onMark(gtp(x, y, size))
                else if (colour && toMove(game) === colour && signMap[y][x] === 0) onMove(gtp(x, y, size))
            },
        }), el)
    }
    new ResizeObserver(() => draw()).observe(el)
    return {
        update(g, inputColour, marks = null) {
            game = g
            colour = inputColour
            marked = marks
            draw()
        },
    }
}

// onMark: Go only (goBoard)
export function createBoard(el, g, bottom, onMove, onMark = null) {
    const make = {chess: chessBoard, xiangqi: xiangqiBoard, go: goBoard}[g.game]
    el.dataset.game = g.game
    return make(el, g, bottom, onMove, onMark)
}
