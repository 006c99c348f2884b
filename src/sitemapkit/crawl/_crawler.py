"""The crawler: an async, polite, resumable site crawl whose results decide what goes into the sitemap.

Data flow::

    frontier (SQLite, breadth-first)  ->  N workers  ->  robots.txt check, politeness gate (Crawl-delay / --delay)
        ->  HttpClient.get (redirects, retries, Retry-After, per-host limit, byte budget)
        ->  HTML? read_page (selectolax, links normalised; in a child process past 1,000 pages: ``_extract``)
        ->  links scope/trap filtered, queued with referrers
        ->  indexability decision (status, noindex meta/header, canonical, robots) and lastmod  ->  SQLite

What goes into the sitemap (``in_sitemap``): status 200 HTML, not noindex (meta robots / googlebot, or the
X-Robots-Tag header), a canonical that is absent or points to the page itself, not disallowed by robots.txt.
A redirect is followed and its final target is the page that counts (the redirecting URL is excluded with the
reason ``redirect``). A page whose canonical points elsewhere is excluded (``canonical``) and the canonical is
queued.

lastmod moves only when the page's main content does (``_fingerprint.honest_lastmod``, where the rules are):
an unchanged content fingerprint keeps the previous crawl's lastmod; one crawl uses one timestamp, so a resumed
crawl gives the same result.

Trap protection: a URL longer than ``max_url_length``, deeper than ``max_depth``, with a path segment repeated
more than ``max_repeated_segments`` times (``/a/b/a/b/a/b``), or beyond the ``max_query_variants``-th query
variant of one path (an endless calendar) is not queued (reason ``trap``).

Everything is in the :class:`~sitemapkit.crawl._state.CrawlState`; memory holds only the workers' pages and a
bounded LRU of URL ids. Stopping (``stop`` event, e.g. Ctrl-C) cancels the in-flight fetches; their URLs go back
to the queue on resume.
"""


from __future__ import annotations

import asyncio
import itertools
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urljoin

from sitemapkit.core import (
    MAX_IMAGES_PER_URL,
    ConfigurationError,
    FetchError,
    LastMod,
    TooManyRedirectsError,
    bare_host_url,
    is_absolute_http_url,
    redact_credentials,
    url_argument_problem,
)
from sitemapkit.crawl import _extract
from sitemapkit.crawl._codes import SM701
from sitemapkit.crawl._decide import (
    Reason,
    UrlRules,
    is_html,
    judge_page,
    looks_non_html,
    parse_http_date,
)
from sitemapkit.crawl._extract import ExtractorProcess, PageLinks, read_page
from sitemapkit.crawl._fingerprint import honest_lastmod
from sitemapkit.crawl._frontier import UrlIds
from sitemapkit.crawl._hosts import HostTable
from sitemapkit.crawl._html import RobotsDirectives, parse_x_robots_tag
from sitemapkit.crawl._images import is_image, record_images, record_title
from sitemapkit.crawl._normalize import UrlNormalizer
from sitemapkit.crawl._options import CrawlOptions, CrawlProgress, CrawlSummary, Scope
from sitemapkit.crawl._state import IN_FLIGHT, QUEUED, SKIPPED, CrawlState, QueuedUrl
from sitemapkit.fetch import (
    AddressPolicy,
    HttpClient,
    HttpResponse,
    ResponseTooLargeError,
    RetryPolicy,
    Timeouts,
    TransportError,
    TransportRequest,
)

__all__ = [
    "SM701",
    "CrawlOptions",
    "CrawlProgress",
    "CrawlSummary",
    "Crawler",
    "Reason",
    "Scope",
    "check_start_url",
]

#: At most one commit per this many seconds, and how many waiting workers make the commit at once (see
#: ``Crawler._committed``).
COMMIT_INTERVAL = 0.01
COMMIT_BATCH = 16

#: The name the tests of the date rules know (see :func:`sitemapkit.crawl._decide.parse_http_date`).
_parse_http_date = parse_http_date


@dataclass
class _Counters:
    fetched: int = 0
    errors: int = 0
    in_sitemap: int = 0
    started: float = field(default_factory=time.monotonic)


def check_start_url(url: str, options: CrawlOptions | None = None) -> str:
    """The normalised start URL of a crawl, or :class:`ConfigurationError` saying why ``url`` cannot be one.
    Touches nothing: callers validate before they create the output folder or the state file. A bare host
    (``example.com``) is taken as its https URL; front ends find the scheme it answers on first
    (:func:`sitemapkit.fetch.resolve_site_url`)."""
    url = bare_host_url(url) or url
    problem = url_argument_problem(url.strip())  # a bad port, credentials (never echoed), a control character
    if problem is not None and is_absolute_http_url(url.strip()):
        raise ConfigurationError(problem)
    start = UrlNormalizer((options or CrawlOptions()).strip_params).normalize(url)
    if start is None:
        raise ConfigurationError(f"not a crawlable http(s) URL: {redact_credentials(url)!r}")
    return start


class Crawler:
    """Crawl ``start_url`` into ``state``. ``client`` may be given (tests inject transports); otherwise one is
    built from the options. Call :meth:`run` once.

    Example: ``with CrawlState("crawl.sqlite") as state: summary = asyncio.run(Crawler("https://example.com/",
    state).run())``, then :func:`sitemapkit.crawl.sitemap_entries` (state) feeds :func:`write_sitemaps`;
    ``sitemapkit.crawl_site(url, out_dir)`` does all of it.
    """

    def __init__(self, start_url: str, state: CrawlState, options: CrawlOptions | None = None, *,
                 client: HttpClient | None = None, now: Callable[[], datetime] | None = None) -> None:
        self.options = options or CrawlOptions()
        self.normalizer = UrlNormalizer(self.options.strip_params)
        self.start_url = check_start_url(start_url, self.options)
        self.state = state
        self._own_client = client is None
        o = self.options
        self.client = client or HttpClient(
            user_agent=o.user_agent,
            timeouts=Timeouts(connect=o.connect_timeout, read=o.read_timeout, total=None),
            retry=RetryPolicy(max_retries=o.retries),
            max_redirects=o.max_redirects,
            max_bytes=o.max_page_bytes,
            per_host_limit=o.concurrency,
            max_connections=max(o.concurrency * 2, 16),
            address_policy=AddressPolicy.for_seeds([self.start_url], allow_private=o.allow_private_addresses),
        )
        self._now = now or (lambda: datetime.now(UTC))
        self.rules = UrlRules(o, self.start_url, state.bump_query_variants)
        self._hosts = HostTable(self.client, o)
        self._urls = UrlIds(state, self._classify)
        self._buffer: deque[QueuedUrl] = deque()
        self._active = 0
        self._claimed = 0
        self._wake = asyncio.Condition()
        self._stop = False
        self._counters = _Counters()
        self._crawl_time = ""
        self._commit_pending: asyncio.Future[None] | None = None
        self._commit_timer: asyncio.Handle | None = None
        self._commit_waiting = 0
        self._last_commit = 0.0  # the event loop's time of the last commit
        self._extractor: ExtractorProcess | None = None  # started past EXTRACT_PROCESS_AFTER pages (``_read``)

    # -- scope (the rules live in ``_decide``) ----------------------------------------------------------------
    def in_scope(self, url: str) -> bool:
        return self.rules.in_scope(url)

    def _classify(self, url: str, depth: int) -> tuple[Reason, str] | None:
        """Why a newly met URL is not queued, or None to queue it."""
        return self.rules.classify(url, depth)

    # -- frontier (the URLs met: ``_frontier.UrlIds``) ---------------------------------------------------------
    def _discover(self, url: str, depth: int) -> int:
        return self._urls.discover(url, depth)

    async def _next(self) -> QueuedUrl | None:
        max_pages = self.options.max_pages
        async with self._wake:
            while True:
                if self._stop:
                    return None
                if not self._buffer:
                    room = 4 * self.options.concurrency
                    if max_pages is not None:
                        room = min(room, max_pages - self._claimed)
                    if room > 0:
                        self._buffer.extend(self.state.claim(room))
                        self._claimed += len(self._buffer)
                if self._buffer:
                    self._active += 1
                    return self._buffer.popleft()
                if self._active == 0:
                    return None
                await self._wake.wait()

    async def _done(self) -> None:
        async with self._wake:
            self._active -= 1
            self._wake.notify_all()

    # -- fetching ------------------------------------------------------------------------------------------------
    async def _head(self, url: str) -> HttpResponse:
        """Check a non-HTML resource: HEAD (following redirects), falling back to a small GET when refused."""
        headers = dict(self.client.default_headers)
        current = url
        redirects: list[tuple[str, int]] = []
        started = time.monotonic()
        for _ in range(self.options.max_redirects + 1):
            request = TransportRequest("HEAD", current, headers, self.client.timeouts)
            try:
                resp = await self.client.transport.send(request)
                status, resp_headers = resp.status, dict(resp.headers)
                await resp.aclose()
            except TransportError:
                break  # let the GET path (with its retries) decide
            if status in (405, 501) or status in self.client.retry.statuses:
                break
            location = resp_headers.get("location")
            if 300 <= status < 400 and location:
                redirects.append((current, status))
                target = urljoin(current, location.strip())
                if any(target == u for u, _ in redirects):
                    raise TooManyRedirectsError(f"redirect loop: {current} -> {target}", url=url)
                current = target
                continue
            return HttpResponse(url=url, final_url=current, status=status, headers=resp_headers, body=b"",
                                redirects=tuple(redirects), elapsed=time.monotonic() - started)
        # A check needs the status, not the body: keep at most ``check_bytes`` and read the real status.
        return await self.client.get(url, max_bytes=self.options.check_bytes, truncate=True)

    async def _fetch(self, url: str, url_id: int) -> HttpResponse:
        if looks_non_html(url) or (self.options.images and is_image(self.state, url_id)):
            return await self._head(url)
        return await self.client.get(url, max_bytes=self.options.max_page_bytes)

    # -- processing ----------------------------------------------------------------------------------------------
    async def _process(self, item: QueuedUrl) -> None:
        rules = await self._hosts.rules(item.url)
        verdict = self._hosts.verdict(rules, item.url)
        if verdict is not None:
            if item.depth == 0 and rules.fetch_error is not None:
                # The start URL's host cannot be reached: that is the page's error, not a robots exclusion.
                self._error(item.id, rules.fetch_error.reason)
                return
            self.state.record(item.id, status=None, reason=Reason.ROBOTS.value, detail=verdict, state=SKIPPED)
            return
        await self._hosts.polite(rules)
        try:
            resp = await self._fetch(item.url, item.id)
        except (TooManyRedirectsError, ResponseTooLargeError, FetchError) as exc:
            self._error(item.id, exc.reason)
            return
        self._counters.fetched += 1
        page: PageLinks | None = None
        if resp.status == 200 and is_html(resp.headers.get("content-type", ""), resp.body):
            page = await self._read(resp)  # before any write: a commit never splits the page's writes
        self._after_fetch(item, resp, page)

    async def _read(self, resp: HttpResponse) -> PageLinks:
        """The page read in the extractor process when it runs (see ``_extract``), else here."""
        extractor, after = self._extractor, _extract.EXTRACT_PROCESS_AFTER
        if extractor is None and after is not None and self._counters.fetched >= after:
            extractor = self._extractor = ExtractorProcess(self.options.strip_params, self.options.images,
                                                           normalizer=self.normalizer)
            extractor.start()
        if extractor is not None and after == 0:
            await extractor.wait_ready()
        if extractor is None:
            return read_page(resp.body, resp.final_url, self.normalizer, self.options.images)
        return await extractor.read(resp.body, resp.final_url)  # (read here, at once, until the child answers)

    def _error(self, url_id: int, message: str) -> None:
        self._counters.fetched += 1
        self._counters.errors += 1
        self.state.record(url_id, status=None, error=message, reason=Reason.ERROR.value, detail=message)

    def _after_fetch(self, item: QueuedUrl, resp: HttpResponse, page: PageLinks | None) -> None:
        target_id, target_url, depth = item.id, item.url, item.depth
        if resp.redirects:
            final = self.normalizer.normalize(resp.final_url)
            if final is not None and final != item.url:
                if item.depth == 0 and not self.in_scope(final):
                    # The start URL moved (http -> https, apex -> www): the site is where it landed.
                    self.rules.set_scope(final)
                    self.state.set_meta("scope_url", final)
                self.state.record(item.id, status=resp.status, final_url=final, redirects=resp.redirects,
                                  reason=Reason.REDIRECT.value, detail=f"redirects to {final}")
                final_id = self._urls.cached(final) or self.state.lookup(final)
                full = self.options.max_pages is not None and self._claimed >= self.options.max_pages  # counts too
                if final_id is None:
                    verdict = self._classify(final, depth)
                    if verdict is not None:
                        self.state.add_url(final, depth, state=SKIPPED, reason=verdict[0].value,
                                           detail=verdict[1])
                        return
                    final_id = self.state.add_url(final, depth, state=QUEUED if full else IN_FLIGHT)
                    self._urls.remember(final, final_id)
                    if full:  # past --max-pages: queued for a resume
                        return
                elif full or not self.state.claim_one(final_id):
                    return  # already fetched (or being fetched) on its own, or no room left
                self._claimed += 1
                self.state.add_links(item.id, [final_id])
                target_id, target_url = final_id, final
        self._page(target_id, target_url, depth, resp, page)

    def _page(self, url_id: int, url: str, depth: int, resp: HttpResponse, page: PageLinks | None) -> None:
        status = resp.status
        ctype = resp.headers.get("content-type", "")
        if status != 200:
            if status >= 400:
                self._counters.errors += 1
            self.state.record(url_id, status=status, content_type=ctype or None, reason=Reason.ERROR.value,
                              detail=f"HTTP {status}")
            return
        if page is None:  # not HTML (a page with status 200 that is HTML was read)
            self.state.record(url_id, status=status, content_type=ctype or None, reason=Reason.NON_HTML.value,
                              detail=ctype or "no Content-Type")
            return
        header_robots = parse_x_robots_tag(resp.headers.get("x-robots-tag"))
        robots = RobotsDirectives(page.noindex, page.nofollow) | header_robots
        if not robots.nofollow:
            targets = [link for link in page.links if link != url]
            if targets:
                self.state.add_links(url_id, self._urls.discover_many(targets, depth + 1))
        shown = page.images  # checked like links (scope, robots, traps), at the page's depth: they belong to it
        if shown:
            ids = [self._discover(img, depth) for img in itertools.islice(shown, MAX_IMAGES_PER_URL) if img != url]
            record_images(self.state, url_id, ids)
            self.state.add_links(url_id, ids)
        for _, alt in page.alternates:
            if alt != url:
                self._discover(alt, depth + 1)
        reason, detail = judge_page(url, robots, header_robots, page.canonical)
        if reason is Reason.CANONICAL and page.canonical is not None:
            self._discover(page.canonical, depth + 1)
        lastmod = None
        images: list[str] = []
        if reason is None:
            self._counters.in_sitemap += 1
            if page.title:
                record_title(self.state, url_id, page.title)
            lastmod = honest_lastmod(page.fingerprint, self.state.previous_page(url),
                                     parse_http_date(resp.headers.get("last-modified")), self._crawl_time)
            if page.alternates:
                self.state.add_hreflang(url_id, page.alternates)
            images = list(itertools.islice(shown, MAX_IMAGES_PER_URL))
        self.state.record(url_id, status=status, content_type=ctype or None,
                          reason=reason.value if reason else None, detail=detail, in_sitemap=reason is None,
                          lastmod=lastmod, fingerprint=page.fingerprint, images=images)

    # -- the run -------------------------------------------------------------------------------------------------
    async def _worker(self) -> None:
        while True:
            item = await self._next()
            if item is None:
                return
            try:
                await self._process(item)
            finally:
                await self._done()
            await self._committed()

    async def _committed(self) -> None:
        """Wait until the results recorded so far are committed.

        A worker takes its next URL only once its last result is committed, so a kill (even -9) loses at most
        one page per worker: ``--resume`` fetches again only the pages that were in flight. Commits are at most
        one per :data:`COMMIT_INTERVAL`: a result recorded sooner after the last commit waits for the next one,
        which the workers finishing meanwhile share (at a thousand pages a second, ten pages a commit instead of
        two or three, each commit writing the B-tree pages they dirtied once). Only while at least
        :data:`COMMIT_BATCH` other workers are busy (they keep the loop working meanwhile); it is made at once when
        none is, or when :data:`COMMIT_BATCH` results wait. A crawl with few workers, or slower than one commit
        per interval, commits at the end of each turn of the event loop, as before. A page's writes happen
        without an await in between, so a commit never splits one; with WAL and ``synchronous=NORMAL`` a commit
        is a write to the WAL without fsync, which survives kill -9."""
        pending = self._commit_pending
        loop = asyncio.get_running_loop()
        if pending is None:
            pending = self._commit_pending = loop.create_future()
            self._commit_waiting = 0
            wait = self._last_commit + COMMIT_INTERVAL - loop.time()
            self._commit_timer = (loop.call_later(wait, self._commit_now) if wait > 0 and self._active >= COMMIT_BATCH
                                  else loop.call_soon(self._commit_now))
        self._commit_waiting += 1
        if (self._active == 0 or self._commit_waiting >= COMMIT_BATCH) and self._commit_timer is not None:
            self._commit_timer.cancel()
            self._commit_timer = loop.call_soon(self._commit_now)
        await asyncio.shield(pending)

    def _commit_now(self) -> None:
        pending, self._commit_pending = self._commit_pending, None
        if self._commit_timer is not None:
            self._commit_timer.cancel()
            self._commit_timer = None
        self._last_commit = asyncio.get_running_loop().time()
        try:
            self.state.commit()
            self.state.begin()
        except Exception as exc:  # e.g. disk full: every waiting worker fails with it
            if pending is not None and not pending.done():
                pending.set_exception(exc)
                return
            raise
        if pending is not None and not pending.done():
            pending.set_result(None)

    def progress(self) -> CrawlProgress:
        c = self._counters
        return CrawlProgress(fetched=c.fetched, queued=self.state.queued_tracked(), errors=c.errors,
                             in_sitemap=c.in_sitemap, elapsed=time.monotonic() - c.started)

    def stop(self) -> None:
        """Ask the crawl to stop soon (safe from a signal handler scheduled on the loop)."""
        self._stop = True

    async def run(self, *, resume: bool = False, on_progress: Callable[[CrawlProgress], None] | None = None,
                  progress_interval: float = 0.25) -> CrawlSummary:
        """Crawl until the frontier is empty, ``max_pages`` is reached or :meth:`stop` is called."""
        state = self.state
        if resume and state.has_crawl():
            previous = state.get_meta("start_url")
            if previous != self.start_url:
                raise ConfigurationError(
                    f"{state.path} holds a crawl of {previous}, not {self.start_url}; drop --resume or use "
                    "another --state file"
                )
            state.prepare_resume()
            self._crawl_time = state.get_meta("crawl_time") or ""
            scope_url = state.get_meta("scope_url")
            if scope_url:
                self.rules.set_scope(scope_url)
            self._claimed = state.fetched_count()
        else:
            self._crawl_time = LastMod.of(self._now().astimezone(UTC).replace(microsecond=0)).text
            state.start_new(self.start_url, self._crawl_time)
            state.add_url(self.start_url, 0)
        self._counters = _Counters()
        state.begin()
        ticker: asyncio.Task[None] | None = None
        if on_progress is not None:
            async def tick() -> None:
                while True:
                    await asyncio.sleep(progress_interval)
                    on_progress(self.progress())

            ticker = asyncio.create_task(tick())
        workers = [asyncio.create_task(self._worker()) for _ in range(self.options.concurrency)]
        stopped = False
        try:
            while True:
                done, _ = await asyncio.wait(workers, timeout=0.1, return_when=asyncio.ALL_COMPLETED)
                if len(done) == len(workers):
                    for w in workers:
                        w.result()  # surface a bug in a worker instead of hiding it
                    stopped = self._stop  # stop() also ends every worker: still a stop, not the crawl's end
                    break
                if self._stop:
                    stopped = True
                    for w in workers:
                        w.cancel()
                    await asyncio.gather(*workers, return_exceptions=True)
                    break
        except BaseException:
            for w in workers:
                w.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            state.commit()
            raise
        finally:
            if ticker is not None:
                ticker.cancel()
                await asyncio.gather(ticker, return_exceptions=True)
            if self._extractor is not None:
                await self._extractor.aclose()
                self._extractor = None
            if self._own_client:
                await self.client.aclose()
        complete = not stopped and state.queued_count() == 0
        if self._buffer:
            state.unclaim([q.id for q in self._buffer])
            self._buffer.clear()
        if complete:
            state.set_meta("status", "finished")
        state.commit()
        if on_progress is not None:
            on_progress(self.progress())
        c = self._counters
        return CrawlSummary(start_url=self.start_url, fetched_this_run=c.fetched, stopped=stopped,
                            complete=complete, elapsed=time.monotonic() - c.started, crawl_time=self._crawl_time)
