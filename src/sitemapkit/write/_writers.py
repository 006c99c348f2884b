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
from collections.abc import Callable, Iterable
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
    "TITLE_CHARS",
    "URLSET_FOOTER",
    "HtmlWriter",
    "IndexWriter",
    "Sink",
    "TextWriter",
    "UrlsetWriter",
    "html_closing_size",
    "html_links_size",
    "html_script_hashes",
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
    template = page_environment("sitemapkit.write", escape=escape, compact=True).get_template("sitemap.html")
    return template, vars(template.module)


def html_script_hashes() -> list[str]:
    """The base64 SHA-256 of the one script the HTML sitemap carries (its search box, ``find.js``), for a
    server's Content-Security-Policy (``script-src 'sha256-...'``)."""
    import base64
    import hashlib

    env = page_environment("sitemapkit.write", escape=escape, compact=True)
    script = env.get_template("find.js").render()
    return [base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")]


#: A page title longer than this is cut (with "…") in the HTML sitemap.
TITLE_CHARS = 200
#: Bytes kept for a section heading's page count, written when the page closes ("(50,000)" at most).
_COUNT_ROOM = 8


@functools.cache
def html_closing_size() -> int:
    """Bytes an HTML sitemap's page still takes after its last entry is counted: the page's tail (the sections'
    markup is counted as they open; what a roller keeps room for)."""
    template, _ = _sitemap_page()
    return len("".join(template.blocks["tail"](template.new_context())).encode("utf-8"))


def html_links_size(links: list[tuple[str, str]], heading: str) -> int:
    """Bytes :meth:`HtmlWriter.write_links` takes for ``links`` under ``heading``."""
    _, macros = _sitemap_page()
    return len(str(macros["nav"](heading, links)).encode("utf-8"))


def _readable(encoded: str) -> str:
    """Percent-decoded text for people; kept encoded when decoding yields characters a page cannot carry."""
    text = unquote(encoded, errors="replace")
    return encoded if NOT_XML(text) is not None else text


def _section_of(loc: str) -> tuple[str, str, str]:
    """(origin, section, link text): the section is the first path segment as a folder (``/blog/``), or ``/`` for
    pages at the top (``/``, ``/about``); the link text is the page's readable path."""
    parts = urlsplit(loc)
    path = parts.path or "/"
    slash = path.find("/", 1)
    section = path[: slash + 1] if slash > 0 else "/"
    readable = _readable(path)
    if parts.query:
        readable += "?" + _readable(parts.query)
    return f"{parts.scheme}://{parts.netloc}", section, readable


class HtmlWriter(_Buffered):
    """An HTML page for people: the site's pages in one section per first path segment (``/blog/``, ``/shop/``;
    pages at the top under ``/``), sections in the order their first page came, pages in theirs, and a search
    box that filters them (a small inline script; without JavaScript the page shows every link).

    ``titles`` gives a page's title by URL (a crawl knows them): the link's text, else the readable path.
    ``origin``: where the page is served (``https://example.com``); links to its pages are root-relative. A
    section is complete only when the page closes, so its links are kept (rendered) until then: at most one
    page's worth (50,000 URLs, a few MB). ``links`` (pairs of text and URL) are written as a navigation list at
    the end (the page that lists the pages of a split HTML sitemap). The markup is the template
    ``write/templates/sitemap.html``: its "head" block, its macros and its "tail" block."""

    __slots__ = ("_context", "_groups", "_here", "_macros", "_nav", "_origin", "_template", "_titles")

    def __init__(self, sink: Sink, *, title: str = "Site map",
                 titles: Callable[[str], str | None] | None = None, origin: str | None = None) -> None:
        super().__init__(sink)
        self._here = None if origin is None else origin.rstrip("/") + "/"
        self._groups: dict[tuple[str, str], list[str]] = {}
        self._nav: list[str] = []
        self._origin: str | None = None
        self._titles = titles
        self._template, self._macros = _sitemap_page()
        self._context = self._template.new_context({"title": title})
        for chunk in self._template.blocks["head"](self._context):
            self._emit(chunk)

    def write(self, entry: UrlEntry) -> int:
        self._check_open()
        origin, section, readable = _section_of(entry.loc)
        title = self._titles(entry.loc) if self._titles is not None else None
        if title is not None:
            if len(title) > TITLE_CHARS:
                title = title[: TITLE_CHARS - 1] + "…"
            if NOT_XML(title) is not None:  # a character the page cannot carry: the path instead
                title = None
        macros = self._macros
        loc = entry.loc
        href = loc[len(self._here) - 1:] if self._here is not None and loc.startswith(self._here) else loc
        item = str(macros["item"](href, title or readable))  # before anything is counted
        size = len(item) if item.isascii() else len(item.encode("utf-8"))
        key = (origin, section)
        group = self._groups.get(key)
        if group is None:
            if self._origin is None:
                self._origin = origin
            group = self._groups[key] = []
            size += self._group_size(key)
        group.append(item)
        self.count += 1
        self.bytes_written += size
        return size

    def _heading(self, key: tuple[str, str]) -> str:
        origin, section = key
        return _readable(section if origin == self._origin else origin + section)

    def _group_size(self, key: tuple[str, str]) -> int:
        markup = str(self._macros["begin_group"](self._heading(key), 0)) + str(self._macros["end_group"]())
        return len(markup.encode("utf-8")) + _COUNT_ROOM

    def write_links(self, links: Iterable[tuple[str, str]], heading: str = "Pages") -> None:
        """A navigation list of (text, href) pairs."""
        self._check_open()
        self._nav.append(str(self._macros["nav"](heading, links)))

    def _out(self, text: str) -> None:
        """Output already counted in ``bytes_written`` (the sections kept until the page closes)."""
        self._buf.append(text)
        self._pending += len(text)
        if self._pending >= _FLUSH_CHARS:
            self.flush()

    def close(self) -> None:
        if not self.closed:
            macros = self._macros
            for key, items in self._groups.items():
                self._out(str(macros["begin_group"](self._heading(key), len(items))))
                for item in items:
                    self._out(item)
                self._out(str(macros["end_group"]()))
            self._groups.clear()
            for nav in self._nav:
                self._emit(nav)
            for chunk in self._template.blocks["tail"](self._context):
                self._emit(chunk)
            self.flush()
            self.closed = True
