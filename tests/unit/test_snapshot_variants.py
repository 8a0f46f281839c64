"""Snapshots written a game at a time (shared.snapshot) on a log of every game and arbiter action
the game process decides: chess, xiangqi and Go games side by side, with pauses, penalties,
fouls, draw offers and claims, absences and arrivals, waiting games started on command, Go's
stone removal (proposals, agreements, rejections, rulings, expiries) and flags called by the
timer's CheckClock. The property of tests/unit/test_snapshot.py on it: a snapshot started at
any point while the rest of the log is decided holds the state of its instant byte for byte,
and the processor loaded from it decides what follows as the one that went on."""
from __future__ import annotations

import collections
import functools
import pickle
import random

import pytest

from contracts.messages import (
    AcceptDead, AcceptDraw, ClaimDraw, CreateGame, DeclineDraw, IssuePenalty, MarkDead, OfferDraw,
    PauseClock, RecordResult, RejectDead, ReportAbsence, ReportArrival, Resign, ResumeClock,
    RuleDeadStones, StartPlay, SubmitMove,
)
from services.system import make_processor
from shared.rules import go
from contracts.envelope import Actor
from tests.unit.test_game_services import ARBITER, ORGANISER, S, Bus
from tests.unit.test_snapshot import snapshot_while_deciding

_TCS = {"chess": ["600+5", "300+2", "90+0", "120d2", "900"], "xiangqi": ["600+5", "xiangqi-6.1", "120"],
        "go": ["600+5", "60 3x10 byo-yomi", "120 5/60 Canadian", "-"]}


def player(pid: str) -> Actor:
    return Actor(kind="player", id=pid)


def _who(g, colour: str) -> str:
    return g.white if colour == "white" else g.black


def _legal(g, rng: random.Random) -> str | None:
    """A legal move of the side to move in validation's game ``g`` (None: none)."""
    pos = g.pos
    if pos.game == "chess":
        moves = list(pos.board.legal_moves)
        return rng.choice(moves).uci() if moves else None
    if pos.game == "xiangqi":
        moves = pos.board.legal_moves()
        return rng.choice(moves).iccs() if moves else None
    if rng.random() < 0.15 + 0.01 * pos.ply:  # Go: passes grow likelier as the game goes on
        return "pass"
    size = pos.board.size
    for _ in range(20):
        p = (rng.randrange(size), rng.randrange(size))
        if pos.board.legality(p) is None:
            return go.to_gtp(p, size)
    return "pass"


@functools.lru_cache(maxsize=4)
def _log(seed: int = 7, games: int = 150, steps: int = 7000) -> tuple:
    """Every message of a game process that decided ``games`` games of the three kinds for
    ``steps`` random commands (and the timer's CheckClock every few), in order."""
    rng = random.Random(seed)
    bus = Bus()
    v = bus.validation
    t = 0
    for i in range(games):
        kind = ("chess", "xiangqi", "go")[i % 3]
        kw = dict(game=kind, time_control=rng.choice(_TCS[kind]), default_time_s=rng.choice([0, 5, 30]))
        if kind == "go":
            kw.update(board_size=rng.choice([5, 7]), stone_removal_s=rng.choice([3, 10]),
                      go_rules=rng.choice(["chinese", "japanese"]),
                      void_moves=rng.choice(["refuse", "pass"]))
        if rng.random() < 0.2:
            kw["clock_start"] = "on-command"
        t += 50
        bus.send(CreateGame(game_id=f"g{i}", white=f"w{i}", black=f"b{i}", **kw), at=t, actor=ORGANISER)
    ids = [f"g{i}" for i in range(games)]
    for step in range(steps):
        t += rng.randint(20, 400)
        if step % 7 == 0:
            bus.tick(t)
        gid = rng.choice(ids)
        g = v.games[gid]
        if g.over and rng.random() < 0.9:
            continue
        to_move = g.pos.turn if not g.over else "white"
        mover, other = _who(g, to_move), _who(g, "black" if to_move == "white" else "white")
        r = rng.random()
        if g.waiting:
            cmd, actor = StartPlay(game_id=gid), ORGANISER
        elif g.pos.game == "go" and g.scoring and not g.counting:
            a = rng.random()
            stones = list(g.pos.board.stones)
            size = g.pos.board.size
            dead = tuple(go.to_gtp(p, size) for p in rng.sample(stones, min(len(stones), rng.randint(0, 2))))
            who = rng.choice([g.white, g.black])
            if not g.proposals and a < 0.6 or a < 0.2:
                cmd, actor = MarkDead(game_id=gid, player_id=who, dead=dead), player(who)
            elif a < 0.6:  # mostly the opponent of the proposal's author
                if g.proposals and rng.random() < 0.8:
                    who = _who(g, "black" if next(iter(g.proposals)) == "white" else "white")
                cmd, actor = AcceptDead(game_id=gid, player_id=who), player(who)
            elif a < 0.75:
                cmd, actor = RejectDead(game_id=gid, player_id=who), player(who)
            elif a < 0.85:
                cmd, actor = RuleDeadStones(game_id=gid, dead=dead, reason="ruled"), ARBITER
            else:  # let the stone-removal time run out
                t += g.removal_limit_ms // 2
                continue
        elif r < 0.62 or g.pos.game == "go" and rng.random() < 0.5:
            mv = _legal(g, rng) if rng.random() < 0.95 else "zz9"
            if mv is None:
                continue
            who = mover if rng.random() < 0.97 else other
            cmd, actor = SubmitMove(game_id=gid, player_id=who, move=mv), player(who)
        elif r < 0.66:
            cmd, actor = OfferDraw(game_id=gid, player_id=other), player(other)
        elif r < 0.69:
            who = rng.choice([mover, other])
            cmd, actor = (AcceptDraw if rng.random() < 0.5 else DeclineDraw)(game_id=gid, player_id=who), player(who)
        elif r < 0.71:
            reason = {"chess": rng.choice(["threefold", "fifty-moves"]),
                      "xiangqi": rng.choice(["natural-limit", "repetition"]), "go": "threefold"}[g.pos.game]
            cmd, actor = ClaimDraw(game_id=gid, player_id=mover, reason=reason), player(mover)
        elif r < 0.76:
            cmd, actor = PauseClock(game_id=gid, reason="incident"), ARBITER
        elif r < 0.81:
            cmd, actor = ResumeClock(game_id=gid, reason="resumed"), ARBITER
        elif r < 0.88:
            kind = rng.choice(["warning", "time-penalty", "time-bonus", "foul", "played-twice", "warning"])
            cmd, actor = IssuePenalty(game_id=gid, player_id=rng.choice([mover, other]), kind=kind,
                                      ms=rng.choice([0, 2000, 9000]), note="n"), ARBITER
        elif r < 0.91:
            cmd, actor = ReportAbsence(game_id=gid, player_id=rng.choice([mover, other]),
                                       both=rng.random() < 0.3), ARBITER
        elif r < 0.94:
            cmd, actor = ReportArrival(game_id=gid, player_id=rng.choice([mover, other])), ARBITER
        elif r < 0.96:
            cmd, actor = Resign(game_id=gid, player_id=mover), player(mover)
        elif r < 0.965:
            cmd, actor = RecordResult(game_id=gid, result=rng.choice(["1-0", "0-1", "1/2-1/2"])), ARBITER
        else:  # time passes: flags fall on the next tick
            t += rng.randint(2, 15) * S
            continue
        bus.send(cmd, at=t, actor=actor)
    bus.tick(t + 120 * S)
    return tuple(bus.log)


def _inputs(log) -> list:
    topics = set(make_processor("game").inputs)
    return [m for m in log if m.payload.TOPIC in topics]


def test_the_log_holds_every_kind_of_decision():
    """The log below is what it claims: each kind of game and arbiter action decided."""
    kinds = collections.Counter(m.type for m in _log())
    for t in ("MoveAccepted", "MoveRejected", "FlagFell", "ClockPaused", "ClockResumed",
              "ClockAdjusted", "PenaltyApplied", "DrawOffered", "DrawAgreed", "DrawOfferDeclined",
              "DrawClaimRejected", "DeadStonesProposed", "ScoringAgreed", "DeadStonesRuled",
              "PlayResumed", "StoneRemovalExpired", "GameScored", "PlayStarted", "Resigned",
              "ResultRecorded", "CheckClock", "ArrivalReported", "ClockStopped"):
        assert kinds[t] > 0, (t, kinds)
    ends = collections.Counter(m.payload.reason for m in _log() if m.type == "GameEnded")
    assert {"timeout", "forfeit", "resignation", "counting", "agreement"} <= set(ends), ends
    assert len({m.payload.game_id for m in _log() if m.type == "GameEnded"}) > 60


@pytest.mark.parametrize("at,every", [(0.2, 1), (0.5, 5), (0.8, 3), (0.5, 10_000)])
def test_every_game_kind_and_arbiter_action_keeps_the_instant(at, every):
    """A snapshot started after ``at`` of the inputs, written a few entries every ``every``
    inputs while the rest is decided (and the timer's schedule read, as the loop does), loads
    as the instant's state byte for byte and decides the rest as the processor that went on;
    the two end with the same standing deadlines."""
    inputs = _inputs(_log())
    cut = int(len(inputs) * at)
    at_instant, loaded, after, proc = snapshot_while_deciding(inputs, cut, every)
    assert pickle.dumps(loaded) == at_instant
    again = [d for m in inputs[cut:] for d in loaded.decide(m)]
    assert len(after) > 500
    assert [d.model_dump_json() for d in again] == [d.model_dump_json() for d in after]
    clock, went_on = loaded.core("clock"), proc.core("clock")
    standing = {g: ds for g, ds in clock.standing.items() if ds}  # (a rebuilt one lists every game)
    assert standing == went_on.standing and standing  # the rebuilt timer schedule is the live one
    assert loaded.next_deadline() is not None
