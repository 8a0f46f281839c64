"""Recorded against re-derived decisions, field by field (:func:`compare`).

Used by ``arbiter audit`` (:mod:`services.tools.audit`: a whole log re-derived) and by a
restore that decides a partition's tail again with other code than decided it
(:meth:`shared.kafkahost.KafkaHost._verify_tail`)."""
from __future__ import annotations

from dataclasses import dataclass

from contracts.envelope import Envelope


@dataclass
class Difference:
    """One disagreement: the recorded event (or None), what differs, recorded vs re-derived."""

    stream: str
    seq: int
    type: str
    event_id: str | None
    what: str
    recorded: object
    rederived: object

    def __str__(self) -> str:
        return (f"{self.stream} seq {self.seq} {self.type} (event {self.event_id}): {self.what}: "
                f"recorded {self.recorded!r}, re-derived {self.rederived!r}")

    def as_dict(self) -> dict:
        return {"stream": self.stream, "seq": self.seq, "type": self.type,
                "event_id": self.event_id, "what": self.what,
                "recorded": _jsonable(self.recorded), "rederived": _jsonable(self.rederived)}


def _jsonable(v):
    return v if isinstance(v, (str, int, float, bool, type(None), list, dict)) else str(v)


def compare(recorded: list[Envelope], rederived: list[Envelope]) -> list[Difference]:
    """Field-by-field comparison of two event lists matched by (stream, seq)."""
    rec = {(m.stream, m.seq): m for m in recorded}
    red = {(m.stream, m.seq): m for m in rederived}
    # equal envelopes (same type, equal fields: what an untouched log re-derives) have equal
    # JSON forms, so only the others are taken apart, in (stream, seq) order. Same class and
    # equal field dicts is what pydantic's ``==`` finds first for these models (no private or
    # extra attributes), without its checks around it; anything else is taken apart, which
    # finds nothing for envelopes that are equal after all
    odd = [k for k, a in rec.items()
           if (b := red.get(k)) is None or type(a) is not type(b) or a.__dict__ != b.__dict__]
    odd += [k for k in red if k not in rec]
    diffs = []
    for key in sorted(odd):
        a, b = rec.get(key), red.get(key)
        if a is None:
            diffs.append(Difference(key[0], key[1], b.type, None, "missing from the log",
                                    None, b.model_dump(mode="json")["payload"]))
            continue
        if b is None:
            diffs.append(Difference(key[0], key[1], a.type, str(a.event_id),
                                    "not re-derived (no rule produces it)", a.model_dump(mode="json")["payload"], None))
            continue
        if a.type != b.type:
            diffs.append(Difference(key[0], key[1], a.type, str(a.event_id), "type", a.type, b.type))
            continue
        da, db = a.model_dump(mode="json"), b.model_dump(mode="json")
        for field in ("occurred_at", "causation_id", "event_id"):
            if da[field] != db[field]:
                diffs.append(Difference(key[0], key[1], a.type, str(a.event_id), field, da[field], db[field]))
        for k in sorted(set(da["payload"]) | set(db["payload"])):
            if da["payload"].get(k) != db["payload"].get(k):
                diffs.append(Difference(key[0], key[1], a.type, str(a.event_id), f"payload.{k}",
                                        da["payload"].get(k), db["payload"].get(k)))
    return diffs
