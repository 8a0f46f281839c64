"""Browser tests: Playwright's Python API driving Debian's ``chromium`` (``.ci/run`` installs it;
Playwright's own browser download is not used). Where chromium or playwright is missing they
skip saying so, except under ``CI=true`` where they fail. Screenshots go to
``out/screenshots/`` (git-ignored; the test artifacts)."""
from __future__ import annotations

import asyncio
import os
import shutil
import threading
from pathlib import Path

import pytest

SCREENSHOTS = Path(__file__).resolve().parents[2] / "out" / "screenshots"
DESKTOP = {"width": 1280, "height": 860}
PHONE = {"width": 390, "height": 844}


def to_phone(page, timeout_ms: int = 20_000) -> None:
    """Resize ``page`` to :data:`PHONE` and wait (at most ``timeout_ms``) until it is laid out
    with nothing wider than the phone (no sideways scroll); read at once after the resize, a
    slow CI saw the width before the layout (640)."""
    page.set_viewport_size(PHONE)
    page.wait_for_function(f"document.documentElement.scrollWidth <= {PHONE['width']}", timeout=timeout_ms)


def _missing(msg: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(msg + "; CI must run the browser tests (.ci/run installs chromium)")
    pytest.skip(msg)


def chromium_path() -> str | None:
    return os.environ.get("ARBITER_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser():
    """Chromium, for one module: Playwright's sync API runs an event loop in this thread while
    it is open, so it must be closed before the (asyncio) tests of other modules run."""
    exe = chromium_path()
    if exe is None:
        _missing("no chromium on PATH (apt-get install chromium, or set ARBITER_CHROMIUM)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright package is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


class LiveDemo:
    """``arbiter demo --serve`` on a free port in a thread of its own (its own event loop)."""

    def __init__(self, game: str = "chess") -> None:
        self.game = game
        self.demo = None
        self._ready = threading.Event()
        self._stop: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=lambda: asyncio.run(self._main()), daemon=True)

    async def _main(self) -> None:
        from services.tools import demo_serve
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        try:
            async with demo_serve.start(port=0, seed=7, pace=0.3, game=self.game) as d:
                self.demo = d
                self._ready.set()
                await self._stop.wait()
        except BaseException as e:  # reported by start()
            self.error = e
            self._ready.set()

    def start(self) -> "LiveDemo":
        self._thread.start()
        if not self._ready.wait(60) or self.error:
            raise RuntimeError(f"the demo did not start: {self.error!r}")
        return self

    def stop(self) -> None:
        if self._loop and self._stop:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(30)


@pytest.fixture(scope="module")
def live_demo(request):
    """The demo of ``request.param`` (parametrize indirectly; default chess)."""
    # The browser tests act as one player principal for minutes across modules in one process;
    # the per-principal write rate (tested in tests/unit/test_limits.py) is not what they test,
    # and with it a slower machine made later modules wait on 429s (stop 30: ply 7 never came).
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ARBITER_RATE_PRINCIPAL", "")
        d = LiveDemo(getattr(request, "param", "chess")).start()
    yield d.demo
    d.stop()


@pytest.fixture
def shot():
    """``shot(page, name)`` saves a full-page screenshot as out/screenshots/<name>.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(page, name: str) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        return path
    return take
