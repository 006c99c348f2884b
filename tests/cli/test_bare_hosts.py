"""Bare host names (``example.com``, ``127.0.0.1:8000/shop``): https first, http when https does not connect,
and the command says which was used. The CLI tests run against a plain-HTTP server on 127.0.0.1: an https
handshake with it fails, so every command falls back to http."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from lxml import etree

from sitemapkit.core import bare_host_url
from sitemapkit.crawl import check_start_url
from sitemapkit.fetch import MockResponse, MockTransport, TransportError, TransportRequest, choose_scheme
from tests.support.cli import run_cli
from tests.support.server import LocalServer
from tests.support.sites import urlset_xml

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
FAST = ["--retries", "0", "--stall-timeout", "5"]


@pytest.mark.parametrize(("typed", "url"), [
    ("example.com", "https://example.com/"),
    ("www.example.com/shop", "https://www.example.com/shop"),
    ("127.0.0.1:8000", "https://127.0.0.1:8000/"),
    ("127.0.0.1:8000/shop?x=1", "https://127.0.0.1:8000/shop?x=1"),
    ("localhost:3000", "https://localhost:3000/"),
    ("kiwi-shop.de", "https://kiwi-shop.de/"),
    ("[::1]:8080", "https://[::1]:8080/"),
    ("  example.com  ", "https://example.com/"),
])
def test_bare_hosts_are_recognised(typed: str, url: str) -> None:
    assert bare_host_url(typed) == url


@pytest.mark.parametrize("typed", ["https://example.com/", "sitemap.xml", "urls.txt", "out/sitemap.xml",
                                   "data.parquet", "-", "localhost-file", "1.2.3", "example.com:70000",
                                   "user:pw@example.com", "my site.com", "ftp://example.com/", ""])
def test_other_arguments_are_not_hosts(typed: str) -> None:
    assert bare_host_url(typed) is None


def test_start_url_check_accepts_a_bare_host() -> None:
    assert check_start_url("example.com") == "https://example.com/"


def _probe(handler: MockTransport) -> tuple[str, str | None, list[str]]:
    chosen = asyncio.run(choose_scheme("shop.test/a", transport=handler))
    return chosen.url, chosen.note, [r.url for r in handler.requests]


def test_https_that_answers_is_kept_even_with_an_http_error() -> None:
    url, note, asked = _probe(MockTransport(lambda req: MockResponse(503)))
    assert url == "https://shop.test/a"
    assert asked == ["https://shop.test/a"]
    assert note == "shop.test/a: using https://shop.test/a (https answered)"


def test_https_that_does_not_connect_falls_back_to_http() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        if req.url.startswith("https:"):
            raise TransportError("cannot connect: refused", url=req.url)
        return MockResponse(200)

    url, note, asked = _probe(MockTransport(handler))
    assert url == "http://shop.test/a"
    assert asked == ["https://shop.test/a", "http://shop.test/a"]
    assert note is not None
    assert "https did not connect (cannot connect: refused); using http://shop.test/a" in note


def test_neither_connecting_keeps_https() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        raise TransportError("cannot connect: refused", url=req.url)

    url, note, _ = _probe(MockTransport(handler))
    assert url == "https://shop.test/a"
    assert note is not None
    assert note.startswith("shop.test/a: neither https")


def test_a_url_with_a_scheme_is_not_probed() -> None:
    transport = MockTransport(lambda req: MockResponse(200))
    chosen = asyncio.run(choose_scheme("http://shop.test/", transport=transport))
    assert chosen.url == "http://shop.test/"
    assert chosen.note is None
    assert transport.requests == []


# --- end to end through the CLI, against a plain-HTTP server ------------------------------------------------


@pytest.fixture
def plain_site() -> LocalServer:
    with LocalServer() as server:
        base = server.base
        server.route("/robots.txt", f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n",
                     content_type="text/plain")
        server.route("/sitemap.xml", urlset_xml([f"{base}/", f"{base}/shop/a"]), content_type="application/xml")
        server.route("/", '<html><body><a href="/shop/a">a</a></body></html>', content_type="text/html")
        server.route("/shop/a", "<html><body>a</body></html>", content_type="text/html")
        yield server


def _host(server: LocalServer) -> str:
    return server.base.removeprefix("http://")


def test_crawl_a_bare_host(plain_site: LocalServer, tmp_path: Path) -> None:
    host = _host(plain_site)
    out = tmp_path / "out"
    res = run_cli(["crawl", host, "--out", out, "--state", tmp_path / "s.sqlite", *FAST])
    assert res.returncode == 0, res.stderr
    notes = [line for line in res.stderr.splitlines() if line.startswith(f"sitemapkit: {host}:")]
    assert len(notes) == 1
    assert "https did not connect" in notes[0]
    assert notes[0].endswith(f"using {plain_site.base}/")
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    assert {u.text for u in root.findall("sm:url/sm:loc", NS)} == {f"{plain_site.base}/", f"{plain_site.base}/shop/a"}


def test_discover_urls_and_audit_take_a_bare_host(plain_site: LocalServer, tmp_path: Path) -> None:
    host = _host(plain_site)
    res = run_cli(["discover", host, "--format", "json", *FAST])
    assert res.returncode == 0, res.stderr
    assert f"using {plain_site.base}/" in res.stderr
    assert json.loads(res.stdout)["summary"]["urls"] == 2

    res = run_cli(["urls", f"{host}/sitemap.xml", *FAST])
    assert res.returncode == 0, res.stderr
    assert f"using {plain_site.base}/sitemap.xml" in res.stderr
    assert res.stdout.split() == [f"{plain_site.base}/", f"{plain_site.base}/shop/a"]

    res = run_cli(["audit", host, "--no-crawl", "--format", "json", *FAST])
    assert f"using {plain_site.base}/" in res.stderr
    assert json.loads(res.stdout)["site"].startswith(plain_site.base)


def test_a_file_of_that_name_wins(tmp_path: Path) -> None:
    (tmp_path / "example.com").write_text("https://example.com/a\n")
    res = run_cli(["urls", "example.com"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["https://example.com/a"]
    assert "using" not in res.stderr


def test_a_missing_file_is_still_a_usage_error_where_hosts_are_not_taken(tmp_path: Path) -> None:
    res = run_cli(["validate", "sitemap.xm"], cwd=tmp_path)  # looks like a host, but validate reads files
    assert res.returncode == 2
    assert "no such file" in res.stderr
