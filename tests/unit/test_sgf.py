"""SGF FF[4] reading and writing (shared/rules/sgf.py), on small hand-written records.

Coordinates: SGF letters count columns from the left and rows from the TOP; the engine's Point is
(column, row) with row 0 at the bottom. On 19x19 "dp" = column d (3), SGF row p (15) from the top
= row 18 - 15 = 3 from the bottom -> (3, 3) = GTP D4.
"""
from __future__ import annotations

import pytest

from shared.rules import go
from shared.rules.sgf import (
    GameResult, GoRecord, Overtime, SgfError, dead_from_marks, parse_overtime, parse_result,
    play_record, read_sgf, write_sgf,
)

FULL = (b"(;GM[1]FF[4]CA[UTF-8]SZ[19]RU[Japanese]KM[6.50]HA[2]AB[dp][pd]"
        b"PB[Black Player]PW[White Player]BR[3d]WR[5d]DT[2004-04-10]EV[Test Cup]RO[3]"
        b"TM[600]OT[25/600 Canadian]RE[W+12.50]"
        b";W[dd]WL[590.5];B[pp]BL[580]OB[3];W[];B[]TB[aa][ba]TW[ss])")


def test_full_record_fields():
    r = read_sgf(FULL)
    assert (r.size, r.rules, r.komi, r.handicap) == (19, "japanese", 6.5, 2)
    # dp = (3, 3) = D4, pd = (15, 15) = Q16 (see the module docstring)
    assert r.setup_black == ((3, 3), (15, 15))
    assert [go.to_gtp(p, 19) for p in r.setup_black] == ["D4", "Q16"]
    assert r.setup_white == ()
    # dd = D16 = (3, 15); pp = Q4 = (15, 3); W[] and B[] are passes
    assert r.moves == [("white", (3, 15)), ("black", (15, 3)), ("white", None), ("black", None)]
    assert r.first_turn() == "white"
    assert r.times == {1: (590.5, None), 2: (580.0, 3)}
    assert r.result == GameResult("W+12.50", "white", "score", 12.5)
    assert r.result.text == "W+12.5"
    # aa = A19 = (0, 18), ba = B19 = (1, 18), ss = T1 = (18, 0)
    assert r.territory_black == {(0, 18), (1, 18)} and r.territory_white == {(18, 0)}
    assert r.time.main_s == 600.0 and r.time.overtime == Overtime("canadian", 600.0, moves=25)
    assert r.info == {"PB": "Black Player", "PW": "White Player", "BR": "3d", "WR": "5d",
                      "DT": "2004-04-10", "EV": "Test Cup", "RO": "3"}
    assert r.notes == []


def test_round_trip_full_record():
    r = read_sgf(FULL)
    again = read_sgf(write_sgf(r))
    assert again == r
    assert again.result.raw == "W+12.50" and again.time.overtime_raw == "25/600 Canadian"


def test_round_trip_built_record_with_every_rules_name():
    for rules, ru in (("chinese", b"RU[Chinese]"), ("japanese", b"RU[Japanese]"), ("ing", b"RU[GOE]")):
        rec = GoRecord(size=9, rules=rules, komi=-3.5, moves=[("black", (4, 4)), ("white", None)],
                       result=parse_result("Void"), info={"PB": "黑方 \\ x]"})
        data = write_sgf(rec)
        assert ru in data
        assert read_sgf(data) == rec


@pytest.mark.parametrize("ru,rules", [
    ("Chinese", "chinese"), ("CN", "chinese"), ("Japanese", "japanese"), ("Korean", "korean"),
    ("AGA", "aga"), ("GOE", "ing"), ("Ing", "ing"), ("NZ", "nz"), ("New Zealand", "nz"),
    ("Tromp/Taylor", "tromp-taylor"), ("Tromp-Taylor", "tromp-taylor"),
])
def test_rules_names(ru, rules):
    r = read_sgf(f"(;GM[1]SZ[9]RU[{ru}])".encode())
    assert r.rules == rules and r.rules_raw == ru
    assert r.notes == [] and r.warnings == []


def test_no_rules_means_chinese_and_says_so():
    r = read_sgf(b"(;GM[1]SZ[13];B[gg])")
    assert r.rules == "chinese" and r.komi is None
    assert r.notes == ["no RU: chinese rules assumed (the platform default)"]


def test_yuanyu_komi_ko_and_byo_yomi():
    # AlphaGo - Fan Hui files (YuanYu): komi as KO[7.5], no KM; LC[3] LT[30] = 3x30 s byo-yomi
    r = read_sgf(b"(;GM[1]FF[4]AP[YuanYu]SZ[19]TM[60]LT[30]LC[3]KO[7.5]RE[B+R];B[pd])")
    assert r.komi == 7.5
    assert r.time.overtime == Overtime("byo-yomi", 30.0, periods=3) and r.time.overtime_raw is None
    assert r.result == GameResult("B+R", "black", "resign")
    assert any("KO[7.5]" in n for n in r.notes)


def test_tencent_semifinal_komi_in_stones_x100():
    # KM[375]: 3.75 stones x 100; Chinese counting, one stone = 2 points -> 7.5 points
    r = read_sgf(b"(;GM[1]SZ[19]KM[375]HA[0]RU[Chinese]TC[5]TT[60]RE[W+R])")
    assert r.komi == 7.5
    assert "KM[375] read as 3.75 stones x100 = 7.5 points" in r.notes
    assert r.time.overtime == Overtime("byo-yomi", 60.0, periods=5)
    # a komi below 100 is points as written
    assert read_sgf(b"(;GM[1]SZ[19]KM[75])").komi == 75.0


@pytest.mark.parametrize("re_,winner,kind,margin,text", [
    ("B+3.5", "black", "score", 3.5, "B+3.5"), ("W+0.50", "white", "score", 0.5, "W+0.5"),
    ("B+0.2", "black", "score", 0.2, "B+0.2"),
    ("W+R", "white", "resign", None, "W+R"), ("B+Resign", "black", "resign", None, "B+R"),
    ("B+T", "black", "time", None, "B+T"), ("W+Time", "white", "time", None, "W+T"),
    ("B+F", "black", "forfeit", None, "B+F"), ("W+", "white", "win", None, "W+"),
    ("0", None, "draw", None, "Draw"), ("Draw", None, "draw", None, "Draw"),
    ("Void", None, "void", None, "Void"), ("?", None, "unknown", None, "?"),
])
def test_results(re_, winner, kind, margin, text):
    res = parse_result(re_)
    assert (res.winner, res.kind, res.margin, res.text) == (winner, kind, margin, text)


@pytest.mark.parametrize("bad", ["B+3.5x", "X+R", "W+-2", "black wins"])
def test_bad_results(bad):
    with pytest.raises(SgfError, match="RE"):
        parse_result(bad)


def test_overtime_forms():
    assert parse_overtime("3x60 byo-yomi") == Overtime("byo-yomi", 60.0, periods=3)
    assert parse_overtime("25/600 Canadian") == Overtime("canadian", 600.0, moves=25)
    assert parse_overtime("10 fischer") == Overtime("fischer", 10.0)
    assert parse_overtime("sudden death") is None


@pytest.mark.parametrize("data,match", [
    (b"hello", "not a readable SGF"),
    (b"(;GM[1]SZ[19];B[aa]", "not a readable SGF"),
    (b"(;GM[2]SZ[8])", r"GM\[2\]"),
    (b"(;GM[1]SZ[9];B[zz])", r"ply 1: move \[zz\] is off the 9x9"),
    (b"(;GM[1]SZ[19]KM[six])", r"KM\[six\]"),
    (b"(;GM[1]SZ[19]HA[lots])", r"HA\[lots\]"),
    (b"(;GM[1]SZ[19]HA[1])", r"HA\[1\]"),
    (b"(;GM[1]SZ[9];B[ee];AB[aa])", "node 2: setup stones"),
    # a setup that is no position (the tester's files): a point twice, stones without liberties
    (b"(;GM[1]FF[4]SZ[9]AB[ee]AW[ee];W[dd])", "root AB/AW: E5 is set up as both a black and a white"),
    (b"(;GM[1]FF[4]SZ[9]AB[aa:ii];W[ee])", "root AB/AW: setup black stones at A1 have no liberties"),
    # one move per node (FF[4]): B and W in one node would drop one of them
    (b"(;SZ[9];B[ee]W[dd])", r"node 1: holds both a black and a white move"),
    (b"(;GM[1]SZ[9];B[ee];W[dd];B[cc]W[gg])", r"node 3: holds both"),
    # several game trees: which one is meant is ambiguous, refused
    (b"(;GM[1]FF[4]SZ[9];B[ee])(;GM[1]FF[4]SZ[9];B[dd])", "the file holds 2 game trees"),
    # HA above the fixed placements (9, the gateway's limit) or not the AB stones placed
    (b"(;GM[1]FF[4]SZ[19]HA[30];B[ee])", r"HA\[30\]: not a number of handicap stones \(0, or 2 to 9\)"),
    (b"(;GM[1]FF[4]SZ[19]HA[2];B[ee])", r"HA\[2\] with 0 AB and 0 AW setup stones"),
    (b"(;GM[1]FF[4]SZ[19]HA[2]AB[dd][pp][dp];W[ee])", r"HA\[2\] with 3 AB"),
])
def test_errors_name_what_is_wrong(data, match):
    with pytest.raises(SgfError, match=match):
        read_sgf(data)
    assert issubclass(SgfError, ValueError)


def test_write_refuses_bad_records():
    with pytest.raises(SgfError, match="rules 'stone-scoring'"):
        write_sgf(GoRecord(rules="stone-scoring"))
    with pytest.raises(SgfError, match=r"\(9, 9\) is off the 9x9"):
        write_sgf(GoRecord(size=9, moves=[("black", (9, 9))]))


def test_play_record_implicit_pass_and_refusal():
    # B E5, B C3: White's pass is not written (YuanYu style) -> one implicit pass before ply 2
    r = read_sgf(b"(;GM[1]SZ[9];B[ee];B[cg];W[ee])")
    run = play_record(r)
    assert run.implicit_passes == [2]
    assert run.accepted == 2
    # ply 3 W E5 is on Black's stone
    assert run.first_rejected["ply"] == 3 and run.first_rejected["move"] == "E5"
    assert run.first_rejected["reason"] == "occupied"
    assert run.first_rejected["article"] == "Chinese rules 1988 art. 2.2"
    strict = play_record(r, implicit_passes=False)
    assert strict.first_rejected["ply"] == 2 and strict.first_rejected["reason"] == "wrong-turn"
    assert strict.first_rejected["article"] == "Chinese rules 1988 art. 17.1"


def test_dead_from_marks():
    # 9x9: Black A9 stands in White's marked territory (TW[aa]) -> dead; White J1 in TB -> dead;
    # Black E5 stands on an unmarked point -> alive
    r = read_sgf(b"(;GM[1]SZ[9];B[aa];W[ii];B[ee];W[]TW[aa][ba]TB[ii][hi])")
    board = play_record(r).board
    assert dead_from_marks(r, board.stones) == {(0, 8), (8, 0)}


# ------------------------------------------------------------------ the CLI on a hand-built game
def _walls(extra: str = "", root: str = "") -> bytes:
    """9x9: Black fills column D (D1..D9), White column E (E1..E9), alternately, Black first.
    SGF row letters count from the top: D1 = "di", D9 = "da"."""
    moves = "".join(f";B[d{r}];W[e{r}]" for r in "ihgfedcba")
    return f"(;GM[1]FF[4]SZ[9]RU[Japanese]KM[6.5]{root}{moves}{extra})".encode()


# after the walls: B pass, W B5 ("be", inside Black's side), B pass, W pass: play stops with a dead
# White stone on B5, which the marks give to Black (TB on B5)
FINISHED = _walls(";B[];W[be];B[];W[]TB[be][aa]TW[ia]", root="RE[W+14.5]")


def _cli(args):
    import json

    from typer.testing import CliRunner

    from services.cli import app
    res = CliRunner().invoke(app, args)
    as_json = args[0] != "replay" and "--json" in args and res.exit_code == 0
    return res.exit_code, (json.loads(res.stdout) if as_json else res.output)


def test_cli_score_japanese_and_chinese(tmp_path):
    f = tmp_path / "walls.sgf"
    f.write_bytes(FINISHED)
    # Japanese (1989 art. 8, 10): Black territory = columns A-D minus the 9 D stones = 27 points
    # (B5 included once its dead stone is removed) + 1 dead White stone as prisoner = 28;
    # White territory = columns F-J = 36, + komi 6.5 = 42.5 -> W+14.5 (the RE written above)
    code, row = _cli(["score", "--sgf", str(f), "--json"])
    assert code == 0
    assert (row["black"], row["white"], row["result"]) == (28, 42.5, "W+14.5")
    assert row["dead"] == ["B5"] and row["dead_source"] == "marks" and row["rules"] == "japanese"
    assert "Japanese rules 1989 art. 10" in row["rule"]
    # Chinese area (1988 art. 9): Black 9 stones + 27 points = 36; White 9 + 36 = 45, + 7.5 = 52.5
    code, row = _cli(["score", "--sgf", str(f), "--rules", "chinese", "--komi", "7.5", "--dead", "B5", "--json"])
    assert code == 0
    assert (row["black"], row["white"], row["result"], row["dead_source"]) == (36, 52.5, "W+16.5", "given")


def test_cli_score_refusals(tmp_path):
    f = tmp_path / "walls.sgf"
    f.write_bytes(FINISHED)
    code, out = _cli(["score", "--sgf", str(f), "--dead", "A1"])  # A1 is an empty point
    assert code == 2 and "A1" in out
    code, out = _cli(["score", "--sgf", str(f), "--dead", "Z99"])
    assert code == 2 and "Z99" in out
    code, out = _cli(["score", "--sgf", str(f), "--rules", "stone-scoring"])
    assert code == 2 and "unknown rules 'stone-scoring'" in out


def test_cli_score_without_komi_on_a_board_too_small_for_the_default(tmp_path):
    f = tmp_path / "sz2.sgf"
    f.write_bytes(b"(;GM[1]FF[4]SZ[2];B[aa];W[bb])")  # no KM: the Chinese default 7.5 > 4 points
    code, out = _cli(["score", "--sgf", str(f), "--json"])
    out = " ".join(out.split())
    assert code == 2 and "no komi given" in out and "7.5 does not fit a 2x2 board" in out
    assert "pass --komi" in out and "Traceback" not in out
    # with a komi: Chinese area, no dead stones: Black A2 + White B1 are 1 stone each, the two
    # empty points A1 and B2 touch both colours (dame, split 0.5 each): 1 + 1 = 2 for Black,
    # 2 + komi 0.5 = 2.5 for White -> W+0.5
    code, row = _cli(["score", "--sgf", str(f), "--komi", "0.5", "--dead", "none", "--json"])
    assert code == 0 and (row["black"], row["white"], row["result"]) == (2.0, 2.5, "W+0.5")


def test_cli_adjudicate_go(tmp_path):
    f = tmp_path / "walls.sgf"
    f.write_bytes(_walls())
    # two passes end play; no marks, so counted as `arbiter score` counts: with the Monte-Carlo
    # estimate, which finds no dead stone on these two walls: Black 27 territory, White 36 + 6.5
    code, row = _cli(["adjudicate", "--game", "go", "--sgf", str(f), "--moves", "pass pass", "--json"])
    assert code == 0 and row["legal"] is True and row["plies"] == 20
    assert row["result"] == "W+15.5" and row["rule"]["article"] == "9-1"
    assert (row["score"]["dead_source"], row["score"]["dead"]) == ("estimate", [])
    # under Chinese rules: 36 against 45 + 6.5 = 51.5
    code, row = _cli(["adjudicate", "--game", "go", "--sgf", str(f), "--rules", "chinese",
                      "--moves", "pass pass", "--json"])
    assert row["result"] == "W+15.5" and row["rule"]["ruleset"] == "Chinese rules 1988"
    # ply 19 (the first after the 18 recorded) on White's E5 stone: refused, SGF or GTP alike
    for move in ("E5", "ee"):
        code, out = _cli(["adjudicate", "--game", "go", "--sgf", str(f), "--moves", f"F5 {move}"])
        assert code == 1 and "ply 20" in out and "occupied" in out
    code, row = _cli(["adjudicate", "--game", "go", "--sgf", str(f), "--moves", "I5", "--json"])
    assert code == 1  # no letter I in GTP coordinates


def test_adjudicate_go_answers_as_the_services_do(tmp_path):
    """The tool plays through the services' validation and adjudication cores: after two passes
    a move is refused ``play-stopped`` (1988 art. 21.1 under Chinese rules) and a triple ko
    under Ing rules is the EndlessCycleFound the services report (the position and its cycle
    are worked out in tests/unit/test_go_services.py)."""
    import json

    from contracts.messages import EndlessCycleFound
    from tests.unit.test_go_services import CYCLE, TRIPLE_KO, cycled

    f = tmp_path / "walls.sgf"
    f.write_bytes(_walls())
    code, out = _cli(["adjudicate", "--game", "go", "--sgf", str(f), "--rules", "chinese",
                      "--moves", "pass pass F5", "--json"])
    row = json.loads(out)
    # 18 recorded moves + 2 passes accepted; ply 21 (F5) refused as the service refuses it
    assert code == 1 and row["plies"] == 20 and row["result"] == "*"
    fr = row["first_rejected"]
    assert (fr["ply"], fr["move"], fr["code"], fr["article"]) == (21, "F5", "play-stopped", "21.1")
    # the triple ko from its position, Ing rules: the same finding as the services'
    words = TRIPLE_KO.split()
    stones = dict(part.split(":") for part in words[7:])  # "B:ae,bd,..." "W:ab,..."
    ko = tmp_path / "tko.sgf"
    ko.write_text("(;GM[1]FF[4]SZ[9]KM[8]PL[B]AB" + "".join(f"[{p}]" for p in stones["B"].split(","))
                  + "AW" + "".join(f"[{p}]" for p in stones["W"].split(",")) + ")")
    code, row = _cli(["adjudicate", "--game", "go", "--sgf", str(ko), "--rules", "ing",
                      "--moves", " ".join(CYCLE * 2), "--json"])
    _, got = cycled(TRIPLE_KO.replace(" japanese ", " ing "))
    service = next(m.payload for m in got if isinstance(m.payload, EndlessCycleFound))
    assert code == 0 and row["legal"] is True and row["plies"] == 12
    assert row["endless_cycle"] == service.model_dump(mode="json", exclude={"game_id"})
    # found at ply 12 (the start position a third time), 3 stones taken by each side
    assert (service.ply, service.occurrences, service.captured_black, service.captured_white) == (12, 3, 3, 3)
    assert row["result"] == "*" and (row["rule"]["ruleset"], row["rule"]["article"]) == ("Ing rules", "3")
    assert "the arbiter rules" in row["reason"]


def test_cli_replay_sgf(tmp_path):
    f = tmp_path / "walls.sgf"
    f.write_bytes(FINISHED)
    out = tmp_path / "rows.json"
    code, _ = _cli(["replay", str(f), "--json", str(out)])
    import json
    row = json.loads(out.read_text())["games"][0]
    assert code == 0
    assert (row["moves"], row["accepted"], row["result"], row["recorded_result"]) == (22, 22, "W+14.5", "W+14.5")


def test_bad_setup_is_a_clean_error_in_score_and_adjudicate(tmp_path):
    import json

    f = tmp_path / "abaw.sgf"
    f.write_bytes(b"(;GM[1]FF[4]SZ[9]AB[ee]AW[ee];W[dd])")
    code, out = _cli(["score", "--sgf", str(f), "--json"])
    assert code == 2 and "E5 is set up as both" in out and "Traceback" not in out
    from typer.testing import CliRunner

    from services.cli import app
    res = CliRunner().invoke(app, ["adjudicate", "--game", "go", "--sgf", str(f), "--json"])
    assert res.exit_code == 2
    row = json.loads(res.stdout.splitlines()[0])
    assert row["legal"] is False and "E5 is set up as both a black and a white stone" in row["error"]


def test_a_setup_without_liberties_built_in_code_is_refused_with_the_reason():
    from services.tools.adjudicate import adjudicate_go
    from services.tools.score import ScoreError, score_record

    full = GoRecord(size=3, setup_black=tuple((c, r) for c in range(3) for r in range(3)))
    row = adjudicate_go(full)
    assert row["legal"] is False and row["first_rejected"]["move"] == "setup"
    assert "have no liberties" in row["first_rejected"]["reason"]
    with pytest.raises(ScoreError, match="setup cannot be played: setup black stones at A1"):
        score_record(full, dead="none")


def test_the_handicap_compensated_is_the_stones_placed():
    # HA[2] with the two AB stones: Chinese 2002 art. 9 gives White back 2 points (1 stone each
    # half); the record's handicap is read as 2 and the stones placed are those 2
    r = read_sgf(b"(;GM[1]FF[4]SZ[19]RU[Chinese]HA[2]AB[dd][pp];W[ee])")
    assert (r.handicap, r.setup_black, r.first_turn()) == (2, ((3, 15), (15, 3)), "white")
    from services.tools.score import score_record

    # one empty region touches both colours: 361 - 3 stones = 358 dame, 179 each (1988 art. 9);
    # Black 2 + 179 = 181; White 1 + 179 = 180 + 0 komi (handicap game) + 2 compensation = 182
    row = score_record(r, dead="none")
    assert (row["black"], row["white"], row["result"]) == (181, 182, "W+1")
    assert row["detail"]["handicap_compensation"] == 2


# ------------------------------------------------------------------------- leniency (issue 13)
#: A CGOS-style record (9x9 under Tromp-Taylor, KataGo's default too): RE[B+Illegal] is how CGOS
#: writes a win by the opponent's illegal move, outside FF[4]'s R/T/F/margin.
CGOS = (b"(;GM[1]FF[4]SZ[9]KM[7]RU[Tromp/Taylor]PB[botB]PW[botW]RE[B+Illegal]"
        b";B[ag];W[ai];B[bh];W[bi];B[ci];W[ee];B[ff];W[aa];B[ah])")


def test_a_cgos_record_reads_with_a_warning_and_replays_under_tromp_taylor():
    r = read_sgf(CGOS)
    assert (r.rules, r.komi, r.rules_raw) == ("tromp-taylor", 7.0, "Tromp/Taylor")
    assert (r.result.winner, r.result.kind, r.result.raw) == ("black", "win", "B+Illegal")
    assert len(r.warnings) == 1 and "RE[B+Illegal]" in r.warnings[0] and r.notes == []
    run = play_record(r)
    assert run.first_rejected is None and run.accepted == 9
    assert read_sgf(write_sgf(r)) == r  # RE is written back as it was


def test_tromp_taylor_record_with_a_suicide_and_the_rules_override():
    from services.tools.score import ScoreError, score_record

    # 3x3: Black A2 B1, White A3 B2 C1, then Black A1 (ply 7) fills its own last liberty:
    # A1 A2 B1 have none left (A3 B2 C1 are white) and it captures nothing: a multi-stone
    # suicide, a move under Tromp-Taylor rule 7, refused under Chinese rules 1988 art. 5.
    data = (b"(;GM[1]FF[4]SZ[3]KM[0]RU[Tromp-Taylor]"
            b";B[ab];W[aa];B[bc];W[bb];B[];W[cc];B[ac];W[];B[])")
    r = read_sgf(data)
    row = score_record(r)
    # after Black's A1 suicide (3 stones off): White A3 B2 C1 on an otherwise empty board; every
    # empty point (A1 A2 B1 B3 C2 C3) reaches only white: White 3 + 6 = 9, Black 0 -> W+9
    assert (row["black"], row["white"], row["result"], row["dead_source"]) == (0, 9, "W+9", "rules")
    with pytest.raises(ScoreError, match="ply 7 A1: A1 leaves the stone without liberties"):
        score_record(r, "chinese")  # --rules overrides RU: the suicide is refused (1988 art. 5)
    with pytest.raises(ScoreError, match="rule 9"):
        score_record(r, dead=[(0, 2)])


@pytest.mark.parametrize("data,warned", [
    (b"(;GM[1]SZ[9]RU[Stone Scoring];B[ee])", "RU[Stone Scoring]: unknown rules"),
    (b"(;GM[1]SZ[9]RE[black wins];B[ee])", "RE[black wins]"),
])
def test_unknown_rules_or_result_are_warnings_not_refusals(data, warned):
    r = read_sgf(data)
    assert r.rules == "chinese" and len(r.moves) == 1
    assert len(r.warnings) == 1 and r.warnings[0].startswith(warned)
    if r.result is not None:
        assert (r.result.winner, r.result.kind) == (None, "unknown")


def test_cli_score_prints_the_warning_and_takes_the_rules_given(tmp_path):
    f = tmp_path / "stone.sgf"
    f.write_bytes(b"(;GM[1]FF[4]SZ[5]KM[0]RU[Stone Scoring]AB[bc][bd]AW[dc][dd];B[];W[])")
    code, row = _cli(["score", "--sgf", str(f), "--rules", "japanese", "--dead", "none", "--json"])
    # Japanese: no territory is closed on this open 5x5 board: 0 v 0, komi 0 -> Draw (art. 10-2)
    assert code == 0 and row["rules"] == "japanese" and row["result"] == "Draw"
    assert row["warnings"] and "RU[Stone Scoring]" in row["warnings"][0]


@pytest.mark.parametrize("re_", ["0", "Draw", "Jigo", "jigo", "B+0", "W+0.0"])
def test_jigo_reads_as_a_draw(re_):
    res = read_sgf(f"(;GM[1]SZ[9]RE[{re_}])".encode()).result
    assert (res.winner, res.kind, res.text) == (None, "draw", "Draw")


def test_adjudicate_counts_with_the_same_dead_stones_as_score(tmp_path):
    """No TB/TW marks: both tools count with the Monte-Carlo estimate, which finds the lone
    black stone E3 dead in White's area (test_go_scoring.DEAD): Japanese, komi 0, W+8."""
    from services.tools.adjudicate import adjudicate_go
    from services.tools.score import score_record

    data = (b"(;GM[1]FF[4]SZ[7]KM[0]RU[Japanese]AB[ac][bc][cc][dc][ec][fc][gc][ee]"
            b"AW[ad][bd][cd][dd][ed][fd][gd];B[];W[])")
    r = read_sgf(data)
    scored, ruled = score_record(r), adjudicate_go(r)
    assert scored["dead_source"] == ruled["score"]["dead_source"] == "estimate"
    assert scored["dead"] == ruled["score"]["dead"] == ["E3"]
    assert scored["result"] == ruled["result"] == "W+8"
    # no dead stones, given to both: E3 then spoils White's area (its empty points touch Black):
    # Black 14 (the two top rows), White 0 -> B+14
    assert adjudicate_go(r, dead="none")["result"] == score_record(r, dead="none")["result"] == "B+14"
