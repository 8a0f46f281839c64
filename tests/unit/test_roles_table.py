"""The README's roles-and-scopes table agrees with the gateway (issue 12 item 5): every route
the gateway serves is in it, and each command route's row says "—" exactly where the role rule
the route uses (:data:`services.gateway.app.COMMAND_ROUTES`' ``role``, decided by
:mod:`services.gateway.identity`) refuses a principal of that role whose token covers the
event (a player in his own game), and "—" for anonymous writes."""
from __future__ import annotations

import pathlib
import re

import pytest

from services.gateway import identity
from services.gateway.app import COMMAND_ROUTES, create_app
from services.gateway.identity import AuthError, Principal
from shared.eventlog.memory import MemoryLog

ROOT = pathlib.Path(__file__).resolve().parents[2]
COLUMNS = ("anonymous", "player", "organiser", "arbiter", "integrator", "admin")
TID, CREATOR = "e1", "organiser:olga"
PRINCIPALS = {
    "player": Principal("player", "ann", frozenset({TID})),
    "organiser": Principal("organiser", "olga"),
    "arbiter": Principal("arbiter", "arb", frozenset({TID})),
    "integrator": Principal("integrator", "tv", frozenset({TID})),
    "admin": Principal("admin", "root"),
}
RULES = {
    "player": lambda p: identity.player_actor(p, "ann", ("ann", "ben"), TID),
    "arbiter": lambda p: identity.arbiter_actor(p, TID),
    "organiser": lambda p: identity.organiser_actor(p, TID, CREATOR),
    "official": lambda p: identity.official_actor(p, TID, CREATOR),
}


def table() -> dict[tuple[str, str], dict[str, str]]:
    """(method, path) -> {column: cell} from the README's "Roles and scopes" table."""
    text = (ROOT / "README.md").read_text()
    section = text.split("### Roles and scopes", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        assert len(cells) == 1 + len(COLUMNS), line
        for m in re.finditer(r"`([A-Z]+) ([^`]+)`", cells[0]):
            rows[(m[1], m[2].split(" ")[0])] = dict(zip(COLUMNS, cells[1:]))
    return rows


def served() -> set[tuple[str, str]]:
    app = create_app(MemoryLog())
    return {(m.upper(), path) for path, ops in app.openapi()["paths"].items() for m in ops}


def test_every_route_the_gateway_serves_is_in_the_table_and_no_other():
    rows = set(table())
    routes = served() | {("GET", "/docs"), ("GET", "/redoc"), ("GET", "/openapi.json"), ("GET", "/"),
                         ("GET", "/ui/...")}
    assert routes - rows == set(), "routes missing from the README table"
    assert rows - routes == set(), "README rows for routes the gateway does not serve"


@pytest.mark.parametrize("route", COMMAND_ROUTES, ids=lambda r: r.path)
def test_each_command_rows_cells_are_what_its_role_rule_decides(route):
    row = table()[("POST", route.path)]
    assert row["anonymous"] == "—"
    for column, p in PRINCIPALS.items():
        try:
            RULES[route.role](p)
            allowed = True
        except AuthError:
            allowed = False
        assert (row[column] != "—") == allowed, (route.path, column, row[column])
