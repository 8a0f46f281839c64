"""The browser pages the gateway serves: ``/`` (the events and games it knows, with links), the
game page ``/ui/games/{gid}`` and its static files ``/ui/static/`` (built from
``services/gateway/web`` by ``make ui`` and committed: no CDN, no npm at run time).

The pages read and write through the gateway's own HTTP API and follow its SSE streams; this
module only serves them (and ``/ui/now``, the gateway's clock, against which a page counts the
running clock down to the clock service's ``deadline_ms``).
"""
from __future__ import annotations

from html import escape
from itertools import islice
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from contracts.messages import GAME_EVENTS, PAYLOAD_TYPES

#: The messages of a game's event stream: each is an SSE event name the game page listens to.
GAME_EVENT_TYPES = sorted(n for n, p in PAYLOAD_TYPES.items() if p.TOPIC == GAME_EVENTS)
STATIC = Path(__file__).resolve().parent / "static"
#: At most this many games are listed on ``/`` (the most recent first).
INDEX_GAMES = 200


def _page(title: str, body: str, status: int = 200, *, main_class: str = "index", main_attrs: str = "",
          script: str = "site.js",
          who: str = '<a class="who" href="/docs" data-i18n="API">API</a>') -> HTMLResponse:
    """A page of the site: the header bar (with the language switch), ``body`` in ``<main>``,
    the shared style sheet and the page's ``script`` (a module of /ui/static). Fixed text
    carries its English in ``data-i18n``: the script shows it in the visitor's language."""
    js = f'<script type="module" src="/ui/static/{script}"></script>'
    return HTMLResponse(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
        f'content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
        f'<link rel="icon" href="data:,"><link rel="stylesheet" href="/ui/static/arbiter.css">{js}'
        f'</head><body><header class="bar"><a href="/">Arbiter</a> <span id="title">{escape(title)}'
        f'</span>{who}<button id="lang" type="button" lang="zh">中文</button></header><main class="{main_class}"{main_attrs}>{body}</main></body></html>',
        status_code=status)


#: The game page's body; ``game.js`` fills it from GET /games/{gid} and the game's SSE stream.
GAME_BODY = """
<section class="board-col">
  <div class="player top"><span class="name" id="top-name"></span><span class="clock" id="top-clock" role="timer"></span></div>
  <div id="board" class="board"></div>
  <div class="player bottom"><span class="name" id="bottom-name"></span><span class="clock" id="bottom-clock" role="timer"></span></div>
</section>
<section class="side-col">
  <p id="status" class="status" aria-live="polite"></p>
  <p id="refusal" class="refusal" role="alert" hidden></p>
  <form id="move-form" class="move-form" hidden>
    <label for="move-input" data-i18n="Move">Move</label>
    <input id="move-input" name="move" autocomplete="off">
    <button type="submit" data-i18n="Play">Play</button>
  </form>
  <div id="actions" class="actions" hidden>
    <button id="offer-draw" type="button" data-i18n="Offer draw">Offer draw</button>
    <button id="accept-draw" type="button" hidden data-i18n="Accept draw">Accept draw</button>
    <button id="decline-draw" type="button" hidden data-i18n="Decline draw">Decline draw</button>
    <button id="pass" type="button" hidden data-i18n="Pass">Pass</button>
    <button id="accept-dead" type="button" hidden data-i18n="Accept the dead stones">Accept the dead stones</button>
    <button id="reject-dead" type="button" hidden data-i18n="Resume play">Resume play</button>
    <button id="resign" type="button" data-i18n="Resign">Resign</button>
  </div>
  <ol id="moves" class="moves" aria-label="moves" data-i18n-label="moves"></ol>
</section>"""


def _t(en: str, tag: str = "span", attrs: str = "") -> str:
    """``en`` in ``tag``, marked for translation (i18n.js)."""
    return f'<{tag}{attrs} data-i18n="{escape(en)}">{escape(en)}</{tag}>'


def _game_link(gid: str) -> str:
    return f'<a href="/ui/games/{escape(gid)}">{escape(gid)}</a>'


def install(app: FastAPI) -> None:
    """Add the pages to the gateway ``app`` (its read model is ``app.state.gateway.rm``)."""
    gw = app.state.gateway
    app.mount("/ui/static", StaticFiles(directory=STATIC), name="ui-static")

    @app.get("/", include_in_schema=False)
    async def index() -> HTMLResponse:
        rm = gw.rm
        rows = []
        for g in islice(reversed(rm.games.values()), INDEX_GAMES):
            where = f"{escape(g.tournament_id)} r{g.round} b{g.board}" if g.tournament_id else ""
            result = escape(g.result or "") + (f" ({escape(g.reason)})" if g.reason else "")
            rows.append(f"<tr><td>{_game_link(g.game_id)}</td><td>{escape(g.game)}</td>"
                        f"<td>{escape(g.white or '?')} – {escape(g.black or '?')}</td>"
                        f"<td>{where}</td>{_t(g.status, 'td')}<td>{result}</td></tr>")
        events = "".join(f"<li>{escape(t.name or tid)} ({escape(tid)})</li>"
                         for tid, t in rm.tournaments.items())
        head = "".join(_t(h, "th") if h else "<th></th>"
                       for h in ("game", "", "players", "event", "status", "result"))
        games = (f"<table><thead><tr>{head}</tr></thead><tbody>" + "".join(rows) +
                 "</tbody></table>") if rows else _t("No games yet.", "p")
        return _page("games", _t("Games", "h1") + games
                     + (_t("Events", "h2") + f"<ul>{events}</ul>" if events else ""))

    @app.get("/ui/games/{gid}", include_in_schema=False)
    async def game_page(gid: str) -> HTMLResponse:
        if gw.rm.game(gid) is None:
            return _page("no such game", f"<h1>No such game: {escape(gid)}</h1>"
                                         f'<p><a href="/">All games</a></p>', status=404)
        return _page(f"game {gid}", GAME_BODY, main_class="game", script="game.js",
                     main_attrs=f' data-events="{" ".join(GAME_EVENT_TYPES)}"',
                     who='<span id="who" class="who"></span>')

    @app.get("/ui/now", include_in_schema=False)
    async def now() -> dict:
        return {"now_ms": gw.now_ms()}
