"""Hostile sites and inputs against the fetching commands (issue 10, items 4, 7, 12 and part of 15).

End-to-end tests run the real CLI (in process; a real process for stdin) against real servers on 127.0.0.1;
nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.core._problems import Problem
from sitemapkit.crawl._crawler import Crawler, CrawlOptions
from sitemapkit.crawl._state import CrawlState
from sitemapkit.fetch import (
    AddressRefusedError,
    AiohttpTransport,
    HttpClient,
    MockResponse,
    MockTransport,
    RetryPolicy,
    Timeouts,
    TransportError,
    TransportRequest,
)
from sitemapkit.fetch._addresses import AddressPolicy, address_class, host_address
from sitemapkit.fetch._sources import FetchSettings, open_sources
from sitemapkit.fetch._walk import SitemapNode, WalkOptions, walk
from tests.support.cli import CliResult
from tests.support.cli import run_cli as _cli
from tests.support.server import LocalServer, Response
from tests.support.sites import Site, index_xml, urlset_xml

FAST = ["--retries", "1", "--retry-backoff", "0.01", "--max-retry-wait", "0.05"]


def run_cli(*args: str, timeout: float = 60) -> CliResult:
    """The CLI in process; ``timeout`` is left to pytest-timeout (the tests that time the command still do)."""
    return _cli(args)


# --- item 4: the same document gives the same problems from disk and over HTTP --------------------------------


def _many_problems_then_error() -> bytes:
    """230 duplicate-loc warnings (more than the walk keeps per sitemap node), then a fatal SM104 error."""
    head = b'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    dupes = b"".join(b"<url><loc>https://e.com/a</loc></url>\n" for _ in range(231))
    return head + dupes + b"<url><loc>https://e.com/b</loc></url>\n<<<\n</urlset>\n"


def _problem_lines(stderr: str, source: str) -> list[str]:
    return [line.removeprefix(source) for line in stderr.splitlines() if line.startswith(source)]


def test_urls_over_http_reports_every_problem_like_the_file(server: LocalServer, tmp_path: Path) -> None:
    body = _many_problems_then_error()
    path = tmp_path / "many.xml"
    path.write_bytes(body)
    server.route("/many.xml", body=body, headers={"Content-Type": "application/xml"})
    url = server.url("/many.xml")

    on_disk = run_cli("urls", str(path))
    over_http = run_cli("urls", url, "--deadline", "10", *FAST)

    disk_problems = _problem_lines(on_disk.stderr, str(path))
    http_problems = _problem_lines(over_http.stderr, url)
    assert len(disk_problems) == 231  # 230 warnings and the error
    assert "error SM104" in disk_problems[-1]
    assert http_problems == disk_problems
    assert on_disk.returncode == over_http.returncode == 1
    assert on_disk.stdout == over_http.stdout


def test_open_sources_streams_all_problems_of_a_fetched_document(server: LocalServer) -> None:
    server.route("/many.xml", body=_many_problems_then_error(), headers={"Content-Type": "application/xml"})
    events = list(open_sources([server.url("/many.xml")], settings=FetchSettings(timeout=10, retries=0)))
    problems = [e for e in events if isinstance(e, Problem)]
    assert [p.code for p in problems] == ["SM306"] * 230 + ["SM104"]


# --- item 7: server-side request forgery --------------------------------------------------------------------


@pytest.mark.parametrize(("host", "kind"), [
    ("169.254.169.254", "link-local"),
    ("fd00::1", "private"),
    ("10.1.2.3", "private"),
    ("127.0.0.1", "loopback"),
    ("::1", "loopback"),
    ("::ffff:169.254.169.254", "link-local"),  # IPv4-mapped IPv6
    ("2130706433", "loopback"),  # 127.0.0.1 in the legacy decimal form the system resolver accepts
    ("0x7f.1", "loopback"),
    ("100.64.0.1", "special-purpose"),  # carrier-grade NAT
    ("0.0.0.0", "unspecified"),
    ("224.0.0.1", "multicast"),
    ("8.8.8.8", None),
    ("2606:4700:4700::1111", None),
])
def test_address_classes(host: str, kind: str | None) -> None:
    ip = host_address(host)
    assert ip is not None
    assert address_class(ip) == kind


def test_policy_allows_the_seeds_own_class_only() -> None:
    policy = AddressPolicy.for_seeds(["http://127.0.0.1:8000/sitemap.xml"])
    assert policy.check_url("http://127.0.0.2/other.xml") is None
    assert policy.check_url("http://localhost:6379/") is None
    assert policy.check_url("https://example.com/a.xml") is None
    assert policy.check_url("http://169.254.169.254/latest/meta-data/") == (
        "refused: 169.254.169.254 is a link-local address; use --allow-private-addresses to allow")
    public = AddressPolicy.for_seeds(["https://example.com/sitemap.xml"])
    assert "loopback" in (public.check_url("http://localhost:6379/") or "")
    assert "private" in (public.check_url("http://[fd00::1]/") or "")
    assert "loopback" in (public.check_url("http://2130706433/") or "")
    assert AddressPolicy.for_seeds(["https://example.com/"], allow_private=True).check_url("http://[fd00::1]/") is None


def test_policy_checks_resolved_addresses_and_trusts_the_seed_name() -> None:
    policy = AddressPolicy.for_seeds(["https://intranet.test/sitemap.xml"])
    v4 = ipaddress.ip_address
    kept, why = policy.check_resolved("evil.test", [v4("10.0.0.5")])
    assert kept == []
    assert why is not None
    assert why.startswith("refused: evil.test resolves to 10.0.0.5, which is a private address")
    kept, why = policy.check_resolved("mixed.test", [v4("10.0.0.5"), v4("93.184.216.34")])
    assert kept == [v4("93.184.216.34")]
    assert why is None
    # The seed's own name resolves to a private address: allowed, and so is its class from then on.
    kept, why = policy.check_resolved("intranet.test", [v4("10.0.0.7")])
    assert kept == [v4("10.0.0.7")]
    assert why is None
    assert policy.check_resolved("other.intranet.test", [v4("10.0.0.8")])[1] is None
    assert policy.check_resolved("meta.test", [v4("169.254.169.254")])[1] is not None


def _mock_site(request: TransportRequest) -> MockResponse:
    if request.url == "https://example.com/index.xml":
        return MockResponse(200, index_xml(["http://169.254.169.254/latest/meta-data/", "http://[fd00::1]/s.xml",
                                            "http://localhost:6379/", "https://example.com/a.xml"]))
    if request.url == "https://example.com/redirect.xml":
        return MockResponse(302, headers={"Location": "http://127.0.0.1:2375/containers/json"})
    return MockResponse(200, urlset_xml(["https://example.com/p"]))


def test_client_refuses_special_hosts_before_the_transport_is_called() -> None:
    transport = MockTransport(_mock_site)

    async def go() -> None:
        policy = AddressPolicy.for_seeds(["https://example.com/index.xml"])
        async with HttpClient(transport=transport, address_policy=policy) as client:
            with pytest.raises(AddressRefusedError, match=r"refused: 169\.254\.169\.254 is a link-local address"):
                await client.get("http://169.254.169.254/latest/meta-data/")
            with pytest.raises(AddressRefusedError, match="localhost is a loopback address"):
                await client.get("http://localhost:6379/")
            assert transport.requests == []
            with pytest.raises(AddressRefusedError,
                               match=r"redirect to http://127\.0\.0\.1:2375/containers/json refused: 127\.0\.0\.1 "
                                     r"is a loopback address"):
                await client.get("https://example.com/redirect.xml")
            assert [r.url for r in transport.requests] == ["https://example.com/redirect.xml"]

    asyncio.run(go())


def test_walk_refuses_children_on_special_addresses() -> None:
    transport = MockTransport(_mock_site)

    async def go() -> list[SitemapNode]:
        policy = AddressPolicy.for_seeds(["https://example.com/index.xml"])
        async with HttpClient(transport=transport, address_policy=policy) as client:
            return [item async for item in walk(["https://example.com/index.xml"], client=client,
                                                options=WalkOptions(concurrency=1))
                    if isinstance(item, SitemapNode)]

    nodes = {n.url: n for n in asyncio.run(go())}
    assert sorted(r.url for r in transport.requests) == ["https://example.com/a.xml", "https://example.com/index.xml"]
    for url in ("http://169.254.169.254/latest/meta-data/", "http://[fd00::1]/s.xml", "http://localhost:6379/"):
        assert [p.code for p in nodes[url].problems if p.is_error] == ["SM515"], url  # (and SM511: another host)
    refused = next(p for p in nodes["http://169.254.169.254/latest/meta-data/"].problems if p.code == "SM515")
    assert "refused: 169.254.169.254 is a link-local address" in refused.message
    assert nodes["https://example.com/a.xml"].ok


def test_allow_private_addresses_lets_the_request_through() -> None:
    transport = MockTransport(_mock_site)

    async def go() -> int:
        policy = FetchSettings(allow_private_addresses=True).address_policy(["https://example.com/"])
        async with HttpClient(transport=transport, address_policy=policy) as client:
            return (await client.get("http://169.254.169.254/latest/meta-data/")).status

    assert asyncio.run(go()) == 200
    assert [r.url for r in transport.requests] == ["http://169.254.169.254/latest/meta-data/"]


class _NameResolver:
    """A stand-in for aiohttp's DefaultResolver: test names resolve to 127.0.0.1, nothing touches DNS."""

    def __init__(self) -> None:
        pass

    async def resolve(self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
                      ) -> list[dict[str, Any]]:
        if not host.endswith(".test"):
            raise OSError(f"unknown test host {host}")
        return [{"hostname": host, "host": "127.0.0.1", "port": port, "family": socket.AF_INET, "proto": 0,
                 "flags": socket.AI_NUMERICHOST}]

    async def close(self) -> None:
        return None


@pytest.fixture
def dot_test_names_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    import aiohttp.resolver

    monkeypatch.setattr(aiohttp.resolver, "DefaultResolver", _NameResolver)


@pytest.mark.usefixtures("dot_test_names_resolve")
def test_a_name_resolving_to_a_refused_address_is_refused_at_connect_time(server: LocalServer) -> None:
    server.route("/internal.xml", body=urlset_xml(["https://example.com/p"]))
    url = f"http://internal.test:{server.port}/internal.xml"

    async def get(policy: AddressPolicy) -> int:
        async with HttpClient(transport=AiohttpTransport(), address_policy=policy,
                              retry=RetryPolicy(max_retries=2, backoff_base=0.01)) as client:
            return (await client.get(url)).status

    public_seed = AddressPolicy.for_seeds(["https://example.com/sitemap.xml"])
    assert public_seed.check_url(url) is None  # a name passes the first check: it is checked once resolved
    with pytest.raises(AddressRefusedError, match=r"internal\.test resolves to 127\.0\.0\.1, which is a loopback"):
        asyncio.run(get(public_seed))
    assert server.requests == []  # no connection, and no retry
    # The same name as the seed: its own address class is allowed, and the request really goes through.
    assert asyncio.run(get(AddressPolicy.for_seeds([url]))) == 200
    assert asyncio.run(get(AddressPolicy.for_seeds(["https://example.com/"], allow_private=True))) == 200
    assert len(server.requests) == 2


def test_urls_cli_refuses_a_metadata_child_and_redirect_without_a_network_attempt(server: LocalServer) -> None:
    site = Site(server)
    site.xml("/index.xml", index_xml([server.url("/a.xml"), "http://169.254.169.254/latest/meta-data/",
                                      server.url("/r.xml")]))
    site.xml("/a.xml", urlset_xml([server.url("/p1")]))
    server.route("/r.xml", handler=lambda req: Response(302, headers={"Location": "http://[fd00::1]/s.xml"}))
    started = time.monotonic()
    proc = run_cli("urls", server.url("/index.xml"), "--deadline", "30", *FAST)
    assert time.monotonic() - started < 25  # a connection attempt to 169.254.169.254 would wait for the timeout
    assert proc.returncode == 1
    assert proc.stdout.split() == [server.url("/p1")]
    assert ("error SM515: http://169.254.169.254/latest/meta-data/ not fetched: refused: 169.254.169.254 is a "
            "link-local address; use --allow-private-addresses to allow") in proc.stderr
    assert "redirect to http://[fd00::1]/s.xml refused: fd00::1 is a private address" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("command", ["urls", "discover", "validate", "crawl"])
def test_fetching_commands_have_allow_private_addresses(command: str) -> None:
    result = CliRunner().invoke(cli, [command, "--help"])
    assert result.exit_code == 0
    assert "--allow-private-addresses" in result.output


def test_crawler_client_uses_the_address_policy(tmp_path: Path) -> None:
    with CrawlState(tmp_path / "state.sqlite") as state:
        crawler = Crawler("http://127.0.0.1:8000/", state, CrawlOptions())
        policy = crawler.client.address_policy
        assert policy is not None
        assert policy.check_url("http://127.0.0.1:8000/a") is None
        assert "link-local" in (policy.check_url("http://169.254.169.254/") or "")
        opened = Crawler("http://127.0.0.1:8000/", state, CrawlOptions(allow_private_addresses=True))
        assert opened.client.address_policy is not None
        assert opened.client.address_policy.check_url("http://169.254.169.254/") is None


def test_crawl_refuses_a_redirect_to_a_metadata_address(server: LocalServer, tmp_path: Path) -> None:
    server.route("/robots.txt", body=b"User-agent: *\nDisallow:\n", content_type="text/plain")
    server.route("/", body=b'<html><body><a href="/r">r</a></body></html>', content_type="text/html")
    server.route("/r", handler=lambda req: Response(302, headers={"Location": "http://169.254.169.254/latest/"}))
    out = tmp_path / "out"
    proc = run_cli("crawl", server.url("/"), "--out", str(out), "--stall-timeout", "5")
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "out-report" / "crawl-report.json").read_text())
    broken = {b["url"]: b["error"] for b in report["broken"]}
    assert broken == {server.url("/r"): "redirect to http://169.254.169.254/latest/ refused: 169.254.169.254 is a "
                                        "link-local address; use --allow-private-addresses to allow"}


# --- item 12: the user's timeout is a total deadline ------------------------------------------------------------


@pytest.fixture
def trickling_server() -> Iterator[int]:
    """A server that answers 200 and then sends one body byte every 0.5 s, forever."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            try:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: 100000000\r\n\r\n")
                while not stop.is_set():
                    conn.sendall(b" ")
                    stop.wait(0.5)
            except OSError:
                return

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def test_timeout_is_a_total_deadline_against_a_trickling_server(trickling_server: int) -> None:
    started = time.monotonic()
    proc = run_cli("urls", f"http://127.0.0.1:{trickling_server}/slow.xml", "--deadline", "2", "--retries", "3",
                   "--retry-backoff", "0.01", timeout=60)
    elapsed = time.monotonic() - started
    assert elapsed < 15  # before: one attempt ran 300 s, and retries made it ~20 minutes
    assert proc.returncode == 1
    assert "timed out after 2 s (total deadline)" in proc.stderr
    assert "read timeout" not in proc.stderr


def test_deadline_bounds_retries_and_their_waits() -> None:
    transport = MockTransport(lambda req: MockResponse(503, b"busy", {"Retry-After": "30"}))

    async def go() -> int:
        async with HttpClient(transport=transport, deadline=5, retry=RetryPolicy(max_retries=3)) as client:
            return (await client.get("https://example.com/sitemap.xml")).status

    assert asyncio.run(go()) == 503  # the 30 s wait would outlast the deadline: the answer is kept, not retried
    assert len(transport.requests) == 1


def test_fetch_settings_timeout_is_the_client_deadline() -> None:
    client = FetchSettings(timeout=10).client(["https://example.com/"])
    assert client.deadline == 10
    assert client.timeouts == Timeouts(connect=10, read=10, total=None)


def test_deadline_message_names_it() -> None:
    async def slow(request: TransportRequest) -> MockResponse:
        await asyncio.sleep(5)
        return MockResponse(200)

    async def go() -> None:
        async with HttpClient(transport=MockTransport(slow), deadline=0.2) as client:
            await client.get("https://example.com/sitemap.xml")

    with pytest.raises(TransportError, match=r"timed out after 0\.2 s \(total deadline\)"):
        asyncio.run(go())


# --- item 15 (part): `urls -` stops reading standard input once parsing has stopped ----------------------------


def test_urls_stdin_stops_reading_after_a_fatal_error(tmp_path: Path) -> None:
    out_path, err_path = tmp_path / "out", tmp_path / "err"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", "urls", "-"], stdin=subprocess.PIPE,
                                stdout=out, stderr=err)
    stdin = proc.stdin
    assert stdin is not None

    def produce() -> None:  # an endless producer: writes until the reader goes away
        try:
            stdin.write(b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                        b"<url><loc>https://e.com/a</loc></url><<<\n")
            chunk = b"<url><loc>https://e.com/x</loc></url>\n" * 1000
            while True:
                stdin.write(chunk)
        except (BrokenPipeError, OSError, ValueError):
            return

    writer = threading.Thread(target=produce, daemon=True)
    writer.start()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("`urls -` kept reading standard input after a fatal error")
    finally:
        writer.join(5)
        try:
            stdin.close()
        except OSError:
            pass
    assert proc.returncode == 1
    assert out_path.read_bytes().split() == [b"https://e.com/a"]
    assert b"error SM104" in err_path.read_bytes()
