"""FIDE Dutch pairing (C.04.3 as amended in 2025, in force from February 2026) behind Arbiter's
pairing interface.

Engine choice by measurement (docs/pairing-comparison.md): py4swiss 0.3.1 (MIT; a Python port
of bbpPairings' Dutch, "C.04.3 effective till 31 January 2026") with the 2025 amendments of
:mod:`services.pairing.dutch2025` reproduces every round of the events bbpPairings (the
FIDE-endorsed engine, 2025 rules) generated and paired (tests/e2e/test_dutch_bbp_oracle.py).
It runs through :mod:`services.pairing.dutch_fast`, a faster set-up with exactly the same
pairings (``reference=True`` runs py4swiss's own classes with the amendments).  Our own
``core.dutch_pair`` stays as the cross-check engine in tests.

Interface: :func:`pair_dutch` takes each player's full round history in TRF terms
(:class:`shared.domain.trf.RoundEntry`: opponent, colour, result; ``None`` = not in the
event that round) and returns a :class:`services.pairing.core.SwissRound` with
``(white_no, black_no)`` boards (as strings of start numbers) and the bye.  It is pure and
deterministic: the history is written as TRF text and handed to py4swiss in memory (no I/O).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from services.pairing.core import PairingError, SwissRound
from shared.domain.trf import RoundEntry, TrfPlayer, Tournament, player_line

__all__ = ["ENGINE", "DutchPlayer", "pair_dutch", "history_trf", "players_from_trf"]

ENGINE = "py4swiss-dutch==0.3.1+C.04.3-2025"


@dataclass(frozen=True)
class DutchPlayer:
    """``number``: start rank (1 = best).  ``history``: one entry per past round (``None``:
    not in the event).  ``absent``: not to be paired this round (withdrawn, requested bye);
    ``absent_result``: the letter recorded for that round (``'-'``, ``'H'``, ``'F'``, ``'Z'``).
    """

    number: int
    history: tuple[RoundEntry | None, ...] = ()
    rating: int | None = None
    absent: bool = False
    absent_result: str = "-"


def history_trf(players: list[DutchPlayer], round_no: int, total_rounds: int,
                first_white: bool = True, by_rating: bool = False) -> str:
    """TRF text of the history before ``round_no`` in the bbpPairings/JaVaFo convention:
    rounds 1..round_no-1 for everyone (blank -> ``0000 - -``, absent and unpaired), and a
    round-``round_no`` entry only for players not to be paired (``0000 - H`` etc.)."""
    if total_rounds < round_no:
        raise PairingError(f"round {round_no} beyond total rounds {total_rounds}")
    lines = [f"XXR {total_rounds}",
             f"XXC {'rank ' if by_rating else ''}{'white1' if first_white else 'black1'}"]
    absent_entry = RoundEntry(None, "-", "Z")
    # py4swiss accepts only bye letters without an opponent: '-' alone is an absence (Z),
    # '+' alone a bye given by an older program (U).
    unpaired = {"-": "Z", "+": "U"}
    order = ((lambda p: (-(p.rating or 0), p.number)) if by_rating else (lambda p: p.number))
    for p in sorted(players, key=order):
        hist = list(p.history[:round_no - 1])
        hist += [None] * (round_no - 1 - len(hist))
        rounds = [absent_entry if e is None else
                  RoundEntry(None, "-", unpaired.get(e.result, e.result)) if e.opponent is None
                  else RoundEntry(e.opponent, "w" if p.number < e.opponent else "b", e.result)
                  if e.colour == "-" else e for e in hist]  # forfeit: colour irrelevant
        if p.absent:
            rounds.append(RoundEntry(None, "-", unpaired.get(p.absent_result, p.absent_result)))
        pts = sum(e.points for e in rounds)
        lines.append(player_line(TrfPlayer(number=p.number, name=f"P{p.number}",
                                           rating=p.rating, points=pts, rank=p.number,
                                           rounds=rounds)))
    return "\n".join(lines) + "\n"


def _parse_in_memory(text: str):
    from py4swiss.trf import ParsedTrf
    from py4swiss.trf.codes import PlayerCode, TeamCode, TournamentCode, XCode
    from py4swiss.trf.sections import PlayerSection, TeamSection, TournamentSection, XSection
    from py4swiss.trf.trf_parser import TrfParser

    by_code = defaultdict(list)
    for i, line in enumerate(text.splitlines()):
        tl = TrfParser._parse_line(i, line, strict=True)
        if tl is not None:
            by_code[tl.code_type].append(tl)
    trf = ParsedTrf(
        player_sections=[PlayerSection.from_string(str(x)) for x in by_code[PlayerCode]],
        team_sections=[TeamSection.from_string(str(x)) for x in by_code[TeamCode]],
        tournament_section=TournamentSection.from_lines(by_code[TournamentCode]),
        x_section=XSection.from_lines(by_code[XCode]),
    )
    trf.validate_contents()
    return trf


def pair_dutch(players: list[DutchPlayer], round_no: int, total_rounds: int,
               first_white: bool = True, by_rating: bool = False,
               reference: bool = False) -> SwissRound:
    """Pair round ``round_no`` by the FIDE Dutch system, C.04.3 as amended in 2025 (the rules
    bbpPairings applies); ``first_white``: the initial colour (E.5), True = white.

    ``by_rating``: pairing numbers from rating order (``XXC rank``, as lichess exports: its
    start numbers are final ranks), else the start numbers are the pairing numbers.
    Boards in publication order (C.04.3 D.9) as ``(str(white_no), str(black_no))``; ``bye``
    the start number (as a string) receiving the pairing-allocated bye, or ``None``.
    ``reference``: run :class:`services.pairing.dutch2025.Dutch2025Engine` (py4swiss's own
    classes) instead of :class:`services.pairing.dutch_fast.FastDutchEngine` (same pairings,
    ~5-10x slower at 1,000 players; kept for the equality tests and the bench).
    Raises :class:`PairingError` when no legal pairing exists.
    """
    from py4swiss.engines.common import PairingError as P4SError

    from services.pairing import dutch_fast
    from services.pairing.dutch2025 import Dutch2025Engine

    engine = (Dutch2025Engine if reference or not dutch_fast.SUPPORTED
              else dutch_fast.FastDutchEngine)

    if not any(not p.absent for p in players):
        raise PairingError("nobody to pair")
    if round_no == 1 and not reference and not any(p.history for p in players):
        return _first_round(players, first_white, by_rating)
    trf = _parse_in_memory(history_trf(players, round_no, total_rounds, first_white,
                                              by_rating))
    try:
        pairings = engine.generate_pairings(trf)
    except P4SError as exc:
        raise PairingError(f"py4swiss: {exc}") from exc
    boards, bye = [], None
    for pr in pairings:
        if pr.black == 0:
            bye = str(pr.white)
        else:
            boards.append((str(pr.white), str(pr.black)))
    return SwissRound(round=round_no, boards=boards, bye=bye)


def _first_round(players: list[DutchPlayer], first_white: bool, by_rating: bool) -> SwissRound:
    """Round 1 without any history, in time linear in the field: what the Dutch rules give
    when every player has the same score, no colour and no opponent (the engine's bracket of
    n players would weigh n^2/2 edges, 12.5 million at 5,000 players).

    One homogeneous bracket (C.04.3 2025 1.3.1): the players in pairing-number order (A.2;
    ``by_rating``: rating order), S1 the first half, S2 the rest; S1's i-th player meets S2's
    i-th (B.1-B.2 of the 2017 text; no transposition or exchange can do better: all candidates
    satisfy every criterion equally); an odd field leaves the last player unpaired, the pairing-
    allocated bye (every player is eligible, C.2; all have played no game, 3.4.4).  Colours
    (E.5): the higher-ranked player of the k-th board, whose pairing number among the players
    paired is k, gets the initial colour when k is odd.  Boards in S1 order (D.9: the higher
    player's rank decides when scores are equal).  ``tests/unit/test_dutch_fast.py`` checks this
    against the engine; the bbpPairings tests check round 1 of 350 events.
    """
    key = (lambda p: (-(p.rating or 0), p.number)) if by_rating else (lambda p: p.number)
    order = sorted((p for p in players if not p.absent), key=key)
    half = len(order) // 2
    boards = []
    for k in range(half):
        higher, lower = order[k], order[half + k]
        white, black = (higher, lower) if (k % 2 == 0) == first_white else (lower, higher)
        boards.append((str(white.number), str(black.number)))
    bye = str(order[-1].number) if len(order) % 2 else None
    return SwissRound(round=1, boards=boards, bye=bye)


def players_from_trf(t: Tournament, round_no: int) -> list[DutchPlayer]:
    """The players of a recorded tournament as they stood before ``round_no``.

    Present in ``round_no`` (to be paired): recorded against an opponent (played or forfeit)
    or given the pairing-allocated bye (``U``, or ``0000 - +`` as older programs wrote it).
    Everyone else with a record that round (``H``/``F``/``Z``/``-``) or with a blank cell is
    absent.  Everyone is listed (py4swiss needs start numbers without gaps); a player who has
    not entered yet carries ``0000 - -`` (absent, zero) for the rounds he missed.
    """
    out = []
    for p in t.players:
        e = p.entry(round_no)
        present = e is not None and (e.opponent is not None or e.result in "U+")
        out.append(DutchPlayer(number=p.number, history=tuple(p.rounds[:round_no - 1]),
                               rating=p.rating, absent=not present,
                               absent_result=(e.result if e is not None and e.result in "HFZ"
                                              else "-")))
    return out
