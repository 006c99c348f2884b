"""Binary data is not a sitemap: tell it from text by a document's first bytes, so that an image, an archive or
an executable given where a sitemap was expected is reported once ("binary data, not a sitemap") instead of as
dozens of encoding problems, and none of its bytes reach a terminal.

The test is deliberately narrow, so that no sitemap is ever refused by it: gzip is inflated first (a gzip file
is binary, its contents need not be); UTF-16 and UTF-32 documents (by byte-order mark or the pattern of ``<?xml``)
are decoded first; then more than one control character in 32 (NUL included; tab, line feed, vertical tab, form
feed and carriage return are text; NUL padding at the end of a file is ignored), and at least three, is binary: a
stray control character in a sitemap is the reader's to report, not a reason to read nothing.
"""

from __future__ import annotations

import zlib

from sitemapkit.read._sniff import GZIP_MAGIC, MAX_GZIP_LAYERS, detect_encoding

__all__ = ["HEAD_BYTES", "MESSAGE", "looks_binary"]

#: Bytes of a document looked at (once gzip is undone).
HEAD_BYTES = 4096
#: What is said about a binary document.
MESSAGE = "binary data, not a sitemap"

_CONTROLS = bytes(range(0x00, 0x09)) + bytes(range(0x0E, 0x20)) + b"\x7f"
_CONTROL_CHARS: dict[int, None] = dict.fromkeys(_CONTROLS)


def _inflate_head(head: bytes) -> bytes | None:
    """The first bytes of gzip data, inflated (every layer); None when they do not inflate (the reader reports
    corrupt gzip itself)."""
    for _ in range(MAX_GZIP_LAYERS):
        if head[:2] != GZIP_MAGIC:
            break
        try:
            head = zlib.decompressobj(31).decompress(head, HEAD_BYTES)
        except zlib.error:
            return None
    return head


def looks_binary(head: bytes, *, complete: bool = False) -> bool:
    """True when ``head``, the first bytes of a document (the whole of it when ``complete``), is binary data
    (see the module docstring). Gzip data is judged by what it inflates to."""
    inflated = _inflate_head(head)
    if not inflated:
        return False
    head = inflated[:HEAD_BYTES]
    encoding = detect_encoding(head[:1024])
    if encoding.source in ("bom", "pattern") and encoding.encoding.startswith(("utf-16", "utf-32")):
        text = head[encoding.bom_length:].decode(encoding.encoding, errors="replace")
        if complete:
            text = text.rstrip("\x00")
        return _too_many(len(text) - len(text.translate(_CONTROL_CHARS)), len(text))
    body = head.rstrip(b"\x00") if complete or len(head) < HEAD_BYTES else head
    return _too_many(len(body) - len(body.translate(None, _CONTROLS)), len(body))


def _too_many(controls: int, length: int) -> bool:
    return controls > 2 and controls * 32 > length
