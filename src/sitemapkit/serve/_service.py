"""The sitemap service: sections, their page plans, and the reply for each sitemap URL.

URLs (relative to where the service is mounted, ``base_url``)::

    /sitemap.xml                    the index of every section's pages, or the one urlset when there is one page
    /sitemap-<section>-<n>.xml      page n (from 1) of a section; 404 past the end
    ... .xml.gz                     the same, gzip-compressed (sent as application/gzip)

Plans are made on first use and refreshed after ``ttl`` seconds (the stale plan is served while a background
thread re-plans), on demand with :meth:`SitemapService.refresh`, or when a streamed page finds its rows changed.
"""

from __future__ import annotations

import hashlib
import io
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from typing import Any

from sitemapkit.core import MAX_INDEX_ENTRIES, ConfigurationError, LastMod, SitemapRef
from sitemapkit.serve._http import GZIP_TYPE, Reply, ResourceMeta, error_reply, gzip_chunks, represent
from sitemapkit.serve._plan import Limits, PagePlan, SectionPlan, instant, newest_of, plan_section, stream_page
from sitemapkit.serve._sources import Source, as_source
from sitemapkit.write import IndexWriter

__all__ = ["SitemapService"]

log = logging.getLogger("sitemapkit.serve")

_SECTION_NAME = re.compile(r"[A-Za-z0-9_]+(?:-[A-Za-z0-9_]+)*")
_PAGE = re.compile(r"sitemap-(?P<section>.+)-(?P<n>[1-9][0-9]{0,8})\.xml(?P<gz>\.gz)?")
DEFAULT_CACHE_CONTROL = "public, max-age=3600"


class _Section:
    __slots__ = ("lock", "name", "plan", "refreshing", "source", "stale")

    def __init__(self, name: str, source: Source) -> None:
        self.name = name
        self.source = source
        self.plan: SectionPlan | None = None
        self.stale = False
        self.refreshing = False
        self.lock = threading.Lock()


class SitemapService:
    """Serve the sitemaps of a live site from its data, with the writer's output and the protocol's limits.

    ``sections`` maps a name (letters, digits, ``_``, ``-``) to a :class:`KeysetSource`, a callable returning
    UrlEntry objects, or a Django ``Sitemap`` class. ``base_url`` is where the service is mounted (the index
    lists ``base_url + "sitemap-<section>-<n>.xml"``). ``ttl`` is how long a section's page plan is used before
    it is made again (seconds; ``None``: until :meth:`refresh`). ``cache_control`` is sent as is (``None``: not
    sent). ``stylesheet`` adds an ``<?xml-stylesheet?>`` line to every document, as ``generate --xsl`` does.
    """

    def __init__(self, base_url: str, sections: Mapping[str, Any], *, ttl: float | None = 3600.0,
                 cache_control: str | None = DEFAULT_CACHE_CONTROL, stylesheet: str | None = None,
                 max_urls: int | None = None, max_bytes: int | None = None, max_news: int | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if not isinstance(base_url, str) or not re.match(r"https?://[^/?#]+", base_url):
            raise ConfigurationError(f"base_url must be an absolute http(s) URL, got {base_url!r}")
        if "?" in base_url or "#" in base_url:
            raise ConfigurationError(f"base_url must not have a query or fragment: {base_url!r}")
        self.base_url = base_url if base_url.endswith("/") else base_url + "/"
        if not sections:
            raise ConfigurationError("a SitemapService needs at least one section")
        self._sections: dict[str, _Section] = {}
        for name, value in sections.items():
            if not isinstance(name, str) or not _SECTION_NAME.fullmatch(name):
                raise ConfigurationError(f"section name {name!r}: use letters, digits, '_' and inner '-'")
            self._sections[name] = _Section(name, as_source(name, value, self.base_url))
        if ttl is not None and ttl <= 0:
            raise ConfigurationError(f"ttl must be positive seconds or None, got {ttl!r}")
        self.ttl = ttl
        self.cache_control = cache_control
        self.stylesheet = stylesheet
        defaults = Limits()
        self.limits = Limits(max_urls or defaults.max_urls, max_bytes or defaults.max_bytes,
                             max_news or defaults.max_news)
        self._clock = clock
        self._index_lock = threading.Lock()
        self._index: tuple[tuple[int, ...], bytes, ResourceMeta] | None = None

    # -- plans -------------------------------------------------------------------------------------------

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(self._sections)

    def refresh(self, section: str | None = None) -> None:
        """Make the page plans again now (one section, or all), e.g. after a bulk import."""
        names = [section] if section is not None else list(self._sections)
        for name in names:
            sec = self._sections.get(name)
            if sec is None:
                raise ConfigurationError(f"no section {name!r}; sections: {', '.join(self._sections)}")
            self._replan(sec)

    def invalidate(self, section: str | None = None) -> None:
        """Mark plans stale: the next request re-plans (serving the old plan meanwhile)."""
        for name, sec in self._sections.items():
            if section is None or name == section:
                sec.stale = True

    def _replan(self, sec: _Section) -> SectionPlan:
        with sec.lock:
            started = self._clock()
            plan = plan_section(sec.name, sec.source, self.limits, self.stylesheet, self._clock)
            sec.plan = plan
            sec.stale = False
            log.info("section %r planned: %d URLs in %d pages (%.2f s)", sec.name, plan.urls, len(plan.pages),
                     self._clock() - started)
            return plan

    def _background(self, sec: _Section) -> None:
        try:
            self._replan(sec)
        except Exception:  # logged; the old plan keeps being served
            log.exception("re-planning section %r failed", sec.name)
        finally:
            sec.refreshing = False

    def plan(self, section: str) -> SectionPlan:
        """The section's current plan (made now if there is none; re-made in the background when stale)."""
        sec = self._sections[section]
        plan = sec.plan
        if plan is None:
            with sec.lock:
                plan = sec.plan
            return plan if plan is not None else self._replan(sec)
        expired = self.ttl is not None and self._clock() - plan.planned_at > self.ttl
        if (expired or sec.stale) and not sec.refreshing:
            sec.refreshing = True
            threading.Thread(target=self._background, args=(sec,), name=f"sitemapkit-plan-{section}",
                             daemon=True).start()
        return plan

    def pages(self) -> list[tuple[str, int, PagePlan]]:
        """Every page of every section, in order: (section, number from 1, plan)."""
        return [(name, i, page) for name in self._sections
                for i, page in enumerate(self.plan(name).pages, 1)]

    def page_url(self, section: str, n: int) -> str:
        return f"{self.base_url}sitemap-{section}-{n}.xml"

    # -- replies -----------------------------------------------------------------------------------------

    def _extra(self) -> list[tuple[str, str]]:
        out = [("X-Robots-Tag", "noindex")]
        if self.cache_control is not None:
            out.append(("Cache-Control", self.cache_control))
        return out

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
        section, n = m["section"], int(m["n"])
        pages = self.plan(section).pages
        if n > len(pages):
            return error_reply(404, f"section {section!r} has {len(pages)} page(s); there is no page {n}")
        return self._page(method, lower, section, n, pages[n - 1], bool(m["gz"]))

    def _page(self, method: str, headers: Mapping[str, str], section: str, n: int, page: PagePlan,
              gz_file: bool) -> Reply:
        sec = self._sections[section]

        def mismatch(reason: str) -> None:
            log.info("section %r page %d: %s; re-planning", section, n, reason)
            sec.stale = True

        last = instant(page.newest) if page.newest is not None else None
        body: Iterator[bytes] = stream_page(sec.source, page, self.stylesheet, mismatch)
        if gz_file:
            meta = ResourceMeta(page.etag[:-1] + '.gz"', last, GZIP_TYPE, negotiate_gzip=False)
            return represent(method, headers, meta, gzip_chunks(body), self._extra())
        return represent(method, headers, ResourceMeta(page.etag, last), body, self._extra())

    def _root(self, method: str, headers: Mapping[str, str], gz_file: bool) -> Reply:
        pages = self.pages()
        if not pages:
            return error_reply(404, "no URLs to list: every section is empty")
        if len(pages) == 1:
            section, n, page = pages[0]
            return self._page(method, headers, section, n, page, gz_file)
        data, meta = self._index_document(pages)
        if gz_file:
            data = b"".join(gzip_chunks([data]))
            meta = ResourceMeta(meta.etag[:-1] + '.gz"', meta.last_modified, GZIP_TYPE, False, len(data))
        return represent(method, headers, meta, data, self._extra())

    def _index_document(self, pages: list[tuple[str, int, PagePlan]]) -> tuple[bytes, ResourceMeta]:
        if len(pages) > MAX_INDEX_ENTRIES:
            raise ConfigurationError(f"{len(pages)} pages exceed the {MAX_INDEX_ENTRIES} a sitemap index may list")
        key = tuple(id(p) for _s, _n, p in pages)
        with self._index_lock:
            cached = self._index
            if cached is not None and cached[0] == key:
                return cached[1], cached[2]
            out = io.BytesIO()
            w = IndexWriter(out, stylesheet=self.stylesheet)
            newest: LastMod | None = None
            for section, n, page in pages:
                w.write(SitemapRef(self.page_url(section, n), page.newest))
                newest = newest_of(newest, page.newest)
            w.close()
            data = out.getvalue()
            etag = f'"{hashlib.blake2b(data, digest_size=16).hexdigest()}"'
            last: datetime | None = instant(newest) if newest is not None else None
            meta = ResourceMeta(etag, last, length=len(data))
            self._index = (key, data, meta)
            return data, meta

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
        """A Flask blueprint: ``app.register_blueprint(service.flask_blueprint())``."""
        from sitemapkit.serve._adapters import flask_blueprint

        return flask_blueprint(self, name)
