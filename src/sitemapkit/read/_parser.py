"""The sitemap reader: one sans-I/O parser for every format, and thin drivers for bytes, files and streams.

Data flow (all incremental; nothing holds more than one entry and a bounded buffer)::

    feed(bytes) -> gzip layers (_sniff.GzipDecoder, byte budget) -> sniffing (_sniff: encoding, kind, DOCTYPE)
                -> engine: XML (_xml, lxml pull parser: urlset, index, RSS 2.0/1.0, Atom 1.0/0.3; its byte
                           plumbing in _xmlstream, extension elements in _fields, canonical <url> blocks in _lane)
                           or text (_text, one URL a line)
                -> events: UrlEntry | SitemapRef | Problem  (or Located(...) wrappers with positions=True)

The engines see this parser as an ``_owner.Owner`` (they never import it); the drivers for bytes, files and
streams (``parse_bytes``, ``read_file``, ``iter_events``) are in ``_drivers``.

Lenient mode (the default) records problems as values and goes on; strict mode raises
:class:`~sitemapkit.ParseError` at the first error, or at the first warning that lenient mode had to repair
(``_codes.STRICT_FATAL``). A budget overrun raises :class:`~sitemapkit.LimitExceededError` in strict mode.
"""

from __future__ import annotations

import codecs
import zlib
from collections.abc import Iterator
from dataclasses import replace
from typing import Protocol

from sitemapkit.core import (
    DEFAULT_MAX_DECOMPRESSED_BYTES,
    MAX_INDEX_ENTRIES,
    MAX_SITEMAP_BYTES,
    MAX_URLS_PER_SITEMAP,
    InputError,
    LimitExceededError,
    Location,
    ParseError,
    ProblemCode,
    Severity,
    SitemapkitError,
    SitemapRef,
    UrlEntry,
)
from sitemapkit.read import _codes as C
from sitemapkit.read._owner import DUPLICATE_TRACKING_LIMIT, Event, Located
from sitemapkit.read._sniff import (
    DocumentKind,
    EncodingInfo,
    GzipDecoder,
    GzipNestingError,
    KindInfo,
    _doctype_end,
    detect_encoding,
    is_gzip,
    sniff_kind,
)

__all__ = ["DUPLICATE_TRACKING_LIMIT", "READ_CHUNK", "Event", "Located", "ReaderStateError", "SitemapParser"]

#: Bytes read ahead to find the root element before giving up on sniffing (a prolog of comments, PIs and
#: whitespace longer than this is not a sitemap anyone serves).
SNIFF_LIMIT = 256 * 1024
#: Compressed input is inflated this many bytes at a time (at most ~1 MiB of output per step).
_GZ_STEP = 1024
#: Chunk size of the file/stream drivers.
READ_CHUNK = 64 * 1024


class ReaderStateError(SitemapkitError, RuntimeError):
    """The parser was used out of order (``feed`` after ``close``)."""


class _Engine(Protocol):
    def feed(self, data: bytes) -> None: ...

    def close(self) -> None: ...

    def release(self) -> None: ...


class SitemapParser:
    """Incremental reader for every sitemap format.

    ``feed(data)`` any number of times with consecutive pieces of the document, then ``close()``; each returns the
    events completed so far. ``kind`` is None until enough bytes were seen to tell the format.

    Example::

        parser = SitemapParser("https://example.com/sitemap.xml.gz")
        for chunk in response_chunks:
            for event in parser.feed(chunk):
                ...
        events = parser.close()

    ``loc_runs=True`` (without ``positions``) lets a reader that needs the locs only take runs of plain urlset
    entries as :class:`~sitemapkit.read.LocRun` events: their locs, with every other value checked in bulk, and
    the entries built only when asked for (``run.entries()``). Problems and counts are what they would be without.
    """

    def __init__(
        self,
        source: str = "<bytes>",
        *,
        strict: bool = False,
        max_decompressed_bytes: int | None = DEFAULT_MAX_DECOMPRESSED_BYTES,
        positions: bool = False,
        loc_runs: bool = False,
    ) -> None:
        self.source = source
        self.strict = strict
        self.max_decompressed_bytes = max_decompressed_bytes
        self.positions = positions
        self.loc_runs = loc_runs and not positions
        self._out: list[Event] = []
        self._head = b""  # until gzip is decided
        self._gz_decided = False
        self._gz: GzipDecoder | None = None
        self._gz_carry = b""  # compressed bytes short of a whole step (_GZ_STEP)
        self._prefix = bytearray()  # until the kind is decided
        self._engine: _Engine | None = None
        self._kind: DocumentKind | None = None
        self._kind_info: KindInfo | None = None
        self._encoding: EncodingInfo | None = None
        self._plain_total = 0
        self._doc_bytes = 0  # bytes of the document itself (after gzip), for the 50 MiB limit
        self._over_said = False
        self._stopped = False
        self._closed = False
        self._seen: set[int] = set()
        self._items = 0
        self.error_count = 0
        self.warning_count = 0

    # --- public -------------------------------------------------------------------------------------------
    @property
    def kind(self) -> DocumentKind | None:
        """The document's kind once sniffed (None before)."""
        return self._kind

    @property
    def kind_info(self) -> KindInfo | None:
        """Root element, namespace and DOCTYPE details of the sniffed document."""
        return self._kind_info

    @property
    def encoding(self) -> EncodingInfo | None:
        return self._encoding

    @property
    def gzip_layers(self) -> int:
        return self._gz.layers if self._gz is not None else 0

    @property
    def stopped(self) -> bool:
        """True once reading has stopped (a fatal error, a budget, not a sitemap): further input is ignored, so a
        caller may stop reading its stream and call :meth:`close`."""
        return self._stopped

    def feed(self, data: bytes) -> list[Event]:
        """Read the next piece of the document; returns the events it completed (all of them at once: for
        compressed input of unknown ratio, :meth:`feed_steps` keeps memory bounded)."""
        if self._closed:
            raise ReaderStateError("feed() called after close()")
        if data and not self._stopped:
            try:
                self._feed(bytes(data))
            except InputError as exc:
                exc.events = tuple(self._take())
                raise
        return self._take()

    def feed_steps(self, data: bytes) -> Iterator[list[Event]]:
        """:meth:`feed` in bounded steps: yields the events completed after each slice of document bytes (at most
        256 KiB of inflated gzip), so a gzip bomb's events never pile up. Exhaust it before the next call."""
        if self._closed:
            raise ReaderStateError("feed() called after close()")
        return self._batches_of(self._steps(bytes(data)) if data and not self._stopped else iter(()))

    def close(self) -> list[Event]:
        """End of the document: flush, report truncation, and return the last events."""
        if self._closed:
            raise ReaderStateError("close() called twice")
        self._closed = True
        try:
            for _ in self._close_steps():
                pass
        except InputError as exc:
            exc.events = tuple(self._take())
            raise
        return self._take()

    def close_steps(self) -> Iterator[list[Event]]:
        """:meth:`close` in bounded steps, as :meth:`feed_steps`."""
        if self._closed:
            raise ReaderStateError("close() called twice")
        self._closed = True
        return self._batches_of(self._close_steps())

    def _batches_of(self, steps: Iterator[None]) -> Iterator[list[Event]]:
        try:
            for _ in steps:
                if self._out:
                    yield self._take()
        except InputError:
            # strict mode: the events completed before the error come first, then the error
            if self._out:
                yield self._take()
            raise
        if self._out:
            yield self._take()

    def _close_steps(self) -> Iterator[None]:
        try:
            yield from self._closing()
        finally:
            self._release()

    def _release(self) -> None:
        """The document is over: drop the engine (which points back here, and holds lxml's parser and the tree it
        built) and the duplicate hashes, so they are freed now rather than at the next cyclic collection (reading
        many documents in a row would otherwise hold several dead parsers at once)."""
        engine, self._engine = self._engine, None
        if engine is not None:
            engine.release()
        self._seen = set()

    def _closing(self) -> Iterator[None]:
        if not self._stopped:
            if not self._gz_decided:
                yield from self._steps(b"", final=True)  # a document shorter than the gzip magic
            if self._gz is not None and self._gz_carry and not self._stopped:
                yield from self._steps(b"", final=True)
            if self._gz is not None and not self._stopped:
                for piece in self._gz.flush():
                    self._body(piece)
                if not self._stopped and not self._gz.exceeded:
                    if not self._gz.finished:
                        self.problem(C.BAD_GZIP, "gzip data ends before the end of its stream (truncated)")
                    elif self._gz.trailing_garbage:
                        self.problem(C.GZIP_TRAILING)
            if not self._stopped and self._engine is None:
                self._start(final=True)
            if not self._stopped and self._engine is not None:
                self._engine.close()
        self._over_limits()

    def _over_limits(self) -> None:
        """The protocol's per-file limits, said once at the end with the true figures (every URL is kept)."""
        if self._kind not in (DocumentKind.URLSET, DocumentKind.TEXT) or self._over_said:
            return
        self._over_said = True
        # Every URL was read unless reading stopped (a budget, an error): then the figures are those read so far.
        read = " (reading stopped: at least this many)" if self._stopped else " (every URL was read)"
        if self._items > MAX_URLS_PER_SITEMAP:
            self.problem(C.URLSET_TOO_MANY, f"{self._items:,} URLs in this sitemap: a sitemap holds at most "
                         f"{MAX_URLS_PER_SITEMAP:,}; split it{read}")
        if self._doc_bytes > MAX_SITEMAP_BYTES:
            self.problem(C.URLSET_TOO_LARGE, f"{self._doc_bytes:,} bytes uncompressed: a sitemap is at most "
                         f"{MAX_SITEMAP_BYTES:,} bytes (50 MiB); split it{read}")

    # --- for the engines ----------------------------------------------------------------------------------
    def problem(
        self,
        pc: ProblemCode,
        message: str | None = None,
        line: int | None = None,
        column: int | None = None,
        loc: str | None = None,
    ) -> None:
        """Record a problem (lenient) or raise :class:`ParseError` (strict, for errors and repaired warnings)."""
        p = pc.problem(Location(self.source, line, column, loc), message)
        if self.strict and (p.severity is Severity.ERROR or p.code in C.STRICT_FATAL):
            self._stopped = True
            raise ParseError(replace(p, severity=Severity.ERROR))
        if p.severity is Severity.ERROR:
            self.error_count += 1
        else:
            self.warning_count += 1
        self._out.append(p)

    def stop(self) -> None:
        """An engine hit the end of what it can read: ignore any further input."""
        self._stopped = True

    def emit(self, item: UrlEntry | SitemapRef, line: int | None, column: int | None, raw_loc: str) -> None:
        """An entry is complete (the hot path: one call per entry)."""
        seen = self._seen
        before = len(seen)
        if before < DUPLICATE_TRACKING_LIMIT:
            seen.add(hash(item.loc))
            if len(seen) == before:
                self.problem(C.DUPLICATE_LOC, f"duplicate loc {item.loc}", line, column, item.loc)
        elif hash(item.loc) in seen:
            self.problem(C.DUPLICATE_LOC, f"duplicate loc {item.loc}", line, column, item.loc)
        self._items += 1
        if self._items == MAX_INDEX_ENTRIES + 1 and self._kind is DocumentKind.INDEX:
            self.problem(C.INDEX_TOO_BIG, f"sitemap {self._items:,} of this index: an index lists at most "
                         f"{MAX_INDEX_ENTRIES:,} sitemaps; split it", line, column, item.loc)
        if self.positions:
            self._out.append(Located(item, line, column, raw_loc))
        else:
            self._out.append(item)

    @property
    def entry_count(self) -> int:
        """UrlEntry values emitted so far."""
        return 0 if self._kind is DocumentKind.INDEX else self._items

    @property
    def sitemap_count(self) -> int:
        """SitemapRef values emitted so far (sitemap indexes)."""
        return self._items if self._kind is DocumentKind.INDEX else 0

    # --- internals ----------------------------------------------------------------------------------------
    def _take(self) -> list[Event]:
        out, self._out = self._out, []
        return out

    def _limit(self) -> None:
        limit = self.max_decompressed_bytes or 0
        message = f"the document exceeds the budget of {limit:,} bytes (max_decompressed_bytes); reading stopped"
        self._stopped = True
        if self.strict:
            raise LimitExceededError(f"{self.source}: {message}", limit=limit, source=self.source)
        self.problem(C.SIZE_LIMIT, message)

    def _decide_gzip(self, *, final: bool) -> bytes:
        head = self._head
        if len(head) < 2 and not final:
            return b""
        self._gz_decided = True
        self._head = b""
        if is_gzip(head):
            self._gz = GzipDecoder(max_bytes=self.max_decompressed_bytes, source=self.source)
        return head

    def _feed(self, data: bytes, *, final: bool = False) -> None:
        for _ in self._steps(data, final=final):
            pass

    def _steps(self, data: bytes, *, final: bool = False) -> Iterator[None]:
        """Read ``data``, yielding after each piece handed to the engine (one slice of inflated gzip at most), so
        that the events of a highly compressed document can be taken as they come."""
        if not self._gz_decided:
            self._head += data
            data = self._decide_gzip(final=final)
            if not data:
                return
        gz = self._gz
        if gz is None:
            self._plain_total += len(data)
            budget = self.max_decompressed_bytes
            if budget is not None and self._plain_total > budget:
                keep = len(data) - (self._plain_total - budget)
                if keep > 0:
                    self._body(data[:keep])
                if not self._stopped:
                    self._limit()
                return
            self._body(data)
            yield
            return
        # The inflater gets the compressed stream in steps at fixed offsets (a short step only at the end), whatever
        # the caller's chunking: what a corrupt step loses and where the budget stops then do not depend on it.
        if self._gz_carry:
            data = self._gz_carry + data
            self._gz_carry = b""
        end = len(data) if final else len(data) - len(data) % _GZ_STEP
        self._gz_carry = data[end:]
        for start in range(0, end, _GZ_STEP):
            try:
                # Lazily, one slice at a time: whatever the ratio (gzip in gzip too), no more than one slice per
                # layer is inflated before its events are taken.
                for piece in gz.iter_decompress(data[start:start + _GZ_STEP]):
                    self._body(piece)
                    if self._stopped:
                        return
                    yield
            except GzipNestingError as exc:
                self.problem(C.GZIP_LAYERS, f"{exc}; reading stopped")
                self._stopped = True
                return
            except zlib.error as exc:
                self.problem(C.BAD_GZIP, f"corrupt gzip data ({exc}); reading stopped")
                self._stopped = True
                return
            if gz.exceeded:
                self._limit()
                return

    def _body(self, data: bytes) -> None:
        self._doc_bytes += len(data)
        if self._engine is None:
            self._prefix += data
            self._start(final=False)
            return
        self._engine.feed(data)

    def _start(self, *, final: bool) -> None:
        prefix = bytes(self._prefix)
        if len(prefix) < 4 and not final:
            return
        enc = detect_encoding(prefix[:1024])
        if not enc.known:
            self.problem(C.UNDECODABLE, f"unknown encoding {enc.declared!r} declared; reading stopped", 1, 1)
            self._stopped = True
            return
        done = final or len(prefix) >= SNIFF_LIMIT
        # An incremental decoder holds back a multi-byte character cut at the end of the prefix.
        text = codecs.getincrementaldecoder(enc.encoding)("replace").decode(
            prefix[enc.bom_length:enc.bom_length + SNIFF_LIMIT], final=done)
        info = sniff_kind(text, final=done)
        if not info.complete:
            return
        self._prefix = bytearray()
        self._kind_info = info
        self._encoding = enc
        self._kind = info.kind
        kind = info.kind
        if kind is DocumentKind.HTML:
            self.problem(C.NOT_SITEMAP_HTML, "HTML page, not a sitemap; no URLs read", 1, 1)
            self._stopped = True
            return
        if info.doctype is not None:
            at = text.upper().find("<!DOCTYPE")
            line = text.count("\n", 0, at) + 1 if at >= 0 else 1
            column = at - text.rfind("\n", 0, at) if at >= 0 else 1
            # Quoted up to the declaration's end: the text after it depends on how many bytes had arrived.
            end = _doctype_end(text, at + 9) if at >= 0 else -1
            quoted = text[at:min(end, at + 60)] if end >= 0 else (text[at:at + 60] if at >= 0 else info.doctype[:60])
            self.problem(C.DTD_REFUSED, f"DOCTYPE refused ({quoted!r}...); no entity is expanded, "
                         "nothing is read from the document", line, column)
            self._stopped = True
            return
        if kind is DocumentKind.UNKNOWN:
            if not text.strip():
                what = "empty document"
            elif info.root:
                what = f"root element <{info.root}> is not urlset, sitemapindex, rss, rdf:RDF or feed"
            else:
                what = "no root element found"
            self.problem(C.NOT_SITEMAP, f"not a sitemap: {what}", 1, 1)
            self._stopped = True
            return
        if kind is DocumentKind.TEXT:
            from sitemapkit.read._text import TextEngine

            self._engine = TextEngine(self, enc)
            if C.named_xml(self.source):
                self.problem(C.TEXT_NAMED_XML, f"{self.source} is named .xml but holds a text sitemap (one URL a "
                             "line): read as text", 1, 1)
        else:
            # Imported on the first XML document: ``import sitemapkit`` does not load lxml. (A one-way dependency:
            # the engines know the parser only as an ``_owner.Owner``.)
            from sitemapkit.read._xml import XmlEngine

            self._engine = XmlEngine(self, info, enc)
        if not enc.is_utf8 and enc.encoding != "ascii":
            self.problem(C.NOT_UTF8, f"document is {enc.declared or enc.encoding}, not UTF-8; decoded as such", 1, 1)
        self._engine.feed(prefix)
