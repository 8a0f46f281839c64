"""The audit's integrity check: every stream's hash chain and the signed checkpoints
(:mod:`shared.chain`, DESIGN.md invariant 5). Pure: a function of the messages and the trusted
public keys.

What it names (each a :class:`Finding` with the stream, seq and event):

- ``chain broken``: a message whose ``chain`` is not SHA-256 of the chain of its stream's
  message at seq - 1 and its own canonical bytes: it was edited (an edit breaks at the edited
  message only), or the message before it is missing (deleted);
- ``forked``: a second, different message at a seq of its stream (two writers: a zombie
  instance that was not fenced; the seq check of the re-derivation names the repeat too;
  the same message twice, a redelivery, is not a fork);
- ``out of order``: a message placed in the log after a later seq of its stream, or before
  an earlier one it skipped (a move: the order of the log is what the decisions followed);
- ``chain stripped``: a message without ``chain`` after chained ones of its stream;
- ``re-forged``: a stream whose chains are consistent but whose head at a signed seq is not
  the one signed: its messages after the previous signed head were rewritten and their chains
  recomputed (the product's own code can; only a key the forger lacks catches it);
- ``truncated``: a signed checkpoint names a seq the log does not reach (a cut-off tail);
- ``checkpoint missing``: an aggregate's checkpoint numbered below one in the log is not in
  it (deleted, with what it attested); or a trusted checkpoint kept outside the log (an
  *anchor*, below) that the log does not hold;
- ``checkpoint not trusted``: a checkpoint whose signature does not verify, or that is signed
  by a key not configured (the audit trusts only keys it is given, never one in the log);
- ``end not signed``: a chained aggregate's GameEnded/TournamentFinished that no trusted
  checkpoint covers;
- ``not chained``: with a verification key, a stream none of whose messages carries a chain
  (named at its first message): a log written before the chain, or one whose forger stripped
  every chain and checkpoint so that nothing is left to break; an audit that is given a key
  trusts no unsigned stream.
- ``not the player's own``: a player's command naming another player (``player_id``), which
  no gateway records (an edited actor; named in a log without chains too).

Not a finding (:class:`Integrity` notes them): without a verification key, streams without
any chain ("unchained"); and the messages after a stream's last trusted checkpoint
("unattested"): a message deleted from that tail, or a tail cut off together with the
checkpoints after it (a resignation, the result and the end's checkpoint), cannot be detected
from the log: the checkpoints left are still numbered without a gap, and the log reads as a
game in progress. The window is at most ``ARBITER_CHECKPOINT_EVERY`` messages of the
aggregate or the snapshot interval, and closes at an aggregate's end. Anchors close it: the
checkpoints of an earlier copy of the log kept elsewhere (``arbiter audit --anchors FILE``: an
earlier ``export-log``, a federation's or an integrator's copy, the way transparency logs
are witnessed). Every trusted anchor must be in the log (else ``checkpoint missing``) and the
log must reach every head it signs (else ``truncated``); an anchor is trusted by its
signature alone, so a copy from anyone will do.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from contracts.envelope import Envelope
from contracts.messages import CHECKPOINTS
from shared.chain import ENDINGS, canonical_text, link, verify


@dataclass(frozen=True)
class Finding:
    """One integrity finding: ``what`` (see the module doc) at ``stream`` ``seq`` (the event
    id when the log has the message), with ``detail``."""

    stream: str
    seq: int
    event_id: str | None
    what: str
    detail: str

    def __str__(self) -> str:
        return f"{self.stream} seq {self.seq} (event {self.event_id}): {self.what}: {self.detail}"

    def as_dict(self) -> dict:
        return {"stream": self.stream, "seq": self.seq, "event_id": self.event_id,
                "what": self.what, "detail": self.detail}


@dataclass
class Integrity:
    """The check's result: ``findings``; ``unchained`` (streams without any chain),
    ``unattested`` (chained messages after their stream's last trusted checkpoint),
    ``checkpoints`` (trusted / in the log), ``signatures_checked`` (a key was configured),
    ``anchors`` / ``anchors_trusted`` (checkpoints read from the anchors / of them trusted;
    None without anchors)."""

    findings: list[Finding] = field(default_factory=list)
    unchained: int = 0
    unattested: int = 0
    checkpoints: int = 0
    trusted: int = 0
    signatures_checked: bool = False
    anchors: int | None = None
    anchors_trusted: int | None = None

    def summary(self) -> str:
        sig = (f"{self.trusted} of {self.checkpoints} checkpoint(s) signed by a trusted key"
               if self.signatures_checked else
               f"{self.checkpoints} checkpoint(s), signatures NOT checked (no --verify-key)")
        anchors = ("" if self.anchors is None else
                   f"; anchors: {self.anchors} checkpoint(s) read, {self.anchors_trusted} trusted"
                   if self.signatures_checked else
                   f"; anchors: {self.anchors} checkpoint(s) read, signatures NOT checked")
        return (f"{len(self.findings)} integrity finding(s); {sig}; {self.unchained} unchained "
                f"stream(s); {self.unattested} message(s) after their stream's last checkpoint"
                + anchors)


def check(messages: list[Envelope], keys: dict[str, Ed25519PublicKey] | None,
          anchors: list[Envelope] | None = None) -> Integrity:
    """Verify ``messages`` (a log, or an export-log selection, in log order). ``keys``: the
    trusted public keys by key id (:func:`shared.signing.verify_keys`); None or empty: the
    chains are checked and the checkpoints taken as they are, and the result says the
    signatures were not checked. ``anchors``: messages of a copy kept outside the log (see the
    module doc); only their checkpoints are read, and anchors without a trusted one are a
    finding (``anchors empty``: they vouch for nothing). None: no anchors given."""
    res = Integrity(signatures_checked=bool(keys))
    by_stream: dict[str, dict[int, Envelope]] = {}
    cps = []
    for m in messages:
        if m.payload.TOPIC == CHECKPOINTS:
            cps.append(m)
        else:
            by_stream.setdefault(m.stream, {}).setdefault(m.seq, m)
    unchained = _chains(messages, by_stream, res)
    if keys:
        for stream in unchained:
            first = by_stream[stream][min(by_stream[stream])]
            res.findings.append(Finding(stream, first.seq, str(first.event_id), "not chained",
                                        "no message of this stream carries a chain: written "
                                        "before the chain, or every chain stripped"))
    _own_commands(messages, res)
    _checkpoint_gaps(cps, res)
    if anchors is not None:
        cps += _anchors(cps, anchors, keys, res)
    signed = _signed_heads(cps, keys, res)
    for stream, heads in signed.items():
        _against_heads(stream, heads, by_stream.get(stream, {}), res)
    for stream, seqs in by_stream.items():
        top = max(signed.get(stream, {0: ""}))
        res.unattested += sum(1 for s, m in seqs.items() if s > top and m.chain is not None)
        if keys:
            for s, m in seqs.items():
                if m.type in ENDINGS and m.chain is not None and s > top:
                    res.findings.append(Finding(stream, s, str(m.event_id), "end not signed",
                                                f"no trusted checkpoint covers this {m.type}"))
    return res


def _chains(messages: list[Envelope], by_stream: dict[str, dict[int, Envelope]],
            res: Integrity) -> list[str]:
    """Each message's chain against its stream's message at seq - 1 (chain broken / stripped:
    an edit, a deletion), and its place in the log against the seqs before it (out of order:
    a move). Returns the streams without any chain, in log order."""
    top: dict[str, int] = {}
    seen: set[tuple[str, int]] = set()
    chained: set[str] = set()
    for m in messages:
        if m.payload.TOPIC == CHECKPOINTS:
            continue
        seqs, last = by_stream[m.stream], top.get(m.stream, 0)
        top[m.stream] = max(last, m.seq)
        again = (m.stream, m.seq) in seen
        seen.add((m.stream, m.seq))
        if m.seq <= last and not again or m.seq > last + 1 and m.seq - 1 in seqs:
            res.findings.append(Finding(m.stream, m.seq, str(m.event_id), "out of order",
                                        f"after seq {last} of its stream in the log"))
        if m.chain is None:
            if m.stream in chained:
                res.findings.append(Finding(m.stream, m.seq, str(m.event_id), "chain stripped",
                                            "no chain after chained messages of its stream"))
            continue
        chained.add(m.stream)
        first = seqs[m.seq]
        if first is not m and first.chain != m.chain:
            res.findings.append(Finding(m.stream, m.seq, str(m.event_id), "forked",
                                        f"a second message at this seq, other than event "
                                        f"{first.event_id}: two writers"))
            continue
        before = seqs.get(m.seq - 1)
        if m.seq > 1 and before is None:
            res.findings.append(Finding(m.stream, m.seq, str(m.event_id), "chain broken",
                                        f"the message before it (seq {m.seq - 1}) is not in the "
                                        "log: deleted"))
        elif link(before.chain if before is not None else None,
                  canonical_text(m).encode()) != m.chain:
            res.findings.append(Finding(m.stream, m.seq, str(m.event_id), "chain broken",
                                        "edited, or the message before it edited"))
    unchained = [s for s in top if s not in chained]
    res.unchained = len(unchained)
    return unchained


def _own_commands(messages: list[Envelope], res: Integrity) -> None:
    """A player's command names himself (``player_id`` = the actor's id): the gateway records
    a player acting for another only as the arbiter (DESIGN.md invariant 5). Another id is an
    edited actor (``not the player's own``), named in a log without chains too, where an
    edit breaks no chain."""
    for m in messages:
        named = getattr(m.payload, "player_id", None)
        if m.actor.kind == "player" and named is not None and named != m.actor.id:
            res.findings.append(Finding(m.stream, m.seq, str(m.event_id), "not the player's own",
                                        f"player {m.actor.id}'s command names player {named}: "
                                        "a player acts only for himself"))


def _checkpoint_gaps(cps: list[Envelope], res: Integrity) -> None:
    """Each aggregate's checkpoints are numbered 1, 2, ... by their signer (the number is
    signed): a number missing below the highest one in the log is a checkpoint deleted
    (``checkpoint missing``), which would otherwise take what it attested out of the check."""
    seqs: dict[str, set[int]] = {}
    for cp in cps:
        seqs.setdefault(cp.stream, set()).add(cp.seq)
    for stream, have in seqs.items():
        for seq in sorted(set(range(1, max(have))) - have):
            res.findings.append(Finding(stream, seq, None, "checkpoint missing",
                                        f"checkpoint {seq} of {max(have)} is not in the log: deleted"))


def _anchors(cps: list[Envelope], anchors: list[Envelope], keys, res: Integrity) -> list[Envelope]:
    """The trusted checkpoints of ``anchors`` the log's ``cps`` lack, each named
    ``checkpoint missing`` (deleted from the log, or cut off with its tail); their heads are
    then checked against the log like its own checkpoints'."""
    have = {cp.event_id for cp in cps}
    out = []
    res.anchors = res.anchors_trusted = 0
    for a in anchors:
        if a.payload.TOPIC != CHECKPOINTS:
            continue
        res.anchors += 1
        if keys and verify(a, keys) is not None:
            continue
        res.anchors_trusted += 1
        if a.event_id in have:
            continue
        have.add(a.event_id)
        out.append(a)
        res.findings.append(Finding(a.stream, a.seq, str(a.event_id), "checkpoint missing",
                                    "a checkpoint kept outside the log (an anchor) is not in it"))
    if not res.anchors_trusted:
        res.findings.append(Finding("(anchors)", 0, None, "anchors empty",
                                    f"{res.anchors} checkpoint(s) in the anchors"
                                    + (", none signed by a trusted key" if res.anchors else "")
                                    + ": they vouch for nothing"))
    return out


def _signed_heads(cps: list[Envelope], keys, res: Integrity) -> dict[str, dict[int, str]]:
    """stream -> seq -> chain, from the checkpoints trusted (all of them without ``keys``)."""
    out: dict[str, dict[int, str]] = {}
    res.checkpoints = len(cps)
    for cp in cps:
        if keys:
            why = verify(cp, keys)
            if why is not None:
                res.findings.append(Finding(cp.stream, cp.seq, str(cp.event_id),
                                            "checkpoint not trusted", why))
                continue
        res.trusted += 1
        for h in cp.payload.heads:
            out.setdefault(h.stream, {})[h.seq] = h.chain
    return out


def _against_heads(stream: str, heads: dict[int, str], seqs: dict[int, Envelope],
                   res: Integrity) -> None:
    """The log's chain of ``stream`` at each signed seq (re-forged, truncated)."""
    last = max(seqs, default=0)
    good = 0  # the highest signed seq the log matches so far
    for seq in sorted(heads):
        m = seqs.get(seq)
        if m is None:
            if seq > last:
                res.findings.append(Finding(stream, last + 1, None, "truncated",
                                            f"the log ends at seq {last}; a signed checkpoint "
                                            f"names seq {seq}: seq {last + 1}..{seq} cut off"))
                return
            continue  # a gap: named by the seq check
        if m.chain == heads[seq]:
            good = seq
            continue
        first = seqs.get(good + 1)
        res.findings.append(Finding(stream, good + 1, str(first.event_id) if first else None,
                                    "re-forged", f"seq {good + 1}..{seq} rewritten: the chain at seq "
                                    f"{seq} is not the one signed ({heads[seq][:16]}...)"))
        good = seq
