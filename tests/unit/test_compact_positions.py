"""Xiangqi and Go positions compacted (:meth:`shared.rules.games.Position.compact`, the form a
finished game is kept in, in memory and in snapshots) are the positions they were: every
reading after the rebuild equals an uncompacted twin's, moves noted while compacted included,
and the compacted form is a small fraction of the live one. Games are random legal games from
fixed seeds (void Go moves and a resumption of play included)."""
from __future__ import annotations

import pickle
import random

from shared.rules.games import GoPosition, XiangqiPosition, position


def _xiangqi_game(rng: random.Random, plies: int) -> list[str]:
    pos = XiangqiPosition(None)
    out = []
    for _ in range(plies):
        moves = pos.board.legal_moves()
        if not moves:
            break
        mv = rng.choice(moves)
        out.append(mv.iccs())
        pos.play(mv)
    return out


def _same_xiangqi(a: XiangqiPosition, b: XiangqiPosition) -> None:
    assert (b.fen(), b.ply, b.turn, b.status()) == (a.fen(), a.ply, a.turn, a.status())
    assert b.seen == a.seen
    assert [m.iccs() for m in b.board.move_stack] == [m.iccs() for m in a.board.move_stack]


def test_a_compacted_xiangqi_game_reads_as_it_was_and_is_a_tenth_of_the_size():
    rng = random.Random(1999)
    for _ in range(12):
        moves = _xiangqi_game(rng, rng.randint(20, 140))
        live, packed = XiangqiPosition(None), XiangqiPosition(None)
        cut = rng.randint(0, len(moves))
        for m in moves[:cut]:
            live.play_coord(m)
            packed.play_coord(m)
        packed.compact()
        for m in moves[cut:]:  # noted, not played, while compacted (adjudication's replay)
            live.play_coord(m)
            packed.play_coord(m)
        assert "board" not in packed.__dict__
        size = len(pickle.dumps(packed))
        if len(moves) >= 60:
            assert size * 10 < len(pickle.dumps(live)), (size, len(pickle.dumps(live)))
        _same_xiangqi(live, packed)  # rebuilt on the first reading
        nxt = live.board.legal_moves()
        if nxt:  # and it plays on as the live one does
            mv = rng.choice(nxt).iccs()
            assert packed.play(packed.parse(mv)) == live.play(live.parse(mv))


def test_a_compacted_go_game_keeps_its_history_ko_and_passes():
    """Superko needs the whole history: after the rebuild a move that repeats an earlier
    position is refused as in the live game; passes in a row (two stop play) and a void move
    (a pass on the board that does not count) come back too."""
    rng = random.Random(1988)
    for n in range(10):
        live = position("go", None, board_size=9, go_rules="chinese", handicap=0)
        played = 0
        while played < rng.randint(30, 120):
            pts = [f"{c}{r}" for c in "ABCDEFGHJ" for r in range(1, 10)]
            rng.shuffle(pts)
            move = next((t for t in pts if live.board.legality(live.point(t)) is None), "pass")
            if rng.random() < 0.05:
                live.play(None, void=True)
            else:
                live.play(live.parse(move))
            played += 1
        if n % 2:
            live.play(None)
            live.play(None)
            assert live.status() == "scoring"
            live.resume(live.turn)
        packed = pickle.loads(pickle.dumps(live))
        packed.compact()
        assert len(pickle.dumps(packed)) * 10 < len(pickle.dumps(live))
        packed = pickle.loads(pickle.dumps(packed))  # as a snapshot keeps it
        assert (packed.fen(), packed.ply, packed.turn, packed.status()) == \
               (live.fen(), live.ply, live.turn, live.status())
        assert packed.board.position_count() == live.board.position_count()
        for t in [f"{c}{r}" for c in "ABCDEFGHJ" for r in range(1, 10)] + ["pass"]:
            a, b = live.board.legality(live.point(t)), packed.board.legality(packed.point(t))
            assert (a is None) == (b is None) and (a is None or a.reason == b.reason), t
        assert packed.play(None) == live.play(None)


def test_a_position_from_a_snapshot_written_before_the_record_still_plays_and_ends():
    """Snapshots written before ``_init`` existed hold positions without it: compact leaves
    them as they are instead of failing, and they play on."""
    x = XiangqiPosition(None)
    del x.__dict__["_init"]
    x.compact()
    assert "board" in x.__dict__
    x.play(x.parse("h2e2"))
    g = position("go", None, board_size=9)
    del g.__dict__["_init"], g.__dict__["_ops"]
    g.play(g.parse("E5"))
    g.compact()
    assert g.ply == 1 and "board" in g.__dict__
