"""Pages of a section: boundaries found lazily from keys, and every page rendered afresh for each request.

A section's pages are key ranges. The service keeps only their boundaries (:class:`Bounds`): the last key of each
closed page; the open page after the last boundary (the tail) holds the rest. Boundaries come from keys alone
(the source's ``keys(after, limit)``, else the keys of ``fetch``), read ``max_urls + 1`` at a time and only as far
as a request needs: nothing is rendered to plan, so the first answer comes after reading keys, not after rendering
every entry, and a few bytes per page are kept whatever the table size.

A page is rendered on each request (:func:`render_page`) into a spooled buffer before any header is sent, so its
ETag is the digest of exactly the bytes sent and its Last-Modified the newest lastmod on it. While rendering, the
limits are checked as ``write_sitemaps`` checks them (50,000 URLs, 50 MiB, 1,000 news entries): a page that would
go over them before its last key (rows inserted inside its range, large entries) ends at the last entry that fits,
and the boundaries after it are found again from keys; a tail page that fills gets a boundary, so the next page
exists (and the index lists it) from then on. A closed page whose rows were all deleted is merged into the next.
"""

from __future__ import annotations

import hashlib
import io
import logging
import tempfile
import threading
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sitemapkit.core import (
    MAX_NEWS_PER_SITEMAP,
    MAX_SITEMAP_BYTES,
    MAX_URLS_PER_SITEMAP,
    ConfigurationError,
    InvalidEntryError,
    LastMod,
    UrlEntry,
)
from sitemapkit.serve._sources import Source, iter_pairs, nth_key_hook, source_keys
from sitemapkit.write import Extension, UrlsetWriter

__all__ = ["Bounds", "Limits", "PageRange", "RenderedPage", "entry_flags", "instant", "newest_of", "render_page",
           "urlset_bytes", "urlset_header"]

log = logging.getLogger("sitemapkit.serve")

_FOOTER = b"</urlset>\n"
#: A rendered page is kept in memory up to this size, beyond it in a temporary file (memory stays flat).
SPOOL_BYTES = 1 << 20
_CHUNK = 1 << 16


@dataclass(frozen=True, slots=True)
class Limits:
    """Where pages roll (the protocol's limits unless lowered; the news limit is Google's)."""

    max_urls: int = MAX_URLS_PER_SITEMAP
    max_bytes: int = MAX_SITEMAP_BYTES
    max_news: int = MAX_NEWS_PER_SITEMAP

    def __post_init__(self) -> None:
        for name, value, top in (("max_urls", self.max_urls, MAX_URLS_PER_SITEMAP),
                                 ("max_bytes", self.max_bytes, MAX_SITEMAP_BYTES),
                                 ("max_news", self.max_news, MAX_NEWS_PER_SITEMAP)):
            if not isinstance(value, int) or not 1 <= value <= top:
                raise ConfigurationError(f"{name} must be an integer from 1 to {top}, got {value!r}")


@dataclass(frozen=True, slots=True)
class PageRange:
    """Page ``number`` (from 1) of a section: the keys ``> after`` (``None``: from the start) up to and including
    ``last``; ``last`` is ``None`` for the tail, the open last page."""

    number: int
    after: Any
    last: Any

    @property
    def is_tail(self) -> bool:
        return self.last is None


def _check_order(section: str, prev: Any, key: Any) -> None:
    try:
        ok = key is not None and (prev is None or key > prev)
    except TypeError:
        ok = False
    if not ok:
        raise ConfigurationError(f"section {section!r}: the source returned key {key!r} after {prev!r}; keys must "
                                 "be unique and increasing (ORDER BY the key, WHERE key > after)")


class Bounds:
    """The page boundaries of one section, found from keys as far as asked (thread-safe).

    Keys are read outside the lock that guards the boundaries (one walker at a time, under its own lock), so a
    request for a page whose boundaries are known never waits for a long first walk."""

    __slots__ = ("_cuts", "_gen", "_lock", "_tail_rows", "_walk_lock", "_walked", "max_urls", "name", "source")

    def __init__(self, name: str, source: Source, max_urls: int) -> None:
        self.name = name
        self.source = source
        self.max_urls = max_urls
        self._cuts: list[Any] = []  # the last key of each closed page
        self._walked = False  # the keys after the last cut were seen to fit in one page
        self._tail_rows = 0  # how many keys they were then
        self._gen = 0  # changes whenever a boundary is cut, merged or forgotten
        self._lock = threading.Lock()
        self._walk_lock = threading.Lock()

    def _step(self) -> None:
        """Read the keys after the last boundary: a boundary more if they fill a page, else the tail's size.
        Called with the walk lock held; the keys are read without the boundaries' lock."""
        with self._lock:
            after = self._cuts[-1] if self._cuts else None
            gen = self._gen
        cut, tail = self._read(after)
        with self._lock:
            if gen != self._gen:  # a render moved the boundaries meanwhile: read again from the new last one
                return
            if cut is not None:
                self._cuts.append(cut)
                self._walked = False
            else:
                self._walked = True
                self._tail_rows = tail
            self._gen += 1

    def _read(self, after: Any) -> tuple[Any, int]:
        """(the next boundary, 0) when more than a page of keys follow ``after``; else (None, how many follow,
        or at least 1 when some do)."""
        nth = nth_key_hook(self.source)
        if nth is not None:
            cut = nth(after, self.max_urls)
            if cut is None:
                first = nth(after, 1)
                if first is not None:
                    _check_order(self.name, after, first)
                return None, int(first is not None)
            _check_order(self.name, after, cut)
            more = nth(cut, 1)
            if more is not None:
                _check_order(self.name, cut, more)
                return cut, 0
            return None, self.max_urls
        keys = source_keys(self.source, after, self.max_urls + 1)
        if keys:
            _check_order(self.name, after, keys[0])
            if len(keys) > 1:
                _check_order(self.name, keys[0], keys[-1])
        if len(keys) > self.max_urls:
            return keys[self.max_urls - 1], 0
        return None, len(keys)

    def _range(self, n: int) -> PageRange | None:
        cuts = self._cuts
        if n <= len(cuts):
            return PageRange(n, cuts[n - 2] if n > 1 else None, cuts[n - 1])
        if n == len(cuts) + 1:
            return PageRange(n, cuts[-1] if cuts else None, None)
        return None

    def page(self, n: int) -> PageRange | None:
        """Page ``n``'s range (boundaries found up to it), or ``None`` past the tail. Asking past the known pages
        reads the tail's keys again: rows added since may have filled it."""
        with self._lock:
            if n <= len(self._cuts):
                return self._range(n)
        with self._walk_lock:
            with self._lock:
                if n > len(self._cuts) + 1:
                    self._walked = False
            while True:
                with self._lock:
                    if n <= len(self._cuts) or self._walked:
                        return self._range(n)
                self._step()

    def ranges(self) -> list[PageRange]:
        """Every page now: the tail's keys are read again (rows added may have filled it; rows deleted may have
        emptied it, which drops it)."""
        with self._walk_lock:
            with self._lock:
                self._walked = False
            while True:
                with self._lock:
                    if self._walked:
                        count = len(self._cuts) + (1 if self._tail_rows else 0)
                        out = [self._range(n) for n in range(1, count + 1)]
                        return [r for r in out if r is not None]
                self._step()

    def _current(self, rng: PageRange) -> bool:
        return self._range(rng.number) == rng

    def cut(self, rng: PageRange, end: Any) -> None:
        """Page ``rng`` filled at ``end`` (before its last key, or the tail filled): it ends there now, and the
        boundaries after it are found again."""
        with self._lock:
            if self._current(rng):
                del self._cuts[rng.number - 1:]
                self._cuts.append(end)
                self._walked = False
                self._gen += 1

    def merge(self, rng: PageRange) -> None:
        """Closed page ``rng`` has no rows any more: its boundary goes, the boundaries after it are found again."""
        with self._lock:
            if self._current(rng) and not rng.is_tail:
                del self._cuts[rng.number - 1:]
                self._walked = False
                self._gen += 1

    def reset(self) -> None:
        """Forget every boundary (found again from keys on the next request)."""
        with self._lock:
            self._cuts.clear()
            self._walked = False
            self._tail_rows = 0
            self._gen += 1


def entry_flags(entry: UrlEntry) -> int:
    """The extensions one entry uses (what the root of its page must declare)."""
    flags = 0
    if entry.images:
        flags |= Extension.IMAGE
    if entry.videos:
        flags |= Extension.VIDEO
    if entry.news is not None:
        flags |= Extension.NEWS
    if entry.alternates:
        flags |= Extension.XHTML
    if entry.mobile:
        flags |= Extension.MOBILE
    return int(flags)


def instant(value: LastMod) -> datetime:
    dt = value.to_datetime()
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt


def newest_of(a: LastMod | None, b: LastMod | None) -> LastMod | None:
    """The later of two lastmods (a date or a time without an offset counts as UTC)."""
    if a is None:
        return b
    if b is None:
        return a
    if _same_form(a.text, b.text):
        return b if b.text > a.text else a
    return b if instant(b) > instant(a) else a


def _same_form(a: str, b: str) -> bool:
    """Whether two W3C texts compare as instants by plain string comparison: same length, and a date without a
    time, or the same offset (the common case, a column of one type; measured 10x cheaper than datetimes)."""
    return len(a) == len(b) and (len(a) <= 10 or a[-1] == b[-1] == "Z" or (a[-6] in "+-" and a[-6:] == b[-6:]))


def urlset_bytes(entries: list[UrlEntry], used: int, stylesheet: str | None = None) -> bytes:
    """A whole urlset in memory (small documents and tests)."""
    out = io.BytesIO()
    w = UrlsetWriter(out, namespaces=Extension(used), stylesheet=stylesheet)
    w.write_all(entries)
    w.close()
    return out.getvalue()


def urlset_header(used: int, stylesheet: str | None) -> bytes:
    """The bytes before the first ``<url>`` of a page declaring ``used``."""
    empty = urlset_bytes([], used, stylesheet)
    return empty[: len(empty) - len(_FOOTER)]


class RenderedPage:
    """A page rendered for one request: its ``<url>`` elements in a spooled buffer, what the headers need, and
    what the boundaries learn (``full``: a limit stopped it while rows of its range, or after the tail, remain;
    ``end``: its last key). Iterate it once for the document's bytes; it closes its buffer when done."""

    __slots__ = ("__weakref__", "_body", "_header", "count", "digest", "end", "full", "newest", "rows", "size",
                 "used")

    def __init__(self, body: tempfile.SpooledTemporaryFile[bytes], header: bytes, *, count: int, rows: int,
                 used: int, digest: str, newest: LastMod | None, end: Any, full: bool, size: int) -> None:
        self._body = body
        # A page dropped unread (a client gone, a framework that never iterates HEAD bodies) still frees its file
        weakref.finalize(self, body.close)
        self._header = header
        self.count = count
        self.rows = rows
        self.used = used
        self.digest = digest
        self.newest = newest
        self.end = end
        self.full = full
        self.size = size

    @property
    def etag(self) -> str:
        """The strong ETag (quoted): the digest of the entries' bytes and of the root that declares ``used``."""
        h = hashlib.blake2b(digest_size=16)
        h.update(self._header)
        h.update(self.digest.encode())
        return f'"{h.hexdigest()}"'

    def __iter__(self) -> Iterator[bytes]:
        return self.chunks()

    def chunks(self) -> Iterator[bytes]:
        try:
            yield self._header
            self._body.seek(0)
            while data := self._body.read(_CHUNK):
                yield data
            yield _FOOTER
        finally:
            self.close()

    def read(self) -> bytes:
        return b"".join(self.chunks())

    def close(self) -> None:
        self._body.close()


class _Spool:
    """The writer's sink for one page: bytes hashed and kept in a spooled buffer (the root is not recorded)."""

    __slots__ = ("body", "hasher", "recording")

    def __init__(self) -> None:
        self.body: tempfile.SpooledTemporaryFile[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)  # noqa: SIM115 - handed to the page, which closes it
        self.hasher = hashlib.blake2b(digest_size=16)
        self.recording = False

    def write(self, data: bytes, /) -> int:
        if self.recording:
            self.hasher.update(data)
            self.body.write(data)
        return len(data)


def render_page(name: str, source: Source, rng: PageRange, limits: Limits,
                stylesheet: str | None = None) -> RenderedPage:
    """Render page ``rng`` from the source as it is now, within ``limits``.

    Rows are fetched from ``rng.after`` in chunks of ``max_urls + 1`` until the range ends (past ``rng.last``),
    the rows end, or a limit is reached with rows still to come (``full``). Invalid entries are skipped (logged),
    as is an entry too large for any page. Bytes are identical to what ``write_sitemaps`` writes for the same
    entries: the root declares exactly the extensions the page uses. Entries stream through the writer without
    a check per entry; a page that reaches the byte limit (rare: 50 MiB) is rendered again with the count that
    fits."""
    cap = limits.max_urls
    skip: set[Any] = set()
    for _ in range(8):
        result = _render(name, source, rng, limits, stylesheet, cap, skip)
        if isinstance(result, RenderedPage):
            return result
        fits, giant = result
        if giant is not None:
            skip.add(giant)  # the same count may fit without it
        else:
            cap = fits
    raise ConfigurationError(f"section {name!r}: page {rng.number} kept changing size while it was rendered")


def _render(name: str, source: Source, rng: PageRange, limits: Limits, stylesheet: str | None, cap: int,
            skip: set[Any]) -> RenderedPage | tuple[int, Any]:
    """One rendering pass: the page, or (the count that fits, a key too large for any page or None) when the
    byte limit was passed."""
    spool = _Spool()
    # Rendered with every namespace declared: an entry's text is then the same as in a page whose root declares
    # exactly what the page uses (which is what a served page, and a written file, declares).
    writer = UrlsetWriter(spool, namespaces=Extension.ALL, stylesheet=stylesheet)
    writer.flush()
    overhead = writer.bytes_written + len(_FOOTER)  # the worst-case root, as the writer reckons
    spool.recording = True
    max_urls, max_bytes, max_news = limits.max_urls, limits.max_bytes, limits.max_news
    size = overhead
    count = news = used = rows = 0
    newest: LastMod | None = None
    end: Any = None
    full = False
    last = rng.last
    prev: Any = rng.after
    try:
        while not full:
            fetched = 0
            pairs = iter_pairs(source, prev, max_urls + 1)
            try:
                for key, entry in pairs:
                    fetched += 1
                    try:
                        ordered = prev is None or key > prev
                    except TypeError:
                        ordered = False
                    if not ordered or key is None:
                        _check_order(name, prev, key)  # raises
                    prev = key
                    if last is not None and key > last:
                        fetched = -1  # the range ended
                        break
                    rows += 1
                    if skip and key in skip:
                        continue
                    is_news = entry.news is not None
                    if count >= cap or (is_news and news >= max_news):
                        full = True
                        break
                    try:
                        esize = writer.write(entry)
                    except InvalidEntryError as exc:
                        log.warning("section %r, key %r: %s (entry skipped)", name, key, exc)
                        continue
                    if size + esize > max_bytes:
                        spool.body.close()
                        if esize + overhead > max_bytes:
                            log.warning("section %r, key %r: the entry is %d bytes as XML and cannot fit in a "
                                        "sitemap of %d bytes (entry skipped)", name, key, esize, max_bytes)
                            return count, key
                        return count, None
                    count += 1
                    size += esize
                    end = key
                    if is_news:
                        news += 1
                    if entry.images or entry.videos or entry.alternates or entry.mobile or is_news:
                        used |= entry_flags(entry)
                    lastmod = entry.lastmod
                    if lastmod is not None:
                        if newest is None:
                            newest = lastmod
                        else:
                            text, top = lastmod.text, newest.text
                            if len(text) == len(top) == 10:  # two dates: the text orders them
                                if text > top:
                                    newest = lastmod
                            else:
                                newest = newest_of(newest, lastmod)
            finally:
                close = getattr(pairs, "close", None)
                if close is not None:
                    close()
            if fetched <= max_urls:  # the rows or the range ended
                break
        writer.flush()
        header = urlset_header(used, stylesheet)
    except BaseException:
        spool.body.close()
        raise
    return RenderedPage(spool.body, header, count=count, rows=rows, used=used, digest=spool.hasher.hexdigest(),
                        newest=newest, end=end, full=full, size=size - overhead + len(header) + len(_FOOTER))
