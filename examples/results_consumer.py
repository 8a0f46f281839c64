"""An example direct subscriber: every game result, read from Kafka as it is decided.

For integrators who subscribe to the platform's topics instead of its HTTP feeds (the topics and
every message's JSON Schema: ``contracts/schemas/asyncapi.json``, written by ``arbiter
schemas``). It needs only aiokafka and the JSON of the messages, not the platform's code:

    python examples/results_consumer.py --bootstrap 127.0.0.1:9092 [--group my-results]

What it shows:

- the decisions are written in Kafka transactions: read them ``read_committed`` (an aborted
  write of a fenced instance is never seen);
- route on the ``type`` record header and parse only what you need (``GameEnded`` here) rather
  than every message of ``arbiter.game.events``;
- a game's messages are keyed by the game, so they stay in order on one partition; a consumer
  group spreads the partitions over your instances and remembers where each one stopped;
- delivery is at least once: the offsets are committed after a batch is handled, so after a
  crash a result may come again; ``event_id`` (a UUID) is the idempotency key to skip it.
"""
from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import AsyncIterator

from aiokafka import AIOKafkaConsumer

#: The topic of the games' decisions (MoveAccepted, ClockUpdated, GameEnded, ...).
GAME_EVENTS = "arbiter.game.events"


async def results(bootstrap: str, group: str, stop_after: int | None = None,
                  timeout_s: float | None = None) -> AsyncIterator[dict]:
    """Each GameEnded of the log as ``{"event_id", "game_id", "result", "reason", "rule",
    "score", "at"}`` (``rule``: ``{"game", "ruleset", "article", "summary"}``; ``at``: the
    decision's ISO time), from the group's committed position (the log's start for a new
    group). Ends after ``stop_after`` results or ``timeout_s`` seconds without one, if given."""
    consumer = AIOKafkaConsumer(GAME_EVENTS, bootstrap_servers=bootstrap, group_id=group,
                                isolation_level="read_committed", auto_offset_reset="earliest",
                                enable_auto_commit=False)
    await consumer.start()
    seen: set[str] = set()
    try:
        while stop_after is None or len(seen) < stop_after:
            batch = await consumer.getmany(timeout_ms=int((timeout_s or 1.0) * 1000))
            if not batch and timeout_s is not None:
                return
            for records in batch.values():
                for r in records:
                    if dict(r.headers).get("type") != b"GameEnded":
                        continue  # not parsed: the header says what it is
                    m = json.loads(r.value)
                    if m["event_id"] in seen:
                        continue  # delivered again after a restart
                    seen.add(m["event_id"])
                    p = m["payload"]
                    yield {"event_id": m["event_id"], "game_id": p["game_id"], "result": p["result"],
                           "reason": p["reason"], "rule": p["rule"], "score": p.get("score"),
                           "at": m["occurred_at"]}
            await consumer.commit()
    finally:
        await consumer.stop()


async def _main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bootstrap", default="127.0.0.1:9092", help="Kafka bootstrap HOST:PORT")
    ap.add_argument("--group", default="example-results", help="consumer group id")
    a = ap.parse_args()
    async for r in results(a.bootstrap, a.group):
        rule = r["rule"]
        print(f"{r['game_id']}: {r['result']} ({r['reason']}; {rule['game']} {rule['ruleset']} "
              f"art. {rule['article']})", flush=True)


if __name__ == "__main__":
    asyncio.run(_main())
