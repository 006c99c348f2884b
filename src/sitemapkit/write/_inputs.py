"""What ``sitemapkit generate`` reads: URL lists (text, CSV, JSONL, stdin) and built static-site folders.

Each reader is a generator of ``(UrlEntry, Location)`` pairs and :class:`Problem` values (an input line that
could not become an entry: reported with file and line, then skipped). Nothing is held beyond the current line.

Sniffing: a directory is a static site; ``.jsonl``/``.ndjson`` are JSONL, ``.csv`` is CSV, ``.txt`` is text;
anything else (and ``-``, standard input) is decided by its first non-blank line: ``{`` starts JSONL, a
comma-separated header naming ``loc`` (or ``url``) starts CSV, otherwise it is a list of URLs. Gzip-compressed
files are read transparently. Markup (a first line starting with ``<``) is refused with one error: XML sitemaps,
indexes and feeds are the reader's (the write layer does not import it; ``generate`` sends them there, see
``cli/_generate_inputs.py``).
"""

from __future__ import annotations

import csv
import fnmatch
import gzip
import io
import json
import os
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, Literal, TextIO
from urllib.parse import quote, urlsplit

from sitemapkit.core._errors import InputError, InvalidValueError
from sitemapkit.core._lastmod import LastMod, parse_lastmod_lenient
from sitemapkit.core._model import SitemapRef, UrlEntry, entry_from_dict
from sitemapkit.core._problems import Location, Problem, Severity, define_code

__all__ = ["SM610", "SM611", "SM612", "InputItem", "InputKind", "filter_urls", "iter_input", "sniff_kind"]

SM610 = define_code("SM610", Severity.ERROR, "input line skipped",
                    "Fix the line (an absolute http(s) URL, valid lastmod / changefreq / priority) and run again.",
                    area="writer")
SM611 = define_code("SM611", Severity.WARNING, "unknown CSV column ignored",
                    "generate reads the columns loc (or url), lastmod, changefreq and priority.", area="writer")
SM612 = define_code("SM612", Severity.ERROR, "sitemap of an index not read",
                    "generate reads the sitemaps an index lists from the index's own folder (by file name); put "
                    "them there, or turn the live index into a list first: sitemapkit urls --format jsonl URL.",
                    area="writer")

InputKind = Literal["text", "csv", "jsonl", "site"]
#: What readers yield: an entry with where it came from, or a problem (the line was skipped).
InputItem = tuple[UrlEntry, Location] | Problem

_CSV_COLUMNS = {"loc", "url", "lastmod", "changefreq", "priority"}
#: Files a static site never wants in its sitemap, on top of hidden paths (``.git/``, ``.well-known/``).
DEFAULT_SITE_EXCLUDES = ("404.html", "*/404.html")
_HTML_SUFFIXES = (".html", ".htm")
_INDEX_NAMES = ("index.html", "index.htm")


def _problem(source: str, line: int | None, message: str, loc: str | None = None) -> Problem:
    return SM610.problem(Location(source, line, loc=loc), message)


def _open_text(path: str, stdin: BinaryIO | None) -> io.TextIOWrapper:
    raw: BinaryIO
    if path == "-":
        if stdin is None:
            raise InputError("standard input is not available")
        raw = stdin
    else:
        try:
            raw = open(path, "rb")  # noqa: SIM115 - handed to the TextIOWrapper, closed by the caller
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    buffered: Any = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)
    if buffered.peek(2)[:2] == b"\x1f\x8b":
        buffered = gzip.GzipFile(fileobj=buffered, mode="rb")
    return io.TextIOWrapper(buffered, encoding="utf-8-sig", errors="strict", newline="")


def sniff_kind(path: str, first_line: str | None = None) -> InputKind:
    """Decide an input's kind from its name, or (for ``-`` and unknown extensions) its first non-blank line."""
    if path != "-" and os.path.isdir(path):
        return "site"
    name = path.lower().removesuffix(".gz")
    if name.endswith((".jsonl", ".ndjson")):
        return "jsonl"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".txt"):
        return "text"
    line = (first_line or "").strip()
    if line.startswith("{"):
        return "jsonl"
    if "," in line:
        header = {c.strip().strip('"').lower() for c in line.split(",")}
        if header & {"loc", "url"}:
            return "csv"
    return "text"


def iter_input(
    path: str,
    *,
    base_url: str | None = None,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    skip_files: frozenset[Path] = frozenset(),
    stdin: BinaryIO | None = None,
) -> Iterator[InputItem]:
    """Read one input. ``include``/``exclude`` are globs matched against a static site's file paths (relative to
    the folder) or, for URL lists, against each URL's path (``/blog/*``); a pattern without ``/`` also matches the
    bare file name. Raises :class:`InputError` when the input cannot be opened at all."""
    if path != "-" and os.path.isdir(path):
        if base_url is None:
            raise InputError(f"{path} is a folder: a base URL is needed to turn its files into URLs")
        yield from _iter_site(Path(path), base_url, include, exclude, skip_files)
        return
    source = "<stdin>" if path == "-" else path
    fh = _open_text(path, stdin)
    try:
        lines = _numbered(fh, source)
        first = next(lines, None)
        if first is None:
            return
        if first[1].lstrip().startswith("<"):
            raise InputError(f"{source}:{first[0]}: markup (XML or HTML), not a URL list, CSV or JSONL: read a "
                             "sitemap or feed with sitemapkit.read (the generate command does)")
        kind = sniff_kind(path, first[1])
        rest = _chain(first, lines)
        if kind == "jsonl":
            items = _iter_jsonl(rest, source)
        elif kind == "csv":
            items = _iter_csv(rest, source)
        else:
            items = _iter_text(rest, source)
        if include or exclude:
            items = filter_urls(items, include, exclude)
        yield from items
    finally:
        if path != "-":
            fh.close()
        else:
            fh.detach()


def _numbered(fh: TextIO, source: str) -> Iterator[tuple[int, str]]:
    lineno = 0
    while True:
        try:
            line = fh.readline()
        except UnicodeDecodeError as exc:
            raise InputError(f"{source}:{lineno + 1}: not UTF-8 text ({exc.reason})") from None
        if not line:
            return
        lineno += 1
        yield lineno, line


def _chain(first: tuple[int, str], rest: Iterator[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    yield first
    yield from rest


def _iter_text(lines: Iterator[tuple[int, str]], source: str) -> Iterator[InputItem]:
    for lineno, line in lines:
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        try:
            yield UrlEntry(text), Location(source, lineno)
        except InvalidValueError as exc:
            yield _problem(source, lineno, str(exc), text)


def _iter_jsonl(lines: Iterator[tuple[int, str]], source: str) -> Iterator[InputItem]:
    for lineno, line in lines:
        text = line.strip()
        if not text:
            continue
        try:
            data = json.loads(text)
        except ValueError as exc:
            where = f" at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
            yield _problem(source, lineno, f"not a JSON object: {reason}{where}")
            continue
        if not isinstance(data, dict):
            yield _problem(source, lineno, f"expected a JSON object, got {_json_type(data)}")
            continue
        if data.get("loc") is None:
            yield _problem(source, lineno, 'no "loc" field' if "loc" not in data else '"loc" is null')
            continue
        try:
            entry = entry_from_dict(data)
        except InvalidValueError as exc:
            loc = data.get("loc")
            yield _problem(source, lineno, str(exc), loc if isinstance(loc, str) else None)
            continue
        if isinstance(entry, SitemapRef):
            yield _problem(source, lineno, "a sitemap reference cannot go into a urlset (kind 'sitemap')",
                           entry.loc)
            continue
        yield entry, Location(source, lineno)


def _json_type(value: object) -> str:
    """A JSON value's type in JSON's words."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else type(value).__name__


def _csv_row(line: str) -> list[str]:
    """One physical line as one CSV record. A value may not span lines (no loc, date or number holds a line
    break), so a quote left open is an error of this line rather than a record swallowing the lines after it;
    so is a quote inside an unquoted value or text after a closing quote. Raises ``csv.Error``."""
    if '"' in line:
        _check_quotes(line)
    return next(csv.reader((line,), strict=True), [])


def _check_quotes(line: str) -> None:
    text = line.rstrip("\r\n")
    i, n = 0, len(text)
    while i <= n:
        if i < n and text[i] == '"':  # a quoted value: up to the closing quote ("" is a literal quote)
            i += 1
            while True:
                j = text.find('"', i)
                if j < 0:
                    raise csv.Error('unclosed quote: a value opened with " must close on the same line')
                if text.startswith('""', j):
                    i = j + 2
                    continue
                i = j + 1
                break
            if i < n and text[i] != ",":
                raise csv.Error(f"text after a closing quote at column {i + 1}: a quoted value must be followed "
                                "by a comma or the end of the line")
        else:  # an unquoted value: up to the next comma, with no quote in it
            j = text.find(",", i)
            end = n if j < 0 else j
            q = text.find('"', i, end)
            if q >= 0:
                raise csv.Error(f'quote inside an unquoted value at column {q + 1}: quote the whole value '
                                '("...") and double the quotes in it')
            i = end
        i += 1  # past the comma (or the end)


def _iter_csv(lines: Iterator[tuple[int, str]], source: str) -> Iterator[InputItem]:
    header: list[str] | None = None
    header_line = 0
    for lineno, line in lines:
        try:
            header = _csv_row(line)
        except csv.Error as exc:
            raise InputError(f"{source}:{lineno}: bad CSV header: {exc}") from None
        header_line = lineno
        if header and any(c.strip() for c in header):
            break
    else:
        return
    assert header is not None
    columns = [h.strip().lower() for h in header]
    if "loc" not in columns and "url" not in columns:
        raise InputError(f"{source}:{header_line}: CSV header needs a 'loc' column; got {', '.join(header)}")
    unknown = [c for c in columns if c and c not in _CSV_COLUMNS]
    if unknown:
        yield SM611.problem(Location(source, header_line), f"unknown CSV column(s) ignored: {', '.join(unknown)}")
    loc_i = columns.index("loc") if "loc" in columns else columns.index("url")
    index = {name: columns.index(name) for name in ("lastmod", "changefreq", "priority") if name in columns}
    for start, line in lines:
        try:
            row = _csv_row(line)
        except csv.Error as exc:
            yield _problem(source, start, f"bad CSV row: {exc}")
            continue
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) > len(columns):
            yield _problem(source, start, f"{len(row)} fields but the header has {len(columns)}: extra "
                                          f"value(s) {', '.join(repr(c) for c in row[len(columns):][:3])}")
            continue
        cells = [c.strip() for c in row] + [""] * (len(columns) - len(row))
        loc = cells[loc_i]
        try:
            lastmod_text = cells[index["lastmod"]] if "lastmod" in index else ""
            lastmod: LastMod | None = None
            if lastmod_text:
                try:
                    lastmod = parse_lastmod_lenient(lastmod_text)
                except (ValueError, OverflowError):  # an out-of-range date is an unreadable date
                    lastmod = None
                if lastmod is None:
                    raise InvalidValueError(f"lastmod: not a date: {lastmod_text!r}", field="lastmod")
            changefreq = cells[index["changefreq"]] if "changefreq" in index else ""
            priority = cells[index["priority"]] if "priority" in index else ""
            yield (UrlEntry(loc, lastmod=lastmod, changefreq=changefreq or None,
                            priority=priority or None),
                   Location(source, start))
        except InvalidValueError as exc:
            yield _problem(source, start, str(exc), loc or None)


def _matches(path: str, patterns: Sequence[str]) -> bool:
    name = path.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatchcase(path, p) or ("/" not in p and fnmatch.fnmatchcase(name, p)) for p in patterns)


def filter_urls(items: Iterator[InputItem], include: Sequence[str], exclude: Sequence[str]) -> Iterator[InputItem]:
    """Entries whose URL path matches ``include`` (when given) and not ``exclude``; problems pass through."""
    for item in items:
        if isinstance(item, tuple):
            path = urlsplit(item[0].loc).path or "/"
            if (include and not _matches(path, include)) or _matches(path, exclude):
                continue
        yield item


def _iter_site(root: Path, base_url: str, include: Sequence[str], exclude: Sequence[str],
               skip_files: frozenset[Path]) -> Iterator[InputItem]:
    """HTML files of a built site, in sorted order; ``index.html`` stands for its directory URL. A plain walk:
    ``generate`` judges each page above it (robots.txt, noindex, canonical, content-based lastmod) where HTML
    extraction may be imported (``cli/_static_site.py``)."""
    base = base_url if base_url.endswith("/") else base_url + "/"
    excludes = tuple(exclude) + DEFAULT_SITE_EXCLUDES
    skip = {p.resolve() for p in skip_files}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir + "/"
        # The directory's own page (index.html) first, then the others by name: stable, readable output.
        for name in sorted(filenames, key=lambda n: (n.lower() not in _INDEX_NAMES, n)):
            if name.startswith(".") or not name.lower().endswith(_HTML_SUFFIXES):
                continue
            rel = rel_dir + name
            if (include and not _matches(rel, include)) or _matches(rel, excludes):
                continue
            full = Path(dirpath) / name
            if skip and full.resolve() in skip:
                continue
            url_path = rel_dir if name.lower() in _INDEX_NAMES else rel
            try:
                mtime = full.stat().st_mtime
                lastmod = LastMod.of(datetime.fromtimestamp(int(mtime), UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
                yield (UrlEntry(base + quote(url_path, safe="/"), lastmod=lastmod),
                       Location(str(full)))
            except OSError as exc:
                yield _problem(str(full), None, f"cannot read: {exc.strerror or exc}")
            except InvalidValueError as exc:
                yield _problem(str(full), None, str(exc))
