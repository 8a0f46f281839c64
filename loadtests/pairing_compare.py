"""Engine comparison on the real TRFs (docs/pairing-comparison.md): re-pair every round with
py4swiss (chosen; with our fast set-up, services.pairing.dutch_fast), py4swiss unmodified
(same pairings, for the time), our first Dutch (core.dutch_pair), pairing-core and
caissify-pairings.

    .venv/bin/python -m loadtests.pairing_compare [--skip-caissify-karl]
"""
from __future__ import annotations

import glob
import sys
import time
import warnings

from services.pairing.check import check_pairings
from services.pairing.core import PairingError, SwissPlayer, SwissRound, dutch_pair
from services.pairing.dutch import pair_dutch
from shared.domain.trf import read_trf, write_trf

FILES = sorted(glob.glob("../shared/data/chess/trf/*.trf"))


def py4swiss_unmodified(players, rnd, total, first_white, by_rating=False):
    return pair_dutch(players, rnd, total, first_white, by_rating, reference=True)


def _pairing_numbers(players, by_rating: bool) -> dict[int, int]:
    """Start number -> pairing number: by start number, or by rating (highest first) when
    ``by_rating`` (ties by start number)."""
    order = sorted(players, key=(lambda p: (-(p.rating or 0), p.number)) if by_rating
                   else (lambda p: p.number))
    return {p.number: i + 1 for i, p in enumerate(order)}


def ours(players, rnd, total, first_white, by_rating=False):
    rank = _pairing_numbers(players, by_rating)
    sp = []
    for p in players:
        if p.absent:
            continue
        h = [e for e in p.history if e is not None]
        sp.append(SwissPlayer(id=str(p.number), pairing_no=rank[p.number],
                              score=sum(e.points for e in h),
                              opponents=tuple(str(e.opponent) for e in h if e.played),
                              colours=tuple(e.colour if e.played else "-" for e in h),
                              had_bye=any(e.result in "U+" for e in h)))
    return dutch_pair(sp, rnd, "w" if first_white else "b")


def pc(players, rnd, total, first_white, by_rating=False):
    """Round ``rnd`` paired by pairing-core (``pairing_core.pair_round``) from the players'
    histories; raises PairingError (its message cut to 60 characters) where it fails."""
    from pairing_core import pair_round

    rank = _pairing_numbers(players, by_rating)
    hist = {p.number: [e for e in p.history] + [None] * (rnd - 1 - len(p.history)) for p in players}
    before = {n: [sum(e.points for e in h[:k] if e) for k in range(rnd)] for n, h in hist.items()}
    out = [_pc_player(p, hist[p.number], rank[p.number], before) for p in players if not p.absent]
    try:
        r = pair_round(out, rnd)
    except Exception as exc:
        raise PairingError(str(exc)[:60])
    return SwissRound(round=rnd, boards=[(str(c.white_id), str(c.black_id)) for c in r.pairings
                                         if not c.is_bye and c.black_id is not None],
                      bye=str(r.bye_player_id) if r.bye_player_id else None)


def _pc_player(p, h: list, pairing_no: int, before: dict[int, list[float]]):
    """pairing-core's PlayerData of ``p`` with history ``h`` (None: no entry for the round);
    ``before``: each start number's score before each round."""
    from pairing_core import PlayerData

    return PlayerData(
        id=p.number, pairing_no=pairing_no, rating=p.rating or 0,
        points=sum(e.points for e in h if e),
        color_hist="".join(e.colour if e and e.played else "-" for e in h),
        opponents=frozenset(e.opponent for e in h if e and e.played),
        received_bye=any(e and (e.result in "U+" and e.opponent is None or e.result == "+") for e in h),
        float_hist=_float_history(p.number, h, before))


def _float_history(number: int, h: list, before: dict[int, list[float]]) -> str:
    """One letter a round: D (floated down: a bye, or met a lower score), U (met a higher
    score), - (neither, or not played)."""
    fl = ""
    for k, e in enumerate(h):
        if e is None or e.opponent is None:
            fl += "D" if e is not None and e.result in "U+" else "-"
        elif not e.played:
            fl += "-"
        else:
            a, b = before[number][k], before[e.opponent][k]
            fl += "D" if a > b else "U" if a < b else "-"
    return fl


def caissify(path):
    from caissify_pairings.fpc import check_trf
    warnings.simplefilter("ignore")
    r = check_trf(write_trf(read_trf(path)))
    return "".join("1" if x["match"] else "." for x in r["rounds"])


def main() -> None:
    for f in FILES:
        for name, pair in (("py4swiss", None), ("py4swiss-unmod", py4swiss_unmodified),
                           ("first-dutch", ours), ("pairing-core", pc)):
            t = time.perf_counter()
            r = check_pairings(f, pair=pair)
            marks = "".join("1" if x["matched"] else "." for x in r["rounds"])
            print(f"{f.rsplit('/', 1)[1]:55} {name:14} {marks:22} {marks.count('1')}/{len(marks)}"
                  f" {time.perf_counter() - t:.2f}s", flush=True)
        if "--skip-caissify-karl" in sys.argv and "karl" in f:
            continue
        t = time.perf_counter()
        marks = caissify(f)
        print(f"{f.rsplit('/', 1)[1]:55} {'caissify':14} {marks:22} {marks.count('1')}/{len(marks)}"
              f" {time.perf_counter() - t:.2f}s", flush=True)


if __name__ == "__main__":
    main()
