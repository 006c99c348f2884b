"""The reader's fast lane for plain urlsets: canonical ``<url>`` blocks read straight from the bytes.

Most urlsets are machine-written and look the same from the first ``<url>`` to the last::

    <url><loc>https://example.com/a?p=1&amp;q=2</loc><lastmod>2024-05-01</lastmod><changefreq>daily</changefreq>
    <priority>0.5</priority></url>

For such a block the element tree has nothing to add: there is no markup inside the values, no attribute, no
namespace prefix. :class:`FastUrlset` matches these blocks with one regular expression (C, no Python objects per
element; the patterns are in ``_blocks``) and hands the four texts to the engine, which builds the entry exactly as
it does from lxml elements. Values may hold the five predefined entities, numeric character references and UTF-8
non-ASCII characters (raw IRIs): they are decoded as XML does (``_blocks.xml_value``), and a reference XML forbids
(``&#0;``, U+FFFE) leaves the block to lxml. Comments between blocks are skipped. It is used only while every block
is canonical:

* It starts after the prolog (XML declaration, comments, PIs) and the ``<urlset ...>`` start tag, which are fed to
  lxml first, so a broken root tag is reported before any entry, as before.
* At the first byte that is not whitespace, a plain comment or a complete canonical block (an extension element
  other than a plain image or hreflang link, CDATA, another entity, a different child order, ``</urlset>`` at the
  end), it **bails out** for the rest of the document: lxml gets the remaining bytes, after a line break and column
  shift (in characters, as libxml2 counts them) that keep every line and column lxml reports equal to the original
  document's. What lxml then sees is the original document with the blocks already read replaced by whitespace, so
  what it reports about the rest is what it reported before.

Canonical blocks are well-formed by construction (no ``<`` or ``>`` in values, ``&`` only in a reference the lane
decodes, characters valid UTF-8 by the time they reach it), so nothing lxml would have said about them is lost.
The equivalence with the element path is pinned by tests that read documents both ways
(``tests/read/test_fast_lane.py``); ``benchmarks/lane_share.py`` measures how much of the real-world corpus the
lane reads.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

from sitemapkit.core import (
    MAX_ALTERNATES_PER_URL,
    MAX_IMAGES_PER_URL,
    MAX_LOC_LENGTH,
    SIMPLE_URI,
    Alternate,
    Changefreq,
    Image,
    LastMod,
    canonical_alternate,
    canonical_image,
    canonical_url_entry,
    lastmod_of_valid_form,
)
from sitemapkit.read._blocks import BLOCK, NotXml, RunSplitter, block_patterns, gap_end, url_values, xml_value
from sitemapkit.read._codes import DUPLICATE_LOC
from sitemapkit.read._locrun import run_at, take_run
from sitemapkit.read._owner import DUPLICATE_TRACKING_LIMIT, Owner

__all__ = ["ENABLED", "MAX_LANE_TAGS", "CanonicalLane", "FastUrlset", "UrlsetEngine", "lane_enabled"]

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"

#: Switch for tests and A/B measurements: False reads every document through lxml elements only.
ENABLED = True


def lane_enabled() -> bool:
    """Whether the fast lane is on (``ENABLED``; the equivalence tests switch it off to compare the two paths)."""
    return ENABLED

# Prolog up to the end of the root start tag: XML declaration, PIs (xml-stylesheet), comments and whitespace,
# then an unprefixed <urlset> with plain attributes (no entity references in their values). A PI ends at its first
# "?>" and a comment at its first "-->" (atomic groups): the match on a prefix of the document is the match on the
# whole, so whether the lane starts does not depend on how the bytes were cut.
_S = rb"[ \t\r\n]"
_PROLOG = re.compile(
    rb"(?:\xef\xbb\xbf)?(?:(?><\?.*?\?>)|(?><!--.*?-->)|" + _S + rb"+)*?"
    rb"<urlset(?:" + _S + rb"++[A-Za-z_:][A-Za-z0-9_.:\-]*+" + _S + rb"*+=" + _S + rb"*+"
    rb"(?:\"[^\"<&]*+\"|'[^'<&]*+'))*+" + _S + rb"*+>",
    re.S,
)
_XMLNS = re.compile(rb"xmlns:([A-Za-z_][A-Za-z0-9_.\-]*+)[ \t\r\n]*+=[ \t\r\n]*+(?:\"([^\"]*+)\"|'([^']*+)')")
_SAFE_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*+")
_WS = " \t\r\n"
#: Most bytes held for a block still arriving (the four core values fit many times over). A longer block with many
#: extensions is read by the lane when it arrives within one buffer, and otherwise left to lxml.
_MAX_BLOCK = 16384
#: Most tags in one block's run of extension elements that a lane reads: a block with more (it may have more
#: images or alternates than their caps) is left to lxml, whose reading caps them and reports the excess (_trim).
MAX_LANE_TAGS = min(MAX_IMAGES_PER_URL, MAX_ALTERNATES_PER_URL)
#: Bytes held while the prolog is undecided (a root start tag longer than this takes the element path).
_MAX_PROLOG = 65536

_UNDECIDED, _ON = 0, 1
_CONTINUATION = re.compile("[\x80-\xbf]").findall
_CHANGEFREQS = {m.value: m for m in Changefreq}
_simple_uri = SIMPLE_URI.fullmatch
#: Runs in a row that :func:`take_run` refused before a document is read block by block only (a document full of
#: duplicates or odd values would otherwise be matched twice).
_BULK_MISSES = 4


def _prolog_settled(buf: bytes) -> bool:
    """Whether no more bytes can change that ``_PROLOG`` does not match ``buf`` (so that whether the lane starts
    is the same for every chunking): the prolog seen so far is complete up to a byte that ends it (a complete
    root start tag, or something that starts no PI, comment, whitespace or ``<urlset``)."""
    n = len(buf)
    if n < 3 and _BOM.startswith(buf):
        return False
    i = 3 if buf.startswith(_BOM) else 0
    while i < n:
        if buf[i] in _WS_BYTES:
            i += 1
            continue
        for opening, closing in _SKIPPED:
            if buf.startswith(opening, i):
                end = buf.find(closing, i + len(opening))
                if end < 0:
                    return False  # a PI or comment still arriving
                i = end + len(closing)
                break
        else:
            head = buf[i:i + 7]
            if len(head) < 7 and any(s.startswith(head) for s in (b"<?", b"<!--", b"<urlset")):
                return False  # could still become one of them
            if head != b"<urlset":
                return True
            # the root start tag: settled once it ends (at a ">" outside quoted attribute values)
            j = i + 7
            while j < n:
                c = buf[j]
                if c == 0x3E:  # >
                    return True
                if c in (0x22, 0x27):  # a quoted value
                    j = buf.find(bytes((c,)), j + 1)
                    if j < 0:
                        return False
                j += 1
            return False
    return False


_BOM = b"\xef\xbb\xbf"
_WS_BYTES = b" \t\r\n"
_SKIPPED = ((b"<?", b"?>"), (b"<!--", b"-->"))


def _prefixes(head: bytes) -> tuple[str | None, str | None]:
    """The prefixes the root start tag binds to the image and XHTML namespaces (None when not bound, or bound
    more than once, or not a plain name)."""
    image = xhtml = None
    for m in _XMLNS.finditer(head):
        prefix = m[1].decode("ascii")
        uri = (m[2] if m[2] is not None else m[3]).decode("latin-1")
        if uri == IMAGE_NS:
            image = prefix if image is None else ""
        elif uri == XHTML_NS:
            xhtml = prefix if xhtml is None else ""
    ok = _SAFE_PREFIX.fullmatch
    return (image if image and ok(image) else None, xhtml if xhtml and ok(xhtml) else None)


class CanonicalLane:
    """Reads canonical ``<url>`` blocks from the byte stream until the first that is not; lxml takes the rest.

    ``feed`` returns the bytes lxml must parse now (empty while the lane holds them); ``off`` turns true once the
    rest of the document belongs to lxml. Subclasses say what a block means (``_consume``), how lxml gets the
    prolog (``_start``) and how it takes over (``_handover``). Used by the reader (:class:`FastUrlset`) and by the
    validator (``sitemapkit.validate._lane``)."""

    __slots__ = ("_base_nl", "_block", "_buf", "_buf_nl", "_col", "_head", "_head_col", "_head_nl", "_items", "_nl_at",
                 "_state", "off")

    #: Blocks must be followed by markup (the validator: text after a block belongs to it for the XSD).
    _TAILED = False
    #: The wider values (entities, character references, non-ASCII) and comments between blocks (the reader).
    _EXTENDED = False

    def __init__(self) -> None:
        self._state = _UNDECIDED
        self._buf = b""
        self._buf_nl: int | None = 0  # line feeds in _buf, when known
        self._base_nl = 0  # line feeds in the stream before _buf[0]
        # (pos, line feeds in the scanned text before pos) when _consume counted them already, else None
        self._nl_at: tuple[int, int] | None = None
        self._col = 0  # bytes since the last line feed at _buf[0]
        self._head = b""  # the prolog and root start tag (what lxml was given first)
        self._head_nl = 0  # line feeds in the head
        self._head_col = 0
        self._block = BLOCK
        self._items: RunSplitter | None = None
        self.off = False

    def feed(self, data: bytes, nl: int | None = None) -> bytes:
        """``nl``: the line feeds in ``data`` when the caller counted them (then the lane does not count again)."""
        buf = self._buf + data if self._buf else data
        buf_nl = None if nl is None or self._buf_nl is None else self._buf_nl + nl
        self._buf = b""
        if self._state == _UNDECIDED:
            buf_nl = None
            m = _PROLOG.match(buf, 0, _MAX_PROLOG)
            if m is None:
                if len(buf) >= _MAX_PROLOG or _prolog_settled(buf):
                    self.off = True  # decided: not a prolog this lane reads
                    return buf
                self._buf = buf
                self._buf_nl = None  # (the prolog is still arriving: counted when the lane starts)
                return b""
            end = m.end()
            head = self._head = buf[:end]
            self._state = _ON
            self._head_nl = self._base_nl = head.count(b"\n")
            self._head_col = self._col = end - (head.rfind(b"\n") + 1)
            self._block, self._items = block_patterns(*_prefixes(head), self._TAILED, self._EXTENDED)
            if not self._start(head):
                self.off = True
                return b""
            buf = buf[end:]
            if self._decline():
                self.off = True  # lxml reads it all, from right after the head it already has
                return buf
        return self._scan(buf, final=False, buf_nl=buf_nl)

    def finish_early(self, data: bytes) -> bytes:
        """Stop here: ``data`` and whatever is held go to lxml (with the hand-over shift when the lane was on)."""
        buf, self._buf = self._buf + data, b""
        self.off = True
        if self._state == _UNDECIDED:
            return buf
        return self._handover(self._base_nl - self._head_nl, buf)

    def finish(self) -> bytes:
        """End of the document: whatever is held goes to lxml."""
        buf, self._buf = self._buf, b""
        if self._state == _UNDECIDED:
            self.off = True
            return buf
        return self._scan(buf, final=True)

    # --- for subclasses ---------------------------------------------------------------------------------------
    def _start(self, head: bytes) -> bool:
        """Give lxml the head; False when lxml rejected it (the document is then dead)."""
        raise NotImplementedError

    def _decline(self) -> bool:
        """True when the lane must not start although the head matched (lxml takes the rest as it comes)."""
        return False

    def _consume(self, text: str, pos: int, buf: bytes) -> int:
        """Handle the contiguous canonical blocks from ``pos``; return the position after the last one."""
        raise NotImplementedError

    def _handover(self, skipped: int, rest: bytes) -> bytes:
        """lxml takes over at ``rest``, ``skipped`` lines after the head's last line, at column ``self._col``
        (bytes before it on its line; ``self._head_col`` when still on the head's line)."""
        raise NotImplementedError

    # --- scanning ---------------------------------------------------------------------------------------------
    def _scan(self, buf: bytes, *, final: bool, buf_nl: int | None = None) -> bytes:
        text = buf.decode("latin-1")  # one character per byte: positions are byte offsets
        start = gap_end(text) if self._EXTENDED else len(text) - len(text.lstrip(_WS))
        pos = self._consume(text, start, buf)
        rest = text[pos:]
        if not final and (
            (rest.startswith("<url>") and len(rest) < _MAX_BLOCK and (
                "</url>" not in rest  # a block still arriving
                # complete, but what follows it has not arrived (it decides, see _TAILED)
                or (self._TAILED and rest.count("</url>") == 1 and rest.rstrip(_WS).endswith("</url>"))))
            or "<url>".startswith(rest)
            # a comment between blocks still arriving
            or (self._EXTENDED and (("-->" not in rest and rest.startswith("<!--") and len(rest) < _MAX_BLOCK)
                                    or "<!--".startswith(rest)))
        ):
            rest_nl = self._advance(text, pos, buf_nl)
            self._buf_nl = text.count("\n", pos) if rest_nl is None else rest_nl  # (the held tail: small)
            self._buf = buf[pos:]
            return b""
        self._advance(text, pos, buf_nl)
        self.off = True
        return self._handover(self._base_nl - self._head_nl, buf[pos:])

    def _advance(self, text: str, pos: int, text_nl: int | None = None) -> int | None:
        """Move past ``text[:pos]`` (``text_nl``: the line feeds in all of ``text``, when known); the line feeds in
        ``text[pos:]`` when they were counted (the tail held for the next chunk), else None."""
        # Columns count characters, as libxml2 does: a UTF-8 continuation byte (0x80-0xBF) adds none.
        known, self._nl_at = self._nl_at, None
        rest_nl = None
        if known is not None and known[0] == pos:
            nl = known[1]
        elif text_nl is not None:
            rest_nl = text.count("\n", pos)  # the tail: usually one block or less
            nl = text_nl - rest_nl
        else:
            nl = text.count("\n", 0, pos)
        ascii_text = text.isascii()
        if nl:
            self._base_nl += nl
            start = text.rfind("\n", 0, pos) + 1
            self._col = pos - start - (0 if ascii_text else len(_CONTINUATION(text, start, pos)))
        else:
            self._col += pos - (0 if ascii_text else len(_CONTINUATION(text, 0, pos)))
        return rest_nl

    def _line_at_buf_start(self) -> int:
        """Document line of the first byte of the buffer being scanned (1-based, counted from the head)."""
        return 1 + self._base_nl


class UrlsetEngine(Protocol):
    """What :class:`FastUrlset` uses of the XML engine that owns it (``_xml.XmlEngine``; the engine imports the
    lane, never the other way): its lxml parser and line mapping, its value memos, and the element path's
    builder of one entry (``_finish_url``) for blocks the lane does not build itself."""

    o: Owner
    _p: Any  # the engine's etree.XMLPullParser
    _plain_emit: bool
    _lm_cache: dict[str, LastMod]
    _pr_cache: dict[str, float]
    _lm_memo: bool
    _line_offset: int
    _col_fix_line: int
    _col_fix: int

    @property
    def dead(self) -> bool: ...

    def _lx_feed(self, data: bytes) -> None: ...

    def _lm_cache_full(self) -> None: ...

    def _finish_url(self, raw: str | None, lm: str | None, cf: str | None, pr: str | None,
                    ext: list[tuple[int, Any]] | None, line: int | None, el: Any,
                    images: list[Image] | None = None, alternates: list[Alternate] | None = None) -> None: ...


class FastUrlset(CanonicalLane):
    """The reader's lane: canonical blocks become entries exactly as the element path builds them."""

    __slots__ = ("_bulk", "_e", "_misses")
    _EXTENDED = True

    def __init__(self, engine: UrlsetEngine) -> None:
        super().__init__()
        self._e = engine
        # Runs of plain blocks become LocRun events when the reader asked for them (see _locrun).
        self._bulk = engine.o.loc_runs and engine._plain_emit
        self._misses = 0

    def _start(self, head: bytes) -> bool:
        self._e._lx_feed(head)
        return not self._e.dead

    def _take_run(self, text: str, pos: int) -> int:
        """Read the run of plain blocks at ``pos`` as one :class:`LocRun` when it qualifies; where it ends."""
        end = run_at(text, pos)
        if end == pos:
            return pos
        o = self._e.o
        run = take_run(text[pos:end], o._seen, DUPLICATE_TRACKING_LIMIT)
        if run is None:
            self._misses += 1
            self._bulk = self._misses < _BULK_MISSES
            return pos
        self._misses = 0
        o._items += len(run.locs)
        o._out.append(run)
        return end

    def _decline(self) -> bool:
        # lxml logged an error it goes on after (an xmlns that is not a URI): it fails the document at its end,
        # and it may read the elements differently; the element path alone says what it says.
        return bool(len(self._e._p.feed_error_log))

    def _consume(self, text: str, pos: int, buf: bytes) -> int:
        if self._bulk:
            pos = self._take_run(text, pos)
        e = self._e
        o = e.o
        seen = o._seen
        out = o._out
        plain = e._plain_emit
        lm_cache = e._lm_cache
        pr_cache = e._pr_cache
        finish = e._finish_url
        cpos = 0
        cline = self._line_at_buf_start() + e._line_offset  # document line at text[cpos]
        images: tuple[Image, ...] = ()
        alternates: tuple[Alternate, ...] = ()
        # Values need decoding only where the buffer has a reference or a non-ASCII byte (checked once, in C).
        decode = not buf.isascii() or b"&" in buf
        for m in self._block.finditer(text, pos):
            start = m.start()
            if start != pos:
                break
            raw, lm, cf, pr, run = m.groups()
            if decode:
                try:
                    raw, lm, cf, pr = url_values(raw, lm, cf, pr)
                except (NotXml, UnicodeDecodeError):
                    break
            if run:
                got = self._extensions(run, decode)
                if got is None:
                    break  # an extension this lane does not build: lxml reads this block and the rest
                images, alternates = got
            elif images or alternates:
                images = alternates = ()
            pos = m.end()
            if plain:
                # The common case inlined (what XmlEngine._finish_url does for it); anything else goes there.
                s = raw.strip()
                if len(s) <= MAX_LOC_LENGTH and _simple_uri(s) is not None:
                    if lm is None:
                        lastmod = None
                    else:
                        lastmod = lm_cache.get(lm)
                        if lastmod is None:
                            lastmod = lastmod_of_valid_form(lm)
                            if lastmod is not None and e._lm_memo:
                                if len(lm_cache) >= 4096:
                                    e._lm_cache_full()
                                lm_cache[lm] = lastmod
                    changefreq = None if cf is None else _CHANGEFREQS.get(cf)
                    priority = None if pr is None else pr_cache.get(pr)
                    if ((lastmod is not None or lm is None) and (changefreq is not None or cf is None)
                            and (priority is not None or pr is None)):
                        entry = canonical_url_entry(s, lastmod, changefreq, priority, images, (), None, alternates)
                        before = len(seen)
                        if before < DUPLICATE_TRACKING_LIMIT:
                            seen.add(hash(s))
                            dup = len(seen) == before
                        else:
                            dup = hash(s) in seen
                        if dup:
                            cline += text.count("\n", cpos, start)
                            cpos = start
                            o.problem(DUPLICATE_LOC, f"duplicate loc {s}", cline, None, s)
                        o._items += 1
                        out.append(entry)
                        continue
            cline += text.count("\n", cpos, start)
            cpos = start
            finish(raw, lm, cf, pr, None, cline, None, list(images) if images else None,
                   list(alternates) if alternates else None)
        return pos

    def _handover(self, skipped: int, rest: bytes) -> bytes:
        # lxml's lines and columns are mapped back to the document's: on the head's line, a column shift; on a
        # later line, lxml gets one line feed and the lines in between become an offset, the bytes read before
        # the bail point on its line a column shift (for errors lxml reports on that line).
        e = self._e
        if skipped == 0:
            e._col_fix_line = self._head_nl + 1
            e._col_fix = self._col - self._head_col
            return rest
        e._line_offset += skipped - 1
        e._col_fix_line = self._head_nl + 2
        e._col_fix = self._col
        return b"\n" + rest

    def _extensions(self, run: str, decode: bool) -> tuple[tuple[Image, ...], tuple[Alternate, ...]] | None:
        """Images and alternates of a run of extension elements, or None when one is not in the form whose
        value the element path builds without a problem (then the block is left to lxml)."""
        if run.count("<") > MAX_LANE_TAGS:
            return None
        items = self._items
        assert items is not None
        image_texts, pairs = items.split(run)
        if decode:
            try:
                image_texts = [xml_value(t) for t in image_texts]
                pairs = [(xml_value(h), xml_value(u)) for h, u in pairs]
            except (NotXml, UnicodeDecodeError):
                return None
        images: list[Image] = []
        alternates: list[Alternate] = []
        for text in image_texts:
            image = canonical_image(text.strip())
            if image is None:
                return None
            images.append(image)
        for hreflang, href in pairs:
            alternate = canonical_alternate(hreflang, href)
            if alternate is None:
                return None
            alternates.append(alternate)
        return tuple(images), tuple(alternates)

