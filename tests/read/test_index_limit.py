"""A sitemap index of more than 50,000 sitemaps (issue 10, item 15): a warning at the first sitemap over the
limit, with its line; every entry is still read."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapkit import SitemapParser, SitemapRef, parse_bytes
from sitemapkit.core import MAX_INDEX_ENTRIES
from tests.support.cli import run_cli

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _index(count: int) -> bytes:
    refs = "".join(f"<sitemap><loc>https://example.com/s{i}.xml</loc></sitemap>\n" for i in range(count))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n{refs}</sitemapindex>\n'.encode()


@pytest.mark.parametrize("count", [MAX_INDEX_ENTRIES, MAX_INDEX_ENTRIES + 2])
def test_index_over_the_limit_is_warned_once_at_its_line(count: int) -> None:
    res = parse_bytes(_index(count), "index.xml")
    assert len(res.sitemaps) == count
    over = [p for p in res.problems if p.code == "SM130"]
    if count <= MAX_INDEX_ENTRIES:
        assert not res.problems
        return
    assert len(over) == 1
    assert res.ok
    assert over[0].location.line == 2 + MAX_INDEX_ENTRIES + 1  # the 50,001st <sitemap>
    assert over[0].location.loc == f"https://example.com/s{MAX_INDEX_ENTRIES}.xml"
    assert "50,000" in (over[0].message or "")


def test_the_warning_does_not_depend_on_chunking() -> None:
    data = _index(MAX_INDEX_ENTRIES + 1)
    parser = SitemapParser("index.xml", positions=True)
    events = []
    for i in range(0, len(data), 7_777):
        events.extend(parser.feed(data[i:i + 7_777]))
    events.extend(parser.close())
    assert [getattr(e, "code", None) for e in events if not isinstance(getattr(e, "item", e), SitemapRef)] == ["SM130"]


def test_a_urlset_of_many_urls_is_not_an_index_warning() -> None:
    urls = "".join(f"<url><loc>https://example.com/{i}</loc></url>\n" for i in range(MAX_INDEX_ENTRIES + 1))
    res = parse_bytes(f'<urlset xmlns="{NS}">\n{urls}</urlset>\n'.encode())
    assert "SM130" not in {p.code for p in res.problems}


def test_cli_urls_prints_the_warning(tmp_path: Path) -> None:
    path = tmp_path / "index.xml"
    path.write_bytes(_index(MAX_INDEX_ENTRIES + 1))
    r = run_cli(["urls", str(path)])
    assert r.returncode == 0, r.stderr  # a warning
    assert f"{path}:{MAX_INDEX_ENTRIES + 3}: warning SM130: " in r.stderr
    assert len(r.stdout.splitlines()) == MAX_INDEX_ENTRIES + 1
