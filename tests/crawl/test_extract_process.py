"""Reading pages in a second process (``crawl/_extract.py``): the child gives exactly what in-process reading
gives, a crawl with it and without it writes the same sitemap and report, and the child never outlives the
crawl (closed, killed on error, gone after kill -9 of the crawl)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sitemapkit.crawl._extract as extract
from sitemapkit.crawl._extract import ExtractorProcess, PageLinks, read_page
from sitemapkit.crawl._normalize import DEFAULT_STRIP_PARAMS, UrlNormalizer
from tests.crawl.test_crawl_state_safety import CONCURRENCY, GatedSite, crawl_cmd, run_crawl, sitemap_locs
from tests.support.cli import run_cli
from tests.support.server import LocalServer, Request, Response
from tests.support.signals import sigint_default

BASE = "http://127.0.0.1:8000/dir/page.html"

TRICKY: list[bytes] = [
    b"",
    b"not html at all \xff\xfe",
    b'<a href="a.html">a</a><a href="a.html#x">again</a><a href=" ./b.html ">b</a><a href="../up/">up</a>'
    b'<a href="?q=1&amp;utm_source=x">query</a><a href="//other.example/x">other</a><a href="javascript:go()">js</a>'
    b'<a href="mailto:x@example.org">m</a><a href="#top">top</a><a href="">empty</a><a href="a\\b\tc.html">bs</a>'
    b'<a href="HTTP://127.0.0.1:8000/dir/;jsessionid=1">upper</a><area href="/map.html">',
    b'<html><head><base href="/docs/v2/"><link rel=canonical href="intro.html">'
    b'<link rel="alternate" hreflang="de" href="/de/intro.html"><link rel=alternate hreflang=" " href="x">'
    b'<link rel="alternate" hreflang="fr" href="mailto:no"><title>  Docs\n  v2 </title>'
    b'<meta name="robots" content="noindex, follow"></head><body><a href="next.html">n</a>'
    b'<img src="i.png" srcset="i-2x.png 2x, i-3x.png 3x"><img data-src="lazy.webp">'
    b'<picture><source srcset="a.avif 1x,b.avif 2x"></picture><img src="data:image/png;base64,AAAA"></body></html>',
    b'<meta name="googlebot" content="nofollow"><a href="/only-if-followed">x</a>',
    "<title>Ünïcödé</title><a href='/pfad/straße?ä=ö'>u</a><p>Text — with ünïcode</p>".encode(),
    b"<a href=/s1/p1.html>1</a>" * 50 + b"<main><p>" + b"word " * 2000 + b"</p></main>",
]


def test_read_page_resolves_what_the_page_links_to() -> None:
    page = read_page(TRICKY[3], BASE, UrlNormalizer(), True)
    assert page.noindex
    assert not page.nofollow
    assert page.canonical == "http://127.0.0.1:8000/docs/v2/intro.html"  # against the <base href>
    # a blank hreflang and a mailto: alternate are dropped
    assert page.alternates == [("de", "http://127.0.0.1:8000/de/intro.html")]
    assert page.links == ["http://127.0.0.1:8000/docs/v2/next.html"]
    assert page.images[:3] == ["http://127.0.0.1:8000/docs/v2/i.png", "http://127.0.0.1:8000/docs/v2/i-2x.png",
                               "http://127.0.0.1:8000/docs/v2/i-3x.png"]
    assert page.title == "Docs v2"
    links = read_page(TRICKY[2], BASE, UrlNormalizer(), False).links
    assert links[:2] == ["http://127.0.0.1:8000/dir/a.html", "http://127.0.0.1:8000/dir/b.html"]  # each once
    assert not any(link.startswith(("javascript", "mailto")) for link in links)


async def _in_child(pages: list[bytes], images: bool) -> tuple[list[PageLinks], ExtractorProcess]:
    child = ExtractorProcess(DEFAULT_STRIP_PARAMS, images)
    child.start()
    try:
        assert await child.wait_ready()
        results = await asyncio.gather(*(child.read(body, BASE) for body in pages))  # one batch
        assert child.answered == len(pages)  # by the child, not by the in-process fallback
        return list(results), child
    finally:
        await child.aclose()


@pytest.mark.parametrize("images", [True, False])
def test_the_child_reads_pages_exactly_as_in_process(images: bool) -> None:
    results, child = asyncio.run(_in_child(TRICKY, images))
    assert results == [read_page(body, BASE, UrlNormalizer(), images) for body in TRICKY]
    assert child.pid is not None
    with pytest.raises(ProcessLookupError):  # closed and reaped: no zombie left
        os.kill(child.pid, 0)


def test_pages_in_flight_when_the_child_dies_are_read_in_process() -> None:
    async def main() -> tuple[list[PageLinks], list[PageLinks], bool]:
        child = ExtractorProcess(DEFAULT_STRIP_PARAMS, False)
        child.start()
        try:
            assert await child.wait_ready()
            assert child.pid is not None
            os.kill(child.pid, signal.SIGKILL)
            waiting = await asyncio.gather(*(child.read(body, BASE) for body in TRICKY))
            after = [await child.read(body, BASE) for body in TRICKY]  # the crawl goes on without it
            return list(waiting), after, child.failed
        finally:
            await child.aclose()

    waiting, after, failed = asyncio.run(main())
    expected = [read_page(body, BASE, UrlNormalizer(), False) for body in TRICKY]
    assert failed
    assert waiting == expected
    assert after == expected


@pytest.mark.parametrize("boot", ["import sys; sys.exit(3)", "import sys; sys.stdout.write('garbage!')"])
def test_a_child_that_cannot_start_leaves_the_reading_in_process(monkeypatch: pytest.MonkeyPatch, boot: str) -> None:
    monkeypatch.setattr(extract, "_BOOT", boot)

    async def main() -> tuple[bool, list[PageLinks], ExtractorProcess]:
        child = ExtractorProcess(DEFAULT_STRIP_PARAMS, True)
        child.start()
        try:
            ready = await child.wait_ready()
            return ready, [await child.read(body, BASE) for body in TRICKY], child
        finally:
            await child.aclose()

    ready, results, child = asyncio.run(main())
    assert not ready
    assert child.failed
    assert child.answered == 0
    assert results == [read_page(body, BASE, UrlNormalizer(), True) for body in TRICKY]


def _tricky_site(server: LocalServer) -> None:
    server.route("/robots.txt", "User-agent: *\nDisallow: /private/\n", content_type="text/plain")
    html = {"Content-Type": "text/html; charset=utf-8"}
    links = "".join(f'<a href="/p{i}.html">p{i}</a> <a href="p{i}.html?utm_source=x#c">again</a> '
                    for i in range(30))
    server.route("/", handler=lambda req: Response(200, (
        f'<html><head><title>Home</title></head><body>{links}<a href="/docs">docs</a><a href="/private/x">p</a>'
        '<a href="/old">old</a><a href="/missing">missing</a><a href="/file.pdf">pdf</a></body></html>').encode(),
        html))
    for i in range(30):
        body = (f'<html><head><title>Page {i}</title>'
                + ('<meta name="robots" content="noindex">' if i % 7 == 3 else "")
                + (f'<link rel=canonical href="/p{i + 1}.html">' if i % 11 == 5 else "")
                + f'<link rel=alternate hreflang=en href="/p{i}.html"><link rel=alternate hreflang=de '
                  f'href="/de/p{i}.html"></head><body><img src="/img/{i}.png" srcset="/img/{i}@2x.png 2x">'
                  f'<a href="p{(i + 1) % 30}.html">next</a> <a href="../p{(i + 2) % 30}.html">skip</a>'
                  f'<a href="/cal?d={i}">cal</a></body></html>')
        server.route(f"/p{i}.html", body.encode(), headers=html)
        server.route(f"/de/p{i}.html", f'<link rel=alternate hreflang=en href="/p{i}.html">'.encode(),
                     headers=html)
        server.route(f"/img/{i}.png", b"\x89PNG", headers={"Content-Type": "image/png"})
        server.route(f"/img/{i}@2x.png", b"\x89PNG", headers={"Content-Type": "image/png"})
    server.route("/docs", status=301, headers={"Location": "/docs/"})
    server.route("/docs/", b'<base href="/docs/v2/"><a href="a.html">a</a>', headers=html)
    server.route("/docs/v2/a.html", b'<meta name=robots content="nofollow"><a href="/hidden">h</a>', headers=html)
    server.route("/old", status=301, headers={"Location": "/p0.html"})
    server.route("/file.pdf", b"%PDF", headers={"Content-Type": "application/pdf"})

    def cal(req: Request) -> Response:
        d = int(req.path.split("=")[1])
        return Response(200, f'<a href="/cal?d={d + 1}">next</a>'.encode(), html)

    server.route("/cal", handler=cal)


def _crawl(url: str, out: Path, monkeypatch: pytest.MonkeyPatch, after: int | None) -> dict[str, object]:
    monkeypatch.setattr(extract, "EXTRACT_PROCESS_AFTER", after)
    res = run_cli(["crawl", url, "--out", str(out), "--concurrency", "1", "--images", "--retries", "0",
                   "--max-query-variants", "5", "--format", "xml", "--format", "html"])
    assert res.returncode == 0, res.stderr
    report = json.loads((out.with_name(out.name + "-report") / "crawl-report.json").read_text())
    for key in ("crawl_time", "elapsed", "seconds"):
        report.pop(key, None)
    return report


def test_a_crawl_with_the_child_writes_what_one_without_it_writes(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[ExtractorProcess] = []
    start = ExtractorProcess.start
    monkeypatch.setattr(ExtractorProcess, "start", lambda self: (started.append(self), start(self))[1])
    with LocalServer() as server:
        _tricky_site(server)
        alone = _crawl(server.url("/"), tmp_path / "alone", monkeypatch, None)
        assert not started
        split = _crawl(server.url("/"), tmp_path / "split", monkeypatch, 0)
    assert len(started) == 1
    assert started[0].pid is not None
    assert not started[0].failed
    counts = split["excluded_counts"]
    assert isinstance(counts, dict)
    # every status-200 HTML page went through the child (and a redirect whose target was fetched already)
    assert started[0].answered >= int(split["in_sitemap"]) + counts["noindex"] + counts["canonical"]  # type: ignore[call-overload]
    assert (tmp_path / "split" / "sitemap.xml").read_bytes() == (tmp_path / "alone" / "sitemap.xml").read_bytes()
    assert json.dumps(split).replace(str(tmp_path / "split"), str(tmp_path / "alone")) == json.dumps(alone)
    # 30 pages, their 30 German alternates, /, /docs/, a.html and 5 calendar days; less 4 noindex, 3 canonical
    assert alone["in_sitemap"] == 30 + 30 + 3 + 5 - 4 - 3
    with pytest.raises(ProcessLookupError):
        os.kill(started[0].pid, 0)


def test_the_child_is_ended_when_the_crawl_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sitemapkit.crawl import _crawler

    started: list[ExtractorProcess] = []
    start = ExtractorProcess.start
    monkeypatch.setattr(ExtractorProcess, "start", lambda self: (started.append(self), start(self))[1])
    monkeypatch.setattr(extract, "EXTRACT_PROCESS_AFTER", 0)
    calls = 0
    real = _crawler.judge_page

    def failing(*args: object) -> object:  # a bug on the fifth page
        nonlocal calls
        calls += 1
        if calls == 5:
            raise RuntimeError("boom")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(_crawler, "judge_page", failing)
    with LocalServer() as server:
        _tricky_site(server)
        with pytest.raises(RuntimeError, match="boom"):
            run_cli(["crawl", server.url("/"), "--out", str(tmp_path / "out"), "--concurrency", "2"])
    assert len(started) == 1
    pid = started[0].pid
    assert pid is not None
    with pytest.raises(ProcessLookupError):  # killed or ended, and reaped
        os.kill(pid, 0)


def _children(pid: int) -> list[int]:
    return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return True
    return state == "Z"  # ended; reaping an orphan is up to whichever process adopted it


_WITH_CHILD = ("import sys, runpy; import sitemapkit.crawl._extract as e; e.EXTRACT_PROCESS_AFTER = 0; "
               "sys.argv[0] = 'sitemapkit'; runpy.run_module('sitemapkit', run_name='__main__')")


@pytest.mark.e2e
def test_kill_9_with_the_child_then_resume_fetches_again_only_the_pages_in_flight(tmp_path: Path) -> None:
    with LocalServer() as server:
        site = GatedSite(server, pages=300)
        clean = tmp_path / "clean"
        assert run_crawl(server.url("/"), clean).returncode == 0
        expected = sitemap_locs(clean)
        first_request = len(server.requests)
        out = tmp_path / "out"
        children: list[int] = []

        def find_the_reader(crawl: subprocess.Popen[str]) -> None:
            children.extend(_children(crawl.pid))
            assert len(children) == 1  # the page reader

        cmd = [sys.executable, "-c", _WITH_CHILD, *crawl_cmd(server.url("/"), out)[3:]]
        site.kill_mid_crawl(cmd, before_kill=find_the_reader)
        deadline = time.monotonic() + 10
        while not _gone(children[0]):  # its input closed with the crawl: it ends by itself
            assert time.monotonic() < deadline, "the page reader outlived the killed crawl"
            time.sleep(0.01)
        resumed = subprocess.run([sys.executable, "-c", _WITH_CHILD, *crawl_cmd(server.url("/"), out)[3:],
                                  "--resume"], capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stderr
        assert "Traceback" not in resumed.stderr
    hits: dict[str, int] = {}
    for r in server.requests[first_request:]:
        if r.path != "/robots.txt":
            hits[r.path] = hits.get(r.path, 0) + 1
    assert set(hits) == {"/", *(f"/p{i}" for i in range(300))}
    twice = sorted(p for p, n in hits.items() if n > 1)
    assert len(twice) <= CONCURRENCY, twice
    assert sitemap_locs(out) == expected


@pytest.mark.e2e
def test_ctrl_c_with_the_child_stops_both_cleanly(tmp_path: Path) -> None:
    with LocalServer() as server:
        site = GatedSite(server, pages=100)
        out = tmp_path / "out"
        site.close_after(30)
        cmd = [sys.executable, "-c", _WITH_CHILD, *crawl_cmd(server.url("/"), out)[3:]]
        crawl = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                 start_new_session=True, preexec_fn=sigint_default)
        try:
            site.wait_for_waiting(CONCURRENCY, crawl)
            children = _children(crawl.pid)
            assert len(children) == 1
            os.killpg(crawl.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
            site.release()
            _, stderr = crawl.communicate(timeout=60)
        finally:
            if crawl.poll() is None:
                crawl.kill()
            site.release()
        assert crawl.returncode == 130, stderr
        assert "Traceback" not in stderr
        assert "--resume" in stderr
        assert not Path(f"/proc/{children[0]}").exists()  # ended and reaped by the crawl before it exited
        resumed = subprocess.run([sys.executable, "-c", _WITH_CHILD, *crawl_cmd(server.url("/"), out)[3:],
                                  "--resume"], capture_output=True, text=True, timeout=120)
        assert resumed.returncode == 0, resumed.stderr
    assert len(sitemap_locs(out)) == 101
