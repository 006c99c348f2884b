"""Sniffing: what a byte stream is, decided from the bytes alone (never a file name or a Content-Type).

Three layers, each usable on its own (the reader drives them incrementally; the validator reuses them):

1. **Compression.** :class:`GzipDecoder` inflates gzip by its magic bytes, also gzip inside gzip and concatenated
   members, under a byte budget (:class:`~sitemapkit.LimitExceededError` past it), lazily in slices of at most
   256 KiB (``iter_decompress``) so a bomb never gets a chance to allocate its payload, whatever its ratio or
   nesting; more than three layers is :class:`GzipNestingError`.
2. **Encoding.** :func:`detect_encoding` reads byte-order marks (UTF-8/16/32), the BOM-less UTF-16/32 patterns of
   ``<?xml`` and the ``encoding=`` of the XML declaration; the default is UTF-8.
3. **Kind.** :func:`sniff_kind` skips the prolog (whitespace, XML declaration, comments, processing instructions)
   and names the document by its root element: urlset, sitemap index, RSS 2.0 / 1.0, Atom, HTML; text that does
   not start with ``<`` is a text sitemap. A ``<!DOCTYPE`` other than HTML's is reported so that the reader can
   refuse it before any XML parser sees it.
"""

from __future__ import annotations

import codecs
import enum
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass

from sitemapkit.core import DEFAULT_MAX_DECOMPRESSED_BYTES, LimitExceededError

__all__ = [
    "GZIP_MAGIC",
    "MAX_GZIP_LAYERS",
    "DocumentKind",
    "EncodingInfo",
    "GzipDecoder",
    "GzipNestingError",
    "KindInfo",
    "Sniffed",
    "decompress",
    "detect_encoding",
    "is_gzip",
    "python_codec",
    "sniff",
    "sniff_kind",
]

#: The two bytes every gzip member starts with (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"
#: Gzip inside gzip inside ... is unwrapped this many times at most (double compression is a real server bug;
#: deeper nesting is not).
MAX_GZIP_LAYERS = 3
#: Output is produced in slices of this many bytes, so memory stays flat whatever the compression ratio.
_SLICE = 256 * 1024

#: Namespace of sitemaps.org 0.9 (RULES.md 1).
SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


class DocumentKind(enum.Enum):
    """What a document is, from its bytes."""

    URLSET = "urlset"
    INDEX = "index"
    TEXT = "text"
    RSS = "rss"
    ATOM = "atom"
    HTML = "html"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value

    @property
    def is_sitemap(self) -> bool:
        """True for every kind a sitemap consumer reads entries from (not HTML, not unknown)."""
        return self not in (DocumentKind.HTML, DocumentKind.UNKNOWN)


def is_gzip(data: bytes) -> bool:
    """True when ``data`` starts with the gzip magic bytes."""
    return data[:2] == GZIP_MAGIC


class GzipNestingError(zlib.error):
    """Gzip inside gzip deeper than ``max_layers``: no server compresses that often by mistake. A subclass of
    ``zlib.error``, so every caller that handles corrupt gzip data stops on it too."""


class _Layer:
    """One gzip stream: several concatenated members are read; NUL padding after the last one is ignored."""

    __slots__ = ("_between", "_d", "_done", "_trailing")

    def __init__(self) -> None:
        self._d = zlib.decompressobj(wbits=31)
        self._done = False
        self._trailing = False
        #: After a member's end: the bytes seen since, until they show another member (magic) or garbage.
        self._between: bytes | None = None

    @property
    def finished(self) -> bool:
        """True once a member ended (what follows it, if anything, is another member or ignored)."""
        return self._done or self._between is not None

    def inflate(self, data: bytes) -> Iterator[bytes]:
        """Inflate ``data`` lazily, in slices of at most ``_SLICE`` bytes: whatever the compression ratio, only
        one slice exists at a time (zlib's ``max_length``; the input it did not reach waits in
        ``unconsumed_tail``). The caller must exhaust the iterator before the next call."""
        while not self._done:
            if self._between is not None:
                # After a member: another member (its magic may be cut by the read boundary), NUL padding, or
                # trailing garbage. Decided the same way however the bytes arrive.
                data = self._between + data
                if data[:2] == GZIP_MAGIC:
                    self._between = None
                    self._d = zlib.decompressobj(wbits=31)
                elif data == GZIP_MAGIC[:1]:
                    self._between = data
                    return
                elif not data.strip(b"\x00"):
                    self._between = data[:1]  # b"\x00" remembers padding: a member after it is garbage
                    return
                else:
                    self._trailing = True
                    self._done = True
                    return
            d = self._d
            chunk = d.decompress(data, _SLICE)
            data = d.unconsumed_tail
            if d.eof:
                data = d.unused_data
                self._between = b""
            if chunk:
                yield chunk
            if not data and (self._between is not None or len(chunk) < _SLICE):
                return  # input used up (a full slice may leave output inside zlib: ask again with no input)

    def finish(self) -> None:
        """End of input: a cut-off magic byte (or any non-NUL byte) after the last member is trailing data."""
        if self._between:
            if self._between.strip(b"\x00"):
                self._trailing = True
            self._between = b""


class GzipDecoder:
    """Incremental gzip inflater with nested layers and a budget.

    ``iter_decompress(data)`` yields the output as byte slices of at most 256 KiB, lazily: whatever the
    compression ratio or the nesting, memory holds one slice per layer (exhaust the iterator before the next
    call). ``decompress(data)`` returns the same slices as a list. ``finished`` tells whether the stream ended where
    gzip says it should. Every layer's output counts against ``max_bytes``: the output stops exactly at the budget
    and ``exceeded`` becomes True (``limit_error()`` builds the :class:`~sitemapkit.LimitExceededError` to raise or
    report). Corrupt data raises ``zlib.error``; gzip nested deeper than ``max_layers`` raises
    :class:`GzipNestingError` (a ``zlib.error``).
    """

    def __init__(self, *, max_bytes: int | None = DEFAULT_MAX_DECOMPRESSED_BYTES, max_layers: int = MAX_GZIP_LAYERS,
                 source: str | None = None) -> None:
        self.max_bytes = max_bytes
        self.max_layers = max_layers
        self.source = source
        self._layers: list[_Layer] = [_Layer()]
        self._totals: list[int] = [0]
        self._head = b""  # first bytes of the innermost output, to spot another gzip layer
        self._head_decided = False
        #: Set once the budget was reached: the output stops there and further input is ignored.
        self.exceeded = False
        #: Set once gzip was found nested deeper than ``max_layers`` (GzipNestingError was raised).
        self.too_deep = False

    @property
    def layers(self) -> int:
        """How many gzip layers were found so far."""
        return len(self._layers)

    @property
    def total_out(self) -> int:
        return self._totals[-1]

    @property
    def trailing_garbage(self) -> bool:
        """True when non-gzip bytes followed the last member of some layer (they are ignored)."""
        return any(layer._trailing for layer in self._layers)

    @property
    def finished(self) -> bool:
        """True when every layer reached its gzip end-of-stream marker."""
        return all(layer.finished for layer in self._layers)

    def _count(self, level: int, chunk: bytes) -> bytes:
        """Add to the layer's total; past the budget, trim the output to the budget and mark ``exceeded``."""
        total = self._totals[level] + len(chunk)
        if self.max_bytes is not None and total > self.max_bytes:
            chunk = chunk[:self.max_bytes - self._totals[level]]
            self._totals[level] = self.max_bytes
            self.exceeded = True
            return chunk
        self._totals[level] = total
        return chunk

    def limit_error(self) -> LimitExceededError:
        return LimitExceededError(
            f"decompressed data exceeds the budget of {self.max_bytes or 0:,} bytes",
            limit=self.max_bytes, source=self.source)

    def _push(self, level: int, data: bytes) -> Iterator[bytes]:
        for chunk in self._layers[level].inflate(data):
            chunk = self._count(level, chunk)
            if chunk:
                if level + 1 < len(self._layers):
                    yield from self._push(level + 1, chunk)
                elif self._head_decided:
                    yield chunk
                else:
                    yield from self._innermost(level, chunk)
            if self.exceeded:
                return

    def _innermost(self, level: int, chunk: bytes) -> Iterator[bytes]:
        """The innermost layer's first output: is it gzip again?"""
        self._head += chunk
        if len(self._head) < 2:
            return
        self._head_decided = True
        head, self._head = self._head, b""
        if not is_gzip(head):
            yield head
            return
        if len(self._layers) >= self.max_layers:
            self.too_deep = True
            raise GzipNestingError(f"gzip nested more than {self.max_layers} layers deep")
        self._layers.append(_Layer())
        self._totals.append(0)
        self._head_decided = False
        yield from self._push(level + 1, head)

    def iter_decompress(self, data: bytes) -> Iterator[bytes]:
        """Inflate the next piece of input, lazily; yields output slices (possibly none yet)."""
        if self.exceeded or self.too_deep:
            return
        yield from self._push(0, data)

    def decompress(self, data: bytes) -> list[bytes]:
        """Inflate the next piece of input; returns output slices (possibly none yet). Holds all of this piece's
        output at once: prefer :meth:`iter_decompress` for input of unknown ratio."""
        return list(self.iter_decompress(data))

    def flush(self) -> list[bytes]:
        """End of input: whatever is held back (at most one byte of undecided head)."""
        for layer in self._layers:
            layer.finish()
        if self._head and not self._head_decided:
            self._head_decided = True
            head, self._head = self._head, b""
            return [head]
        return []


def decompress(data: bytes, *, max_bytes: int | None = DEFAULT_MAX_DECOMPRESSED_BYTES) -> bytes:
    """Inflate ``data`` if it is gzip (any number of layers up to :data:`MAX_GZIP_LAYERS`), else return it.

    Raises :class:`~sitemapkit.LimitExceededError` past ``max_bytes`` and ``zlib.error`` for corrupt input;
    a truncated stream returns what could be inflated."""
    if not is_gzip(data):
        return data
    dec = GzipDecoder(max_bytes=max_bytes)
    out = dec.decompress(data)
    if dec.exceeded:
        raise dec.limit_error()
    out.extend(dec.flush())
    return b"".join(out)


# --- encoding -----------------------------------------------------------------------------------------------

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_NO_BOM: tuple[tuple[bytes, str], ...] = (
    (b"<\x00\x00\x00", "utf-32-le"),
    (b"\x00\x00\x00<", "utf-32-be"),
    (b"<\x00?\x00", "utf-16-le"),
    (b"\x00<\x00?", "utf-16-be"),
)
_DECL_ENCODING = re.compile(
    rb"""^[ \t\r\n]*<\?xml[^>]*?\bencoding[ \t\r\n]*=[ \t\r\n]*["']([A-Za-z][A-Za-z0-9._-]*)["']""")


@dataclass(frozen=True, slots=True)
class EncodingInfo:
    """How to decode a document: Python codec name, BOM length to skip, and where the answer came from
    (``"bom"``, ``"pattern"`` for BOM-less UTF-16/32, ``"declaration"`` or ``"default"``). ``declared`` is the
    name as written in the XML declaration (``None`` when absent); ``known`` is False when Python has no codec
    for it (``encoding`` then falls back to UTF-8)."""

    encoding: str
    bom_length: int
    source: str
    declared: str | None = None
    known: bool = True

    @property
    def is_utf8(self) -> bool:
        return self.encoding == "utf-8"


def python_codec(name: str) -> str | None:
    """Normalised Python codec name for an encoding label (``"ISO-8859-1"`` -> ``"iso8859-1"``), or None (also
    for Python's codecs that are no text encoding: ``uu``, ``base64``, ``zlib``, ``rot13``, ...)."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        return None
    if not getattr(info, "_is_text_encoding", True):
        return None
    n = info.name
    return "utf-8" if n in ("utf-8", "utf_8") else n


def detect_encoding(prefix: bytes) -> EncodingInfo:
    """Decide the encoding of a document from its first bytes (64 are plenty; the XML declaration is read when
    the prefix holds it)."""
    for bom, name in _BOMS:
        if prefix.startswith(bom):
            return EncodingInfo(name, len(bom), "bom")
    for pattern, name in _NO_BOM:
        if prefix.startswith(pattern):
            return EncodingInfo(name, 0, "pattern")
    m = _DECL_ENCODING.match(prefix[:1024])
    if m:
        declared = m.group(1).decode("ascii")
        codec = python_codec(declared)
        if codec is None:
            return EncodingInfo("utf-8", 0, "declaration", declared, known=False)
        if codec.startswith(("utf-16", "utf-32")):
            # Declared UTF-16 but ASCII-compatible bytes: the declaration is wrong, the bytes are right.
            return EncodingInfo("utf-8", 0, "declaration", declared, known=True)
        return EncodingInfo(codec, 0, "declaration", declared)
    return EncodingInfo("utf-8", 0, "default")


# --- kind ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class KindInfo:
    """What :func:`sniff_kind` found: the kind, the root element (local name as written, namespace URI or None),
    whether a DOCTYPE was present (``doctype`` holds its first 200 characters), whether whitespace came before
    the XML declaration, and whether the answer is final (``complete`` is False when the text ended before the
    root element: feed more and ask again)."""

    kind: DocumentKind
    root: str | None = None
    namespace: str | None = None
    doctype: str | None = None
    whitespace_before_declaration: bool = False
    complete: bool = True


_WS = " \t\r\n"
_NAME = re.compile(r"[A-Za-z_][\w.\-]*(?::[A-Za-z_][\w.\-]*)?")
_XMLNS = re.compile(r"""\bxmlns(?::([A-Za-z_][\w.\-]*))?\s*=\s*(?:"([^"]*)"|'([^']*)')""")

_ROOT_KINDS = {
    "urlset": DocumentKind.URLSET,
    "sitemapindex": DocumentKind.INDEX,
    "rss": DocumentKind.RSS,
    "rdf": DocumentKind.RSS,
    "feed": DocumentKind.ATOM,
    "html": DocumentKind.HTML,
}


def sniff_kind(text: str, *, final: bool = True) -> KindInfo:
    """Name a decoded document by its first characters (a BOM, if still there, is skipped).

    With ``final=False`` an answer that more text could change comes back with ``complete=False``."""
    if text.startswith("\ufeff"):
        text = text[1:]
    i, n = 0, len(text)
    while i < n and text[i] in _WS:
        i += 1
    if i >= n:
        return KindInfo(DocumentKind.UNKNOWN, complete=final)
    if text[i] != "<":
        return KindInfo(DocumentKind.TEXT)
    leading_ws = i > 0
    ws_before_decl = False
    doctype: str | None = None
    first = True
    while True:
        while i < n and text[i] in _WS:
            i += 1
        if i >= n:
            return KindInfo(DocumentKind.UNKNOWN, doctype=doctype, whitespace_before_declaration=ws_before_decl,
                            complete=final)
        if text.startswith("<?", i):
            end = text.find("?>", i + 2)
            if end < 0:
                return KindInfo(DocumentKind.UNKNOWN, doctype=doctype, complete=final)
            if first and leading_ws and text.startswith("<?xml", i) and text[i + 5:i + 6] in (" ", "\t", "\r", "\n"):
                ws_before_decl = True
            i = end + 2
        elif text.startswith("<!--", i):
            end = text.find("-->", i + 4)
            if end < 0:
                return KindInfo(DocumentKind.UNKNOWN, doctype=doctype, complete=final)
            i = end + 3
        elif not final and n - i < 9 and text.startswith("<!", i):
            return KindInfo(DocumentKind.UNKNOWN, doctype=doctype, complete=False)  # "<!DOC" or "<!-": need more
        elif text[i:i + 9].upper() == "<!DOCTYPE":
            # The internal subset may hold '>' inside quoted entity values; find the end bracket-aware.
            end = _doctype_end(text, i + 9)
            snippet = text[i:i + 200]
            if snippet[9:].strip().lower().startswith("html"):
                return KindInfo(DocumentKind.HTML, root="html", doctype=snippet)
            doctype = snippet
            if end < 0:
                return KindInfo(DocumentKind.UNKNOWN, doctype=doctype, complete=final)
            i = end
        else:
            m = _NAME.match(text, i + 1)
            if not final and (m.end() >= n if m is not None else i + 1 >= n):
                return KindInfo(DocumentKind.UNKNOWN, doctype=doctype, complete=False)  # the name may go on
            if m is None:
                return KindInfo(DocumentKind.UNKNOWN, doctype=doctype, whitespace_before_declaration=ws_before_decl)
            qname = m.group(0)
            prefix, _, local = qname.rpartition(":")
            tag_end = text.find(">", m.end())
            if tag_end < 0 and not final:
                return KindInfo(DocumentKind.UNKNOWN, doctype=doctype, complete=False)
            attrs = text[m.end():tag_end if tag_end >= 0 else n]
            ns: str | None = None
            for am in _XMLNS.finditer(attrs):
                if (am.group(1) or "") == prefix:
                    ns = am.group(2) if am.group(2) is not None else am.group(3)
            kind = _ROOT_KINDS.get(local.lower(), DocumentKind.UNKNOWN)
            return KindInfo(kind, root=local, namespace=ns, doctype=doctype,
                            whitespace_before_declaration=ws_before_decl)
        first = False


def _doctype_end(text: str, i: int) -> int:
    """Index just past the ``>`` closing a DOCTYPE that starts before ``i``; -1 when not in ``text``."""
    depth = 0
    quote = ""
    n = len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        elif c == ">" and depth <= 0:
            return i + 1
        i += 1
    return -1


@dataclass(frozen=True, slots=True)
class Sniffed:
    """Result of :func:`sniff`: the kind and root, the encoding, and how many gzip layers were removed."""

    kind: KindInfo
    encoding: EncodingInfo
    gzip_layers: int


def sniff(data: bytes, *, max_decompressed_bytes: int | None = DEFAULT_MAX_DECOMPRESSED_BYTES) -> Sniffed:
    """One-shot sniffing of a document's first bytes (a few KiB are enough; the whole document works too).

    Gzip is inflated (only as far as needed, within the budget), then the encoding and the kind are read."""
    layers = 0
    if is_gzip(data):
        dec = GzipDecoder(max_bytes=max_decompressed_bytes)
        out: list[bytes] = []
        size = 0
        try:
            for piece in dec.iter_decompress(data):  # lazily: a bomb stops after its first slices
                out.append(piece)
                size += len(piece)
                if size >= 65536:
                    break
        except zlib.error:
            pass
        out.extend(dec.flush())
        layers = dec.layers
        data = b"".join(out)
    enc = detect_encoding(data[:1024])
    text = data[enc.bom_length:65536].decode(enc.encoding, errors="replace")
    return Sniffed(sniff_kind(text), enc, layers)
