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


def ours(players, rnd, total, first_white, by_rating=False):
    order = sorted(players, key=(lambda p: (-(p.rating or 0), p.number)) if by_rating
                   else (lambda p: p.number))
    rank = {p.number: i + 1 for i, p in enumerate(order)}
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
    from pairing_core import PlayerData, pair_round

    order = sorted(players, key=(lambda p: (-(p.rating or 0), p.number)) if by_rating else (lambda p: p.number))
    rank = {p.number: i + 1 for i, p in enumerate(order)}
    hist = {p.number: [e for e in p.history] + [None] * (rnd - 1 - len(p.history)) for p in players}
    before = {n: [sum(e.points for e in h[:k] if e) for k in range(rnd)] for n, h in hist.items()}
    out = []
    for p in players:
        if p.absent: continue
        h = hist[p.number]; fl = ""
        for k, e in enumerate(h):
            if e is None or e.opponent is None: fl += "D" if e is not None and e.result in "U+" else "-"
            elif not e.played: fl += "-"
            else:
                a, b = before[p.number][k], before[e.opponent][k]
                fl += "D" if a > b else "U" if a < b else "-"
        out.append(PlayerData(id=p.number, pairing_no=rank[p.number], rating=p.rating or 0,
            points=sum(e.points for e in h if e), color_hist="".join(e.colour if e and e.played else "-" for e in h),
            opponents=frozenset(e.opponent for e in h if e and e.played),
            received_bye=any(e and (e.result in "U+" and e.opponent is None or e.result == "+") for e in h), float_hist=fl))
    try:
        r = pair_round(out, rnd)
    except Exception as exc:
        from services.pairing.core import PairingError
        raise PairingError(str(exc)[:60])
    return SwissRound(round=rnd, boards=[(str(c.white_id), str(c.black_id)) for c in r.pairings if not c.is_bye and c.black_id is not None],
                      bye=str(r.bye_player_id) if r.bye_player_id else None)

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
