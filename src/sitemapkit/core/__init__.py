"""The core layer: the entry model, lastmod dates, IRI/URL handling, problems and their codes, the exception tree,
the protocol's limits, atomic file writes, scratch folders, the one way to open an SQLite file (``open_store``) and
the template environments of the HTML pages (``page_environment``); the last two are imported on first use.
Everything else in sitemapkit builds on it; it imports nothing above.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sitemapkit.core._atomic import atomic_binary, atomic_text, atomic_write_bytes
from sitemapkit.core._errors import (
    ConfigurationError,
    FetchError,
    HTTPStatusError,
    InputError,
    InvalidEntryError,
    InvalidValueError,
    LimitExceededError,
    NotAFileError,
    ParseError,
    PublishError,
    SitemapkitError,
    SourceNotFoundError,
    StoreError,
    TooManyRedirectsError,
)
from sitemapkit.core._extensions import (
    Alternate,
    Image,
    News,
    Relationship,
    Video,
    VideoPlatform,
    VideoPrice,
    VideoRestriction,
    VideoTvShow,
    VideoUploader,
    canonical_alternate,
    canonical_image,
    make_alternate,
    plain_image,
)
from sitemapkit.core._lastmod import LastMod, Precision, format_datetime, lastmod_of_valid_form, parse_lastmod_lenient
from sitemapkit.core._lazy import lazy_names
from sitemapkit.core._limits import (
    DEFAULT_MAX_DECOMPRESSED_BYTES,
    INDEXNOW_ENDPOINT,
    INDEXNOW_MAX_BATCH,
    MAX_ALTERNATES_PER_URL,
    MAX_CHILDREN_PER_KIND,
    MAX_CONCURRENCY,
    MAX_IMAGES_PER_URL,
    MAX_INDEX_ENTRIES,
    MAX_LOC_LENGTH,
    MAX_NEWS_PER_SITEMAP,
    MAX_SITEMAP_BYTES,
    MAX_URLS_PER_SITEMAP,
    MAX_VIDEO_DESCRIPTION_LENGTH,
    MAX_VIDEO_DURATION,
    MAX_VIDEO_TAGS,
    MAX_VIDEOS_PER_URL,
    MAX_WORKERS,
)
from sitemapkit.core._model import (
    Changefreq,
    SitemapRef,
    UrlEntry,
    canonical_loc_entry,
    canonical_url_entry,
    entry_from_dict,
    entry_to_dict,
    is_canonical_loc,
)
from sitemapkit.core._problems import (
    CODES,
    QUOTE_CHARS,
    Location,
    Problem,
    ProblemCode,
    Severity,
    define_code,
    escape_controls,
    escape_json_controls,
    quote_value,
    shorten,
)
from sitemapkit.core._scratch import ScratchDir
from sitemapkit.core._seen import SEEN, SEEN_EXACT, SeenSet
from sitemapkit.core._spill import SpillList
from sitemapkit.core._urls import (
    SIMPLE_URI,
    has_credentials,
    iri_to_uri,
    is_absolute_http_url,
    is_url_source,
    normalize_loc,
    redact_credentials,
    simple_iri_to_uri,
    url_argument_problem,
)
from sitemapkit.core._version import VERSION

if TYPE_CHECKING:
    from sitemapkit.core._loops import run_isolated
    from sitemapkit.core._pages import page_environment
    from sitemapkit.core._store import StoreConnection, StoreSpec, open_store, sql_statements

# The SQLite helper loads sqlite3, the page templates' module jinja2, and the loop runner asyncio: imported on first
# use, so reading and writing sitemaps (and `import sitemapkit`) pay for none of them.
_LAZY = {
    "run_isolated": "sitemapkit.core._loops",
    **dict.fromkeys(("StoreConnection", "StoreSpec", "open_store", "sql_statements"), "sitemapkit.core._store"),
    "page_environment": "sitemapkit.core._pages",
}
__getattr__, __dir__ = lazy_names(__name__, _LAZY)

__all__ = [
    "CODES",
    "DEFAULT_MAX_DECOMPRESSED_BYTES",
    "INDEXNOW_ENDPOINT",
    "INDEXNOW_MAX_BATCH",
    "MAX_ALTERNATES_PER_URL",
    "MAX_CHILDREN_PER_KIND",
    "MAX_CONCURRENCY",
    "MAX_IMAGES_PER_URL",
    "MAX_INDEX_ENTRIES",
    "MAX_LOC_LENGTH",
    "MAX_NEWS_PER_SITEMAP",
    "MAX_SITEMAP_BYTES",
    "MAX_URLS_PER_SITEMAP",
    "MAX_VIDEOS_PER_URL",
    "MAX_VIDEO_DESCRIPTION_LENGTH",
    "MAX_VIDEO_DURATION",
    "MAX_VIDEO_TAGS",
    "MAX_WORKERS",
    "QUOTE_CHARS",
    "SEEN",
    "SEEN_EXACT",
    "SIMPLE_URI",
    "VERSION",
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
    "NotAFileError",
    "ParseError",
    "Precision",
    "Problem",
    "ProblemCode",
    "PublishError",
    "Relationship",
    "ScratchDir",
    "SeenSet",
    "Severity",
    "SitemapRef",
    "SitemapkitError",
    "SourceNotFoundError",
    "SpillList",
    "StoreConnection",
    "StoreError",
    "StoreSpec",
    "TooManyRedirectsError",
    "UrlEntry",
    "Video",
    "VideoPlatform",
    "VideoPrice",
    "VideoRestriction",
    "VideoTvShow",
    "VideoUploader",
    "atomic_binary",
    "atomic_text",
    "atomic_write_bytes",
    "canonical_alternate",
    "canonical_image",
    "canonical_loc_entry",
    "canonical_url_entry",
    "define_code",
    "entry_from_dict",
    "entry_to_dict",
    "escape_controls",
    "escape_json_controls",
    "format_datetime",
    "has_credentials",
    "iri_to_uri",
    "is_absolute_http_url",
    "is_canonical_loc",
    "is_url_source",
    "lastmod_of_valid_form",
    "lazy_names",
    "make_alternate",
    "normalize_loc",
    "open_store",
    "page_environment",
    "parse_lastmod_lenient",
    "plain_image",
    "quote_value",
    "redact_credentials",
    "run_isolated",
    "shorten",
    "simple_iri_to_uri",
    "sql_statements",
    "url_argument_problem",
]
