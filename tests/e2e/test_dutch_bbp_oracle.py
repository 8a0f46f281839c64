"""Our FIDE Dutch (C.04.3 as amended in 2025, in force 2026) against the FIDE-endorsed engine.

bbpPairings (../shared/tools/bbpPairings, the 2025 rules) is the oracle, never a product
dependency: these tests build it from its source tarball (``build.sh``, into a cache folder
keyed by the tarball's and the scripts' checksums), let ``generate.sh`` make Swiss events that
bbpPairings paired round by round (sizes, draws, forfeits, retirements and half-point byes vary
with the seed), and re-pair every round as ``arbiter check-pairings`` does: each round must be
the engine's, board for board, colours and bye included.

* every round of the 50 files of ../shared/data/chess/trf-generated (seeds 1-50, 7-296 players);
* 300 fresh events: the first 300 seeds from 1001 whose event has at most 100 players and
  that the generator completes (its size is ``(37 * seed) % 290 + 7``; the larger sizes are
  the 50 files' and cost the generator seconds each), 5-11 rounds.

Where ../shared is absent they skip, and fail under ``CI=true`` (tests/conftest.py).  Both run
their events in two processes; the generated events are kept in the cache folder.
"""
from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pytest

from services.pairing.check import check_pairings

pytestmark = [pytest.mark.realdata, pytest.mark.slow]

# generate.sh fails a seed now and then (bbpPairings finds no pairing for a generated round):
# the candidates are a few more than needed, and the first 300 events made are checked.
CANDIDATE_SEEDS = [s for s in range(1001, 3000) if (37 * s) % 290 + 7 <= 100][:330]
WORKERS = 2


def _differences(path: str) -> list[str]:
    """The rounds of ``path`` that differ from the record, as readable lines."""
    rep = check_pairings(path)
    return [f"{Path(path).name} round {r['round']}: record {r.get('official_only')} "
            f"bye {r['official_bye']} / ours {r.get('ours_only')} bye {r['our_bye']}"
            + (f" error {r['error']}" if r.get("error") else "")
            for r in rep["rounds"] if not r["matched"]] or [f"ok {len(rep['rounds'])}"]


def _check_all(files: list[Path]) -> tuple[int, int, list[str]]:
    """(events, rounds, differences) over ``files``, in :data:`WORKERS` processes."""
    rounds, bad = 0, []
    with ProcessPoolExecutor(WORKERS) as pool:
        for lines in pool.map(_differences, map(str, files)):
            if lines[0].startswith("ok "):
                rounds += int(lines[0].split()[1])
            else:
                bad += lines
    return len(files), rounds, bad


def _oracle(shared: Path) -> tuple[Path, Path]:
    """(bbpPairings executable, cache folder): built once per tarball/script version."""
    tools = shared / "tools" / "bbpPairings"
    digest = hashlib.sha256()
    for name in ("bbpPairings-16a000f.tar.gz", "build.sh", "generate.sh"):
        digest.update((tools / name).read_bytes())
    cache = Path(os.environ.get("ARBITER_BBP_CACHE", tempfile.gettempdir())) / \
        f"arbiter-bbp-{digest.hexdigest()[:12]}"
    exe = cache / "bbpPairings.exe"
    if not exe.exists():
        done = subprocess.run([str(tools / "build.sh"), str(cache)], capture_output=True,
                              text=True, timeout=900)
        assert done.returncode == 0 and exe.exists(), f"build.sh failed: {done.stderr[-2000:]}"
    return exe, cache


def test_every_round_of_the_generated_files(shared_data):
    """The 50 files in ../shared/data/chess/trf-generated: 398 rounds, all the engine's."""
    files = sorted(shared_data("data/chess/trf-generated").glob("*.trf"))
    assert len(files) == 50
    events, rounds, bad = _check_all(files)
    assert not bad, "\n".join(bad)
    assert (events, rounds) == (50, 398)


def test_every_round_of_300_fresh_events(shared_data):
    """300 events generated now by bbpPairings with seeds it has not been tested on."""
    shared = shared_data("tools/bbpPairings").parent.parent
    exe, cache = _oracle(shared)
    out = cache / "generated"
    out.mkdir(exist_ok=True)
    generate = shared / "tools" / "bbpPairings" / "generate.sh"

    def made(seed: int) -> list[Path]:
        return list(out.glob(f"bbp-dutch2025-seed{seed:04d}-*.trf"))

    def gen(seed: int) -> None:
        failed = out / f"seed{seed:04d}.failed"
        if not made(seed) and not failed.exists():
            subprocess.run([str(generate), str(exe), str(out), str(seed), str(seed)],
                           capture_output=True, timeout=600, check=True)
            if not made(seed):
                failed.touch()

    with ThreadPoolExecutor(WORKERS) as pool:
        list(pool.map(gen, CANDIDATE_SEEDS))
    files = [f for seed in CANDIDATE_SEEDS for f in made(seed)][:300]
    assert len(files) == 300, f"generate.sh made {len(files)} of {len(CANDIDATE_SEEDS)} events"
    events, rounds, bad = _check_all(files)
    assert not bad, "\n".join(bad)
    assert events == 300 and rounds > 2000
