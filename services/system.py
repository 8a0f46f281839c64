"""Assembly of the back-end services on one event log (the gateway is separate).

Two processes (consumer groups), each on one ordered input:

- ``game``: the validation, clock, adjudication and penalties cores composed over the game
  command stream (and the tournament events that create games). Every decision about a game --
  a move accepted or refused, a flag, a result, a penalty -- is taken there, in the order of
  that game's commands, timers included (CheckClock); each core still writes only its own
  stream (``game-<id>``, ``.clock``, ``.result``, ``.penalties``). The forward core hands a
  tournament game's start, result and penalties to the tournament's command topic
  (RecordGameEvent, :mod:`services.game.forward`).
- ``tournament``: the pairing and standings cores over the tournament command stream, which
  holds the organisers' and arbiters' commands and its games' facts in one order; the starts
  core hands a begun round's start to each of its games' command streams (StartPlay,
  :mod:`services.tournament.starts`).

``System(log)`` hosts any subset of them on ``log``: the demo and the unit tests run all of them
in one process on the memory log; ``python -m services.<name>`` runs one alone on Kafka (see
:mod:`services.runner`).
"""
from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable

from contracts.messages import GAME_COMMANDS, TOURNAMENT_COMMANDS, TOURNAMENT_EVENTS
from shared.eventlog.base import EventLog
from shared.service import Core, Processor, ServiceHost

#: The cores of each process, in the order each input is handed to them, and the topics it
#: reads from the log (None: every topic its cores read). The game events are not read by the
#: game process: only its own cores write them, and it hands them over inside.
PROCESS_CORES = {
    "game": (("validation", "clock", "adjudication", "penalties", "forward"),
             (GAME_COMMANDS, TOURNAMENT_EVENTS)),
    "tournament": (("pairing", "standings", "starts"), (TOURNAMENT_COMMANDS,)),
}
SERVICES = tuple(PROCESS_CORES)


#: Where each core is: (module, class). A process imports only its own cores (a game
#: process never loads the pairing engines and networkx).
CORES = {
    "validation": ("services.validation.core", "ValidationCore"),
    "clock": ("services.clock.service", "ClockCore"),
    "adjudication": ("services.adjudication.core", "AdjudicationCore"),
    "penalties": ("services.penalties.core", "PenaltiesCore"),
    "forward": ("services.game.forward", "ForwardCore"),
    "pairing": ("services.pairing.service", "PairingCore"),
    "standings": ("services.standings.service", "StandingsCore"),
    "starts": ("services.tournament.starts", "StartsCore"),
}


def make_core(name: str) -> Core:
    """A fresh core of service ``name``; raises ``KeyError`` for an unknown name."""
    module, cls = CORES[name]
    return getattr(importlib.import_module(module), cls)()


def make_processor(name: str) -> Processor:
    """A fresh processor of process ``name`` (see :data:`PROCESS_CORES`); ``KeyError`` if unknown."""
    cores, inputs = PROCESS_CORES[name]
    return Processor([make_core(c) for c in cores], name=name, inputs=inputs)


class System:
    """Hosts for ``services`` (process names) on ``log``. ``ticks``: run the game timer on
    ``now_ms`` (wall time by default); off when hosting recorded games on their recorded times.

    On the memory log each process is a :class:`shared.service.ServiceHost`; on Kafka a
    :class:`shared.kafkahost.KafkaHost` (partitions, transactions, snapshots), the same host as
    ``python -m services.<name>``, so the embedded Kafka mode runs the production path."""

    def __init__(self, log: EventLog, services: Iterable[str] = SERVICES, *, ticks: bool = True,
                 now_ms: Callable[[], int] | None = None) -> None:
        from shared.eventlog.kafka import KafkaLog

        self.log = log
        self.hosts: dict = {}
        for n in services:
            if isinstance(log, KafkaLog):
                from shared.kafkahost import KafkaHost

                self.hosts[n] = KafkaHost(n, log.bootstrap, (lambda n=n: make_processor(n)),
                                          ticks=ticks and n == "game", now_ms=now_ms,
                                          partitions=log.partitions)
            else:
                self.hosts[n] = ServiceHost(make_processor(n), log, ticks=ticks and n == "game",
                                            now_ms=now_ms)
                self.hosts[n].attach()

    async def recover(self) -> None:
        """Rebuild every core's state from what the memory log already holds (restart after a
        crash); the log is read once for all the hosted services. (Kafka hosts restore their
        partitions when they are assigned, in :meth:`start_timers`.)"""
        from contracts.messages import TOPICS

        local = [h for h in self.hosts.values() if isinstance(h, ServiceHost)]
        if local:
            messages = await self.log.read_many(TOPICS)
            for h in local:
                await h.recover(messages)

    async def start_timers(self, timeout: float = 120.0) -> None:
        """Start the timers (memory log) or the Kafka hosts, waiting until they are ready."""
        import asyncio

        for h in self.hosts.values():
            if isinstance(h, ServiceHost):
                await h.start_timer()
            else:
                await h.start()
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not all(h.status()["ready"] for h in self.hosts.values() if not isinstance(h, ServiceHost)):
            if loop.time() > end:
                raise TimeoutError("the Kafka hosts did not become ready")
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        for h in self.hosts.values():
            await h.stop()
