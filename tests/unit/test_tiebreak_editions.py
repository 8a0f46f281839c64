"""FIDE tie-break editions chosen per event (issue 13 item 7): which edition an event gets,
the refusals, and the edition named in TournamentCreated, StandingsUpdated and the API."""
from __future__ import annotations

from datetime import date, datetime, timezone
from uuid import UUID

import pytest

from contracts.envelope import Actor, stream_for
from contracts.messages import (
    CreateTournament, GameEnded, RegisterPlayer, Rule, StartRound, TournamentCommandRejected,
    TournamentCreated, envelope,
)
from services.pairing.service import PairingCore
from services.standings.core import TIEBREAK_EDITIONS, StandingsError, compute_standings, tiebreak_edition
from services.standings.service import StandingsCore
from tests.unit.test_tiebreaks_fide2023 import SW_BYES, SW_GAMES, SW_PLAYERS

ARBITER = Actor(kind="arbiter", id="a")
DEC_2026 = datetime(2026, 12, 2, 9, tzinfo=timezone.utc)


@pytest.mark.parametrize("day, edition", [
    (date(2023, 9, 1), "fide2023"),   # C.07 approved 1 Aug 2023, applied from 1 Sep 2023
    (date(2024, 3, 31), "fide2023"),
    (date(2024, 4, 1), "fide2024"),   # the text effective from 1 Apr 2024
    (date(2026, 2, 28), "fide2024"),
    (date(2026, 3, 1), "fide2024"),   # the 2026 regulations are not implemented: the latest that is
    (date(2020, 1, 1), "fide2023"),   # before 2023: the earliest implemented
])
def test_an_event_without_a_choice_gets_the_edition_in_force_on_its_date(day, edition):
    assert tiebreak_edition(None, day) == edition


def test_a_chosen_edition_is_kept_whatever_the_date():
    assert tiebreak_edition("fide2023", date(2026, 12, 2)) == "fide2023"
    assert tiebreak_edition("fide2024", date(2023, 9, 1)) == "fide2024"


def test_unknown_and_unimplemented_editions_are_refused():
    with pytest.raises(StandingsError, match="unknown tie-break edition 'fide2025'; implemented: fide2023, fide2024"):
        tiebreak_edition("fide2025", date(2026, 12, 2))
    with pytest.raises(StandingsError, match=r"fide2026 \(in force from 2026-03-01\) is not implemented"):
        tiebreak_edition("fide2026", date(2026, 12, 2))


def test_fide2024_counts_unplayed_rounds_as_the_2023_text():
    """FIDE's news of 19 Jan 2024: the 2024 text changed no tie-break definition. The Swiss of
    test_tiebreaks_fide2023 (a forfeit, a pairing-allocated bye, an absence) keeps the values
    worked there by hand under art. 16: dummy opponents with the player's own score, VURs cut
    first (BH-C1), an absent opponent's later rounds as draws."""
    st = compute_standings(SW_PLAYERS, SW_GAMES, SW_BYES, ("BH", "BH-C1", "SB"),
                           unplayed=TIEBREAK_EDITIONS["fide2024"].unplayed)
    tb = {r.id: r.tiebreaks for r in st.rows}
    assert [tb[x]["BH"] for x in "ABCD"] == [4.0, 5.5, 5.5, 3.0]
    assert [tb[x]["BH-C1"] for x in "ABCD"] == [3.5, 4.0, 4.0, 2.5]
    assert [tb[x]["SB"] for x in "ABCD"] == [3.0, 3.5, 2.5, 1.0]


def _create(when: datetime = DEC_2026, **kw):
    cmd = CreateTournament(tournament_id="t1", name="t", **{"system": "round-robin", **kw})
    msg = envelope(cmd, stream=stream_for("tournament-t1", "commands"), seq=1, occurred_at=when,
                   actor=ARBITER, event_id=UUID(int=1))
    core = PairingCore()
    return core, core.handle(msg)[0].payload


@pytest.mark.parametrize("when, given, recorded", [
    (DEC_2026, None, "fide2024"),
    (datetime(2023, 11, 14, tzinfo=timezone.utc), None, "fide2023"),
    (DEC_2026, "fide2023", "fide2023"),
])
def test_tournament_created_records_the_edition(when, given, recorded):
    _, ev = _create(when, system="swiss", rounds=5, tiebreak_edition=given)
    assert isinstance(ev, TournamentCreated) and ev.tiebreak_edition == recorded


@pytest.mark.parametrize("kw", [{"game": "xiangqi"}, {"game": "go", "system": "mcmahon", "rounds": 3,
                                                       "mcmahon_bar": "1d", "mcmahon_floor": "10k"},
                                {"system": "knockout"}])
def test_events_ranked_by_other_rules_record_no_edition(kw):
    assert _create(**kw)[1].tiebreak_edition is None


@pytest.mark.parametrize("kw, reason", [
    ({"tiebreak_edition": "fide2025"}, "unknown tie-break edition 'fide2025'"),
    ({"tiebreak_edition": "fide2026"}, "fide2026 (in force from 2026-03-01) is not implemented"),
    ({"tiebreak_edition": "fide2024", "game": "xiangqi"}, "ranks by xiangqi competition rules 1999 art. 15.1"),
    ({"tiebreak_edition": "fide2024", "system": "knockout"}, "ranks by knockout places"),
])
def test_a_bad_edition_is_rejected_with_its_reason(kw, reason):
    core, ev = _create(**kw)
    assert isinstance(ev, TournamentCommandRejected) and ev.code == "invalid" and reason in ev.reason
    assert not core.tournaments


def test_standings_and_the_api_name_the_edition():
    """Two players, round robin created with fide2023, one game drawn: StandingsUpdated and the
    gateway's tournament and standings views name fide2023."""
    from services.gateway.readmodel import TournamentView

    core, created = _create(tiebreak_edition="fide2023")
    events = [created]
    for seq, pid in enumerate(("ann", "ben"), start=2):
        cmd = RegisterPlayer(tournament_id="t1", player_id=pid, name=pid)
        events += [e.payload for e in core.handle(envelope(cmd, stream=stream_for("tournament-t1", "commands"),
                                                           seq=seq, occurred_at=DEC_2026, actor=ARBITER))]
    start = StartRound(tournament_id="t1", round=1)
    events += [e.payload for e in core.handle(envelope(start, stream=stream_for("tournament-t1", "commands"),
                                                       seq=4, occurred_at=DEC_2026, actor=ARBITER))]
    standings, view = StandingsCore(), TournamentView("t1")
    out = []
    for seq, ev in enumerate(events, start=1):
        msg = envelope(ev, stream="tournament-t1", seq=seq, occurred_at=DEC_2026, actor=ARBITER)
        view.apply(msg)
        out += standings.handle(msg)
    ended = GameEnded(game_id="t1-r1-b1", result="1/2-1/2", reason="agreement",
                      rule=Rule(ruleset="FIDE-1994", article="10.6"))
    out += standings.handle(envelope(ended, stream="game-t1-r1-b1.result", seq=1, occurred_at=DEC_2026,
                                     actor=ARBITER))
    (upd,) = [e.payload for e in out]
    assert upd.tiebreak_edition == "fide2023" and [r.score for r in upd.rows] == [0.5, 0.5]
    view.apply(envelope(upd, stream="tournament-t1.standings", seq=1, occurred_at=DEC_2026, actor=ARBITER))
    assert view.to_dict()["tiebreak_edition"] == "fide2023"
    assert view.standings_dict()["tiebreak_edition"] == "fide2023"
