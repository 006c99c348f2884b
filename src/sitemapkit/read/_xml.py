"""XML engine of the reader: urlset, sitemap index, RSS 2.0, RSS 1.0 (RDF), Atom 1.0 and Atom 0.3.

Built on lxml's pull parser (libxml2), chosen by measurement (ARCHITECTURE.md, "Reader"): the C parser builds one
``<url>`` subtree at a time, a tag filter hands only complete items to Python, and each item is cleared and
unlinked once read, so memory does not grow with the document. Hardening: the reader refuses any DOCTYPE before
bytes reach this engine (``_sniff``); the parser is also configured never to load a DTD, resolve an entity or touch
the network. Text is transcoded to UTF-8 here when the document uses another encoding.
"""

from __future__ import annotations

import codecs
import math
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lxml import etree

from sitemapkit.core._errors import InvalidEntryError, InvalidValueError
from sitemapkit.core._lastmod import LastMod, lastmod_of_valid_form, parse_lastmod_lenient
from sitemapkit.core._limits import MAX_LOC_LENGTH, MAX_VIDEO_DURATION
from sitemapkit.core._model import (
    Alternate,
    Changefreq,
    Image,
    News,
    Relationship,
    SitemapRef,
    UrlEntry,
    Video,
    VideoPlatform,
    VideoPrice,
    VideoRestriction,
    VideoTvShow,
    VideoUploader,
    canonical_url_entry,
    make_alternate,
    plain_image,
)
from sitemapkit.core._urls import SIMPLE_URI, normalize_loc
from sitemapkit.read import _codes as C
from sitemapkit.read import _lane as _fast
from sitemapkit.read._parser import DUPLICATE_TRACKING_LIMIT
from sitemapkit.read._sniff import SITEMAP_NS, DocumentKind, EncodingInfo, KindInfo

if TYPE_CHECKING:
    from sitemapkit.read._parser import SitemapParser

__all__ = ["XmlEngine"]

T = TypeVar("T")

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
MOBILE_NS = "http://www.google.com/schemas/sitemap-mobile/1.0"
XHTML_NS = "http://www.w3.org/1999/xhtml"
ATOM_NS = "http://www.w3.org/2005/Atom"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_RDF_ABOUT = f"{{{RDF_NS}}}about"

#: Namespaces whose loc/lastmod/changefreq/priority are read as the core elements (lenient: the sitemaps.org
#: one with its common misspellings and Google's legacy ones). The root's own namespace is added per document.
CORE_NAMESPACES = frozenset({
    SITEMAP_NS,
    SITEMAP_NS + "/",
    "https://www.sitemaps.org/schemas/sitemap/0.9",
    "https://www.sitemaps.org/schemas/sitemap/0.9/",
    "http://www.google.com/schemas/sitemap/0.84",
    "http://www.google.com/schemas/sitemap/0.9",
    "http://www.google.com/schemas/sitemap/0.90",
})

# Child classes inside an item.
_IGNORE, _LOC, _LASTMOD, _CHANGEFREQ, _PRIORITY, _IMAGE, _VIDEO, _NEWS, _LINK, _MOBILE = range(10)
_CORE = {"loc": _LOC, "lastmod": _LASTMOD, "changefreq": _CHANGEFREQ, "priority": _PRIORITY}
_EXT = {
    (IMAGE_NS, "image"): _IMAGE,
    (VIDEO_NS, "video"): _VIDEO,
    (NEWS_NS, "news"): _NEWS,
    (XHTML_NS, "link"): _LINK,
    (MOBILE_NS, "mobile"): _MOBILE,
}
_CHANGEFREQS = {m.value: m for m in Changefreq}
_IMAGE_FIELDS = frozenset({"loc", "caption", "geo_location", "title", "license"})
_INNER_WS = re.compile(r"\s")
_URL_START = re.compile(r"https?://", re.IGNORECASE)
_CACHE_SIZE = 4096
_simple_uri = SIMPLE_URI.fullmatch
_LINE_IN_MESSAGE = re.compile(r"\bline (\d+)")
_SOH_IN_MESSAGE = re.compile(r"(Char 0x|Char value )1\b")
_ERROR_SUFFIX = re.compile(r",? line \d+, column \d+.*$", re.S)


def _split(tag: object) -> tuple[str | None, str]:
    if not isinstance(tag, str):  # comments, PIs, entity references
        return None, ""
    if tag[:1] == "{":
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return None, tag


def _last_fatal(log: Any) -> Any:
    """The last fatal error of an lxml error log (None when there is none)."""
    for entry in reversed(log):
        if entry.level == _FATAL:
            return entry
    return None


_FATAL = etree.ErrorLevels.FATAL


def _text(el: Any) -> str:
    """The element's text content (CDATA included; child elements' text appended, as lenient readers do)."""
    if len(el):
        return "".join(el.itertext())
    t: str | None = el.text
    return t if t is not None else ""


_BARE_AMP = re.compile(rb"&(?!(?:[A-Za-z_:][A-Za-z0-9_.:\-]{0,63}|#[0-9]{1,10}|#[xX][0-9A-Fa-f]{1,8});)")
_CDATA_OPEN = b"<![CDATA["
_CDATA_CLOSE = b"]]>"
#: Bytes held back at the end of each chunk so that a reference or a CDATA marker cut by the chunk boundary is
#: judged exactly as in the whole document (longest reference the pattern accepts + margin).
_AMP_LOOKAHEAD = 80


class _AmpRepair:
    """Rewrites every ``&`` that starts no entity or character reference to ``&amp;``, outside CDATA sections.

    Works on the UTF-8 byte stream before libxml2 sees it, chunk by chunk, with the same result for any chunking
    (a short tail is held back until the next chunk). Counts repairs and remembers the first line."""

    __slots__ = ("_carry", "_in_cdata", "_line", "count", "first_line")

    def __init__(self, first_line: int) -> None:
        self._carry = b""
        self._in_cdata = False
        self._line = first_line
        self.count = 0
        self.first_line: int | None = None

    def first_line_of_stream(self, line: int) -> None:
        self._line = line

    def repair(self, data: bytes, *, final: bool) -> bytes:
        if self._carry:
            data = self._carry + data
            self._carry = b""
        n = len(data)
        cut = n if final else n - _AMP_LOOKAHEAD
        if cut <= 0:
            self._carry = data
            return b""
        if not self._in_cdata and data.find(b"&", 0, cut) < 0 and _CDATA_OPEN not in data:
            self._carry = data[cut:]
            self._line += data.count(b"\n", 0, cut)
            return data[:cut]
        out: list[bytes] = []
        i = 0
        while i < cut:
            if self._in_cdata:
                end = data.find(_CDATA_CLOSE, i)
                if end < 0 or end >= cut:
                    out.append(data[i:cut])
                    i = cut
                    break
                out.append(data[i:end + 3])
                i = end + 3
                self._in_cdata = False
                continue
            start = data.find(_CDATA_OPEN, i)
            seg_end = start if 0 <= start < cut else cut
            pos = i
            while True:
                m = _BARE_AMP.search(data, pos)
                if m is None or m.start() >= seg_end:
                    break
                at = m.start()
                out.append(data[pos:at])
                out.append(b"&amp;")
                self.count += 1
                if self.first_line is None:
                    self.first_line = self._line + data.count(b"\n", 0, at)
                pos = at + 1
            out.append(data[pos:seg_end])
            i = seg_end
            if seg_end == start:
                out.append(_CDATA_OPEN)
                i = start + len(_CDATA_OPEN)
                self._in_cdata = True
        self._carry = data[i:]
        self._line += data.count(b"\n", 0, i)
        return b"".join(out)


class _Warner:
    """Reports a dropped field of an extension element (built per element, called only when needed)."""

    __slots__ = ("el", "engine", "loc", "name")

    def __init__(self, engine: XmlEngine, el: Any, loc: str, name: str) -> None:
        self.engine, self.el, self.loc, self.name = engine, el, loc, name

    def __call__(self, message: str) -> None:
        e = self.engine
        e.o.problem(C.BAD_EXTENSION, f"<{self.name}> field dropped: {message}", e._line(self.el), None, self.loc)


class _Bad(Exception):
    """An extension element that cannot become a model object (message says why)."""


class XmlEngine:
    """Feeds UTF-8 bytes to lxml and turns complete items into entries (one instance per document)."""

    def __init__(self, owner: SitemapParser, info: KindInfo, enc: EncodingInfo) -> None:
        self.o = owner
        self.kind = info.kind
        self._bom = enc.bom_length
        self._strip_ws = info.whitespace_before_declaration
        self._first = True
        self._line_offset = 0  # added to lxml's line numbers to give the document's
        self._ws_lines = 0  # line feeds stripped before the XML declaration
        self._col_fix_line = 0  # lxml line on which lxml's columns are shifted (after the fast lane, see _push)
        self._col_fix = 0
        self._lines_fed = 1
        self._decoder = None if enc.is_utf8 else codecs.getincrementaldecoder(enc.encoding)("strict")
        self._dead = False
        self._utf8 = codecs.getincrementaldecoder("utf-8")("strict")  # only validates (see _valid_utf8)
        self._utf8_carry = b""
        self._nul = False  # a NUL byte was read (as U+0001, see _feed_utf8) before any real U+0001
        self._soh = False  # a real U+0001 was read
        # Lenient mode repairs bare "&" (the commonest XML mistake in hand-made sitemaps); strict mode lets libxml2
        # stop at it with the exact position.
        self._amp = None if owner.strict else _AmpRepair(1)
        self._emit = owner.emit
        self._plain_emit = not owner.positions
        self._cls: dict[object, int] = {}
        self._local: dict[object, str] = {}
        self._lm_cache: dict[str, LastMod] = {}
        self._lm_memo = True
        self._lm_since = 0
        self._pr_cache: dict[str, float] = {}
        self._feed_dates = self.kind in (DocumentKind.RSS, DocumentKind.ATOM)
        root = info.root or ""
        root_ns = info.namespace
        self._core_ns = set(CORE_NAMESPACES)
        self._core_ns.add(root_ns)  # type: ignore[arg-type]
        self._core_ns.add(None)  # type: ignore[arg-type]
        item_local = {DocumentKind.URLSET: "url", DocumentKind.INDEX: "sitemap", DocumentKind.RSS: "item",
                      DocumentKind.ATOM: "entry"}[self.kind]
        self._item_local = item_local
        tag: str | None = "{*}" + item_local
        if self.kind in (DocumentKind.URLSET, DocumentKind.INDEX):
            if root_ns != SITEMAP_NS:
                if root_ns is None:
                    msg = f"<{root}> declares no namespace; expected {SITEMAP_NS}"
                else:
                    msg = f"<{root}> uses namespace {root_ns}; expected {SITEMAP_NS}"
                owner.problem(C.NAMESPACE, msg, 1, None)
            if root != root.lower():
                owner.problem(C.TAG_CASE, f"root element <{root}> is not lowercase; element names read "
                              "case-insensitively", 1, None)
                tag = None  # match case-insensitively in Python
        self._tag_filtered = tag is not None
        self._p = etree.XMLPullParser(
            events=("end",), tag=tag, encoding="utf-8", resolve_entities=False, no_network=True, load_dtd=False,
            dtd_validation=False, huge_tree=False, remove_comments=True, remove_pis=True, remove_blank_text=False,
            recover=False, collect_ids=False,
        )
        self._handle = {
            DocumentKind.URLSET: self._url,
            DocumentKind.INDEX: self._sitemap,
            DocumentKind.RSS: self._rss_item,
            DocumentKind.ATOM: self._atom_entry,
        }[self.kind]
        lane = _fast.ENABLED and self.kind is DocumentKind.URLSET and self._tag_filtered
        self._fast: _fast.FastUrlset | None = _fast.FastUrlset(self) if lane else None

    # --- byte plumbing ----------------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        if self._dead:
            return
        if self._decoder is not None:
            if self._first:
                data = data[self._bom:]
            state = self._decoder.getstate()
            try:
                data = self._decoder.decode(data).encode("utf-8")
            except UnicodeDecodeError as exc:
                # The characters before the bad bytes are read first (an error in them is the report, as when
                # they came in an earlier chunk), then reading stops at the bad bytes.
                self._feed_utf8(self._decodable_prefix(state, data, exc))
                if not self._dead:
                    self._drain()
                    self.o.problem(C.UNDECODABLE,
                                   f"bytes are not valid {exc.encoding}: {exc.reason}; reading stopped")
                    self._die()
                return
        else:
            if self._first and self._bom:
                data = data[self._bom:]
            if self._utf8_carry or not data.isascii():
                checked = self._valid_utf8(data)
                if checked is None:
                    return
                data = checked
        self._feed_utf8(data)

    def _valid_utf8(self, data: bytes) -> bytes | None:
        """The complete, valid UTF-8 characters of the held bytes and ``data`` (a character cut at the end is
        held); None when the bytes are not UTF-8 (reported, reading stopped). libxml2 notices bad bytes in text
        or not depending on where its buffer ends, so they are checked here, once, the same for any chunking."""
        buf = self._utf8_carry + data
        self._utf8_carry = b""
        try:
            self._utf8.decode(data)
        except UnicodeDecodeError as exc:
            # The decoder's input was the held bytes and data, as ``buf``: read what comes before the bad bytes.
            self._feed_utf8(buf[:exc.start])
            if not self._dead:
                self._drain()
                self.o.problem(C.UNDECODABLE, f"bytes are not valid UTF-8: {exc.reason}; reading stopped")
                self._die()
            return None
        held = len(self._utf8.getstate()[0])
        if held:
            self._utf8_carry = buf[len(buf) - held:]
            return buf[:len(buf) - held]
        return buf

    def _decodable_prefix(self, state: tuple[bytes, int], data: bytes, exc: UnicodeDecodeError) -> bytes:
        """UTF-8 of the characters of ``data`` before the bytes ``exc`` rejected (decoded from ``state``)."""
        decoder = self._decoder
        assert decoder is not None
        pending = state[0] if isinstance(state[0], bytes) else b""
        end = exc.start - len(pending) if exc.object[:len(pending)] == pending else -1
        if end <= 0:
            return b""
        decoder.setstate(state)
        try:
            return decoder.decode(data[:end]).encode("utf-8")
        except UnicodeDecodeError:
            return b""

    def _feed_utf8(self, data: bytes) -> None:
        if b"\x00" in data:
            # libxml2 looks for the end of a declaration, comment, PI or CDATA section with C string functions,
            # which stop at a NUL: whether it reports the NUL at once or only at close then depends on the
            # chunking. U+0001 is just as invalid everywhere in XML (same error, same place) and not a terminator.
            if not self._nul:
                self._nul = b"\x01" not in data[:data.index(b"\x00")] and not self._soh
            data = data.replace(b"\x00", b"\x01")
        elif not self._soh and b"\x01" in data:
            self._soh = True
        if self._first:
            self._first = False
            if self._strip_ws:
                stripped = data.lstrip(b" \t\r\n")
                self._ws_lines = self._line_offset = data[:len(data) - len(stripped)].count(b"\n")
                data = stripped
                if self._amp is not None:
                    self._amp.first_line_of_stream(1 + self._line_offset)
                self.o.problem(C.WHITESPACE_BEFORE_DECLARATION, None, 1, 1)
        if self._amp is not None:
            data = self._amp.repair(data, final=False)
        if data:
            self._push(data)

    def _push(self, data: bytes) -> None:
        self._lines_fed += data.count(b"\n")
        fast = self._fast
        if fast is not None and self._amp is not None and self._amp.count:
            # A bare & was repaired: lxml reads the rest as it comes (the lane holds bytes back, which would
            # change where reading stops relative to the repairs; such documents are not machine-clean anyway).
            self._fast = None
            data = fast.finish_early(data)
            fast = None
        if fast is not None:
            # Canonical <url> blocks are read from the bytes (_read_fast); lxml gets the prolog at once and the
            # rest of the document from the first block that is not canonical.
            data = fast.feed(data)
            if fast.off:
                self._fast = None
            if not data or self._dead:
                return
        self._lx_feed(data)

    def _lx_feed(self, data: bytes) -> None:
        p = self._p
        try:
            p.feed(data)
        except etree.XMLSyntaxError as exc:
            self._drain()
            self._syntax_error(exc, at_close=False)
            return
        self._drain()
        # libxml2 stops at some fatal errors (an undefined entity) without failing this feed: lxml raises only at
        # the next feed or at close, with a message about whatever came next. Reported here, from the log, it is
        # the same error at the same place whatever the chunking.
        log = p.feed_error_log
        if log and not self._dead:
            fatal = _last_fatal(log)
            if fatal is not None:
                self._report_syntax(fatal.message, fatal.line, fatal.column, at_close=False)

    def close(self) -> None:
        if self._dead:
            return
        if self._decoder is not None:
            try:
                rest = self._decoder.decode(b"", final=True).encode("utf-8")
            except UnicodeDecodeError as exc:
                self.o.problem(C.UNDECODABLE, f"document ends inside a {exc.encoding} character")
                rest = b""
            if rest:
                self._feed_utf8(rest)
                if self.dead:
                    return
        elif self._utf8_carry:
            self._utf8_carry = b""
            self.o.problem(C.UNDECODABLE, "document ends inside a UTF-8 character")
        amp = self._amp
        if amp is not None:
            tail = amp.repair(b"", final=True)
            if tail:
                self._push(tail)
            self._fast_finish()
            if self.dead:
                # Reading stopped at an error: that error is the report (whether the repairs came before or after
                # it depends on how the bytes were cut, so they are not reported).
                return
            if amp.count:
                more = f" (and {amp.count - 1:,} more)" if amp.count > 1 else ""
                self.o.problem(C.BARE_AMPERSAND, f"unescaped & read as &amp;{more}", amp.first_line, None)
        else:
            self._fast_finish()
            if self.dead:
                return
        try:
            self._p.close()
        except etree.XMLSyntaxError as exc:
            self._drain()
            self._syntax_error(exc, at_close=True)
            return
        self._drain()

    def _fast_finish(self) -> None:
        fast = self._fast
        if fast is not None and not self._dead:
            self._fast = None
            data = fast.finish()
            if data and not self._dead:
                self._lx_feed(data)

    @property
    def dead(self) -> bool:
        return self._dead

    def _die(self) -> None:
        self._dead = True
        self.o.stop()

    def _syntax_error(self, exc: etree.XMLSyntaxError, *, at_close: bool) -> None:
        # This parser's own log (``exc.error_log`` also holds entries of earlier documents read in this thread).
        entry: Any = _last_fatal(self._p.feed_error_log) or getattr(exc.error_log, "last_error", None)
        message = entry.message if entry is not None and entry.message else _ERROR_SUFFIX.sub("", str(exc))
        line = (entry.line if entry is not None else exc.lineno) or None
        column = (entry.column if entry is not None else None) or None
        self._report_syntax(message, line, column, at_close=at_close)

    def _report_syntax(self, message: str, line: int | None, column: int | None, *, at_close: bool) -> None:
        line = line or None
        column = column or None
        if self._nul:  # the character libxml2 names is the NUL the document has
            message = _SOH_IN_MESSAGE.sub(r"\g<1>0", message)
        if line is not None:
            if line == self._col_fix_line and column is not None:
                column += self._col_fix
            line += self._line_offset
        skipped = self._line_offset - self._ws_lines
        if skipped:  # lines the fast lane read: libxml2's "line N" in the message is lxml's own count
            message = _LINE_IN_MESSAGE.sub(
                lambda m: f"line {int(m[1]) + skipped}" if int(m[1]) >= self._col_fix_line else m[0], message)
        self._die()
        if "Extra content at the end of the document" in message:
            self.o.problem(C.JUNK_AFTER_ROOT, "content after the root element is ignored", line, column)
        elif "Premature end of data" in message or (at_close and (line is None or line >= self._last_line)):
            self.o.problem(C.TRUNCATED, f"document ends early ({message}); incomplete entries dropped", line, column)
        else:
            self.o.problem(C.NOT_WELL_FORMED, f"XML is not well-formed: {message}; reading stopped", line, column)

    @property
    def _last_line(self) -> int:
        return self._lines_fed + self._ws_lines

    def _drain(self) -> None:
        handle = self._handle
        item_local = self._item_local
        filtered = self._tag_filtered
        last: Any = None
        el: Any
        for _event, el in self._p.read_events():
            if not filtered:
                _ns, local = _split(el.tag)
                if local.lower() != item_local:
                    continue
            handle(el)
            last = el
        if last is not None:
            # Free what was read: every complete sibling *before* the last item handled. The last one stays in
            # the tree with its tail: libxml2 may still be appending text to that tail (it grows the parent's
            # last text node in place, keeping its length in the parser context), so freeing it, or making an
            # older text node the parent's last child, lets the next feed write past a freed or short buffer.
            # The siblings before it are complete: a later start tag ended their tails. Batched per feed.
            # Only items at the top level are freed: an item nested in an unclosed one is part of that one's text
            # (read when it ends), so freeing it would make that text depend on where the feeds ended.
            parent = last.getparent()
            if parent is not None and not self._in_item(parent):
                index = parent.index(last)
                if index:
                    del parent[:index]

    def _in_item(self, el: Any) -> bool:
        """Whether ``el`` is an item or inside one."""
        item_local = self._item_local
        while el is not None:
            tag = el.tag
            if isinstance(tag, str) and tag.rpartition("}")[2].lower() == item_local:
                return True
            el = el.getparent()
        return False

    # --- classification ---------------------------------------------------------------------------------------
    def _classify(self, tag: object) -> int:
        ns, local = _split(tag)
        local = local.lower()
        k = _CORE.get(local, _IGNORE) if ns in self._core_ns else _EXT.get((ns or "", local), _IGNORE)
        if isinstance(tag, str):
            if len(self._cls) >= _CACHE_SIZE:  # a document inventing element names cannot grow the cache
                self._cls.clear()
            self._cls[tag] = k
        return k

    def _line(self, el: Any) -> int | None:
        line: int | None = el.sourceline
        return line + self._line_offset if line is not None else None

    # --- core values ------------------------------------------------------------------------------------------
    def _lm_cache_full(self) -> None:
        """The lastmod memo is full: clear it, and stop memoising fast-path values for this document when fewer
        than half of the lookups since the last clear were hits (distinct timestamps per URL, as many CMSs write
        them: keeping 4,096 values alive then costs more than the hits save; measured ~0.3 us per entry)."""
        items = self.o.entry_count
        if items - self._lm_since < 2 * _CACHE_SIZE:
            self._lm_memo = False
        self._lm_since = items
        self._lm_cache.clear()

    def _lastmod(self, text: str, line: int | None, loc: str, what: str = "lastmod") -> LastMod | None:
        cached = self._lm_cache.get(text)
        if cached is not None:
            return cached
        t = text.strip()
        if self._feed_dates:
            value = parse_lastmod_lenient(t)
            if value is None:
                self.o.problem(C.BAD_LASTMOD, f"unreadable {what} {t!r}; ignored", line, None, loc)
                return None
        else:
            try:
                value = LastMod(t)
            except InvalidValueError:
                lenient = parse_lastmod_lenient(t)
                if lenient is None:
                    self.o.problem(C.BAD_LASTMOD, f"unreadable {what} {t!r}; ignored", line, None, loc)
                else:
                    self.o.problem(C.LENIENT_LASTMOD, f"{what} {t!r} is not a W3C Datetime; read as {lenient}",
                                   line, None, loc)
                return lenient
        if len(self._lm_cache) >= _CACHE_SIZE:
            self._lm_cache.clear()
        self._lm_cache[text] = value
        return value

    def _changefreq(self, text: str, line: int | None, loc: str) -> Changefreq | None:
        cf = _CHANGEFREQS.get(text)
        if cf is None:
            cf = _CHANGEFREQS.get(text.strip().lower())
            if cf is None:
                self.o.problem(C.BAD_CHANGEFREQ, f"invalid changefreq {text.strip()!r}; ignored", line, None, loc)
        return cf

    def _priority(self, text: str, line: int | None, loc: str) -> float | None:
        pr = self._pr_cache.get(text)
        if pr is not None:
            return pr
        try:
            value = float(text.strip())
        except ValueError:
            value = -1.0
        if not 0.0 <= value <= 1.0:  # also false for NaN
            self.o.problem(C.BAD_PRIORITY, f"invalid priority {text.strip()!r}; must be 0.0 to 1.0", line, None, loc)
            return None
        if len(self._pr_cache) >= _CACHE_SIZE:
            self._pr_cache.clear()
        self._pr_cache[text] = value
        return value

    def _loc(self, raw: str | None, line: int | None, what: str, el: Any = None) -> str | None:
        """Stripped loc text, or None (problem reported) when missing or empty."""
        if raw is None:
            direct = (el.text or "").strip() if el is not None else ""
            if _URL_START.match(direct):
                # <sitemap>https://...</sitemap>: the URL written without <loc> (seen in the wild).
                self.o.problem(C.MISSING_LOC, f"<{what}> without <loc>; its text {direct!r} read as the loc",
                               line, None, direct)
                return self._loc(direct, line, what)
            self.o.problem(C.MISSING_LOC, f"<{what}> without <loc>; skipped", line, None)
            return None
        s = raw.strip()
        if not s:
            self.o.problem(C.MISSING_LOC, f"empty <loc> in <{what}>; skipped", line, None)
            return None
        if _INNER_WS.search(s):
            self.o.problem(C.WHITESPACE_IN_LOC, f"whitespace inside loc {s!r}; percent-encoded", line, None, s)
        return s

    # --- items ------------------------------------------------------------------------------------------------
    def _url(self, el: Any) -> None:
        # The hot path of the reader: one call per <url>; locals and inlined checks on purpose.
        cls = self._cls
        raw = lm = cf = pr = None
        ext: list[tuple[int, Any]] | None = None
        for c in el:
            k = cls.get(c.tag)
            if k is None:
                k = self._classify(c.tag)
            if k == _LOC:
                if raw is None:
                    raw = c.text
                    if raw is None or raw.isspace():
                        raw = _text(c)
                else:
                    self.o.problem(C.EXTRA_LOC, f"second <loc> {_text(c).strip()!r} ignored; the first one wins",
                                   self._line(c), None, raw.strip())
            elif k == _LASTMOD:
                lm = c.text
                if lm is None:
                    lm = _text(c)
            elif k == _CHANGEFREQ:
                cf = c.text
                if cf is None:
                    cf = _text(c)
            elif k == _PRIORITY:
                pr = c.text
                if pr is None:
                    pr = _text(c)
            elif k:
                if ext is None:
                    ext = []
                ext.append((k, c))
        line = el.sourceline
        if line is not None and self._line_offset:
            line += self._line_offset
        self._finish_url(raw, lm, cf, pr, ext, line, el)

    def _finish_url(self, raw: str | None, lm: str | None, cf: str | None, pr: str | None,
                    ext: list[tuple[int, Any]] | None, line: int | None, el: Any,
                    images: list[Image] | None = None, alternates: list[Alternate] | None = None) -> None:
        """Build and emit the entry from a <url>'s texts and extension elements (from lxml), or from the texts
        and the images and alternates already built (by _read_fast, from canonical blocks)."""
        videos: list[Video] | None = None
        news: News | None = None
        mobile = False
        s = raw.strip() if raw is not None else ""
        # A plain ASCII URI within the length limit (the common case) is what normalize_loc returns unchanged:
        # no problem to report and the entry is built without the dataclass __init__. Anything else takes the
        # full path (_loc reports missing / empty / inner whitespace; UrlEntry normalises and validates).
        canonical = len(s) <= MAX_LOC_LENGTH and _simple_uri(s) is not None
        if not canonical:
            checked = self._loc(raw, line, "url", el)
            if checked is None:
                return
            s = checked
        if lm is None:
            lastmod = None
        else:
            lm_cache = self._lm_cache
            lastmod = lm_cache.get(lm)
            if lastmod is None:
                lastmod = lastmod_of_valid_form(lm)  # same value LastMod(lm.strip()) gives, one regex
                if lastmod is None:
                    lastmod = self._lastmod(lm, line, s)  # full check, problems; memoised there
                elif self._lm_memo:
                    if len(lm_cache) >= _CACHE_SIZE:
                        self._lm_cache_full()
                    lm_cache[lm] = lastmod
        if cf is None:
            changefreq = None
        else:
            changefreq = _CHANGEFREQS.get(cf)
            if changefreq is None:
                changefreq = self._changefreq(cf, line, s)
        if pr is None:
            priority = None
        else:
            priority = self._pr_cache.get(pr)
            if priority is None:
                priority = self._priority(pr, line, s)
        if ext is not None:
            for k, c in ext:
                try:
                    if k == _IMAGE:
                        (images := images or []).append(self._image(c, s))
                    elif k == _VIDEO:
                        (videos := videos or []).append(self._video(c, _Warner(self, c, s, "video")))
                    elif k == _LINK:
                        alt = self._alternate(c)
                        if alt is not None:
                            (alternates := alternates or []).append(alt)
                    elif k == _NEWS:
                        if news is not None:
                            raise _Bad("more than one <news:news> in a <url>; the first one is kept")
                        news = self._news(c)
                    elif k == _MOBILE:
                        mobile = True
                except (_Bad, InvalidEntryError) as exc:
                    name = _split(c.tag)[1]
                    self.o.problem(C.BAD_EXTENSION, f"<{name}> dropped: {exc}", self._line(c), None, s)
        try:
            if ext is None and images is None and alternates is None:
                if canonical:
                    entry = canonical_url_entry(s, lastmod, changefreq, priority)
                else:
                    entry = UrlEntry(s, lastmod, changefreq, priority)
            else:
                args = (s, lastmod, changefreq, priority, tuple(images) if images else (),
                        tuple(videos) if videos else (), news, tuple(alternates) if alternates else (), mobile)
                entry = canonical_url_entry(*args) if canonical else UrlEntry(*args)
        except InvalidEntryError as exc:
            self.o.problem(C.INVALID_LOC, f"{exc}; entry skipped", line, None, s)
            return
        if self._plain_emit:
            # SitemapParser.emit inlined (positions=False): duplicate check on 8-byte hashes, then the event.
            o = self.o
            seen = o._seen
            before = len(seen)
            if before < DUPLICATE_TRACKING_LIMIT:
                seen.add(hash(entry.loc))
                if len(seen) == before:
                    o.problem(C.DUPLICATE_LOC, f"duplicate loc {entry.loc}", line, None, entry.loc)
            elif hash(entry.loc) in seen:
                o.problem(C.DUPLICATE_LOC, f"duplicate loc {entry.loc}", line, None, entry.loc)
            o._items += 1
            o._out.append(entry)
        else:
            self._emit(entry, line, None, raw)  # type: ignore[arg-type]

    def _sitemap(self, el: Any) -> None:
        cls = self._cls
        raw = lm = None
        for c in el:
            k = cls.get(c.tag)
            if k is None:
                k = self._classify(c.tag)
            if k == _LOC:
                if raw is None:
                    raw = _text(c)
                else:
                    self.o.problem(C.EXTRA_LOC, f"second <loc> {_text(c).strip()!r} ignored; the first one wins",
                                   self._line(c), None, raw.strip())
            elif k == _LASTMOD:
                lm = _text(c)
        line = self._line(el)
        s = self._loc(raw, line, "sitemap", el)
        if s is None:
            return
        lastmod = self._lastmod(lm, line, s) if lm is not None else None
        try:
            ref = SitemapRef(s, lastmod)
        except InvalidEntryError as exc:
            self.o.problem(C.INVALID_LOC, f"{exc}; entry skipped", line, None, s)
            return
        self.o.emit(ref, line, None, raw)  # type: ignore[arg-type]

    def _feed_entry(self, raw: str | None, date: str | None, date_name: str, line: int | None) -> None:
        if raw is None or not raw.strip():
            self.o.problem(C.FEED_ITEM_NO_LINK, None, line, None)
            return
        s = raw.strip()
        if _INNER_WS.search(s):
            self.o.problem(C.WHITESPACE_IN_LOC, f"whitespace inside link {s!r}; percent-encoded", line, None, s)
        lastmod = self._lastmod(date, line, s, date_name) if date is not None and date.strip() else None
        try:
            entry = UrlEntry(s, lastmod)
        except InvalidEntryError as exc:
            self.o.problem(C.INVALID_LOC, f"{exc}; item skipped", line, None, s)
            return
        self.o.emit(entry, line, None, raw)

    def _rss_item(self, el: Any) -> None:
        link = guid = None
        permalink = True
        dates: dict[str, str] = {}
        for c in el:
            ns, local = _split(c.tag)
            local = local.lower()
            if local == "link" and ns != ATOM_NS:
                if link is None:
                    link = _text(c)
            elif local == "guid":
                guid = _text(c)
                permalink = (c.get("isPermaLink") or "true").strip().lower() != "false"
            elif local in ("pubdate", "date", "updated", "modified"):
                dates.setdefault(local, _text(c))
        if not (link and link.strip()):
            if guid is not None and _URL_START.match(guid.strip()):
                if not permalink:
                    self.o.problem(C.FEED_ITEM_NO_LINK, "item without <link>; its <guid isPermaLink=\"false\"> "
                                   "is an absolute URL and is read as the link", self._line(el), None, guid.strip())
                link = guid
            elif el.get(_RDF_ABOUT):
                link = el.get(_RDF_ABOUT)
        name = next((n for n in ("pubdate", "date", "updated", "modified") if n in dates), "pubdate")
        self._feed_entry(link, dates.get(name), {"pubdate": "pubDate"}.get(name, name), self._line(el))

    def _atom_entry(self, el: Any) -> None:
        link = None
        dates: dict[str, str] = {}
        for c in el:
            _ns, local = _split(c.tag)
            local = local.lower()
            if local == "link":
                rel = (c.get("rel") or "alternate").strip().lower()
                if rel == "alternate" and link is None:
                    link = c.get("href")
            elif local in ("updated", "modified", "published", "issued"):
                dates.setdefault(local, _text(c))
        name = next((n for n in ("updated", "modified", "published", "issued") if n in dates), "updated")
        self._feed_entry(link, dates.get(name), name, self._line(el))

    # --- extensions -------------------------------------------------------------------------------------------
    @staticmethod
    def _fields(el: Any) -> dict[str, list[Any]]:
        out: dict[str, list[Any]] = {}
        for c in el:
            _ns, local = _split(c.tag)
            if local:
                out.setdefault(local.lower(), []).append(c)
        return out

    def _image(self, el: Any, url: str) -> Image:
        # Direct child loop (no generic field dict): 2 images per URL is common, this runs a lot.
        if len(el) == 1:  # the common <image:image><image:loc>URL</image:loc></image:image>
            c = el[0]
            t = c.text
            if t is not None and self._local.get(c.tag) == "loc" and not len(c):
                t = t.strip()
                if t:
                    return plain_image(t)
        fields: dict[str, str] = {}
        for c in el:
            local = self._local.get(c.tag)
            if local is None:
                local = self._local_name(c.tag)
            if local in _IMAGE_FIELDS and local not in fields:
                t = c.text
                if t is None or t.isspace():
                    t = _text(c)
                t = t.strip()
                if t:
                    fields[local] = t
        loc = fields.get("loc")
        if loc is None:
            raise _Bad("image:loc is required")
        if len(fields) == 1:
            return plain_image(loc)
        license_ = fields.get("license")
        if license_ is not None:
            try:
                license_ = normalize_loc(license_, field="image:license")
            except InvalidEntryError as exc:
                _Warner(self, el, url, "image")(f"{exc}; the license is left out")
                license_ = None
        return Image(loc, fields.get("caption"), fields.get("geo_location"), fields.get("title"), license_)

    def _local_name(self, tag: object) -> str:
        local = _split(tag)[1].lower()
        if isinstance(tag, str):
            if len(self._local) >= _CACHE_SIZE:
                self._local.clear()
            self._local[tag] = local
        return local

    def _date(self, text: str | None, what: str) -> LastMod | None:
        if text is None:
            return None
        value = parse_lastmod_lenient(text)
        if value is None:
            raise _Bad(f"unreadable {what} {text!r}")
        return value

    @staticmethod
    def _yes_no(text: str | None, what: str) -> bool | None:
        if text is None:
            return None
        t = text.strip().lower()
        if t in ("yes", "true"):
            return True
        if t in ("no", "false"):
            return False
        raise _Bad(f"{what} must be yes or no, got {text.strip()!r}")

    @staticmethod
    def _int(text: str | None, what: str, lo: float = 0, hi: float = math.inf) -> int | None:
        if text is None:
            return None
        value = _float(text, what, lo, hi)
        return None if value is None else int(value)

    def _video(self, el: Any, warn: Callable[[str], None]) -> Video:
        """Build a Video; a missing required field drops the video (raises), a bad optional one is left out
        (``warn`` says which)."""
        f = self._fields(el)

        def one(name: str) -> str | None:
            v = f.get(name)
            if not v:
                return None
            t = _text(v[0]).strip()
            return t or None

        def opt(fn: Callable[..., T], *args: Any) -> T | None:
            try:
                return fn(*args)
            except (_Bad, InvalidEntryError) as exc:
                warn(str(exc))
                return None

        for req in ("thumbnail_loc", "title", "description"):
            if one(req) is None:
                raise _Bad(f"video:{req} is required")
        player = f.get("player_loc")
        player_el = player[0] if player else None
        restriction = platform = uploader = tvshow = None
        if f.get("restriction"):
            r = f["restriction"][0]
            restriction = opt(lambda: VideoRestriction(_relationship(r), tuple(_text(r).split())))
        if f.get("platform"):
            r2 = f["platform"][0]
            platform = opt(lambda: VideoPlatform(_relationship(r2), tuple(_text(r2).split())))
        if f.get("uploader"):
            u = f["uploader"][0]
            uploader = opt(lambda: VideoUploader(_text(u).strip(), (u.get("info") or "").strip() or None))
        prices = []
        for p in f.get("price", ()):
            price = opt(_price, p)
            if price is not None:
                prices.append(price)
        if f.get("tvshow"):
            tf = self._fields(f["tvshow"][0])

            def tv(name: str) -> str | None:
                v = tf.get(name)
                return (_text(v[0]).strip() or None) if v else None

            tvshow = opt(lambda: VideoTvShow(
                tv("show_title") or "", tv("video_type"), tv("episode_title"),
                opt(self._int, tv("season_number"), "video:season_number"),
                opt(self._int, tv("episode_number"), "video:episode_number"),
                opt(self._date, tv("premier_date"), "video:premier_date")))
        player_allow_embed = None
        if player_el is not None:
            player_allow_embed = opt(self._yes_no, player_el.get("allow_embed"), "video:player_loc@allow_embed")
        return Video(
            thumbnail_loc=one("thumbnail_loc") or "",
            title=one("title") or "",
            description=one("description") or "",
            content_loc=one("content_loc"),
            player_loc=one("player_loc"),
            duration=opt(self._int, one("duration"), "video:duration", 0, MAX_VIDEO_DURATION),
            expiration_date=opt(self._date, one("expiration_date"), "video:expiration_date"),
            rating=opt(_float, one("rating"), "video:rating", 0.0, 5.0),
            view_count=opt(self._int, one("view_count"), "video:view_count"),
            publication_date=opt(self._date, one("publication_date"), "video:publication_date"),
            family_friendly=opt(self._yes_no, one("family_friendly"), "video:family_friendly"),
            restriction=restriction,
            platform=platform,
            requires_subscription=opt(self._yes_no, one("requires_subscription"), "video:requires_subscription"),
            uploader=uploader,
            live=opt(self._yes_no, one("live"), "video:live"),
            tags=tuple(t for t in (_text(c).strip() for c in f.get("tag", ())) if t),
            category=one("category"),
            gallery_loc=opt(_url_or_bad, one("gallery_loc"), "video:gallery_loc"),
            prices=tuple(prices),
            tvshow=tvshow,
            player_allow_embed=player_allow_embed,
            player_autoplay=player_el.get("autoplay") if player_el is not None else None,
        )

    def _news(self, el: Any) -> News:
        f = self._fields(el)

        def one(fields: dict[str, list[Any]], name: str) -> str | None:
            v = fields.get(name)
            return (_text(v[0]).strip() or None) if v else None

        pub = self._fields(f["publication"][0]) if f.get("publication") else {}
        date_text = one(f, "publication_date")
        if date_text is None:
            raise _Bad("news:publication_date is required")
        return News(
            publication_name=one(pub, "name") or "",
            publication_language=one(pub, "language") or "",
            publication_date=self._date(date_text, "news:publication_date"),  # type: ignore[arg-type]
            title=one(f, "title") or "",
            access=one(f, "access"),
            genres=one(f, "genres") or (),  # type: ignore[arg-type]
            keywords=one(f, "keywords") or (),  # type: ignore[arg-type]
            stock_tickers=one(f, "stock_tickers") or (),  # type: ignore[arg-type]
        )

    @staticmethod
    def _alternate(el: Any) -> Alternate | None:
        get = el.get
        rel = get("rel")
        if rel != "alternate" and (rel or "").strip().lower() != "alternate":
            return None  # other xhtml:link relations carry no page version
        hreflang = get("hreflang")
        href = get("href")
        if not hreflang or not href or hreflang.isspace() or href.isspace():
            raise _Bad("xhtml:link rel=alternate needs hreflang and href")
        return make_alternate(hreflang, href)


def _float(text: str | None, what: str, lo: float = -math.inf, hi: float = math.inf) -> float | None:
    if text is None:
        return None
    try:
        value = float(text.strip())
    except ValueError:
        raise _Bad(f"{what} must be a number, got {text.strip()!r}") from None
    if not lo <= value <= hi:
        raise _Bad(f"{what} must be between {lo:g} and {hi:g}, got {text.strip()!r}")
    return value


def _price(el: Any) -> VideoPrice:
    value = _float(_text(el), "video:price", 0.0)
    if value is None:
        raise _Bad("video:price is empty")
    return VideoPrice(value, (el.get("currency") or "").strip(), el.get("type"), el.get("resolution"))


def _url_or_bad(text: str | None, what: str) -> str | None:
    if text is None:
        return None
    return normalize_loc(text, field=what)


def _relationship(el: Any) -> Relationship:
    value = (el.get("relationship") or "").strip().lower()
    try:
        return Relationship(value)
    except ValueError:
        raise _Bad(f"relationship must be allow or deny, got {value!r}") from None
