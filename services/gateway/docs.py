"""The gateway's API documentation served offline (issue 12 item 6): ``/docs`` (Swagger UI) and
``/redoc`` (ReDoc) load their scripts, styles and icon from the gateway itself, never from a
CDN, so the docs work on an isolated network.

The assets come from the PyPI package ``fastapi-offline`` (its ``static`` folder: Swagger UI's
bundle and CSS, ReDoc's standalone bundle, a favicon), installed with the project; they are
served under :data:`ASSETS_PATH`. Swagger UI's online validator badge (which calls
validator.swagger.io) is off, and ReDoc does not load Google Fonts.
"""
from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

#: Where the documentation's assets are served (path on the gateway).
ASSETS_PATH = "/docs-assets"


def install_docs(app: FastAPI) -> None:
    """Serve ``/docs`` and ``/redoc`` for ``app`` (built with ``docs_url=None,
    redoc_url=None``) with every asset from :data:`ASSETS_PATH` on the same host (behind a
    proxy, under the request's ``root_path``). Raises ``FileNotFoundError`` when the
    ``fastapi-offline`` package is missing its assets."""
    static = files("fastapi_offline") / "static"
    app.mount(ASSETS_PATH, StaticFiles(directory=str(static), check_dir=True), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        at = _on_host(request)
        return get_swagger_ui_html(
            openapi_url=at(app.openapi_url), title=f"{app.title} - Swagger UI",
            swagger_js_url=at("swagger-ui-bundle.js"), swagger_css_url=at("swagger-ui.css"),
            swagger_favicon_url=at("favicon.png"), swagger_ui_parameters={"validatorUrl": None})

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        at = _on_host(request)
        return get_redoc_html(openapi_url=at(app.openapi_url), title=f"{app.title} - ReDoc",
                              redoc_js_url=at("redoc.standalone.js"),
                              redoc_favicon_url=at("favicon.png"), with_google_fonts=False)


def _on_host(request: Request) -> Callable[[str | None], str]:
    """The path on this host of an asset's file name, or of an absolute path (``/openapi.json``),
    under the request's ``root_path``."""
    root = request.scope.get("root_path", "").rstrip("/")
    return lambda name: f"{root}{name}" if name and name.startswith("/") else f"{root}{ASSETS_PATH}/{name}"
