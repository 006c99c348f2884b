"""The sitemap service: sections, their pages, and the reply for each sitemap URL.

URLs (relative to where the service is mounted, ``base_url``)::

    /sitemap.xml                    the index of every section's pages, or the one urlset when there is one page
    /sitemap-<section>-<n>.xml      page n (from 1) of a section; 404 past the end
    ... .xml.gz                     the same, gzip-compressed (sent as application/gzip)

Every page is rendered from the source for the request that asks for it (``_plan.render_page``): its ETag is the
digest of the bytes sent, so a changed, added or deleted row shows at the next request of its page, and a 304 is
given only for the same bytes. With a ``stats`` hook on the source, a conditional request whose page summary is
unchanged gets its 304 without rendering, for at most ``ttl`` seconds after the page was last rendered. Page
boundaries are found from keys as far as requests need (``_plan.Bounds``); the index reads the last page's keys
again on each request, so a page that filled shows up at once.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sitemapkit.core import MAX_INDEX_ENTRIES, ConfigurationError, LastMod, SitemapRef
from sitemapkit.serve._http import GZIP_TYPE, Reply, ResourceMeta, error_reply, gzip_chunks, represent
from sitemapkit.serve._plan import Bounds, Limits, PageRange, RenderedPage, instant, newest_of, render_page
from sitemapkit.serve._sources import Source, as_source, stats_hook
from sitemapkit.write import IndexWriter

__all__ = ["SitemapService"]

log = logging.getLogger("sitemapkit.serve")

_SECTION_NAME = re.compile(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*")
_PAGE = re.compile(r"sitemap-(?P<section>.+)-(?P<n>[1-9][0-9]{0,8})\.xml(?P<gz>\.gz)?")
DEFAULT_CACHE_CONTROL = "public, max-age=3600"
#: Tries to render a page whose boundaries moved under it (a closed page found empty is merged, then rendered).
_TRIES = 3


@dataclass(frozen=True, slots=True)
class _Seen:
    """What a page was when last rendered, for a 304 from the source's ``stats`` alone."""

    rng: PageRange
    stats: tuple[Any, ...]
    etag: str
    newest: LastMod | None
    at: float


class _Section:
    __slots__ = ("bounds", "epoch", "listed", "name", "seen", "source", "stats")

    def __init__(self, name: str, source: Source, limits: Limits) -> None:
        self.name = name
        self.source = source
        self.bounds = Bounds(name, source, limits.max_urls)
        self.stats = stats_hook(source)
        self.seen: dict[int, _Seen] = {}
        #: Each page's newest lastmod for the index, from ``stats`` (or its last render), and when it was read
        self.listed: dict[PageRange, tuple[float, LastMod | None]] = {}
        #: Bumped by invalidate()/refresh(): a render that began before is not remembered
        self.epoch = 0


def _lastmod(value: Any) -> LastMod | None:
    if value is None or isinstance(value, LastMod):
        return value
    if isinstance(value, datetime | date | str):
        return LastMod.of(value)
    raise ConfigurationError(f"stats must return (count, newest lastmod, ...); got a newest of {value!r:.80}")


class SitemapService:
    """Serve the sitemaps of a live site from its data, with the writer's output and the protocol's limits.

    ``sections`` maps a name (letters, digits, ``_``, ``-``) to a :class:`KeysetSource`, a callable returning
    UrlEntry objects, or a Django ``Sitemap`` class. ``base_url`` is where the service is mounted (the index
    lists ``base_url + "sitemap-<section>-<n>.xml"``). ``ttl``: how long (seconds) a source's ``stats`` may answer
    a conditional request without rendering the page, counted from the page's last render (``None``: no limit;
    it bounds only what the summary cannot see). ``cache_control`` is sent as is (``None``: not sent).
    ``stylesheet`` adds an ``<?xml-stylesheet?>`` line to every document, as ``generate --xsl`` does. ``clock``
    (monotonic seconds) and ``now`` (the wall clock, for Last-Modified, which is never later than now) are for
    tests.
    """

    def __init__(self, base_url: str, sections: Mapping[str, Any], *, ttl: float | None = 300.0,
                 cache_control: str | None = DEFAULT_CACHE_CONTROL, stylesheet: str | None = None,
                 max_urls: int | None = None, max_bytes: int | None = None, max_news: int | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        if not isinstance(base_url, str) or not re.match(r"https?://[^/?#]+", base_url):
            raise ConfigurationError(f"base_url must be an absolute http(s) URL, got {base_url!r}")
        if "?" in base_url or "#" in base_url:
            raise ConfigurationError(f"base_url must not have a query or fragment: {base_url!r}")
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        if not sections:
            raise ConfigurationError("a SitemapService needs at least one section")
        if ttl is not None and ttl <= 0:
            raise ConfigurationError(f"ttl must be positive seconds or None, got {ttl!r}")
        defaults = Limits()
        self.limits = Limits(max_urls or defaults.max_urls, max_bytes or defaults.max_bytes,
                             max_news or defaults.max_news)
        self._sections: dict[str, _Section] = {}
        for name, value in sections.items():
            if not isinstance(name, str) or not _SECTION_NAME.fullmatch(name):
                raise ConfigurationError(f"section name {name!r}: use letters, digits, '_' and inner '-'")
            self._sections[name] = _Section(name, as_source(name, value, self.base_url), self.limits)
        self.ttl = ttl
        self.cache_control = cache_control
        self.stylesheet = stylesheet
        self._clock = clock
        self._now = now
        self._seen_lock = threading.Lock()

    # -- pages ---------------------------------------------------------------------------------------------

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(self._sections)

    def _section(self, name: str) -> _Section:
        sec = self._sections.get(name)
        if sec is None:
            raise ConfigurationError(f"no section {name!r}; sections: {', '.join(self._sections)}")
        return sec

    def refresh(self, section: str | None = None) -> None:
        """Find every page boundary again now, from keys (one section, or all). Pages emptied by deletions are
        merged away, so call it after a bulk delete; a bulk import inside existing key ranges is handled
        without it (a page that would overflow ends early and the next pages move), but leaves short pages."""
        for sec in self._pick(section):
            self._forget(sec)
            sec.bounds.ranges()

    def invalidate(self, section: str | None = None) -> None:
        """Forget page boundaries and remembered validators (found again at the next request). Needed after
        changes a source's ``stats`` cannot see (rows rewritten with the same count and newest lastmod), so the
        next conditional request renders its page instead of trusting the summary for up to ``ttl``."""
        for sec in self._pick(section):
            self._forget(sec)

    def _pick(self, section: str | None) -> list[_Section]:
        return [self._section(section)] if section is not None else list(self._sections.values())

    def _forget(self, sec: _Section) -> None:
        sec.bounds.reset()
        with self._seen_lock:
            sec.epoch += 1
            sec.seen.clear()
            sec.listed.clear()

    def page_ranges(self, section: str) -> list[PageRange]:
        """The section's pages now (the last page's keys read again)."""
        return self._section(section).bounds.ranges()

    def pages(self) -> list[tuple[str, PageRange]]:
        """Every page of every section, in order: (section, range)."""
        return [(name, rng) for name, sec in self._sections.items() for rng in sec.bounds.ranges()]

    def page_url(self, section: str, n: int) -> str:
        return f"{self.base_url}sitemap-{section}-{n}.xml"

    # -- replies -----------------------------------------------------------------------------------------

    def _extra(self) -> list[tuple[str, str]]:
        out = [("X-Robots-Tag", "noindex")]
        if self.cache_control is not None:
            out.append(("Cache-Control", self.cache_control))
        return out

    def _not_after_now(self, value: LastMod | None) -> datetime | None:
        if value is None:
            return None
        return min(instant(value), self._now().astimezone(UTC))

    def respond(self, method: str, name: str, headers: Mapping[str, str]) -> Reply:
        """The reply for ``name`` (the path after the mount point, e.g. ``sitemap-products-3.xml``).
        ``headers`` are the request headers; keys are matched case-insensitively."""
        method = method.upper()
        if method not in ("GET", "HEAD"):
            return error_reply(405, "only GET and HEAD are served", [("Allow", "GET, HEAD")])
        lower = {k.lower(): v for k, v in headers.items()}
        name = name.lstrip("/")
        if name in ("sitemap.xml", "sitemap.xml.gz"):
            return self._root(method, lower, name.endswith(".gz"))
        m = _PAGE.fullmatch(name)
        if m is None or m["section"] not in self._sections:
            return error_reply(404, f"no sitemap {name!r}")
        reply = self._page(method, lower, self._sections[m["section"]], int(m["n"]), bool(m["gz"]))
        return reply if reply is not None else error_reply(404, f"section {m['section']!r} has no page {m['n']}")

    def _meta(self, etag: str, newest: LastMod | None, gz_file: bool, length: int | None = None) -> ResourceMeta:
        last = self._not_after_now(newest)
        if gz_file:
            return ResourceMeta(etag[:-1] + '.gz"', last, GZIP_TYPE, negotiate_gzip=False, modified_since=False)
        return ResourceMeta(etag, last, length=length, modified_since=False)

    def _stats(self, sec: _Section, rng: PageRange) -> tuple[Any, ...] | None:
        if sec.stats is None:
            return None
        value = sec.stats(rng.after, rng.last)
        if not isinstance(value, tuple | list) or len(value) < 2:
            raise ConfigurationError(f"section {sec.name!r}: stats(after, last) must return (count, newest "
                                     f"lastmod, ...), got {value!r:.80}")
        return tuple(value)

    def _from_stats(self, method: str, headers: Mapping[str, str], sec: _Section, rng: PageRange,
                    gz_file: bool) -> Reply | None:
        """A 304 decided by the source's summary of the page, when it is what it was at the page's last render
        (within ``ttl``) and the client has that render's ETag; else ``None`` (render the page)."""
        if sec.stats is None or "if-none-match" not in headers:
            return None
        seen = sec.seen.get(rng.number)
        if seen is None or seen.rng != rng or (self.ttl is not None and self._clock() - seen.at > self.ttl):
            return None
        if self._stats(sec, rng) != seen.stats:
            return None
        reply = represent(method, headers, self._meta(seen.etag, seen.newest, gz_file), b"", self._extra())
        return reply if reply.status == 304 else None

    def _render(self, headers: Mapping[str, str], method: str, sec: _Section, n: int, gz_file: bool
                ) -> tuple[PageRange, RenderedPage | Reply] | None:
        """Page ``n`` rendered now (or a 304 decided by ``stats``); ``None`` past the end. The boundaries learn
        what the render found: a page that filled early ends there, a closed page left empty is merged."""
        for _ in range(_TRIES):
            rng = sec.bounds.page(n)
            if rng is None:
                return None
            shortcut = self._from_stats(method, headers, sec, rng, gz_file)
            if shortcut is not None:
                return rng, shortcut
            epoch = sec.epoch
            stats = self._stats(sec, rng)  # before the render: a change after it cannot hide under its ETag
            page = render_page(sec.name, sec.source, rng, self.limits, self.stylesheet)
            if page.rows == 0:
                page.close()
                if rng.is_tail:
                    return None
                sec.bounds.merge(rng)
                continue
            if page.full and page.end is not None:
                sec.bounds.cut(rng, page.end)
                rng = PageRange(n, rng.after, page.end)
            if stats is not None:
                now = self._clock()
                with self._seen_lock:
                    if epoch == sec.epoch:
                        sec.seen[n] = _Seen(rng, stats, page.etag, page.newest, now)
                        if not page.full:
                            sec.listed[rng] = (now, _lastmod(stats[1]))
            return rng, page
        raise RuntimeError(f"section {sec.name!r} page {n}: its boundaries kept moving")

    def _page(self, method: str, headers: Mapping[str, str], sec: _Section, n: int, gz_file: bool) -> Reply | None:
        found = self._render(headers, method, sec, n, gz_file)
        if found is None:
            return None
        page = found[1]
        if isinstance(page, Reply):
            return page
        return self._page_reply(method, headers, page, gz_file)

    def _page_reply(self, method: str, headers: Mapping[str, str], page: RenderedPage, gz_file: bool) -> Reply:
        reply = represent(method, headers, self._meta(page.etag, page.newest, gz_file, page.size),
                          gzip_chunks(page) if gz_file else page, self._extra())
        if isinstance(reply.body, bytes):  # 304 or HEAD: nothing of the page is sent
            page.close()
        return reply

    def _root(self, method: str, headers: Mapping[str, str], gz_file: bool) -> Reply:
        for _ in range(_TRIES):
            pages = self.pages()
            if not pages:
                return error_reply(404, "no URLs to list: every section is empty")
            if len(pages) > 1:
                break
            # One page in all: it is the document, unless rendering it shows it does not hold everything
            name, rng = pages[0]
            sec = self._sections[name]
            found = self._render(headers, method, sec, rng.number, gz_file)
            if found is None:
                continue
            if isinstance(found[1], Reply):
                return found[1]
            if found[0] == rng:
                return self._page_reply(method, headers, found[1], gz_file)
            found[1].close()
        data, meta = self._index_document(pages)
        if gz_file:
            data = b"".join(gzip_chunks([data]))
            meta = ResourceMeta(meta.etag[:-1] + '.gz"', meta.last_modified, GZIP_TYPE, False, len(data),
                                modified_since=False)
        return represent(method, headers, meta, data, self._extra())

    def _listed(self, sec: _Section, rng: PageRange) -> LastMod | None:
        """A page's newest lastmod for the index: its ``stats`` as read at most ``ttl`` seconds ago (or at its
        last render), so an index of a 1,000-page section does not scan the whole table on every request."""
        if sec.stats is None:
            return None
        now = self._clock()
        cached = sec.listed.get(rng)
        if cached is not None and (self.ttl is None or now - cached[0] <= self.ttl):
            return cached[1]
        epoch = sec.epoch
        stats = self._stats(sec, rng)
        newest = _lastmod(stats[1]) if stats is not None else None
        with self._seen_lock:
            if epoch == sec.epoch:
                sec.listed[rng] = (now, newest)
        return newest

    def _index_document(self, pages: list[tuple[str, PageRange]]) -> tuple[bytes, ResourceMeta]:
        """The index, made for this request: each page's newest lastmod comes from its source's ``stats``
        (listed only for sections that have the hook, at most ``ttl`` seconds old, never later than now)."""
        if len(pages) > MAX_INDEX_ENTRIES:
            raise ConfigurationError(f"{len(pages)} pages exceed the {MAX_INDEX_ENTRIES} a sitemap index may list")
        out = io.BytesIO()
        w = IndexWriter(out, stylesheet=self.stylesheet)
        newest: LastMod | None = None
        now = self._now().astimezone(UTC)
        for name, rng in pages:
            lastmod = self._listed(self._sections[name], rng)
            if lastmod is not None and instant(lastmod) > now:
                lastmod = LastMod.of(now.replace(microsecond=0))
            w.write(SitemapRef(self.page_url(name, rng.number), lastmod))
            newest = newest_of(newest, lastmod)
        w.close()
        current = set(pages)
        with self._seen_lock:
            for sec in self._sections.values():
                for rng in [r for r in sec.listed if (sec.name, r) not in current]:
                    del sec.listed[rng]
        data = out.getvalue()
        etag = f'"{hashlib.blake2b(data, digest_size=16).hexdigest()}"'
        return data, ResourceMeta(etag, self._not_after_now(newest), length=len(data), modified_since=False)

    # -- framework adapters (imported lazily: none of them is needed to import sitemapkit.serve) -----------

    def asgi(self) -> Any:
        """A Starlette application serving the sitemap URLs (mount it where ``base_url`` points)."""
        from sitemapkit.serve._adapters import starlette_app

        return starlette_app(self)

    def django_urls(self) -> list[Any]:
        """Django URL patterns: ``urlpatterns += service.django_urls()`` (or ``path("", include(...))``)."""
        from sitemapkit.serve._adapters import django_patterns

        return django_patterns(self)

    def flask_blueprint(self, name: str = "sitemapkit") -> Any:
        """A blueprint with ``/sitemap.xml``, ``/sitemap.xml.gz`` and ``/sitemap-<rest>``."""
        from sitemapkit.serve._adapters import flask_blueprint

        return flask_blueprint(self, name)

