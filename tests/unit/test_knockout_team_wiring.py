"""The pure pieces the pairing/standings services use for knockouts and team events."""
from __future__ import annotations

import pytest

from services.pairing.core import PairingError
from shared.domain.knockout import Bracket, check_unshared, seed_order
from shared.domain.teams import team_standings


def test_team_standings_level_teams_share_the_place_and_fouls_rank_last_15_3():
    """A beats B 1½-½, B beats C 1½-½, C beats A 1½-½ (each winning match = a win and a draw).
    Match points 2 each (14.2), game points 1½ + ½ = 2 each, wins 1 each; DE among all three:
    2 each (every pair met); team fouls: A has 1 (its first board), so A is third and B, C
    share first place (15.3: 无法区分，则名次并列)."""
    rosters = {"A": ["a1", "a2"], "B": ["b1", "b2"], "C": ["c1", "c2"]}
    matches = [("A", "B", [("a1", "b1", "1-0"), ("b2", "a2", "1/2-1/2")]),
               ("B", "C", [("b1", "c1", "1-0"), ("c2", "b2", "1/2-1/2")]),
               ("C", "A", [("c1", "a1", "1-0"), ("a2", "c2", "1/2-1/2")])]
    rows = team_standings(rosters, matches, fouls={"a1": 1})
    got = {r.team: (r.rank, r.match_points, r.game_points, r.tiebreaks["WIN"], r.tiebreaks["DE"])
           for r in rows}
    assert got == {"B": (1, 2, 2, 1, 2), "C": (1, 2, 2, 1, 2), "A": (3, 2, 2, 1, 2)}
    with pytest.raises(PairingError):
        team_standings(rosters, [("A", "B", [("a1", "c1", "1-0")])])


def test_one_game_knockout_drawn_final_goes_to_playoff_games_with_colours_swapped():
    """Four players, one game a match: semi-finals 1-4 and 2-3; the final 1-2 is drawn, so a
    play-off game follows with colours swapped (13.5, 15.6); places 1, 2 and the semi-final
    losers share 3 (no match for third place)."""
    br = Bracket(["s1", "s2", "s3", "s4"], games=1, seed=4)
    pairs, _ = br.next_round()
    assert {frozenset(p) for p in pairs} == {frozenset(("s1", "s4")), frozenset(("s2", "s3"))}
    br.add_round([(w, b, "1-0" if w < b else "0-1") for w, b in pairs])
    (final,), _ = br.next_round()
    br.add_round([(*final, "1/2-1/2")])
    (again,), decisions = br.next_round()
    assert again == (final[1], final[0]) and "play-off game 2" in decisions[0]
    br.add_round([(*again, "1-0" if again[0] == "s2" else "0-1")])  # s2 wins the play-off
    assert br.finished and br.champion == "s2"
    assert br.places() == {"s2": 1, "s1": 2, "s3": 3, "s4": 3}
    with pytest.raises(PairingError, match="over"):
        br.next_round()
    with pytest.raises(PairingError):
        br.add_round([("s3", "s4", "1-0")])


def test_seeding_and_unshared_places_are_checked():
    assert seed_order([("a", 2000), ("b", None), ("c", 2100)], "rating", 0) == ["c", "a", "b"]
    assert seed_order([("a", 1), ("b", 2)], "registration", 0) == ["a", "b"]
    assert seed_order([(x, None) for x in "abcdef"], "lots", 9) == seed_order([(x, None) for x in "abcdef"], "lots", 9)
    assert check_unshared((3,)) and not check_unshared((1,)) and not check_unshared((5,))
    with pytest.raises(PairingError, match="1 or more"):
        check_unshared((0,))
    with pytest.raises(PairingError):
        seed_order([("a", 1)], "swiss", 0)


@pytest.mark.parametrize("game, system, rounds, given, recorded", [
    # xiangqi 1999 art. 15.1 (round robin): 小分 SB, 胜局 WIN, 直胜 DE, 犯规 FOULS
    ("xiangqi", "round-robin", None, (), ("SB", "WIN", "DE", "FOULS")),
    # art. 15.2 (Swiss systems): 对手分 BH, 胜局 WIN, 犯规 FOULS
    ("xiangqi", "chinese-swiss", 7, (), ("BH", "WIN", "FOULS")),
    ("xiangqi", "swiss", 7, (), ("BH", "WIN", "FOULS")),
    ("chess", "swiss", 7, (), ("SB", "WIN", "DE")),
    # McMahon (Go): OpenGotha's default placement criteria after the McMahon score
    ("go", "mcmahon", 5, (), ("MMS", "SOS", "SOSOS")),
    ("xiangqi", "swiss", 7, ("BH-C1", "SB"), ("BH-C1", "SB")),  # an explicit order is kept
])
def test_tournament_created_records_the_games_default_tiebreak_order(game, system, rounds, given, recorded):
    from uuid import UUID

    from contracts.envelope import Actor, dt_of, stream_for
    from contracts.messages import CreateTournament, TournamentCreated, envelope
    from services.pairing.service import PairingCore

    extra = {"mcmahon_bar": "1d", "mcmahon_floor": "20k"} if system == "mcmahon" else {}
    cmd = CreateTournament(tournament_id="t1", name="t", game=game, system=system, rounds=rounds,
                           tiebreaks=given, **extra)
    msg = envelope(cmd, stream=stream_for("tournament-t1", "commands"), seq=1,
                   occurred_at=dt_of(1_700_000_000_000), actor=Actor(kind="arbiter", id="a"),
                   event_id=UUID(int=1))
    (out,) = PairingCore().handle(msg)
    assert isinstance(out.payload, TournamentCreated) and out.payload.tiebreaks == recorded
