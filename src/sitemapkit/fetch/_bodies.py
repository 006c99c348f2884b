"""A sitemap's body as the walker reads it (issue 22): the pieces read ahead of its turn, then the rest of the
response as it arrives, cut into slices for the reader; see :mod:`sitemapkit.fetch._walk`."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, Any

from sitemapkit.fetch._order import HeldBody, HeldBytes, Key, Sequencer
from sitemapkit.fetch._stream import HttpStream

if TYPE_CHECKING:
    from sitemapkit.fetch._http import HttpClient
from sitemapkit.read import SitemapParser

__all__ = ["Body", "open_body", "sliced", "steps"]


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


async def open_body(client: HttpClient, held: HeldBytes, order: Sequencer, key: Key, url: str,
                    max_bytes: int) -> Body:
    """Open a sitemap's response once :class:`HeldBytes` lets it go (at once when it is its turn). Ahead of
    its turn, the body is read into memory as it arrives while it fits; once its turn has come, the rest is
    read as the reader takes it. A body that does not fit is dropped, and fetched again at its turn."""
    await held.admit(key)
    size: int | None = None
    try:
        while True:
            stream = await client.stream(url, max_bytes=max_bytes)
            if not stream.ok:  # its body is not read: the connection and its host slot go back now
                await stream.aclose()
                size = 0
                return Body(stream, HeldBody([], held), None)
            if not held.ahead(key):
                size = 0
                return Body(stream, HeldBody([], held), stream.chunks())
            parts: list[bytes] = []
            chunks = stream.chunks()
            try:
                while held.ahead(key):
                    try:
                        piece = await chunks.__anext__()
                    except StopAsyncIteration:
                        size = sum(map(len, parts))
                        await stream.aclose()  # read whole: the connection and its host slot go back now
                        return Body(stream, HeldBody(parts, held), None)
                    if not held.grow(key, len(piece)):
                        break
                    parts.append(piece)
                else:  # its turn came while reading ahead: what was read first, then the rest as it arrives
                    size = sum(map(len, parts))
                    return Body(stream, HeldBody(parts, held), chunks)
            except BaseException:
                held.release(sum(map(len, parts)))
                await chunks.aclose()
                await stream.aclose()
                raise
            # Did not fit: drop what was read, wait for the turn, and fetch it again, streamed.
            held.release(sum(map(len, parts)))
            parts.clear()
            await chunks.aclose()
            await stream.aclose()
            await order.turn(key)
    finally:
        held.finish(key, size)

