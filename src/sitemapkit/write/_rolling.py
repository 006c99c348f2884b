"""Rolling: a sitemap set's entries cut into files at the protocol's limits, one sequence of files per format.

Everything here writes inside the run's temporary directory (``RollSettings.tmp_dir``); moving the finished files
into place is ``_publish.py``'s, and ``SitemapSetWriter`` (``_sitemapset.py``) drives both.

- :class:`XmlRoller` renders each entry once, rolls to a new file before a limit (URLs, uncompressed bytes, news
  entries) would be crossed, and spools the body; ``finish()`` writes the root with exactly the namespaces the
  file's entries used, the spooled body and the end tag (gzip-compressed on that pass).
- :class:`StreamRoller` writes txt and html straight to the final temporary file (no root to fix up afterwards).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO, Literal, NoReturn

from sitemapkit.core import InvalidEntryError, SitemapRef, UrlEntry, has_credentials, redact_credentials
from sitemapkit.write._codes import SM607
from sitemapkit.write._locblock import canonical_entry
from sitemapkit.write._render import UrlRenderer, Warnings
from sitemapkit.write._writers import (
    TITLE_CHARS,
    URLSET_FOOTER,
    HtmlWriter,
    TextWriter,
    html_closing_size,
    html_links_size,
    urlset_header,
)

__all__ = ["FORMATS", "Done", "Format", "Out", "RollSettings", "Roller", "StreamRoller", "XmlRoller",
           "refuse_credentials", "refuse_entry", "utc_now_text"]

Format = Literal["xml", "txt", "html"]
#: Output formats a set can be written in (one run can write several).
FORMATS: tuple[Format, ...] = ("xml", "txt", "html")
_COPY_CHUNK = 1 << 20
_FLUSH_BYTES = 1 << 17  # rendered text is handed to the spool in ~128 KiB batches


@dataclass(frozen=True, slots=True)
class RollSettings:
    """What the rollers need of their set: where temporary files go, the limits, gzip, the stylesheet, the HTML
    page title and the set's warning tally."""

    tmp_dir: Path
    gzip_level: int | None
    stylesheet: str | None
    max_urls: int
    max_bytes: int
    max_news: int
    html_title: str
    warnings: Warnings
    page_titles: Callable[[str], str | None] | None = None
    #: The origin the HTML pages are served from: links to its pages are written root-relative (``/blog/a``).
    html_origin: str | None = None
    #: The page that lists a split HTML sitemap's pages (``sitemap.html``): each page of a split links to it.
    html_index: str | None = None


def refuse_credentials(loc: str) -> NoReturn:
    """Raise the error for a loc that carries credentials (``user:password@``): never published. The message
    names the URL without them."""
    raise InvalidEntryError(f"loc carries credentials (user:password@ before the host), which are never "
                            f"published: {redact_credentials(loc)}", field="loc", value=redact_credentials(loc))


def refuse_entry(entry: object) -> NoReturn:
    """Raise the error for something a sitemap set cannot hold (a :class:`SitemapRef`, or not an entry at all)."""
    if isinstance(entry, SitemapRef):
        raise InvalidEntryError("a sitemap set holds URL entries; indexes are written by the set itself "
                                "(nested indexes are not processed by Google)", value=entry)
    raise InvalidEntryError(f"expected a UrlEntry, got {type(entry).__name__}", value=entry)


class Out:
    """A final file being written: plain, or gzip through zlib directly (no gzip module layering)."""

    __slots__ = ("_fh", "_z", "raw", "stored")

    def __init__(self, path: Path, gzip_level: int | None) -> None:
        self._fh: BinaryIO = open(path, "wb")  # noqa: SIM115 - closed in close()
        # wbits=31: gzip container; mtime 0 in the header keeps output reproducible.
        self._z = zlib.compressobj(gzip_level, zlib.DEFLATED, 31) if gzip_level is not None else None
        self.raw = 0
        self.stored = 0

    def write(self, data: bytes) -> None:
        self.raw += len(data)
        if self._z is not None:
            data = self._z.compress(data)
            if not data:
                return
        self.stored += len(data)
        self._fh.write(data)

    def copy_from(self, src: BinaryIO) -> None:
        """Append a whole file. (A user-space copy: 157 MB measured 0.05-0.07 s, the same as copy_file_range.)"""
        while chunk := src.read(_COPY_CHUNK):
            self.write(chunk)

    def close(self) -> None:
        if self._z is not None:
            tail = self._z.flush()
            self.stored += len(tail)
            self._fh.write(tail)
            self._z = None
        self._fh.close()

    def discard(self) -> None:
        self._fh.close()


@dataclass(slots=True)
class Done:
    """A finished file in the temporary directory, waiting to be published: what it holds and its sizes."""

    tmp: Path
    kind: Literal["urlset", "index", "txt", "html", "xsl"]
    urls: int
    news: int
    raw: int
    stored: int
    lastmod: str


class Roller:
    """One format's sequence of files, rolled at the limits."""

    fmt: Format
    suffix: str

    def __init__(self, settings: RollSettings) -> None:
        self.settings = settings
        self.done: list[Done] = []
        self.count = 0
        self.news = 0
        self.size = 0
        self.open = False

    @property
    def total(self) -> int:
        """Entries added to this format so far (finished files plus the current one)."""
        return sum(d.urls for d in self.done) + self.count

    def _tmp(self) -> Path:
        return self.settings.tmp_dir / f"{self.fmt}-{len(self.done) + 1}"

    def add(self, entry: UrlEntry) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        raise NotImplementedError

    def discard(self) -> None:
        raise NotImplementedError


class XmlRoller(Roller):
    fmt: Format = "xml"

    def __init__(self, settings: RollSettings) -> None:
        super().__init__(settings)
        self.renderer = UrlRenderer(0x1F, settings.warnings)  # prefixes only; the root declares what is used
        self.render = self.renderer.render
        # Worst-case root + end tag, so the byte limit holds whatever namespaces end up declared.
        self.overhead = len(urlset_header(0x1F, settings.stylesheet).encode()) + len(URLSET_FOOTER)
        self.max_urls = settings.max_urls
        self.max_bytes = settings.max_bytes
        self.max_news = settings.max_news
        self.used = 0
        self.buf: list[str] = []
        self.spool: BinaryIO | None = None

    def add(self, entry: UrlEntry) -> None:
        self.add_many((entry,), None, None)

    def add_many(self, entries: Iterable[UrlEntry], scope: str | None,
                 warn: Callable[[str, str, str | None], None] | None) -> None:
        """The hot loop: render, roll when a limit would be crossed, buffer. Counters live in locals and are
        written back on a roll and on exit (also when an entry raises)."""
        render = self.render
        renderer = self.renderer
        buf = self.buf
        append = buf.append
        count, size, news = self.count, self.size, self.news
        flush_at = size + _FLUSH_BYTES
        max_urls, max_bytes, max_news = self.max_urls, self.max_bytes, self.max_news
        is_open = self.open
        try:
            for entry in entries:
                if type(entry) is not UrlEntry:
                    refuse_entry(entry)
                if scope is None or not entry.loc.startswith(scope):  # under the scope: no userinfo
                    if "@" in entry.loc and has_credentials(entry.loc):
                        refuse_credentials(entry.loc)
                    if scope is not None and warn is not None:
                        warn(SM607.code, f"{entry.loc} is outside {scope}", entry.loc)
                text = render(entry)
                esize = len(text) if text.isascii() else len(text.encode("utf-8"))
                is_news = entry.news is not None
                if (count >= max_urls or size + esize > max_bytes or (is_news and news >= max_news)
                        or not is_open):
                    self.count, self.size, self.news = count, size, news
                    self._roll(entry, esize)
                    count, size, news = self.count, self.size, self.news
                    flush_at = size + _FLUSH_BYTES
                    is_open = True
                if renderer.pending:
                    self.used |= renderer.pending
                    renderer.pending = 0
                append(text)
                count += 1
                size += esize
                if is_news:
                    news += 1
                if size >= flush_at:
                    self._flush()
                    flush_at = size + _FLUSH_BYTES
        finally:
            self.count, self.size, self.news = count, size, news

    def add_locs(self, locs: list[str], scope: str | None,
                 warn: Callable[[str, str, str | None], None] | None) -> None:
        """:meth:`add_many` for ``UrlEntry(loc)`` of each of ``locs``, canonical locs on one origin
        (``canonical_block``): such a loc holds no credentials (no userinfo in its origin), nothing to escape but
        "&" and "'", and only ASCII, so a slice that fits in the current file is rendered by one join and one
        replace. What does not fit whole (a roll, the byte limit), a "'", or a loc outside ``scope`` goes
        through :meth:`add_many` entry by entry, which rolls, warns and raises as always."""
        n = len(locs)
        i = 0
        head, sep, tail = "<url><loc>", "</loc></url>\n<url><loc>", "</loc></url>\n"
        while i < n:
            count = self.count
            if not self.open or count >= self.max_urls:
                self.add_many((canonical_entry(locs[i]),), scope, warn)  # rolls (or raises)
                i += 1
                continue
            stop = min(n, i + self.max_urls - count)
            part = locs[i:stop] if i or stop != n else locs
            body = sep.join(part)
            if "'" in body or (scope is not None and not (
                    part[0].startswith(scope) and body.count(sep + scope) == len(part) - 1)):
                self.add_many([canonical_entry(loc) for loc in part], scope, warn)
                i = stop
                continue
            if "&" in body:
                body = body.replace("&", "&amp;")
            text = head + body + tail
            size = self.size + len(text)  # ASCII: one byte a character
            if size > self.max_bytes:
                self.add_many([canonical_entry(loc) for loc in part], scope, warn)
                i = stop
                continue
            self.buf.append(text)
            self.count = count + len(part)
            self.size = size
            self._flush()  # a slice is tens of KiB: one write each
            i = stop

    def _roll(self, entry: UrlEntry, size: int) -> None:
        """Start a new file for ``entry`` (finishing the current one), or refuse an entry no file can hold."""
        if size + self.overhead > self.max_bytes:
            self.renderer.pending = 0
            raise InvalidEntryError(
                f"entry is {size} bytes as XML; it cannot fit in a file of at most {self.max_bytes} bytes: "
                f"{entry.loc}", field="loc", value=entry.loc)
        if self.open:
            self.finish()
        self.spool = open(self._tmp().with_suffix(".body"), "wb")  # noqa: SIM115 - closed in finish/discard
        self.open = True
        self.size = self.overhead

    def _flush(self) -> None:
        if self.buf:
            assert self.spool is not None
            self.spool.write("".join(self.buf).encode("utf-8"))
            self.buf.clear()

    def finish(self) -> None:
        if not self.open:
            return
        self._flush()
        assert self.spool is not None
        body_path = Path(self.spool.name)
        self.spool.close()
        self.spool = None
        tmp = self._tmp()
        out = Out(tmp, self.settings.gzip_level)
        try:
            out.write(urlset_header(self.used, self.settings.stylesheet).encode())
            with open(body_path, "rb") as body:
                out.copy_from(body)
            out.write(URLSET_FOOTER.encode())
        finally:
            out.close()
        body_path.unlink()
        self.done.append(Done(tmp, "urlset", self.count, self.news, out.raw, out.stored, utc_now_text()))
        self.used = 0
        self.count = self.news = self.size = 0
        self.open = False

    def discard(self) -> None:
        if self.spool is not None:
            self.spool.close()
            self.spool = None
        self.buf.clear()


class StreamRoller(Roller):
    """txt and html: written straight to the final temp file (no root to fix up afterwards)."""

    def __init__(self, settings: RollSettings, fmt: Format) -> None:
        super().__init__(settings)
        self.fmt = fmt
        self.out: Out | None = None
        self.writer: TextWriter | HtmlWriter | None = None
        self.tmp: Path | None = None
        self.overhead = html_closing_size() if fmt == "html" else 0
        self._index_links = [("All pages of this site map", settings.html_index)] if settings.html_index else []
        if fmt == "html" and self._index_links:
            self.overhead += html_links_size(self._index_links, _MORE)

    def add(self, entry: UrlEntry) -> None:
        settings = self.settings
        if self.writer is not None and (self.writer.count >= settings.max_urls
                                        or self.writer.bytes_written + self.overhead
                                        + _estimate(entry, self.fmt) > settings.max_bytes):
            self.finish(split=True)
        if self.writer is None:
            self.tmp = self._tmp()
            level = settings.gzip_level if self.fmt == "txt" else None
            self.out = Out(self.tmp, level)
            self.writer = (TextWriter(self.out) if self.fmt == "txt"
                           else HtmlWriter(self.out, title=settings.html_title, titles=settings.page_titles,
                                      origin=settings.html_origin))
        self.writer.write(entry)

    def finish(self, split: bool = False) -> None:
        """Close the current file; ``split``: another follows (an HTML page then links to the page list)."""
        if self.writer is None:
            return
        assert self.out is not None
        assert self.tmp is not None
        if isinstance(self.writer, HtmlWriter) and self._index_links and (split or self.done):
            self.writer.write_links(self._index_links, heading=_MORE)
        count = self.writer.count
        self.writer.close()
        self.out.close()
        kind: Literal["txt", "html"] = "txt" if self.fmt == "txt" else "html"
        self.done.append(Done(self.tmp, kind, count, 0, self.out.raw, self.out.stored, utc_now_text()))
        self.writer = None
        self.out = None

    def discard(self) -> None:
        if self.out is not None:
            self.out.discard()
        self.writer = None
        self.out = None


_MORE = "More pages"


def _estimate(entry: UrlEntry, fmt: Format) -> int:
    """Upper bound of the bytes one entry takes in a txt or html file."""
    if fmt == "txt":
        return len(entry.loc) + 1
    # html: the href, the link text and possibly a new section's heading, each at most the loc's length in UTF-8
    # bytes once percent-decoded and at most 6x that once escaped (&apos;), plus fixed markup and a page title
    # (at most TITLE_CHARS characters, 4 UTF-8 bytes each, 6x that escaped... bounded by 6 bytes a character).
    return 18 * len(entry.loc) + 300 + 6 * TITLE_CHARS


def utc_now_text() -> str:
    """Now in UTC as W3C Datetime text with seconds (a finished file's lastmod in the index)."""
    return datetime.now(UTC).replace(microsecond=0).strftime("%Y-%m-%dT%H:%M:%SZ")
