"""The pre-commit hooks of .pre-commit-hooks.yaml, run the way pre-commit runs them: the hook's ``files`` pattern picks
the files, then ``entry + args + filenames`` runs as a process in the repository (good files exit 0, bad exit 1).
With pre-commit installed, ``pre-commit try-repo`` runs them on a real git repository too (offline: the hook's
environment reuses the installed packages)."""

from __future__ import annotations

import gzip
import json
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from sitemapkit.cli import cli
from tests.ci_integration.gitrepo import Repo, git, git_env
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
SITE = "https://www.fixture-shop.de/"
GOOD = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"<url><loc>{SITE}</loc></url>\n</urlset>\n")
BAD = GOOD.replace(f"{SITE}</loc>", f"{SITE}?a=1&b=2</loc>")  # SM201 on line 3


def _hooks() -> dict[str, dict[str, Any]]:
    data = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return {hook["id"]: hook for hook in data}


def _selected(hook: dict[str, Any], names: list[str]) -> list[str]:
    pattern = re.compile(hook["files"])
    return [n for n in names if pattern.search(n)]


def _run_hook(hook: dict[str, Any], cwd: Path, names: list[str]) -> subprocess.CompletedProcess[str]:
    command = shlex.split(hook["entry"])
    if command[0] == "sitemapkit" and shutil.which("sitemapkit") is None:
        command = [sys.executable, "-m", "sitemapkit", *command[1:]]
    return subprocess.run([*command, *hook.get("args", []), *names], cwd=cwd, capture_output=True, text=True,
                          timeout=60, check=False, stdin=subprocess.DEVNULL)


def test_hook_definitions() -> None:
    hooks = _hooks()
    assert set(hooks) == {"sitemapkit-validate", "sitemapkit-robots"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["entry"].startswith("sitemapkit ")
        assert cli.commands[hook["entry"].split()[1]] is not None  # a real command
    names = ["sitemap.xml", "public/sitemap-1.xml", "sitemap_index.xml.gz", "docs/sitemap.txt", "sitemap-news.xml",
             "page.xml", "sitemaps/feed.xml", "sitemap.html", "robots.txt", "public/robots.txt", "notrobots.txt"]
    assert _selected(hooks["sitemapkit-validate"], names) == [
        "sitemap.xml", "public/sitemap-1.xml", "sitemap_index.xml.gz", "docs/sitemap.txt", "sitemap-news.xml"]
    assert _selected(hooks["sitemapkit-robots"], names) == ["robots.txt", "public/robots.txt"]


def _files(root: Path) -> None:
    (root / "public").mkdir(parents=True)
    (root / "public" / "sitemap.xml").write_text(GOOD, encoding="utf-8")
    (root / "public" / "sitemap.txt").write_text(f"{SITE}a\n{SITE}b\n", encoding="utf-8")
    (root / "public" / "sitemap-2.xml.gz").write_bytes(gzip.compress(GOOD.encode()))
    (root / "public" / "robots.txt").write_text(f"User-agent: *\nDisallow:\n\nSitemap: {SITE}sitemap.xml\n",
                                                 encoding="utf-8")
    (root / "bad").mkdir()
    (root / "bad" / "sitemap.xml").write_text(BAD, encoding="utf-8")
    (root / "bad" / "robots.txt").write_text("User-agent: *\nDisallow:\nSitemap: /sitemap.xml\n", encoding="utf-8")


def test_validate_hook_passes_good_sitemaps_and_fails_a_bad_one(tmp_path: Path) -> None:
    _files(tmp_path)
    hook = _hooks()["sitemapkit-validate"]
    good = _selected(hook, ["public/sitemap.xml", "public/sitemap.txt", "public/sitemap-2.xml.gz",
                            "public/robots.txt"])
    assert len(good) == 3
    res = _run_hook(hook, tmp_path, good)
    assert res.returncode == 0, res.stdout + res.stderr
    res = _run_hook(hook, tmp_path, [*good, "bad/sitemap.xml"])
    assert res.returncode == 1
    assert "bad/sitemap.xml:3:" in res.stdout
    assert "SM201" in res.stdout


def test_robots_hook_passes_absolute_sitemap_lines_and_fails_relative_ones(tmp_path: Path) -> None:
    _files(tmp_path)
    hook = _hooks()["sitemapkit-robots"]
    res = _run_hook(hook, tmp_path, ["public/robots.txt"])
    assert res.returncode == 0, res.stdout + res.stderr
    assert "1 robots.txt file checked: no problems" in res.stdout
    res = _run_hook(hook, tmp_path, ["public/robots.txt", "bad/robots.txt"])
    assert res.returncode == 1
    assert "bad/robots.txt:3: warning SM522: relative sitemap URL '/sitemap.xml'" in res.stdout
    assert "1 problem in 1 file" in res.stdout


def test_robots_lint_checks_listed_sitemaps_exist_with_base_url(tmp_path: Path) -> None:
    _files(tmp_path)
    robots = tmp_path / "public" / "robots.txt"
    robots.write_text(f"Sitemap: {SITE}sitemap.xml\nSitemap: {SITE}gone.xml\nSitemap: https://other.example/s.xml\n"
                      "Sitemap: ftp://x/s.xml\nsitemap https://www.fixture-shop.de/sitemap.txt\n", encoding="utf-8")
    res = run_cli(["robots", "--lint", str(robots), "--base-url", SITE])
    assert res.returncode == 1
    lines = res.stdout.splitlines()
    assert any(":2: error SM543:" in line and "gone.xml" in line for line in lines), lines
    assert any(":4: warning SM527:" in line for line in lines), lines
    assert any(":5: warning SM523:" in line for line in lines), lines
    assert not any("sitemap.xml is listed" in line or "other.example" in line for line in lines)  # exists; other host
    empty = tmp_path / "empty" / "robots.txt"
    empty.parent.mkdir()
    empty.write_text("User-agent: *\nDisallow: /private/\n", encoding="utf-8")
    res = run_cli(["robots", "--lint", str(empty)])
    assert res.returncode == 1
    assert "SM542" in res.stdout
    res = run_cli(["robots", "--lint", str(tmp_path / "nowhere.txt")])
    assert res.returncode == 2
    assert "cannot read" in res.stderr
    res = run_cli(["robots", str(robots), "--lint", "--check"])
    assert res.returncode == 2
    res = run_cli(["robots", str(robots), "--check", "--base-url", SITE])
    assert res.returncode == 2
    assert "--base-url goes with --lint" in res.stderr
    res = run_cli(["robots", "--lint", str(robots), str(empty), "--format", "json"])
    assert res.returncode == 1
    data = json.loads(res.stdout)
    assert data["files"] == [str(robots), str(empty)]
    assert {(p["code"], p["source"], p["line"]) for p in data["problems"]} >= {
        ("SM527", str(robots), 4), ("SM542", str(empty), None)}


def _precommit() -> str:
    found = shutil.which("pre-commit")
    if found is None:
        pytest.skip("pre-commit is not installed (pip install pre-commit): try-repo is not run")
    return found


@pytest.mark.slow
def test_pre_commit_try_repo_runs_the_hooks(tmp_path: Path) -> None:
    """``pre-commit try-repo`` on this checkout. pre-commit builds the hooks' environment by installing this
    repository with pip: offline, from the packages already installed (a virtualenv with the system site-packages,
    no index, no build isolation), so nothing is downloaded."""
    precommit = _precommit()
    pytest.importorskip("hatchling", reason="hatchling (the build backend) is needed to install the hook offline")
    project = Repo(tmp_path / "project")
    _files(project.path)
    project.commit("2024-01-01T00:00:00Z")
    env = {**git_env(tmp_path), "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
           "VIRTUALENV_SYSTEM_SITE_PACKAGES": "1", "PIP_NO_INDEX": "1", "PIP_NO_BUILD_ISOLATION": "0",
           "PIP_NO_DEPS": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_COMPILE": "1", "PRE_COMMIT_COLOR": "never"}
    env.pop("PYTHONPATH", None)  # the hook runs the sitemapkit installed in its own environment
    checkout = _checkout_copy(tmp_path)

    def try_repo(*files: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([precommit, "try-repo", str(checkout), "--files", *files], cwd=project.path, env=env,
                              capture_output=True, text=True, timeout=240, check=False, stdin=subprocess.DEVNULL)

    # One run (building the hook's environment is most of the time): good sitemaps pass, a bad robots.txt fails.
    res = try_repo("public/sitemap.xml", "public/sitemap.txt", "bad/robots.txt")
    assert res.returncode == 1, res.stdout + res.stderr
    assert re.search(r"sitemapkit validate \(sitemaps\)\.+Passed", res.stdout), res.stdout
    assert re.search(r"sitemapkit robots \(Sitemap lines\)\.+Failed", res.stdout), res.stdout
    assert "bad/robots.txt:3: warning SM522" in res.stdout


def _checkout_copy(tmp_path: Path) -> Path:
    """This working tree (uncommitted changes included) as a one-commit git repository: try-repo takes a repo."""
    dest = tmp_path / "sitemapkit-checkout"
    dest.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(ROOT / "src", dest / "src", ignore=shutil.ignore_patterns("__pycache__"))
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "checkout", when="2024-01-01T00:00:00Z")
    return dest
