"""Team names are compared after Unicode NFKC normalisation, trimming and case folding."""
from __future__ import annotations

import pytest

from services.pairing.core import PairingError
from shared.domain.teams import canonical_team, team_key


def test_full_width_and_no_break_space_names_are_the_same_team():
    # NFKC: U+FF24 FULLWIDTH LATIN CAPITAL LETTER D -> "D"; U+00A0 NO-BREAK SPACE -> " "
    assert team_key("\uff24") == team_key("D") == "d"
    assert team_key("\u00a0C") == team_key("C\t") == "c"
    assert team_key("Team\u3000B") == team_key("team b")  # U+3000 ideographic space


def test_a_full_width_twin_of_a_registered_team_is_refused_naming_it():
    with pytest.raises(PairingError, match="registered team 'D'.*character width"):
        canonical_team("\uff24", ["A", "D"])
    assert canonical_team(" D ", ["A", "D"]) == "D"
    assert canonical_team("E", ["A", "D"]) == "E"
