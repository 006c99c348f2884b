"""Binary data is not a sitemap: tell it from text by a document's first bytes, so that an image, an archive or
an executable given where a sitemap was expected is reported once ("binary data, not a sitemap") instead of as
dozens of encoding problems, and none of its bytes reach a terminal.

The test is deliberately narrow, so that no sitemap is ever refused by it. Gzip is inflated first (a gzip file is
binary, its contents need not be). The bytes are decoded as the reader would (byte-order mark, the pattern of
``<?xml`` in UTF-16/32, the declared encoding, else UTF-8). They are binary when both hold: more than one
character in 32, and at least three, are control characters (tab, line feed, vertical tab, form feed and
carriage return are text; NUL padding at the end of a file is ignored), and the bytes hold a NUL or do not decode.
Text full of terminal escapes is still text: the reader reads it and the CLI shows its controls escaped.
"""

from __future__ import annotations

import codecs
import zlib

from sitemapkit.read import GZIP_MAGIC, MAX_GZIP_LAYERS, detect_encoding

__all__ = ["HEAD_BYTES", "MESSAGE", "looks_binary"]

#: Bytes of a document looked at (once gzip is undone).
HEAD_BYTES = 4096
#: What is said about a binary document.
MESSAGE = "binary data, not a sitemap"

_CONTROLS: dict[int, None] = dict.fromkeys([*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F])


def _inflate_head(head: bytes) -> bytes | None:
    """The first bytes of gzip data, inflated (every layer the reader unwraps); None when they do not inflate,
    or are gzip still (the reader reports corrupt and too deeply nested gzip itself)."""
    for _ in range(MAX_GZIP_LAYERS):
        if head[:2] != GZIP_MAGIC:
            break
        try:
            head = zlib.decompressobj(31).decompress(head, HEAD_BYTES)
        except zlib.error:
            return None
    return None if head[:2] == GZIP_MAGIC else head


def looks_binary(head: bytes, *, complete: bool = False) -> bool:
    """True when ``head``, the first bytes of a document (the whole of it when ``complete``), is binary data
    (see the module docstring). Gzip data is judged by what it inflates to."""
    inflated = _inflate_head(head)
    if not inflated:
        return False
    complete = complete and len(inflated) < HEAD_BYTES
    head = inflated[:HEAD_BYTES]
    encoding = detect_encoding(head[:1024])
    try:
        decoder = codecs.getincrementaldecoder(encoding.encoding)(errors="replace")
    except LookupError:
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    text = decoder.decode(head[encoding.bom_length:], final=complete)
    if complete or len(head) < HEAD_BYTES:
        text = text.rstrip("\x00")
    controls = len(text) - len(text.translate(_CONTROLS))
    if controls < 3 or controls * 32 <= len(text):
        return False
    return "\x00" in text or "\ufffd" in text
