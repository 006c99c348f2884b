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
# --- reader (issue: reader) ---
# --- validator (issue: validator) ---
# --- fetch / discover (issue: fetch) ---
# --- crawler (issue: crawl) ---

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
    # --- reader exports ---
    # --- validator exports ---
    # --- fetch exports ---
    # --- crawler exports ---
]
