"""The crawl job (``sitemapkit.crawl_site(url, out_dir)``) and what a new user meets with ``sitemapkit crawl``:
staging crawls published under --base-url, an unreachable start URL named as such, the state file kept out of the
published folder. End to end through the real CLI against servers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from lxml import etree

import sitemapkit
from sitemapkit.crawl import CrawlOptions, StartUrlError, UrlMapping
from tests.support.cli import CliResult, run_cli
from tests.support.server import LocalServer

pytestmark = pytest.mark.e2e

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml",
      "image": "http://www.google.com/schemas/sitemap-image/1.1"}
FAST = ["--retries", "0", "--stall-timeout", "5", "--concurrency", "4"]


def run_crawl(url: str, out: Path, *args: str, env: dict[str, str] | None = None) -> CliResult:
    return run_cli(["crawl", url, "--out", str(out), *FAST, *args], env=env)


def urls(out: Path) -> list[etree._Element]:
    return etree.parse(str(out / "sitemap.xml")).getroot().findall("sm:url", NS)


def closed_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def bilingual_site(server: LocalServer) -> None:
    server.route("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
    head = ('<link rel="alternate" hreflang="en" href="/en/"><link rel="alternate" hreflang="fr" href="/fr/">'
            '<link rel="alternate" hreflang="de" href="https://de.example.net/">')
    for lang in ("en", "fr"):
        server.route(f"/{lang}/", f'<html><head>{head}</head><body><a href="/{lang}/menu">m</a>'
                                  f'<img src="/img/{lang}.png"></body></html>', content_type="text/html")
        server.route(f"/{lang}/menu", "<html><body>menu</body></html>", content_type="text/html")
        server.route(f"/img/{lang}.png", b"\x89PNG", content_type="image/png")  # --images checks them
    server.route("/", '<html><body><a href="/en/">en</a> <a href="/fr/">fr</a> <a href="/gone">x</a></body></html>',
                 content_type="text/html")


# --- item 2: staging crawls -----------------------------------------------------------------------------------


def test_staging_crawl_maps_urls_onto_the_base_url(server: LocalServer, tmp_path: Path) -> None:
    bilingual_site(server)
    out = tmp_path / "out"
    proc = run_crawl(server.url("/"), out, "--base-url", "https://cafe.example.org/", "--images")
    assert proc.returncode == 0, proc.stderr
    crawled = server.url("/")
    notice = [line for line in proc.stderr.splitlines() if "another origin" in line]
    assert notice == [f"--base-url is on another origin than the crawled site: URLs under {crawled} are written "
                      "under https://cafe.example.org/"]
    entries = urls(out)
    locs = {u.findtext("sm:loc", namespaces=NS) for u in entries}
    assert locs == {"https://cafe.example.org/", "https://cafe.example.org/en/", "https://cafe.example.org/fr/",
                    "https://cafe.example.org/en/menu", "https://cafe.example.org/fr/menu"}
    text = (out / "sitemap.xml").read_text()
    assert crawled not in text  # no staging URL anywhere: locs, hreflang hrefs, images
    en = next(u for u in entries if u.findtext("sm:loc", namespaces=NS) == "https://cafe.example.org/en/")
    assert {(a.get("hreflang"), a.get("href")) for a in en.findall("xhtml:link", NS)} == {
        ("en", "https://cafe.example.org/en/"), ("fr", "https://cafe.example.org/fr/")}
    assert en.findtext("image:image/image:loc", namespaces=NS) == "https://cafe.example.org/img/en.png"
    # The crawl report keeps the URLs as crawled.
    report = json.loads((out.with_name(out.name + "-report") / "crawl-report.json").read_text())
    assert report["start_url"] == crawled
    assert [b["url"] for b in report["broken"]] == [crawled + "gone"]


def test_staging_crawl_maps_the_crawled_path_onto_the_base_path(server: LocalServer, tmp_path: Path) -> None:
    server.route("/staging/", '<html><body><a href="/staging/a">a</a></body></html>', content_type="text/html")
    server.route("/staging/a", "<html><body>a</body></html>", content_type="text/html")
    out = tmp_path / "out"
    proc = run_crawl(server.url("/staging/"), out, "--scope", "prefix", "--base-url", "https://cafe.example.org/")
    assert proc.returncode == 0, proc.stderr
    assert {u.findtext("sm:loc", namespaces=NS) for u in urls(out)} == {
        "https://cafe.example.org/", "https://cafe.example.org/a"}


def test_base_url_on_the_crawled_origin_changes_nothing(server: LocalServer, tmp_path: Path) -> None:
    server.route("/", '<html><body><a href="/a">a</a></body></html>', content_type="text/html")
    server.route("/a", "<html><body>a</body></html>", content_type="text/html")
    out = tmp_path / "out"
    proc = run_crawl(server.url("/"), out, "--base-url", server.url("/"))
    assert proc.returncode == 0, proc.stderr
    assert "another origin" not in proc.stderr
    assert {u.findtext("sm:loc", namespaces=NS) for u in urls(out)} == {server.url("/"), server.url("/a")}


def test_url_mapping_rules() -> None:
    assert UrlMapping.between("http://127.0.0.1:8100/", "http://127.0.0.1:8100/maps/") is None
    assert UrlMapping.between("HTTPS://Example.org:443/", "https://example.org/") is None
    m = UrlMapping.between("http://127.0.0.1:8100/", "https://cafe.example.org")
    assert m is not None
    assert m("http://127.0.0.1:8100/a?b=1") == "https://cafe.example.org/a?b=1"
    assert m("http://127.0.0.1:81000/a") == "http://127.0.0.1:81000/a"  # another origin: untouched
    assert m("https://de.example.net/") == "https://de.example.net/"
    sub = UrlMapping.between("http://127.0.0.1:8100/staging/", "https://cafe.example.org/")
    assert sub is not None
    assert sub("http://127.0.0.1:8100/staging/x/y") == "https://cafe.example.org/x/y"
    assert sub("http://127.0.0.1:8100/elsewhere") == "http://127.0.0.1:8100/elsewhere"  # not under the path


# --- item 3: a start URL that cannot be crawled -------------------------------------------------------------


def test_unreachable_start_url_names_the_cause(tmp_path: Path) -> None:
    port = closed_port()
    out = tmp_path / "out"
    proc = run_crawl(f"http://127.0.0.1:{port}/", out)
    assert proc.returncode == 1, proc.stderr
    assert f"cannot connect to 127.0.0.1:{port} (connection refused)" in proc.stderr
    assert "robots" not in proc.stderr
    assert "no URLs to write" not in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()  # no sitemap set, no reports, not even the folder


def test_tls_failure_at_the_start_url_is_named(server: LocalServer, tmp_path: Path) -> None:
    server.route("/", "<html><body>plain http</body></html>", content_type="text/html")
    port = urlsplit(server.url("/")).port
    out = tmp_path / "out"
    proc = run_crawl(f"https://127.0.0.1:{port}/", out)
    assert proc.returncode == 1, proc.stderr
    assert f"TLS handshake with 127.0.0.1:{port} failed" in proc.stderr
    assert not out.exists()


@pytest.mark.parametrize("status", [404, 503])
def test_start_url_answering_an_http_error_fails(server: LocalServer, tmp_path: Path, status: int) -> None:
    server.route("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
    server.route("/", "<html><body>gone</body></html>", status=status, content_type="text/html")
    out = tmp_path / "out"
    proc = run_crawl(server.url("/"), out)
    assert proc.returncode == 1, proc.stderr
    assert f"the start URL {server.url('/')} answered HTTP {status}" in proc.stderr
    assert not out.exists()


def test_start_url_redirecting_to_an_error_fails(server: LocalServer, tmp_path: Path) -> None:
    server.route("/", status=301, headers={"Location": "/home"})
    server.route("/home", "<html><body>gone</body></html>", status=404, content_type="text/html")
    proc = run_crawl(server.url("/"), tmp_path / "out")
    assert proc.returncode == 1, proc.stderr
    assert f"the start URL {server.url('/home')} answered HTTP 404" in proc.stderr


@pytest.mark.parametrize(("robots", "status", "detail"), [
    ("User-agent: *\nDisallow: /\n", 200, "disallowed by robots.txt"),
    ("busy", 503, "robots.txt answered HTTP 503"),
], ids=["disallowed", "robots-5xx"])
def test_start_url_ruled_out_by_robots_fails(server: LocalServer, tmp_path: Path, robots: str, status: int,
                                             detail: str) -> None:
    server.route("/robots.txt", robots, status=status, content_type="text/plain")
    server.route("/", "<html><body>home</body></html>", content_type="text/html")
    out = tmp_path / "out"
    proc = run_crawl(server.url("/"), out)
    assert proc.returncode == 1, proc.stderr
    assert f"robots.txt rules out the start URL {server.url('/')} ({detail}); --ignore-robots" in proc.stderr
    assert server.hits("/") == 0
    assert not out.exists()


def test_library_raises_start_url_error(tmp_path: Path) -> None:
    port = closed_port()
    with pytest.raises(StartUrlError, match=rf"cannot connect to 127\.0\.0\.1:{port} \(connection refused\)"):
        sitemapkit.crawl_site(f"http://127.0.0.1:{port}/", tmp_path / "out",
                              options=CrawlOptions(retries=0, connect_timeout=5), state_path=tmp_path / "s.sqlite")
    assert not (tmp_path / "out").exists()


# --- item 13: the state file lives in the user cache, not in the published folder ---------------------------


def test_default_state_is_per_site_in_the_user_cache(server: LocalServer, tmp_path: Path) -> None:
    server.route("/", '<html><body><a href="/a">a</a></body></html>', content_type="text/html")
    server.route("/a", "<html><body>a</body></html>", content_type="text/html")
    cache = tmp_path / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    out = tmp_path / "out"
    proc = run_crawl(server.url("/"), out, "--max-pages", "1", env=env)
    assert proc.returncode == 0, proc.stderr
    port = urlsplit(server.url("/")).port
    state = cache / "sitemapkit" / "crawl" / f"http_127.0.0.1_{port}" / "state.sqlite"
    assert state.is_file()
    assert not [p.name for p in out.iterdir() if p.suffix in (".sqlite", ".lock")]  # nothing of it is published
    assert f"State: {state}" in proc.stderr  # the resume hint shows where the state is
    resumed = run_crawl(server.url("/"), out, "--resume", env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert {u.findtext("sm:loc", namespaces=NS) for u in urls(out)} == {server.url("/"), server.url("/a")}
    assert server.hits("/") == 1  # the resume continued the crawl in the cache's state file


def test_explicit_state_still_wins(server: LocalServer, tmp_path: Path) -> None:
    server.route("/", "<html><body>home</body></html>", content_type="text/html")
    cache = tmp_path / "cache"
    state = tmp_path / "mine.sqlite"
    proc = run_crawl(server.url("/"), tmp_path / "out", "--state", str(state),
                     env={**os.environ, "XDG_CACHE_HOME": str(cache)})
    assert proc.returncode == 0, proc.stderr
    assert state.is_file()
    assert not cache.exists()


def test_library_crawl_returns_a_summary(server: LocalServer, tmp_path: Path) -> None:
    server.route("/", '<html><body><a href="/a">a</a><a href="/gone">g</a></body></html>', content_type="text/html")
    server.route("/a", "<html><body>a</body></html>", content_type="text/html")
    result = sitemapkit.crawl_site(server.url("/"), tmp_path / "out", options=CrawlOptions(retries=0),
                                   writer_options={"gzip": True})
    assert result.complete
    assert not result.stopped
    assert (result.report.in_sitemap, result.report.broken) == (2, 1)
    assert result.manifest is not None
    assert result.manifest.entry_point == tmp_path / "out" / "sitemap.xml.gz"
    assert result.base_url == server.url("/")
    assert result.mapping is None
    assert result.state_path.is_relative_to(Path(os.environ["XDG_CACHE_HOME"]))


def test_dns_failure_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unit test (no resolver is asked): a name that does not resolve is reported as a DNS failure."""
    import asyncio

    from sitemapkit.crawl._reach import describe_network_failure

    async def no_such_name(*_args: object, **_kw: object) -> list[object]:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    async def probe() -> str:
        monkeypatch.setattr(asyncio.get_running_loop(), "getaddrinfo", no_such_name)
        return await describe_network_failure("https://cafe.invalid/", "cannot connect: ...")

    assert asyncio.run(probe()) == "cannot resolve cafe.invalid (DNS: Name or service not known)"
