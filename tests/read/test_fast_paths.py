"""The reader's fast paths build exactly what the validating constructors build, and reject what they reject."""

from __future__ import annotations

import dataclasses
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import Alternate, Changefreq, Image, InvalidEntryError, LastMod, UrlEntry, iter_events, parse_bytes
from sitemapkit.core._errors import InvalidValueError
from sitemapkit.core._extensions import make_alternate, plain_image
from sitemapkit.core._lastmod import _VALID_BY_FORM, lastmod_of_valid_form
from sitemapkit.core._model import canonical_url_entry
from sitemapkit.core._urls import SIMPLE_URI

# The patterns as they were before they were made possessive (the language must not change).
_OLD_SIMPLE_URI = re.compile(
    r"https?://[A-Za-z0-9](?:[A-Za-z0-9.\-]*[A-Za-z0-9])?(?::[0-9]{1,5})?"
    r"(?:[/?#](?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#]|%[0-9A-Fa-f]{2})*)?"
)
_OLD_VALID_BY_FORM = re.compile(  # ASCII digits, no year 0000 (issue 10 item 2)
    r"(?!0000)\d{4}(?:-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|1\d|2[0-8])"
    r"(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-](?:0\d|1[0-3]):[0-5]\d)?)?)?)?",
    re.ASCII,
)

URL = "https://example.com/a/b.html?x=1"


def _mutants(base: str, alphabet: str, count: int, seed: int) -> list[str]:
    rnd = random.Random(seed)
    out = []
    for _ in range(count):
        chars = list(base[:rnd.randint(0, len(base))])
        for _ in range(rnd.randint(0, 3)):
            op = rnd.random()
            if op < 0.4 and chars:
                chars[rnd.randrange(len(chars))] = rnd.choice(alphabet)
            elif op < 0.7:
                chars.insert(rnd.randint(0, len(chars)), rnd.choice(alphabet))
            elif chars:
                del chars[rnd.randrange(len(chars))]
        out.append("".join(chars))
    return out


def test_possessive_simple_uri_accepts_the_same_language() -> None:
    texts = _mutants("https://a-b.example.com:8080/p%41th/x;y?q=1&r=%zz#frag", "a9-._~!$&'()*+,;=:@/?#% é[]", 20000, 1)
    for text in texts:
        assert (SIMPLE_URI.fullmatch(text) is None) == (_OLD_SIMPLE_URI.fullmatch(text) is None), text


def test_possessive_lastmod_form_accepts_the_same_language() -> None:
    texts = _mutants("2024-01-28T23:59:59.123+13:59", "0123456789-T:.Z+ \u0661", 20000, 2)
    for text in texts:
        assert (_VALID_BY_FORM(text) is None) == (_OLD_VALID_BY_FORM.fullmatch(text) is None), text


def test_simple_uri_stays_linear_on_a_long_failing_path() -> None:
    assert SIMPLE_URI.fullmatch("https://example.com/" + "a" * 100_000 + " ") is None


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.from_regex(r"\A\d{4}(-\d{2}(-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?)?)?\Z"),
    st.text(max_size=30),
))
def test_lastmod_of_valid_form_matches_the_constructor(text: str) -> None:
    fast = lastmod_of_valid_form(text)
    try:
        slow: LastMod | None = LastMod(text)
    except InvalidValueError:
        slow = None
    if fast is not None:
        assert slow is not None
        assert fast == slow
        assert hash(fast) == hash(slow)
        assert type(fast) is LastMod
    elif slow is not None:  # valid, just not in a form valid by construction (e.g. 29th of February)
        assert _VALID_BY_FORM(text) is None


def test_canonical_url_entry_equals_the_constructor_and_stays_frozen() -> None:
    lm = LastMod("2024-05-01T10:00:00+02:00")
    fast = canonical_url_entry(URL, lm, Changefreq.DAILY, 0.5)
    slow = UrlEntry(URL, lm, Changefreq.DAILY, 0.5)
    assert type(fast) is UrlEntry
    assert fast == slow
    assert hash(fast) == hash(slow)
    assert repr(fast) == repr(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.loc = "https://other.example/"  # type: ignore[misc]
    assert dataclasses.replace(fast, priority=0.7).priority == 0.7
    images = (Image("https://example.com/i.jpg"),)
    alternates = (Alternate("de", "https://example.com/de/"),)
    full = canonical_url_entry(URL, None, None, None, images, (), None, alternates, True)
    assert full == UrlEntry(URL, None, None, None, images, (), None, alternates, True)


def test_canonical_url_entry_falls_back_to_the_constructor_checks() -> None:
    assert canonical_url_entry(URL, None, None, 1).priority == 1.0  # type: ignore[arg-type]  # int -> float
    assert canonical_url_entry(URL, None, "weekly", None).changefreq is Changefreq.WEEKLY  # type: ignore[arg-type]
    with pytest.raises(InvalidEntryError, match="priority"):
        canonical_url_entry(URL, None, None, 1.5)
    with pytest.raises(InvalidEntryError, match="changefreq"):
        canonical_url_entry(URL, None, "sometimes", None)  # type: ignore[arg-type]
    assert canonical_url_entry(URL, "2024-05-01", None, None).lastmod == LastMod("2024-05-01")  # type: ignore[arg-type]


@pytest.mark.parametrize("loc", ["https://example.com/i.jpg", "https://bücher.example/ä b.jpg",
                                 "  https://x.example/  "])
def test_plain_image_equals_image(loc: str) -> None:
    assert plain_image(loc) == Image(loc)
    assert type(plain_image(loc)) is Image


@pytest.mark.parametrize("loc", ["/relative.jpg", "ftp://example.com/i.jpg", "", "https://example.com/" + "a" * 2100])
def test_plain_image_rejects_what_image_rejects(loc: str) -> None:
    with pytest.raises(InvalidEntryError) as slow:
        Image(loc)
    with pytest.raises(InvalidEntryError) as fast:
        plain_image(loc)
    assert str(fast.value) == str(slow.value)


@pytest.mark.parametrize(("hreflang", "href"), [
    ("de", "https://example.com/de/"), (" en ", "https://example.com/"), ("x-default", "https://bücher.example/"),
])
def test_make_alternate_equals_alternate(hreflang: str, href: str) -> None:
    assert make_alternate(hreflang, href) == Alternate(hreflang, href)
    assert type(make_alternate(hreflang, href)) is Alternate


@pytest.mark.parametrize(("hreflang", "href"), [("", "https://example.com/"), ("  ", "https://example.com/"),
                                                ("de", "/de/"), ("de", "mailto:a@example.com")])
def test_make_alternate_rejects_what_alternate_rejects(hreflang: str, href: str) -> None:
    with pytest.raises(InvalidEntryError) as slow:
        Alternate(hreflang, href)
    with pytest.raises(InvalidEntryError) as fast:
        make_alternate(hreflang, href)
    assert str(fast.value) == str(slow.value)


def test_many_distinct_lastmods_then_repeated_ones_read_correctly() -> None:
    # More distinct texts than the lastmod memo holds (it stops memoising), then repeats and odd forms.
    texts = [f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{i // 60 % 60:02d}Z"
             for i in range(9000)]
    texts += ["2024-05-01"] * 50 + ["2024-02-29", " 2024-05-01 ", "2024-05-01 10:00:00+0200", "bad"]
    body = "".join(f"<url><loc>https://example.com/{i}</loc><lastmod>{t}</lastmod></url>\n"
                   for i, t in enumerate(texts))
    doc = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>'.encode()
    result = parse_bytes(doc)
    assert len(result.entries) == len(texts)
    for entry, text in zip(result.entries, texts, strict=True):
        if text == "bad":
            assert entry.lastmod is None
        elif text == "2024-05-01 10:00:00+0200":
            assert entry.lastmod == LastMod("2024-05-01T10:00:00+02:00")
        else:
            assert entry.lastmod == LastMod(text.strip())
    assert [p.code for p in result.problems] == ["SM119", "SM118"]


def test_iter_events_opens_the_file_lazily(tmp_path: Path) -> None:
    missing = tmp_path / "missing.xml"
    events = iter_events(missing)  # no error yet: nothing is read before iteration starts
    with pytest.raises(FileNotFoundError):
        next(iter(events))
