"""Honest lastmod across crawls (issue 14): a page rendering the time, a visit counter and a fresh token on every
request keeps its lastmod; only the page whose main text changed gets a new one. Real server on 127.0.0.1, real
CLI (in process, its clock set back for the first crawl instead of sleeping), the default (per-site, user cache)
crawl state carried from one fresh crawl to the next."""

from __future__ import annotations

import email.utils
import functools
import itertools
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from lxml import etree

import sitemapkit.cli._crawl as cli_crawl
from sitemapkit.crawl import crawl_site
from tests.support.cli import CliResult, run_cli
from tests.support.server import LocalServer, Response

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
_counter = itertools.count(1)


class Clock:
    """The time the site renders and the crawl reads (lastmods have one-second precision): set back for the
    first crawl, so the second one is later without sleeping."""

    def __init__(self) -> None:
        self.shift = timedelta(0)

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.shift


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """The CLI's crawl runs on this clock (crawl_site's ``now``)."""
    c = Clock()
    monkeypatch.setattr(cli_crawl, "crawl_site", functools.partial(crawl_site, now=c))
    return c


def crawl(url: str, out: Path, cache: Path) -> CliResult:
    return run_cli(["crawl", url, "--out", str(out), "--retries", "0"], env={"XDG_CACHE_HOME": str(cache)})


def lastmods(out: Path) -> dict[str, str | None]:
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    return {str(u.findtext("sm:loc", namespaces=NS)): u.findtext("sm:lastmod", namespaces=NS)
            for u in root.findall("sm:url", NS)}


def rendered(texts: dict[str, str], path: str, last_modified_now: bool, clock: Clock) -> Response:
    """A dynamic page: current time, a visit counter and a fresh CSRF token rendered into every response."""
    n = next(_counter)
    now = clock()
    links = "".join(f"<a href='{p}'>{p}</a>" for p in texts)
    body = (f"<html><head><script>var nonce='n{n:08d}x{n * 7919:012d}'</script></head><body>"
            f"<nav>{links}</nav><main><h1>{path}</h1><p>{texts[path]}</p>"
            f"<form><input type=hidden name=csrf value='{n:x}f00d{n * 31:x}'></form></main>"
            f"<footer>Rendered {now:%Y-%m-%d %H:%M:%S} UTC - you are visitor #{n}</footer></body></html>")
    headers = {"Content-Type": "text/html; charset=utf-8"}
    if last_modified_now:  # a framework that stamps every response with the render time
        headers["Last-Modified"] = email.utils.format_datetime(now, usegmt=True)
    return Response(200, body.encode(), headers)


def test_only_the_page_whose_content_changed_gets_a_new_lastmod(tmp_path: Path, clock: Clock) -> None:
    texts = {"/": "Home", "/a": "Alpha", "/b": "Beta", "/c": "Gamma", "/d": "Delta"}
    stamped = {"/", "/a", "/b"}  # these send Last-Modified: now; /c and /d send none
    with LocalServer() as srv:
        for path in texts:
            srv.route(path, handler=lambda _r, p=path: rendered(texts, p, p in stamped, clock))  # type: ignore[misc]
        out, cache = tmp_path / "out", tmp_path / "cache"
        clock.shift = timedelta(seconds=-10)  # the first crawl (and what the site renders) ten seconds ago
        first = crawl(srv.url("/"), out, cache)
        assert first.returncode == 0, first.stderr
        one = lastmods(out)
        clock.shift = timedelta(0)
        texts["/b"] = "Beta, rewritten"
        texts["/d"] = "Delta, rewritten"
        second = crawl(srv.url("/"), out, cache)
        assert second.returncode == 0, second.stderr
        two = lastmods(out)
    base = srv.base
    assert set(one) == set(two) == {base + p for p in texts}
    # First sight: the Last-Modified header where there is one; nothing dates /c and /d, so no lastmod.
    assert all(one[base + p] for p in stamped)
    assert one[base + "/c"] is None
    assert one[base + "/d"] is None
    # Second crawl: unchanged pages keep their lastmod although every response differs (time, counter, token,
    # a later Last-Modified); /b takes its new Last-Modified, /d the second crawl's time.
    assert two[base + "/"] == one[base + "/"]
    assert two[base + "/a"] == one[base + "/a"]
    assert two[base + "/c"] is None
    b1, b2 = one[base + "/b"], two[base + "/b"]
    assert b1 is not None
    assert b2 is not None
    assert b2 > b1
    assert two[base + "/d"] is not None
    # The state lives in the user cache (a fresh crawl, not --resume, carried the fingerprints over).
    assert list(cache.rglob("state.sqlite"))


def test_rendering_without_change_never_moves_lastmod(tmp_path: Path, clock: Clock) -> None:
    texts = {"/": "Home", "/x": "Text"}
    with LocalServer() as srv:
        for path in texts:
            srv.route(path, handler=lambda _r, p=path: rendered(texts, p, True, clock))  # type: ignore[misc]
        out, cache = tmp_path / "out", tmp_path / "cache"
        clock.shift = timedelta(seconds=-10)
        assert crawl(srv.url("/"), out, cache).returncode == 0
        one = lastmods(out)
        clock.shift = timedelta(0)
        assert crawl(srv.url("/"), out, cache).returncode == 0
        assert lastmods(out) == one

