"""Building fake sites on :class:`~tests.support.server.LocalServer` for the fetch / discover tests.

    site = Site(server)
    site.robots(f"Sitemap: {server.url('/index.xml')}")
    site.xml("/index.xml", index_xml([server.url("/a.xml")]))
    site.xml("/a.xml", urlset_xml([server.url(f"/p{i}") for i in range(3)]))
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterable

from tests.support.server import LocalServer, Request, Response

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset_xml(locs: Iterable[str]) -> bytes:
    body = "".join(f"<url><loc>{loc}</loc></url>" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">{body}</urlset>\n'.encode()


def index_xml(locs: Iterable[str]) -> bytes:
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">{body}</sitemapindex>\n'.encode()


HTML_ERROR = b"<!DOCTYPE html><html><head><title>Oops</title></head><body><h1>Page not found</h1></body></html>"


class Site:
    """Routes for one fake site; every method returns the absolute URL of what it added."""

    def __init__(self, server: LocalServer) -> None:
        self.server = server

    def url(self, path: str) -> str:
        return self.server.url(path)

    def robots(self, text: str | bytes, status: int = 200) -> str:
        self.server.route("/robots.txt", text, status=status, content_type="text/plain")
        return self.url("/robots.txt")

    def xml(self, path: str, body: bytes, *, content_type: str = "application/xml", status: int = 200,
            headers: dict[str, str] | None = None) -> str:
        self.server.route(path, body, status=status, content_type=content_type, headers=headers)
        return self.url(path)

    def gz(self, path: str, body: bytes, *, content_type: str = "application/x-gzip",
           headers: dict[str, str] | None = None) -> str:
        return self.xml(path, gzip.compress(body), content_type=content_type, headers=headers)

    def redirect(self, path: str, target: str, status: int = 301) -> str:
        self.server.route(path, b"", status=status, headers={"Location": target})
        return self.url(path)

    def handler(self, path: str, fn: Callable[[Request], Response]) -> str:
        self.server.route(path, handler=fn)
        return self.url(path)

