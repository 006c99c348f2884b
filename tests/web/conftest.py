"""The web app's test bed: a real local site (LocalServer on 127.0.0.1) and the real server process
(``python -m sitemapkit web`` on a free port, its history in a temporary XDG_DATA_HOME)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.support.ports import read_port
from tests.support.server import LocalServer, Request, Response
from tests.support.signals import sigint_default

PAGES = 12
#: Each page answers after this delay: the crawl (concurrency 1) lasts long enough to be watched live.
PAGE_DELAY = 0.12


def html(body: str, title: str = "Page") -> str:
    return f"<!DOCTYPE html><html><head><title>{title}</title></head><body>{body}</body></html>"


def build_site(server: LocalServer, delay: float = PAGE_DELAY) -> None:
    """A small site: a home page linking to PAGES pages, one broken link (/missing), one redirect (/old ->
    /p1), one noindex page; robots.txt names nothing."""
    links = "".join(f'<a href="/p{i}">p{i}</a> ' for i in range(PAGES))
    pages = {"/": html(links + '<a href="/missing">gone</a> <a href="/old">old</a> <a href="/secret">s</a>',
                       "Home")}
    for i in range(PAGES):
        pages[f"/p{i}"] = html(f'<a href="/">home</a> <a href="/p{(i + 1) % PAGES}">next</a>', f"P{i}")
    pages["/secret"] = '<html><head><meta name="robots" content="noindex"></head><body>x</body></html>'

    def page(req: Request) -> Response:
        path = req.path.split("?")[0]
        if path == "/old":
            return Response(301, b"", {"Location": "/p1"}, delay=delay)
        if path in pages:
            return Response(200, pages[path].encode(), {"Content-Type": "text/html; charset=utf-8"}, delay=delay)
        return Response(404, b"not found", {"Content-Type": "text/plain"}, delay=delay)

    for path in [*pages, "/old", "/missing"]:
        server.route(path, handler=page)
    server.route("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")


@pytest.fixture
def site() -> Iterator[LocalServer]:
    with LocalServer() as server:
        build_site(server)
        yield server


@dataclass
class WebServer:
    proc: subprocess.Popen[str]
    port: int
    data_home: Path
    host: str = "127.0.0.1"

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def request(self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None,
                raw: bytes | None = None) -> tuple[int, dict[str, str], bytes]:
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        hdrs = {"Content-Type": "application/json"} if body is not None else {}
        hdrs.update(headers or {})
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, {k.lower(): v for k, v in exc.headers.items()}, exc.read()

    def json(self, method: str, path: str, body: Any = None, **kw: Any) -> tuple[int, Any]:
        status, _, data = self.request(method, path, body, **kw)
        return status, json.loads(data) if data else None

    def wait_status(self, crawl_id: str, statuses: set[str], timeout: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            status, crawl = self.json("GET", f"/api/crawls/{crawl_id}")
            assert status == 200, crawl
            if crawl["status"] in statuses:
                return dict(crawl)
            assert time.monotonic() < deadline, f"crawl still {crawl['status']}: {crawl}"
            time.sleep(0.05)

    def interrupt(self, timeout: float = 20.0) -> int:
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout)


def start_web(data_home: Path, *args: str) -> WebServer:
    """Start ``sitemapkit web --port 0`` and read the port it bound from the address it prints."""
    env = {**os.environ, "XDG_DATA_HOME": str(data_home)}
    proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", "web", "--no-browser", "--port", "0", *args],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=sigint_default)  # Ctrl-C stops it even in a suite with SIGINT ignored
    assert proc.stdout is not None
    try:
        port, _ = read_port(proc.stdout, r"sitemapkit web: http://[^ ]*:(\d+)/", timeout=20)
    except AssertionError:
        proc.kill()
        raise AssertionError(f"the server did not start: {proc.communicate()[1]}") from None
    return WebServer(proc, port, data_home)


def stop_web(server: WebServer) -> None:
    if server.proc.poll() is None:
        server.proc.send_signal(signal.SIGINT)
        try:
            server.proc.wait(15)
        except subprocess.TimeoutExpired:
            server.proc.kill()
            server.proc.wait()
    for stream in (server.proc.stdout, server.proc.stderr):
        if stream is not None:
            stream.close()


@pytest.fixture
def web(tmp_path: Path) -> Iterator[WebServer]:
    server = start_web(tmp_path / "xdg-data")
    yield server
    stop_web(server)
