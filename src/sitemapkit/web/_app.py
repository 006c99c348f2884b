"""The Starlette application: pages (Jinja2 templates, one script and one stylesheet served from the package: no
build step, no CDN), the JSON API, the request guard, and the crawl manager's life cycle."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from sitemapkit.web._api import api_routes
from sitemapkit.web._audits import AuditManager
from sitemapkit.web._guard import RequestGuard
from sitemapkit.web._jobs import CrawlManager, field_label, form_words
from sitemapkit.web._pages import STATUS_TEXT, page_routes
from sitemapkit.web._store import HistoryStore, default_data_dir

__all__ = ["DEFAULT_MAX_BODY", "WebSettings", "create_app"]

HERE = Path(__file__).parent
#: Uploads and request bodies: 20 MiB (a sitemap may be 50 MiB uncompressed; gzip it or give its URL).
DEFAULT_MAX_BODY = 20 * 1024 * 1024
PAGE_CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
            "frame-ancestors 'none'; form-action 'self'; base-uri 'none'")


@dataclass(frozen=True, slots=True)
class WebSettings:
    """How the web app runs: where it listens (for the Host and Origin checks), its token, its data folder."""

    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    data_dir: Path | None = None
    max_body: int = DEFAULT_MAX_BODY


class _PageHeaders:
    """Security headers on every answer that does not set its own CSP (the downloads do)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", PAGE_CSP.encode()))
                # same-origin: links to crawled sites carry no referrer, and the app's own form POSTs carry their
                # real Origin (with no-referrer a browser sends "Origin: null", which the guard refuses).
                headers += [(b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"same-origin"),
                            (b"x-frame-options", b"DENY")]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, wrapped)


def _csrf(request: Request) -> dict[str, Any]:
    """Every page carries the server's CSRF token (a meta tag for the script, a hidden field in each form)."""
    return {"csrf_token": request.app.state.csrf_token}


templates = Jinja2Templates(directory=str(HERE / "templates"), context_processors=[_csrf])
templates.env.globals["status_text"] = STATUS_TEXT
templates.env.globals["field_label"] = field_label
templates.env.globals["form_words"] = form_words


def create_app(settings: WebSettings | None = None) -> Starlette:
    """The web app. ``uvicorn`` (or any ASGI server) runs it; ``sitemapkit web`` does both.

    Example: ``uvicorn.run(create_app(WebSettings(port=8765)), host="127.0.0.1", port=8765)``."""
    settings = settings or WebSettings()
    csrf_token = secrets.token_urlsafe(32)
    data_dir = settings.data_dir or default_data_dir()
    store = HistoryStore(data_dir)
    manager = CrawlManager(store)
    audits = AuditManager(data_dir)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store.mark_interrupted()
        manager.attach(asyncio.get_running_loop())
        try:
            yield
        finally:
            manager.shutdown()
            await asyncio.to_thread(manager.join)
            await asyncio.to_thread(audits.join)
            store.mark_interrupted()
            store.close()

    routes = [
        *page_routes(),
        *api_routes(),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=[
        Middleware(RequestGuard, host=settings.host, port=settings.port, token=settings.token,
                   max_body=settings.max_body, csrf_token=csrf_token),
        Middleware(_PageHeaders),
    ])
    app.state.manager = manager
    app.state.audits = audits
    app.state.templates = templates
    app.state.max_body = settings.max_body
    app.state.csrf_token = csrf_token
    return app
