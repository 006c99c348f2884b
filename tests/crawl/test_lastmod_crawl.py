"""Honest lastmod across crawls (issue 14): a page rendering the time, a visit counter and a fresh token on every
request keeps its lastmod; only the page whose main text changed gets a new one. Real server on 127.0.0.1, real
CLI, the default (per-site, user cache) crawl state carried from one fresh crawl to the next."""

from __future__ import annotations

import email.utils
import itertools
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from lxml import etree

from tests.support.server import LocalServer, Response

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
_counter = itertools.count(1)


def crawl(url: str, out: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", "crawl", url, "--out", str(out), "--retries", "0"],
                          capture_output=True, text=True, timeout=120, env={**os.environ, "XDG_CACHE_HOME": str(cache)})


def lastmods(out: Path) -> dict[str, str | None]:
    root = etree.parse(str(out / "sitemap.xml")).getroot()
    return {str(u.findtext("sm:loc", namespaces=NS)): u.findtext("sm:lastmod", namespaces=NS)
            for u in root.findall("sm:url", NS)}


def rendered(texts: dict[str, str], path: str, last_modified_now: bool) -> Response:
    """A dynamic page: current time, a visit counter and a fresh CSRF token rendered into every response."""
    n = next(_counter)
    now = datetime.now(UTC)
    links = "".join(f"<a href='{p}'>{p}</a>" for p in texts)
    body = (f"<html><head><script>var nonce='n{n:08d}x{n * 7919:012d}'</script></head><body>"
            f"<nav>{links}</nav><main><h1>{path}</h1><p>{texts[path]}</p>"
            f"<form><input type=hidden name=csrf value='{n:x}f00d{n * 31:x}'></form></main>"
            f"<footer>Rendered {now:%Y-%m-%d %H:%M:%S} UTC - you are visitor #{n}</footer></body></html>")
    headers = {"Content-Type": "text/html; charset=utf-8"}
    if last_modified_now:  # a framework that stamps every response with the render time
        headers["Last-Modified"] = email.utils.format_datetime(now, usegmt=True)
    return Response(200, body.encode(), headers)


def test_only_the_page_whose_content_changed_gets_a_new_lastmod(tmp_path: Path) -> None:
    texts = {"/": "Home", "/a": "Alpha", "/b": "Beta", "/c": "Gamma", "/d": "Delta"}
    stamped = {"/", "/a", "/b"}  # these send Last-Modified: now; /c and /d send none
    with LocalServer() as srv:
        for path in texts:
            srv.route(path, handler=lambda _r, p=path: rendered(texts, p, p in stamped))  # type: ignore[misc]
        out, cache = tmp_path / "out", tmp_path / "cache"
        first = crawl(srv.url("/"), out, cache)
        assert first.returncode == 0, first.stderr
        one = lastmods(out)
        time.sleep(1.1)  # lastmods have one-second precision
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


def test_rendering_without_change_never_moves_lastmod(tmp_path: Path) -> None:
    texts = {"/": "Home", "/x": "Text"}
    with LocalServer() as srv:
        for path in texts:
            srv.route(path, handler=lambda _r, p=path: rendered(texts, p, True))  # type: ignore[misc]
        out, cache = tmp_path / "out", tmp_path / "cache"
        assert crawl(srv.url("/"), out, cache).returncode == 0
        one = lastmods(out)
        time.sleep(1.1)
        assert crawl(srv.url("/"), out, cache).returncode == 0
        assert lastmods(out) == one

