"""The tournament record: one pure fold (no I/O) of a tournament's events, and its table.

:class:`TournamentRecord` folds one tournament's events (TournamentCreated, PlayerRegistered,
LotsDrawn, RoundPaired, PlayerWithdrawn, ResultCorrected, TournamentFinished) and the facts of
its games (GameEnded, a Go replay's GameStarted, PenaltyApplied) as :class:`Records` routes
them; :meth:`TournamentRecord.cells` is its table: one :class:`Cell` per player and round,
with the TRF letter that gives its points (:mod:`shared.domain.results`). Pairing, standings,
the gateway's crosstable and the TRF export all read that table, so they agree on every
player's points and every game's result by construction.

What a round is worth, by cell kind:

- ``game``: a board of RoundPaired; its result code is the board's: the game's GameEnded
  (a forfeit ``+-``/``-+``, xiangqi 1999 art. 21.4; ``--`` a double forfeit, 21.3), the
  arbiter's ResultCorrected in its place, and for a Go game the arbiter ruled replayed
  (EndlessCycleRuled ``replay``: Chinese rules 1988 art. 20.3, 重下) the result of its replay
  game (GameStarted ``replay_of``), the ``replay`` ending itself being no result;
- ``forfeit``: a round robin's board not played because a player withdrew (RoundPaired
  ``withdrawn_boards``): a forfeit win for the opponent (20.3), lost by both when both had
  withdrawn;
- ``annulled``: a round robin's game of a withdrawn player who met fewer than half of his
  opponents: every result of his is annulled (20.3), on both lines (``Z``, 0 points);
- ``bye``: the pairing-allocated bye of a Swiss system (Dutch, 积分编排制, McMahon): ``U``, 1
  point (FIDE C.04.1 c; xiangqi appendix 2);
- ``rest``: the bye of any other system, a round robin's free round (odd Berger table): ``Z``,
  0 points, no round of the player's in the tie-breaks;
- ``requested``: a bye the player asked for (StartRound ``requested_byes``), ``F`` 1 / ``H`` ½ /
  ``Z`` 0 (TRF-16 letters);
- ``late``: a round before a late entry's first (PlayerRegistered ``from_round``), its
  ``missed`` letter (the event's ``late_entries``: ``Z`` 0 by default, or ``H`` ½);
- ``absent``: not paired otherwise (a Swiss player after his withdrawal, 20.4; a member of a
  team without a match): ``Z``, 0 points.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from contracts.messages import (
    GameEnded, GameStarted, LotsDrawn, PenaltyApplied, PlayerRegistered, PlayerWithdrawn,
    ResultCorrected, RoundPaired, TournamentCreated, TournamentFinished,
)
from shared.domain.results import LETTER_POINTS, letter, normal_code, result_code

#: Systems that pair each round from the scores: their pairing bye scores a point (``U``).
SWISS_SYSTEMS = ("swiss", "chinese-swiss", "mcmahon")
#: Systems whose withdrawals follow xiangqi 1999 art. 20.3 (annulment or forfeits).
ROUND_ROBINS = ("round-robin", "double-round-robin")
#: The kinds of :class:`Cell` (see the module docstring).
KINDS = ("game", "forfeit", "annulled", "bye", "rest", "requested", "late", "absent")


@dataclass(frozen=True)
class Cell:
    """One player's round: ``kind`` (:data:`KINDS`), ``letter`` the TRF-16 result letter
    (None: a game not finished yet), and for a board ``opponent`` (player id), ``colour``
    (``w``/``b``; ``-`` without a board), ``code`` the board's result code (White's side
    first) and ``game_id`` (None for a withdrawn board)."""

    round: int
    kind: str
    letter: str | None
    opponent: str | None = None
    colour: str = "-"
    code: str | None = None
    game_id: str | None = None

    @property
    def points(self) -> float:
        """The cell's points (1, ½ or 0; 0 while its game runs)."""
        return 0.0 if self.letter is None else LETTER_POINTS[self.letter]


@dataclass
class GameResults:
    """The results of games by id, across tournaments: ``ended`` the result code of each
    GameEnded (the first; a ``replay`` ending is none), ``replay_of`` / ``replaced_by`` the Go
    replays (1988 art. 20.3) both ways."""

    ended: dict[str, str] = field(default_factory=dict)
    replay_of: dict[str, str] = field(default_factory=dict)
    replaced_by: dict[str, str] = field(default_factory=dict)

    def apply(self, p: GameEnded | GameStarted) -> None:
        """Fold a GameEnded or a replay's GameStarted (others are ignored)."""
        if isinstance(p, GameEnded) and p.reason != "replay":
            self.ended.setdefault(p.game_id, result_code(p))
        elif isinstance(p, GameStarted) and p.replay_of:
            self.replay_of[p.game_id] = p.replay_of
            self.replaced_by[p.replay_of] = p.game_id

    def board_of(self, game_id: str) -> str:
        """The game a board paired: ``game_id`` itself, or the game a replay (of a replay...)
        replays."""
        while game_id in self.replay_of:
            game_id = self.replay_of[game_id]
        return game_id

    def result(self, board: str) -> str | None:
        """The result code of the board's game: its last replay's, else its own; None while
        running."""
        while board in self.replaced_by:
            board = self.replaced_by[board]
        return self.ended.get(board)


@dataclass
class TournamentRecord:
    """One tournament folded from its events (see the module docstring). ``players`` in
    registration order; ``numbers`` the drawn lots (LotsDrawn: draw numbers, a knockout's
    seeds); ``rounds`` RoundPaired by round (round ``n`` at index ``n - 1``), ``boards`` board
    game id -> round; ``corrected``
    game id -> ResultCorrected code; ``withdrawn`` player id -> first round missed; xiangqi
    ``fouls`` (犯规, art. 15.1/15.2) and ``penalties`` (warnings, disqualifications under
    18.1/18.2) per player; ``games`` the game results (shared by the records of a
    :class:`Records`)."""

    created: TournamentCreated
    games: GameResults = field(default_factory=GameResults)
    players: list[PlayerRegistered] = field(default_factory=list)
    numbers: dict[str, int] | None = None
    rounds: list[RoundPaired] = field(default_factory=list)
    boards: dict[str, int] = field(default_factory=dict)
    corrected: dict[str, str] = field(default_factory=dict)
    withdrawn: dict[str, int] = field(default_factory=dict)
    fouls: dict[str, int] = field(default_factory=dict)
    penalties: dict[str, tuple[int, int]] = field(default_factory=dict)
    finished: bool = False

    def start_numbers(self) -> dict[str, int]:
        """Player id -> start number, one numbering for the crosstable and the TRF export:
        the players' ``start_number`` when every player has a distinct one (an imported TRF
        keeps its own), else the drawn lots when every player has one (a round robin's Berger
        table numbers), else the Swiss systems' pairing numbers (:func:`pairing_order`: rating,
        higher first, then name; FIDE C.04.2)."""
        given = [x.start_number for x in self.players]
        if self.players and None not in given and len(set(given)) == len(given):
            return {x.player_id: x.start_number for x in self.players}
        if self.numbers and all(x.player_id in self.numbers for x in self.players):
            return {x.player_id: self.numbers[x.player_id] for x in self.players}
        return {x.player_id: i + 1 for i, x in enumerate(pairing_order(self.players))}

    # ------------------------------------------------------------------------------- the fold
    def apply(self, p) -> None:
        """Fold one event of this tournament (other payloads are ignored)."""
        if isinstance(p, PlayerRegistered):
            self.players.append(p)
        elif isinstance(p, LotsDrawn):
            self.numbers = dict(p.numbers)
        elif isinstance(p, RoundPaired):
            self.rounds[p.round - 1:p.round] = [p]
            self.boards.update((b.game_id, p.round) for b in p.boards)
        elif isinstance(p, PlayerWithdrawn):
            self.withdrawn[p.player_id] = p.from_round
        elif isinstance(p, ResultCorrected):
            self.corrected[p.game_id] = normal_code(p.result)
        elif isinstance(p, TournamentFinished):
            self.finished = True
        elif isinstance(p, PenaltyApplied):
            self._penalty(p)

    def _penalty(self, p: PenaltyApplied) -> None:
        """A foul (犯规) counts for FOULS; a warning and a disqualification (18.2: a forfeit
        under art. 4.1.10) place the player last among equal scores (18.4, PEN)."""
        w, d = self.penalties.get(p.player_id, (0, 0))
        if p.kind == "foul":
            self.fouls[p.player_id] = self.fouls.get(p.player_id, 0) + 1
        elif p.kind == "warning":
            self.penalties[p.player_id] = (w + 1, d)
        elif p.kind == "forfeit" and p.rule.article == "4.1.10":
            self.penalties[p.player_id] = (w, d + 1)

    # ------------------------------------------------------------------------------- reading
    @property
    def tournament_id(self) -> str:
        """TournamentCreated's ``tournament_id``."""
        return self.created.tournament_id

    @property
    def system(self) -> str:
        """TournamentCreated's pairing ``system`` (``round-robin``, ``swiss``, ...)."""
        return self.created.system

    def result(self, game_id: str) -> str | None:
        """The result code of a board's game (the correction, else the game's or its
        replay's); None while it runs."""
        return self.corrected.get(game_id) or self.games.result(game_id)

    @property
    def results(self) -> dict[str, str]:
        """Board game id -> result code, for every board with a result."""
        return {b.game_id: c for r in self.rounds for b in r.boards if (c := self.result(b.game_id))}

    def open_games(self) -> list[str]:
        """The boards still without a result, in pairing order."""
        return [b.game_id for r in self.rounds for b in r.boards if self.result(b.game_id) is None]

    def annulled(self, upto: int | None = None) -> set[str]:
        """The withdrawn players of a round robin whose results are annulled after round
        ``upto`` (all rounds by default), xiangqi 1999 art. 20.3 (:func:`annulled_withdrawals`
        over the games with a result)."""
        rounds = self.rounds[:upto]
        if self.system not in ROUND_ROBINS:
            return set()
        left = {pid: fr - 1 for pid, fr in self.withdrawn.items() if fr <= len(rounds)}
        met = [(r.round, b.white, b.black) for r in rounds for b in r.boards if self.result(b.game_id)]
        return annulled_withdrawals([x.player_id for x in self.players], met, left) if left else set()

    def cells(self, upto: int | None = None) -> dict[str, list[Cell]]:
        """Player id -> one :class:`Cell` per round 1..``upto`` (all rounds by default)."""
        annulled = self.annulled(upto)
        out: dict[str, list[Cell]] = {x.player_id: [] for x in self.players}
        for r in self.rounds[:upto]:
            got = self._round_cells(r, annulled)
            for x in self.players:
                pid = x.player_id
                cell = got.get(pid)
                if x.from_round and r.round < x.from_round:  # a late entry's missed round
                    cell = Cell(r.round, "late", x.missed or "Z")
                out[pid].append(cell or Cell(r.round, "absent", "Z"))
        return out

    def _round_cells(self, r: RoundPaired, annulled: set[str]) -> dict[str, Cell]:
        """The cells of round ``r`` of the players it names: boards, withdrawn boards, bye,
        requested byes."""
        got: dict[str, Cell] = {}
        boards = [(b.white, b.black, self.result(b.game_id), b.game_id, "game") for b in r.boards]
        boards += [(b.white, b.black, self._withdrawn_code(r.round, b.white, b.black), None, "forfeit")
                   for b in r.withdrawn_boards]
        for white, black, code, gid, kind in boards:
            for pid, opp, colour in ((white, black, "w"), (black, white, "b")):
                if {white, black} & annulled:
                    got[pid] = Cell(r.round, "annulled", "Z", opp, colour, code, gid)
                else:
                    got[pid] = Cell(r.round, kind, code and letter(code, colour), opp, colour, code, gid)
        if r.bye:
            swiss = self.system in SWISS_SYSTEMS
            got[r.bye] = Cell(r.round, "bye" if swiss else "rest", "U" if swiss else "Z")
        for pid, kind in r.requested_byes.items():
            got[pid] = Cell(r.round, "requested", kind)
        return got

    def _withdrawn_code(self, rnd: int, white: str, black: str) -> str:
        """The forfeit of a withdrawn board of round ``rnd`` (20.3: the withdrawn player's
        games are lost, the opponent wins): ``-+`` / ``+-``, and ``--`` when both had withdrawn
        by then (each loses; neither is an opponent still playing, as both absent, 21.3)."""
        gone = [self.withdrawn.get(pid, rnd + 1) <= rnd for pid in (white, black)]
        return {(True, False): "-+", (False, True): "+-"}.get(tuple(gone), "--")

    def scores(self, upto: int | None = None) -> dict[str, float]:
        """Player id -> points over rounds 1..``upto`` (the sum of the player's cells)."""
        return {pid: sum(c.points for c in cs) for pid, cs in self.cells(upto).items()}


@dataclass
class Records:
    """The records of every tournament seen, folded from any mix of tournament events and
    game facts in any order between the two (a result may come before or after the round
    that paired it): ``records`` by tournament id, ``games`` their game results,
    ``tournament_of`` board game id -> tournament id. ``make``: the record class (a service
    may extend :class:`TournamentRecord` with its own state)."""

    records: dict[str, TournamentRecord] = field(default_factory=dict)
    games: GameResults = field(default_factory=GameResults)
    tournament_of: dict[str, str] = field(default_factory=dict)
    make: type = TournamentRecord

    def apply(self, p) -> TournamentRecord | None:
        """Fold one payload; returns the record it belongs to (None: no known tournament)."""
        if isinstance(p, (GameEnded, GameStarted, PenaltyApplied)):
            if not isinstance(p, PenaltyApplied):
                self.games.apply(p)
            t = self.of_game(p.game_id)
            if t is not None and isinstance(p, PenaltyApplied):
                t.apply(p)
            return t
        tid = getattr(p, "tournament_id", None)
        if isinstance(p, TournamentCreated):
            self.records.setdefault(tid, self.make(p, games=self.games))
        t = self.records.get(tid) if tid is not None else None
        if t is not None and p.TOPIC == TournamentCreated.TOPIC:
            t.apply(p)
            if isinstance(p, RoundPaired):
                self.tournament_of.update((b.game_id, tid) for b in p.boards)
        return t

    def of_game(self, game_id: str) -> TournamentRecord | None:
        """The record of the tournament that paired ``game_id`` (or the game it replays)."""
        tid = self.tournament_of.get(self.games.board_of(game_id))
        return self.records.get(tid) if tid is not None else None

    def get(self, tournament_id: str) -> TournamentRecord | None:
        """The record of ``tournament_id`` (None before its TournamentCreated)."""
        return self.records.get(tournament_id)


class KeepsRecords:
    """Base of a service core whose state is a :class:`Records` (attribute ``book``): a
    pickled state without one (a snapshot taken by the code before the tournament record)
    refuses to load, so the Kafka host replays the partition from its inputs instead of
    running a core with no record."""

    book: Records

    @property
    def tournaments(self) -> dict[str, TournamentRecord]:
        """The records by tournament id (each of the ``book``'s ``make`` class)."""
        return self.book.records

    def __setstate__(self, state: dict) -> None:
        if "book" not in state:
            raise ValueError(f"{type(self).__name__} state from before the tournament record")
        self.__dict__.update(state)


def annulled_withdrawals(player_ids: Iterable[str], games: Iterable[tuple[int, str, str]],
                         withdrawn: Mapping[str, int]) -> set[str]:
    """The withdrawn players of a round robin whose results are annulled, xiangqi 1999 art.
    20.3: those who met fewer than half of their opponents (``len(player_ids) - 1``) in the
    games up to their last round. ``games``: (round, white, black) of the games with a result
    (forfeits count, boards not played do not); ``withdrawn``: id -> last round he took part
    in."""
    n_opp = len(list(player_ids)) - 1
    games = list(games)
    out: set[str] = set()
    for w, last in withdrawn.items():
        met = {black if white == w else white for rnd, white, black in games
               if w in (white, black) and rnd <= last}
        if len(met) * 2 < n_opp:
            out.add(w)
    return out


__all__ = ["Cell", "GameResults", "KINDS", "KeepsRecords", "ROUND_ROBINS", "Records", "SWISS_SYSTEMS",
           "TournamentRecord", "annulled_withdrawals"]


def pairing_order(players: list[PlayerRegistered]) -> list[PlayerRegistered]:
    """The Swiss systems' pairing-number order (FIDE C.04.2: rating, higher first, then name);
    also the start numbers of an exported TRF."""
    return sorted(players, key=lambda x: (-(x.rating or 0), x.name))
