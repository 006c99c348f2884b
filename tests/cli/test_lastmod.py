"""One spelling for UTC in what the commands write: ``Z`` (generate, crawl, validate's JSON; the library's
LastMod.of for an aware datetime)."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from sitemapkit import LastMod
from tests.support.cli import CliResult, run_cli

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def run(*args: str) -> CliResult:
    return run_cli([*args])


def test_lastmod_of_a_utc_datetime_is_spelled_z() -> None:
    assert LastMod.of(datetime(2024, 5, 1, 10, 0, tzinfo=UTC)).text == "2024-05-01T10:00:00Z"
    assert LastMod.of(datetime(2024, 5, 1, 10, 0, tzinfo=timezone(timedelta(0)))).text == "2024-05-01T10:00:00Z"
    other = LastMod.of(datetime(2024, 5, 1, 10, 0, tzinfo=timezone(timedelta(hours=2))))
    assert other.text == "2024-05-01T10:00:00+02:00"  # other offsets are kept as they are


def test_generate_urls_and_validate_write_z(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    page = site / "index.html"
    page.write_text("<html><head><title>x</title></head><body>x</body></html>", encoding="utf-8")
    os.utime(page, (1714557600, 1714557600))  # 2024-05-01T10:00:00Z
    out = tmp_path / "out"
    done = run("generate", str(site), "--out", str(out), "--base-url", "https://example.com/")
    assert done.returncode == 0, done.stderr
    assert "<lastmod>2024-05-01T10:00:00Z</lastmod>" in (out / "sitemap.xml").read_text(encoding="utf-8")
    listed = run("urls", "--format", "jsonl", str(out / "sitemap.xml"))
    assert json.loads(listed.stdout.splitlines()[0])["lastmod"] == "2024-05-01T10:00:00Z"
    report = run("validate", "--format", "json", "--now", "2026-01-01T00:00:00+00:00", str(out / "sitemap.xml"))
    assert json.loads(report.stdout)["now"] == "2026-01-01T00:00:00Z"
