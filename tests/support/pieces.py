"""Feeding a parser a document cut at given offsets (the chunking tests of the reader)."""

from __future__ import annotations

from sitemapkit import SitemapParser
from sitemapkit.read import Event

__all__ = ["feed_in_pieces"]


def feed_in_pieces(parser: SitemapParser, data: bytes, cuts: list[int], events: list[Event]) -> list[Event]:
    """Feed ``data`` to ``parser`` in the pieces between ``cuts`` (offsets outside the data are ignored), then
    close it; every event is appended to ``events`` as it comes (so a caller catching a strict-mode error still
    has those before it), which is returned."""
    start = 0
    for cut in sorted(set(cuts)):
        if 0 < cut < len(data):
            events.extend(parser.feed(data[start:cut]))
            start = cut
    events.extend(parser.feed(data[start:]))
    events.extend(parser.close())
    return events
