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

from collections import deque

from contracts.envelope import dt_of, stream_for
from contracts.messages import (
    ArbiterCalled, GameStarted, envelope,
    AcceptDead, ClaimDraw, ClockStarted, DeadStonesProposed, DeadStonesRuled, FlagFell, GameCommandRejected,
    GameEnded, GameScored, IssuePenalty, MarkDead, MoveAccepted, MoveRejected, OfferDraw,
    PenaltyApplied, PlayResumed, RecordResult, RejectDead, Resign, RuleDeadStones, ScoringAgreed,
)
from shared.rules import go
from tests.unit.test_game_services import ALICE, ARBITER, BOB, ORGANISER, S, T0, Bus, art, of, one

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
    # play has stopped: a stone is refused, naming the Chinese article (both sides confirmed
    # the end by passing, 1988 art. 21.1), not Japanese 9-1
    rej = one(bus.move("bob", "J9", at=100 * S), MoveRejected)
    assert rej.code == "play-stopped" and (rej.rule.ruleset, rej.rule.article) == (C88, "21.1")
    assert "Chinese rules 1988 art. 21.1" in rej.reason and "Japanese" not in rej.reason
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
    # komi 0.5 is not the 1988 rules' 2¾ stones (art. 11): the competition's komi, 2002 art. 9
    assert (end.rule.ruleset, end.rule.article) == ("Chinese rules 2002", "9")
    assert "Chinese rules 1988 art. 11" not in end.rule.summary


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


def test_void_moves_lose_the_turn_but_stop_no_play_when_the_event_applies_art_19_and_20_1():
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
    # a void move loses the turn (弃权一次, art. 19) but declares no end (art. 21.1: both players
    # confirm the end): Black's pass after it is the first of a run, not the second
    assert one(bus2.move("bob", "pass", at=10 * S), MoveAccepted).status == "ongoing"
    assert one(bus2.move("alice", "pass", at=11 * S), MoveAccepted).status == "scoring"
    assert bus2.adjudication.games["g1"].pos.status() == "scoring"  # adjudication reads it alike
    # and a void move after the opponent's pass breaks the run: W pass, B void, W pass = no stop
    bus4 = Bus()
    go_game(bus4, board_size=9, void_moves="pass")
    bus4.play(["E5", "A2", "E6", "B1", "F5", "pass"], first="bob")  # ... W passes
    void = one(bus4.move("bob", "A1", at=9 * S), MoveAccepted)  # a forbidden point: void
    assert (void.void.rule.article, void.status) == ("19", "ongoing")  # not a second pass
    assert one(bus4.move("alice", "pass", at=10 * S), MoveAccepted).status == "ongoing"
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
    assert rej.code == "malformed" and "handicap" in rej.reason


# ============================================================ lateness (1988 art. 23.1-23.3)
def arrive(bus, who, at):
    from contracts.messages import ReportArrival
    return bus.send(ReportArrival(game_id="g1", player_id=who), at=at, actor=ARBITER)


def test_a_late_white_has_the_late_time_off_its_clock_deducted_23_3():
    from contracts.messages import ArrivalReported, ClockAdjusted
    bus = Bus()
    # 10 minutes each, absolute; the event's limit (default time) 15 minutes
    go_game(bus, board_size=9, time_control="600", default_time_s=900)
    # Black (bob) is on time; his clock ran from the start; he plays at 30 s and White's starts
    bus.play(["E5"], first="bob", start=30 * S)
    got = arrive(bus, "alice", 120 * S)
    rep = one(got, ArrivalReported)
    assert (rep.colour, rep.late_ms, rep.limit_ms) == ("white", 120_000, 900_000)
    adj = one(got, ClockAdjusted)
    # 120 s late: 90 s of it (30 s -> 120 s) already ran off White's own clock, the 30 s
    # before Black's first move did not and are deducted: 600 - 30 = 570 s at White's turn
    # start (30 s), so White's flag falls at 30 + 570 = 600 s: 120 s late cost 120 s in all.
    assert (adj.colour, adj.delta_ms, adj.white_ms, adj.black_ms) == ("white", -30_000, 570_000, 570_000)
    assert adj.deadline_ms == 1_700_000_000_000 + 600 * S and art_of(adj.rule) == (C88, "23.3")
    assert not of(got, PenaltyApplied) and not of(got, GameEnded)
    # a move received at 599 s is on time (validation read the new deadline) ...
    assert one(bus.move("alice", "C3", at=599 * S), MoveAccepted).colour == "white"
    # ... and a second report of a present player is refused, changing nothing
    assert one(arrive(bus, "alice", 700 * S), GameCommandRejected).code == "invalid"


def test_a_late_first_mover_has_nothing_more_deducted_and_past_the_limit_loses_23_1():
    from contracts.messages import ArrivalReported, ClockAdjusted
    bus = Bus()
    # an hour on the clocks, so no flag falls before the 900 s limit (White's runs from 61 s)
    go_game(bus, board_size=9, time_control="3600", default_time_s=900)
    got = arrive(bus, "bob", 60 * S)  # Black's clock has run the 60 s already
    assert one(got, ArrivalReported).late_ms == 60_000 and not of(got, ClockAdjusted)
    assert one(bus.move("bob", "E5", at=61 * S), MoveAccepted)
    # White arrives at 901 s: past the 900 s limit, loses by default (23.1)
    got = arrive(bus, "alice", 901 * S)
    pen = one(got, PenaltyApplied)
    assert pen.kind == "forfeit" and art_of(pen.rule) == (C88, "23.1") and not of(got, ClockAdjusted)
    end = one(got, GameEnded)
    assert (end.result, end.reason, end.winner) == ("0-1", "forfeit", "black")


def test_an_arrival_after_the_running_flag_fell_settles_that_flag_first_23_5():
    from contracts.messages import ArrivalReported, ClockAdjusted
    bus = Bus()
    # 600 s absolute, limit 900 s, no moves: Black (to move) has his clock running from the
    # start, so his flag falls at 600 s. White is reported arrived at 700 s, within the limit:
    # Black's time out came 100 s before and decides the game for White (23.5), not a 700 s
    # deduction from White's clock (which would flag White).
    go_game(bus, board_size=9, time_control="600", default_time_s=900)
    got = arrive(bus, "alice", 700 * S)
    rej = one(got, GameCommandRejected)
    assert rej.code == "flag-fallen" and "100000 ms after black's flag fell" in rej.reason
    assert not of(got, ArrivalReported) and not of(got, ClockAdjusted)
    flag = one(got, FlagFell)
    assert (flag.colour, flag.deadline_ms, flag.black_ms, flag.white_ms) == ("black", T0 + 600 * S, 0, 600_000)
    end = one(got, GameEnded)
    assert (end.result, end.reason, art_of(end.rule)) == ("1-0", "timeout", (C88, "23.5"))
    # Black moved at 1 s, White's clock runs from 1 s and falls at 601 s; White reported at 700 s
    # loses on that flag, not by a deduction.
    bus = Bus()
    go_game(bus, board_size=9, time_control="600", default_time_s=900)
    bus.play(["E5"], first="bob", start=1 * S)
    got = arrive(bus, "alice", 700 * S)
    assert one(got, GameCommandRejected).code == "flag-fallen"
    flag = one(got, FlagFell)
    assert (flag.colour, flag.deadline_ms) == ("white", T0 + 601 * S)
    assert one(got, GameEnded).result == "0-1"


def test_the_clock_settles_a_fallen_flag_before_an_arrival_validation_let_through():
    """The clock's own check (validation had not yet read the deadline): the flag first."""
    from contracts.messages import ArrivalReported, ClockAdjusted
    bus = Bus()
    go_game(bus, board_size=9, time_control="600", default_time_s=900)
    gs = next(m for m in bus.log if isinstance(m.payload, GameStarted))
    rep = envelope(ArrivalReported(game_id="g1", player_id="alice", colour="white", late_ms=700_000,
                                   limit_ms=900_000), stream=stream_for("game-g1"), seq=99,
                   occurred_at=dt_of(T0 + 700 * S), actor=ARBITER, causation_id=gs.event_id)
    out = bus.clock.handle(rep)
    assert [type(e.payload) for e in out] == [FlagFell]  # nothing deducted (no ClockAdjusted)
    assert (out[0].payload.colour, out[0].at_ms) == ("black", T0 + 600 * S)


def test_an_arrival_past_the_limit_with_the_opponent_absent_too_loses_both_23_2():
    bus = Bus()
    # an hour on the clocks (no flag before 1000 s), limit 900 s; White never comes, Black is
    # reported arrived at 1000 s: both were absent past the 900 s limit -> both lose (23.2),
    # 0-0, not a win for the absent White
    go_game(bus, board_size=9, time_control="3600", default_time_s=900)
    got = arrive(bus, "bob", 1000 * S)
    pen = one(got, PenaltyApplied)
    assert pen.kind == "double-forfeit" and art_of(pen.rule) == (C88, "23.2")
    assert "white neither moved nor arrived" in pen.cause
    end = one(got, GameEnded)
    assert (end.result, end.reason, end.winner) == ("0-0", "double-forfeit", None)
    assert one(arrive(bus, "alice", 1001 * S), GameCommandRejected).code == "game-over"
    # Black reported arrived at 200 s (within the limit), White at 950 s: only White loses (23.1)
    bus = Bus()
    go_game(bus, board_size=9, time_control="3600", default_time_s=900)
    assert not of(arrive(bus, "bob", 200 * S), PenaltyApplied)
    got = arrive(bus, "alice", 950 * S)
    assert one(got, PenaltyApplied).kind == "forfeit"
    assert (one(got, GameEnded).result, art_of(one(got, GameEnded).rule)) == ("0-1", (C88, "23.1"))


def test_absence_reports_use_the_go_articles_23_1_and_23_2():
    from contracts.messages import ReportAbsence
    bus = Bus()
    go_game(bus, board_size=9, default_time_s=600)
    early = bus.send(ReportAbsence(game_id="g1", player_id="bob"), at=599 * S, actor=ARBITER)
    assert one(early, GameCommandRejected).code == "invalid"  # 1 s before the limit
    got = bus.send(ReportAbsence(game_id="g1", player_id="bob"), at=600 * S, actor=ARBITER)
    assert art_of(one(got, PenaltyApplied).rule) == (C88, "23.1")
    assert one(got, GameEnded).result == "1-0"
    bus = Bus()
    go_game(bus, board_size=9, default_time_s=600)
    got = bus.send(ReportAbsence(game_id="g1", player_id="bob", both=True), at=600 * S, actor=ARBITER)
    pen = one(got, PenaltyApplied)
    assert pen.kind == "double-forfeit" and art_of(pen.rule) == (C88, "23.2")
    assert one(got, GameEnded).result == "0-0"


# ============================================== the clock while the dead stones are settled
def test_the_clocks_stop_with_play_and_run_again_when_play_resumes():
    from contracts.messages import ClockStarted as Started, ClockStopped, ClockUpdated
    bus = Bus()
    go_game(bus, board_size=9, time_control="60", stone_removal_s=3600)  # 60 s each, absolute
    # Black 0 -> 1 s (E5), White 1 -> 2 s (pass), Black 2 -> 3 s (pass): play stops, White to move
    got = bus.play(["E5", "pass", "pass"], first="bob", start=1 * S)
    assert of(got, MoveAccepted)[-1].status == "scoring"
    stop = one(got, ClockStopped)
    assert stop.paused and (stop.white_ms, stop.black_ms) == (59_000, 58_000)
    # White's 59 s would have run out at 62 s; settling the dead stones takes minutes: no flag
    mark(bus, "alice", ("E5",), 100 * S)
    assert not of(bus.tick(500 * S), FlagFell)
    # Black rejects at 500 s: White moves first (J89 9-3) and White's clock runs from 500 s
    got = dead_cmd(bus, RejectDead, "bob", 500 * S)
    res = one(got, Started)
    assert res.resumed and res.running == "white" and (res.white_ms, res.black_ms) == (59_000, 58_000)
    assert res.deadline_ms == 1_700_000_000_000 + 559 * S
    assert not of(bus.tick(559 * S), FlagFell)  # 559 s: still within the grace
    flag = one(bus.tick(560 * S), FlagFell)  # deadline 559 s + 0.5 s grace passed
    assert flag.colour == "white" and flag.deadline_ms == 1_700_000_000_000 + 559 * S
    # the same stop, White (to move) asking to resume: its yielded turn is a pass at once
    bus = Bus()
    go_game(bus, board_size=9, time_control="60")
    bus.play(["E5", "pass", "pass"], first="bob", start=1 * S)
    got = dead_cmd(bus, RejectDead, "alice", 300 * S)
    assert one(got, Started).running == "white"
    upd = one(got, ClockUpdated)  # the pass pressed at 300 s: White charged nothing more
    assert (upd.mover, upd.running, upd.white_ms, upd.black_ms) == ("white", "black", 59_000, 58_000)
    assert upd.deadline_ms == 1_700_000_000_000 + 358 * S


# ============================================ endless cycles: triple ko (1988 art. 20.3, J89 12)
#: Three kos on a 9x9 board (rows 9 to 1, columns A-J without I; X black, O white):
#:   9 .OX......   K1: Black may take C8 by playing B8
#:   8 O.OX.....
#:   7 .OX......
#:   6 .XO......   K2: White may take C5 by playing B5
#:   5 X.XO.....
#:   4 .XO......
#:   3 .OX......   K3: Black may take C2 by playing B2
#:   2 O.OX.....
#:   1 .OX......
#: The cycle, Black first: B8 takes K1, White cannot retake at once (ko) and takes K2 (B5),
#: Black takes K3 (B2), White retakes K1 (C8, allowed: the ban was on K3), Black retakes K2
#: (C5), White retakes K3 (C2). Each ko turned twice: after 6 plies the board and the player to
#: move are those of the start, each side having taken 3 stones; after 12 plies the start
#: position occurs a third time. Under simple ko (Japanese rules) every move is legal.
TRIPLE_KO = ("go 9 japanese black ko=- passes=0 prisoners=0,0 "
             "B:ae,bd,bf,ca,cc,ce,cg,ci,db,dh W:ab,ah,ba,bc,bg,bi,cb,cd,cf,ch,de")
CYCLE = ["B8", "B5", "B2", "C8", "C5", "C2"]


def cycled(fen: str = TRIPLE_KO) -> tuple[Bus, list]:
    bus = Bus()
    go_game(bus, start_fen=fen, board_size=9, go_rules=fen.split()[2], time_control="600")
    got = bus.play(CYCLE * 2, first="bob")
    return bus, got


def rule_cycle(bus, ruling, at=20 * S):
    from contracts.messages import RuleEndlessCycle
    return bus.send(RuleEndlessCycle(game_id="g1", ruling=ruling, reason="triple ko, neither yields"),
                    at=at, actor=ARBITER)


def test_a_triple_ko_is_reported_and_the_arbiter_rules_draw_no_result_or_replay():
    from contracts.messages import EndlessCycleFound, EndlessCycleRuled, GameStarted
    bus, got = cycled()
    found = one(got, EndlessCycleFound)
    assert (found.ply, found.occurrences, found.length, found.captured_black, found.captured_white) \
        == (12, 3, 6, 3, 3)
    assert art_of(found.rule) == ("Japanese rules 1989", "12") and not of(got, GameEnded)
    # play goes on until the ruling; the cycle is reported once
    assert not of(bus.move("bob", "J9", at=14 * S), EndlessCycleFound)
    # no result (J89 art. 12): 0-0, neither scores
    end = one(rule_cycle(bus, "no-result"), GameEnded)
    assert (end.result, end.reason, end.winner, art_of(end.rule)) == (
        "0-0", "no-result", None, ("Japanese rules 1989", "12"))
    # a draw (1988 art. 20.3)
    bus, _ = cycled()
    end = one(rule_cycle(bus, "draw"), GameEnded)
    assert (end.result, end.reason, art_of(end.rule)) == ("1/2-1/2", "endless-cycle", (C88, "20.3"))
    # a replay: this game 0-0, a new game between the same players from the same start
    bus, _ = cycled()
    got = rule_cycle(bus, "replay")
    ruled = one(got, EndlessCycleRuled)
    assert ruled.replay_game_id == "g1-replay1" and art_of(ruled.rule) == (C88, "20.3")
    end = one(got, GameEnded)
    assert (end.game_id, end.result, end.reason) == ("g1", "0-0", "replay")
    new = one(got, GameStarted)
    assert (new.game_id, new.replay_of, new.white, new.black, new.start_fen, new.go_rules) == (
        "g1-replay1", "g1", "alice", "bob", TRIPLE_KO, "japanese")
    assert one(got, ClockStarted).game_id == "g1-replay1"
    assert one(bus.move("bob", "B8", at=21 * S, gid="g1-replay1"), MoveAccepted).ply == 1


def test_cycle_rulings_are_refused_without_a_cycle_or_outside_their_rules():
    bus = Bus()
    go_game(bus, start_fen=TRIPLE_KO, board_size=9, go_rules="japanese")
    bus.play(CYCLE, first="bob")  # one loop: the start position seen twice only
    assert one(rule_cycle(bus, "draw"), GameCommandRejected).code == "invalid"
    bus, _ = cycled()
    from contracts.messages import RuleEndlessCycle
    rej = bus.send(RuleEndlessCycle(game_id="g1", ruling="draw", reason="x"), at=20 * S, actor=BOB)
    assert one(rej, GameCommandRejected).code == "invalid"  # arbiters only
    # Chinese rules: positional superko (1988/2002 art. 6) refuses the loop's 6th move, White's
    # C2, which would recreate the start position: a triple ko cannot cycle by stones there
    chinese = TRIPLE_KO.replace("japanese", "chinese")
    bus = Bus()
    go_game(bus, start_fen=chinese, board_size=9, go_rules="chinese")
    bus.play(CYCLE[:5], first="bob")
    rej = one(bus.move("alice", "C2", at=10 * S), MoveRejected)
    assert rej.code == "illegal" and (rej.rule.ruleset, rej.rule.article) == (C88, "6")


def art_of(rule) -> tuple[str, str]:
    return (rule.ruleset, rule.article)


def test_no_result_is_japanese_only():
    # under Ing rules the simple ko rule lets the triple ko cycle too (Ing art. 3), but "no
    # result" is Japanese rules 1989 art. 12: refused, changing nothing; a draw is then ruled
    bus, got = cycled(TRIPLE_KO.replace("japanese", "ing"))
    from contracts.messages import EndlessCycleFound
    assert one(got, EndlessCycleFound).ply == 12
    assert one(rule_cycle(bus, "no-result"), GameCommandRejected).code == "invalid"
    end = one(rule_cycle(bus, "draw", at=21 * S), GameEnded)
    assert (end.result, art_of(end.rule)) == ("1/2-1/2", (C88, "20.3"))


# ------------------------------------------------------------------ impossible settings, stuck counts
@pytest.mark.parametrize("kw, why", [
    (dict(board_size=9, komi=150.0), "komi 150 is out of range for a 9x9 board: at most 81 points"),
    (dict(board_size=9, komi=-81.5), "komi -81.5 is out of range for a 9x9 board"),
    (dict(board_size=3, komi=-10.0), "komi -10 is out of range for a 3x3 board: at most 9 points"),
    # the Chinese default 7.5 on a 2x2 board of 4 points: an explicit komi is needed
    (dict(board_size=2), "the default komi 7.5 is out of range for a 2x2 board"),
])
def test_a_komi_larger_than_the_board_is_refused_at_creation(kw, why):
    bus = Bus()
    rej = one(go_game(bus, **kw), GameCommandRejected)
    assert rej.code == "malformed" and why in rej.reason
    assert "g1" not in bus.validation.games


def test_komi_at_the_board_bound_and_an_explicit_komi_on_a_tiny_board_are_accepted():
    bus = Bus()
    assert one(go_game(bus, board_size=9, komi=81.0), GameStarted).komi == 81.0  # 9 x 9 = 81
    assert one(go_game(bus, gid="g2", board_size=2, komi=0.5), GameStarted).komi == 0.5


def started_with_komi(bus: Bus, komi: float) -> None:
    """An old log's GameStarted with a komi the scorer refuses (before creation checked it)."""
    gs = GameStarted(game_id="g1", white="alice", black="bob", game="go", board_size=9,
                     go_rules="chinese", komi=komi, handicap=0, time_control="600+5",
                     start_fen="go 9 chinese black ko=- passes=0 prisoners=0,0 B: W:")
    bus.decide(envelope(gs, stream=stream_for("game-g1"), seq=1, occurred_at=dt_of(T0),
                        actor=ORGANISER))


def test_a_count_the_scorer_refuses_calls_the_arbiter_and_the_game_stays_recoverable():
    bus = Bus()
    started_with_komi(bus, 150.0)
    bus.play(["E5", "pass", "pass"], first="bob")
    one(mark(bus, "alice", (), 10 * S), DeadStonesProposed)
    got = dead_cmd(bus, AcceptDead, "bob", 11 * S)
    one(got, ScoringAgreed)
    called = one(got, ArbiterCalled)  # no traceback, no GameEnded
    assert called.reason == "count-failed"
    assert "komi 150 is out of range for a 9x9 board" in called.detail
    assert (called.rule.ruleset, called.rule.article) == (C88, "16.4, 25.1")
    assert not of(got, GameEnded) and not bus.adjudication.games["g1"].ended
    # play stays stopped and the players may settle again; the arbiter records the result
    assert one(bus.move("alice", "D4", at=12 * S), MoveRejected).code == "play-stopped"
    one(mark(bus, "bob", (), 13 * S), DeadStonesProposed)
    got = bus.send(RecordResult(game_id="g1", result="1-0", reason="arbiter"), at=14 * S, actor=ARBITER)
    end = one(got, GameEnded)
    assert (end.result, end.reason, end.winner) == ("1-0", "arbiter", "white")


def test_while_the_count_is_due_players_are_refused_but_the_arbiter_may_record_a_result():
    bus = Bus()
    started_with_komi(bus, 150.0)
    bus.play(["E5", "pass", "pass"], first="bob")
    bus.validation.games["g1"].counting = True  # as between ScoringAgreed and adjudication's answer
    assert one(dead_cmd(bus, Resign, "bob", 10 * S), GameCommandRejected).code == "counting"
    got = bus.send(RecordResult(game_id="g1", result="0-1", reason="arbiter"), at=11 * S, actor=ARBITER)
    assert one(got, GameEnded).result == "0-1"


# ====================================== stone-removal time (platform rule for online play)
# No rule text sets a time for settling the dead stones (J89 9-2, 1988 art. 8 / 21.3 leave it
# to the players and the arbiter); the platform gives ``stone_removal_s`` (300 s by default)
# from the stop, restarted by each proposal. Event times only: deadline = the stop's or the
# latest proposal's event time + the limit; the clock's tick sees it ``grace_ms`` (0.5 s) later.
def test_stone_removal_time_counts_the_unanswered_proposal(stopped):
    from contracts.messages import StoneRemovalExpired

    bus = stopped
    assert bus.validation.games["g1"].started.stone_removal_s == go.DEFAULT_STONE_REMOVAL_S == 300
    # play stopped with the last pass at 60 s (60 moves from 1 s, one a second): the time runs
    # to 60 + 300 = 360 s; White's proposal at 101 s restarts it: 101 + 300 = 401 s
    mark(bus, "alice", WHITE_DEAD, 101 * S)
    assert not bus.tick(361 * S)  # the first deadline no longer holds
    assert not bus.tick(401 * S + 500)  # 401 s + the 0.5 s grace: not yet past
    # Black's acceptance received 1 s after the deadline is refused, changing nothing
    rej = one(dead_cmd(bus, AcceptDead, "bob", 402 * S), GameCommandRejected)
    assert rej.code == "stone-removal-timeout" and "1000 ms after" in rej.reason
    got = bus.tick(403 * S)
    exp = one(got, StoneRemovalExpired)
    assert (exp.deadline_ms, exp.observed_ms, exp.limit_s) == (T0 + 401 * S, T0 + 403 * S, 300)
    assert (exp.proposed_by, exp.dead) == ("white", DEAD_ALL)
    assert exp.rule.ruleset == go.PLATFORM and "no rule text" in exp.rule.summary
    # the proposal stands: counted as on agreement (Black 38, White 43.5, the record's W+5.5)
    sc = one(got, GameScored)
    assert (sc.black, sc.white, sc.result, sc.how) == (38.0, 43.5, "W+5.5", "stone-removal-timeout")
    end = one(got, GameEnded)
    assert (end.result, end.winner, end.reason, end.score) == ("1-0", "white", "counting", "W+5.5")
    assert "unanswered" in end.detail
    assert not bus.tick(900 * S)  # once
    assert one(dead_cmd(bus, AcceptDead, "bob", 901 * S), GameCommandRejected).code == "game-over"


def test_stone_removal_time_without_a_proposal_calls_the_arbiter():
    from contracts.messages import StoneRemovalExpired

    bus = Bus()
    go_game(bus, board_size=9, time_control="-", stone_removal_s=60)  # untimed: the limit holds
    bus.play(["E5", "pass", "pass"], first="bob", start=1 * S)  # play stops at 3 s
    assert bus.clock.next_deadline() == T0 + 63 * S
    got = bus.tick(64 * S)
    exp = one(got, StoneRemovalExpired)
    assert (exp.deadline_ms, exp.limit_s, exp.proposed_by, exp.dead) == (T0 + 63 * S, 60, None, None)
    called = one(got, ArbiterCalled)
    assert called.reason == "stone-removal-timeout" and (called.rule.ruleset, called.rule.article) == (
        C88, "16.4, 25.1")
    assert not of(got, GameEnded)
    # the arbiter rules: nothing dead. Black: E5 + the 80 points it surrounds = 81; White 0 +
    # komi 7.5 (Chinese default: 3¾ stones, 2002 art. 9) -> B+73.5
    got = bus.send(RuleDeadStones(game_id="g1", dead=(), reason="no dead stones"), at=70 * S,
                   actor=ARBITER)
    sc = one(got, GameScored)
    assert (sc.black, sc.white, sc.result, sc.komi, sc.how) == (81.0, 7.5, "B+73.5", 7.5, "arbiter")
    assert (sc.rule.ruleset, sc.rule.article) == ("Chinese rules 2002", "9")


def test_stone_removal_time_stops_with_resumption_and_restarts_at_the_next_stop():
    bus = Bus()
    go_game(bus, board_size=9, stone_removal_s=60)
    bus.play(["E5", "pass", "pass"], first="bob", start=1 * S)  # stop at 3 s: deadline 63 s
    dead_cmd(bus, RejectDead, "bob", 50 * S)  # play resumes, White first: no removal time runs
    assert not bus.tick(200 * S)
    bus.play(["pass", "pass"], first="alice", start=201 * S)  # stop again at 202 s
    assert bus.clock._deadlines("g1") == [T0 + 262 * S]
    assert one(mark(bus, "bob", (), 261 * S), DeadStonesProposed).dead == ()
    assert bus.clock._deadlines("g1") == [T0 + 321 * S]  # the proposal restarted it


def test_a_dead_stone_command_ordered_before_the_timer_is_ruled_first():
    """As with moves (DESIGN.md invariant 2): the stone-removal limit is decided by the timer's
    CheckClock at its place in the command order; an acceptance received before the limit and
    ordered before the CheckClock settles the count, and the timer then has nothing to ask."""
    bus = Bus()
    go_game(bus, board_size=9, stone_removal_s=60)
    bus.play(["E5", "pass", "pass"], first="bob", start=1 * S)  # deadline 63 s
    one(mark(bus, "alice", (), 10 * S), DeadStonesProposed)  # restarts it: deadline 70 s
    got = dead_cmd(bus, AcceptDead, "bob", 69 * S)
    assert one(got, ScoringAgreed) and one(got, GameEnded)
    assert bus.tick(200 * S) == [] and bus.clock._deadlines("g1") == []


# ============================================================ citations of each ruleset's article
def test_cited_articles_are_the_games_own():
    from shared.rules.games import go_score_rule

    # komi: 5.5 points = 2¾ stones is 1988 art. 11 (二又四分之三子); 7.5 = 3¾ stones is the
    # competition's komi under 2002 art. 9 (采用贴子方式的围棋竞赛,另行制定胜负标准)
    assert art(go_score_rule("chinese", 5.5)) == (C88, "9, 11")
    assert art(go_score_rule("chinese", 7.5)) == ("Chinese rules 2002", "9")
    assert art(go.komi_rule(7.5)) == ("Chinese rules 2002", "9") and "3¾" in go.komi_rule(7.5).summary
    assert art(go_score_rule("japanese", 6.5)) == ("Japanese rules 1989", "8, 10")
    # play stopped: Chinese 1988 art. 21.1 (both confirmed the end), Japanese 1989 art. 9-1
    for rules, want in (("chinese", (C88, "21.1")), ("japanese", ("Japanese rules 1989", "9-1")),
                        ("ing", (C88, "21.1"))):
        bus = Bus()
        go_game(bus, board_size=9, go_rules=rules)
        bus.play(["E5", "pass", "pass"], first="bob", start=1 * S)
        rej = one(bus.move("alice", "D4", at=5 * S), MoveRejected)
        assert rej.code == "play-stopped" and art(rej.rule) == want, rules
        assert f"{want[0]} art. {want[1]}" in rej.reason
    # a malformed coordinate is a notation error: no article
    bus = Bus()
    go_game(bus, board_size=9)
    for text in ("I5", "Z1", "hello", " "):
        rej = one(bus.move("bob", text, at=1 * S), MoveRejected)
        assert rej.code == "malformed" and rej.rule is None and "art." not in rej.reason, text
    # void moves lose the turn (着手无效，弃权一次, art. 19 / 20.1): no "counts as a pass"
    bus = Bus()
    go_game(bus, board_size=9, void_moves="pass")
    bus.play(["A2", "E5", "B1"], first="bob")
    void = one(bus.move("alice", "A1", at=9 * S), MoveAccepted).void
    assert art(void.rule) == (C88, "19") and "turn is lost" in void.rule.summary
    for key in ("void-suicide", "void-ko", "void-superko"):
        assert "counts as a pass" not in bus.validation.games["g1"].pos.RULES[key].summary
    assert "counts as a pass" not in go.rule_for("ko").summary


# ======================================================= "tt": an old SGF pass, never a typed one
def test_tt_is_a_pass_in_sgf_files_only():
    from shared.rules.sgf import read_sgf

    bus = Bus()
    go_game(bus, board_size=9)
    rej = one(bus.move("bob", "tt", at=1 * S), MoveRejected)  # on 9x9 't' is off the board anyway
    assert rej.code == "malformed" and "type 'pass'" in rej.reason
    assert bus.validation.games["g1"].pos.ply == 0  # nothing changed: no silent pass
    assert one(bus.move("bob", "pass", at=2 * S), MoveAccepted).uci == "pass"
    bus = Bus()
    go_game(bus, board_size=19)
    assert one(bus.move("bob", "tt", at=1 * S), MoveRejected).code == "malformed"
    # an FF[3] file's W[tt] on 19x19 is a pass (sgfmill reads it), as go.parse_point with sgf_pass
    rec = read_sgf(b"(;FF[3]GM[1]SZ[19];B[dd];W[tt];B[pp])")
    assert rec.moves == [("black", (3, 15)), ("white", None), ("black", (15, 3))]
    assert go.parse_point("tt", 19) is None
    with pytest.raises(go.IllegalMove):
        go.parse_point("tt", 19, sgf_pass=False)
