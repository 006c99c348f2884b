"""sitemapkit: a toolkit for the Sitemaps protocol (sitemaps.org 0.9 and Google's extensions).

The everyday API lives here::

    from sitemapkit import UrlEntry, write_sitemaps, read_file, validate, discover

- the entry model (``UrlEntry``, ``SitemapRef``, ``Image``, ``Video``, ``News``, ``Alternate``, ``LastMod``);
- writing: ``write_sitemaps`` and ``SitemapSetWriter``; ``generate`` (what ``sitemapkit generate`` does: lists,
  CSV, JSONL, sitemaps, static-site folders, partitioned data in, a published set out);
- reading: ``read_file``, ``parse_bytes``, ``iter_events`` and the sans-I/O ``SitemapParser``;
- checking: ``validate``; finding: ``discover`` and ``walk_site``; crawling: ``crawl`` (crawl and publish),
  ``Crawler`` and ``CrawlOptions``;
- the exception tree rooted in ``SitemapkitError`` and the ``Problem`` values readers and validators report.

Everything else lives in the layer packages, each with its own ``__all__``: ``sitemapkit.core`` (model, dates,
URLs, problems, limits), ``sitemapkit.read``, ``sitemapkit.write``, ``sitemapkit.validate``, ``sitemapkit.fetch``
(HTTP client, robots.txt, discovery, the index walker) and ``sitemapkit.crawl``. The validator, the HTTP layer
(aiohttp) and the crawler are imported on first use of one of their names, so ``import sitemapkit`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sitemapkit.core import (
    Alternate,
    Changefreq,
    ConfigurationError,
    FetchError,
    HTTPStatusError,
    Image,
    InputError,
    InvalidEntryError,
    InvalidValueError,
    LastMod,
    LimitExceededError,
    News,
    ParseError,
    Problem,
    PublishError,
    Severity,
    SitemapkitError,
    SitemapRef,
    TooManyRedirectsError,
    UrlEntry,
    Video,
)
from sitemapkit.core._lazy import lazy_names
from sitemapkit.core._version import VERSION
from sitemapkit.read import ParseResult, SitemapParser, iter_events, parse_bytes, read_file

if TYPE_CHECKING:
    from sitemapkit.crawl import Crawler, CrawlOptions, crawl
    from sitemapkit.fetch import discover, walk_site
    from sitemapkit.generator import GenerateResult, generate
    from sitemapkit.validate import ValidationReport, validate
    from sitemapkit.write import Manifest, SitemapSetWriter, write_sitemaps

# Public name -> layer package, for the names imported on first use.
_LAZY: dict[str, str] = {
    "Manifest": "sitemapkit.write",
    "SitemapSetWriter": "sitemapkit.write",
    "write_sitemaps": "sitemapkit.write",
    "generate": "sitemapkit.generator",
    "GenerateResult": "sitemapkit.generator",
    "validate": "sitemapkit.validate",
    "ValidationReport": "sitemapkit.validate",
    "discover": "sitemapkit.fetch",
    "walk_site": "sitemapkit.fetch",
    "crawl": "sitemapkit.crawl",
    "Crawler": "sitemapkit.crawl",
    "CrawlOptions": "sitemapkit.crawl",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY)

__version__ = VERSION

__all__ = [
    "Alternate",
    "Changefreq",
    "ConfigurationError",
    "CrawlOptions",
    "Crawler",
    "FetchError",
    "GenerateResult",
    "HTTPStatusError",
    "Image",
    "InputError",
    "InvalidEntryError",
    "InvalidValueError",
    "LastMod",
    "LimitExceededError",
    "Manifest",
    "News",
    "ParseError",
    "ParseResult",
    "Problem",
    "PublishError",
    "Severity",
    "SitemapParser",
    "SitemapRef",
    "SitemapSetWriter",
    "SitemapkitError",
    "TooManyRedirectsError",
    "UrlEntry",
    "ValidationReport",
    "Video",
    "__version__",
    "crawl",
    "discover",
    "generate",
    "iter_events",
    "parse_bytes",
    "read_file",
    "validate",
    "walk_site",
    "write_sitemaps",
]
