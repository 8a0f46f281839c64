"""One interface over the games' rules, so the services need not know which game they run.

:func:`position` gives a :class:`Position` for ``"chess"`` (python-chess, FIDE Laws),
``"xiangqi"`` (:mod:`shared.rules.xiangqi`, 1999 competition rules) or ``"go"``
(:mod:`shared.rules.go`: Chinese, Japanese or Ing rules). Seats are ``white`` and ``black``: in
xiangqi Red sits in the ``white`` seat and moves first; in Go Black sits in the ``black`` seat and
moves first, except after handicap stones (then White), so no service may assume White first.

A position parses move text (raising :class:`MoveError` with code ``malformed`` or ``illegal``),
plays moves, reports the status of the position after a move and answers the questions
adjudication asks (can a side still win, does a draw claim hold). ``RULES`` of a position maps a
decision (``checkmate``, ``timeout``, ``absence`` ...) to the article of that game's rules.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

import chess

from contracts.messages import Rule
from shared.rules import chess as chess_rules
from shared.rules import xiangqi
from shared.rules.chess import MoveError
from shared.errors import RulesError

__all__ = ["GAMES", "MoveError", "Played", "Position", "GoPosition", "GoMoveError", "position",
           "rules_of", "start_fen", "go_settings", "go_rule_map", "go_kwargs", "go_score_rule"]

GAMES = ("chess", "xiangqi", "go")


@dataclass(frozen=True)
class Played:
    """A move as the record keeps it: ``uci`` the coordinate move (chess UCI / xiangqi ICCS),
    ``san`` the human notation (chess SAN / xiangqi Chinese notation), ``wxf`` (xiangqi only),
    ``status`` of the position after it, ``halfmove_clock`` and ``repetitions`` after it."""

    uci: str
    san: str
    fen_after: str
    status: str
    halfmove_clock: int
    repetitions: int
    wxf: str | None = None


class Position:
    """A game in progress (mutable). Subclasses: chess and xiangqi."""

    game: str
    RULES: dict[str, Rule]

    @property
    def turn(self) -> str:
        """Seat colour to move: ``"white"`` or ``"black"`` (xiangqi Red = white)."""
        raise NotImplementedError

    @property
    def ply(self) -> int:
        raise NotImplementedError

    def fen(self) -> str:
        raise NotImplementedError

    def parse(self, text: str) -> Any:
        """The legal move ``text`` names. Raises :class:`MoveError`."""
        raise NotImplementedError

    def play(self, move: Any) -> Played:
        """Play a move returned by :meth:`parse`; returns the record of it."""
        raise NotImplementedError

    def play_coord(self, coord: str) -> None:
        """Replay a recorded coordinate move (``Played.uci``) without checks."""
        raise NotImplementedError

    def coord(self, move: Any) -> str:
        raise NotImplementedError

    def status(self) -> str:
        """``ongoing`` or the terminal status of the position (``checkmate`` ...)."""
        raise NotImplementedError

    def compact(self) -> None:
        """Keep the game in its smallest form while nothing reads its board: once it is over
        (a game that ended stays in the cores that rule on it, and an event of 10,000 boards a
        round holds every finished one), and in a core that only replays the moves until a
        claim or a flag needs the board (adjudication). Nothing observable changes: the
        position is rebuilt, move history included, on first use, and :meth:`play_coord`
        keeps a compacted position compact. Chess: the start position and the moves in UCI
        (python-chess's move stack costs some 0.5 KB of board state per ply); xiangqi and Go:
        see :class:`_Replayable`."""

    def flag_draw(self, flagged: str) -> str | None:
        """Why the flag fall of seat ``flagged`` is a draw rather than a loss, or None (a loss:
        xiangqi 1999 art. 4.1.4 and Go 1988 art. 23.5 whatever the material)."""
        return None

    def outcome(self, status: str, mover: str) -> tuple[str, str | None]:
        """For a terminal ``status`` after ``mover``'s move: (result, winner colour or None)."""
        raise NotImplementedError

    def claim(self, reason: str, move: Any, limit: int, claimant: str) -> tuple[bool, str]:
        """Does the draw claim of seat ``claimant`` hold? Returns (valid, detail)."""
        raise NotImplementedError


_WIN = {"white": "1-0", "black": "0-1"}


class ChessPosition(Position):
    """Chess on python-chess (FIDE 1994 / 2023 articles in :data:`shared.rules.chess.RULES`)."""

    game = "chess"
    RULES = chess_rules.RULES
    #: the start position's FEN once computed (its board's ``root().fen()``, 28 us of the 48 a
    #: live game's snapshot took); not pickled
    _start: str | None = None

    def __init__(self, fen: str | None) -> None:
        self._board: chess.Board | None = chess_rules.board_from_fen(fen)
        self._moves: tuple[str, str | list[str]] | None = None  # (start FEN, UCI moves)

    @property
    def board(self) -> chess.Board:
        """The python-chess board (rebuilt from the start position and the moves on first use
        after a snapshot was loaded or the game compacted)."""
        if self._board is None:
            start, moves = self._record()
            self._board = chess_rules.board_from_fen(start)
            self._start = start
            for uci in moves:
                self._board.push(chess.Move.from_uci(uci))
            self._moves = None
        return self._board

    def _record(self) -> tuple[str, list[str]]:
        """The start FEN and the moves in UCI, from whichever form the position is in: the
        board, a snapshot's list or :meth:`compact`'s string."""
        if self._board is None:
            start, moves = self._moves
            return start, moves.split() if isinstance(moves, str) else moves
        if self._start is None:
            self._start = self._board.root().fen()
        return self._start, [m.uci() for m in self._board.move_stack]

    def __getstate__(self) -> dict:
        """What a snapshot keeps (:mod:`shared.kafkahost`): the start position and the list of
        moves in UCI, some 30 times smaller than python-chess's move stack of board states.
        (A list, as snapshots of format 2 have always held: code from before :meth:`compact`
        loads it too, in a rolling upgrade or a rollback.)"""
        return {"_board": None, "_moves": self._record()}

    def compact(self) -> None:
        """The start position and the moves in UCI as one space-separated string (a tenth of
        the list's memory), rebuilt by :attr:`board` on first use."""
        if self._board is not None or not isinstance(self._moves[1], str):  # a board, or a snapshot's list
            start, moves = self._record()
            self._board, self._moves = None, (start, " ".join(moves))

    @property
    def turn(self) -> str:
        return chess_rules.colour_name(self.board.turn)

    @property
    def ply(self) -> int:
        return len(self.board.move_stack) if self._board is not None else len(self._record()[1])

    def fen(self) -> str:
        return self.board.fen()

    def parse(self, text: str) -> chess.Move:
        return chess_rules.parse_move(self.board, text)

    def coord(self, move: chess.Move) -> str:
        return move.uci()

    def play(self, move: chess.Move) -> Played:
        san = self.board.san_and_push(move)
        return Played(move.uci(), san, chess_rules.fen(self.board), self.status(),
                      self.board.halfmove_clock, chess_rules.repetitions(self.board))

    def play_coord(self, coord: str) -> None:
        """Replay a recorded UCI move without checks. A compacted position (:meth:`compact`)
        only notes it: the board is rebuilt, this move included, when something reads it."""
        if self._board is None:
            start, moves = self._moves
            if isinstance(moves, str):
                self._moves = (start, f"{moves} {coord}" if moves else coord)
            else:
                moves.append(coord)
        else:
            self._board.push(chess.Move.from_uci(coord))

    def status(self) -> str:
        return chess_rules.position_status(self.board)

    def flag_draw(self, flagged: str) -> str | None:
        """``insufficient-material`` or ``no-mating-sequence`` (2023 art. 6.9,
        :func:`shared.rules.chess.flag_draw`), or None."""
        return chess_rules.flag_draw(self.board, flagged)

    def outcome(self, status: str, mover: str) -> tuple[str, str | None]:
        return (_WIN[mover], mover) if status == "checkmate" else ("1/2-1/2", None)

    def claim(self, reason: str, move: chess.Move | None, limit: int, claimant: str) -> tuple[bool, str]:
        return chess_rules.claim_is_valid(self.board, reason, move)  # the claimant is to move


_SEAT = {xiangqi.RED: "white", xiangqi.BLACK: "black"}


class _Replayable(Position):
    """Xiangqi and Go positions compacted (:meth:`Position.compact`) to what they were built
    with (``_init``: the constructor's arguments) and their moves as space-separated text
    (:meth:`_tokens`): a finished 100-ply xiangqi game goes from some 11 KB of boards, move
    stack and position counts to some 0.5 KB; a Go game from its board history to one token a
    move. Reading any other attribute of a compacted position builds it again by calling the
    constructor with ``_init`` and replaying the tokens (:meth:`_replay`), the same calls that
    built it, so the rebuilt position is the one compacted. A position loaded from a snapshot
    written before ``_init`` existed is left as it is."""

    _init: tuple[tuple, dict]

    def _tokens(self) -> list[str]:
        """The moves (and anything else that changed the position) as replayable tokens."""
        raise NotImplementedError

    def _replay(self, token: str) -> None:
        """Apply one token of :meth:`_tokens` again."""
        raise NotImplementedError

    def compact(self) -> None:
        d = self.__dict__
        if "_packed" in d or "_init" not in d:
            return
        packed = (self._init, " ".join(self._tokens()))
        d.clear()
        d["_packed"] = packed

    def _append(self, token: str) -> bool:
        """On a compacted position, note ``token`` without building the position (True)."""
        packed = self.__dict__.get("_packed")
        if packed is None:
            return False
        self.__dict__["_packed"] = (packed[0], f"{packed[1]} {token}" if packed[1] else token)
        return True

    def __getattr__(self, name: str) -> Any:  # called only for an attribute not found
        packed = self.__dict__.get("_packed")
        if packed is None or name.startswith("__"):
            raise AttributeError(name)
        (args, kwargs), tokens = packed
        fresh = type(self)(*args, **kwargs)
        for t in tokens.split():
            fresh._replay(t)
        self.__dict__ = fresh.__dict__
        return getattr(self, name)


class XiangqiPosition(_Replayable):
    """Xiangqi on :mod:`shared.rules.xiangqi` (1999 rules; articles in ``xiangqi.RULES``).

    Moves are read in ICCS (coordinates mean ICCS unless the move names notation ``uci``), WXF
    or Chinese notation (:mod:`shared.rules.xiangqi_notation`).
    Terminal statuses: ``checkmate`` and ``stalemate`` (both lose, art. 4.1.1, 4.1.3) and
    ``insufficient-material`` (neither side can win, a draw, 4.2.1)."""

    game = "xiangqi"
    RULES = xiangqi.RULES

    def __init__(self, fen: str | None) -> None:
        try:
            self.board = xiangqi.Board(fen or xiangqi.START_FEN)
        except xiangqi.XiangqiError as e:
            raise ValueError(str(e)) from None
        self.seen: Counter[str] = Counter([self.board.position_key()])
        self._init = ((fen,), {})

    def _tokens(self) -> list[str]:
        return [m.iccs() for m in self.board.move_stack]

    def _replay(self, token: str) -> None:
        self.play_coord(token)

    @property
    def turn(self) -> str:
        return _SEAT[self.board.turn]

    @property
    def ply(self) -> int:
        return len(self.board.move_stack)

    def fen(self) -> str:
        return self.board.fen()

    def parse(self, text: str, notation: str | None = None) -> xiangqi.Move:
        """The legal move ``text`` names. ``notation``: ``"iccs"``, ``"uci"`` (the engines'
        coordinates, ranks 1-10, as pyffish writes them), ``"wxf"`` or ``"chinese"``; None:
        coordinates are ICCS (ranks 0-9, the platform's contract, so a move means one thing),
        WXF and Chinese are recognised. Coordinates that read as ICCS only illegally but as a
        legal UCI move, or that have a rank 10, are refused naming UCI. Raises
        :class:`MoveError` (``malformed`` / ``illegal``)."""
        from shared.rules import xiangqi_notation as xn

        try:
            if notation is not None:
                return xn.parse_move(self.board, text, notation)
            kind = xn.detect_notation(text)
            if kind == "uci":
                raise xn.MalformedMoveError(text, "a rank 10: this looks like the engines' UCI "
                                                  "(ranks 1-10); coordinates here are ICCS (ranks "
                                                  "0-9) unless the move says notation 'uci'")
            return xn.parse_move(self.board, text, "iccs" if kind == "coord" else None)
        except xn.MalformedMoveError as e:
            raise MoveError("malformed", str(e)) from None
        except xiangqi.XiangqiError as e:
            raise MoveError("illegal", str(e) + self._uci_hint(text, notation)) from None

    def _uci_hint(self, text: str, notation: str | None) -> str:
        """For coordinates read as ICCS that are illegal but a legal move in UCI: say so."""
        from shared.rules import xiangqi_notation as xn

        if notation is not None or xn.detect_notation(text) != "coord":
            return ""
        try:
            mv = xn.parse_uci(self.board, text)
        except xn.NotationError:
            return ""
        return (f" (read as ICCS, ranks 0-9; in the engines' UCI, ranks 1-10, it is the legal "
                f"move {mv.iccs()} in ICCS: send notation 'uci' to play it)")

    def coord(self, move: xiangqi.Move) -> str:
        return move.iccs()

    def play(self, move: xiangqi.Move) -> Played:
        from shared.rules import xiangqi_notation as notation

        chinese = notation.to_chinese(self.board, move)
        wxf = notation.to_wxf(self.board, move)
        self.play_coord(move.iccs())
        return Played(move.iccs(), chinese, self.board.fen(), self.status(),
                      self.board.halfmove_clock, self.seen[self.board.position_key()], wxf)

    def play_coord(self, coord: str) -> None:
        if self._append(coord):
            return
        self.board.push(xiangqi.Move.from_iccs(coord))
        self.seen[self.board.position_key()] += 1

    def status(self) -> str:
        if not self.board.legal_moves():
            return "checkmate" if self.board.is_check() else "stalemate"
        if not self.board.can_win(xiangqi.RED) and not self.board.can_win(xiangqi.BLACK):
            return "insufficient-material"
        return "ongoing"

    def can_win(self, colour: str) -> bool:
        return self.board.can_win(xiangqi.RED if colour == "white" else xiangqi.BLACK)

    def outcome(self, status: str, mover: str) -> tuple[str, str | None]:
        if status in ("checkmate", "stalemate"):
            return _WIN[mover], mover
        return "1/2-1/2", None

    def claim(self, reason: str, move: Any, limit: int, claimant: str) -> tuple[bool, str]:
        """Art. 4.2.4 / 23.3: ``natural-limit`` holds when the claimant's moves since the last
        capture, with at most 10 of its checks counted, reach ``limit``."""
        if reason != "natural-limit":
            return False, f"xiangqi has no {reason} claim; claim natural-limit (art. 4.2.4)"
        moves, checks, counted = self.board.natural_limit(
            xiangqi.RED if claimant == "white" else xiangqi.BLACK)
        detail = (f"{moves} moves without a capture, {checks} of them checks; {counted} count "
                  f"(at most 10 checks, art. 23.3) against a limit of {limit}")
        return counted >= limit, detail


# ------------------------------------------------------------------------------------------- Go
def go_rule_map(rules: str = "chinese") -> dict[str, Rule]:
    """The decision -> article map of a Go game under ``rules`` (one of
    :data:`shared.rules.go.RULESETS`).

    The arbiter articles are those of chapter 3 of the Chinese rules 1988 (the platform's
    arbiter law for every Go ruleset): time out 23.5, lateness 23.1 / 23.2 / 23.3, playing
    twice 17.1, warnings 25.2 (two in a game lose it), other violations 25.1, void moves 19 /
    20.1, endless cycles 20.3 (``endless-cycle`` the detection; ``cycle-draw`` / ``cycle-replay``
    the arbiter's rulings; ``no-result``, Japanese rules only, 1989 art. 12). End of play, resumption, agreement
    and counting follow the game's ruleset: Japanese 1989 art. 9-1 / 9-2 / 9-3, 8 and 10;
    Chinese 1988 art. 7, 8, 9 and 21 (``stop``: two passes = both confirmed the end, 21.1;
    the komi's article comes with the komi, :func:`go_score_rule`); Ing art. 4 (end of play by
    the 1988 arbiter law, 21.1). ``stone-removal-timeout`` is the platform's rule for online
    play (no rule text sets a time for settling the dead stones). Raises ``ValueError`` for
    unknown rules."""
    from shared.rules import go

    if rules not in go.RULESETS:
        raise ValueError(f"unknown Go rules {rules!r}; known: {', '.join(go.RULESETS)}")
    return {**_go_ending_rules(rules), **_go_arbiter_rules(rules)}


def _go_ending_rules(rules: str) -> dict[str, Rule]:
    """Resignation, resumption, agreement and counting: the articles of the game's own ruleset
    (Korean: the Japanese 1989 articles)."""
    from shared.rules import go

    c88, j89, ing, r = go.C88, go.J89, go.ING, go._r
    by = {
        "chinese": {
            "resignation": r(c88, "7.2", "a player who resigns loses (终局)"),
            "resumption": r(c88, "21.1, 21.3", "a dispute over life and death is settled by play; "
                                               "the opponent of the player who asked moves first"),
            "agreement": r(c88, "8, 9", "dead stones agreed by both players; area counting"),
            "score": r(c88, "9", "area counting (数子法): stones plus surrounded points, shared "
                                 "dame halved, against 180.5 on 19x19 (komi: go_score_rule)"),
        },
        "japanese": {
            "resignation": r(j89, "11", "a player who resigns loses (中盘胜)"),
            "resumption": r(j89, "9-3", "a player who asks to resume play lets the opponent move first"),
            "agreement": r(j89, "9-2", "life and death and territory confirmed by both: end of the game"),
            "score": r(j89, "8, 10", "territory counting: territory plus prisoners and dead stones, "
                                     "no territory in seki; komi"),
        },
        "ing": {
            "resignation": r(c88, "7.2", "a player who resigns loses"),
            "resumption": r(c88, "21.1, 21.3", "a dispute over life and death is settled by play"),
            "agreement": r(c88, "8", "dead stones agreed by both players"),
            "score": r(ing, "4", "子空皆地, 填满计点: area counting; 8 points compensation"),
        },
        "tromp-taylor": {
            "resignation": r(c88, "7.2", "a player who resigns loses (the Tromp-Taylor rules "
                                         "have no resignation: the arbiter law's)"),
            "resumption": r(go.TT, "8", "the game ends after two passes: there is no resumption"),
            "agreement": r(go.TT, "9", "no dead stones are agreed: every stone on the board counts"),
            "score": r(go.TT, "9, 10", "area counting of every stone on the board and the empty "
                                       "points reaching only one colour; komi"),
        },
        "aga": {
            "resignation": r(c88, "7.2", "a player who resigns loses (the arbiter law's)"),
            "resumption": r(go.AGA, "9", "without agreement on dead stones play resumes, the "
                                         "opponent of the last passer first"),
            "agreement": r(go.AGA, "9", "dead stones agreed by both players are removed"),
            "score": r(go.AGA, "12, 3, 4", "area counting (equal to territory counting with pass "
                                           "stones); komi; N-1 points for N handicap stones"),
        },
        "nz": {
            "resignation": r(c88, "7.2", "a player who resigns loses"),
            "resumption": r(go.NZ, "End", "without agreement on dead stones play continues"),
            "agreement": r(go.NZ, "End", "dead stones agreed by both players are removed"),
            "score": r(go.NZ, "Score", "area counting: stones plus surrounded empty points; komi 7"),
        },
    }
    by["korean"] = {k: v.model_copy(update={"ruleset": go.KOR, "article": f"J89 {v.article}"})
                    for k, v in by["japanese"].items()}
    return by[rules]


def _go_arbiter_rules(rules: str) -> dict[str, Rule]:
    """The arbiter law of every Go ruleset (Chinese rules 1988 ch. 3: time, lateness, playing
    twice, warnings, violations, void moves, endless cycles) and the end of play of ``rules``."""
    from shared.rules import go

    c88, r = go.C88, go._r
    return {
        **{k: go.rule_for(k, rules) for k in ("timeout", "absence", "double-absence", "lateness",
                                              "cycle-draw", "cycle-replay")},
        "played-twice": r(c88, "17.1", "playing twice in a row without the opponent passing loses"),
        "warning": r(c88, "25.2", "warnings are recorded; two in one game lose it"),
        "warnings": r(c88, "25.2", "a second warning in the game loses it"),
        "penalty": r(c88, "25.1", "the arbiter rules on a violation the rules do not name"),
        "disqualification": r(c88, "25.1", "loss of the game by arbiter decision"),
        "arbiter": r(c88, "16.4", "a result ruled by the arbiter; the players must comply"),
        "arbiter-dead": r(c88, "16.4, 25.1", "the arbiter rules which stones are dead when the "
                                              "players do not agree"),
        "void-suicide": r(c88, "19", "a stone on a forbidden point is void and the turn is lost "
                                     "(着手无效，弃权一次)"),
        "void-ko": r(c88, "20.1", "an immediate ko recapture is void and the turn is lost "
                                  "(着手无效，弃权一次)"),
        "void-superko": r(c88, "6, 20.1", "a move repeating a whole-board position is void and "
                                          "the turn is lost"),
        "end": go.rule_for("end", rules),
        "stop": go.rule_for("stop", rules),  # Japanese 9-1; Chinese and Ing 1988 art. 21.1
        "stone-removal-timeout": go.rule_for("stone-removal-timeout", rules),
        "endless-cycle": go.rule_for("endless-cycle", rules),
        **({"no-result": go.rule_for("no-result", rules)} if go.spec(rules).cycle == "no-result" else {}),
        "illegal-move": go.rule_for("occupied", rules),
    }


def go_score_rule(rules: str, komi: float) -> Rule:
    """The counting rule of a Go game under ``rules`` with ``komi`` points: Chinese with 5.5
    points (2¾ stones) Chinese rules 1988 art. 9, 11; Chinese with another komi (7.5 = 3¾
    stones in current events) Chinese rules 2002 art. 9, which counts the same way and leaves the
    komi to the competition; Japanese 1989 art. 8, 10; Ing art. 4. Raises ``ValueError`` for
    unknown rules."""
    from shared.rules import go

    base = go_rule_map(rules)["score"]
    k = go.komi_rule(komi, rules)
    if rules != "chinese":
        return base
    if k.ruleset == go.C88:
        return base.model_copy(update={"article": f"{base.article}, {k.article}",
                                       "summary": f"{base.summary}; {k.summary}"})
    return k.model_copy(update={"summary": f"数子法 as 1988 art. 9, 180.5 baseline on 19x19; {k.summary}"})


def go_settings(board_size: int | None, rules: str | None, komi: float | None,
                handicap: int | None, stone_removal_s: int | None = None) -> dict:
    """The resolved Go settings of a game: ``board_size`` (default 19), ``go_rules`` (chinese),
    ``komi`` in points (the ruleset's default, :func:`shared.rules.go.default_komi`; 0 in a
    handicap game, AGA 0.5), ``handicap`` stones (0) and ``stone_removal_s`` seconds to settle the dead
    stones (:data:`shared.rules.go.DEFAULT_STONE_REMOVAL_S`, a platform rule). Raises
    ``ValueError`` (a :class:`GoError`) for
    an impossible board size, rules or handicap placement, or a komi the board cannot count
    (:func:`shared.rules.go.check_komi`: more than the board's points, e.g. the default 7.5 on
    2x2)."""
    from shared.rules import go

    size = 19 if board_size is None else board_size
    rules = rules or "chinese"
    handicap = handicap or 0
    if rules not in go.RULESETS:
        raise go.GoError(f"unknown Go rules {rules!r}; known: {', '.join(go.RULESETS)}")
    go.handicap_points(size, handicap)  # raises where the board has no such placement
    default = komi is None
    if default:
        komi = go.default_komi(rules, handicap)
    komi = go.check_komi(komi, size, default=default)
    removal = go.DEFAULT_STONE_REMOVAL_S if stone_removal_s is None else int(stone_removal_s)
    if removal <= 0:
        raise go.GoError(f"the stone-removal time must be a positive number of seconds, got {removal}")
    return {"board_size": size, "go_rules": rules, "komi": komi, "handicap": handicap,
            "stone_removal_s": removal}


class GoMoveError(MoveError):
    """A refused Go move: ``code`` ``malformed`` (unreadable, off the board) or ``illegal``;
    ``why`` the engine's reason (occupied, suicide, ko, superko, wrong-turn ...); ``rule`` the
    article it rests on (None for a malformed move: notation, no rule article)."""

    def __init__(self, code: str, reason: str, why: str, rule: Rule | None) -> None:
        super().__init__(code, reason)
        self.why, self.rule = why, rule


#: Engine reasons of a move that is void -- the turn is lost (着手无效，弃权一次), recorded as a
#: pass on the board that does not count towards ending play -- when an event applies Chinese
#: rules 1988 art. 19 / 20.1 literally (``void_moves="pass"``).
VOID_REASONS = ("suicide", "ko", "superko")


class GoPosition(_Replayable):
    """Go on :mod:`shared.rules.go` (rules: one of :data:`shared.rules.go.RULESETS`).

    Moves are GTP points (``D4``, no letter I), SGF points (``dd``) or ``pass``; the record keeps
    the GTP point (``uci`` = ``san``). ``fen()`` is the engine's one-line position
    (:meth:`shared.rules.go.Board.to_text`). Status ``scoring`` after two passes in a row
    (Japanese rules 1989 art. 9-1: play stops; Chinese 1988 art. 21.1): the dead stones are
    agreed or ruled, or play resumes (:meth:`resume`). ``ply`` counts the moves recorded.
    ``repetitions`` of a played move: occurrences of the whole-board position with the same
    player to move (an endless cycle shows as 3 or more, 1988 art. 20.3).
    """

    game = "go"

    def __init__(self, fen: str | None = None, *, board_size: int | None = None,
                 go_rules: str | None = None, handicap: int | None = None, **_: Any) -> None:
        from shared.rules import go

        if fen:
            self.board = go.Board.from_text(fen)
            if go_rules and go_rules != self.board.rules:
                raise go.GoError(f"the position is under {self.board.rules} rules, "
                                 f"the game under {go_rules}")
            if board_size and board_size != self.board.size:
                raise go.GoError(f"the position is {self.board.size}x{self.board.size}, "
                                 f"the game {board_size}x{board_size}")
        else:
            st = go_settings(board_size, go_rules, 0.0, handicap)  # komi: the count's, not the board's
            pts = go.handicap_points(st["board_size"], st["handicap"])
            self.board = go.Board(st["board_size"], st["go_rules"], setup_black=pts,
                                  turn=go.WHITE if pts else go.BLACK)
        self.RULES = go_rule_map(self.board.rules)  # per ruleset
        self._ply = 0
        self._passes = 0  # passes in a row since play began or resumed
        self._init = ((fen,), {"board_size": board_size, "go_rules": go_rules, "handicap": handicap})
        self._ops = []  # the moves' GTP points ("~" before a void one), "^<seat>" a resumption

    _ops: list[str] | None = None  # None: loaded from a snapshot older than the record

    def _tokens(self) -> list[str]:
        return self._ops or []

    def _replay(self, token: str) -> None:
        if token[0] == "^":
            self.resume(token[1:])
        else:
            void = token[0] == "~"
            self.play(self.point(token[1:] if void else token), void=void)

    @property
    def rules(self) -> str:
        return self.board.rules

    @property
    def size(self) -> int:
        return self.board.size

    @property
    def turn(self) -> str:
        return self.board.turn

    @property
    def ply(self) -> int:
        return self._ply

    def fen(self) -> str:
        return self.board.to_text()

    def point(self, text: str):
        """The engine point (None = pass) of typed GTP/SGF/``pass`` text: only ``pass`` passes
        (SGF's ``tt`` and empty text are passes in SGF files only,
        :func:`shared.rules.go.parse_point` ``sgf_pass``; typed on a 9x9 board ``tt`` meant no
        pass). Raises :class:`GoMoveError` ``malformed`` for unreadable text or a point off the
        board: a notation error, so no rule article (``rule`` None)."""
        from shared.rules import go

        try:
            return go.parse_point(text, self.board.size, sgf_pass=False)
        except go.IllegalMove as e:
            raise GoMoveError("malformed", e.message, e.reason, None) from None

    def parse(self, text: str):
        """The point (None = pass) ``text`` names, if legal now. Raises :class:`GoMoveError`:
        ``malformed`` (unreadable, off the board) or ``illegal`` (occupied, suicide 1988 art. 5,
        ko, superko art. 6) with the article."""
        p = self.point(text)
        err = self.board.legality(p)
        if err is not None:
            raise GoMoveError("illegal", str(err), err.reason, err.rule)
        return p

    def coord(self, move) -> str:
        from shared.rules import go

        return go.to_gtp(move, self.board.size)

    def play(self, move, *, void: bool = False) -> Played:
        """Play ``move`` (a point, None = pass). ``void``: the move was void (1988 art. 19 a
        forbidden point, 20.1 an immediate ko recapture: 着手无效，弃权一次, the turn is lost)
        and is recorded as a pass on the board, but it is no declaration of the end (art. 21.1:
        play ends when both players confirm it): it does not count towards the two passes in a
        row that stop play and breaks a run of passes."""
        played = self.board.play(move)
        self._ply += 1
        self._passes = 0 if (void or move is not None) else self._passes + 1
        gtp = self.coord(move)
        if self._ops is not None:
            self._ops.append(f"~{gtp}" if void else gtp)
        return Played(gtp, gtp, self.fen(), self.status(), len(played.captured),
                      self.board.position_count())

    def play_coord(self, coord: str, *, void: bool = False) -> None:
        if not self._append(f"~{coord}" if void else coord):
            self.play(self.point(coord), void=void)

    def resume(self, asker: str) -> bool:
        """Play resumes at ``asker``'s request (Japanese 1989 art. 9-3: the opponent moves
        first). Returns True when ``asker`` is to move and so yields the turn: the next move is
        the asker's pass, which does not count towards the two passes that stop play."""
        self._passes = -1 if self.board.turn == asker else 0
        if self._ops is not None:
            self._ops.append(f"^{asker}")
        return self.board.turn == asker

    def status(self) -> str:
        return "scoring" if self._passes >= 2 else "ongoing"

    @property
    def counts_every_stone(self) -> bool:
        """True when the rules take no dead stones off (Tromp-Taylor rule 9): play stopped, the
        board is counted as it stands, with no dead stones to settle."""
        from shared.rules import go

        return not go.spec(self.board.rules).dead_removed

    def outcome(self, status: str, mover: str) -> tuple[str, str | None]:
        raise ValueError(f"a Go position has no terminal status ({status}): it is counted")

    def claim(self, reason: str, move: Any, limit: int, claimant: str) -> tuple[bool, str]:
        return False, "Go has no draw claims: a game ends by resignation or counting"

    def dead_groups(self, points) -> tuple[str, ...]:
        """Every stone of the groups holding ``points`` (GTP/SGF text), as sorted GTP points.
        Raises :class:`GoMoveError`: ``malformed`` for unreadable text, ``illegal`` for a pass
        or an empty point."""
        from shared.rules import go

        out: set = set()
        for t in points:
            p = self.point(t)
            if p is None or self.board[p] is None:
                raise GoMoveError("illegal", f"no stone on {t!r}: only stones can be dead",
                                  "empty", self.RULES["agreement"])
            out |= self.board.group(p).stones
        return tuple(go.to_gtp(p, self.board.size) for p in sorted(out))


def go_kwargs(p: Any) -> dict:
    """The Go settings of a GameStarted / TournamentCreated / CreateGame ``p`` as the keywords
    of :func:`position` (empty for chess and xiangqi)."""
    if getattr(p, "game", None) != "go":
        return {}
    return {"board_size": p.board_size, "go_rules": p.go_rules, "handicap": p.handicap}


def position(game: str, fen: str | None = None, **go_settings: Any) -> Position:
    """A new position of ``game`` (``"chess"``, ``"xiangqi"`` or ``"go"``) from ``fen`` (the
    game's start position when None). Go takes ``board_size``, ``go_rules`` and ``handicap``
    (``None`` = 19, chinese, 0; other keywords ignored) and reads ``fen`` as the engine's
    one-line position. Raises ``ValueError`` for an unknown game, an invalid FEN or Go
    settings."""
    if game == "chess":
        return ChessPosition(fen)
    if game == "xiangqi":
        return XiangqiPosition(fen)
    if game == "go":
        return GoPosition(fen, **go_settings)
    raise ValueError(f"unknown game {game!r}; known: {', '.join(GAMES)}")


def rules_of(game: str) -> dict[str, Rule]:
    """The decision -> article map of ``game`` (Go: under Chinese rules, whose chapter 3 is the
    arbiter law of every Go game; a Go position's own ``RULES`` follow its ruleset)."""
    if game == "go":
        return go_rule_map("chinese")
    return xiangqi.RULES if game == "xiangqi" else chess_rules.RULES


def start_fen(game: str) -> str:
    """The standard start position of ``game`` (Go: the empty 19x19 board, Chinese rules)."""
    if game == "go":
        return GoPosition().fen()
    return xiangqi.START_FEN if game == "xiangqi" else chess.STARTING_FEN


#: Game ids the pairing service gives tournament games (``<tournament>-r<round>-b<board>``):
#: a CreateGame may not take them.
TOURNAMENT_GAME_ID = re.compile(r"^.+-r\d+-b\d+$")


class CreationRefused(RulesError):
    """Why a CreateGame cannot create its game: ``code`` (``invalid`` or ``malformed``, the
    codes of GameCommandRejected) and ``reason``."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code, self.reason = code, reason


def resolve_creation(p: Any) -> tuple[Position, dict]:
    """The start position and resolved Go settings (``void_moves`` included; empty for chess
    and xiangqi) of CreateGame ``p``, or :class:`CreationRefused`: a tournament game's id,
    one player on both seats, impossible Go settings (``malformed``), a bad start FEN, a start
    position already over, a time control that does not parse. The validation service's rule,
    which the gateway's bulk pairing checks before it publishes anything."""
    from shared.domain.timecontrol import ClockError, TimeControl

    if TOURNAMENT_GAME_ID.match(p.game_id):
        raise CreationRefused("invalid", f"game ids of the form <tournament>-r<round>-b<board> "
                                         f"are reserved for tournament games: {p.game_id}")
    if p.white == p.black:
        raise CreationRefused("invalid", "white and black must be different players")
    go: dict = {}
    try:
        if p.game == "go":
            go = go_settings(p.board_size, p.go_rules, p.komi, p.handicap, p.stone_removal_s)
    except ValueError as e:  # settings no game can be played with: 422 at the gateway
        raise CreationRefused("malformed", f"bad Go settings: {e}") from None
    try:
        pos = position(p.game, p.start_fen, **go)
    except ValueError as e:
        raise CreationRefused("invalid", f"bad start FEN or Go settings: {e}") from None
    if go:
        go["void_moves"] = p.void_moves
    over = pos.status()
    if over != "ongoing":
        raise CreationRefused("invalid", f"the start position is already over: {over}")
    try:
        TimeControl.parse(p.time_control)
    except ClockError as e:
        raise CreationRefused("invalid", f"bad time control: {e}") from None
    return pos, go
