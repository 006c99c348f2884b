"""Last-change dates of files from their git history (``generate --lastmod git``, the MkDocs plugin).

A page's lastmod is the committer date of the last commit that touched its source file. The whole history of a
folder is read in one pass: one ``git log --name-status -M -z`` over the folder, newest first, the first date met
for a path being its last change; plus ``git rev-parse`` (the repository's top level, whether it is shallow) and
one ``git status`` (files with changes not committed yet). Three processes, however many files.

* **Renames.** A file renamed without a change (git's 100% similarity) keeps the date of its last content change
  under its earlier name: lastmod dates the content. A rename with edits is a change, dated by that commit.
* **No date from git** (:attr:`GitDate.reason`): a file never committed (untracked, ignored, a build output) or
  with uncommitted changes, or a folder outside any repository (or no ``git``): the caller falls back, per file,
  to what it would do without git (a fingerprint state, the modification time) and reports the reason.
* **Shallow clones** (``git clone --depth N``, CI checkouts): history stops at the clone's oldest commits, which
  then appear to add every file they hold. Files whose only commit in reach is such a boundary commit get that
  commit's date (the latest their real change can be), flagged :attr:`GitDate.shallow`, and the repository is
  named as shallow (:attr:`GitDates.shallow`) so the caller can say "fetch the whole history".
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["GitDate", "GitDates", "read_git_dates"]

#: Reasons a file has no date from git (what the fallback reports).
UNCOMMITTED = "uncommitted changes"
NOT_COMMITTED = "not committed"
_HEADER = "\x01"


@dataclass(frozen=True, slots=True)
class GitDate:
    """A file's date from git: ``lastmod`` (W3C datetime, UTC) or None with the ``reason``; ``shallow`` when the
    date is a shallow clone's boundary commit's (the real last change is older)."""

    lastmod: str | None
    reason: str | None = None
    shallow: bool = False


@dataclass(slots=True)
class GitDates:
    """The last-change dates of a folder's files. ``root`` is the repository's top level (None outside one, with
    ``error`` saying why); ``shallow`` is True for a shallow clone."""

    folder: Path
    root: Path | None = None
    shallow: bool = False
    error: str | None = None
    dates: dict[str, int] = field(default_factory=dict)  # path relative to root (posix) -> committer time
    boundary: set[str] = field(default_factory=set)  # paths dated by a shallow boundary commit
    dirty: set[str] = field(default_factory=set)  # paths with uncommitted changes

    def key(self, path: str | os.PathLike[str]) -> str | None:
        """``path`` relative to the repository's top level (posix), or None when outside it."""
        if self.root is None:
            return None
        try:
            return Path(os.path.realpath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return None

    def lookup(self, path: str | os.PathLike[str]) -> GitDate:
        """The date of file ``path`` (any spelling: relative to the working directory or absolute)."""
        if self.root is None:
            return GitDate(None, self.error or "not in a git repository")
        key = self.key(path)
        if key is None:
            return GitDate(None, "outside the git repository")
        if key in self.dirty:
            return GitDate(None, UNCOMMITTED)
        when = self.dates.get(key)
        if when is None:
            return GitDate(None, NOT_COMMITTED)
        text = datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        return GitDate(text, None, key in self.boundary)


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}  # git status must not take the index lock
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=env, check=False)


def _first_line(data: bytes) -> str:
    text = data.decode("utf-8", "replace").strip()
    return text.splitlines()[0] if text else "git failed"


def read_git_dates(folder: str | os.PathLike[str]) -> GitDates:
    """Read the last-change dates of the files under ``folder`` (see the module's docstring). Never raises for a
    folder outside a repository or a missing ``git``: :attr:`GitDates.error` says why there are no dates."""
    base = Path(folder)
    dates = GitDates(base)
    if not base.is_dir():
        base = base.parent
    try:
        head = _git(["rev-parse", "--show-toplevel", "--is-shallow-repository", "--git-path", "shallow"], base)
    except FileNotFoundError:
        dates.error = "git is not installed"
        return dates
    except OSError as exc:
        dates.error = f"cannot run git: {exc.strerror or exc}"
        return dates
    if head.returncode != 0:
        dates.error = f"not in a git repository ({_first_line(head.stderr)})"
        return dates
    top, shallow, shallow_file = [*head.stdout.decode("utf-8", "surrogateescape").splitlines(), "", "", ""][:3]
    root = Path(os.path.realpath(top))
    dates.root = root
    dates.shallow = shallow.strip() == "true"
    prefix = dates.key(base) or "."
    boundary_commits: set[str] = set()
    if dates.shallow:
        try:
            boundary_commits = set((base / shallow_file).read_text(encoding="ascii").split())
        except OSError:
            pass
    log = _git(["-c", "log.showSignature=false", "log", "--no-color", "-M", "--name-status", "-z",
                f"--format={_HEADER}%ct %H", "--", prefix], root)
    if log.returncode != 0:
        if b"does not have any commits" in log.stderr:
            return dates  # an empty repository: nothing is committed
        dates.error = f"git log failed ({_first_line(log.stderr)})"
        dates.root = None
        return dates
    _parse_log(log.stdout, dates, boundary_commits)
    status = _git(["status", "--porcelain", "-z", "--untracked-files=no", "--", prefix], root)
    if status.returncode == 0:
        _parse_status(status.stdout, dates)
    return dates


def _parse_log(data: bytes, dates: GitDates, boundary_commits: set[str]) -> None:
    """Newest commit first: the first date met for a path is its last change. A pure rename (R100) passes the
    new name's dating on to the old name: the older commit that last changed the content dates it."""
    tokens = data.decode("utf-8", "surrogateescape").split("\0")
    found = dates.dates
    # old name -> (new name, the rename's time and commit) waiting for the old name's last change
    aliases: dict[str, list[tuple[str, int, str]]] = {}

    def date(path: str, when: int, commit: str) -> None:
        if path in found:
            return
        found[path] = when
        if commit in boundary_commits:
            dates.boundary.add(path)
        for newer, _, _ in aliases.pop(path, ()):
            date(newer, when, commit)

    when, commit = 0, ""
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i].lstrip("\n")
        i += 1
        if not token:
            continue
        if token.startswith(_HEADER):
            stamp, _, commit = token[1:].partition(" ")
            when = int(stamp)
            continue
        kind = token[0]
        if kind in "RC" and i + 1 < n:
            old, new = tokens[i], tokens[i + 1]
            i += 2
            if kind == "R" and token[1:] == "100" and new not in found and old not in found:
                aliases.setdefault(old, []).append((new, when, commit))
            else:
                date(new, when, commit)
            continue
        if i < n:
            path = tokens[i]
            i += 1
            if kind != "D":
                date(path, when, commit)
    # An earlier name with no change in reach (history cut by a shallow clone): the rename dates the file.
    for waiting in list(aliases.values()):
        for newer, rename_when, rename_commit in waiting:
            date(newer, rename_when, rename_commit)


def _parse_status(data: bytes, dates: GitDates) -> None:
    tokens = data.decode("utf-8", "surrogateescape").split("\0")
    i = 0
    while i < len(tokens):
        entry = tokens[i]
        i += 1
        if len(entry) < 4:
            continue
        xy, path = entry[:2], entry[3:]
        if "R" in xy or "C" in xy:
            i += 1  # the original name follows
        dates.dirty.add(path)
