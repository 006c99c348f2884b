"""The protocol's per-file limits (50,000 URLs, 50 MiB uncompressed): a warning with the true figure, every URL kept."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sitemapkit import SitemapParser, UrlEntry, parse_bytes
from sitemapkit.core import MAX_SITEMAP_BYTES, MAX_URLS_PER_SITEMAP, Problem
from tests.support.cli import run_cli

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _urlset(n: int, pad: int = 0) -> bytes:
    filler = " " * pad
    body = "".join(f"<url><loc>https://example.com/p/{i}</loc></url>{filler}\n" for i in range(n))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()


def _codes(problems: tuple[Problem, ...] | list[Problem]) -> list[str]:
    return [p.code for p in problems]


def test_exactly_the_limit_is_quiet() -> None:
    result = parse_bytes(_urlset(MAX_URLS_PER_SITEMAP))
    assert len(result.entries) == MAX_URLS_PER_SITEMAP
    assert "SM131" not in _codes(result.problems)


@pytest.mark.parametrize("compress", [False, True])
def test_one_url_over_is_a_warning_with_the_count_and_every_url_is_kept(compress: bool) -> None:
    data = _urlset(MAX_URLS_PER_SITEMAP + 1)
    result = parse_bytes(gzip.compress(data) if compress else data)
    assert len(result.entries) == MAX_URLS_PER_SITEMAP + 1
    over = [p for p in result.problems if p.code == "SM131"]
    assert len(over) == 1
    assert "50,001 URLs" in (over[0].message or "")
    assert over[0].severity.value == "warning"


def test_a_text_sitemap_over_the_limit() -> None:
    data = "".join(f"https://example.com/t/{i}\n" for i in range(MAX_URLS_PER_SITEMAP + 2)).encode()
    result = parse_bytes(data)
    assert len(result.entries) == MAX_URLS_PER_SITEMAP + 2
    assert _codes(result.problems).count("SM131") == 1


def test_over_50_mib_uncompressed_is_a_warning_whatever_the_chunking() -> None:
    data = _urlset(1_000, pad=MAX_SITEMAP_BYTES // 1_000)  # ~50 MiB of padding between 1,000 entries
    assert len(data) > MAX_SITEMAP_BYTES
    for step in (len(data), 1 << 20, 65_537):
        parser = SitemapParser("big.xml")
        events: list[object] = []
        for start in range(0, len(data), step):
            events.extend(parser.feed(data[start:start + step]))
        events.extend(parser.close())
        entries = [e for e in events if isinstance(e, UrlEntry)]
        big = [e for e in events if isinstance(e, Problem) and e.code == "SM132"]
        assert len(entries) == 1_000
        assert len(big) == 1, step
        assert f"{len(data):,} bytes" in (big[0].message or "")


def test_an_index_is_not_a_urlset() -> None:
    refs = "".join(f"<sitemap><loc>https://example.com/s{i}.xml</loc></sitemap>" for i in range(10))
    result = parse_bytes(f'<sitemapindex xmlns="{NS}">{refs}</sitemapindex>'.encode())
    assert not {"SM131", "SM132"} & set(_codes(result.problems))


def test_urls_cli_says_so_and_lists_every_url(tmp_path: Path) -> None:
    path = tmp_path / "big.xml"
    path.write_bytes(_urlset(MAX_URLS_PER_SITEMAP + 3))
    proc = run_cli(["urls", str(path)])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert len(proc.stdout.splitlines()) == MAX_URLS_PER_SITEMAP + 3
    assert "warning SM131" in proc.stderr
    assert "50,003 URLs" in proc.stderr
