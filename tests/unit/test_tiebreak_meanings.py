"""The tie-break codes explained for the standings pages: every code the standings compute has
a meaning and an article; a cut says what it leaves out; an unknown code is refused by name."""
from __future__ import annotations

import pytest

from shared.domain.tiebreaks import TIEBREAKS, tiebreak_meaning
from shared.errors import StandingsError


def test_every_code_the_standings_compute_is_explained():
    for code in TIEBREAKS:
        m = tiebreak_meaning(code)
        assert m["meaning"] and m["source"], code


def test_a_cut_variant_names_its_base_and_its_cut():
    assert tiebreak_meaning("BH-C1") == {
        "code": "BH-C1", "meaning": "Buchholz: the sum of the opponents' scores",
        "source": "FIDE C.07 art. 8.1", "cut": "without the least significant value",
        "cut_source": "FIDE C.07 art. 14.1"}
    assert tiebreak_meaning("SB")["cut"] is None


@pytest.mark.parametrize("code", ["XX", "BH-C9", "SB-"])
def test_an_unknown_code_is_refused_by_name(code):
    with pytest.raises(StandingsError, match=f"unknown tie-break code '{code}'"):
        tiebreak_meaning(code)
