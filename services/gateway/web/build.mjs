// Bundles the browser pages into ../static (committed: the gateway serves them, CI needs no npm).
// Run by `make ui` after `npm ci`.
import {build} from "esbuild"
import {cpSync, mkdirSync, rmSync} from "node:fs"

const out = new URL("../static/", import.meta.url).pathname
rmSync(out, {recursive: true, force: true})
mkdirSync(out + "cm-chessboard/pieces", {recursive: true})
mkdirSync(out + "cm-chessboard/extensions/markers", {recursive: true})
await build({
    entryPoints: ["src/game.js", "src/event.js", "src/replay.js", "src/site.js", "src/organiser.js", "src/arbiter.css",
        "src/console.js", "src/console.css"],
    // the pages share the boards' code (cm-chessboard, shudan, preact): one chunk, loaded once
    bundle: true, splitting: true, chunkNames: "chunks/[name]-[hash]", minify: true, format: "esm", target: "es2020",
    outdir: out, legalComments: "linked", logLevel: "info",
    loader: {".png": "file", ".svg": "file"}, assetNames: "assets/[name]-[hash]",
    jsx: "automatic", jsxImportSource: "preact",
})
// cm-chessboard loads its SVG sprites at run time from `assetsUrl`
const assets = "node_modules/cm-chessboard/assets/"
cpSync(assets + "pieces/standard.svg", out + "cm-chessboard/pieces/standard.svg")
cpSync(assets + "extensions/markers/markers.svg", out + "cm-chessboard/extensions/markers/markers.svg")
cpSync("node_modules/cm-chessboard/LICENSE", out + "cm-chessboard/LICENSE")
