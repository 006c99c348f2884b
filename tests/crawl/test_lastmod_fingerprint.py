"""The content fingerprint (boilerplate-insensitive, content-sensitive) and the honest-lastmod rule."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.crawl import _fingerprint as F
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


def _clean_words_one_by_one(words: list[str]) -> str:
    """The word pass as first written, a word at a time: the reference for the faster one."""
    special = {w for w in set(words) if F._needs_look(w)}
    out: list[str] = []
    numbers_to_drop = 0
    previous = ""
    for word in words:
        if word not in special:
            out.append(word)
            previous = word
            numbers_to_drop = 0
            continue
        key = word.strip(F._PUNCT)
        if numbers_to_drop and F._numeric(word):
            numbers_to_drop -= 1
            continue
        numbers_to_drop = 0
        if key in F._MONTHS:
            numbers_to_drop = 2
            continue
        if key in F._WEEKDAYS or key in F._CLOCK_WORDS:
            if key == "ago" and out and out[-1].strip(F._PUNCT) in F._UNITS:
                out.pop()
                if out and out[-1].strip(F._PUNCT) in ("a", "an", "one"):
                    out.pop()
            continue
        if previous in F._COUNTER_WORDS and F._numeric(word):
            continue
        if previous in F._BUILD_WORDS and len(key) >= 6 and any(c.isdigit() for c in key) and key.isalnum():
            continue
        if len(key) >= 16 and F._is_token(word):
            continue
        out.append(word)
        previous = key
    return " ".join(out)


# Month, plain, number, counter, build id, token, clock and unit words: every sequence of up to four of them.
_WORDS = ["nov", "text", "24", "2026,", "an", "hour", "ago", "visitors:", "build", "2f9a1c3e", "a8f3kd9s0q1w2e3r4t5y",
          "pm"]


def test_word_pass_agrees_with_the_word_at_a_time_reference() -> None:
    for n in range(5):
        for words in itertools.product(_WORDS, repeat=n):
            assert F._clean_words(list(words)) == _clean_words_one_by_one(list(words)), words


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="aTV_b/.~-?=&#%+:", max_size=24) | st.text(alphabet="ab./?=&#", max_size=12).map(
    lambda h: h + "&t=123&ref=a8f3kd9s0q1w2e3r4t5y"))
def test_plain_hrefs_agree_with_the_general_path(href: str) -> None:
    # The shortcut for plain relative links gives what urlsplit, parse_qsl and urlencode give.
    plain = F._plain_href(href)
    if plain is not None:
        assert plain == F._general_href(href)


@pytest.mark.parametrize("href", ["p2.html#comments", "p2.html?utm_source=feed&utm_medium=rss", "p?a", "p?a=b=c",
                                  "?x=1&v=2#f", "//host/p?x=1", "p?sessionid=abc12&q=1&&", "../p?=1&=", "p?"])
def test_plain_href_examples(href: str) -> None:
    assert F._normalise_href(href) == F._general_href(href.strip())
