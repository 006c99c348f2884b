"""The serve layer: sitemaps served from a live app's data, as correct and fast as ``generate``.

::

    from sitemapkit.serve import SitemapService, KeysetSource

    service = SitemapService(base_url="https://shop.example/", sections={
        # fetch(after, limit) -> (key, UrlEntry) pairs, key > after; optional keys(after, limit), stats(after, last)
        "products": KeysetSource(fetch_products, keys=product_keys, stats=product_stats),
        "pages": lambda: iter(static_entries),
    })
    app = service.asgi()                 # Starlette
    urlpatterns = service.django_urls()  # Django
    blueprint = service.flask_blueprint()

Page boundaries are found from keys as requests need them (no pass over the table before the first answer); each
page is rendered from the rows as they are at the request, with the writer's renderer (byte-identical to
``write_sitemaps`` for the same entries), so its strong ETag is the digest of the bytes sent and a change shows at
the next request; Last-Modified, 304s, HEAD and gzip. ``DirectoryServer``
serves a published folder with the same headers (``sitemapkit serve DIR``). The frameworks are imported only by
their adapters.
"""

from __future__ import annotations

from sitemapkit.serve._http import Reply
from sitemapkit.serve._plan import Limits, PageRange
from sitemapkit.serve._service import SitemapService
from sitemapkit.serve._sources import DjangoSitemapSource, IterableSource, KeysetSource, Source
from sitemapkit.serve._static import DirectoryServer, serve_directory

__all__ = [
    "DirectoryServer",
    "DjangoSitemapSource",
    "IterableSource",
    "KeysetSource",
    "Limits",
    "PageRange",
    "Reply",
    "SitemapService",
    "Source",
    "serve_directory",
]
