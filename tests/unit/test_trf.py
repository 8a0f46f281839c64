"""TRF-16 reading/writing on the three real files of ../shared/data/chess/trf and on bad input."""
from __future__ import annotations

import pytest

from shared.domain.trf import RoundEntry, TrfError, parse_trf, read_trf, write_trf

KARL = "data/chess/trf/karl-mala-gedenkturnier-2005-frankfurt.trf"
ZULF = "data/chess/trf/lichess-swiss-zulfikar-sali-bullet-2020-05-10.trf"
MAI = "data/chess/trf/lichess-swiss-mai-5plus0-2020-05-29.trf"


@pytest.mark.parametrize("rel, players, games, rounds", [
    (KARL, 284, 980, 7), (ZULF, 112, 574, 21), (MAI, 13, 56, 10)])
def test_real_files_counts_and_points(shared_data, rel, players, games, rounds):
    t = read_trf(shared_data(rel))
    assert len(t.players) == players == t.declared_players
    assert t.games() == games
    assert t.rounds == rounds
    for p in t.players:  # points column = sum of the round results (PROVENANCE)
        assert p.points == pytest.approx(p.result_sum), p.number
    # every pairing symmetric: opponent lists us with the opposite colour
    for p in t.players:
        for i, e in enumerate(p.rounds):
            if e and e.opponent is not None:
                o = t.player(e.opponent).entry(i + 1)
                assert o.opponent == p.number
                assert {e.colour, o.colour} in ({"w", "b"}, {"-"})


def test_karl_mala_values(shared_data):
    t = read_trf(shared_data(KARL))
    assert t.name == "9. Karl-Mala-Gedenkturnier"
    assert (t.start_date, t.end_date) == ("28. 07. 2005", "31. 07. 2005")
    p1 = t.player(1)
    assert (p1.title, p1.name, p1.rating, p1.federation, p1.fide_id, p1.birth) == (
        "g", "Vasquez,Rodrigo", 2558, "CHI", "3400042", "1969.12.06")
    assert (p1.points, p1.rank) == (6.0, 4)
    assert p1.rounds[0] == RoundEntry(141, "w", "1") and p1.rounds[5] == RoundEntry(25, "b", "=")
    assert t.player(13).rounds == [RoundEntry(153, "-", "-")]  # paired, never played
    assert t.player(282).entry(5) == RoundEntry(None, "-", "+")  # bye written as 0000 - +
    assert t.player(276).entry(1) is None and t.player(276).entry(2) == RoundEntry(203, "w", "0")
    assert t.played_games() == 970  # 10 forfeited pairings


def test_lichess_flavour(shared_data):
    t = read_trf(shared_data(MAI))
    assert t.first_white and not t.by_rank and t.rounds == 10
    assert t.player(1).name == "mattderkuerschner" and t.player(1).rating is None
    assert t.player(5).entry(1) == RoundEntry(None, "-", "H")  # late entry, bare letter
    assert t.player(12).entry(1) == RoundEntry(None, "-", "U")  # bye, no 0000
    z = read_trf(shared_data(ZULF))
    assert z.by_rank and z.player(1).rating == 2529


@pytest.mark.parametrize("rel", [KARL, ZULF, MAI])
def test_round_trip(shared_data, rel):
    t = read_trf(shared_data(rel))
    t2 = parse_trf(write_trf(t))
    assert t2.players == t.players
    assert [h for h in t2.headers if h[0] != "XXR"] == [h for h in t.headers if h[0] != "XXR"]
    assert t2.rounds == t.rounds
    assert write_trf(t2) == write_trf(t)


def _line(no: int, *blocks: str, name: str = "A") -> str:
    head = f"001 {no:4d}      {name:<33} {'':>4} {'':3} {'':>11} {'':10} {'1.0':>4} {'':>4}"
    assert len(head) == 89
    return head + "".join("  " + b for b in blocks)


def test_written_columns():
    t = parse_trf("012 X\n" + _line(1, " 141 w 1", "0000 - U") + "\n"
                  + _line(141, "   1 b 0", "        ", name="Other") + "\n")
    assert t.player(1).rounds == [RoundEntry(141, "w", "1"), RoundEntry(None, "-", "U")]
    assert t.player(141).rounds == [RoundEntry(1, "b", "0")]
    out = write_trf(t).splitlines()
    assert out[1] == "XXR 2"
    assert (out[2][91:95], out[2][96], out[2][98]) == (" 141", "w", "1")  # columns 92-99
    assert out[2][101:109] == "0000 - U"


@pytest.mark.parametrize("text, line, col, msg", [
    ("012 X\n" + _line(1, "   2 w X") + "\n", 2, 99, "unknown result"),
    ("001   x1      A\n", 1, 16, "ends before the points field"),
    ("001   x1      A".ljust(80) + " 1.0\n", 1, 5, "start rank"),
    ("", 0, 0, "no player lines"),
    (_line(1, "0000 w 1") + "\n", 1, 99, "needs an opponent"),
    (_line(1, "   7 b 1") + "\n", 1, 92, "no 001 line"),
    (_line(1, "   2 b 1") + "\n" + _line(2, "   1 w 1") + "\n", 1, 92, "does not match"),
    (_line(1, "   7 q 1") + "\n", 1, 97, "unknown colour"),
    ("XXR ab\n", 1, 5, "XXR"),
])
def test_errors_name_line_and_column(text, line, col, msg):
    with pytest.raises(TrfError, match=msg) as ei:
        parse_trf(text)
    assert (ei.value.line, ei.value.column) == (line, col)


# ------------------------------------------------------------------ issue 4: input the reader refused too late
def test_self_pairing_is_refused_with_line_and_column():
    # player 1 in round 2 names himself ("   1 - -"): line 1, round 2 block at column 92 + 10
    text = _line(1, "   2 w 1", "   1 - -") + "\n" + _line(2, "   1 b 0", name="B") + "\n"
    with pytest.raises(TrfError, match="paired with himself") as ei:
        parse_trf(text)
    assert (ei.value.line, ei.value.column) == (1, 102)


@pytest.mark.parametrize("text, line, col, msg", [
    ("XXR \u00b2\n" + _line(1) + "\n", 1, 5, "XXR needs a number"),  # "²".isdigit() is True
    (_line(1, "   \u00b3 w 1") + "\n", 1, 92, "opponent must be a number"),
    (_line(1)[:48] + "   \u00b2" + _line(1)[52:] + "\n", 1, 49, "rating must be a number"),
    (_line(1)[:85] + "   \u00b2" + "\n", 1, 86, "rank must be a number"),
    ("XXR 99999999\n" + _line(1) + "\n", 1, 5, "1 to 99"),
    ("XXR 0\n" + _line(1) + "\n", 1, 5, "1 to 99"),
])
def test_non_ascii_digits_and_absurd_rounds_name_line_and_column(text, line, col, msg):
    with pytest.raises(TrfError, match=msg) as ei:
        parse_trf(text)
    assert (ei.value.line, ei.value.column) == (line, col)


def test_max_rounds_is_the_contract_bound():
    from contracts.messages import CreateTournament
    from shared.domain.trf import MAX_ROUNDS
    le = [m.le for m in CreateTournament.model_fields["rounds"].metadata if hasattr(m, "le")]
    assert le == [MAX_ROUNDS] == [99]


def test_a_byte_order_mark_is_skipped(tmp_path):
    text = "012 X\n" + _line(1, "   2 w 1") + "\n" + _line(2, "   1 b 0", name="B") + "\n"
    f = tmp_path / "bom.trf"
    f.write_bytes(b"\xef\xbb\xbf" + text.encode())
    t = read_trf(f)
    assert t.name == "X" and t.headers == [("012", "X")] and t.player(1).rounds == [RoundEntry(2, "w", "1")]
    assert parse_trf("\ufeff" + text).headers == [("012", "X")]
