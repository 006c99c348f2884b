"""Memory does not grow with the number of URLs: the parser holds one batch, never the document."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator

import pytest

from sitemapkit import SitemapParser, UrlEntry

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _chunks(count: int) -> Iterator[bytes]:
    yield f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'.encode()
    batch: list[str] = []
    for i in range(count):
        batch.append(f"<url><loc>https://example.com/p/{i}</loc><lastmod>2024-01-{1 + i % 28:02d}</lastmod>"
                     f"<priority>0.{i % 10}</priority></url>\n")
        if len(batch) == 500:
            yield "".join(batch).encode()
            batch.clear()
    yield ("".join(batch) + "</urlset>\n").encode()


def _peak(count: int) -> int:
    tracemalloc.start()
    try:
        parser = SitemapParser("mem")
        seen = 0
        for chunk in _chunks(count):
            seen += sum(1 for e in parser.feed(chunk) if type(e) is UrlEntry)
        seen += sum(1 for e in parser.close() if type(e) is UrlEntry)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen == count
    return peak


@pytest.mark.slow
def test_peak_memory_flat_in_url_count() -> None:
    small = _peak(8_000)
    large = _peak(40_000)
    # The duplicate check keeps 8-byte hashes (bounded at 100,000 per document): allow for them, nothing more.
    assert large < small + 40_000 * 80
    assert large < 12_000_000
