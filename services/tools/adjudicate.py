"""``arbiter adjudicate``: play moves from a position through the services' own cores and rule.

The moves go, as a gateway would send them, through :class:`ValidationCore` and
:class:`AdjudicationCore` (see :mod:`services.tools.replay`), so the ruling is the one the
running platform would make: the first illegal move, the end of the game (mate, stalemate,
insufficient material, a 棋例 ruling on a repeated position) and the article applied. For xiangqi
every move is classified by the 棋例 (1999 rules art. 28: check, mate-threat, chase, idle); the
moves of a ruled cycle carry the ruling's classification (art. 27.2 can turn a soldier's threat
into a chase when both sides attack). Go (:func:`adjudicate_go`, an SGF record and extra moves)
goes through the same two cores: its refusals, stopped play and endless cycles are the services'.
"""
from __future__ import annotations

from contracts.messages import (
    CreateGame, EndlessCycleFound, GameCommandRejected, GameEnded, MoveAccepted, MoveRejected, RejectDead,
    RepetitionRuled, SubmitMove,
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


def adjudicate_go(record=None, rules: str | None = None, moves: list[str] = (), dead=None) -> dict:
    """Go: play ``record`` (a :class:`shared.rules.sgf.GoRecord`; None = an empty 19x19 board),
    then ``moves`` (GTP "D4"/"pass", no letter I, or SGF "dd"/"" coordinates), all under
    ``rules`` (default the record's RU, else chinese), through the services' own cores as a
    gateway would send them (:class:`ValidationCore` and :class:`AdjudicationCore`, see
    :mod:`services.tools.replay`): the game starts from the record's setup (``AB``/``AW``,
    handicap stones), each move is a SubmitMove, so a refusal is the service's (its code,
    reason and article), e.g. ``play-stopped`` for a move after two passes (Chinese / Ing 1988
    art. 21.1, Japanese 1989 art. 9-1). Record conventions: a record move by the colour that just
    moved is read as an unwritten pass (YuanYu records), sent as the other side's pass; a record
    move after two passes means play was resumed (Japanese 9-3), sent as the opponent's
    RejectDead. An extra move is always for the player to move.

    Returns ``{"legal": bool, "first_rejected": null|{"ply", "move", "reason", "code",
    "article", "rule"}, "result", "reason", "rule", "rules", "plies", "implicit_passes",
    "recorded_result", "warnings", "score", "endless_cycle"}``: ``result`` "*" while play goes
    on; when play stops (two passes in a row) the
    board is counted as ``arbiter score`` counts it (:func:`services.tools.score.count_board`):
    with ``dead`` (Points, "none" or "auto"), else the dead stones the record's TB/TW marks
    imply when no extra move was played, else the Monte-Carlo estimate; under Tromp-Taylor rules
    none (rule 9); ``score`` is that count's row (``dead_source`` says which). An endless cycle
    the adjudication service reports (EndlessCycleFound: a position seen a third time with
    captures by both sides; ``endless_cycle`` is its payload) gives what the ruleset's
    :attr:`shared.rules.go.Spec.cycle` says: "Draw" under Chinese rules (1988 art. 20.3: draw
    or replay, the arbiter's choice), "Void" under Japanese and Korean rules (1989 art. 12: no
    result), "*" with the article for the arbiter under Ing rules (art. 3); under the superko
    rules (Tromp-Taylor, AGA, New Zealand) the move closing a cycle is refused. A setup that is
    no position (stones without liberties) gives ``legal`` false with ``first_rejected``
    ``{"ply": 0, "move": "setup", "reason"}``. Raises ``ValueError`` for unknown rules, and
    :class:`services.tools.score.ScoreError` (a ``ValueError``) for a count it cannot make (bad
    ``dead``, no komi fits)."""
    from shared.rules import go
    from shared.rules.sgf import GoRecord

    record = record if record is not None else GoRecord()
    rules = rules or record.rules
    if rules not in go.RULESETS:
        raise ValueError(f"unknown Go rules {rules!r}: {', '.join(go.RULESETS)}")
    row: dict = {"legal": True, "first_rejected": None, "result": "*", "reason": "game goes on",
                 "rule": None, "rules": rules, "plies": 0, "implicit_passes": [],
                 "recorded_result": record.result.raw if record.result else None,
                 "warnings": list(record.warnings), "score": None, "endless_cycle": None}
    try:  # the setup as the services' start position (size, rules, side to move, stones)
        start = go.Board(record.size, rules, setup_black=record.setup_black,
                         setup_white=record.setup_white, turn=record.first_turn()).to_text()
    except go.GoError as e:  # a setup that is no position: no move can be judged
        row.update(legal=False, reason=f"the record's setup cannot be played: {e}",
                   first_rejected={"ply": 0, "move": "setup", "reason": str(e), "article": None,
                                   "rule": None})
        return row
    pipe = _Pipe()
    # komi 0 at creation: the count below uses the record's terms; nothing else depends on it
    out = pipe.send(CreateGame(game_id="adj", white="white", black="black", time_control="-",
                               game="go", start_fen=start, board_size=record.size,
                               go_rules=rules, komi=0.0))
    bad = next((e.payload for e in out if isinstance(e.payload, GameCommandRejected)), None)
    if bad is not None:
        raise ValueError(bad.reason)
    game = pipe.v.games["adj"]
    if _play(pipe, game, row, record, moves):
        row.update(_outcome(row, game, record, moves, rules, dead))
    return row


def _play(pipe: "_Pipe", game, row: dict, record, moves) -> bool:
    """Send the record's moves, then ``moves``, as SubmitMoves (the record's conventions of
    :func:`adjudicate_go`: an unwritten pass, a resumption after two passes); counts
    ``row["plies"]``. False at the first refusal (``row["first_rejected"]``)."""
    from shared.rules import go

    other = {"black": "white", "white": "black"}
    for ply, (colour, p) in enumerate(record.moves, start=1):
        if game.scoring:  # the record plays on after two passes: play was resumed (J89 9-3)
            pipe.send(RejectDead(game_id="adj", player_id=other[colour]))
        if colour != game.to_move:  # an unwritten pass of the side to move
            row["implicit_passes"].append(ply)
            if not _submit(pipe, row, ply, game.to_move, "pass"):
                return False
        if not _submit(pipe, row, ply, colour, "pass" if p is None else go.to_gtp(p, record.size)):
            return False
        row["plies"] += 1
    for ply, text in enumerate(moves, start=len(record.moves) + 1):
        if not _submit(pipe, row, ply, game.to_move, text):
            return False
        row["plies"] += 1
    return True


def _submit(pipe: "_Pipe", row: dict, ply: int, colour: str, text: str) -> bool:
    """SubmitMove by ``colour``; False (and ``row["first_rejected"]``) when refused; an
    EndlessCycleFound it causes is kept in ``row["endless_cycle"]`` (the first)."""
    try:
        cmd = SubmitMove(game_id="adj", player_id=colour, move=text)
    except ValidationError:
        row.update(legal=False, first_rejected={"ply": ply, "move": text[:40], "code": "malformed",
                                                "reason": "not a move: 1 to 16 characters expected",
                                                "article": None, "rule": None})
        return False
    for e in pipe.send(cmd):
        if isinstance(e.payload, MoveRejected):
            r = e.payload
            row.update(legal=False, first_rejected={
                "ply": ply, "move": text, "code": r.code, "reason": r.reason,
                "article": r.rule.article if r.rule else None,
                "rule": r.rule.model_dump() if r.rule else None})
            return False
        if isinstance(e.payload, EndlessCycleFound) and row["endless_cycle"] is None:
            row["endless_cycle"] = e.payload.model_dump(mode="json", exclude={"game_id"})
    return True


def _outcome(row: dict, game, record, moves, rules: str, dead) -> dict:
    """What the moves played give: an endless cycle's result, else the count once play
    stopped, else nothing (the game goes on)."""
    from dataclasses import replace

    if row["endless_cycle"] is not None:
        return _cycle_outcome(row["endless_cycle"], rules)
    if game.scoring:  # play stopped
        marked = record if not moves else replace(record, territory_black=frozenset(),
                                                  territory_white=frozenset())  # marks: the record's board only
        return _count_outcome(marked, game.pos.board, rules, dead)
    return {}


def _cycle_outcome(cycle: dict, rules: str) -> dict:
    """An endless cycle's result under ``rules`` (:attr:`shared.rules.go.Spec.cycle`): Draw
    (Chinese 1988 art. 20.3), Void (Japanese 1989 art. 12), else ``*`` for the arbiter (Ing
    art. 3); ``cycle``: EndlessCycleFound's payload."""
    from shared.rules import go

    rule = go.rule_for("endless-cycle", rules)
    what = (f"endless cycle: the position seen {cycle['occurrences']} times with captures by "
            f"both sides ({rule.summary})")
    result = {"draw-or-replay": "Draw", "no-result": "Void"}.get(go.spec(rules).cycle, "*")
    return {"result": result, "rule": rule.model_dump(),
            "reason": what if result != "*" else what + "; the arbiter rules"}


def _count_outcome(record, board, rules: str, dead) -> dict:
    """The count of a game whose play stopped (:func:`services.tools.score.count_board` with
    ``dead``, the record's marks or the estimate): result, the rule, the count's row."""
    from services.tools.score import count_board
    from shared.rules import go

    s = count_board(record, board, rules, dead=dead)
    how = {"marks": "dead by the record's marks", "estimate": "dead by the Monte-Carlo estimate",
           "given": "dead as given", "none": "dead (none given)",
           "rules": "dead: the rules take none off, every stone counts"}[s["dead_source"]]
    return {"result": s["result"], "rule": go.rule_for("end", rules).model_dump(), "score": s,
            "reason": f"play stopped; counted ({s['rule']}) with {len(s['dead'])} stones {how}"}
