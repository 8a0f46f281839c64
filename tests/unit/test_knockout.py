"""Knockout brackets, two-game matches and play-offs (shared.domain.knockout)."""
from __future__ import annotations

import pytest

from services.pairing.core import PairingError
from shared.domain.knockout import (
    KnockoutMatch, bracket_order, first_round, match_games, match_winner, next_round, playoff_groups,
)


def test_bracket_order_keeps_the_top_seeds_apart():
    assert bracket_order(2) == [1, 2]
    assert bracket_order(4) == [1, 4, 2, 3]
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    with pytest.raises(PairingError):
        bracket_order(12)


def test_six_players_give_byes_to_seeds_1_and_2():
    seeds = ["s1", "s2", "s3", "s4", "s5", "s6"]
    r1 = first_round(seeds)
    assert r1 == [KnockoutMatch("s1", None), KnockoutMatch("s4", "s5"),
                  KnockoutMatch("s2", None), KnockoutMatch("s3", "s6")]
    # semi-finals: s1 v winner(s4-s5), s2 v winner(s3-s6); s1 and s2 only meet in the final
    assert next_round(["s1", "s5", "s2", "s3"]) == [KnockoutMatch("s1", "s5"), KnockoutMatch("s2", "s3")]
    with pytest.raises(PairingError):
        next_round(["s1", "s2", "s3"])


def test_two_game_match_swaps_colours_and_level_points_need_a_playoff():
    m = KnockoutMatch("a", "b")
    g = match_games(m, 2, seed=2001)
    assert g[1] == (g[0][1], g[0][0])  # art. 13.5: second game with colours swapped
    assert match_games(m, 2, seed=2001) == g  # the lot is re-derivable from the seed
    lots = {match_games(m, 2, seed=s)[0] for s in range(20)}
    assert lots == {("a", "b"), ("b", "a")}  # the lot does decide game 1's colours
    (w1, b1), (w2, b2) = g
    assert match_winner(m, [(w1, b1, "1-0"), (w2, b2, "1/2-1/2")]) == w1
    assert match_winner(m, [(w1, b1, "1-0"), (w2, b2, "1-0")]) is None  # 1-1: play-off (15.6)
    assert match_winner(KnockoutMatch("a", None), []) == "a"
    with pytest.raises(PairingError):
        match_winner(m, [("a", "c", "1-0")])


def test_playoff_groups_for_places_that_may_not_be_shared():
    rows = [("x", 1), ("y", 1), ("z", 3), ("u", 4), ("v", 4), ("w", 4)]
    assert playoff_groups(rows, {1}) == [["x", "y"]]
    assert playoff_groups(rows, {1, 5}) == [["x", "y"], ["u", "v", "w"]]  # 5th lies in 4-6
    assert playoff_groups(rows, {3}) == []


def test_double_elimination_nobody_is_out_before_two_losses():
    """8 players, the lower seed wins every match it can (the 'upset' script): every player but
    the champion loses exactly twice, nobody plays after a second loss, 2n - 2 matches plus the
    final's replay when the losers'-bracket player wins the first final."""
    from collections import Counter
    from shared.domain.knockout import double_elimination

    seeds = [f"s{i}" for i in range(1, 9)]
    rank = {s: i for i, s in enumerate(seeds)}
    champion, played = double_elimination(seeds, lambda m: max((m.a, m.b), key=rank.get))
    losses = Counter()
    for label, m in played:
        for p in (m.a, m.b):
            assert losses[p] < 2, f"{p} plays in {label} after two losses"
        w = max((m.a, m.b), key=rank.get)
        losses[m.a if w == m.b else m.b] += 1
    assert all(losses[p] == 2 for p in seeds if p != champion) and losses[champion] <= 1
    assert [lab for lab, _ in played].count("W1") == 4 and [lab for lab, _ in played][-1] in ("GF", "GF2")
    assert len(played) in (2 * 8 - 2, 2 * 8 - 1)
    # the top seeds win every match: seed 1 never loses, 14 matches, no replay
    champion, played = double_elimination(seeds, lambda m: min((m.a, m.b), key=rank.get))
    assert champion == "s1" and len(played) == 14


def test_bad_matches_and_results_are_refused():
    with pytest.raises(PairingError):
        KnockoutMatch("a", "a")
    with pytest.raises(PairingError):
        next_round([None, "a"])
    m = KnockoutMatch("a", "b")
    assert match_winner(m, [("a", "b", "+-")]) == "a"  # a forfeit win counts as a win
    assert match_winner(m, [("a", "b", "0-0")]) is None
    with pytest.raises(PairingError, match="unknown result"):
        match_winner(m, [("a", "b", "2-0")])


def _play(br, winner_of) -> list[set]:
    """Drive a bracket to its end: ``winner_of(round, pair)`` names each game's winner."""
    rounds = []
    rnd = 0
    while not br.finished:
        rnd += 1
        pairs, _ = br.next_round()
        rounds.append({frozenset(p) for p in pairs})
        br.add_round([(w, b, "1-0" if winner_of(rnd, {w, b}) == w else "0-1") for w, b in pairs])
    return rounds


def test_double_elimination_grand_final_with_and_without_reset():
    """Four players, one game a match. W1 s1-s4, s2-s3 (s1, s2 win); round 2: W2 s1-s2 (s1)
    and L1 s4-s3 (s3); round 3: L2 s3 v s2, W2's loser (s2 wins); round 4: GF s1 v s2, won
    by s2. Without reset s2 is champion after one final; with it (nobody out before a second
    loss) GF2 s2-s1 follows, won by s1 here. Places: L1's loser s4: 4 - 1 + 1 = 4, L2's loser
    s3: 4 - 2 + 1 = 3."""
    from shared.domain.knockout import DoubleElimination
    seeds = ["s1", "s2", "s3", "s4"]

    def upset(rnd, pair):
        if rnd == 4:
            return "s2"
        return min(pair)  # the better seed

    br = DoubleElimination(seeds, reset=False)
    rounds = _play(br, upset)
    assert rounds == [{frozenset(("s1", "s4")), frozenset(("s2", "s3"))},
                      {frozenset(("s1", "s2")), frozenset(("s3", "s4"))},
                      {frozenset(("s2", "s3"))}, {frozenset(("s1", "s2"))}]
    assert br.champion == "s2" and br.places() == {"s2": 1, "s1": 2, "s3": 3, "s4": 4}
    br = DoubleElimination(seeds)
    rounds = _play(br, lambda rnd, pair: "s2" if rnd == 4 else min(pair))
    assert len(rounds) == 5 and rounds[4] == {frozenset(("s1", "s2"))}
    assert br.champion == "s1" and br.places() == {"s1": 1, "s2": 2, "s3": 3, "s4": 4}
    with pytest.raises(PairingError, match="over"):
        br.next_round()


def test_double_elimination_byes_two_game_matches_and_a_fifth_place_playoff():
    """Six players in a bracket of 8: s1 and s2 have W1 byes, so L1 is two byes (s5, s6 pass).
    Two games a match (13.5). The better seed wins every game, except that s3-s6 of W1 is
    drawn twice (1-1) and s3 wins the play-off game (15.6): knockout round W1 takes three
    rounds of play. Place 5 may not be shared: the L2 losers s5 and s6 (who would share
    6 - 2 + 1 = 5) play a match for it, won by s6 (an upset)."""
    from shared.domain.knockout import DoubleElimination
    br = DoubleElimination([f"s{i}" for i in range(1, 7)], games=2, seed=7, unshared=(5,))
    pairs, decisions = br.next_round()
    assert {frozenset(p) for p in pairs} == {frozenset(("s4", "s5")), frozenset(("s3", "s6"))}
    assert sum("bye" in d for d in decisions) == 2
    rnd = 0
    while not br.finished:
        rnd += 1
        if rnd > 1:
            pairs, decisions = br.next_round()
        boards = []
        for w, b in pairs:
            if {w, b} == {"s3", "s6"} and rnd <= 2:
                res = "1/2-1/2"
            elif {w, b} == {"s5", "s6"}:
                res = "1-0" if w == "s6" else "0-1"
            else:
                res = "1-0" if int(w[1:]) < int(b[1:]) else "0-1"
            boards.append((w, b, res))
        if rnd == 3:
            assert [frozenset(p) for p in pairs] == [frozenset(("s3", "s6"))]
            assert "play-off game 3" in decisions[0]
        br.add_round(boards)
    assert br.champion == "s1"
    assert br.places() == {"s1": 1, "s2": 2, "s3": 3, "s4": 4, "s6": 5, "s5": 6}


def test_knockout_classification_playoffs_for_places_5_to_8_15_6():
    """Eight players, one game a match, places 3, 5 and 7 may not be shared (15.6: 应安排加赛).
    The better seed wins every game except that p8 beats p5 in the classification semi-final.
    Round 1: quarter-finals p1-p8 p4-p5 p2-p7 p3-p6. Round 2: semi-finals p1-p4, p2-p3 and
    the losers' classification semi-finals among p5..p8, seeded p5-p8, p6-p7. Round 3: the
    final p1-p2, third place p3-p4, fifth place p6-p8, seventh place p5-p7. Places 1..8:
    p1 p2 p3 p4 p6 p8 p5 p7."""
    from shared.domain.knockout import Bracket
    br = Bracket([f"p{i}" for i in range(1, 9)], unshared=(3, 5, 7))
    rounds, decisions = [], []
    rnd = 0
    while not br.finished:
        rnd += 1
        pairs, ds = br.next_round()
        rounds.append({frozenset(p) for p in pairs})
        decisions.append(ds)
        br.add_round([(w, b, ("1-0" if w == "p8" else "0-1") if {w, b} == {"p5", "p8"}
                       else "1-0" if int(w[1:]) < int(b[1:]) else "0-1") for w, b in pairs])
    f = lambda a, b: frozenset((a, b))  # noqa: E731
    assert rounds == [{f("p1", "p8"), f("p4", "p5"), f("p2", "p7"), f("p3", "p6")},
                      {f("p1", "p4"), f("p2", "p3"), f("p5", "p8"), f("p6", "p7")},
                      {f("p1", "p2"), f("p3", "p4"), f("p6", "p8"), f("p5", "p7")}]
    assert br.places() == {"p1": 1, "p2": 2, "p3": 3, "p4": 4, "p6": 5, "p8": 6, "p5": 7, "p7": 8}
    assert any(d.startswith("P5-8 R1M1 p5-p8") for d in decisions[1])
    assert any(d.startswith("P5-8 P7 F p5-p7") for d in decisions[2])
    assert any(d.startswith("P3 F p3-p4") for d in decisions[2])
    shared = Bracket([f"p{i}" for i in range(1, 9)], unshared=(5,))
    _play(shared, lambda rnd, pair: min(pair))
    assert sorted(shared.places().values()) == [1, 2, 3, 3, 5, 6, 7, 7]  # 3 and 7 stay shared
