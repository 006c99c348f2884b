"""``generate`` reads its URL lists through the one byte source (issue 23): gzip layers undone by the reader's
budgeted decoder, not a plain GzipFile, so a gzip bomb in a URL list stops at the byte budget and nested gzip is
read as ``urls`` and ``validate`` read it. End to end through the CLI (click's runner)."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from sitemapkit.cli import cli


def _generate(tmp_path: Path, source: Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["generate", str(source), "--out", str(tmp_path / "out"),
                                      "--base-url", "https://example.com/"])
    return result.exit_code, result.stdout + result.stderr


def test_a_gzip_bomb_in_a_url_list_stops_at_the_byte_budget(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.txt.gz"  # 738 KB on disk, 120 MiB inflated (blank lines): over the 100 MiB budget
    bomb.write_bytes(gzip.compress(b"https://example.com/a\n" + (b" " * 1023 + b"\n") * (120 * 1024), 1))
    # a real process: the CLI's error line goes to the process's own stderr
    proc = subprocess.run([sys.executable, "-m", "sitemapkit", "generate", str(bomb), "--out", str(tmp_path / "out"),
                           "--base-url", "https://example.com/"], capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 1, proc.stderr
    assert f"{bomb}: decompressed data exceeds the budget of 104,857,600 bytes" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "out" / "sitemap.xml").exists()


def test_a_url_list_in_nested_gzip_is_read_as_urls_reads_it(tmp_path: Path) -> None:
    nested = tmp_path / "list.txt.gz"
    nested.write_bytes(gzip.compress(gzip.compress(b"https://example.com/a\nhttps://example.com/b\n")))
    code, out = _generate(tmp_path, nested)
    assert code == 0, out
    written = (tmp_path / "out" / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://example.com/a</loc>" in written
    assert "<loc>https://example.com/b</loc>" in written
    result = CliRunner().invoke(cli, ["urls", str(nested)])
    assert result.stdout.splitlines() == ["https://example.com/a", "https://example.com/b"]
