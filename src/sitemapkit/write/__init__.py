"""The write layer: streaming urlset, index, text and HTML writers over any binary sink, and the sitemap set
(rolled at 50,000 URLs / 50 MiB, gzip, index, published atomically with a manifest), plus generate's inputs.
"""

from __future__ import annotations

from sitemapkit.write._codes import HostCheck, url_origin
from sitemapkit.write._inputs import InputKind, iter_input, sniff_kind
from sitemapkit.write._partition import PartitionFiles, PartitionSpec, PartitionWriter
from sitemapkit.write._publish import SitemapFile
from sitemapkit.write._render import Extension, escape
from sitemapkit.write._sitemapset import Manifest, SitemapSetWriter, write_sitemaps
from sitemapkit.write._writers import HtmlWriter, IndexWriter, TextWriter, UrlsetWriter

__all__ = [
    "Extension",
    "HostCheck",
    "HtmlWriter",
    "IndexWriter",
    "InputKind",
    "Manifest",
    "PartitionFiles",
    "PartitionSpec",
    "PartitionWriter",
    "SitemapFile",
    "SitemapSetWriter",
    "TextWriter",
    "UrlsetWriter",
    "escape",
    "iter_input",
    "sniff_kind",
    "url_origin",
    "write_sitemaps",
]
