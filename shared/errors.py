"""The roots of the errors Arbiter raises for bad input, one per layer, all ``ValueError``s:

- :class:`RulesError`: game rules, notations and records (chess, xiangqi, Go, SGF, PGN), time
  controls and clocks;
- :class:`PairingError`: pairing systems and their files (TRF);
- :class:`StandingsError`: standings and tie-breaks;
- :class:`TransportError`: the platform's edges (configuration, a running platform's refusals).

A caller that only needs to tell bad input from a defect catches :class:`ArbiterError`; the
HTTP gateway answers each with a 4xx naming it.
"""
from __future__ import annotations


class ArbiterError(ValueError):
    """Bad input to Arbiter: the message says what and where."""


class RulesError(ArbiterError):
    """A move, position, record or time control the rules refuse or cannot read."""


class PairingError(ArbiterError):
    """Bad pairing input (size, duplicate ids, malformed history), a pairing file that cannot
    be read, or no legal pairing exists."""


class StandingsError(ArbiterError):
    """Bad standings input: unknown player or result, duplicate ids, a player twice in a round,
    an unknown tie-break code."""


class TransportError(ArbiterError):
    """The platform's edges: a setting that cannot be used, a running platform refusing a
    request."""
