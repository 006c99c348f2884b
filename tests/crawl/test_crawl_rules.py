"""Scope, filters and trap rules of the crawler, and option validation (no network)."""

from __future__ import annotations

import pytest

from sitemapkit import ConfigurationError, Crawler, CrawlOptions
from sitemapkit.crawl import CrawlState, Reason, Scope


def crawler(url: str = "https://www.example.com/blog/index.html", **kw: object) -> Crawler:
    return Crawler(url, CrawlState(":memory:"), CrawlOptions(**kw))  # type: ignore[arg-type]


def test_host_scope() -> None:
    c = crawler()
    assert c.in_scope("https://www.example.com/other")
    assert not c.in_scope("http://www.example.com/other")  # another scheme is another site
    assert not c.in_scope("https://www.example.com:8443/")
    assert not c.in_scope("https://www.example.com.evil.org/")
    assert not c.in_scope("https://shop.example.com/")


def test_domain_and_prefix_scope() -> None:
    d = crawler(scope=Scope.DOMAIN)
    assert d.in_scope("https://shop.example.com/")
    assert d.in_scope("http://example.com/")
    assert not d.in_scope("https://notexample.com/")
    p = crawler(scope=Scope.PREFIX)
    assert p.in_scope("https://www.example.com/blog/post")
    assert not p.in_scope("https://www.example.com/shop/")


def test_traps_and_filters() -> None:
    c = crawler(max_depth=3, max_query_variants=2, max_url_length=60, exclude=("/private/",),
                include=("example",))
    classify = c._classify  # the rule table is what this test is about
    assert classify("https://www.example.com/a", 3) is None
    assert classify("https://www.example.com/a", 4) == (Reason.TRAP, "deeper than --max-depth 3")
    verdict = classify("https://www.example.com/" + "x" * 60, 1)
    assert verdict is not None
    assert verdict[0] is Reason.TRAP
    assert classify("https://www.example.com/a/b/a/b/a/b/a/b", 1) is not None
    assert [classify(f"https://www.example.com/cal?m={i}", 1) is None for i in range(4)] == [True, True, False, False]
    assert classify("https://www.example.com/private/x", 1) == (Reason.SCOPE, "matches an --exclude pattern")
    assert classify("https://other.org/", 1) is not None


@pytest.mark.parametrize("kw", [{"concurrency": 0}, {"max_pages": 0}, {"delay": -1}, {"include": ("(",)},
                                {"max_depth": -1}])
def test_bad_options(kw: dict[str, object]) -> None:
    with pytest.raises(ConfigurationError):
        CrawlOptions(**kw)  # type: ignore[arg-type]


def test_start_url_must_be_http() -> None:
    with pytest.raises(ConfigurationError):
        crawler("ftp://example.com/")


def test_origin_of_agrees_with_urlsplit() -> None:
    # The shortcut for plain URLs gives urlsplit's scheme://netloc (every string of up to four of these pieces).
    import itertools
    from urllib.parse import urlsplit

    from sitemapkit.crawl._hosts import origin_of

    def reference(url: str) -> str:
        p = urlsplit(url)
        return f"{p.scheme}://{p.netloc}"

    pieces = ["http://", "https://", "HTTP://", "h", "H.org", ":80", "@", "/", "?", "#", "[", "]", "\t", " ", "ä", "//"]
    for n in range(1, 5):
        for combo in itertools.product(pieces, repeat=n):
            url = "".join(combo)
            try:
                expected = reference(url)
            except ValueError:
                continue
            assert origin_of(url) == expected, url


def test_query_variants_past_the_limit_are_not_counted_again() -> None:
    c = crawler(max_query_variants=2)
    counted: list[str] = []
    bump = c.rules._bump

    def counting(path: str) -> int:
        counted.append(path)
        return bump(path)

    c.rules._bump = counting
    verdicts = [c._classify(f"https://www.example.com/cal?d={d}", 1) for d in range(6)]
    assert [v is None for v in verdicts] == [True, True, False, False, False, False]
    assert verdicts[5] == (Reason.TRAP, "more than 2 query variants of https://www.example.com/cal")
    assert len(counted) == 3  # the third variant found the path past the limit; the later ones are not counted
