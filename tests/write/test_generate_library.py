"""``sitemapkit.generate``: the library job behind ``sitemapkit generate`` publishes what the command publishes,
without click, and reports what it skipped; partitions written elsewhere are adopted through the writer's hook."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import sitemapkit
from sitemapkit.cli import cli
from sitemapkit.core import ConfigurationError, Problem, PublishError, UrlEntry
from sitemapkit.generator import Exclusion, GenerateResult
from sitemapkit.write import PartitionWriter, SitemapSetWriter, write_sitemaps

ROOT = Path(__file__).resolve().parents[2]


def _site(root: Path) -> Path:
    pages = {
        "index.html": "<html><head><title>Home</title></head><body><a href='/about.html'>a</a></body></html>",
        "about.html": "<html><body>About us</body></html>",
        "private.html": "<html><head><meta name='robots' content='noindex'></head><body>x</body></html>",
        "copy.html": "<html><head><link rel='canonical' href='https://example.com/about.html'></head></html>",
        "blog/index.html": "<html><body>Blog</body></html>",
        "blog/first post.html": "<html><body>Hello</body></html>",
        "admin/index.html": "<html><body>Admin</body></html>",
    }
    for rel, text in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (1714557600, 1714557600))
    (root / "robots.txt").write_text("User-agent: *\nDisallow: /admin/\n", encoding="utf-8")
    return root


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()
            and not p.name.startswith(".")}


def test_library_and_command_publish_the_same_set_from_a_static_folder(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    seen: list[Exclusion] = []
    result = sitemapkit.generate([site], tmp_path / "lib", base_url="https://example.com/",
                                 formats=("xml", "txt", "html"), on_excluded=seen.append)
    assert isinstance(result, GenerateResult)
    assert result.ok
    assert result.manifest.urls == 4
    assert result.excluded == {"robots": 1, "noindex": 1, "canonical": 1}
    assert sorted(e.reason for e in seen) == ["canonical", "noindex", "robots"]

    res = CliRunner().invoke(cli, ["generate", str(site), "--out", str(tmp_path / "cli"), "--base-url",
                                   "https://example.com/", "--format", "xml", "--format", "txt", "--format",
                                   "html"])
    assert res.exit_code == 0, res.output
    lib, cmd = _files(tmp_path / "lib"), _files(tmp_path / "cli")
    assert sorted(lib) == sorted(cmd) == ["sitemap.html", "sitemap.txt", "sitemap.xml"]
    for name in ("sitemap.xml", "sitemap.txt"):
        assert lib[name] == cmd[name], name
    # The HTML page carries its generation time; everything else in it is the same.
    strip = [line for line in lib["sitemap.html"].splitlines() if b"datetime" not in line]
    assert strip == [line for line in cmd["sitemap.html"].splitlines() if b"datetime" not in line]
    assert b"https://example.com/blog/first%20post.html" in lib["sitemap.xml"]
    assert b"admin" not in lib["sitemap.xml"]


def test_generate_in_a_fresh_process_loads_no_click(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    code = ("import sys, sitemapkit\n"
            f"r = sitemapkit.generate([{str(site)!r}], {str(tmp_path / 'out')!r}, base_url='https://example.com/')\n"
            "print(r.manifest.urls, 'click' in sys.modules, 'rich' in sys.modules)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["4", "False", "False"]


def test_problems_are_counted_capped_and_handed_over(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    lines = [f"https://example.com/ok/{i}" for i in range(3)]
    lines += [f"https://other.example/{i}" for i in range(25)]  # SM608: another host, skipped
    lines += ["not a url"]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    handed: list[Problem] = []
    result = sitemapkit.generate([str(src)], tmp_path / "out", base_url="https://example.com/",
                                 on_problem=handed.append)
    assert result.manifest.urls == 3
    assert result.counts["SM608"] == 25
    assert sum(1 for p in result.problems if p.code == "SM608") == 20  # the first 20 kept, all counted
    assert len(handed) == sum(result.counts.values()) == result.errors == 26
    assert not result.ok
    assert handed[0].location.line == 4


def test_the_options_the_command_refuses_are_refused_by_the_job(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://example.com/\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="not partitioned data"):
        sitemapkit.generate([str(src)], tmp_path / "out", base_url="https://example.com/", workers=2)
    with pytest.raises(ConfigurationError, match="at least one input"):
        sitemapkit.generate([], tmp_path / "out", base_url="https://example.com/")


def test_state_file_is_saved_and_changed_urls_reported(tmp_path: Path) -> None:
    site = _site(tmp_path / "site")
    state = tmp_path / "state.json"
    first = sitemapkit.generate([site], tmp_path / "out", base_url="https://example.com/", state=state)
    assert len(first.changed) == 4
    assert json.loads(state.read_text(encoding="utf-8"))["format"] == "sitemapkit-generate-state"
    second = sitemapkit.generate([site], tmp_path / "out", base_url="https://example.com/", state=state)
    assert second.changed == ()


# -- the writer's partition hook --------------------------------------------------------------------------------


def _entries(n: int, start: int = 0) -> list[UrlEntry]:
    return [UrlEntry(f"https://example.com/p/{i}", lastmod="2026-01-02") for i in range(start, start + n)]


def test_adopted_partitions_hold_the_same_entries_as_one_writer(tmp_path: Path) -> None:
    whole = write_sitemaps(_entries(25), tmp_path / "one", "https://example.com/", max_urls=10,
                           formats=("xml", "txt"))
    with SitemapSetWriter(tmp_path / "parts", "https://example.com/", max_urls=10, formats=("xml", "txt")) as w:
        finished = []
        for i, (start, n) in enumerate([(0, 12), (12, 13)]):
            part = PartitionWriter(w.partition_spec(f"part-{i}"))
            for entry in _entries(n, start):
                part.add(entry)
            finished.append(part.finish())
        for files in finished:
            w.adopt(files)
    parts = w.manifest
    assert parts is not None
    assert parts.urls == whole.urls == 25
    # Each partition ends its last file early: 10 + 2 and 10 + 3 URLs, against 10 + 10 + 5.
    assert [f.urls for f in parts.sitemaps] == [10, 2, 10, 3]
    read = [e.loc for f in parts.sitemaps for e in sitemapkit.read_file(f.path).entries]
    assert read == [e.loc for e in _entries(25)]
    txt = sorted((tmp_path / "parts").glob("sitemap*.txt"))
    assert sum(len(p.read_text().splitlines()) for p in txt) == 25
    assert not list((tmp_path / "parts").glob(".sitemapkit-tmp-*"))


def test_partitions_are_adopted_before_entries_are_added(tmp_path: Path) -> None:
    with SitemapSetWriter(tmp_path / "out", "https://example.com/") as w:
        spec = w.partition_spec("part-0")
        part = PartitionWriter(spec)
        part.add(_entries(1)[0])
        files = part.finish()
        w.add(_entries(1, 5)[0])
        with pytest.raises(PublishError, match="before entries are added"):
            w.adopt(files)
    with pytest.raises(ConfigurationError, match="plain folder name"):
        SitemapSetWriter(tmp_path / "x", "https://example.com/").partition_spec("../up")
