"""Tie-break codes, the rulesets that order them and the editions of the FIDE tie-break
regulations: what an event's creation checks (pairing) and the standings compute. Pure values
and two choices (:func:`tiebreak_edition`, :func:`default_ruleset`); no I/O.

Raises :class:`shared.errors.StandingsError` (a ``ValueError``) for an unknown or
unimplemented edition.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from shared.errors import StandingsError

# base codes; BH, SB, ARO also take -C1 -C2 -M1 -M2 and PS takes -C1 -C2 (see _parse_code)
TIEBREAKS = (
    "DE", "WIN", "WON", "BPG", "BWG", "PS", "BH", "BH-C1", "BH-C2", "BH-M1", "BH-M2", "SB",
    "SB-C1", "KS", "ARO", "TPR", "SOS", "SOSOS", "SODOS", "MMS", "FOULS", "PEN", "SNO",
)
LOWER_IS_BETTER = frozenset({"FOULS", "PEN", "SNO"})
UNPLAYED_RULES = ("fide2023", "fide2009", "forfeit-draw", "none")
XIANGQI_ROUND_ROBIN = ("SB", "WIN", "DE", "FOULS")  # 1999 art. 15.1: 小分, 胜局, 直胜, 犯规
XIANGQI_SWISS = ("BH", "WIN", "FOULS")  # 1999 art. 15.2: 对手分, 胜局, 犯规

@dataclass(frozen=True)
class Ruleset:
    """A named ranking rule: tie-break ``order`` (codes), the ``unplayed`` rule for BH/SB/KS,
    whether players with no entry in the last round are left ``unranked`` (rank 0, listed last,
    as the TRF rank column of the pairing programs shows withdrawn players), and its ``source``."""

    order: tuple[str, ...]
    unplayed: str
    source: str
    unranked_withdrawn: bool = False


RULESETS: dict[str, Ruleset] = {
    "xiangqi-round-robin": Ruleset(XIANGQI_ROUND_ROBIN, "none",
                                   "xiangqi competition rules 1999 art. 15.1 (小分, 胜局, 直胜, 犯规); "
                                   "real opponents, forfeits + = 1 and - = 0 (21.4)"),
    "xiangqi-swiss": Ruleset(XIANGQI_SWISS, "none",
                             "xiangqi competition rules 1999 art. 15.2 (对手分, 胜局, 犯规); real "
                             "opponents, forfeits + = 1 and - = 0 (21.4)"),
    "forfeit-draw-2005": Ruleset(("BH", "SB", "WIN", "SNO"), "forfeit-draw",
                                 "German open of 2005 (9. Karl-Mala-Gedenkturnier, Frankfurt): "
                                 "points, Buchholz, Sonneborn-Berger, wins, start number, forfeits "
                                 "counted as draws, withdrawn players not ranked; reproduces all "
                                 "276 recorded ranks", unranked_withdrawn=True),
    "mcmahon": Ruleset(("MMS", "SOS", "SOSOS"), "none",
                       "McMahon (Go): McMahon score, then the sum of the opponents' McMahon scores "
                       "(SOS) and of their SOS (SOSOS), as OpenGotha's and the EGF's default "
                       "placement criteria; real opponents only"),
}


@dataclass(frozen=True)
class Edition:
    """An edition of the FIDE tie-break regulations (C.07): the first day ``in_force``, the
    :data:`UNPLAYED_RULES` rule that computes its unplayed rounds, byes and dummy opponents
    (art. 16) and its ``source``."""

    in_force: date
    unplayed: str
    source: str


TIEBREAK_EDITIONS: dict[str, Edition] = {
    "fide2023": Edition(date(2023, 9, 1), "fide2023",
                        "FIDE C.07 Play-Off and Tie-Break Regulations approved by the FIDE Council "
                        "on 1 Aug 2023, applied from 1 Sep 2023 (art. 16: dummy opponent)"),
    "fide2024": Edition(date(2024, 4, 1), "fide2023",
                        "FIDE C.07 effective from 1 Apr 2024; FIDE news of 19 Jan 2024: no tie-break "
                        "definition changed from the 2023 text, only the explanations"),
}
#: editions FIDE published that are not implemented (their article 16 was not at hand): in force from
_NOT_IMPLEMENTED = {"fide2026": date(2026, 3, 1)}


def tiebreak_edition(requested: str | None, on: date) -> str:
    """The FIDE tie-break edition of an event: ``requested`` (a :data:`TIEBREAK_EDITIONS` key)
    if given, else the latest implemented edition in force on ``on`` (the event's date; before
    1 Sep 2023 the earliest, ``fide2023``; from 1 Mar 2026, when the 2026 regulations took
    force, still ``fide2024``, the latest implemented).  Raises :class:`StandingsError` for an
    unknown edition or one not implemented (``fide2026``)."""
    if requested is None:
        known = sorted(TIEBREAK_EDITIONS, key=lambda e: TIEBREAK_EDITIONS[e].in_force)
        return ([e for e in known if TIEBREAK_EDITIONS[e].in_force <= on] or known[:1])[-1]
    if requested in _NOT_IMPLEMENTED:
        raise StandingsError(f"tie-break edition {requested} (in force from "
                             f"{_NOT_IMPLEMENTED[requested]}) is not implemented; implemented: "
                             f"{', '.join(TIEBREAK_EDITIONS)}")
    if requested not in TIEBREAK_EDITIONS:
        raise StandingsError(f"unknown tie-break edition {requested!r}; implemented: "
                             f"{', '.join(TIEBREAK_EDITIONS)}")
    return requested


def default_ruleset(game: str, system: str) -> Ruleset | None:
    """The tie-break rule an event gets when created without an explicit order: xiangqi round
    robins (``round-robin``, ``double-round-robin``) :data:`RULESETS` ``"xiangqi-round-robin"``
    (art. 15.1), xiangqi Swiss events (``swiss``, ``chinese-swiss``) ``"xiangqi-swiss"`` (15.2),
    McMahon events ``"mcmahon"`` (MMS, SOS, SOSOS); ``None`` for anything else (the caller keeps its own default, e.g. the contract's
    ``("SB", "WIN", "DE")`` for chess).  Knockouts and team events rank by their own rules."""
    if system == "mcmahon":
        return RULESETS["mcmahon"]
    if game == "xiangqi":
        if system in ("round-robin", "double-round-robin"):
            return RULESETS["xiangqi-round-robin"]
        if system in ("swiss", "chinese-swiss"):
            return RULESETS["xiangqi-swiss"]
    return None


#: What each base tie-break code measures and where it is defined (the table of
#: ``services/standings/core.py``, which computes them), for the pages that explain standings.
TIEBREAK_MEANINGS: dict[str, tuple[str, str]] = {
    "DE": ("direct encounter: points scored in the games among the tied players", "FIDE C.07 art. 6"),
    "WIN": ("rounds won (forfeit wins and full-point byes included)", "FIDE C.07 art. 7.1"),
    "WON": ("games won over the board", "FIDE C.07 art. 7.2"),
    "BPG": ("games played over the board with Black", "FIDE C.07 art. 7.3"),
    "BWG": ("games won over the board with Black", "FIDE C.07 art. 7.4"),
    "PS": ("progressive score: the sum of the running scores after each round", "FIDE C.07 art. 7.5"),
    "BH": ("Buchholz: the sum of the opponents' scores", "FIDE C.07 art. 8.1"),
    "SB": ("Sonneborn-Berger: the sum of points scored times the opponent's score", "FIDE C.07 art. 9.1"),
    "KS": ("Koya: points scored against opponents with at least half the maximum score", "FIDE C.07 art. 9.2"),
    "ARO": ("average rating of the opponents", "FIDE C.07 art. 10.1"),
    "TPR": ("tournament performance rating", "FIDE C.07 art. 10.2"),
    "SOS": ("sum of the opponents' scores", "OpenGotha (Go)"),
    "SOSOS": ("sum of the opponents' SOS", "OpenGotha (Go)"),
    "SODOS": ("sum of the scores of the opponents defeated", "OpenGotha (Go)"),
    "MMS": ("McMahon score: initial McMahon score plus points", "OpenGotha (Go)"),
    "FOULS": ("fouls (fewer ranks higher)", "xiangqi 1999 art. 15.1-15.2"),
    "PEN": ("penalties: warnings and game disqualifications (fewer ranks higher)", "xiangqi 1999 art. 18.4"),
    "SNO": ("start number (lower ranks higher)", "pairing programs' last resort"),
}
#: The cuts of BH, SB, ARO (C1 C2 M1 M2) and PS (C1 C2): what each leaves out, and its article.
TIEBREAK_CUTS: dict[str, tuple[str, str]] = {
    "C1": ("without the least significant value", "FIDE C.07 art. 14.1"),
    "C2": ("without the two least significant values", "FIDE C.07 art. 14.2"),
    "M1": ("without the highest and the lowest value", "FIDE C.07 art. 14.3"),
    "M2": ("without the two highest and the two lowest values", "FIDE C.07 art. 14.4"),
}


def tiebreak_meaning(code: str) -> dict[str, str | None]:
    """``code`` explained: ``meaning`` and ``source`` of its base (:data:`TIEBREAK_MEANINGS`),
    ``cut`` and ``cut_source`` of its cut (:data:`TIEBREAK_CUTS`; None without one). Raises
    :class:`StandingsError` for a code that is not a :data:`TIEBREAKS` base with a known cut."""
    base, dash, cut = code.partition("-")
    if base not in TIEBREAK_MEANINGS or (dash and cut not in TIEBREAK_CUTS):
        raise StandingsError(f"unknown tie-break code {code!r}; known: {', '.join(TIEBREAKS)}")
    meaning, source = TIEBREAK_MEANINGS[base]
    cut_meaning, cut_source = TIEBREAK_CUTS[cut] if cut else (None, None)
    return {"code": code, "meaning": meaning, "source": source, "cut": cut_meaning,
            "cut_source": cut_source}
