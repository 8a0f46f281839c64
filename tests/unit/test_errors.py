"""One error root per layer (shared/errors.py): every error class the code raises for bad input
is an ArbiterError under its layer's root, and no module defines a ValueError outside them."""
from __future__ import annotations

import ast
import pathlib

from services.pairing.chinese_swiss import ChineseSwissError
from services.pairing.core import PairingError as CorePairingError
from shared.domain.trf import TrfError
from services.standings.core import StandingsError as CoreStandingsError
from services.tools.host import HostError
from services.tools.score import ScoreError
from shared.config import ConfigError
from shared.domain.timecontrol import ClockError
from shared.errors import ArbiterError, PairingError, RulesError, StandingsError, TransportError
from shared.rules.chess import MoveError
from shared.rules.go import GoError
from shared.rules.pgnrecord import RecordError
from shared.rules.sgf import SgfError
from shared.rules.xiangqi import XiangqiError

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_each_error_is_under_its_layers_root():
    assert CorePairingError is PairingError and CoreStandingsError is StandingsError
    for cls in (MoveError, XiangqiError, GoError, SgfError, RecordError, ClockError, ScoreError):
        assert issubclass(cls, RulesError), cls
    for cls in (ChineseSwissError, TrfError):
        assert issubclass(cls, PairingError), cls
    for cls in (ConfigError, HostError):
        assert issubclass(cls, TransportError), cls
    assert issubclass(HostError, RuntimeError)  # what its callers caught before
    for root in (RulesError, PairingError, StandingsError, TransportError):
        assert issubclass(root, ArbiterError) and issubclass(root, ValueError)


def test_no_module_roots_an_error_of_its_own_at_valueerror():
    own = []
    for f in [*ROOT.glob("services/**/*.py"), *ROOT.glob("shared/**/*.py"), *ROOT.glob("contracts/**/*.py")]:
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(b, ast.Name) and b.id == "ValueError" for b in node.bases):
                own.append(f"{f.relative_to(ROOT)}:{node.name}")
    assert own == ["shared/errors.py:ArbiterError"], own


def test_every_tournament_rejection_code_written_is_a_documented_one():
    """The codes the tournament process writes (pairing's ``_reject`` calls, the refusal of a
    decision too large for the log) are TournamentRejectCode's, which the message's schema
    lists."""
    import re
    from typing import get_args

    from contracts.messages import TournamentCommandRejected, TournamentRejectCode
    from services.pairing.creation import CHECKS

    src = (ROOT / "services/pairing/service.py").read_text()
    calls = src.count("self._reject(") - src.count("self._reject(msg, *refused)")  # creation.CHECKS
    written = set(re.findall(r'self\._reject\(msg, "([a-z-]+)"', src)) | {code for code, _ in CHECKS}
    assert calls == len(re.findall(r'self\._reject\(msg, "([a-z-]+)"', src)), "a code that is no literal"
    assert written | {"decision-too-large"} == set(get_args(TournamentRejectCode))
    schema = TournamentCommandRejected.model_json_schema()["properties"]["code"]["description"]
    assert all(code in schema for code in get_args(TournamentRejectCode))
