"""The fast set-up of the Dutch engine (services.pairing.dutch_fast) gives exactly the pairings
of py4swiss 0.3.1's own classes with the 2025 amendments of services.pairing.dutch2025
(``pair_dutch(..., reference=True)``).

Generated Swiss events (seeded): 20-300 players, up to 9 rounds, with pairing-allocated byes,
half-point byes and absences (H/F/Z), late entries, withdrawals and forfeits (+/-); every round
is paired by the unmodified engine (the event continues with its pairing) and by the fast one,
and the two must be equal board for board (colours, board order, bye).  The bracket weight
matrices of the fast matcher are compared edge by edge with py4swiss's own ``_get_weight``.
"""
from __future__ import annotations

import random

import pytest

from services.pairing.core import PairingError
from services.pairing.dutch import DutchPlayer, _parse_in_memory, history_trf, pair_dutch
from shared.domain.trf import RoundEntry

FLIP = {"1": "0", "0": "1", "=": "=", "+": "-", "-": "+"}


def generated_event(seed: int, n: int, rounds: int):
    """Yield ``(players, round_no, reference_pairing)`` for rounds 1..``rounds`` of a seeded
    event of ``n`` players, each round paired by unmodified py4swiss (reference=True)."""
    rng = random.Random(seed)
    late = {i for i in range(1, n + 1) if rng.random() < 0.05}          # enter in round 2-3
    hist: dict[int, list] = {i: [] for i in range(1, n + 1)}
    withdrawn: set[int] = set()
    for rnd in range(1, rounds + 1):
        players = []
        for i in range(1, n + 1):
            h = tuple(hist[i]) + (None,) * (rnd - 1 - len(hist[i]))
            if rnd > 2 and i not in withdrawn and rng.random() < 0.02:
                withdrawn.add(i)
            absent = (i in withdrawn or (i in late and rnd <= rng.choice((2, 3)))
                      or rng.random() < 0.05)
            letter = rng.choice("HFZ") if absent and i not in withdrawn else "-"
            players.append(DutchPlayer(number=i, history=h, rating=2600 - 7 * i,
                                       absent=absent, absent_result=letter))
        try:
            ref = pair_dutch(players, rnd, rounds, reference=True)
        except PairingError:
            return
        yield players, rnd, ref
        for p in players:
            if p.absent:
                hist[p.number] = list(p.history) + [
                    None if p.absent_result == "-" else RoundEntry(None, "-", p.absent_result)]
        for w, b in ref.boards:
            w, b = int(w), int(b)
            res = rng.choice("10=") if rng.random() > 0.04 else rng.choice("+-")
            hist[w] = list(players[w - 1].history) + [RoundEntry(b, "w", res)]
            hist[b] = list(players[b - 1].history) + [RoundEntry(w, "b", FLIP[res])]
        if ref.bye:
            bye = int(ref.bye)
            hist[bye] = list(players[bye - 1].history) + [RoundEntry(None, "-", "U")]


CASES = [(seed, n, rounds) for seed, (n, rounds) in enumerate(
    [(20, 9), (21, 7), (33, 9), (47, 7), (64, 9), (101, 7), (150, 5), (301, 5)])]


@pytest.mark.parametrize("seed,n,rounds", CASES)
def test_fast_engine_pairs_exactly_as_py4swiss(seed, n, rounds):
    paired = 0
    for players, rnd, ref in generated_event(seed, n, rounds):
        fast = pair_dutch(players, rnd, rounds)
        assert fast == ref, (seed, n, rnd)
        paired += 1
    assert paired == rounds  # the generator never ran into an unpairable round


@pytest.mark.parametrize("first_white,by_rating", [(False, False), (True, True)])
def test_fast_engine_options(first_white, by_rating):
    """XXC black1 / rank: the colour of the first round and the pairing numbers change."""
    for players, rnd, _ in generated_event(11, 40, 6):
        ref = pair_dutch(players, rnd, 6, first_white, by_rating, reference=True)
        assert pair_dutch(players, rnd, 6, first_white, by_rating) == ref, rnd


def test_bracket_weights_equal_py4swiss(monkeypatch):
    """Every edge weight of every bracket of round 5 of a 120-player event, as the fast
    matcher sets it on py4swiss's graph (``reduce_lower`` off), equals the reference
    ``_get_weight`` (C.04.3 2025: py4swiss's criteria with 3.4.4 added,
    dutch2025.Dutch2025BracketMatcher)."""
    from py4swiss.engines.dutch.bracket import Brackets
    from py4swiss.engines.dutch.validity_matcher import ValidityMatcher

    from services.pairing.dutch2025 import (Dutch2025BracketMatcher as BracketMatcher,
                                            _bye_assignee, players_2025)
    from services.pairing.dutch_fast import FastBracketMatcher

    monkeypatch.setattr(FastBracketMatcher, "reduce_lower", False)
    players, rnd, _ = list(generated_event(5, 120, 5))[-1]
    trf = _parse_in_memory(history_trf(players, rnd, 5))
    field = sorted(players_2025(trf), reverse=True)
    forbidden = set(trf.x_section.forbidden_pairs)
    forbidden |= _bye_assignee(field, forbidden, ValidityMatcher)
    validity = ValidityMatcher(field, forbidden)
    brackets = Brackets(field, rnd)
    edges = nonzero = 0
    while not brackets.is_finished():
        bracket = brackets.get_current_bracket()
        fast = FastBracketMatcher(bracket, validity)
        slow = BracketMatcher(bracket, validity)
        m = len(slow._player_list)
        for i in range(m):
            for j in range(i + 1, m):
                assert str(fast._weights[i][j]) == str(slow._weights[i][j]), (i, j)
                edges += 1
                nonzero += bool(slow._weights[i][j])
        assert fast.matching == slow.matching
        # move on as py4swiss does: the bracket's matched residents leave, the rest float
        pairs = [(a, b) for a, b in slow.matching.items()
                 if a != b and a.role.value and b.role.value]
        brackets.apply_bracket_pairings(pairs)
    assert edges > 3000 and 0 < nonzero < edges  # brackets of real size, some edges forbidden


REAL_TRFS = ["data/chess/trf/karl-mala-gedenkturnier-2005-frankfurt.trf",
             "data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf",
             "data/chess/trf/lichess-swiss-zulfikar-sali-bullet-2020-05-10.trf"]


@pytest.mark.parametrize("rel", REAL_TRFS)
def test_fast_engine_on_real_trfs(shared_data, rel):
    """Every round of the real TRFs, re-paired from the rounds before it as
    ``arbiter check-pairings`` does: fast == unmodified py4swiss (whether or not the record
    is reproduced; tests/e2e/test_check_pairings.py holds those figures)."""
    from services.pairing.check import initial_colour
    from services.pairing.dutch import players_from_trf
    from shared.domain.trf import read_trf

    t = read_trf(shared_data(rel))
    total = max(t.rounds, t.rounds_recorded)
    for rnd in range(1, t.rounds_recorded + 1):
        players = players_from_trf(t, rnd)
        args = (players, rnd, total, initial_colour(t), t.by_rank)
        assert pair_dutch(*args) == pair_dutch(*args, reference=True), rnd


@pytest.mark.parametrize("first_white,by_rating", [(True, False), (False, False), (True, True)])
def test_first_round_shortcut_equals_the_engine(first_white, by_rating):
    """Round 1 without history is paired in linear time (dutch._first_round, C.04.3 2025 1.3.1,
    E.5): the same boards, colours and bye as the engine, for 1-41 players with absences
    (the absent top seeds change the colours below them)."""
    for n in range(1, 42):
        rng = random.Random(n)
        players = [DutchPlayer(number=i, rating=rng.randint(1000, 2800),
                               absent=rng.random() < 0.2) for i in range(1, n + 1)]
        if all(p.absent for p in players):
            continue
        fast = pair_dutch(players, 1, 5, first_white, by_rating)
        assert fast == pair_dutch(players, 1, 5, first_white, by_rating, reference=True), n


def test_first_round_of_5000_players_in_linear_time():
    """Round 1 of 5,000 players: 2,500 boards, 1-2501, 2502-2, ... (E.5: odd boards give the
    higher-ranked player the initial colour), well under a second."""
    import time

    players = [DutchPlayer(number=i, rating=3000 - i // 3) for i in range(1, 5001)]
    pair_dutch(players[:2], 1, 9)  # imports
    t = time.perf_counter()
    r = pair_dutch(players, 1, 9)
    assert time.perf_counter() - t < 1.0
    assert r.boards[:2] == [("1", "2501"), ("2502", "2")] and len(r.boards) == 2500
    assert r.bye is None


@pytest.mark.parametrize("initial_colour, first_board", [("white", ("p1", "p3")),
                                                         ("black", ("p3", "p1"))])
def test_the_initial_colour_is_an_event_setting(initial_colour, first_board):
    """CreateTournament.initial_colour (C.04.3 E.5): four players by rating, round 1
    pairs 1-3 and 2-4; the top seed has the chosen colour, the second board the other."""
    from datetime import datetime, timezone

    from contracts.envelope import Actor, stream_for
    from contracts.messages import (CreateTournament, RegisterPlayer, RoundPaired, StartRound,
                                    envelope)
    from services.pairing.service import PairingCore

    core, when, arbiter = PairingCore(), datetime(2026, 12, 2, tzinfo=timezone.utc), \
        Actor(kind="arbiter", id="a")
    cmds = [CreateTournament(tournament_id="t1", name="t", system="swiss", rounds=3,
                             initial_colour=initial_colour)]
    cmds += [RegisterPlayer(tournament_id="t1", player_id=f"p{i}", name=f"P{i}",
                            rating=2500 - 10 * i) for i in range(1, 5)]
    cmds.append(StartRound(tournament_id="t1", round=1))
    out = []
    for seq, cmd in enumerate(cmds, start=1):
        out += core.handle(envelope(cmd, stream=stream_for("tournament-t1", "commands"),
                                    seq=seq, occurred_at=when, actor=arbiter))
    (paired,) = [e.payload for e in out if isinstance(e.payload, RoundPaired)]
    boards = [(b.white, b.black) for b in paired.boards]
    assert boards[0] == first_board
    assert boards[1] == (("p4", "p2") if initial_colour == "white" else ("p2", "p4"))


@pytest.mark.parametrize("n,rnd", [(400, 5), (240, 7)])
def test_large_brackets_with_stand_ins_pair_as_py4swiss(monkeypatch, n, rnd):
    """Brackets of 50-100 players with the next scoregroup replaced by stand-ins
    (dutch_fast._lower_stand_ins), the D.2 matching seeding the first D.1 proof and, where the
    S1/S2 removals cannot be kept out of it, the matching restarted after them: the same round as py4swiss's own classes
    (the benchmark's history: score-group folds, 4 or 6 rounds played, half-point steps)."""
    from loadtests.bench import _fast_history
    from services.pairing import dutch_fast

    used = []
    real = dutch_fast._lower_stand_ins

    def spy(matcher, size):
        out = real(matcher, size)
        used.append(out is not None)
        return out

    monkeypatch.setattr(dutch_fast, "_lower_stand_ins", spy)
    players = _fast_history(n, rnd - 1)
    fast = pair_dutch(players, rnd, 9)
    assert sum(used) >= 3  # the stand-ins served several brackets
    assert fast == pair_dutch(players, rnd, 9, reference=True)


def _spy_pairers(monkeypatch) -> list:
    """Every FastBracketPairer the fast engine runs, collected as the rounds are paired."""
    from services.pairing import dutch_fast

    pairers = []
    real = dutch_fast.FastDutchEngine._get_bracket_pairs

    def spy(pairer):
        pairers.append(pairer)
        return real(pairer)

    monkeypatch.setattr(dutch_fast.FastDutchEngine, "_get_bracket_pairs", staticmethod(spy))
    return pairers


def test_kept_computer_pairs_as_py4swiss(monkeypatch):
    """The S1/S2 removals kept out of the compiled computer when proven unused, and the
    matching restarted otherwise (dutch_fast.FastBracketPairer.perform_homogeneous_exchanges),
    with D.2's matching on a fresh computer: generated events with byes, absences, forfeits
    and late entries, every round equal to py4swiss's own classes, both paths taken."""
    pairers = _spy_pairers(monkeypatch)
    rounds = 0
    for seed, n, total in [(11, 90, 9), (12, 130, 7), (13, 61, 9), (14, 200, 6)]:
        for players, rnd, ref in generated_event(seed, n, total):
            assert pair_dutch(players, rnd, total) == ref, (seed, n, rnd)
            rounds += 1
    assert rounds >= 28
    assert any(p.hid_removals for p in pairers)
    assert any(not p.hid_removals and len(p._bracket.resident_list) > 1 for p in pairers)


def test_d2_units_and_one_mdp_matchings_pair_as_py4swiss(monkeypatch):
    """D.2 matched with units (dutch_fast.FastBracketPairer._d2_by_units), without a first
    matching in brackets without MDPs, one MDP's D.3 and D.1 steps with D.2 in one matching
    (_one_mdp), py4swiss's own D.2 where none of those is proven, and D.1 computations on a
    computer without the fixed pairs (_SubComputer): generated events with byes, absences,
    forfeits and late entries, every round equal to py4swiss's own classes, every path
    taken."""
    from services.pairing import dutch_fast

    pairers = _spy_pairers(monkeypatch)
    rebuilt = []
    real = dutch_fast._SubComputer.__init__

    def spy(computer, matcher, fixed):
        rebuilt.append(len(fixed))
        real(computer, matcher, fixed)

    monkeypatch.setattr(dutch_fast._SubComputer, "__init__", spy)
    rounds = 0
    for seed, n, total in [(21, 150, 7), (22, 97, 9)]:
        for players, rnd, ref in generated_event(seed, n, total):
            assert pair_dutch(players, rnd, total) == ref, (seed, n, rnd)
            rounds += 1
    assert rounds == 16
    paths = {p.d2 for p in pairers}
    assert paths == {"units", "units, no first matching", "one MDP", "py4swiss"}
    assert len(rebuilt) > 10 and all(k % 2 == 0 and k > 0 for k in rebuilt)


@pytest.mark.slow
@pytest.mark.parametrize("n,rnd,seed", [(1000, 5, 7), (700, 6, 3), (1200, 4, 5)])
def test_benchmark_events_pair_as_py4swiss(n, rnd, seed):
    """The benchmark's events (loadtests.bench._fast_history: score-group folds), brackets of
    hundreds of players: the fast engine's round equals py4swiss's own classes' (which take
    ~30 s at 1,000 players)."""
    from loadtests.bench import _fast_history

    players = _fast_history(n, rnd - 1, seed=seed)
    fast = pair_dutch(players, rnd, 9)
    assert len(fast.boards) == n // 2
    assert fast == pair_dutch(players, rnd, 9, reference=True)
