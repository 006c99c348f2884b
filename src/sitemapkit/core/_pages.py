"""HTML pages for people, from Jinja2 templates: the HTML sitemap (write), ``report.html`` (crawl), ``audit.html``
(audit).

Each layer keeps its templates as package data in its own ``templates/`` folder and gets an environment over them
from :func:`page_environment` (one per set of arguments, built on first use). jinja2 is imported then and not
before, so ``import sitemapkit`` does not load it (``tests/core/test_public_api.py`` pins this).

Autoescape is on: every ``{{ value }}`` is escaped unless it is ``Markup``. The pages keep the entity spelling
they always had: a value holding a quote or a character that is not printable is escaped by the layer's own
``escape`` (the write layer's XML escape writes ``&apos;`` and ``&quot;`` and refuses characters XML cannot carry;
the reports use :func:`html.escape`); any other value by markupsafe, which writes ``&amp; &lt; &gt;`` as both do.

Whitespace: ``compact=True`` is for pages written without line breaks (the reports). Their ``.html`` templates
are laid out one element a line, and a line break with the indentation after it is layout, not output: it is
dropped when the template loads (a space that matters is written inside a line). The text of ``<style>`` and
``<script>`` elements is kept as written, and so is the template's final line break. Without ``compact`` (the
HTML sitemap, one element a line), a line holding only a ``{% tag %}`` leaves nothing behind (``trim_blocks``,
``lstrip_blocks``).

Two filters format numbers: ``count`` (``12,345``) and ``percent`` (``12.3%``).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import jinja2

__all__ = ["page_environment"]

#: A line break and the indentation after it (see ``compact``).
_LAYOUT = re.compile(r"\r?\n[ \t]*")
#: Style and script elements, whose text is kept as written.
_VERBATIM = re.compile(r"<(style|script)\b.*?</\1>", re.S | re.I)


def compact_layout(source: str) -> str:
    """``source`` without its layout: line breaks and the indentation after them, except inside style and script
    elements and the final line break."""
    body, end = (source[:-1], "\n") if source.endswith("\n") else (source, "")
    out: list[str] = []
    pos = 0
    for m in _VERBATIM.finditer(body):
        out += (_LAYOUT.sub("", body[pos:m.start()]), m.group())
        pos = m.end()
    out.append(_LAYOUT.sub("", body[pos:]))
    return "".join(out) + end


def _count(n: int) -> str:
    return f"{n:,}"


def _percent(x: float) -> str:
    return f"{x:.1%}"


@functools.cache
def page_environment(*packages: str, escape: Callable[[str], str], compact: bool) -> jinja2.Environment:
    """The environment for the ``templates/`` folders of ``packages`` (searched in that order, so a page may
    extend or import a template of a lower layer). ``escape`` spells quotes and refuses what the page cannot
    carry; ``compact`` drops the line breaks of ``.html`` templates (see the module's docstring)."""
    import jinja2
    import jinja2.ext
    from markupsafe import Markup

    def finalize(value: object) -> object:
        # The common case (no quote, all printable) is left to markupsafe: same output, less work.
        if type(value) is str and ('"' in value or "'" in value or not value.isprintable()):
            return Markup(escape(value))  # noqa: S704 (escaped on this line)
        return value

    class Compact(jinja2.ext.Extension):
        def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
            if name is not None and name.endswith(".html"):
                return compact_layout(source)
            return source

    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.PackageLoader(p, "templates") for p in packages]),
        autoescape=True,
        finalize=finalize,
        extensions=[Compact] if compact else [],
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,
    )
    env.filters["count"] = _count
    env.filters["percent"] = _percent
    return env
