"""Go amateur grades of the Chinese dan/kyu system (Chinese amateur grading 2005, art. 4: 7 dan
down to 25 kyu) and the initial McMahon score they give: what registration (one stored form),
McMahon pairing and the standings' MMS read. Pure; raises :class:`shared.errors.PairingError`
(a ``ValueError``) for a grade outside 7d..25k.
"""
from __future__ import annotations

import re

from shared.errors import PairingError

_GRADE = re.compile(r"^\s*(\d{1,2})\s*(d|dan|段|k|kyu|级)\s*$", re.I)


def rank_value(grade: str) -> int:
    """Rank value of a grade (``"3d"``, ``"3段"``, ``"5k"``, ``"5级"``): 7d = 6 ... 1d = 0,
    1k = -1 ... 25k = -25. Raises :class:`PairingError` outside 7d..25k."""
    m = _GRADE.match(grade or "")
    if not m:
        raise PairingError(f"not a grade: {grade!r} (e.g. 3d, 3段, 5k, 5级)")
    n, unit = int(m.group(1)), m.group(2).lower()
    if unit in ("d", "dan", "段"):
        if not 1 <= n <= 7:
            raise PairingError(f"amateur dan grades run 1-7, got {grade!r}")
        return n - 1
    if not 1 <= n <= 25:
        raise PairingError(f"kyu grades run 1-25, got {grade!r}")
    return -n


def normalise_grade(grade: str) -> str:
    """The one stored form of a grade: ``"3d"`` (1-7 dan) or ``"15k"`` (1-25 kyu), from any
    form :func:`rank_value` reads (``"3D"``, ``" 3d\n"``, ``"01k"``, ``"1 dan"``, ``"3段"``,
    ``"15级"``). Raises :class:`PairingError` for anything else (Chinese amateur grading: 7 dan
    down to 25 kyu)."""
    r = rank_value(grade)
    return f"{r + 1}d" if r >= 0 else f"{-r}k"


#: The rank value whose McMahon score is 0: 30 kyu. OpenGotha's "McMahon zero" (fixed at 30K) and
#: the start of OGS's rank scale (rank 0 = 30k); below 25k, our lowest grade, so every initial
#: score is positive.
MMS_ZERO = -30


def initial_mms(grade: str, top_bar: str, bottom_bar: str) -> int:
    """Initial McMahon score in points of a player of ``grade`` with the bars ``top_bar`` and
    ``bottom_bar`` (grades): his rank value held between the bars, minus :data:`MMS_ZERO`.
    Everyone above the top bar starts at the top bar's score, everyone below the bottom bar at
    the bottom bar's (OpenGotha's starting McMahon score, whose help calls the bars "McMahon
    Bar" and "McMahon Floor"; OGS's upper and lower bars). Top 3d, bottom 10k: 5d and 3d start
    at 32, 1k at 29, 10k and 20k at 20. Raises :class:`PairingError` for a grade outside 7d..25k
    or a bottom bar above the top bar."""
    r, top, bottom = rank_value(grade), rank_value(top_bar), rank_value(bottom_bar)
    if bottom > top:
        raise PairingError(f"the bottom bar {bottom_bar} is above the top bar {top_bar}")
    return min(max(r, bottom), top) - MMS_ZERO
