"""Issue 10 item 5: a text sitemap with an enormous line costs bounded memory, time and output. Lines are cut as
the reader cuts them (``MAX_LINE_CHARS``), and every value quoted in a message is cut (``quote_value`` /
``shorten``), so neither the report nor the process grows with the input."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sitemapkit.core._problems import QUOTE_CHARS, Location, Problem, Severity, quote_value, shorten
from sitemapkit.read._text import MAX_LINE_CHARS
from sitemapkit.validate._context import (
    MAX_LOC_CHARS,
    MAX_MESSAGE_CHARS,
    FileContext,
    Profile,
    RunOptions,
)
from sitemapkit.validate._driver import validate_bytes, validate_sitemaps
from sitemapkit.validate._text import TextPass

NOW = "2026-01-01T00:00:00Z"
BIG = 20_000_000

# The child validates the file in-process and reports its own peak RSS in KiB on its last stderr line. On Linux
# getrusage's ru_maxrss is carried across fork + exec (the child would report the test runner's own peak), so
# the peak of the child's own address space (VmHWM) is read where /proc has it.
_CHILD = textwrap.dedent("""
    import resource, sys
    from sitemapkit.cli import main

    def peak_kib():
        try:
            with open("/proc/self/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    try:
        main(sys.argv[1:])
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
    sys.stderr.write(f"\\nMAXRSS_KB={peak_kib()}\\n")
    sys.exit(code)
""")


def test_a_20_mb_line_gives_small_output_and_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    with path.open("w") as f:
        f.write("https://www.example-shop.de/a\n")
        f.write("https://www.example-shop.de/" + "x" * BIG + "\n")  # looks like a URL: a too-long URL
        f.write("y" * BIG + "\n")  # not a URL at all
        f.write("https://www.example-shop.de/b\n")
    res = subprocess.run([sys.executable, "-c", _CHILD, "validate", str(path), "--now", NOW],
                         capture_output=True, timeout=300)
    assert res.returncode == 1
    assert len(res.stdout) < 10_000, len(res.stdout)
    rss_line = res.stderr.decode().strip().splitlines()[-1]
    assert rss_line.startswith("MAXRSS_KB=")
    peak_mb = int(rss_line.split("=")[1]) / 1024
    assert peak_mb < 200, f"peak RSS {peak_mb:.0f} MB"
    out = res.stdout.decode()
    assert f"long.txt:2:1: error SM302: URL is {BIG + 28:,} characters long" in out
    assert f"long.txt:3:1: error SM215: line is {BIG:,} characters long" in out
    assert "1 file, 2 entries" in out  # lines 1 and 4 are still read


def _text_problems(data: bytes, chunk: int) -> list[tuple[str, int | None, int | None, str]]:
    ctx = FileContext("t.txt", RunOptions(Profile.GOOGLE, datetime(2026, 1, 1, tzinfo=UTC), False))
    text_pass = TextPass(ctx)
    for i in range(0, len(data), chunk):
        text_pass.feed(data[i:i + chunk])
    text_pass.close()
    return [(p.code, p.location.line, p.location.column, p.message) for p in ctx.problems]


@pytest.mark.parametrize("chunk", [1 << 20, 65_536, 65_537, 4_099, 1_000_000_000])
def test_long_lines_are_cut_the_same_for_any_chunking(chunk: int) -> None:
    over = MAX_LINE_CHARS + 1
    data = (b"https://e.org/1\n"
            + b"https://e.org/" + b"a" * (MAX_LINE_CHARS - 14) + b"\n"  # exactly MAX_LINE_CHARS: read, not cut
            + b"  " + b"z" * over + b"\r\n"  # over: cut, column after the indent
            + b"https://e.org/2\n"
            + b"https://e.org/" + b"b" * over)  # last line without a newline
    got = _text_problems(data, chunk)
    assert [(code, line, column) for code, line, column, _ in got] == [
        ("SM302", 2, None, ),  # the 65,536-character URL went through the loc checks
        ("SM215", 3, 3),
        ("SM302", 5, 1),
    ]
    assert f"line is {over + 2:,} characters long and starts '{'z' * (QUOTE_CHARS - 2)}'..." in got[1][3]
    assert f"URL is {over + 14:,} characters long" in got[2][3]
    assert all(len(message) < 600 for *_, message in got)
    assert got == _text_problems(data, 1 << 30)


def test_text_pass_holds_no_more_than_a_line_of_text() -> None:
    ctx = FileContext("t.txt", RunOptions(Profile.GOOGLE, datetime(2026, 1, 1, tzinfo=UTC), False))
    text_pass = TextPass(ctx)
    for _ in range(64):
        text_pass.feed(b"q" * 1_000_000)
        assert sum(len(piece) for piece in text_pass._pending) <= MAX_LINE_CHARS
    text_pass.close()
    (problem,) = [p for p in ctx.problems if p.code == "SM215"]
    assert "64,000,000 characters long" in problem.message


def test_quote_value_and_shorten_cut_long_values() -> None:
    assert quote_value("abc") == "'abc'"
    assert shorten("abc") == "abc"
    value = "v" * 1_000_000
    assert quote_value(value) == f"'{'v' * QUOTE_CHARS}'... (1,000,000 characters)"
    assert shorten(value) == f"{'v' * QUOTE_CHARS}... (1,000,000 characters)"
    assert quote_value("x" * QUOTE_CHARS) == repr("x" * QUOTE_CHARS)  # at the limit: whole
    assert shorten("abcdef", 3) == "abc... (6 characters)"


def test_checks_quote_values_shortened() -> None:
    lastmod = "9" * 100_000
    data = (b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            b"<url><loc>https://e.org/a</loc><lastmod>" + lastmod.encode() + b"</lastmod><changefreq>"
            + b"d" * 100_000 + b"</changefreq></url></urlset>\n")
    report = validate_bytes(data, now=NOW)
    by_code = {p.code: p for p in report.problems}
    assert f"'{'9' * QUOTE_CHARS}'... (100,000 characters) is not a W3C Datetime" in by_code["SM320"].message
    assert "(100,000 characters) is not one of always" in by_code["SM325"].message
    assert all(len(p.message) <= MAX_MESSAGE_CHARS + 40 for p in report.problems)


def test_every_message_and_loc_in_a_report_is_bounded(tmp_path: Path) -> None:
    long_loc = "https://e.org/" + "p" * 3_000_000
    path = tmp_path / "big.xml"
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n'
                    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
                    f"<url><loc>{long_loc}</loc></url>\n<url><loc>{long_loc}</loc></url>\n</urlset>\n")
    report = validate_sitemaps([path], now=NOW)
    codes = sorted(p.code for p in report.problems)
    assert codes == ["SM302", "SM302", "SM306"]
    for p in report.problems:
        assert len(p.message) <= MAX_MESSAGE_CHARS + 40
        assert p.location.loc is not None
        assert p.location.loc.startswith(long_loc[:MAX_LOC_CHARS])
        assert p.location.loc.endswith("... (3,000,014 characters)")
    assert len(json.dumps(report.to_dict())) < 40_000


def test_a_cut_loc_still_gets_its_column() -> None:
    long_loc = "https://e.org/" + "c" * 5_000
    data = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"\n  <url><loc>{long_loc}</loc></url></urlset>\n").encode()
    report = validate_bytes(data, now=NOW, xsd=False)
    (problem,) = report.problems
    assert problem.code == "SM302"
    assert problem.location.loc is not None
    assert len(problem.location.loc) < len(long_loc)
    assert (problem.location.line, problem.location.column) == (3, 13)


def test_context_cuts_messages_from_other_layers() -> None:
    ctx = FileContext("f.xml", RunOptions(Profile.GOOGLE, datetime(2026, 1, 1, tzinfo=UTC), False))
    ctx.add(Problem("SM104", Severity.ERROR, "m" * 1_000_000, Location("f.xml", 1, 1, "l" * 1_000_000)))
    (p,) = ctx.problems
    assert p.message.endswith("... (1,000,000 characters)")
    assert len(p.message) < MAX_MESSAGE_CHARS + 40
    assert p.location.loc is not None
    assert len(p.location.loc) < MAX_LOC_CHARS + 40
    assert ctx.error_count == 1
