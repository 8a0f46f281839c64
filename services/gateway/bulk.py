"""Bulk pairing (issue 12 item 4, as lichess's ``/api/bulk-pairing``): ``/bulk-pairings``.

One call creates many games at once. The caller (an organiser, an integrator or the
administrator: :func:`.identity.bulk_creator_actor`) sends each game's players as their own
bearer tokens, so a player is paired only with his consent. Everything is checked before
anything is published, and a refusal names every bad entry (422 ``bad-players``, ``errors``:
index, seat, code, detail): a token expired, forged, malformed or revoked, not a player's,
not covering the event (or, outside any event, not ``*``); a player twice in the bulk; one
player on both seats; the game settings the validation service would refuse
(:func:`shared.rules.games.resolve_creation`); a bulk id or game id already used (409). With
``dry_run`` the checks run and the games are listed, nothing is published.

Then one CreateGame a game (``bulk_id`` recorded on it, ``game_id`` ``<bulk_id>-<n>``), all
published before the answer. All or nothing holds for every refusal the services could make
(the same rules, checked first); only the log failing midway (503) leaves the games published
before it, which the answer's ``detail`` says to look up with the status call.

``GET /bulk-pairings/{id}``: every game of the bulk (status, waiting, result, reason, clocks,
moves), from the read model (restart-safe: ``bulk_id`` is on the log).
``POST /bulk-pairings/{id}/start``: StartPlay for each of its games still waiting (created
with ``clock_start`` ``on-command``): the creator or the administrator.
Identity off: 409 ``identity-off`` (there are no tokens to check).
"""
from __future__ import annotations

import asyncio
import secrets
from typing import Any, Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contracts.messages import CreateGame, StartPlay
from services.gateway import identity
from services.gateway.errors import HTTPError
from services.gateway.feeds import game_summary
from services.gateway.identity import AuthError, Principal
from shared.rules.games import CreationRefused, resolve_creation

_ID = r"^[A-Za-z0-9_\-]{1,60}$"
MAX_GAMES = 1000


class BulkPair(BaseModel):
    """One game: the bearer tokens of its White (xiangqi: Red) and Black players."""

    model_config = ConfigDict(extra="forbid")
    white: str = Field(min_length=1, max_length=4096)
    black: str = Field(min_length=1, max_length=4096)


class BulkBody(BaseModel):
    """A bulk pairing: ``games`` (1 to 1,000 pairs of player tokens) and the settings every
    game gets (as ``POST /games``: ``time_control``, ``game``, ``start_fen``, Go's settings,
    ``clock_start`` ``on-command`` to start them all later with one call, ``tournament_id``
    for an event's games); ``bulk_id`` (drawn when absent); ``dry_run``: check only."""

    model_config = ConfigDict(extra="forbid")
    bulk_id: str | None = Field(default=None, pattern=_ID)
    games: list[BulkPair] = Field(min_length=1, max_length=MAX_GAMES)
    time_control: str = Field(default="300", max_length=100)
    game: Literal["chess", "xiangqi", "go"] = "chess"
    start_fen: str | None = Field(default=None, max_length=4096)
    clock_start: Literal["auto", "on-command"] = "auto"
    tournament_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9_\-]{1,80}$")
    board_size: int | None = Field(default=None, ge=2, le=25)
    go_rules: str | None = Field(default=None, max_length=20)
    komi: float | None = Field(default=None, ge=-1000, le=1000)
    handicap: int | None = Field(default=None, ge=0, le=9)
    dry_run: bool = False


def _player(gw: Any, token: str, tid: str | None) -> tuple[str | None, tuple[str, str] | None]:
    """The player id a token names, or (None, (code, detail)) why it cannot pair him."""
    try:
        p: Principal = identity.read_token(gw.jwt_secret, token)
    except AuthError as e:
        return None, (e.code, e.detail)
    if gw.rm.revoked.revoked(p.jti):
        return None, ("token-revoked", "the token has been revoked")
    if p.role != "player":
        return None, ("not-a-player", f"a {p.role}'s token, not a player's")
    if not p.in_event(tid):
        where = f"event {tid}" if tid else "games outside any event (events ['*'])"
        return None, ("not-your-event", f"{p.sub}'s token does not cover {where}")
    return p.sub, None


def _games(gw: Any, body: BulkBody, bulk_id: str) -> tuple[list[CreateGame], list[dict]]:
    """Each game's CreateGame, and the errors (index, seat, code, detail) of the bad entries."""
    errors: list[dict] = []
    seen: dict[str, int] = {}
    out: list[CreateGame] = []
    settings = body.model_dump(exclude={"bulk_id", "games", "dry_run"})
    for i, pair in enumerate(body.games):
        ids = {}
        for seat in ("white", "black"):
            pid, why = _player(gw, getattr(pair, seat), body.tournament_id)
            if why is not None:
                errors.append({"index": i, "seat": seat, "code": why[0], "detail": why[1]})
            elif pid in seen and seen[pid] != i:
                errors.append({"index": i, "seat": seat, "code": "paired-twice",
                               "detail": f"{pid} is also in game {seen[pid]} of this bulk"})
            else:
                ids[seat] = pid
                seen[pid] = i
        if len(ids) < 2:
            continue
        try:
            cmd = CreateGame(game_id=f"{bulk_id}-{i + 1}", white=ids["white"], black=ids["black"],
                             bulk_id=bulk_id, **settings)
            resolve_creation(cmd)
        except ValidationError as e:
            errors.append({"index": i, "seat": None, "code": "malformed", "detail": str(e.errors()[0]["msg"])})
            continue
        except CreationRefused as e:
            errors.append({"index": i, "seat": None, "code": e.code, "detail": e.reason})
            continue
        out.append(cmd)
    return out, errors


def _caller(gw: Any, ctx: Any) -> Principal:
    """The caller's principal (:meth:`Gateway.caller`); 409 ``identity-off`` without identity."""
    if gw.jwt_secret is None:
        raise HTTPError(409, "identity is off (ARBITER_JWT_SECRET is not set): bulk pairing "
                             "checks every player's token", code="identity-off")
    return gw.caller(ctx)


def _bulk(gw: Any, ctx: Any, bulk_id: str) -> tuple[list, Any]:
    """The game views of bulk ``bulk_id`` (404 ``not-found`` for none) and the actor its
    creator or the administrator acts as (403 ``not-your-bulk`` for anyone else)."""
    views = [g for gid in gw.rm.bulks.get(bulk_id, ()) if (g := gw.rm.game(gid)) is not None]
    if not views:
        raise HTTPError(404, f"no such bulk pairing: {bulk_id}")
    return views, identity.may_start_bulk(_caller(gw, ctx), views[0].created_by)


def bulk_router(GW: Any, CONTEXT: Any, send_outcome: Any) -> APIRouter:
    """The bulk pairing routes; ``GW``/``CONTEXT``: the gateway's dependencies;
    ``send_outcome(cmd, resp) -> JSONResponse``: the gateway's answer to a published command."""
    router = APIRouter(tags=["bulk pairing"])
    reserved: set[str] = set()  # bulk ids being published by this process

    @router.post("/bulk-pairings")
    async def create_bulk(body: BulkBody, request: Request, ctx=CONTEXT, gw=GW) -> JSONResponse:
        """Check every player's token and every game, then create them all (201), or none:
        422 ``bad-players`` with ``errors`` (index, seat, code, detail), 409 ``already-exists``,
        401/403 for the caller; ``dry_run``: 200 with the games it would create."""
        p = _caller(gw, ctx)
        tid = body.tournament_id
        t = gw.rm.tournament(tid) if tid else None
        if tid and t is None:
            raise HTTPError(404, f"no such tournament: {tid}")
        actor = identity.bulk_creator_actor(p, tid, t.created_by if t else None)
        bulk_id = body.bulk_id or f"bulk-{secrets.token_hex(4)}"
        if bulk_id in gw.rm.bulks or bulk_id in reserved:
            raise HTTPError(409, f"bulk pairing {bulk_id} already exists", code="already-exists")
        cmds, errors = _games(gw, body, bulk_id)
        # tokens that are none of ours are one failed authentication of the request, however
        # many: an organiser's list of stale tokens (another secret's) must not lock every
        # player behind his address out of their games (a helper's finding with one per token)
        gw.rates.count_auth_failure(request.scope, *(e["code"] for e in errors))
        if errors:
            raise HTTPError(422, f"{len(errors)} bad entr{'y' if len(errors) == 1 else 'ies'}: nothing "
                                 "was created", code="bad-players", errors=errors[:200])
        if taken := [c.game_id for c in cmds if gw.rm.game(c.game_id) is not None]:
            raise HTTPError(409, f"game ids already used: {taken[:10]}", code="already-exists")
        games = [{"game_id": c.game_id, "white": c.white, "black": c.black} for c in cmds]
        if body.dry_run:
            return JSONResponse({"bulk_id": bulk_id, "dry_run": True, "games": games})
        reserved.add(bulk_id)
        try:
            sent = await asyncio.gather(*(gw.send(c, f"game-{c.game_id}", actor, at_ms=None,
                                                  wait=ctx.wait, correlation=None) for c in cmds))
        finally:
            reserved.discard(bulk_id)
        outcomes = [send_outcome(cmd, resp).status_code for cmd, resp in sent]
        return JSONResponse({"bulk_id": bulk_id, "dry_run": False, "href": f"/bulk-pairings/{bulk_id}",
                             "games": [{**g, "status_code": s} for g, s in zip(games, outcomes)]},
                            status_code=201)

    @router.get("/bulk-pairings/{bulk_id}")
    async def bulk_status(bulk_id: str, ctx=CONTEXT, gw=GW) -> dict:
        """Every game of the bulk: status (``waiting`` for its start), result, reason, clocks,
        moves made; the creator's or the administrator's (403 ``not-your-bulk``)."""
        views, _ = _bulk(gw, ctx, bulk_id)
        return {"bulk_id": bulk_id, "games": [game_summary(g) for g in views],
                "counts": {s: sum(g.status == s for g in views) for s in ("created", "ongoing", "ended")},
                "waiting": sum(g.waiting for g in views)}

    @router.post("/bulk-pairings/{bulk_id}/start")
    async def bulk_start(bulk_id: str, ctx=CONTEXT, gw=GW) -> dict:
        """Start every game of the bulk still waiting (StartPlay each: the clocks run from
        this request's receive time); the creator or the administrator. Answer: the games
        started and each command's status."""
        views, actor = _bulk(gw, ctx, bulk_id)
        todo = [g for g in views if g.waiting and not g.over]
        sent = await asyncio.gather(*(gw.send(StartPlay(game_id=g.game_id), f"game-{g.game_id}", actor,
                                              at_ms=None, wait=ctx.wait, correlation=None) for g in todo))
        return {"bulk_id": bulk_id, "started": {g.game_id: send_outcome(c, r).status_code
                                                for g, (c, r) in zip(todo, sent)}}

    return router
