"""The read layer: a sans-I/O reader for every sitemap format (XML urlset and index, RSS, Atom, text; gzip and
nested gzip sniffed from the bytes). Feed it bytes, take entries and problems as they complete.
"""

from __future__ import annotations

from sitemapkit.read._blocks import RunSplitter, url_values, xml_value
from sitemapkit.read._codes import DUPLICATE_LOC, TEXT_NAMED_XML, named_xml
from sitemapkit.read._drivers import ParseResult, iter_events, parse_bytes, read_file
from sitemapkit.read._lane import MAX_LANE_TAGS, CanonicalLane, lane_enabled
from sitemapkit.read._listing import LIST_FORMATS, EntryWriter
from sitemapkit.read._locrun import LocRun
from sitemapkit.read._owner import Event, Located
from sitemapkit.read._parser import ReaderStateError, SitemapParser
from sitemapkit.read._sniff import (
    GZIP_MAGIC,
    MAX_GZIP_LAYERS,
    DocumentKind,
    EncodingInfo,
    GzipDecoder,
    KindInfo,
    Sniffed,
    detect_encoding,
    is_gzip,
    sniff,
    sniff_kind,
)
from sitemapkit.read._source import ByteSource, no_sitemap_files, not_a_sitemap, open_bytes, sitemap_files
from sitemapkit.read._text import MAX_LINE_CHARS
from sitemapkit.read._trim import ChildTrimmer, Dropped, child_name

__all__ = [
    "DUPLICATE_LOC",
    "GZIP_MAGIC",
    "LIST_FORMATS",
    "MAX_GZIP_LAYERS",
    "MAX_LANE_TAGS",
    "MAX_LINE_CHARS",
    "TEXT_NAMED_XML",
    "ByteSource",
    "CanonicalLane",
    "ChildTrimmer",
    "DocumentKind",
    "Dropped",
    "EncodingInfo",
    "EntryWriter",
    "Event",
    "GzipDecoder",
    "KindInfo",
    "LocRun",
    "Located",
    "ParseResult",
    "ReaderStateError",
    "RunSplitter",
    "SitemapParser",
    "Sniffed",
    "child_name",
    "detect_encoding",
    "is_gzip",
    "iter_events",
    "lane_enabled",
    "named_xml",
    "no_sitemap_files",
    "not_a_sitemap",
    "open_bytes",
    "parse_bytes",
    "read_file",
    "sitemap_files",
    "sniff",
    "sniff_kind",
    "url_values",
    "xml_value",
]
