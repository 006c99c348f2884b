"""A generated web site for crawler tests, served by :class:`~tests.support.server.LocalServer`.

The generator knows, independently of the crawler, which pages belong in the sitemap and which links are
broken (with the pages linking to them), so tests can assert exact sets. What it contains:

- ``/`` linking to every section index, the calendar, the hreflang cluster, the docs (a ``<base href>``), a
  robots.txt-disallowed area, redirects, a redirect loop, broken resources, non-HTML files and external links;
- ``sections x pages`` ordinary pages linking each other with relative links (``page-3.html``,
  ``../s2/page-4.html``), fragments, tracking parameters (``?utm_source=...``), session ids, ``mailto:``;
- noindex pages (meta robots, meta googlebot, and the ``X-Robots-Tag`` header), pages whose canonical points
  elsewhere (the canonical target is reached only through the canonical link), self-canonical pages,
  pages sending ``Last-Modified``;
- broken links: 404 pages, a 500, a connection reset, a response slower than the crawler's timeout, a redirect
  loop, a missing PDF; a redirect chain (301 -> 302) to an existing page and a redirect to a page reachable only
  through it;
- an hreflang cluster (en/de/fr + x-default, reciprocal) and a page declaring a non-reciprocal alternate;
- an endless calendar (``/calendar?month=...`` linking the next and previous month forever; noindex, follow);
- non-HTML resources: PDFs (by extension), an image served without an extension (by Content-Type).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from tests.support.server import LocalServer, Request, Response

LAST_MODIFIED = "Wed, 01 May 2024 10:00:00 GMT"
LAST_MODIFIED_W3C = "2024-05-01T10:00:00Z"
SLOW_SECONDS = 6.0


def _page(title: str, body: str, head: str = "") -> bytes:
    return (
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
        f"<title>{html.escape(title)}</title>{head}"
        "<style>body{font-family:sans-serif}</style><script>var nonce='x';</script></head>"
        f"<body><header><nav><a href=\"/\">Home</a> <a href=\"#main\">Skip</a></nav></header>"
        f"<main id=main><h1>{html.escape(title)}</h1>{body}</main>"
        "<footer><a href=\"mailto:info@example.org\">Mail</a> <a href=\"javascript:void(0)\">JS</a> "
        "<a href=\"http://external.invalid/partner\">Partner</a></footer></body></html>"
    ).encode()


@dataclass
class GeneratedSite:
    """``sections * pages`` ordinary pages plus the special cases listed in the module docstring."""

    sections: int = 20
    pages: int = 100
    routes: dict[str, Response] = field(default_factory=dict)
    base: str = ""

    # ---- what the site knows about itself ------------------------------------------------------------------
    def _kind(self, s: int, i: int) -> str:
        m = i % 50
        return {7: "noindex-meta", 8: "noindex-header", 9: "noindex-googlebot", 10: "canonical-away",
                11: "last-modified", 12: "self-canonical"}.get(m, "plain")

    def page_path(self, s: int, i: int) -> str:
        return f"/s{s}/page-{i}.html"

    def expected_sitemap(self) -> set[str]:
        """Every URL a correct crawler puts in the sitemap (absolute, normalised)."""
        b = self.base
        urls = {b + "/", b + "/moved-target.html", b + "/lang/en/", b + "/lang/de/", b + "/lang/fr/",
                b + "/lang/es/", b + "/docs/v2/", b + "/docs/v2/intro.html", b + "/docs/v2/install.html"}
        for s in range(self.sections):
            urls.add(f"{b}/s{s}/")
            for i in range(self.pages):
                kind = self._kind(s, i)
                if kind.startswith("noindex"):
                    continue
                if kind == "canonical-away":
                    urls.add(f"{b}/canonical/s{s}-{i}.html")
                    continue
                urls.add(b + self.page_path(s, i))
        return urls

    def expected_broken(self) -> dict[str, set[str]]:
        """Broken URL -> the pages linking to it."""
        b = self.base
        broken: dict[str, set[str]] = {}
        for s in range(self.sections):
            for i in range(self.pages):
                if i % 100 == 13:
                    broken.setdefault(f"{b}/missing/s{s}-{i}.html", set()).add(b + self.page_path(s, i))
            if s == 5:
                broken[f"{b}/missing/shared.html"] = {b + self.page_path(s, i) for i in range(self.pages)}
        broken[b + "/error/500"] = {b + "/s1/"}
        broken[b + "/broken/reset"] = {b + "/"}
        broken[b + "/broken/slow"] = {b + "/s2/"}
        broken[b + "/loop/a"] = {b + "/s3/"}
        broken[b + "/files/missing.pdf"] = {b + "/s4/"}
        broken[b + "/docs/v2/gone.html"] = {b + "/docs/v2/intro.html"}
        return broken

    def expected_alternates(self) -> dict[str, set[tuple[str, str]]]:
        b = self.base
        cluster = {("en", b + "/lang/en/"), ("de", b + "/lang/de/"), ("fr", b + "/lang/fr/"),
                   ("x-default", b + "/lang/en/")}
        return {b + "/lang/en/": cluster, b + "/lang/de/": cluster, b + "/lang/fr/": cluster}

    def last_modified_pages(self) -> set[str]:
        return {self.base + self.page_path(s, i) for s in range(self.sections) for i in range(self.pages)
                if self._kind(s, i) == "last-modified"}

    # ---- serving ---------------------------------------------------------------------------------------------
    def install(self, server: LocalServer) -> None:
        self.base = server.base
        html_t = {"Content-Type": "text/html; charset=utf-8"}
        r = self.routes

        def add(path: str, body: bytes, headers: dict[str, str] | None = None, status: int = 200) -> None:
            r[path] = Response(status, body, {**html_t, **(headers or {})})

        sections = "".join(f'<li><a href="/s{s}/">Section {s}</a></li>' for s in range(self.sections))
        add("/", _page("Home", f"<ul>{sections}</ul>"
                       '<a href="/calendar?month=2024-01">Calendar</a> <a href="/lang/en/">English</a> '
                       '<a href="/docs/">Docs</a> <a href="/private/">Private</a> '
                       '<a href="/private/secret.html">Secret</a> <a href="/old/1">Old</a> '
                       '<a href="/moved">Moved</a> <a href="/broken/reset">Reset</a> '
                       '<a href="/files/report.pdf">Report</a> <a href="/img/logo">Logo</a> '
                       '<a href="/?utm_source=home&amp;utm_medium=self">Self</a> '
                       '<a href="/lang/es/">Español</a>'))
        for s in range(self.sections):
            links = "".join(f'<li><a href="page-{i}.html">Page {i}</a></li>' for i in range(self.pages))
            extra = {1: '<a href="/error/500">500</a>', 2: '<a href="/broken/slow">slow</a>',
                     3: '<a href="/loop/a">loop</a>', 4: '<a href="/files/missing.pdf">missing pdf</a>'}.get(s, "")
            add(f"/s{s}/", _page(f"Section {s}", f"<ul>{links}</ul>{extra}"
                                 f'<a href="../s{(s + 1) % self.sections}/">next section</a>'))
            for i in range(self.pages):
                self._add_page(s, i, add)
        # Redirects: a chain to an existing page, a redirect to a page reachable only through it, a loop.
        r["/old/1"] = Response(301, b"", {"Location": "/older/1"})
        r["/older/1"] = Response(302, b"", {"Location": self.base + "/s0/page-1.html"})
        r["/moved"] = Response(301, b"", {"Location": "/moved-target.html"})
        add("/moved-target.html", _page("Moved here", "<p>The new home.</p>"))
        r["/loop/a"] = Response(302, b"", {"Location": "/loop/b"})
        r["/loop/b"] = Response(302, b"", {"Location": "/loop/a"})
        r["/error/500"] = Response(500, b"<html><body>Oops</body></html>", dict(html_t))
        r["/broken/reset"] = Response(reset=True)
        r["/broken/slow"] = Response(200, _page("Slow", "<p>too late</p>"), dict(html_t), delay=SLOW_SECONDS)
        # robots.txt: a disallowed area.
        r["/robots.txt"] = Response(200, b"User-agent: *\nDisallow: /private/\n", {"Content-Type": "text/plain"})
        add("/private/", _page("Private", '<a href="/private/secret.html">secret</a>'))
        add("/private/secret.html", _page("Secret", "<p>secret</p>"))
        # Non-HTML.
        r["/files/report.pdf"] = Response(200, b"%PDF-1.4 fake", {"Content-Type": "application/pdf"})
        r["/img/logo"] = Response(200, b"\x89PNG\r\n\x1a\nfake", {"Content-Type": "image/png"})
        # hreflang cluster (reciprocal) and a page with a non-reciprocal alternate.
        cluster = ('<link rel="alternate" hreflang="en" href="/lang/en/">'
                   '<link rel="alternate" hreflang="de" href="/lang/de/">'
                   '<link rel="alternate" hreflang="fr" href="/lang/fr/">'
                   '<link rel="alternate" hreflang="x-default" href="/lang/en/">')
        for lang in ("en", "de", "fr"):
            add(f"/lang/{lang}/", _page(f"Lang {lang}", "<p>hello</p>", cluster))
        add("/lang/es/", _page("Lang es", "<p>hola</p>", '<link rel="alternate" hreflang="es" href="/lang/es/">'
                                                         '<link rel="alternate" hreflang="en" href="/lang/en/">'))
        # A base href: relative links resolve against /docs/v2/, not against /docs/.
        base_head = '<base href="/docs/v2/">'
        r["/docs/"] = Response(301, b"", {"Location": "/docs/v2/"})
        add("/docs/v2/", _page("Docs v2", '<a href="intro.html">Intro</a> <a href="./install.html">Install</a>',
                               base_head))
        add("/docs/v2/intro.html", _page("Intro", '<a href="install.html">Install</a> <a href="gone.html">gone</a>',
                                         '<base href="/docs/v2/">'))
        add("/docs/v2/install.html", _page("Install", '<a href="../v2/intro.html">Intro</a>'))
        server.route("/calendar", handler=self._calendar)
        for path, resp in r.items():
            server.route(path, handler=lambda _req, _r=resp: _r)

    def _add_page(self, s: int, i: int, add: object) -> None:
        assert callable(add)
        kind = self._kind(s, i)
        n = self.pages
        head = ""
        headers: dict[str, str] = {}
        if kind == "noindex-meta":
            head = '<meta name="robots" content="noindex, follow">'
        elif kind == "noindex-googlebot":
            head = '<meta name="googlebot" content="noindex">'
        elif kind == "noindex-header":
            headers["X-Robots-Tag"] = "noindex"
        elif kind == "canonical-away":
            head = f'<link rel="canonical" href="/canonical/s{s}-{i}.html">'
            self.routes[f"/canonical/s{s}-{i}.html"] = Response(
                200, _page(f"Canonical {s}-{i}", "<p>the real one</p>"), {"Content-Type": "text/html"})
        elif kind == "self-canonical":
            # Absolute, with a tracking parameter and a fragment: normalises to the page itself.
            head = f'<link rel="canonical" href="{self.base}{self.page_path(s, i)}?utm_source=canon#frag">'
        elif kind == "last-modified":
            headers["Last-Modified"] = LAST_MODIFIED
        nxt, prev = (i + 1) % n, (i - 1) % n
        other = (s + 3) % self.sections
        body = (
            f'<p>Content of page {i} in section {s}.</p>'
            f'<a href="page-{nxt}.html">next</a> <a href="./page-{prev}.html#top">prev</a> '
            f'<a href="../s{other}/page-{(i * 7) % n}.html">elsewhere</a> '
            f'<a href="page-{nxt}.html?utm_source=newsletter&amp;utm_campaign=x">tracked</a> '
            f'<a href="/s{s}/page-{prev}.html?PHPSESSID=abc123">session</a> '
            f'<img src="/img/s{s}.png" alt=""> <img srcset="/img/s{s}-2x.png 2x, /img/x.png 3x" alt="">'
        )
        if i % 100 == 13:
            body += f'<a href="/missing/s{s}-{i}.html">missing</a>'
        if s == 5:
            body += '<a href="/missing/shared.html">shared missing</a>'
        if i == 0:
            body += f'<a href="/files/s{s}.pdf">pdf</a>'
            self.routes[f"/files/s{s}.pdf"] = Response(200, b"%PDF-1.4 fake", {"Content-Type": "application/pdf"})
        add(self.page_path(s, i), _page(f"Page {s}-{i}", body, head), headers)  # type: ignore[operator]
        png = Response(200, b"\x89PNG\r\n\x1a\nfake", {"Content-Type": "image/png"})
        for img in (f"/img/s{s}.png", f"/img/s{s}-2x.png", "/img/x.png"):  # crawl --images checks them
            self.routes[img] = png

    def _calendar(self, req: Request) -> Response:
        month = req.path.partition("month=")[2] or "2024-01"
        try:
            year, mon = (int(x) for x in month.split("-")[:2])
        except ValueError:
            return Response(404, b"bad month", {"Content-Type": "text/plain"})
        nxt = f"{year + mon // 12}-{mon % 12 + 1:02d}"
        prv = f"{year - (1 if mon == 1 else 0)}-{(mon - 2) % 12 + 1:02d}"
        body = _page(f"Calendar {month}", f'<a href="/calendar?month={nxt}">next</a> '
                                          f'<a href="/calendar?month={prv}">previous</a>',
                     '<meta name="robots" content="noindex, follow">')
        return Response(200, body, {"Content-Type": "text/html"})
