"""Page plans: one pass over a section decides its pages; a page is then streamed from its first key.

The pass reads the section in key order (``fetch(after, 50000)`` chunks: keyset, never OFFSET), renders each entry
with the writer's own renderer (:class:`~sitemapkit.write.UrlsetWriter`) and rolls pages exactly where
``write_sitemaps`` rolls files: at 50,000 URLs, at 50 MiB, and at 1,000 news entries. For each page it records
the key before it, its last key, its count, the extensions it uses (so its root declares exactly those, as the
writer's files do), its newest lastmod and a digest of its body (the strong ETag). Nothing else is kept: a few
hundred bytes per page whatever the table size.

Serving a page fetches ``key > after`` with the page's count as the limit, stops after its last key, and streams
the writer's output in ~64 KiB chunks while hashing it. When what was streamed differs from the plan (rows were
added, changed or deleted since the pass) the section is marked stale, so the next request re-plans it.
"""

from __future__ import annotations

import hashlib
import io
import logging
import time
from collections.abc import Callable, Iterator
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
from sitemapkit.serve._sources import Source, iter_pairs
from sitemapkit.write import Extension, UrlsetWriter

__all__ = ["Limits", "PagePlan", "SectionPlan", "entry_flags", "plan_section", "stream_page", "urlset_bytes"]

log = logging.getLogger("sitemapkit.serve")

_FOOTER = b"</urlset>\n"


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
class PagePlan:
    """One page of a section: ``key > after`` up to and including ``last``."""

    after: Any
    last: Any
    count: int
    news: int
    used: int
    body_digest: str
    newest: LastMod | None

    @property
    def etag(self) -> str:
        """The strong ETag of the page's XML (quoted)."""
        h = hashlib.blake2b(digest_size=16)
        h.update(f"{self.used}|{self.count}|".encode())
        h.update(self.body_digest.encode())
        return f'"{h.hexdigest()}"'


@dataclass(frozen=True, slots=True)
class SectionPlan:
    """A section's pages as of ``planned_at`` (``time.monotonic()``), with the wall-clock time of the pass."""

    pages: tuple[PagePlan, ...]
    planned_at: float
    planned_wall: datetime
    problems: tuple[str, ...] = ()

    @property
    def urls(self) -> int:
        return sum(p.count for p in self.pages)


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


def newest_of(a: LastMod | None, b: LastMod | None) -> LastMod | None:
    """The later of two lastmods (a date or a time without an offset counts as UTC)."""
    if a is None:
        return b
    if b is None:
        return a
    return b if instant(b) > instant(a) else a


def _same_form(a: str, b: str) -> bool:
    """Whether two W3C texts compare as instants by plain string comparison: same length, and a date without a
    time, or the same offset (the common case, a column of one type; measured 10x cheaper than datetimes)."""
    return len(a) == len(b) and (len(a) <= 10 or a[-1] == b[-1] == "Z" or (a[-6] in "+-" and a[-6:] == b[-6:]))


def instant(value: LastMod) -> datetime:
    dt = value.to_datetime()
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt


class _Chunks:
    """A sink that keeps what the writer flushed, for the caller to take."""

    __slots__ = ("chunks",)

    def __init__(self) -> None:
        self.chunks: list[bytes] = []

    def write(self, data: bytes, /) -> int:
        self.chunks.append(data)
        return len(data)

    def take(self) -> bytes:
        data = b"".join(self.chunks)
        self.chunks.clear()
        return data


def urlset_bytes(entries: list[UrlEntry], used: int, stylesheet: str | None = None) -> bytes:
    """A whole urlset in memory (small documents and tests)."""
    out = io.BytesIO()
    w = UrlsetWriter(out, namespaces=Extension(used), stylesheet=stylesheet)
    w.write_all(entries)
    w.close()
    return out.getvalue()


class _PageBuilder:
    __slots__ = ("after", "count", "hasher", "last", "newest", "news", "size", "used")

    def __init__(self, after: Any, overhead: int) -> None:
        self.after = after
        self.last: Any = after
        self.count = 0
        self.news = 0
        self.size = overhead
        self.used = 0
        self.newest: LastMod | None = None
        self.hasher = hashlib.blake2b(digest_size=16)

    def done(self) -> PagePlan:
        return PagePlan(self.after, self.last, self.count, self.news, self.used, self.hasher.hexdigest(),
                        self.newest)


def _check_order(section: str, prev: Any, key: Any) -> None:
    try:
        ok = prev is None or key > prev
    except TypeError:
        ok = False
    if not ok:
        raise ConfigurationError(f"section {section!r}: fetch returned key {key!r} after {prev!r}; keys must "
                                 "be unique and increasing (ORDER BY the key, WHERE key > after)")


def plan_section(name: str, source: Source, limits: Limits, stylesheet: str | None = None,
                 clock: Callable[[], float] = time.monotonic) -> SectionPlan:
    """One pass over ``source``: its pages, rolled where ``write_sitemaps`` would roll them."""
    sink = _Chunks()
    # Rendered with every namespace declared: an entry's text is then the same as in a page whose root declares
    # exactly what the page uses (which is what a served page, and a written file, declares).
    writer = UrlsetWriter(sink, namespaces=Extension.ALL, stylesheet=stylesheet)
    writer.flush()
    overhead = len(sink.take()) + len(_FOOTER)  # the worst-case root, as the writer reckons
    pages: list[PagePlan] = []
    page = _PageBuilder(None, overhead)
    max_urls, max_bytes, max_news = limits.max_urls, limits.max_bytes, limits.max_news
    chunk = max_urls
    after: Any = None
    skipped: list[str] = []
    while True:
        n = 0
        for key, entry in iter_pairs(source, after, chunk):
            n += 1
            _check_order(name, after, key)
            after = key
            try:
                size = writer.write(entry)
            except InvalidEntryError as exc:
                if len(skipped) < 20:
                    skipped.append(f"section {name!r}, key {key!r}: {exc} (entry skipped)")
                log.warning("section %r, key %r: %s (entry skipped)", name, key, exc)
                continue
            writer.flush()
            text = sink.take()
            is_news = entry.news is not None
            if page.count >= max_urls or page.size + size > max_bytes or (is_news and page.news >= max_news):
                if page.count:
                    pages.append(page.done())
                page = _PageBuilder(page.last, overhead)
                if size + overhead > max_bytes:
                    raise ConfigurationError(f"section {name!r}, key {key!r}: the entry is {size} bytes as XML "
                                             f"and cannot fit in a sitemap of {max_bytes} bytes")
            page.hasher.update(text)
            page.count += 1
            page.size += size
            page.last = key
            if is_news:
                page.news += 1
            page.used |= entry_flags(entry)
            lastmod = entry.lastmod
            if lastmod is not None:
                newest = page.newest
                if newest is None:
                    page.newest = lastmod
                elif _same_form(lastmod.text, newest.text):
                    if lastmod.text > newest.text:
                        page.newest = lastmod
                else:
                    page.newest = newest_of(newest, lastmod)
        if n < chunk:
            break
    if page.count:
        pages.append(page.done())
    return SectionPlan(tuple(pages), clock(), datetime.now(UTC), tuple(skipped))


def urlset_header(used: int, stylesheet: str | None) -> bytes:
    """The bytes before the first ``<url>`` of a page declaring ``used``."""
    empty = urlset_bytes([], used, stylesheet)
    return empty[: len(empty) - len(_FOOTER)]


def stream_page(source: Source, page: PagePlan, stylesheet: str | None,
                on_mismatch: Callable[[str], None]) -> Iterator[bytes]:
    """The page's XML in ~64 KiB chunks, from ``fetch(page.after, page.count)`` up to ``page.last``.

    Memory stays flat: the writer holds one buffer, the fetch one database page. If the rows changed since
    the plan (count or body differ), ``on_mismatch`` is called with the reason once the page is out."""
    sink = _Chunks()
    writer = UrlsetWriter(sink, namespaces=Extension(page.used), stylesheet=stylesheet)
    writer.flush()
    yield sink.take()
    hasher = hashlib.blake2b(digest_size=16)
    count = 0
    pairs = iter_pairs(source, page.after, page.count)
    try:
        for key, entry in pairs:
            if key > page.last:
                break
            try:
                writer.write(entry)
            except InvalidEntryError:
                continue
            count += 1
            if sink.chunks:
                data = sink.take()
                hasher.update(data)
                yield data
    finally:
        close = getattr(pairs, "close", None)
        if close is not None:
            close()
    writer.flush()
    data = sink.take()
    hasher.update(data)
    writer.close()
    yield data + sink.take()
    if count != page.count:
        on_mismatch(f"{count} URLs where the plan has {page.count}")
    elif hasher.hexdigest() != page.body_digest:
        on_mismatch("the URLs changed since the plan")
