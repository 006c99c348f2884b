"""Sections: where a served sitemap's entries come from.

Every section is read the same way, through ``fetch(after, limit)``: up to ``limit`` ``(key, UrlEntry)`` pairs
with ``key > after`` (``after`` is ``None`` at the start), in key order. For a database table that is one indexed
range query (``WHERE id > ? ORDER BY id LIMIT ?``): a page is found by its first key, never by OFFSET, and nothing
counts rows per request.

Two optional hooks make a big section cheaper to serve; a source without them works the same, only slower:

- ``keys(after, limit)``: up to ``limit`` keys ``> after`` in key order (``SELECT id ... LIMIT ?``). Page
  boundaries are found from keys alone; without it they come from ``fetch`` (entries built, never rendered).
- ``nth_key(after, n)``: the ``n``-th key ``> after`` (from 1), or ``None`` when there are fewer
  (``SELECT id ... WHERE id > ? ORDER BY id LIMIT 1 OFFSET n - 1``): boundaries without a key crossing into Python
  per row, which matters on very large tables (measured: 50M rows, see BENCHMARKS.md).
- ``stats(after, last)``: a cheap summary of the rows with ``after < key <= last`` (``last`` is ``None`` for the
  open last page), as a tuple ``(count, newest lastmod, ...)``: ``SELECT count(*), max(updated) ...``. With it,
  the index lists each page's newest lastmod, and a conditional request whose page summary is unchanged is
  answered 304 without rendering the page (for at most ``ttl`` seconds after the page was last rendered: the
  render is the check of what the summary cannot see, such as a changed slug with the same ``updated``).

- :class:`KeysetSource` wraps such functions.
- :class:`IterableSource` wraps any callable returning an iterable of entries; keys are positions, so reaching page
  ``n`` reads the entries before it (fine for the static pages of a site; use a keyset for big tables).
- :class:`DjangoSitemapSource` wraps a ``django.contrib.sitemaps.Sitemap`` (class or instance): a QuerySet from
  ``items()`` is read by primary key ranges, anything else by position. Nothing of Django is imported here.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urljoin, urlsplit

from sitemapkit.core import ConfigurationError, UrlEntry

__all__ = ["DjangoSitemapSource", "IterableSource", "KeysetSource", "Source", "as_source", "iter_pairs",
           "nth_key_hook", "source_keys", "stats_hook"]

Pairs = Iterable[tuple[Any, UrlEntry]]
KeysFn = Callable[[Any, int], Iterable[Any]]
NthKeyFn = Callable[[Any, int], Any]
StatsFn = Callable[[Any, Any], tuple[Any, ...]]


@runtime_checkable
class Source(Protocol):
    """What a section is: ``fetch(after, limit)`` yields up to ``limit`` (key, entry) pairs with key > after."""

    def fetch(self, after: Any, limit: int, /) -> Pairs: ...


class KeysetSource:
    """A section read by key ranges: ``fetch(after, limit)`` yields up to ``limit`` ``(key, UrlEntry)`` pairs
    with ``key > after`` in key order (``after`` is ``None`` for the first page). Keys may be anything that
    compares (ints, strings, tuples for composite keys)::

        def fetch_products(after, limit):
            rows = db.execute("SELECT id, slug, updated FROM product WHERE id > ? ORDER BY id LIMIT ?",
                              (after if after is not None else 0, limit))
            for pk, slug, updated in rows:
                yield pk, UrlEntry(f"https://shop.example/p/{slug}", lastmod=updated)

    Optional ``keys(after, limit)``, ``nth_key(after, n)`` and ``stats(after, last)`` make big tables cheaper
    (see the module's text)::

        def product_nth_key(after, n):  # the n-th id after `after`, or None
            row = db.execute("SELECT id FROM product WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?",
                             (after if after is not None else 0, n - 1)).fetchone()
            return row[0] if row else None

        def product_keys(after, limit):
            return [k for (k,) in db.execute("SELECT id FROM product WHERE id > ? ORDER BY id LIMIT ?",
                                             (after if after is not None else 0, limit))]

        def product_stats(after, last):  # last is None for the open last page
            return db.execute("SELECT count(*), max(updated) FROM product WHERE id > ? AND id <= ?",
                              (after if after is not None else 0, last if last is not None else 2**63 - 1)
                              ).fetchone()
    """

    __slots__ = ("_fetch", "keys", "nth_key", "stats")

    def __init__(self, fetch: Callable[[Any, int], Pairs], *, keys: KeysFn | None = None,
                 nth_key: NthKeyFn | None = None, stats: StatsFn | None = None) -> None:
        if not callable(fetch):
            raise ConfigurationError(f"KeysetSource needs a callable fetch(after, limit), got {fetch!r}")
        for name, fn in (("keys(after, limit)", keys), ("nth_key(after, n)", nth_key),
                         ("stats(after, last)", stats)):
            if fn is not None and not callable(fn):
                raise ConfigurationError(f"KeysetSource: {name} must be callable, got {fn!r}")
        self._fetch = fetch
        #: The optional hooks (``None`` when not given).
        self.keys: KeysFn | None = keys
        self.nth_key: NthKeyFn | None = nth_key
        self.stats: StatsFn | None = stats

    def fetch(self, after: Any, limit: int, /) -> Pairs:
        return self._fetch(after, limit)

    def __repr__(self) -> str:
        return f"KeysetSource({getattr(self._fetch, '__qualname__', self._fetch)!r})"


class IterableSource:
    """A section from a callable returning an iterable of :class:`UrlEntry` (called anew for each read).

    Keys are positions (0, 1, ...): page ``n`` skips the entries before it, so keep these sections small."""

    __slots__ = ("_make",)

    def __init__(self, make: Callable[[], Iterable[UrlEntry]]) -> None:
        self._make = make

    def fetch(self, after: Any, limit: int, /) -> Pairs:
        start = 0 if after is None else int(after) + 1
        return zip(itertools.count(start), itertools.islice(iter(self._make()), start, start + limit),
                   strict=False)

    def keys(self, after: Any, limit: int, /) -> Iterable[Any]:
        return (key for key, _entry in self.fetch(after, limit))


def _attr(sitemap: Any, name: str, item: Any) -> Any:
    """A Django Sitemap attribute that may be a value or a method taking the item (Django's ``_get``)."""
    value = getattr(sitemap, name, None)
    if callable(value):
        return value(item)
    return value


class DjangoSitemapSource:
    """A ``django.contrib.sitemaps.Sitemap`` (class or instance) as a section, so a Django site switches in one
    line: ``sections={"blog": BlogSitemap}`` (the service wraps it) or ``DjangoSitemapSource(BlogSitemap)``.

    ``items()`` returning a QuerySet is read in primary-key order by ranges (``pk > after``, sliced to the
    page size, iterated in chunks: memory stays flat); any other sequence by position. ``location``,
    ``lastmod``, ``changefreq`` and ``priority`` are used as Django uses them (value or method of the item);
    locations are joined to ``base_url`` (the service passes its own). Django's ``i18n``/``alternates``
    options are not translated (give :class:`~sitemapkit.core.Alternate` entries through a KeysetSource)."""

    __slots__ = ("_base", "_sitemap")

    def __init__(self, sitemap: Any, base_url: str | None = None) -> None:
        self._sitemap = sitemap() if isinstance(sitemap, type) else sitemap
        if not callable(getattr(self._sitemap, "items", None)):
            raise ConfigurationError(f"{sitemap!r} is not a Django Sitemap (it has no items() method)")
        self._base = base_url

    def bind(self, base_url: str) -> DjangoSitemapSource:
        """The same sitemap with ``base_url`` for relative locations (unless one was given)."""
        return self if self._base is not None else DjangoSitemapSource(self._sitemap, base_url)

    def _entry(self, item: Any) -> UrlEntry:
        sm = self._sitemap
        loc_attr = getattr(sm, "location", None)
        loc = _attr(sm, "location", item) if loc_attr is not None else item.get_absolute_url()
        loc = str(loc)
        if not urlsplit(loc).scheme and self._base is not None:
            origin = urlsplit(self._base)
            protocol = getattr(sm, "protocol", None) or origin.scheme
            loc = urljoin(f"{protocol}://{origin.netloc}/", loc)
        return UrlEntry(loc, lastmod=_attr(sm, "lastmod", item), changefreq=_attr(sm, "changefreq", item),
                        priority=_attr(sm, "priority", item))

    def fetch(self, after: Any, limit: int, /) -> Pairs:
        items = self._sitemap.items()
        if _is_queryset(items):
            qs = items.order_by("pk")
            if after is not None:
                qs = qs.filter(pk__gt=after)
            return ((obj.pk, self._entry(obj)) for obj in qs[:limit].iterator(chunk_size=2000))
        start = 0 if after is None else int(after) + 1
        return ((i, self._entry(obj)) for i, obj in
                zip(itertools.count(start), itertools.islice(iter(items), start, start + limit), strict=False))

    def keys(self, after: Any, limit: int, /) -> Iterable[Any]:
        """Primary keys only (``values_list``) for a QuerySet; positions otherwise."""
        items = self._sitemap.items()
        if _is_queryset(items):
            qs = items.order_by("pk")
            if after is not None:
                qs = qs.filter(pk__gt=after)
            return list(qs.values_list("pk", flat=True)[:limit])
        start = 0 if after is None else int(after) + 1
        return range(start, start + sum(1 for _ in itertools.islice(iter(items), start, start + limit)))


def _is_queryset(items: Any) -> bool:
    return hasattr(items, "model") and hasattr(items, "order_by") and hasattr(items, "filter")


def _is_django_sitemap(obj: Any) -> bool:
    cls = obj if isinstance(obj, type) else type(obj)
    return any(c.__module__.startswith("django.contrib.sitemaps") and c.__name__ == "Sitemap" for c in cls.__mro__)


def as_source(name: str, section: Any, base_url: str) -> Source:
    """The :class:`Source` for a section value given to the service."""
    if _is_django_sitemap(section):
        return DjangoSitemapSource(section, base_url)
    if isinstance(section, DjangoSitemapSource):
        return section.bind(base_url)
    if isinstance(section, Source):
        return section
    if callable(section):
        return IterableSource(section)
    raise ConfigurationError(f"section {name!r}: expected a KeysetSource, a Django Sitemap or a callable "
                             f"returning UrlEntry objects, got {type(section).__name__}")


def source_keys(source: Source, after: Any, limit: int) -> list[Any]:
    """Up to ``limit`` keys after ``after``: the source's ``keys`` hook, else the keys of ``fetch``."""
    keys = getattr(source, "keys", None)
    if keys is not None:
        return list(itertools.islice(iter(keys(after, limit)), limit))
    return [key for key, _entry in itertools.islice(iter_pairs(source, after, limit), limit)]


def nth_key_hook(source: Source) -> NthKeyFn | None:
    """The source's ``nth_key(after, n)`` hook, if it has one."""
    nth = getattr(source, "nth_key", None)
    return nth if callable(nth) else None


def stats_hook(source: Source) -> StatsFn | None:
    """The source's ``stats(after, last)`` hook, if it has one."""
    stats = getattr(source, "stats", None)
    return stats if callable(stats) else None


def iter_pairs(source: Source, after: Any, limit: int) -> Iterator[tuple[Any, UrlEntry]]:
    """``source.fetch`` as an iterator, checked: entries are UrlEntry objects."""
    for pair in source.fetch(after, limit):
        if not (isinstance(pair, tuple) and len(pair) == 2 and isinstance(pair[1], UrlEntry)):
            raise ConfigurationError(f"fetch must yield (key, UrlEntry) pairs, got {pair!r:.80}")
        yield pair
