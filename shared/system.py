"""Assembly of the six back-end services on one event log (the gateway is separate).

``System(log)`` hosts any subset of the cores on ``log``: the demo and the unit tests run all of
them in one process on the memory log; ``python -m services.<name>`` runs one of them alone on
Kafka (see :mod:`shared.runner`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

from shared.eventlog.base import EventLog
from shared.service import Core, ServiceHost


def make_core(name: str) -> Core:
    """A fresh core of service ``name``; raises ``KeyError`` for an unknown name."""
    from services.adjudication.core import AdjudicationCore
    from services.clock.service import ClockCore
    from services.pairing.service import PairingCore
    from services.penalties.core import PenaltiesCore
    from services.standings.service import StandingsCore
    from services.validation.core import ValidationCore

    return {
        "validation": ValidationCore, "clock": ClockCore, "adjudication": AdjudicationCore,
        "penalties": PenaltiesCore, "pairing": PairingCore, "standings": StandingsCore,
    }[name]()


SERVICES = ("validation", "clock", "adjudication", "penalties", "pairing", "standings")


class System:
    """Hosts for ``services`` on ``log``. ``ticks``: run the clock's flag timer on ``now_ms``
    (wall time by default); off when hosting recorded games on their recorded times."""

    def __init__(self, log: EventLog, services: Iterable[str] = SERVICES, *, ticks: bool = True,
                 now_ms: Callable[[], int] | None = None) -> None:
        self.log = log
        self.hosts = {n: ServiceHost(make_core(n), log, ticks=ticks and n == "clock", now_ms=now_ms)
                      for n in services}
        for h in self.hosts.values():
            h.attach()

    async def recover(self) -> None:
        """Rebuild every core's state from what the log already holds (restart after a crash);
        the log is read once for all the hosted services."""
        from contracts.messages import TOPICS

        messages = await self.log.read_many(TOPICS)
        for h in self.hosts.values():
            await h.recover(messages)

    async def start_timers(self) -> None:
        for h in self.hosts.values():
            await h.start_timer()

    async def stop(self) -> None:
        for h in self.hosts.values():
            await h.stop()
