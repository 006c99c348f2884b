"""The crawl layer: a polite, resumable crawler (robots.txt, traps bounded, indexability decided per page), its
HTML extraction and URL normalisation, the SQLite crawl state, the crawl reports (JSON and report.html) and the
crawl job that ties them to the write layer: :func:`crawl_site` (``sitemapkit.crawl_site(url, out_dir)``) crawls
and publishes.
"""

from __future__ import annotations

from sitemapkit.crawl._crawler import Crawler, check_start_url
from sitemapkit.crawl._decide import Reason
from sitemapkit.crawl._fingerprint import honest_lastmod
from sitemapkit.crawl._html import PageInfo, RobotsDirectives, extract_page, parse_x_robots_tag
from sitemapkit.crawl._job import CrawlResult, UrlMapping, crawl_site, default_state_path, sitemap_entries
from sitemapkit.crawl._normalize import DEFAULT_STRIP_PARAMS, UrlNormalizer
from sitemapkit.crawl._options import (
    CRAWL_OPTION_SPECS,
    SITEMAP_OPTION_SPECS,
    CrawlOptions,
    CrawlProgress,
    CrawlSummary,
    OptionSpec,
    Scope,
    crawl_options_from,
)
from sitemapkit.crawl._reach import StartUrlError
from sitemapkit.crawl._report import (
    REPORT_HTML,
    REPORT_JSON,
    ReportSummary,
    bar_chart,
    default_report_dir,
    report_script_hashes,
    summarize,
    write_crawl_reports,
)
from sitemapkit.crawl._state import CrawlState, StateInUseError

__all__ = [
    "CRAWL_OPTION_SPECS",
    "DEFAULT_STRIP_PARAMS",
    "REPORT_HTML",
    "REPORT_JSON",
    "SITEMAP_OPTION_SPECS",
    "CrawlOptions",
    "CrawlProgress",
    "CrawlResult",
    "CrawlState",
    "CrawlSummary",
    "Crawler",
    "OptionSpec",
    "PageInfo",
    "Reason",
    "ReportSummary",
    "RobotsDirectives",
    "Scope",
    "StartUrlError",
    "StateInUseError",
    "UrlMapping",
    "UrlNormalizer",
    "bar_chart",
    "check_start_url",
    "crawl_options_from",
    "crawl_site",
    "default_report_dir",
    "default_state_path",
    "extract_page",
    "honest_lastmod",
    "parse_x_robots_tag",
    "report_script_hashes",
    "sitemap_entries",
    "summarize",
    "write_crawl_reports",
]
