"""core.ExactSeen: exact duplicate detection in bounded memory (past its limit it stops remembering, so a URL is
never dropped wrongly), and generate's default dedupe on top of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapkit.core import ExactSeen
from sitemapkit.read import read_file
from tests.support.cli import run_cli


def test_exact_up_to_the_limit_then_remembers_nothing_more() -> None:
    seen = ExactSeen(memory_limit=100)
    keys = [hash(f"https://e.com/{i}") for i in range(1000)]
    for k in keys[:50]:
        seen.add(k)
    assert not seen.full
    seen.update(keys[50:600])
    assert seen.full
    assert len(seen) == 100
    assert all(k in seen for k in keys[:100])
    assert not any(k in seen for k in keys[100:])  # never a false "seen": nothing is dropped wrongly
    assert seen.isdisjoint(keys[100:])
    assert not seen.isdisjoint([*keys[700:], keys[99]])


def test_generate_drops_duplicates_and_says_when_the_check_was_bounded(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sitemapkit.core._seen.EXACT_IN_MEMORY", 1000)
    lines = [f"https://example.com/p/{i}" for i in range(3000)]
    repeats = [f"https://example.com/p/{i}" for i in range(0, 3000, 7)]  # 143 of them within the first 1,000
    (tmp_path / "urls.txt").write_text("\n".join(lines + repeats) + "\n", encoding="utf-8")
    res = run_cli(["generate", str(tmp_path / "urls.txt"), "-o", str(tmp_path / "out"), "--base-url",
                   "https://example.com/", "--urls-per-file", "1000"])
    assert res.returncode == 0, res.stderr
    assert "Skipped 143 duplicate URLs." in res.stdout
    assert "first 1,000 distinct URLs only" in res.stdout
    locs = [e.loc for f in sorted((tmp_path / "out").glob("sitemap-*.xml")) for e in read_file(f).entries]
    assert set(locs) == set(lines)  # nothing lost
    assert len(locs) == 3000 + len(repeats) - 143
    from sitemapkit import generate

    result = generate([str(tmp_path / "urls.txt")], str(tmp_path / "lib"), base_url="https://example.com/")
    assert result.manifest.dedupe_limit == 1000
    assert result.duplicates == 143
