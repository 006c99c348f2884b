"""`generate SITE --lastmod git` end to end on a real git repository made here: each page dated by the last commit
that touched its file (not by the checkout's modification times), pure renames keeping their content's date,
untracked and uncommitted files falling back per file with the reason, a fresh clone dated like its origin, a
shallow clone named, and the history read in one pass (a fixed number of git processes, whatever the page count)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from sitemapkit.generator import read_git_dates
from tests.ci_integration.gitrepo import Repo
from tests.support.cli import run_cli

BASE = "https://www.fixture-shop.de/"
PAGE = "<!doctype html><html><head><title>{0}</title></head><body><main><p>{0}</p></main></body></html>\n"


def _history(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "origin")
    repo.write("site/index.html", PAGE.format("home"))
    repo.write("site/about.html", PAGE.format("about"))
    repo.write("site/old-name.html", PAGE.format("moved"))
    repo.write("README.md", "not part of the site\n")
    repo.commit("2024-01-10T08:00:00Z", "first")
    repo.write("site/about.html", PAGE.format("about, edited"))
    repo.commit("2024-02-20T09:30:00Z", "edit about")
    (repo.path / "site" / "old-name.html").rename(repo.path / "site" / "new-name.html")
    repo.commit("2024-03-30T10:00:00Z", "rename only")
    repo.write("site/blog/post.html", PAGE.format("post"))
    repo.commit("2024-04-05T11:00:00+02:00", "a post, committed in another time zone")
    repo.write("README.md", "touched after the site's last change\n")
    repo.commit("2024-05-01T12:00:00Z", "outside the site")
    return repo


def _lastmods(out: Path) -> dict[str, str]:
    text = (out / "sitemap.xml").read_text(encoding="utf-8")
    return dict(re.findall(r"<loc>([^<]+)</loc>\s*<lastmod>([^<]+)</lastmod>", text))


def _touch_everything(folder: Path) -> None:
    """What a checkout or a CI build does: every file's modification time is now."""
    for path in folder.rglob("*"):
        os.utime(path)


def test_generate_dates_each_page_by_its_last_commit(tmp_path: Path) -> None:
    repo = _history(tmp_path)
    _touch_everything(repo.path / "site")
    repo.write("site/draft.html", PAGE.format("never committed"))
    repo.write("site/blog/post.html", PAGE.format("post, edited but not committed"))
    res = run_cli(["generate", "site", "-o", str(tmp_path / "out"), "--base-url", BASE, "--lastmod", "git"],
                  cwd=repo.path)
    assert res.returncode == 0, res.stderr
    dates = _lastmods(tmp_path / "out")
    assert dates[BASE] == "2024-01-10T08:00:00Z"
    assert dates[BASE + "about.html"] == "2024-02-20T09:30:00Z"
    assert dates[BASE + "new-name.html"] == "2024-01-10T08:00:00Z"  # renamed unchanged: its content's date
    today = dates[BASE + "draft.html"][:10]
    assert today >= "2025-01-01"  # the modification time (now): not committed
    assert dates[BASE + "blog/post.html"][:10] == today  # changed since its commit: the modification time
    assert "lastmod from git for 3 pages; 2 from the modification time: 1 not committed, 1 uncommitted changes" \
        in res.stdout
    assert "lastmod of site/draft.html from mtime, not git: not committed" in res.stderr
    assert "lastmod of site/blog/post.html from mtime, not git: uncommitted changes" in res.stderr
    assert "shallow" not in res.stderr


def test_a_fresh_clone_gets_the_real_dates_and_a_shallow_clone_is_named(tmp_path: Path) -> None:
    repo = _history(tmp_path)
    clone = repo.clone(tmp_path / "clone")
    res = run_cli(["generate", str(clone / "site"), "-o", str(tmp_path / "out"), "--base-url", BASE,
                   "--lastmod", "git"])
    assert res.returncode == 0, res.stderr
    assert _lastmods(tmp_path / "out") == {
        BASE: "2024-01-10T08:00:00Z",
        BASE + "about.html": "2024-02-20T09:30:00Z",
        BASE + "new-name.html": "2024-01-10T08:00:00Z",
        BASE + "blog/post.html": "2024-04-05T09:00:00Z",  # +02:00 written in UTC
    }
    assert "lastmod from git for 4 pages" in res.stdout
    assert "shallow" not in res.stderr

    shallow = repo.clone(tmp_path / "shallow", depth=1)
    res = run_cli(["generate", str(shallow / "site"), "-o", str(tmp_path / "out2"), "--base-url", BASE,
                   "--lastmod", "git"])
    assert res.returncode == 0, res.stderr
    # History ends at the tip (2024-05-01): every page is dated by it, at the latest, and the clone is named.
    assert set(_lastmods(tmp_path / "out2").values()) == {"2024-05-01T12:00:00Z"}
    assert re.search(r"warning: .*shallow\S* is a shallow clone: 4 pages dated by its oldest commit", res.stderr)
    assert "fetch-depth: 0" in res.stderr


def test_deeper_shallow_clone_dates_what_its_history_reaches(tmp_path: Path) -> None:
    repo = _history(tmp_path)
    shallow = repo.clone(tmp_path / "shallow", depth=3)  # rename, post, README commits
    dates = read_git_dates(shallow / "site")
    assert dates.shallow
    post = dates.lookup(shallow / "site" / "blog" / "post.html")
    assert (post.lastmod, post.shallow) == ("2024-04-05T09:00:00Z", False)  # within reach: exact
    about = dates.lookup(shallow / "site" / "about.html")
    assert (about.lastmod, about.shallow) == ("2024-03-30T10:00:00Z", True)  # the boundary commit's date


def test_outside_a_repository_every_page_falls_back_with_the_reason(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(PAGE.format("home"), encoding="utf-8")
    res = run_cli(["generate", str(site), "-o", str(tmp_path / "out"), "--base-url", BASE, "--lastmod", "git"],
                  env={"GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert res.returncode == 0, res.stderr
    assert "not in a git repository" in res.stderr
    assert "lastmod from git for 0 pages; 1 from the modification time: 1 not in a git repository" in res.stdout
    assert _lastmods(tmp_path / "out")[BASE][:4] >= "2025"


def test_with_state_git_dates_win_and_the_state_is_the_fallback(tmp_path: Path) -> None:
    repo = _history(tmp_path)
    state = tmp_path / "state.json"
    args = ["generate", "site", "-o", str(tmp_path / "out"), "--base-url", BASE, "--lastmod", "git", "--state",
            str(state)]
    repo.write("site/draft.html", PAGE.format("draft"))
    res = run_cli(args, cwd=repo.path)
    assert res.returncode == 0, res.stderr
    first = _lastmods(tmp_path / "out")
    assert first[BASE + "about.html"] == "2024-02-20T09:30:00Z"
    assert "1 from --state: 1 not committed" in res.stdout
    _touch_everything(repo.path / "site")  # a rebuild: the draft's content is the same, its lastmod stays
    res = run_cli(args, cwd=repo.path)
    assert _lastmods(tmp_path / "out") == first


def test_the_history_is_read_in_one_pass(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = Repo(tmp_path / "many")
    for i in range(60):
        repo.write(f"site/p{i}.html", PAGE.format(i))
    repo.commit("2024-01-01T00:00:00Z")
    for i in range(0, 60, 2):
        repo.write(f"site/p{i}.html", PAGE.format(f"{i} again"))
    repo.commit("2024-06-01T00:00:00Z")
    calls: list[list[str]] = []
    real = subprocess.run

    def counting(args: list[str], *a: Any, **kw: Any) -> Any:
        calls.append(list(args))
        return real(args, *a, **kw)

    monkeypatch.setattr(subprocess, "run", counting)
    res = run_cli(["generate", str(repo.path / "site"), "-o", str(tmp_path / "out"), "--base-url", BASE,
                   "--lastmod", "git"])
    assert res.returncode == 0, res.stderr
    git_calls = [c for c in calls if c and c[0] == "git"]
    assert [c[1] if c[1] != "-c" else c[3] for c in git_calls] == ["rev-parse", "log", "status"]
    dates = _lastmods(tmp_path / "out")
    assert len(dates) == 60
    assert dates[BASE + "p0.html"] == "2024-06-01T00:00:00Z"
    assert dates[BASE + "p1.html"] == "2024-01-01T00:00:00Z"
