"""check_pairings on the real TRFs of ../shared/data (the FIDE endorsement-style test) and a
cross-check of the chosen Dutch engine (py4swiss) against our first Dutch on generated events."""
from __future__ import annotations

import random

import pytest

from services.pairing.check import check_pairings
from services.pairing.core import SwissPlayer, dutch_pair
from services.pairing.dutch import DutchPlayer, pair_dutch
from shared.domain.trf import RoundEntry

# Rounds reproduced exactly (pairs, colours and bye), measured 2026-12 with py4swiss 0.3.1 and
# the 2025 amendments (services.pairing.dutch2025).
# The lichess files are re-paired with lila's 2020 pairing numbers (check.lichess_order: the
# ranking before each round by points, Sonneborn-Berger, performance), not the export's start
# numbers (with those: Mai {5, 7, 8, 9, 10}, Zulfikar {18}); docs/pairing-comparison.md.
MATCHED = {
    # Karl-Mala 2005: paired in 2005 under the pre-2013 Dutch rules by another program. Round
    # 1 already differs: 282 players present (276 entered late, 284 is the "spielfrei" dummy),
    # C.04.3 gives 1-142, 2-143, ...; the record has 1-141, 3-143, 5-145 (another split and
    # colour scheme). Later rounds inherit the different history; only round 5 coincides.
    "data/chess/trf/karl-mala-gedenkturnier-2005-frankfurt.trf": {5},
    # lichess Mai 5+0 (2020-05-29): the export has no ratings, and lila's order before round 1
    # is by rating and within equal points and SB by performance (opponents' ratings): rounds
    # 1-3 depend on the lost ratings (round 1 bye: 12 recorded, 13 ours; round 3 only the
    # colours of 7-13 differ); rounds 4-10 are reproduced exactly.
    "data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf": {4, 5, 6, 7, 8, 9, 10},
    # lichess Zulfikar Sali bullet (2020-05-10): paired by lila's first Swiss version, which
    # numbered players in join order (SwissPlayer.Number), not exported: round 1 pairs 4-5 and
    # round 2 pairs 2-3 (adjacent in rating and in ranking order, 46 players on 1 point), which
    # no Dutch pairing does from those orders; only round 18 coincides (round 17 did under the
    # text of 2017 that lila's bbpPairings applied in 2020; the 2025 text gives the bye to 76,
    # not 110, and pairs 50-101, 73-110, 89-66 instead of 50-73, 66-101, 76-89).
    "data/chess/trf/lichess-swiss-zulfikar-sali-bullet-2020-05-10.trf": {18},
}


@pytest.mark.parametrize("rel", sorted(MATCHED))
def test_check_pairings_real_files(shared_data, rel):
    rep = check_pairings(shared_data(rel))
    assert rep["system"] == "dutch" and rep["file"].endswith(rel.rsplit("/", 1)[1])
    assert rep["pairing_numbers"] == ("lichess-2020-ranking" if "lichess" in rel
                                      else "start-number")
    matched = {r["round"] for r in rep["rounds"] if r["matched"]}
    assert matched == MATCHED[rel]
    assert rep["matched_all"] is False
    for r in rep["rounds"]:
        assert "error" not in r
        # same players paired as in the record (absences, withdrawals, byes handled)
        ids = lambda pairs, bye: sorted([x for p in pairs for x in p] + ([bye] if bye else []))
        assert ids(r["ours"], r["our_bye"]) == ids(r["official"], r["official_bye"]), r["round"]


def test_check_pairings_round_detail(shared_data):
    rep = check_pairings(shared_data("data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf"))
    r5 = rep["rounds"][4]
    assert r5["round"] == 5 and r5["matched"]
    assert r5["official"] == r5["ours"] and r5["official_bye"] == r5["our_bye"]
    r1 = rep["rounds"][0]
    assert (r1["official_bye"], r1["our_bye"]) == (12, 13)  # lowest in the initial order
    r3 = rep["rounds"][2]  # the same boards, only the colours of 7-13 differ
    assert not r3["matched"] and [13, 7] in r3["official"] and [7, 13] in r3["ours"]
    assert {frozenset(p) for p in r3["official"]} == {frozenset(p) for p in r3["ours"]}


_LICHESS = """012 Worked example
022 https://lichess.org/swiss/abcdefgh
032 Lichess
XXR 3
XXC white1
001    1      a                                 2000                             1.0          3 w 1
001    2      b                                 1900                             0.5          4 b =
001    3      c                                 1800                             0.0          1 b 0
001    4      d                                 1700                             0.5          2 w =
"""


def test_lichess_order_worked_example(tmp_path):
    """lila 2020 score = points*10^7 + SB*10^4 + performance (Swiss.makeScore, SwissScoring).
    Before round 2: a 1 pt, SB 0 (beat c, 0 pts), perf 1800+500 = 2300 -> 10,002,300;
    d 0.5, SB 0.5*0.5 = 0.25 -> 2,500, perf 1900 -> 5,004,400; b 0.5, SB 0.25 -> 2,500,
    perf 1700 -> 5,004,200; c 0, perf 2000-500 = 1500 -> 1,500.  Round 1: rating order."""
    from services.pairing.check import is_lichess, lichess_order
    from shared.domain.trf import read_trf
    f = tmp_path / "lichess.trf"
    f.write_text(_LICHESS)
    t = read_trf(f)
    assert is_lichess(t)
    assert lichess_order(t, 1) == [1, 2, 3, 4]
    assert lichess_order(t, 2) == [1, 4, 2, 3]
    f.write_text(_LICHESS.replace("022 https://lichess.org/swiss/abcdefgh\n032 Lichess\n", ""))
    assert not is_lichess(read_trf(f))


# ------------------------------------------------------------------ cross-check, generated
def _swiss_players(hist: dict[int, list]) -> list[SwissPlayer]:
    out = []
    for n, h in hist.items():
        out.append(SwissPlayer(
            id=str(n), pairing_no=n, score=sum(e.points for e in h),
            opponents=tuple(str(e.opponent) for e in h if e.played),
            colours=tuple(e.colour if e.played else "-" for e in h),
            had_bye=any(e.opponent is None and e.result == "U" for e in h)))
    return out


def _check_legal(hist, boards, bye, rnd, rounds):
    seen = [int(x) for b in boards for x in b] + ([int(bye)] if bye else [])
    assert sorted(seen) == sorted(hist), "everyone paired exactly once"
    assert (bye is not None) == (len(hist) % 2 == 1)
    if bye:
        assert not any(e.result == "U" for e in hist[int(bye)]), "second bye"
    for w, b in boards:
        w, b = int(w), int(b)
        assert all(e.opponent != b for e in hist[w] if e.played), "rematch"
        if rnd < rounds:  # top-scorer exceptions only in the last round (C.04.3 A.7)
            for p, c in ((w, "w"), (b, "b")):
                cols = [e.colour for e in hist[p] if e.played] + [c]
                assert cols[-3:] != [c, c, c], f"third {c} in a row for {p}"
                assert abs(cols.count("w") - cols.count("b")) <= 2


def test_cross_check_generated_events():
    """py4swiss and our first Dutch both pair legally; agreement rate is recorded."""
    agree = total = 0
    for seed in range(6):
        rng = random.Random(seed)
        n, rounds = rng.choice([11, 16, 20, 25]), 7
        hist = {i: [] for i in range(1, n + 1)}
        for rnd in range(1, rounds + 1):
            ref = pair_dutch([DutchPlayer(i, tuple(h)) for i, h in hist.items()], rnd, rounds)
            ours = dutch_pair(_swiss_players(hist), rnd)
            _check_legal(hist, ref.boards, ref.bye, rnd, rounds)
            _check_legal(hist, ours.boards, ours.bye, rnd, rounds)
            total += 1
            agree += (set(ref.boards), ref.bye) == (set(ours.boards), ours.bye)
            for w, b in ref.boards:  # the tournament continues with the reference pairing
                res = rng.choice("10=")
                hist[int(w)].append(RoundEntry(int(b), "w", res))
                hist[int(b)].append(RoundEntry(int(w), "b", {"1": "0", "0": "1", "=": "="}[res]))
            if ref.bye:
                hist[int(ref.bye)].append(RoundEntry(None, "-", "U"))
    print(f"py4swiss vs first Dutch: {agree}/{total} rounds identical")
    # measured (18 with py4swiss's 2017 rules, 16 with the 2025 amendments); a change in
    # either engine shows here
    assert (total, agree) == (42, 16)


# ------------------------------------------------------------------ initial colour without XXC
_FF = """012 Test
XXR 2
001    1      A                                 2000                             2.0          3 - +     2 b 1
001    2      B                                 1900                             1.0          4 b 1     1 w 0
001    3      C                                 1800                             0.5          1 - -     4 w =
001    4      D                                 1700                             0.5          2 w 0     3 b =
"""


def test_initial_colour_skips_a_forfeit_on_board_1(tmp_path):
    """Round 1 board 1 (1-3) was forfeited, so it shows no colour; board 2 is 2 (black) - 4.
    C.04.3 round 1: the higher player of board 2 has the opposite of the initial colour, so
    the initial colour is white and our round 1 (1-3, 4-2) equals the record. The old guess
    (the lowest number with a colour: 2, black) made round 1 DIFFER."""
    from services.pairing.check import initial_colour
    from shared.domain.trf import parse_trf
    f = tmp_path / "ff.trf"
    f.write_text(_FF)
    assert initial_colour(parse_trf(_FF)) is True
    rep = check_pairings(f)
    assert [r["matched"] for r in rep["rounds"]] == [True, True]
    assert rep["rounds"][0]["ours"] == [[1, 3], [4, 2]]
    # the same record under black1 colours (every colour swapped): inferred black, still matched
    swapped = _FF.replace(" b ", " x ").replace(" w ", " b ").replace(" x ", " w ")
    assert initial_colour(parse_trf(swapped)) is False
    f.write_text(swapped)
    assert check_pairings(f)["matched_all"]
    # an XXC line decides by itself
    assert initial_colour(parse_trf("XXC black1\n" + _FF)) is False
