"""Pairing core: Berger tables against the rule text, Dutch Swiss invariants over a seeded event."""
from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest

from services.pairing.core import (
    PairingError,
    SwissPlayer,
    berger_table,
    colour_preference,
    dutch_pair,
    round_robin,
)

# Transcribed from xiangqi rules appendix 1, "循环赛对局秩序表（例子）若参加者7或8人循环"
# (shared/rules/xiangqi-rules-with-appendices.txt).  First number moves first (red/white).
APPENDIX1_7_OR_8 = [
    [(1, 8), (2, 7), (3, 6), (4, 5)],
    [(8, 5), (6, 4), (7, 3), (1, 2)],
    [(2, 8), (3, 1), (4, 7), (5, 6)],
    [(8, 6), (7, 5), (1, 4), (2, 3)],
    [(3, 8), (4, 2), (5, 1), (6, 7)],
    [(8, 7), (1, 6), (2, 5), (3, 4)],
    [(4, 8), (5, 3), (6, 2), (7, 1)],
]


def test_berger_8_players_equals_appendix_table():
    assert berger_table(8) == APPENDIX1_7_OR_8


def test_berger_7_players_uses_same_table_with_bye_against_8():
    assert berger_table(7) == APPENDIX1_7_OR_8
    plans = round_robin(7)
    assert [p.round for p in plans] == list(range(1, 8))
    expected_byes = [a if b == 8 else b for pairs in APPENDIX1_7_OR_8 for a, b in pairs if 8 in (a, b)]
    assert expected_byes == [1, 5, 2, 6, 3, 7, 4]
    assert [p.bye for p in plans] == expected_byes
    assert plans[0].boards == [(2, 7), (3, 6), (4, 5)]
    assert plans[1].boards == [(6, 4), (7, 3), (1, 2)]
    for plan in plans:
        assert sorted([*(no for pair in plan.boards for no in pair), plan.bye]) == list(range(1, 8))


def test_fide_berger_10_players():
    table = berger_table(10)
    assert len(table) == 9
    assert table[0] == [(1, 10), (2, 9), (3, 8), (4, 7), (5, 6)]
    assert table[1] == [(10, 6), (7, 5), (8, 4), (9, 3), (1, 2)]
    met = Counter(frozenset(pair) for rnd in table for pair in rnd)
    assert set(met) == {frozenset(c) for c in combinations(range(1, 11), 2)}
    assert set(met.values()) == {1}
    whites = Counter(w for rnd in table for w, _ in rnd)
    for player in range(1, 11):
        assert whites[player] in (4, 5), (player, whites[player])
    for rnd in table:
        assert sorted(no for pair in rnd for no in pair) == list(range(1, 11))


@pytest.mark.parametrize("n", [3, 4, 5, 6, 9, 12, 15, 16])
def test_round_robin_everyone_meets_once(n):
    plans = round_robin(n)
    met = Counter(frozenset(pair) for plan in plans for pair in plan.boards)
    assert set(met) == {frozenset(c) for c in combinations(range(1, n + 1), 2)}
    assert set(met.values()) == {1}
    if n % 2:
        assert sorted(p.bye for p in plans) == list(range(1, n + 1))
    else:
        assert all(p.bye is None for p in plans)


def test_double_round_robin_swaps_colours():
    plans = round_robin(8, cycles=2)
    assert len(plans) == 14
    assert plans[7].round == 8
    assert plans[7].boards == [(8, 1), (7, 2), (6, 3), (5, 4)]
    for first, second in zip(plans[:7], plans[7:]):
        assert second.boards == [(b, a) for a, b in first.boards]
    whites = Counter(w for plan in plans for w, _ in plan.boards)
    assert set(whites.values()) == {7}


@pytest.mark.parametrize("bad", [0, 1, -3, True, 2.0, "8"])
def test_berger_rejects_bad_sizes(bad):
    with pytest.raises(PairingError):
        berger_table(bad)


def test_round_robin_rejects_bad_cycles():
    with pytest.raises(PairingError, match="cycles"):
        round_robin(6, cycles=0)


# ------------------------------------------------------------------------------- Dutch Swiss


def fresh(n: int) -> list[SwissPlayer]:
    return [SwissPlayer(id=f"p{i}", pairing_no=i) for i in range(1, n + 1)]


def test_dutch_round1_eight_players():
    rnd = dutch_pair(fresh(8), 1)
    assert rnd.round == 1
    assert rnd.bye is None
    assert rnd.boards == [("p1", "p5"), ("p6", "p2"), ("p3", "p7"), ("p8", "p4")]
    assert rnd.floats == {}


def test_dutch_round1_initial_colour_black():
    rnd = dutch_pair(fresh(8), 1, initial_colour="b")
    assert rnd.boards == [("p5", "p1"), ("p2", "p6"), ("p7", "p3"), ("p4", "p8")]


def test_dutch_round1_odd_field_bye_to_lowest_ranked():
    rnd = dutch_pair(fresh(7), 1)
    assert rnd.bye == "p7"
    assert rnd.boards == [("p1", "p4"), ("p5", "p2"), ("p3", "p6")]


def test_colour_preference_rules():
    assert colour_preference(()) == (None, 0)
    assert colour_preference(("w",)) == ("b", 2)
    assert colour_preference(("w", "b")) == ("w", 1)
    assert colour_preference(("w", "w")) == ("b", 3)
    assert colour_preference(("b", "-", "b")) == ("w", 3)
    assert colour_preference(("w", "b", "w")) == ("b", 2)
    assert colour_preference(("b", "w", "b", "b")) == ("w", 3)


def test_bye_skips_player_who_already_had_one():
    players = [
        SwissPlayer("a", 1, 1.0, ("e",), ("w",)),
        SwissPlayer("b", 2, 1.0, ("d",), ("w",)),
        SwissPlayer("c", 3, 1.0, (), ("-",), had_bye=True),
        SwissPlayer("d", 4, 0.0, ("b",), ("b",)),
        SwissPlayer("e", 5, 0.0, ("a",), ("b",)),
    ]
    rnd = dutch_pair(players, 2)
    assert rnd.bye == "e"  # lowest score group, lowest ranked, no bye yet
    players[4] = SwissPlayer("e", 5, 1.0, ("a",), ("b",), had_bye=True)
    players[3] = SwissPlayer("d", 4, 0.0, ("b",), ("b",), had_bye=True)
    rnd = dutch_pair(players, 2)
    assert rnd.bye == "b"  # a, b have not had a bye; b is the lower ranked of them


def test_bye_chosen_so_that_rest_can_be_paired():
    # c has met a, b and d, so c can only play e: e (the natural candidate) cannot get the bye,
    # the next lowest-ranked player of the lowest score group (d) gets it.
    players = [
        SwissPlayer("a", 1, 2.0, ("c", "x"), ("w", "b")),
        SwissPlayer("b", 2, 2.0, ("c", "y"), ("b", "w")),
        SwissPlayer("c", 3, 0.0, ("a", "b", "d"), ("b", "w", "b")),
        SwissPlayer("d", 4, 0.0, ("c", "z"), ("w", "b")),
        SwissPlayer("e", 5, 0.0, ("v", "u"), ("b", "w")),
    ]
    rnd = dutch_pair(players, 4)
    assert rnd.bye == "d"
    assert {frozenset(b) for b in rnd.boards} == {frozenset("ab"), frozenset("ce")}


def test_no_legal_pairing_raises():
    # c, d, e met everybody: whoever of them does not get the bye cannot be paired
    everyone = ("a", "b", "c", "d", "e")
    players = [
        SwissPlayer("a", 1, 2.0, ("c", "d", "e"), ("w", "b", "w")),
        SwissPlayer("b", 2, 2.0, ("c", "d", "e"), ("b", "w", "b")),
        *(
            SwissPlayer(x, i, 0.0, tuple(o for o in everyone if o != x), ("w", "b", "w", "b"))
            for i, x in ((3, "c"), (4, "d"), (5, "e"))
        ),
    ]
    with pytest.raises(PairingError, match="no legal pairing"):
        dutch_pair(players, 5)


def test_dutch_rejects_bad_input():
    with pytest.raises(PairingError, match="duplicate player id"):
        dutch_pair([SwissPlayer("a", 1), SwissPlayer("a", 2)], 1)
    with pytest.raises(PairingError, match="duplicate pairing_no"):
        dutch_pair([SwissPlayer("a", 1), SwissPlayer("b", 1)], 1)
    with pytest.raises(PairingError, match="colours"):
        dutch_pair([SwissPlayer("a", 1, colours=("x",)), SwissPlayer("b", 2)], 2)
    with pytest.raises(PairingError, match="round_no"):
        dutch_pair(fresh(4), 0)
    with pytest.raises(PairingError, match="at least 2"):
        dutch_pair(fresh(1), 1)
    with pytest.raises(PairingError, match="no legal pairing"):
        dutch_pair([SwissPlayer("a", 1, 1.0, ("b",), ("w",)), SwissPlayer("b", 2, 0.0, ("a",), ("b",))], 2)


def simulate(n_players: int, n_rounds: int, seed: int):
    """Run a whole Swiss event with seeded random results; return per-player history."""
    rng = random.Random(seed)
    state = {
        f"p{i:02d}": {"no": i, "score": 0.0, "opps": [], "cols": [], "bye": False, "floats": []}
        for i in range(1, n_players + 1)
    }
    rounds = []
    for r in range(1, n_rounds + 1):
        players = [
            SwissPlayer(
                id=pid, pairing_no=s["no"], score=s["score"], opponents=tuple(s["opps"]),
                colours=tuple(s["cols"]), had_bye=s["bye"], float_history=tuple(s["floats"]),
            )
            for pid, s in state.items()
        ]
        rnd = dutch_pair(players, r)
        rounds.append((players, rnd))
        paired = set()
        for w, b in rnd.boards:
            # stronger (lower number) player scores a bit more often
            edge = (state[b]["no"] - state[w]["no"]) / (4 * n_players)
            x = rng.random()
            pw = 1.0 if x < 0.4 + edge else 0.5 if x < 0.7 + edge else 0.0
            state[w]["score"] += pw
            state[b]["score"] += 1.0 - pw
            state[w]["opps"].append(b)
            state[b]["opps"].append(w)
            state[w]["cols"].append("w")
            state[b]["cols"].append("b")
            paired |= {w, b}
        if rnd.bye is not None:
            state[rnd.bye]["score"] += 1.0
            state[rnd.bye]["cols"].append("-")
            state[rnd.bye]["bye"] = True
            paired.add(rnd.bye)
        assert paired == set(state), f"round {r}: not everyone placed"
        for pid in state:
            state[pid]["floats"].append(rnd.floats.get(pid, ""))
    return state, rounds


@pytest.mark.parametrize("n_players,seed", [(30, 20240611), (30, 7), (29, 11)])
def test_generated_event_no_rematch_and_colour_rules(n_players, seed):
    state, rounds = simulate(n_players, 9, seed)
    games = Counter(
        frozenset(pair) for _, rnd in rounds for pair in rnd.boards
    )
    assert max(games.values()) == 1, "rematch"
    assert sum(games.values()) == 9 * (n_players // 2)
    for pid, s in state.items():
        played = [c for c in s["cols"] if c != "-"]
        run = "".join(played)
        assert "www" not in run and "bbb" not in run, (pid, run)
        assert abs(played.count("w") - played.count("b")) <= 2, (pid, run)
    byes = [rnd.bye for _, rnd in rounds if rnd.bye]
    assert len(byes) == (9 if n_players % 2 else 0)
    assert len(set(byes)) == len(byes), "a player got a second bye"
    for players, rnd in rounds:
        if rnd.bye:
            bye_player = next(p for p in players if p.id == rnd.bye)
            assert bye_player.score == min(p.score for p in players if not p.had_bye)


def test_generated_event_boards_ordered_and_score_groups_respected():
    _, rounds = simulate(30, 9, 3)
    for players, rnd in rounds:
        by = {p.id: p for p in players}
        keys = [(-max(by[w].score, by[b].score), min(by[w].pairing_no, by[b].pairing_no)) for w, b in rnd.boards]
        assert keys == sorted(keys)
        # pairs inside one score group are the norm; floats are recorded symmetrically
        assert Counter(rnd.floats.values())["d"] == Counter(rnd.floats.values())["u"]
        for w, b in rnd.boards:
            assert (by[w].score == by[b].score) == (w not in rnd.floats)


def test_dutch_round2_after_top_wins():
    # round 1: 1-5, 6-2, 3-7, 8-4; all higher-ranked players win.
    hist = {
        1: (1.0, ("p5",), ("w",)), 2: (1.0, ("p6",), ("b",)), 3: (1.0, ("p7",), ("w",)),
        4: (1.0, ("p8",), ("b",)), 5: (0.0, ("p1",), ("b",)), 6: (0.0, ("p2",), ("w",)),
        7: (0.0, ("p3",), ("b",)), 8: (0.0, ("p4",), ("w",)),
    }
    players = [SwissPlayer(f"p{i}", i, s, o, c) for i, (s, o, c) in hist.items()]
    rnd = dutch_pair(players, 2)
    # score group 1: S1 = 1,2 S2 = 3,4 -> 1-3, 2-4; 1 and 3 both want black after white: colour
    # cannot be met for both; Dutch first tries transposition 1-4, 2-3 which satisfies all
    # colour preferences (4 and 2 had black).  Same in the 0 group: 5-8? 5,6 / 7,8 -> 5-7, 6-8
    # both conflict, transposition 5-8, 6-7 satisfies everyone.
    assert rnd.boards == [("p4", "p1"), ("p2", "p3"), ("p5", "p8"), ("p7", "p6")]


def test_lone_leader_floats_to_next_group_not_further():
    # A alone on 2 points, B and C on 1, D on 0.  Either way two pairs cross a boundary, but the
    # down-floater must meet the next score group (C.04.3: minimise score differences), and
    # the highest ranked there (S2 of the heterogeneous bracket starts with B).
    players = [
        SwissPlayer("A", 4, 2.0), SwissPlayer("B", 1, 1.0),
        SwissPlayer("C", 2, 1.0), SwissPlayer("D", 3, 0.0),
    ]
    rnd = dutch_pair(players, 3)
    assert {frozenset(b) for b in rnd.boards} == {frozenset("AB"), frozenset("CD")}
    assert rnd.floats == {"A": "d", "B": "u", "C": "d", "D": "u"}
