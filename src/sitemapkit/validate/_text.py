"""Text sitemaps (one absolute URL per line, RULES.md 15) and RSS/Atom feeds used as sitemaps (RULES.md 16)."""

from __future__ import annotations

import codecs
import re

from sitemapkit.core import MAX_URLS_PER_SITEMAP, QUOTE_CHARS, Problem, ProblemCode, quote_value
from sitemapkit.read import MAX_LINE_CHARS, Event, Located, SitemapParser
from sitemapkit.validate import _codes as C
from sitemapkit.validate._context import FileContext

__all__ = ["FeedPass", "TextPass"]


_URL_LIKE = re.compile(r"\s*https?://\S", re.IGNORECASE)



def _as_text_line(code: ProblemCode, message: str) -> tuple[ProblemCode, str]:
    """A loc problem of a text sitemap's line that is no URL at all (SM300, SM301) becomes SM215."""
    if code is C.LOC_NOT_ABSOLUTE or code is C.LOC_EMPTY:
        return C.TEXT_LINE, (message.replace("URL is", "line is", 1)
                             + " (a text sitemap holds nothing but absolute URLs)")
    return code, message

class TextPass:
    """Validate a text sitemap fed in chunks.

    Lines are cut as the reader cuts them (:data:`~sitemapkit.read._text.MAX_LINE_CHARS`): a longer line is
    reported once with its length and the start of it, and skipped without being held, so a file without
    newlines costs bounded memory and output."""

    def __init__(self, ctx: FileContext, encoding: str = "utf-8") -> None:
        self.ctx = ctx
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
        self._encoding = encoding
        self._codec_name = "UTF-8" if encoding == "utf-8" else encoding
        self._fallback = False
        self._pending: list[str] = []  # pieces of the current line (at most MAX_LINE_CHARS in all)
        self._pending_size = 0
        self._over = False  # the current line passed MAX_LINE_CHARS: only its head and length are kept
        self._over_head = ""
        self._cr = False  # the last piece taken ends with CR
        self._line = 0
        self._count = 0
        self._template = False

    def _decode(self, data: bytes, final: bool) -> str:
        """The characters of ``data``; bytes that are not valid become U+FFFD, the first such are reported with
        their line. The same characters and the same report however the bytes are cut (the decoder holds a
        character cut at the end of a piece; after bad bytes it goes on just past them)."""
        out: list[str] = []
        while True:
            try:
                out.append(self._decoder.decode(data, final))
                return "".join(out)
            except UnicodeDecodeError as exc:
                seen = exc.object  # the bytes the decoder held, then data
                self._decoder.reset()
                out.append(seen[:exc.start].decode(self._encoding, errors="replace"))
                out.append("\ufffd")
                if not self._fallback:
                    self._fallback = True
                    line = self._line + 1 + sum(piece.count("\n") for piece in out)
                    self.ctx.report(C.ENCODING, f"bytes are not valid {self._codec_name} ({exc.reason}): re-encode "
                                                "the file as UTF-8", line)
                data = bytes(seen[exc.end:])

    def feed(self, data: bytes, *, final: bool = False) -> None:
        text = self._decode(data, final)
        start = 0
        while True:
            nl = text.find("\n", start)
            if nl < 0:
                break
            self._take(text[start:nl])
            self._end_line()
            start = nl + 1
        if start < len(text):
            self._take(text[start:])
        if final and (self._pending or self._over):
            self._end_line()

    def _take(self, piece: str) -> None:
        """Add a piece of the current line, or only count it once the line is too long."""
        if not piece:
            return
        self._pending_size += len(piece)
        self._cr = piece.endswith("\r")
        if self._over:
            return
        if self._pending_size > MAX_LINE_CHARS:
            self._over = True
            self._over_head = ("".join(self._pending) + piece[:QUOTE_CHARS])[:QUOTE_CHARS]
            self._pending = []
            return
        self._pending.append(piece)

    def _end_line(self) -> None:
        if self._over:
            self._long_line(self._pending_size - self._cr)  # the length without a CRLF's CR
        else:
            self._one("".join(self._pending))
        self._pending = []
        self._pending_size = 0
        self._over = False
        self._over_head = ""

    def close(self, *, cut: bool = False) -> None:
        """The end of the document; ``cut`` when reading stopped inside it (a budget, corrupt or truncated gzip):
        the line it stopped in is incomplete, so it is neither checked nor counted as a URL."""
        if cut:
            self._pending = []
            self._pending_size = 0
            self._over = False
        else:
            self.feed(b"", final=True)
        if self._count > MAX_URLS_PER_SITEMAP:
            self.ctx.report(C.TOO_MANY_URLS, f"{self._count:,} URLs; the limit is {MAX_URLS_PER_SITEMAP:,}: split "
                                             "the file")
        if self._count == 0 and not self._template:
            self.ctx.report(C.EMPTY_SET, "no URLs in the text sitemap: write one absolute URL per line")

    def _long_line(self, size: int) -> None:
        """A line longer than MAX_LINE_CHARS: reported (a too-long URL if it starts like one) and skipped."""
        self._line += 1
        if self._template:
            return
        self._count += 1
        head = self._over_head.rstrip("\r")
        if self._line == 1:
            head = head.lstrip("\ufeff")
        column = len(head) - len(head.lstrip()) + 1 if head.strip() else 1  # set here: no column pass needed
        start = f"starts {quote_value(head.lstrip())}..."  # head: the first QUOTE_CHARS characters
        kept = f"{MAX_LINE_CHARS:,}"
        if _URL_LIKE.match(head):
            self.ctx.report(C.LOC_TOO_LONG, f"URL is {size:,} characters long and {start}: the protocol asks for "
                                            f"less than 2,048 (lines over {kept} characters are skipped)",
                            self._line, column)
        else:
            self.ctx.report(C.TEXT_LINE, f"line is {size:,} characters long and {start}: a text sitemap holds "
                                         f"one absolute URL per line (lines over {kept} characters are skipped)",
                            self._line, column)

    def _one(self, raw: str) -> None:
        self._line += 1
        if self._template:
            return
        line = raw.rstrip("\r")
        if self._line == 1:
            line = line.lstrip("\ufeff")
            if line.strip() == "---":
                self._template = True
                self.ctx.report(C.TEMPLATE, "YAML front matter: this is a template source; publish the rendered "
                                            "output", 1)
                return
        if not line.strip():
            return
        self._count += 1
        text = line.strip()
        if "{{" in text or "{%" in text:
            self.ctx.report(C.TEMPLATE, "template tags in a text sitemap: publish the rendered output", self._line,
                            None, text)
            self._template = True
            return
        ctx = self.ctx
        # Lines that are not URLs at all are text-sitemap errors (SM215), not loc errors: renamed as they are
        # reported, so that the tally and the per-code cap see SM215.
        ctx.remap = _as_text_line
        try:
            ctx.entry_loc(line, self._line, field="URL")
        finally:
            ctx.remap = None


class FeedPass:
    """An RSS / Atom feed used as a sitemap (RULES.md 16), read through the reader's own parser: its problems
    (SM1xx) are passed on, and each item's link goes through the loc checks."""

    #: Reader codes the validator's own checks replace (duplicates, whitespace inside a loc).
    _REPLACED = frozenset({"SM116", "SM306"})

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self._parser = SitemapParser(ctx.source, positions=True, max_decompressed_bytes=None)

    def feed(self, data: bytes) -> None:
        self._events(self._parser.feed(data))

    def close(self) -> None:
        self._events(self._parser.close())

    def _events(self, events: list[Event]) -> None:
        ctx = self.ctx
        for event in events:
            if isinstance(event, Located):
                ctx.entry_loc(event.raw_loc, event.line, field="link")
            elif isinstance(event, Problem) and event.code not in self._REPLACED:
                ctx.add(event)
