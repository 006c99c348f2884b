"""The web app: ``sitemapkit web``, the online sitemap generator on the user's own machine.

Type a site's address, watch the crawl live (server-sent events), download the sitemap set and the crawl
report; check a sitemap (URL or upload); discover a site's sitemap tree; keep a history of crawls (SQLite in the
user data directory) that survives restarts, with resume. A JSON API (see :mod:`sitemapkit.web._api` and the
README) is what the pages use. Built on Starlette, uvicorn and Jinja2 (``pip install sitemapkit[web]``); it only
adapts the library: :func:`sitemapkit.crawl_site`, :mod:`sitemapkit.validate`, :mod:`sitemapkit.fetch`.
"""

from __future__ import annotations

from sitemapkit.web._app import DEFAULT_MAX_BODY, WebSettings, create_app
from sitemapkit.web._server import check_bind, run
from sitemapkit.web._store import default_data_dir

__all__ = ["DEFAULT_MAX_BODY", "WebSettings", "check_bind", "create_app", "default_data_dir", "run"]
