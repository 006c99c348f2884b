"""The one streaming XML pass of the validator: well-formedness, XSD and the rule checks together.

lxml's pull parser is fed decoded-by-libxml2 bytes and reports only the root and the ``<url>`` / ``<sitemap>``
elements. When an entry is complete its raw values go through the rule checks (with ``sourceline``), then the
element is *moved* into a small detached batch document; every ``XSD_BATCH`` entries the batch (a copy of the
root with those entries) is validated against the bundled official schema and dropped. libxml2 validation of a
tree reports each error at the line of its node, so XSD errors keep exact lines, and memory stays flat: at most
two batches of entries are alive. A full batch is validated on a worker thread (libxml2 validates without the GIL)
while the main thread parses and checks the next one; the final batch is validated on the main thread. An entry
leaves the tree when the next one has ended, so the text after it (its tail, validated with it) is complete
whatever the chunking. Canonical ``<url>`` blocks never become elements here: ``_validate_fast`` checks them from
the bytes and hands this pass their XSD batches as small documents, and the rest of the document from the first
block that is not canonical.
(``iterparse(schema=...)`` validates while parsing but reports every error at line 0, which is why it is not
used; ARCHITECTURE.md has the measurements.)
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any, cast

from lxml import etree

from sitemapkit.core._limits import MAX_INDEX_ENTRIES, MAX_NEWS_PER_SITEMAP, MAX_URLS_PER_SITEMAP
from sitemapkit.core._problems import ProblemCode
from sitemapkit.read import _lane as _fast
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
from sitemapkit.validate._lane import ValidatorLane
from sitemapkit.validate._schemas import SchemaKind, load_schema

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
_ELEMENT_NAME = re.compile(r"Element '(?:\{[^}]*\})?([^']+)'")
_STRUCTURE_HINTS = ("not expected", "Missing child", "No matching global", "is not allowed", "not accepted")
_VALUE_ELEMENTS = frozenset({"loc", "lastmod", "changefreq", "priority", "duration", "rating",
                             "publication_date", "language", "href", "hreflang"})

Element = etree._Element


_POSITION_SUFFIX = re.compile(r",? line \d+, column \d+\s*$")


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


def _copy_root(root: Element) -> Element:
    """An empty element like the root (same name, attributes, namespace declarations and line, so that XSD
    errors about the root's attributes carry the root's line)."""
    nsmap: Any = root.nsmap
    attrib: dict[str, str] = {str(k): str(v) for k, v in root.attrib.items()}
    copy = etree.Element(root.tag, attrib=attrib, nsmap=nsmap)
    if root.sourceline:
        cast(Any, copy).sourceline = root.sourceline
    return copy


#: The compiled schemas are shared (cached) and keep their error log on the schema object, so one validation at
#: a time may run: held around ``validate`` + ``error_log`` (the worker thread, the main thread, other callers).
_SCHEMA_LOCK = threading.Lock()


XsdError = tuple[int | None, str]  # (line, message)


def _schema_errors(schema: etree.XMLSchema, batch: Element) -> list[XsdError]:
    with _SCHEMA_LOCK:
        if schema.validate(batch):
            return []
        return [(e.line or None, e.message) for e in cast(Any, schema.error_log)]


class _BatchValidation(threading.Thread):
    """One detached batch validated on a worker thread: libxml2 validates without the GIL, so the main thread
    parses and checks the next batch meanwhile. At most one runs at a time (the schema object and its error log
    are used by one thread at a time); the batch document is not touched by the main thread until joined."""

    def __init__(self, schema: etree.XMLSchema, batch: Element, value_lines: set[tuple[int, str]]) -> None:
        super().__init__(name="sitemapkit-xsd", daemon=True)
        self.schema = schema
        self.batch: Element | None = batch
        self.value_lines = value_lines
        self.errors: list[XsdError] = []
        self.failure: BaseException | None = None
        self.start()

    def run(self) -> None:
        batch = self.batch
        assert batch is not None
        try:
            self.errors = _schema_errors(self.schema, batch)
        except BaseException as exc:  # handed to the main thread by XmlPass._collect
            self.failure = exc


def batch_root(doc: bytes) -> Element:
    """Parse a batch document built by the fast lane (well-formed by construction)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    return etree.fromstring(doc, parser)


class XmlPass:
    """Validate one urlset or sitemap index, fed in chunks (``feed`` then ``close``)."""

    def __init__(self, ctx: FileContext, *, index: bool, namespace_ok: bool) -> None:
        self.ctx = ctx
        self.index = index
        entry = "sitemap" if index else "url"
        self._entry_local = entry
        # Wildcard namespace: entries of a sitemap in a wrong or missing namespace are still checked.
        # Only the end of each entry is reported (the root is found from the first entry, or from close()).
        self._parser = etree.XMLPullParser(
            events=("end",), tag="{*}" + entry, resolve_entities=False, no_network=True, load_dtd=False,
        )
        self._xsd = ctx.options.xsd and namespace_ok
        self._schema = load_schema(SchemaKind.INDEX if index else SchemaKind.URLSET) if self._xsd else None
        self._root: Element | None = None
        self._batch: Element | None = None
        self._batch_size = 0
        self._value_lines: set[tuple[int, str]] = set()
        self._running: _BatchValidation | None = None
        self._pending: Any = None  # the last entry ended, taken out when the next one ends (see _drain)
        self._xsd_seen: set[tuple[int, str]] = set()
        self._dead = False
        self._count = 0
        self._news = 0
        self._saw_root = False
        self._tags = (_S + "loc", _S + "lastmod", _S + "changefreq", _S + "priority")
        self._google = ctx.google
        self._store = ctx.hreflang if self._google else None
        self._col_fix_line = 0
        self._col_fix = 0
        self._lane: ValidatorLane | None = ValidatorLane(self, XSD_BATCH) if _fast.ENABLED and not index else None

    # --- driving -----------------------------------------------------------------------------------------
    def feed(self, data: bytes) -> None:
        if self._dead:
            return
        lane = self._lane
        if lane is not None:
            # Canonical <url> blocks are checked from the bytes (_validate_fast); lxml gets the prolog at once
            # and the rest of the document from the first block that is not canonical.
            data = lane.feed(data)
            if lane.off:
                self._lane = None
            if not data or self._dead:
                return
        self._lx_feed(data)

    def _lx_feed(self, data: bytes) -> None:
        try:
            self._parser.feed(data)
        except etree.XMLSyntaxError as exc:
            self._drain_all()
            self._syntax_error(exc)
            return
        self._drain()

    def close(self) -> None:
        lane = self._lane
        if lane is not None and not self._dead:
            self._lane = None
            rest = lane.finish()
            if rest and not self._dead:
                self._lx_feed(rest)
        if not self._dead:
            try:
                top: Any = self._parser.close()
            except etree.XMLSyntaxError as exc:
                self._drain_all()
                self._syntax_error(exc)
            else:
                self._drain_all()
                if self._root is None and top is not None:
                    self._set_root(top)
        root = self._root
        if root is not None and not self._dead:
            # What is left in the root after the last entry: stray top-level elements.
            for child in root:
                if isinstance(child.tag, str) and child.getparent() is root:
                    self._stray(child)
        self._flush_batch(final=True)
        self._finish()

    def _syntax_error(self, exc: etree.XMLSyntaxError) -> None:
        self._dead = True
        line, column = exc.position if exc.position and exc.position[0] else (exc.lineno or None, None)
        if line == self._col_fix_line and column:
            column += self._col_fix  # the fast lane handed over mid-line: lxml counts from there
        code, message = _syntax_message(exc.msg or str(exc))
        self.ctx.report(code, message, line or None, column or None)

    def _set_root(self, el: Element) -> None:
        self._root = el
        self._saw_root = True
        tag = el.tag
        ns = tag[: tag.index("}") + 1] if tag.startswith("{") else ""
        self._tags = (ns + "loc", ns + "lastmod", ns + "changefreq", ns + "priority")

    def _drain(self) -> None:
        root = self._root
        take = self._take
        events: Iterator[tuple[str, Any]] = self._parser.read_events()
        for _, el in events:
            if root is None:
                top = el
                while (up := top.getparent()) is not None:
                    top = up
                self._set_root(top)
                root = top
            if el.getparent() is not root:
                continue
            # An entry is taken out of the tree when the next one has ended: by then the text after it (its
            # tail, which XSD validates with it) is complete, whatever the chunking.
            pending, self._pending = self._pending, el
            if pending is not None:
                take(pending)

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
        self._count += 1
        (self._sitemap if self.index else self._url)(el)
        if self._xsd:
            batch = self._batch
            if batch is None:
                batch = self._batch = _copy_root(root)
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
        problems = ctx.problems
        start = len(problems)
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
        if self._google:
            store = self._store
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
        if len(problems) != start:
            self.note_value_lines(start)

    def note_value_lines(self, start: int) -> None:
        """Remember which values the rule checks judged (problems from ``start`` on), to drop the XSD's
        duplicate of the same value."""
        for problem in self.ctx.problems[start:]:
            if problem.location.line is not None:
                for name in _VALUE_ELEMENTS:
                    self._value_lines.add((problem.location.line, name))

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

    # --- XSD -----------------------------------------------------------------------------------------------
    def _flush_batch(self, *, final: bool = False) -> None:
        schema = self._schema
        if schema is None:
            return
        self._collect()
        batch = self._batch
        if batch is None:
            if not final or not self._saw_root or self._count or self._dead:
                return
            # No entries at all: validate the bare root so the schema reports what it lacks.
            root = self._root
            assert root is not None
            batch = _copy_root(root)
            cast(Any, batch).sourceline = root.sourceline
        value_lines = self._value_lines
        self._value_lines = set()
        self._batch = None
        self._batch_size = 0
        if final or not XSD_IN_THREAD:
            for line, message in _schema_errors(schema, batch):
                self._xsd_error(line, message, value_lines)
        else:
            self._running = _BatchValidation(schema, batch, value_lines)

    def flush_bytes_batch(self, doc: bytes) -> None:
        """A full batch of the fast lane's blocks (``doc``, see ``_validate_fast``): validated like
        ``_flush_batch`` validates a batch of elements, at the same points of the document."""
        schema = self._schema
        assert schema is not None  # the lane keeps batches only when the XSD applies
        self._collect()
        value_lines = self._value_lines
        self._value_lines = set()
        root = batch_root(doc)  # parsed here: lxml parses holding the GIL, it validates without it
        if XSD_IN_THREAD:
            self._running = _BatchValidation(schema, root, value_lines)
        else:
            for line, message in _schema_errors(schema, root):
                self._xsd_error(line, message, value_lines)

    def adopt_batch(self, doc: bytes, count: int) -> None:
        """The fast lane hands over with a partial batch: its blocks become the start of the element batch."""
        assert self._schema is not None
        self._batch = batch_root(doc)
        self._batch_size = count

    def _collect(self) -> None:
        """Wait for the batch validating on the worker thread and report its errors."""
        running = self._running
        if running is None:
            return
        self._running = None
        running.join()
        running.batch = None  # the batch document is freed here, on the thread that built it
        if running.failure is not None:
            raise running.failure
        for line, message in running.errors:
            self._xsd_error(line, message, running.value_lines)

    def _xsd_error(self, line: int | None, message: str, value_lines: set[tuple[int, str]]) -> None:
        m = _ELEMENT_NAME.match(message)
        name = m.group(1) if m else ""
        structure = any(h in message for h in _STRUCTURE_HINTS)
        if not structure and line is not None and (line, name) in value_lines:
            return  # a rule check already reported this value, with a better message
        if name in ("urlset", "sitemapindex") and "Missing child" in message:
            if self._count == 0:
                self.ctx.report(C.EMPTY_SET, "no entries: the XSD requires at least one <"
                                + self._entry_local + "> (an empty news sitemap is fine for Google; the stricter "
                                "reading applies)", line)
            return
        key = (line or 0, message)
        if key in self._xsd_seen:  # root attribute errors repeat in every batch
            return
        self._xsd_seen.add(key)
        code = C.XSD_STRUCTURE if structure else C.XSD_VALUE
        fix = "; follow the schema's element order" if code is C.XSD_STRUCTURE else ""
        self.ctx.report(code, f"XSD: {message}{fix}", line)

    def _finish(self) -> None:
        ctx = self.ctx
        if self._saw_root and self._count == 0 and not self._xsd and not self._dead:
            ctx.report(C.EMPTY_SET, f"no entries: the XSD requires at least one <{self._entry_local}>",
                       line_of(self._root) if self._root is not None else None)
        limit = MAX_INDEX_ENTRIES if self.index else MAX_URLS_PER_SITEMAP
        if self._count > limit:
            code = C.TOO_MANY_SITEMAPS if self.index else C.TOO_MANY_URLS
            ctx.report(code, f"{self._count:,} entries; the limit is {limit:,}: split the file", None)
        if not self.index:
            ctx.finish_entries()
