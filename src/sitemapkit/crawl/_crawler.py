"""The crawler: an async, polite, resumable site crawl whose results decide what goes into the sitemap.

Data flow::

    frontier (SQLite, breadth-first)  ->  N workers  ->  robots.txt check, politeness gate (Crawl-delay / --delay)
        ->  HttpClient.get (redirects, retries, Retry-After, per-host limit, byte budget)
        ->  HTML? extract_page (selectolax)  ->  links normalised, scope/trap filtered, queued with referrers
        ->  indexability decision (status, noindex meta/header, canonical, robots) and lastmod  ->  SQLite

What goes into the sitemap (``in_sitemap``): status 200 HTML, not noindex (meta robots / googlebot, or the
X-Robots-Tag header), a canonical that is absent or points to the page itself, not disallowed by robots.txt.
A redirect is followed and its final target is the page that counts (the redirecting URL is excluded with the
reason ``redirect``). A page whose canonical points elsewhere is excluded (``canonical``) and the canonical is
queued.

lastmod, in this order: the ``Last-Modified`` header when the server sends one; else, when the page's content
fingerprint (visible text + links, see ``_html``) equals the one the previous crawl with the same state file
recorded, that crawl's lastmod; else (the page is new or its content changed) the crawl's start time, the best
upper bound there is. One crawl uses one timestamp, so a resumed crawl gives the same result.

Trap protection: a URL longer than ``max_url_length``, deeper than ``max_depth``, with a path segment repeated
more than ``max_repeated_segments`` times (``/a/b/a/b/a/b``), or beyond the ``max_query_variants``-th query
variant of one path (an endless calendar) is not queued (reason ``trap``).

Everything is in the :class:`~sitemapkit.crawl._state.CrawlState`; memory holds only the workers' pages and a
bounded LRU of URL ids. Stopping (``stop`` event, e.g. Ctrl-C) cancels the in-flight fetches; their URLs go back
to the queue on resume.
"""

from __future__ import annotations

import asyncio
import email.utils
import enum
import re
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import urljoin, urlsplit

from sitemapkit.core._errors import ConfigurationError, FetchError, InvalidValueError, TooManyRedirectsError
from sitemapkit.core._lastmod import LastMod
from sitemapkit.core._limits import MAX_IMAGES_PER_URL, MAX_LOC_LENGTH
from sitemapkit.core._model import Alternate, Image, UrlEntry
from sitemapkit.core._problems import Severity, define_code
from sitemapkit.crawl._html import extract_page, parse_x_robots_tag
from sitemapkit.crawl._normalize import DEFAULT_STRIP_PARAMS, UrlNormalizer
from sitemapkit.crawl._state import IN_FLIGHT, SKIPPED, CrawlState, QueuedUrl
from sitemapkit.fetch._addresses import AddressPolicy
from sitemapkit.fetch._http import (
    DEFAULT_USER_AGENT,
    HttpClient,
    HttpResponse,
    ResponseTooLargeError,
    RetryPolicy,
    Timeouts,
    TransportError,
    TransportRequest,
)
from sitemapkit.fetch._robots import RobotsTxt

__all__ = [
    "SM701",
    "CrawlOptions",
    "CrawlProgress",
    "CrawlSummary",
    "Crawler",
    "Reason",
    "Scope",
    "check_start_url",
    "sitemap_entries",
]


SM701 = define_code("SM701", Severity.WARNING, "crawled page could not be written to the sitemap",
                     "The page's URL (or an image URL on it) breaks the protocol, e.g. longer than 2,048 characters "
                     "once encoded; shorten it or exclude it with --exclude.", area="crawl")


class Scope(enum.Enum):
    """Which URLs belong to the site: ``host`` (same scheme, host and port as the start URL), ``domain`` (the
    start host without a leading ``www.`` and all its subdomains, either scheme), ``prefix`` (URLs under the start
    URL's directory)."""

    HOST = "host"
    DOMAIN = "domain"
    PREFIX = "prefix"


class Reason(enum.StrEnum):
    """Why a URL is not in the sitemap (the report's ``excluded[].reason``)."""

    NOINDEX = "noindex"
    CANONICAL = "canonical"
    ROBOTS = "robots"
    NON_HTML = "non-HTML"
    SCOPE = "scope"
    TRAP = "trap"
    ERROR = "error"
    REDIRECT = "redirect"


# Extensions that are almost never HTML: checked with HEAD (falling back to a small GET), not downloaded.
_NON_HTML_EXT = frozenset({
    "pdf", "zip", "gz", "tgz", "bz2", "xz", "7z", "rar", "tar", "jpg", "jpeg", "png", "gif", "webp", "avif", "svg",
    "ico", "bmp", "tif", "tiff", "mp3", "mp4", "m4a", "m4v", "mov", "avi", "webm", "ogg", "ogv", "wav", "flac",
    "mkv", "woff", "woff2", "ttf", "otf", "eot", "css", "js", "json", "xml", "txt", "csv", "doc", "docx", "xls",
    "xlsx", "ppt", "pptx", "odt", "ods", "dmg", "exe", "msi", "apk", "iso", "bin",
})
_HTML_SNIFF = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)[\s>]", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True, slots=True)
class CrawlOptions:
    """How to crawl. Every limit is overridable; the defaults suit a typical site.

    ``concurrency``: simultaneous requests (per host, and workers overall). ``delay``: seconds between two
    requests to one host (robots.txt ``Crawl-delay`` wins when larger, unless robots are ignored).
    ``include`` / ``exclude``: regular expressions searched in the full URL (the start URL is always crawled).
    ``max_pages``: stop after this many fetches (None: no limit). ``max_page_bytes``: byte budget for an HTML
    page; ``check_bytes`` for the small GET that checks a non-HTML resource when HEAD is refused."""

    max_pages: int | None = None
    max_depth: int = 50
    concurrency: int = 8
    delay: float = 0.0
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    scope: Scope = Scope.HOST
    respect_robots: bool = True
    user_agent: str = DEFAULT_USER_AGENT
    images: bool = False
    strip_params: tuple[str, ...] = DEFAULT_STRIP_PARAMS
    max_url_length: int = MAX_LOC_LENGTH
    max_query_variants: int = 100
    max_repeated_segments: int = 3
    max_page_bytes: int = 10 * 1024 * 1024
    check_bytes: int = 64 * 1024
    connect_timeout: float = 10.0
    read_timeout: float = 30.0
    retries: int = 2
    max_redirects: int = 10
    #: Let redirects reach loopback/private/link-local addresses other than the start URL's own class (SSRF guard).
    allow_private_addresses: bool = False

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ConfigurationError("--concurrency must be at least 1")
        if self.max_depth < 0:
            raise ConfigurationError("--max-depth must be 0 or more")
        if self.max_pages is not None and self.max_pages < 1:
            raise ConfigurationError("--max-pages must be at least 1")
        if self.delay < 0:
            raise ConfigurationError("--delay must be 0 or more")
        for pattern in (*self.include, *self.exclude):
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ConfigurationError(f"invalid regular expression {pattern!r}: {exc}") from None


@dataclass(frozen=True, slots=True)
class CrawlProgress:
    """A snapshot for progress displays."""

    fetched: int
    queued: int
    errors: int
    in_sitemap: int
    elapsed: float

    @property
    def pages_per_second(self) -> float:
        return self.fetched / self.elapsed if self.elapsed > 0 else 0.0


@dataclass(frozen=True, slots=True)
class CrawlSummary:
    """How a crawl run ended. ``complete`` is False when it was stopped or hit ``max_pages``."""

    start_url: str
    fetched_this_run: int
    stopped: bool
    complete: bool
    elapsed: float
    crawl_time: str


@dataclass
class _Counters:
    fetched: int = 0
    errors: int = 0
    in_sitemap: int = 0
    started: float = field(default_factory=time.monotonic)


class _HostRules:
    """robots.txt rules and the politeness gate of one host."""

    __slots__ = ("delay", "lock", "next_at", "robots", "unreachable")

    def __init__(self, robots: RobotsTxt | None, delay: float, unreachable: str | None) -> None:
        self.robots = robots
        self.delay = delay
        self.unreachable = unreachable  # robots.txt could not be read (5xx / network): RFC 9309 says disallow
        self.lock = asyncio.Lock()
        self.next_at = 0.0


def _origin(url: str) -> str:
    p = urlsplit(url)
    return f"{p.scheme}://{p.netloc}"


def check_start_url(url: str, options: CrawlOptions | None = None) -> str:
    """The normalised start URL of a crawl, or :class:`ConfigurationError` saying why ``url`` cannot be one.
    Touches nothing: callers validate before they create the output folder or the state file."""
    start = UrlNormalizer((options or CrawlOptions()).strip_params).normalize(url)
    if start is None:
        raise ConfigurationError(f"not a crawlable http(s) URL: {url!r}")
    return start


def _parse_http_date(value: str | None) -> str | None:
    if not value:
        return None
    try:
        dt = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):  # OverflowError: digits beyond C ints
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    if dt.year < 1995 or dt > datetime.now(UTC):
        return None  # nonsense or a date in the future: not a usable signal
    return LastMod.of(dt.astimezone(UTC).replace(microsecond=0)).text


class Crawler:
    """Crawl ``start_url`` into ``state``. ``client`` may be given (tests inject transports); otherwise one is
    built from the options. Call :meth:`run` once."""

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
        self._include = [re.compile(p) for p in o.include]
        self._exclude = [re.compile(p) for p in o.exclude]
        self._hosts: dict[str, _HostRules] = {}
        self._host_loading: dict[str, asyncio.Future[_HostRules]] = {}
        self._ids: OrderedDict[str, int] = OrderedDict()
        self._buffer: deque[QueuedUrl] = deque()
        self._active = 0
        self._claimed = 0
        self._wake = asyncio.Condition()
        self._stop = False
        self._counters = _Counters()
        self._crawl_time = ""
        self._set_scope(self.start_url)
        self._commit_pending: asyncio.Future[None] | None = None

    # -- scope ---------------------------------------------------------------------------------------------
    def _set_scope(self, url: str) -> None:
        p = urlsplit(url)
        self._scope_origin = f"{p.scheme}://{p.netloc}"
        host = p.hostname or ""
        self._scope_domain = host[4:] if host.startswith("www.") else host
        self._scope_prefix = self._scope_origin + p.path[: p.path.rfind("/") + 1]

    def in_scope(self, url: str) -> bool:
        scope = self.options.scope
        if scope is Scope.HOST:
            return url.startswith(self._scope_origin) and url[len(self._scope_origin):][:1] in ("/", "")
        if scope is Scope.PREFIX:
            return url.startswith(self._scope_prefix)
        host = urlsplit(url).hostname or ""
        return host == self._scope_domain or host.endswith("." + self._scope_domain)

    def _classify(self, url: str, depth: int) -> tuple[Reason, str] | None:
        """Why a newly met URL is not queued, or None to queue it."""
        o = self.options
        if not self.in_scope(url):
            return Reason.SCOPE, f"outside the crawl scope ({o.scope.value})"
        if url != self.start_url:
            if self._include and not any(r.search(url) for r in self._include):
                return Reason.SCOPE, "matches no --include pattern"
            if any(r.search(url) for r in self._exclude):
                return Reason.SCOPE, "matches an --exclude pattern"
        if len(url) > o.max_url_length:
            return Reason.TRAP, f"URL longer than {o.max_url_length} characters"
        if depth > o.max_depth:
            return Reason.TRAP, f"deeper than --max-depth {o.max_depth}"
        path, _, query = url.partition("?")
        segments = [s for s in urlsplit(path).path.split("/") if s]
        if len(segments) > o.max_repeated_segments:
            counts: dict[str, int] = {}
            for s in segments:
                counts[s] = counts.get(s, 0) + 1
                if counts[s] > o.max_repeated_segments:
                    return Reason.TRAP, f"path segment {s!r} repeated more than {o.max_repeated_segments} times"
        if query and self.state.bump_query_variants(path) > o.max_query_variants:
            return Reason.TRAP, f"more than {o.max_query_variants} query variants of {path}"
        return None

    # -- frontier --------------------------------------------------------------------------------------------
    def _remember(self, url: str, url_id: int) -> None:
        self._ids[url] = url_id
        if len(self._ids) > 50_000:
            self._ids.popitem(last=False)

    def _discover(self, url: str, depth: int) -> int:
        """The id of ``url``, inserting it (queued, or excluded with its reason) when met for the first time."""
        url_id = self._ids.get(url)
        if url_id is not None:
            self._ids.move_to_end(url)
            return url_id
        url_id = self.state.lookup(url)
        if url_id is None:
            verdict = self._classify(url, depth)
            if verdict is None:
                url_id = self.state.add_url(url, depth)
            else:
                url_id = self.state.add_url(url, depth, state=SKIPPED, reason=verdict[0].value, detail=verdict[1])
        self._remember(url, url_id)
        return url_id

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

    # -- robots and politeness ---------------------------------------------------------------------------------
    async def _host_rules(self, url: str) -> _HostRules:
        origin = _origin(url)
        rules = self._hosts.get(origin)
        if rules is not None:
            return rules
        pending = self._host_loading.get(origin)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._host_loading[origin] = pending
            try:
                rules = await self._load_robots(origin)
            except BaseException:
                del self._host_loading[origin]
                pending.cancel()
                raise
            self._hosts[origin] = rules
            pending.set_result(rules)
            return rules
        return await asyncio.shield(pending)

    async def _load_robots(self, origin: str) -> _HostRules:
        o = self.options
        if not o.respect_robots:
            return _HostRules(None, o.delay, None)
        try:
            resp = await self.client.get(origin + "/robots.txt", max_bytes=512 * 1024)
        except FetchError as exc:
            return _HostRules(None, o.delay, f"robots.txt could not be fetched ({exc.reason})")
        if resp.status >= 500:
            return _HostRules(None, o.delay, f"robots.txt answered HTTP {resp.status}")
        if resp.status != 200:
            return _HostRules(None, o.delay, None)  # 4xx: no rules, everything allowed (RFC 9309 2.3.1.3)
        robots = RobotsTxt.parse(resp.body, resp.final_url)
        crawl_delay = robots.crawl_delay(o.user_agent)
        delay = max(o.delay, float(crawl_delay or 0.0))
        return _HostRules(robots, delay, None)

    def _robots_verdict(self, rules: _HostRules, url: str) -> str | None:
        if not self.options.respect_robots:
            return None
        if rules.unreachable:
            return rules.unreachable
        if rules.robots is not None and not rules.robots.can_fetch(url, self.options.user_agent):
            return "disallowed by robots.txt"
        return None

    async def _polite(self, rules: _HostRules) -> None:
        if rules.delay <= 0:
            return
        loop = asyncio.get_running_loop()
        async with rules.lock:
            wait = rules.next_at - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            rules.next_at = loop.time() + rules.delay

    # -- fetching ------------------------------------------------------------------------------------------------
    @staticmethod
    def _looks_non_html(url: str) -> bool:
        path = urlsplit(url).path
        dot = path.rfind(".")
        return dot > path.rfind("/") and path[dot + 1:].lower() in _NON_HTML_EXT

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

    async def _fetch(self, url: str) -> HttpResponse:
        if self._looks_non_html(url):
            return await self._head(url)
        return await self.client.get(url, max_bytes=self.options.max_page_bytes)

    # -- processing ----------------------------------------------------------------------------------------------
    async def _process(self, item: QueuedUrl) -> None:
        rules = await self._host_rules(item.url)
        verdict = self._robots_verdict(rules, item.url)
        if verdict is not None:
            self.state.record(item.id, status=None, reason=Reason.ROBOTS.value, detail=verdict, state=SKIPPED)
            return
        await self._polite(rules)
        try:
            resp = await self._fetch(item.url)
        except TooManyRedirectsError as exc:
            self._error(item.id, exc.reason)
            return
        except ResponseTooLargeError as exc:
            self._error(item.id, exc.reason)
            return
        except FetchError as exc:
            self._error(item.id, exc.reason)
            return
        self._counters.fetched += 1
        self._after_fetch(item, resp)

    def _error(self, url_id: int, message: str) -> None:
        self._counters.fetched += 1
        self._counters.errors += 1
        self.state.record(url_id, status=None, error=message, reason=Reason.ERROR.value, detail=message)

    def _after_fetch(self, item: QueuedUrl, resp: HttpResponse) -> None:
        target_id, target_url, depth = item.id, item.url, item.depth
        if resp.redirects:
            final = self.normalizer.normalize(resp.final_url)
            if final is not None and final != item.url:
                if item.depth == 0 and not self.in_scope(final):
                    # The start URL moved (http -> https, apex -> www): the site is where it landed.
                    self._set_scope(final)
                    self.state.set_meta("scope_url", final)
                self.state.record(item.id, status=resp.status, final_url=final, redirects=resp.redirects,
                                  reason=Reason.REDIRECT.value, detail=f"redirects to {final}")
                final_id = self._ids.get(final) or self.state.lookup(final)
                if final_id is None:
                    verdict = self._classify(final, depth)
                    if verdict is not None:
                        self.state.add_url(final, depth, state=SKIPPED, reason=verdict[0].value,
                                           detail=verdict[1])
                        return
                    final_id = self.state.add_url(final, depth, state=IN_FLIGHT)
                    self._remember(final, final_id)
                elif not self.state.claim_one(final_id):
                    return  # already fetched (or being fetched) on its own
                self.state.add_links(item.id, [final_id])
                target_id, target_url = final_id, final
        self._page(target_id, target_url, depth, resp)

    def _page(self, url_id: int, url: str, depth: int, resp: HttpResponse) -> None:
        status = resp.status
        ctype = resp.headers.get("content-type", "")
        if status != 200:
            if status >= 400:
                self._counters.errors += 1
            self.state.record(url_id, status=status, content_type=ctype or None, reason=Reason.ERROR.value,
                              detail=f"HTTP {status}")
            return
        if not self._is_html(ctype, resp.body):
            self.state.record(url_id, status=status, content_type=ctype or None, reason=Reason.NON_HTML.value,
                              detail=ctype or "no Content-Type")
            return
        header_robots = parse_x_robots_tag(resp.headers.get("x-robots-tag"))
        info = extract_page(resp.body, images=self.options.images)
        robots = info.robots | header_robots
        base = urljoin(resp.final_url, info.base_href) if info.base_href else resp.final_url
        join = self.normalizer.joiner(base)
        if not robots.nofollow:
            targets: dict[str, None] = {}
            for href in info.links:
                link = join(href)
                if link is not None and link != url:
                    targets[link] = None
            if targets:
                self.state.add_links(url_id, [self._discover(link, depth + 1) for link in targets])
        canonical = join(info.canonical) if info.canonical else None
        alternates: list[tuple[str, str]] = []
        for lang, href in info.alternates:
            alt = join(href)
            if alt is not None:
                alternates.append((lang, alt))
                if alt != url:
                    self._discover(alt, depth + 1)
        reason: Reason | None = None
        detail: str | None = None
        if robots.noindex:
            reason = Reason.NOINDEX
            detail = "X-Robots-Tag header" if header_robots.noindex else "meta robots"
        elif canonical is not None and canonical != url:
            reason, detail = Reason.CANONICAL, f"canonical is {canonical}"
            self._discover(canonical, depth + 1)
        lastmod = None
        images: list[str] = []
        if reason is None:
            self._counters.in_sitemap += 1
            lastmod = _parse_http_date(resp.headers.get("last-modified"))
            if lastmod is None:
                prev_fp, prev_lastmod = self.state.previous(url)
                lastmod = prev_lastmod if prev_fp == info.fingerprint and prev_lastmod else self._crawl_time
            if alternates:
                self.state.add_hreflang(url_id, alternates)
            if info.images:
                seen: dict[str, None] = {}
                for src in info.images:
                    img = join(src)
                    if img is not None:
                        seen[img] = None
                images = list(seen)[:MAX_IMAGES_PER_URL]
        self.state.record(url_id, status=status, content_type=ctype or None,
                          reason=reason.value if reason else None, detail=detail, in_sitemap=reason is None,
                          lastmod=lastmod, fingerprint=info.fingerprint, images=images)

    @staticmethod
    def _is_html(ctype: str, body: bytes) -> bool:
        low = ctype.lower()
        if "html" in low:
            return True
        if low and not low.startswith(("text/plain", "application/octet-stream")):
            return False
        return bool(_HTML_SNIFF.match(body[:1024]))

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
        one page per worker: ``--resume`` fetches again only the pages that were in flight. Workers finishing in
        the same turn of the event loop share one commit (a 5,000-page local crawl makes about one commit per
        three pages). A page's writes happen without an await in between, so a commit never splits one; with
        WAL and ``synchronous=NORMAL`` a commit is a write to the WAL without fsync, which survives kill -9."""
        pending = self._commit_pending
        if pending is None:
            loop = asyncio.get_running_loop()
            pending = self._commit_pending = loop.create_future()
            loop.call_soon(self._commit_now)
        await asyncio.shield(pending)

    def _commit_now(self) -> None:
        pending, self._commit_pending = self._commit_pending, None
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
        return CrawlProgress(fetched=c.fetched, queued=self.state.queued_count(), errors=c.errors,
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
                self._set_scope(scope_url)
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


def sitemap_entries(state: CrawlState) -> Iterator[UrlEntry]:
    """The sitemap's entries from a crawl state, by URL: every indexable page with its lastmod, confirmed
    hreflang alternates (reciprocal, self included) and images. Streams from SQLite."""
    import json

    for page_id, url, lastmod, images_json in state.sitemap_pages():
        alternates = state.confirmed_alternates(page_id, url)
        # A cluster of one (only the page itself) says nothing.
        alts = tuple(Alternate(lang, href) for lang, href in alternates) if len(alternates) > 1 else ()
        images = tuple(Image(loc) for loc in json.loads(images_json)) if images_json else ()
        try:
            yield UrlEntry(loc=url, lastmod=LastMod(lastmod) if lastmod else None, alternates=alts, images=images)
        except InvalidValueError:
            # An image URL the protocol rejects must not drop the page itself.
            yield UrlEntry(loc=url, lastmod=LastMod(lastmod) if lastmod else None, alternates=alts)

