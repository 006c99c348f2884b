"""A sitemap's body as the walker reads it (issue 22): the pieces read ahead of its turn, then the rest of the
response as it arrives, cut into slices for the reader; see :mod:`sitemapkit.fetch._walk`."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from sitemapkit.fetch._order import HeldBody
from sitemapkit.fetch._stream import HttpStream
from sitemapkit.read import SitemapParser

__all__ = ["Body", "sliced", "steps"]


class Body:
    """A response being read: the pieces read ahead of its turn (``held``), then the rest of ``stream`` as it
    arrives (``rest``; None when it was read whole or is not read). ``size`` counts the bytes handed out;
    ``broken`` is set when reading it failed part-way."""

    __slots__ = ("broken", "held", "rest", "size", "stream")

    def __init__(self, stream: HttpStream, held: HeldBody, rest: AsyncGenerator[bytes, None] | None) -> None:
        self.stream = stream
        self.held = held
        self.rest = rest
        self.size = 0
        self.broken = False  # reading it failed part-way (budget, a broken or stalled connection)

    async def pieces(self) -> AsyncGenerator[bytes, None]:
        for piece in self.held.pieces():
            self.size += len(piece)
            yield piece
        if self.rest is not None:
            async for piece in self.rest:
                self.size += len(piece)
                yield piece

    async def close(self) -> None:
        self.held.drop()
        rest, self.rest = self.rest, None
        try:
            if rest is not None:
                await rest.aclose()
        finally:
            await self.stream.aclose()


async def sliced(lead: list[bytes], pieces: AsyncIterator[bytes], step: int,
                  kept: list[bytes] | None) -> AsyncIterator[bytes]:
    """The body in slices of at most ``step`` bytes: the ``lead`` pieces already read, then the rest as it comes
    (``kept`` gets every piece, for validators)."""
    while lead:
        piece = lead.pop(0)
        if kept is not None:
            kept.append(piece)
        for pos in range(0, len(piece), step):
            yield piece[pos : pos + step] if len(piece) > step else piece
    async for piece in pieces:
        if kept is not None:
            kept.append(piece)
        for pos in range(0, len(piece), step):
            yield piece[pos : pos + step] if len(piece) > step else piece


async def steps(parser: SitemapParser, pieces: AsyncIterator[bytes]) -> AsyncIterator[list[Any]]:
    """The parser's event lists, piece by piece, then its last ones (each piece is taken only when the events of
    the one before have been handed over)."""
    async for piece in pieces:
        for events in parser.feed_steps(piece):
            yield events
    for events in parser.close_steps():
        yield events
