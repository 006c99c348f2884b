"""A real HTTP server on 127.0.0.1 for tests: routes are set per test, every request is logged.

    with LocalServer() as srv:
        srv.route("/sitemap.xml", body=b"...", headers={"Content-Type": "application/xml"})
        srv.route("/slow", handler=lambda req: Response(200, b"x", delay=2.0))
        fetch(srv.url("/sitemap.xml"))

A route is either fixed (status, body, headers) or a handler called with the :class:`Request` that returns a
:class:`Response`. Unknown paths are 404. ``Response.close_after`` bytes lets a test send a truncated body.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType


@dataclass
class Request:
    method: str
    path: str  # path + query, as sent
    headers: dict[str, str]
    body: bytes
    time: float


@dataclass
class Response:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds to wait before answering
    close_after: int | None = None  # send only this many body bytes, then drop the connection
    reset: bool = False  # drop the connection without answering


Handler = Callable[[Request], Response]


class _QuietServer(ThreadingHTTPServer):
    """A client that goes away mid-answer (a test killing the CLI) is normal here: no traceback on stderr."""

    def handle_error(self, request: object, client_address: object) -> None:
        import sys

        exc = sys.exc_info()[1]
        if isinstance(exc, (BrokenPipeError, ConnectionResetError, ConnectionAbortedError)):
            return
        super().handle_error(request, client_address)  # type: ignore[arg-type]


class LocalServer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.routes: dict[str, Handler] = {}
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        outer = self

        class _H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in separate writes: without TCP_NODELAY, Nagle + delayed ACK stall every
            # keep-alive response by ~40 ms.
            disable_nagle_algorithm = True

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                req = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body,
                              time.monotonic())
                with outer._lock:
                    outer.requests.append(req)
                handler = outer.routes.get(self.path) or outer.routes.get(self.path.split("?", 1)[0])
                resp = handler(req) if handler else Response(404, b"<html><body>Not found</body></html>",
                                                             {"Content-Type": "text/html"})
                if resp.delay:
                    time.sleep(resp.delay)
                if resp.reset:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    self.close_connection = True
                    return
                self.send_response(resp.status)
                headers = {"Content-Type": "application/octet-stream", **resp.headers}
                for k, v in headers.items():
                    self.send_header(k, v)
                if "Content-Length" not in headers:
                    self.send_header("Content-Length", str(len(resp.body)))
                self.end_headers()
                if self.command == "HEAD":
                    return
                if resp.close_after is not None:
                    self.wfile.write(resp.body[: resp.close_after])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                self.wfile.write(resp.body)

            do_GET = do_POST = do_HEAD = do_PUT = _serve

        self._httpd = _QuietServer((host, 0), _H)
        self._httpd.daemon_threads = True
        self.host, self.port = self._httpd.server_address[0], self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    def url(self, path: str = "/") -> str:
        return self.base + path

    def route(
        self,
        path: str,
        body: bytes | str = b"",
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        content_type: str | None = None,
        handler: Handler | None = None,
    ) -> None:
        if handler is None:
            data = body.encode() if isinstance(body, str) else body
            hdrs = dict(headers or {})
            if content_type:
                hdrs["Content-Type"] = content_type
            fixed = Response(status, data, hdrs)

            def handler(_req: Request, _r: Response = fixed) -> Response:
                return _r

        self.routes[path] = handler

    def hits(self, path: str) -> int:
        with self._lock:
            return sum(1 for r in self.requests if r.path == path)

    def start(self) -> LocalServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: tuple[type[BaseException], BaseException, TracebackType] | None) -> None:
        self.stop()
