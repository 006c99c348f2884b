"""Text engine of the reader: one absolute http(s) URL a line (RULES.md 15).

Lines are decoded incrementally (BOM-detected UTF-16/32 or UTF-8), split on LF / CRLF / CR, stripped, and each
non-blank line is either a URL entry or a reported, skipped line. A line longer than :data:`MAX_LINE_CHARS` is cut
off and reported, so a file without newlines cannot make the buffer grow.
"""

from __future__ import annotations

import codecs
import re

from sitemapkit.core import InvalidEntryError, UrlEntry
from sitemapkit.read import _codes as C
from sitemapkit.read._owner import Owner
from sitemapkit.read._sniff import EncodingInfo

__all__ = ["GIVE_UP_AFTER_JUNK_LINES", "MAX_LINE_CHARS", "TextEngine"]

#: Longest line kept in the buffer (a loc is at most 2,048 characters; this leaves room for sloppy input).
MAX_LINE_CHARS = 64 * 1024
#: A text document whose first this-many non-blank lines hold no URL is not a sitemap: the rest is skipped (so a
#: large junk file costs little time and yields a bounded number of problems).
GIVE_UP_AFTER_JUNK_LINES = 100
_URL_START = re.compile(r"https?://", re.IGNORECASE)
_WS = re.compile(r"\s")
_EOL = re.compile(r"\r\n|\r|\n")


class TextEngine:
    """Feeds decoded lines of a text sitemap to the owner parser."""

    def __init__(self, owner: Owner, enc: EncodingInfo) -> None:
        self.o = owner
        self._bom = enc.bom_length
        self._first = True
        self._decoder = codecs.getincrementaldecoder(enc.encoding)("replace")
        self._buf = ""
        self._line = 0
        self._skipping = False  # inside an over-long line
        self._junk = 0
        self._cr = False
        self._dead = False

    def feed(self, data: bytes) -> None:
        if self._dead:
            return
        if self._first:
            self._first = False
            data = data[self._bom:]
        text = self._decoder.decode(data)
        if text:
            self._lines(text, final=False)

    def release(self) -> None:
        """The document is over: nothing here refers back to this engine (the owner drops it)."""
        self._dead = True
        self._buf = ""

    def close(self) -> None:
        if self._dead:
            return
        self._lines(self._decoder.decode(b"", final=True), final=True)
        if self.o.entry_count == 0 and self._junk and not self._dead:
            self.o.problem(C.TEXT_NO_URLS, f"no URL in {self._junk} non-blank line(s)", 1, 1)

    def _lines(self, text: str, *, final: bool) -> None:
        if self._cr and text.startswith("\n"):  # the second half of a CRLF split across chunks
            text = text[1:]
            self._cr = False  # that line feed is used up: a further one is a line break of its own
        if text:
            self._cr = text.endswith("\r")
        parts = _EOL.split(self._buf + text if self._buf else text)
        self._buf = "" if final else parts.pop()
        for line in parts:
            self._one(line)
            if self._dead:
                return
        if len(self._buf) > MAX_LINE_CHARS:
            # The line is too long before its end arrived: reported as _one reports a complete one, and its
            # characters are dropped as they come, so the buffer stays bounded.
            if not self._skipping:
                self._long_line(self._line + 1)
            self._skipping = True
            self._buf = ""

    def _long_line(self, line: int) -> None:
        self._junk_line(f"line longer than {MAX_LINE_CHARS:,} characters; skipped", 1, line=line)

    def _junk_line(self, message: str, column: int, loc: str | None = None, *, line: int | None = None) -> None:
        line = self._line if line is None else line
        self._junk += 1
        self.o.problem(C.TEXT_NOT_URL, message, line, column, loc)
        if self._junk >= GIVE_UP_AFTER_JUNK_LINES and self.o.entry_count == 0:
            self.o.problem(C.TEXT_NO_URLS, f"no URL in the first {self._junk} non-blank lines; not a text sitemap, "
                           "the rest is skipped", line, None)
            # The rest is skipped unread, but the bytes still flow through the gzip layer and its budget, so a
            # compression bomb is still named as one.
            self._dead = True

    def _one(self, raw: str) -> None:
        self._line += 1
        if self._skipping:  # the tail of an over-long line
            self._skipping = False
            return
        if len(raw) > MAX_LINE_CHARS:  # the whole line arrived at once: the same report as when it comes in pieces
            self._long_line(self._line)
            return
        s = raw.strip()
        if not s:
            return
        column = len(raw) - len(raw.lstrip()) + 1
        if "\ufffd" in s:
            self._junk_line("line holds bytes that are not valid UTF-8; skipped", column)
            return
        if not _URL_START.match(s) or _WS.search(s):
            shown = s if len(s) <= 80 else s[:77] + "..."
            self._junk_line(f"not an absolute http(s) URL: {shown!r}", column)
            return
        try:
            entry = UrlEntry(s)
        except InvalidEntryError as exc:
            self._junk_line(f"{exc}; skipped", column, s)
            return
        self.o.emit(entry, self._line, column, raw)
