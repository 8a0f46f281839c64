"""Waiting on a tournament or a game through the gateway (the services consume independently)."""
from __future__ import annotations

import asyncio


async def paired_round(c, tid: str, rnd: int) -> dict:
    """Round ``rnd`` of ``tid`` once all its games exist; fails the test after ~5 s."""
    for _ in range(100):
        t = (await c.get(f"/tournaments/{tid}")).json()
        if len(t["rounds"]) >= rnd and all(b.get("status") not in (None, "created")
                                           for b in t["rounds"][rnd - 1]["boards"]):
            return t["rounds"][rnd - 1]
        await asyncio.sleep(0.05)
    raise AssertionError(f"round {rnd} of {tid} not paired")


async def standings_after(c, tid: str, rnd: int) -> dict:
    """The standings of ``tid`` once they cover round ``rnd``; fails the test after ~5 s."""
    for _ in range(100):
        st = (await c.get(f"/tournaments/{tid}/standings")).json()
        if st["round"] == rnd:
            return st
        await asyncio.sleep(0.05)
    raise AssertionError(f"no standings after round {rnd} of {tid}")


async def game_ended(c, gid: str) -> dict:
    """The view of game ``gid`` once it has ended; fails the test after ~5 s."""
    for _ in range(100):
        g = (await c.get(f"/games/{gid}")).json()
        if g["status"] == "ended":
            return g
        await asyncio.sleep(0.05)
    raise AssertionError(f"{gid} did not end")
