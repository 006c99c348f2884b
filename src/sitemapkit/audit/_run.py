"""The audit job: sitemaps read, site crawled, every sitemap URL checked live, findings stored.

::

    read_sitemaps (discover or --sitemap; every URL with file and line)  ->  static findings
    Crawler (sitemapkit.crawl) into a CrawlState  ->  link graph and the crawl's indexable pages
    live checks (robots.txt first; one GET per URL, or per sampled URL)  ->  live findings
    hreflang targets (checked with one GET when not checked yet)  ->  reciprocity and broken targets
    orphans (indexable sitemap URLs no crawled page links to), pages missing from every sitemap

The crawl's own fetch does not keep headers (``Link``, ``Last-Modified``) nor the body, so every sitemap URL
gets its own request, whether the crawl reached it or not.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit

from sitemapkit.audit._findings import CATEGORIES, LIVE_CATEGORIES, AuditOptions, Finding, wilson_interval
from sitemapkit.audit._inventory import SitemapInfo, read_sitemaps, static_findings
from sitemapkit.audit._live import LiveResult, check_url
from sitemapkit.audit._store import AuditStore, Listing, PageRecord
from sitemapkit.core import ConfigurationError, FetchError
from sitemapkit.crawl import Crawler, CrawlState, UrlNormalizer
from sitemapkit.fetch import AddressPolicy, FetchSettings, HttpClient, RetryPolicy, RobotsTxt, Timeouts, fetch_robots

__all__ = ["AuditResult", "audit"]

T = TypeVar("T")


@dataclass
class AuditResult:
    """An audit's outcome; ``store`` holds the findings (closed by :meth:`close`)."""

    site: str
    sitemaps: list[SitemapInfo]
    sitemap_urls: int
    crawled: int
    checked: int
    store: AuditStore
    sample: int | None = None
    crawl_complete: bool = True
    notes: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, int]:
        counts = self.store.counts()
        return {c: counts.get(c, 0) for c in CATEGORIES}

    def rates(self) -> dict[str, dict[str, float]]:
        """With ``--sample``: each live category's share of the sampled URLs with its 95% Wilson interval."""
        if self.sample is None:
            return {}
        out: dict[str, dict[str, float]] = {}
        for category in CATEGORIES:
            if category in LIVE_CATEGORIES:
                hits = self.store.distinct_urls_with(category)
                low, high = wilson_interval(hits, self.checked)
                out[category] = {"rate": hits / self.checked if self.checked else 0.0, "low": low, "high": high}
        return out

    def findings(self, category: str | None = None, limit: int | None = None) -> list[Finding]:
        return list(self.store.findings(category, limit))

    def close(self) -> None:
        self.store.close()


class _Checker:
    """Live checks with robots.txt obeyed and a per-host politeness gap (``--delay`` or ``Crawl-delay``)."""

    def __init__(self, client: HttpClient, options: AuditOptions, normalizer: UrlNormalizer) -> None:
        self.client, self.options, self.normalizer = client, options, normalizer
        self._robots: dict[str, asyncio.Task[tuple[RobotsTxt, int | None]]] = {}
        self._gates: dict[str, asyncio.Lock] = {}
        self._last: dict[str, float] = {}
        self._slots = asyncio.Semaphore(options.crawl.concurrency)

    async def robots(self, url: str) -> RobotsTxt:
        p = urlsplit(url)
        origin = f"{p.scheme}://{p.netloc}"
        task = self._robots.get(origin)
        if task is None:
            task = self._robots[origin] = asyncio.ensure_future(fetch_robots(self.client, origin + "/"))
        return (await task)[0]

    async def check(self, url: str, lastmod: str | None) -> LiveResult:
        o = self.options.crawl
        robots = await self.robots(url)
        if o.respect_robots and not robots.can_fetch(url, o.user_agent):
            return LiveResult(url, None, (("blocked_by_robots", f"{robots.url} disallows it for "
                                                                 f"{o.user_agent!r}"),), False,
                              summary="blocked by robots.txt", fetched=False)
        delay = max(o.delay, (robots.crawl_delay(o.user_agent) or 0.0) if o.respect_robots else 0.0)
        async with self._slots:
            if delay > 0:
                host = urlsplit(url).netloc
                gate = self._gates.setdefault(host, asyncio.Lock())
                async with gate:
                    wait = self._last.get(host, 0.0) + delay - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    self._last[host] = time.monotonic()
            return await check_url(self.client, url, lastmod=lastmod, normalizer=self.normalizer,
                                   max_bytes=o.max_page_bytes,
                                   slack=timedelta(hours=self.options.lastmod_slack_hours))


def _record(store: AuditStore, result: LiveResult, listing: Listing | None) -> None:
    store.put_page(PageRecord(result.url, result.status, result.ok, result.indexable, result.summary),
                   result.alternates, target=listing is not None)
    if listing is not None:
        for category, evidence in result.findings:
            store.add(Finding(listing.url, category, listing.sitemap, listing.line, evidence))


def _eligible(store: AuditStore) -> Iterator[Listing]:
    """The sitemap URLs checked live: each once (its first listing), not those on another host."""
    return (t for t in store.first_listings() if not _other_host(t))


def _targets(store: AuditStore, sample: int | None, seed: int | None) -> tuple[int, Iterator[Listing]]:
    """How many URLs are checked live, and them (streamed: only the sample's indexes are held)."""
    if sample is None:
        return sum(1 for _ in _eligible(store)), _eligible(store)
    total = sum(1 for _ in _eligible(store))
    if sample >= total:
        return total, _eligible(store)
    picked = set(random.Random(seed).sample(range(total), sample))
    return sample, (t for i, t in enumerate(_eligible(store)) if i in picked)


async def _pool(items: Iterator[T], work: Callable[[T], Awaitable[None]], workers: int) -> None:
    """Run ``work`` on every item with at most ``workers`` at a time, pulling items lazily (flat memory)."""
    async def worker() -> None:
        for item in items:  # one shared iterator: each item goes to one worker
            await work(item)

    await asyncio.gather(*(worker() for _ in range(workers)))


async def _live(store: AuditStore, checker: _Checker, count: int, targets: Iterator[Listing],
                progress: Callable[[str], None]) -> None:
    done = 0

    async def one(item: Listing) -> None:
        nonlocal done
        _record(store, await checker.check(item.url, item.lastmod), item)
        done += 1
        if done % 100 == 0 or done == count:
            progress(f"checked {done:,} of {count:,} sitemap URLs")

    await _pool(targets, one, checker.options.crawl.concurrency)


async def _hreflang(store: AuditStore, checker: _Checker, normalizer: UrlNormalizer) -> None:
    """``hreflang_target_broken`` and ``hreflang_not_reciprocal`` for every checked page with alternates."""
    pages = store.pages_with_alternates()
    targets = {href for page in pages for _, href in store.alternates_of(page)}
    missing = [t for t in sorted(targets) if store.page(t) is None]

    async def one(url: str) -> None:
        _record(store, await checker.check(url, None), None)

    await _pool(iter(missing), one, checker.options.crawl.concurrency)
    for page in pages:
        listing = store.first_listing(page)
        if listing is None:
            continue
        here = normalizer.normalize(page) or page
        for lang, href in store.alternates_of(page):
            if href == here:
                continue
            target = store.page(href)
            if target is None:
                continue
            if not target.ok or not target.indexable:
                store.add(Finding(page, "hreflang_target_broken", listing.sitemap, listing.line,
                                  f'hreflang="{lang}" -> {href}: {target.summary}'))
            elif not any(back == here for _, back in store.alternates_of(href)):
                store.add(Finding(page, "hreflang_not_reciprocal", listing.sitemap, listing.line,
                                  f'hreflang="{lang}" -> {href}, which does not link back'))


def _graph_findings(store: AuditStore, state: CrawlState, start_url: str, complete: bool,
                    normalizer: UrlNormalizer) -> None:
    """Orphans (indexable sitemap URLs no crawled page links to) and crawled pages no sitemap lists."""
    fetched = state.count("state = 2")
    note = "" if complete else " (the crawl stopped early: a page not crawled may link to it)"
    for url in store.indexable_pages():
        listing = store.first_listing(url)
        if listing is None:
            continue
        norm = normalizer.normalize(url) or url
        if norm == start_url:
            continue
        url_id = state.lookup(norm)
        if url_id is None or state.referrer_count(url_id) == 0:
            store.add(Finding(url, "orphan", listing.sitemap, listing.line,
                              f"no link to it on the {fetched:,} crawled pages{note}"))
    for _, url, _, _ in state.sitemap_pages():
        if not store.is_listed_norm(url):
            url_id = state.lookup(url)
            refs = state.referrers(url_id, 3) if url_id is not None else []
            linked = f"linked from {', '.join(refs)}" if refs else "the crawl's start page"
            store.add(Finding(url, "missing_from_sitemap", None, None,
                              f"indexable page found by the crawl (200, HTML, no noindex, no canonical elsewhere), "
                              f"{linked}"))


def _fetch_settings(options: AuditOptions) -> FetchSettings:
    c = options.crawl
    settings = FetchSettings(user_agent=c.user_agent, retries=c.retries, concurrency=c.concurrency,
                             allow_private_addresses=options.allow_private_addresses or c.allow_private_addresses)
    if options.max_sitemap_bytes:
        settings = dataclasses.replace(settings, max_bytes=options.max_sitemap_bytes)
    return settings


def audit(site: str, options: AuditOptions | None = None, *, state_path: str | Path | None = None,
          progress: Callable[[str], None] | None = None) -> AuditResult:
    """Audit ``site``'s sitemaps against the live site (see the module docstring).

    Example: ``result = audit("https://example.com/")``; ``result.summary()``, ``result.findings("orphan")``;
    :func:`sitemapkit.audit.write_reports` writes audit.json, audit.csv and audit.html. Raises
    :class:`~sitemapkit.FetchError` naming the cause when the site cannot be reached at all."""
    o = options or AuditOptions()
    say = progress or (lambda _msg: None)
    normalizer = UrlNormalizer(o.crawl.strip_params)
    start = normalizer.normalize(site)
    if start is None:
        raise ConfigurationError(f"not an http(s) site URL: {site!r}")
    store = AuditStore(state_path)
    try:
        say("reading sitemaps")
        inv = read_sitemaps(list(o.sitemaps) or [site], store, _fetch_settings(o), normalizer,
                            on_sitemap=lambda s: say(f"read {s.url}: {s.urls:,} URLs"))
        if inv.unreachable is not None and not inv.sitemaps:  # nothing to audit, nothing to crawl: say why
            raise FetchError(f"the site cannot be reached: {inv.unreachable}", url=start)
        static_findings(store, uniform_min=o.uniform_min, uniform_share=o.uniform_share,
                        slack=timedelta(hours=o.lastmod_slack_hours))
        count, targets = _targets(store, o.sample, o.seed)
        result = AuditResult(site, inv.sitemaps, store.url_count(), 0, count, store, o.sample)
        result.notes.extend(inv.problems)
        asyncio.run(_network(result, o, start, normalizer, targets, say))
        store.db.commit()
        return result
    except BaseException:
        store.close()
        raise


def _other_host(item: Listing) -> bool:
    """A URL on another host than its sitemap: reported out of scope and not requested (not the site's)."""
    if "://" not in item.sitemap:
        return False
    return urlsplit(item.url).netloc.lower() != urlsplit(item.sitemap).netloc.lower()


async def _network(result: AuditResult, o: AuditOptions, start: str, normalizer: UrlNormalizer,
                   targets: Iterator[Listing], say: Callable[[str], None]) -> None:
    c = o.crawl
    client = HttpClient(
        user_agent=c.user_agent, timeouts=Timeouts(connect=c.connect_timeout, read=c.read_timeout, total=None),
        retry=RetryPolicy(max_retries=c.retries), max_redirects=c.max_redirects, max_bytes=c.max_page_bytes,
        per_host_limit=c.concurrency, max_connections=max(c.concurrency * 2, 16),
        address_policy=AddressPolicy.for_seeds([start], allow_private=c.allow_private_addresses
                                               or o.allow_private_addresses),
    )
    async with client:
        checker = _Checker(client, o, normalizer)
        say(f"checking {result.checked:,} sitemap URLs live")
        await _live(result.store, checker, result.checked, targets, say)
        await _hreflang(result.store, checker, normalizer)
    if not o.crawl_site:
        return
    with tempfile.TemporaryDirectory(prefix="sitemapkit-audit-") as tmp, \
            CrawlState(Path(tmp) / "crawl.sqlite") as state:
        crawler = Crawler(start, state, c)
        say(f"crawling {crawler.start_url}")
        summary = await crawler.run(on_progress=None)
        result.crawled = state.count("state = 2")
        result.crawl_complete = summary.complete
        say(f"crawled {result.crawled:,} pages")
        _graph_findings(result.store, state, crawler.start_url, summary.complete, normalizer)
