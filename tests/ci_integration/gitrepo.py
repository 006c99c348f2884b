"""A real git repository made in a test's tmp_path, with commits at chosen dates (GIT_AUTHOR_DATE and
GIT_COMMITTER_DATE), no user or system configuration read, and clones of it (full or shallow, over file://)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

_CONFIG = ["-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false",
           "-c", "init.defaultBranch=main", "-c", "core.autocrlf=false"]


def require_git() -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")


def git_env(tmp: Path, when: str | None = None) -> dict[str, str]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "HOME": str(tmp),
           "GIT_TERMINAL_PROMPT": "0"}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = when
    return env


def git(repo: Path, *args: str, when: str | None = None) -> str:
    res = subprocess.run(["git", *_CONFIG, *args], cwd=repo, env=git_env(repo.parent, when), capture_output=True,
                         text=True, check=False, timeout=60)
    assert res.returncode == 0, f"git {' '.join(args)}: {res.stderr}"
    return res.stdout


class Repo:
    """``repo.write("site/a.html", "...")``, then ``repo.commit("2024-01-02T03:04:05Z")``."""

    def __init__(self, path: Path) -> None:
        require_git()
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        git(path, "init", "-q")

    def write(self, name: str, text: str) -> Path:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def commit(self, when: str, message: str = "change") -> None:
        git(self.path, "add", "-A", when=when)
        git(self.path, "commit", "-q", "-m", message, when=when)

    def clone(self, dest: Path, *, depth: int | None = None) -> Path:
        args = ["clone", "-q", *(["--depth", str(depth)] if depth else []), self.path.resolve().as_uri(), str(dest)]
        git(self.path.parent, *args)
        return dest
