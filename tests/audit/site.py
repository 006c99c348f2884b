"""A local site built for the audit test: one URL (at least) of every finding category, with the known answer.

Sitemaps: robots.txt names an index; the index lists ``/sitemap-pages.xml``, a gzip child
``/sitemap-extra.xml.gz`` and ``/blog/sitemap.xml``. Every ``<url>`` is on its own line, so the line a finding
must name is the line of its ``<loc>`` in the text below.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field

from tests.support.server import LocalServer, Request, Response

HTML = "text/html; charset=utf-8"
UNIFORM = "2024-03-01T00:00:00Z"


def page(title: str, body: str = "", head: str = "") -> str:
    return (f"<!doctype html><html><head><title>{title}</title>{head}</head><body><h1>{title}</h1>"
            f"<p>{body or 'Plenty of ordinary content about ' + title + ' for readers.'}</p></body></html>")


def urlset(base: str, rows: list[tuple[str, str | None]]) -> str:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for loc, lastmod in rows:
        url = loc if "://" in loc else base + loc
        mod = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        lines.append(f"<url><loc>{url}</loc>{mod}</url>")
    lines.append("</urlset>")
    return "\n".join(lines) + "\n"


@dataclass
class AuditSite:
    srv: LocalServer
    sitemaps: dict[str, str] = field(default_factory=dict)  # path -> XML text (before gzip)

    @property
    def base(self) -> str:
        return self.srv.base

    def line_of(self, sitemap_path: str, loc: str, nth: int = 1) -> int:
        """The 1-based line of the ``nth`` ``<url>`` whose loc is ``loc`` (a path on the site, or a full URL)."""
        url = loc if "://" in loc else self.base + loc
        hits = [i for i, text in enumerate(self.sitemaps[sitemap_path].splitlines(), 1)
                if f"<loc>{url}</loc>" in text]
        return hits[nth - 1]


PAGES_ROWS: list[tuple[str, str | None]] = [
    ("/", None),
    ("/missing", None),
    ("/chain", None),
    ("/loop-a", None),
    ("/noindex-meta", None),
    ("/noindex-header", None),
    ("/canon-html", None),
    ("/canon-link", None),
    ("/private/secret", None),
    ("/doc.pdf", None),
    ("/soft", None),
    ("/orphan", None),
    ("/ok", None),
    ("/behind", "2020-01-01"),
    ("/future", "2999-01-01"),
    ("/en", None),
    ("/de", None),
    ("/fr", None),
    ("/es", None),
]
EXTRA_ROWS: list[tuple[str, str | None]] = [*((f"/u{i}", UNIFORM) for i in range(1, 6)), ("/ok", None)]
BLOG_ROWS: list[tuple[str, str | None]] = [("/other/page", None), ("http://other.invalid/x", None)]

#: The known answer: category -> [(url path or full URL, sitemap path, evidence fragment)].
EXPECTED: dict[str, list[tuple[str, str | None, str]]] = {
    "not_found": [("/missing", "/sitemap-pages.xml", "HTTP 404")],
    "redirect": [("/chain", "/sitemap-pages.xml", "redirect chain of 2 hops"),
                 ("/loop-a", "/sitemap-pages.xml", "redirect loop")],
    "noindex": [("/noindex-meta", "/sitemap-pages.xml", "meta name=\"robots\""),
                ("/noindex-header", "/sitemap-pages.xml", "X-Robots-Tag: noindex")],
    "canonicalized": [("/canon-html", "/sitemap-pages.xml", "<link rel=canonical> points to"),
                      ("/canon-link", "/sitemap-pages.xml", "Link header rel=canonical points to")],
    "blocked_by_robots": [("/private/secret", "/sitemap-pages.xml", "robots.txt disallows it")],
    "not_html": [("/doc.pdf", "/sitemap-pages.xml", "Content-Type: application/pdf")],
    "soft_404": [("/soft", "/sitemap-pages.xml", "soft 404 heuristic")],
    "missing_from_sitemap": [("/not-in-sitemap", None, "linked from")],
    "orphan": [("/orphan", "/sitemap-pages.xml", "no link to it")],
    "duplicate": [("/ok", "/sitemap-extra.xml.gz", "listed 2 times")],
    "out_of_scope": [("/other/page", "/blog/sitemap.xml", "outside the sitemap's directory /blog/"),
                     ("http://other.invalid/x", "/blog/sitemap.xml", "on another host")],
    "lastmod_future": [("/future", "/sitemap-pages.xml", "2999-01-01")],
    "lastmod_uniform": [(f"/u{i}", "/sitemap-extra.xml.gz", "shared by 5 of 5") for i in range(1, 6)],
    "lastmod_behind": [("/behind", "/sitemap-pages.xml", "older than Last-Modified")],
    "hreflang_not_reciprocal": [("/en", "/sitemap-pages.xml", "/fr, which does not link back")],
    "hreflang_target_broken": [("/es", "/sitemap-pages.xml", "/gone-it: HTTP 404")],
}


def build(srv: LocalServer) -> AuditSite:
    site = AuditSite(srv)
    base = srv.base
    linked = ["/ok", "/chain", "/loop-a", "/noindex-meta", "/noindex-header", "/canon-html", "/canon-link",
              "/doc.pdf", "/soft", "/behind", "/future", "/en", "/de", "/fr", "/es", "/other/page",
              "/not-in-sitemap", "/missing", *(f"/u{i}" for i in range(1, 6))]
    srv.route("/", page("Home", " ".join(f'<a href="{p}">{p}</a>' for p in linked)), content_type=HTML)
    srv.route("/robots.txt", f"User-agent: *\nDisallow: /private/\n\nSitemap: {base}/sitemap_index.xml\n",
              content_type="text/plain")
    index = ('<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/'
             'sitemap/0.9">\n' + "".join(f"<sitemap><loc>{base}{p}</loc></sitemap>\n" for p in
                                         ("/sitemap-pages.xml", "/sitemap-extra.xml.gz", "/blog/sitemap.xml"))
             + "</sitemapindex>\n")
    srv.route("/sitemap_index.xml", index, content_type="application/xml")
    for path, rows in (("/sitemap-pages.xml", PAGES_ROWS), ("/sitemap-extra.xml.gz", EXTRA_ROWS),
                       ("/blog/sitemap.xml", BLOG_ROWS)):
        text = site.sitemaps[path] = urlset(base, rows)
        if path.endswith(".gz"):
            srv.route(path, gzip.compress(text.encode()), content_type="application/gzip")
        else:
            srv.route(path, text, content_type="application/xml")
    for p in ("/ok", "/orphan", "/future", "/other/page", "/not-in-sitemap", *(f"/u{i}" for i in range(1, 6))):
        srv.route(p, page(p.strip("/").replace("/", " ").title()), content_type=HTML)
    srv.route("/missing", page("Gone"), status=404, content_type=HTML)
    srv.route("/chain", status=301, headers={"Location": "/chain2"})
    srv.route("/chain2", status=302, headers={"Location": "/ok"})
    srv.route("/loop-a", status=302, headers={"Location": "/loop-b"})
    srv.route("/loop-b", status=302, headers={"Location": "/loop-a"})
    srv.route("/noindex-meta", page("Meta", head='<meta name="robots" content="noindex, follow">'),
              content_type=HTML)
    srv.route("/noindex-header", page("Header"), content_type=HTML, headers={"X-Robots-Tag": "noindex"})
    srv.route("/canon-html", page("Canon", head=f'<link rel="canonical" href="{base}/ok">'), content_type=HTML)
    srv.route("/canon-link", page("Canon link"), content_type=HTML,
              headers={"Link": f'<{base}/ok>; rel="canonical"'})
    srv.route("/private/secret", page("Secret"), content_type=HTML)
    srv.route("/doc.pdf", b"%PDF-1.4\n% a tiny document\n", content_type="application/pdf")
    srv.route("/soft", page("Page not found", "Sorry, we could not find that."), content_type=HTML)
    srv.route("/behind", page("Behind"), content_type=HTML,
              headers={"Last-Modified": "Wed, 01 May 2024 10:00:00 GMT"})

    def alt(pairs: dict[str, str]) -> str:
        return "".join(f'<link rel="alternate" hreflang="{lang}" href="{base}{p}">' for lang, p in pairs.items())

    srv.route("/en", page("English", head=alt({"en": "/en", "de": "/de", "fr": "/fr"})), content_type=HTML)
    srv.route("/de", page("Deutsch", head=alt({"de": "/de", "en": "/en"})), content_type=HTML)
    srv.route("/fr", page("Francais"), content_type=HTML)
    srv.route("/es", page("Espanol", head=alt({"es": "/es", "it": "/gone-it"})), content_type=HTML)

    def log_only(_req: Request) -> Response:
        return Response(404, b"<html><body>nothing</body></html>", {"Content-Type": HTML})

    srv.route("/gone-it", handler=log_only)
    return site
