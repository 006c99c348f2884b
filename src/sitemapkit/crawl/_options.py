"""What a crawl is told (:class:`CrawlOptions`, :class:`Scope`) and what it tells back (:class:`CrawlProgress`,
:class:`CrawlSummary`)."""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sitemapkit.core import (
    HINT_OPTION_SPECS,
    MAX_CONCURRENCY,
    MAX_LOC_LENGTH,
    ConfigurationError,
    OptionSpec,
    SitemapHints,
    parse_hints,
)
from sitemapkit.crawl._normalize import DEFAULT_STRIP_PARAMS
from sitemapkit.fetch import DEFAULT_USER_AGENT

__all__ = ["CRAWL_OPTION_SPECS", "SITEMAP_OPTION_SPECS", "CrawlOptions", "CrawlProgress", "CrawlSummary", "OptionSpec",
           "Scope", "crawl_options_from"]

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
    #: changefreq / priority for the sitemap's URLs (defaults, rules by path, priority by depth); None: none.
    hints: SitemapHints | None = None

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

    def describe(self) -> str:
        """A plain progress line: pages fetched, the queue, errors, URLs in the sitemap."""
        return (f"crawl: {self.fetched:,} pages, queue {self.queued:,}, errors {self.errors:,}, in the sitemap "
                f"{self.in_sitemap:,}")


@dataclass(frozen=True, slots=True)
class CrawlSummary:
    """How a crawl run ended. ``complete`` is False when it was stopped or hit ``max_pages``."""

    start_url: str
    fetched_this_run: int
    stopped: bool
    complete: bool
    elapsed: float
    crawl_time: str


#: The options ``crawl`` and ``audit`` share (and the web app's crawl form), in the order the help lists them.
CRAWL_OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("max_pages", "int", None, "Stop after fetching N URLs (default: no limit).", "N", low=1),
    OptionSpec("max_depth", "int", 50, "Follow links at most N clicks away from the start page.", "N", low=0),
    OptionSpec("concurrency", "int", 8, f"Simultaneous requests (per host; at most {MAX_CONCURRENCY}).", "N",
               low=1, high=MAX_CONCURRENCY),
    OptionSpec("delay", "float", 0.0, "Seconds between two requests to one host (robots.txt Crawl-delay wins when "
                                      "larger).", "S", low=0),
    OptionSpec("include", "patterns", (), "Only crawl URLs matching this regular expression (searched in the full "
                                          "URL; repeatable).", "REGEX"),
    OptionSpec("exclude", "patterns", (), "Do not crawl URLs matching this regular expression (searched in the "
                                          "full URL; repeatable).", "REGEX"),
    OptionSpec("scope", "choice", Scope.HOST.value,
               "Which URLs the crawl follows. host: same scheme+host+port; domain: the domain and its subdomains; "
               "prefix: under the start URL's directory.", choices=tuple(s.value for s in Scope)),
    OptionSpec("ignore_robots", "flag", False, "Do not obey robots.txt (rules and Crawl-delay)."),
    OptionSpec("user_agent", "text", DEFAULT_USER_AGENT, "User-Agent header."),
    OptionSpec("stall_timeout", "float", 30.0,
               "A response that sends no bytes for this long has stalled: it fails (retried up to --retries; "
               "a connection not made within 10 s fails the same way).", "S", low=0.01),
    OptionSpec("retries", "int", 2, "Retries on 408/429/5xx and connection errors (exponential backoff, Retry-After "
               "honoured).",
               "N", low=0),
    OptionSpec("strip_param", "names", (),
               "Also remove this query parameter from URLs ('*' suffix as wildcard; repeatable). utm_*, gclid, "
               "fbclid, session ids and the like are removed by default.", "NAME"),
    OptionSpec("allow_private_addresses", "flag", False,
               "Let redirects (and audit's sitemaps) reach loopback, private, link-local and other special "
               "addresses (refused by default, except the class of the start URL's own address: a guard against "
               "request forgery)."),
)

#: The options that shape the sitemap a crawl writes: its images, then changefreq and priority (the core's
#: :data:`~sitemapkit.core.HINT_OPTION_SPECS`, which ``generate`` takes too); part of :data:`CRAWL_OPTION_SPECS`.
SITEMAP_OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("images", "flag", False, "List each page's images in the sitemap (img src, every srcset candidate, "
               "<picture> sources) and check them (HEAD; each check counts toward --max-pages): broken images are "
               "reported with the pages that use them.",
               sitemap=True),
    *HINT_OPTION_SPECS,
)
CRAWL_OPTION_SPECS = (*CRAWL_OPTION_SPECS, *SITEMAP_OPTION_SPECS)


def crawl_options_from(values: Mapping[str, Any], *, keep_tracking_params: bool = False, **extra: Any) -> CrawlOptions:
    """:class:`CrawlOptions` from the values of :data:`CRAWL_OPTION_SPECS` (by name; a missing one takes its
    default) plus ``extra`` CrawlOptions fields. ``strip_param`` adds to the default tracking parameters (replaces
    them with ``keep_tracking_params``) unless ``extra`` sets ``strip_params`` itself."""
    v = {spec.name: values.get(spec.name, spec.default) for spec in CRAWL_OPTION_SPECS}
    kwargs: dict[str, Any] = {
        "max_pages": v["max_pages"], "max_depth": v["max_depth"], "concurrency": v["concurrency"],
        "delay": float(v["delay"]), "include": tuple(v["include"]), "exclude": tuple(v["exclude"]),
        "scope": Scope(v["scope"]), "respect_robots": not v["ignore_robots"], "user_agent": v["user_agent"],
        "read_timeout": float(v["stall_timeout"]),
        "retries": v["retries"],
        "strip_params": (*(() if keep_tracking_params else DEFAULT_STRIP_PARAMS), *v["strip_param"]),
        "allow_private_addresses": bool(v["allow_private_addresses"]),
        "images": bool(v["images"]),
        "hints": parse_hints(v["changefreq"], v["priority"], tuple(v["rule"])),
    }
    kwargs.update(extra)
    return CrawlOptions(**kwargs)
