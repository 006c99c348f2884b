"""One document's bytes, as they arrive, into the pass for its kind: gzip inflated under the budget, the head held
until its kind is known (``_Sink``), then a streaming pass (``XmlPass`` for urlset / index, ``TextPass``,
``FeedPass``). Everything here gives the same result however the bytes are cut (``tests/validate/test_chunking.py``
and ``benchmarks/fuzz_validator.py`` compare one feed, pieces and files)."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable

from sitemapkit.core import DEFAULT_MAX_DECOMPRESSED_BYTES, MAX_SITEMAP_BYTES
from sitemapkit.read import (
    TEXT_NAMED_XML,
    DocumentKind,
    EncodingInfo,
    GzipDecoder,
    detect_encoding,
    is_gzip,
    lane_enabled,
    named_xml,
    sniff_kind,
)
from sitemapkit.validate import _codes as C
from sitemapkit.validate._context import FileContext
from sitemapkit.validate._files import GZ_STEP as _GZ_STEP
from sitemapkit.validate._lane import ValidatorLane
from sitemapkit.validate._strategy import LaneFactory
from sitemapkit.validate._text import FeedPass, TextPass
from sitemapkit.validate._transcode import Utf8Feed
from sitemapkit.validate._xml import SITEMAP_NS, XmlPass

__all__ = ["run_stream"]

#: The head is first sniffed when it holds this many bytes (then each time it doubles, see ``_Sink``).
_SNIFF_BYTES = 65536
#: Bytes from which the encoding is decided (``detect_encoding`` reads the XML declaration within them).
_ENCODING_BYTES = 1024
#: A root start tag (or a prolog) longer than this is judged from its first this many bytes.
_SNIFF_CAP = 16 << 20


def _lane_factory() -> LaneFactory | None:
    """The fast lane the XML pass is given (a urlset's canonical blocks checked from the bytes), unless turned
    off (``sitemapkit.read._lane.ENABLED``, for the tests that compare both paths)."""
    return ValidatorLane if lane_enabled() else None


class _Sink:
    """Receives the decompressed bytes: holds the head until its kind is known, then streams into one pass.

    The head is sniffed once it holds :data:`_SNIFF_BYTES` (and every time it doubles after that) until the answer
    is final: the root start tag complete, whatever its size (a 1.5 MB attribute on ``<urlset>`` included), or
    :data:`_SNIFF_CAP` bytes without it, then judged from exactly that many. A complete answer does not change
    with more bytes, so the kind, the namespace and the pass chosen are the same however the bytes arrive."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.size = 0
        self._head: list[bytes] = []
        self._head_size = 0
        self._next_sniff = max(_SNIFF_BYTES, _ENCODING_BYTES)
        self._pass: XmlPass | Utf8Feed | TextPass | FeedPass | None = None
        self._skip = False
        self._too_big = False

    def write(self, data: bytes) -> None:
        if not data:
            return
        self.size += len(data)
        if self.size > MAX_SITEMAP_BYTES and not self._too_big:
            self._too_big = True
            self.ctx.report(C.TOO_BIG, f"more than {MAX_SITEMAP_BYTES:,} bytes uncompressed: split the file")
        if self._skip:
            return
        if self._pass is None:
            self._head.append(data)
            self._head_size += len(data)
            if self._head_size >= self._next_sniff:
                self._next_sniff = min(2 * self._head_size, _SNIFF_CAP)
                self._start(final=False)
            return
        self._pass.feed(data)

    def close(self, *, cut: bool = False) -> None:
        """The end of the bytes; ``cut`` when reading stopped inside the document (its last line is not a URL)."""
        if self._pass is None and not self._skip:
            self._start(final=True)
        if isinstance(self._pass, TextPass):
            self._pass.close(cut=cut)
        elif self._pass is not None:
            self._pass.close()

    def _start(self, *, final: bool) -> None:
        ctx = self.ctx
        head = b"".join(self._head)
        self._head = [head]
        if final and not head.strip(b" \t\r\n\x00"):
            ctx.kind = "empty"
            ctx.report(C.EMPTY_FILE, "empty file: a sitemap needs a root element and at least one entry"
                       if not head else "the file holds only whitespace")
            self._skip = True
            return
        enc = detect_encoding(head[:_ENCODING_BYTES])
        codec = enc.encoding if enc.known else "utf-8"
        # At most _SNIFF_CAP bytes are looked at: a root start tag not complete within them is judged from them.
        info = sniff_kind(head[enc.bom_length:_SNIFF_CAP].decode(codec, errors="replace"),
                          final=final or len(head) >= _SNIFF_CAP)
        if not info.complete:
            return  # the root start tag is not complete yet: wait for more
        self._head = []
        kind = info.kind
        ctx.kind = kind.value
        if not enc.is_utf8 or not enc.known:
            found = enc.declared or enc.encoding
            ctx.report(C.ENCODING, f"the file is {found} ({enc.source}); sitemaps must be UTF-8: re-encode it", 1)
        if info.doctype is not None and kind is not DocumentKind.HTML:
            ctx.report(C.DOCTYPE, "a DOCTYPE is declared: remove it (DTDs and entities are never read)", 1)
            self._skip = True
            return
        if kind is DocumentKind.HTML:
            ctx.report(C.UNREADABLE, "this is an HTML page, not a sitemap: serve the sitemap itself", 1)
            self._skip = True
            return
        if kind in (DocumentKind.URLSET, DocumentKind.INDEX) and info.root not in ("urlset", "sitemapindex"):
            ctx.report(C.ROOT_ELEMENT, f"root element <{info.root}>: XML names are case-sensitive; write "
                                       f"<{(info.root or '').lower()}> and lowercase element names", 1)
            self._skip = True
            return
        if kind in (DocumentKind.URLSET, DocumentKind.INDEX):
            ns_ok = info.namespace == SITEMAP_NS
            if not ns_ok:
                got = f"namespace {info.namespace!r}" if info.namespace else "no namespace"
                ctx.report(C.NAMESPACE, f"<{info.root}> has {got}: use xmlns=\"{SITEMAP_NS}\" (http, no trailing "
                                        "slash)", 1)
            self._pass = _xml_pass(ctx, enc, index=kind is DocumentKind.INDEX, namespace_ok=ns_ok)
        elif kind is DocumentKind.TEXT:
            self._pass = TextPass(ctx, enc.encoding if enc.known else "utf-8")
            if named_xml(ctx.source):  # the reader's code: urls and validate say it alike
                ctx.report(TEXT_NAMED_XML, f"{ctx.source} is named .xml but holds a text sitemap (one URL a line): "
                                           "read as text", 1, 1)
            head = head[enc.bom_length:]
        elif kind in (DocumentKind.RSS, DocumentKind.ATOM):
            self._pass = FeedPass(ctx)
        else:
            if info.root is not None:
                ctx.report(C.ROOT_ELEMENT, f"root element <{info.root}> is not a sitemap: use <urlset> or "
                                           "<sitemapindex>", 1)
            else:
                # Not even a root element: let the XML parser say where it breaks.
                self._pass = _xml_pass(ctx, enc, index=False, namespace_ok=False)
                self._pass.feed(head)
                return
            self._skip = True
            return
        self._pass.feed(head)


def _xml_pass(ctx: FileContext, enc: EncodingInfo, *, index: bool, namespace_ok: bool) -> XmlPass | Utf8Feed:
    """The XML pass for a document; one in another encoding than UTF-8 is decoded here (``_transcode``)."""
    if enc.is_utf8 or not enc.known:
        return XmlPass(ctx, index=index, namespace_ok=namespace_ok, lane=_lane_factory())
    xp = XmlPass(ctx, index=index, namespace_ok=namespace_ok, lane=_lane_factory(), encoding="utf-8")
    return Utf8Feed(xp, ctx, enc.encoding, enc.bom_length)


def run_stream(ctx: FileContext, chunks: Iterable[bytes], on_chunk: Callable[[int], None] | None = None) -> None:
    """One document's bytes, as they arrive, into a :class:`_Sink` (through the gzip decoder when compressed).

    Whatever the chunking, the decision on gzip is made on the first two bytes, and the decoder gets the
    compressed stream in steps of :data:`_GZ_STEP` bytes at fixed offsets (a short one only at the end), so where
    a corrupt stream or the budget stops the output does not depend on how the bytes arrived."""
    sink = _Sink(ctx)
    decoder: GzipDecoder | None = None
    decided = False
    cut = False  # reading stopped inside the document (corrupt or truncated gzip, the budget)
    carry = b""  # the first byte (gzip undecided), or compressed bytes short of a step
    for chunk in chunks:
        if on_chunk is not None:
            on_chunk(len(chunk))
        if not decided:
            chunk = carry + chunk
            carry = b""
            if len(chunk) < 2:
                carry = chunk
                continue
            decided = True
            if is_gzip(chunk):
                decoder = GzipDecoder(max_bytes=DEFAULT_MAX_DECOMPRESSED_BYTES, source=ctx.source)
        if decoder is None:
            sink.write(chunk)
            continue
        data = carry + chunk
        end = len(data) - len(data) % _GZ_STEP
        carry = data[end:]
        if not _inflate(ctx, decoder, sink, data[:end]):
            cut = True
            break
    else:
        if not decided:
            sink.write(carry)
        elif decoder is not None:
            if not carry or _inflate(ctx, decoder, sink, carry):
                for piece in decoder.flush():
                    sink.write(piece)
                if not decoder.finished and not decoder.exceeded:
                    ctx.report(C.UNREADABLE, "the gzip stream is truncated: recompress the file")
                    cut = True
            else:
                cut = True
    sink.close(cut=cut)


def _inflate(ctx: FileContext, decoder: GzipDecoder, sink: _Sink, data: bytes) -> bool:
    """Inflate ``data`` step by step into the sink; False when reading stops (corrupt data, the budget)."""
    for start in range(0, len(data), _GZ_STEP):
        try:
            for piece in decoder.iter_decompress(data[start:start + _GZ_STEP]):  # lazily: one slice at a time
                sink.write(piece)
        except zlib.error as exc:
            ctx.report(C.UNREADABLE, f"corrupt gzip data ({exc}): recompress the file")
            return False
        if decoder.exceeded:
            ctx.report(C.TOO_BIG, f"decompressed data passed {DEFAULT_MAX_DECOMPRESSED_BYTES:,} bytes; reading "
                                  "stopped: split the file")
            return False
    return True
