"""The IRI fast path of iri_to_uri (SIMPLE_IRI: a plain URI but for raw non-ASCII characters after the host) gives
exactly what the general path gives, and takes every IRI of that form."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.core._errors import InvalidEntryError
from sitemapkit.core._urls import SIMPLE_IRI, SIMPLE_URI, _general_iri_to_uri, iri_to_uri, normalize_loc

_TAIL = st.lists(
    st.sampled_from([*"aZ09-._~!$&'()*+,;=:@/?#%", "%41", "%c3%bc", " ", "\t", "ü", "é", "ß", "€",
                    "例", "\u00a0", "\u2028", "\u3000", "😀", "\u0085", "\ufffd", "\U0010fffd"]),
    max_size=30,
).map("".join)
_HOSTS = st.sampled_from(["example.com", "EXAMPLE.com:8080", "a", "a-b.c", "127.0.0.1:80"])


@settings(max_examples=1000)
@given(scheme=st.sampled_from(["http", "https"]), host=_HOSTS, first=st.sampled_from("/?#"), tail=_TAIL)
def test_fast_path_equals_the_general_path(scheme: str, host: str, first: str, tail: str) -> None:
    url = f"{scheme}://{host}{first}{tail}"
    if SIMPLE_URI.fullmatch(url):
        return  # returned as it is, before either path (an older rule, not this one's)
    general = _general_iri_to_uri(url)
    assert iri_to_uri(url) == general
    # an IRI the general path only percent-encodes: the fast path must have taken it
    if (not url.isascii() and SIMPLE_URI.fullmatch(general) and all(c not in url for c in " \t%")
            and "?#" not in url and url[-1] not in "?#"):
        assert SIMPLE_IRI.fullmatch(url)


def test_examples() -> None:
    assert iri_to_uri("https://example.com/grüße?q=é&x=1#ß") == "https://example.com/gr%C3%BC%C3%9Fe?q=%C3%A9&x=1#%C3%9F"
    assert iri_to_uri("https://example.com/😀") == "https://example.com/%F0%9F%98%80"
    assert SIMPLE_IRI.fullmatch("https://例え.jp/x") is None  # the host needs IDNA: general path
    assert iri_to_uri("https://例え.jp/x") == "https://xn--r8jz45g.jp/x"
    assert SIMPLE_IRI.fullmatch("https://example.com/\ud800") is None  # a lone surrogate: general path, refused
    with pytest.raises(InvalidEntryError, match="surrogate"):
        iri_to_uri("https://example.com/\ud800")
    assert normalize_loc(" https://example.com/ü ") == "https://example.com/%C3%BC"


_URI_CHARS = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?#%\[\]]+")


@settings(max_examples=1000)
@given(st.lists(st.sampled_from(["http://", "https://", "a", "b.com", "<", ">", '"', "'", "&", "\x01", "\x7f", " ",
                                 "ü", "例", "@", ":", "80", "/", "?", "#", "%", "%3C", "[", "]", "{", "|", "\\", "^",
                                 "`", ".", "-", "\t"]), min_size=1, max_size=12).map("".join))
def test_a_loc_the_model_accepts_holds_only_uri_characters(text: str) -> None:
    # Writers escape only & and ' in a model loc (write/_render.py): anything else XML or a URI cannot hold, such
    # as a "<" or a control character in the host, must have been encoded or refused by the model.
    try:
        loc = normalize_loc(text)
    except InvalidEntryError:
        return
    assert _URI_CHARS.fullmatch(loc), loc


def test_a_host_with_characters_no_host_may_hold_is_refused() -> None:
    for bad in ("http://a<b.com/x", 'http://a"b.com/', "http://a\x01b.com/", "http://a{b}.com/"):
        with pytest.raises(InvalidEntryError, match="not allowed in a host"):
            normalize_loc(bad)
    assert normalize_loc("http://[::1]:8080/x") == "http://[::1]:8080/x"
    assert normalize_loc("http://user:p%40ss@example.com/") == "http://user:p%40ss@example.com/"
    assert normalize_loc("https://user\x1bc\x07@e.org/x") == "https://user%1Bc%07@e.org/x"  # userinfo encoded
