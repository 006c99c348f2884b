"""Streaming writers: XML urlset, sitemap index, text sitemap and an HTML page for people.

Each writer writes to a *sink* (anything with ``write(bytes)``: a file, a gzip stream, a socket wrapper) and holds
nothing but the current entry plus a small output buffer. None of them opens or closes files: the caller owns the
sink (``SitemapSetWriter`` in ``_sitemapset.py`` is the driver that does, with rolling and atomic publishing).

A urlset root declares the sitemap namespace plus the extension namespaces the caller announces with
``namespaces=``; the ``<url>`` elements, with escaping, namespaces of undeclared extensions and the XSD checks,
come from the renderer in ``_render.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import unquote, urlsplit

from sitemapkit.core import Problem, SitemapRef, UrlEntry, page_environment
from sitemapkit.write._render import (
    NOT_XML,
    SITEMAP_NS,
    Extension,
    UrlRenderer,
    Warnings,
    escape,
    namespace_declarations,
)

if TYPE_CHECKING:
    from jinja2 import Template

__all__ = [
    "INDEX_FOOTER",
    "URLSET_FOOTER",
    "HtmlWriter",
    "IndexWriter",
    "Sink",
    "TextWriter",
    "UrlsetWriter",
    "html_closing_size",
    "index_header",
    "urlset_header",
]

# --- sinks and the buffered base --------------------------------------------------------------------------

class Sink(Protocol):
    """Where writers put bytes: a binary file, a gzip stream, ``io.BytesIO``, an HTTP body writer."""

    def write(self, data: bytes, /) -> object: ...


_FLUSH_CHARS = 1 << 16


class _Buffered:
    """A small text buffer in front of the sink: entries are joined and encoded in batches of ~64 KiB."""

    __slots__ = ("_buf", "_pending", "_sink", "bytes_written", "closed", "count")

    def __init__(self, sink: Sink) -> None:
        self._sink = sink
        self._buf: list[str] = []
        self._pending = 0
        #: Uncompressed bytes produced so far (what the 52,428,800-byte limit is about).
        self.bytes_written = 0
        #: Entries written so far.
        self.count = 0
        self.closed = False

    def _emit(self, text: str) -> int:
        size = len(text) if text.isascii() else len(text.encode("utf-8"))
        self._buf.append(text)
        self.bytes_written += size
        self._pending += size
        if self._pending >= _FLUSH_CHARS:
            self.flush()
        return size

    def flush(self) -> None:
        """Hand buffered output to the sink (the sink's own flushing is the caller's business)."""
        if self._buf:
            self._sink.write("".join(self._buf).encode("utf-8"))
            self._buf.clear()
            self._pending = 0

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError("writer is closed")

    def __enter__(self) -> _Buffered:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


def _stylesheet_pi(href: str | None) -> str:
    if href is None:
        return ""
    return f'<?xml-stylesheet type="text/xsl" href="{escape(href)}"?>\n'


XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'


def urlset_header(declared: int, stylesheet: str | None) -> str:
    """Everything before the first ``<url>``."""
    return (f'{XML_DECLARATION}{_stylesheet_pi(stylesheet)}<urlset xmlns="{SITEMAP_NS}"'
            f"{namespace_declarations(declared)}>\n")


URLSET_FOOTER = "</urlset>\n"


class UrlsetWriter(_Buffered):
    """Stream ``<url>`` entries into a ``<urlset>`` on ``sink``.

    ``namespaces`` are the extensions to declare on the root (default: none, so a plain sitemap stays plain);
    entries using others get a local declaration. ``stylesheet`` adds an ``<?xml-stylesheet?>`` line.
    ``close()`` writes ``</urlset>`` and flushes; it does not close the sink. Deprecated tags and XSD/Google
    disagreements become warnings in :attr:`problems`; values that would make the file XSD-invalid raise
    :class:`InvalidEntryError` before anything of that entry is written.

    Note that the protocol requires at least one ``<url>``; limits are the caller's (``SitemapSetWriter``)."""

    __slots__ = ("_renderer", "_used", "_warnings")

    def __init__(self, sink: Sink, *, namespaces: Extension | Iterable[Extension] = Extension.NONE,
                 stylesheet: str | None = None, source: str = "<urlset>") -> None:
        super().__init__(sink)
        declared = namespaces if isinstance(namespaces, Extension) else _flags(namespaces)
        self._warnings = Warnings(source)
        self._renderer = UrlRenderer(declared, self._warnings)
        self._used = 0
        self._emit(urlset_header(declared, stylesheet))

    def write(self, entry: UrlEntry) -> int:
        """Write one entry; returns its size in bytes (uncompressed)."""
        self._check_open()
        renderer = self._renderer
        text = renderer.render(entry)
        if renderer.pending:
            self._used |= renderer.pending
            renderer.pending = 0
        self.count += 1
        return self._emit(text)

    def write_all(self, entries: Iterable[UrlEntry]) -> None:
        for entry in entries:
            self.write(entry)

    @property
    def used(self) -> Extension:
        """Extensions the entries written so far used."""
        return Extension(self._used)

    @property
    def problems(self) -> tuple[Problem, ...]:
        return self._warnings.problems()

    def close(self) -> None:
        if not self.closed:
            self._emit(URLSET_FOOTER)
            self.flush()
            self.closed = True


def _flags(items: Iterable[Extension]) -> Extension:
    out = Extension.NONE
    for item in items:
        out |= item
    return out


def index_header(stylesheet: str | None) -> str:
    return f'{XML_DECLARATION}{_stylesheet_pi(stylesheet)}<sitemapindex xmlns="{SITEMAP_NS}">\n'


INDEX_FOOTER = "</sitemapindex>\n"


def render_sitemap_ref(ref: SitemapRef) -> str:
    text = f"<sitemap><loc>{escape(ref.loc)}</loc>"
    if ref.lastmod is not None:
        text += f"<lastmod>{ref.lastmod.text}</lastmod>"
    return text + "</sitemap>\n"


class IndexWriter(_Buffered):
    """Stream ``<sitemap>`` references into a ``<sitemapindex>`` on ``sink``. ``close()`` ends the document."""

    __slots__ = ()

    def __init__(self, sink: Sink, *, stylesheet: str | None = None) -> None:
        super().__init__(sink)
        self._emit(index_header(stylesheet))

    def write(self, ref: SitemapRef) -> int:
        self._check_open()
        if not isinstance(ref, SitemapRef):
            raise TypeError(f"IndexWriter.write expects a SitemapRef, got {type(ref).__name__}")
        self.count += 1
        return self._emit(render_sitemap_ref(ref))

    def close(self) -> None:
        if not self.closed:
            self._emit(INDEX_FOOTER)
            self.flush()
            self.closed = True


class TextWriter(_Buffered):
    """A text sitemap: one URL a line, UTF-8, nothing else (RULES.md 15). Locs are URIs, so no line breaks."""

    __slots__ = ()

    def write(self, entry: UrlEntry) -> int:
        self._check_open()
        self.count += 1
        return self._emit(entry.loc + "\n")

    def close(self) -> None:
        if not self.closed:
            self.flush()
            self.closed = True


@functools.cache
def _sitemap_page() -> tuple[Template, dict[str, Any]]:
    """The HTML sitemap's template (``write/templates/sitemap.html``) and its macros, loaded on first use."""
    template = page_environment("sitemapkit.write", escape=escape, compact=False).get_template("sitemap.html")
    return template, vars(template.module)


@functools.cache
def html_closing_size() -> int:
    """Bytes an HTML sitemap's page still takes after its last entry: the open group's end and the page's tail
    (what a roller keeps room for)."""
    template, macros = _sitemap_page()
    tail = "".join(template.blocks["tail"](template.new_context()))
    return len((str(macros["end_group"]()) + tail).encode("utf-8"))


def _readable(encoded: str) -> str:
    """Percent-decoded text for people; kept encoded when decoding yields characters a page cannot carry."""
    text = unquote(encoded, errors="replace")
    return encoded if NOT_XML(text) is not None else text


def _group_of(loc: str) -> tuple[str, str]:
    """(group key, link text): the directory part of the URL and the page's readable path."""
    parts = urlsplit(loc)
    path = parts.path or "/"
    directory = path[: path.rfind("/") + 1] or "/"
    readable = _readable(path)
    if parts.query:
        readable += "?" + _readable(parts.query)
    return f"{parts.scheme}://{parts.netloc}{directory}", readable


class HtmlWriter(_Buffered):
    """An HTML page for people: links grouped under a heading per directory, each with its lastmod.

    Streaming: a new group starts whenever the directory changes, so sorted input gives one section per
    directory. ``links`` (pairs of text and URL) are written as a navigation list at the end (used for the
    page that lists the pages of a split HTML sitemap). The markup is the template ``write/templates/sitemap.html``:
    its "head" block is written here, its macros per entry, its "tail" block by ``close()``."""

    __slots__ = ("_context", "_group", "_macros", "_template")

    def __init__(self, sink: Sink, *, title: str = "Site map") -> None:
        super().__init__(sink)
        self._group: str | None = None
        self._template, self._macros = _sitemap_page()
        self._context = self._template.new_context({"title": title})
        for chunk in self._template.blocks["head"](self._context):
            self._emit(chunk)

    def write(self, entry: UrlEntry) -> int:
        self._check_open()
        group, readable = _group_of(entry.loc)
        lastmod = entry.lastmod
        macros = self._macros
        item = macros["item"](entry.loc, readable, None if lastmod is None else lastmod.text)  # before any output
        size = 0
        if group != self._group:
            if self._group is not None:
                size += self._emit(macros["end_group"]())
            size += self._emit(macros["begin_group"](_readable(group)))
            self._group = group
        self.count += 1
        return size + self._emit(item)

    def write_links(self, links: Iterable[tuple[str, str]], heading: str = "Pages") -> None:
        """A navigation list of (text, href) pairs."""
        self._check_open()
        self._end_group()
        self._emit(self._macros["nav"](heading, links))

    def _end_group(self) -> None:
        if self._group is not None:
            self._emit(self._macros["end_group"]())
            self._group = None

    def close(self) -> None:
        if not self.closed:
            self._end_group()
            for chunk in self._template.blocks["tail"](self._context):
                self._emit(chunk)
            self.flush()
            self.closed = True
