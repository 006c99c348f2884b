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


DOCS = [
    f'<urlset xmlns="{NS}"><url><loc>https://e.com/a</loc></url></urlset>'.encode(),
    f'<urlset xmlns="{NS}"><url><loc>https://e.com/a</loc><x/></url></urlset>'.encode(),  # element path
    f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://e.com/s.xml</loc></sitemap></sitemapindex>'.encode(),
    b"https://e.com/a\nhttps://e.com/b\n",
    f'<urlset xmlns="{NS}"><url><loc>https://e.com/a</loc></url><bad></urlset>'.encode(),  # stopped at an error
]


@pytest.mark.parametrize("doc", DOCS, ids=["lane", "elements", "index", "text", "error"])
def test_a_closed_document_is_freed_without_the_cyclic_collector(doc: bytes) -> None:
    # Reading many documents in a row (urls over 200 gzip files) held every finished document's engine and lxml
    # parser until the cyclic collector ran: the engine points back to its parser, and its item handler is a
    # method bound to itself. Closing now breaks both, so reference counting frees them at once.
    import gc
    import weakref

    gc.collect()
    gc.disable()
    try:
        parser = SitemapParser("doc")
        parser.feed(doc)
        engine = weakref.ref(parser._engine)  # type: ignore[arg-type]
        owner = weakref.ref(parser)
        parser.close()
        del parser
        assert engine() is None
        assert owner() is None
    finally:
        gc.enable()
