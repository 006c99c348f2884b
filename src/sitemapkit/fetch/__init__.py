"""The fetch layer: the HTTP client (transports, retries, cache, decoding, address policy), robots.txt,
sitemap discovery, the safe index walker and the sources the CLI reads (files, URLs, whole sites).

Every name is imported on first use (PEP 562): a command that reads only local files needs ``_sources`` and the
items handed over, not the HTTP stack (aiohttp, asyncio), and does not load it. Only the layer's problem codes
(``_codes``, SM5xx) are imported with the face, so that they are registered whatever part of the layer is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sitemapkit.core import lazy_names
from sitemapkit.fetch import _codes as _codes  # registers the layer's problem codes

if TYPE_CHECKING:
    from sitemapkit.fetch._addresses import AddressPolicy
    from sitemapkit.fetch._cache import HttpCache
    from sitemapkit.fetch._codes import SM501, SM502, SM505
    from sitemapkit.fetch._decode import ContentDecodingError, ResponseTooLargeError
    from sitemapkit.fetch._discover import (
        WELL_KNOWN_PATHS,
        Discovery,
        discover,
        fetch_robots,
        is_site_url,
        is_sitemap_body,
        walk_site,
    )
    from sitemapkit.fetch._http import DEFAULT_USER_AGENT, HttpClient, HttpResponse
    from sitemapkit.fetch._listing import ListingCounts, list_source, resolve_sources
    from sitemapkit.fetch._options import FETCH_OPTION_SPECS, fetch_settings_from
    from sitemapkit.fetch._retry import RetryPolicy
    from sitemapkit.fetch._robots import RobotsTxt, decode_robots, robots_url_for, url_key
    from sitemapkit.fetch._scheme import ChosenUrl, choose_scheme, resolve_site_url
    from sitemapkit.fetch._sources import (
        DocumentDone,
        FetchSettings,
        iterate_async,
        local_child,
        local_set,
        open_sources,
    )
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
    from sitemapkit.fetch._tree import SiteTree, discover_tree, format_tree, tree_dict
    from sitemapkit.fetch._walk import EntryBatch, FoundVia, SitemapNode, SitemapSeed, WalkItem, WalkOptions, walk

_WHERE: dict[str, str] = {
    "FETCH_OPTION_SPECS": "sitemapkit.fetch._options",
    "fetch_settings_from": "sitemapkit.fetch._options",
    "SiteTree": "sitemapkit.fetch._tree",
    "discover_tree": "sitemapkit.fetch._tree",
    "ListingCounts": "sitemapkit.fetch._listing",
    "list_source": "sitemapkit.fetch._listing",
    "resolve_sources": "sitemapkit.fetch._listing",
    "SM501": "sitemapkit.fetch._codes",
    "SM502": "sitemapkit.fetch._codes",
    "SM505": "sitemapkit.fetch._codes",
    "is_sitemap_body": "sitemapkit.fetch._discover",
    "is_site_url": "sitemapkit.fetch._discover",
    "decode_robots": "sitemapkit.fetch._robots",
    "robots_url_for": "sitemapkit.fetch._robots",
    "url_key": "sitemapkit.fetch._robots",
    "iterate_async": "sitemapkit.fetch._sources",
    "WalkItem": "sitemapkit.fetch._walk",
    "AddressPolicy": "sitemapkit.fetch._addresses",
    "ChosenUrl": "sitemapkit.fetch._scheme",
    "choose_scheme": "sitemapkit.fetch._scheme",
    "resolve_site_url": "sitemapkit.fetch._scheme",
    "AddressRefusedError": "sitemapkit.fetch._transports",
    "AiohttpTransport": "sitemapkit.fetch._transports",
    "ContentDecodingError": "sitemapkit.fetch._decode",
    "DEFAULT_USER_AGENT": "sitemapkit.fetch._agent",
    "Discovery": "sitemapkit.fetch._discover",
    "DocumentDone": "sitemapkit.fetch._sources",
    "EntryBatch": "sitemapkit.fetch._items",
    "FetchSettings": "sitemapkit.fetch._sources",
    "FoundVia": "sitemapkit.fetch._items",
    "HttpCache": "sitemapkit.fetch._cache",
    "HttpClient": "sitemapkit.fetch._http",
    "HttpResponse": "sitemapkit.fetch._http",
    "MockResponse": "sitemapkit.fetch._transports",
    "MockTransport": "sitemapkit.fetch._transports",
    "ResponseTooLargeError": "sitemapkit.fetch._decode",
    "RetryPolicy": "sitemapkit.fetch._retry",
    "RobotsTxt": "sitemapkit.fetch._robots",
    "SitemapNode": "sitemapkit.fetch._items",
    "SitemapSeed": "sitemapkit.fetch._items",
    "Timeouts": "sitemapkit.fetch._transports",
    "Transport": "sitemapkit.fetch._transports",
    "TransportError": "sitemapkit.fetch._transports",
    "TransportRequest": "sitemapkit.fetch._transports",
    "TransportResponse": "sitemapkit.fetch._transports",
    "WELL_KNOWN_PATHS": "sitemapkit.fetch._discover",
    "WalkOptions": "sitemapkit.fetch._walk",
    "discover": "sitemapkit.fetch._discover",
    "fetch_robots": "sitemapkit.fetch._discover",
    "format_tree": "sitemapkit.fetch._tree",
    "tree_dict": "sitemapkit.fetch._tree",
    "local_child": "sitemapkit.fetch._sources",
    "local_set": "sitemapkit.fetch._sources",
    "open_sources": "sitemapkit.fetch._sources",
    "walk": "sitemapkit.fetch._walk",
    "walk_site": "sitemapkit.fetch._discover",
}


__getattr__, __dir__ = lazy_names(__name__, _WHERE)

__all__ = [
    "DEFAULT_USER_AGENT",
    "FETCH_OPTION_SPECS",
    "SM501",
    "SM502",
    "SM505",
    "WELL_KNOWN_PATHS",
    "AddressPolicy",
    "AddressRefusedError",
    "AiohttpTransport",
    "ChosenUrl",
    "ContentDecodingError",
    "Discovery",
    "DocumentDone",
    "EntryBatch",
    "FetchSettings",
    "FoundVia",
    "HttpCache",
    "HttpClient",
    "HttpResponse",
    "ListingCounts",
    "MockResponse",
    "MockTransport",
    "ResponseTooLargeError",
    "RetryPolicy",
    "RobotsTxt",
    "SiteTree",
    "SitemapNode",
    "SitemapSeed",
    "Timeouts",
    "Transport",
    "TransportError",
    "TransportRequest",
    "TransportResponse",
    "WalkItem",
    "WalkOptions",
    "choose_scheme",
    "decode_robots",
    "discover",
    "discover_tree",
    "fetch_robots",
    "fetch_settings_from",
    "format_tree",
    "is_site_url",
    "is_sitemap_body",
    "iterate_async",
    "list_source",
    "local_child",
    "local_set",
    "open_sources",
    "resolve_site_url",
    "resolve_sources",
    "robots_url_for",
    "tree_dict",
    "url_key",
    "walk",
    "walk_site",
]
