"""Adjudication: decides every result and names the article (pure core, no I/O).

Consumes the game record (GameStarted, MoveAccepted, Resigned, DrawAgreed, DrawClaimed,
ResultRecorded), the clock's FlagFell and the penalties' forfeits. Writes ``game-<id>.result``:
GameEnded (result, reason, rule) or DrawClaimRejected, and for xiangqi RepetitionRuled. A game
ends once; later facts are ignored (chess 1994 art. 12.7, xiangqi 1999 art. 22.5: a mate,
stalemate, resignation or agreed draw made before a flag stands).

Xiangqi (1999 rules): mate and stalemate (困毙) lose (4.1.1, 4.1.3); neither side able to win is a
draw (4.2.1); a flag loses whatever the material (4.1.4); a natural-limit claim is checked by
art. 4.2.4 / 23.3; a position occurring a third time is ruled by the 棋例 (art. 24-29,
:func:`shared.rules.xiangqi_repetition.rule_cycle`) and the ruling, with every move of the cycle
classified, is written as RepetitionRuled before the GameEnded it may cause.

Go: a game is counted when the players agree on the dead stones (ScoringAgreed), the arbiter
rules them (DeadStonesRuled) or the stone-removal time runs out on an unanswered proposal
(StoneRemovalExpired with ``dead``; with no proposal the arbiter is called, ArbiterCalled
``stone-removal-timeout``: a platform rule for online play, no rule text sets the time):
:func:`shared.rules.go_scoring.score` under the game's rules and komi (Chinese area counting
1988 art. 9 with the komi's article, :func:`shared.rules.games.go_score_rule`: 1988 art. 11 for
2¾ stones = 5.5 points, 2002 art. 9 for the competition's komi, 3¾ stones = 7.5 points;
Japanese 1989 art. 8 / 10 territory counting; Ing art. 4; under Tromp-Taylor rules at once when
two passes end the game, every stone counting, ``how="rules"``), written as GameScored (points, ``B+3.5``, the counts) before the GameEnded whose result
maps Black's win to ``0-1``, White's to ``1-0`` and a jigo to ``1/2-1/2`` (``score`` keeps the
margin). A flag loses (1988 art. 23.5); resignation 7.2 (Japanese art. 11). A position that
recurs a third time with stones taken on the way (triple ko, eternal life:
:func:`shared.rules.go.endless_cycle`) is reported once as EndlessCycleFound (1988 art. 20.3;
Japanese 1989 art. 12): the arbiter's ruling is due and play goes on until it comes
(EndlessCycleRuled): ``draw`` -> ``1/2-1/2`` (reason ``endless-cycle``), ``no-result`` -> ``0-0``
(reason ``no-result``: neither player scores, Japanese art. 12), ``replay`` -> ``0-0`` (reason
``replay``; the new game is validation's). The older RecordResult ``1/2-1/2`` with reason
``endless-cycle`` is still read as the 20.3 draw.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from contracts.envelope import Envelope, stream_for
from contracts.messages import (
    GAME_EVENTS, ArbiterCalled, ClassifiedMove, DeadStonesRuled, DrawAgreed, DrawClaimed, DrawClaimRejected,
    EndlessCycleFound, EndlessCycleRuled,
    FlagFell, GameEnded, GameScored, GameStarted, MoveAccepted, PenaltyApplied, PlayResumed,
    RepetitionRuled, Resigned, ResultRecorded, Rule, ScoringAgreed, StoneRemovalExpired,
)
from shared.rules.games import Position, go_kwargs, go_score_rule, position
from shared.service import Core, Emit, handled_types

_OTHER = {"white": "black", "black": "white"}
_WIN = {"white": "1-0", "black": "0-1"}


_SEAT = {"red": "white", "black": "black"}


@dataclass
class _Game:
    pos: Position
    limit: int = 60
    ended: bool = False
    rulings: str = "automatic"  # xiangqi 棋例 rulings: automatic or on-request (art. 24)
    must_vary: str | None = None  # seat ordered to vary by a ruling (art. 24.3)
    komi: float = 0.0  # Go: points given to White
    handicap: int = 0  # Go: handicap stones
    cycle_reported: bool = False  # Go: an endless cycle was reported (1988 art. 20.3)

    @property
    def rules(self) -> dict[str, Rule]:
        return self.pos.RULES


@dataclass
class AdjudicationCore(Core):
    name: str = "adjudication"
    aggregates = ("games",)  # snapshotted a game at a time (Core.aggregates)
    inputs: tuple[str, ...] = (GAME_EVENTS,)
    outputs: tuple[str, ...] = (GAME_EVENTS,)
    games: dict[str, _Game] = field(default_factory=dict)

    def handle(self, msg: Envelope) -> list[Emit]:
        p = msg.payload
        if isinstance(p, GameStarted):
            if p.game_id not in self.games:
                pos = position(p.game, p.start_fen, **go_kwargs(p))
                pos.compact()  # moves are replayed; the board is built when a claim or a flag reads it
                self.games[p.game_id] = _Game(pos, p.natural_limit_moves, rulings=p.repetition_rulings,
                                              komi=p.komi or 0.0, handicap=p.handicap or 0)
            return []
        g = self.games.get(getattr(p, "game_id", ""))
        if g is None or g.ended:
            return []
        h = getattr(self, "_on_" + type(p).__name__, None)
        return h(g, p) if h else []

    def _end(self, g: _Game, game_id: str, result: str, reason: str, rule: Rule,
             winner: str | None, detail: str = "", score: str | None = None) -> list[Emit]:
        g.ended = True
        g.pos.compact()  # a finished game is only ever read again (Position.compact)
        return [Emit(stream_for(f"game-{game_id}", "result"),
                     GameEnded(game_id=game_id, result=result, reason=reason, rule=rule,
                               winner=winner, detail=detail, score=score))]

    def _on_MoveAccepted(self, g: _Game, p: MoveAccepted):
        if g.pos.game == "go":  # a void move is a lost turn, not a pass ending play (1988 art. 19, 21.1)
            g.pos.play_coord(p.uci, void=p.void is not None)
        else:
            g.pos.play_coord(p.uci)
        status = p.status  # validation's status of the same position (same rules code)
        if status == "scoring" and g.pos.counts_every_stone:  # Tromp-Taylor 8-9: counted at once
            return self._count(g, p.game_id, (), "rules", "two passes end the game; every stone "
                                                          "on the board counts (rule 9)")
        if status not in ("ongoing", "scoring"):  # Go's scoring: the dead stones come next
            result, winner = g.pos.outcome(status, p.colour)
            detail = f"{p.san} mates" if status == "checkmate" else f"after ply {p.ply} ({p.san})"
            return self._end(g, p.game_id, result, status, g.rules[status], winner, detail)
        if g.pos.game == "xiangqi" and p.repetitions >= 3 and (
                g.rulings == "automatic" or g.must_vary is not None):
            return self._repetition(g, p.game_id, p.ply, p.repetitions)
        if g.pos.game == "go" and p.repetitions >= 3 and not g.cycle_reported:
            return self._cycle(g, p.game_id)
        return []

    def _cycle(self, g: _Game, game_id: str) -> list[Emit]:
        """Go: EndlessCycleFound when the position just recurred a third time with stones taken
        in the loop (1988 art. 20.3, Japanese 1989 art. 12); once a game."""
        from shared.rules import go

        cyc = go.endless_cycle(g.pos.board)
        if cyc is None:  # a recurrence through passes only takes no stones: no cycle
            return []
        g.cycle_reported = True
        return [Emit(stream_for(f"game-{game_id}", "result"), EndlessCycleFound(
            game_id=game_id, ply=g.pos.ply, occurrences=cyc.count, length=cyc.length,
            captured_black=cyc.captures[go.BLACK], captured_white=cyc.captures[go.WHITE],
            rule=g.rules["endless-cycle"]))]

    def _on_EndlessCycleRuled(self, g, p: EndlessCycleRuled):
        if p.ruling == "draw":
            return self._end(g, p.game_id, "1/2-1/2", "endless-cycle", p.rule, None,
                             f"draw by the arbiter's ruling: {p.reason}")
        if p.ruling == "no-result":
            return self._end(g, p.game_id, "0-0", "no-result", p.rule, None,
                             f"no result (neither player scores): {p.reason}")
        return self._end(g, p.game_id, "0-0", "replay", p.rule, None,
                         f"to be replayed as game {p.replay_game_id}: {p.reason}")

    def _repetition(self, g: _Game, game_id: str, ply: int, reps: int) -> list[Emit]:
        """Rule the cycle that brought the position back a third (or later) time (art. 24): at
        once when the event rules automatically, else on a player's request; a side ordered to
        vary that repeats the cycle again loses (24.3) in either mode."""
        from shared.rules import xiangqi
        from shared.rules.xiangqi_repetition import rule_cycle

        board = g.pos.board
        ruling = rule_cycle(xiangqi.Board(board.start_fen, validate=False), list(board.move_stack),
                            repetitions=reps)
        verdict, must_vary = ruling.verdict, None
        if verdict.startswith("must-vary:"):
            verdict, must_vary = "must-vary", _SEAT[verdict.split(":")[1]]
        elif verdict != "draw":
            verdict = _SEAT[verdict.split("-")[0]] + "-loses"
        key = ("perpetual-check" if "24.1" in ruling.article else "must-vary"
               if verdict.endswith("-loses") else "repetition-draw" if verdict == "draw"
               else "repetition-ruling")
        rule = g.rules[key].model_copy(update={"article": ruling.article})
        moves = tuple(ClassifiedMove(move=m.move, side=_SEAT[m.side],
                                     classification=m.classification.kind,
                                     targets=tuple(t.square for t in m.classification.targets),
                                     note=m.classification.reason,
                                     article=m.classification.article) for m in ruling.moves)
        g.must_vary = must_vary
        out = [Emit(stream_for(f"game-{game_id}", "result"), RepetitionRuled(
            game_id=game_id, ply=ply, verdict=verdict, must_vary=must_vary, rule=rule,
            moves=moves, detail=f"{ruling.reason}; position occurred {reps} times"))]
        if verdict == "draw":
            out += self._end(g, game_id, "1/2-1/2", "repetition", rule, None, ruling.reason)
        elif verdict.endswith("-loses"):
            w = _OTHER[verdict.split("-")[0]]
            reason = "perpetual-check" if key == "perpetual-check" else "forbidden-repetition"
            out += self._end(g, game_id, _WIN[w], reason, rule, w, ruling.reason)
        return out

    def _on_Resigned(self, g, p: Resigned):
        w = _OTHER[p.colour]
        return self._end(g, p.game_id, _WIN[w], "resignation", g.rules["resignation"], w,
                         f"{p.colour} resigned")

    def _on_DrawAgreed(self, g, p: DrawAgreed):
        return self._end(g, p.game_id, "1/2-1/2", "agreement", g.rules["agreement"], None)

    def _on_DrawClaimed(self, g, p: DrawClaimed):
        if p.reason == "repetition":  # xiangqi: a request for the 棋例 ruling (art. 24)
            reps = g.pos.seen[g.pos.board.position_key()]
            if reps >= 3:
                return self._repetition(g, p.game_id, p.ply, reps)
            return [Emit(stream_for(f"game-{p.game_id}", "result"), DrawClaimRejected(
                game_id=p.game_id, player_id=p.player_id, colour=p.colour, reason=p.reason,
                detail=f"the position has occurred {reps} time(s); a ruling needs three (art. 24)",
                rule=g.rules["repetition-ruling"]))]
        mv = g.pos.parse(p.move) if p.move else None
        ok, detail = g.pos.claim(p.reason, mv, g.limit, p.colour)
        if ok:
            return self._end(g, p.game_id, "1/2-1/2", p.reason, g.rules[p.reason], None,
                             f"claim by {p.colour}: {detail}")
        return [Emit(stream_for(f"game-{p.game_id}", "result"), DrawClaimRejected(
            game_id=p.game_id, player_id=p.player_id, colour=p.colour, reason=p.reason,
            detail=detail, rule=g.rules["incorrect-claim"]))]

    def _on_FlagFell(self, g, p: FlagFell):
        """A flag loses, except in chess when the opponent cannot checkmate by any series of
        legal moves (2023 art. 6.9): reason ``timeout-vs-insufficient-material`` or
        ``timeout-vs-no-mating-sequence`` (:meth:`Position.flag_draw`)."""
        w = _OTHER[p.colour]
        if (why := g.pos.flag_draw(p.colour)) is not None:
            reason = f"timeout-vs-{why}"
            return self._end(g, p.game_id, "1/2-1/2", reason, g.rules[reason], None,
                             f"{p.colour}'s flag fell; {w} cannot checkmate "
                             f"({why.replace('-', ' ')})")
        return self._end(g, p.game_id, _WIN[w], "timeout", p.rule, w, f"{p.colour}'s flag fell")

    def _on_ResultRecorded(self, g, p: ResultRecorded):
        winner = {"1-0": "white", "0-1": "black"}.get(p.result)
        rule = g.rules["arbiter"]
        if g.pos.game == "go" and p.reason == "endless-cycle":  # 1988 art. 20.3 / Japanese 12
            rule = g.rules["endless-cycle"]
        return self._end(g, p.game_id, p.result, p.reason, rule, winner, score=p.score)

    # ----------------------------------------------------------------------------- Go
    def _on_PlayResumed(self, g, p: PlayResumed):
        g.pos.resume(p.colour)  # as validation did: the asker's yielded turn follows as a pass
        return []

    def _on_ScoringAgreed(self, g, p: ScoringAgreed):
        return self._count(g, p.game_id, p.dead, "agreement",
                           f"dead stones proposed by {p.proposed_by}, accepted by {p.colour}")

    def _on_DeadStonesRuled(self, g, p: DeadStonesRuled):
        return self._count(g, p.game_id, p.dead, "arbiter", f"dead stones ruled by the arbiter: {p.reason}")

    def _on_StoneRemovalExpired(self, g, p: StoneRemovalExpired):
        """The stone-removal time ran out (platform rule, ``p.rule``): the unanswered proposal
        stands and is counted (GameScored ``how="stone-removal-timeout"``); with no proposal
        ArbiterCalled ``stone-removal-timeout`` (the arbiter rules the dead stones, Chinese rules
        1988 art. 16.4 / 25.1)."""
        if p.dead is not None:
            return self._count(g, p.game_id, p.dead, "stone-removal-timeout",
                               f"dead stones proposed by {p.proposed_by}, unanswered when the "
                               f"stone-removal time ({p.limit_s} s) ran out")
        return [Emit(stream_for(f"game-{p.game_id}", "result"), ArbiterCalled(
            game_id=p.game_id, reason="stone-removal-timeout",
            detail=(f"no dead stones proposed within the stone-removal time ({p.limit_s} s, a "
                    f"platform rule for online play): the arbiter rules the dead stones"),
            rule=g.rules["arbiter-dead"]))]

    def _count(self, g: _Game, game_id: str, dead: tuple[str, ...], how: str, why: str) -> list[Emit]:
        """Count a Go game on ``dead`` (GTP points, checked by validation): GameScored, then
        GameEnded (B+x -> ``0-1``, W+x -> ``1-0``, Draw -> ``1/2-1/2``). A count the scorer
        refuses (a GoError: settings it cannot count, e.g. an impossible komi of an old record)
        never crashes the service: ArbiterCalled ``count-failed`` with the scorer's reason, and
        the game stays open for the arbiter (RecordResult, or the dead stones settled again)."""
        from shared.rules import go
        from shared.rules.go_scoring import score

        board = g.pos.board
        try:
            sc = score(board, board.rules, g.komi, [go.parse_point(t, board.size) for t in dead],
                       handicap=g.handicap)
        except go.GoError as e:
            return [Emit(stream_for(f"game-{game_id}", "result"), ArbiterCalled(
                game_id=game_id, reason="count-failed",
                detail=f"the game cannot be counted ({how}): {e}"[:500],
                rule=g.rules["arbiter-dead"]))]
        base = go_score_rule(board.rules, g.komi)
        cited = "; ".join(dict.fromkeys(f"{r.ruleset} art. {r.article}" for r in sc.rules))
        rule = base.model_copy(update={"summary": f"{base.summary}; {cited}"})
        winner = "black" if sc.result.startswith("B+") else "white" if sc.result.startswith("W+") else None
        result = {"black": "0-1", "white": "1-0", None: "1/2-1/2"}[winner]
        scored = GameScored(game_id=game_id, black=sc.black, white=sc.white, result=sc.result,
                            margin=sc.margin, komi=g.komi, how=how, dead=tuple(dead), rule=rule,
                            detail=_flat(sc.detail))
        detail = (f"{sc.result}: black {sc.black:g}, white {sc.white:g} (komi {g.komi:g}, "
                  f"{board.rules} rules); {why}")
        return ([Emit(stream_for(f"game-{game_id}", "result"), scored)]
                + self._end(g, game_id, result, "counting", rule, winner, detail, score=sc.result))

    def _on_PenaltyApplied(self, g, p: PenaltyApplied):
        if p.kind == "double-forfeit":
            return self._end(g, p.game_id, "0-0", "double-forfeit", p.rule, None, p.cause)
        if p.kind != "forfeit":
            return []
        w = _OTHER[p.colour]
        return self._end(g, p.game_id, _WIN[w], "forfeit", p.rule, w, p.cause)


# handle(): GameStarted, then an ``_on_<type>`` method or nothing
AdjudicationCore.reads = handled_types(AdjudicationCore, GameStarted)


def _flat(detail: dict, prefix: str = "") -> dict[str, float]:
    """The scorer's detail as ``{"<item>": n, "<item>.<colour>": n}`` numbers (lists and sets
    become their sizes; text is left out)."""
    out: dict[str, float] = {}
    for k, v in (detail or {}).items():
        key = f"{prefix}{k}"
        if isinstance(v, bool):
            out[key] = float(v)
        elif isinstance(v, (int, float)):
            out[key] = float(v)
        elif isinstance(v, dict):
            out.update(_flat(v, key + "."))
        elif isinstance(v, (list, tuple, set, frozenset)):
            out[key] = float(len(v))
    return out
