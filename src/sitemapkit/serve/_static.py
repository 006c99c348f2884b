"""Serve a published sitemap folder over HTTP with the service's headers (``sitemapkit serve DIR``).

For checking a deployment locally: strong ETags (a digest of the file, cached by size and mtime), Last-Modified
(the file's mtime), 304s, HEAD, gzip when accepted (not for ``.gz`` files, which go out as they are),
``X-Robots-Tag: noindex`` and a configurable ``Cache-Control``. Only GET and HEAD; only regular files inside the
folder (no ``..``, no hidden files such as the manifest, no symlinks leading out); on a loopback address only
requests naming a loopback host (against DNS rebinding), and other methods from other sites are refused.
Hundreds of simultaneous clients are answered: a deep listen backlog, a thread per connection up to a bound,
idle connections closed after a while, clients that go away ignored (no traceback).
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import sys
import threading
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from sitemapkit.core import ConfigurationError
from sitemapkit.serve._http import GZIP_TYPE, XML_TYPE, Reply, ResourceMeta, error_reply, represent

__all__ = ["DirectoryServer", "serve_directory"]

_TYPES = {
    ".xml": XML_TYPE,
    ".gz": GZIP_TYPE,
    ".txt": "text/plain; charset=utf-8",
    ".html": "text/html; charset=utf-8",
    ".xsl": "text/xsl; charset=utf-8",
    ".json": "application/json",
}
_CHUNK = 1 << 16
#: Connections waiting to be accepted (the kernel caps it at net.core.somaxconn).
BACKLOG = 1024
#: Connections served at once, a thread each.
MAX_CONNECTIONS = 512
#: Seconds an idle connection is kept.
IDLE_TIMEOUT = 15.0
_LOOPBACK_NAMES = {"localhost", "127.0.0.1", "[::1]", "::1"}


def _is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return host == "localhost"


class DirectoryServer:
    """The replies for the files of ``root`` (framework-neutral; :func:`serve_directory` puts it on a socket)."""

    def __init__(self, root: str | os.PathLike[str], *, cache_control: str | None = "no-cache",
                 loopback_only_hosts: bool = True) -> None:
        self.root = Path(root).resolve()
        if not self.root.is_dir():
            raise ConfigurationError(f"{root}: not a directory")
        self.cache_control = cache_control
        self.loopback_only_hosts = loopback_only_hosts
        self._digests: dict[Path, tuple[int, int, str]] = {}
        self._lock = threading.Lock()

    def _extra(self) -> list[tuple[str, str]]:
        out = [("X-Robots-Tag", "noindex")]
        if self.cache_control is not None:
            out.append(("Cache-Control", self.cache_control))
        return out

    def resolve(self, raw_path: str) -> Path | None:
        """The file a request path names, or None (outside the folder, hidden, not a regular file)."""
        path = unquote(urlsplit(raw_path).path, errors="strict") if raw_path else ""
        if "\x00" in path or "\\" in path or not path.startswith("/"):
            return None
        parts = [p for p in path.split("/") if p]
        if not parts or any(p in (".", "..") or p.startswith(".") for p in parts):
            return None
        candidate = self.root.joinpath(*parts)
        try:
            real = candidate.resolve(strict=True)
        except (OSError, RuntimeError):
            return None
        if not real.is_relative_to(self.root) or not real.is_file():
            return None
        return real

    def _etag(self, path: Path, st: os.stat_result) -> str:
        with self._lock:
            cached = self._digests.get(path)
        if cached is not None and cached[0] == st.st_size and cached[1] == st.st_mtime_ns:
            return cached[2]
        h = hashlib.blake2b(digest_size=16)
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
        etag = f'"{h.hexdigest()}"'
        with self._lock:
            self._digests[path] = (st.st_size, st.st_mtime_ns, etag)
        return etag

    def _refused(self, method: str, headers: Mapping[str, str]) -> Reply | None:
        host = headers.get("host", "")
        if self.loopback_only_hosts:
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if host and name.lower() not in _LOOPBACK_NAMES and not _is_loopback(name):
                return error_reply(403, f"host {host!r} refused: this server answers to 127.0.0.1/localhost")
        if method not in ("GET", "HEAD"):
            site = headers.get("sec-fetch-site", "")
            origin = headers.get("origin")
            if site in ("cross-site", "same-site") or (origin is not None and urlsplit(origin).netloc != host):
                return error_reply(403, "cross-site request refused")
            return error_reply(405, "only GET and HEAD are served", [("Allow", "GET, HEAD")])
        return None

    def respond(self, method: str, raw_path: str, headers: Mapping[str, str]) -> Reply:
        lower = {k.lower(): v for k, v in headers.items()}
        method = method.upper()
        refused = self._refused(method, lower)
        if refused is not None:
            return refused
        try:
            path = self.resolve(raw_path)
        except UnicodeDecodeError:
            path = None
        if path is None:
            return error_reply(404, f"no file {raw_path!r} in the served folder")
        try:
            st = path.stat()
            etag = self._etag(path, st)
        except OSError as exc:
            return error_reply(404, f"cannot read {raw_path!r}: {exc.strerror or exc}")
        suffix = path.suffix.lower()
        ctype = _TYPES.get(suffix, "application/octet-stream")
        meta = ResourceMeta(etag, datetime.fromtimestamp(st.st_mtime, UTC), ctype,
                            negotiate_gzip=suffix != ".gz", length=st.st_size)
        return represent(method, lower, meta, _read_chunks(path), self._extra())


def _read_chunks(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            yield chunk


def _write_reply(handler: BaseHTTPRequestHandler, reply: Reply, method: str) -> None:
    """Send a reply; a streamed body of unknown length goes out chunked (HTTP/1.1)."""
    handler.send_response(reply.status)
    length = reply.header("content-length")
    chunked = length is None and reply.status not in (204, 304) and method != "HEAD"
    for key, value in reply.headers:
        handler.send_header(key, value)
    if chunked:
        handler.send_header("Transfer-Encoding", "chunked")
    elif length is None and method != "HEAD" and reply.status != 304:
        handler.send_header("Content-Length", "0")
    handler.end_headers()
    if method == "HEAD" or reply.status == 304:
        return
    body = reply.body
    if isinstance(body, bytes):
        handler.wfile.write(body)
        return
    for chunk in body:
        if chunk:
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    handler.wfile.write(b"0\r\n\r\n")


class _Server(ThreadingHTTPServer):
    """A thread per connection, at most ``max_connections`` at once; the others wait in a listen backlog deep
    enough for hundreds of simultaneous clients (socketserver's default of 5 dropped the connections of a burst:
    325 of 500 clients were answered, the rest timed out). A client that goes away is no error."""

    daemon_threads = True
    request_queue_size = BACKLOG
    app: Any

    @property
    def url(self) -> str:
        """``http://HOST:PORT/`` of the bound address (an IPv6 address in brackets)."""
        host, port = str(self.server_address[0]), int(self.server_address[1])
        return f"http://{f'[{host}]' if ':' in host else host}:{port}/"

    def __init__(self, address: tuple[str, int], max_connections: int = MAX_CONNECTIONS) -> None:
        self._slots = threading.BoundedSemaphore(max_connections)
        self._stopping = threading.Event()
        super().__init__(address, _Handler)

    def shutdown(self) -> None:
        self._stopping.set()
        super().shutdown()

    def process_request(self, request: Any, client_address: Any) -> None:
        # All slots busy: stop accepting (new clients wait in the backlog) until a connection ends.
        while not self._slots.acquire(timeout=0.5):
            if self._stopping.is_set():
                self.shutdown_request(request)
                return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionError, TimeoutError)):  # reset, broken pipe, idle client
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    #: Seconds a connection may stay idle (keep-alive between requests, or a stalled client) before it is closed.
    timeout = IDLE_TIMEOUT
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _any(self) -> None:
        headers = dict(self.headers.items())
        reply = self.server.app.respond(self.command, self.path, headers)
        _write_reply(self, reply, self.command)

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _any


def serve_directory(app: DirectoryServer, host: str = "127.0.0.1", port: int = 8000, *,
                    max_connections: int = MAX_CONNECTIONS) -> _Server:
    """A threaded HTTP/1.1 server for ``app`` bound to ``host:port`` (port 0: any free port); call
    ``serve_forever()`` on it (or run that in a thread) and ``shutdown()`` to stop. At most
    ``max_connections`` connections are served at once; further clients wait in the listen backlog."""
    server = _Server((host, port), max_connections)
    server.app = app
    if not _is_loopback(host):
        app.loopback_only_hosts = False
    return server
