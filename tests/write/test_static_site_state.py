"""`generate --state` on a static folder: lastmod moves only when a page's main content does (issue 14, honest
lastmod), never because a rebuild touched the files or rewrote the build time in the footer."""

from __future__ import annotations

import json
import os
from pathlib import Path

from sitemapkit.generator import SiteState
from tests.support.cli import CliResult, run_cli
from tests.write.helpers import read_back

JAN = 1704067200  # 2024-01-01T00:00:00Z
JUN = 1717200000  # 2024-06-01T00:00:00Z


def run(*args: str) -> CliResult:
    return run_cli(["generate", *args])


def build(site: Path, build_id: str, built_at: str, texts: dict[str, str], mtime: int) -> None:
    """A static-site build: every page's footer carries the build time and id, and every file is rewritten."""
    for rel, text in texts.items():
        path = site / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"<!doctype html><html><head><script>window.BUILD='{build_id}'</script></head><body>"
            f"<nav><a href='/'>Home</a></nav><main><h1>{rel}</h1><p>{text}</p></main>"
            f"<footer>Built {built_at}, build {build_id}</footer></body></html>", encoding="utf-8")
        os.utime(path, (mtime, mtime))


def lastmods(out: Path) -> dict[str, str | None]:
    return {d["loc"]: d.get("lastmod") for d in read_back((out / "sitemap.xml").read_bytes())}


TEXTS = {"index.html": "Welcome", "a.html": "Alpha text", "blog/b.html": "Beta text"}


def test_rebuild_keeps_lastmod_and_a_content_change_moves_it(tmp_path: Path) -> None:
    site, out, state = tmp_path / "site", tmp_path / "out", tmp_path / "state.json"
    build(site, "3f9a1c2e7b", "2024-01-01 00:00:00", TEXTS, JAN)
    args = (str(site), "--out", str(out), "--base-url", "https://example.com/", "--state", str(state))
    first = run(*args)
    assert first.returncode == 0, first.stderr
    assert lastmods(out) == {"https://example.com/": "2024-01-01T00:00:00Z",
                             "https://example.com/a.html": "2024-01-01T00:00:00Z",
                             "https://example.com/blog/b.html": "2024-01-01T00:00:00Z"}
    # A rebuild: new build id and time in every page, every file rewritten (new mtime); only a.html's text changed.
    build(site, "88c0de41aa", "2024-06-01 00:00:00", {**TEXTS, "a.html": "Alpha text, revised"}, JUN)
    second = run(*args)
    assert second.returncode == 0, second.stderr
    assert lastmods(out) == {"https://example.com/": "2024-01-01T00:00:00Z",
                             "https://example.com/a.html": "2024-06-01T00:00:00Z",
                             "https://example.com/blog/b.html": "2024-01-01T00:00:00Z"}
    saved = json.loads(state.read_text(encoding="utf-8"))
    assert set(saved["pages"]) == {"https://example.com/", "https://example.com/a.html",
                                   "https://example.com/blog/b.html"}


def test_without_state_lastmod_is_the_file_mtime(tmp_path: Path) -> None:
    site, out = tmp_path / "site", tmp_path / "out"
    build(site, "1", "then", TEXTS, JAN)
    assert run(str(site), "--out", str(out), "--base-url", "https://example.com/").returncode == 0
    build(site, "2", "now", TEXTS, JUN)  # same content, touched
    assert run(str(site), "--out", str(out), "--base-url", "https://example.com/").returncode == 0
    assert set(lastmods(out).values()) == {"2024-06-01T00:00:00Z"}


def test_a_file_that_is_not_a_generate_state_is_a_usage_error(tmp_path: Path) -> None:
    site = tmp_path / "site"
    build(site, "1", "then", TEXTS, JAN)
    bad = tmp_path / "state.json"
    bad.write_text('{"something": "else"}', encoding="utf-8")
    res = run(str(site), "--out", str(tmp_path / "out"), "--base-url", "https://example.com/", "--state", str(bad))
    assert res.returncode == 2
    assert f"--state {bad}: not a generate state file" in res.stderr
    assert "Traceback" not in res.stderr
    assert not (tmp_path / "out").exists()


def test_help_says_what_state_does() -> None:
    res = run("--help")
    assert res.returncode == 0
    assert "--state FILE" in res.stdout
    assert "modification time" in res.stdout


def test_generate_state_round_trip_and_changed(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    st = SiteState.load(path)
    assert st.lastmod("https://e.com/a", "fa", "2024-01-01T00:00:00Z", "2024-07-01T00:00:00Z") \
        == "2024-01-01T00:00:00Z"
    st.save()
    again = SiteState.load(path)
    assert again.lastmod("https://e.com/a", "fa", "2024-06-01T00:00:00Z", "2024-07-01T00:00:00Z") \
        == "2024-01-01T00:00:00Z"
    assert again.lastmod("https://e.com/b", "fb", "2024-06-01T00:00:00Z", "2024-07-01T00:00:00Z") \
        == "2024-06-01T00:00:00Z"
    assert again.changed == ["https://e.com/b"]
    assert not list(tmp_path.glob(".state.json.*"))  # written atomically: no temporary file left
