"""What an audit finds (:class:`Finding`, the categories), how it is told to run (:class:`AuditOptions`) and the
sampling statistics (:func:`wilson_interval`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from sitemapkit.core import ConfigurationError
from sitemapkit.crawl import CrawlOptions

__all__ = ["CATEGORIES", "LIVE_CATEGORIES", "AuditOptions", "Finding", "parse_categories", "wilson_interval"]

#: Every finding category, in report order (the issue's table).
CATEGORIES: tuple[str, ...] = (
    "not_found",
    "redirect",
    "noindex",
    "canonicalized",
    "blocked_by_robots",
    "not_html",
    "soft_404",
    "missing_from_sitemap",
    "orphan",
    "duplicate",
    "out_of_scope",
    "lastmod_future",
    "lastmod_uniform",
    "lastmod_behind",
    "hreflang_not_reciprocal",
    "hreflang_target_broken",
)

#: Categories decided by checking a URL live: with ``--sample`` their rates are estimated from the sample.
LIVE_CATEGORIES: frozenset[str] = frozenset({
    "not_found", "redirect", "noindex", "canonicalized", "blocked_by_robots", "not_html", "soft_404", "orphan",
    "lastmod_behind", "hreflang_not_reciprocal", "hreflang_target_broken",
})


@dataclass(frozen=True, slots=True)
class Finding:
    """One finding: the URL, its category, the sitemap file and line that list it (None for a page no sitemap
    lists) and the evidence (the status, header or tag seen)."""

    url: str
    category: str
    sitemap: str | None
    line: int | None
    evidence: str

    def to_dict(self) -> dict[str, object]:
        return {"url": self.url, "category": self.category, "sitemap": self.sitemap, "line": self.line,
                "evidence": self.evidence}


def parse_categories(text: str) -> frozenset[str]:
    """``"not_found,redirect"`` as a set of categories; ``all`` means every one. Unknown names are an error."""
    names = {n.strip() for n in text.split(",") if n.strip()}
    if "all" in names:
        return frozenset(CATEGORIES)
    unknown = sorted(names - set(CATEGORIES))
    if unknown:
        raise ConfigurationError(f"unknown finding categor{'ies' if len(unknown) > 1 else 'y'} "
                                 f"{', '.join(unknown)}; known: {', '.join(CATEGORIES)}, all")
    return frozenset(names)


@dataclass(frozen=True, slots=True)
class AuditOptions:
    """How to audit.

    ``sitemaps``: sitemap URLs (or files) to read instead of discovering the site's. ``crawl``: the crawl's
    options (its ``user_agent``, ``concurrency``, ``delay``, ``respect_robots`` and timeouts also govern the live
    checks). ``sample``: check only a random sample of this many sitemap URLs live (``seed`` makes it
    repeatable). ``crawl_site``: False skips the crawl (no ``orphan`` / ``missing_from_sitemap``).
    ``uniform_min`` / ``uniform_share``: a sitemap file whose most common lastmod is shared by at least this share
    of its (at least ``uniform_min``) dated URLs gets ``lastmod_uniform``. ``lastmod_slack_hours``: how far a
    lastmod may be ahead of now, or behind the page's date, before it is reported.
    ``allow_private_addresses``: let sitemaps and redirects reach special addresses (see ``FetchSettings``).
    """

    sitemaps: tuple[str, ...] = ()
    crawl: CrawlOptions = field(default_factory=CrawlOptions)
    sample: int | None = None
    seed: int | None = None
    crawl_site: bool = True
    uniform_min: int = 5
    uniform_share: float = 0.8
    lastmod_slack_hours: float = 24.0
    max_sitemap_bytes: int | None = None
    allow_private_addresses: bool = False

    def __post_init__(self) -> None:
        if self.sample is not None and self.sample < 1:
            raise ConfigurationError("--sample must be at least 1")
        if self.uniform_min < 2:
            raise ConfigurationError("uniform_min must be at least 2")
        if not 0 < self.uniform_share <= 1:
            raise ConfigurationError("uniform_share must be in (0, 1]")
        if self.lastmod_slack_hours < 0:
            raise ConfigurationError("lastmod_slack_hours must be 0 or more")


def wilson_interval(hits: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``hits / n`` (sound near 0 and 1, unlike the normal one)."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
