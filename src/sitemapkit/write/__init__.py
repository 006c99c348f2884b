"""The write layer: streaming urlset, index, text and HTML writers over any binary sink, and the sitemap set
(rolled at 50,000 URLs / 50 MiB, gzip, index, published atomically with a manifest), plus generate's inputs.
"""

from __future__ import annotations

from sitemapkit.write._codes import SM606, HostCheck, url_origin
from sitemapkit.write._inputs import (
    SM610,
    SM612,
    InputItem,
    InputKind,
    RunItem,
    filter_urls,
    items_of_runs,
    iter_input,
    iter_input_runs,
    sniff_kind,
)
from sitemapkit.write._lists import EntryRun
from sitemapkit.write._partition import PartitionFiles, PartitionSpec, PartitionWriter
from sitemapkit.write._publish import MANIFEST_NAME, SitemapFile, read_manifest
from sitemapkit.write._render import Extension, escape
from sitemapkit.write._rolling import FORMATS, Format
from sitemapkit.write._sitemapset import Manifest, SitemapSetWriter, write_sitemaps
from sitemapkit.write._writers import HtmlWriter, IndexWriter, TextWriter, UrlsetWriter, html_script_hashes

__all__ = [
    "FORMATS",
    "MANIFEST_NAME",
    "SM606",
    "SM610",
    "SM612",
    "EntryRun",
    "Extension",
    "Format",
    "HostCheck",
    "HtmlWriter",
    "IndexWriter",
    "InputItem",
    "InputKind",
    "Manifest",
    "PartitionFiles",
    "PartitionSpec",
    "PartitionWriter",
    "RunItem",
    "SitemapFile",
    "SitemapSetWriter",
    "TextWriter",
    "UrlsetWriter",
    "escape",
    "filter_urls",
    "html_script_hashes",
    "items_of_runs",
    "iter_input",
    "iter_input_runs",
    "read_manifest",
    "sniff_kind",
    "url_origin",
    "write_sitemaps",
]
