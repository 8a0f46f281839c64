"""``arbiter replay``: replay recorded games through the validation and adjudication cores.

Each game is fed, as the commands a gateway would send, to fresh :class:`ValidationCore` and
:class:`AdjudicationCore` instances (the same code the services run; no log needed, so a file of
a thousand games replays in seconds). A record whose result is a draw not reached on the board
is offered to the rules as the claims a player could make at the end (chess: threefold, 50 moves,
1994 art. 10.10/10.12; xiangqi: the natural limit, 1999 art. 4.2.4, and a 棋例 ruling on a
repeated position, art. 24, which records replay with rulings on request only, as over the
board); whatever else the record says (resignation, time, agreement) the platform
reports as not decided on the board.

SGF Go records (``.sgf``) are played through the same validation and adjudication cores the
services run (:func:`replay_sgf`, via :func:`services.tools.adjudicate.adjudicate_go`).
"""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from contracts.envelope import Actor, Envelope
from contracts.messages import (
    ClaimDraw, CreateGame, GameEnded, MoveRejected, SubmitMove, envelope,
)
from services.adjudication.core import AdjudicationCore
from services.validation.core import ValidationCore
from shared.rules.pgnrecord import RecordedGame, read_games

_T0 = datetime(2000, 1, 1, tzinfo=timezone.utc)
_ARBITER = Actor(kind="arbiter", id="replay")


class _Pipe:
    """Validation then adjudication, in process, on one game's commands."""

    def __init__(self) -> None:
        self.v = ValidationCore()
        self.a = AdjudicationCore()
        self.seq = 0
        self.out: list[Envelope] = []

    def send(self, payload) -> list[Envelope]:
        self.seq += 1
        cmd = envelope(payload, stream=f"game-{payload.game_id}.commands", seq=self.seq,
                       occurred_at=_T0 + timedelta(seconds=self.seq), actor=_ARBITER)
        produced: list[Envelope] = []
        queue = [cmd]
        n = 0
        while queue:
            m = queue.pop(0)
            for core in (self.v, self.a):
                for e in core.handle(m):
                    n += 1
                    ev = envelope(e.payload, stream=e.stream, seq=n, occurred_at=m.occurred_at,
                                  actor=Actor(kind="service", id=core.name))
                    produced.append(ev)
                    queue.append(ev)
        self.out += produced
        return produced


def replay_game(file: str, g: RecordedGame) -> dict:
    """Replay one recorded game; returns the report row of ``arbiter replay --json``:
    {file, index, moves, accepted, first_rejected: null|{ply, move, reason}, recorded_result,
    result, reason}."""
    row = {"file": file, "index": g.index, "white": g.white, "black": g.black,
           "moves": len(g.moves), "accepted": 0, "first_rejected": None,
           "recorded_result": g.result, "result": "*", "reason": "not decided on the board",
           "rule": None}
    if g.error:
        row["first_rejected"] = {"ply": len(g.moves) + 1, "move": "?", "reason": f"PGN error: {g.error}"}
    pipe = _Pipe()
    gid = f"r{g.index}"
    try:
        pipe.send(CreateGame(game_id=gid, white="white", black="black", time_control="-",
                             start_fen=g.start_fen, game=g.game,
                             repetition_rulings="on-request"))
    except ValueError as e:
        row["first_rejected"] = {"ply": 0, "move": "", "reason": f"bad start position: {e}"}
        return row
    ended: GameEnded | None = None
    for ply, uci in enumerate(g.moves, start=1):
        player = pipe.v.games[gid].to_move
        out = pipe.send(SubmitMove(game_id=gid, player_id=player, move=uci))
        rej = next((e.payload for e in out if isinstance(e.payload, MoveRejected)), None)
        if rej is not None:
            row["first_rejected"] = {"ply": ply, "move": g.sans[ply - 1], "reason": rej.reason}
            break
        row["accepted"] += 1
        ended = ended or next((e.payload for e in out if isinstance(e.payload, GameEnded)), None)
    if ended is None and g.result == "1/2-1/2" and row["first_rejected"] is None:
        for reason in (("repetition", "natural-limit") if g.game == "xiangqi" else ("threefold", "fifty-moves")):
            player = pipe.v.games[gid].to_move
            out = pipe.send(ClaimDraw(game_id=gid, player_id=player, reason=reason))
            ended = next((e.payload for e in out if isinstance(e.payload, GameEnded)), None)
            if ended is not None and ended.result == "1/2-1/2":
                break
            ended = None  # refused, or a 棋例 ruling that is no draw: not what the record says
            pipe = _rebuild(gid, g)  # start clean for the next claim
    if ended is not None:
        row.update(result=ended.result, reason=ended.reason, rule=ended.rule.model_dump())
    return row


def _rebuild(gid: str, g: RecordedGame) -> _Pipe:
    pipe = _Pipe()
    pipe.send(CreateGame(game_id=gid, white="white", black="black", time_control="-",
                         start_fen=g.start_fen, game=g.game,
                             repetition_rulings="on-request"))
    for uci in g.moves:
        player = pipe.v.games[gid].to_move
        pipe.send(SubmitMove(game_id=gid, player_id=player, move=uci))
    return pipe


def replay_files(paths: list[str | Path], progress=None) -> list[dict]:
    """Replay every game of every file (PGN, xiangqi records, or one SGF Go game per ``.sgf``
    file, see :func:`replay_sgf`); ``progress(n)`` is called after each game."""
    rows = []
    for p in paths:
        if is_sgf(p):
            rows.append(replay_sgf(p))
            if progress:
                progress(1)
            continue
        for g in read_games(p):
            rows.append(replay_game(str(p), g))
            if progress:
                progress(1)
    return rows


def is_sgf(path: str | Path) -> bool:
    """True for an SGF file name (``.sgf``, any case)."""
    return str(path).lower().endswith(".sgf")


def replay_sgf(file: str | Path) -> dict:
    """Replay one SGF Go record: the same row as :func:`replay_game` plus ``"game": "go"``,
    ``rules``, ``implicit_passes``, ``score``. Go is played through the
    services' validation and adjudication cores (:func:`services.tools.adjudicate.adjudicate_go`). ``result``
    is the board's count when play stopped with two passes, with the dead stones the record's
    TB/TW marks imply, or none under Tromp-Taylor rules (``reason`` says which), else ``*`` ("not
    decided on the board": resignation, time, or a count we cannot re-derive without the dead
    stones: the estimate's count is in ``score``). ``warnings``: the record's (an unknown ``RU``,
    an ``RE`` outside FF[4]: the moves still replay).
    ``recorded_result`` is ``RE`` in the platform's notation (``W+0.50`` -> ``W+0.5``).
    An unreadable SGF gives a row with ``first_rejected`` at ply 0 naming the error."""
    from services.tools.adjudicate import adjudicate_go
    from shared.rules.go import GoError
    from shared.rules.sgf import SgfError, read_sgf

    row = {"file": str(file), "index": 0, "game": "go", "white": "?", "black": "?", "moves": 0,
           "accepted": 0, "first_rejected": None, "recorded_result": "*", "result": "*",
           "reason": "not decided on the board", "rule": None}
    try:
        record = read_sgf(Path(file).read_bytes())
        ruling = adjudicate_go(record)
    except (OSError, SgfError, GoError) as e:
        row["first_rejected"] = {"ply": 0, "move": "", "reason": f"SGF error: {e}"}
        return row
    row.update(white=record.white, black=record.black, moves=len(record.moves),
               accepted=ruling["plies"], rules=record.rules,
               implicit_passes=ruling["implicit_passes"],
               recorded_result=record.result.text if record.result else "*",
               warnings=list(record.warnings))
    if ruling["first_rejected"]:
        fr = ruling["first_rejected"]
        row["first_rejected"] = {"ply": fr["ply"], "move": fr["move"],
                                 "reason": f"{fr['reason']} ({fr['article']})"}
    elif ruling["result"] != "*":
        row["score"] = ruling["score"]
        if ruling["score"] is None or ruling["score"]["dead_source"] != "estimate":
            row.update(result=ruling["result"], reason=ruling["reason"], rule=ruling["rule"])
        else:
            row["reason"] = ("two passes, but no territory marks: the dead stones are not known, "
                             f"so the count is not re-derived (score: {ruling['score']['result']} "
                             "with the Monte-Carlo estimate)")
    return row
