"""The content fingerprint (boilerplate-insensitive, content-sensitive) and the honest-lastmod rule."""

from __future__ import annotations

import pytest

from sitemapkit.crawl._fingerprint import fingerprint_html, honest_lastmod, normalise_text


def page(main: str, *, footer: str = "", nav: str = "<a href='/'>Home</a>", script: str = "",
         hidden: str = "") -> str:
    return (f"<!doctype html><html><head><script>{script}</script></head><body><header>Site</header>"
            f"<nav>{nav}</nav><main>{main}<form><input type=hidden name=csrf value='{hidden}'></form></main>"
            f"<footer>{footer}</footer></body></html>")


BASE = page("<h1>Title</h1><p>Body text</p><a href='/next'>next</a>", footer="Rendered 2026-11-24 08:50:12",
            script="var nonce='a1b2c3'", hidden="tok1")


@pytest.mark.parametrize("variant", [
    page("<h1>Title</h1><p>Body text</p><a href='/next'>next</a>", footer="Rendered 2026-11-25 19:02:44 · 1,234 views",
         script="var nonce='zz99'", hidden="tok2"),  # footer clock and counter, script nonce, CSRF token
    page("<h1>Title</h1><p>Body   text</p><a href='/next'>next</a>",
         nav="<a href='/'>Home</a><a href='/new-section'>New section</a>"),  # whitespace; navigation grew
    page("<h1>Title</h1><p>Body text</p><a href='/next?v=8f3e2a91&amp;_=1732438212'>next</a>"),  # cache busters
])
def test_boilerplate_does_not_change_the_fingerprint(variant: str) -> None:
    assert fingerprint_html(variant) == fingerprint_html(BASE)


@pytest.mark.parametrize("variant", [
    page("<h1>Title</h1><p>Body text, revised</p><a href='/next'>next</a>"),  # a word
    page("<h1>Title</h1><p>Body text</p><a href='/other'>next</a>"),  # a link target
    page("<h1>Title</h1><p>Body text</p><a href='/next'>next</a><img src='/new.png'>"),  # an image
    page("<h1>Other title</h1><p>Body text</p><a href='/next'>next</a>"),
])
def test_content_changes_change_the_fingerprint(variant: str) -> None:
    assert fingerprint_html(variant) != fingerprint_html(BASE)


def test_without_main_the_body_minus_chrome_counts() -> None:
    a = "<html><body><header>Logo</header><p>Article</p><footer>Visitors: 17 · 10:01 pm</footer></body></html>"
    b = "<html><body><header>Logo 2</header><p>Article</p><footer>Visitors: 18 · 10:02 pm</footer></body></html>"
    c = "<html><body><header>Logo</header><p>Article two</p><footer>Visitors: 17</footer></body></html>"
    assert fingerprint_html(a) == fingerprint_html(b)
    assert fingerprint_html(a) != fingerprint_html(c)


def test_a_single_article_is_the_main_content() -> None:
    a = "<body><aside>Popular: 5 reads</aside><article><h1>T</h1>Text</article><div>Served in 12 ms</div></body>"
    b = "<body><aside>Popular: 9 reads</aside><article><h1>T</h1>Text</article><div>Served in 40 ms</div></body>"
    assert fingerprint_html(a) == fingerprint_html(b)


@pytest.mark.parametrize(("text", "expected"), [
    ("Updated Tuesday, Nov 24, 2026 at 8:50 pm UTC", "updated at"),
    ("Posted 3 minutes ago by Ann", "posted by ann"),
    ("Posted an hour ago by Ann", "posted by ann"),
    ("You are visitor #1234 (1,234 views)", "you are visitor ( )"),
    ("ts 1732438212 id a8F3kd9s0Q1w2e3r4t5y end; build 2f9a1c3e", "ts id end; build"),
    ("24/11/2026 and 2026-11-24T08:50:50+01:00, 24th of November", "and ,"),
    ("Served in 12 ms", "served in"),
    ("Price 10 EUR for 3 items, see section 4.2", "price 10 eur for 3 items, see section 4.2"),
    ("The state-of-the-art edition", "the state-of-the-art edition"),
])
def test_normalise_text(text: str, expected: str) -> None:
    assert normalise_text(text) == expected


def test_honest_lastmod_rule() -> None:
    t1, t2, obs = "2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z", "2024-07-01T00:00:00Z"
    assert honest_lastmod("f", None, None, obs) is None  # first sight, nothing dates the page
    assert honest_lastmod("f", None, t1, obs) == t1  # first sight, stated
    assert honest_lastmod("f", ("f", t1), t2, obs) == t1  # unchanged: a newer Last-Modified / mtime does not move it
    assert honest_lastmod("f", ("f", None), None, obs) is None
    assert honest_lastmod("g", ("f", t1), t2, obs) == t2  # changed and dated later: that date
    assert honest_lastmod("g", ("f", t2), t1, obs) == obs  # changed, stale date: when the change was seen
    assert honest_lastmod("g", ("f", t1), None, obs) == obs
