"""The crawler's decisions, without I/O: which URLs belong to the crawl (scope, --include/--exclude, traps), what
a fetched response is (HTML or not), and whether a page is indexable (status, noindex, canonical) with its lastmod.

The fetch loop (:mod:`sitemapkit.crawl._crawler`) asks; robots.txt rules are :mod:`sitemapkit.crawl._hosts`'s.
"""

from __future__ import annotations

import email.utils
import enum
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import NamedTuple
from urllib.parse import urlsplit

from sitemapkit.core import LastMod
from sitemapkit.crawl._html import RobotsDirectives
from sitemapkit.crawl._options import CrawlOptions, Scope

__all__ = ["PageVerdict", "Reason", "UrlRules", "is_html", "judge_page", "looks_non_html", "parse_http_date"]


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


def looks_non_html(url: str) -> bool:
    """Whether the URL's path ends in an extension that is almost never HTML (checked, not downloaded)."""
    path = urlsplit(url).path
    dot = path.rfind(".")
    return dot > path.rfind("/") and path[dot + 1:].lower() in _NON_HTML_EXT


def is_html(ctype: str, body: bytes) -> bool:
    """Whether a response is an HTML page: its Content-Type says so, or (none, text/plain, octet-stream) it
    starts like one."""
    low = ctype.lower()
    if "html" in low:
        return True
    if low and not low.startswith(("text/plain", "application/octet-stream")):
        return False
    return bool(_HTML_SNIFF.match(body[:1024]))


def parse_http_date(value: str | None) -> str | None:
    """A ``Last-Modified`` header as a W3C datetime in UTC, or None when absent, unreadable or not plausible."""
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


class UrlRules:
    """Which newly met URLs are queued: the scope (set from the start URL, moved when the start URL redirects),
    the --include/--exclude filters (never applied to the start URL) and the trap limits.

    ``bump_query_variants(path)`` counts one more query variant of ``path`` and returns the count so far (the
    crawl state keeps the counters)."""

    def __init__(self, options: CrawlOptions, start_url: str, bump_query_variants: Callable[[str], int]) -> None:
        self.options = options
        self.start_url = start_url
        self._bump = bump_query_variants
        self._past_limit: set[str] = set()  # paths with more query variants than the limit
        self._include = [re.compile(p) for p in options.include]
        self._exclude = [re.compile(p) for p in options.exclude]
        self.set_scope(start_url)

    def set_scope(self, url: str) -> None:
        p = urlsplit(url)
        self.scope_origin = f"{p.scheme}://{p.netloc}"
        host = p.hostname or ""
        self._scope_domain = host[4:] if host.startswith("www.") else host
        self.scope_prefix = self.scope_origin + p.path[: p.path.rfind("/") + 1]

    def in_scope(self, url: str) -> bool:
        scope = self.options.scope
        if scope is Scope.HOST:
            return url.startswith(self.scope_origin) and url[len(self.scope_origin):][:1] in ("/", "")
        if scope is Scope.PREFIX:
            return url.startswith(self.scope_prefix)
        host = urlsplit(url).hostname or ""
        return host == self._scope_domain or host.endswith("." + self._scope_domain)

    def classify(self, url: str, depth: int) -> tuple[Reason, str] | None:
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
        # Each segment follows a "/" after the host: with no more of those than the limit, no segment repeats more.
        few = path.startswith(("http://", "https://")) and path.count("/") - 2 <= o.max_repeated_segments
        segments = [] if few else [s for s in urlsplit(path).path.split("/") if s]
        if len(segments) > o.max_repeated_segments:
            counts: dict[str, int] = {}
            for s in segments:
                counts[s] = counts.get(s, 0) + 1
                if counts[s] > o.max_repeated_segments:
                    return Reason.TRAP, f"path segment {s!r} repeated more than {o.max_repeated_segments} times"
        if query and (path in self._past_limit or self._bump(path) > o.max_query_variants):
            self._past_limit.add(path)  # counting it further changes nothing: every variant from now on is a trap
            return Reason.TRAP, f"more than {o.max_query_variants} query variants of {path}"
        return None


class PageVerdict(NamedTuple):
    """Whether a fetched HTML page goes into the sitemap: ``reason`` None means it does."""

    reason: Reason | None
    detail: str | None


def judge_page(url: str, robots: RobotsDirectives, header_robots: RobotsDirectives,
               canonical: str | None) -> PageVerdict:
    """The indexability of a status-200 HTML page at ``url``: not noindex (``robots``, the meta and header
    directives combined; ``header_robots`` the X-Robots-Tag part alone), a canonical (resolved and normalised)
    absent or pointing to the page itself."""
    if robots.noindex:
        return PageVerdict(Reason.NOINDEX, "X-Robots-Tag header" if header_robots.noindex else "meta robots")
    if canonical is not None and canonical != url:
        return PageVerdict(Reason.CANONICAL, f"canonical is {canonical}")
    return PageVerdict(None, None)
