"""The gateway's read side for integrators (issue 12 item 4): lists and resumable streams.

Lists (compact summaries from the read model, a link to the full resource, cursor pages):

- ``GET /games`` filtered by ``status``, ``tournament_id``, ``player_id``, ``game`` (chess,
  xiangqi, go) and ``round``; ``GET /tournaments`` by ``status``, ``player_id`` and ``game``.
  ``limit`` 1-200 (default 50); the answer's ``next`` is an opaque cursor for the following
  page (None on the last). Games are ordered by (tournament, round, board, id), tournaments by
  id; an item added meanwhile shows on a later page if it sorts after the cursor.

Streams of a feed: a game (``game-<gid>``), a tournament (``tournament-<tid>``) or a whole
event (``event-<tid>``: the tournament's own messages and every message of its games, in the
order this gateway applied them), in three transports: server-sent events, NDJSON
(``application/x-ndjson``: one message per line, ``{"keepalive": true}`` after 15 s of
silence) and WebSocket (one message per text frame):

- ``GET /feeds/{kind}/{id}`` (SSE; NDJSON with ``format=ndjson`` or ``Accept:
  application/x-ndjson``) and ``WS /feeds/{kind}/{id}``, ``kind`` game, tournament or event.
  By default a new subscriber gets live messages only. ``since`` (or the ``Last-Event-ID``
  header, which wins: what a browser's EventSource sends when it reconnects) resumes:
  ``0`` the whole history, ``<stream>:<seq>`` (a message's id: the SSE ``id``, or ``stream``
  and ``seq`` of an NDJSON or WebSocket message) every message after that one, a bare ``N``
  after ``<feed's own stream>:N`` (``game-<gid>``, ``tournament-<tid>``). The backlog and the
  live messages meet without a gap or a duplicate: the backlog is cut and the subscription
  opened at one instant of the read model (no await between). ``types`` (comma-separated
  message types) filters both. ``follow=false``: what is there after ``since``, as one JSON
  list (a catch-up without a stream).
- ``GET /games/{gid}/events`` and ``GET /tournaments/{tid}/events`` (SSE, in :mod:`.app`) keep
  their behaviour, history then live, and take ``since``, ``types`` and ``Last-Event-ID`` too
  (a position they do not know is the start: a browser's EventSource reconnecting to another
  gateway gets the whole history, as before, instead of a refusal that would stop it).

A subscriber's queue holds at most :attr:`Hub.max_queue` messages: one that falls further
behind is closed after the messages queued, with a last message ``end`` (SSE event ``end``;
NDJSON and WebSocket ``{"end": "behind", "detail", "resume"}``; WebSocket close code 1013)
naming the id to resume from; so is every subscriber when the gateway stops (``shutdown``,
close code 1001). A resume position is this gateway's order: after a message another gateway
applied in another interleaving of the topics, messages of other streams of the feed may be
sent again or missed; within one stream (``stream`` and ``seq``) none is.

Refusals (before any message, the one shape of :mod:`.errors`): 404 unknown game or
tournament, 422 ``bad-position`` (a ``since`` that is not a position; 400 for a
``Last-Event-ID`` header that is not even ASCII), 409
``unknown-position`` (no such message in this gateway's history of the feed; ``/feeds``
only), 422 ``bad-types``, 422 ``bad-cursor``, 422 for a filter out of range. A WebSocket is accepted, sent that refusal as one JSON object
and closed with code 4000 + the HTTP status (e.g. 4404).
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import heapq
import json
import re
from collections import defaultdict
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import aclosing
from dataclasses import dataclass
from typing import Annotated, Any, Literal, NamedTuple

from fastapi import APIRouter, Depends, Header, Path, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import Response, StreamingResponse
from prometheus_client import Gauge
from sse_starlette import EventSourceResponse

from contracts.messages import MESSAGE_TYPES
from services.gateway import scopes
from services.gateway.errors import HTTPError
from services.gateway.readmodel import EVENT_FEED, GameView, ReadModel, Recorded, TournamentView

STREAMS = Gauge("arbiter_gateway_sse_clients", "Open streams (SSE, NDJSON, WebSocket)",
                ["transport"])
#: Seconds of silence after which an NDJSON stream sends ``{"keepalive": true}`` (SSE: a
#: comment line, sse-starlette's ping).
KEEPALIVE_S = 15.0
#: The kinds of feed and the prefix of their key in the read model's history.
KINDS = {"game": "game-", "tournament": "tournament-", "event": EVENT_FEED}
_POSITION = re.compile(r"^(0|[1-9][0-9]{0,17}|[A-Za-z0-9_\-.]{1,200}:[1-9][0-9]{0,17})$")
_TYPES = re.compile(r"^[A-Za-z]{1,60}(,[A-Za-z]{1,60}){0,49}$")
_ID = r"^[A-Za-z0-9_\-]{1,80}$"
#: WebSocket close codes: a subscriber too far behind (try again later), the gateway stopping.
CLOSE_CODES = {"behind": 1013, "shutdown": 1001}


# ------------------------------------------------------------------------------ subscriptions
@dataclass(eq=False)
class Subscription:
    """One subscriber of feed ``feed``: a bounded ``queue`` of live :class:`Recorded` messages
    (of ``types`` only, None: all), ``position`` the id (``<stream>:<seq>``, ``0`` before
    any) of the last message given to it, ``ended`` why it is closed (``behind``,
    ``shutdown``; None while open)."""

    feed: str
    queue: asyncio.Queue
    types: frozenset[str] | None = None
    position: str = "0"
    ended: str | None = None

    def wants(self, rec: Recorded) -> bool:
        return self.types is None or rec.type in self.types


class Hub:
    """The live subscribers of every feed; :meth:`publish` is called with each message the
    read model applies, in that order. No I/O: a full queue closes its subscriber
    (``behind``) instead of growing. ``max_queue``: messages a subscriber may lag."""

    def __init__(self, max_queue: int = 1000) -> None:
        self.max_queue = max_queue
        self.subscribers: dict[str, set[Subscription]] = defaultdict(set)

    def open(self, history: list[Recorded], start: int, feed: str,
             types: frozenset[str] | None) -> tuple[list[Recorded], Subscription]:
        """The backlog ``history[start:]`` (of ``types``) and a subscription to every message
        of ``feed`` after it: called with no await between the history read and this, no
        message is missed or sent twice."""
        sub = Subscription(feed, asyncio.Queue(maxsize=self.max_queue + 1), types,
                           position=_id(history[start - 1]) if start else "0")
        self.subscribers[feed].add(sub)
        return [r for r in history[start:] if sub.wants(r)], sub

    def close(self, sub: Subscription, reason: str | None = None) -> None:
        """Forget ``sub``; with a ``reason`` its stream ends (after what is queued) saying so."""
        subs = self.subscribers.get(sub.feed)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self.subscribers[sub.feed]
        if reason is not None and sub.ended is None:
            sub.ended = reason
            try:
                sub.queue.put_nowait(None)  # wakes a reader waiting on an empty queue
            except asyncio.QueueFull:
                pass  # a full queue's reader is not waiting

    def publish(self, rec: Recorded, feeds: Iterable[str]) -> None:
        """Queue ``rec`` for the subscribers of each of ``feeds`` that want it; one whose
        queue holds ``max_queue`` messages already is closed (``behind``) instead."""
        for feed in feeds:
            for sub in list(self.subscribers.get(feed, ())):
                if not sub.wants(rec):
                    continue
                if sub.queue.qsize() >= self.max_queue:
                    self.close(sub, "behind")
                else:
                    sub.queue.put_nowait(rec)

    def close_all(self) -> None:
        """End every stream (``shutdown``): the gateway is stopping."""
        for subs in list(self.subscribers.values()):
            for sub in list(subs):
                self.close(sub, "shutdown")


def _id(rec: Recorded) -> str:
    return f"{rec.stream}:{rec.seq}"


# ---------------------------------------------------------------------------------- positions
def start_of(history: list[Recorded], since: str | None, own_stream: str) -> int:
    """The index in ``history`` of the first message after position ``since``: None, live
    only (the end); ``0``, the start; ``<stream>:<seq>``, after that message; a bare ``N``,
    after ``<own_stream>:N``. Raises :class:`HTTPError` 422 ``bad-position`` (not a position)
    or 409 ``unknown-position`` (no such message in ``history``)."""
    if since is None:
        return len(history)
    if not _POSITION.match(since):
        raise HTTPError(422, f"since/Last-Event-ID {since[:100]!r} is not a position: 0, a "
                             "message's <stream>:<seq>, or a seq of the feed's own stream",
                        code="bad-position")
    if since == "0":
        return 0
    stream, _, seq = since.rpartition(":") if ":" in since else (own_stream, "", since)
    n = int(seq)
    for i in range(len(history) - 1, -1, -1):  # a resume is nearly always near the end
        r = history[i]
        if r.seq == n and r.stream == stream:
            return i + 1
    raise HTTPError(409, f"this gateway has not applied message {stream}:{n} of this feed (not "
                         "yet, or it is another feed's): resume from a message it sent, or 0",
                    code="unknown-position")


def parse_types(types: str | None) -> frozenset[str] | None:
    """``types`` (``MoveAccepted,GameEnded``) as a set (None: every type); 422 ``bad-types``
    for anything but up to 50 comma-separated names, or a name that is no message type of
    the log (:data:`contracts.messages.MESSAGE_TYPES`: a typo would otherwise be a feed that
    stays silent)."""
    if types is None:
        return None
    if not _TYPES.match(types):
        raise HTTPError(422, "types must be up to 50 message type names separated by commas "
                             "(e.g. MoveAccepted,GameEnded)", code="bad-types")
    wanted = frozenset(types.split(","))
    if unknown := sorted(wanted - MESSAGE_TYPES.keys()):
        raise HTTPError(422, f"types: not message types of the log: {unknown[:10]}",
                        code="bad-types")
    return wanted


def feed_key(rm: ReadModel, kind: str, fid: str) -> str:
    """The read model's key of feed ``kind`` ``fid``; 404 for an unknown game or tournament,
    422 for an unknown ``kind``."""
    if kind not in KINDS:
        raise HTTPError(422, f"no feed kind {kind[:40]!r}: game, tournament or event",
                        code="bad-kind")
    known = rm.game(fid) if kind == "game" else rm.tournament(fid)
    if known is None:
        raise HTTPError(404, f"no such {'game' if kind == 'game' else 'tournament'}: {fid[:80]}")
    return f"{KINDS[kind]}{fid}"


def _own_stream(key: str) -> str:
    """The stream whose bare seq a ``since`` names: the game's or the tournament's own."""
    return key.replace(EVENT_FEED, "tournament-", 1) if key.startswith(EVENT_FEED) else key


class Opening(NamedTuple):
    """Where a subscriber of feed ``key`` starts: ``start``, an index in the feed's history
    (which only grows, so it stays right until the subscription opens), and the ``types``
    it wants (None: all)."""

    key: str
    start: int
    types: frozenset[str] | None


def prepare(gw: Any, key: str, at: Resume) -> Opening:
    """The :class:`Opening` of feed ``key`` of gateway ``gw`` (its read model ``rm``) at
    ``at`` (:func:`start_of`); raises its refusals, before any answer starts."""
    return Opening(key, _start(gw.rm.history.get(key, []), key, at), at.wanted())


async def subscribed(gw: Any, o: Opening, transport: str, keepalive_s: float | None = None
                     ) -> AsyncIterator[Recorded | End | None]:
    """The :func:`deliveries` of opening ``o``, subscribed to ``gw``'s :class:`Hub` from the
    first step of the iteration to its end (a response never sent holds no subscription);
    counted in ``arbiter_gateway_sse_clients`` by ``transport``."""
    backlog, sub = gw.hub.open(gw.rm.history.get(o.key, []), o.start, o.key, o.types)
    STREAMS.labels(transport).inc()
    try:
        async for d in deliveries(backlog, sub, keepalive_s):
            yield d
    finally:
        gw.hub.close(sub)
        STREAMS.labels(transport).dec()


def _start(history: list[Recorded], key: str, at: Resume) -> int:
    """:func:`start_of` feed ``key``'s ``history`` at ``at``; a ``lenient`` one starts an
    unknown position from the beginning instead of refusing it."""
    try:
        return start_of(history, at.position, _own_stream(key))
    except HTTPError as e:
        if at.lenient and e.extra.get("code") == "unknown-position":
            return 0
        raise


@dataclass(frozen=True)
class Resume:
    """Where a stream starts and what it carries: ``position`` (the ``Last-Event-ID`` header,
    else the ``since`` parameter; None: the route's default) and ``types`` (a comma-separated
    list, None: all); ``lenient``: an unknown position is the start (the ``/events`` routes'
    compatibility: a browser reconnecting to another gateway gets the history, as before,
    not a refusal that stops its EventSource)."""

    position: str | None = None
    types: str | None = None
    lenient: bool = False
    hide: frozenset[str] = frozenset()  # types the reader's scope leaves out (:mod:`.scopes`)

    def wanted(self) -> frozenset[str] | None:
        """The types to deliver (:func:`parse_types` of ``types``, less ``hide``; None: all)."""
        asked = parse_types(self.types)
        if not self.hide:
            return asked
        return (asked if asked is not None else frozenset(MESSAGE_TYPES)) - self.hide


def _hidden(conn: Any) -> frozenset[str]:
    """The message types a reader without the event's private scope does not get: the
    registrations (command and event), which carry FIDE ids, birth dates and sex
    (:data:`.scopes.PRIVATE_TYPES`)."""
    return frozenset() if scopes.private_ok(conn) else scopes.PRIVATE_TYPES


async def resume_params(request: Request, since: Annotated[str | None, Query(
                            max_length=220, description="0 (the whole history), a message's "
                            "<stream>:<seq>, or a seq of the feed's own stream")] = None,
                        types: Annotated[str | None, Query(
                            max_length=3100, description="Message types, comma-separated")] = None,
                        last_event_id: Annotated[str | None, Header(max_length=220)] = None,
                        ) -> Resume:
    """The :class:`Resume` of a stream request (a FastAPI dependency). 400 ``bad-position``
    for a ``Last-Event-ID`` that is not ASCII (a position is; an EventSource sends back the
    ``id`` it got), its bytes shown escaped."""
    if last_event_id is not None and not last_event_id.isascii():
        raw = last_event_id.encode("latin-1", "replace")  # the bytes as sent (ASGI: latin-1)
        raise HTTPError(400, f"Last-Event-ID {raw[:100]!r} is not ASCII, so no position: resume "
                             "with a message's id as sent (<stream>:<seq>), or 0", code="bad-position")
    return Resume(last_event_id if last_event_id is not None else since, types, hide=_hidden(request))


RESUME = Depends(resume_params)


def events(gw: Any, key: str, follow: bool, at: Resume, default: str | None = "0") -> Response:
    """Feed ``key`` from ``at`` (without a position, from ``default``: ``0`` the start, as
    ``GET /games/{gid}/events`` and ``/tournaments/{tid}/events`` do; None live only) as SSE,
    or (``follow=false``) as a JSON list of what is there. With ``default`` ``0`` a position
    this gateway does not know is the start too (:attr:`Resume.lenient`)."""
    at = Resume(at.position if at.position is not None else default, at.types, default == "0", at.hide)
    if follow:
        return sse_response(gw, key, at)
    wanted = at.wanted()
    history = gw.rm.history.get(key, [])
    got = history[_start(history, key, at):]
    return Response(f"[{','.join(r.json for r in got if wanted is None or r.type in wanted)}]",
                    media_type="application/json")


# --------------------------------------------------------------------------------- transports
class End(NamedTuple):
    """The last message of a stream that the gateway closed: ``reason`` (``behind``,
    ``shutdown``), ``resume`` the position to resume from."""

    reason: str
    resume: str

    def to_dict(self) -> dict:
        why = ("this subscriber fell too far behind and is closed" if self.reason == "behind"
               else "the gateway is stopping")
        return {"end": self.reason, "resume": self.resume,
                "detail": f"{why}: resume with Last-Event-ID: {self.resume} or since={self.resume}"}


async def deliveries(backlog: list[Recorded], sub: Subscription, keepalive_s: float | None = None
                     ) -> AsyncIterator[Recorded | End | None]:
    """The backlog, then the live messages of ``sub``, then an :class:`End` once the hub
    closed it (after every message queued before); None after each ``keepalive_s`` seconds
    without a message (None: no keep-alives). Updates ``sub.position``."""
    for rec in backlog:
        sub.position = _id(rec)
        yield rec
    while True:
        if sub.ended is not None and sub.queue.empty():
            yield End(sub.ended, sub.position)
            return
        try:
            rec = await asyncio.wait_for(sub.queue.get(), keepalive_s)
        except TimeoutError:
            yield None
            continue
        if rec is not None:
            sub.position = _id(rec)
            yield rec


def sse_response(gw: Any, key: str, at: Resume) -> EventSourceResponse:
    """Feed ``key`` as server-sent events (event = message type, id = ``<stream>:<seq>``,
    data = the message's JSON; a last event ``end`` without an id when the gateway closes it),
    from ``at``; a comment line every 15 s of silence."""
    o = prepare(gw, key, at)

    async def events() -> AsyncIterator[dict]:
        async with aclosing(subscribed(gw, o, "sse")) as ds:
            async for d in ds:
                if isinstance(d, End):
                    yield {"event": "end", "data": json.dumps(d.to_dict())}
                elif d is not None:
                    yield {"event": d.type, "id": _id(d), "data": d.json}

    return EventSourceResponse(events(), ping=int(KEEPALIVE_S))


def ndjson_response(gw: Any, key: str, at: Resume,
                    keepalive_s: float = KEEPALIVE_S) -> StreamingResponse:
    """Feed ``key`` as NDJSON from ``at``: each message's JSON on a line of its own,
    ``{"keepalive": true}`` after ``keepalive_s`` of silence, :meth:`End.to_dict` last when
    the gateway closes it."""
    o = prepare(gw, key, at)

    async def lines() -> AsyncIterator[str]:
        async with aclosing(subscribed(gw, o, "ndjson", keepalive_s)) as ds:
            async for d in ds:
                yield _line(d)

    return StreamingResponse(lines(), media_type="application/x-ndjson",
                             headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _line(d: Recorded | End | None) -> str:
    """One NDJSON line (or WebSocket text frame, without the newline) for a delivery."""
    if d is None:
        return '{"keepalive": true}\n'
    return (json.dumps(d.to_dict()) if isinstance(d, End) else d.json) + "\n"


async def websocket_feed(ws: WebSocket, gw: Any, kind: str, fid: str, since: str | None,
                         types: str | None, hide: frozenset[str] = frozenset()) -> None:
    """Feed ``kind`` ``fid`` on WebSocket ``ws`` from ``since``: one message per text frame,
    :meth:`End.to_dict` and close code 1013/1001 when the gateway closes it; a refusal is one
    JSON object ``{"detail", "code"}`` and close code 4000 + its HTTP status."""
    await ws.accept()
    try:
        o = prepare(gw, feed_key(gw.rm, kind, fid), Resume(since, types, hide=hide))
    except HTTPError as e:
        await ws.send_text(json.dumps({"detail": e.detail, "code": e.extra.get("code") or
                                       {404: "not-found"}.get(e.status, "refused")}))
        await ws.close(4000 + e.status)
        return
    writer = asyncio.create_task(_write(ws, subscribed(gw, o, "websocket")))
    reader = asyncio.create_task(_until_disconnect(ws))
    try:
        await asyncio.wait({writer, reader}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for t in (writer, reader):
            t.cancel()
        await asyncio.gather(writer, reader, return_exceptions=True)


async def _write(ws: WebSocket, deliveries: AsyncIterator[Recorded | End | None]) -> None:
    """Send ``deliveries`` on ``ws`` (closed with the :class:`End`'s code after it)."""
    async with aclosing(deliveries) as ds:
        async for d in ds:
            if d is None:
                continue  # the WebSocket server pings on its own
            await ws.send_text(_line(d)[:-1])
            if isinstance(d, End):
                await ws.close(CLOSE_CODES[d.reason])
                return


async def _until_disconnect(ws: WebSocket) -> None:
    """Read (and ignore) what the client sends until it goes away."""
    try:
        while (await ws.receive())["type"] != "websocket.disconnect":
            pass
    except (WebSocketDisconnect, RuntimeError):
        pass


# -------------------------------------------------------------------------------------- lists
Limit = Annotated[int, Query(ge=1, le=200, description="Items a page (1-200).")]
Cursor = Annotated[str | None, Query(max_length=400, description="The previous page's `next`.")]
Id = Annotated[str | None, Query(pattern=_ID)]
Kind = Annotated[Literal["chess", "xiangqi", "go"] | None, Query(description="The game played.")]


def game_summary(g: GameView) -> dict:
    """A game in a list: ids, players, status (``waiting``: its clock waits for the start),
    result and reason, place in its event,
    clocks (ms), moves made, and ``href`` the full resource."""
    return {"game_id": g.game_id, "game": g.game, "white": g.white, "black": g.black,
            "status": g.status, "waiting": g.waiting, "result": g.result, "reason": g.reason,
            "tournament_id": g.tournament_id, "round": g.round, "board": g.board,
            "clock": {k: g.clock.get(k) for k in ("white_ms", "black_ms", "running")},
            "moves": len(g.moves), "href": f"/games/{g.game_id}"}


def tournament_summary(t: TournamentView) -> dict:
    """A tournament in a list: id, name, game, system, status, rounds planned and paired,
    players registered, and ``href`` the full resource."""
    return {"tournament_id": t.tournament_id, "name": t.name, "game": t.game, "system": t.system,
            "status": t.status, "rounds": t.planned_rounds, "rounds_paired": len(t.rounds),
            "players": len(t.players), "href": f"/tournaments/{t.tournament_id}"}


def _game_order(g: GameView) -> list:
    return [g.tournament_id or "", g.round or 0, g.board or 0, g.game_id]


def _tournament_order(t: TournamentView) -> list:
    return [t.tournament_id]


def encode_cursor(key: list) -> str:
    """An opaque cursor for the item whose order key is ``key``."""
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str, like: list) -> list:
    """The order key in ``cursor``; 422 ``bad-cursor`` unless it is one this list gave (the
    same shape as ``like``)."""
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode("ascii")))
    except (ValueError, binascii.Error, UnicodeError):
        key = None
    if not (isinstance(key, list) and len(key) == len(like)
            and all(type(a) is type(b) for a, b in zip(key, like))):
        raise HTTPError(422, "cursor is not one this list gave (pass the previous page's `next` "
                             "unchanged, with the same filters)", code="bad-cursor")
    return key


def page(items: Iterable[Any], order: Callable[[Any], list], like: list, limit: int,
         cursor: str | None, summary: Callable[[Any], dict]) -> dict:
    """The first ``limit`` of ``items`` in ``order`` after ``cursor``: ``{"items": [...],
    "next": cursor or None}``."""
    after = decode_cursor(cursor, like) if cursor is not None else None
    rest = (i for i in items if after is None or order(i) > after)
    chosen = heapq.nsmallest(limit + 1, rest, key=order)
    more = len(chosen) > limit
    chosen = chosen[:limit]
    return {"items": [summary(i) for i in chosen],
            "next": encode_cursor(order(chosen[-1])) if more else None}


# ------------------------------------------------------------------------------------- router
def feeds_router(gateway: Any) -> APIRouter:
    """The router of this module; ``gateway`` the dependency giving the gateway (its read
    model ``rm`` and :class:`Hub` ``hub``)."""
    router = APIRouter()

    @router.get("/games", tags=["games"])
    async def list_games(request: Request, status: Literal["created", "ongoing", "ended"] | None = None,
                         tournament_id: Id = None, player_id: Id = None, game: Kind = None,
                         round: Annotated[int | None, Query(ge=1, le=99)] = None,
                         limit: Limit = 50, cursor: Cursor = None, gw: Any = gateway) -> dict:
        """Games, filtered: ``status``, ``tournament_id``, ``player_id`` (white or black),
        ``game``, ``round``; a page of ``limit`` compact summaries and ``next``. The games
        of an unpublished event only for its scope (:mod:`.scopes`)."""
        who = scopes.reader(request)

        def fits(g: GameView) -> bool:
            return ((status is None or g.status == status) and scopes.visible(gw, who, g.tournament_id)
                    and (tournament_id is None or g.tournament_id == tournament_id)
                    and (player_id is None or player_id in (g.white, g.black))
                    and (game is None or g.game == game) and (round is None or g.round == round))
        return page(filter(fits, gw.rm.games.values()), _game_order, ["", 0, 0, ""], limit, cursor,
                    game_summary)

    @router.get("/tournaments", tags=["tournaments"])
    async def list_tournaments(request: Request,
                               status: Literal["created", "open", "running", "finished"] | None = None,
                               player_id: Id = None, game: Kind = None, limit: Limit = 50,
                               cursor: Cursor = None, gw: Any = gateway) -> dict:
        """Tournaments, filtered: ``status``, ``player_id`` (registered), ``game``; a page
        of ``limit`` compact summaries and ``next``. Unpublished events only for their
        scope (:mod:`.scopes`)."""
        who = scopes.reader(request)

        def fits(t: TournamentView) -> bool:
            return ((status is None or t.status == status) and (game is None or t.game == game)
                    and scopes.visible(gw, who, t.tournament_id)
                    and (player_id is None or player_id in t.players))
        return page(filter(fits, gw.rm.tournaments.values()), _tournament_order, [""], limit,
                    cursor, tournament_summary)

    @router.get("/feeds/{kind}/{fid}", tags=["feeds"])
    async def feed(kind: Literal["game", "tournament", "event"],
                   fid: Annotated[str, Path(pattern=_ID)], at: Resume = RESUME,
                   follow: bool = True, format: Literal["sse", "ndjson"] | None = None,
                   accept: Annotated[str | None, Header()] = None, gw: Any = gateway) -> Any:
        """A game's, a tournament's or a whole event's messages (see the module): SSE, or
        NDJSON (``format=ndjson`` or ``Accept: application/x-ndjson``); live only unless
        ``since`` or ``Last-Event-ID`` resumes; ``types`` filters. ``follow=false``: the
        messages after ``since`` so far, as a JSON list (none without ``since``)."""
        key = feed_key(gw.rm, kind, fid)
        if follow and (format == "ndjson" or (format is None
                                              and "application/x-ndjson" in (accept or ""))):
            return ndjson_response(gw, key, at)
        return events(gw, key, follow, at, default=None)

    @router.websocket("/feeds/{kind}/{fid}")
    async def feed_ws(ws: WebSocket, kind: str, fid: str) -> None:
        """The same feed on a WebSocket (``since`` and ``types`` in the query)."""
        q = ws.query_params
        await websocket_feed(ws, ws.app.state.gateway, kind, fid, q.get("since"), q.get("types"),
                             hide=_hidden(ws))

    return router
