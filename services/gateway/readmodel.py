"""Read models of the gateway: pure projections of the log (no I/O, no clock).

:class:`ReadModel` holds one :class:`GameView` per game and one :class:`TournamentView` per
tournament and is updated by :meth:`ReadModel.apply` with every message of the four topics, in
log order (commands too: a game or tournament is known to the gateway from its creation command,
before the services have answered). Projections are tolerant of the order between topics (a game
result may be seen before or after the round that paired it), so a gateway can be rebuilt from
``log.read()`` of each topic in turn.
"""
from __future__ import annotations

from collections import defaultdict
from datetime import datetime, timezone
from typing import Any, NamedTuple

from contracts.envelope import Envelope
from contracts.messages import (
    IDENTITY, AbsenceReported, ArrivalReported, DrawClaimed, DrawClaimRejected, EndlessCycleFound,
    EndlessCycleRuled, FlagFell, GameEnded, PlayerRegistered, RepetitionRuled, RevokeToken, RoundPaired,
)
from services.gateway.errors import claim_refusal
from services.gateway.identity import Revocations
from shared.domain.record import Cell, Records, TournamentRecord
from shared.domain.timecontrol import ClockError, TimeControl
from shared.rules.chess import Seats

STANDARD_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
_TERMINAL_DRAWS = {"stalemate", "insufficient-material", "dead-position", "fivefold-repetition",
                   "seventyfive-moves"}
_OTHER = {"white": "black", "black": "white"}
_HALF = "½"
_GO_EVENTS = {"DeadStonesProposed", "PlayResumed", "ScoringAgreed", "DeadStonesRuled", "GameScored",
              "ArbiterCalled", "StoneRemovalExpired"}


def _win_for(colour: str) -> str:
    return "1-0" if colour == "white" else "0-1"


def _dump(payload: Any) -> dict:
    return payload.model_dump(mode="json")


def format_clk(ms: int) -> str:
    """PGN ``[%clk]`` reading ``H:MM:SS`` (tenths added when not a whole second)."""
    ms = max(0, int(ms))
    tenths = (ms % 1000) // 100
    s = ms // 1000
    out = f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"
    return f"{out}.{tenths}" if tenths else out


def _pgn_escape(v: Any) -> str:
    return str(v).replace("\\", "\\\\").replace('"', '\\"')


def _wrap(tokens: list[str], width: int) -> list[str]:
    """``tokens`` joined by spaces into lines of at most ``width`` characters (a longer token
    has a line of its own)."""
    lines, line = [], ""
    for t in tokens:
        if line and len(line) + 1 + len(t) > width:
            lines.append(line)
            line = t
        else:
            line = f"{line} {t}" if line else t
    lines.append(line)
    return lines


class Move(NamedTuple):
    """A move accepted (MoveAccepted): ``ply`` (1 = the first move), ``san`` and ``uci`` (Go:
    the point, ``pass``), ``colour``, the ``player_id`` who moved, ``at_ms`` its event time
    (epoch ms), xiangqi's ``wxf`` notation and a Go void move's ``void`` (None otherwise)."""

    ply: int
    san: str | None
    uci: str | None
    colour: str
    player_id: str
    at_ms: int
    wxf: str | None = None
    void: dict | None = None

    def to_dict(self, clock: tuple[int, int] | None) -> dict:
        """The move as the game view lists it, with the clocks after it (``white_ms``,
        ``black_ms``; None without a reading); ``wxf`` and ``void`` only when set."""
        out = self._asdict()
        for k in ("wxf", "void"):
            if out[k] is None:
                del out[k]
        out["white_ms"], out["black_ms"] = clock if clock else (None, None)
        return out


class Claim(NamedTuple):
    """A draw claim or a xiangqi 棋例 ruling request (DrawClaimed, received at ``at_ms``) and its
    answer: ``answer`` the adjudication's DrawClaimRejected (the claim was wrong), RepetitionRuled
    (the 棋例 ruling a ``repetition`` request asked for) or GameEnded (the claim upheld); None
    while pending."""

    claimed: DrawClaimed
    at_ms: int
    answer: DrawClaimRejected | RepetitionRuled | GameEnded | None = None

    @property
    def outcome(self) -> str:
        """``pending``, ``rejected``, ``ruled`` (a 棋例 ruling) or ``upheld``."""
        return {None: "pending", "DrawClaimRejected": "rejected", "RepetitionRuled": "ruled",
                "GameEnded": "upheld"}[type(self.answer).__name__ if self.answer else None]

    def to_dict(self) -> dict:
        """The claim as the game view and the arbiter console list it: the claimant's
        ``player_id`` and ``colour``, ``reason``, the intended ``move`` (UCI, chess art.
        10.10(1)) or None, ``ply`` (plies played when claimed), :attr:`outcome`, ``answer`` (the
        answering event's payload, None while pending) and, refused, ``code`` and ``detail``
        (:func:`~services.gateway.errors.claim_refusal`: what the claim's 409 said)."""
        p = self.claimed
        out = {"player_id": p.player_id, "colour": p.colour, "reason": p.reason, "move": p.move,
               "ply": p.ply, "outcome": self.outcome,
               "answer": self.answer.model_dump(mode="json") if self.answer else None}
        if isinstance(self.answer, DrawClaimRejected):
            out["detail"], out["code"] = claim_refusal(self.answer)
        return out


class Cycle(NamedTuple):
    """Go: an endless cycle adjudication found (EndlessCycleFound, at ``at_ms``) and the
    arbiter's ruling on it (EndlessCycleRuled; None while due: Chinese rules 1988 art. 20.3)."""

    found: EndlessCycleFound
    at_ms: int
    ruled: EndlessCycleRuled | None = None


class Presence(NamedTuple):
    """An arbiter's report that a player is absent (AbsenceReported) or, late, arrived
    (ArrivalReported), at ``at_ms``."""

    report: AbsenceReported | ArrivalReported
    at_ms: int


class GameView(Seats):
    """What a player, arbiter or spectator sees of one game."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.white: str | None = None
        self.black: str | None = None
        self.start_fen: str = STANDARD_FEN
        self.fen: str = STANDARD_FEN
        self.time_control: str | None = None
        self.tournament_id: str | None = None
        self.round: int | None = None
        self.board: int | None = None
        self.started_at_ms: int | None = None
        self.moves: dict[int, Move] = {}
        self.clocks_by_ply: dict[int, tuple[int, int]] = {}
        self.clock: dict[str, Any] = {"white_ms": None, "black_ms": None, "running": None,
                                      "deadline_ms": None}
        # created (command seen) -> ongoing (GameStarted) -> ended
        self.status: str = "created"
        self.result: str | None = None
        self.reason: str | None = None
        self.rule: dict | None = None
        self.winner: str | None = None
        self.draw_offer: dict | None = None
        self.last_draw_offer: dict | None = None  # the latest DrawOffered's colour and ply (answered or not)
        self.penalties: list[dict] = []
        self.last_rejection: dict | None = None
        self.game: str = "chess"
        self.rulings: list[dict] = []  # xiangqi 棋例 rulings (RepetitionRuled)
        self.score: str | None = None  # Go: the counted result (B+3.5)
        self.go: dict | None = None  # Go: settings, phase, dead-stone proposals, count
        self.code: str | None = None  # the result code of the last ResultCorrected (+-, --, 1-0...)
        self.corrections: list[dict] = []  # ResultCorrected payloads, oldest first
        self.waiting = False  # created clock_start on-command, PlayStarted not yet seen
        self.created_by: str | None = None  # the CreateGame's actor, "kind:id" (None: paired)
        self.bulk_id: str | None = None  # the bulk pairing that created it
        # what an arbiter watches (services.gateway.console): claims and ruling requests, Go's
        # endless cycles, absences and arrivals, the flag; the last move's repetition count,
        # the event's 棋例 setting and default time (GameStarted)
        self.claims: list[Claim] = []
        self.cycles: list[Cycle] = []
        self.presence: list[Presence] = []
        self.flag: FlagFell | None = None
        self.repetitions: int = 1
        self.repetition_rulings: str = "automatic"
        self.default_time_s: int = 0

    # ---------------------------------------------------------------------------------- queries
    @property
    def over(self) -> bool:
        return self.status == "ended"

    def move_list(self) -> list[dict]:
        """The moves in ply order (:meth:`Move.to_dict`)."""
        return [self.moves[ply].to_dict(self.clocks_by_ply.get(ply)) for ply in sorted(self.moves)]

    def to_dict(self, event: str = "?", names: dict[str, str] | None = None) -> dict:
        return {
            "game_id": self.game_id,
            "white": self.white,
            "black": self.black,
            "time_control": self.time_control,
            "tournament_id": self.tournament_id,
            "round": self.round,
            "board": self.board,
            "start_fen": self.start_fen,
            "fen": self.fen,
            "moves": self.move_list(),
            "clock": {**self.clock, "overtime": self._overtime()},
            "status": self.status,
            "waiting": self.waiting,
            "bulk_id": self.bulk_id,
            "result": self.result,
            "reason": self.reason,
            "rule": self.rule,
            "winner": self.winner,
            "draw_offer": self.draw_offer,
            "last_draw_offer": self.last_draw_offer,
            "penalties": list(self.penalties),
            "last_rejection": self.last_rejection,
            "game": self.game,
            "rulings": list(self.rulings),
            "claims": [c.to_dict() for c in self.claims],
            "repetition_rulings": self.repetition_rulings,
            "score": self.score,
            "go": self.go_dict(),
            "corrections": list(self.corrections),
            "pgn": None if self.game == "go" else self.pgn(event=event, names=names),
        }

    def go_dict(self) -> dict | None:
        """Go: settings, ``phase`` (``play``; ``scoring`` after two passes; ``counting`` once the
        dead stones are agreed or ruled; ``counted``; ``ended`` when the game ended without a count:
        resignation, flag, forfeit, arbiter's result), the board (rows top first, ``X`` black,
        ``O`` white), prisoners, each side's standing dead-stone proposal, the agreed or ruled
        dead stones, resumptions and the count (GameScored); ``stone_removal_s`` the time to settle
        the dead stones and ``stone_removal_expired`` the clock's StoneRemovalExpired once it ran
        out (a standing proposal then counts: phase ``counting``)."""
        if self.go is None:
            return None
        from shared.rules import go

        out = {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
               for k, v in self.go.items()}
        try:
            board = go.Board.from_text(self.fen)
            out["board"] = str(board).split("\n")
            out["to_move"] = board.turn
            out["prisoners"] = board.prisoners
        except go.GoError:
            out["board"] = None
        return out

    def _overtime(self) -> dict | None:
        """The time control's Go overtime for the clocks' display: ``{"kind", "count",
        "length_ms"}`` (:class:`shared.domain.timecontrol.Overtime`), None without one. With it
        the clock gives ``white_periods_left`` / ``black_periods_left`` once read, and
        ``deadline_ms`` counts the periods left after the main time (the flag falls at the end
        of the last one)."""
        try:
            tc = TimeControl.parse(self.time_control) if self.time_control else None
        except (ClockError, ValueError):
            return None
        ot = tc.overtime if tc is not None else None
        return {"kind": ot.kind, "count": ot.count, "length_ms": ot.length_ms} if ot else None

    def pgn(self, event: str = "?", site: str = "Arbiter", names: dict[str, str] | None = None) -> str:
        """The game as PGN: seven-tag roster, TimeControl, FEN/SetUp when not the standard start,
        SAN movetext with ``[%clk]`` comments where clock readings exist, and the result
        (``*`` for none and for ``0-0``, which PGN cannot write), lines of at most 79 characters.
        ``names``: player id -> name for the White and Black tags (PGN standard 8.1.1.6: the
        player's name; the id where none is given)."""
        result = self.result if self.result in ("1-0", "0-1", "1/2-1/2") else "*"
        tags = self._pgn_tags(event, site, result, names or {})
        head = "\n".join(f'[{k} "{_pgn_escape(v)}"]' for k, v in tags)
        return head + "\n\n" + "\n".join(_wrap([*self._movetext(), result], 79)) + "\n"

    def _pgn_tags(self, event: str, site: str, result: str, names: dict[str, str]) -> list[tuple[str, str]]:
        """The PGN tag pairs: the seven-tag roster, Board, TimeControl, the start position
        (xiangqi's tags as its PGN files write them) and Termination."""
        date = "????.??.??"
        if self.started_at_ms is not None:
            date = datetime.fromtimestamp(self.started_at_ms / 1000, tz=timezone.utc).strftime("%Y.%m.%d")
        tags = [
            ("Event", event if event != "?" else (self.tournament_id or "?")),
            ("Site", site), ("Date", date),
            ("Round", str(self.round) if self.round is not None else "-"),
            ("White", names.get(self.white or "", self.white or "?")),
            ("Black", names.get(self.black or "", self.black or "?")), ("Result", result),
        ]
        if self.board is not None:
            tags.append(("Board", str(self.board)))
        if self.time_control:
            tags.append(("TimeControl", self.time_control))
        if self.game == "xiangqi":  # moves in Chinese notation
            tags += [("Game", "Chinese Chess"), ("Variant", "xiangqi"), ("Format", "Chinese"),
                     ("FEN", self.start_fen)]
        elif self.start_fen and self.start_fen != STANDARD_FEN:
            tags += [("SetUp", "1"), ("FEN", self.start_fen)]
        if self.reason:
            tags.append(("Termination", self.reason))
        return tags

    def _movetext(self) -> list[str]:
        """Move numbers (from the start FEN's fullmove number; ``N...`` when Black moves
        first), each move's SAN (else UCI) and the mover's clock after it (``[%clk]``)."""
        fields = self.start_fen.split()
        black_to_move = len(fields) > 1 and fields[1] == "b"
        try:
            number = int(fields[-1]) if len(fields) >= 6 else 1
        except ValueError:
            number = 1
        tokens: list[str] = []
        for i, ply in enumerate(sorted(self.moves)):
            m = self.moves[ply]
            if not black_to_move:
                tokens.append(f"{number}.")
            elif i == 0:
                tokens.append(f"{number}...")
            tokens.append(m.san or m.uci or "?")
            clk = self.clocks_by_ply.get(ply)
            if clk is not None and (own := clk[m.colour != "white"]) is not None:
                tokens.append(f"{{[%clk {format_clk(own)}]}}")
            number += black_to_move
            black_to_move = not black_to_move
        return tokens

    # ---------------------------------------------------------------------------------- updates
    def _end(self, result: str | None, reason: str | None) -> None:
        self.status = "ended"
        if result is not None and self.result is None:
            self.result = result
        if reason is not None and self.reason is None:
            self.reason = reason
        self.draw_offer = None
        self.clock["running"] = None
        self.clock["deadline_ms"] = None
        if self.go is not None and self.go.get("phase") != "counted":
            self.go["phase"] = "ended"  # resigned, flagged, forfeited or ruled before a count

    def correct(self, p: Any) -> None:
        """A ResultCorrected: the result shown becomes the corrected one (a forfeit code as
        ``1-0``/``0-1`` with reason ``forfeit``, ``--`` as ``0-0``); a Go count (``score``) and the
        article of the first result are cleared; the correction is listed."""
        self.code = p.result
        self.result = {"+-": "1-0", "-+": "0-1", "--": "0-0"}.get(p.result, p.result)
        self.reason = ("forfeit" if p.result in ("+-", "-+") else "double-forfeit" if p.result == "--"
                       else "correction")
        self.winner = {"1-0": "white", "0-1": "black"}.get(self.result)
        self.score = self.rule = None  # the count and its articles no longer give the result
        self.corrections.append(_dump(p))

    def _go_event(self, t: str, p: Any) -> None:
        g = self.go
        if t == "DeadStonesProposed":
            g["proposals"][p.colour] = list(p.dead)
        elif t == "PlayResumed":
            g["phase"], g["proposals"] = "play", {}
            g["resumptions"].append({"by": p.colour, "to_move": p.to_move})
        elif t == "ScoringAgreed":
            g["phase"], g["dead"] = "counting", list(p.dead)
        elif t == "DeadStonesRuled":
            g["phase"], g["dead"] = "counting", list(p.dead)
            g["ruling"] = {"reason": p.reason, "rule": p.rule.model_dump(mode="json")}
        elif t == "GameScored":
            g["phase"], g["count"] = "counted", _dump(p)
            self.score = p.result
        elif t == "ArbiterCalled":  # the count failed / stone-removal time ran out: arbiter's turn
            g["phase"], g["proposals"], g["dead"] = "scoring", {}, None
            g["arbiter_called"] = _dump(p)
        elif t == "StoneRemovalExpired":  # platform rule: a standing proposal is counted
            g["stone_removal_expired"] = _dump(p)
            if p.dead is not None:
                g["phase"], g["dead"] = "counting", list(p.dead)

    def apply(self, msg: Envelope) -> None:
        """Fold one message of the game's streams (the handler ``_on_<type>``; others are
        ignored)."""
        t = msg.type
        if t in _GO_EVENTS:
            if self.go is not None:
                self._go_event(t, msg.payload)
            return
        handler = getattr(self, f"_on_{t}", None)
        if handler is not None:
            handler(msg.payload, msg)

    def _placed(self, p: Any) -> None:
        """Players, time control and place in an event, from CreateGame or GameStarted."""
        self.white, self.black = p.white, p.black
        self.time_control = p.time_control
        self.tournament_id, self.round, self.board = p.tournament_id, p.round, p.board

    def _on_CreateGame(self, p: Any, msg: Envelope) -> None:
        if self.created_by is None:
            self.created_by = f"{msg.actor.kind}:{msg.actor.id}"
            self.bulk_id = p.bulk_id
        if self.status == "created":
            self._placed(p)
            self.start_fen = self.fen = p.start_fen or STANDARD_FEN

    def _on_GameStarted(self, p: Any, msg: Envelope) -> None:
        self.game = p.game
        if p.game == "go" and self.go is None:
            self.go = {"board_size": p.board_size, "go_rules": p.go_rules, "komi": p.komi,
                       "handicap": p.handicap, "void_moves": p.void_moves,
                       "stone_removal_s": p.stone_removal_s, "phase": "play",
                       "proposals": {}, "dead": None, "ruling": None, "resumptions": [],
                       "count": None}
        self._placed(p)
        self.repetition_rulings, self.default_time_s = p.repetition_rulings, p.default_time_s
        self.start_fen = p.start_fen
        if not self.moves:
            self.fen = p.start_fen
        self.started_at_ms = msg.at_ms
        self.waiting = getattr(p, "clock_start", "auto") == "on-command" and not self.moves
        if self.status == "created":
            self.status = "ongoing"

    def _on_PlayStarted(self, p: Any, msg: Envelope) -> None:
        self.waiting = False

    def _on_MoveAccepted(self, p: Any, msg: Envelope) -> None:
        self.moves[p.ply] = Move(p.ply, p.san, p.uci, p.colour, p.player_id, msg.at_ms, p.wxf,
                                 None if p.void is None else _dump(p.void))
        latest = p.ply >= max(self.moves)
        if self.go is not None and latest:
            self.go["phase"] = "scoring" if p.status == "scoring" else "play"
            self.go["proposals"] = {}
        if latest:
            self.fen = p.fen_after
            self.repetitions = p.repetitions
        if self.draw_offer and self.draw_offer.get("colour") != p.colour:
            self.draw_offer = None  # the opponent moved instead of answering
        if p.status == "checkmate" or (p.status == "stalemate" and self.game == "xiangqi"):
            self._end(_win_for(p.colour), p.status)  # xiangqi 困毙 loses (art. 4.1.3)
        elif p.status in _TERMINAL_DRAWS:
            self._end("1/2-1/2", p.status)

    def _on_DrawOffered(self, p: Any, msg: Envelope) -> None:
        self.draw_offer = self.last_draw_offer = {"player_id": p.player_id, "colour": p.colour, "ply": p.ply}

    def _on_DrawOfferDeclined(self, p: Any, msg: Envelope) -> None:
        self.draw_offer = None

    def _on_DrawAgreed(self, p: Any, msg: Envelope) -> None:
        self._end("1/2-1/2", "agreement")

    def _on_Resigned(self, p: Any, msg: Envelope) -> None:
        self._end(_win_for(_OTHER[p.colour]), "resignation")

    def _on_ResultRecorded(self, p: Any, msg: Envelope) -> None:
        self._end(p.result, p.reason)

    def _on_ClockStarted(self, p: Any, msg: Envelope) -> None:
        self.time_control = self.time_control or p.time_control
        self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms, running=p.running,
                          deadline_ms=getattr(p, "deadline_ms", None))

    def _on_ClockUpdated(self, p: Any, msg: Envelope) -> None:
        self.clocks_by_ply[p.ply] = (p.white_ms, p.black_ms)
        if not self.over:
            self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms, running=p.running,
                              deadline_ms=p.deadline_ms)
            if p.white_periods_left is not None or p.black_periods_left is not None:
                self.clock.update(white_periods_left=p.white_periods_left,
                                  black_periods_left=p.black_periods_left)

    def _on_ClockAdjusted(self, p: Any, msg: Envelope) -> None:
        self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms, deadline_ms=p.deadline_ms)

    def _on_ClockStopped(self, p: Any, msg: Envelope) -> None:
        self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms, running=None, deadline_ms=None)

    def _on_FlagFell(self, p: Any, msg: Envelope) -> None:
        self.flag = p
        self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms)
        self._end(None, "timeout")
        if self.rule is None:
            self.rule = p.rule.model_dump(mode="json")

    def _answer_claim(self, answer: Any, reason: str | None = None) -> None:
        """The oldest pending claim (of the answer's player, when it names one; of ``reason``,
        when given) is answered."""
        who = getattr(answer, "player_id", None)
        for i, c in enumerate(self.claims):
            if (c.answer is None and (who is None or c.claimed.player_id == who)
                    and (reason is None or c.claimed.reason == reason)):
                self.claims[i] = c._replace(answer=answer)
                return

    def _on_DrawClaimed(self, p: Any, msg: Envelope) -> None:
        self.claims.append(Claim(p, msg.at_ms))

    def _on_DrawClaimRejected(self, p: Any, msg: Envelope) -> None:
        self._rejected(p, msg)
        self._answer_claim(p)

    def _on_EndlessCycleFound(self, p: Any, msg: Envelope) -> None:
        self.cycles.append(Cycle(p, msg.at_ms))

    def _on_EndlessCycleRuled(self, p: Any, msg: Envelope) -> None:
        for i, c in enumerate(self.cycles):
            if c.ruled is None:
                self.cycles[i] = c._replace(ruled=p)

    def _on_AbsenceReported(self, p: Any, msg: Envelope) -> None:
        self.presence.append(Presence(p, msg.at_ms))

    _on_ArrivalReported = _on_AbsenceReported

    def _on_GameEnded(self, p: Any, msg: Envelope) -> None:
        self._answer_claim(p, p.reason)  # a claim upheld ends the game with the claim's reason
        self.score = p.score or self.score
        self.result, self.reason = p.result, p.reason
        self.rule = p.rule.model_dump(mode="json")
        self.winner = p.winner
        self._end(None, None)

    def _on_PenaltyApplied(self, p: Any, msg: Envelope) -> None:
        self.penalties.append({**_dump(p), "at_ms": msg.at_ms})
        if p.kind == "forfeit":
            self._end(_win_for(_OTHER[p.colour]), "forfeit")
        elif p.kind == "double-forfeit":
            self._end("0-0", "double-forfeit")

    def _on_RepetitionRuled(self, p: Any, msg: Envelope) -> None:
        self.rulings.append(_dump(p))
        if any(c.answer is None and c.claimed.reason == "repetition" for c in self.claims):
            self._answer_claim(p)

    def _rejected(self, p: Any, msg: Envelope) -> None:
        self.last_rejection = {"type": msg.type, **_dump(p)}

    _on_MoveRejected = _on_GameCommandRejected = _rejected


def _cell_text(c: Cell, numbers: dict[str, int]) -> str:
    """A crosstable cell's text (see :meth:`TournamentView.crosstable`)."""
    if c.kind in ("game", "forfeit") and c.letter not in ("+", "-"):
        mark = {None: "", "1": "1", "=": _HALF, "0": "0"}[c.letter]
        return f"{numbers.get(c.opponent, '?')}{c.colour}{mark}"
    return {"annulled": "annulled", "bye": "bye", "rest": "bye", "absent": ""}.get(c.kind, c.letter)


#: The fields of a PlayerRegistered a tournament's ``players`` list shows.
PLAYER_FIELDS = ("player_id", "name", "rating", "fide_id", "title", "grade", "club", "team", "from_round",
                 "missed")


class TournamentView:
    """A tournament: its settings and status, the latest standings, and its record (set by
    :class:`ReadModel` from TournamentCreated on: the typed players, draw numbers, rounds and
    results every tournament view reads)."""

    def __init__(self, tournament_id: str) -> None:
        self.tournament_id = tournament_id
        self.record: TournamentRecord | None = None
        self.name: str | None = None
        self.system: str | None = None
        self.planned_rounds: int | None = None
        self.time_control: str | None = None
        self.tiebreaks: list[str] = []
        self.tiebreak_edition: str | None = None
        self.status = "created"  # created -> open -> running -> finished
        self.standings: dict | None = None
        self.standings_payload: Any = None  # the latest StandingsUpdated (TRF ranks)
        self.standings_withheld: str | None = None
        self.game: str = "chess"
        self.pending_creates = 0  # CreateTournament commands not yet answered
        # who created it (the accepted CreateTournament's actor, "kind:id"), for the gateway's
        # organiser rights; the creations seen, by command id, until one is accepted
        self.created_by: str | None = None
        self.creations: dict[str, str] = {}
        self.created_cause: str | None = None
        self.round_start = "auto"  # when paired rounds start (TournamentCreated's round_start)
        self.begun: set[int] = set()  # rounds begun (RoundBegun)
        self.public = True  # published (CreateTournament's ``public``): anyone reads it

    @property
    def players(self) -> dict[str, PlayerRegistered]:
        """Player id -> registration, in registration order (none before TournamentCreated)."""
        return {x.player_id: x for x in self.record.players} if self.record is not None else {}

    @property
    def rounds(self) -> list[RoundPaired]:
        """The rounds paired, round 1 first."""
        return self.record.rounds if self.record is not None else []

    def to_dict(self, games: dict[str, GameView] | None = None, private: bool = True) -> dict:
        """The event as ``GET /tournaments/{tid}`` answers it; ``private=False``: the players'
        FIDE ids blank (the gateway's read scopes)."""
        return {
            "tournament_id": self.tournament_id,
            "name": self.name,
            "game": self.game,
            "system": self.system,
            "planned_rounds": self.planned_rounds,
            "time_control": self.time_control,
            "tiebreaks": list(self.tiebreaks),
            "tiebreak_edition": self.tiebreak_edition,
            "status": self.status,
            "round_start": self.round_start,
            "public": self.public,
            "players": self.player_list(private),
            "rounds": [self._round_dict(r, games) for r in self.rounds],
        }

    def player_list(self, private: bool = True) -> list[dict]:
        """Each registered player: :data:`PLAYER_FIELDS` (``private=False``: ``fide_id``
        None), ``withdrawn_from`` (the first round missed, None) and ``number`` (the start
        number the TRF export writes too: :meth:`~shared.domain.record.TournamentRecord.start_numbers`;
        the registration order before the record exists)."""
        rec = self.record
        numbers = rec.start_numbers() if rec is not None else {}
        shown = PLAYER_FIELDS if private else tuple(k for k in PLAYER_FIELDS if k != "fide_id")
        return [{**dict.fromkeys(PLAYER_FIELDS), **{k: getattr(x, k) for k in shown},
                 "withdrawn_from": rec.withdrawn.get(pid),
                 "number": numbers.get(pid, i)}
                for i, (pid, x) in enumerate(self.players.items(), start=1)]

    def _round_dict(self, r: RoundPaired, games: dict[str, GameView] | None) -> dict:
        """Round ``r``: each board with its game's view (``result``, ``reason``, ``status``)
        and ``code``, the result code the tournament counts for it (the record's: a
        correction, a Go replay's result; None while it runs)."""
        boards = []
        for b in r.boards:
            g = (games or {}).get(b.game_id)
            boards.append({"board": b.board, "game_id": b.game_id, "white": b.white, "black": b.black,
                           "result": g.result if g else None, "reason": g.reason if g else None,
                           "status": g.status if g else None, "code": self.record.result(b.game_id)})
        return {"round": r.round, "boards": boards, "bye": r.bye, "manual": r.manual,
                "reason": getattr(r, "reason", ""),
                "begun": self.round_start == "auto" or r.round in self.begun,
                "requested_byes": dict(r.requested_byes),
                "withdrawn_boards": [{"white": b.white, "black": b.black} for b in r.withdrawn_boards]}

    def standings_dict(self) -> dict:
        """The latest standings published; ``withheld``: the reason the standings of a later
        round were not (over the log's message size limit: a rejection in their place)."""
        out = ({"round": 0, "order": list(self.tiebreaks), "tiebreak_edition": self.tiebreak_edition,
                "rows": []} if self.standings is None
               else self.standings)
        return {"tournament_id": self.tournament_id, **out,
                **({"withheld": self.standings_withheld} if self.standings_withheld else {})}

    def crosstable(self) -> dict:
        """Rows per player (by draw number) with one cell per paired round, read from the
        tournament record (:meth:`shared.domain.record.TournamentRecord.cells`, the table the
        standings and the TRF export read): opponent number, colour and score (``5w1``,
        ``3b½``, ``7w0``; ``5w`` while unfinished), ``+``/``-`` for a forfeit win/loss (a
        withdrawal's unplayed board too) and ``-`` for both players of a double forfeit
        (xiangqi 1999 art. 21.3-21.4), ``bye`` for a pairing bye or a round-robin rest,
        ``F``/``H``/``Z`` for a requested bye or a late entry's missed round (TRF-16 letters),
        ``annulled`` for a round robin's game of a withdrawn player whose results are annulled
        (20.3), blank when not paired. ``score``: the sum of the cells' points; ``rank``: the
        latest standings'."""
        numbers = {p["player_id"]: p["number"] for p in self.player_list()}
        ranks = {r["player_id"]: r["rank"] for r in (self.standings or {}).get("rows", [])}
        cells = self.record.cells() if self.record is not None else {}
        rows = [{"number": numbers[pid], "player_id": pid, "name": p.name, "rating": p.rating,
                 "rank": ranks.get(pid), "score": sum(c.points for c in cells.get(pid, ())),
                 "cells": [_cell_text(c, numbers) for c in cells.get(pid, ())]}
                for pid, p in self.players.items()]
        rows.sort(key=lambda x: x["number"])
        return {"tournament_id": self.tournament_id, "rounds": [r.round for r in self.rounds],
                "rows": rows}

    def apply(self, msg: Envelope) -> None:
        p = msg.payload
        t = msg.type
        if t == "CreateTournament":
            self.pending_creates += 1
            who = f"{msg.actor.kind}:{msg.actor.id}"
            if str(msg.event_id) == self.created_cause:  # read after its TournamentCreated
                self.created_by = who
            elif self.created_cause is None:
                self.creations[str(msg.event_id)] = who
            if self.status == "created":
                self.name, self.system, self.planned_rounds = p.name, p.system, p.rounds
                self.time_control, self.tiebreaks = p.time_control, list(p.tiebreaks)
                self.public = self.public and p.public  # the strictest while creations pend
        elif t == "TournamentCreated":
            self.public = getattr(p, "public", True)
            self.pending_creates = max(0, self.pending_creates - 1)
            self.created_cause = str(msg.causation_id)
            self.created_by = self.creations.get(self.created_cause)
            self.creations = {}
            self.name, self.system, self.planned_rounds = p.name, p.system, p.rounds
            self.time_control, self.tiebreaks = p.time_control, list(p.tiebreaks)
            self.game, self.tiebreak_edition = p.game, p.tiebreak_edition
            self.round_start = getattr(p, "round_start", "auto")
            if self.status == "created":
                self.status = "open"
        elif t == "RoundPaired":
            if self.status in ("created", "open"):
                self.status = "running"
        elif t == "RoundBegun":
            self.begun.add(p.round)
        elif (t == "TournamentCommandRejected" and p.code == "decision-too-large"
              and msg.stream.endswith(".standings")):
            self.standings_withheld = p.reason
        elif t == "StandingsUpdated":
            self.standings_withheld = None
            self.standings_payload = p
            self.standings = {"round": p.round, "order": list(p.order), "tiebreak_edition": p.tiebreak_edition,
                              "rows": [r.model_dump(mode="json") for r in p.rows],
                              "teams": [r.model_dump(mode="json") for r in p.teams]}
        elif t == "TournamentFinished":
            self.status = "finished"


#: The prefix of a whole event's feed in :attr:`ReadModel.history`: ``event-<tid>``, the
#: tournament's messages and those of its games, in the order the read model applied them.
EVENT_FEED = "event-"


class Recorded(NamedTuple):
    """A message of an aggregate's history as the SSE replay sends it: its type, stream, seq and
    JSON. About a sixth of the memory of the parsed envelope (3.4 KB on average), which a
    gateway holding a national event's log (700,000 messages) cannot afford."""

    type: str
    stream: str
    seq: int
    json: str


class ReadModel:
    """All games and tournaments, plus each feed's message history (for the streams'
    replays: each aggregate's, and each event's, :data:`EVENT_FEED`), and the revoked bearer tokens (``revoked``, from RevokeToken on the ``identity`` aggregate)."""

    def __init__(self, keep_history: bool = True) -> None:
        self.games: dict[str, GameView] = {}
        self.tournaments: dict[str, TournamentView] = {}
        self.history: dict[str, list[Recorded]] = defaultdict(list)
        self.keep_history = keep_history
        self.applied = 0
        self.records = Records()  # the tournament records (crosstables), fed every message
        self.revoked = Revocations()
        self.bulks: dict[str, list[str]] = {}  # bulk pairing id -> its games (CreateGame bulk_id)

    def game(self, gid: str) -> GameView | None:
        return self.games.get(gid)

    def tournament(self, tid: str) -> TournamentView | None:
        return self.tournaments.get(tid)

    def event_of(self, msg: Envelope) -> str | None:
        """The tournament whose whole-event feed carries ``msg``: the tournament's own messages
        and those of every game the read model knows to be of it (paired by it, or created
        with its ``tournament_id``); None for any other message."""
        key = msg.aggregate
        if key.startswith("tournament-"):
            return key[len("tournament-"):]
        if key.startswith("game-") and (g := self.games.get(key[len("game-"):])) is not None:
            return g.tournament_id
        return None

    def feeds_of(self, msg: Envelope) -> tuple[str, ...]:
        """The feeds (keys of :attr:`history`) that carry ``msg`` once it is applied: its
        aggregate (``game-<id>``, ``tournament-<id>``, ``identity``) and, for a message of an
        event, the event's (``event-<tid>``: :meth:`event_of`)."""
        tid = self.event_of(msg)
        return (msg.aggregate,) if tid is None else (msg.aggregate, f"{EVENT_FEED}{tid}")

    def apply(self, msg: Envelope) -> Recorded:
        """Fold ``msg`` into the views and append it to the history of each feed that carries
        it (:meth:`feeds_of`, decided once the views have taken it: a game's CreateGame names
        its event); answer its :class:`Recorded`."""
        self.applied += 1
        rec = Recorded(msg.type, msg.stream, msg.seq, msg.model_dump_json())
        if self.keep_history:
            self.history[msg.aggregate].append(rec)
        try:
            self._project(msg)
        finally:
            if self.keep_history and (tid := self.event_of(msg)) is not None:
                self.history[f"{EVENT_FEED}{tid}"].append(rec)
        return rec

    def _project(self, msg: Envelope) -> None:
        self.records.apply(msg.payload)
        key = msg.aggregate
        if key == IDENTITY and isinstance(msg.payload, RevokeToken):
            self.revoked.apply(msg.payload.jti, msg.payload.expires_at_s, msg.at_ms // 1000)
        elif key.startswith("game-"):
            gid = key[len("game-"):]
            view = self.games.get(gid)
            if view is None:
                if msg.type == "GameCommandRejected" and msg.payload.command_type == "CreateGame":
                    return
                view = self.games[gid] = GameView(gid)
            view.apply(msg)
            if msg.type == "CreateGame" and msg.payload.bulk_id is not None:
                self.bulks.setdefault(msg.payload.bulk_id, []).append(gid)
            if (msg.type == "GameCommandRejected" and msg.payload.command_type == "CreateGame"
                    and msg.payload.code != "already-exists" and view.status == "created"):
                del self.games[gid]  # the creation was refused: the game does not exist
        elif key.startswith("tournament-"):
            tid = key[len("tournament-"):]
            view = self.tournaments.get(tid)
            if view is None:
                if msg.type == "TournamentCommandRejected":
                    return
                view = self.tournaments[tid] = TournamentView(tid)
            view.apply(msg)
            view.record = self.records.get(tid)
            if msg.type == "TournamentCommandRejected" and msg.payload.command_type == "CreateTournament":
                view.pending_creates = max(0, view.pending_creates - 1)
                if view.status == "created" and not view.pending_creates:
                    del self.tournaments[tid]  # every creation was refused: nothing exists
            if msg.type == "ResultCorrected":
                g = self.games.get(msg.payload.game_id)
                if g is not None:
                    g.correct(msg.payload)
            if msg.type == "RoundPaired":
                for b in msg.payload.boards:  # paired games are known before they start
                    g = self.games.get(b.game_id)
                    if g is None:
                        g = self.games[b.game_id] = GameView(b.game_id)
                        g.white, g.black = b.white, b.black
                        g.tournament_id, g.round, g.board = tid, msg.payload.round, b.board
