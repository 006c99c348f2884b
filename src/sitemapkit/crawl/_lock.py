"""One crawl per state file: an exclusive ``flock`` on ``FILE.lock`` that names the owner's process id."""

from __future__ import annotations

import os
import sys
from pathlib import Path

if sys.platform != "win32":  # POSIX: one crawl per state file
    import fcntl

__all__ = ["ProcessLock"]


class ProcessLock:
    """An exclusive, non-blocking lock on ``path`` (created when missing) that records the owner's process id.

    ``acquire`` raises :class:`BlockingIOError` (with the owner's pid in ``owner``) when another process holds
    it. The lock is an ``flock`` on the file: the kernel drops it when the process ends, however it ends, so a
    killed run never leaves a stale lock. ``release`` deletes the file; a process that opened the file just
    before that notices (the path no longer names the file it locked) and starts over. On filesystems without
    ``flock`` (some network mounts) and on Windows the lock is a no-op, as the output folder's lock is.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._fd: int | None = None
        self.owner: int | None = None

    def acquire(self) -> None:
        if sys.platform == "win32":  # pragma: no cover
            return
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                self.owner = _read_pid(fd)
                os.close(fd)
                raise
            except OSError:  # no flock on this filesystem: go on unlocked
                os.close(fd)
                return
            try:
                same = os.path.samestat(os.stat(self.path), os.fstat(fd))
            except FileNotFoundError:
                same = False
            if not same:  # the previous owner released (and deleted) the file between our open and our flock
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
            self._fd = fd
            return

    def release(self) -> None:
        if self._fd is None:
            return
        try:
            os.unlink(self.path)  # while still holding the lock: nobody can have taken it in between
        except OSError:
            pass
        os.close(self._fd)  # closing releases the flock
        self._fd = None


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
