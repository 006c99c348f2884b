"""Dates whose digits overflow C integers (issue 10, item 2): an unreadable date is a problem on its line and
reading goes on, in the library and through the real CLI (`urls`, `validate`, `generate` from CSV)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sitemapkit import LastMod, parse_bytes
from sitemapkit.core import parse_lastmod_lenient
from sitemapkit.core._errors import InvalidValueError
from sitemapkit.crawl._crawler import _parse_http_date
from sitemapkit.fetch._retry import parse_retry_after
from tests.support.cli import CliResult, run_cli

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HUGE_OFFSET = "Mon, 01 Jan 2024 00:00:00 +99999999999999999999"
HUGE_YEAR = "Mon, 01 Jan 99999999999999999999 00:00:00 GMT"
HOSTILE = [
    HUGE_OFFSET,
    HUGE_YEAR,
    "99999999999999999999",
    "99999999999999999999-01-01",
    "2024-01-01 10:00:00+99999999999999999999",
    "01 Jan 2024 99999999999999999999:00:00 GMT",
    "Mon, 99999999999999999999 Jan 2024 00:00:00 GMT",
    "Mon, 01 Jan 2024 00:00:00 +" + "9" * 5000,
    "0000-01-01",
]


@pytest.mark.parametrize("text", HOSTILE, ids=lambda t: t[:40])
def test_lenient_parser_says_none(text: str) -> None:
    assert parse_lastmod_lenient(text) is None
    with pytest.raises(InvalidValueError):
        LastMod(text)


def test_year_zero_is_out_of_range_and_real_extremes_convert() -> None:
    with pytest.raises(InvalidValueError, match="year out of range"):
        LastMod("0000-01-01T00:00:00Z")
    for text in ("0001-01-01", "9999-12-31T23:59:59-13:59", "0001-01-01T00:00:00+13:00"):
        value = LastMod(text)
        assert value.to_datetime().year in (1, 9999)
        assert value.to_date().year in (1, 9999)


def test_lenient_parser_still_reads_real_rfc822_dates() -> None:
    lm = parse_lastmod_lenient("Mon, 01 Jan 2024 10:00:00 +1400")
    assert lm is not None
    assert lm.text == "2024-01-01T10:00:00+14:00"
    lm = parse_lastmod_lenient("Mon, 01 Jan 24 10:00:00 GMT")
    assert lm is not None
    assert lm.text == "2024-01-01T10:00:00Z"


def test_non_ascii_digits_are_not_w3c() -> None:
    arabic_2024 = "\u0662\u0660\u0662\u0664-\u0660\u0661-\u0660\u0661"
    with pytest.raises(InvalidValueError):
        LastMod(arabic_2024)


def test_http_dates_with_huge_fields_are_ignored() -> None:
    assert _parse_http_date(HUGE_OFFSET) is None
    assert _parse_http_date(HUGE_YEAR) is None
    assert parse_retry_after(HUGE_OFFSET, now=0.0) is None
    assert parse_retry_after(HUGE_YEAR, now=0.0) is None


def _urlset() -> bytes:
    body = "".join(f"<url><loc>https://e.com/{i}</loc><lastmod>{t}</lastmod></url>\n" for i, t in enumerate(HOSTILE))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}'
            "<url><loc>https://e.com/ok</loc><lastmod>2024-01-01</lastmod></url>\n</urlset>\n").encode()


RSS = (f'<?xml version="1.0"?>\n<rss version="2.0"><channel><title>t</title>\n'
       f"<item><link>https://e.com/a</link><pubDate>{HUGE_OFFSET}</pubDate></item>\n"
       f"<item><link>https://e.com/b</link><pubDate>{HUGE_YEAR}</pubDate></item>\n"
       "<item><link>https://e.com/c</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>\n"
       "</channel></rss>\n").encode()
ATOM = (f'<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>\n'
        f'<entry><link href="https://e.com/a"/><updated>{HUGE_YEAR}</updated></entry>\n'
        f'<entry><link href="https://e.com/b"/><updated>{HUGE_OFFSET}</updated></entry>\n'
        '<entry><link href="https://e.com/c"/><updated>2024-01-01T00:00:00Z</updated></entry>\n'
        "</feed>\n").encode()


def test_reader_reports_each_unreadable_lastmod_on_its_line() -> None:
    res = parse_bytes(_urlset())
    assert [e.loc for e in res.entries] == [f"https://e.com/{i}" for i in range(len(HOSTILE))] + ["https://e.com/ok"]
    assert all(e.lastmod is None for e in res.entries[:-1])
    assert res.entries[-1].lastmod == LastMod("2024-01-01")
    bad = [p for p in res.problems if p.code == "SM118"]
    assert [p.location.line for p in bad] == list(range(3, 3 + len(HOSTILE)))


@pytest.mark.parametrize(("doc", "field"), [(RSS, "pubDate"), (ATOM, "updated")], ids=["rss", "atom"])
def test_reader_reports_unreadable_feed_dates(doc: bytes, field: str) -> None:
    res = parse_bytes(doc)
    assert [e.loc for e in res.entries] == ["https://e.com/a", "https://e.com/b", "https://e.com/c"]
    assert [e.lastmod for e in res.entries] == [None, None, LastMod("2024-01-01T00:00:00Z")]
    bad = [p for p in res.problems if p.code == "SM118"]
    assert [p.location.line for p in bad] == [3, 4]
    assert all(field in (p.message or "") for p in bad)


def _cli(*args: str) -> CliResult:
    return run_cli(args)


def test_cli_urls_and_validate_report_lines_not_tracebacks(tmp_path: Path) -> None:
    files = {"set.xml": _urlset(), "feed.xml": RSS, "atom.xml": ATOM}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    paths = [str(tmp_path / name) for name in files]
    r = _cli("urls", *paths)
    assert "Traceback" not in r.stderr
    assert r.returncode == 0, r.stderr
    assert len(r.stdout.splitlines()) == len(HOSTILE) + 1 + 3 + 3
    assert f"{tmp_path / 'set.xml'}:3: warning SM118: " in r.stderr
    assert f"{tmp_path / 'feed.xml'}:3: warning SM118: " in r.stderr
    assert f"{tmp_path / 'atom.xml'}:4: warning SM118: " in r.stderr
    r = _cli("validate", "--now", "2025-01-01", "--format", "json", *paths)  # every problem (text groups them)
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == 1  # SM320 errors for the urlset's lastmods
    at = {(Path(p["source"]).name, p["line"]) for p in json.loads(r.stdout)["problems"]}
    for line in range(3, 3 + len(HOSTILE)):
        assert ("set.xml", line) in at
    assert ("feed.xml", 4) in at
    assert ("atom.xml", 3) in at


@pytest.mark.parametrize("now", ["9999-12-31T23:00:00Z", "0001-01-01"])
def test_cli_validate_now_out_of_range_is_a_usage_error(tmp_path: Path, now: str) -> None:
    (tmp_path / "set.xml").write_bytes(_urlset())
    r = _cli("validate", "--now", now, str(tmp_path / "set.xml"))
    assert "Traceback" not in r.stderr
    assert r.returncode == 2, r.stderr
    assert "--now" in r.stderr
    assert "out of range" in r.stderr


def test_validator_near_calendar_ends(tmp_path: Path) -> None:
    from sitemapkit import validate_sitemaps

    (tmp_path / "set.xml").write_bytes(
        f'<?xml version="1.0"?>\n<urlset xmlns="{NS}"><url><loc>https://e.com/a</loc>'
        "<lastmod>9999-12-31T23:59:59-13:59</lastmod></url><url><loc>https://e.com/b</loc>"
        "<lastmod>0001-01-01T00:00:00+13:00</lastmod></url></urlset>\n".encode())
    for now in (datetime(9999, 12, 29, tzinfo=UTC), datetime(1, 1, 3, tzinfo=UTC)):
        report = validate_sitemaps([tmp_path / "set.xml"], now=now)  # no OverflowError
        assert [f.entries for f in report.files] == [2]


def test_cli_generate_csv_reports_the_line(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text("loc,lastmod\n"
                   f'https://e.com/a,"{HUGE_OFFSET}"\n'
                   f'https://e.com/b,"{HUGE_YEAR}"\n'
                   "https://e.com/c,2024-01-01\n"
                   "https://e.com/d,99999999999999999999\n", encoding="utf-8")
    out = tmp_path / "out"
    r = _cli("generate", "--out", str(out), "--base-url", "https://e.com/", str(src))
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode == 1
    for line in (2, 3, 5):
        assert f"{src}:{line}: error SM610: lastmod" in r.stderr
    written = (out / "sitemap.xml").read_text(encoding="utf-8")
    assert "https://e.com/c" in written
    assert "https://e.com/a" not in written
