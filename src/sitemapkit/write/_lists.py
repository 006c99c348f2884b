"""URL lists read in runs: text, CSV and JSONL lines to entries, a thousand at a time (``_inputs.py`` opens the
input, decides its kind and defines the problem codes these readers report through :class:`Reports`).

A reader yields :class:`EntryRun` values (consecutive entries with their lines) and problems, in line order: the
entries and problems a line-by-line reader would give, grouped, so ``generate`` spends its time per run rather than
per line. Values valid by their form take the model's fast constructors (``canonical_loc_entry``,
``canonical_url_entry``, ``lastmod_of_valid_form``); everything else takes the general constructors, which
normalise or raise as they always did. ``FAST = False`` sends every line the general way (the tests compare both).
Lines come from :func:`text_blocks`: the lines ``io.TextIOWrapper(newline="")`` gives, decoded in its 8 KiB steps
by its own decoder (so errors are reported at the same line), split a step at a time.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from sitemapkit.core import (
    Changefreq,
    InputError,
    InvalidValueError,
    LastMod,
    Problem,
    SitemapRef,
    UrlEntry,
    canonical_loc_entry,
    canonical_url_entry,
    entry_from_dict,
    is_canonical_loc,
    lastmod_of_valid_form,
    parse_lastmod_lenient,
)
from sitemapkit.write._locblock import canonical_block, canonical_entry

__all__ = ["FAST", "RUN_SIZE", "EntryRun", "Reports", "RunItem", "read_runs", "text_blocks"]

CSV_COLUMNS = {"loc", "url", "lastmod", "changefreq", "priority"}


class Reports(NamedTuple):
    """The problems a reader reports, built by the module that defines their codes: a skipped line
    ``(source, line, message, loc)`` and ignored CSV columns ``(source, header line, message)``."""

    skipped: Callable[[str, int, str, str | None], Problem]
    unknown_columns: Callable[[str, int, str], Problem]


class EntryRun:
    """Consecutive entries of one URL list (no problem between them), each with its line: what the run readers
    yield, so a consumer handles a thousand lines per step instead of one item (and one ``Location``) per line.

    ``locs``, when not None, says every entry is ``UrlEntry(loc)`` of a canonical loc (nothing but the loc: a
    text list's line), ``locs[i]`` being ``entries[i].loc``: a consumer may take the strings and skip the
    objects (``SitemapSetWriter.add_locs``). The entries are then built on first use."""

    __slots__ = ("_entries", "lines", "locs", "source")

    def __init__(self, source: str, entries: list[UrlEntry] | None, lines: list[int],
                 locs: list[str] | None = None) -> None:
        if entries is None and locs is None:
            raise ValueError("an EntryRun needs its entries or its locs")
        self.source = source
        self._entries = entries
        self.lines = lines
        self.locs = locs

    @classmethod
    def of_locs(cls, source: str, locs: list[str], lines: list[int]) -> EntryRun:
        """A run of ``UrlEntry(loc)`` for canonical ``locs`` (the caller checked them: ``canonical_block``)."""
        return cls(source, None, lines, locs)

    @property
    def entries(self) -> list[UrlEntry]:
        entries = self._entries
        if entries is None:
            assert self.locs is not None
            entries = self._entries = [canonical_entry(loc) for loc in self.locs]
        return entries

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not EntryRun:
            return NotImplemented
        assert isinstance(other, EntryRun)
        return (self.source, self.entries, self.lines) == (other.source, other.entries, other.lines)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"EntryRun(source={self.source!r}, entries={self.entries!r}, lines={self.lines!r})"


#: What the run readers yield: a run of entries, or a problem (that line was skipped).
RunItem = EntryRun | Problem
#: Entries per run, and lines per block read.
RUN_SIZE = 1024
#: Lists' values take the model's fast constructors when valid by their form (the general constructors for the
#: rest). Tests turn it off to compare both ways on the same inputs.
FAST = True


#: Bytes decoded per step: what ``io.TextIOWrapper`` reads (``read1``) per step, so a byte that is not UTF-8 is met
#: at the line where the text layer's ``readline`` met it.
_CHUNK = 8192


def text_blocks(stream: io.BufferedIOBase, source: str) -> Iterator[list[str]]:
    """The lines of ``stream`` without their line ends, as ``io.TextIOWrapper(stream, "utf-8-sig", newline="")``
    reads them (a line ends at "\\n", "\\r\\n" or "\\r"; a BOM is dropped), in lists of about :data:`RUN_SIZE`.

    The wrapper's own decoder fed the same 8 KiB steps, so a byte that is not UTF-8 ends the input with
    :class:`InputError` naming the line ``readline`` names (the one after the last line complete before that
    step), after the lines before it. Decoding a step and splitting it costs less than half of ``readline``."""
    decoder = io.IncrementalNewlineDecoder(codecs.getincrementaldecoder("utf-8-sig")("strict"), translate=False)
    read = stream.read1
    pending = ""  # the line begun in the last step (the decoder itself holds back a final CR)
    block: list[str] = []
    done = 0
    while True:
        data = read(_CHUNK)
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            lineno = done + len(block) + 1
            if block:
                yield block
            raise InputError(f"{source}:{lineno}: not UTF-8 text ({exc.reason})") from None
        if text:
            if pending:
                text = pending + text
            if "\r" in text:
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            lines = text.split("\n")
            pending = lines.pop()
            block += lines
        if not data:
            if pending:
                block.append(pending)
            if block:
                yield block
            return
        if len(block) >= RUN_SIZE:
            done += len(block)
            yield block
            block = []


class _Run:
    """The run being filled by a reader: entries and their lines, handed out whole."""

    __slots__ = ("entries", "lines", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self.entries: list[UrlEntry] = []
        self.lines: list[int] = []

    # A reader (_runs_*) yields a run when it is full or a problem ends it; read_runs hands out what is left at
    # the end, and before an error propagates.

    def take(self) -> EntryRun:
        run = EntryRun(self.source, self.entries, self.lines)
        self.entries = []
        self.lines = []
        return run


def _runs_text(run: _Run, blocks: Iterator[list[str]], source: str, reports: Reports) -> Iterator[RunItem]:
    fast = FAST
    lineno = 0
    for block in blocks:
        if fast and canonical_block(block):  # every line a canonical loc on one origin: one run of strings
            if run.entries:
                yield run.take()
            yield EntryRun.of_locs(source, block, list(range(lineno + 1, lineno + 1 + len(block))))
            lineno += len(block)
            continue
        entries, lines = run.entries, run.lines
        for line in block:
            lineno += 1
            text = line.strip()
            if not text or text[0] == "#":
                continue
            entry = canonical_loc_entry(text) if fast else None
            if entry is None:
                try:
                    entry = UrlEntry(text)
                except InvalidValueError as exc:
                    if entries:
                        yield run.take()
                        entries, lines = run.entries, run.lines
                    yield reports.skipped(source, lineno, str(exc), text)
                    continue
            entries.append(entry)
            lines.append(lineno)
        if len(entries) >= RUN_SIZE:
            yield run.take()


def _runs_jsonl(run: _Run, blocks: Iterator[list[str]], source: str, reports: Reports) -> Iterator[RunItem]:
    fast = FAST
    lineno = 0
    for block in blocks:
        entries, lines = run.entries, run.lines
        for line in block:
            lineno += 1
            text = line.strip()
            if not text:
                continue
            entry = _jsonl_fast(text) if fast else None
            item = _jsonl_entry(text) if entry is None else entry
            if isinstance(item, tuple):
                if entries:
                    yield run.take()
                    entries, lines = run.entries, run.lines
                yield reports.skipped(source, lineno, item[0], item[1])
                continue
            entries.append(item)
            lines.append(lineno)
        if len(entries) >= RUN_SIZE:
            yield run.take()


def _jsonl_entry(text: str) -> UrlEntry | tuple[str, str | None]:
    """A JSONL line's entry, or the (message, loc) of the problem that skips it: the general path."""
    try:
        data = json.loads(text)
    except ValueError as exc:
        where = f" at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else ""
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        return f"not a JSON object: {reason}{where}", None
    except RecursionError:  # arrays or objects nested thousands deep: the decoder recurses once per level
        return "not a JSON object sitemapkit reads: nested too deeply", None
    if not isinstance(data, dict):
        return f"expected a JSON object, got {_json_type(data)}", None
    if data.get("loc") is None:
        return ('no "loc" field' if "loc" not in data else '"loc" is null'), None
    try:
        entry = entry_from_dict(data)
    except InvalidValueError as exc:
        loc = data.get("loc")
        return str(exc), loc if isinstance(loc, str) else None
    if isinstance(entry, SitemapRef):
        return "a sitemap reference cannot go into a urlset (kind 'sitemap')", entry.loc
    return entry


#: The fields of a plain entry's JSON object (``kind`` and ``source`` are accepted and dropped).
_PLAIN_FIELDS = frozenset(("loc", "lastmod", "changefreq", "priority", "kind", "source"))
# The scanner json.loads runs after its checks: for a line that is one object and nothing else, the same object.
_scan_json: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]


def _jsonl_fast(text: str) -> UrlEntry | None:
    """The entry ``_jsonl_entry`` gives a line holding one plain object whose values are valid by their form
    (``sitemapkit urls --format jsonl`` output), through the fast constructors; None for anything else."""
    if text[0] != "{":
        return None
    try:
        data, end = _scan_json(text, 0)
    except (ValueError, StopIteration, RecursionError):
        return None
    if end != len(text) or not data.keys() <= _PLAIN_FIELDS or data.get("kind", "url") != "url":
        return None
    loc = data.get("loc")
    if loc is None or not is_canonical_loc(loc):
        return None
    lastmod = data.get("lastmod")
    if lastmod is not None:
        if lastmod.__class__ is not str:
            return None
        lastmod = _valid_lastmod(lastmod)  # what LastMod.of gives text of that form; None for others
        if lastmod is None:
            return None
    changefreq = data.get("changefreq")
    if changefreq is not None:
        changefreq = _CHANGEFREQS.get(changefreq) if changefreq.__class__ is str else None
        if changefreq is None:
            return None
    priority = data.get("priority")
    if priority is not None and not (priority.__class__ is float and 0.0 <= priority <= 1.0):
        return None
    return canonical_url_entry(loc, lastmod, changefreq, priority)


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


def _runs_csv(run: _Run, blocks: Iterator[list[str]], source: str, reports: Reports) -> Iterator[RunItem]:
    fast = FAST
    lineno = header_line = 0
    header: list[str] | None = None
    columns: list[str] = []
    width = loc_i = lastmod_i = changefreq_i = priority_i = -1
    field_limit = csv.field_size_limit()  # csv.reader refuses longer fields: such lines take it
    for block in blocks:
        entries, lines = run.entries, run.lines
        for line in block:
            lineno += 1
            if header is None:  # blank lines before the header are skipped
                try:
                    row = _csv_row(line)
                except csv.Error as exc:
                    raise InputError(f"{source}:{lineno}: bad CSV header: {exc}") from None
                if not (row and any(c.strip() for c in row)):
                    continue
                header, header_line = row, lineno
                columns = [h.strip().lower() for h in header]
                if "loc" not in columns and "url" not in columns:
                    raise InputError(f"{source}:{header_line}: CSV header needs a 'loc' column; got "
                                     f"{', '.join(header)}")
                unknown = [c for c in columns if c and c not in CSV_COLUMNS]
                if unknown:
                    yield reports.unknown_columns(source, header_line,
                                                    f"unknown CSV column(s) ignored: {', '.join(unknown)}")
                width = len(columns)
                loc_i = columns.index("loc") if "loc" in columns else columns.index("url")
                lastmod_i, changefreq_i, priority_i = (
                    columns.index(name) if name in columns else -1
                    for name in ("lastmod", "changefreq", "priority"))
                continue
            # One physical line as one record: without a quote it is the comma-separated text, which is
            # what csv.reader returns for it (a test pins this), at a fraction of the cost.
            if fast and '"' not in line and len(line) <= field_limit:
                body = line.rstrip("\r\n")
                row = body.split(",") if body else []
            else:
                try:
                    row = _csv_row(line)
                except csv.Error as exc:
                    if entries:
                        yield run.take()
                        entries, lines = run.entries, run.lines
                    yield reports.skipped(source, lineno, f"bad CSV row: {exc}", None)
                    continue
            if len(row) > width:
                if not any(c.strip() for c in row):
                    continue
                if entries:
                    yield run.take()
                    entries, lines = run.entries, run.lines
                yield reports.skipped(source, lineno, f"{len(row)} fields but the header has {width}: extra "
                                      f"value(s) {', '.join(repr(c) for c in row[width:][:3])}", None)
                continue
            cells = list(map(str.strip, row))
            if not any(cells):
                continue
            if len(cells) < width:
                cells += [""] * (width - len(cells))
            item = _csv_entry(cells, loc_i, lastmod_i, changefreq_i, priority_i, fast)
            if item.__class__ is not UrlEntry:
                if entries:
                    yield run.take()
                    entries, lines = run.entries, run.lines
                assert isinstance(item, InvalidValueError)
                yield reports.skipped(source, lineno, str(item), cells[loc_i] or None)
                continue
            entries.append(item)
            lines.append(lineno)
        if len(entries) >= RUN_SIZE:
            yield run.take()


#: Changefreq values written as the protocol spells them (anything else goes through the constructor).
_CHANGEFREQS = {c.value: c for c in Changefreq}
#: Priority texts already read, with their value (a site uses a handful).
_PRIORITIES: dict[str, float] = {}
#: Lastmod texts valid by their form, read recently (a list's rows share dates); cleared when full.
_LASTMODS: dict[str, LastMod] = {}


def _valid_lastmod(text: str) -> LastMod | None:
    """``lastmod_of_valid_form(text)``, remembered for the next rows with the same text."""
    value = _LASTMODS.get(text)
    if value is None:
        value = lastmod_of_valid_form(text)
        if value is not None:
            if len(_LASTMODS) >= 4096:
                _LASTMODS.clear()
            _LASTMODS[text] = value
    return value


def _csv_entry(cells: list[str], loc_i: int, lastmod_i: int, changefreq_i: int, priority_i: int,
               fast: bool) -> UrlEntry | InvalidValueError:
    """The entry of a row's (stripped) cells, or the error that skips it."""
    loc = cells[loc_i]
    try:
        lastmod_text = cells[lastmod_i] if lastmod_i >= 0 else ""
        lastmod: LastMod | None = None
        if lastmod_text:
            # lastmod_of_valid_form: the value parse_lastmod_lenient gives text of that form, in one regex.
            lastmod = _valid_lastmod(lastmod_text) if fast else None
            if lastmod is None:
                try:
                    lastmod = parse_lastmod_lenient(lastmod_text)
                except (ValueError, OverflowError):  # an out-of-range date is an unreadable date
                    lastmod = None
                if lastmod is None:
                    raise InvalidValueError(f"lastmod: not a date: {lastmod_text!r}", field="lastmod")
        changefreq = cells[changefreq_i] if changefreq_i >= 0 else ""
        priority = cells[priority_i] if priority_i >= 0 else ""
        if fast and is_canonical_loc(loc):
            cf = _CHANGEFREQS.get(changefreq) if changefreq else None
            pr = _priority(priority) if priority else None
            if (cf is not None or not changefreq) and (pr is not None or not priority):
                return canonical_url_entry(loc, lastmod, cf, pr)
        return UrlEntry(loc, lastmod=lastmod, changefreq=changefreq or None, priority=priority or None)
    except InvalidValueError as exc:
        return exc


def _priority(text: str) -> float | None:
    """``float(text)`` when that is a valid priority (what the constructor stores for it), else None."""
    value = _PRIORITIES.get(text)
    if value is None:
        try:
            value = float(text)
        except ValueError:
            return None
        if not 0.0 <= value <= 1.0:  # NaN fails this too
            return None
        if len(_PRIORITIES) < 256:
            _PRIORITIES[text] = value
    return value



def read_runs(kind: str, blocks: Iterator[list[str]], source: str, reports: Reports) -> Iterator[RunItem]:
    """The entries and problems of a URL list of ``kind`` ("text", "csv" or "jsonl") given as blocks of lines
    (:func:`text_blocks`)."""
    run = _Run(source)
    reader = _runs_jsonl if kind == "jsonl" else _runs_csv if kind == "csv" else _runs_text
    try:
        yield from reader(run, blocks, source, reports)
    except Exception:
        if run.entries:  # what came before the error, as the line-by-line reader handed it out
            yield run.take()
        raise
    if run.entries:
        yield run.take()
