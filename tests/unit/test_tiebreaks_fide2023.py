"""FIDE C.07 (2023) tie-breaks, Go and xiangqi 1999 orders on small hand-worked examples."""
from __future__ import annotations

import pytest

from services.standings.core import (
    RULESETS, Bye, GameResult, Player, StandingsError, compute_standings,
    default_ruleset, dp, xiangqi_standings,
)

# Swiss, 4 players, 3 rounds, with unplayed rounds (C.07 art. 16):
#   R1: A 1-0 B,  C +- D (C forfeit win, D forfeit loss = VUR)
#   R2: A 1/2 C,  B pairing-allocated bye (1 point, not a VUR),  D absent (VUR)
#   R3: B 1-0 C,  A 1/2 D
# scores: A 1+.5+.5 = 2.0, B 0+1+1 = 2.0, C 1+.5+0 = 1.5, D 0+0+.5 = 0.5
# score as an opponent (up to the last non-VUR round, then .5 per round): D's last non-VUR round
#   is R3, so 0.5; all others their real score.
SW_PLAYERS = [Player("A", "A", 2100), Player("B", "B", 1900), Player("C", "C", 1800), Player("D", "D")]
SW_GAMES = [GameResult(1, "A", "B", "1-0"), GameResult(1, "C", "D", "+-"),
            GameResult(2, "A", "C", "1/2-1/2"),
            GameResult(3, "B", "C", "1-0"), GameResult(3, "A", "D", "1/2-1/2")]
SW_BYES = [Bye(2, "B", 1.0)]


def sw(order, **kw):
    return compute_standings(SW_PLAYERS, SW_GAMES, SW_BYES, order, **kw)


def test_buchholz_family_with_dummy_opponents():
    st = sw(("BH", "BH-C1", "BH-M1", "BH-C2", "SB", "KS"))
    tb = {r.id: r.tiebreaks for r in st.rows}
    assert {r.id: r.score for r in st.rows} == {"A": 2.0, "B": 2.0, "C": 1.5, "D": 0.5}
    # BH: A = B 2.0 + C 1.5 + D 0.5 = 4.0
    #     B = A 2.0 + dummy(own 2.0, R2 bye) + C 1.5 = 5.5
    #     C = dummy(own 1.5, R1 forfeit win) + A 2.0 + B 2.0 = 5.5
    #     D = dummy .5 (VUR R1) + dummy .5 (VUR R2) + A 2.0 = 3.0
    assert [tb[x]["BH"] for x in "ABCD"] == [4.0, 5.5, 5.5, 3.0]
    # BH-C1: A 4.0-.5 = 3.5, B 5.5-1.5 = 4.0, C 5.5-1.5 = 4.0 (a forfeit win is no VUR: lowest cut),
    #        D: a VUR is cut first: 3.0-.5 = 2.5
    assert [tb[x]["BH-C1"] for x in "ABCD"] == [3.5, 4.0, 4.0, 2.5]
    # BH-M1 (also drop the highest): A 3.5-2.0 = 1.5, B 4.0-2.0 = 2.0, C 2.0, D 2.5-2.0 = 0.5
    assert [tb[x]["BH-M1"] for x in "ABCD"] == [1.5, 2.0, 2.0, 0.5]
    # BH-C2: A 2.0 (keeps B), B 2.0, C 2.0, D: both VURs cut -> 2.0
    assert [tb[x]["BH-C2"] for x in "ABCD"] == [2.0, 2.0, 2.0, 2.0]
    # SB: A = 1x2.0 + .5x1.5 + .5x.5 = 3.0;  B = 0xA + 1x2.0 (dummy) + 1x1.5 = 3.5
    #     C = 1x1.5 (dummy) + .5x2.0 + 0 = 2.5;  D = 0 + 0 + .5x2.0 = 1.0
    assert [tb[x]["SB"] for x in "ABCD"] == [3.0, 3.5, 2.5, 1.0]
    # KS, limit 3/2 = 1.5 (opponents A 2.0, B 2.0, C 1.5; dummies with the player's score):
    #   A: B 1 + C .5 = 1.5;  B: A 0 + dummy(2.0) 1 + C 1 = 2.0;  C: dummy(1.5) 1 + A .5 + B 0 = 1.5
    #   D: dummies (.5) no, A .5 -> .5
    assert [tb[x]["KS"] for x in "ABCD"] == [1.5, 2.0, 1.5, 0.5]
    # A and B tied on 2.0: BH decides for B
    assert [(r.rank, r.id) for r in st.rows] == [(1, "B"), (2, "A"), (3, "C"), (4, "D")]


def test_unplayed_none_uses_real_opponents_only():
    st = sw(("BH", "SB"), unplayed="none")
    tb = {r.id: r.tiebreaks for r in st.rows}
    # BH: A 2.0+1.5+.5 = 4.0; B = A 2.0 + C 1.5 = 3.5 (bye nothing); C = D .5 + A 2.0 + B 2.0 = 4.5;
    #     D = C 1.5 + A 2.0 = 3.5
    assert [tb[x]["BH"] for x in "ABCD"] == [4.0, 3.5, 4.5, 3.5]
    # SB: C = 1xD .5 + .5x2.0 = 1.5;  B = 1xC 1.5 = 1.5
    assert tb["C"]["SB"] == 1.5 and tb["B"]["SB"] == 1.5


def test_own_points_and_counts():
    st = sw(("WIN", "WON", "BPG", "BWG", "PS", "PS-C1"))
    tb = {r.id: r.tiebreaks for r in st.rows}
    assert (tb["B"]["WIN"], tb["B"]["WON"]) == (2, 1)  # bye counts for WIN (7.1) not WON (7.2)
    assert (tb["C"]["WIN"], tb["C"]["WON"]) == (1, 0)  # forfeit win
    # black over the board: B in R1; C in R2 (vs A) and R3 (vs B); D in R3
    assert (tb["B"]["BPG"], tb["C"]["BPG"], tb["D"]["BPG"]) == (1, 2, 1)
    assert tb["B"]["BWG"] == 0 and tb["D"]["BWG"] == 0
    # PS: A running 1, 1.5, 2.0 = 4.5 (PS-C1 drops round 1: 3.5); B 0, 1, 2 = 3.0 (3.0)
    #     C 1, 1.5, 1.5 = 4.0 (3.0); D 0, 0, .5 = .5 (.5)
    assert [tb[x]["PS"] for x in "ABCD"] == [4.5, 3.0, 4.0, 0.5]
    assert [tb[x]["PS-C1"] for x in "ABCD"] == [3.5, 3.0, 3.0, 0.5]


def test_rating_tiebreaks_aro_tpr():
    st = sw(("ARO", "ARO-C1", "TPR"))
    tb = {r.id: r.tiebreaks for r in st.rows}
    # ARO over the board, unrated D left out: A = (1900 + 1800) / 2 = 1850; ARO-C1 drops 1800 -> 1900
    # B = (2100 + 1800) / 2 = 1950 (bye left out); C = (2100 + 1900) / 2 = 2000 (forfeit left out)
    assert [tb[x]["ARO"] for x in "ABC"] == [1850, 1950, 2000] and tb["A"]["ARO-C1"] == 1900
    # TPR = ARO + dp(p): A p = 1.5/2 = .75 -> 193 -> 2043;  B 1/2 -> 0 -> 1950;  C .5/2 = .25 -> -193 -> 1807
    assert [tb[x]["TPR"] for x in "ABC"] == [2043, 1950, 1807]
    # unrated counted at 1400: A ARO (1900+1800+1400)/3 = 1700, p = 2/3 = .67 -> 125 -> 1825
    assert sw(("ARO", "TPR"), unrated_rating=1400).row("A").tiebreaks == {"ARO": 1700, "TPR": 1825}


def test_dp_table():
    assert (dp(1.0), dp(0.0), dp(0.5), dp(0.75), dp(0.25)) == (800, -800, 0, 193, -193)
    assert dp(2 / 3) == 125 and dp(0.335) == -117  # .335 -> .34 -> -dp(.66)
    with pytest.raises(StandingsError):
        dp(1.5)


def test_withdrawn_opponent_counts_draws_and_vur_cut_first():
    # P, Q, W, X; 3 rounds. W withdraws after round 1.
    #   R1: W 1-0 P, Q 1-0 X;  R2: P 1-0 Q, X bye (1);  R3: P 1-0 X, Q half-point bye (VUR)
    # scores: W 1.0, P 2.0, Q 1.5, X 1.0
    # as an opponent: W = 1.0 + .5 x 2 (rounds after his last non-VUR round) = 2.0;
    #   Q's VUR is his last round: 1.0 (up to R2) + .5 = 1.5 (= his score)
    players = [Player(x, x) for x in "PQWX"]
    games = [GameResult(1, "W", "P", "1-0"), GameResult(1, "Q", "X", "1-0"),
             GameResult(2, "P", "Q", "1-0"), GameResult(3, "P", "X", "1-0")]
    byes = [Bye(2, "X", 1.0), Bye(3, "Q", 0.5)]
    st = compute_standings(players, games, byes, ("BH", "BH-C1"))
    # BH(P) = W 2.0 + Q 1.5 + X 1.0 = 4.5;  BH(Q) = X 1.0 + P 2.0 + dummy 1.5 = 4.5
    # BH-C1(Q): the VUR dummy (1.5) is cut before the lower real X 1.0 -> 3.0
    # BH(W) = P 2.0 + dummies 1.0 + 1.0 (absent R2, R3) = 4.0
    assert st.row("P").tiebreaks["BH"] == 4.5 and st.row("Q").tiebreaks == {"BH": 4.5, "BH-C1": 3.0}
    assert st.row("W").tiebreaks["BH"] == 4.0
    # 2009 rule: opponents' unplayed rounds are draws: W 1+.5+.5 = 2.0, Q 1+0+.5 = 1.5, X 0+.5+0 = .5
    #   BH(P) = 2.0 + 1.5 + .5 = 4.0;  Q's own R3: virtual = 1.0 before + (1 - .5) + 0 = 1.5
    #   BH(Q) = X .5 + P 2.0 + 1.5 = 4.0
    old = compute_standings(players, games, byes, ("BH",), unplayed="fide2009")
    assert old.row("P").tiebreaks["BH"] == 4.0 and old.row("Q").tiebreaks["BH"] == 4.0


def test_go_mcmahon_sos_sosos_sodos():
    # initial McMahon scores G1 2, G2 1, G3 1, G4 0;  R1: G1 beats G2, G3 beats G4;  R2: G1 beats G4, G2 beats G3
    # points G1 2, G2 1, G3 1, G4 0 -> MMS G1 4, G2 2, G3 2, G4 0
    # SOS (MMS): G1 = G2 2 + G4 0 = 2; G2 = G1 4 + G3 2 = 6; G3 = G4 0 + G2 2 = 2; G4 = G3 2 + G1 4 = 6
    # SOSOS: G1 = 6 + 6 = 12; G2 = 2 + 2 = 4; G3 = 6 + 6 = 12; G4 = 2 + 2 = 4
    # SODOS: G1 = G2 2 + G4 0 = 2; G2 = G3 2; G3 = G4 0; G4 = 0
    players = [Player(f"G{i}", f"G{i}") for i in range(1, 5)]
    games = [GameResult(1, "G1", "G2", "1-0"), GameResult(1, "G3", "G4", "1-0"),
             GameResult(2, "G1", "G4", "1-0"), GameResult(2, "G2", "G3", "1-0")]
    mm = {"G1": 2, "G2": 1, "G3": 1, "G4": 0}
    st = compute_standings(players, games, order=("MMS", "SOS", "SOSOS", "SODOS"), mcmahon=mm)
    tb = {r.id: r.tiebreaks for r in st.rows}
    assert [tb[g]["MMS"] for g in ("G1", "G2", "G3", "G4")] == [4, 2, 2, 0]
    assert [tb[g]["SOS"] for g in ("G1", "G2", "G3", "G4")] == [2, 6, 2, 6]
    assert [tb[g]["SOSOS"] for g in ("G1", "G2", "G3", "G4")] == [12, 4, 12, 4]
    assert [tb[g]["SODOS"] for g in ("G1", "G2", "G3", "G4")] == [2, 2, 0, 0]
    assert [(r.rank, r.id) for r in st.rows] == [(1, "G1"), (2, "G2"), (3, "G3"), (4, "G4")]
    # without McMahon scores SOS sums points: G2 = G1 2 + G3 1 = 3
    assert compute_standings(players, games, order=("SOS",)).row("G2").tiebreaks["SOS"] == 3


# xiangqi round robin, all six games drawn: everyone 1.5, SB 4 x .5 x 1.5 ... = 2.25, WIN 0, DE 1.5
XQ = [Player(x, x) for x in "XYZW"]
XQ_GAMES = [GameResult(r, a, b, "1/2-1/2") for r, a, b in
            [(1, "X", "Y"), (1, "Z", "W"), (2, "X", "Z"), (2, "Y", "W"), (3, "X", "W"), (3, "Y", "Z")]]


def test_xiangqi_round_robin_fouls_and_penalties():
    st = xiangqi_standings(XQ, XQ_GAMES, system="round_robin", fouls={"X": 2, "Z": 1, "W": 1})
    assert st.order == ("SB", "WIN", "DE", "FOULS")
    assert all(r.tiebreaks["SB"] == 2.25 and r.tiebreaks["DE"] == 1.5 for r in st.rows)
    # 犯规: fewer fouls ranks higher; Z and W equal -> shared
    assert [(r.rank, r.id) for r in st.rows] == [(1, "Y"), (2, "Z"), (2, "W"), (4, "X")]
    # 18.4: Y warned once -> last among the equal scores, before any tie-break
    st = xiangqi_standings(XQ, XQ_GAMES, system="round_robin", fouls={"X": 2, "Z": 1, "W": 1},
                           penalties={"Y": (1, 0)})
    assert st.order[0] == "PEN"
    assert [(r.rank, r.id) for r in st.rows] == [(1, "Z"), (1, "W"), (3, "X"), (4, "Y")]
    # a disqualification (18.2) weighs more than warnings
    st = xiangqi_standings(XQ, XQ_GAMES, penalties={"Y": (3, 0), "X": (0, 1)})
    assert [r.id for r in st.rows][-2:] == ["Y", "X"]


def test_xiangqi_swiss_uses_real_opponents():
    # 对手分 with real opponents (forfeit +: 1 point, 21.4): A 4.0 > B 3.5 (see test_unplayed_none)
    st = xiangqi_standings(SW_PLAYERS, SW_GAMES, SW_BYES, system="swiss")
    assert st.order == ("BH", "WIN", "FOULS")
    assert [(r.id, r.tiebreaks["BH"]) for r in st.rows[:2]] == [("A", 4.0), ("B", 3.5)]


def test_code_validation():
    with pytest.raises(StandingsError, match="unknown tie-break 'BH-C3'"):
        sw(("BH-C3",))
    with pytest.raises(StandingsError, match="unplayed"):
        sw(("BH",), unplayed="2017")


def test_forfeit_draw_rule():
    st = sw(("BH", "SB", "WIN", "SNO"), unplayed="forfeit-draw")
    tb = {r.id: r.tiebreaks for r in st.rows}
    # scores others see (forfeits and byes of 1/2 or 1 point count 1/2, absences 0):
    #   A 2.0 (all played);  B 0 + bye .5 + 1 = 1.5;  C forfeit .5 + .5 + 0 = 1.0;
    #   D forfeit .5 + absent 0 + .5 = 1.0
    # BH: A = B 1.5 + C 1.0 + D 1.0 = 3.5
    #     B = A 2.0 + C 1.0, bye: their average 1.5 -> 4.5
    #     C = D seen by C (his forfeit to C keeps its 0: 1.0 - .5 + 0 = .5) + A 2.0 + B 1.5 = 4.0
    #     D = C seen by D (1.0 - .5 + 1 = 1.5) + A 2.0, absent R2: average 1.75 -> 5.25
    assert [tb[x]["BH"] for x in "ABCD"] == [3.5, 4.5, 4.0, 5.25]
    # SB: A = 1x1.5 + .5x1.0 + .5x1.0 = 2.5;  B = 0x2.0 + 1x1.0 + bye 1x1.5 = 2.5
    #     C = forfeit win 1/2 x .5 + .5x2.0 + 0 = 1.25;  D = forfeit loss 0 + absent 0 + .5x2.0 = 1.0
    assert [tb[x]["SB"] for x in "ABCD"] == [2.5, 2.5, 1.25, 1.0]
    assert [(r.rank, r.id) for r in st.rows] == [(1, "B"), (2, "A"), (3, "C"), (4, "D")]


def test_start_number_separates_and_unranked_players_come_last():
    # A and B tie on 2.0: without a tie-break they share rank 1; SNO (the input position when no
    # number is given: A 1, B 2) separates them; with start numbers A 7, B 3, B goes first
    assert [(r.rank, r.id) for r in sw(()).rows[:2]] == [(1, "A"), (1, "B")]
    assert [(r.rank, r.id) for r in sw(("SNO",)).rows[:2]] == [(1, "A"), (2, "B")]
    numbered = [Player("A", "A", 2100, 7), Player("B", "B", 1900, 3), *SW_PLAYERS[2:]]
    st = compute_standings(numbered, SW_GAMES, SW_BYES, ("SNO",))
    assert [(r.id, r.tiebreaks["SNO"]) for r in st.rows[:2]] == [("B", 3.0), ("A", 7.0)]
    # unranked A: rank 0 after all others, still counted in B's Buchholz (2023 rule, see above:
    # B = A 2.0 + dummy 2.0 + C 1.5 = 5.5)
    st = sw(("BH",), unranked={"A"})
    assert [(r.rank, r.id) for r in st.rows] == [(1, "B"), (2, "C"), (3, "D"), (0, "A")]
    assert st.row("B").tiebreaks["BH"] == 5.5 and st.row("A").tiebreaks["BH"] == 4.0
    with pytest.raises(StandingsError, match="unranked: unknown player 'Q'"):
        sw(("BH",), unranked={"Q"})


def test_rulesets_and_xiangqi_defaults():
    # 1999 art. 15.1 (一局循环制): 小分 SB, 胜局 WIN, 直胜 DE, 犯规 FOULS; 15.2 (积分编排制):
    # 对手分 BH, 胜局 WIN, 犯规 FOULS; real opponents (21.4 forfeits + = 1, - = 0)
    rr, swiss = default_ruleset("xiangqi", "round-robin"), default_ruleset("xiangqi", "chinese-swiss")
    assert (rr.order, rr.unplayed) == (("SB", "WIN", "DE", "FOULS"), "none")
    assert (swiss.order, swiss.unplayed) == (("BH", "WIN", "FOULS"), "none")
    assert default_ruleset("xiangqi", "double-round-robin") is rr
    assert default_ruleset("xiangqi", "swiss") is swiss
    assert default_ruleset("chess", "swiss") is None and default_ruleset("xiangqi", "knockout") is None
    # the ruleset gives the same standings as xiangqi_standings
    st = compute_standings(SW_PLAYERS, SW_GAMES, SW_BYES, swiss.order, unplayed=swiss.unplayed)
    assert st.rows == xiangqi_standings(SW_PLAYERS, SW_GAMES, SW_BYES, system="swiss").rows
    assert RULESETS["forfeit-draw-2005"].order == ("BH", "SB", "WIN", "SNO")
