"""The tournament record (shared/domain/record.py) and the points tables (shared/domain/results.py):
values worked out by hand from the rule texts (xiangqi 1999 art. 20.3, 21.3, 21.4; Chinese Go
rules 1988 art. 20.3; FIDE TRF-16 letters)."""
from __future__ import annotations

import pytest

from contracts.messages import (
    Board, GameEnded, GameStarted, ManualBoard, PenaltyApplied, PlayerRegistered, PlayerWithdrawn,
    ResultCorrected, RoundPaired, Rule, TournamentCreated,
)
from shared.domain.record import Records
from shared.domain.results import played, points, result_code

RULE = Rule(ruleset="test", article="1")


def created(system: str, game: str = "chess") -> TournamentCreated:
    return TournamentCreated(tournament_id="t", name="t", system=system, rounds=None, time_control="60",
                             tiebreaks=("SB",), game=game)


def paired(rnd: int, boards=(), bye=None, withdrawn=(), requested=None) -> RoundPaired:
    """Round ``rnd``: ``boards`` (white, black, game id), ``withdrawn`` (white, black) boards."""
    return RoundPaired(tournament_id="t", round=rnd, system="x",
                       boards=tuple(Board(board=i + 1, game_id=g, white=w, black=b)
                                    for i, (w, b, g) in enumerate(boards)),
                       bye=bye, requested_byes=requested or {},
                       withdrawn_boards=tuple(ManualBoard(white=w, black=b) for w, b in withdrawn))


def ended(gid: str, result: str, reason: str = "arbiter") -> GameEnded:
    return GameEnded(game_id=gid, result=result, reason=reason, rule=RULE)


def fold(*events, players="") -> Records:
    book = Records()
    book.apply(events[0])
    for pid in players:
        book.apply(PlayerRegistered(tournament_id="t", player_id=pid, name=pid))
    for e in events[1:]:
        book.apply(e)
    return book


def table(book: Records) -> dict[str, str]:
    """Player -> his rounds' TRF letters (``.`` a running game)."""
    return {pid: "".join(c.letter or "." for c in cs) for pid, cs in book.get("t").cells().items()}


def test_points_of_codes_and_letters():
    assert [points(c) for c in ("1-0", "0-1", "1/2-1/2", "+-", "-+", "--", "0-0")] == [
        (1, 0), (0, 1), (0.5, 0.5), (1, 0), (0, 1), (0, 0), (0, 0)]
    assert played("1/2-1/2") and not played("+-") and not played("0-0")
    with pytest.raises(ValueError, match="unknown result '2-0'"):
        points("2-0")
    # 21.4: a forfeit is + / -; 21.3 (both absent) and a Go no-result are 0-0 = --
    assert result_code(ended("g", "0-1", "forfeit")) == "-+"
    assert result_code(ended("g", "0-0", "double-forfeit")) == "--"
    assert result_code(ended("g", "1-0", "checkmate")) == "1-0"


def test_round_robin_withdrawals_art_20_3():
    """Five players, 4 opponents each (half: 2). 5 withdraws from round 2 having met only 1:
    all his results are annulled (Z on both lines); 4 withdraws from round 3 having met 3 and
    2 (half): his results stand and his unplayed board with 1 is a forfeit win for 1.
    R1 1-5 1-0, 3-4 1-0, 2 rests; R2 4-2 ½, (5-3 withdrawn), 1 rests; R3 (1-4), (2-5)
    withdrawn, 3 rests; R4 2-1 1-0, (4-5) withdrawn, 3 rests."""
    book = fold(created("round-robin"),
                PlayerWithdrawn(tournament_id="t", player_id="5", from_round=2),
                PlayerWithdrawn(tournament_id="t", player_id="4", from_round=3),
                paired(1, [("1", "5", "g1"), ("3", "4", "g2")], bye="2"),
                paired(2, [("4", "2", "g3")], bye="1", withdrawn=[("5", "3")]),
                paired(3, [], bye="3", withdrawn=[("1", "4"), ("2", "5")]),
                paired(4, [("2", "1", "g4")], bye="3", withdrawn=[("4", "5")]),
                ended("g1", "1-0"), ended("g2", "1-0"), ended("g3", "1/2-1/2"), ended("g4", "1-0"),
                players="12345")
    t = book.get("t")
    assert t.annulled() == {"5"}
    assert table(book) == {"1": "ZZ+0", "2": "Z=Z1", "3": "1ZZZ", "4": "0=-Z", "5": "ZZZZ"}
    assert [c.kind for c in t.cells()["1"]] == ["annulled", "rest", "forfeit", "game"]
    assert t.scores() == {"1": 1.0, "2": 1.5, "3": 1.0, "4": 0.5, "5": 0.0}
    # after round 1 nobody has left yet: 5's game stands
    assert t.annulled(upto=1) == set() and table(book)["5"][0] == "Z"
    assert {p: cs[0].letter for p, cs in t.cells(upto=1).items()} == {
        "1": "1", "2": "Z", "3": "1", "4": "0", "5": "0"}


def test_a_board_of_two_withdrawn_players_is_lost_by_both():
    """a and b withdraw from round 3, each having met 2 of 3 opponents (results stand): their
    unplayed board is lost by both (20.3; as both absent, 21.3), not won by Black."""
    book = fold(created("round-robin"),
                paired(1, [("a", "c", "g1"), ("b", "d", "g2")]),
                paired(2, [("a", "d", "g3"), ("b", "c", "g4")]),
                PlayerWithdrawn(tournament_id="t", player_id="a", from_round=3),
                PlayerWithdrawn(tournament_id="t", player_id="b", from_round=3),
                paired(3, [("c", "d", "g5")], withdrawn=[("a", "b")]),
                ended("g1", "1-0"), ended("g2", "0-1"), ended("g3", "1/2-1/2"), ended("g4", "1-0"),
                ended("g5", "1-0"), players="abcd")
    assert table(book) == {"a": "1=-", "b": "01-", "c": "001", "d": "1=0"}
    assert book.get("t").scores() == {"a": 1.5, "b": 1.0, "c": 1.0, "d": 1.5}


def test_swiss_byes_late_entry_forfeit_and_correction():
    """Swiss: round 1 a-b forfeit (0-1 by forfeit: -+), c the pairing bye (U, 1 point, C.04.1),
    d a requested half-point bye (H); e enters late from round 2 with H for round 1. Round 2
    a-c 1/2, b-e 1-0 corrected to a double forfeit (--), d requested Z."""
    late = PlayerRegistered(tournament_id="t", player_id="e", name="e", from_round=2, missed="H")
    book = fold(created("swiss"),
                paired(1, [("a", "b", "g1")], bye="c", requested={"d": "H"}), late,
                paired(2, [("a", "c", "g2"), ("b", "e", "g3")], requested={"d": "Z"}),
                ended("g1", "0-1", "forfeit"), ended("g2", "1/2-1/2"), ended("g3", "1-0"),
                ResultCorrected(tournament_id="t", game_id="g3", round=2, previous="1-0", result="0-0",
                                reason="both absent"),
                players="abcd")
    assert table(book) == {"a": "-=", "b": "+-", "c": "U=", "d": "HZ", "e": "H-"}
    assert book.get("t").scores() == {"a": 0.5, "b": 1.0, "c": 1.5, "d": 0.5, "e": 0.5}
    assert [c.kind for c in book.get("t").cells()["e"]] == ["late", "game"]


def test_a_go_replay_gives_its_board_the_replay_result_in_any_order():
    """The board's game ends 0-0 ``replay`` (1988 art. 20.3, 重下): no result; the replay game
    (GameStarted ``replay_of``) ends 0-1: that is the board's result, whether the game facts
    come before or after the round's pairing (a read model rebuilt topic by topic)."""
    game_facts = [ended("g1", "0-0", "replay"),
                  GameStarted(game_id="g1-replay1", white="w", black="b", start_fen="go", time_control="60",
                              game="go", replay_of="g1"),
                  ended("g1-replay1", "0-1"),
                  PenaltyApplied(game_id="g1-replay1", player_id="w", colour="white", kind="foul",
                                 rule=RULE, cause="x")]
    for facts_first in (True, False):
        rest = [paired(1, [("w", "b", "g1")])]
        book = fold(created("round-robin", "go"), *(game_facts + rest if facts_first else rest + game_facts),
                    players="wb")
        t = book.get("t")
        assert t.result("g1") == "0-1" and table(book) == {"w": "0", "b": "1"}
        assert book.games.board_of("g1-replay1") == "g1"
    assert t.fouls == {"w": 1}  # the replay's penalties are the board's (its pairing known)
    # before the replay ends the board runs
    book = fold(created("round-robin", "go"), paired(1, [("w", "b", "g1")]), *game_facts[:2], players="wb")
    assert book.get("t").open_games() == ["g1"] and table(book) == {"w": ".", "b": "."}


def test_a_core_state_from_before_the_record_refuses_to_load():
    """A Kafka snapshot of the pairing or standings core taken by the code before the record
    (no ``book``) fails to unpickle, so the host replays the partition's inputs; a state with
    a record round-trips."""
    import pickle

    from services.pairing.service import PairingCore
    from services.standings.service import StandingsCore
    for cls in (PairingCore, StandingsCore):
        core = cls()
        core.book.apply(created("swiss"))
        assert pickle.loads(pickle.dumps(core)).book.get("t").system == "swiss"
        with pytest.raises(ValueError, match="before the tournament record"):
            cls.__new__(cls).__setstate__({"tournaments": {}, "game_index": {}})
