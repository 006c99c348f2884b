"""A response read as it arrives: what :meth:`~sitemapkit.fetch.HttpClient.stream` hands back (issue 22). The
walker feeds each decoded piece to the reader at once, so neither the body nor its decoded form is ever held whole:
a Content-Encoding bomb stops at the budget having cost one read's worth of memory, and a long text body's URLs
come out while it is still arriving."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Self

from sitemapkit.fetch._decode import BodyDecoder, stalling
from sitemapkit.fetch._transports import TransportError, TransportResponse

__all__ = ["ClientStats", "HttpStream", "StreamLimits"]


@dataclass
class ClientStats:
    """Counters kept by an :class:`HttpClient` (for progress display and benchmarks)."""

    requests: int = 0
    retries: int = 0
    wire_bytes: int = 0
    body_bytes: int = 0
    cache_hits: int = 0


@dataclass(frozen=True, slots=True)
class StreamLimits:
    """What bounds the reads of a streamed body: ``stall`` seconds without bytes (``Timeouts.read``), the client's
    total ``deadline`` (for the message), and the client's counters."""

    stall: float | None
    deadline: float | None
    stats: ClientStats


class HttpStream:
    """A response whose body is read as it arrives (:meth:`HttpClient.stream`): ``status``, ``headers``,
    ``final_url`` and ``redirects`` are known, the body is :meth:`chunks` (Content-Encoding undone under the byte
    budget, each network read decoded and handed on at once, so nothing is held here). ``wire_bytes`` and
    ``size`` count what was read so far. Close it (``aclose``, or ``async with``) when done; the client's total
    deadline and the stall limit (``Timeouts.read``) bound every read of the body."""

    def __init__(self, url: str, final_url: str, status: int, headers: Mapping[str, str],
                 redirects: tuple[tuple[str, int], ...], started: float, attempts: int, limits: StreamLimits,
                 deadline_at: float | None, *, response: TransportResponse | None = None,
                 decoder: BodyDecoder | None = None, slot: asyncio.Semaphore | None = None,
                 body: bytes | None = None, from_cache: bool = False, wire: int = 0) -> None:
        self.url = url
        self.final_url = final_url
        self.status = status
        self.headers = headers
        self.redirects = redirects
        self.attempts = attempts
        self.from_cache = from_cache
        self._started = started
        self._response = response
        self._decoder = decoder
        self._limits = limits
        self._deadline_at = deadline_at
        self._slot = slot
        self._body = body  # a whole body already at hand (the cache's), handed out as one chunk
        self.size = 0
        self._wire = wire

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def wire_bytes(self) -> int:
        return self._wire if self._decoder is None else self._decoder.wire

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self._started

    async def chunks(self) -> AsyncGenerator[bytes, None]:
        """The decoded body, piece by piece as it arrives (never an empty piece)."""
        if self._body is not None:
            body, self._body = self._body, None
            if body:
                self.size += len(body)
                yield body
            return
        if self._response is None or self._decoder is None:
            return
        decoder = self._decoder
        limits = self._limits
        reads = stalling(self._response.iter_chunks(), limits.stall, self.url)
        try:
            while True:
                try:
                    async with asyncio.timeout_at(self._deadline_at):
                        chunk = await reads.__anext__()
                except StopAsyncIteration:
                    break
                except TimeoutError:
                    raise TransportError(f"timed out after {limits.deadline or 0:g} s (total deadline)", url=self.url,
                                         retryable=False) from None
                limits.stats.wire_bytes += len(chunk)
                for data in decoder.feed(chunk):
                    self.size += len(data)
                    limits.stats.body_bytes += len(data)
                    yield data
                if decoder.done:
                    break
        finally:
            await reads.aclose()

    async def aclose(self) -> None:
        response, self._response = self._response, None
        slot, self._slot = self._slot, None
        try:
            if response is not None:
                await response.aclose()
        finally:
            if slot is not None:
                slot.release()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.aclose()
