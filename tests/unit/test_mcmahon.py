"""McMahon pairing (services.pairing.mcmahon) with grades of the Chinese amateur dan/kyu system."""
from __future__ import annotations

import random
from itertools import chain

import networkx as nx
import pytest

from services.pairing.core import PairingError
from services.pairing.mcmahon import McMahonPlayer, mcmahon_pair
from shared.domain.grades import initial_mms, rank_value


@pytest.mark.parametrize("grade,value", [("7d", 6), ("1d", 0), ("1段", 0), ("3段", 2), ("1k", -1),
                                         ("5级", -5), ("25k", -25)])
def test_rank_values_of_the_amateur_system(grade, value):
    assert rank_value(grade) == value


@pytest.mark.parametrize("bad", ["8d", "0k", "26k", "3p", "", "dan"])
def test_grades_outside_7d_25k_are_refused(bad):
    with pytest.raises(PairingError):
        rank_value(bad)


# A field from 5d to 20k, top bar 3d, bottom bar 10k, scores counted from 30k = 0 (OpenGotha's
# McMahon zero): 3d is rank value 2 -> 2 + 30 = 32, and 5d, 4d are held at the top bar; 2d 31,
# 1d 30, 1k 29 ... 9k 21; 10k is rank value -10 -> 20, and 11k..20k start at the bottom bar's 20.
FIELD_3D_10K = {"5d": 32, "4d": 32, "3d": 32, "2d": 31, "1d": 30, "1k": 29, "2k": 28, "3k": 27,
                "4k": 26, "5k": 25, "6k": 24, "7k": 23, "8k": 22, "9k": 21, "10k": 20, "11k": 20,
                "12k": 20, "15k": 20, "19k": 20, "20k": 20}


@pytest.mark.parametrize("grade,mms", FIELD_3D_10K.items())
def test_initial_mms_between_a_3d_top_bar_and_a_10k_bottom_bar(grade, mms):
    assert initial_mms(grade, "3d", "10k") == mms


def test_initial_mms_of_the_bars_themselves_and_of_equal_bars():
    # top 7d (value 6) and bottom 25k (value -25): no one is held; 7d 36, 25k 5 (30k would be 0)
    assert [initial_mms(g, "7d", "25k") for g in ("7d", "1d", "25k")] == [36, 30, 5]
    # both bars at 1k: the whole field starts at 1k's 29
    assert {initial_mms(g, "1k", "1k") for g in ("7d", "1k", "25k")} == {29}


def test_a_bottom_bar_above_the_top_bar_is_refused():
    with pytest.raises(PairingError, match="the bottom bar 3d is above the top bar 10k"):
        initial_mms("1d", "10k", "3d")


def _event(n: int, rounds: int, seed: int):
    """A seeded McMahon event: grades 5d..15k, top bar 2d, bottom bar 12k; random results."""
    rng = random.Random(seed)
    grades = [f"{d}d" for d in range(5, 0, -1)] + [f"{k}k" for k in range(1, 16)]
    players = {}
    for i in range(n):
        g = grades[i * len(grades) // n]
        players[f"p{i}"] = McMahonPlayer(id=f"p{i}", mms=initial_mms(g, "2d", "12k"), rank=rank_value(g),
                                         rating=2400 - 10 * i)
    history = []
    for _ in range(rounds):
        r = mcmahon_pair(list(players.values()))
        history.append((r, dict(players)))
        new = dict(players)
        for w, b in r.boards:
            win = w if rng.random() < 0.5 else b
            for me, opp, col in ((w, b, "w"), (b, w, "b")):
                p = new[me]
                new[me] = McMahonPlayer(id=me, mms=p.mms + (1 if me == win else 0), rank=p.rank,
                                        rating=p.rating, opponents=p.opponents + (opp,),
                                        colours=p.colours + (col,), floats=p.floats + (r.floats.get(me, ""),),
                                        had_bye=p.had_bye)
        if r.bye:
            p = new[r.bye]
            new[r.bye] = McMahonPlayer(id=p.id, mms=p.mms + 1, rank=p.rank, rating=p.rating,
                                       opponents=p.opponents, colours=p.colours + ("-",),
                                       floats=p.floats + ("",), had_bye=True)
        players = new
    return history, players


def test_round_one_pairs_inside_score_groups_top_half_against_bottom_half():
    # 8 players: four at the top bar (MMS 32: 5d 4d 3d 3d), four 1k (MMS 29): no float, split and
    # slip inside each group: 1st v 3rd, 2nd v 4th.
    ps = [McMahonPlayer("a", 32, 4), McMahonPlayer("b", 32, 3), McMahonPlayer("c", 32, 2),
          McMahonPlayer("d", 32, 2, rating=1), McMahonPlayer("e", 29, -1, rating=4),
          McMahonPlayer("f", 29, -1, rating=3), McMahonPlayer("g", 29, -1, rating=2),
          McMahonPlayer("h", 29, -1, rating=1)]
    r = mcmahon_pair(ps)
    assert {frozenset(b) for b in r.boards} == {frozenset("ad"), frozenset("bc"), frozenset("eg"),
                                                 frozenset("fh")} or \
           {frozenset(b) for b in r.boards} == {frozenset("ac"), frozenset("bd"), frozenset("eg"), frozenset("fh")}
    assert r.bye is None and r.floats == {}


@pytest.mark.parametrize("n", [30, 31])
def test_a_seeded_event_never_rematches_and_keeps_scores_close(n):
    history, final = _event(n, 6, seed=11)
    met = set()
    byes = []
    for r, before in history:
        for w, b in r.boards:
            assert frozenset((w, b)) not in met
            met.add(frozenset((w, b)))
        # the score criterion dominates: the round's total of squared MMS differences is the
        # least any pairing without rematches achieves (an independent matching on it alone)
        field = [p for p in before.values() if p.id != r.bye]
        g = nx.Graph()
        for i, x in enumerate(field):
            for y in field[i + 1:]:
                if y.id not in x.opponents:
                    g.add_edge(x.id, y.id, weight=(x.mms - y.mms) ** 2)
        best = sum(g[x][y]["weight"] for x, y in nx.min_weight_matching(g))
        assert sum((before[w].mms - before[b].mms) ** 2 for w, b in r.boards) == best
        assert len(set(chain.from_iterable(r.boards))) == 2 * len(r.boards)
        byes.append(r.bye)
    if n % 2:
        assert None not in byes and len(set(byes)) == len(byes)  # one bye a round, never twice
    else:
        assert byes == [None] * 6
    for p in final.values():  # colours stay balanced: at most 2 apart after 6 rounds
        assert abs(p.colours.count("w") - p.colours.count("b")) <= 2


def test_colour_goes_to_the_player_who_had_fewer_whites():
    a = McMahonPlayer("a", 5, 0, colours=("w", "w"))
    b = McMahonPlayer("b", 5, 0, colours=("b", "w"))
    assert mcmahon_pair([a, b]).boards == (("b", "a"),)


def test_no_pairing_without_rematch_is_an_error():
    a = McMahonPlayer("a", 5, 0, opponents=("b",))
    b = McMahonPlayer("b", 5, 0, opponents=("a",))
    with pytest.raises(PairingError, match="rematch"):
        mcmahon_pair([a, b])


def test_grades_normalise_to_one_form():
    from shared.domain.grades import normalise_grade

    for typed, stored in (("3k ", "3k"), ("3d\n", "3d"), ("01k", "1k"), ("3D", "3d"), ("1 dan", "1d"),
                          ("3段", "3d"), ("15级", "15k"), ("25 kyu", "25k"), ("7d", "7d")):
        assert normalise_grade(typed) == stored, typed
    for bad in ("8d", "0k", "26k", "3p", "3d3d", ""):
        with pytest.raises(PairingError):
            normalise_grade(bad)
