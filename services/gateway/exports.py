"""Export endpoints: a tournament as FIDE TRF-16, a game in its game's standard notation (issue 12).

Thin: each answer is written by the project's one writer of that format, from the gateway's
read model (:mod:`.readmodel`), nothing recomputed here:

- ``GET /tournaments/{tid}/trf``: :func:`shared.domain.trfexport.record_trf` (what ``arbiter
  export trf`` writes) over the read model's tournament record and its latest standings;
- ``GET /games/{gid}/pgn``: chess, :meth:`.readmodel.GameView.pgn` (SAN, ``[%clk]``); xiangqi,
  the same in Chinese notation, or ``notation=wxf`` / ``iccs`` by
  :func:`shared.rules.xiangqi_record.write_pgn` (``[Format "WXF"]``, ``"ICCS"``);
- ``GET /tournaments/{tid}/pgn``: every chess or xiangqi game the event paired, by round and
  board, one PGN file (games separated by a blank line; xiangqi's ``notation`` as above);
- ``GET /games/{gid}/sgf``: Go, :func:`shared.rules.sgf.write_sgf` (FF[4]: size, rules, komi,
  handicap stones, players, the moves, ``RE`` from the count or the end's reason).

Refusals: 404 unknown id, 409 ``wrong-game`` (PGN of a Go game, SGF of a chess game), 422
``malformed`` for another ``notation``. Read scopes apply as on every read (:mod:`.scopes`).
"""
from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse, Response

from services.gateway.errors import HTTPError
from services.gateway.readmodel import GameView, ReadModel, TournamentView
from services.gateway.scopes import private_ok
from shared.domain.trfexport import record_trf

PGN = "application/vnd.chess-pgn; charset=utf-8"
SGF = "application/x-go-sgf"
TRF = "text/plain; charset=utf-8"
#: xiangqi's notations of a PGN export: Chinese (the default), WXF, ICCS
Notation = Literal["chinese", "wxf", "iccs"]


def _game(rm: ReadModel, gid: str) -> GameView:
    g = rm.game(gid)
    if g is None:
        raise HTTPError(404, f"no such game: {gid}")
    return g


def player_names(t: TournamentView | None) -> dict[str, str]:
    """Player id -> registered name in event ``t`` (empty outside any event)."""
    return {pid: p.name for pid, p in t.players.items() if p.name} if t is not None else {}


def game_pgn(g: GameView, event: str, notation: str = "chinese", names: dict[str, str] | None = None) -> str:
    """The PGN of chess or xiangqi game ``g`` (``notation``: xiangqi's chinese, wxf or iccs;
    ``names``: player id -> name for the White/Red and Black tags, the ids where absent);
    :class:`HTTPError` 409 ``wrong-game`` for Go."""
    if g.game == "go":
        raise HTTPError(409, f"game {g.game_id} is Go: its record is SGF (/games/{g.game_id}/sgf)",
                        code="wrong-game")
    if g.game != "xiangqi" or notation == "chinese":
        return g.pgn(event=event, names=names)
    from shared.rules.xiangqi import Board
    from shared.rules.xiangqi_notation import parse_iccs
    from shared.rules.xiangqi_record import XiangqiRecord, write_pgn

    board, moves = Board(g.start_fen), []
    for ply in sorted(g.moves):
        m = parse_iccs(board, g.moves[ply].uci)
        board.push(m)
        moves.append(m)
    result = g.result if g.result in ("1-0", "0-1", "1/2-1/2") else "*"
    names = names or {}
    red, black = (names.get(p or "", p or "?") for p in (g.white, g.black))
    record = XiangqiRecord(red=red, black=black, result=result, event=event, round=str(g.round) if g.round is not None else None,
                           headers={"Site": "Arbiter"}, start_fen=g.start_fen, moves=moves)
    return write_pgn(record, notation)


def _sgf_result(g: GameView) -> str | None:
    """SGF ``RE``: the count (``B+3.5``), else the winner and the end's kind (``W+R``,
    ``B+T``, ``W+F``), ``0`` for a draw, ``Void`` for no result, None while the game runs."""
    if g.score:
        return g.score
    if g.result is None:
        return None
    if g.result in ("1/2-1/2",):
        return "0"
    if g.result not in ("1-0", "0-1"):
        return "Void"
    kind = {"resignation": "R", "flag": "T", "timeout": "T", "forfeit": "F"}.get(g.reason or "", "")
    return ("W+" if g.result == "1-0" else "B+") + kind


def game_sgf(g: GameView) -> bytes:
    """The SGF FF[4] record of Go game ``g``; :class:`HTTPError` 409 ``wrong-game`` for another."""
    if g.game != "go" or g.go is None:
        raise HTTPError(409, f"game {g.game_id} is {g.game}: its record is PGN "
                             f"(/games/{g.game_id}/pgn)", code="wrong-game")
    from shared.rules.go import handicap_points, parse_point
    from shared.rules.sgf import GoRecord, TimeSettings, parse_result, write_sgf

    size, handicap = g.go["board_size"], g.go["handicap"] or 0
    moves = [(m.colour, None if m.void or m.uci in (None, "pass") else parse_point(m.uci, size))
             for m in (g.moves[p] for p in sorted(g.moves))]
    re_ = _sgf_result(g)
    info = {"PB": g.black or "?", "PW": g.white or "?"}
    if g.tournament_id:
        info["EV"] = g.tournament_id
    if g.round is not None:
        info["RO"] = str(g.round)
    return write_sgf(GoRecord(
        size=size, rules=g.go["go_rules"], komi=g.go["komi"], handicap=handicap,
        setup_black=tuple(handicap_points(size, handicap)) if handicap > 1 else (),
        moves=moves, result=parse_result(re_) if re_ else None, time=TimeSettings(), info=info))


def export_router(rm_of) -> APIRouter:
    """The export routes; ``rm_of``: a FastAPI dependency giving the gateway (its ``rm``)."""
    router = APIRouter(tags=["exports"])

    @router.get("/tournaments/{tid}/trf", response_class=PlainTextResponse,
                responses={200: {"content": {TRF: {}}}})
    async def tournament_trf(tid: str, request: Request, gw=rm_of) -> Response:
        """The event as FIDE TRF-16 (the file ``arbiter export trf`` writes): header lines,
        one ``001`` line a player with every round's entry, points and, once the standings
        cover every round played, the rank; FIDE ids, birth dates and sex only for the
        event's private scope (:mod:`.scopes`)."""
        t = gw.rm.tournament(tid)
        if t is None or t.record is None:
            raise HTTPError(404, f"no such tournament: {tid}")
        return Response(record_trf(t.record, t.standings_payload, private_ok(request)), media_type=TRF)

    @router.get("/tournaments/{tid}/pgn", response_class=PlainTextResponse,
                responses={200: {"content": {PGN: {}}}})
    async def tournament_pgn(tid: str, notation: Notation = Query(
            default="chinese", description="xiangqi: the movetext's notation"), gw=rm_of) -> Response:
        """Every chess or xiangqi game the event paired, round by round and board by board,
        as one PGN file (xiangqi in Chinese notation or, with ``notation``, WXF or ICCS, as
        ``/games/{gid}/pgn``); 409 ``wrong-game`` for a Go event."""
        t = gw.rm.tournament(tid)
        if t is None:
            raise HTTPError(404, f"no such tournament: {tid}")
        if t.game == "go":
            raise HTTPError(409, f"{tid} is a Go event: each game's record is SGF", code="wrong-game")
        gids = [b.game_id for r in t.rounds for b in r.boards]
        games = [gw.rm.game(gid) for gid in gids]
        text = "\n".join(game_pgn(g, t.name or tid, notation, player_names(t)) for g in games if g is not None)
        return Response(text, media_type=PGN)

    @router.get("/games/{gid}/pgn", response_class=PlainTextResponse,
                responses={200: {"content": {PGN: {}}}})
    async def pgn(gid: str, notation: Notation = Query(
            default="chinese", description="xiangqi: the movetext's notation"), gw=rm_of) -> Response:
        """The game as PGN: chess in SAN with ``[%clk]``; xiangqi in Chinese notation or, with
        ``notation``, WXF or ICCS (``[Format ...]``); 409 ``wrong-game`` for Go (SGF)."""
        g = _game(gw.rm, gid)
        t = gw.rm.tournament(g.tournament_id) if g.tournament_id else None
        return Response(game_pgn(g, (t.name if t and t.name else "?"), notation, player_names(t)), media_type=PGN)

    @router.get("/games/{gid}/sgf", responses={200: {"content": {SGF: {}}}})
    async def sgf(gid: str, gw=rm_of) -> Response:
        """The Go game as SGF FF[4]; 409 ``wrong-game`` for chess or xiangqi (PGN)."""
        return Response(game_sgf(_game(gw.rm, gid)), media_type=SGF)

    return router
