"""`sitemapkit crawl` end to end: the real CLI in a subprocess against a generated site on 127.0.0.1.

The expected sitemap, broken links and alternates come from the site generator's own knowledge
(tests/support/testsite.py), never from the crawler.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from lxml import etree

import sitemapkit.cli._crawl as cli_crawl
from sitemapkit.crawl import crawl_site
from tests.support.cli import run_cli
from tests.support.server import LocalServer, Response
from tests.support.signals import sigint_default
from tests.support.testsite import LAST_MODIFIED_W3C, GeneratedSite

pytestmark = pytest.mark.e2e

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9", "xhtml": "http://www.w3.org/1999/xhtml",
      "image": "http://www.google.com/schemas/sitemap-image/1.1"}
# One retry (a loaded machine can stall a page), a short timeout: the slow page (6 s) always times out.
FAST = ["--retries", "1", "--stall-timeout", "2", "--max-query-variants", "20", "--concurrency", "8"]


def run_crawl(url: str, out: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", "crawl", url, "--out", str(out), *FAST, *args],
                          capture_output=True, text=True, timeout=timeout)


def start_crawl(url: str, out: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "sitemapkit", "crawl", url, "--out", str(out), *FAST, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=sigint_default)


@dataclass
class Result:
    locs: dict[str, str | None]  # loc -> lastmod
    alternates: dict[str, set[tuple[str, str]]]
    images: dict[str, list[str]]
    report: dict[str, object]

    @property
    def broken(self) -> dict[str, set[str]]:
        return {b["url"]: set(b["referrers"]) for b in self.report["broken"]}  # type: ignore[attr-defined,index]

    @property
    def excluded(self) -> dict[str, str]:
        return {e["url"]: e["reason"] for e in self.report["excluded"]}  # type: ignore[attr-defined,index]

    @property
    def stable_excluded(self) -> dict[str, str]:
        """Excluded URLs but the calendar's: which 20 of its endless variants get crawled before the trap limit
        depends on the order concurrent fetches finish in; that the limit holds is asserted separately."""
        return {u: r for u, r in self.excluded.items() if "/calendar?" not in u}

    @property
    def calendar_fetched(self) -> int:
        return sum(1 for u, r in self.excluded.items() if "/calendar?" in u and r == "noindex")


def read_result(out: Path) -> Result:
    locs: dict[str, str | None] = {}
    alternates: dict[str, set[tuple[str, str]]] = {}
    images: dict[str, list[str]] = {}
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    files = [out / "sitemap.xml"]
    if root.tag == f"{{{NS['sm']}}}sitemapindex":
        files = [out / Path(loc).name for loc in root.xpath("sm:sitemap/sm:loc/text()", namespaces=NS)]
    for f in files:
        for url in etree.parse(str(f)).getroot().findall("sm:url", NS):
            loc = url.findtext("sm:loc", namespaces=NS)
            assert loc is not None
            locs[loc] = url.findtext("sm:lastmod", namespaces=NS)
            alts = {(a.get("hreflang"), a.get("href")) for a in url.findall("xhtml:link", NS)}
            if alts:
                alternates[loc] = alts  # type: ignore[assignment]
            imgs = [i.findtext("image:loc", namespaces=NS) for i in url.findall("image:image", NS)]
            if imgs:
                images[loc] = imgs  # type: ignore[assignment]
    report = json.loads((out.with_name(out.name + "-report") / "crawl-report.json").read_text())
    return Result(locs, alternates, images, report)


@pytest.fixture(scope="module")
def site() -> Iterator[tuple[LocalServer, GeneratedSite]]:
    with LocalServer() as srv:
        gen = GeneratedSite()
        gen.install(srv)
        yield srv, gen


@pytest.fixture(scope="module")
def reference(site: tuple[LocalServer, GeneratedSite], tmp_path_factory: pytest.TempPathFactory) -> Result:
    srv, _ = site
    out = tmp_path_factory.mktemp("reference")
    proc = run_crawl(srv.url("/"), out, "--images", "--format", "xml", "--format", "html")
    assert proc.returncode == 0, proc.stderr
    assert "in the sitemap" in proc.stdout
    return read_result(out)


def test_sitemap_holds_exactly_the_indexable_pages(site: tuple[LocalServer, GeneratedSite],
                                                    reference: Result) -> None:
    _, gen = site
    expected = gen.expected_sitemap()
    assert set(reference.locs) == expected
    assert reference.report["in_sitemap"] == len(expected)


def test_broken_links_with_their_referrers(site: tuple[LocalServer, GeneratedSite], reference: Result) -> None:
    _, gen = site
    assert reference.broken == gen.expected_broken()
    by_url = {b["url"]: b for b in reference.report["broken"]}  # type: ignore[attr-defined]
    b = gen.base
    assert by_url[b + "/error/500"]["status"] == 500
    assert by_url[b + "/files/missing.pdf"]["status"] == 404
    assert "redirect loop" in by_url[b + "/loop/a"]["error"]
    assert by_url[b + "/broken/slow"]["status"] is None
    assert by_url[b + "/broken/slow"]["error"]
    assert by_url[b + "/broken/reset"]["error"]
    assert by_url[b + "/missing/shared.html"]["referrer_count"] == gen.pages


def test_exclusion_reasons(site: tuple[LocalServer, GeneratedSite], reference: Result) -> None:
    _, gen = site
    b = gen.base
    ex = reference.excluded
    assert ex[b + "/s0/page-7.html"] == "noindex"  # meta robots
    assert ex[b + "/s0/page-8.html"] == "noindex"  # X-Robots-Tag header
    assert ex[b + "/s0/page-9.html"] == "noindex"  # meta googlebot
    assert ex[b + "/s0/page-10.html"] == "canonical"
    assert ex[b + "/private/"] == "robots"
    assert ex[b + "/private/secret.html"] == "robots"
    assert ex[b + "/files/report.pdf"] == "non-HTML"
    assert ex[b + "/img/logo"] == "non-HTML"
    assert ex["http://external.invalid/partner"] == "scope"
    assert ex[b + "/old/1"] == "redirect"
    assert ex[b + "/error/500"] == "error"
    assert "trap" in ex.values()
    # The calendar is endless: the crawl stopped at the query-variant limit (20) of /calendar.
    calendar = [u for u in ex if "/calendar?" in u]
    fetched_calendar = [u for u in calendar if ex[u] == "noindex"]
    assert 0 < len(fetched_calendar) <= 20
    assert reference.report["complete"] is True
    # Nothing in the robots-disallowed area was requested.
    srv, _ = site
    assert srv.hits("/private/secret.html") == 0


def test_redirect_chains_are_reported(site: tuple[LocalServer, GeneratedSite], reference: Result) -> None:
    _, gen = site
    b = gen.base
    chains = {r["url"]: r for r in reference.report["redirects"]}  # type: ignore[attr-defined]
    old = chains[b + "/old/1"]
    assert [(h["url"], h["status"]) for h in old["chain"]] == [(b + "/old/1", 301), (b + "/older/1", 302)]
    assert old["final_url"] == b + "/s0/page-1.html"
    assert old["final_status"] == 200
    assert chains[b + "/moved"]["final_url"] == b + "/moved-target.html"


def test_lastmod_alternates_and_images(site: tuple[LocalServer, GeneratedSite], reference: Result) -> None:
    _, gen = site
    lm_pages = gen.last_modified_pages()
    for loc, lastmod in reference.locs.items():  # first sight: Last-Modified, else nothing dates the page
        assert lastmod == (LAST_MODIFIED_W3C if loc in lm_pages else None), loc
    expected_alts = gen.expected_alternates()
    assert reference.alternates == expected_alts
    b = gen.base
    assert reference.images[b + "/s0/page-1.html"] == [b + "/img/s0.png", b + "/img/s0-2x.png", b + "/img/x.png"]


def test_report_html_is_self_contained(site: tuple[LocalServer, GeneratedSite], reference: Result,
                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    out = Path(reference.report["sitemap"]["out_dir"])  # type: ignore[index]
    page = (out.with_name(out.name + "-report") / "report.html").read_text()
    assert "<svg" in page
    assert "<style>" in page
    # Scripts: the tables' rows as JSON data, and the one inline table script (its hash is what a server allows).
    import base64
    import hashlib
    import re

    from sitemapkit.crawl import report_script_hashes

    scripts = re.findall(r"<script([^>]*)>(.*?)</script>", page, re.S)
    code = [body for attrs, body in scripts if 'type="application/json"' not in attrs]
    assert len(code) == 1
    assert base64.b64encode(hashlib.sha256(code[0].encode()).digest()).decode() in report_script_hashes()
    assert "stylesheet" not in page
    assert "@import" not in page
    assert 'src="' not in page  # no external images or scripts
    _, gen = site
    assert gen.base + "/missing/shared.html" in page  # a broken link with its referrers
    assert (out / "sitemap.html").exists()


def test_stop_after_n_pages_then_resume_gives_the_same_result(site: tuple[LocalServer, GeneratedSite],
                                                              reference: Result, tmp_path: Path) -> None:
    srv, _ = site
    out = tmp_path / "out"
    first = run_crawl(srv.url("/"), out, "--images", "--max-pages", "600")
    assert first.returncode == 0, first.stderr
    assert "--resume" in first.stderr
    partial = json.loads((out.with_name(out.name + "-report") / "crawl-report.json").read_text())
    assert partial["complete"] is False
    assert partial["pages_crawled"] <= 600
    hits_before = len(srv.requests)
    second = run_crawl(srv.url("/"), out, "--images", "--resume")
    assert second.returncode == 0, second.stderr
    resumed = read_result(out)
    assert resumed.report["complete"] is True
    assert set(resumed.locs) == set(reference.locs)
    assert resumed.broken == reference.broken
    assert resumed.stable_excluded == reference.stable_excluded
    assert resumed.calendar_fetched == reference.calendar_fetched
    assert resumed.alternates == reference.alternates
    # The resumed run did not fetch again what the first one had: total fetches stay near one crawl's.
    refetched = len(srv.requests) - hits_before
    assert refetched < reference.report["pages_crawled"] - 500  # type: ignore[operator]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill-9"])
def test_interrupted_crawl_resumes_to_the_same_result(site: tuple[LocalServer, GeneratedSite], reference: Result,
                                                      tmp_path: Path, sig: signal.Signals) -> None:
    srv, _ = site
    out = tmp_path / "out"
    start = len(srv.requests)
    proc = start_crawl(srv.url("/"), out, "--images", "--concurrency", "2")
    deadline = time.monotonic() + 60
    # Early (150 of some 700 requests): under load this loop can be descheduled while the crawl goes on.
    while len(srv.requests) - start < 150 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None, "the crawl ended before it could be interrupted"
    os.kill(proc.pid, sig)
    _, stderr = proc.communicate(timeout=60)
    if sig == signal.SIGINT:
        assert proc.returncode == 130, stderr
        assert "--resume" in stderr
        assert not (out / "sitemap.xml").exists()  # nothing published for an unfinished crawl
    second = run_crawl(srv.url("/"), out, "--images", "--resume")
    assert second.returncode == 0, second.stderr
    resumed = read_result(out)
    assert set(resumed.locs) == set(reference.locs)
    assert resumed.broken == reference.broken
    assert resumed.stable_excluded == reference.stable_excluded


def test_unchanged_pages_keep_their_lastmod_across_crawls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI in process on a clock ten seconds back for the first crawl: crawl times have one-second precision,
    # and the second crawl is later without sleeping.
    shift = [timedelta(seconds=-10)]
    monkeypatch.setattr(cli_crawl, "crawl_site",
                        functools.partial(crawl_site, now=lambda: datetime.now(UTC) + shift[0]))
    with LocalServer() as srv:
        gen = GeneratedSite(sections=2, pages=20)
        gen.install(srv)
        out = tmp_path / "out"
        assert run_cli(["crawl", srv.url("/"), "--out", str(out), *FAST]).returncode == 0
        first = read_result(out)
        shift[0] = timedelta(0)
        changed = gen.page_path(1, 3)
        srv.route(changed, "<html><body><p>New text</p><a href='page-4.html'>n</a></body></html>",
                  content_type="text/html")
        second_proc = run_cli(["crawl", srv.url("/"), "--out", str(out), *FAST])
        assert second_proc.returncode == 0, second_proc.stderr
        second = read_result(out)
    t1, t2 = first.report["crawl_time"], second.report["crawl_time"]
    assert t1 != t2
    assert set(first.locs) == set(second.locs)
    lm_pages = gen.last_modified_pages()
    for loc, lastmod in second.locs.items():
        if loc in lm_pages:
            assert lastmod == LAST_MODIFIED_W3C
        elif loc == gen.base + changed:
            assert lastmod == t2  # changed since the first crawl: seen by the second
        else:
            assert first.locs[loc] is None, loc  # undated at first sight
            assert lastmod is None, loc  # and unchanged since


def test_crawl_delay_from_robots_is_obeyed(server: LocalServer, tmp_path: Path) -> None:
    server.route("/robots.txt", "User-agent: *\nCrawl-delay: 0.3\n", content_type="text/plain")
    server.route("/", '<a href="/a">a</a><a href="/b">b</a><a href="/c">c</a>', content_type="text/html")
    for p in ("/a", "/b", "/c"):
        server.route(p, f"<html><body>{p}</body></html>", content_type="text/html")
    proc = run_crawl(server.url("/"), tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    times = sorted(r.time for r in server.requests if r.path != "/robots.txt")
    assert len(times) == 4
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert min(gaps) >= 0.25, gaps


def test_start_url_redirect_moves_the_scope_and_include_exclude(server: LocalServer, tmp_path: Path) -> None:
    server.route("/", status=301, headers={"Location": "/en/"})
    server.route("/en/", '<a href="/en/a">a</a> <a href="/en/skip-me">s</a> <a href="/other">o</a>',
                 content_type="text/html")
    for p in ("/en/a", "/en/skip-me", "/other"):
        server.route(p, "<html><body>x</body></html>", content_type="text/html")
    proc = run_crawl(server.url("/"), tmp_path / "out", "--exclude", "skip-me", "--fail-on-broken")
    assert proc.returncode == 0, proc.stderr
    res = read_result(tmp_path / "out")
    assert set(res.locs) == {server.url("/en/"), server.url("/en/a"), server.url("/other")}
    assert res.excluded[server.url("/en/skip-me")] == "scope"
    assert server.hits("/en/skip-me") == 0


def test_broken_links_fail_with_flag_and_bad_usage(server: LocalServer, tmp_path: Path) -> None:
    server.route("/", '<a href="/gone">gone</a>', content_type="text/html")
    proc = run_crawl(server.url("/"), tmp_path / "out", "--fail-on-broken")
    assert proc.returncode == 1
    assert "1 broken" in proc.stdout
    bad = run_crawl("ftp://example.org/", tmp_path / "out2")
    assert bad.returncode == 2
    assert "Traceback" not in bad.stderr
    missing = run_crawl(server.url("/"), tmp_path / "out3", "--resume", "--state", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 1
    assert "no crawl state" in missing.stderr


def test_non_html_checked_without_download(server: LocalServer, tmp_path: Path) -> None:
    big = b"%PDF" + b"x" * 2_000_000
    server.route("/", '<a href="/big.pdf">pdf</a> <a href="/nohead.zip">zip</a>', content_type="text/html")
    server.route("/big.pdf", big, content_type="application/pdf")
    server.route("/nohead.zip", handler=lambda req: Response(405) if req.method == "HEAD"
                 else Response(200, b"PK" + b"z" * 500_000, {"Content-Type": "application/zip"}))
    proc = run_crawl(server.url("/"), tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    methods = {(r.method, r.path) for r in server.requests}
    assert ("HEAD", "/big.pdf") in methods
    assert ("GET", "/big.pdf") not in methods
    assert ("GET", "/nohead.zip") in methods  # HEAD refused: a small GET instead
    res = read_result(tmp_path / "out")
    assert res.excluded[server.url("/big.pdf")] == "non-HTML"
    assert res.excluded[server.url("/nohead.zip")] == "non-HTML"
    assert not res.broken


def test_non_html_fallback_get_reports_the_real_status(server: LocalServer, tmp_path: Path) -> None:
    """HEAD refused and the fallback GET's body over the check budget: the status still decides (a 404 here)."""
    server.route("/", '<a href="/gone.zip">zip</a>', content_type="text/html")
    server.route("/gone.zip", handler=lambda req: Response(405) if req.method == "HEAD"
                 else Response(404, b"<html>" + b"n" * 300_000, {"Content-Type": "text/html"}))
    proc = run_crawl(server.url("/"), tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    res = read_result(tmp_path / "out")
    assert server.url("/gone.zip") in res.broken


def test_retry_after_is_honoured(server: LocalServer, tmp_path: Path) -> None:
    calls: list[float] = []

    def flaky(_req: object) -> Response:
        calls.append(time.monotonic())
        if len(calls) == 1:
            return Response(503, b"busy", {"Retry-After": "1", "Content-Type": "text/plain"})
        return Response(200, b"<html><body>ok</body></html>", {"Content-Type": "text/html"})

    server.route("/", '<a href="/flaky">f</a>', content_type="text/html")
    server.route("/flaky", handler=flaky)  # type: ignore[arg-type]
    proc = run_crawl(server.url("/"), tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert len(calls) == 2
    assert calls[1] - calls[0] >= 0.95
    assert server.url("/flaky") in read_result(tmp_path / "out").locs
