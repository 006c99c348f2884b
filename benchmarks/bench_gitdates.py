"""Lastmod from git: sitemapkit's one-pass read (``generator.read_git_dates``: rev-parse, one ``git log``, one
``git status``) against one ``git log -1`` process per file, on a repository made in a temporary folder.

    python benchmarks/bench_gitdates.py [--files 2000] [--commits 300] [--per-commit 20]

Prints the time of each and checks that both give every file the same date.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sitemapkit.generator import read_git_dates

CONFIG = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid", "-c", "commit.gpgsign=false"]


def _git(repo: Path, *args: str, when: int | None = None) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    if when is not None:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = f"@{when} +0000"
    return subprocess.run(["git", *CONFIG, *args], cwd=repo, env=env, check=True, capture_output=True,
                          text=True).stdout


def build(repo: Path, files: int, commits: int, per_commit: int) -> list[Path]:
    rng = random.Random(7)
    site = repo / "site"
    paths = [site / f"section-{i % 40}" / f"page-{i}.html" for i in range(files)]
    _git(repo, "init", "-q")
    for p in paths:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"<p>{p.name}</p>\n", encoding="utf-8")
    when = 1_700_000_000
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "initial", when=when)
    for n in range(commits):
        when += 3600
        for p in rng.sample(paths, per_commit):
            with p.open("a", encoding="utf-8") as fh:
                fh.write(f"<p>edit {n}</p>\n")
        _git(repo, "commit", "-q", "-am", f"edit {n}", when=when)
    return paths


def per_file(repo: Path, paths: list[Path]) -> dict[str, str]:
    found = {}
    for p in paths:
        stamp = _git(repo, "log", "-1", "--format=%ct", "--", str(p.relative_to(repo))).strip()
        found[str(p)] = datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--per-commit", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp)
        started = time.perf_counter()
        paths = build(repo, args.files, args.commits, args.per_commit)
        print(f"repository: {args.files:,} files, {args.commits + 1:,} commits "
              f"(built in {time.perf_counter() - started:.1f} s)")
        started = time.perf_counter()
        dates = read_git_dates(repo / "site")
        one = {str(p): dates.lookup(p).lastmod for p in paths}
        one_pass = time.perf_counter() - started
        started = time.perf_counter()
        each = per_file(repo, paths)
        each_time = time.perf_counter() - started
        assert one == each, "the two ways disagree"
        print(f"one pass (read_git_dates): {one_pass:.3f} s")
        print(f"one git process per file:  {each_time:.3f} s  ({each_time / one_pass:.0f}x)")


if __name__ == "__main__":
    main()
