"""Issue 22: the reader's answer does not depend on how much arrives in one feed (libxml2's buffer limit, long
text lines), and the over-limit notes do not claim every URL was read when reading stopped."""

from __future__ import annotations

from collections.abc import Sequence

from sitemapkit import SitemapParser, parse_bytes
from sitemapkit.core._problems import Problem
from sitemapkit.read import Event
from sitemapkit.read._text import MAX_LINE_CHARS

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _in_pieces(data: bytes, size: int) -> list[Event]:
    parser = SitemapParser("doc")
    events: list[Event] = []
    for start in range(0, len(data), size):
        events += parser.feed(data[start:start + size])
    return events + parser.close()


def _problems(events: Sequence[object]) -> list[tuple[str, int | None, str]]:
    return [(e.code, e.location.line, e.message) for e in events if isinstance(e, Problem)]


def test_a_10_mb_urlset_in_one_feed_is_read_to_the_end() -> None:
    """A well-formed urlset of more than 10 MB whose blocks the fast lane hands to lxml (a comment in each loc)
    ended with SM104 "Buffer size limit exceeded" one entry short when given in one feed; fed in 64 KiB pieces
    it was read whole. lxml now gets at most 1 MiB at a time, however the bytes arrive."""
    entry = "<url><loc>https://www.acme-widgets.com/{}<!-- c -->" + "a" * 2000 + "</loc></url>\n"
    data = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
            + "".join(entry.format(i) for i in range(5200)) + "</urlset>\n").encode()
    assert len(data) > 10_000_000
    whole = parse_bytes(data)
    assert whole.problems == ()
    assert len(whole.entries) == 5200
    pieces = _in_pieces(data, 64 * 1024)
    assert [e for e in pieces if not isinstance(e, Problem)] == list(whole.entries)


def test_a_long_text_line_is_the_same_problem_in_one_feed_and_in_pieces() -> None:
    """A 70,000-character line was SM124 "not an absolute URL" when it arrived whole, and "line longer than
    65,536 characters" when it arrived in pieces."""
    data = b"https://www.acme-widgets.com/a\n" + b"x" * 70_000 + b"\nhttps://www.acme-widgets.com/b\n"
    whole = _problems(parse_bytes(data).problems)
    expected = [("SM124", 2, f"line longer than {MAX_LINE_CHARS:,} characters; skipped")]
    assert whole == expected
    for size in (1000, 65_536, 69_999, 70_031, 200_000):
        assert _problems(_in_pieces(data, size)) == expected, size
    assert len(parse_bytes(data).entries) == 2


def test_a_long_last_line_without_a_line_feed() -> None:
    data = b"https://www.acme-widgets.com/a\n" + b"y" * (MAX_LINE_CHARS + 5)
    expected = [("SM124", 2, f"line longer than {MAX_LINE_CHARS:,} characters; skipped")]
    assert _problems(parse_bytes(data).problems) == expected
    assert _problems(_in_pieces(data, 4096)) == expected


def test_over_limit_notes_do_not_claim_every_url_was_read_when_reading_stopped() -> None:
    """SM131/SM132 said "every URL was read" next to SM112 "reading stopped"."""
    entry = "<url><loc>https://www.acme-widgets.com/{}</loc></url>\n"
    body = "".join(entry.format(i) for i in range(50_200))
    data = f'<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()
    stopped = parse_bytes(data, max_decompressed_bytes=len(data) - 2000)
    codes = [p.code for p in stopped.problems]
    assert "SM112" in codes
    note = next(p for p in stopped.problems if p.code == "SM131")
    assert "every URL was read" not in note.message
    assert "reading stopped" in note.message
    complete = parse_bytes(data)
    assert "every URL was read" in next(p for p in complete.problems if p.code == "SM131").message
