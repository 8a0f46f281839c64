"""Contract tests: the committed schemas in ``contracts/schemas/`` against the code.

- every committed ``<Type>.v<N>.json`` is compatible with the code's ``<Type>`` at version N (an
  incompatible change needs a ``VERSION`` bump and ``make schemas``), and no committed type is
  missing from the code;
- the committed files are exactly what ``make schemas`` generates now;
- :func:`contracts.compat.incompatible_changes` detects what it should (hand-written schemas);
- every message type round-trips through JSON and ``parse_message`` and validates against its
  committed JSON Schema and ``message.json``;
- ``asyncapi.json`` describes the log's five topics.
"""
from __future__ import annotations

import json
import types
import re
import typing
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union
from uuid import UUID

import jsonschema
import pytest
from pydantic import BaseModel, ConfigDict

from contracts.compat import incompatible_changes
from contracts.envelope import Actor, Envelope
from contracts.messages import LOG_TOPICS, MESSAGE_TYPES, PAYLOAD_TYPES, TOPICS, envelope, parse_message
from contracts.schemagen import TYPE_FILE_RE, write_all

SCHEMAS = Path(__file__).resolve().parents[2] / "contracts" / "schemas"
COMMITTED = sorted(p for p in SCHEMAS.glob("*.json") if TYPE_FILE_RE.match(p.name))


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


# ------------------------------------------------------------------ (a) committed vs current code
def test_schemas_are_committed():
    assert COMMITTED, f"no <Type>.v<N>.json in {SCHEMAS}: run make schemas"
    assert (SCHEMAS / "message.json").exists() and (SCHEMAS / "asyncapi.json").exists(), \
        "message.json / asyncapi.json missing: run make schemas"


@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: p.name)
def test_committed_schema_compatible_with_code(path: Path):
    m = TYPE_FILE_RE.match(path.name)
    assert m
    type_name, version = m["type"], int(m["version"])
    payload = PAYLOAD_TYPES.get(type_name)
    if payload is None:
        pytest.fail(f"{type_name} v{version} is committed in {path.name} but the message type was "
                    f"removed from contracts/messages.py: removing a message breaks readers of the "
                    f"log (restore it, or delete the schema file deliberately)")
    if payload.VERSION != version:
        pytest.fail(f"{type_name} is committed at v{version} but the code is at "
                    f"v{payload.VERSION}: run make schemas")
    changes = incompatible_changes(_load(path), MESSAGE_TYPES[type_name].model_json_schema())
    assert not changes, (
        f"{type_name} v{version} changed incompatibly:\n  - " + "\n  - ".join(changes)
        + f"\nbump VERSION of {type_name} and run make schemas")


def test_every_code_type_has_a_committed_schema():
    committed = {p.name for p in COMMITTED}
    missing = [f"{n}.v{p.VERSION}.json" for n, p in PAYLOAD_TYPES.items()
               if f"{n}.v{p.VERSION}.json" not in committed]
    assert not missing, f"schemas not committed: {missing}: run make schemas"


# --------------------------------------------------------------------------- (b) files up to date
def test_generated_files_are_up_to_date(tmp_path: Path):
    written = write_all(tmp_path)
    assert {p.name for p in written} == {p.name for p in tmp_path.glob("*.json")}
    fresh = {p.name: p.read_text(encoding="utf-8") for p in tmp_path.glob("*.json")}
    committed = {p.name: p.read_text(encoding="utf-8") for p in SCHEMAS.glob("*.json")}
    missing = sorted(set(fresh) - set(committed))
    # files of removed message types are reported by test_committed_schema_compatible_with_code
    extra = sorted(n for n in set(committed) - set(fresh)
                   if not (TYPE_FILE_RE.match(n) and TYPE_FILE_RE.match(n)["type"] not in
                           PAYLOAD_TYPES))
    stale = sorted(n for n in set(fresh) & set(committed) if fresh[n] != committed[n])
    assert not (missing or extra or stale), (
        f"contracts/schemas is out of date (missing {missing}, extra {extra}, "
        f"changed {stale}): run make schemas")


def test_generation_is_deterministic(tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    write_all(a)
    write_all(b)
    for p in a.iterdir():
        assert p.read_bytes() == (b / p.name).read_bytes(), p.name


def test_write_all_prunes_superseded_versions_only(tmp_path: Path):
    version = PAYLOAD_TYPES["MoveAccepted"].VERSION
    (tmp_path / f"MoveAccepted.v{version + 1}.json").write_text("{}")  # not the code's version
    (tmp_path / "Gone.v1.json").write_text("{}")  # a type not in the code: kept
    (tmp_path / "notes.txt").write_text("keep")
    write_all(tmp_path)
    assert not (tmp_path / f"MoveAccepted.v{version + 1}.json").exists()
    assert (tmp_path / f"MoveAccepted.v{version}.json").exists()
    assert (tmp_path / "Gone.v1.json").exists()
    assert (tmp_path / "notes.txt").exists()


# ------------------------------------------------------------------------------ (c) compat itself
def _obj(props: dict, required=(), **extra) -> dict:
    return {"type": "object", "properties": props, "required": list(required), **extra}


STR = {"type": "string"}
INT = {"type": "integer"}
NULLABLE_INT = {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}


def test_compat_identical_and_added_optional_field_are_compatible():
    old = _obj({"a": STR, "b": INT}, ["a"])
    assert incompatible_changes(old, old) == []
    assert incompatible_changes(old, _obj({"a": STR, "b": INT, "c": NULLABLE_INT}, ["a"])) == []
    assert incompatible_changes(old, _obj({"a": STR, "b": INT, "c": {**STR, "default": ""}},
                                          ["a"])) == []


def test_compat_field_removed():
    changes = incompatible_changes(_obj({"a": STR, "b": INT}, ["a"]), _obj({"a": STR}, ["a"]))
    assert changes == ["b: field removed"]


def test_compat_field_renamed():
    changes = incompatible_changes(_obj({"a": STR, "b": INT}, ["a", "b"]),
                                   _obj({"a": STR, "c": INT}, ["a", "c"]))
    assert any("b: field removed" in c and "renamed" in c and "c" in c for c in changes), changes
    assert "c: new required field" in changes


def test_compat_type_changed():
    changes = incompatible_changes(_obj({"a": STR}), _obj({"a": INT}))
    assert changes == ["a: type changed from string to integer"]


def test_compat_nullable_removed_is_a_type_change():
    changes = incompatible_changes(_obj({"a": NULLABLE_INT}), _obj({"a": INT}))
    assert changes == ["a: type changed from integer | null to integer"]


def test_compat_optional_made_required():
    changes = incompatible_changes(_obj({"a": STR, "b": INT}, ["a"]),
                                   _obj({"a": STR, "b": INT}, ["a", "b"]))
    assert changes == ["b: field made required (was optional)"]


def test_compat_required_made_optional_is_compatible():
    assert incompatible_changes(_obj({"a": STR}, ["a"]), _obj({"a": STR})) == []


def test_compat_enum_value_removed_and_added():
    old = _obj({"k": {"type": "string", "enum": ["x", "y", "z"]}})
    assert incompatible_changes(old, _obj({"k": {"type": "string", "enum": ["x", "z"]}})) == [
        "k: enum value 'y' removed"]
    assert incompatible_changes(old, _obj({"k": {"type": "string",
                                                 "enum": ["x", "y", "z", "w"]}})) == []
    # a single-value Literal is a const in pydantic's schema
    assert incompatible_changes(_obj({"k": {"const": "x", "type": "string"}}),
                                _obj({"k": {"const": "y", "type": "string"}})) == [
        "k: enum value 'x' removed"]


def test_compat_follows_refs_and_nullable_refs():
    def doc(rule_props, rule_required, ruling):
        return {
            "$defs": {"Rule": _obj(rule_props, rule_required, title="Rule"),
                      "Payload": _obj({"rule": ruling}, title="Payload")},
            **_obj({"payload": {"$ref": "#/$defs/Payload"}}, ["payload"]),
        }

    nullable_rule = {"anyOf": [{"$ref": "#/$defs/Rule"}, {"type": "null"}], "default": None}
    old = doc({"article": STR, "summary": STR}, ["article"], nullable_rule)
    assert incompatible_changes(old, old) == []
    new = doc({"article": INT}, ["article"], nullable_rule)
    assert incompatible_changes(old, new) == [
        "payload.rule.article: type changed from string to integer",
        "payload.rule.summary: field removed"]
    not_nullable = doc({"article": STR, "summary": STR}, ["article"], {"$ref": "#/$defs/Rule"})
    assert incompatible_changes(old, not_nullable) == [
        "payload.rule: type changed from null | object to object"]


def test_compat_arrays_and_maps():
    old = _obj({"xs": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                "m": {"type": "object", "additionalProperties": INT}})
    new = _obj({"xs": {"type": "array", "items": {"type": "string", "enum": ["a"]}},
                "m": {"type": "object", "additionalProperties": STR}})
    assert incompatible_changes(old, new) == [
        "m.*: type changed from integer to string", "xs[]: enum value 'b' removed"]


def test_compat_tightened_constraints():
    old = _obj({"s": {"type": "string", "maxLength": 16}, "n": {"type": "integer", "minimum": 0}})
    new = _obj({"s": {"type": "string", "maxLength": 8}, "n": {"type": "integer", "minimum": 1}})
    assert incompatible_changes(old, new) == ["n: minimum tightened from 0 to 1",
                                              "s: maxLength tightened from 16 to 8"]
    assert incompatible_changes(new, old) == []


def test_compat_union_member_removed():
    old = {"$defs": {"A": _obj({"x": INT}, title="A"), "B": _obj({"y": INT}, title="B")},
           "oneOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}]}
    new = {"$defs": {"A": _obj({"x": INT}, title="A")}, "oneOf": [{"$ref": "#/$defs/A"}]}
    assert incompatible_changes(old, new) == ["(root): union member B removed"]


class _V1(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game_id: str
    colour: Literal["white", "black"]
    ply: int
    note: Optional[str] = None


def test_compat_on_real_pydantic_models():
    """Edits of a pydantic model as a developer would make them."""
    class Added(_V1):
        extra_info: str = ""

    class Renamed(BaseModel):
        model_config = ConfigDict(extra="forbid")
        game_id: str
        colour: Literal["white", "black"]
        half_move: int
        note: Optional[str] = None

    class Retyped(BaseModel):
        game_id: str
        colour: Literal["white", "black"]
        ply: str
        note: Optional[str] = None

    class Required(BaseModel):
        game_id: str
        colour: Literal["white", "black"]
        ply: int
        note: Optional[str]

    class Narrowed(BaseModel):
        game_id: str
        colour: Literal["white"]
        ply: int
        note: Optional[str] = None

    v1 = _V1.model_json_schema()
    assert incompatible_changes(v1, Added.model_json_schema()) == []
    renamed = incompatible_changes(v1, Renamed.model_json_schema())
    assert "ply: field removed (renamed? new fields: half_move)" in renamed
    assert incompatible_changes(v1, Retyped.model_json_schema()) == [
        "ply: type changed from integer to string"]
    assert incompatible_changes(v1, Required.model_json_schema()) == [
        "note: field made required (was optional)"]
    assert incompatible_changes(v1, Narrowed.model_json_schema()) == [
        "colour: enum value 'black' removed"]


# --------------------------------------------------------------------------- (d) round trips
AT = datetime(2024, 5, 1, 12, 30, 15, 123456, tzinfo=timezone.utc)


def _sample_value(annotation: Any, full: bool) -> Any:
    """A valid value of ``annotation`` (str/int/float/bool, Literal, Optional, tuple, dict, model)."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is Annotated:
        return _sample_value(args[0], full)
    if origin is Literal:
        return args[-1] if full else args[0]
    if origin in (Union, types.UnionType):
        non_null = [a for a in args if a is not type(None)]
        return _sample_value(non_null[0], full)
    if origin is tuple:
        return (_sample_value(args[0], full),) if full or args[-1] is not Ellipsis else ()
    if origin is dict:
        return {"p1": _sample_value(args[1], full)}
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _sample_model(annotation, full)
    if annotation is bool:
        return True
    if annotation is int:
        return 2
    if annotation is float:
        return 1.5
    if annotation is str:
        return "x1"
    if annotation is UUID:
        return UUID("12345678-1234-5678-1234-567812345678")
    if annotation is dict:  # RecordGameEvent.event: any JSON object
        return {"type": "GameEnded", "seq": 1} if full else {}
    raise AssertionError(f"no sample value for {annotation!r}: extend _sample_value")


def _sample_model(model: type[BaseModel], full: bool) -> BaseModel:
    """An instance with every required field filled (and with ``full`` every optional one too)."""
    values = {name: _sample_field(f, full)
              for name, f in model.model_fields.items() if full or f.is_required()}
    return model(**values)


def _sample_field(f: Any, full: bool) -> Any:
    """A field's sample value, kept within its constraints: hex digits for a hex pattern
    (checkpoints: key id, signature, chain), one item for a tuple of at least one."""
    value = _sample_value(f.annotation, full)
    for meta in f.metadata:
        hexes = re.fullmatch(r"\^\[0-9a-f\]\{(\d+)\}\$", getattr(meta, "pattern", None) or "")
        if hexes:
            value = "a" * int(hexes.group(1))
        if (getattr(meta, "min_length", None) or 0) > 0 and value == ():
            value = _sample_value(f.annotation, True)
    return value


def _sample_envelope(type_name: str, full: bool) -> Envelope:
    payload = _sample_model(PAYLOAD_TYPES[type_name], full)
    kw: dict[str, Any] = {}
    if full:
        kw = dict(causation_id=UUID(int=1), correlation_id=UUID(int=2), event_id=UUID(int=3))
    return envelope(payload, stream="game-g1.clock", seq=7, occurred_at=AT,
                    actor=Actor(kind="service", id="clock"), **kw)


SAMPLES = [(n, full) for n in MESSAGE_TYPES for full in (False, True)]


@pytest.mark.parametrize("type_name,full", SAMPLES,
                         ids=[f"{n}-{'full' if f else 'minimal'}" for n, f in SAMPLES])
def test_message_round_trip_and_validates_against_committed_schema(type_name: str, full: bool):
    env = _sample_envelope(type_name, full)
    assert type(env) is MESSAGE_TYPES[type_name]
    raw = env.model_dump_json()
    back = parse_message(raw)
    assert type(back) is type(env) and back == env
    assert parse_message(raw.encode()) == env
    assert parse_message(json.loads(raw)) == env

    version = PAYLOAD_TYPES[type_name].VERSION
    path = SCHEMAS / f"{type_name}.v{version}.json"
    assert path.exists(), f"{path.name} not committed: run make schemas"
    doc = json.loads(raw)
    for schema_path in (path, SCHEMAS / "message.json"):
        validator = jsonschema.Draft202012Validator(_load(schema_path),
                                                    format_checker=jsonschema.FormatChecker())
        errors = [f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
                  for e in validator.iter_errors(doc)]
        assert not errors, (f"a {type_name} message does not validate against the committed "
                            f"{schema_path.name}: {errors}: run make schemas")


def test_committed_schema_rejects_wrong_payload():
    schema = _load(SCHEMAS / f"MoveAccepted.v{PAYLOAD_TYPES['MoveAccepted'].VERSION}.json")
    doc = json.loads(_sample_envelope("MoveAccepted", True).model_dump_json())
    doc["payload"]["status"] = "won-on-vibes"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    del doc["payload"]["ply"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


# -------------------------------------------------------------------------------- (e) AsyncAPI
def test_asyncapi_lists_the_topics_of_the_log():
    doc = _load(SCHEMAS / "asyncapi.json")
    assert doc["asyncapi"].startswith("3.")
    addresses = {ch["address"] for ch in doc["channels"].values()}
    assert addresses == set(LOG_TOPICS) == {
        "arbiter.game.commands", "arbiter.game.events",
        "arbiter.tournament.commands", "arbiter.tournament.events", "arbiter.checkpoints"}
    actions = {(op["channel"]["$ref"].rsplit("/", 1)[-1], op["action"])
               for op in doc["operations"].values()}
    for topic in LOG_TOPICS:
        assert (f"{topic}:subscribe", "receive") in actions
        assert (f"{topic}:publish", "send") in actions


def test_asyncapi_messages_name_every_type_of_their_topic():
    doc = _load(SCHEMAS / "asyncapi.json")
    schemas = doc["components"]["schemas"]
    for topic in TOPICS:
        expected = {f"{n}Message" for n, p in PAYLOAD_TYPES.items() if p.TOPIC == topic}
        for role in ("subscribe", "publish"):
            union = schemas[f"{topic}:{role}:Message:Payload"]
            refs = {m["$ref"].rsplit("/", 1)[-1] for m in union["oneOf"]}
            assert refs == expected, (topic, role)
    checkpoint = doc["components"]["messages"]["arbiter.checkpoints:publish:Message"]["payload"]
    assert checkpoint == {"$ref": "#/components/schemas/StreamsCheckpointedMessage"}  # its one type


def test_the_events_recording_a_command_declare_its_fields_once():
    """TournamentCreated, GameStarted and PlayerRegistered are built from their commands'
    fields (issue 11 item 4, one declaration); PlayerRegistered keeps the key order its
    hand-written declaration had (the hash chains of logs written before hash that JSON):
    RegisterPlayer's fields with the late entry's ``from_round`` and ``missed`` after ``board``."""
    from contracts.messages import (CreateGame, CreateTournament, GameStarted, PlayerRegistered,
                                    RegisterPlayer, TournamentCreated)

    for event, command in ((TournamentCreated, CreateTournament), (GameStarted, CreateGame),
                           (PlayerRegistered, RegisterPlayer)):
        assert set(command.model_fields) <= set(event.model_fields), event.__name__
    own = list(RegisterPlayer.model_fields)
    at = own.index("board") + 1
    assert list(PlayerRegistered.model_fields) == own[:at] + ["from_round", "missed"] + own[at:]
    assert list(PlayerRegistered.model_fields)[:12] == [
        "tournament_id", "player_id", "name", "rating", "fide_id", "title", "grade", "club", "team",
        "board", "from_round", "missed"]
