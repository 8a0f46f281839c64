"""The browser pages the gateway serves: ``/`` (the events and games it knows, with links, and
the officials' pages: the organiser's and the arbiter console, :data:`OFFICIAL_PAGES`), the
game page ``/ui/games/{gid}``, the replay viewer ``/ui/games/{gid}/replay``, the event lobby
``/ui/tournaments/{tid}`` (live boards, rounds, standings, crosstable) and their static files
``/ui/static/`` (built from ``services/gateway/web`` by ``make ui`` and committed: no CDN, no
npm at run time).

The pages read and write through the gateway's own HTTP API and follow its SSE streams; this
module only serves them (and ``/ui/now``, the gateway's clock, against which a page counts the
running clock down to the clock service's ``deadline_ms``).
"""
from __future__ import annotations

import json
from html import escape
from itertools import islice
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

from contracts.messages import GAME_EVENTS, PAYLOAD_TYPES, TOURNAMENT_EVENTS
from services.gateway.scopes import visible
from shared.domain.tiebreaks import TIEBREAK_EDITIONS, tiebreak_meaning
from shared.errors import StandingsError

#: The messages of a game's event stream: each is an SSE event name the game page listens to.
GAME_EVENT_TYPES = sorted(n for n, p in PAYLOAD_TYPES.items() if p.TOPIC == GAME_EVENTS)
#: The messages of an event's stream the lobby re-reads on: its events and its games' facts.
TOURNAMENT_EVENT_TYPES = sorted([n for n, p in PAYLOAD_TYPES.items() if p.TOPIC == TOURNAMENT_EVENTS]
                                + ["RecordGameEvent"])
STATIC = Path(__file__).resolve().parent / "static"
#: At most this many games are listed on ``/`` (the most recent first).
INDEX_GAMES = 200
#: The officials' pages ``/`` links to: (the role whose token they need, address, name);
#: ``site.js`` tells the visitor whether his token (kept by the pages) has that role.
OFFICIAL_PAGES = (("organiser", "/ui/organiser", "Organiser's pages"),
                  ("arbiter", "/ui/arbiter", "Arbiter console"))


def _page(title: str, body: str, status: int = 200, *, main_class: str = "index", main_attrs: str = "",
          script: str = "site.js", translate_title: bool = False,
          who: str = '<a class="who" href="/docs" data-i18n="API">API</a>') -> HTMLResponse:
    """A page of the site: the header bar (with the language switch), ``body`` in ``<main>``,
    the shared style sheet and the page's ``script`` (a module of /ui/static). Fixed text
    carries its English in ``data-i18n``: the script shows it in the visitor's language (the
    title too with ``translate_title``; else the page's script writes it)."""
    i18n = f' data-i18n="{escape(title)}"' if translate_title else ""
    js = f'<script type="module" src="/ui/static/{script}"></script>'
    return HTMLResponse(
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
        f'content="width=device-width, initial-scale=1"><title>{escape(title)}</title>'
        f'<link rel="icon" href="data:,"><link rel="stylesheet" href="/ui/static/arbiter.css">{js}'
        f'</head><body><header class="bar"><a href="/">Arbiter</a> <span id="title"{i18n}>{escape(title)}'
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
  <div id="dead-form" class="dead-form" hidden>
    <p><span data-i18n="Click the stones you hold dead. Marked:">Click the stones you hold dead. Marked:</span>
      <span id="marked-dead"></span></p>
    <button id="propose-dead" type="button" data-i18n="Propose these dead stones">Propose these dead stones</button>
  </div>
  <p id="claim-outcome" class="outcome claim-outcome" role="status" hidden></p>
  <form id="claim-form" class="claim-form" hidden>
    <fieldset>
      <legend id="claim-legend"></legend>
      <label for="claim-reason" class="sr-only" data-i18n="Claim">Claim</label>
      <select id="claim-reason" name="reason"></select>
      <label id="claim-move-field" class="field"><span data-i18n="Intended move (optional)">Intended move (optional)</span>
        <input id="claim-move" name="move" autocomplete="off"></label>
      <button id="claim" type="submit" data-i18n="Claim">Claim</button>
      <p id="claim-hint" class="hint"></p>
    </fieldset>
  </form>
  <ol id="moves" class="moves" aria-label="moves" data-i18n-label="moves"></ol>
</section>"""


#: The event lobby's body; ``event.js`` fills it from GET /tournaments/{tid}, its standings and
#: crosstable, re-read on each message of the event's SSE stream. The tabs are the sections'
#: anchors (``#live``, ``#rounds``, ``#standings``, ``#crosstable``).
EVENT_BODY = """
<h1 id="event-name"></h1>
<p id="event-facts" class="facts"></p>
<nav class="tabs" aria-label="sections" data-i18n-label="sections">
  <a href="#live" data-i18n="Live boards">Live boards</a>
  <a href="#rounds" data-i18n="Rounds">Rounds</a>
  <a href="#standings" data-i18n="Standings">Standings</a>
  <a href="#crosstable" data-i18n="Crosstable">Crosstable</a>
</nav>
<section id="live" class="tab"><div id="live-boards" class="live-boards"></div><p id="live-note" class="note"></p></section>
<section id="rounds" class="tab"></section>
<section id="standings" class="tab"><p id="standings-note" class="note"></p><div class="scroll"><table id="standings-table"></table></div>
  <h2 data-i18n="Tie-breaks">Tie-breaks</h2><p id="edition" class="note"></p><dl id="legend" class="legend"></dl></section>
<section id="crosstable" class="tab"><div class="scroll"><table id="crosstable-table"></table></div>
  <p id="crosstable-note" class="note"></p>
  <p class="note" data-i18n="A cell: the opponent&#x27;s number, the colour (w white, b black) and the score (1, ½, 0); + / - a forfeit won / lost; bye; blank: not paired.">A cell: the opponent&#x27;s number, the colour (w white, b black) and the score (1, ½, 0); + / - a forfeit won / lost; bye; blank: not paired.</p></section>"""

#: The replay viewer's body; ``replay.js`` fills it from GET /games/{gid} and the positions
#: the game's log records (each MoveAccepted's ``fen_after``).
REPLAY_BODY = """
<section class="board-col">
  <div class="player top"><span class="name" id="top-name"></span><span class="clock" id="top-clock"></span></div>
  <div id="board" class="board"></div>
  <div class="player bottom"><span class="name" id="bottom-name"></span><span class="clock" id="bottom-clock"></span></div>
  <div class="replay-controls" role="group" aria-label="replay" data-i18n-label="replay">
    <button id="first" type="button" aria-label="first" data-i18n-label="first">|&lt;</button>
    <button id="prev" type="button" aria-label="back" data-i18n-label="back">&lt;</button>
    <span id="ply" class="ply-count" aria-live="polite"></span>
    <button id="next" type="button" aria-label="forward" data-i18n-label="forward">&gt;</button>
    <button id="last" type="button" aria-label="last" data-i18n-label="last">&gt;|</button>
  </div>
  <p class="note" data-i18n="Keys: ← → a move back / forward, Home / End the start / the last position.">Keys: ← → a move back / forward, Home / End the start / the last position.</p>
</section>
<section class="side-col">
  <p id="status" class="status"></p>
  <p id="links" class="links"></p>
  <ol id="moves" class="moves" aria-label="moves" data-i18n-label="moves"></ol>
</section>"""


def _legend(t) -> str:
    """The tie-breaks an event ranks by, explained (:func:`tiebreak_meaning`), and the FIDE
    edition it uses with its source, as JSON for the lobby's legend."""
    order = list(dict.fromkeys([*t.tiebreaks, *((t.standings or {}).get("order") or ())]))
    codes = {}
    for code in order:
        try:
            codes[code] = tiebreak_meaning(code)
        except StandingsError:
            codes[code] = {"code": code, "meaning": None, "source": None, "cut": None, "cut_source": None}
    ed = t.tiebreak_edition
    edition = {"key": ed, "source": TIEBREAK_EDITIONS[ed].source if ed in TIEBREAK_EDITIONS else None}
    return json.dumps({"codes": codes, "edition": edition})


def _t(en: str, tag: str = "span", attrs: str = "") -> str:
    """``en`` in ``tag``, marked for translation (i18n.js)."""
    return f'<{tag}{attrs} data-i18n="{escape(en)}">{escape(en)}</{tag}>'


def _not_found(what: str, key: str) -> HTMLResponse:
    """The 404 page of an unknown ``what`` (game, event) ``key``."""
    return _page(f"no such {what}", f"<h1>No such {what}: {escape(key)}</h1>"
                                    f'<p><a href="/">All games and events</a></p>', status=404)


def _game_link(gid: str) -> str:
    return f'<a href="/ui/games/{escape(gid)}">{escape(gid)}</a>'


def _officials() -> str:
    """The links of :data:`OFFICIAL_PAGES`, each with an empty hint ``site.js`` fills."""
    items = "".join(f'<li data-role="{role}"><a href="{href}" data-i18n="{escape(name)}">{escape(name)}</a> '
                    f'<small class="hint"></small></li>' for role, href, name in OFFICIAL_PAGES)
    return (f'<nav id="officials" class="officials" aria-label="For officials" data-i18n-label="For officials">'
            f'<ul>{items}</ul></nav>')


def install(app: FastAPI) -> None:
    """Add the pages to the gateway ``app`` (its read model is ``app.state.gateway.rm``)."""
    gw = app.state.gateway
    app.mount("/ui/static", StaticFiles(directory=STATIC), name="ui-static")

    @app.get("/", include_in_schema=False)
    async def index() -> HTMLResponse:
        """The games and events an anonymous reader may read (an unpublished event's and its
        games' are left out: a page the browser opens carries no token, :mod:`.scopes`), and
        the officials' pages."""
        rm = gw.rm
        rows = []
        games = (g for g in reversed(rm.games.values()) if visible(gw, None, g.tournament_id))
        for g in islice(games, INDEX_GAMES):
            where = f"{escape(g.tournament_id)} r{g.round} b{g.board}" if g.tournament_id else ""
            result = escape(g.result or "") + (f" ({_t(g.reason)})" if g.reason else "")
            rows.append(f"<tr><td>{_game_link(g.game_id)}</td>{_t(g.game, 'td')}"
                        f"<td>{escape(g.white or '?')} – {escape(g.black or '?')}</td>"
                        f"<td>{where}</td>{_t(g.status, 'td')}<td>{result}</td></tr>")
        events = "".join(f'<li><a href="/ui/tournaments/{escape(tid)}">{escape(t.name or tid)}</a> ({escape(tid)})</li>'
                         for tid, t in rm.tournaments.items() if visible(gw, None, tid))
        head = "".join(_t(h, "th") if h else "<th></th>"
                       for h in ("game", "", "players", "event", "status", "result"))
        table = (f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>' + "".join(rows) +
                 "</tbody></table></div>") if rows else _t("No games yet.", "p")
        return _page("games", _officials() + _t("Games", "h1") + table
                     + (_t("Events", "h2") + f"<ul>{events}</ul>" if events else ""), translate_title=True)

    @app.get("/ui/games/{gid}", include_in_schema=False)
    async def game_page(gid: str) -> HTMLResponse:
        if gw.rm.game(gid) is None:
            return _not_found("game", gid)
        return _page(f"game {gid}", GAME_BODY, main_class="game", script="game.js",
                     main_attrs=f' data-events="{" ".join(GAME_EVENT_TYPES)}"',
                     who='<span id="who" class="who"></span>')

    @app.get("/ui/games/{gid}/replay", include_in_schema=False)
    async def replay_page(gid: str) -> HTMLResponse:
        if gw.rm.game(gid) is None:
            return _not_found("game", gid)
        return _page(f"replay {gid}", REPLAY_BODY, main_class="game replay", script="replay.js")

    @app.get("/ui/tournaments/{tid}", include_in_schema=False)
    async def event_page(tid: str) -> HTMLResponse:
        t = gw.rm.tournament(tid)
        if t is None:
            return _not_found("event", tid)
        return _page(f"event {tid}", EVENT_BODY, main_class="event", script="event.js",
                     main_attrs=(f' data-events="{" ".join(TOURNAMENT_EVENT_TYPES)}"'
                                 f' data-game-events="{" ".join(GAME_EVENT_TYPES)}"'
                                 f' data-legend="{escape(_legend(t))}"'))

    @app.get("/ui/now", include_in_schema=False)
    async def now() -> dict:
        return {"now_ms": gw.now_ms()}
