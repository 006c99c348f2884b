"""Run the web app with uvicorn: loopback unless a token is given, the browser opened once the server listens,
Ctrl-C stops the crawls (state kept: they are paused and resumable), closes the live streams and exits."""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import socket
import threading
import webbrowser
from types import FrameType

import uvicorn

from sitemapkit.core import ConfigurationError
from sitemapkit.web._app import WebSettings, create_app
from sitemapkit.web._guard import is_loopback
from sitemapkit.web._jobs import CrawlManager

__all__ = ["check_bind", "page_url", "run"]


def check_bind(host: str, token: str | None) -> None:
    """A non-loopback address needs a token: without one every machine on the network could crawl from here."""
    if not is_loopback(host) and not token:
        raise ConfigurationError(
            f"--host {host} is not a loopback address: anyone who can reach it could use this server. Pass a "
            f"token that every request must carry, e.g. --token {secrets.token_urlsafe(18)}")


def page_url(settings: WebSettings) -> str:
    host = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else settings.host  # noqa: S104
    host = f"[{host}]" if ":" in host else host
    return f"http://{host}:{settings.port}/" + (f"?token={settings.token}" if settings.token else "")


class _Server(uvicorn.Server):
    """Tells the crawl manager first on Ctrl-C, so live streams end and crawls stop before uvicorn waits."""

    manager: CrawlManager | None = None
    loop: asyncio.AbstractEventLoop | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.manager is not None and self.loop is not None:
            try:
                self.loop.call_soon_threadsafe(self.manager.shutdown)
            except RuntimeError:
                pass
        super().handle_exit(sig, frame)

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self.loop = asyncio.get_running_loop()
        await super().startup(sockets)


def listen(settings: WebSettings) -> tuple[socket.socket, WebSettings]:
    """Bind the listening socket first, so port 0 gets a free port from the system and the address printed
    (and checked in Host and Origin headers) is the one bound. Raises OSError when the address is taken."""
    family = socket.AF_INET6 if ":" in settings.host else socket.AF_INET
    sock = socket.create_server((settings.host, settings.port), family=family, reuse_port=False)
    return sock, dataclasses.replace(settings, port=int(sock.getsockname()[1]))


def run(settings: WebSettings, *, open_browser: bool = True, log_level: str = "warning") -> None:
    """Serve until Ctrl-C. Raises :class:`ConfigurationError` for a non-loopback address without a token and
    OSError when the address cannot be bound. ``port=0`` listens on a free port, printed with the page's URL."""
    check_bind(settings.host, settings.token)
    sock, settings = listen(settings)
    app = create_app(settings)
    config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level=log_level,
                            timeout_graceful_shutdown=5, server_header=False)
    server = _Server(config)
    server.manager = app.state.manager
    url = page_url(settings)
    print(f"sitemapkit web: {url}  (Ctrl-C to stop)", flush=True)  # noqa: T201
    if open_browser:
        def opener() -> None:
            for _ in range(100):
                if server.started:
                    webbrowser.open(url)
                    return
                threading.Event().wait(0.05)

        threading.Thread(target=opener, daemon=True).start()
    with sock:
        server.run(sockets=[sock])
