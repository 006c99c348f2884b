"""The read layer: a sans-I/O reader for every sitemap format (XML urlset and index, RSS, Atom, text; gzip and
nested gzip sniffed from the bytes). Feed it bytes, take entries and problems as they complete.
"""

from __future__ import annotations

from sitemapkit.read._drivers import ParseResult, iter_events, parse_bytes, read_file
from sitemapkit.read._owner import Event, Located
from sitemapkit.read._parser import ReaderStateError, SitemapParser
from sitemapkit.read._sniff import DocumentKind, EncodingInfo, GzipDecoder, KindInfo, Sniffed, sniff
from sitemapkit.read._source import ByteSource, no_sitemap_files, not_a_sitemap, open_bytes, sitemap_files
from sitemapkit.read._trim import ChildTrimmer, Dropped, child_name

__all__ = [
    "ByteSource",
    "ChildTrimmer",
    "DocumentKind",
    "Dropped",
    "EncodingInfo",
    "Event",
    "GzipDecoder",
    "KindInfo",
    "Located",
    "ParseResult",
    "ReaderStateError",
    "SitemapParser",
    "Sniffed",
    "child_name",
    "iter_events",
    "no_sitemap_files",
    "not_a_sitemap",
    "open_bytes",
    "parse_bytes",
    "read_file",
    "sitemap_files",
    "sniff",
]
