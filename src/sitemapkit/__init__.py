"""sitemapkit: a toolkit for the Sitemaps protocol (sitemaps.org 0.9 and Google's extensions).

The public API is what ``__all__`` lists; everything else lives in private modules.
"""

from __future__ import annotations

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
from sitemapkit._problems import CODES, Location, Problem, ProblemCode, Severity
from sitemapkit._urls import iri_to_uri, normalize_loc

# --- writer (issue: writer) ---
from sitemapkit._sitemapset import Manifest, SitemapFile, SitemapSetWriter, write_sitemaps
from sitemapkit._writers import Extension, HtmlWriter, IndexWriter, TextWriter, UrlsetWriter, escape
# --- reader (issue: reader) ---
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
from sitemapkit._sniff import DocumentKind, EncodingInfo, GzipDecoder, KindInfo, Sniffed, sniff
# --- validator (issue: validator) ---
from sitemapkit._validate import FileReport, Profile, ValidationReport, validate, validate_bytes
# --- fetch / discover (issue: fetch) ---
from sitemapkit._discover import WELL_KNOWN_PATHS, Discovery, discover, fetch_robots, walk_site
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
from sitemapkit._robots import RobotsTxt
from sitemapkit._sources import DocumentDone, FetchSettings, open_sources
from sitemapkit._walk import EntryBatch, FoundVia, SitemapNode, SitemapSeed, WalkOptions, walk
# --- crawler (issue: crawl) ---
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
from sitemapkit._html import PageInfo, RobotsDirectives, extract_page, parse_x_robots_tag
from sitemapkit._normalize import DEFAULT_STRIP_PARAMS, UrlNormalizer

__version__ = "0.1.0"

__all__ = [
    "CODES",
    "DEFAULT_MAX_DECOMPRESSED_BYTES",
    "MAX_IMAGES_PER_URL",
    "MAX_INDEX_ENTRIES",
    "MAX_LOC_LENGTH",
    "MAX_NEWS_PER_SITEMAP",
    "MAX_SITEMAP_BYTES",
    "MAX_URLS_PER_SITEMAP",
    "MAX_VIDEO_DESCRIPTION_LENGTH",
    "MAX_VIDEO_DURATION",
    "MAX_VIDEO_TAGS",
    "Alternate",
    "Changefreq",
    "ConfigurationError",
    "FetchError",
    "HTTPStatusError",
    "Image",
    "InputError",
    "InvalidEntryError",
    "InvalidValueError",
    "LastMod",
    "LimitExceededError",
    "Location",
    "News",
    "ParseError",
    "Precision",
    "Problem",
    "ProblemCode",
    "PublishError",
    "Relationship",
    "Severity",
    "SitemapRef",
    "SitemapkitError",
    "TooManyRedirectsError",
    "UrlEntry",
    "Video",
    "VideoPlatform",
    "VideoPrice",
    "VideoRestriction",
    "VideoTvShow",
    "VideoUploader",
    "__version__",
    "entry_from_dict",
    "entry_to_dict",
    "iri_to_uri",
    "normalize_loc",
    "parse_lastmod_lenient",
    # --- writer exports ---
    "Extension",
    "HtmlWriter",
    "IndexWriter",
    "Manifest",
    "SitemapFile",
    "SitemapSetWriter",
    "TextWriter",
    "UrlsetWriter",
    "escape",
    "write_sitemaps",
    # --- reader exports ---
    "DocumentKind",
    "EncodingInfo",
    "Event",
    "GzipDecoder",
    "KindInfo",
    "Located",
    "ParseResult",
    "ReaderStateError",
    "SitemapParser",
    "Sniffed",
    "iter_events",
    "parse_bytes",
    "read_file",
    "sniff",
    # --- validator exports ---
    "FileReport",
    "Profile",
    "ValidationReport",
    "validate",
    "validate_bytes",
    # --- fetch exports ---
    "DEFAULT_USER_AGENT",
    "WELL_KNOWN_PATHS",
    "AiohttpTransport",
    "ContentDecodingError",
    "Discovery",
    "DocumentDone",
    "EntryBatch",
    "FetchSettings",
    "FoundVia",
    "HttpCache",
    "HttpClient",
    "HttpResponse",
    "MockResponse",
    "MockTransport",
    "ResponseTooLargeError",
    "RetryPolicy",
    "RobotsTxt",
    "SitemapNode",
    "SitemapSeed",
    "Timeouts",
    "Transport",
    "TransportError",
    "TransportRequest",
    "TransportResponse",
    "WalkOptions",
    "discover",
    "fetch_robots",
    "open_sources",
    "walk",
    "walk_site",
    # --- crawler exports ---
    "CrawlOptions",
    "CrawlProgress",
    "CrawlState",
    "CrawlSummary",
    "Crawler",
    "DEFAULT_STRIP_PARAMS",
    "PageInfo",
    "Reason",
    "ReportSummary",
    "RobotsDirectives",
    "Scope",
    "UrlNormalizer",
    "extract_page",
    "parse_x_robots_tag",
    "sitemap_entries",
    "write_crawl_reports",
]
