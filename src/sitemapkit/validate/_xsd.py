"""The XML pass's XSD batching: detached batches of entries validated against the bundled schema.

Entries leave the parsed tree into a small batch document (a copy of the root holding them); every full batch is
validated (on a worker thread while the next one is parsed, see :class:`_BatchValidation`) and dropped, so memory
stays flat and libxml2 reports each error at the line of its node. The fast lane hands full batches over as bytes
(:meth:`XsdBatching.flush_bytes_batch`) and a partial one as the start of the next element batch
(:meth:`XsdBatching.adopt_batch`). Errors about a value a rule check already judged are dropped (the rule check's
message is better); errors about the root's attributes, repeated in every batch, are reported once.
"""

from __future__ import annotations

import re
import threading
from copy import deepcopy
from typing import Any, cast

from lxml import etree

from sitemapkit.validate import _codes as C
from sitemapkit.validate._context import FileContext

__all__ = ["XsdBatching", "batch_root", "copy_root"]

Element = etree._Element

_ELEMENT_NAME = re.compile(r"Element '(?:\{[^}]*\})?([^']+)'")
_STRUCTURE_HINTS = ("not expected", "Missing child", "No matching global", "is not allowed", "not accepted")

#: The compiled schemas are shared (cached) and keep their error log on the schema object, so one validation at
#: a time may run: held around ``validate`` + ``error_log`` (the worker thread, the main thread, other callers).
_SCHEMA_LOCK = threading.Lock()

XsdError = tuple[int | None, str]  # (line, message)


def copy_root(root: Element) -> Element:
    """An empty element like the root (same name, attributes, namespace declarations and line, so that XSD
    errors about the root's attributes carry the root's line)."""
    nsmap: Any = root.nsmap
    attrib: dict[str, str] = {str(k): str(v) for k, v in root.attrib.items()}
    try:
        copy = etree.Element(root.tag, attrib=attrib, nsmap=nsmap)
    except ValueError:
        # A root libxml2 read past namespace errors (an xmlns that is not a URI, an attribute with an undeclared
        # prefix, reported as not well-formed): lxml refuses to build such an element, so the root is copied as
        # libxml2 built it, and emptied.
        copy = deepcopy(root)
        copy.text = None
        del copy[:]
    if root.sourceline:
        cast(Any, copy).sourceline = root.sourceline
    return copy


def _schema_errors(schema: etree.XMLSchema, batch: Element) -> list[XsdError]:
    with _SCHEMA_LOCK:
        if schema.validate(batch):
            return []
        return [(e.line or None, e.message) for e in cast(Any, schema.error_log)]


class _BatchValidation(threading.Thread):
    """One detached batch validated on a worker thread: libxml2 validates without the GIL, so the main thread
    parses and checks the next batch meanwhile. At most one runs at a time (the schema object and its error log
    are used by one thread at a time); the batch document is not touched by the main thread until joined."""

    def __init__(self, schema: etree.XMLSchema, batch: Element, value_lines: set[tuple[int, str]]) -> None:
        super().__init__(name="sitemapkit-xsd", daemon=True)
        self.schema = schema
        self.batch: Element | None = batch
        self.value_lines = value_lines
        self.errors: list[XsdError] = []
        self.failure: BaseException | None = None
        self.start()

    def run(self) -> None:
        batch = self.batch
        assert batch is not None
        try:
            self.errors = _schema_errors(self.schema, batch)
        except BaseException as exc:  # handed to the main thread by XsdBatching._collect
            self.failure = exc


def batch_root(doc: bytes) -> Element:
    """Parse a batch document built by the fast lane (well-formed by construction, but for namespace errors of
    the root start tag, which the XML pass reports: libxml2 reads past them and builds the same tree as there,
    which lxml hands over only in its recovering mode). Its bytes are UTF-8 (a document in another encoding is
    decoded before the XML pass sees it, ``_transcode``)."""
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, recover=True,
                             encoding="utf-8")
    return etree.fromstring(doc, parser)


class XsdBatching:
    """The XSD half of :class:`~sitemapkit.validate._xml.XmlPass` (a mixin: the pass owns the state below)."""

    ctx: FileContext
    count: int
    dead: bool
    _schema: etree.XMLSchema | None
    _threaded: bool
    _root: Element | None
    _batch: Element | None
    _batch_size: int
    _value_lines: set[tuple[int, str]]
    _running: _BatchValidation | None
    _xsd_seen: set[tuple[int, str]]
    _saw_root: bool
    _entry_local: str

    def _flush_batch(self, *, final: bool = False) -> None:
        schema = self._schema
        if schema is None:
            return
        self._collect()
        batch = self._batch
        if batch is None:
            if not final or not self._saw_root or self.count or self.dead:
                return
            # No entries at all: validate the bare root so the schema reports what it lacks.
            root = self._root
            assert root is not None
            batch = copy_root(root)
            cast(Any, batch).sourceline = root.sourceline
        value_lines = self._value_lines
        self._value_lines = set()
        self._batch = None
        self._batch_size = 0
        if final or not self._threaded:
            for line, message in _schema_errors(schema, batch):
                self._xsd_error(line, message, value_lines)
        else:
            self._running = _BatchValidation(schema, batch, value_lines)

    def flush_bytes_batch(self, doc: bytes) -> None:
        """A full batch of the fast lane's blocks (``doc``, see ``_lane``): validated like ``_flush_batch``
        validates a batch of elements, at the same points of the document."""
        schema = self._schema
        assert schema is not None  # the lane keeps batches only when the XSD applies
        self._collect()
        value_lines = self._value_lines
        self._value_lines = set()
        root = batch_root(doc)  # parsed here: lxml parses holding the GIL, it validates without it
        if self._threaded:
            self._running = _BatchValidation(schema, root, value_lines)
        else:
            for line, message in _schema_errors(schema, root):
                self._xsd_error(line, message, value_lines)

    def skip_bytes_batch(self) -> None:
        """A full batch of the fast lane's blocks that the schema has nothing to say about (every value proven
        valid, ``_proof``): not parsed nor validated; the batch before it is collected as a flush would."""
        self._collect()
        self._value_lines = set()

    def adopt_batch(self, doc: bytes, count: int) -> None:
        """The fast lane hands over with a partial batch: its blocks become the start of the element batch."""
        assert self._schema is not None
        self._batch = batch_root(doc)
        self._batch_size = count

    def _collect(self) -> None:
        """Wait for the batch validating on the worker thread and report its errors."""
        running = self._running
        if running is None:
            return
        self._running = None
        running.join()
        running.batch = None  # the batch document is freed here, on the thread that built it
        if running.failure is not None:
            raise running.failure
        for line, message in running.errors:
            self._xsd_error(line, message, running.value_lines)

    def _xsd_error(self, line: int | None, message: str, value_lines: set[tuple[int, str]]) -> None:
        m = _ELEMENT_NAME.match(message)
        name = m.group(1) if m else ""
        structure = any(h in message for h in _STRUCTURE_HINTS)
        if not structure and line is not None and (line, name) in value_lines:
            return  # a rule check already reported this value, with a better message
        if name in ("urlset", "sitemapindex") and "Missing child" in message:
            if self.count == 0:
                self.ctx.report(C.EMPTY_SET, "no entries: the XSD requires at least one <"
                                + self._entry_local + "> (an empty news sitemap is fine for Google; the stricter "
                                "reading applies)", line)
            return
        key = (line or 0, message)
        if key in self._xsd_seen:  # root attribute errors repeat in every batch
            return
        self._xsd_seen.add(key)
        code = C.XSD_STRUCTURE if structure else C.XSD_VALUE
        fix = "; follow the schema's element order" if code is C.XSD_STRUCTURE else ""
        self.ctx.report(code, f"XSD: {message}{fix}", line)
