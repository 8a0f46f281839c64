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
from contracts.messages import IDENTITY, RevokeToken
from services.gateway.identity import Revocations
from shared.domain.record import Cell, Records, TournamentRecord
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
        self.moves: dict[int, dict] = {}
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
        self.penalties: list[dict] = []
        self.last_rejection: dict | None = None
        self.game: str = "chess"
        self.rulings: list[dict] = []  # xiangqi 棋例 rulings (RepetitionRuled)
        self.score: str | None = None  # Go: the counted result (B+3.5)
        self.go: dict | None = None  # Go: settings, phase, dead-stone proposals, count
        self.code: str | None = None  # the result code of the last ResultCorrected (+-, --, 1-0...)
        self.corrections: list[dict] = []  # ResultCorrected payloads, oldest first

    # ---------------------------------------------------------------------------------- queries
    @property
    def over(self) -> bool:
        return self.status == "ended"

    def move_list(self) -> list[dict]:
        out = []
        for ply in sorted(self.moves):
            m = dict(self.moves[ply])
            clk = self.clocks_by_ply.get(ply)
            m["white_ms"], m["black_ms"] = clk if clk else (None, None)
            out.append(m)
        return out

    def to_dict(self, event: str = "?") -> dict:
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
            "clock": dict(self.clock),
            "status": self.status,
            "result": self.result,
            "reason": self.reason,
            "rule": self.rule,
            "winner": self.winner,
            "draw_offer": self.draw_offer,
            "penalties": list(self.penalties),
            "last_rejection": self.last_rejection,
            "game": self.game,
            "rulings": list(self.rulings),
            "score": self.score,
            "go": self.go_dict(),
            "corrections": list(self.corrections),
            "pgn": None if self.game == "go" else self.pgn(event=event),
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

    def pgn(self, event: str = "?", site: str = "Arbiter") -> str:
        """The game as PGN: seven-tag roster, TimeControl, FEN/SetUp when not the standard start,
        SAN movetext with ``[%clk]`` comments where clock readings exist, and the result."""
        date = "????.??.??"
        if self.started_at_ms is not None:
            date = datetime.fromtimestamp(self.started_at_ms / 1000, tz=timezone.utc).strftime("%Y.%m.%d")
        result = self.result if self.result in ("1-0", "0-1", "1/2-1/2") else "*"  # PGN has no 0-0
        tags = [
            ("Event", event if event != "?" else (self.tournament_id or "?")),
            ("Site", site), ("Date", date),
            ("Round", str(self.round) if self.round is not None else "-"),
            ("White", self.white or "?"), ("Black", self.black or "?"), ("Result", result),
        ]
        if self.board is not None:
            tags.append(("Board", str(self.board)))
        if self.time_control:
            tags.append(("TimeControl", self.time_control))
        if self.game == "xiangqi":  # as xiangqi PGN files write it; moves in Chinese notation
            tags += [("Game", "Chinese Chess"), ("Variant", "xiangqi"), ("Format", "Chinese"),
                     ("FEN", self.start_fen)]
        elif self.start_fen and self.start_fen != STANDARD_FEN:
            tags += [("SetUp", "1"), ("FEN", self.start_fen)]
        if self.reason:
            tags.append(("Termination", self.reason))
        head = "\n".join(f'[{k} "{_pgn_escape(v)}"]' for k, v in tags)

        fields = self.start_fen.split()
        black_first = len(fields) > 1 and fields[1] == "b"
        try:
            number = int(fields[-1]) if len(fields) >= 6 else 1
        except ValueError:
            number = 1
        tokens: list[str] = []
        black_to_move = black_first
        for i, m in enumerate(self.move_list()):
            if not black_to_move:
                tokens.append(f"{number}.")
            elif i == 0:
                tokens.append(f"{number}...")
            tokens.append(m["san"] or m["uci"] or "?")
            own_ms = m["white_ms"] if m["colour"] == "white" else m["black_ms"]
            if own_ms is not None:
                tokens.append(f"{{[%clk {format_clk(own_ms)}]}}")
            if black_to_move:
                number += 1
            black_to_move = not black_to_move
        tokens.append(result)
        lines, line = [], ""
        for t in tokens:
            if line and len(line) + 1 + len(t) > 79:
                lines.append(line)
                line = t
            else:
                line = f"{line} {t}" if line else t
        lines.append(line)
        return head + "\n\n" + "\n".join(lines) + "\n"

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
        p = msg.payload
        t = msg.type
        if t == "CreateGame":
            if self.status == "created":
                self.white, self.black = p.white, p.black
                self.start_fen = self.fen = p.start_fen or STANDARD_FEN
                self.time_control = p.time_control
                self.tournament_id, self.round, self.board = p.tournament_id, p.round, p.board
        elif t == "GameStarted":
            self.game = p.game
            if p.game == "go" and self.go is None:
                self.go = {"board_size": p.board_size, "go_rules": p.go_rules, "komi": p.komi,
                           "handicap": p.handicap, "void_moves": p.void_moves,
                           "stone_removal_s": p.stone_removal_s, "phase": "play",
                           "proposals": {}, "dead": None, "ruling": None, "resumptions": [],
                           "count": None}
            self.white, self.black = p.white, p.black
            self.start_fen = p.start_fen
            if not self.moves:
                self.fen = p.start_fen
            self.time_control = p.time_control
            self.tournament_id, self.round, self.board = p.tournament_id, p.round, p.board
            self.started_at_ms = msg.at_ms
            if self.status == "created":
                self.status = "ongoing"
        elif t == "MoveAccepted":
            self.moves[p.ply] = {"ply": p.ply, "san": p.san, "uci": p.uci, "colour": p.colour,
                                 "player_id": p.player_id, "at_ms": msg.at_ms}
            if p.wxf:
                self.moves[p.ply]["wxf"] = p.wxf
            if p.void is not None:
                self.moves[p.ply]["void"] = _dump(p.void)
            if self.go is not None and p.ply >= max(self.moves):
                self.go["phase"] = "scoring" if p.status == "scoring" else "play"
                self.go["proposals"] = {}
            if p.ply >= max(self.moves):
                self.fen = p.fen_after
            if self.draw_offer and self.draw_offer.get("colour") != p.colour:
                self.draw_offer = None  # the opponent moved instead of answering
            if p.status == "checkmate" or (p.status == "stalemate" and self.game == "xiangqi"):
                self._end(_win_for(p.colour), p.status)  # xiangqi 困毙 loses (art. 4.1.3)
            elif p.status in _TERMINAL_DRAWS:
                self._end("1/2-1/2", p.status)
        elif t == "DrawOffered":
            self.draw_offer = {"player_id": p.player_id, "colour": p.colour, "ply": p.ply}
        elif t in ("DrawOfferDeclined",):
            self.draw_offer = None
        elif t == "DrawAgreed":
            self._end("1/2-1/2", "agreement")
        elif t == "Resigned":
            self._end(_win_for(_OTHER[p.colour]), "resignation")
        elif t == "ResultRecorded":
            self._end(p.result, p.reason)
        elif t == "ClockStarted":
            self.time_control = self.time_control or p.time_control
            self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms, running=p.running,
                              deadline_ms=getattr(p, "deadline_ms", None))
        elif t == "ClockUpdated":
            self.clocks_by_ply[p.ply] = (p.white_ms, p.black_ms)
            if not self.over:
                self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms, running=p.running,
                                  deadline_ms=p.deadline_ms)
        elif t == "ClockAdjusted":
            self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms, deadline_ms=p.deadline_ms)
        elif t == "ClockStopped":
            self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms, running=None,
                              deadline_ms=None)
        elif t == "FlagFell":
            self.clock.update(white_ms=p.white_ms, black_ms=p.black_ms)
            self._end(None, "timeout")
            if self.rule is None:
                self.rule = p.rule.model_dump(mode="json")
        elif t == "GameEnded":
            self.score = p.score or self.score
            self.status = "ended"
            self.result, self.reason = p.result, p.reason
            self.rule = p.rule.model_dump(mode="json")
            self.winner = p.winner
            self.draw_offer = None
            self.clock["running"] = None
            self.clock["deadline_ms"] = None
            if self.go is not None and self.go.get("phase") != "counted":
                self.go["phase"] = "ended"
        elif t == "PenaltyApplied":
            self.penalties.append({**_dump(p), "at_ms": msg.at_ms})
            if p.kind == "forfeit":
                self._end(_win_for(_OTHER[p.colour]), "forfeit")
            elif p.kind == "double-forfeit":
                self._end("0-0", "double-forfeit")
        elif t == "RepetitionRuled":
            self.rulings.append(_dump(p))
        elif self.go is not None and t in _GO_EVENTS:
            self._go_event(t, p)
        elif t in ("MoveRejected", "GameCommandRejected", "DrawClaimRejected"):
            self.last_rejection = {"type": t, **_dump(p)}


def _cell_text(c: Cell, numbers: dict[str, int]) -> str:
    """A crosstable cell's text (see :meth:`TournamentView.crosstable`)."""
    if c.kind in ("game", "forfeit") and c.letter not in ("+", "-"):
        mark = {None: "", "1": "1", "=": _HALF, "0": "0"}[c.letter]
        return f"{numbers.get(c.opponent, '?')}{c.colour}{mark}"
    return {"annulled": "annulled", "bye": "bye", "rest": "bye", "absent": ""}.get(c.kind, c.letter)


class TournamentView:
    """A tournament: players, draw numbers, rounds with boards and results, standings, and its
    record (set by :class:`ReadModel` from TournamentCreated on)."""

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
        self.players: dict[str, dict] = {}
        self.numbers: dict[str, int] = {}
        self.rounds: dict[int, dict] = {}
        self.standings: dict | None = None
        self.standings_withheld: str | None = None
        self.game: str = "chess"
        self.pending_creates = 0  # CreateTournament commands not yet answered
        # who created it (the accepted CreateTournament's actor, "kind:id"), for the gateway's
        # organiser rights; the creations seen, by command id, until one is accepted
        self.created_by: str | None = None
        self.creations: dict[str, str] = {}
        self.created_cause: str | None = None

    def to_dict(self, games: dict[str, GameView] | None = None) -> dict:
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
            "players": self.player_list(),
            "rounds": [self._round_dict(r, games) for r in sorted(self.rounds)],
        }

    def player_list(self) -> list[dict]:
        out = []
        for i, (pid, p) in enumerate(self.players.items(), start=1):
            out.append({**p, "number": self.numbers.get(pid, i)})
        return out

    def _round_dict(self, r: int, games: dict[str, GameView] | None) -> dict:
        """Round ``r``: each board with its game's view (``result``, ``reason``, ``status``)
        and ``code``, the result code the tournament counts for it (the record's: a
        correction, a Go replay's result; None while it runs)."""
        rd = self.rounds[r]
        boards = []
        for b in rd["boards"]:
            g = (games or {}).get(b["game_id"])
            boards.append({**b, "result": g.result if g else None, "reason": g.reason if g else None,
                           "status": g.status if g else None,
                           "code": self.record.result(b["game_id"]) if self.record else None})
        return {"round": r, "boards": boards, "bye": rd["bye"], "manual": rd["manual"],
                "requested_byes": rd.get("requested_byes", {}),
                "withdrawn_boards": rd.get("withdrawn_boards", [])}

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
        rows = [{"number": numbers[pid], "player_id": pid, "name": p.get("name"), "rating": p.get("rating"),
                 "rank": ranks.get(pid), "score": sum(c.points for c in cells.get(pid, ())),
                 "cells": [_cell_text(c, numbers) for c in cells.get(pid, ())]}
                for pid, p in self.players.items()]
        rows.sort(key=lambda x: x["number"])
        return {"tournament_id": self.tournament_id, "rounds": sorted(self.rounds), "rows": rows}

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
        elif t == "TournamentCreated":
            self.pending_creates = max(0, self.pending_creates - 1)
            self.created_cause = str(msg.causation_id)
            self.created_by = self.creations.get(self.created_cause)
            self.creations = {}
            self.name, self.system, self.planned_rounds = p.name, p.system, p.rounds
            self.time_control, self.tiebreaks = p.time_control, list(p.tiebreaks)
            self.game, self.tiebreak_edition = p.game, p.tiebreak_edition
            if self.status == "created":
                self.status = "open"
        elif t == "PlayerRegistered":
            self.players[p.player_id] = {"player_id": p.player_id, "name": p.name,
                                         "rating": p.rating, "fide_id": p.fide_id,
                                         "title": p.title, "grade": p.grade, "team": p.team,
                                         "from_round": p.from_round, "missed": p.missed,
                                         "withdrawn_from": None}
        elif t == "PlayerWithdrawn":
            if p.player_id in self.players:
                self.players[p.player_id]["withdrawn_from"] = p.from_round
        elif t == "LotsDrawn":
            self.numbers = dict(p.numbers)
        elif t == "RoundPaired":
            self.rounds[p.round] = {
                "boards": [{"board": b.board, "game_id": b.game_id, "white": b.white,
                            "black": b.black} for b in p.boards],
                "bye": p.bye, "manual": p.manual, "requested_byes": dict(p.requested_byes),
                "withdrawn_boards": [{"white": b.white, "black": b.black} for b in p.withdrawn_boards],
            }
            if self.status in ("created", "open"):
                self.status = "running"
        elif (t == "TournamentCommandRejected" and p.code == "decision-too-large"
              and msg.stream.endswith(".standings")):
            self.standings_withheld = p.reason
        elif t == "StandingsUpdated":
            self.standings_withheld = None
            self.standings = {"round": p.round, "order": list(p.order), "tiebreak_edition": p.tiebreak_edition,
                              "rows": [r.model_dump(mode="json") for r in p.rows],
                              "teams": [r.model_dump(mode="json") for r in p.teams]}
        elif t == "TournamentFinished":
            self.status = "finished"


class Recorded(NamedTuple):
    """A message of an aggregate's history as the SSE replay sends it: its type, stream, seq and
    JSON. About a sixth of the memory of the parsed envelope (3.4 KB on average), which a
    gateway holding a national event's log (700,000 messages) cannot afford."""

    type: str
    stream: str
    seq: int
    json: str


class ReadModel:
    """All games and tournaments, plus each aggregate's message history (for SSE replays),
    and the revoked bearer tokens (``revoked``, from RevokeToken on the ``identity`` aggregate)."""

    def __init__(self, keep_history: bool = True) -> None:
        self.games: dict[str, GameView] = {}
        self.tournaments: dict[str, TournamentView] = {}
        self.history: dict[str, list[Recorded]] = defaultdict(list)
        self.keep_history = keep_history
        self.applied = 0
        self.records = Records()  # the tournament records (crosstables), fed every message
        self.revoked = Revocations()

    def game(self, gid: str) -> GameView | None:
        return self.games.get(gid)

    def tournament(self, tid: str) -> TournamentView | None:
        return self.tournaments.get(tid)

    def apply(self, msg: Envelope) -> None:
        self.applied += 1
        if self.keep_history:
            self.history[msg.aggregate].append(Recorded(msg.type, msg.stream, msg.seq, msg.model_dump_json()))
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
