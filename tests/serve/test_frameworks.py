"""End to end over a real SQLite table of 1,000,000 rows: Starlette under a real uvicorn process, Django and Flask
through their own test clients and on a real socket. Asserted: the index, every page's count, 304s, gzip, HEAD,
404, and the XML validates with ``sitemapkit validate``."""

from __future__ import annotations

import gzip
import http.client
import re
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from sitemapkit.serve import SitemapService
from tests.serve.conftest import BIG_ROWS, SMALL_ROWS, ThreadServer
from tests.serve.db import BASE
from tests.support.cli import CliResult, run_cli

PAGES = BIG_ROWS // 50_000


def get(url: str, method: str = "GET", headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=120)
    try:
        conn.request(method, parts.path, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def urls_in(body: bytes) -> int:
    return body.count(b"<url>")


def locs(body: bytes) -> list[str]:
    return re.findall(r"<loc>([^<]+)</loc>", body.decode())


def validate(*files: Path) -> CliResult:
    return run_cli(["validate", "--profile", "sitemaps", "--quiet", *map(str, files)])


def check_conditional(fetch: Any, name: str) -> None:
    """304 for If-None-Match (not for If-Modified-Since alone: a deleted row does not move a page's newest
    lastmod), HEAD without a body, gzip on request, 404 past the end.
    ``fetch(method, name, headers)`` returns (status, lower-cased headers, body)."""
    status, headers, body = fetch("GET", name, {})
    assert status == 200
    assert urls_in(body) == 50_000
    assert headers["x-robots-tag"] == "noindex"
    assert headers["vary"] == "Accept-Encoding"
    etag, last = headers["etag"], headers["last-modified"]
    assert fetch("GET", name, {"If-None-Match": etag})[0] == 304
    status, ims_headers, ims_body = fetch("GET", name, {"If-Modified-Since": last})
    assert (status, ims_headers["etag"], ims_body) == (200, etag, body)
    status, head_headers, head_body = fetch("HEAD", name, {})
    assert (status, head_body, head_headers["etag"]) == (200, b"", etag)
    status, gz_headers, gz_body = fetch("GET", name, {"Accept-Encoding": "gzip"})
    assert status == 200
    assert gz_headers["content-encoding"] == "gzip"
    assert gzip.decompress(gz_body) == body
    assert fetch("GET", f"sitemap-products-{PAGES + 1}.xml", {})[0] == 404


def _django_fetch(client: Any) -> Any:
    def fetch(method: str, name: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        resp = client.generic(method, "/" + name, headers=headers)
        body = b"".join(resp.streaming_content) if resp.streaming else resp.content
        return resp.status_code, {k.lower(): v for k, v in resp.items()}, body
    return fetch


@pytest.mark.slow
def test_django_client_and_real_server(big_service: SitemapService, django_settings: Any) -> None:
    from django.core.handlers.wsgi import WSGIHandler
    from django.test import Client

    from tests.serve.django_urls import set_patterns

    set_patterns(big_service.django_urls())
    fetch = _django_fetch(Client())
    status, _h, index = fetch("GET", "sitemap.xml", {})
    assert status == 200
    assert locs(index) == [f"{BASE}sitemap-products-{n}.xml" for n in range(1, PAGES + 1)]
    check_conditional(fetch, f"sitemap-products-{PAGES}.xml")
    with ThreadServer(WSGIHandler()) as srv:
        for n in (1, PAGES // 2, PAGES):
            status, _h, body = get(f"{srv.url}sitemap-products-{n}.xml")
            assert (status, urls_in(body)) == (200, 50_000)
        check_conditional(lambda m, name, h: get(srv.url + name, m, h), "sitemap-products-3.xml")


@pytest.mark.slow
def test_flask_client_and_real_server(big_service: SitemapService, tmp_path: Path) -> None:
    flask = pytest.importorskip("flask")
    app = flask.Flask("serve-test")
    app.register_blueprint(big_service.flask_blueprint())
    client = app.test_client()

    def fetch(method: str, name: str, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
        resp = client.open("/" + name, method=method, headers=headers)
        return resp.status_code, {k.lower(): v for k, v in resp.headers.items()}, resp.get_data()

    status, _h, index = fetch("GET", "sitemap.xml", {})
    assert status == 200
    assert len(locs(index)) == PAGES
    check_conditional(fetch, "sitemap-products-1.xml")
    with ThreadServer(app) as srv:
        status, _h, body = get(f"{srv.url}sitemap-products-{PAGES}.xml")
        assert (status, urls_in(body)) == (200, 50_000)
        check_conditional(lambda m, name, h: get(srv.url + name, m, h), "sitemap-products-2.xml")
        (tmp_path / "index.xml").write_bytes(index)
        result = validate(tmp_path / "index.xml")
        assert result.returncode == 0, result.stdout + result.stderr


def test_a_django_sitemap_class_is_a_section(django_settings: Any, tmp_path: Path) -> None:
    from django.contrib.sitemaps import Sitemap
    from django.contrib.sitemaps.views import sitemap as django_sitemap_view
    from django.db import models
    from django.test import RequestFactory

    class Product(models.Model):
        slug = models.TextField()
        updated = models.TextField()

        class Meta:
            app_label = "serve_tests"
            db_table = "products"
            managed = False

    class ProductSitemap(Sitemap):  # type: ignore[type-arg]
        changefreq = "daily"

        def items(self) -> Any:
            return Product.objects.order_by("id")

        def location(self, item: Product) -> str:
            return f"/p/{item.slug}"

        def lastmod(self, item: Product) -> date:
            return date.fromisoformat(item.updated)

    service = SitemapService(BASE, {"products": ProductSitemap}, max_urls=1000)
    bodies = [service.respond("GET", f"sitemap-products-{n}.xml", {}).read() for n in (1, 2, 3)]
    assert [urls_in(b) for b in bodies] == [1000, 1000, SMALL_ROWS - 2000]
    assert service.respond("GET", "sitemap-products-4.xml", {}).status == 404
    ours = [loc for b in bodies for loc in locs(b)]
    request = RequestFactory().get("/sitemap.xml", HTTP_HOST="shop.example", secure=True)
    theirs = django_sitemap_view(request, sitemaps={"products": ProductSitemap})
    theirs.render()
    assert ours == locs(theirs.content)
    assert len(ours) == SMALL_ROWS
    assert b"<changefreq>daily</changefreq>" in bodies[0]
    (tmp_path / "p1.xml").write_bytes(bodies[0])
    result = validate(tmp_path / "p1.xml")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
def test_starlette_under_uvicorn(uvicorn_server: str, tmp_path: Path) -> None:
    base = uvicorn_server
    status, headers, index = get(base + "sitemap.xml")
    assert status == 200
    assert headers["cache-control"] == "public, max-age=600"
    children = locs(index)
    assert children == [f"{base}sitemap-products-{n}.xml" for n in range(1, PAGES + 1)] + \
        [f"{base}sitemap-pages-1.xml"]
    total = 0
    for n, child in enumerate(children, 1):
        status, _h, body = get(child)
        assert status == 200, child
        count = urls_in(body)
        assert count == (50_000 if n <= PAGES else 3), child
        total += count
        if n in (1, PAGES):
            (tmp_path / f"page-{n}.xml").write_bytes(body)
    assert total == BIG_ROWS + 3
    check_conditional(lambda m, name, h: get(base + name, m, h), f"sitemap-products-{PAGES}.xml")
    status, headers, gz = get(base + "sitemap.xml.gz")
    assert headers["content-type"] == "application/gzip"
    assert gzip.decompress(gz) == index
    assert get(base + "sitemap-pages-2.xml")[0] == 404
    (tmp_path / "index.xml").write_bytes(index)
    result = validate(tmp_path / "page-1.xml", tmp_path / f"page-{PAGES}.xml")
    assert result.returncode == 0, result.stdout + result.stderr
