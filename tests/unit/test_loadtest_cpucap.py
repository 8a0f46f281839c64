"""The load test's CPU caps (loadtests/cpucap.py): a process moved under a cap is in a cgroup
of its own with the quota asked for, and the cgroup goes once the process has exited."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from loadtests.cpucap import PERIOD_US, CpuCaps


def _caps(cores: float) -> CpuCaps:
    try:
        return CpuCaps(cores, "test")
    except SystemExit as e:
        pytest.skip(f"no writable CPU cgroup here: {e}")


def test_a_capped_process_is_in_its_own_cgroup_with_the_quota_asked_for() -> None:
    caps = _caps(0.25)
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        caps.cap("game#2", child.pid)
        group = caps.groups["game#2"]
        assert group.name == "arbiter-load-test-game-2"
        assert str(child.pid) in (group / "cgroup.procs").read_text().split()
        if caps.v2:
            assert (group / "cpu.max").read_text().split() == ["2500", str(PERIOD_US)]
        else:
            assert int((group / "cpu.cfs_quota_us").read_text()) == 2500  # 0.25 of 10,000 us
            assert int((group / "cpu.cfs_period_us").read_text()) == PERIOD_US
        cgroups = Path(f"/proc/{child.pid}/cgroup").read_text()
        assert "arbiter-load-test-game-2" in cgroups
        assert list(caps.throttled_s()) == ["game#2"]
    finally:
        child.kill()
        child.wait()
        caps.remove()
    assert not group.exists()


def test_cores_out_of_range_are_refused() -> None:
    with pytest.raises(ValueError, match="0.01-64"):
        CpuCaps(0, "test")
    with pytest.raises(ValueError, match="0.01-64"):
        CpuCaps(65, "test")
