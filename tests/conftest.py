"""Shared pytest fixtures.

Real data lives in ``../shared/data`` beside the project root and is never copied into the repo.
Tests that need it use :func:`shared_data`: where the folder is absent they skip with a clear
reason, except under ``CI=true`` where they fail, so CI always runs them.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("ARBITER_SHARED_DIR", ROOT.parent / "shared"))


def require_shared(relpath: str) -> Path:
    """Return ``../shared/<relpath>``; skip (or fail under CI=true) when it is missing."""
    path = SHARED / relpath
    if not path.exists():
        msg = f"real data {path} is absent (../shared is not beside the project)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + "; CI must run real-data tests")
        pytest.skip(msg)
    return path


@pytest.fixture
def shared_data():
    """Callable fixture: ``shared_data("data/chess/pgn/x.pgn") -> Path``."""
    return require_shared
