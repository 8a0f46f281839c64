"""Every chess PGN in ../shared/data replayed through validation and adjudication.

All recorded moves must be accepted, and every game the rules end on the board must end the same
way. The expected counts are those of ../shared/data/PROVENANCE.md (found there by python-chess
on the final positions and by the files' Termination tags).
"""
from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter

import chess
import chess.pgn
import pytest

from services.tools.replay import replay_files

PGN = "data/chess/pgn"
EXPECTED = {  # file -> (games, moves, reasons the platform decides on the board)
    "chesscom-blitz-3min-823-games-2024.pgn":
        (823, 47241, {"checkmate": 303, "stalemate": 10, "threefold": 7, "insufficient-material": 1}),
    "lichess-DrDrunkenstein-bullet-984-games.pgn":
        (984, 80386, {"checkmate": 140, "threefold": 23, "insufficient-material": 19, "stalemate": 5}),
    "lichess-mliebelt-8-games-2023-12.pgn": (8, 604, {"checkmate": 1}),
    "chebanenko-memorial-2020-round-robin-10-players.pgn":
        (45, 4246, {"threefold": 9, "checkmate": 1, "insufficient-material": 1}),
}


@pytest.mark.realdata
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_replay_real_pgn(shared_data, name):
    path = shared_data(f"{PGN}/{name}")
    rows = replay_files([path])
    games, moves, reasons = EXPECTED[name]
    assert len(rows) == games
    assert sum(r["moves"] for r in rows) == moves
    assert [r for r in rows if r["first_rejected"]] == []
    assert all(r["accepted"] == r["moves"] for r in rows)
    decided = Counter(r["reason"] for r in rows if r["result"] != "*")
    assert dict(decided) == reasons
    # every result the platform decides on the board is the recorded one
    assert [r for r in rows if r["result"] != "*" and r["result"] != r["recorded_result"]] == []
    # and independently of our code: python-chess's view of each final position
    with open(path, encoding="utf-8") as f:
        for row in rows:
            game = chess.pgn.read_game(f)
            board = game.end().board()
            if board.is_checkmate():
                assert (row["result"], row["reason"]) == (game.headers["Result"], "checkmate")
                assert row["rule"]["article"] == "10.1"
            elif board.is_stalemate():
                assert (row["result"], row["reason"]) == ("1/2-1/2", "stalemate")
            elif board.is_insufficient_material():
                assert (row["result"], row["reason"]) == ("1/2-1/2", "insufficient-material")


def test_replay_cli_json(shared_data, tmp_path):
    path = shared_data(f"{PGN}/lichess-mliebelt-8-games-2023-12.pgn")
    out = tmp_path / "replay.json"
    r = subprocess.run([sys.executable, "-m", "services.cli", "replay", str(path), "--json", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads(out.read_text())
    assert len(data["games"]) == 8
    row = data["games"][0]
    assert set(row) >= {"file", "index", "moves", "accepted", "first_rejected", "recorded_result",
                        "result", "reason"}
    # the underpromotion a1=N of this file is accepted
    assert all(g["first_rejected"] is None for g in data["games"])


def test_replay_reports_first_illegal_move(tmp_path):
    pgn = tmp_path / "bad.pgn"
    pgn.write_text('[White "a"]\n[Black "b"]\n[Result "*"]\n\n1. e4 e5 2. Ke2 Ke7 3. Kf5 *\n')
    rows = replay_files([pgn])
    # python-chess stops reading at the illegal SAN; the four moves before it are accepted
    assert rows[0]["accepted"] == 4
    assert rows[0]["first_rejected"]["ply"] == 5
    assert "Kf5" in rows[0]["first_rejected"]["reason"]


def test_replay_rejects_illegal_uci_with_reason():
    from services.tools.replay import replay_game
    from shared.rules.pgnrecord import RecordedGame

    g = RecordedGame(0, {"Result": "*"}, moves=["e2e4", "e7e5", "e1e3"], sans=["e4", "e5", "Ke3"],
                     clocks_ms=[None] * 3)
    row = replay_game("x.pgn", g)
    assert row["accepted"] == 2
    assert row["first_rejected"] == {"ply": 3, "move": "Ke3", "reason": "e1e3 is not legal in this position"}
