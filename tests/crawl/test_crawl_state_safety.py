"""The crawl state under stress, end to end through the real CLI against a site on 127.0.0.1: one crawl per state
file, kill -9 then ``--resume`` fetches again only the pages that were in flight, bad arguments create nothing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from lxml import etree

from tests.support.server import LocalServer, Request, Response

pytestmark = pytest.mark.e2e

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
CONCURRENCY = 4


def crawl_cmd(url: str, out: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "sitemapkit", "crawl", url, "--out", str(out), "--retries", "0",
            "--stall-timeout", "20", "--concurrency", str(CONCURRENCY), *args]


def run_crawl(url: str, out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(crawl_cmd(url, out, *args), capture_output=True, text=True, timeout=120)


def sitemap_locs(out: Path) -> set[str]:
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    return {str(loc) for loc in root.xpath("sm:url/sm:loc/text()", namespaces=NS)}


class GatedSite:
    """``/`` links to ``pages`` pages (each also links to its two neighbours). Once ``open_for`` page requests
    have been answered, the next page requests wait at the gate (each one holds a crawler worker) until
    :meth:`release` is called. Every request is counted per path by the server."""

    def __init__(self, server: LocalServer, pages: int) -> None:
        self.server = server
        self.pages = pages
        self.open_for: int | None = None
        self.served = 0
        self.waiting = 0
        self._gate = threading.Event()
        self._lock = threading.Lock()
        links = "".join(f'<a href="/p{i}">p{i}</a> ' for i in range(pages))
        server.route("/", f"<html><body>{links}</body></html>", content_type="text/html")
        server.route("/robots.txt", "User-agent: *\nAllow: /\n", content_type="text/plain")
        for i in range(pages):
            server.route(f"/p{i}", handler=self._page)

    def _page(self, req: Request) -> Response:
        i = int(req.path[2:])
        with self._lock:
            gated = self.open_for is not None and self.served >= self.open_for
            if gated:
                self.waiting += 1
            else:
                self.served += 1
        if gated:
            self._gate.wait(60)
        body = f'<html><body><h1>{i}</h1><a href="/p{(i + 1) % self.pages}">next</a> ' \
               f'<a href="/p{(i - 1) % self.pages}">prev</a></body></html>'
        return Response(200, body.encode(), {"Content-Type": "text/html"})

    def close_after(self, n: int) -> None:
        self._gate.clear()
        with self._lock:
            self.served, self.waiting, self.open_for = 0, 0, n

    def release(self) -> None:
        with self._lock:
            self.open_for = None
        self._gate.set()

    def wait_for_waiting(self, n: int, proc: subprocess.Popen[str], timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while self.waiting < n:
            assert proc.poll() is None, f"the crawl ended early: {proc.communicate()}"
            assert time.monotonic() < deadline, f"only {self.waiting} requests reached the gate"
            time.sleep(0.01)

    def kill_mid_crawl(self, cmd: list[str], *, open_for: int = 120,
                       before_kill: Callable[[subprocess.Popen[str]], None] | None = None) -> subprocess.Popen[str]:
        """Run the crawl ``cmd``, let ``open_for`` pages through, and kill -9 it once every worker waits on a
        request (exactly CONCURRENCY pages in flight); ``before_kill`` sees the process first. Returns the killed
        process; the gate is open again afterwards."""
        self.close_after(open_for)
        crawl = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.wait_for_waiting(CONCURRENCY, crawl)
            if before_kill is not None:
                before_kill(crawl)
            os.kill(crawl.pid, signal.SIGKILL)
            crawl.communicate(timeout=30)
        finally:
            if crawl.poll() is None:
                crawl.kill()
            self.release()
        return crawl


def test_kill_9_then_resume_fetches_again_only_the_pages_in_flight(server: LocalServer, tmp_path: Path) -> None:
    site = GatedSite(server, pages=300)
    clean = tmp_path / "clean"
    proc = run_crawl(server.url("/"), clean)
    assert proc.returncode == 0, proc.stderr
    expected = sitemap_locs(clean)
    assert len(expected) == 301

    first_request = len(server.requests)
    out = tmp_path / "out"
    # killed while every worker waits on a request: mid-way, with exactly CONCURRENCY pages in flight
    crawl = site.kill_mid_crawl(crawl_cmd(server.url("/"), out))
    assert crawl.returncode == -signal.SIGKILL
    resumed = run_crawl(server.url("/"), out, "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr

    hits = Counter(r.path for r in server.requests[first_request:] if r.path != "/robots.txt")
    assert set(hits) == {"/", *(f"/p{i}" for i in range(300))}  # the resume finished the crawl...
    twice = sorted(p for p, n in hits.items() if n > 1)
    assert len(twice) <= CONCURRENCY, twice  # ...fetching again only what was in flight at the kill
    assert sitemap_locs(out) == expected


@pytest.mark.parametrize("explicit", [True, False], ids=["--state", "default-state"])
def test_second_crawl_with_the_same_state_file_is_refused(server: LocalServer, tmp_path: Path,
                                                          explicit: bool) -> None:
    site = GatedSite(server, pages=20)
    out = tmp_path / "out"
    port = urlsplit(server.url("/")).port
    default = Path(os.environ["XDG_CACHE_HOME"]) / "sitemapkit" / "crawl" / f"http_127.0.0.1_{port}" / "state.sqlite"
    state = tmp_path / "state.sqlite" if explicit else default
    extra = ["--state", str(state)] if explicit else []
    site.close_after(5)
    first = subprocess.Popen(crawl_cmd(server.url("/"), out, *extra), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        site.wait_for_waiting(1, first)  # the first crawl is running, with its state file open
        second = run_crawl(server.url("/"), tmp_path / "out2" if explicit else out, *extra)
    finally:
        site.release()
    stdout, stderr = first.communicate(timeout=60)
    assert second.returncode == 1, second.stderr
    assert "Traceback" not in second.stderr
    assert f"state file {state} is in use by process {first.pid}" in second.stderr
    # The first crawl finished normally with every page (the refused one did not reset its state).
    assert first.returncode == 0, stderr
    assert "Crawled 21 URLs" in stdout
    assert sitemap_locs(out) == {server.url("/"), *(server.url(f"/p{i}") for i in range(20))}
    assert not state.with_name(state.name + ".lock").exists()  # released (and removed) at the end


@pytest.mark.parametrize(("args", "message"), [
    (["http://[::1/"], "not a crawlable http(s) URL: 'http://[::1/'"),
    (["ftp://example.org/"], "not a crawlable http(s) URL"),
    (["http://127.0.0.1:9/", "--base-url", "https://example.org/?a=1"], "base URL must not have a query"),
    (["http://127.0.0.1:9/", "--base-url", "example.org"], "base URL must be an absolute http(s) URL"),
    (["http://127.0.0.1:9/", "--state", "{tmp}/missing/state.sqlite"], "--state: the directory"),
    (["http://127.0.0.1:9/", "--resume"], "--resume: no crawl state at"),
], ids=["bad-ipv6", "ftp", "base-url-query", "base-url-relative", "state-dir", "resume-without-state"])
def test_bad_arguments_create_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    out = work / "X"
    argv = [a.replace("{tmp}", str(work)) for a in args]
    proc = subprocess.run([sys.executable, "-m", "sitemapkit", "crawl", *argv, "--out", str(out)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == (1 if "--resume" in args else 2), proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert list(work.iterdir()) == []
