"""The suite is hermetic: HOME and the user directories are a temporary folder for the whole session
(tests/conftest.py, which also checks at the end that the real user's sitemapkit folders did not change), and
what the commands write of their own accord goes under HOME's user cache, which that folder replaces."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import platformdirs
import pytest

from tests.conftest import PRIVATE_HOME_VARS
from tests.support.server import LocalServer

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def test_the_session_runs_with_a_private_home(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.getbasetemp().resolve()
    for var in ("HOME", *PRIVATE_HOME_VARS):
        assert Path(os.environ[var]).resolve().is_relative_to(base), var
    assert Path.home().resolve().is_relative_to(base)
    for where in (platformdirs.user_cache_path("sitemapkit"), platformdirs.user_data_path("sitemapkit"),
                  platformdirs.user_config_path("sitemapkit"), platformdirs.user_state_path("sitemapkit")):
        assert where.resolve().is_relative_to(base), where


def test_commands_write_in_home_only_under_the_user_cache(tmp_path: Path) -> None:
    """Real processes with a fresh, empty HOME and no XDG variables: generate, urls, validate and crawl write
    nothing in HOME but the crawl state in the user cache (~/.cache/sitemapkit)."""
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("XDG_")} | {"HOME": str(home)}
    work = tmp_path / "work"
    work.mkdir()
    (work / "urls.txt").write_text("https://example.com/\nhttps://example.com/a\n", encoding="utf-8")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "sitemapkit", *args], capture_output=True, text=True,
                              timeout=120, env=env, cwd=work, stdin=subprocess.DEVNULL)

    with LocalServer() as srv:
        srv.route("/", "<html><body><a href='/a'>a</a></body></html>", content_type="text/html")
        srv.route("/a", "<html><body>A</body></html>", content_type="text/html")
        runs = [
            run("generate", "urls.txt", "--out", "gen", "--base-url", "https://example.com/"),
            run("urls", "gen/sitemap.xml"),
            run("validate", "gen/sitemap.xml"),
            run("crawl", srv.url("/"), "--out", "crawled"),
        ]
    for res in runs:
        assert res.returncode == 0, (res.args, res.stderr)
    assert "https://example.com/a" in runs[1].stdout
    written = sorted(p.relative_to(home) for p in home.rglob("*") if not p.is_dir())
    assert written, "the crawl keeps its state in the user cache"
    assert all(p.parts[:2] == (".cache", "sitemapkit") for p in written), written
