"""``sitemapkit harvest`` on 200 sites at once, end to end on one machine: every site has its own loopback address
(127.0.0.2 … 127.0.0.201, one port, one accepting thread), the sites differ in size and layout, and some are
hostile (a cyclic index, a gzip bomb, 5xx, a server too slow for --deadline, HTML instead of XML). Run through the
CLI on a local Dask cluster of two worker processes; the Parquet row count of every host is asserted exactly and
every failure is a row of hosts.parquet with its code."""

from __future__ import annotations

import gzip
import selectors
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("distributed")
import pyarrow.dataset as ds  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from tests.support.sites import index_xml, urlset_xml

SITES = 200
#: --deadline of the run; the slow sites answer after SLOW seconds.
TIMEOUT = 2.0
SLOW = 6.0

# (status, body, content type, delay)
Route = tuple[int, bytes, str, float]


def _addresses(n: int) -> list[str]:
    return [f"127.0.0.{i + 2}" for i in range(n)]


class LoopbackSites:
    """One HTTP server answering on many loopback addresses (same port): ``routes[address][path]``."""

    def __init__(self, addresses: list[str]) -> None:
        self.routes: dict[str, dict[str, Route]] = {a: {} for a in addresses}
        self.hits: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._selector = selectors.DefaultSelector()
        self._sockets: list[socket.socket] = []
        self.port = self._bind(addresses)
        self._thread = threading.Thread(target=self._accept_loop, daemon=True)

    def _bind(self, addresses: list[str]) -> int:
        for _ in range(20):
            socks: list[socket.socket] = []
            try:
                port = 0
                for address in addresses:
                    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    socks.append(s)
                    s.bind((address, port))
                    port = s.getsockname()[1]
                    s.listen(128)
                    s.setblocking(False)
            except OSError:
                for s in socks:
                    s.close()
                continue
            self._sockets = socks
            for s in socks:
                self._selector.register(s, selectors.EVENT_READ)
            return port
        raise RuntimeError("could not bind one port on every loopback address")

    def url(self, address: str, path: str = "/") -> str:
        return f"http://{address}:{self.port}{path}"

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            for key, _ in self._selector.select(0.05):
                listener = key.fileobj
                assert isinstance(listener, socket.socket)
                try:
                    conn, peer = listener.accept()
                except BlockingIOError:
                    continue
                conn.setblocking(True)
                threading.Thread(target=self._serve, args=(conn, peer), daemon=True).start()

    def _serve(self, conn: socket.socket, peer: tuple[str, int]) -> None:
        try:
            _Handler(conn, peer, self)  # type: ignore[arg-type]  # socketserver-style: (request, address, server)
        except OSError:
            pass
        finally:
            conn.close()

    def answer(self, address: str, path: str) -> Route:
        with self._lock:
            self.hits[(address, path)] += 1
        site = self.routes.get(address, {})
        return site.get(path) or site.get(path.split("?", 1)[0]) or (404, b"not found", "text/plain", 0.0)

    def __enter__(self) -> LoopbackSites:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self._selector.close()
        for s in self._sockets:
            s.close()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: LoopbackSites  # type: ignore[assignment]

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        address = self.connection.getsockname()[0]
        status, body, ctype, delay = self.server.answer(address, self.path)
        if delay:
            time.sleep(delay)
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_HEAD = do_GET


@dataclass
class Expect:
    """What hosts.parquet and the dataset must say about one site."""

    status: str = "ok"
    urls: int = 0
    codes: set[str] = field(default_factory=set)  # codes that must be among the host's problems
    sitemaps: int | None = None


XML = "application/xml"
GZ = "application/x-gzip"


def _urls(base: str, prefix: str, n: int) -> list[str]:
    return [f"{base}/{prefix}/{i}" for i in range(n)]


def build_site(i: int, srv: LoopbackSites, address: str) -> tuple[str, Expect]:
    """Routes of site ``i``; returns its HOSTS line and what is expected of it."""
    base = srv.url(address, "").rstrip("/")
    r = srv.routes[address]

    def robots(*maps: str) -> Route:
        return 200, "".join(f"Sitemap: {m}\n" for m in maps).encode(), "text/plain", 0.0

    hostile: dict[int, Callable[[], tuple[str, Expect]]] = {}

    def cyclic() -> tuple[str, Expect]:  # a -> (b, urls), b -> (a): the cycle is cut, urls.xml is read once
        r["/robots.txt"] = robots(f"{base}/a.xml")
        r["/a.xml"] = (200, index_xml([f"{base}/b.xml", f"{base}/urls.xml"]), XML, 0.0)
        r["/b.xml"] = (200, index_xml([f"{base}/a.xml"]), XML, 0.0)
        r["/urls.xml"] = (200, urlset_xml(_urls(base, "c", 17)), XML, 0.0)
        return srv.url(address), Expect(urls=17, codes={"SM506"})

    def bomb() -> tuple[str, Expect]:  # 8 MB of spaces in a few KB of gzip, over --max-bytes
        r["/robots.txt"] = robots(f"{base}/bomb.xml.gz")
        r["/bomb.xml.gz"] = (200, gzip.compress(b"<urlset>" + b" " * 8_000_000, 9), GZ, 0.0)
        return srv.url(address), Expect("failed", codes={"SM112"})

    def server_error() -> tuple[str, Expect]:
        r["/robots.txt"] = robots(f"{base}/sitemap.xml")
        r["/sitemap.xml"] = (503, b"busy", "text/plain", 0.0)
        return srv.url(address), Expect("failed", codes={"SM502"})

    def slow() -> tuple[str, Expect]:  # answers after --deadline
        r["/sitemap.xml"] = (200, urlset_xml(_urls(base, "s", 5)), XML, SLOW)
        return srv.url(address, "/sitemap.xml"), Expect("failed", codes={"SM501"})

    def html() -> tuple[str, Expect]:
        r["/robots.txt"] = robots(f"{base}/sitemap.xml")
        r["/sitemap.xml"] = (200, b"<!DOCTYPE html><html><body><p>Welcome</p></body></html>", "text/html", 0.0)
        return srv.url(address), Expect("failed", codes={"SM505"})

    def half_broken() -> tuple[str, Expect]:  # one good child, one 500: ok with the good one's rows
        r["/robots.txt"] = robots(f"{base}/index.xml")
        r["/index.xml"] = (200, index_xml([f"{base}/good.xml", f"{base}/bad.xml"]), XML, 0.0)
        r["/good.xml"] = (200, urlset_xml(_urls(base, "g", 23)), XML, 0.0)
        r["/bad.xml"] = (500, b"oops", "text/plain", 0.0)
        return srv.url(address), Expect(urls=23, codes={"SM502"}, sitemaps=3)

    def no_sitemap() -> tuple[str, Expect]:  # robots.txt 404 and nothing at the well-known paths
        return srv.url(address), Expect("failed", codes={"SM530"})

    for k, make in enumerate((cyclic, bomb, server_error, slow, html, half_broken, no_sitemap)):
        for j in range(3):  # three of each, spread over the list
            hostile[7 + 10 * (k * 3 + j)] = make
    if i in hostile:
        return hostile[i]()
    # Ordinary sites, of different sizes and layouts.
    n = 1 + (i * 37) % 400 + (1500 if i % 50 == 0 else 0)
    layout = i % 3
    if layout == 0:  # robots.txt -> index -> 1..4 children, some gzipped
        parts = 1 + i % 4
        chunks = [list(range(n))[p::parts] for p in range(parts)]
        children = []
        for p, chunk in enumerate(chunks):
            locs = [f"{base}/p/{x}" for x in chunk]
            if p % 2:
                r[f"/s{p}.xml.gz"] = (200, gzip.compress(urlset_xml(locs)), GZ, 0.0)
                children.append(f"{base}/s{p}.xml.gz")
            else:
                r[f"/s{p}.xml"] = (200, urlset_xml(locs), XML, 0.0)
                children.append(f"{base}/s{p}.xml")
        r["/robots.txt"] = robots(f"{base}/index.xml")
        r["/index.xml"] = (200, index_xml(children), XML, 0.0)
        return srv.url(address), Expect(urls=n, sitemaps=1 + parts)
    if layout == 1:  # the sitemap URL itself in HOSTS
        r["/feed/sitemap.xml"] = (200, urlset_xml(_urls(base, "d", n)), XML, 0.0)
        return srv.url(address, "/feed/sitemap.xml"), Expect(urls=n, sitemaps=1)
    # no robots.txt: found at the well-known path
    r["/sitemap.xml"] = (200, urlset_xml(_urls(base, "w", n)), XML, 0.0)
    return srv.url(address), Expect(urls=n, codes={"SM531"}, sitemaps=1)


@pytest.fixture
def sites() -> Iterator[tuple[LoopbackSites, list[str], dict[str, Expect]]]:
    addresses = _addresses(SITES)
    with LoopbackSites(addresses) as srv:
        lines: list[str] = []
        expect: dict[str, Expect] = {}
        for i, address in enumerate(addresses):
            line, exp = build_site(i, srv, address)
            lines.append(line)
            expect[f"{address}:{srv.port}"] = exp
        yield srv, lines, expect


@pytest.mark.slow
@pytest.mark.e2e
def test_harvest_200_loopback_sites(sites: tuple[LoopbackSites, list[str], dict[str, Expect]],
                                    tmp_path: Path) -> None:
    _srv, lines, expect = sites
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out"
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "harvest", str(hosts), "--out", str(out), "--workers", "2",
         "--threads", "4", "--retries", "0", "--deadline", str(TIMEOUT), "--max-bytes", "1000000", "--quiet"],
        capture_output=True, text=True, timeout=180)
    elapsed = time.monotonic() - started
    failed = sum(1 for e in expect.values() if e.status == "failed")
    total = sum(e.urls for e in expect.values())
    assert proc.returncode == 1, proc.stderr  # some hosts failed
    assert (f"{SITES} hosts: {SITES - failed} harvested, {failed} failed, 0 already complete; {total:,} URLs"
            in proc.stdout), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr

    # The dataset: exactly the expected rows per host, each in its host's partition, from its host's sitemaps.
    table = ds.dataset(out / "urls", partitioning="hive").to_table(columns=["loc", "host", "sitemap"])
    per_host = Counter(table.column("host").to_pylist())
    assert dict(per_host) == {h: e.urls for h, e in expect.items() if e.status == "ok"}
    for loc, host, sitemap in zip(*(table.column(c).to_pylist() for c in ("loc", "host", "sitemap")), strict=True):
        assert loc.startswith(f"http://{host}/")
        assert sitemap.startswith(f"http://{host}/")
    assert table.num_rows == total
    assert len(set(table.column("loc").to_pylist())) == total  # the cyclic index's urlset is read once

    # hosts.parquet: one row per host in HOSTS order, failures with their codes.
    rows = pq.read_table(out / "hosts.parquet").to_pylist()
    assert [r["host"] for r in rows] == list(expect)
    for row in rows:
        exp = expect[row["host"]]
        codes = {p["code"] for p in row["problems"]}
        assert (row["status"], row["urls"]) == (exp.status, exp.urls), row
        assert exp.codes <= codes, (row["host"], codes)
        if exp.sitemaps is not None:
            assert row["sitemaps_found"] == exp.sitemaps, row
        if exp.status == "failed":
            assert row["errors"] >= 1
            assert not (out / "urls" / f"host={row['host'].replace(':', '%3A')}").exists()
    assert len({r["worker"] for r in rows}) == 2  # hosts went to both workers
    # The slow hosts were given up on at --deadline, not waited for (generous bound against a hang).
    slow = [r for r in rows if expect[r["host"]].codes == {"SM501"}]
    assert len(slow) == 3
    assert all(r["elapsed"] < SLOW for r in slow)
    assert elapsed < 170
