"""The baseline's relay: a bare aiokafka consume-produce hop, run as its own process.

    python -m loadtests.relay --bootstrap HOST:PORT --src TOPIC_A --dst TOPIC_B [--max-seconds S]

Reads every partition of ``--src`` from its end at start (no consumer group), and for each
batch (``getmany``) sends every record to ``--dst`` with the same key, value and headers, then
awaits all the acknowledgements before the next batch (pipelined, the best a single relay can
do without transactions). Producer and consumer settings are the event log's (idempotent,
acks=all, linger 0; fetch wait 20 ms, 500 records a poll), so the chain producer -> A -> relay
-> B -> consumer has the hops of the services' path with none of their work. Prints ``ready``
once positioned, and stops on SIGTERM/SIGINT or after ``--max-seconds``.
"""
from __future__ import annotations

import argparse
import asyncio
import signal
import sys


async def relay(bootstrap: str, src: str, dst: str, max_seconds: float) -> int:
    """Relay ``src`` to ``dst`` until stopped; returns the number of records relayed."""
    from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.call_later(max_seconds, stop.set)
    consumer = AIOKafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                                fetch_max_wait_ms=20, max_poll_records=500,
                                isolation_level="read_committed")
    producer = AIOKafkaProducer(bootstrap_servers=bootstrap, enable_idempotence=True, acks="all",
                                linger_ms=0)
    from loadtests.load import topic_partitions

    parts = await topic_partitions(bootstrap, src)
    await consumer.start()
    await producer.start()
    n = 0
    try:
        tps = [TopicPartition(src, p) for p in parts]
        consumer.assign(tps)
        await consumer.seek_to_end(*tps)
        for tp in tps:
            await consumer.position(tp)
        print("ready", flush=True)
        while not stop.is_set():
            batch = await consumer.getmany(timeout_ms=100, max_records=500)
            futs = [await producer.send(dst, r.value, key=r.key, headers=list(r.headers or ()))
                    for recs in batch.values() for r in recs]
            if futs:
                await asyncio.gather(*futs)
                n += len(futs)
    finally:
        await consumer.stop()
        await producer.stop()
    return n


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m loadtests.relay", description=__doc__.split("\n\n")[0])
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--dst", required=True)
    ap.add_argument("--max-seconds", type=float, default=3600.0)
    a = ap.parse_args()
    n = asyncio.run(relay(a.bootstrap, a.src, a.dst, a.max_seconds))
    print(f"relayed {n}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
