"""The entry model: normalisation, validation errors, JSON form."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from sitemapkit import (
    Alternate,
    Changefreq,
    Image,
    InvalidEntryError,
    InvalidValueError,
    LastMod,
    News,
    SitemapRef,
    UrlEntry,
    Video,
)
from sitemapkit.core import (
    Precision,
    VideoPlatform,
    VideoRestriction,
    VideoUploader,
    entry_from_dict,
    entry_to_dict,
    iri_to_uri,
    parse_lastmod_lenient,
)


class TestLoc:
    def test_plain_url_unchanged(self) -> None:
        assert UrlEntry("https://example.com/a?b=1&c=2").loc == "https://example.com/a?b=1&c=2"

    def test_whitespace_stripped(self) -> None:
        assert UrlEntry("  https://example.com/a\n\t").loc == "https://example.com/a"

    def test_non_ascii_path_and_query_percent_encoded_as_utf8(self) -> None:
        assert UrlEntry("http://www.example.com/ümlat.html?q=näme").loc == (
            "http://www.example.com/%C3%BCmlat.html?q=n%C3%A4me"
        )

    def test_idn_host(self) -> None:
        assert UrlEntry("https://bücher.example/x").loc == "https://xn--bcher-kva.example/x"

    def test_existing_escapes_never_double_encoded(self) -> None:
        assert iri_to_uri("https://example.com/a%20b/%e4?x=%2F") == "https://example.com/a%20b/%e4?x=%2F"

    def test_stray_percent_is_escaped(self) -> None:
        assert iri_to_uri("https://example.com/100%/x") == "https://example.com/100%25/x"

    def test_space_encoded(self) -> None:
        assert iri_to_uri("https://example.com/a b") == "https://example.com/a%20b"

    @pytest.mark.parametrize("bad", ["/relative/path", "ftp://example.com/f", "https:///nohost", "", "   ", "None"])
    def test_invalid_locs_raise(self, bad: str) -> None:
        with pytest.raises(InvalidEntryError) as info:
            UrlEntry(bad)
        assert info.value.field == "loc"

    def test_length_limit_counts_encoded_form(self) -> None:
        UrlEntry("https://example.com/" + "a" * (2048 - 20))
        with pytest.raises(InvalidEntryError, match="2048"):
            UrlEntry("https://example.com/" + "a" * (2048 - 19))
        # 700 'é' are 2,100 characters once percent-encoded (%C3%A9 each) -> too long
        with pytest.raises(InvalidEntryError, match="once encoded"):
            UrlEntry("https://example.com/" + "é" * 700)


class TestFields:
    @pytest.mark.parametrize("p", [-0.1, 1.01, float("nan"), "high"])
    def test_priority_out_of_range(self, p: object) -> None:
        with pytest.raises(InvalidEntryError, match="priority"):
            UrlEntry("https://example.com/", priority=p)  # type: ignore[arg-type]

    def test_priority_string_accepted(self) -> None:
        assert UrlEntry("https://example.com/", priority="0.8").priority == 0.8  # type: ignore[arg-type]

    def test_changefreq_enum_and_strings(self) -> None:
        assert UrlEntry("https://example.com/", changefreq="WEEKLY").changefreq is Changefreq.WEEKLY  # type: ignore[arg-type]
        with pytest.raises(InvalidEntryError, match="changefreq must be one of"):
            UrlEntry("https://example.com/", changefreq="sometimes")  # type: ignore[arg-type]

    def test_video_requires_fields(self) -> None:
        with pytest.raises(InvalidEntryError, match="content_loc or player_loc"):
            Video("https://example.com/t.jpg", "T", "D")
        with pytest.raises(InvalidEntryError, match=r"video\.title"):
            Video("https://example.com/t.jpg", "", "D", content_loc="https://example.com/v.mp4")
        with pytest.raises(InvalidEntryError, match=r"video\.rating"):
            Video("https://example.com/t.jpg", "T", "D", content_loc="https://example.com/v.mp4", rating=6)

    def test_news_requires_fields(self) -> None:
        with pytest.raises(InvalidEntryError, match=r"news\.title"):
            News("The Paper", "en", "2024-05-01", "")
        with pytest.raises(InvalidEntryError, match="publication_date"):
            News("The Paper", "en", "yesterday", "T")  # type: ignore[arg-type]

    def test_entries_are_frozen_and_slotted(self) -> None:
        e = UrlEntry("https://example.com/")
        with pytest.raises(AttributeError):
            e.loc = "https://other.example/"  # type: ignore[misc]
        assert not hasattr(e, "__dict__")

    def test_lists_become_tuples(self) -> None:
        e = UrlEntry("https://example.com/", images=[Image("https://cdn.example.com/a.jpg")])  # type: ignore[arg-type]
        assert isinstance(e.images, tuple)


class TestLastMod:
    @pytest.mark.parametrize(
        ("text", "precision"),
        [
            ("2024", Precision.YEAR),
            ("2024-05", Precision.MONTH),
            ("2024-05-01", Precision.DAY),
            ("2024-05-01T10:00+05:00", Precision.MINUTE),
            ("2024-05-01T10:00:30Z", Precision.SECOND),
            ("2024-05-01T10:00:30.123-03:30", Precision.FRACTION),
        ],
    )
    def test_keeps_text_and_precision(self, text: str, precision: Precision) -> None:
        lm = LastMod(text)
        assert lm.text == text
        assert lm.precision is precision

    def test_offset_is_kept_not_rewritten_to_utc(self) -> None:
        lm = LastMod.of(datetime(2024, 5, 1, 10, 0, tzinfo=timezone(timedelta(hours=5))))
        assert lm.text == "2024-05-01T10:00:00+05:00"
        assert lm.to_datetime().utcoffset() == timedelta(hours=5)

    def test_date_stays_date(self) -> None:
        assert LastMod.of(date(2024, 5, 1)).text == "2024-05-01"

    def test_fraction_kept(self) -> None:
        assert LastMod.of(datetime(2024, 5, 1, 10, 0, 0, 250000, tzinfo=UTC)).text == "2024-05-01T10:00:00.25Z"

    @pytest.mark.parametrize("bad", ["2024-13-01", "2024-02-30", "2024-05-01T25:00Z", "yesterday", "2024/05/01"])
    def test_invalid(self, bad: str) -> None:
        with pytest.raises(InvalidValueError):
            LastMod(bad)

    def test_strictness_views(self) -> None:
        assert not LastMod("2024-05-01T10:00:00").is_strict_w3c
        assert LastMod("2024-05-01T10:00:00").is_xsd_valid
        assert LastMod("2024-05").is_strict_w3c
        assert not LastMod("2024-05").is_xsd_valid

    @pytest.mark.parametrize(
        ("raw", "expected"),
        [
            ("2024-05-01T10:00:00+0200", "2024-05-01T10:00:00+02:00"),
            ("2024-05-01 10:00:00", "2024-05-01T10:00:00"),
            ("2024-05-01t10:00:00z", "2024-05-01T10:00:00Z"),
            ("Tue, 10 Jun 2003 04:00:00 GMT", "2003-06-10T04:00:00Z"),
            ("Tue, 10 Jun 2003 04:00:00 +0530", "2003-06-10T04:00:00+05:30"),
            ("10 Jun 03 04:00:00 -0100", "2003-06-10T04:00:00-01:00"),
        ],
    )
    def test_lenient_forms(self, raw: str, expected: str) -> None:
        lm = parse_lastmod_lenient(raw)
        assert lm is not None
        assert lm.text == expected

    def test_lenient_gives_none_for_garbage(self) -> None:
        assert parse_lastmod_lenient("next tuesday") is None
        assert parse_lastmod_lenient("") is None


class TestJson:
    def test_round_trip_everything(self) -> None:
        e = UrlEntry(
            "https://example.com/a",
            lastmod="2024-05-01T10:00:00+05:00",
            changefreq=Changefreq.DAILY,
            priority=0.7,
            images=(Image("https://cdn.example.com/a.jpg", title="deprecated title"),),
            videos=(
                Video(
                    "https://example.com/t.jpg",
                    "Title",
                    "Desc",
                    content_loc="https://example.com/v.mp4",
                    duration=60,
                    tags=("a", "b"),
                    restriction=VideoRestriction("allow", ("US", "CA")),  # type: ignore[arg-type]
                    platform=VideoPlatform("deny", ("tv",)),  # type: ignore[arg-type]
                    uploader=VideoUploader("Me", "https://example.com/me"),
                ),
            ),
            news=News("The Paper", "en", "2024-05-01T10:00:00Z", "Headline", keywords=("x", "y")),
            alternates=(Alternate("de", "https://example.com/de/a"), Alternate("x-default", "https://example.com/a")),
            mobile=True,
        )
        d = entry_to_dict(e)
        assert d["kind"] == "url"
        assert d["lastmod"] == "2024-05-01T10:00:00+05:00"
        assert d["videos"][0]["restriction"] == {"relationship": "allow", "countries": ["US", "CA"]}
        assert entry_from_dict(d) == e

    def test_sitemap_ref(self) -> None:
        ref = SitemapRef("https://example.com/s1.xml", "2024-05-01")
        assert entry_from_dict(entry_to_dict(ref)) == ref

    def test_unknown_field_named(self) -> None:
        with pytest.raises(InvalidEntryError, match="unknown field"):
            entry_from_dict({"loc": "https://example.com/", "lastmodified": "2024"})

    def test_nested_error_named(self) -> None:
        with pytest.raises(InvalidEntryError, match=r"image\.loc"):
            entry_from_dict({"loc": "https://example.com/", "images": [{"loc": "/rel.jpg"}]})


class TestHandWrittenInit:
    def test_init_parameters_are_the_fields_in_order(self) -> None:
        import dataclasses
        import inspect

        params = list(inspect.signature(UrlEntry.__init__).parameters)[1:]
        fields = dataclasses.fields(UrlEntry)
        assert params == [f.name for f in fields]
        defaults = {n: p.default for n, p in inspect.signature(UrlEntry.__init__).parameters.items()}
        assert all(defaults[f.name] == f.default for f in fields if f.default is not dataclasses.MISSING)

    def test_keywords_positionals_and_replace(self) -> None:
        import dataclasses

        a = UrlEntry("https://example.com/a", "2024-05-01", "daily", 0.5, mobile=True)
        b = UrlEntry(loc="https://example.com/a", lastmod=LastMod("2024-05-01"), changefreq=Changefreq.DAILY,
                     priority=0.5, mobile=True)
        assert a == b
        assert hash(a) == hash(b)
        c = dataclasses.replace(a, loc="https://example.com/ü")
        assert c.loc == "https://example.com/%C3%BC"
        assert c.lastmod == a.lastmod
        assert c.mobile is True
        with pytest.raises(InvalidEntryError):
            dataclasses.replace(a, priority=3)


@pytest.mark.parametrize(
    ("source", "is_url"),
    [
        ("https://example.com/sitemap.xml", True),
        ("HTTP://Example.com/", True),
        ("http://", False),  # no host: not something to fetch
        ("sitemap.xml", False),
        ("-", False),
        ("ftp://example.com/sitemap.xml", False),
        ("./http:/x.xml", False),
    ],
)
def test_is_url_source(source: str, is_url: bool) -> None:
    from sitemapkit.core._urls import is_url_source

    assert is_url_source(source) is is_url
