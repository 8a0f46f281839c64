"""Go through the game service cores (validation, clock, adjudication, penalties).

The same synchronous :class:`Bus` as the chess and xiangqi tests: alice has the ``white`` seat,
bob the ``black`` seat, so in Go bob moves first. Articles: Chinese rules 1988 (chapter 3 is the
arbiter law of every Go game), Japanese rules 1989 for end of play and resumption.

The real game is ``maproom-gnugo3pt6.sgf`` (KGS 2005, 9x9, ``RU[Chinese] KM[0.50]``,
``RE[W+5.50]``, 58 stones then two passes, territory marked with TB/TW). Its marks make dead
the black group B1 C1 C2 C3 C4 C5 D1 D3 D5 and the black stone E2 (inside White's area), and the
white stones E8 and F7 (inside Black's). Chinese area counting (1988 art. 9), worked by hand:
Black has 17 live stones + 21 points of territory (TB, E8 and F7 included) = 38; White 25 live
stones + 18 points (TW, the ten dead black stones included) = 43, + komi 0.5 = 43.5; every one
of the 81 points is someone's (38 + 43 = 81, no dame). White wins by 43.5 - 38 = 5.5 = the
record's ``W+5.50``.
"""
from __future__ import annotations

import pytest

from contracts.messages import (
    AcceptDead, ClaimDraw, ClockStarted, DeadStonesProposed, DeadStonesRuled, FlagFell, GameCommandRejected,
    GameEnded, GameScored, IssuePenalty, MarkDead, MoveAccepted, MoveRejected, OfferDraw,
    PenaltyApplied, PlayResumed, RecordResult, RejectDead, Resign, RuleDeadStones, ScoringAgreed,
)
from shared.rules import go
from tests.unit.test_game_services import ALICE, ARBITER, BOB, S, Bus, of, one

REAL_9X9 = "data/go/sgf/gnugo-regression-kgs-2004-2005/maproom-gnugo3pt6.sgf"
WHITE_DEAD = ("C3", "E2", "E8", "F7")  # one stone of each dead group (see the module doc)
DEAD_ALL = ("B1", "C1", "C2", "C3", "C4", "C5", "D1", "D3", "D5", "E2", "E8", "F7")
C88 = "Chinese rules 1988"


def go_game(bus: Bus, **kw):
    kw.setdefault("time_control", "600+5")
    return bus.create(game="go", **kw)


def record_moves(shared_data) -> list[str]:
    """The record's moves as text: GTP for Black, SGF for White (both accepted), passes."""
    from shared.rules.sgf import read_sgf

    rec = read_sgf(shared_data(REAL_9X9).read_bytes())
    assert (rec.size, rec.rules, rec.komi, rec.result.raw) == (9, "chinese", 0.5, "W+5.50")
    return [go.to_gtp(p, 9) if c == "black" or p is None else go.to_sgf(p, 9)
            for c, p in rec.moves]


def mark(bus, who, dead, at):
    return bus.send(MarkDead(game_id="g1", player_id=who, dead=dead), at=at,
                    actor={"alice": ALICE, "bob": BOB}[who])


def dead_cmd(bus, cls, who, at):
    return bus.send(cls(game_id="g1", player_id=who), at=at, actor={"alice": ALICE, "bob": BOB}[who])


@pytest.fixture
def stopped(shared_data) -> Bus:
    """The real game played to its two final passes: play stopped, Black (bob) to move."""
    bus = Bus()
    gs = go_game(bus, board_size=9, go_rules="chinese", komi=0.5)[0].payload
    assert (gs.game, gs.board_size, gs.go_rules, gs.komi, gs.handicap) == ("go", 9, "chinese", 0.5, 0)
    assert gs.start_fen == "go 9 chinese black ko=- passes=0 prisoners=0,0 B: W:"
    got = bus.play(record_moves(shared_data), first="bob")
    acc = of(got, MoveAccepted)
    assert len(acc) == 60 and acc[0].uci == "G7" and acc[1].uci == "G3"  # gc, gg
    assert [a.status for a in acc[-3:]] == ["ongoing", "ongoing", "scoring"]  # art. 9-1
    assert not of(got, GameEnded)
    return bus


def test_the_real_9x9_game_counted_on_agreement(stopped):
    bus = stopped
    # play has stopped: a stone is refused, naming art. 9-1
    rej = one(bus.move("bob", "J9", at=100 * S), MoveRejected)
    assert rej.code == "play-stopped" and (rej.rule.ruleset, rej.rule.article) == (
        "Japanese rules 1989", "9-1")
    prop = one(mark(bus, "alice", WHITE_DEAD, 101 * S), DeadStonesProposed)
    assert prop.colour == "white" and prop.dead == DEAD_ALL and prop.ply == 60  # whole groups
    # the proposer cannot accept its own proposal
    assert one(dead_cmd(bus, AcceptDead, "alice", 102 * S), GameCommandRejected).code == "invalid"
    got = dead_cmd(bus, AcceptDead, "bob", 103 * S)
    agreed = one(got, ScoringAgreed)
    assert (agreed.proposed_by, agreed.colour, agreed.dead) == ("white", "black", DEAD_ALL)
    sc = one(got, GameScored)
    assert (sc.black, sc.white, sc.result, sc.komi, sc.how) == (38.0, 43.5, "W+5.5", 0.5, "agreement")
    assert sc.detail["stones.black"] == 17 and sc.detail["territory.white"] == 18
    end = one(got, GameEnded)
    assert (end.result, end.winner, end.reason, end.score) == ("1-0", "white", "counting", "W+5.5")
    assert (end.rule.ruleset, end.rule.article) == (C88, "9, 11")


def test_disputed_dead_stones_resume_play_then_the_arbiter_rules(stopped):
    bus = stopped
    mark(bus, "alice", WHITE_DEAD, 101 * S)
    # Black disputes: play resumes and White, the opponent of the asker, moves first (J89 9-3);
    # Black was to move, so its yielded turn is recorded as a pass that does not stop play
    got = dead_cmd(bus, RejectDead, "bob", 102 * S)
    res = one(got, PlayResumed)
    assert (res.colour, res.to_move) == ("black", "white")
    assert (res.rule.ruleset, res.rule.article) == (C88, "21.1, 21.3")
    yielded = one(got, MoveAccepted)
    assert (yielded.colour, yielded.uci, yielded.ply, yielded.status) == ("black", "pass", 61, "ongoing")
    assert one(bus.move("bob", "J9", at=103 * S), MoveRejected).code == "not-your-turn"
    assert one(bus.move("alice", "pass", at=104 * S), MoveAccepted).status == "ongoing"  # one pass
    assert one(bus.move("bob", "pass", at=105 * S), MoveAccepted).status == "scoring"
    # still disputed: Black says its stones live, White keeps its proposal; nobody accepts
    assert one(mark(bus, "bob", ("E8", "F7"), 106 * S), DeadStonesProposed).dead == ("E8", "F7")
    mark(bus, "alice", WHITE_DEAD, 107 * S)
    # only the arbiter rules
    rej = one(bus.send(RuleDeadStones(game_id="g1", dead=WHITE_DEAD, reason="x"), at=108 * S,
                       actor=ALICE), GameCommandRejected)
    assert rej.code == "invalid" and "arbiter" in rej.reason
    got = bus.send(RuleDeadStones(game_id="g1", dead=WHITE_DEAD,
                                  reason="the black group at C3 has one eye"), at=109 * S,
                   actor=ARBITER)
    ruled = one(got, DeadStonesRuled)
    assert ruled.dead == DEAD_ALL and (ruled.rule.ruleset, ruled.rule.article) == (C88, "16.4, 25.1")
    sc = one(got, GameScored)
    assert (sc.black, sc.white, sc.result, sc.how) == (38.0, 43.5, "W+5.5", "arbiter")  # passes change no area
    end = one(got, GameEnded)
    assert (end.result, end.score) == ("1-0", "W+5.5")
    assert one(mark(bus, "bob", (), 110 * S), GameCommandRejected).code == "game-over"


def test_a_resumption_asked_by_the_side_not_to_move_records_no_pass(stopped):
    got = dead_cmd(stopped, RejectDead, "alice", 101 * S)  # White asks; Black is to move already
    assert one(got, PlayResumed).to_move == "black" and not of(got, MoveAccepted)
    assert one(stopped.move("bob", "pass", at=102 * S), MoveAccepted).status == "ongoing"


def test_dead_stone_commands_need_stopped_play_and_stones():
    bus = Bus()
    go_game(bus, board_size=9)
    bus.play(["E5", "C3"], first="bob")
    rej = one(mark(bus, "bob", ("C3",), 5 * S), GameCommandRejected)
    assert rej.code == "not-scoring"
    bus.play(["pass", "pass"], start=6 * S, first="bob")
    assert one(mark(bus, "bob", ("D4",), 9 * S), GameCommandRejected).code == "invalid"  # empty
    assert one(mark(bus, "bob", ("I5",), 9 * S), GameCommandRejected).code == "malformed"  # no I
    assert one(mark(bus, "bob", ("cg",), 10 * S), DeadStonesProposed).dead == ("C3",)  # SGF cg = C3
    assert one(dead_cmd(bus, AcceptDead, "bob", 11 * S), GameCommandRejected).code == "invalid"


def test_no_draw_offers_or_claims_in_go():
    bus = Bus()
    go_game(bus, board_size=9)
    bus.play(["E5"], first="bob")
    assert "no draw offers" in one(bus.send(OfferDraw(game_id="g1", player_id="bob"), at=2 * S,
                                            actor=BOB), GameCommandRejected).reason
    rej = one(bus.send(ClaimDraw(game_id="g1", player_id="alice", reason="threefold"), at=2 * S,
                       actor=ALICE), GameCommandRejected)
    assert "20.3" in rej.reason


# a ko: Black's E5 takes the white stone on D5; White may not retake at once
KO = ["C5", "D5", "D6", "E6", "D4", "E4", "A1", "F5", "E5"]


def test_illegal_moves_refused_with_the_article_online():
    bus = Bus()
    go_game(bus, board_size=9)
    bus.play(KO, first="bob")
    rej = one(bus.move("alice", "D5", at=20 * S), MoveRejected)
    assert rej.code == "illegal" and (rej.rule.ruleset, rej.rule.article) == (C88, "20.1")
    assert one(bus.move("alice", "E5", at=21 * S), MoveRejected).code == "illegal"  # occupied
    assert one(bus.move("alice", "Z1", at=21 * S), MoveRejected).code == "malformed"
    assert bus.validation.games["g1"].pos.turn == "white"  # nothing changed
    bus2 = Bus()
    go_game(bus2, board_size=9)
    bus2.play(["A2", "E5", "B1"], first="bob")
    rej = one(bus2.move("alice", "A1", at=9 * S), MoveRejected)  # no liberty, captures nothing
    assert rej.code == "illegal" and (rej.rule.ruleset, rej.rule.article) == (C88, "5")


def test_void_moves_count_as_passes_when_the_event_applies_art_19_and_20_1():
    bus = Bus()
    go_game(bus, board_size=9, void_moves="pass")
    bus.play(KO, first="bob")
    acc = one(bus.move("alice", "D5", at=20 * S), MoveAccepted)
    assert (acc.uci, acc.colour) == ("pass", "white")
    assert acc.void.move == "D5" and (acc.void.rule.ruleset, acc.void.rule.article) == (C88, "20.1")
    bus.play(["D5"], start=21 * S, first="bob")  # Black fills the ko
    bus2 = Bus()
    go_game(bus2, board_size=9, void_moves="pass")
    bus2.play(["A2", "E5", "B1"], first="bob")
    acc = one(bus2.move("alice", "A1", at=9 * S), MoveAccepted)
    assert acc.uci == "pass" and acc.void.rule.article == "19"
    # a void move is a pass: Black passing now makes two in a row and stops play
    assert one(bus2.move("bob", "pass", at=10 * S), MoveAccepted).status == "scoring"
    # a move on an occupied point is never void: refused
    bus3 = Bus()
    go_game(bus3, board_size=9, void_moves="pass")
    bus3.play(["A2"], first="bob")
    assert one(bus3.move("alice", "A2", at=5 * S), MoveRejected).code == "illegal"


def test_two_warnings_lose_the_game_25_2():
    bus = Bus()
    go_game(bus, board_size=9)
    bus.play(["E5", "C3"], first="bob")
    w1 = one(bus.send(IssuePenalty(game_id="g1", player_id="bob", kind="warning",
                                   note="took a stone with liberties (art. 18)"),
                      at=5 * S, actor=ARBITER), PenaltyApplied)
    assert (w1.kind, w1.count, w1.rule.article) == ("warning", 1, "25.2")
    got = bus.send(IssuePenalty(game_id="g1", player_id="bob", kind="warning", note="talked"),
                   at=6 * S, actor=ARBITER)
    pens = of(got, PenaltyApplied)
    assert [(x.kind, x.count) for x in pens] == [("warning", 2), ("forfeit", 0)]
    end = one(got, GameEnded)
    assert (end.result, end.winner, end.rule.ruleset, end.rule.article) == ("1-0", "white", C88, "25.2")


def test_playing_twice_loses_17_1_and_fouls_are_xiangqi_only():
    bus = Bus()
    go_game(bus, board_size=9)
    bus.play(["E5"], first="bob")
    assert one(bus.send(IssuePenalty(game_id="g1", player_id="alice", kind="foul"), at=2 * S,
                        actor=ARBITER), GameCommandRejected).code == "invalid"
    got = bus.send(IssuePenalty(game_id="g1", player_id="alice", kind="played-twice"), at=3 * S,
                   actor=ARBITER)
    end = one(got, GameEnded)
    assert (end.result, end.winner, end.rule.article) == ("0-1", "black", "17.1")


def test_time_out_loses_23_5_and_black_runs_first():
    bus = Bus()
    assert one(go_game(bus, board_size=9, time_control="60"), ClockStarted).running == "black"
    bus.play(["E5"], first="bob", start=10 * S)  # Black's move; White's 60 s run from 10 s
    got = bus.tick(71 * S)
    flag = one(got, FlagFell)
    assert flag.colour == "white" and (flag.rule.ruleset, flag.rule.article) == (C88, "23.5")
    assert one(got, GameEnded).result == "0-1"


def test_resignation_and_the_cycle_draw_cite_the_game_rules():
    bus = Bus()
    go_game(bus, board_size=9, go_rules="japanese")
    bus.play(["E5"], first="bob")
    end = one(bus.send(Resign(game_id="g1", player_id="alice"), at=3 * S, actor=ALICE), GameEnded)
    assert (end.result, end.rule.ruleset, end.rule.article) == ("0-1", "Japanese rules 1989", "11")
    bus = Bus()
    go_game(bus, board_size=9)
    end = one(bus.send(RecordResult(game_id="g1", result="1/2-1/2", reason="endless-cycle"),
                       at=3 * S, actor=ARBITER), GameEnded)
    assert (end.result, end.rule.ruleset, end.rule.article) == ("1/2-1/2", C88, "20.3")


def test_handicap_white_moves_first_and_komi_defaults():
    bus = Bus()
    gs = go_game(bus, board_size=9, handicap=4, time_control="-")[0].payload
    # 4 stones on the 9x9 fixed points C3 G7 G3 C7; no komi in a handicap game
    assert gs.start_fen == "go 9 chinese white ko=- passes=0 prisoners=0,0 B:cc,cg,gc,gg W:"
    assert gs.komi == 0.0
    assert one(bus.move("bob", "E5", at=1 * S), MoveRejected).code == "not-your-turn"
    assert one(bus.move("alice", "E5", at=2 * S), MoveAccepted).colour == "white"
    bus = Bus()
    assert go_game(bus, gid="g2", go_rules="japanese")[0].payload.komi == 6.5  # 19x19 default
    rej = one(go_game(bus, gid="g3", board_size=8, handicap=5), GameCommandRejected)  # 4 at most
    assert rej.code == "invalid" and "handicap" in rej.reason
