"""The response decoder of :class:`~sitemapkit.fetch.HttpClient`: reads a transport's body under a byte budget
and undoes its Content-Encoding (gzip, deflate, br) incrementally, so an oversized body or a compression bomb is
aborted early (:class:`ResponseTooLargeError`), or cut at the budget when truncation is asked for."""

from __future__ import annotations

import zlib
from collections.abc import Mapping
from dataclasses import dataclass

import brotli

from sitemapkit.core._errors import FetchError
from sitemapkit.fetch._transports import TransportResponse

__all__ = ["ContentDecodingError", "DecodedBody", "ResponseTooLargeError", "read_body"]


class ResponseTooLargeError(FetchError):
    """The body (as downloaded or once decoded) exceeded the byte budget; the download was aborted early."""

    def __init__(self, message: str, *, url: str, limit: int) -> None:
        super().__init__(message, url=url)
        self.limit = limit


class ContentDecodingError(FetchError):
    """The body could not be decoded according to its Content-Encoding (corrupt gzip/deflate/br stream)."""



class _Decoder:
    """Undo one Content-Encoding incrementally, never producing more than ``limit`` bytes per call."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._first = True
        self._zlib: zlib._Decompress | None = None
        self._br: brotli.Decompressor | None = None
        if encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = zlib.decompressobj(zlib.MAX_WBITS)
        elif encoding == "br":
            self._br = brotli.Decompressor()

    def decode(self, data: bytes, limit: int) -> bytes:
        """Decode ``data``; raises OverflowError when the output would exceed ``limit`` bytes."""
        if self._br is not None:
            out = self._br.process(data, output_buffer_limit=limit + 1)
            if len(out) > limit or (not self._br.can_accept_more_data() and not self._br.is_finished()):
                raise OverflowError
            return bytes(out)
        if self._zlib is None:
            return data
        if self._first and self.encoding == "deflate" and data and (data[0] & 0x0F) != 8:
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, as some servers send it
        self._first = False
        parts: list[bytes] = []
        produced = 0
        while data:
            chunk = self._zlib.decompress(data, limit - produced + 1)
            produced += len(chunk)
            if produced > limit:
                raise OverflowError
            parts.append(chunk)
            data = self._zlib.unconsumed_tail
            if not data and self._zlib.eof and self._zlib.unused_data and self.encoding != "deflate":
                # concatenated gzip members
                data = self._zlib.unused_data
                self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        return b"".join(parts)


def _make_decoders(content_encoding: str | None) -> list[_Decoder]:
    if not content_encoding:
        return []
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    decoders = [_Decoder(c) for c in reversed(codings) if c in ("gzip", "x-gzip", "deflate", "br")]
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


async def read_body(response: TransportResponse, headers: Mapping[str, str], *, url: str, budget: int,
                    truncate: bool = False, check_length: bool = True, as_parts: bool = False) -> DecodedBody:
    """Read ``response``'s body and undo its Content-Encoding, both under ``budget`` bytes.

    Over budget, raises :class:`ResponseTooLargeError` (before reading, from Content-Length, when
    ``check_length``), or with ``truncate`` keeps the first ``budget`` bytes. A body whose Content-Encoding does
    not decode from its first bytes on is kept as it came (servers label gzip *files* ``Content-Encoding:
    gzip``; the reader sniffs them); one that breaks later raises :class:`ContentDecodingError`. ``as_parts``:
    see :class:`DecodedBody`."""
    length = headers.get("content-length", "")
    if check_length and length.isdigit() and int(length) > budget and not truncate:
        raise ResponseTooLargeError(
            f"Content-Length {int(length):,} exceeds the byte budget of {budget:,}", url=url, limit=budget,
        )
    decoders = _make_decoders(headers.get("content-encoding"))
    raw_parts: list[bytes] = []
    parts: list[bytes] = []
    wire = 0
    produced = 0
    passthrough = False
    cut = False
    async for chunk in response.iter_chunks():
        wire += len(chunk)
        last = False
        if wire > budget and truncate:
            chunk = chunk[: len(chunk) - (wire - budget)]
            wire, last, cut = budget, True, True
        elif wire > budget:
            raise ResponseTooLargeError(
                f"body exceeds the byte budget of {budget:,} bytes (download aborted)", url=url, limit=budget,
            )
        if not decoders or passthrough:
            parts.append(chunk)
            produced += len(chunk)
            if last:
                break
            continue
        raw_parts.append(chunk)
        try:
            data = chunk
            for dec in decoders:
                data = dec.decode(data, budget - produced)
        except OverflowError:
            if truncate:
                cut = True
                break
            raise ResponseTooLargeError(
                f"decoded body ({headers.get('content-encoding')}) exceeds the byte budget of {budget:,}"
                " bytes (download aborted)", url=url, limit=budget,
            ) from None
        except (zlib.error, brotli.error) as exc:
            if produced == 0:
                # The server labels the body with a Content-Encoding it did not apply (common with .gz
                # files): keep the bytes as they came; the reader sniffs them.
                passthrough = True
                parts = list(raw_parts)
                produced = sum(len(p) for p in parts)
                continue
            raise ContentDecodingError(f"corrupt {headers.get('content-encoding')} body: {exc}", url=url) from None
        produced += len(data)
        parts.append(data)
        if produced:
            raw_parts.clear()  # decoding works: the raw bytes are no longer needed for a fallback
        if last:
            break
    if as_parts and not truncate:
        return DecodedBody(b"", wire, cut, tuple(p for p in parts if p))
    body = b"".join(parts)
    if truncate and len(body) > budget:
        body, cut = body[:budget], True
    return DecodedBody(body, wire, cut)
