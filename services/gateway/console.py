"""The arbiter console's read side: what needs an arbiter now, and a game's audit.

- ``GET /arbiter/attention[?tournament_id=T]``: :func:`attention`, every item an arbiter of
  the events the caller covers should see (:class:`Attention`): claims and 棋例 ruling requests,
  xiangqi positions repeated three times awaiting a requested ruling (art. 24, 待判局面), Go
  dead-stone disputes (both proposals standing and different, or the arbiter called: Chinese
  rules 1988 art. 16.4, 25.1), endless cycles awaiting a ruling (20.3), players absent at the
  default time (FIDE 1994 art. 10.15, xiangqi 1999 art. 4.1.5, Go 1988 art. 23.1), and, as
  decided items for review, flags, absences and arrivals reported, rejected claims, rulings.
  Each item carries the game's facts (position, last moves, clocks) and the articles involved.
- ``GET /games/{gid}/audit``: :func:`game_audit`, every decision of the game with its rule
  and what a re-derivation by today's code finds different (``arbiter audit``'s own code,
  :func:`services.rederive.rederive`, over the game's messages as the gateway holds them).
- ``GET /ui/arbiter[?event=T]``: the console page (``console.js``), which rules through the
  gateway's existing arbiter endpoints; ``/ui/tournaments/{tid}/arbiter`` is one event's.

Reads need an arbiter: identity on, an arbiter (or the administrator) whose token covers the
event (an item of another event is left out; the audit of such a game is 403); identity off,
the administrator's ``X-Arbiter-Token`` when one is configured. The projections here are pure
functions of the read model and ``now_ms`` (the gateway's clock, passed in).
"""
from __future__ import annotations

import asyncio
from dataclasses import asdict, dataclass, field
from typing import Any, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import RedirectResponse

from contracts.messages import Rule, parse_message
from services.gateway import identity
from services.gateway.errors import HTTPError
from services.gateway.readmodel import GameView, ReadModel, Recorded
from shared.rules.games import go_rule_map, rules_of

#: The moves an item shows of its game (the last ones, in its notation).
LAST_MOVES = 12
#: At most this many items in an answer (the open ones first).
MAX_ITEMS = 500
#: Decisions too routine to list one by one in an audit (they are counted).
ROUTINE = frozenset({"MoveAccepted", "ClockUpdated", "ClockStarted"})

Kind = Literal["claim", "repetition", "ruling", "dead-stones", "cycle", "absence", "flag"]


@dataclass(frozen=True)
class Attention:
    """One thing an arbiter should see. ``kind``: see :data:`Kind`; ``open``: the arbiter must
    act (else a decision made, for review); ``at_ms``: when it arose (epoch ms, event time);
    ``articles``: the rules involved; ``facts``: the kind's own facts (a claim, the proposals,
    the cycle ...); ``actions``: what the console offers (``request-ruling``, ``rule-dead``,
    ``rule-cycle``, ``report-absence``, ``result``, ``penalty``); ``game``: the game's facts
    (players, position, last moves, clocks, status)."""

    kind: Kind
    game_id: str
    open: bool
    at_ms: int | None
    articles: tuple[Rule, ...]
    facts: dict[str, Any]
    actions: tuple[str, ...] = ()
    game: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["articles"] = [r.model_dump(mode="json") for r in self.articles]
        return out


def _rules(g: GameView) -> dict[str, Rule]:
    """The decision -> article map of ``g``'s game (Go: under its ruleset)."""
    if g.game == "go" and g.go:
        return go_rule_map(g.go.get("go_rules") or "chinese")
    return rules_of(g.game)


def _facts(g: GameView) -> dict[str, Any]:
    """A game's facts as an item shows them: players, event place, status, result, position
    (FEN; Go: the board rows), the last :data:`LAST_MOVES` moves, the clocks and the penalties."""
    go = g.go_dict()
    return {"game": g.game, "white": g.white, "black": g.black, "tournament_id": g.tournament_id,
            "round": g.round, "board": g.board, "status": g.status, "result": g.result,
            "reason": g.reason, "fen": g.fen, "go_board": go.get("board") if go else None,
            "plies": len(g.moves), "moves": g.move_list()[-LAST_MOVES:], "clock": dict(g.clock),
            "penalties": list(g.penalties)}


def _claims(g: GameView) -> list[Attention]:
    if not g.claims:
        return []
    rules = _rules(g)
    out = []
    for c in g.claims:
        p = c.claimed
        key = "repetition-ruling" if p.reason == "repetition" else p.reason
        arts = [r for r in (rules.get(key), getattr(c.answer, "rule", None)) if r is not None]
        facts = c.to_dict()
        live = c.answer is None and not g.over
        out.append(Attention("claim", g.game_id, live, c.at_ms, tuple(dict.fromkeys(arts)), facts,
                             ("result", "penalty") if live else ()))
    return out


def _repetition(g: GameView) -> list[Attention]:
    """Xiangqi: the position repeated three times, rulings on request, no ruling at this ply
    and no request pending: the arbiter may ask for the 棋例 ruling (art. 24)."""
    plies = len(g.moves)
    if (g.game != "xiangqi" or g.over or g.repetitions < 3 or g.repetition_rulings != "on-request"
            or any(r["ply"] >= plies for r in g.rulings)
            or any(c.answer is None for c in g.claims)):
        return []
    rules = _rules(g)
    arts = tuple(rules[k] for k in ("repetition-ruling", "perpetual-check", "repetition-draw", "must-vary"))
    to_move = "black" if g.moves[max(g.moves)].colour == "white" else "white"
    facts = {"repetitions": g.repetitions, "ply": plies, "to_move": to_move,
             "player_id": getattr(g, to_move)}
    return [Attention("repetition", g.game_id, True, g.moves[max(g.moves)].at_ms, arts, facts,
                      ("request-ruling", "result", "penalty"))]


def _rulings(g: GameView) -> list[Attention]:
    return [Attention("ruling", g.game_id, False, None, (Rule(**r["rule"]),), r)
            for r in g.rulings]


def _dead_stones(g: GameView) -> list[Attention]:
    """Go: a dead-stone dispute (play stopped; both players' proposals stand and differ, or the
    arbiter was called), open while the game runs; a ruling made, for review."""
    go = g.go
    if go is None or go.get("phase") not in ("scoring", "counting", "counted", "ended"):
        return []
    rules = _rules(g)
    arts = tuple(rules[k] for k in ("arbiter-dead", "agreement", "resumption"))
    props = go.get("proposals") or {}
    facts = {"phase": go.get("phase"), "proposals": dict(props), "arbiter_called": go.get("arbiter_called"),
             "ruling": go.get("ruling"), "dead": go.get("dead")}
    disputed = len(props) == 2 and sorted(props["white"]) != sorted(props["black"])
    if not g.over and go.get("phase") == "scoring" and (disputed or go.get("arbiter_called")):
        return [Attention("dead-stones", g.game_id, True, None, arts, facts, ("rule-dead", "result", "penalty"))]
    if go.get("ruling"):
        return [Attention("dead-stones", g.game_id, False, None,
                          (Rule(**go["ruling"]["rule"]), *arts[1:]), facts)]
    return []


def _cycles(g: GameView) -> list[Attention]:
    if not g.cycles:
        return []
    rules = _rules(g)
    out = []
    for c in g.cycles:
        arts = (c.found.rule, rules["cycle-draw"], *((c.ruled.rule,) if c.ruled else ()))
        live = c.ruled is None and not g.over
        facts = {**c.found.model_dump(mode="json"),
                 "ruled": c.ruled.model_dump(mode="json") if c.ruled else None}
        out.append(Attention("cycle", g.game_id, live, c.at_ms, tuple(dict.fromkeys(arts)), facts,
                             ("rule-cycle", "result", "penalty") if live else ()))
    return out


def _absences(g: GameView, now_ms: int) -> list[Attention]:
    """Reports made (for review), and the side to move that has not moved at all once the
    game's default time (``default_time_s`` after its start) has passed: open."""
    out = [Attention("absence", g.game_id, False, r.at_ms, (_rules(g)["absence"],),
                     {"report": type(r.report).__name__, **r.report.model_dump(mode="json")})
           for r in g.presence]
    running = g.clock.get("running")
    if (g.status != "ongoing" or not g.default_time_s or g.started_at_ms is None
            or running not in ("white", "black") or len(g.moves) > 1
            or any(m.colour == running for m in g.moves.values())
            or any(r.report.colour == running for r in g.presence)):
        return out
    due = g.started_at_ms + g.default_time_s * 1000
    if now_ms >= due:
        out.append(Attention("absence", g.game_id, True, due, (_rules(g)["absence"],),
                             {"player_id": getattr(g, running), "colour": running, "due_ms": due,
                              "default_time_s": g.default_time_s, "report": None},
                             ("report-absence", "result", "penalty")))
    return out


def _flag(g: GameView) -> list[Attention]:
    f = g.flag
    if f is None:
        return []
    return [Attention("flag", g.game_id, False, f.deadline_ms, (f.rule,), f.model_dump(mode="json"))]


def game_items(g: GameView, now_ms: int) -> list[Attention]:
    """Every :class:`Attention` item of game ``g`` at ``now_ms`` (epoch ms), its facts set."""
    items = [*_claims(g), *_repetition(g), *_rulings(g), *_dead_stones(g), *_cycles(g),
             *_absences(g, now_ms), *_flag(g)]
    if not items:
        return []
    facts = _facts(g)
    return [Attention(**{**i.__dict__, "game": facts}) for i in items]


def attention(rm: ReadModel, now_ms: int, covers: Any, tournament_id: str | None = None,
              limit: int = MAX_ITEMS) -> list[Attention]:
    """The items of the games ``covers(tid)`` accepts (``tid`` the game's event, None outside
    one), only those of ``tournament_id`` when given; the open ones first, then the latest
    first; at most ``limit``."""
    items = []
    for g in rm.games.values():
        if tournament_id is not None and g.tournament_id != tournament_id:
            continue
        if covers(g.tournament_id):
            items += game_items(g, now_ms)
    items.sort(key=lambda i: (not i.open, -(i.at_ms or 0)))
    return items[:limit]


def _summary(p: dict) -> str:
    """A decision in a few words: its main fields (lists joined by spaces; nested details left
    to the game's event stream)."""
    keys = ("result", "reason", "verdict", "must_vary", "kind", "ruling", "san", "colour", "player_id",
            "black", "white", "dead", "detail")
    out = []
    for k in keys:
        v = p.get(k)
        if v in (None, "", [], ()) or isinstance(v, dict):
            continue
        out.append(f"{k} {' '.join(map(str, v)) if isinstance(v, list) else v}")
    return ", ".join(out)


def _asked_by(m: Any, by_id: dict) -> str | None:
    """Who asked for decision ``m``: the actor (``kind:id``) of the command its causation chain
    starts from (None when that command is not in the game's log)."""
    seen = 0
    while m is not None and m.payload.KIND != "command" and seen < 100:
        m, seen = by_id.get(m.causation_id), seen + 1
    return f"{m.actor.kind}:{m.actor.id}" if m is not None and m.actor else None


def game_audit(gid: str, records: list[Recorded], corrections: list[dict]) -> dict:
    """Game ``gid``'s audit from ``records``, its messages as the gateway holds them (commands
    and decisions, :attr:`ReadModel.history`), and its result ``corrections`` (tournament
    decisions, passed through): ``decisions`` (each event but the routine :data:`ROUTINE`
    ones, which are counted in ``routine``: stream, seq, type, event time, ``by`` who asked,
    ``rule`` and a summary) and ``differences``: :func:`services.rederive.rederive` over
    the messages. Pure (no I/O): the endpoint runs it off the event loop (0.15 s for a 9x9
    game's 188 messages)."""
    from services.rederive import rederive  # `arbiter audit`'s own, not a copy (heavy: on demand)

    msgs = [parse_message(r.json) for r in records]
    by_id = {m.event_id: m for m in msgs}
    decisions, routine = [], {}
    for m in msgs:
        if m.payload.KIND != "event":
            continue
        if m.type in ROUTINE:
            routine[m.type] = routine.get(m.type, 0) + 1
            continue
        p = m.payload.model_dump(mode="json")
        rule = p.get("rule") or (p.get("void") or {}).get("rule")
        decisions.append({"stream": m.stream, "seq": m.seq, "type": m.type, "at_ms": m.at_ms,
                          "by": _asked_by(m, by_id), "rule": rule, "summary": _summary(p)})
    diffs = rederive(msgs)
    return {"game_id": gid, "messages": len(msgs), "decisions": decisions, "routine": routine,
            "corrections": corrections, "differences": [d.as_dict() for d in diffs]}


def console_router(gateway: Any, context: Any) -> APIRouter:
    """The console's reads (see the module doc); ``gateway`` / ``context``: the app's
    dependencies giving the gateway and the command context (its credentials)."""
    router = APIRouter(tags=["arbiter"])

    def covers(gw: Any, ctx: Any):
        p = gw.caller(ctx)
        if p is None:
            gw.require_arbiter(ctx.token)
            return lambda tid: True
        if p.role not in ("arbiter", "admin"):
            raise identity.AuthError(403, "arbiters-only", f"{identity.with_article(p.role)} does not see the arbiter console")
        return lambda tid: identity.may_arbitrate(p, tid)

    @router.get("/arbiter/attention")
    async def get_attention(tournament_id: str | None = Query(default=None, max_length=80),
                            ctx: Any = context, gw: Any = gateway) -> dict:
        """What needs an arbiter now (open items first) and the decisions to review, in the
        events the caller arbitrates (:func:`attention`): ``{"now_ms", "items": [...]}``.
        401 without credentials; 403 ``arbiters-only`` for another role."""
        ok = covers(gw, ctx)
        now = gw.now_ms()
        return {"now_ms": now, "items": [i.to_dict() for i in attention(gw.rm, now, ok, tournament_id)]}

    @router.get("/games/{gid}/audit")
    async def get_audit(gid: str, ctx: Any = context, gw: Any = gateway) -> dict:
        """Game ``gid``'s decisions with their articles and the differences a re-derivation finds
        (:func:`game_audit`). 404 unknown game; 401; 403 ``not-your-event``; 409 ``no-history``
        when this gateway keeps no message history."""
        ok = covers(gw, ctx)
        g = gw.rm.game(gid)
        if g is None:
            raise HTTPError(404, f"no such game: {gid}")
        if not ok(g.tournament_id):
            raise identity.AuthError(403, "not-your-event", f"not an arbiter of {g.tournament_id or 'games outside any event'}")
        if not gw.rm.keep_history:
            raise HTTPError(409, "this gateway keeps no message history to audit: run `arbiter audit "
                                 "--bus URL --stream game-<id>`", code="no-history")
        records = list(gw.rm.history.get(f"game-{gid}", ()))  # as of now, read on the loop
        return await asyncio.to_thread(game_audit, gid, records, list(g.corrections))
    return router


def install(app: FastAPI, gateway: Any, context: Any) -> None:
    """Add the console's reads and its page (``/ui/arbiter``) to ``app``."""
    from services.gateway import ui

    app.include_router(console_router(gateway, context))

    @app.get("/ui/arbiter", include_in_schema=False)
    async def console_page():
        return ui._page("arbiter console", CONSOLE_BODY, main_class="console", script="console.js",
                        who='<span id="who" class="who"></span>')

    @app.get("/ui/tournaments/{tid}/arbiter", include_in_schema=False)
    async def event_console(tid: str, request: Request):
        """One event's console: ``/ui/arbiter?event=<tid>`` (the query kept: ``token``, ``lang``)."""
        q = urlencode([("event", tid), *((k, v) for k, v in request.query_params.multi_items() if k != "event")])
        return RedirectResponse(f"/ui/arbiter?{q}", status_code=307)


#: The console page's body; ``console.js`` fills it from GET /arbiter/attention.
CONSOLE_BODY = """<link rel="stylesheet" href="/ui/static/console.css">
<form id="signin" class="signin" hidden>
  <label for="token-input" data-i18n="Arbiter token">Arbiter token</label>
  <input id="token-input" name="token" autocomplete="off">
  <button type="submit" data-i18n="Sign in">Sign in</button>
</form>
<p id="console-note" class="note" role="alert" hidden></p>
<div class="console-filter"><label for="event-filter" data-i18n="Event">Event</label>
  <select id="event-filter"><option value="" data-i18n="All events">All events</option></select></div>
<h1 data-i18n="Needs attention now">Needs attention now</h1>
<div id="open-items" class="items" aria-live="polite"></div>
<h2 data-i18n="Decided: for review">Decided: for review</h2>
<div id="done-items" class="items"></div>
<dialog id="audit" class="audit" aria-labelledby="audit-title">
  <h2 id="audit-title"></h2>
  <p id="audit-summary"></p>
  <div class="scroll"><table id="audit-table"></table></div>
  <div id="audit-diffs"></div>
  <button id="audit-close" type="button" data-i18n="Close">Close</button>
</dialog>"""
