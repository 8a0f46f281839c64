"""The organiser's pages (issue 14 item 4) and the three reads they need beyond the API's
commands. The pages: ``/ui/organiser`` (my events, and the form that creates one) and
``/ui/organiser/{tid}`` (register players by form, CSV or TRF, issue and print their tokens,
draw lots, pair a round automatically or by hand with a reason, start a round whose clocks wait
(``round_start`` ``on-command``), download the exports: TRF, PGN, SGF; finish the event; links
to the lobby); ``organiser.js`` fills them and writes through the gateway's own endpoints
(``POST /tournaments``, ``/tournaments/{tid}/players``, ``/lots``, ``/rounds``,
``/rounds/start``, ``/finish``, ``/tokens``) and reads through its own (``GET
/tournaments/{tid}``, its ``/events``, ``/trf``, ``/pgn``, ``/games/{gid}/pgn|sgf``), signed in.

The forms' choices come from the API's own models, given to the page with it
(:func:`choices`): the JSON Schemas of the creation's and the registration's request bodies
(systems, games, Go rules, bounds, defaults), the tie-break codes with their meanings and the
FIDE editions (:mod:`shared.domain.tiebreaks`), the time-control presets and the forms the
time-control parser reads (:mod:`shared.domain.timecontrol`).

The reads (nothing is published; bad input is a 422 with ``detail`` and ``code``):

- ``GET /organiser/events``: the events the caller organises (identity on: created by him or
  named in his token; the administrator all; identity off: all), latest first, as the
  ``GET /tournaments`` summaries;
- ``POST /organiser/players/csv``: a CSV file (UTF-8; comma, semicolon or tab; a header row
  naming registration fields) read with Python's :mod:`csv` and checked against the
  registration body row by row: ``{"players": [body...], "errors": [{"line", "detail",
  "code"}]}``;
- ``POST /organiser/players/trf``: a FIDE TRF-16 file read by :func:`shared.domain.trf.parse_trf`
  (the reader ``arbiter import trf`` uses): ``{"name", "rounds", "players": [body...]}``
  (:func:`shared.domain.trf.registrations`: the players, not their recorded rounds).
"""
from __future__ import annotations

import csv
import io
import json
from html import escape
from types import SimpleNamespace
from typing import Any

from fastapi import APIRouter, Header, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ValidationError

from services.gateway import identity
from services.gateway.errors import HTTPError
from services.gateway.feeds import tournament_summary
from services.gateway.ui import TOURNAMENT_EVENT_TYPES, _not_found, _page
from shared.domain.record import SWISS_SYSTEMS
from shared.domain.tiebreaks import TIEBREAK_EDITIONS, TIEBREAKS, tiebreak_meaning
from shared.domain.timecontrol import PRESETS
from shared.domain.trf import TrfError, decode_trf, parse_trf, registrations, slug

#: The forms of a time control the parser reads (:meth:`shared.domain.timecontrol.TimeControl.parse`),
#: each a template over ``base`` (seconds), ``moves``, ``step`` (seconds) and ``periods``, with
#: where the form comes from; the page builds the text from one (a unit test parses each).
TIME_CONTROL_FORMS = (
    {"kind": "sudden-death", "template": "{base}", "source": "PGN standard 9.6"},
    {"kind": "fischer", "template": "{base}+{step}", "source": "FIDE Laws 6.3.1 (increment)"},
    {"kind": "bronstein", "template": "{base}b{step}", "source": "US Chess (Bronstein delay)"},
    {"kind": "simple-delay", "template": "{base}d{step}", "source": "FIDE Laws 6.3.2 (delay)"},
    {"kind": "moves-in-time", "template": "{moves}/{base}+{step}", "source": "PGN standard 9.6 (repeating)"},
    {"kind": "byo-yomi", "template": "{base} {periods}x{step} byo-yomi", "source": "Japanese Go rules (秒読み); SGF OT"},
    {"kind": "canadian", "template": "{base} {periods}/{step} Canadian", "source": "SGF OT (Canadian overtime)"},
    {"kind": "reserve", "template": "{base} reserve {periods}", "source": "Chinese Go rules 1988 art. 12.2 (读秒)"},
)
#: The most player rows a CSV file may hold.
_CSV_MAX_ROWS = 2000


def choices(bodies: dict[str, type[BaseModel]]) -> dict:
    """What the organiser's forms offer, from the API's models: ``schemas`` (name -> the JSON
    Schema of the request body ``bodies`` names, e.g. ``create`` for ``POST /tournaments``),
    ``tiebreaks`` (each code of :data:`TIEBREAKS` explained), ``editions`` (FIDE C.07 edition ->
    its source), ``presets`` (name -> time-control text), ``time_controls``
    (:data:`TIME_CONTROL_FORMS`) and ``rounds_systems``, the systems whose number of rounds the
    organiser sets (the Swiss ones; a round robin's and a knockout's follow from the field and
    ``rounds`` is refused, services.pairing.creation.system_problem)."""
    return {"schemas": {k: b.model_json_schema() for k, b in bodies.items()},
            "tiebreaks": [tiebreak_meaning(c) for c in TIEBREAKS],
            "editions": {k: e.source for k, e in TIEBREAK_EDITIONS.items()},
            "presets": dict(PRESETS), "time_controls": list(TIME_CONTROL_FORMS),
            "rounds_systems": list(SWISS_SYSTEMS)}


def _int_fields(body: type[BaseModel]) -> set[str]:
    """The fields of ``body`` whose JSON type is an integer (alone or with null)."""
    out = set()
    for name, prop in body.model_json_schema()["properties"].items():
        kinds = [prop.get("type")] + [a.get("type") for a in prop.get("anyOf", ())]
        if "integer" in kinds:
            out.add(name)
    return out


def _errors_text(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in exc.errors())


def parse_csv(text: str, body: type[BaseModel]) -> dict:
    """The players of a CSV file ``text`` as registration bodies (``body``, the model of
    ``POST /tournaments/{tid}/players``): a header row naming its fields (case and spaces
    ignored: ``Player ID`` is ``player_id``), then a player a row; comma, semicolon or tab
    separated (:class:`csv.Sniffer`). Empty cells are left out; integer fields' digits are read
    as integers; a row without ``player_id`` gets the :func:`slug` of its name (``-2``, ``-3``...
    when taken). Answer ``{"players": [...], "errors": [{"line", "detail", "code": "invalid"}]}``
    (``line``: 1-based in the file, the header is line 1). Raises :class:`HTTPError` 422
    ``csv-header`` for a header naming no ``name`` column or an unknown one, ``csv-empty`` for
    no rows, ``too-many-rows`` above 2,000, ``csv-malformed`` for what :mod:`csv` refuses."""
    header, data = _csv_rows(text, list(body.model_fields))
    ints, taken = _int_fields(body), set()
    players, errors = [], []
    for line, r in data:
        row = _csv_row(header, r, ints, taken)
        try:
            players.append(body.model_validate(row).model_dump(exclude_none=True))
            taken.add(row["player_id"])
        except ValidationError as e:
            errors.append({"line": line, "detail": _errors_text(e), "code": "invalid"})
    return {"players": players, "errors": errors}


def _csv_rows(text: str, fields: list[str]) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """:func:`parse_csv`'s file read: its header (field names) and its non-blank rows with their
    1-based line numbers; the :class:`HTTPError` 422 refusals :func:`parse_csv` lists."""
    text = text.lstrip("\ufeff")
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = list(csv.reader(io.StringIO(text), dialect))
    except csv.Error as e:  # e.g. a field over the csv module's limit (128 KiB)
        raise HTTPError(422, f"not a CSV file this reader takes: {e}", code="csv-malformed") from None
    header = [c.strip().lower().replace(" ", "_") for c in rows[0]] if rows else []
    unknown = [c for c in header if c not in fields]
    if not header or "name" not in header or unknown:
        raise HTTPError(422, f"the first row must name the columns: name (required) and any of "
                             f"{', '.join(f for f in fields if f != 'name')}"
                             + (f"; unknown: {', '.join(unknown[:10])}" if unknown else ""), code="csv-header")
    data = [(i, r) for i, r in enumerate(rows[1:], start=2) if any(c.strip() for c in r)]
    if not data:
        raise HTTPError(422, "the file has a header but no player rows", code="csv-empty")
    if len(data) > _CSV_MAX_ROWS:
        raise HTTPError(422, f"{len(data)} rows: at most {_CSV_MAX_ROWS} a file", code="too-many-rows")
    return header, data


def _csv_row(header: list[str], cells: list[str], ints: set[str], taken: set[str]) -> dict:
    """One CSV row as a registration body's fields: empty cells left out, integer fields'
    digits as integers, a missing ``player_id`` made from the name's :func:`slug` (``-2``,
    ``-3``... when ``taken``)."""
    row = {k: v.strip() for k, v in zip(header, cells) if v.strip()}
    for k in ints & row.keys():
        if row[k].isascii() and row[k].isdigit():
            row[k] = int(row[k])
    if "player_id" not in row and "name" in row:
        base, k = slug(row["name"]), 1
        row["player_id"] = base
        while row["player_id"] in taken:
            k += 1
            row["player_id"] = f"{base[:55]}-{k}"
    return row


def parse_trf_players(data: bytes) -> dict:
    """The players of a FIDE TRF-16 file (its bytes: UTF-8 or Latin-1) as registration bodies:
    ``{"name", "rounds", "players"}`` (:func:`shared.domain.trf.registrations`). Raises
    :class:`HTTPError` 422 ``trf-malformed`` with the reader's reason (its line and column; a
    file without player lines too)."""
    try:
        t = parse_trf(decode_trf(data))
    except TrfError as e:
        raise HTTPError(422, str(e), code="trf-malformed") from None
    return {"name": t.name, "rounds": t.rounds, "players": registrations(t)}


#: The page of my events and of the creation form; ``organiser.js`` fills it.
EVENTS_BODY = """
<h1 data-i18n="My events">My events</h1>
<div id="signin"></div>
<p id="events-note" class="note" aria-live="polite"></p>
<div class="scroll"><table id="events-table" class="list"></table></div>
<h2 data-i18n="Create an event">Create an event</h2>
<form id="create-form" class="org-form" novalidate></form>
<p id="create-outcome" class="outcome" role="alert" hidden></p>"""

#: The page that runs one event; ``organiser.js`` fills it from GET /tournaments/{tid}.
EVENT_BODY = """
<h1 id="event-name"></h1>
<p id="event-facts" class="facts"></p>
<p class="links"><a id="lobby-link" data-i18n="The event's lobby">The event's lobby</a> · <a href="/ui/organiser" data-i18n="My events">My events</a></p>
<div id="signin"></div>
<p id="outcome" class="outcome" role="alert" hidden></p>
<nav class="tabs" aria-label="sections" data-i18n-label="sections">
  <a href="#players" data-i18n="Players">Players</a>
  <a href="#tokens" data-i18n="Tokens">Tokens</a>
  <a href="#lots" data-i18n="Lots">Lots</a>
  <a href="#pairing" data-i18n="Pairing">Pairing</a>
  <a href="#exports" data-i18n="Exports">Exports</a>
  <a href="#finish" data-i18n="Finish">Finish</a>
</nav>
<section id="players" class="tab"></section>
<section id="tokens" class="tab"></section>
<section id="lots" class="tab"></section>
<section id="pairing" class="tab"></section>
<section id="exports" class="tab"></section>
<section id="finish" class="tab"></section>"""


def organiser_router(gateway: Any, bodies: dict[str, type[BaseModel]]) -> APIRouter:
    """The router of this module: the two pages and the three reads. ``gateway`` the
    dependency giving the gateway (its ``caller``, read model ``rm`` and ``jwt_secret``);
    ``bodies``: the request bodies of the endpoints the pages write through (``create``:
    ``POST /tournaments``; ``register``: ``/tournaments/{tid}/players``; ``round``, ``lots``,
    ``finish``, ``tokens``), whose schemas the forms are built from."""
    router = APIRouter(tags=["organiser"])
    data = escape(json.dumps(choices(bodies)))
    register_body = bodies["register"]
    who = '<span id="who" class="who"></span>'

    @router.get("/ui/organiser", include_in_schema=False)
    async def events_page() -> HTMLResponse:
        return _page("my events", EVENTS_BODY, main_class="event organiser", script="organiser.js",
                     main_attrs=f' data-choices="{data}"', who=who)

    @router.get("/ui/organiser/{tid}", include_in_schema=False)
    async def event_page(tid: str, gw: Any = gateway) -> HTMLResponse:
        if gw.rm.tournament(tid) is None:
            return _not_found("event", tid)
        return _page(f"organise {tid}", EVENT_BODY, main_class="event organiser", script="organiser.js",
                     main_attrs=(f' data-choices="{data}" data-tid="{escape(tid)}"'
                                 f' data-events="{" ".join(TOURNAMENT_EVENT_TYPES)}"'), who=who)

    @router.get("/organiser/events")
    async def my_events(gw: Any = gateway, authorization: str | None = Header(default=None),
                        x_arbiter_token: str | None = Header(default=None, alias="X-Arbiter-Token")) -> dict:
        """The events the caller organises, latest first (``{"items": [summary...]}``, as
        ``GET /tournaments``). Identity on: 401 without a token; an organiser's are those he
        created or his token names, the administrator's all; identity off: all."""
        p = gw.caller(SimpleNamespace(token=x_arbiter_token, authorization=authorization))
        items = [t for t in reversed(gw.rm.tournaments.values())
                 if p is None or identity.may_organise(p, t.tournament_id, t.created_by)]
        return {"items": [tournament_summary(t) for t in items]}

    @router.post("/organiser/players/csv")
    async def players_csv(request: Request) -> dict:
        """A CSV file's players as registration bodies, checked row by row (see the module);
        nothing is registered. 422 ``not-utf8``, ``csv-header``, ``csv-empty``, ``too-many-rows``,
        ``csv-malformed``."""
        try:
            text = (await request.body()).decode("utf-8")
        except UnicodeDecodeError:
            raise HTTPError(422, "the CSV file is not UTF-8 text", code="not-utf8") from None
        return parse_csv(text, register_body)

    @router.post("/organiser/players/trf")
    async def players_trf(request: Request) -> dict:
        """A TRF-16 file's players as registration bodies (see the module); nothing is
        registered. 422 ``trf-malformed``."""
        return parse_trf_players(await request.body())

    return router
