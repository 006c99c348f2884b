"""The crawl layer: a polite, resumable crawler (robots.txt, traps bounded, indexability decided per page), its
HTML extraction and URL normalisation, the SQLite crawl state and the crawl reports (JSON and report.html).
"""

from __future__ import annotations

from sitemapkit.crawl._crawler import (
    Crawler,
    CrawlOptions,
    CrawlProgress,
    CrawlSummary,
    Reason,
    Scope,
    sitemap_entries,
)
from sitemapkit.crawl._html import PageInfo, RobotsDirectives, extract_page, parse_x_robots_tag
from sitemapkit.crawl._normalize import DEFAULT_STRIP_PARAMS, UrlNormalizer
from sitemapkit.crawl._report import ReportSummary, write_crawl_reports
from sitemapkit.crawl._state import CrawlState, StateInUseError

__all__ = [
    "DEFAULT_STRIP_PARAMS",
    "CrawlOptions",
    "CrawlProgress",
    "CrawlState",
    "CrawlSummary",
    "Crawler",
    "PageInfo",
    "Reason",
    "ReportSummary",
    "RobotsDirectives",
    "Scope",
    "StateInUseError",
    "UrlNormalizer",
    "extract_page",
    "parse_x_robots_tag",
    "sitemap_entries",
    "write_crawl_reports",
]
