"""The tamper-evident log (issue 12 item 5, :mod:`shared.chain`, :mod:`services.tools.integrity`):
the three forgeries that passed ``arbiter audit`` with 0 differences (a command's actor changed,
a resignation and the result cut off, a command edited and every event re-derived with the
product's own code), a reordering and a deletion are each named; an untouched log has 0
differences and 0 findings; an old log without chains audits as "unchained"."""
from __future__ import annotations

import pickle
from datetime import datetime, timezone

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from contracts.envelope import Actor
from contracts.messages import LOG_TOPICS
from services.tools.audit import audit
from services.rederive import caused_by
from services.tools.embedded import arbiter_client
from services.tools.integrity import check
from services.tools.logio import export_messages
from shared.chain import chained
from shared.signing import new_key, verify_keys
from services.system import make_processor

MOVES = ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"]
EVERY = 4


@pytest.fixture
def keys(monkeypatch):
    """A signing key for the processes hosted in this test, and the audit's trust in it."""
    private, public = new_key()
    monkeypatch.setenv("ARBITER_SIGNING_KEY", private)
    monkeypatch.setenv("ARBITER_CHECKPOINT_EVERY", str(EVERY))
    monkeypatch.delenv("ARBITER_VERIFY_KEYS", raising=False)
    return verify_keys([public])


async def _played(bus: str = "memory", gid: str = "g1") -> list:
    """The log of a chess game ``gid`` on the embedded Arbiter on ``bus``: six moves, then Black
    resigns (identity off: the actor is the player named)."""
    async with arbiter_client(bus, ticks=False) as c:
        assert (await c.post("/games", json={"game_id": gid, "white": "alice", "black": "bob",
                                             "time_control": "300+2"})).status_code == 200
        for k, mv in enumerate(MOVES):
            player = ("alice", "bob")[k % 2]
            r = await c.post(f"/games/{gid}/moves", json={"player_id": player, "move": mv})
            assert r.status_code == 200, r.text
        assert (await c.post(f"/games/{gid}/resign", json={"player_id": "bob"})).status_code == 200
    if bus == "memory":
        return await c.arbiter_log.read_many(LOG_TOPICS)
    return await export_messages(bus, f"game-{gid}")


def _named(res) -> set:
    return {(f.stream, f.seq, f.what) for f in res.findings}


def _index(log, type_, **fields) -> int:
    return next(i for i, m in enumerate(log) if m.type == type_ and all(
        getattr(m, k, None) == v or getattr(m.payload, k, None) == v for k, v in fields.items()))


async def test_an_untouched_log_has_no_difference_and_no_finding(keys):
    log = await _played()
    res = check(log, keys)
    assert await audit(log) == []
    assert res.findings == [] and res.unchained == 0 and res.unattested == 0
    assert res.signatures_checked and res.trusted == res.checkpoints >= 3
    assert all(m.chain is not None for m in log if m.type != "StreamsCheckpointed")


async def test_a_commands_actor_changed_is_named(keys):
    log = await _played()
    i = _index(log, "Resign")
    log[i] = log[i].model_copy(update={"actor": log[i].actor.model_copy(update={"id": "alice"})})
    assert await audit(log) == []  # the re-derivation alone does not see it (issue 12)
    assert _named(check(log, keys)) == {(log[i].stream, log[i].seq, "chain broken")}


async def test_a_resignation_and_the_result_cut_off_are_named(keys):
    log = await _played()
    caused = caused_by(log, {log[_index(log, "Resign")].event_id})
    cut = [m for m in log if m.event_id not in caused]
    gone = {(m.stream, m.seq) for m in log if m not in cut}
    assert {m.type for m in log if m not in cut} == {"Resign", "Resigned", "GameEnded", "ClockStopped"}
    assert await audit(cut) == []  # the log just looks like a game still in progress
    assert _named(check(cut, keys)) == {(s, q, "truncated") for s, q in gone}


async def test_a_cut_off_tail_without_its_checkpoints_is_the_undetectable_window(keys):
    """Cut off with the checkpoints written after it, the tail cannot be told from a game in
    progress: nothing is named, and the messages after the last checkpoint are counted."""
    log = await _played()
    resign = _index(log, "Resign")
    last_cp = max(i for i, m in enumerate(log[:resign]) if m.type == "StreamsCheckpointed")
    res = check(log[:resign], keys)
    assert res.findings == []
    assert res.unattested == resign - last_cp - 1 > 0


async def test_an_anchor_kept_outside_the_log_names_a_tail_cut_off_with_its_checkpoints(keys):
    """The window above closes with an anchor: the whole log exported when the game ended, kept
    elsewhere. The cut log lacks the end's checkpoint (``checkpoint missing``) and does not
    reach the heads it signs (``truncated``); the untouched log passes with the same anchor, and
    an anchor signed by an unknown key counts for nothing."""
    log = await _played()
    resign = _index(log, "Resign")
    cut = log[:resign]
    res = check(cut, keys, anchors=log)
    end_cps = [m for m in log[resign:] if m.type == "StreamsCheckpointed"]
    assert end_cps
    named = _named(res)
    assert {(m.stream, m.seq, "checkpoint missing") for m in end_cps} <= named
    assert {w for _, _, w in named} == {"checkpoint missing", "truncated"}
    game = {(s, q) for s, q, w in named if w == "truncated"}
    first_cut: dict[str, int] = {}
    for m in log[resign:]:
        if m.type != "StreamsCheckpointed":
            first_cut.setdefault(m.stream, m.seq)
    assert game == set(first_cut.items()) and len(game) >= 3  # each stream from its first message cut
    whole = check(log, keys, anchors=log)
    assert whole.findings == []
    n = sum(1 for m in log if m.type == "StreamsCheckpointed")
    assert (whole.anchors, whole.anchors_trusted) == (n, n) and n > 0
    assert f"anchors: {n} checkpoint(s) read, {n} trusted" in whole.summary()
    # anchors that vouch for nothing are said so (a helper's empty anchors passed in silence)
    stranger = {"k": Ed25519PrivateKey.generate().public_key()}
    untrusted = check(cut, stranger, anchors=log)
    assert [f for f in untrusted.findings if f.what != "anchors empty"] == check(cut, stranger).findings
    assert [f.what for f in untrusted.findings].count("anchors empty") == 1
    assert (untrusted.anchors, untrusted.anchors_trusted) == (n, 0)
    assert [f.what for f in check(log, keys, anchors=[]).findings] == ["anchors empty"]
    assert check(log, keys).anchors is None and "anchors" not in check(log, keys).summary()


@pytest.mark.parametrize("edit", ["actor", "move"])
async def test_a_command_edited_and_every_event_re_derived_is_named(keys, edit):
    """The forger edits a command and runs the product's own code over the commands: every
    chain is recomputed, so only the signed checkpoints (heads the deciding process consumed
    and wrote) catch it, and a checkpoint signed again by the forger's key is not trusted."""
    log = await _played()
    i = _index(log, "Resign") if edit == "actor" else _index(log, "SubmitMove", move="Nc6")
    victim = log[i]
    update = ({"actor": victim.actor.model_copy(update={"id": "alice"})} if edit == "actor" else
              {"payload": victim.payload.model_copy(update={"move": "Nf6"})})
    forged, proc, heads = [], make_processor("game"), {}
    for m in log:
        if m.payload.TOPIC not in proc.inputs:
            continue
        m = chained(m.model_copy(update=update) if m is victim else m, heads.get(m.stream))
        heads[m.stream] = m.chain
        forged += [m, *proc.decide(m)]
    kept = forged + [m for m in log if m.type == "StreamsCheckpointed"]
    assert await audit(kept) == []  # consistent: the product derived it
    res = check(kept, keys)
    assert {(s, w) for s, _, w in _named(res)} >= {(victim.stream, "re-forged")}
    assert "chain broken" not in {w for *_, w in _named(res)}
    first = min(f.seq for f in res.findings if f.stream == victim.stream)
    assert first <= victim.seq  # the range named holds the edited command
    if edit == "move":  # the game record after it differs too (Nf6, and a6 is another move)
        assert "game-g1" in {f.stream for f in res.findings}
    at = datetime.now(timezone.utc)
    resigned = forged + proc.chains.signed(Ed25519PrivateKey.generate(), EVERY, at, final=True)
    whys = {f.detail[:len("signed by an unknown key")] for f in check(resigned, keys).findings
            if f.what == "checkpoint not trusted"}
    assert whys == {"signed by an unknown key"}


async def test_a_reordering_and_a_deletion_are_named(keys):
    log = await _played()
    a, b = _index(log, "MoveAccepted", seq=3), _index(log, "MoveAccepted", seq=4)
    swapped = list(log)
    swapped[a], swapped[b] = log[b], log[a]
    assert _named(check(swapped, keys)) == {("game-g1", 3, "out of order"), ("game-g1", 4, "out of order")}
    assert {(d.stream, d.what) for d in await audit(swapped)} >= {("game-g1", "seq gap or repeat")}
    deleted = log[:a] + log[a + 1:]
    assert _named(check(deleted, keys)) == {("game-g1", 4, "chain broken")}


async def test_a_second_writer_forking_a_stream_is_named(keys):
    """A zombie that was not fenced writes its own decision at a seq, chained correctly after
    the same head: named as a fork (a redelivered copy is not)."""
    log = await _played()
    i = _index(log, "MoveAccepted", seq=3)
    book = make_processor("game").chains
    book.heads["game-g1"] = (2, log[_index(log, "MoveAccepted", seq=2)].chain)
    other = book.seal(log[i].model_copy(update={"chain": None, "payload": log[i].payload.model_copy(
        update={"san": "Nh3"})}))
    assert _named(check(log[:i + 1] + [other] + log[i + 1:], keys)) == {("game-g1", 3, "forked")}
    assert check(log[:i + 1] + [log[i]] + log[i + 1:], keys).findings == []


async def test_a_log_without_chains_is_unchained_without_a_key_and_named_with_one(keys):
    """A log without any chain or checkpoint is an old log or one whose forger stripped them
    all (nothing left to break): without a key it is counted as unchained; an audit given a
    key trusts no unsigned stream and names each at its first message."""
    log = await _played()
    old = [m.model_copy(update={"chain": None}) for m in log if m.type != "StreamsCheckpointed"]
    res = check(old, None)
    assert res.findings == [] and res.unchained == len({m.stream for m in old}) and res.checkpoints == 0
    assert "signatures NOT checked" in res.summary()
    assert await audit(old) == []
    streams = {m.stream for m in old}
    assert {s.split(".")[0] for s in streams} == {"game-g1"} and len(streams) >= 3  # game, commands, timer
    res = check(old, keys)
    assert _named(res) == {(s, 1, "not chained") for s in streams} and res.unchained == len(streams)
    stripped = old + [m for m in log if m.type == "StreamsCheckpointed"]  # the chains removed
    assert {w for *_, w in _named(check(stripped, keys))} == {"re-forged", "not chained"}


async def test_a_players_command_for_another_player_is_named_even_in_an_unchained_log(keys):
    """A forger who strips every chain and the checkpoints (the log then passes as one written
    before the chain) and makes bob the author of alice's first move and alice the author of
    bob's resignation: no gateway records a player acting for another, so both are named."""
    log = await _played()
    old = [m.model_copy(update={"chain": None}) for m in log if m.type != "StreamsCheckpointed"]
    move, resign = _index(old, "SubmitMove", player_id="alice"), _index(old, "Resign")
    forged = list(old)
    forged[move] = old[move].model_copy(update={"actor": Actor(kind="player", id="bob")})
    forged[resign] = old[resign].model_copy(update={"actor": Actor(kind="player", id="alice")})
    assert {(w, s) for s, _, w in _named(check(forged, None))} == {
        ("not the player's own", old[move].stream), ("not the player's own", old[resign].stream)}
    assert {f.seq for f in check(forged, None).findings} == {old[move].seq, old[resign].seq}
    assert check(old, None).findings == []
    honest = [old[move].model_copy(update={"actor": Actor(kind="player", id="alice")})]
    assert check(honest, None).findings == []
    assert {w for *_, w in _named(check(forged, keys))} == {"not the player's own", "not chained"}


async def test_without_a_key_the_signatures_are_not_checked_and_it_says_so(keys):
    log = await _played()
    res = check(log, {})
    assert res.findings == [] and not res.signatures_checked
    assert "signatures NOT checked" in res.summary()
    other = verify_keys([new_key()[1]])
    assert {f.what for f in check(log, other).findings} >= {"checkpoint not trusted", "end not signed"}


async def test_a_restored_processor_continues_every_chain(keys):
    """A snapshot (the processor pickled) carries each stream's head: the instance restored
    from it mid-game writes the chains the log holds."""
    log = await _played()
    proc = make_processor("game")
    inputs = [m for m in log if m.payload.TOPIC in proc.inputs]
    half = len(inputs) // 2
    out = [d for m in inputs[:half] for d in proc.decide(m)]
    restored = pickle.loads(pickle.dumps(proc))
    out += [d for m in inputs[half:] for d in restored.decide(m)]
    recorded = [m for m in log if m.actor.kind == "service" and m.type != "StreamsCheckpointed"]
    assert [(m.stream, m.seq, m.chain) for m in out] == [(m.stream, m.seq, m.chain) for m in recorded]


async def test_the_record_bytes_a_host_publishes_are_each_decisions_json(keys):
    """A publishing host takes each decision's record from the text the chain hashed
    (:func:`shared.chain.record_bytes`), not a second serialisation: byte for byte the
    decision's JSON, for every decision of a played game, and nothing kept without the host."""
    log = await _played()
    proc = make_processor("game")
    proc.keep_wire = True
    inputs = [m for m in log if m.payload.TOPIC in proc.inputs]
    out = [d for m in inputs for d in proc.decide(m)]
    assert len(out) > 10 and set(proc.wire) == {d.event_id for d in out}
    assert all(proc.wire[d.event_id] == d.model_dump_json().encode() for d in out)
    assert "wire" not in proc.__getstate__()
    quiet = make_processor("game")
    assert [d for m in inputs for d in quiet.decide(m)] == out and quiet.wire == {}


def test_the_chain_is_every_messages_last_field():
    """:func:`shared.chain.canonical_text` cuts a chained message's JSON at its last key."""
    from contracts.messages import MESSAGE_TYPES

    assert {list(cls.model_fields)[-1] for cls in MESSAGE_TYPES.values()} == {"chain"}


def test_arbiter_audit_prints_each_finding_and_fails_on_one(keys, tmp_path, monkeypatch):
    """``arbiter audit --log F --verify-key K``: exit 0 and 0 findings on the untouched export,
    exit 1 with an INTEGRITY line naming the edited command, and for the export stripped of
    every chain and checkpoint (issue 12 follow-up: it passed); a key that is not one is refused
    by name; ``arbiter signing-key`` prints a pair the audit takes."""
    from typer.testing import CliRunner

    from services.cli import app

    import asyncio

    from shared.chain import public_text

    log = asyncio.run(_played())
    public = public_text(next(iter(keys.values())))
    clean, forged = tmp_path / "clean.ndjson", tmp_path / "forged.ndjson"
    clean.write_text("".join(m.model_dump_json() + "\n" for m in log))
    i = _index(log, "Resign")
    log[i] = log[i].model_copy(update={"actor": log[i].actor.model_copy(update={"id": "alice"})})
    forged.write_text("".join(m.model_dump_json() + "\n" for m in log))
    monkeypatch.setenv("COLUMNS", "400")
    r = CliRunner().invoke(app, ["audit", "--log", str(clean), "--verify-key", public])
    assert r.exit_code == 0, r.output
    assert "0 difference(s)" in r.output and "0 integrity finding(s)" in r.output
    r = CliRunner().invoke(app, ["audit", "--log", str(forged), "--verify-key", public])
    assert r.exit_code == 1 and f"INTEGRITY {log[i].stream} seq {log[i].seq}" in r.output, r.output
    assert "chain broken" in r.output and "1 integrity finding(s)" in r.output
    cut = tmp_path / "cut.ndjson"  # the tail from the resignation on cut off, checkpoints too
    cut.write_text("".join(clean.read_text().splitlines(keepends=True)[:i]))
    r = CliRunner().invoke(app, ["audit", "--log", str(cut), "--verify-key", public])
    assert r.exit_code == 0, r.output  # the window: it reads as a game in progress
    r = CliRunner().invoke(app, ["audit", "--log", str(cut), "--verify-key", public, "--anchors", str(clean)])
    assert r.exit_code == 1 and "truncated" in r.output and "checkpoint missing" in r.output, r.output
    stripped = tmp_path / "stripped.ndjson"  # the forger's answer: no chain, no checkpoint at all
    stripped.write_text("".join(m.model_copy(update={"chain": None}).model_dump_json() + "\n"
                                for m in log if m.type != "StreamsCheckpointed"))
    r = CliRunner().invoke(app, ["audit", "--log", str(stripped), "--verify-key", public])
    first = log[_index(log, "GameStarted")]
    assert r.exit_code == 1 and f"INTEGRITY game-g1 seq 1 (event {first.event_id}): not chained" in r.output, r.output
    assert "0 difference(s)" in r.output  # the re-derivation alone passes it
    r = CliRunner().invoke(app, ["audit", "--log", str(clean), "--verify-key", "abc"])
    assert r.exit_code != 0 and "must be base64 of 32 bytes" in r.output
    pair = dict(line.split("=", 1) for line in CliRunner().invoke(app, ["signing-key"]).output.split())
    assert set(pair) == {"ARBITER_SIGNING_KEY", "ARBITER_VERIFY_KEYS"}
    assert verify_keys([pair["ARBITER_VERIFY_KEYS"]])


def test_chain_bookkeeping_from_other_code_is_completed():
    """A snapshot written by other code may lack some of the bookkeeping (an upgrade): it
    starts empty, the heads are kept."""
    from shared.chain import ChainBook

    book = ChainBook.__new__(ChainBook)
    book.__setstate__({"heads": {"game-g1": (3, "ab" * 32)}})
    assert book.heads == {"game-g1": (3, "ab" * 32)} and book.due(1, final=True) == []


def test_checkpoints_of_many_aggregates_come_one_by_one_as_each_ages():
    """Each aggregate is attested once it has waited ``max_age_ms`` unattested, counted from
    when it was first seen pending, not all at one sweep: games noted at 0, 10 and 20 s are
    due at 30, 40 and 50 s; one with ``every`` messages at once; ``final`` takes the rest."""
    from shared.chain import ChainBook

    book = ChainBook()

    def note(agg: str, n: int = 1) -> None:
        for _ in range(n):
            book._note(chained(_msg(agg), None))

    for t, agg in ((0, "game-a"), (10_000, "game-b"), (20_000, "game-c")):
        note(agg)
        assert book.due(64, now_ms=t, max_age_ms=30_000) == []
    assert book.due(64, now_ms=29_999, max_age_ms=30_000) == []
    assert [a for a, *_ in book.due(64, now_ms=30_000, max_age_ms=30_000)] == ["game-a"]
    note("game-b")  # more messages do not reset its wait
    assert [a for a, *_ in book.due(64, now_ms=40_000, max_age_ms=30_000)] == ["game-b"]
    note("game-d", 64)
    assert [a for a, *_ in book.due(64, now_ms=41_000, max_age_ms=30_000)] == ["game-d"]
    note("game-a")  # attested at 30 s: waits again from now
    assert book.due(64, now_ms=45_000, max_age_ms=30_000) == []
    assert [a for a, *_ in book.due(64, final=True)] == ["game-a", "game-c"]


def test_a_wave_of_aged_checkpoints_is_spread_over_time():
    """1,000 games noted together at 0 s, looked at every 10 ms as a host's turns do: once
    they have aged 30 s the calls take them at the rate that attests the 1,000 once per 30 s
    (a call earns 1,000 x 10 ms / 30 s = 1/3 of a checkpoint: one every third call), never
    many at once, and every game is attested within 2 x 30 s (here: from 30 s to 60 s).
    The next 1,000 noted at 70 s, when nothing is pending, start at 100 s, the first at once."""
    from shared.chain import ChainBook

    book = ChainBook()
    for g in range(1000):
        book._note(chained(_msg(f"game-w{g}"), None))
    when = {}
    for t in range(0, 100_010, 10):
        if t == 70_000:
            for g in range(1000):
                book._note(chained(_msg(f"game-v{g}"), None))
        for agg, *_ in book.due(64, now_ms=t, max_age_ms=30_000):
            when.setdefault(t, []).append(agg)
    first = sorted(t for t in when if t < 70_000)
    assert sum(len(when[t]) for t in first) == 1000 and max(map(len, when.values())) == 1
    assert first[0] == 30_000 and 59_900 <= first[-1] < 60_000
    assert all(b - a in (20, 30, 40) for a, b in zip(first, first[1:]))  # a third a call
    assert min(t for t in when if t >= 70_000) == 100_000


def _msg(agg: str):
    """A game's command as the gateway writes it (seq 1 of its stream)."""
    from contracts.envelope import Actor
    from contracts.messages import SubmitMove, envelope

    return envelope(SubmitMove(game_id=agg[5:], player_id="alice", move="e4"),
                    stream=f"{agg}.commands.gw", seq=1, occurred_at=datetime.now(timezone.utc),
                    actor=Actor(kind="player", id="alice"))


async def test_a_checkpoint_deleted_or_renumbered_is_named(keys):
    """The attack a reviewer found: delete a game's first checkpoints, then edit and re-chain
    what only they attested. Each checkpoint is numbered by its signer and the number is
    signed: a missing number is named, and renumbering the rest breaks their signatures."""
    log = await _played()
    cps = [m for m in log if m.type == "StreamsCheckpointed" and m.aggregate == "game-g1"]
    assert [m.seq for m in cps] == list(range(1, len(cps) + 1)) and len(cps) >= 3
    first = cps[0]
    cut = [m for m in log if m is not first]
    assert _named(check(cut, keys)) == {(first.stream, 1, "checkpoint missing")}
    renumbered = [m.model_copy(update={"seq": m.seq - 1}) if m in cps[1:] else m for m in cut]
    named = _named(check(renumbered, keys))
    assert {(m.stream, m.seq - 1, "checkpoint not trusted") for m in cps[1:]} <= named


async def test_a_processor_seals_in_place_what_a_copy_would_hold(keys):
    """``ChainBook.seal`` sets the chain on the decision the processor has just built
    (``chained(in_place=True)``) instead of copying it: every decision of a game's log sealed
    in place equals, field for field and in its JSON, the copy ``chained`` makes, and its
    chain is the SHA-256 link of the copy; the copy leaves its original unchained."""
    log = await _played()
    decisions = [m for m in log if m.actor.kind == "service" and m.type != "StreamsCheckpointed"]
    assert len(decisions) >= len(MOVES) * 2  # each move's MoveAccepted and ClockUpdated at least
    for m in decisions:
        bare = m.model_copy(update={"chain": None})
        prev = next((p.chain for p in log if p.stream == m.stream and p.seq == m.seq - 1), None)
        copied = chained(bare, prev)
        fresh = bare.model_copy()
        sealed = chained(fresh, prev, in_place=True)
        assert sealed is fresh and bare.chain is None
        assert sealed == copied == m and sealed.model_dump_json() == m.model_dump_json()
        assert sealed.model_fields_set == copied.model_fields_set


def test_arbiter_audit_of_a_file_takes_stream_as_the_bus_does(keys, tmp_path, monkeypatch):
    """``arbiter audit --log F --stream game-<id>``: that game's messages only (``--stream`` was
    ignored with ``--log``: the whole file audited): a file of two games, one of them edited, is
    clean for the other and names the edited one; a stream the file lacks is exit 1, and an id of
    another form exit 2."""
    import asyncio

    from typer.testing import CliRunner

    from services.cli import app
    from shared.chain import public_text

    g1, g2 = asyncio.run(_played(gid="g1")), asyncio.run(_played(gid="g2"))
    i = _index(g1, "Resign")
    g1[i] = g1[i].model_copy(update={"actor": g1[i].actor.model_copy(update={"id": "alice"})})
    both = tmp_path / "both.ndjson"
    both.write_text("".join(m.model_dump_json() + "\n" for m in g1 + g2))
    public = public_text(next(iter(keys.values())))
    monkeypatch.setenv("COLUMNS", "400")
    audit_of = lambda *extra: CliRunner().invoke(app, ["audit", "--log", str(both), "--verify-key", public, *extra])  # noqa: E731
    r = audit_of("--stream", "game-g2")
    assert r.exit_code == 0 and f"audited {len(g2)} messages" in r.output, r.output
    r = audit_of("--stream", "game-g1")
    assert r.exit_code == 1 and f"audited {len(g1)} messages" in r.output and "chain broken" in r.output, r.output
    r = audit_of()
    assert r.exit_code == 1 and f"audited {len(g1) + len(g2)} messages" in r.output
    r = audit_of("--stream", "game-g3")
    assert r.exit_code == 1 and "no messages for game-g3" in r.output
    r = audit_of("--stream", "../g1")
    assert r.exit_code == 2 and "--stream must be game-<id> or tournament-<id>" in r.output


@pytest.mark.parametrize("text", ["", "\n \n\n"])
def test_arbiter_audit_of_a_log_without_messages_audits_nothing_and_exits_1(text, tmp_path, monkeypatch):
    """An empty export (or blank lines only) was audited as "0 messages: 0 difference(s)",
    exit 0, as if a log had been checked: it says the log holds no messages, exit 1 (as a
    ``--stream`` the file lacks); so does a bus or a bus's stream with none."""
    from typer.testing import CliRunner

    from services.cli import app

    empty = tmp_path / "empty.ndjson"
    empty.write_text(text)
    monkeypatch.setenv("COLUMNS", "400")
    for args, said in ((["--log", str(empty)], f"no messages in {empty}: nothing audited"),
                       (["--bus", "memory"], "no messages in memory: nothing audited"),
                       (["--bus", "memory", "--stream", "game-g1"], "no messages for game-g1 in memory: nothing audited")):
        r = CliRunner().invoke(app, ["audit", *args])
        assert (r.exit_code, " ".join(r.output.split())) == (1, f"arbiter: {said}"), r.output


def test_a_log_file_is_cut_at_newlines_only(keys, tmp_path):
    """``read_ndjson`` (``audit --log``, ``export trf --log``) splits an export at ``\\n`` only:
    a recorded text holding U+2028, U+2029 or NEL is written unescaped in the message's JSON,
    and ``str.splitlines`` cut the line there ("line 3: not a valid Arbiter message")."""
    import asyncio

    from services.tools.logio import read_ndjson

    log = asyncio.run(_played())
    i = _index(log, "GameEnded")
    log[i] = log[i].model_copy(update={"payload": log[i].payload.model_copy(update={"reason": "a\u2028b\u2029c\x85d"})})
    f = tmp_path / "log.ndjson"
    f.write_text("".join(m.model_dump_json() + "\n" for m in log), encoding="utf-8")
    assert "\u2028" in f.read_text(encoding="utf-8")  # unescaped: the case the reader must take
    back = read_ndjson(f)
    assert [m.model_dump_json() for m in back] == [m.model_dump_json() for m in log]
    assert back[i].payload.reason == "a\u2028b\u2029c\x85d"


def test_a_log_file_with_a_byte_order_mark_reads_and_a_binary_one_is_named(keys, tmp_path):
    """An export an editor saved with a UTF-8 byte order mark reads as the same messages (it
    was "line 1: Invalid JSON"); a file that is not UTF-8 is refused naming the file, the line
    and the byte, not a bare codec error (a helper's findings)."""
    import asyncio

    from typer.testing import CliRunner

    from services.cli import app
    from services.tools.logio import read_ndjson

    log = asyncio.run(_played())
    text = "".join(m.model_dump_json() + "\n" for m in log)
    bom = tmp_path / "bom.ndjson"
    bom.write_bytes(b"\xef\xbb\xbf" + text.encode())
    assert [m.model_dump_json() for m in read_ndjson(bom)] == [m.model_dump_json() for m in log]
    binary = tmp_path / "binary.ndjson"
    binary.write_bytes(text.encode()[:200] + b"\n\xf1\x00\xff")
    with pytest.raises(ValueError, match=rf"line 2 of {binary}: not UTF-8 text \(byte 0xf1 at offset 201\)"):
        read_ndjson(binary)
    r = CliRunner().invoke(app, ["audit", "--log", str(binary)])
    assert r.exit_code == 2 and "not UTF-8 text" in " ".join(r.output.split()), r.output
