"""Re-pair every round of a TRF from the rounds before it and compare with the record.

``check_pairings(path)`` is what ``arbiter check-pairings --trf FILE`` prints: per round the
official pairs and ours as ``[white, black]`` start numbers, the byes, and ``matched``; a round
that differs also lists the boards that differ (``official_only``, ``ours_only``).

Comparison rules (JaVaFo/bbpPairings conventions, FIDE C.04.1):
  * players to pair in round r: those recorded against an opponent (played or forfeited: a
    forfeit ``+``/``-`` against a named opponent was paired, just not played) or with the
    pairing-allocated bye (``U``; ``0000 - +`` in older files); everyone else is absent;
  * history: only played games count as met opponents and for colours; forfeits and byes give
    the points and count as "had a bye" (forfeit win) as bbpPairings does;
  * a pair matches when both players and colours equal the record; a forfeited pair has no
    recorded colours (``-``), so it matches on the two players alone;
  * round 1 is compared too; the initial colour (the top seed's colour in round 1) is XXC's
    ``white1``/``black1``, else inferred from round 1 of the record by
    :func:`initial_colour`;
  * lichess Swiss exports (:func:`is_lichess`) are re-paired with lichess's own pairing
    numbers of 2020, recomputed before each round by :func:`lichess_order` (the export's start
    numbers are not the numbers lichess gave bbpPairings); see docs/pairing-comparison.md.
"""
from __future__ import annotations

import time
from pathlib import Path

from services.pairing.core import PairingError
from services.pairing.dutch import ENGINE, DutchPlayer, pair_dutch, players_from_trf
from shared.domain.trf import RoundEntry, Tournament, read_trf

__all__ = ["check_pairings", "official_round", "compare_round", "differing_boards",
           "initial_colour", "is_lichess", "lichess_order"]


def official_round(t: Tournament, rnd: int) -> tuple[list[list[int]], int | None, set[frozenset]]:
    """(pairs ``[white, black]`` — forfeits listed lower number first —, bye, forfeit pairs)."""
    pairs, forfeits, bye = [], set(), None
    for p in t.players:
        e = p.entry(rnd)
        if e is None:
            continue
        if e.opponent is None:
            if e.result in "U+":
                bye = p.number
            continue
        if e.colour == "w" or (e.colour == "-" and p.number < e.opponent):
            pairs.append([p.number, e.opponent])
            if e.colour == "-":
                forfeits.add(frozenset((p.number, e.opponent)))
    return pairs, bye, forfeits


def differing_boards(official: list[list[int]], ours: list[list[int]],
                     forfeits: set[frozenset]) -> tuple[list[list[int]], list[list[int]]]:
    """The boards ``[white, black]`` of the record that we do not pair, and ours that the
    record does not have (a forfeited pair compares without colours); both sorted."""
    def key(pair):
        return frozenset(pair) if frozenset(pair) in forfeits else tuple(pair)
    theirs, mine = {key(p) for p in official}, {key(p) for p in ours}
    return (sorted(p for p in official if key(p) not in mine),
            sorted(p for p in ours if key(p) not in theirs))


def compare_round(official: list[list[int]], ours: list[list[int]], official_bye, our_bye,
                  forfeits: set[frozenset]) -> bool:
    """True when the byes and every board (colours included, except forfeits) are equal."""
    return official_bye == our_bye and differing_boards(official, ours, forfeits) == ([], [])


def _pairing_key(t: Tournament, by_rating: bool):
    """Pairing-number order of the players (``XXC rank``: rating, higher first, then start
    number, as :func:`services.pairing.dutch.history_trf` numbers them; else start number)."""
    if by_rating:
        return lambda n: (-(t.player(n).rating or 0), n)
    return lambda n: n


def initial_colour(t: Tournament, by_rating: bool | None = None) -> bool:
    """True when the top seed had white in round 1 (``XXC white1``), False for ``black1``.

    With an ``XXC`` line carrying ``white1``/``black1`` that is the answer.  Otherwise it is
    inferred from round 1 as recorded: the boards are the round's pairings (forfeits included:
    they were paired) ordered by their higher-ranked player; in round 1 of a Swiss (FIDE C.04.3
    D.9 / E.5, as JaVaFo and bbpPairings apply it) the higher-ranked player of board 1, 3, 5, ...
    has the initial colour and of board 2, 4, ... the other one.  The first board whose game was
    played (a forfeit ``-`` has no colour) decides.  No played game in round 1: white.
    Example: board 1 ``1-3`` forfeited, board 2 ``4 w - 2 b``: 2 (the higher) has black on an
    even board, so the initial colour is white.
    """
    xxc = t.header("XXC")
    if xxc is not None and {"white1", "black1"} & set(xxc.split()):
        return t.first_white
    key = _pairing_key(t, t.by_rank if by_rating is None else by_rating)
    highers = sorted({min(p.number, e.opponent, key=key)
                      for p in t.players if (e := p.entry(1)) and e.opponent is not None}, key=key)
    for board, n in enumerate(highers):
        e = t.player(n).entry(1)
        if e.played and e.colour in "wb":
            return (e.colour == "w") == (board % 2 == 0)
    return True


def is_lichess(t: Tournament) -> bool:
    """True for a lichess Swiss export: lila's ``SwissTrf`` writes ``032 Lichess`` and
    ``022 https://lichess.org/swiss/<id>`` (either line is enough; re-saved copies keep them)."""
    return ((t.header("032") or "").strip().lower() == "lichess"
            or "lichess.org/swiss/" in (t.header("022") or "").lower())


# lila 2020 Swiss.makeScore: points * 10^7 + tie-break * 10^4 + performance
_LILA_POINTS, _LILA_TIEBREAK = 10_000_000, 10_000


def lichess_order(t: Tournament, rnd: int) -> list[int]:
    """Start numbers in the order lichess numbered its players for bbpPairings before ``rnd``.

    lila's pairing of 2020 (``PairingSystem`` with ``SwissRankingApi``, lichess-org/lila
    modules/swiss) wrote the TRF with each player's current *ranking* as his TRF number:
    players sorted by ``SwissPlayer.score`` descending, where ``Swiss.makeScore`` is
    ``points * 10^7 + tieBreak * 10^4 + performance`` (an int) and ``SwissScoring`` computes
    over the player's games (byes and absences are not games): ``tieBreak`` = Sonneborn-Berger
    (the opponent's current points for a win, half of them for a draw), ``performance`` = the
    mean of (opponent's rating +500 for a win, -500 for a loss, +0 for a draw), or the player's
    own rating without games.  ``points`` are all points recorded before ``rnd`` (``H`` late
    entry 0.5, ``U`` bye 1).  Before round 1 this is rating order.  Missing ratings count as 0;
    equal scores (lila: database order, not exported) keep start-number order.
    """
    pts = {p.number: sum(e.points for e in p.rounds[:rnd - 1] if e is not None)
           for p in t.players}
    score = {}
    for p in t.players:
        tb = perf = 0.0
        games = [e for e in p.rounds[:rnd - 1] if e is not None and e.opponent is not None]
        for e in games:
            won = {"1": 1.0, "+": 1.0, "=": 0.5}.get(e.result, 0.0)
            tb += pts[e.opponent] * won
            perf += (t.player(e.opponent).rating or 0) + 1000 * (won - 0.5)
        perf = perf / len(games) if games else (p.rating or 0)
        score[p.number] = int(pts[p.number] * _LILA_POINTS + tb * _LILA_TIEBREAK + perf)
    return sorted(score, key=lambda n: (-score[n], n))


def _renumber(players: list[DutchPlayer], order: list[int]) -> tuple[list[DutchPlayer], dict]:
    """The players with start numbers 1..n in ``order`` (opponents remapped), and new -> old."""
    new = {old: i for i, old in enumerate(order, 1)}

    def entry(e):
        return e if e is None or e.opponent is None else RoundEntry(new[e.opponent], e.colour,
                                                                    e.result)
    out = [DutchPlayer(number=new[p.number], history=tuple(map(entry, p.history)),
                       rating=p.rating, absent=p.absent, absent_result=p.absent_result)
           for p in players]
    return out, {v: k for k, v in new.items()}


def check_pairings(path: str | Path, system: str = "dutch", pair=None,
                   by_rating: bool | None = None) -> dict:
    """Re-pair each recorded round of the TRF at ``path``; see the module docstring.

    ``pair(players, round_no, total_rounds, first_white) -> SwissRound`` defaults to our Dutch
    engine (:func:`services.pairing.dutch.pair_dutch`); other engines are passed in for the
    comparison in docs/pairing-comparison.md.
    """
    if system != "dutch":
        raise ValueError(f"unknown system {system!r} (supported: dutch)")
    pair = pair or pair_dutch
    t = read_trf(path)
    by_rating = t.by_rank if by_rating is None else by_rating
    first_white = initial_colour(t, by_rating)
    lichess = is_lichess(t)
    if lichess:
        by_rating = False  # the numbers are lichess_order's
    total = max(t.rounds, t.rounds_recorded)
    rounds = []
    for rnd in range(1, t.rounds_recorded + 1):
        official, obye, forfeits = official_round(t, rnd)
        t0 = time.perf_counter()
        try:
            players, back = players_from_trf(t, rnd), None
            if lichess:
                players, back = _renumber(players, lichess_order(t, rnd))
            res = pair(players, rnd, total, first_white, by_rating)
            num = (lambda x: back[int(x)]) if back else int
            ours = [[num(w), num(b)] for w, b in res.boards]
            our_bye = num(res.bye) if res.bye is not None else None
            error = None
        except PairingError as exc:
            ours, our_bye, error = [], None, str(exc)
        secs = time.perf_counter() - t0
        row = {"round": rnd, "official": sorted(official), "ours": sorted(ours),
               "official_bye": obye, "our_bye": our_bye,
               "matched": error is None and compare_round(official, ours, obye, our_bye,
                                                          forfeits),
               "seconds": round(secs, 3)}
        if error:
            row["error"] = error
        if not row["matched"]:
            row["official_only"], row["ours_only"] = differing_boards(official, ours, forfeits)
        rounds.append(row)
    return {"file": str(path), "system": system, "engine": ENGINE,
            "pairing_numbers": "lichess-2020-ranking" if lichess else "start-number",
            "rounds": rounds,
            "matched_all": all(r["matched"] for r in rounds)}
