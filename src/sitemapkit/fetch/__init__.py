"""The fetch layer: the HTTP client (transports, retries, cache, decoding, address policy), robots.txt,
sitemap discovery, the safe index walker and the sources the CLI reads (files, URLs, whole sites).
"""

from __future__ import annotations

from sitemapkit.fetch._addresses import AddressPolicy
from sitemapkit.fetch._cache import HttpCache
from sitemapkit.fetch._decode import ContentDecodingError, ResponseTooLargeError
from sitemapkit.fetch._discover import WELL_KNOWN_PATHS, Discovery, discover, fetch_robots, walk_site
from sitemapkit.fetch._http import DEFAULT_USER_AGENT, HttpClient, HttpResponse
from sitemapkit.fetch._retry import RetryPolicy
from sitemapkit.fetch._robots import RobotsTxt
from sitemapkit.fetch._sources import DocumentDone, FetchSettings, open_sources
from sitemapkit.fetch._transports import (
    AddressRefusedError,
    AiohttpTransport,
    MockResponse,
    MockTransport,
    Timeouts,
    Transport,
    TransportError,
    TransportRequest,
    TransportResponse,
)
from sitemapkit.fetch._walk import EntryBatch, FoundVia, SitemapNode, SitemapSeed, WalkOptions, walk

__all__ = [
    "DEFAULT_USER_AGENT",
    "WELL_KNOWN_PATHS",
    "AddressPolicy",
    "AddressRefusedError",
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
]
