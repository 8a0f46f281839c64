"""A decision too large for the event log is refused in its place (issue 10, bad input and
faults): Kafka's default ``max.message.bytes`` is 1,048,588 bytes a record batch, and a broker
that refuses a record refuses its whole transaction, again at every restart. The processor
replaces such a decision, on its own stream and seq, by a rejection with code
``decision-too-large``; the rule depends on the decision alone, so a re-derivation (the audit)
gives the same bytes."""
from __future__ import annotations

import uuid

from contracts.envelope import Actor, dt_of
from contracts.messages import (
    GAME_COMMANDS, TOURNAMENT_COMMANDS, GameCommandRejected, RegisterPlayer, StandingRow,
    StandingsUpdated, SubmitMove, envelope,
)
from shared.service import MAX_EVENT_BYTES, Core, Emit, Processor


class _Echo(Core):
    """Answers each SubmitMove with a GameCommandRejected whose reason is ``move`` repeated
    ``n`` times when the move is ``big`` (a core whose decision grows with its state)."""

    name, inputs = "echo", (GAME_COMMANDS,)

    def __init__(self, n: int) -> None:
        self.n = n

    def handle(self, msg):
        p = msg.payload
        reason = "x" * self.n if p.move == "big" else "fine"
        return [Emit(f"game-{p.game_id}.echo", GameCommandRejected(
            game_id=p.game_id, command_id=str(msg.event_id), command_type=msg.type,
            code="invalid", reason=reason))]


class _Standings(Core):
    """Publishes standings of ``players`` rows, as the standings core words them, on a
    registration."""

    name, inputs = "standings", (TOURNAMENT_COMMANDS,)

    def __init__(self, players: int) -> None:
        self.players = players

    def handle(self, msg):
        tid = msg.payload.tournament_id
        rows = tuple(StandingRow(rank=i + 1, player_id=f"p{i:05d}", name=f"Player Number {i:05d}",
                                 score=4.5, games=9, tiebreaks={"BH-C1": 38.5, "BH": 41.0, "SB": 27.25,
                                                                "AROC-C1": 1873.4})
                     for i in range(self.players))
        return [Emit(f"tournament-{tid}.standings",
                     StandingsUpdated(tournament_id=tid, round=9, order=("BH-C1", "BH", "SB", "AROC-C1"),
                                      rows=rows))]


def _move(gid: str, seq: int, move: str):
    return envelope(SubmitMove(game_id=gid, player_id="w", move=move), stream=f"game-{gid}.commands.c1",
                    seq=seq, occurred_at=dt_of(1_700_000_000_000 + seq), actor=Actor(kind="player", id="w"),
                    event_id=uuid.UUID(int=seq))


def test_an_oversized_game_decision_becomes_a_rejection_on_its_stream_and_seq():
    moves = [_move("g1", 1, "e4"), _move("g1", 2, "big"), _move("g1", 3, "Nf3")]
    proc = Processor([_Echo(1_200_000)])
    out = [d for m in moves for d in proc.decide(m)]
    assert [(d.stream, d.seq, d.payload.code) for d in out] == [
        ("game-g1.echo", 1, "invalid"), ("game-g1.echo", 2, "decision-too-large"),
        ("game-g1.echo", 3, "invalid")]
    refused = out[1]
    assert refused.payload.command_id == str(moves[1].event_id)
    assert refused.payload.command_type == "SubmitMove"
    assert "1,200," in refused.payload.reason and f"{MAX_EVENT_BYTES:,}" in refused.payload.reason
    assert refused.causation_id == moves[1].event_id
    assert len(refused.model_dump_json()) < 1_000
    # the audit's re-derivation: a fresh processor on the same input writes the same bytes
    fresh = Processor([_Echo(1_200_000)])
    again = [d for m in moves for d in fresh.decide(m)]
    assert [d.model_dump_json() for d in again] == [d.model_dump_json() for d in out]


def test_a_decision_at_the_limit_is_published_as_it_is():
    base = len(Processor([_Echo(0)]).decide(_move("g1", 1, "big"))[0].model_dump_json())
    fits = MAX_EVENT_BYTES - base
    out = Processor([_Echo(fits)]).decide(_move("g1", 1, "big"))
    assert out[0].payload.code == "invalid" and len(out[0].model_dump_json().encode()) == MAX_EVENT_BYTES
    out = Processor([_Echo(fits + 1)]).decide(_move("g1", 1, "big"))
    assert out[0].payload.code == "decision-too-large"


def test_the_standings_of_a_national_open_fit_until_about_seven_thousand_players():
    """A standings row as the standings core writes it is ~135 bytes of JSON with four tie-breaks:
    6,000 players fit, 8,000 exceed the limit and are refused (the table stays derivable from
    the results; paging it is a follow-up)."""
    reg = envelope(RegisterPlayer(tournament_id="t1", player_id="p1", name="P"),
                   stream="tournament-t1.commands.c1", seq=1, occurred_at=dt_of(1_700_000_000_000),
                   actor=Actor(kind="organiser", id="o"))
    six = Processor([_Standings(6_000)]).decide(reg)
    assert six[0].type == "StandingsUpdated" and len(six[0].payload.rows) == 6_000
    eight = Processor([_Standings(8_000)]).decide(reg)
    assert eight[0].type == "TournamentCommandRejected"
    assert eight[0].payload.code == "decision-too-large" and eight[0].payload.tournament_id == "t1"
    assert (eight[0].stream, eight[0].seq) == ("tournament-t1.standings", 1)


def test_the_gateway_says_why_standings_were_withheld():
    """/tournaments/{id}/standings keeps the last standings published and names the refusal of
    a later round's (instead of answering round 0 with no rows and no reason)."""
    from services.gateway.readmodel import TournamentView

    reg = envelope(RegisterPlayer(tournament_id="t1", player_id="p1", name="P"),
                   stream="tournament-t1.commands.c1", seq=1, occurred_at=dt_of(1_700_000_000_000),
                   actor=Actor(kind="organiser", id="o"))
    view = TournamentView("t1")
    view.apply(Processor([_Standings(8_000)]).decide(reg)[0])
    shown = view.standings_dict()
    assert shown["rows"] == [] and "over the event log's limit of 1,000,000" in shown["withheld"]
    view.apply(Processor([_Standings(3)]).decide(reg)[0])
    shown = view.standings_dict()
    assert [r["player_id"] for r in shown["rows"]] == ["p00000", "p00001", "p00002"]
    assert "withheld" not in shown
