"""What a crawl is told (:class:`CrawlOptions`, :class:`Scope`) and what it tells back (:class:`CrawlProgress`,
:class:`CrawlSummary`)."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from sitemapkit.core._errors import ConfigurationError
from sitemapkit.core._limits import MAX_CONCURRENCY, MAX_LOC_LENGTH
from sitemapkit.crawl._normalize import DEFAULT_STRIP_PARAMS
from sitemapkit.fetch._http import DEFAULT_USER_AGENT

__all__ = ["CrawlOptions", "CrawlProgress", "CrawlSummary", "Scope"]



class Scope(enum.Enum):
    """Which URLs belong to the site: ``host`` (same scheme, host and port as the start URL), ``domain`` (the
    start host without a leading ``www.`` and all its subdomains, either scheme), ``prefix`` (URLs under the start
    URL's directory)."""

    HOST = "host"
    DOMAIN = "domain"
    PREFIX = "prefix"


@dataclass(frozen=True, slots=True)
class CrawlOptions:
    """How to crawl. Every limit is overridable; the defaults suit a typical site.

    ``concurrency``: simultaneous requests (per host, and workers overall). ``delay``: seconds between two
    requests to one host (robots.txt ``Crawl-delay`` wins when larger, unless robots are ignored).
    ``include`` / ``exclude``: regular expressions searched in the full URL (the start URL is always crawled).
    ``max_pages``: stop after this many fetches (None: no limit). ``max_page_bytes``: byte budget for an HTML
    page; ``check_bytes`` for the small GET that checks a non-HTML resource when HEAD is refused.

    Example: ``Crawler("https://example.com/", state, CrawlOptions(max_pages=500, images=True))``; see
    :class:`Crawler`.
    """

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
        if not 1 <= self.concurrency <= MAX_CONCURRENCY:
            raise ConfigurationError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}, not {self.concurrency}")
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
