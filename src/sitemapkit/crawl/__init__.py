"""The crawl layer: a polite, resumable crawler (robots.txt, traps bounded, indexability decided per page), its
HTML extraction and URL normalisation, the SQLite crawl state, the crawl reports (JSON and report.html) and the
crawl job that ties them to the write layer: :func:`crawl_site` (``sitemapkit.crawl_site(url, out_dir)``) crawls
and publishes.

The face imports its names on first use (``core/_lazy.lazy_names``, as ``sitemapkit.fetch`` does), so a process that
needs one part (the crawl's page-reading child imports ``_extract`` and the HTML parser) does not load the rest;
importing it registers the layer's problem codes (``_codes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sitemapkit.core import lazy_names
from sitemapkit.crawl import _codes as _codes  # registers the layer's problem codes

if TYPE_CHECKING:
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

_WHERE = {
    "CRAWL_OPTION_SPECS": "sitemapkit.crawl._options",
    "CrawlOptions": "sitemapkit.crawl._options",
    "CrawlProgress": "sitemapkit.crawl._options",
    "CrawlResult": "sitemapkit.crawl._job",
    "CrawlState": "sitemapkit.crawl._state",
    "CrawlSummary": "sitemapkit.crawl._options",
    "Crawler": "sitemapkit.crawl._crawler",
    "DEFAULT_STRIP_PARAMS": "sitemapkit.crawl._normalize",
    "OptionSpec": "sitemapkit.crawl._options",
    "PageInfo": "sitemapkit.crawl._html",
    "REPORT_HTML": "sitemapkit.crawl._report",
    "REPORT_JSON": "sitemapkit.crawl._report",
    "Reason": "sitemapkit.crawl._decide",
    "ReportSummary": "sitemapkit.crawl._report",
    "RobotsDirectives": "sitemapkit.crawl._html",
    "SITEMAP_OPTION_SPECS": "sitemapkit.crawl._options",
    "Scope": "sitemapkit.crawl._options",
    "StartUrlError": "sitemapkit.crawl._reach",
    "StateInUseError": "sitemapkit.crawl._state",
    "UrlMapping": "sitemapkit.crawl._job",
    "UrlNormalizer": "sitemapkit.crawl._normalize",
    "bar_chart": "sitemapkit.crawl._report",
    "check_start_url": "sitemapkit.crawl._crawler",
    "crawl_options_from": "sitemapkit.crawl._options",
    "crawl_site": "sitemapkit.crawl._job",
    "default_report_dir": "sitemapkit.crawl._report",
    "default_state_path": "sitemapkit.crawl._job",
    "extract_page": "sitemapkit.crawl._html",
    "honest_lastmod": "sitemapkit.crawl._fingerprint",
    "parse_x_robots_tag": "sitemapkit.crawl._html",
    "report_script_hashes": "sitemapkit.crawl._report",
    "sitemap_entries": "sitemapkit.crawl._job",
    "summarize": "sitemapkit.crawl._report",
    "write_crawl_reports": "sitemapkit.crawl._report",
}

__getattr__, __dir__ = lazy_names(__name__, _WHERE)

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
