"""The response decoder of :class:`~sitemapkit.fetch.HttpClient`: reads a transport's body under a byte budget
and undoes its Content-Encoding (gzip, deflate, br) incrementally, so an oversized body or a compression bomb is
aborted early (:class:`ResponseTooLargeError`), or cut at the budget when truncation is asked for."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from dataclasses import dataclass

import brotli

from sitemapkit.core import FetchError
from sitemapkit.fetch._transports import TransportError, TransportResponse

__all__ = ["BodyDecoder", "ContentDecodingError", "DecodedBody", "ResponseTooLargeError", "read_body",
           "refuse_oversized", "stalling"]


class ResponseTooLargeError(FetchError):
    """The body (as downloaded or once decoded) exceeded the byte budget; the download was aborted early."""

    def __init__(self, message: str, *, url: str, limit: int) -> None:
        super().__init__(message, url=url)
        self.limit = limit


class ContentDecodingError(FetchError):
    """The body could not be decoded according to its Content-Encoding (corrupt gzip/deflate/br stream)."""



#: The most decoded bytes handed on at a time: one network read of a compression bomb decodes piece by piece.
PIECE = 256 * 1024


class _Decoder:
    """Undo one Content-Encoding incrementally, in pieces of at most :data:`PIECE` bytes, never producing more than
    ``budget`` bytes in all (OverflowError)."""

    def __init__(self, encoding: str, budget: int) -> None:
        self.encoding = encoding
        self.budget = budget
        self.out = 0
        self._first = True
        self._zlib: zlib._Decompress | None = None
        self._br: brotli.Decompressor | None = None
        if encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS)
        elif encoding == "br":
            self._br = brotli.Decompressor()

    def _count(self, piece: bytes) -> bytes:
        self.out += len(piece)
        if self.out > self.budget:
            raise OverflowError
        return piece

    def decode(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of ``data`` (none empty); raises OverflowError past the budget."""
        if self._br is not None:
            # output_buffer_limit is a soft limit (the output comes in blocks a little larger): each block is cut
            # into pieces, and the decoder is asked again with no input until it has nothing more to give.
            br = self._br
            out = br.process(data, output_buffer_limit=PIECE // 2)
            while out:
                for pos in range(0, len(out), PIECE):
                    yield self._count(out[pos : pos + PIECE])
                if br.is_finished():
                    return
                out = br.process(b"", output_buffer_limit=PIECE // 2)
            return
        if self._zlib is None:
            if data:
                yield self._count(data)
            return
        if self._first and self.encoding == "deflate" and data and (data[0] & 0x0F) != 8:
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, as some servers send it
        self._first = False
        full = False
        while data or full:
            chunk = self._zlib.decompress(data, PIECE)
            full = len(chunk) == PIECE  # output may be pending inside zlib: ask again, even with no input left
            if chunk:
                yield self._count(chunk)
            if self._zlib.eof:  # the rest is in unused_data (unconsumed_tail may still hold it too)
                data, full = self._zlib.unused_data, False
                if not data or self.encoding == "deflate":
                    return  # what follows a deflate stream is ignored
                self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)  # concatenated gzip members
            else:
                data = self._zlib.unconsumed_tail


def _make_decoders(content_encoding: str | None, budget: int) -> list[_Decoder]:
    if not content_encoding:
        return []
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    decoders = [_Decoder(c, budget) for c in reversed(codings) if c in ("gzip", "x-gzip", "deflate", "br")]
    return decoders


@dataclass(frozen=True, slots=True)
class DecodedBody:
    """A body as :func:`read_body` returns it: the decoded bytes, the bytes downloaded (``wire``) and whether
    it was cut at the budget (``truncated``). With ``as_parts``, ``body`` is empty and ``parts`` holds the
    decoded bytes as they arrived (not joined: a caller that reads them in turn never holds the body twice)."""

    body: bytes
    wire: int
    truncated: bool
    parts: tuple[bytes, ...] | None = None


class BodyDecoder:
    """Undo a body's Content-Encoding piece by piece under ``budget`` bytes (downloaded and decoded): what
    :func:`read_body` and :class:`~sitemapkit.fetch._http.HttpStream` share. :meth:`feed` takes the bytes of one
    network read and returns the decoded bytes they give (never more than what is left of the budget), so a caller
    that hands them on at once never holds more than one read's worth. ``truncate`` cuts at the budget instead of
    raising (``cut`` is set, ``done`` says to stop reading). A body whose Content-Encoding does not decode from its
    first bytes on is passed through as it came (its raw bytes are kept only until decoding produces something)."""

    __slots__ = (
        "_decoders",
        "_raw",
        "budget",
        "coding",
        "cut",
        "done",
        "passthrough",
        "produced",
        "truncate",
        "url",
        "wire",
    )

    def __init__(self, headers: Mapping[str, str], *, url: str, budget: int, truncate: bool = False) -> None:
        self.coding = headers.get("content-encoding")
        self._decoders = _make_decoders(self.coding, budget)
        self._raw: list[bytes] = []
        self.url = url
        self.budget = budget
        self.truncate = truncate
        self.wire = 0
        self.produced = 0
        self.passthrough = False
        self.cut = False
        self.done = False

    def feed(self, chunk: bytes) -> Iterator[bytes]:
        """The decoded bytes of ``chunk``, in pieces of at most :data:`PIECE` bytes (none empty) produced as they
        are taken. Raises :class:`ResponseTooLargeError` over budget (unless ``truncate``) and
        :class:`ContentDecodingError` for a body that breaks mid-way."""
        budget = self.budget
        self.wire += len(chunk)
        if self.wire > budget and self.truncate:
            chunk = chunk[: len(chunk) - (self.wire - budget)]
            self.wire, self.done, self.cut = budget, True, True
        elif self.wire > budget:
            raise ResponseTooLargeError(
                f"body exceeds the byte budget of {budget:,} bytes (download aborted)", url=self.url, limit=budget,
            )
        if not self._decoders or self.passthrough:
            if chunk:
                self.produced += len(chunk)
                yield chunk
            return
        self._raw.append(chunk)
        try:
            for data in _chain(self._decoders, chunk):
                if self._raw:
                    self._raw.clear()  # decoding works: the raw bytes are no longer needed for a fallback
                self.produced += len(data)
                yield data
        except OverflowError:
            if self.truncate:
                self.cut = self.done = True
                return
            raise ResponseTooLargeError(
                f"decoded body ({self.coding}) exceeds the byte budget of {budget:,} bytes (download aborted)",
                url=self.url, limit=budget,
            ) from None
        except (zlib.error, brotli.error) as exc:
            if self.produced == 0:
                # The server labels the body with a Content-Encoding it did not apply (common with .gz files):
                # keep the bytes as they came; the reader sniffs them.
                self.passthrough = True
                data = b"".join(self._raw)
                self._raw.clear()
                self.produced = len(data)
                if data:
                    yield data
                return
            raise ContentDecodingError(f"corrupt {self.coding} body: {exc}", url=self.url) from None


def _chain(decoders: list[_Decoder], data: bytes) -> Iterator[bytes]:
    """``data`` through every decoder in turn, piece by piece (no layer's output is held whole)."""
    first, rest = decoders[0], decoders[1:]
    for piece in first.decode(data):
        if rest:
            yield from _chain(rest, piece)
        else:
            yield piece


def refuse_oversized(headers: Mapping[str, str], *, url: str, budget: int) -> None:
    """Raise :class:`ResponseTooLargeError` when Content-Length announces more than ``budget`` bytes."""
    length = headers.get("content-length", "")
    if length.isdigit() and int(length) > budget:
        raise ResponseTooLargeError(
            f"Content-Length {int(length):,} exceeds the byte budget of {budget:,}", url=url, limit=budget,
        )


async def read_body(response: TransportResponse, headers: Mapping[str, str], *, url: str, budget: int,
                    truncate: bool = False, check_length: bool = True, as_parts: bool = False,
                    stall: float | None = None) -> DecodedBody:
    """Read ``response``'s body and undo its Content-Encoding, both under ``budget`` bytes.

    Over budget, raises :class:`ResponseTooLargeError` (before reading, from Content-Length, when
    ``check_length``), or with ``truncate`` keeps the first ``budget`` bytes. A body whose Content-Encoding does
    not decode from its first bytes on is kept as it came (servers label gzip *files* ``Content-Encoding:
    gzip``; the reader sniffs them); one that breaks later raises :class:`ContentDecodingError`. ``as_parts``:
    see :class:`DecodedBody`. ``stall``: see :func:`stalling`."""
    if check_length and not truncate:
        refuse_oversized(headers, url=url, budget=budget)
    decoder = BodyDecoder(headers, url=url, budget=budget, truncate=truncate)
    parts: list[bytes] = []
    arrived = getattr(response, "arrived", None)  # a transport may hand over a body that is all there already
    whole = arrived() if arrived is not None else None
    if whole is not None:
        if whole:
            parts.extend(decoder.feed(whole))
    else:
        async for chunk in stalling(response.iter_chunks(), stall, url):
            parts.extend(decoder.feed(chunk))
            if decoder.done:
                break
    if as_parts and not truncate:
        return DecodedBody(b"", decoder.wire, decoder.cut, tuple(parts))
    body = b"".join(parts)
    cut = decoder.cut
    if truncate and len(body) > budget:
        body, cut = body[:budget], True
    return DecodedBody(body, decoder.wire, cut)


async def stalling(chunks: AsyncIterator[bytes], stall: float | None, url: str) -> AsyncGenerator[bytes, None]:
    """``chunks``, each awaited at most ``stall`` seconds (a stall: no bytes for that long) before a retryable
    :class:`~sitemapkit.fetch._transports.TransportError` ("stalled: no bytes for N s"). None: no limit here
    (the transport's own read timeout still applies)."""
    if stall is None:
        async for chunk in chunks:
            yield chunk
        return
    it = chunks.__aiter__()
    try:
        while True:
            try:
                async with asyncio.timeout(stall):
                    chunk = await it.__anext__()
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise TransportError(f"stalled: no bytes for {stall:g} s while reading the body", url=url) from None
            yield chunk
    finally:
        aclose = getattr(it, "aclose", None)
        if aclose is not None:
            await aclose()
