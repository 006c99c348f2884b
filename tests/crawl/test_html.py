"""Link and directive extraction from HTML pages."""

from __future__ import annotations

import pytest

from sitemapkit.crawl import RobotsDirectives, extract_page, parse_x_robots_tag
from sitemapkit.crawl._html import parse_robots_content

PAGE = b"""<!DOCTYPE html><html><head>
<base href="/docs/v2/"><base href="/ignored/">
<link rel="canonical" href="https://example.com/docs/v2/">
<link rel="Canonical" href="/second-canonical-ignored">
<link rel="alternate" hreflang="de" href="/de/">
<link rel="alternate" hreflang="en" href="/en/">
<link rel="alternate" type="application/rss+xml" href="/feed.xml">
<link rel="stylesheet" href="/s.css">
<meta name="ROBOTS" content="NOINDEX, follow">
<script>var x = '<a href="/in-script">';</script>
</head><body>
<a href="intro.html">Intro</a> <a>no href</a> <a href="">empty</a>
<map><area href="/area-link" shape="rect"></map>
<p>Text <b>bold
<a href="/unclosed">unclosed p</a>
<img src="/a.png"><img data-src="/lazy.png"><img srcset="/small.png 1x, /big.png 2x">
<img src="data:image/png;base64,xx" srcset="/fallback.png 2x">
</body></html>"""


def test_extracts_everything() -> None:
    info = extract_page(PAGE, images=True)
    assert info.base_href == "/docs/v2/"
    assert info.canonical == "https://example.com/docs/v2/"
    assert info.alternates == (("de", "/de/"), ("en", "/en/"))
    assert info.links == ("intro.html", "/area-link", "/unclosed")  # not the one inside <script>
    assert info.robots == RobotsDirectives(noindex=True, nofollow=False)
    assert info.images == ("/a.png", "/lazy.png", "/small.png", "/big.png", "/fallback.png")  # every candidate
    assert len(info.fingerprint) == 32


def test_images_only_on_request() -> None:
    assert extract_page(PAGE).images == ()


def test_googlebot_meta_and_none() -> None:
    assert extract_page(b'<meta name="googlebot" content="noindex">').robots.noindex
    assert extract_page(b'<meta name="otherbot" content="noindex">').robots == RobotsDirectives()
    assert parse_robots_content("none") == RobotsDirectives(True, True)
    assert parse_robots_content("index, nofollow") == RobotsDirectives(False, True)


def test_fingerprint_ignores_markup_and_scripts() -> None:
    a = extract_page(b"<html><body><p class=x>Hello   world</p><script>var n=1</script><a href=/a>a</a></body>")
    b = extract_page(b"<html><body><div>Hello world</div><script>var n=2</script><a href='/a'>a</a></body>")
    c = extract_page(b"<html><body><div>Hello there</div><a href='/a'>a</a></body>")
    d = extract_page(b"<html><body><div>Hello world</div><a href='/b'>a</a></body>")
    assert a.fingerprint == b.fingerprint
    assert a.fingerprint != c.fingerprint
    assert a.fingerprint != d.fingerprint


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, RobotsDirectives()),
        ("noindex", RobotsDirectives(True, False)),
        ("noindex, nofollow", RobotsDirectives(True, True)),
        ("none", RobotsDirectives(True, True)),
        ("googlebot: noindex", RobotsDirectives(True, False)),
        ("otherbot: noindex, nofollow", RobotsDirectives()),
        ("otherbot: noindex, googlebot: nofollow", RobotsDirectives(False, True)),
        ("unavailable_after: 25 Jun 2010 15:00:00 PST, noindex", RobotsDirectives(True, False)),
        ("max-snippet: 20, index", RobotsDirectives()),
    ],
)
def test_x_robots_tag(value: str | None, expected: RobotsDirectives) -> None:
    assert parse_x_robots_tag(value) == expected


def test_garbage_does_not_crash() -> None:
    for body in (b"", b"\x00\xff\xfe", b"<a href=", b"<<<>>>" * 1000, "<a href='/é'>".encode("latin-1")):
        info = extract_page(body, images=True)
        assert isinstance(info.links, tuple)
