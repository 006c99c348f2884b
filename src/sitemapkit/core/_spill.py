"""A list of ``(loc, line)`` pairs that keeps memory flat: the first ``limit`` in memory, the rest in an anonymous
temporary file (unlinked when made, so nothing is left behind however the process ends).

What a sitemap index lists is kept for later (its children are looked for next to it once the index is read); an
index of a million children must not hold a million strings (issue 22 measured 484 MB for one)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from typing import IO

__all__ = ["SpillList"]

#: Pairs held in memory before the rest go to disk.
DEFAULT_IN_MEMORY = 10_000


class SpillList:
    """Append ``(loc, line)`` pairs; iterate them in order, as often as needed."""

    __slots__ = ("_file", "_head", "_limit", "_spilled")

    def __init__(self, limit: int = DEFAULT_IN_MEMORY) -> None:
        self._limit = limit
        self._head: list[tuple[str, int | None]] = []
        self._file: IO[str] | None = None
        self._spilled = 0

    def append(self, item: tuple[str, int | None]) -> None:
        if len(self._head) < self._limit:
            self._head.append(item)
            return
        if self._file is None:
            self._file = tempfile.TemporaryFile("w+", encoding="utf-8", errors="surrogatepass",  # noqa: SIM115
                                                prefix="sitemapkit-spill-")
        self._file.write(json.dumps(item, ensure_ascii=False) + "\n")
        self._spilled += 1

    def __len__(self) -> int:
        return len(self._head) + self._spilled

    def __bool__(self) -> bool:
        return bool(self._head)

    def __iter__(self) -> Iterator[tuple[str, int | None]]:
        yield from list(self._head)
        f = self._file
        if f is None:
            return
        f.flush()
        f.seek(0)
        for n, text in enumerate(f):
            if n >= self._spilled:
                break
            loc, line = json.loads(text)
            yield str(loc), (int(line) if line is not None else None)
        f.seek(0, 2)  # appends go on at the end

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
            self._spilled = 0

    def __del__(self) -> None:  # the owner (a file's validation context) is simply dropped when done
        self.close()
