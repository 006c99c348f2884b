"""The MkDocs capability: the ``sitemapkit`` plugin (entry point ``mkdocs.plugins``; ``pip install
'sitemapkit[mkdocs]'``). After ``mkdocs build`` it writes the site's sitemap set through sitemapkit's writer, in
place of MkDocs' own: lastmod from git, hreflang alternates for a translated site, splitting, gzip and an optional
XSL, as configured in ``mkdocs.yml`` (see ``mkdocs/_plugin.py``).

Importing this package imports MkDocs: it is loaded by MkDocs, never by the rest of sitemapkit.
"""

from __future__ import annotations

from sitemapkit.mkdocs._i18n import Languages, detect_languages, group_alternates, hreflang_of
from sitemapkit.mkdocs._plugin import MKDOCS_SITEMAPS, SitemapkitConfig, SitemapkitPlugin

__all__ = [
    "MKDOCS_SITEMAPS",
    "Languages",
    "SitemapkitConfig",
    "SitemapkitPlugin",
    "detect_languages",
    "group_alternates",
    "hreflang_of",
]
