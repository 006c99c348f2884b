"""XML engine of the reader: urlset, sitemap index, RSS 2.0, RSS 1.0 (RDF), Atom 1.0 and Atom 0.3.

Built on lxml's pull parser (libxml2), chosen by measurement (ARCHITECTURE.md, "Reader"): the C parser builds one
``<url>`` subtree at a time, a tag filter hands only complete items to Python, and each item is cleared and
unlinked once read, so memory does not grow with the document. Hardening: the reader refuses any DOCTYPE before
bytes reach this engine (``_sniff``); the parser is also configured never to load a DTD, resolve an entity or touch
the network. Text is transcoded to UTF-8 here when the document uses another encoding.
"""

from __future__ import annotations

import codecs
import re
from typing import Any

from lxml import etree

from sitemapkit.core import (
    MAX_LOC_LENGTH,
    SIMPLE_URI,
    Alternate,
    Changefreq,
    Image,
    InvalidEntryError,
    InvalidValueError,
    LastMod,
    News,
    SitemapRef,
    UrlEntry,
    Video,
    canonical_url_entry,
    lastmod_of_valid_form,
    parse_lastmod_lenient,
    simple_iri_to_uri,
)
from sitemapkit.read import _codes as C
from sitemapkit.read import _lane as _fast
from sitemapkit.read._fields import (
    _CACHE_SIZE,
    IMAGE_NS,
    MOBILE_NS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    ExtensionReaders,
    _Bad,
    _split,
    _text,
    _Warner,
)
from sitemapkit.read._owner import DUPLICATE_TRACKING_LIMIT, Owner
from sitemapkit.read._sniff import SITEMAP_NS, DocumentKind, EncodingInfo, KindInfo
from sitemapkit.read._xmlstream import XmlStream, _AmpRepair

__all__ = ["CORE_NAMESPACES", "XmlEngine"]

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
_INNER_WS = re.compile(r"\s")
_URL_START = re.compile(r"https?://", re.IGNORECASE)
_simple_uri = SIMPLE_URI.fullmatch


def _released(_el: Any) -> None:
    raise AssertionError("an item after the document was released")


class XmlEngine(XmlStream, ExtensionReaders):
    """Feeds UTF-8 bytes to lxml and turns complete items into entries (one instance per document).

    The byte plumbing is :class:`~sitemapkit.read._xmlstream.XmlStream`'s, the extension elements are read by
    :class:`~sitemapkit.read._fields.ExtensionReaders`; here: the document's set-up, and its items."""

    def __init__(self, owner: Owner, info: KindInfo, enc: EncodingInfo) -> None:
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
        self._pending = []
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
        # start events too: the item still open is followed, its children capped as they arrive (_trim)
        self._p = etree.XMLPullParser(
            events=("start", "end"), tag=tag, encoding="utf-8", resolve_entities=False, no_network=True, load_dtd=False,
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
        self._fast = _fast.FastUrlset(self) if lane else None

    def _release_handlers(self) -> None:
        # the item handler is a method bound to this engine: a cycle that would keep it (and lxml's parser, until
        # the next cyclic collection) alive
        self._handle = _released

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
        and the images and alternates already built (by the fast lane, _lane, from canonical blocks)."""
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
                elif (uri := simple_iri_to_uri(s)) is not None and len(uri) <= MAX_LOC_LENGTH:
                    # a raw IRI needing only UTF-8 escapes: the loc UrlEntry would normalise it to, built directly
                    entry = canonical_url_entry(uri, lastmod, changefreq, priority)
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
