"""Text sitemaps (one absolute URL per line, RULES.md 15) and RSS/Atom feeds used as sitemaps (RULES.md 16)."""

from __future__ import annotations

import codecs

from sitemapkit import _validate_codes as C
from sitemapkit._limits import MAX_URLS_PER_SITEMAP
from sitemapkit._problems import Problem
from sitemapkit._read import Event, Located, SitemapParser
from sitemapkit._validate_context import FileContext

__all__ = ["FeedPass", "TextPass"]


class TextPass:
    """Validate a text sitemap fed in chunks."""

    def __init__(self, ctx: FileContext, encoding: str = "utf-8") -> None:
        self.ctx = ctx
        self._decoder = codecs.getincrementaldecoder(encoding)(errors="strict")
        self._fallback = False
        self._pending = ""
        self._line = 0
        self._count = 0
        self._template = False

    def feed(self, data: bytes, *, final: bool = False) -> None:
        try:
            text = self._decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            if not self._fallback:
                self.ctx.report(C.ENCODING, f"bytes are not valid UTF-8 ({exc.reason}): re-encode the file as "
                                            "UTF-8", self._line + 1)
                self._fallback = True
            text = data.decode("utf-8", errors="replace")
        text = self._pending + text
        lines = text.split("\n")
        self._pending = "" if final else lines.pop()
        for raw in lines:
            self._one(raw)

    def close(self) -> None:
        self.feed(b"", final=True)
        if self._count > MAX_URLS_PER_SITEMAP:
            self.ctx.report(C.TOO_MANY_URLS, f"{self._count:,} URLs; the limit is {MAX_URLS_PER_SITEMAP:,}: split "
                                             "the file")
        if self._count == 0 and not self._template:
            self.ctx.report(C.EMPTY_SET, "no URLs in the text sitemap: write one absolute URL per line")

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
        before = len(ctx.problems)
        errors_before = ctx.error_count + ctx.warning_count
        ctx.entry_loc(line, self._line, field="URL")
        if ctx.error_count + ctx.warning_count == errors_before:
            return
        # Lines that are not URLs at all are text-sitemap errors (SM215), not loc errors.
        for i in range(before, len(ctx.problems)):
            p = ctx.problems[i]
            if p.code in (C.LOC_NOT_ABSOLUTE.code, C.LOC_EMPTY.code):
                ctx.problems[i] = C.TEXT_LINE.problem(p.location, p.message.replace(
                    "URL is", "line is", 1) + " (a text sitemap holds nothing but absolute URLs)")


class FeedPass:
    """An RSS / Atom feed used as a sitemap (RULES.md 16), read through the reader's own parser: its problems
    (SM1xx) are passed on, and each item's link goes through the loc checks."""

    #: Reader codes the validator's own checks replace (duplicates, whitespace inside a loc).
    _REPLACED = frozenset({"SM116", "SM123"})

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
