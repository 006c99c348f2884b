"""sitemapkit: a toolkit for the Sitemaps protocol (sitemaps.org 0.9 and Google's extensions).

The everyday API lives here::

    from sitemapkit import UrlEntry, write_sitemaps, read_file, validate_sitemaps, discover

- the entry model (``UrlEntry``, ``SitemapRef``, ``Image``, ``Video``, ``News``, ``Alternate``, ``LastMod``);
- writing: ``write_sitemaps`` and ``SitemapSetWriter``; ``generate`` (what ``sitemapkit generate`` does: lists,
  CSV, JSONL, sitemaps, static-site folders, partitioned data in, a published set out);
- reading: ``read_file``, ``parse_bytes``, ``iter_events`` and the sans-I/O ``SitemapParser``;
- checking: ``validate_sitemaps``; finding: ``discover`` and ``walk_site``; crawling: ``crawl_site`` (crawl and
  publish), ``Crawler`` and ``CrawlOptions``;
- the exception tree rooted in ``SitemapkitError`` and the ``Problem`` values readers and validators report;
  ``all_codes()`` lists every problem code with its title and fix.

Everything else lives in the layer packages, each with its own ``__all__``: ``sitemapkit.core`` (model, dates,
URLs, problems, limits), ``sitemapkit.read``, ``sitemapkit.write``, ``sitemapkit.validate``, ``sitemapkit.fetch``
(HTTP client, robots.txt, discovery, the index walker) and ``sitemapkit.crawl``. The validator, the HTTP layer
(aiohttp) and the crawler are imported on first use of one of their names, so ``import sitemapkit`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sitemapkit.core import (
    VERSION,
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
    lazy_names,
)
from sitemapkit.read import ParseResult, SitemapParser, iter_events, parse_bytes, read_file

if TYPE_CHECKING:
    from sitemapkit.core import ProblemCode
    from sitemapkit.crawl import Crawler, CrawlOptions, crawl_site
    from sitemapkit.fetch import discover, walk_site
    from sitemapkit.generator import GenerateResult, generate
    from sitemapkit.validate import ValidationReport, validate_sitemaps
    from sitemapkit.write import Manifest, SitemapSetWriter, write_sitemaps

# Public name -> layer package, for the names imported on first use.
_LAZY: dict[str, str] = {
    "Manifest": "sitemapkit.write",
    "SitemapSetWriter": "sitemapkit.write",
    "write_sitemaps": "sitemapkit.write",
    "generate": "sitemapkit.generator",
    "GenerateResult": "sitemapkit.generator",
    "validate_sitemaps": "sitemapkit.validate",
    "ValidationReport": "sitemapkit.validate",
    "discover": "sitemapkit.fetch",
    "walk_site": "sitemapkit.fetch",
    "crawl_site": "sitemapkit.crawl",
    "Crawler": "sitemapkit.crawl",
    "CrawlOptions": "sitemapkit.crawl",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY)


def all_codes() -> dict[str, ProblemCode]:
    """Every problem code sitemapkit defines, sorted by code, each with its severity, title and fix (what
    docs/checks.md lists and reports name). Each layer registers its own codes when it is imported; this imports
    every layer that defines some, so the answer is the same whatever was imported before (and the first call
    costs what importing the validator, the HTTP stack and the crawler costs).

    Example: ``for code, pc in all_codes().items(): print(code, pc.severity, pc.title, pc.fix)``."""
    from sitemapkit import crawl, fetch, read, submit, validate, write  # noqa: F401 - imported to register codes
    from sitemapkit.core import CODES

    return dict(sorted(CODES.items()))


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
    "all_codes",
    "crawl_site",
    "discover",
    "generate",
    "iter_events",
    "parse_bytes",
    "read_file",
    "validate_sitemaps",
    "walk_site",
    "write_sitemaps",
]
