"""Issue 22: one entry cannot grow memory without bound. A <url>'s children past their caps (core._limits: 1,000
images, alternates, videos, 1,000 of any other element) are dropped while it is read and reported (SM136), and
lxml's tree for the entry still open stays capped between feeds (read._trim.ChildTrimmer)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from lxml import etree

from sitemapkit.cli import cli
from sitemapkit.core import MAX_ALTERNATES_PER_URL, MAX_IMAGES_PER_URL
from sitemapkit.core._model import UrlEntry
from sitemapkit.core._problems import Problem
from sitemapkit.read import ChildTrimmer, SitemapParser

NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml" '
      'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"')


def _doc(links: int, images: int, lang: str = "x{j}") -> bytes:
    parts = [f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n<url><loc>https://example.com/</loc>\n']
    parts += [f'<xhtml:link rel="alternate" hreflang="{lang.format(j=j % 500)}" href="https://example.com/{j}"/>\n'
              for j in range(links)]
    parts += [f"<image:image><image:loc>https://example.com/{j}.jpg</image:loc></image:image>\n"
              for j in range(images)]
    parts.append("</url>\n<url><loc>https://example.com/after</loc></url>\n</urlset>\n")
    return "".join(parts).encode()


def _read(data: bytes, chunk: int) -> tuple[list[UrlEntry], list[Problem]]:
    parser = SitemapParser()
    events: list[Any] = []
    for i in range(0, len(data), chunk):
        events += parser.feed(data[i:i + chunk])
    events += parser.close()
    return ([e for e in events if isinstance(e, UrlEntry)], [e for e in events if isinstance(e, Problem)])


@pytest.mark.parametrize("lang", ["x{j}", "de"])  # "de": a block the fast lane could read whole
@pytest.mark.parametrize("chunk", [1 << 24, 4096, 333])
def test_children_past_their_caps_are_dropped_and_reported(chunk: int, lang: str) -> None:
    links, images = MAX_ALTERNATES_PER_URL + 700, MAX_IMAGES_PER_URL + 1
    entries, problems = _read(_doc(links, images, lang), chunk)
    assert [e.loc for e in entries] == ["https://example.com/", "https://example.com/after"]
    first = entries[0]
    assert len(first.alternates) == MAX_ALTERNATES_PER_URL
    assert first.alternates[-1].href == f"https://example.com/{MAX_ALTERNATES_PER_URL - 1}"  # the first ones kept
    assert len(first.images) == MAX_IMAGES_PER_URL
    [problem] = [p for p in problems if p.code == "SM136"]
    assert f"{links:,} <xhtml:link> (the first {MAX_ALTERNATES_PER_URL:,} kept)" in problem.message
    assert f"{images:,} <image:image>" in problem.message
    # the line of the first child dropped: the <url> starts on line 3, its first link is on line 4
    assert problem.location.line == 4 + MAX_ALTERNATES_PER_URL
    assert [p.code for p in problems] == ["SM136"]


def test_an_entry_within_the_caps_reports_nothing() -> None:
    entries, problems = _read(_doc(MAX_ALTERNATES_PER_URL, MAX_IMAGES_PER_URL), 4096)
    assert len(entries[0].alternates) == MAX_ALTERNATES_PER_URL
    assert len(entries[0].images) == MAX_IMAGES_PER_URL
    assert problems == []


def test_the_open_entry_stays_capped_between_feeds() -> None:
    """What bounds memory: after every feed, the open entry (and the open elements in it) hold at most the cap of
    each tag plus the child still arriving."""
    trimmer = ChildTrimmer(caps={"a": 3}, default_cap=5)
    parser = etree.XMLPullParser(events=("start", "end"), tag="item")
    body = "<a/>" * 50 + "<b>" + "<c/>" * 40 + "</b>" + "<d/>" * 30
    data = f"<root><item>{body}</item></root>".encode()
    sizes: list[tuple[int, int]] = []
    dropped = None
    for i in range(0, len(data), 16):
        parser.feed(data[i:i + 16])
        for event, el in parser.read_events():
            if event == "start":
                trimmer.open(el)
            else:
                dropped = trimmer.finish(el)
                assert [c.tag for c in el] == ["a"] * 3 + ["b"] + ["d"] * 5
                assert len(el[3]) == 5  # nested <c> capped at default_cap
        if trimmer.active:
            trimmer.trim()
            item = trimmer.entry
            b = item.find("b")
            sizes.append((len(item), len(b) if b is not None else 0))
    assert max(n for n, _ in sizes) <= 3 + 1 + 5 + 1
    assert max(n for _, n in sizes) <= 5 + 1
    assert dropped is not None
    assert dropped.kinds == {"a": (3, 47, 1), "d": (5, 25, 1)}
    assert dropped.nested == 35


def test_urls_cli_reports_the_excess(tmp_path: Path) -> None:
    path = tmp_path / "big.xml"
    path.write_bytes(_doc(MAX_ALTERNATES_PER_URL + 5, 0))
    result = CliRunner().invoke(cli, ["urls", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == ["https://example.com/", "https://example.com/after"]
    assert "SM136" in result.stderr
    assert f"{MAX_ALTERNATES_PER_URL + 5:,} <xhtml:link>" in result.stderr
