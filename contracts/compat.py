"""Compatibility check between two JSON Schemas of the same message type and version.

:func:`incompatible_changes` lists, as human-readable strings, the changes that break readers or
writers of messages already on the log:

- a field removed (or renamed: reported as removed, naming the fields that appeared instead);
- a property's type changed (the set of JSON types, ``null`` included, differs);
- a field made required that was optional, or a new required field;
- an enum / ``Literal`` / ``const`` value removed, or a free value restricted to an enum;
- a constraint tightened (``maxLength``/``maximum``/``maxItems`` lowered, ``minLength``/
  ``minimum``/``minItems`` raised, ``pattern`` changed), extra properties forbidden;
- a member of a union (``anyOf``/``oneOf``) removed.

Adding an optional field, relaxing a constraint, or adding an enum value is compatible.
``$ref`` is resolved within each document (``#/$defs/...``, ``#/definitions/...``, any JSON
pointer); ``anyOf``/``oneOf`` with ``{"type": "null"}`` is read as a nullable value. Titles,
descriptions, defaults and examples are ignored.
"""
from __future__ import annotations

from typing import Any

__all__ = ["incompatible_changes"]

_JSON_TYPE_OF = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
                 (list, "array"), (dict, "object"), (type(None), "null"))
_UPPER = ("maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties")
_LOWER = ("minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties")
_MISSING = object()


def _json_type(value: Any) -> str:
    for py, name in _JSON_TYPE_OF:
        if isinstance(value, py):
            return name
    return "unknown"


def _resolve_pointer(doc: dict, ref: str) -> dict:
    if not ref.startswith("#"):
        raise ValueError(f"only local $ref are supported, got {ref!r}")
    node: Any = doc
    for part in [p for p in ref[1:].split("/") if p]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, list):
            node = node[int(part)]
        else:
            node = node[part]
    return node


class _Doc:
    def __init__(self, root: dict) -> None:
        self.root = root

    def deref(self, node: Any) -> Any:
        """Follow ``$ref`` chains; sibling keywords of a ``$ref`` are merged over the target."""
        seen: set[str] = set()
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            if ref in seen:
                raise ValueError(f"circular $ref {ref!r}")
            seen.add(ref)
            target = _resolve_pointer(self.root, ref)
            extra = {k: v for k, v in node.items() if k != "$ref"}
            node = {**target, **extra} if extra else target
        return node


def _label(path: str) -> str:
    return path or "(root)"


def _variants(doc: _Doc, node: Any) -> tuple[list[Any], bool]:
    """The non-null alternatives of a node and whether null is allowed."""
    node = doc.deref(node)
    if not isinstance(node, dict):
        return [node], False
    for key in ("anyOf", "oneOf"):
        if key in node:
            out: list[Any] = []
            nullable = False
            for member in node[key]:
                sub, sub_null = _variants(doc, member)
                nullable = nullable or sub_null
                out.extend(sub)
            siblings = {k: v for k, v in node.items() if k not in (key, "discriminator")}
            if siblings and len(out) == 1 and isinstance(out[0], dict):
                out = [{**siblings, **out[0]}]
            return out, nullable
    types = node.get("type")
    if types == "null" or node.get("const", _MISSING) is None and "const" in node:
        return [], True
    if isinstance(types, list) and "null" in types:
        rest = [t for t in types if t != "null"]
        copy = dict(node)
        copy["type"] = rest[0] if len(rest) == 1 else rest
        return ([copy] if rest else []), True
    return [node], False


def _types(doc: _Doc, node: Any) -> set[str]:
    """The set of JSON types a (dereferenced, non-union) node accepts; empty = anything."""
    if not isinstance(node, dict):
        return set() if node is True else {"never"}
    t = node.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return set(t)
    if "const" in node:
        return {_json_type(node["const"])}
    if "enum" in node:
        return {_json_type(v) for v in node["enum"]}
    if "properties" in node or "additionalProperties" in node:
        return {"object"}
    if "items" in node or "prefixItems" in node:
        return {"array"}
    return set()


def _values(node: Any) -> list | None:
    """The allowed values of an enum/const node, or None when the values are free."""
    if not isinstance(node, dict):
        return None
    if "const" in node:
        return [node["const"]]
    if "enum" in node:
        return list(node["enum"])
    return None


def _member_key(doc: _Doc, raw: Any, node: Any) -> str:
    """A name for a union member: its ref target, title, const discriminator or types."""
    if isinstance(raw, dict) and "$ref" in raw:
        return raw["$ref"].rsplit("/", 1)[-1]
    if isinstance(node, dict):
        if node.get("title"):
            return str(node["title"])
        props = node.get("properties") or {}
        for name in ("type", "kind"):
            const = _values(doc.deref(props.get(name, {})))
            if const and len(const) == 1:
                return f"{name}={const[0]!r}"
    return "|".join(sorted(_types(doc, node))) or "any"


def _raw_members(node: Any) -> list[Any]:
    if isinstance(node, dict):
        for key in ("anyOf", "oneOf"):
            if key in node:
                return [m for m in node[key] if m != {"type": "null"}]
    return [node]


class _Comparer:
    def __init__(self, old: dict, new: dict) -> None:
        self.old = _Doc(old)
        self.new = _Doc(new)
        self.changes: list[str] = []
        self._active: set[tuple[int, int]] = set()

    def add(self, path: str, text: str) -> None:
        msg = f"{_label(path)}: {text}"
        if msg not in self.changes:
            self.changes.append(msg)

    def compare(self, old_raw: Any, new_raw: Any, path: str) -> None:
        old_node, new_node = self.old.deref(old_raw), self.new.deref(new_raw)
        key = (id(old_node), id(new_node))
        if key in self._active:  # recursive schema: already being compared higher up
            return
        self._active.add(key)
        try:
            self._compare(old_raw, new_raw, old_node, new_node, path)
        finally:
            self._active.discard(key)

    def _compare(self, old_raw: Any, new_raw: Any, old_node: Any, new_node: Any, path: str) -> None:
        old_vars, old_null = _variants(self.old, old_node)
        new_vars, new_null = _variants(self.new, new_node)
        old_types = self._type_set(self.old, old_vars, old_null)
        new_types = self._type_set(self.new, new_vars, new_null)
        if new_types is None:  # new accepts anything: a relaxation
            return
        if old_types != new_types:
            self.add(path, f"type changed from {_fmt_types(old_types)} to {_fmt_types(new_types)}")
            return

        if len(old_vars) == 1 and len(new_vars) == 1:
            self._compare_single(old_vars[0], new_vars[0], path)
            return
        if not old_vars or not new_vars:
            return
        # real unions: match members by name, else by position
        old_members = _raw_members(old_node)
        new_members = _raw_members(new_node)
        old_named = {_member_key(self.old, r, v): r for r, v in
                     zip(old_members, [self.old.deref(m) for m in old_members])}
        new_named = {_member_key(self.new, r, v): r for r, v in
                     zip(new_members, [self.new.deref(m) for m in new_members])}
        if len(old_named) == len(old_members) and len(new_named) == len(new_members):
            for name, raw in old_named.items():
                if name not in new_named:
                    self.add(path, f"union member {name} removed")
                else:
                    self.compare(raw, new_named[name], path)
        else:
            if len(new_members) < len(old_members):
                self.add(path, f"union shrank from {len(old_members)} to {len(new_members)} members")
            for o, n in zip(old_members, new_members):
                self.compare(o, n, path)

    @staticmethod
    def _type_set(doc: _Doc, variants: list[Any], nullable: bool) -> set[str] | None:
        """JSON types accepted by the union of ``variants`` (+ null); None = any value."""
        out: set[str] = {"null"} if nullable else set()
        for v in variants:
            t = _types(doc, v)
            if not t:
                return None
            out |= t
        return out

    def _compare_single(self, old: Any, new: Any, path: str) -> None:
        old, new = self.old.deref(old), self.new.deref(new)
        if not isinstance(old, dict) or not isinstance(new, dict):
            if old != new and new is not True:
                self.add(path, "schema changed")
            return
        self._compare_values(old, new, path)
        self._compare_constraints(old, new, path)
        if "properties" in old or "properties" in new or "required" in old or "required" in new:
            self._compare_object(old, new, path)
        elif "additionalProperties" in old or "additionalProperties" in new:
            self._compare_additional(old, new, path)
        self._compare_arrays(old, new, path)

    def _compare_values(self, old: dict, new: dict, path: str) -> None:
        """enum / Literal / const: a value removed, or values imposed where any was accepted."""
        old_vals, new_vals = _values(old), _values(new)
        if new_vals is not None:
            if old_vals is None:
                self.add(path, f"restricted to the values {_fmt_values(new_vals)}")
            else:
                removed = [v for v in old_vals if v not in new_vals]
                for v in removed:
                    self.add(path, f"enum value {v!r} removed")

    def _compare_constraints(self, old: dict, new: dict, path: str) -> None:
        """Bounds tightened (an upper bound lowered, a lower one raised, one added), a pattern or
        a format changed."""
        for k in _UPPER:
            if k in new and (k not in old or _num(new[k]) < _num(old[k])):
                self.add(path, f"{k} tightened from {old.get(k, 'none')} to {new[k]}")
        for k in _LOWER:
            if k in new and (k not in old or _num(new[k]) > _num(old[k])):
                self.add(path, f"{k} tightened from {old.get(k, 'none')} to {new[k]}")
        for k in ("pattern", "format"):
            if k in new and old.get(k) != new[k]:
                self.add(path, f"{k} changed from {old.get(k)!r} to {new[k]!r}")

    def _compare_arrays(self, old: dict, new: dict, path: str) -> None:
        """Array items compared; a tuple (prefixItems) of another length, and its items."""
        if "items" in old and "items" in new and isinstance(old["items"], (dict, bool)):
            self.compare(old["items"], new["items"], f"{path}[]")
        if "prefixItems" in old or "prefixItems" in new:
            o_items, n_items = old.get("prefixItems", []), new.get("prefixItems", [])
            if len(n_items) != len(o_items):
                self.add(path, f"tuple length changed from {len(o_items)} to {len(n_items)}")
            for i, (o, n) in enumerate(zip(o_items, n_items)):
                self.compare(o, n, f"{path}[{i}]")

    def _compare_additional(self, old: dict, new: dict, path: str) -> None:
        o_add, n_add = old.get("additionalProperties", True), new.get("additionalProperties", True)
        if n_add is False and o_add is not False:
            self.add(path, "additional properties are now forbidden")
        elif isinstance(o_add, dict) and isinstance(n_add, dict):
            self.compare(o_add, n_add, f"{path}.*" if path else "*")

    def _compare_object(self, old: dict, new: dict, path: str) -> None:
        o_props, n_props = old.get("properties", {}), new.get("properties", {})
        o_req, n_req = set(old.get("required", ())), set(new.get("required", ()))
        added = [p for p in n_props if p not in o_props]
        removed = [p for p in o_props if p not in n_props]
        for name in removed:
            hint = f" (renamed? new fields: {', '.join(added)})" if added else ""
            self.add(_join(path, name), f"field removed{hint}")
        for name, sub in o_props.items():
            if name in n_props:
                self.compare(sub, n_props[name], _join(path, name))
        for name in sorted(n_req - o_req):
            if name in o_props:
                self.add(_join(path, name), "field made required (was optional)")
            else:
                self.add(_join(path, name), "new required field")
        self._compare_additional(old, new, path)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _num(v: Any) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


def _fmt_types(types: set[str] | None) -> str:
    if types is None:
        return "any"
    return " | ".join(sorted(types)) if types else "nothing"


def _fmt_values(values: list) -> str:
    return "[" + ", ".join(repr(v) for v in values) + "]"


def incompatible_changes(old: dict, new: dict) -> list[str]:
    """Incompatible changes from JSON Schema ``old`` to ``new`` (same type, same version).

    Each item reads ``"<field path>: <what changed>"``, e.g. ``"payload.rule: field removed"``
    or ``"payload.status: enum value 'ongoing' removed"``. An empty list means compatible.
    Sorted by path, so the result does not depend on the key order of the documents.
    """
    cmp = _Comparer(old, new)
    cmp.compare(old, new, "")
    return sorted(cmp.changes)
