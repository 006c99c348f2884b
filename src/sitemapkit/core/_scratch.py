"""Temporary files that are recognisably sitemapkit's and do not outlive a killed run for long.

A run that is killed (``kill -9``, out of memory, a power cut) cannot remove its temporary files. So each one is
named after its owner, ``sitemapkit-KIND-PID-XXXX`` (a folder in the temporary directory: :class:`ScratchDir`) or
``.NAME.sitemapkit-PID-XXXX.tmp`` (the temporary file next to an atomically written ``NAME``), and holds an
``flock`` for as long as its owner lives; the kernel drops that lock when the process ends, however it ends. The
next run that makes the same kind of file removes those whose owner is gone (:func:`sweep_scratch`,
:func:`sweep_temporaries`): the owner's process id no longer exists, and the lock is free (so a live owner in
another PID namespace sharing the folder keeps its file). On Windows (no ``flock``, and no safe way to probe a
process id) nothing is swept.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

if sys.platform != "win32":
    import fcntl

__all__ = ["ScratchDir", "hold_lock", "owner_gone", "sweep_scratch", "sweep_temporaries", "temporary_prefix"]

_LOCK = "owner.lock"
_PID = re.compile(r"sitemapkit-(?:[a-z]+-)?([0-9]+)-")
#: ``.NAME.sitemapkit-PID-XXXX.tmp`` (greedy: the last ``.sitemapkit-PID-`` is ours, whatever NAME holds).
_TEMPORARY = re.compile(r"\..*\.sitemapkit-([0-9]+)-[^.]*\.tmp\Z", re.DOTALL)
_SWEPT: set[str] = set()


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: somebody else's process
        return True
    return True


def hold_lock(fd: int) -> bool:
    """Take an exclusive ``flock`` on ``fd`` for as long as it is open; False when the filesystem has none."""
    if sys.platform == "win32":  # pragma: no cover
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def owner_gone(name: str, lock_path: Path) -> bool:
    """True when the process named in ``name`` (``...sitemapkit-[KIND-]PID-...``) has ended: its id does not
    exist and the lock it held on ``lock_path`` is free (a missing lock file counts as free)."""
    if sys.platform == "win32":  # pragma: no cover
        return False
    match = _PID.search(name)
    if match is None or _alive(int(match.group(1))):
        return False
    try:
        fd = os.open(lock_path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False  # the owner lives (in another PID namespace)
    except OSError:
        return True  # no flock on this filesystem: the process id has to do
    finally:
        os.close(fd)
    return True


def sweep_scratch(kind: str, parent: str | os.PathLike[str] | None = None) -> list[str]:
    """Remove the ``sitemapkit-KIND-PID-*`` folders in ``parent`` (default: the temporary directory) whose owner
    has ended; returns their paths. Errors (a folder another sweeper removed first) are ignored."""
    base = Path(parent if parent is not None else tempfile.gettempdir())
    removed: list[str] = []
    try:
        entries = list(os.scandir(base))
    except OSError:
        return removed
    prefix = f"sitemapkit-{kind}-"
    for entry in entries:
        if not entry.name.startswith(prefix) or not entry.is_dir(follow_symlinks=False):
            continue
        if owner_gone(entry.name, Path(entry.path) / _LOCK):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(entry.path)
    return removed


def temporary_prefix(target: Path) -> str:
    """The prefix of this process's temporary files next to ``target``: ``.NAME.sitemapkit-PID-``."""
    return f".{target.name}.sitemapkit-{os.getpid()}-"


def sweep_temporaries(directory: Path) -> list[str]:
    """Remove the temporary files ``.NAME.sitemapkit-PID-*.tmp`` in ``directory`` left by ended processes. Once
    per directory and process: a folder of many files (the HTTP cache) is not listed again on every write."""
    removed: list[str] = []
    if sys.platform == "win32":  # pragma: no cover
        return removed
    key = os.path.abspath(directory)
    if key in _SWEPT:
        return removed
    _SWEPT.add(key)
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMPORARY.match(entry.name)
        if match is not None and owner_gone(f"sitemapkit-{match.group(1)}-", Path(entry.path)):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(entry.path)
    return removed


class ScratchDir:
    """A private folder ``sitemapkit-KIND-PID-XXXX`` in ``parent`` (default: the temporary directory), locked for
    the life of this process; creating one first sweeps the folders of KIND left by ended runs. :meth:`cleanup`
    removes it (also a context manager)."""

    def __init__(self, kind: str, parent: str | os.PathLike[str] | None = None) -> None:
        sweep_scratch(kind, parent)
        self.name = tempfile.mkdtemp(prefix=f"sitemapkit-{kind}-{os.getpid()}-", dir=parent)
        self._fd: int | None = os.open(os.path.join(self.name, _LOCK), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        hold_lock(self._fd)

    def path(self, name: str) -> str:
        return os.path.join(self.name, name)

    def cleanup(self) -> None:
        shutil.rmtree(self.name, ignore_errors=True)
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> ScratchDir:
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
