"""sitemapkit: a toolkit for the Sitemaps protocol (sitemaps.org 0.9 and Google's extensions).

The public API is what ``__all__`` lists; everything else lives in private modules.

The model, the reader and the writers are imported with the package. The validator, the HTTP layer (aiohttp,
asyncio), discovery and the crawler (selectolax, sqlite3) are imported on first use of one of their names, so
``import sitemapkit`` stays light for readers and writers (start-up time and memory; see BENCHMARKS.md).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sitemapkit._exceptions import (
    ConfigurationError,
    FetchError,
    HTTPStatusError,
    InputError,
    InvalidEntryError,
    InvalidValueError,
    LimitExceededError,
    ParseError,
    PublishError,
    SitemapkitError,
    TooManyRedirectsError,
)
from sitemapkit._lastmod import LastMod, Precision, parse_lastmod_lenient
from sitemapkit._limits import (
    DEFAULT_MAX_DECOMPRESSED_BYTES,
    MAX_IMAGES_PER_URL,
    MAX_INDEX_ENTRIES,
    MAX_LOC_LENGTH,
    MAX_NEWS_PER_SITEMAP,
    MAX_SITEMAP_BYTES,
    MAX_URLS_PER_SITEMAP,
    MAX_VIDEO_DESCRIPTION_LENGTH,
    MAX_VIDEO_DURATION,
    MAX_VIDEO_TAGS,
)
from sitemapkit._model import (
    Alternate,
    Changefreq,
    Image,
    News,
    Relationship,
    SitemapRef,
    UrlEntry,
    Video,
    VideoPlatform,
    VideoPrice,
    VideoRestriction,
    VideoTvShow,
    VideoUploader,
    entry_from_dict,
    entry_to_dict,
)
from sitemapkit._problems import (
    CODES,
    Location,
    Problem,
    ProblemCode,
    Severity,
    all_codes,
)
from sitemapkit._read import (
    Event,
    Located,
    ParseResult,
    ReaderStateError,
    SitemapParser,
    iter_events,
    parse_bytes,
    read_file,
)
from sitemapkit._sitemapset import (
    Manifest,
    SitemapFile,
    SitemapSetWriter,
    write_sitemaps,
)
from sitemapkit._sniff import (
    DocumentKind,
    EncodingInfo,
    GzipDecoder,
    KindInfo,
    Sniffed,
    sniff,
)
from sitemapkit._urls import iri_to_uri, normalize_loc
from sitemapkit._writers import (
    Extension,
    HtmlWriter,
    IndexWriter,
    TextWriter,
    UrlsetWriter,
    escape,
)

if TYPE_CHECKING:
    from sitemapkit._crawl import (
        Crawler,
        CrawlOptions,
        CrawlProgress,
        CrawlSummary,
        Reason,
        Scope,
        sitemap_entries,
    )
    from sitemapkit._crawlreport import ReportSummary, write_crawl_reports
    from sitemapkit._crawlstate import CrawlState
    from sitemapkit._discover import (
        WELL_KNOWN_PATHS,
        Discovery,
        discover,
        fetch_robots,
        walk_site,
    )
    from sitemapkit._html import (
        PageInfo,
        RobotsDirectives,
        extract_page,
        parse_x_robots_tag,
    )
    from sitemapkit._http import (
        DEFAULT_USER_AGENT,
        AiohttpTransport,
        ContentDecodingError,
        HttpCache,
        HttpClient,
        HttpResponse,
        MockResponse,
        MockTransport,
        ResponseTooLargeError,
        RetryPolicy,
        Timeouts,
        Transport,
        TransportError,
        TransportRequest,
        TransportResponse,
    )
    from sitemapkit._normalize import DEFAULT_STRIP_PARAMS, UrlNormalizer
    from sitemapkit._robots import RobotsTxt
    from sitemapkit._sources import DocumentDone, FetchSettings, open_sources
    from sitemapkit._validate import (
        FileReport,
        Profile,
        ValidationReport,
        validate,
        validate_bytes,
    )
    from sitemapkit._walk import (
        EntryBatch,
        FoundVia,
        SitemapNode,
        SitemapSeed,
        WalkOptions,
        walk,
    )

# Public name -> private module, for the names imported on first use.
_LAZY: dict[str, str] = {
    "CrawlOptions": "sitemapkit._crawl",
    "CrawlProgress": "sitemapkit._crawl",
    "CrawlSummary": "sitemapkit._crawl",
    "Crawler": "sitemapkit._crawl",
    "Reason": "sitemapkit._crawl",
    "Scope": "sitemapkit._crawl",
    "sitemap_entries": "sitemapkit._crawl",
    "ReportSummary": "sitemapkit._crawlreport",
    "write_crawl_reports": "sitemapkit._crawlreport",
    "CrawlState": "sitemapkit._crawlstate",
    "Discovery": "sitemapkit._discover",
    "WELL_KNOWN_PATHS": "sitemapkit._discover",
    "discover": "sitemapkit._discover",
    "fetch_robots": "sitemapkit._discover",
    "walk_site": "sitemapkit._discover",
    "PageInfo": "sitemapkit._html",
    "RobotsDirectives": "sitemapkit._html",
    "extract_page": "sitemapkit._html",
    "parse_x_robots_tag": "sitemapkit._html",
    "AiohttpTransport": "sitemapkit._http",
    "ContentDecodingError": "sitemapkit._http",
    "DEFAULT_USER_AGENT": "sitemapkit._http",
    "HttpCache": "sitemapkit._http",
    "HttpClient": "sitemapkit._http",
    "HttpResponse": "sitemapkit._http",
    "MockResponse": "sitemapkit._http",
    "MockTransport": "sitemapkit._http",
    "ResponseTooLargeError": "sitemapkit._http",
    "RetryPolicy": "sitemapkit._http",
    "Timeouts": "sitemapkit._http",
    "Transport": "sitemapkit._http",
    "TransportError": "sitemapkit._http",
    "TransportRequest": "sitemapkit._http",
    "TransportResponse": "sitemapkit._http",
    "DEFAULT_STRIP_PARAMS": "sitemapkit._normalize",
    "UrlNormalizer": "sitemapkit._normalize",
    "RobotsTxt": "sitemapkit._robots",
    "DocumentDone": "sitemapkit._sources",
    "FetchSettings": "sitemapkit._sources",
    "open_sources": "sitemapkit._sources",
    "FileReport": "sitemapkit._validate",
    "Profile": "sitemapkit._validate",
    "ValidationReport": "sitemapkit._validate",
    "validate": "sitemapkit._validate",
    "validate_bytes": "sitemapkit._validate",
    "EntryBatch": "sitemapkit._walk",
    "FoundVia": "sitemapkit._walk",
    "SitemapNode": "sitemapkit._walk",
    "SitemapSeed": "sitemapkit._walk",
    "WalkOptions": "sitemapkit._walk",
    "walk": "sitemapkit._walk",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sitemapkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__version__ = "0.1.0"

__all__ = [
    "CODES",
    "DEFAULT_MAX_DECOMPRESSED_BYTES",
    "DEFAULT_STRIP_PARAMS",
    "DEFAULT_USER_AGENT",
    "MAX_IMAGES_PER_URL",
    "MAX_INDEX_ENTRIES",
    "MAX_LOC_LENGTH",
    "MAX_NEWS_PER_SITEMAP",
    "MAX_SITEMAP_BYTES",
    "MAX_URLS_PER_SITEMAP",
    "MAX_VIDEO_DESCRIPTION_LENGTH",
    "MAX_VIDEO_DURATION",
    "MAX_VIDEO_TAGS",
    "WELL_KNOWN_PATHS",
    "AiohttpTransport",
    "Alternate",
    "Changefreq",
    "ConfigurationError",
    "ContentDecodingError",
    "CrawlOptions",
    "CrawlProgress",
    "CrawlState",
    "CrawlSummary",
    "Crawler",
    "Discovery",
    "DocumentDone",
    "DocumentKind",
    "EncodingInfo",
    "EntryBatch",
    "Event",
    "Extension",
    "FetchError",
    "FetchSettings",
    "FileReport",
    "FoundVia",
    "GzipDecoder",
    "HTTPStatusError",
    "HtmlWriter",
    "HttpCache",
    "HttpClient",
    "HttpResponse",
    "Image",
    "IndexWriter",
    "InputError",
    "InvalidEntryError",
    "InvalidValueError",
    "KindInfo",
    "LastMod",
    "LimitExceededError",
    "Located",
    "Location",
    "Manifest",
    "MockResponse",
    "MockTransport",
    "News",
    "PageInfo",
    "ParseError",
    "ParseResult",
    "Precision",
    "Problem",
    "ProblemCode",
    "Profile",
    "PublishError",
    "ReaderStateError",
    "Reason",
    "Relationship",
    "ReportSummary",
    "ResponseTooLargeError",
    "RetryPolicy",
    "RobotsDirectives",
    "RobotsTxt",
    "Scope",
    "Severity",
    "SitemapFile",
    "SitemapNode",
    "SitemapParser",
    "SitemapRef",
    "SitemapSeed",
    "SitemapSetWriter",
    "SitemapkitError",
    "Sniffed",
    "TextWriter",
    "Timeouts",
    "TooManyRedirectsError",
    "Transport",
    "TransportError",
    "TransportRequest",
    "TransportResponse",
    "UrlEntry",
    "UrlNormalizer",
    "UrlsetWriter",
    "ValidationReport",
    "Video",
    "VideoPlatform",
    "VideoPrice",
    "VideoRestriction",
    "VideoTvShow",
    "VideoUploader",
    "WalkOptions",
    "__version__",
    "all_codes",
    "discover",
    "entry_from_dict",
    "entry_to_dict",
    "escape",
    "extract_page",
    "fetch_robots",
    "iri_to_uri",
    "iter_events",
    "normalize_loc",
    "open_sources",
    "parse_bytes",
    "parse_lastmod_lenient",
    "parse_x_robots_tag",
    "read_file",
    "sitemap_entries",
    "sniff",
    "validate",
    "validate_bytes",
    "walk",
    "walk_site",
    "write_crawl_reports",
    "write_sitemaps",
]
