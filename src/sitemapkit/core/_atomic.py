"""Atomic file writes: write to a temporary file in the target's directory, then rename it into place.

A reader of ``path`` sees either the old file or the complete new one, never a half-written file; a failure
(or a kill) leaves the old file untouched and the temporary file is removed when possible. The temporary file is
named ``.NAME.sitemapkit-PID-XXXX.tmp`` and locked while written (``core/_scratch.py``): one left by a killed run is
removed by the next run that writes a file atomically in that folder.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from sitemapkit.core._scratch import hold_lock, sweep_temporaries, temporary_prefix

__all__ = ["atomic_binary", "atomic_text", "atomic_write_bytes"]

_UMASK = os.umask(0)
os.umask(_UMASK)


@contextmanager
def _atomic(path: Path, shareable: bool) -> Iterator[tuple[int, str]]:
    path.parent.mkdir(parents=True, exist_ok=True)
    sweep_temporaries(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=temporary_prefix(path), suffix=".tmp", dir=path.parent)
    hold_lock(fd)  # until the file is closed: a sweeper in another process leaves it alone
    try:
        yield fd, tmp
        if shareable:  # mkstemp creates 0600; reports and caches are meant to be read (and served)
            os.chmod(tmp, 0o666 & ~_UMASK)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


@contextmanager
def atomic_text(path: Path, *, shareable: bool = True) -> Iterator[IO[str]]:
    """Write UTF-8 text to a temporary file next to ``path``; on a clean exit it replaces ``path``."""
    with _atomic(path, shareable) as (fd, _tmp), os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
        yield fh


@contextmanager
def atomic_binary(path: Path, *, shareable: bool = True) -> Iterator[IO[bytes]]:
    """Write bytes to a temporary file next to ``path``; on a clean exit it replaces ``path``."""
    with _atomic(path, shareable) as (fd, _tmp), os.fdopen(fd, "wb") as fh:
        yield fh


def atomic_write_bytes(path: Path, data: bytes, *, shareable: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically."""
    with atomic_binary(path, shareable=shareable) as fh:
        fh.write(data)
