"""The XML engine's byte plumbing: decoding and checking the bytes, the repairs made before libxml2 sees them,
feeding lxml's pull parser (or the fast lane), mapping libxml2's errors to problems, and freeing what was read.

A base class of :class:`~sitemapkit.read._xml.XmlEngine`, which sets the state up and says what an item is
(``_handle``, ``_item_local``, ``_tag_filtered``).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from typing import Any

from lxml import etree

from sitemapkit.core import ProblemCode
from sitemapkit.read import _codes as C
from sitemapkit.read._fields import _split
from sitemapkit.read._lane import FastUrlset
from sitemapkit.read._owner import Owner
from sitemapkit.read._trim import ChildTrimmer, Dropped, child_name

__all__ = ["XmlStream"]

_LINE_IN_MESSAGE = re.compile(r"\bline (\d+)")
_SOH_IN_MESSAGE = re.compile(r"(Char 0x|Char value )1\b")
_ERROR_SUFFIX = re.compile(r",? line \d+, column \d+.*$", re.S)
#: libxml2's errors about a character that XML does not allow: not-well-formed wherever they are found (libxml2
#: finds one in the last bytes while reading them or only at the end, depending on its look-ahead).
_CHAR_ERROR = re.compile(r"invalid Char value|Char 0x[0-9A-Fa-f]+ out of allowed range|not proper UTF-8")


def _first_fatal(log: Any) -> Any:
    """The first fatal error of an lxml error log (None when there is none): the one that stopped libxml2 (the
    reader stops at it). libxml2 may log more after it in the same call, such as "Comment not terminated" after
    "Double hyphen within comment", placed wherever its buffer ended: those depend on the chunking."""
    for entry in log:
        if entry.level == _FATAL:
            return entry
    return None


_FATAL = etree.ErrorLevels.FATAL
#: Bytes handed to lxml's parser at a time (well under libxml2's 10 MB limit on unparsed input).
LX_SLICE = 1 << 20


_BARE_AMP = re.compile(rb"&(?!(?:[A-Za-z_:][A-Za-z0-9_.:\-]{0,63}|#[0-9]{1,10}|#[xX][0-9A-Fa-f]{1,8});)")
_CDATA_OPEN = b"<![CDATA["
_CDATA_CLOSE = b"]]>"
#: Bytes held back at the end of each chunk so that a reference or a CDATA marker cut by the chunk boundary is
#: judged exactly as in the whole document (longest reference the pattern accepts + margin).
_AMP_LOOKAHEAD = 80


class _AmpRepair:
    """Rewrites every ``&`` that starts no entity or character reference to ``&amp;``, outside CDATA sections.

    Works on the UTF-8 byte stream before libxml2 sees it, chunk by chunk, with the same result for any chunking
    (a short tail is held back until the next chunk). Counts repairs and remembers the first line."""

    __slots__ = ("_carry", "_in_cdata", "_line", "count", "first_line")

    def __init__(self, first_line: int) -> None:
        self._carry = b""
        self._in_cdata = False
        self._line = first_line  # the line of the first byte of the stream
        self.count = 0
        self.first_line: int | None = None

    def first_line_of_stream(self, line: int) -> None:
        self._line = line

    def repair(self, data: bytes, *, final: bool, fed_line: int) -> bytes:
        """``data`` with its bare "&"s escaped, but for a tail held back until the next call (or ``final``).
        ``fed_line``: the stream's line after everything this repair returned before, counted from 1 (the stream
        counts line feeds as it feeds the bytes on, so the repair does not count them again: it needs a line only
        for its first repair)."""
        line = self._line + fed_line - 1  # the line of data[0]: the held tail was not returned yet
        if self._carry:
            data = self._carry + data
            self._carry = b""
        n = len(data)
        cut = n if final else n - _AMP_LOOKAHEAD
        if cut <= 0:
            self._carry = data
            return b""
        if not self._in_cdata and _CDATA_OPEN not in data:
            amps = data.count(b"&", 0, cut)
            # "&amp;" only (the usual case of a machine-written query string): nothing to repair
            if not amps or amps == data.count(b"&amp;", 0, cut):
                self._carry = data[cut:]
                return data[:cut]
        out: list[bytes] = []
        i = 0
        while i < cut:
            if self._in_cdata:
                end = data.find(_CDATA_CLOSE, i)
                if end < 0 or end >= cut:
                    out.append(data[i:cut])
                    i = cut
                    break
                out.append(data[i:end + 3])
                i = end + 3
                self._in_cdata = False
                continue
            start = data.find(_CDATA_OPEN, i)
            seg_end = start if 0 <= start < cut else cut
            pos = i
            while True:
                m = _BARE_AMP.search(data, pos)
                if m is None or m.start() >= seg_end:
                    break
                at = m.start()
                out.append(data[pos:at])
                out.append(b"&amp;")
                self.count += 1
                if self.first_line is None:
                    self.first_line = line + data.count(b"\n", 0, at)
                pos = at + 1
            out.append(data[pos:seg_end])
            i = seg_end
            if seg_end == start:
                out.append(_CDATA_OPEN)
                i = start + len(_CDATA_OPEN)
                self._in_cdata = True
        self._carry = data[i:]
        return b"".join(out)


class XmlStream:
    """Bytes in, complete items out to ``_handle`` (one instance per document, with the engine's state)."""

    o: Owner
    _handle: Callable[[Any], None]
    _item_local: str
    _tag_filtered: bool
    _fast: FastUrlset | None
    _p: Any  # etree.XMLPullParser
    _bom: int
    _strip_ws: bool
    _first: bool
    _line_offset: int
    _ws_lines: int
    _col_fix_line: int
    _col_fix: int
    _lines_fed: int
    _decoder: codecs.IncrementalDecoder | None
    _dead: bool
    _utf8: codecs.IncrementalDecoder
    _utf8_carry: bytes
    _nul: bool
    _soh: bool
    _amp: _AmpRepair | None
    _pending: list[tuple[ProblemCode, str, int | None]]  # problems of the end, see close()
    _trimmer: ChildTrimmer | None = None  # caps the children of the item still open (made at the first start)

    def feed(self, data: bytes) -> None:
        if self._dead:
            return
        if self._decoder is not None:
            if self._first:
                data = data[self._bom:]
            state = self._decoder.getstate()
            try:
                data = self._decoder.decode(data).encode("utf-8")
            except UnicodeDecodeError as exc:
                # The characters before the bad bytes are read first (an error in them is the report, as when
                # they came in an earlier chunk), then reading stops at the bad bytes.
                self._feed_utf8(self._decodable_prefix(state, data, exc))
                self._release_held()
                if not self._dead:
                    self._drain()
                    self.o.problem(C.UNDECODABLE,
                                   f"bytes are not valid {exc.encoding}: {exc.reason}; reading stopped")
                    self._die()
                return
        else:
            if self._first and self._bom:
                data = data[self._bom:]
            if self._utf8_carry or not data.isascii():
                checked = self._valid_utf8(data)
                if checked is None:
                    return
                data = checked
        self._feed_utf8(data)

    def _valid_utf8(self, data: bytes) -> bytes | None:
        """The complete, valid UTF-8 characters of the held bytes and ``data`` (a character cut at the end is
        held); None when the bytes are not UTF-8 (reported, reading stopped). libxml2 notices bad bytes in text
        or not depending on where its buffer ends, so they are checked here, once, the same for any chunking."""
        buf = self._utf8_carry + data
        self._utf8_carry = b""
        try:
            self._utf8.decode(data)
        except UnicodeDecodeError as exc:
            # The decoder's input was the held bytes and data, as ``buf``: read what comes before the bad bytes.
            self._feed_utf8(buf[:exc.start])
            self._release_held()
            if not self._dead:
                self._drain()
                self.o.problem(C.UNDECODABLE, f"bytes are not valid UTF-8: {exc.reason}; reading stopped")
                self._die()
            return None
        held = len(self._utf8.getstate()[0])
        if held:
            self._utf8_carry = buf[len(buf) - held:]
            return buf[:len(buf) - held]
        return buf

    def _decodable_prefix(self, state: tuple[bytes, int], data: bytes, exc: UnicodeDecodeError) -> bytes:
        """UTF-8 of the characters of ``data`` before the bytes ``exc`` rejected (decoded from ``state``)."""
        decoder = self._decoder
        assert decoder is not None
        pending = state[0] if isinstance(state[0], bytes) else b""
        end = exc.start - len(pending) if exc.object[:len(pending)] == pending else -1
        if end <= 0:
            return b""
        decoder.setstate(state)
        try:
            return decoder.decode(data[:end]).encode("utf-8")
        except UnicodeDecodeError:
            return b""

    def _feed_utf8(self, data: bytes) -> None:
        if b"\x00" in data:
            # libxml2 looks for the end of a declaration, comment, PI or CDATA section with C string functions,
            # which stop at a NUL: whether it reports the NUL at once or only at close then depends on the
            # chunking. U+0001 is just as invalid everywhere in XML (same error, same place) and not a terminator.
            if not self._nul:
                self._nul = b"\x01" not in data[:data.index(b"\x00")] and not self._soh
            data = data.replace(b"\x00", b"\x01")
        elif not self._soh and b"\x01" in data:
            self._soh = True
        if self._first:
            self._first = False
            if self._strip_ws:
                stripped = data.lstrip(b" \t\r\n")
                self._ws_lines = self._line_offset = data[:len(data) - len(stripped)].count(b"\n")
                data = stripped
                if self._amp is not None:
                    self._amp.first_line_of_stream(1 + self._line_offset)
                self.o.problem(C.WHITESPACE_BEFORE_DECLARATION, None, 1, 1)
        if self._amp is not None:
            data = self._amp.repair(data, final=False, fed_line=self._lines_fed)
        if data:
            self._push(data)

    def _push(self, data: bytes) -> None:
        nl = data.count(b"\n")
        self._lines_fed += nl
        fast = self._fast
        if fast is not None and self._amp is not None and self._amp.count:
            # A bare & was repaired: lxml reads the rest as it comes (the lane holds bytes back, which would
            # change where reading stops relative to the repairs; such documents are not machine-clean anyway).
            self._fast = None
            data = fast.finish_early(data)
            fast = None
        if fast is not None:
            # Canonical <url> blocks are read from the bytes (_lane); lxml gets the prolog at once and the
            # rest of the document from the first block that is not canonical.
            data = fast.feed(data, nl)
            if fast.off:
                self._fast = None
            if not data or self._dead:
                return
        self._lx_feed(data)

    def _lx_feed(self, data: bytes) -> None:
        """Hand bytes to lxml, at most :data:`LX_SLICE` at a time: libxml2 refuses to buffer more than 10 MB of
        unparsed input ("Buffer size limit exceeded"), so a document fed in one piece would stop where the same
        bytes fed in chunks do not. Each slice is drained before the next."""
        if len(data) <= LX_SLICE:
            self._lx_feed_slice(data)
            return
        view = memoryview(data)
        for start in range(0, len(data), LX_SLICE):
            self._lx_feed_slice(bytes(view[start:start + LX_SLICE]))
            if self._dead:
                return

    def _lx_feed_slice(self, data: bytes) -> None:
        p = self._p
        try:
            p.feed(data)
        except etree.XMLSyntaxError as exc:
            self._drain()
            self._syntax_error(exc, at_close=False)
            return
        self._drain()
        # libxml2 stops at some fatal errors (an undefined entity) without failing this feed: lxml raises only at
        # the next feed or at close, with a message about whatever came next. Reported here, from the log, it is
        # the same error at the same place whatever the chunking.
        log = p.feed_error_log
        if log and not self._dead:
            fatal = _first_fatal(log)
            if fatal is not None:
                self._report_syntax(fatal.message, fatal.line, fatal.column, at_close=False)

    def close(self) -> None:
        if self._dead:
            return
        # What is wrong at the end of the bytes (a character cut short, the & repairs) is reported once lxml has
        # read everything before it. When reading stops at an error there, that error is the report: libxml2
        # finds it while reading the last bytes or only when closed, depending on its look-ahead, so nothing
        # reported before it may depend on which (a truncation keeps them: they come before it, as they are).
        pending = self._pending
        if self._decoder is not None:
            try:
                rest = self._decoder.decode(b"", final=True).encode("utf-8")
            except UnicodeDecodeError as exc:
                pending.append((C.UNDECODABLE, f"document ends inside a {exc.encoding} character", None))
                rest = b""
            if rest:
                self._feed_utf8(rest)
        elif self._utf8_carry:
            self._utf8_carry = b""
            pending.append((C.UNDECODABLE, "document ends inside a UTF-8 character", None))
        self._release_held()
        if self.dead:
            return
        amp = self._amp
        if amp is not None and amp.count:
            more = f" (and {amp.count - 1:,} more)" if amp.count > 1 else ""
            pending.append((C.BARE_AMPERSAND, f"unescaped & read as &amp;{more}", amp.first_line))
        try:
            self._p.close()
        except etree.XMLSyntaxError as exc:
            self._drain()
            self._syntax_error(exc, at_close=True)
            return
        self._drain()
        self._report_pending()

    def release(self) -> None:
        """The document is over (closed or stopped): drop lxml's parser and the references that make cycles (the
        handler bound to this engine, the lane pointing back), so everything is freed without waiting for the
        cyclic garbage collector."""
        self._dead = True
        self._fast = None
        self._p = None
        self._trimmer = None
        self._release_handlers()

    def _release_handlers(self) -> None:
        """What the engine built on itself (bound methods), dropped by the subclass."""

    def _report_pending(self) -> None:
        pending, self._pending = self._pending, []
        for pc, message, line in pending:
            self.o.problem(pc, message, line, None)

    def _release_held(self) -> None:
        """Hand lxml the bytes held back for look-ahead (the & repair's tail, the fast lane's buffer): the bytes
        end here (the document's end, or undecodable bytes where reading stops)."""
        if self._dead:
            return
        amp = self._amp
        if amp is not None:
            tail = amp.repair(b"", final=True, fed_line=self._lines_fed)
            if tail:
                self._push(tail)
        self._fast_finish()

    def _fast_finish(self) -> None:
        fast = self._fast
        if fast is not None and not self._dead:
            self._fast = None
            data = fast.finish()
            if data and not self._dead:
                self._lx_feed(data)

    @property
    def dead(self) -> bool:
        return self._dead

    def _die(self) -> None:
        self._dead = True
        self.o.stop()

    def _syntax_error(self, exc: etree.XMLSyntaxError, *, at_close: bool) -> None:
        # This parser's own log (``exc.error_log`` also holds entries of earlier documents read in this thread).
        entry: Any = _first_fatal(self._p.feed_error_log) or getattr(exc.error_log, "last_error", None)
        message = entry.message if entry is not None and entry.message else _ERROR_SUFFIX.sub("", str(exc))
        line = (entry.line if entry is not None else exc.lineno) or None
        column = (entry.column if entry is not None else None) or None
        self._report_syntax(message, line, column, at_close=at_close)

    def _report_syntax(self, message: str, line: int | None, column: int | None, *, at_close: bool) -> None:
        line = line or None
        column = column or None
        if self._nul:  # the character libxml2 names is the NUL the document has
            message = _SOH_IN_MESSAGE.sub(r"\g<1>0", message)
        if line is not None:
            if line == self._col_fix_line and column is not None:
                column += self._col_fix
            line += self._line_offset
        skipped = self._line_offset - self._ws_lines
        if skipped:  # lines the fast lane read: libxml2's "line N" in the message is lxml's own count
            message = _LINE_IN_MESSAGE.sub(
                lambda m: f"line {int(m[1]) + skipped}" if int(m[1]) >= self._col_fix_line else m[0], message)
        self._die()
        if "Extra content at the end of the document" in message:
            self._pending = []
            self.o.problem(C.JUNK_AFTER_ROOT, "content after the root element is ignored", line, column)
        elif "Premature end of data" in message or (
                at_close and (line is None or line >= self._last_line) and not _CHAR_ERROR.search(message)):
            self._report_pending()
            self.o.problem(C.TRUNCATED, f"document ends early ({message}); incomplete entries dropped", line, column)
        else:
            self._pending = []
            self.o.problem(C.NOT_WELL_FORMED, f"XML is not well-formed: {message}; reading stopped", line, column)

    @property
    def _last_line(self) -> int:
        return self._lines_fed + self._ws_lines

    def _drain(self) -> None:
        handle = self._handle
        item_local = self._item_local
        filtered = self._tag_filtered
        trimmer = self._trimmer
        if trimmer is None:
            trimmer = self._trimmer = ChildTrimmer()
        small = trimmer.smallest
        last: Any = None
        el: Any
        for event, el in self._p.read_events():
            if not filtered:
                _ns, local = _split(el.tag)
                if local.lower() != item_local:
                    continue
            if event == "start":
                if trimmer.entry is None:  # an item (not one nested in the open one): capped as its children come
                    trimmer.entry = el
                continue
            if not (trimmer.entry is el and trimmer.path is None and len(el) <= small):  # (ended_small, inlined)
                trimmer.line_offset = self._line_offset
                dropped = trimmer.finish(el)
                if dropped is not None:
                    self._report_dropped(el, dropped)
            else:
                trimmer.entry = None
            handle(el)
            last = el
        if trimmer.entry is not None:
            trimmer.line_offset = self._line_offset
            trimmer.trim()
        if last is not None:
            # Free what was read: every complete sibling *before* the last item handled. The last one stays in
            # the tree with its tail: libxml2 may still be appending text to that tail (it grows the parent's
            # last text node in place, keeping its length in the parser context), so freeing it, or making an
            # older text node the parent's last child, lets the next feed write past a freed or short buffer.
            # The siblings before it are complete: a later start tag ended their tails. Batched per feed.
            # Only items at the top level are freed: an item nested in an unclosed one is part of that one's text
            # (read when it ends), so freeing it would make that text depend on where the feeds ended.
            parent = last.getparent()
            if parent is not None and not self._in_item(parent):
                index = parent.index(last)
                if index:
                    del parent[:index]

    def _report_dropped(self, el: Any, dropped: Dropped) -> None:
        line = el.sourceline
        if line is not None:
            line += self._line_offset
        parts = [f"{kept + n:,} <{child_name(kind)}> (the first {kept:,} kept)"
                 for kind, (kept, n, _line) in dropped.kinds.items()]
        if dropped.nested:
            parts.append(f"{dropped.nested:,} more nested elements past the cap of their kind")
        first = min((ln for _k, _n, ln in dropped.kinds.values() if ln is not None), default=dropped.nested_line)
        self.o.problem(C.TOO_MANY_CHILDREN, f"<{self._item_local}> at line {line} has too many children: "
                       f"{', '.join(parts)}; the rest dropped", first, None)

    def _in_item(self, el: Any) -> bool:
        """Whether ``el`` is an item or inside one."""
        item_local = self._item_local
        while el is not None:
            tag = el.tag
            if isinstance(tag, str) and tag.rpartition("}")[2].lower() == item_local:
                return True
            el = el.getparent()
        return False
