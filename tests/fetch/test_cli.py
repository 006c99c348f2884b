"""`sitemapkit discover` end to end (subprocess against a local server) and open_sources."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit import Problem, SitemapRef, UrlEntry
from sitemapkit.fetch import Discovery, DocumentDone, FetchSettings, open_sources
from tests.support.server import LocalServer, Request, Response
from tests.support.sites import HTML_ERROR, Site, index_xml, urlset_xml

pytestmark = pytest.mark.e2e

FAST = ["--deadline", "5", "--retries", "1", "--retry-backoff", "0.01", "--max-retry-wait", "0.05"]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], capture_output=True, text=True, timeout=60,
                          check=False)


def build_site(server: LocalServer) -> None:
    site = Site(server)
    site.robots("User-agent: *\nsite-map: /index.xml\n")
    site.xml("/index.xml", index_xml([server.url("/a.xml.gz"), server.url("/broken.xml"), server.url("/gone.xml")]))
    site.gz("/a.xml.gz", urlset_xml([server.url(f"/p{i}") for i in range(7)]), content_type="text/html")
    site.xml("/broken.xml", HTML_ERROR, content_type="text/html")
    server.route("/gone.xml", handler=lambda r: Response(404, b"no"))


def test_discover_text(server: LocalServer) -> None:
    build_site(server)
    proc = run_cli("discover", server.url("/"), *FAST)
    assert proc.returncode == 1, proc.stderr  # errors on two children
    out = proc.stdout
    assert f"robots.txt: {server.url('/robots.txt')} 200, 1 sitemap listed" in out
    assert "warning SM521" in out  # site-map spelling
    index_line = next(line for line in out.splitlines() if line.startswith(server.url("/index.xml")))
    assert "[index] 200" in index_line
    assert "3 sitemaps" in index_line
    assert "via robots.txt" in index_line
    a_line = next(line for line in out.splitlines() if server.url("/a.xml.gz") in line)
    assert "[urlset] 200" in a_line
    assert "7 URLs" in a_line
    assert "via index" in a_line
    assert "error SM505" in out
    assert "error SM502: HTTP status 404" in out
    assert "3 sitemaps" in out.splitlines()[-1] or "4 sitemaps" in out.splitlines()[-1]
    assert "7 URLs" in out.splitlines()[-1]
    assert "Traceback" not in proc.stderr  # progress (tests/cli/test_progress.py) is a line every ~10 s here


def test_discover_json(server: LocalServer) -> None:
    build_site(server)
    proc = run_cli("discover", server.url("/"), "--format", "json", "--quiet", *FAST)
    assert proc.returncode == 1
    assert proc.stderr == ""
    data = json.loads(proc.stdout)
    assert data["discovery"]["robots"]["sitemaps"] == [server.url("/index.xml")]
    (root,) = data["sitemaps"]
    assert root["kind"] == "index"
    assert root["found_via"] == "robots.txt"
    kids = {k["url"]: k for k in root["sitemaps"]}
    assert kids[server.url("/a.xml.gz")]["entries"] == 7
    assert kids[server.url("/a.xml.gz")]["kind"] == "urlset"
    assert kids[server.url("/gone.xml")]["status"] == 404
    assert kids[server.url("/broken.xml")]["kind"] == "html"
    assert data["summary"] == {**data["summary"], "sitemaps": 4, "urls": 7}


def test_discover_clean_site_exits_0(server: LocalServer) -> None:
    site = Site(server)
    site.xml("/sitemap.xml", urlset_xml([server.url("/only")]))
    proc = run_cli("discover", server.url("/"), "--format", "json", *FAST)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    data = json.loads(proc.stdout)
    assert data["sitemaps"][0]["found_via"] == "well-known path"
    assert data["discovery"]["robots"]["status"] == 404


def test_discover_nothing_found_and_bad_url(server: LocalServer) -> None:
    proc = run_cli("discover", server.url("/"), *FAST)
    assert proc.returncode == 1
    assert "SM530" in proc.stdout
    proc = run_cli("discover", "not-a-url")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr


def test_discover_sitemap_url_with_budget(server: LocalServer) -> None:
    Site(server).xml("/big.xml", urlset_xml([server.url(f"/b{i}") for i in range(5000)]))
    proc = run_cli("discover", server.url("/big.xml"), "--max-bytes", "10000", *FAST)
    assert proc.returncode == 1
    assert "SM504" in proc.stdout
    assert "Traceback" not in proc.stderr


# --- open_sources ------------------------------------------------------------------------------------------


def test_open_sources_site_url(server: LocalServer) -> None:
    build_site(server)
    fast = FetchSettings(timeout=5.0, retries=1, backoff=0.01, retry_after_max=0.05)
    seen: list[object] = []
    events = list(open_sources([server.url("/")], settings=fast, on_item=seen.append))
    assert isinstance(events[0], Discovery)
    locs = [e.loc for e in events if isinstance(e, UrlEntry)]
    assert locs == [server.url(f"/p{i}") for i in range(7)]
    done = {e.source: e for e in events if isinstance(e, DocumentDone)}
    assert set(done) == {server.url(p) for p in ("/index.xml", "/a.xml.gz", "/broken.xml", "/gone.xml")}
    assert done[server.url("/a.xml.gz")].entries == 7
    assert done[server.url("/gone.xml")].node is not None
    assert done[server.url("/gone.xml")].node.status == 404
    codes = {e.code for e in events if isinstance(e, Problem)}
    assert {"SM521", "SM505", "SM502"} <= codes
    assert len(seen) == 5  # the discovery and four nodes


def test_open_sources_files_and_no_follow(server: LocalServer, tmp_path: Path) -> None:
    Site(server).xml("/index.xml", index_xml([server.url("/a.xml")]))
    Site(server).xml("/a.xml", urlset_xml([server.url("/x")]))
    path = tmp_path / "local.xml"
    path.write_bytes(urlset_xml(["https://ex.com/1", "https://ex.com/2"]))
    events = list(open_sources([str(path), server.url("/index.xml")], follow=False, keep_bytes=True))
    assert [e.loc for e in events if isinstance(e, UrlEntry)] == ["https://ex.com/1", "https://ex.com/2"]
    assert [e.loc for e in events if isinstance(e, SitemapRef)] == [server.url("/a.xml")]
    done = [e for e in events if isinstance(e, DocumentDone)]
    assert [d.source for d in done] == [str(path), server.url("/index.xml")]
    assert done[0].data == path.read_bytes()
    assert done[1].data == index_xml([server.url("/a.xml")])
    assert server.hits("/a.xml") == 0
    with pytest.raises(FileNotFoundError):
        list(open_sources([str(tmp_path / "missing.xml")]))


def test_open_sources_stops_early(server: LocalServer) -> None:
    Site(server).xml("/index.xml", index_xml([server.url(f"/s{i}.xml") for i in range(30)]))
    for i in range(30):
        Site(server).xml(f"/s{i}.xml", urlset_xml([server.url(f"/s{i}/{j}") for j in range(50)]))
    it = open_sources([server.url("/index.xml")], settings=FetchSettings(concurrency=1))
    first = [next(it) for _ in range(60)]  # 30 SitemapRefs of the index, its DocumentDone, then entries
    it.close()  # type: ignore[attr-defined]
    assert any(isinstance(e, UrlEntry) for e in first)
    assert server.hits("/s29.xml") == 0


def test_discover_with_cache_dir_sends_conditional_requests(server: LocalServer, tmp_path: Path) -> None:
    body = urlset_xml([server.url("/c1"), server.url("/c2")])

    def handler(req: Request) -> Response:
        if req.headers.get("if-none-match") == '"abc"':
            return Response(304, b"", {"ETag": '"abc"'})
        return Response(200, body, {"ETag": '"abc"', "Content-Type": "application/xml"})

    server.route("/sitemap.xml", handler=handler)
    cache = str(tmp_path / "cache")
    first = run_cli("discover", server.url("/sitemap.xml"), "--cache-dir", cache, "--format", "json", *FAST)
    second = run_cli("discover", server.url("/sitemap.xml"), "--cache-dir", cache, "--format", "json", *FAST)
    assert first.returncode == second.returncode == 0, second.stdout + second.stderr
    one, two = json.loads(first.stdout)["sitemaps"][0], json.loads(second.stdout)["sitemaps"][0]
    assert (one["from_cache"], two["from_cache"]) == (False, True)
    assert one["entries"] == two["entries"] == 2
    sent = [r.headers.get("if-none-match") for r in server.requests if r.path == "/sitemap.xml"]
    assert sent == [None, '"abc"']
