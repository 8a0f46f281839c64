"""The webhooks' pure parts (issue 12 item 4): what a subscription wants, the retry policy and
the judgement of an attempt, the fold of the log into subscriptions, the URL check and the
signature a receiver verifies."""
from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timezone

import pytest

from contracts.envelope import Actor
from contracts.messages import (
    EnableWebhook, GameStarted, RegisterWebhook, RemoveWebhook, RevokeToken, WebhookAttempted,
    envelope,
)
from services.webhooks.core import MAX_BACKOFF_MS, DeliveryCore, Policy, judge
from shared.webhooks import check_url, signature, signing_secret, verify

AT = datetime(2026, 12, 2, 20, 0, tzinfo=timezone.utc)
TV = Actor(kind="integrator", id="tv")


def _msg(payload, stream: str, seq: int = 1, actor: Actor = TV):
    return envelope(payload, stream=stream, seq=seq, occurred_at=AT, actor=actor)


def _started(gid: str, seq: int = 1):
    return _msg(GameStarted(game_id=gid, white="a", black="b", time_control="300+2", start_fen="startpos"),
                f"game-{gid}", seq, Actor(kind="service", id="validation"))


def _register(sid: str, scope: str, scope_id: str | None = None, events=("*",), types=("GameStarted",)):
    return _msg(RegisterWebhook(subscription_id=sid, url="http://127.0.0.1:9/h", scope=scope,
                                scope_id=scope_id, types=types, events=events), f"webhook-{sid}.commands.x")


def _attempt(sid: str, mid: str, attempt: int, outcome: str, seq: int, next_at=None):
    return _msg(WebhookAttempted(subscription_id=sid, delivery_id="d", message_id=mid, message_type="GameStarted",
                                 attempt=attempt, status=500 if outcome != "delivered" else 200,
                                 outcome=outcome, next_retry_at_ms=next_at), f"webhook-{sid}.deliveries.i", seq)


def test_each_scope_takes_exactly_its_messages():
    core = DeliveryCore()
    for m in (_register("g", "game", "g1"), _register("t", "tournament", "T1"),
              _register("all", "all"), _register("t2", "all", events=("T2",))):
        core.handle(m)
    for gid in ("g1", "T1-r1-b1", "T2-r3-b4", "solo"):
        core.handle(_started(gid))
    core.handle(_msg(RevokeToken(jti="j", expires_at_s=1), "identity.commands.x"))  # never delivered
    queued = {sid: [m.stream for m in q.values()] for sid, q in core.queues.items()}
    assert queued == {"g": ["game-g1"], "t": ["game-T1-r1-b1"],
                      "all": ["game-g1", "game-T1-r1-b1", "game-T2-r3-b4", "game-solo"],
                      "t2": ["game-T2-r3-b4"]}


def test_a_message_read_before_the_registration_or_already_delivered_is_not_queued():
    core = DeliveryCore()
    core.handle(_started("g1"))
    core.handle(_register("s", "all"))
    core.handle(_attempt("s", "game-g2:1", 1, "delivered", 1))
    core.handle(_started("g2"))  # recorded delivered before it is read: skipped
    core.handle(_started("g3"))
    assert [m.stream for m in core.queues["s"].values()] == ["game-g3"]


def test_due_heads_wait_for_their_retry_time_and_stop_when_failing_until_enabled():
    core = DeliveryCore()
    core.handle(_register("s", "all"))
    core.handle(_started("g1"))
    core.handle(_started("g2"))
    assert [m.stream for _, m in core.due(0)] == ["game-g1"]
    assert core.due(0, busy=frozenset({"s"})) == []
    core.handle(_attempt("s", "game-g1:1", 1, "retry", 1, next_at=1_000))
    assert core.due(999) == [] and core.next_deadline() == 1_000
    assert [m.stream for _, m in core.due(1_000)] == ["game-g1"]
    core.handle(_attempt("s", "game-g1:1", 2, "failed", 2))
    assert core.due(10**15) == [] and core.next_deadline() is None
    core.handle(_msg(EnableWebhook(subscription_id="s"), "webhook-s.commands.x", 2))
    [(sub, head)] = core.due(0)
    assert (head.stream, sub.attempts) == ("game-g1", 0)
    core.handle(_attempt("s", "game-g1:1", 1, "delivered", 3))
    assert [m.stream for _, m in core.due(0)] == ["game-g2"]
    core.handle(_msg(RemoveWebhook(subscription_id="s"), "webhook-s.commands.x", 3))
    assert core.due(0) == [] and "s" not in core.queues
    core.handle(_started("g9"))
    assert "s" not in core.queues and not any(core.scoped.values())


def test_judge_retries_with_exponential_backoff_then_fails():
    core = DeliveryCore()
    core.handle(_register("s", "all"))
    sub = core.book.subs["s"]
    msg = _started("g1")
    policy = Policy(max_attempts=3, backoff_ms=100)
    assert [policy.delay_ms(a) for a in (1, 2, 3, 4)] == [100, 200, 400, 800]
    assert Policy(backoff_ms=1000).delay_ms(60) == MAX_BACKOFF_MS
    r1 = judge(sub, msg, 500, "HTTP 500", 5_000, policy)
    assert (r1.attempt, r1.outcome, r1.next_retry_at_ms, r1.message_id) == (1, "retry", 5_100, "game-g1:1")
    sub.attempts = 1
    assert (judge(sub, msg, None, "ConnectError", 6_000, policy).next_retry_at_ms) == 6_200
    sub.attempts = 2
    r3 = judge(sub, msg, 404, "HTTP 404", 7_000, policy)
    assert (r3.attempt, r3.outcome, r3.next_retry_at_ms) == (3, "failed", None)
    assert judge(sub, msg, 204, "", 7_000, policy).outcome == "delivered"
    assert judge(sub, msg, 302, "", 7_000, policy).outcome == "failed"  # a redirect is not followed


@pytest.mark.parametrize("url", ["https://example.org/hook?x=1", "http://127.0.0.1:8080/h", "http://[::1]:9/h"])
def test_http_and_https_urls_pass(url):
    assert check_url(url) == url


@pytest.mark.parametrize("url,why", [("ftp://h/x", "scheme"), ("https://u:p@h/x", "credentials"),
                                     ("https://u@h/x", "credentials"), ("http:///x", "no host"),
                                     ("http://h:99999/x", "not a URL"), ("http://h/a b", "white space")])
def test_other_urls_are_refused_saying_why(url, why):
    with pytest.raises(ValueError, match=why):
        check_url(url)


def test_the_signature_is_hmac_sha256_over_timestamp_dot_body_under_the_derived_secret():
    secret = signing_secret(b"k", "s1")
    assert secret == hmac.new(b"k", b"arbiter-webhook:s1", hashlib.sha256).hexdigest()
    assert secret != signing_secret(b"k", "s2") and secret != signing_secret(b"k2", "s1")
    body = b'{"type":"GameEnded"}'
    expected = "sha256=" + hmac.new(secret.encode(), b"1764705600." + body, hashlib.sha256).hexdigest()
    assert signature(secret, "1764705600", body) == expected
    assert verify(secret, "1764705600", body, expected)
    assert not verify(secret, "1764705601", body, expected)


def test_the_webhooks_process_refuses_beyond_loopback_without_its_key_and_runs_on_kafka_only(monkeypatch):
    from services.webhooks.process import webhooks_app
    from shared.config import ConfigError, require_for_address, settings

    monkeypatch.delenv("ARBITER_WEBHOOK_KEY", raising=False)
    with pytest.raises(ConfigError, match="ARBITER_WEBHOOK_KEY"):
        require_for_address("webhooks", "0.0.0.0", settings())
    require_for_address("webhooks", "127.0.0.1", settings())
    monkeypatch.setenv("ARBITER_WEBHOOK_KEY", "k")
    require_for_address("webhooks", "0.0.0.0", settings())
    with pytest.raises(ValueError, match="Kafka"):
        webhooks_app("memory")
