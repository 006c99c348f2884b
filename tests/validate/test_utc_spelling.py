"""One spelling for UTC where a time is written for people: ``Z`` (``+00:00`` is still read)."""

from __future__ import annotations

from sitemapkit.core import CODES
from sitemapkit.validate._driver import validate_bytes

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
NEWS = "http://www.google.com/schemas/sitemap-news/0.9"


def _messages(body: str, now: str) -> list[str]:
    doc = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:news="{NEWS}">\n{body}'
           "</urlset>\n").encode()
    return [p.message for p in validate_bytes(doc, now=now).problems]


def test_future_and_news_messages_write_the_reference_time_with_z() -> None:
    news = ("<news:news><news:publication><news:name>N</news:name><news:language>en</news:language>"
            "</news:publication><news:publication_date>{}</news:publication_date><news:title>T</news:title>"
            "</news:news>")
    body = (f"<url><loc>https://example.org/a</loc><lastmod>2030-01-01T00:00:00+00:00</lastmod></url>\n"
            f"<url><loc>https://example.org/b</loc>{news.format('2030-01-01T00:00:00+00:00')}</url>\n"
            f"<url><loc>https://example.org/c</loc>{news.format('2020-01-01T00:00:00Z')}</url>\n")
    messages = _messages(body, "2024-05-01T12:00:00.250+00:00")
    about_now = [m for m in messages if "2024-05-01T12:00:00" in m]
    assert len(about_now) == 3, messages  # lastmod in the future, news date in the future, news too old
    assert all("2024-05-01T12:00:00Z" in m for m in about_now), about_now
    assert not any("12:00:00+00:00" in m for m in messages), messages  # the values quoted from the file stay


def test_fix_hints_of_the_registry_write_utc_as_z() -> None:
    hints = {code: c.fix for code, c in CODES.items() if c.fix}
    assert {"SM118", "SM119", "SM320", "SM424"} <= hints.keys()
    assert [code for code, fix in hints.items() if "+00:00" in fix] == []
    assert "ssZ" in hints["SM320"]
    assert "00Z" in hints["SM424"]
