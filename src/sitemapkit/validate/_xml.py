"""The one streaming XML pass of the validator: well-formedness, XSD and the rule checks together.

lxml's pull parser is fed decoded-by-libxml2 bytes and reports only the root and the ``<url>`` / ``<sitemap>``
elements. When an entry is complete its raw values go through the rule checks (with ``sourceline``), then the
element is *moved* into a small detached batch document; every ``XSD_BATCH`` entries the batch (a copy of the
root with those entries) is validated against the bundled official schema and dropped. libxml2 validation of a
tree reports each error at the line of its node, so XSD errors keep exact lines, and memory stays flat: at most
two batches of entries are alive. A full batch is validated on a worker thread (libxml2 validates without the GIL)
while the main thread parses and checks the next one; the final batch is validated on the main thread. An entry
leaves the tree when the next one has ended, so the text after it (its tail, validated with it) is complete
whatever the chunking. Canonical ``<url>`` blocks never become elements here: the fast lane (``_lane``) checks them from
the bytes and hands this pass their XSD batches as small documents, and the rest of the document from the first
block that is not canonical. The lane is a strategy this pass is given (``_strategy``: the driver passes its
factory); the XSD batching lives in ``_xsd``.
(``iterparse(schema=...)`` validates while parsing but reports every error at line 0, which is why it is not
used; ARCHITECTURE.md has the measurements.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from lxml import etree

from sitemapkit.core import (
    MAX_IMAGES_PER_URL,
    MAX_INDEX_ENTRIES,
    MAX_NEWS_PER_SITEMAP,
    MAX_URLS_PER_SITEMAP,
    ProblemCode,
)
from sitemapkit.read import ChildTrimmer, Dropped, child_name
from sitemapkit.validate import _codes as C
from sitemapkit.validate._checks import FAST_URL, check_changefreq, check_priority
from sitemapkit.validate._context import FileContext, line_of
from sitemapkit.validate._google import (
    IMAGE_NS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    check_alternates,
    check_images,
    check_news,
    check_video,
)
from sitemapkit.validate._schemas import SchemaKind, load_schema
from sitemapkit.validate._strategy import Lane, LaneFactory
from sitemapkit.validate._xsd import XsdBatching, copy_root

__all__ = ["SITEMAP_NS", "XSD_BATCH", "XmlPass"]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
#: Entries validated together in one detached batch (measured: 500-2,000 are equally fast).
XSD_BATCH = 1000
#: Validate each full batch on a worker thread while the next one is parsed and checked (BENCHMARKS.md, Validator).
XSD_IN_THREAD = True

_S = "{" + SITEMAP_NS + "}"
_IMAGE = "{" + IMAGE_NS + "}image"
_IMAGE_LOC = "{" + IMAGE_NS + "}loc"
_VIDEO = "{" + VIDEO_NS + "}video"
_NEWS = "{" + NEWS_NS + "}news"
_LINK = "{" + XHTML_NS + "}link"
_VALUE_ELEMENTS = frozenset({"loc", "lastmod", "changefreq", "priority", "duration", "rating",
                             "publication_date", "language", "href", "hreflang"})

Element = etree._Element
_FATAL = etree.ErrorLevels.FATAL
_ERROR = etree.ErrorLevels.ERROR
#: Bytes handed to lxml's parser at a time (well under libxml2's 10 MB limit on unparsed input).
LX_SLICE = 1 << 20


_POSITION_SUFFIX = re.compile(r",? line \d+, column \d+\s*$")
_SOH_IN_MESSAGE = re.compile(r"(Char 0x|Char value )1\b")


def _syntax_message(msg: str) -> tuple[ProblemCode, str]:
    msg = _POSITION_SUFFIX.sub("", msg.strip())
    low = msg.lower()
    if "entityref" in low or ("entity" in low and "expecting ';'" in low):
        return C.NOT_WELL_FORMED, f"unescaped '&' ({msg}): write &amp; in text and URLs"
    if "not proper utf-8" in low or ("encoding" in low and "error" in low):
        return C.ENCODING, f"bytes are not valid UTF-8 ({msg}): re-encode the file as UTF-8"
    if "extra content at the end" in low:
        return C.NOT_WELL_FORMED, f"content after the root element ({msg}): remove it"
    if "premature end" in low or "end of data" in low or "eof" in low:
        return C.NOT_WELL_FORMED, f"document ends early ({msg}): the file is truncated or a tag is not closed"
    return C.NOT_WELL_FORMED, f"not well-formed XML: {msg}"


class XmlPass(XsdBatching):
    """Validate one urlset or sitemap index, fed in chunks (``feed`` then ``close``).

    ``lane`` (for a urlset) builds the fast lane this pass hands its bytes to first (see ``_strategy``)."""

    def __init__(self, ctx: FileContext, *, index: bool, namespace_ok: bool, lane: LaneFactory | None = None,
                 encoding: str | None = None) -> None:
        self.ctx = ctx
        self.index = index
        entry = "sitemap" if index else "url"
        self._entry_local = entry
        # Wildcard namespace: entries of a sitemap in a wrong or missing namespace are still checked.
        # Only the end of each entry is reported (the root is found from the first entry, or from close()).
        # Start events too: the entry still open is followed, its children capped as they arrive (ChildTrimmer).
        self._parser = etree.XMLPullParser(
            events=("start", "end"), tag="{*}" + entry, resolve_entities=False, no_network=True, load_dtd=False,
            encoding=encoding,
        )
        self.xsd = ctx.options.xsd and namespace_ok
        self._schema = load_schema(SchemaKind.INDEX if index else SchemaKind.URLSET) if self.xsd else None
        self._root = None
        self._batch = None
        self._batch_size = 0
        self._value_lines = set()
        self._running = None
        self._pending: Any = None  # the last entry ended, taken out when the next one ends (see _drain)
        self._xsd_seen = set()
        self._log_seen = 0  # entries of lxml's log already looked at (see _scan_log)
        self._ns_error: tuple[str, int | None, int | None] | None = None
        self._ns_said = False
        self._nul: bool | None = None  # whether the first NUL or U+0001 handed to lxml was a NUL (see lx_feed)
        self.dead = False
        self.count = 0
        self._news = 0
        self._saw_root = False
        self._tags = (_S + "loc", _S + "lastmod", _S + "changefreq", _S + "priority")
        self.google = ctx.google
        self.store = ctx.hreflang if self.google else None
        self.col_fix_line = 0
        self.col_fix = 0
        self._threaded = XSD_IN_THREAD
        self._lane: Lane | None = lane(self, XSD_BATCH) if lane is not None and not index else None
        self._trimmer = ChildTrimmer()

    # --- driving -----------------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        if self.dead:
            return
        lane = self._lane
        if lane is not None:
            # Canonical <url> blocks are checked from the bytes (the lane); lxml gets the prolog at once
            # and the rest of the document from the first block that is not canonical.
            data = lane.feed(data)
            if lane.off:
                self._lane = None
            if not data or self.dead:
                return
        self.lx_feed(data)

    def lx_feed(self, data: bytes) -> None:
        """Hand bytes to lxml, at most :data:`LX_SLICE` at a time: libxml2 refuses to buffer more than 10 MB of
        unparsed input ("Buffer size limit exceeded"), so a document given in one piece would fail where the
        same bytes read in chunks do not. Each slice is drained before the next (memory stays flat).

        A NUL is handed over as U+0001 (as the reader does): libxml2 looks for the end of a comment, PI or
        declaration with C string functions, which stop at a NUL, so whether it reports one at once or only at the
        end depended on the chunking; U+0001 is just as invalid everywhere in XML, and the message names the NUL."""
        if b"\x00" in data:
            if self._nul is None:
                self._nul = b"\x01" not in data[:data.index(b"\x00")]
            data = data.replace(b"\x00", b"\x01")
        elif self._nul is None and b"\x01" in data:
            self._nul = False
        if len(data) <= LX_SLICE:
            self._lx_feed(data)
            return
        view = memoryview(data)
        for start in range(0, len(data), LX_SLICE):
            self._lx_feed(bytes(view[start:start + LX_SLICE]))
            if self.dead:
                return

    def _lx_feed(self, data: bytes) -> None:
        parser = self._parser
        try:
            parser.feed(data)
        except etree.XMLSyntaxError as exc:
            self._drain_all()
            self._scan_log(parser.feed_error_log)  # the error that stopped libxml2, and namespace errors before it
            if not self.dead:
                self._syntax_error(exc)
            return
        self._drain()
        # libxml2 logs namespace errors (a prefix not declared, an xmlns that is not a URI) and goes on; it stops at
        # some fatal errors (an undefined entity in an attribute) without failing this feed, and lxml raises only
        # at the next feed, about whatever came next. Both are taken from the log here, the same whatever the
        # chunking.
        log = parser.feed_error_log
        if len(log) > self._log_seen:
            self._scan_log(log)

    def _finish_lane(self) -> None:
        lane = self._lane
        if lane is not None and not self.dead:
            self._lane = None
            rest = lane.finish()
            if rest and not self.dead:
                self.lx_feed(rest)

    def stop(self) -> None:
        """The bytes end here (what follows cannot be decoded): read what came, and nothing more."""
        self._finish_lane()
        if not self.dead:
            self._drain_all()
            self.dead = True

    def close(self) -> None:
        self._finish_lane()
        if not self.dead:
            try:
                top: Any = self._parser.close()
            except etree.XMLSyntaxError as exc:
                self._drain_all()
                self._scan_log(self._parser.feed_error_log)
                if not self.dead and self._ns_error is None:
                    self._syntax_error(exc)
                # else: only namespace errors, reported below; libxml2 read the whole document
            else:
                self._drain_all()
                if self._root is None and top is not None:
                    self._set_root(top)
        root = self._root
        if root is not None and not self.dead:
            # What is left in the root after the last entry: stray top-level elements.
            for child in root:
                if isinstance(child.tag, str) and child.getparent() is root:
                    self._stray(child)
        self._flush_batch(final=True)
        self._report_ns_error()
        self._finish()

    def _scan_log(self, log: Any) -> None:
        """The entries of lxml's log not seen yet: the first namespace error is kept (reported at the end), the
        first fatal error ends reading."""
        entries = list(log)
        for entry in entries[self._log_seen:]:
            level = entry.level
            if level == _FATAL:
                self._log_seen = len(entries)
                self._drain_all()
                self._fatal(entry.message or "", entry.line, entry.column)
                return
            if level == _ERROR and self._ns_error is None:
                self._ns_error = (entry.message or "", entry.line or None, entry.column or None)
        self._log_seen = len(entries)

    def _report_ns_error(self) -> None:
        """The first namespace error libxml2 logged (it reads on past them): the document is not namespace
        well-formed. Reported once, at the end or where reading stopped."""
        found = self._ns_error
        if found is not None and not self._ns_said:
            self._ns_said = True
            message, line, column = found
            text = _POSITION_SUFFIX.sub("", message.strip())
            self.ctx.report(C.NOT_WELL_FORMED, f"not well-formed XML (namespaces): {text}", line,
                            self._fixed_column(line, column))

    def _fixed_column(self, line: int | None, column: int | None) -> int | None:
        if line is not None and line == self.col_fix_line and column:
            column += self.col_fix  # the fast lane handed over mid-line: lxml counts from there
        return column or None

    def _syntax_error(self, exc: etree.XMLSyntaxError) -> None:
        line, column = exc.position if exc.position and exc.position[0] else (exc.lineno or None, None)
        self._fatal(exc.msg or str(exc), line, column)

    def _fatal(self, msg: str, line: int | None, column: int | None) -> None:
        self.dead = True
        self._report_ns_error()
        if self._nul:  # the character libxml2 names is the NUL the document has
            msg = _SOH_IN_MESSAGE.sub(r"\g<1>0", msg)
        code, message = _syntax_message(msg)
        self.ctx.report(code, message, line or None, self._fixed_column(line, column))

    def _set_root(self, el: Element) -> None:
        self._root = el
        self._saw_root = True
        tag = el.tag
        ns = tag[: tag.index("}") + 1] if tag.startswith("{") else ""
        self._tags = (ns + "loc", ns + "lastmod", ns + "changefreq", ns + "priority")

    def _drain(self) -> None:
        root = self._root
        take = self._take
        trimmer = self._trimmer
        events: Iterator[tuple[str, Any]] = self._parser.read_events()
        for event, el in events:
            if root is None:
                top = el
                while (up := top.getparent()) is not None:
                    top = up
                self._set_root(top)
                root = top
            if el.getparent() is not root:
                continue
            if event == "start":
                trimmer.open(el)
                continue
            dropped = trimmer.finish(el)
            if dropped is not None:
                self._report_dropped(el, dropped)
            # An entry is taken out of the tree when the next one has ended: by then the text after it (its
            # tail, which XSD validates with it) is complete, whatever the chunking.
            pending, self._pending = self._pending, el
            if pending is not None:
                take(pending)
        if trimmer.active:
            trimmer.trim()

    def _report_dropped(self, el: Any, dropped: Dropped) -> None:
        """Children past their caps were removed from this entry while it was read (see ChildTrimmer)."""
        for kind, (kept, n, line) in dropped.kinds.items():
            name = child_name(kind)
            if kind == _IMAGE and self.google:
                self.ctx.report(C.IMAGE_TOO_MANY, f"{kept + n:,} images in one <url>: Google reads at most "
                                                  f"{MAX_IMAGES_PER_URL:,}; the first {kept:,} are checked", line)
            else:
                self.ctx.report(C.ENTRY_TOO_MANY_CHILDREN, f"{kept + n:,} <{name}> in one <{self._entry_local}> "
                                                           f"(line {line_of(el)}): only the first {kept:,} are "
                                                           "checked", line)
        if dropped.nested:
            self.ctx.report(C.ENTRY_TOO_MANY_CHILDREN, f"{dropped.nested:,} nested elements past the cap of their "
                                                       f"kind in one <{self._entry_local}> (line {line_of(el)}) "
                                                       "are not checked", dropped.nested_line)

    def _drain_all(self) -> None:
        """Drain, then take the last entry too (end of the document, or reading stopped)."""
        self._drain()
        last = self._pending
        if last is not None:
            self._pending = None
            self._take(last)

    def _take(self, el: Any) -> None:
        """One entry: strays before it, the rule checks, then into the XSD batch (or out of the tree)."""
        root = self._root
        assert root is not None
        prev = el.getprevious()
        if prev is not None:
            self._clear_before(el, prev)
        self.count += 1
        (self._sitemap if self.index else self._url)(el)
        if self.xsd:
            batch = self._batch
            if batch is None:
                batch = self._batch = copy_root(root)
            batch.append(el)
            self._batch_size += 1
            if self._batch_size >= XSD_BATCH:
                self._flush_batch()
        else:
            root.remove(el)

    # --- entries -----------------------------------------------------------------------------------------
    def _clear_before(self, el: Element, prev: Element | None) -> None:
        """Anything left before this entry in the root is a stray top-level element (or a comment / PI)."""
        root = self._root
        assert root is not None
        while prev is not None:
            if isinstance(prev.tag, str):
                self._stray(prev)
            root.remove(prev)
            prev = el.getprevious()

    def _stray(self, el: Element) -> None:
        tag = el.tag
        assert isinstance(tag, str)
        ns = tag[1:].partition("}")[0] if tag.startswith("{") else ""
        root_ns = self._root.tag[1:].partition("}")[0] if self._root is not None and \
            self._root.tag.startswith("{") else ""
        if ns == root_ns:
            local = tag.rpartition("}")[2]
            self.ctx.report(C.ROOT_ELEMENT, f"<{local}> is not allowed directly in <{self._root_local()}>: only "
                                            f"<{self._entry_local}> elements belong there", line_of(el))

    def _root_local(self) -> str:
        return "sitemapindex" if self.index else "urlset"

    def _value_line(self, el: Element) -> None:
        line = line_of(el)
        if line is not None:
            self._value_lines.add((line, str(el.tag).rpartition("}")[2]))

    def _url(self, el: Any) -> None:
        ctx = self.ctx
        t_loc, t_lastmod, t_changefreq, t_priority = self._tags
        loc_el: Any = None
        lastmod: Any = None
        changefreq: Any = None
        priority: Any = None
        images: list[Any] | None = None
        videos: list[Any] | None = None
        news: list[Any] | None = None
        links: list[Any] | None = None
        for child in el:
            tag = child.tag
            if tag == t_loc:
                if loc_el is None:
                    loc_el = child
            elif tag == _LINK:
                if links is None:
                    links = [child]
                else:
                    links.append(child)
            elif tag == t_lastmod:
                lastmod = child
            elif tag == _IMAGE:
                if images is None:
                    images = [child]
                else:
                    images.append(child)
            elif tag == t_changefreq:
                changefreq = child
            elif tag == t_priority:
                priority = child
            elif tag == _VIDEO:
                if videos is None:
                    videos = []
                videos.append(child)
            elif tag == _NEWS:
                if news is None:
                    news = []
                news.append(child)
        start = ctx.found
        loc: str | None = None
        if loc_el is not None:
            loc = ctx.entry_loc(loc_el.text, loc_el.sourceline)
        else:
            ctx.entries += 1
        if lastmod is not None:
            ctx.entry_lastmod(lastmod.text or "", lastmod.sourceline, loc)
        if changefreq is not None:
            found = check_changefreq(changefreq.text or "")
            if found:
                ctx.findings(found, line_of(changefreq), loc)
        if priority is not None:
            found = check_priority(priority.text or "")
            if found:
                ctx.findings(found, line_of(priority), loc)
        if self.google:
            store = self.store
            if store is not None and loc is not None:
                store.add_page(loc)
            if images is not None:
                image: Any
                if len(images) == 1 and len(image := images[0]) == 1 and (image_loc := image[0]).tag == _IMAGE_LOC \
                        and (text := image_loc.text) is not None and len(text) < 2048 \
                        and (m := FAST_URL(text)) is not None and not ctx.bad_host(m.group(2)):
                    pass  # the common shape, one image with a plain image:loc: nothing check_images would report
                else:
                    check_images(ctx, images, loc)
            if videos is not None:
                for video in videos:
                    check_video(ctx, video, loc)
            if news is not None:
                for item in news:
                    self._news += 1
                    if self._news == MAX_NEWS_PER_SITEMAP + 1:
                        ctx.report(C.NEWS_TOO_MANY, f"more than {MAX_NEWS_PER_SITEMAP} news:news in one sitemap: "
                                                    "split it", line_of(item), None, loc)
                    check_news(ctx, item, loc)
            if links is not None:
                check_alternates(ctx, [(link.get("hreflang"), link.get("href"), link.get("rel"), link.sourceline)
                                       for link in links], loc)
        if ctx.found != start:
            self.note_value_lines(start)

    def note_value_lines(self, start: int) -> None:
        """Remember which values the rule checks judged (the problems reported since ``ctx.found`` was
        ``start``, listed or not), to drop the XSD's duplicate of the same value."""
        for line in self.ctx.lines_since(start):
            for name in _VALUE_ELEMENTS:
                self._value_lines.add((line, name))

    def _sitemap(self, el: Element) -> None:
        ctx = self.ctx
        loc_el = lastmod = None
        for child in el:
            tag: object = child.tag
            if not isinstance(tag, str):
                continue
            local = tag.rpartition("}")[2]
            if local == "loc" and loc_el is None:
                loc_el = child
            elif local == "lastmod":
                lastmod = child
        loc: str | None = None
        if loc_el is not None:
            before = ctx.error_count + ctx.warning_count
            loc = ctx.entry_loc(loc_el.text, line_of(loc_el))
            if ctx.error_count + ctx.warning_count != before:
                self._value_line(loc_el)
            if loc is not None:
                ctx.child_locs.append((loc, line_of(loc_el)))
        else:
            ctx.entries += 1
        if lastmod is not None:
            before = ctx.error_count + ctx.warning_count
            ctx.entry_lastmod(lastmod.text or "", line_of(lastmod), loc, track_same=False)
            if ctx.error_count + ctx.warning_count != before:
                self._value_line(lastmod)

    def _finish(self) -> None:
        ctx = self.ctx
        if self._saw_root and self.count == 0 and not self.xsd and not self.dead:
            ctx.report(C.EMPTY_SET, f"no entries: the XSD requires at least one <{self._entry_local}>",
                       line_of(self._root) if self._root is not None else None)
        limit = MAX_INDEX_ENTRIES if self.index else MAX_URLS_PER_SITEMAP
        if self.count > limit:
            code = C.TOO_MANY_SITEMAPS if self.index else C.TOO_MANY_URLS
            ctx.report(code, f"{self.count:,} entries; the limit is {limit:,}: split the file", None)
        if not self.index:
            ctx.finish_entries()
