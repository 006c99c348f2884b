"""changefreq / priority hints: defaults, rules by URL path (first match wins), priority by depth, bad values."""

from __future__ import annotations

import pytest

from sitemapkit.core import Changefreq, ConfigurationError, UrlEntry, depth_priority, parse_hints


def test_nothing_given_is_none() -> None:
    assert parse_hints(None, None, ()) is None
    assert parse_hints("", "", ["  "]) is None


def test_first_matching_rule_wins_then_the_defaults() -> None:
    hints = parse_hints("monthly", "0.4", ["/blog/* changefreq=weekly priority=0.6", "/blog/old/* priority=0.1",
                                           "shop/* changefreq=daily"])
    assert hints is not None
    assert hints.values("https://a.test/blog/old/x") == (Changefreq.WEEKLY, 0.6)  # the first rule, not the second
    assert hints.values("https://a.test/shop/item") == (Changefreq.DAILY, 0.4)  # "shop/*" is "/shop/*"
    assert hints.values("https://a.test/about") == (Changefreq.MONTHLY, 0.4)
    assert hints.values("https://a.test/blog") == (Changefreq.MONTHLY, 0.4)  # "/blog/*" needs the slash


def test_depth_priority() -> None:
    assert [depth_priority(u) for u in ("https://a.test/", "https://a.test/a/", "https://a.test/a/b",
                                        "https://a.test/" + "x/" * 20)] == [1.0, 0.9, 0.8, 0.1]
    hints = parse_hints(None, "depth", ["/docs/* priority=0.3"])
    assert hints is not None
    assert hints.values("https://a.test/") == (None, 1.0)
    assert hints.values("https://a.test/docs/a/b/c") == (None, 0.3)


def test_an_entrys_own_values_are_kept() -> None:
    hints = parse_hints("weekly", "0.5", [])
    assert hints is not None
    own = UrlEntry("https://a.test/x", changefreq="daily")
    got = hints.apply(own)
    assert (got.changefreq, got.priority) == (Changefreq.DAILY, 0.5)
    both = UrlEntry("https://a.test/x", changefreq="never", priority=0.9)
    assert hints.apply(both) is both


@pytest.mark.parametrize(("args", "message"), [
    (("sometimes", None, ()), "--changefreq: changefreq must be one of"),
    ((None, "1.5", ()), "--priority: priority must be a number from 0.0 to 1.0 or 'depth', not '1.5'"),
    ((None, "nan", ()), "--priority"),
    ((None, None, ["/blog/*"]), "--rule: expected 'GLOB changefreq=VALUE priority=VALUE'"),
    ((None, None, ["/blog/* weight=2"]), "--rule: unknown key 'weight'"),
    ((None, None, ["/blog/* priority"]), "is not KEY=VALUE"),
    ((None, None, ["/blog/* changefreq=often"]), "--rule '/blog/* changefreq=often': changefreq must be"),
])
def test_bad_values_name_the_option_and_the_value(args: tuple[str | None, str | None, tuple[str, ...]],
                                                  message: str) -> None:
    with pytest.raises(ConfigurationError, match=message.replace("*", r"\*").replace("(", r"\(")
                       .replace(")", r"\)").replace(".", r"\.")):
        parse_hints(*args)
