"""Bounds on the fields of the gateway's request bodies that the command contracts leave open
(issue 12 item 3): every string has a longest length or a pattern, every number a range, every
list and mapping a largest size. A body outside them is a 422 naming the field, and nothing is
published.

The bounds apply to new HTTP input only: the command models of :mod:`contracts.messages` (which
also read the permanent log back) keep their own, so no recorded command becomes unreadable.
Each bound is well above what a real event needs (a 19x19 Go position, a 5,000-board round,
10,000 lots) and below what would make a command a burden to the log or to its readers.
"""
from __future__ import annotations

import re
import unicodedata
from types import NoneType, UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import AfterValidator, Field, Strict

from contracts.messages import GameId, ManualBoard, PlayerId, RequestedBye

#: Latest time a recorded time (``at_ms``) may name: 2100-01-01T00:00:00Z, epoch ms.
MAX_AT_MS = 4_102_444_800_000

_Int = Annotated[int, Strict()]
_Count = Annotated[_Int, Field(ge=1, le=9999)]
_Round = Annotated[_Int, Field(ge=1, le=99)]
_Seconds = Annotated[_Int, Field(ge=0, le=7 * 86_400)]

#: One line of text: no control character (C0 but the tab, DEL, C1) and no Unicode line or
#: paragraph separator. These fields are written into PGN tags (``TimeControl``, ``FEN``) and
#: TRF lines (names, club, federation...): a line break in one would end it and forge the next
#: tag or line of an export; NEL (U+0085), U+2028 and U+2029 are line breaks to Python's
#: ``str.splitlines`` (our TRF reader) and to Unicode-aware readers, and go unescaped into the
#: log's JSON.
_LINE_BREAKING = r"\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029"  # (the tab is allowed)
#: Nor a bidirectional embedding, override (U+202A..U+202E) or isolate (U+2066..U+2069) of
#: Unicode's bidirectional algorithm (UAX #9): one would reorder what follows it on the line of
#: the standings, the exports and the console ("Trojan Source", CVE-2021-42574). The marks LRM
#: and RLM (U+200E, U+200F), which Hebrew and Arabic names use and which reorder nothing beyond
#: their own neighbours, pass.
_BIDI_CONTROL = r"\u202a-\u202e\u2066-\u2069"
#: Nor a character that shows nothing and joins nothing: the zero-width space (U+200B), the
#: word joiner and invisible operators (U+2060..U+2064), the zero-width no-break space
#: (U+FEFF), the soft hyphen (U+00AD), the combining grapheme joiner (U+034F), the Hangul
#: fillers (U+115F, U+1160, U+3164, U+FFA0), the Braille blank (U+2800), the deprecated
#: format characters (U+206A..U+206F), the interlinear annotation marks (U+FFF9..U+FFFB) and
#: the musical formatting marks (U+1D173..U+1D17A). One would make "Al\u200bice" a second
#: Alice in the standings. The joiners ZWNJ and ZWJ (U+200C, U+200D), which Persian and Indic
#: names and emoji need, pass (in a name, not after a Latin, Greek or Cyrillic letter: :func:`_shown`).
_INVISIBLE = (r"\u00ad\u034f\u115f\u1160\u200b\u2060-\u2064\u206a-\u206f\u2800\u3164\ufeff\uffa0"
              r"\ufff9-\ufffb\U0001d173-\U0001d17a")
ONE_LINE = rf"^[^{_LINE_BREAKING}{_BIDI_CONTROL}{_INVISIBLE}]*$"
_BAD = re.compile(f"[{_LINE_BREAKING}{_BIDI_CONTROL}{_INVISIBLE}]")
_BIDI = re.compile(f"[{_BIDI_CONTROL}]")
_HIDDEN = re.compile(f"[{_INVISIBLE}]")
#: What joins or selects a form of the character before it and shows nothing itself: ZWNJ,
#: ZWJ, the variation selectors, the tag characters (of a subdivision flag's emoji sequence).
_JOINING = re.compile("[\u200c\u200d\ufe00-\ufe0f\U000e0020-\U000e007f]")
#: The scripts whose letters nothing joins: a joiner or selector after one of their letters
#: only hides itself ("Al\u200dice" shows as Alice).
_UNJOINED_SCRIPTS = ("LATIN ", "GREEK ", "CYRILLIC ")


def _one_line(text: str) -> str:
    """``text`` when it is one line (:data:`ONE_LINE`); ValueError naming the first control
    character, line separator, bidirectional control or invisible character and its place,
    for the 422's detail."""
    if (bad := _BAD.search(text)) is not None:
        c, at = bad.group(), bad.start()
        what = ("line separator" if c in "\u2028\u2029" else
                "bidirectional control" if _BIDI.match(c) else
                "invisible character" if _HIDDEN.match(c) else "control character")
        raise ValueError(f"one line of text: {what} U+{ord(c):04X} at position {at}")
    return text


def _shown(text: str) -> str:
    """A name as it shows: ``text`` without the blanks around it, which has a letter, digit,
    punctuation mark or symbol (Unicode categories L, N, P, S; ``""`` stays ``""``) and no
    joiner or selector (:data:`_JOINING`) at its start, after a blank or after a Latin, Greek
    or Cyrillic letter, where it would show nothing. ValueError else, naming the character."""
    out = text.strip()
    if text and not any(unicodedata.category(c)[0] in "LNPS" for c in out):
        raise ValueError("a name with nothing visible in it (no letter, digit, punctuation or symbol)")
    for m in _JOINING.finditer(out):
        at = m.start()
        before = out[at - 1] if at else " "
        if before.isspace() or unicodedata.name(before, "").startswith(_UNJOINED_SCRIPTS):
            raise ValueError(f"one line of text: invisible character U+{ord(m.group()):04X} at "
                             f"position {at + len(text) - len(text.lstrip())} (it joins nothing there)")
    return out


#: One line of text (:func:`_one_line`; :data:`ONE_LINE` in the schema), its lengths left to
#: whoever uses it: :func:`_line`, and the free text of :data:`TEXTS`.
TEXT = Annotated[str, Field(json_schema_extra={"pattern": ONE_LINE}), AfterValidator(_one_line)]


def _line(longest: int, shortest: int = 0) -> Any:
    """:data:`TEXT` of ``shortest`` to ``longest`` characters."""
    return Annotated[TEXT, Field(min_length=shortest, max_length=longest)]


def _name(longest: int, shortest: int = 1) -> Any:
    """A one-line name of ``shortest`` to ``longest`` characters as it shows (:func:`_shown`:
    the blanks around it dropped)."""
    return Annotated[_line(longest, shortest), AfterValidator(_shown)]


#: Field name -> the bounded type of that field in every request body that has it (a field
#: that may be None stays optional).
BOUNDS: dict[str, Any] = {
    "game_id": GameId,
    "tournament_id": GameId,
    "time_control": _line(100, 1),
    "start_fen": _line(4096, 1),
    "default_time_s": _Seconds,
    "round": _Round,
    "board": _Count,
    "lots_seed": Annotated[_Int, Field(ge=-(2 ** 63), le=2 ** 63 - 1)],
    "tiebreaks": Annotated[tuple[Annotated[str, Field(min_length=1, max_length=20)], ...],
                           Field(max_length=20)],
    # 0 passes: the pairing service refuses it with the rule's reason (places count from 1)
    "unshared_places": Annotated[tuple[Annotated[_Int, Field(ge=0, le=9999)], ...], Field(max_length=64)],
    "trf_headers": Annotated[tuple[_line(1000), ...], Field(max_length=200)],
    "mcmahon_bar": _line(8),
    "mcmahon_floor": _line(8),
    "fide_id": _line(20),
    "title": _line(10),
    # the event's and the players' text (the lengths of the contracts, one line)
    "name": _name(200),
    "club": _name(200, 0),
    "team": _name(200),
    "grade": _line(8),
    "sex": _line(3),
    "federation": _line(3),
    "birth_date": _line(10),
    "trf_cells": _line(99),
    "numbers": Annotated[dict[PlayerId, _Count], Field(max_length=10_000)],
    "members": Annotated[tuple[PlayerId, ...], Field(max_length=200)],
    "requested_byes": Annotated[dict[PlayerId, RequestedBye], Field(max_length=10_000)],
    "boards": Annotated[tuple[ManualBoard, ...], Field(max_length=5000)],
    "move": _line(16, 1),  # SAN, UCI, ICCS, WXF or Chinese notation (the contract's 16)
}
#: Free text of a command (an arbiter's or a player's reason, a note): one line too
#: (:func:`_one_line`), its lengths the contract's own. Only where the contract's type is
#: ``str``: a claim's ``reason`` is one of the rule's codes, left as it is.
TEXTS = frozenset({"reason", "note"})


def bounded(name: str, annotation: Any) -> Any:
    """The type of request-body field ``name`` declared ``annotation`` in its command:
    :data:`BOUNDS`'s when it names one (optional when ``annotation`` allows None), one line
    of text for a :data:`TEXTS` field of type ``str``, else ``annotation`` unchanged."""
    optional = get_origin(annotation) in (Union, UnionType) and NoneType in get_args(annotation)
    if name in TEXTS and annotation is str:
        return TEXT
    if name not in BOUNDS:
        return annotation
    return BOUNDS[name] | None if optional else BOUNDS[name]
