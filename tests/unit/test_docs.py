"""``/docs`` and ``/redoc`` work offline (issue 12 item 6): every script, style, icon and the
OpenAPI document they load are served by the gateway itself; nothing points off-host."""
from __future__ import annotations

import re

import httpx
import pytest

from services.gateway.app import create_app
from shared.eventlog.memory import MemoryLog

#: What a page loads: src= and href= attributes, and Swagger UI's ``url:`` of the document.
_REFS = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']|\burl\s*:\s*["']([^"']+)["']|spec-url=["']([^"']+)["']""")


@pytest.mark.parametrize("page,kinds", [
    ("/docs", {"javascript", "css", "image/png", "json"}),
    ("/redoc", {"javascript", "image/png", "json"}),
])
async def test_the_docs_load_every_asset_from_the_gateway(page, kinds):
    app = create_app(MemoryLog())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
        r = await c.get(page)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        html = r.text
        assert "http://" not in html and "https://" not in html  # no CDN, no Google Fonts
        refs = {next(g for g in m.groups() if g) for m in _REFS.finditer(html)}
        assert refs and all(ref.startswith("/") and not ref.startswith("//") for ref in refs), refs
        got = set()
        for ref in refs:
            a = await c.get(ref)
            assert a.status_code == 200 and len(a.content) > 1000, (ref, a.status_code)
            got |= {k for k in kinds if k in a.headers["content-type"]}
        assert got == kinds
        if page == "/docs":
            assert '"validatorUrl": null' in html  # no call to the online validator


async def test_the_docs_are_not_in_the_api_and_the_assets_are_not_writable():
    app = create_app(MemoryLog())
    paths = app.openapi()["paths"]
    assert not {"/docs", "/redoc"} & set(paths) and not any(p.startswith("/docs-assets") for p in paths)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as c:
        r = await c.post("/docs-assets/swagger-ui.css", content=b"x")
        assert r.status_code == 405 and r.json()["code"] == "method-not-allowed"
        r = await c.get("/docs-assets/%2e%2e/core.py")  # fastapi_offline/core.py: outside the folder
        assert r.status_code == 404 and r.json()["code"] == "not-found"
