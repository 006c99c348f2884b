"""The serve layer: sitemaps served from a live app's data, as correct and fast as ``generate``.

::

    from sitemapkit.serve import SitemapService, KeysetSource

    service = SitemapService(base_url="https://shop.example/", sections={
        "products": KeysetSource(fetch_products),  # fetch(after, limit) -> (key, UrlEntry) pairs, key > after
        "pages": lambda: iter(static_entries),
    })
    app = service.asgi()                 # Starlette
    urlpatterns = service.django_urls()  # Django
    blueprint = service.flask_blueprint()

Pages are planned by one keyset pass over each section and streamed with the writer's renderer (byte-identical to
``write_sitemaps`` for the same entries), with strong ETags, Last-Modified, 304s, HEAD and gzip. ``DirectoryServer``
serves a published folder with the same headers (``sitemapkit serve DIR``). The frameworks are imported only by
their adapters.
"""

from __future__ import annotations

from sitemapkit.serve._http import Reply
from sitemapkit.serve._plan import Limits, PagePlan, SectionPlan
from sitemapkit.serve._service import SitemapService
from sitemapkit.serve._sources import DjangoSitemapSource, IterableSource, KeysetSource, Source
from sitemapkit.serve._static import DirectoryServer, serve_directory

__all__ = [
    "DirectoryServer",
    "DjangoSitemapSource",
    "IterableSource",
    "KeysetSource",
    "Limits",
    "PagePlan",
    "Reply",
    "SectionPlan",
    "SitemapService",
    "Source",
    "serve_directory",
]
