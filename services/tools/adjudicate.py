"""``arbiter adjudicate``: play moves from a position through the services' own cores and rule.

The moves go, as a gateway would send them, through :class:`ValidationCore` and
:class:`AdjudicationCore` (see :mod:`services.tools.replay`), so the ruling is the one the
running platform would make: the first illegal move, the end of the game (mate, stalemate,
insufficient material, a 棋例 ruling on a repeated position) and the article applied. For xiangqi
every move is classified by the 棋例 (1999 rules art. 28: check, mate-threat, chase, idle); the
moves of a ruled cycle carry the ruling's classification (art. 27.2 can turn a soldier's threat
into a chase when both sides attack).
"""
from __future__ import annotations

from contracts.messages import (
    CreateGame, GameCommandRejected, GameEnded, MoveAccepted, MoveRejected, RepetitionRuled, SubmitMove,
)
from pydantic import ValidationError

from services.tools.replay import _Pipe


def adjudicate(game: str, fen: str | None, moves: list[str]) -> dict:
    """Play ``moves`` (any notation the game accepts) from ``fen`` (the start when None).

    Returns ``{"legal": bool, "first_rejected": null|{"ply", "move", "reason"}, "result":
    "1-0|0-1|1/2-1/2|*", "reason", "rule", "moves": [{"move", "classification", ...}],
    "rulings": [...]}``; ``result`` is ``*`` while the game goes on. Raises ``ValueError`` for an
    unknown game or a bad FEN."""
    pipe = _Pipe()
    out = pipe.send(CreateGame(game_id="adj", white="white", black="black", time_control="-",
                               start_fen=fen, game=game))
    bad = next((e.payload for e in out if isinstance(e.payload, GameCommandRejected)), None)
    if bad is not None:
        raise ValueError(bad.reason)
    def side(seat: str) -> str:  # xiangqi: Red sits in the white seat
        return {"white": "red"}.get(seat, seat) if game == "xiangqi" else seat

    row: dict = {"legal": True, "first_rejected": None, "result": "*", "reason": "game goes on",
                 "rule": None, "moves": [], "rulings": []}
    classify = None
    if game == "xiangqi":
        from shared.rules.xiangqi_repetition import classify_move
        classify = classify_move
    for ply, text in enumerate(moves, start=1):
        g = pipe.v.games["adj"]
        if g.over:
            row["legal"] = False
            row["first_rejected"] = {"ply": ply, "move": text, "reason": "the game is already over"}
            break
        before = g.pos.board.copy() if classify else None
        try:
            cmd = SubmitMove(game_id="adj", player_id=g.to_move, move=text)
        except ValidationError:
            row["legal"] = False
            row["first_rejected"] = {"ply": ply, "move": text[:40],
                                     "reason": "not a move: 1 to 16 characters expected"}
            break
        out = pipe.send(cmd)
        rej = next((e.payload for e in out if isinstance(e.payload, MoveRejected)), None)
        if rej is not None:
            row["legal"] = False
            row["first_rejected"] = {"ply": ply, "move": text, "reason": rej.reason,
                                     "rule": rej.rule.model_dump() if rej.rule else None}
            break
        acc = next(e.payload for e in out if isinstance(e.payload, MoveAccepted))
        entry = {"move": acc.uci, "notation": acc.san, "side": side(acc.colour)}
        if classify is not None:
            c = classify(before, _move(acc.uci))
            entry.update(classification=c.kind, targets=[t.square for t in c.targets], note=c.reason)
        row["moves"].append(entry)
        for e in out:
            if isinstance(e.payload, RepetitionRuled):
                r = e.payload
                row["rulings"].append(r.model_dump(mode="json", exclude={"game_id"}))
                for m, ruled in zip(row["moves"][-len(r.moves):], r.moves):  # the cycle ends here
                    m["classification"] = ruled.classification
            if isinstance(e.payload, GameEnded):
                end = e.payload
                row.update(result=end.result, reason=end.reason, rule=end.rule.model_dump(),
                           detail=end.detail)
    return row


def _move(iccs: str):
    from shared.rules.xiangqi import Move
    return Move.from_iccs(iccs)
