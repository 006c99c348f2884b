"""The block patterns of the reader's and the validator's fast lanes (``_lane``), and the decoding of the values
they match.

A canonical ``<url>`` block is matched by one regular expression over the latin-1 text of the bytes (one character
per byte, so positions are byte offsets). The validator's lane takes printable ASCII values without ``&``; the
reader's (``extended``) also takes UTF-8 non-ASCII characters and the five predefined entities and numeric
character references, which :func:`xml_value` decodes exactly as XML does, and comments between blocks.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator

__all__ = ["BLOCK", "BLOCK_X", "NotXml", "RunSplitter", "block_patterns", "gap_end", "xml_value"]

# A value: printable ASCII, tab and line feed, without < > & (no markup, no reference, no "]]>", no CR to be
# normalised, nothing to decode).
_TC = r"\t\n\x20-\x25\x27-\x3b\x3d\x3f-\x7e"
_T = rf"([{_TC}]*+)"
_W = r"[ \t\r\n]*+"
# An attribute value in double quotes: the same without tab and line feed (which lxml would turn into spaces).
_VC = r"\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x7e"
_V = rf'"([{_VC}]*+)"'
# The reader's wider values (``extended``): also UTF-8 non-ASCII characters (bytes 0x80-0xFF, one latin-1
# character each here; the stream is valid UTF-8 by then, see XmlStream.feed) and the five predefined entities and
# numeric character references, decoded by _xml_value exactly as XML does (or the block is left to lxml).
_REF = r"&(?:amp|lt|gt|quot|apos|#[0-9]{1,8}|#x[0-9a-fA-F]{1,8});"
_TX = rf"([{_TC}\x80-\xff]*+(?:{_REF}[{_TC}\x80-\xff]*+)*+)"
_VX = rf'"([{_VC}\x80-\xff]*+(?:{_REF}[{_VC}\x80-\xff]*+)*+)"'
# Between blocks the reader's lane also skips comments with printable ASCII text (generators sign their output,
# some comment sections): lxml drops them anyway (remove_comments). "--" inside one, or "--->", is an XML error:
# such a comment does not match and lxml reports it.
_GAP = r"(?:[ \t\r\n]++|<!--(?:[\t\n\x20-\x2c\x2e-\x7e]|-(?!-))*+-->)*+"


def _core(t: str) -> str:
    return (rf"<url>{_W}<loc>{t}</loc>{_W}(?:<lastmod>{t}</lastmod>{_W})?+(?:<changefreq>{t}</changefreq>{_W})?+"
            rf"(?:<priority>{t}</priority>{_W})?+")


_CORE = _core(_T)
BLOCK = _BLOCK = re.compile(rf"{_CORE}()</url>{_W}")  # the empty group stands for the extension run (none here)
BLOCK_X = _BLOCK_X = re.compile(rf"{_core(_TX)}()</url>{_GAP}")
_GAP_AT = re.compile(_GAP).match


def gap_end(text: str) -> int:
    """Where the whitespace and comments at the start of ``text`` end (the reader's lane)."""
    m = _GAP_AT(text)
    return m.end() if m is not None else 0
# For the validator a block must also be followed by markup: text after </url> (lxml makes it the element's tail,
# which the XSD validates with it) leaves the block to lxml, and a block whose next byte has not arrived waits.
_TAILED = "(?=<)"


def _ext_items(image: str | None, xhtml: str | None, extended: bool = False) -> str:
    """Alternatives for one extension element: ``<image:image>`` holding only ``<image:loc>``, and an
    ``<xhtml:link rel="alternate">`` with hreflang and href (four attribute orders), under the root's prefixes."""
    never = "(?!)"  # an undeclared prefix: the alternative keeps its groups and never matches
    t, v = (_TX, _VX) if extended else (_T, _V)
    img = (rf"(<{image}:image>){_W}<{image}:loc>{t}</{image}:loc>{_W}</{image}:image>" if image is not None
           else f"{never}()()")
    if xhtml is not None:
        s = r"[ \t\r\n]++"
        rel, lang, href = 'rel="alternate"', f"hreflang={v}", f"href={v}"
        link = (rf"<{xhtml}:link{s}(?:{rel}{s}{lang}{s}{href}|{rel}{s}{href}{s}{lang}|{lang}{s}{href}{s}{rel}"
                rf"|{href}{s}{lang}{s}{rel}){_W}/>")
    else:
        link = never + "()" * 8
    return f"{img}|{link}"


class RunSplitter:
    """Splits a run of extension elements that a block pattern accepted (so every element in it has one of the
    lane's forms) into image loc texts and ``(hreflang, href)`` pairs, in document order.

    ``general`` has ten groups per element: the image's start tag (non-empty only for an image) and its loc
    text, then hreflang and href in the four attribute orders of a link (only one order takes part, so with
    ``findall`` the value is the first non-empty one, or "" when it is really empty). ``split`` first tries two
    small patterns, images and links in the common ``rel hreflang href`` order, and uses ``general`` only when
    some link has another order (fewer groups per element: about twice as fast)."""

    __slots__ = ("_images", "_link_end", "_link_tag", "_links", "general")

    def __init__(self, image: str | None, xhtml: str | None, extended: bool = False) -> None:
        self.general = re.compile(_ext_items(image, xhtml, extended))
        # The run was accepted by the block pattern, so its values are already known to be of the lane's forms:
        # here a text is whatever runs to the next "<" and an attribute value whatever runs to the next '"' (no
        # value holds either), which matches the same elements with the same groups as the value classes would,
        # with less work per character.
        self._images = (re.compile(rf"<{image}:image>{_W}<{image}:loc>([^<]*+)</{image}:loc>").findall
                        if image is not None else None)
        s = r"[ \t\r\n]++"
        self._links = (re.compile(rf'<{xhtml}:link{s}rel="alternate"{s}hreflang="([^"]*+)"{s}href="([^"]*+)"').findall
                       if xhtml is not None else None)
        self._link_tag = f"<{xhtml}:link"
        self._link_end: Callable[[str, int, int], Iterator[re.Match[str]]] | None = None  # made when needed

    def link_counts(self, runs: Iterable[str]) -> list[int]:
        """How many links each of ``runs`` holds."""
        return list(map(str.count, runs, itertools.repeat(self._link_tag)))

    def link_ends(self, text: str, start: int, end: int) -> list[int]:
        """Where each link start tag between ``start`` and ``end`` of ``text`` (accepted blocks) ends."""
        if self._link_end is None:
            self._link_end = re.compile(re.escape(self._link_tag) + "[^>]*+>").finditer
        return [m.end() for m in self._link_end(text, start, end)]

    def split(self, run: str) -> tuple[list[str], list[tuple[str, str]]]:
        images: list[str] = self._images(run) if self._images is not None else []
        if self._links is None:
            return images, []
        links: list[tuple[str, str]] = self._links(run)
        if len(links) == run.count(self._link_tag):
            return images, links
        parts: list[tuple[str, ...]] = self.general.findall(run)
        return images, [(p[2] or p[5] or p[6] or p[9], p[3] or p[4] or p[7] or p[8]) for p in parts if not p[0]]


@functools.lru_cache(maxsize=32)
def block_patterns(image: str | None, xhtml: str | None, tailed: bool = False, extended: bool = False,
              ) -> tuple[re.Pattern[str], RunSplitter | None]:
    """The block pattern for a document whose root binds these prefixes (None: not declared), and the splitter
    of a block's run of extension elements. ``extended``: the reader's wider values and gaps (see _TX, _GAP)."""
    end = _TAILED if tailed else ""
    if image is None and xhtml is None:
        if extended:
            return (re.compile(_BLOCK_X.pattern + end) if tailed else _BLOCK_X), None
        return (re.compile(_BLOCK.pattern + end) if tailed else _BLOCK), None
    splitter = RunSplitter(image, xhtml, extended)
    plain_items = re.sub(r"\((?!\?)", "(?:", splitter.general.pattern)  # without capturing groups
    core, gap = (_core(_TX), _GAP) if extended else (_CORE, _W)
    block = re.compile(rf"{core}((?:(?:{plain_items}){_W})*+)</url>{gap}{end}")
    return block, splitter


_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}
_REFS = re.compile(r"&(?:#x([0-9a-fA-F]++)|#([0-9]++)|([a-z]++));")


class NotXml(ValueError):
    """A value the lane matched is not what XML allows (a character reference to a non-character, U+FFFE):
    the block is left to lxml, which reports it. (A ValueError, as the UnicodeDecodeError of a value that is not
    UTF-8: callers outside this layer catch both as ValueError.)"""


def _char(m: re.Match[str]) -> str:
    hexa, dec, name = m.groups()
    if name is not None:
        return _NAMED[name]
    cp = int(hexa, 16) if hexa is not None else int(dec)
    if not (0x20 <= cp <= 0xD7FF or cp in (0x9, 0xA, 0xD) or 0xE000 <= cp <= 0xFFFD or 0x10000 <= cp <= 0x10FFFF):
        raise NotXml
    return chr(cp)


def xml_value(v: str) -> str:
    """A value matched by _TX/_VX (latin-1 text of UTF-8 bytes, with references) as the text lxml gives."""
    if not v.isascii():
        v = v.encode("latin-1").decode("utf-8")  # complete characters: the stream is valid UTF-8
        if "\ufffe" in v or "\uffff" in v:  # not XML characters (the only ones UTF-8 can encode)
            raise NotXml
    if "&" in v:
        if "&#" in v:
            return _REFS.sub(_char, v)
        # Only the five named entities (every "&" here starts one, by the pattern): replaced in C, "&amp;" last so
        # "&amp;lt;" stays "&lt;".
        v = v.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&apos;", "'")
        return v.replace("&amp;", "&")
    return v


def url_values(raw: str, lm: str | None, cf: str | None,
               pr: str | None) -> tuple[str, str | None, str | None, str | None]:
    """A lane match's loc, lastmod, changefreq and priority as lxml gives them: only a value with a reference or
    a non-ASCII character is decoded (:func:`xml_value`; most need nothing). Raises :class:`NotXml` or
    UnicodeDecodeError where lxml would refuse the bytes. Both lanes (reader and validator) use it."""
    if "&" in raw or not raw.isascii():
        raw = xml_value(raw)
    if lm is not None and ("&" in lm or not lm.isascii()):
        lm = xml_value(lm)
    if cf is not None and ("&" in cf or not cf.isascii()):
        cf = xml_value(cf)
    if pr is not None and ("&" in pr or not pr.isascii()):
        pr = xml_value(pr)
    return raw, lm, cf, pr
