"""A document in another encoding than UTF-8 (Latin-1, UTF-16, ...), decoded here and handed to the XML pass as
UTF-8 (which it is told to read, whatever the declaration says).

libxml2 converts such bytes itself in buffers whose size depends on how the bytes arrive, and where it notices
bytes that are not valid in the encoding then depends on the chunking too. Python's incremental decoder gives the
same characters and stops at the same bad bytes however the document is cut: the characters before them are
read, and reading stops there with a problem at their line (as the reader does).
"""

from __future__ import annotations

import codecs
from typing import Protocol

from sitemapkit.validate import _codes as C
from sitemapkit.validate._context import FileContext

__all__ = ["Utf8Feed"]


class _Pass(Protocol):
    def feed(self, data: bytes) -> None: ...

    def stop(self) -> None: ...

    def close(self) -> None: ...


class Utf8Feed:
    """Feeds ``xp`` the document decoded from ``encoding`` (its BOM of ``bom`` bytes dropped), as UTF-8."""

    __slots__ = ("_bom", "_ctx", "_decoder", "_encoding", "_lines", "_stopped", "_xp")

    def __init__(self, xp: _Pass, ctx: FileContext, encoding: str, bom: int) -> None:
        self._xp = xp
        self._ctx = ctx
        self._encoding = encoding
        self._decoder = codecs.getincrementaldecoder(encoding)("strict")
        self._bom = bom
        self._lines = 0
        self._stopped = False

    def feed(self, data: bytes, *, final: bool = False) -> None:
        if self._stopped:
            return
        if self._bom:
            cut = min(self._bom, len(data))
            data = data[cut:]
            self._bom -= cut
        try:
            text = self._decoder.decode(data, final)
        except UnicodeDecodeError as exc:
            seen = bytes(exc.object)
            good = seen[:exc.start].decode(self._encoding, errors="replace")
            self._give(good)
            self._stopped = True
            self._xp.stop()
            self._ctx.report(C.ENCODING, f"bytes that are not valid {self._encoding} ({exc.reason}); reading "
                                         "stopped: re-encode the file as UTF-8", self._lines + 1)
            return
        self._give(text)

    def _give(self, text: str) -> None:
        if text:
            self._lines += text.count("\n")
            self._xp.feed(text.encode("utf-8", errors="surrogatepass"))

    def close(self) -> None:
        self.feed(b"", final=True)
        self._xp.close()
