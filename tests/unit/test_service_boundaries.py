"""Services do not import each other (issue 11 item 3): a service package may import contracts/,
shared/ and itself. The imports across services still left are listed here, each with what
they reach for, so that none is added unnoticed and each one moved to shared/ is struck off
(the list must match the code exactly). ``services/tools`` and ``services/cli.py`` are the
command-line layer over every service and are not a service; nor are the composition modules
at the root of ``services/`` (:data:`COMPOSITION`), which assemble the services' cores into
processes, run them, and re-derive their decisions. shared/ and contracts/ import no service."""
from __future__ import annotations

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: (importing service, imported service) still left, and why: none since issue 11 item 3 moved
#: what they reached for (TRF, FIDE rating tables, tie-break codes, grades, knockout brackets,
#: teams) into shared/domain, and the arbiter console's per-game audit re-derives with
#: services.rederive (issue 12 follow-up), which `arbiter audit` runs too.
LEFT: dict[tuple[str, str], str] = {}
#: services/system.py (the processes' cores), runner.py (``python -m services.<name>``) and
#: rederive.py (every core deciding again: ``arbiter audit``, the arbiter console's audit).
COMPOSITION = ("system", "runner", "rederive")


def _imports() -> set[tuple[str, str]]:
    found = set()
    for f in (ROOT / "services").rglob("*.py"):
        rel = f.relative_to(ROOT / "services").parts
        if len(rel) < 2 or rel[0] in ("tools", "__pycache__"):
            continue
        for node in ast.walk(ast.parse(f.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            for n in names:
                parts = n.split(".")
                if parts[0] == "services" and len(parts) > 1 and parts[1] not in (rel[0], *COMPOSITION):
                    found.add((rel[0], parts[1]))
    return found


def test_no_service_imports_another_beyond_the_known_list():
    assert _imports() == set(LEFT), sorted(_imports() ^ set(LEFT))


def test_shared_and_contracts_import_no_service():
    """shared/ and contracts/ are what services share: they import each other, no service
    (the cycle shared <-> services of issue 11 is gone: the assembly moved to services/)."""
    for f in [*(ROOT / "shared").rglob("*.py"), *(ROOT / "contracts").rglob("*.py")]:
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                assert not (node.module or "").startswith("services"), (str(f), node.module)
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("services") for a in node.names), str(f)


def test_a_game_process_does_not_load_the_pairing_engines():
    """Each process imports only its own cores (services/system.py ``CORES``): the game process
    starts without the pairing engines and networkx (~90 ms of its start, and memory)."""
    import subprocess
    import sys

    code = ("import sys; from services.system import make_processor; make_processor('game'); "
            "print(sorted(m for m in sys.modules if m.startswith(('networkx', 'services.pairing'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
