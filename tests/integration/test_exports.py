"""Export endpoints (issue 12): TRF, PGN and SGF as the project's own writers give them, each
read back by an independent reader: the TRF by the project's TRF reader (same points as the
crosstable, same text as ``arbiter export trf``), PGN by python-chess (the moves replay to the
mate) and the project's xiangqi PGN reader (WXF, ICCS), SGF by sgfmill (the real KGS 9x9 game
``maproom-gnugo3pt6.sgf``, W+5.5)."""
from __future__ import annotations

import io

import chess
import chess.pgn
from sgfmill import sgf

from contracts.messages import TOPICS
from services.tools.embedded import arbiter_client
from shared.domain.trf import parse_trf
from shared.domain.trfexport import export_trf
from shared.eventlog.base import applied_once
from shared.rules.xiangqi_record import parse_pgn
from tests.integration.test_go_gateway import play_disputed_game
from tests.integration.tournament_steps import paired_round, standings_after
from tests.unit.test_go_services import record_moves

SCHOLAR = ["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"]


async def _moves(c, gid: str, moves: list[str], white: str = "alice", black: str = "bob") -> None:
    for i, mv in enumerate(moves):
        r = await c.post(f"/games/{gid}/moves", json={"player_id": (white, black)[i % 2], "move": mv})
        assert r.status_code == 200, r.text


async def test_chess_pgn_replays_in_python_chess_and_go_is_refused():
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/games", json={"game_id": "sch", "white": "alice", "black": "bob",
                                         "time_control": "300+2"})
        assert r.status_code == 200
        await _moves(c, "sch", SCHOLAR)
        r = await c.get("/games/sch/pgn")
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/vnd.chess-pgn")
        game = chess.pgn.read_game(io.StringIO(r.text))
        assert game.headers["Result"] == "1-0" and game.headers["White"] == "alice"
        board = game.board()
        sans = []
        for mv in game.mainline_moves():
            sans.append(board.san(mv))
            board.push(mv)
        assert sans == SCHOLAR and board.is_checkmate()
        assert (await c.get("/games/sch/sgf")).json()["code"] == "wrong-game"
        assert (await c.get("/games/nope/pgn")).status_code == 404
        assert (await c.get("/games/sch/pgn?notation=klingon")).status_code == 422


async def test_xiangqi_pgn_in_chinese_wxf_and_iccs_reads_back():
    iccs = ["h2e2", "h9g7", "h0g2", "i9h9"]  # 炮二平五 马８进７ 马二进三 车９平８
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/games", json={"game_id": "xq", "white": "red", "black": "blk",
                                         "game": "xiangqi", "time_control": "600"})
        assert r.status_code == 200
        await _moves(c, "xq", iccs, "red", "blk")
        texts = {}
        for notation in ("chinese", "wxf", "iccs"):
            r = await c.get(f"/games/xq/pgn?notation={notation}")
            assert r.status_code == 200, r.text
            (rec,) = parse_pgn(r.text)
            assert rec.red == "red" and rec.black == "blk" and len(rec.moves) == 4
            texts[notation] = rec.move_texts
        assert [t.lower() for t in texts["iccs"]] == iccs
        assert texts["wxf"] == ["C2=5", "H8+7", "H2+3", "R9=8"]  # WXF as the project writes it
        assert texts["chinese"][0] == "炮二平五"


async def test_go_sgf_reads_in_sgfmill_with_the_count(shared_data):
    async with arbiter_client("memory", ticks=False) as c:
        g = await play_disputed_game(c, record_moves(shared_data))
        r = await c.get(f"/games/{g['game_id']}/sgf")
        assert r.status_code == 200, r.text
        game = sgf.Sgf_game.from_bytes(r.content)
        root = game.get_root()
        assert game.get_size() == 9 and root.get("KM") == 0.5 and root.get("RE") == "W+5.5"
        assert root.get("PW") == "alice" and root.get("PB") == "bob"
        played = [n.get_move() for n in game.get_main_sequence()[1:]]
        assert len(played) == len(g["moves"])
        assert played[0][0] == "b"
        assert (await c.get(f"/games/{g['game_id']}/pgn")).json()["code"] == "wrong-game"


async def test_trf_and_event_pgn_agree_with_the_crosstable_and_the_cli_export():
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/tournaments", json={"tournament_id": "rr", "name": "Club RR",
                                               "system": "round-robin", "time_control": "300"})
        assert r.status_code == 200
        for i in range(4):
            r = await c.post("/tournaments/rr/players", json={"player_id": f"p{i + 1}",
                                                              "name": f"Player {i + 1}", "rating": 2000 - i})
            assert r.status_code == 200
        assert (await c.post("/tournaments/rr/rounds", json={"round": 1})).status_code == 200
        rd = await paired_round(c, "rr", 1)
        b1, b2 = rd["boards"]
        await _moves(c, b1["game_id"], SCHOLAR, b1["white"], b1["black"])  # 1-0 on the board
        r = await c.post(f"/games/{b2['game_id']}/result", json={"result": "1/2-1/2", "reason": "agreed"})
        assert r.status_code == 200
        await standings_after(c, "rr", 1)
        r = await c.get("/tournaments/rr/trf")
        assert r.status_code == 200
        trf = parse_trf(r.text)
        cross = (await c.get("/tournaments/rr/crosstable")).json()
        by_name = {p.name: p.points for p in trf.players}
        assert by_name == {row["name"]: row["score"] for row in cross["rows"]}
        assert sorted(by_name.values()) == [0.0, 0.5, 0.5, 1.0]
        msgs = applied_once(await c.arbiter_log.read_many(TOPICS))
        assert r.text == export_trf(msgs, "rr")  # the CLI's file, byte for byte
        r = await c.get("/tournaments/rr/pgn")
        stream = io.StringIO(r.text)
        games = [chess.pgn.read_game(stream), chess.pgn.read_game(stream)]
        assert chess.pgn.read_game(stream) is None
        assert [g.headers["Result"] for g in games] == ["1-0", "1/2-1/2"]
        assert [g.headers["Event"] for g in games] == ["Club RR", "Club RR"]
        # the players' names, not their ids (PGN standard 8.1.1.6)
        assert [(g.headers["White"], g.headers["Black"]) for g in games] == [
            (f"Player {b['white'][1:]}", f"Player {b['black'][1:]}") for b in (b1, b2)]
        assert (await c.get("/tournaments/zz/trf")).status_code == 404


async def test_event_pgn_of_xiangqi_in_each_notation_reads_back():
    """``GET /tournaments/{tid}/pgn?notation=``: the event's xiangqi games in Chinese, WXF or
    ICCS notation, as each game's own export gives them (the organiser's page offers the
    choice); another notation is 422."""
    iccs = ["h2e2", "h9g7", "h0g2", "i9h9"]  # 炮二平五 马８进７ 马二进三 车９平８
    async with arbiter_client("memory", ticks=False) as c:
        r = await c.post("/tournaments", json={"tournament_id": "xq-rr", "name": "象棋小组赛", "game": "xiangqi",
                                               "system": "round-robin", "time_control": "600"})
        assert r.status_code == 200, r.text
        for pid in ("hong", "hei"):
            assert (await c.post("/tournaments/xq-rr/players", json={"player_id": pid, "name": pid})).status_code == 200
        assert (await c.post("/tournaments/xq-rr/rounds", json={"round": 1})).status_code == 200
        (b,) = (await paired_round(c, "xq-rr", 1))["boards"]
        await _moves(c, b["game_id"], iccs, b["white"], b["black"])
        texts = {}
        for notation in ("chinese", "wxf", "iccs"):
            r = await c.get(f"/tournaments/xq-rr/pgn?notation={notation}")
            assert r.status_code == 200, r.text
            (rec,) = parse_pgn(r.text)
            assert (rec.event, rec.red, rec.black) == ("象棋小组赛", b["white"], b["black"])
            assert r.text == (await c.get(f"/games/{b['game_id']}/pgn?notation={notation}")).text
            texts[notation] = rec.move_texts
        assert texts["chinese"] == ["炮二平五", "马８进７", "马二进三", "车９平８"]
        assert texts["wxf"] == ["C2=5", "H8+7", "H2+3", "R9=8"] and [t.lower() for t in texts["iccs"]] == iccs
        assert (await c.get("/tournaments/xq-rr/pgn?notation=klingon")).status_code == 422
