"""Write the per-code fixtures under tests/validate/fixtures/codes/SMxxx/ (run once; the files are committed).

Each code gets ``bad`` (the check fires) and ``good`` (the same document with the mistake fixed): a file
``bad.<ext>`` / ``good.<ext>`` or a directory ``bad/`` / ``good/`` for checks that need several files, plus an
optional ``options.json`` with keyword arguments for ``validate`` (``base_url``, ``profile``, ...).

    python tests/validate/make_fixtures.py
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent / "fixtures" / "codes"
SITE = "https://www.fixture-shop.de"
NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
      'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
      'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
      'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
      'xmlns:xhtml="http://www.w3.org/1999/xhtml"')
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'


def urlset(*urls: str) -> str:
    return DECL + f"<urlset {NS}>\n" + "".join(urls) + "</urlset>\n"


def url(path: str = "/a", extra: str = "", loc: str | None = None) -> str:
    return f"  <url>\n    <loc>{loc if loc is not None else SITE + path}</loc>\n{extra}  </url>\n"


def index(*locs: str) -> str:
    body = "".join(f"  <sitemap>\n    <loc>{loc}</loc>\n  </sitemap>\n" for loc in locs)
    return DECL + f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</sitemapindex>\n'


def video(**fields: str) -> str:
    base = {"thumbnail_loc": f"{SITE}/t.jpg", "title": "Grilling", "description": "How to grill.",
            "content_loc": f"{SITE}/v.mp4"}
    base.update(fields)
    order = ["thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration", "rating", "tag",
             "category", "family_friendly"]
    inner = ""
    for name in order:
        value = base.get(name)
        if value is None or value == "":
            continue
        if name == "tag":
            inner += value
        else:
            inner += f"      <video:{name}>{value}</video:{name}>\n"
    return f"    <video:video>\n{inner}    </video:video>\n"


def news(date: str = "2025-12-31T10:00:00Z", name: str = "Daily", lang: str = "en",
         title: str = "Headline") -> str:
    pub = ""
    if name:
        pub += f"<news:name>{name}</news:name>"
    if lang:
        pub += f"<news:language>{lang}</news:language>"
    return (f"    <news:news><news:publication>{pub}</news:publication>"
            f"<news:publication_date>{date}</news:publication_date>"
            + (f"<news:title>{title}</news:title>" if title else "") + "</news:news>\n")


def link(lang: str, path: str, rel: str = "alternate") -> str:
    return f'    <xhtml:link rel="{rel}" hreflang="{lang}" href="{SITE}{path}"/>\n'


def pair(en: str = "en", de: str = "de") -> str:
    """Two reciprocal pages with hreflang."""
    alts = link(en, "/en/") + link(de, "/de/")
    return urlset(url("/en/", alts), url("/de/", alts))


CASES: dict[str, dict[str, object]] = {}


def case(code: str, bad: object, good: object, ext: str = "xml", **options: object) -> None:
    CASES[code] = {"bad": bad, "good": good, "ext": ext, "options": options}


GOOD = urlset(url("/a"), url("/b"))

case("SM200", "<!DOCTYPE html>\n<html><body>Not found</body></html>\n", GOOD)
case("SM201", urlset(url("/a?x=1&y=2")), urlset(url("/a?x=1&amp;y=2")))
case("SM202", GOOD.replace("UTF-8", "ISO-8859-1"), GOOD)
case("SM203", GOOD.replace("http://www.sitemaps.org/schemas/sitemap/0.9", "https://www.sitemaps.org/schemas/sitemap/0.9"),
     GOOD)
case("SM204", urlset(url("/a", video(family_friendly="maybe"))), urlset(url("/a", video(family_friendly="yes"))))
case("SM205", urlset(f"  <url>\n    <lastmod>2024-01-01</lastmod>\n    <loc>{SITE}/a</loc>\n  </url>\n"),
     urlset(f"  <url>\n    <loc>{SITE}/a</loc>\n    <lastmod>2024-01-01</lastmod>\n  </url>\n"))
case("SM206", "", GOOD)
case("SM207", DECL + '<!DOCTYPE urlset [<!ENTITY x "y">]>\n' + GOOD[len(DECL):], GOOD)
case("SM208", DECL + f"<urlset {NS}/>\n", GOOD)
case("SM209", ("gz", urlset(*(url(f"/p{i}") for i in range(50_001)))),
     ("gz", urlset(*(url(f"/p{i}") for i in range(50_000)))), ext="xml.gz", profile="sitemaps")
LONG = "/" + "a" * 1990
case("SM210", ("gz", "".join(f"{SITE}/{i}{LONG}\n" for i in range(26_000))),
     ("gz", "".join(f"{SITE}/{i}{LONG}\n" for i in range(25_000))), ext="txt.gz", profile="sitemaps")
case("SM211", ("gz", index(*(f"{SITE}/s{i}.xml" for i in range(50_001)))),
     ("gz", index(*(f"{SITE}/s{i}.xml" for i in range(50_000)))), ext="xml.gz", profile="sitemaps")
case("SM212", {"sitemap.xml": index(f"{SITE}/sub-index.xml"), "sub-index.xml": index(f"{SITE}/s1.xml"),
               "s1.xml": GOOD},
     {"sitemap.xml": index(f"{SITE}/s1.xml"), "s1.xml": GOOD}, base_url=f"{SITE}/")
case("SM213", "---\nlayout: null\n---\n<?xml version=\"1.0\"?>\n<urlset>{% for p in site.posts %}{% endfor %}"
              "</urlset>\n", GOOD)
case("SM214", {"sitemap.xml": index(f"{SITE}/s1.xml", f"{SITE}/s2.xml"), "s1.xml": GOOD},
     {"sitemap.xml": index(f"{SITE}/s1.xml"), "s1.xml": GOOD}, base_url=f"{SITE}/")
case("SM215", f"{SITE}/a\nabout/team.html\n", f"{SITE}/a\n{SITE}/about/team.html\n", ext="txt")
case("SM216", urlset(url("/a"), "  <lastmod>2024-01-01</lastmod>\n"), GOOD)
case("SM300", urlset(url(loc="")), GOOD)
case("SM301", urlset(url(loc="/about/")), urlset(url("/about/")))
case("SM302", urlset(url("/" + "a" * 2030)), urlset(url("/" + "a" * 2000)))
case("SM303", urlset(url("/a b/ümlaut")), urlset(url("/a%20b/%C3%BCmlaut")))
case("SM304", urlset(url(loc=f"\n      {SITE}/a\n    ")), GOOD)
case("SM305", urlset(url("/a#top")), GOOD)
case("SM306", urlset(url("/a"), url("/a")), GOOD)
case("SM307", urlset(url(loc="http://localhost:3000/a")), GOOD)
case("SM308", urlset(url("/blog/a"), url("/shop/b")), urlset(url("/blog/a"), url("/blog/b")),
     base_url=f"{SITE}/blog/sitemap.xml")
case("SM309", urlset(url("/a"), url(loc="https://other-host.de/b")), GOOD)
case("SM310", urlset(url("/c%C3%83%C2%A8pe")), urlset(url("/c%C3%A8pe")))
LM = "    <lastmod>{}</lastmod>\n"
case("SM320", urlset(url("/a", LM.format("Mon, 01 Jan 2024 10:00:00 GMT"))),
     urlset(url("/a", LM.format("2024-01-01T10:00:00Z"))))
case("SM321", urlset(url("/a", LM.format("2024-01-01T10:00:00"))), urlset(url("/a", LM.format("2024-01-01T10:00:00Z"))))
case("SM322", urlset(url("/a", LM.format("2024-05"))), urlset(url("/a", LM.format("2024-05-01"))))
case("SM323", urlset(url("/a", LM.format("2999-01-01"))), urlset(url("/a", LM.format("2025-01-01"))))
case("SM324", urlset(*(url(f"/p{i}", LM.format("2025-05-01T10:00:00Z")) for i in range(12))),
     urlset(*(url(f"/p{i}", LM.format(f"2025-05-{i + 1:02d}")) for i in range(12))))
case("SM325", urlset(url("/a", "    <changefreq>Daily</changefreq>\n")),
     urlset(url("/a", "    <changefreq>daily</changefreq>\n")))
case("SM326", urlset(url("/a", "    <priority>high</priority>\n")), urlset(url("/a", "    <priority>0.8</priority>\n")))
IMG = "    <image:image><image:loc>" + SITE + "/i{}.jpg</image:loc></image:image>\n"
LINK_SELF = f'    <xhtml:link rel="alternate" hreflang="de" href="{SITE}/a"/>\n'
case("SM329", urlset(url("/a", LINK_SELF * 1001)), urlset(url("/a", LINK_SELF * 1000)))
case("SM400", urlset(url("/a", "".join(IMG.format(i) for i in range(1001)))),
     urlset(url("/a", "".join(IMG.format(i) for i in range(1000)))))
case("SM401", urlset(url("/a", f"    <image:image><image:loc>{SITE}/i.jpg</image:loc>"
                               "<image:caption>Cat</image:caption></image:image>\n")),
     urlset(url("/a", IMG.format(1))))
case("SM402", urlset(url("/a", "    <image:image><image:loc>img/cat.jpg</image:loc></image:image>\n")),
     urlset(url("/a", IMG.format(1))))
case("SM410", urlset(url("/a", video(thumbnail_loc=""))), urlset(url("/a", video())))
case("SM411", urlset(url("/a", video(content_loc=f"{SITE}/a"))), urlset(url("/a", video())))
case("SM412", urlset(url("/a", video(duration="0"))), urlset(url("/a", video(duration="600"))))
case("SM413", urlset(url("/a", video(rating="7"))), urlset(url("/a", video(rating="4.5"))))
case("SM414", urlset(url("/a", video(tag="".join(f"      <video:tag>t{i}</video:tag>\n" for i in range(33))))),
     urlset(url("/a", video(tag="".join(f"      <video:tag>t{i}</video:tag>\n" for i in range(32))))))
case("SM415", urlset(url("/a", video(category="cooking"))), urlset(url("/a", video())))
case("SM416", urlset(url("/a", video(description="x" * 2049))), urlset(url("/a", video(description="x" * 2048))))
case("SM420", ("gz", urlset(*(url(f"/n{i}", news()) for i in range(1001)))),
     ("gz", urlset(*(url(f"/n{i}", news()) for i in range(1000)))), ext="xml.gz")
case("SM421", urlset(url("/a", news(date="2025-12-01"))), urlset(url("/a", news())))
case("SM422", urlset(url("/a", news(title=""))), urlset(url("/a", news())))
case("SM423", urlset(url("/a", news(lang="english"))), urlset(url("/a", news(lang="en"))))
case("SM424", urlset(url("/a", news(date="yesterday"))), urlset(url("/a", news())))
case("SM430", pair(en="en_US"), pair(en="en-US"))
case("SM431", urlset(url("/en/", link("en", "/en/") + link("de", "/de/") + link("de", "/de2/")),
                     url("/de/", link("en", "/en/") + link("de", "/de/"))), pair())
case("SM432", urlset(url("/en/", link("de", "/de/")), url("/de/", link("en", "/en/") + link("de", "/de/"))),
     pair())
case("SM433", {"en.xml": urlset(url("/en/", link("en", "/en/") + link("de", "/de/"))),
               "de.xml": urlset(url("/de/", link("de", "/de/")))},
     {"en.xml": urlset(url("/en/", link("en", "/en/") + link("de", "/de/"))),
      "de.xml": urlset(url("/de/", link("en", "/en/") + link("de", "/de/")))})
case("SM434", urlset(url("/en/", link("en", "/en/") + '    <xhtml:link rel="alternate" hreflang="de" href="/de/"/>\n')),
     pair())


def write(target: Path, content: object, ext: str) -> None:
    if isinstance(content, dict):
        target.mkdir(parents=True)
        for name, text in content.items():
            (target / name).write_text(text, encoding="utf-8")
        return
    path = target.with_name(target.name + "." + ext)
    if isinstance(content, tuple):
        _, text = content
        path.write_bytes(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
        return
    assert isinstance(content, str)
    encoding = "iso-8859-1" if "ISO-8859-1" in content[:60] else "utf-8"
    path.write_bytes(content.encode(encoding))


def main() -> None:
    if ROOT.exists():
        shutil.rmtree(ROOT)
    for code, spec in CASES.items():
        directory = ROOT / code
        directory.mkdir(parents=True)
        ext = str(spec["ext"])
        write(directory / "bad", spec["bad"], ext)
        write(directory / "good", spec["good"], ext)
        options = dict(spec["options"])  # type: ignore[call-overload]
        if options:
            (directory / "options.json").write_text(json.dumps(options, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
