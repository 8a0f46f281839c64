"""Give each process its own share of the cores: a Linux CPU cgroup per process with a quota,
for the scaling run of :mod:`loadtests.load` (``--cpu-per-instance``).

Issue 10 asks to show that throughput grows with instances where cores allow, and a second
machine is not available. On two cores the broker, the load generator and the instances share
one pool, so a second instance competes with the first. Capping every back-end instance at the
same fraction of a core (say 0.25) makes each one a small machine of its own: the most one
instance decides is what a quarter of a core allows, and the run shows whether N instances
decide N times that. The cap is the CFS bandwidth quota (cgroup v1 ``cpu.cfs_quota_us`` over
``cpu.cfs_period_us``, or v2 ``cpu.max``) with a 10 ms period, so a throttled instance waits
at most the rest of 10 ms.

Needs write access to the cgroup file system (root, or a delegated subtree); otherwise
:class:`CpuCaps` raises ``SystemExit`` with the reason and what to do.
"""
from __future__ import annotations

import os
from pathlib import Path

#: The CFS period of the caps, microseconds (the kernel allows 1,000-1,000,000).
PERIOD_US = 10_000
_V1 = Path("/sys/fs/cgroup/cpu")
_V2 = Path("/sys/fs/cgroup")


class CpuCaps:
    """Cgroups that cap processes at ``cores`` cores each (0.01-64; 0.25 = a quarter of one
    core, whichever cores it runs on). :meth:`cap` moves a process (all its threads, and the
    children it forks after) into a cgroup of its own; :meth:`remove` deletes the cgroups once
    their processes have exited. Raises ``SystemExit`` when no writable CPU cgroup hierarchy is
    mounted and ``ValueError`` for ``cores`` out of range."""

    def __init__(self, cores: float, tag: str) -> None:
        if not 0.01 <= cores <= 64:
            raise ValueError(f"cores per instance must be 0.01-64, got {cores:g}")
        self.quota_us = round(cores * PERIOD_US)
        self.tag = tag
        self.groups: dict[str, Path] = {}  # instance name -> its cgroup
        if (_V1 / "cpu.cfs_quota_us").exists():
            self.root, self.v2 = _V1, False
        elif "cpu" in _read(_V2 / "cgroup.controllers").split():
            self.root, self.v2 = _V2, True
        else:
            raise SystemExit("loadtest: --cpu-per-instance needs the CPU cgroup controller "
                             "(/sys/fs/cgroup/cpu or cgroup v2 with 'cpu'); none is mounted")
        if not os.access(self.root, os.W_OK):
            raise SystemExit(f"loadtest: --cpu-per-instance needs write access to {self.root} "
                             "(run as root, or in a delegated cgroup)")

    def cap(self, name: str, pid: int) -> None:
        """Move process ``pid`` (instance ``name``, used in the cgroup's name) under the cap."""
        group = self.root / f"arbiter-load-{self.tag}-{name.replace('#', '-')}"
        group.mkdir(exist_ok=True)
        self.groups[name] = group
        if self.v2:
            (group / "cpu.max").write_text(f"{self.quota_us} {PERIOD_US}")
        else:
            (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(self.quota_us))
        (group / "cgroup.procs").write_text(str(pid))

    def throttled_s(self) -> dict[str, float]:
        """Seconds each capped instance was held back by its cap so far (since :meth:`cap`),
        by instance name (``cpu.stat``: v1 ``throttled_time`` in ns, v2 ``throttled_usec``)."""
        out = {}
        for name, g in self.groups.items():
            stat = dict(line.split() for line in _read(g / "cpu.stat").splitlines() if line.strip())
            out[name] = (int(stat.get("throttled_usec", 0)) / 1e6 if self.v2
                           else int(stat.get("throttled_time", 0)) / 1e9)
        return out

    def remove(self) -> None:
        """Delete the cgroups (their processes must have exited; one that cannot be removed is
        left, named in the warning)."""
        for g in self.groups.values():
            try:
                g.rmdir()
            except OSError as e:
                print(f"  warning: cgroup {g} left: {e.strerror}", flush=True)
        self.groups.clear()


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""
