"""generate's fast paths give what the general ones give.

URL lists (text, CSV, JSONL) are read in runs, values valid by their form through the model's fast constructors
(``write/_lists.py``); every odd document is read with the fast paths on and off, in runs of 1, 3 and 1,024 lines,
and the entries (compared with ``==`` and ``repr``), problems and errors must be the same. The renderer's
escaping shortcuts are compared with the general ``escape()``, and ``SitemapSetWriter.add_run`` with ``add()``
one entry at a time (files, counts, warnings, and which entry failed).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit.core import InputError, InvalidEntryError, InvalidValueError, LastMod, SitemapRef, UrlEntry
from sitemapkit.core._model import canonical_loc_entry
from sitemapkit.write import _lists
from sitemapkit.write._codes import HostCheck
from sitemapkit.write._inputs import EntryRun, items_of_runs, iter_input, iter_input_runs
from sitemapkit.write._render import NOT_XML, UrlRenderer, Warnings, escape
from sitemapkit.write._sitemapset import SitemapSetWriter

# --- odd documents --------------------------------------------------------------------------------------------

LOCS = [
    "https://a.com/x", "https://a.com/x?a=1&b=2", "https://a.com/it's", "http://a.com:8080/p", "https://A.com/x",
    "HTTPS://a.com/x", "https://a.com/é", "https://ä.com/x", "https://a.com/x y", "https://a.com/%zz",
    "https://a.com/%41", "ftp://a.com/", "/relative", "", " ", "https://a.com/" + "x" * 2050, "https://a.com/<b>",
    'https://a"b.com/', "https://a.com/x#f", "https://a.com/\u00a0", "\u00a0https://a.com/q\u00a0",
    "https://a.com/x\x0b", "https://-a.com/", "https://a.com:99999/", "https://a..com/", 'https://a.com/"q"',
    "https://a.com/a,b", "1", "https://a.com/\u2028", "https://a<b>.com/x?p=1&q=2", "https://a.com/x?q='1'&r",
]
WHITESPACE = ["", " ", "\t", "\u00a0", "\u2028", "\x1c", "\x85", "\u3000"]
DATES = ["2024-01-01", "2024-02-30", "2024-13-01", "2024-01-01T10:00:00Z", "2024-01-01T10:00Z",
         "2024-01-01 10:00:00", "Mon, 01 Jan 2024 00:00:00 GMT", "0000-01-01", "x", " 2024-01-01 ", "2024",
         "2024-05", "2024-01-31T23:59:59.123+05:30", "2024-01-01T10:00:00+14:30", "99999999999999999999-01-01"]
CHANGEFREQS = ["daily", "Daily", " weekly ", "never", "sometimes", "", "DAILY", "always"]
PRIORITIES = ["0.5", "1", "1.0", "0", "-0", "1.5", "nan", "inf", "0.50", "1e-1", "x", "", "0_5", " 0.3 ", ".5"]


def _ws(r: random.Random) -> str:
    return r.choice(WHITESPACE) if r.random() < 0.3 else ""


def _text_line(r: random.Random) -> str:
    x = r.random()
    if x < 0.05:
        return "#" + r.choice(LOCS)
    if x < 0.1:
        return ""
    return _ws(r) + r.choice(LOCS) + _ws(r)


def _csv_line(r: random.Random) -> str:
    width = 4 + (r.choice([-1, 1, 2]) if r.random() < 0.1 else 0)
    cells = []
    for i in range(width):
        value = _ws(r) + r.choice([LOCS, DATES, PRIORITIES, CHANGEFREQS][i % 4]) + _ws(r)
        x = r.random()
        if x < 0.15:
            value = '"' + value.replace('"', '""') + '"'
        elif x < 0.18:
            value = '"' + value
        cells.append(value)
    return ",".join(cells)


def _json_line(r: random.Random) -> str:
    x = r.random()
    if x < 0.05:
        return "{bad"
    if x < 0.08:
        return "[1, 2]"
    if x < 0.1:
        return ""
    obj: dict[str, object] = {}
    for name, p, pool in (("loc", 0.95, [*LOCS, None, 5]), ("lastmod", 0.5, [*DATES, None, 5]),
                          ("changefreq", 0.4, [*CHANGEFREQS, None, 3]),
                          ("priority", 0.4, [0.5, 1, 1.0, 0, 2, -0.1, None, "0.5", True, 0.25]),
                          ("kind", 0.1, ["url", "sitemap", "x", None]), ("source", 0.1, ["s.xml"]),
                          ("mobile", 0.05, [True, False]), ("images", 0.05, [[{"loc": "https://a.com/i.png"}]]),
                          ("unknown", 0.03, [1])):
        if r.random() < p:
            obj[name] = r.choice(pool)
    text = json.dumps(obj, ensure_ascii=r.random() < 0.5)
    if r.random() < 0.05:
        text += " x"
    return _ws(r) + text + _ws(r)


def odd_document(seed: int) -> tuple[str, bytes]:
    """A text, CSV or JSONL document of odd lines (line ends mixed, a BOM or a bad byte now and then), and the
    file name it is read under ("-": sniffed from its first line)."""
    r = random.Random(seed)
    kind = r.choice(["text", "csv", "jsonl"])
    lines = []
    if kind == "csv":
        lines.append(r.choice(["loc,lastmod,priority,changefreq", "url,lastmod,priority,changefreq",
                               "loc,lastmod,priority,changefreq,extra", " LOC , lastmod ,priority,changefreq"]))
    make = {"text": _text_line, "csv": _csv_line, "jsonl": _json_line}[kind]
    lines += [make(r) for _ in range(r.randint(0, 60))]
    ending = r.choice(["\n", "\r\n", "\r", None])
    text = "".join(line + (ending or r.choice(["\n", "\r\n", "\r"])) for line in lines)
    if r.random() < 0.1:
        text = text.rstrip("\r\n")
    if r.random() < 0.05:
        text = "\ufeff" + text
    data = text.encode("utf-8")
    if data and r.random() < 0.08:
        at = r.randrange(len(data))
        data = data[:at] + bytes([r.choice([0xFF, 0xC3, 0xE4, 0x80])]) + data[at:]
    name = r.choice(["-", {"text": "list.txt", "csv": "list.csv", "jsonl": "list.jsonl"}[kind]])
    return name, data


# --- readers: fast on and off ------------------------------------------------------------------------------------

def _read(path: str, data: bytes, *, fast: bool, run_size: int) -> list[str]:
    """Everything iter_input gives for ``data``, as comparable text: each entry's repr, each problem, the error."""
    saved = _lists.FAST, _lists.RUN_SIZE
    _lists.FAST, _lists.RUN_SIZE = fast, run_size
    out: list[str] = []
    try:
        plain = io.BytesIO(data if path == "-" else Path(path).read_bytes())  # what open_bytes hands out
        for item in iter_input(path, plain=plain):
            if isinstance(item, tuple):
                entry, location = item
                out.append(f"{entry!r} {location!r} {type(entry.lastmod).__name__} {type(entry.priority).__name__}")
            else:
                out.append(repr(item))
    except Exception as exc:  # the error is part of what must be the same
        out.append(f"raised {type(exc).__name__}: {exc}")
    finally:
        _lists.FAST, _lists.RUN_SIZE = saved
    return out


@pytest.mark.parametrize("seed", range(240))
def test_odd_documents_read_the_same_fast_and_general(seed: int, tmp_path: Path) -> None:
    name, data = odd_document(seed)
    path = "-"
    if name != "-":
        path = str(tmp_path / name)
        Path(path).write_bytes(data)
    general = _read(path, data, fast=False, run_size=1)
    assert _read(path, data, fast=True, run_size=1024) == general
    assert _read(path, data, fast=True, run_size=3) == general
    assert _read(path, data, fast=False, run_size=1024) == general


def test_odd_documents_cover_entries_problems_and_errors() -> None:
    # The comparison above is only worth something if the documents give entries, problems and errors.
    counts = {"entry": 0, "problem": 0, "raised": 0}
    for seed in range(240):
        name, data = odd_document(seed)
        if name == "-":
            for line in _read("-", data, fast=True, run_size=1024):
                counts["entry" if line.startswith("UrlEntry") else "raised" if line.startswith("raised")
                       else "problem"] += 1
    assert counts["entry"] > 500, counts
    assert counts["problem"] > 500, counts
    assert counts["raised"] > 3, counts


def test_not_utf8_is_reported_at_the_line_readline_reaches_it() -> None:
    # The text layer decodes 8 KiB at a time: the error names the line after the last one handed out before the
    # chunk holding the bad byte, with the entries before that line read. The runs keep exactly that.
    data = b"".join(b"https://a.com/p%d\n" % i for i in range(3000))
    for at in (100, 8190, 8192, 20000, len(data) - 1):
        bad = data[:at] + b"\xff" + data[at:]
        expected = _read("-", bad, fast=False, run_size=1)
        assert expected[-1].startswith("raised InputError: <stdin>:")
        assert _read("-", bad, fast=True, run_size=1024) == expected
        assert _read("-", bad, fast=True, run_size=7) == expected


def test_runs_hold_consecutive_entries_and_their_lines() -> None:
    data = b"https://a.com/1\n\nhttps://a.com/2\nnot a url\nhttps://a.com/3\n"
    runs = list(iter_input_runs("-", io.BytesIO(data)))
    assert [(r.entries, r.lines) if isinstance(r, EntryRun) else r.location.line for r in runs] == [
        ([UrlEntry("https://a.com/1"), UrlEntry("https://a.com/2")], [1, 3]), 4, ([UrlEntry("https://a.com/3")], [5])]
    items = list(items_of_runs(iter(runs)))
    assert [(i[0].loc, i[1].line) if isinstance(i, tuple) else i.code for i in items] == [
        ("https://a.com/1", 1), ("https://a.com/2", 3), "SM610", ("https://a.com/3", 5)]


def _textio_lines(data: bytes) -> tuple[list[str], str | None]:
    """The lines io.TextIOWrapper(newline="") gives (line ends cut off) and its decoding error, if any."""
    fh = io.TextIOWrapper(io.BufferedReader(io.BytesIO(data)), encoding="utf-8-sig", errors="strict", newline="")
    lines: list[str] = []
    try:
        for line in fh:
            lines.append(line.removesuffix("\n").removesuffix("\r"))
    except UnicodeDecodeError as exc:
        return lines, f"<in>:{len(lines) + 1}: not UTF-8 text ({exc.reason})"
    return lines, None


def _block_lines(data: bytes, run_size: int) -> tuple[list[str], str | None]:
    saved = _lists.RUN_SIZE
    _lists.RUN_SIZE = run_size
    lines: list[str] = []
    try:
        for block in _lists.text_blocks(io.BufferedReader(io.BytesIO(data)), "<in>"):
            lines += block
    except InputError as exc:
        return lines, str(exc)
    finally:
        _lists.RUN_SIZE = saved
    return lines, None


@pytest.mark.parametrize("seed", range(40))
def test_text_blocks_are_the_lines_textiowrapper_reads(seed: int) -> None:
    # Lines end at LF, CRLF or CR (a CRLF may straddle two 8 KiB steps); a BOM is dropped; a byte that is not
    # UTF-8 (or a character cut off at the end) stops the input at the line readline stops at.
    r = random.Random(seed)
    pieces = [b"https://a.com/p", b"\n", b"\r\n", b"\r", b"x" * 3000, "\u00e9\u4e2d\U0001f600".encode(), b" ", b"\t",
              b"\xe2\x80\xa8", b"\x85"]
    data = b"".join(r.choice(pieces) for _ in range(r.randint(0, 400)))
    if r.random() < 0.2:
        data = b"\xef\xbb\xbf" + data
    if data and r.random() < 0.4:
        at = r.randrange(len(data))
        data = data[:at] + r.choice([b"\xff", b"\xc3", b"\xe4\xb8", b"\x80"]) + data[at:]
    expected = _textio_lines(data)
    assert _block_lines(data, 1024) == expected
    assert _block_lines(data, 1) == expected


@pytest.mark.parametrize("seed", range(20))
def test_csv_line_without_quotes_splits_as_csv_reader_does(seed: int) -> None:
    r = random.Random(seed)
    alphabet = ["a", ",", " ", "\t", "\x00", "\\", "'", "é", "\u2028", "\x85", "\x1c", ";", "|"]
    for _ in range(500):
        body = "".join(r.choice(alphabet) for _ in range(r.randint(0, 12)))
        line = body + r.choice(["", "\n", "\r\n", "\r"])
        fast = line.rstrip("\r\n")
        assert (fast.split(",") if fast else []) == next(csv.reader((line,), strict=True), []), repr(line)


@pytest.mark.parametrize("seed", range(10))
def test_jsonl_fast_entry_is_the_general_entry(seed: int) -> None:
    r = random.Random(seed)
    seen_fast = 0
    for _ in range(400):
        text = _json_line(r).strip()
        if not text:
            continue
        fast = _lists._jsonl_fast(text)
        general = _lists._jsonl_entry(text)
        if fast is not None:
            seen_fast += 1
            assert isinstance(general, UrlEntry)
            assert repr(fast) == repr(general)
            assert fast == general
    assert seen_fast > 20


def test_canonical_loc_entry_is_the_constructors_entry() -> None:
    for loc in LOCS:
        entry = canonical_loc_entry(loc)
        if entry is None:
            continue
        assert type(entry) is UrlEntry
        assert repr(entry) == repr(UrlEntry(loc))
        assert entry == UrlEntry(loc)
        assert hash(entry) == hash(UrlEntry(loc))
    assert canonical_loc_entry(" https://a.com/") is None  # the constructor strips it: the general path
    assert canonical_loc_entry("https://a.com/é") is None


# --- escaping -----------------------------------------------------------------------------------------------

def _reference_escape(text: str) -> str:
    """escape() as it was before its shortcut: one rule for every value."""
    bad = NOT_XML(text)
    if bad is not None:
        raise InvalidEntryError(f"U+{ord(bad.group()):04X}", value=text)
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("'", "&apos;").replace('"', "&quot;"))


def _outcome(fn: object, text: str) -> str:
    try:
        return fn(text)  # type: ignore[operator, no-any-return]
    except InvalidEntryError:
        return "refused"


def test_escape_shortcut_is_the_general_escape_for_every_character() -> None:
    chars = [*map(chr, range(0x3000)), "\ud800", "\udfff", "\ufffe", "\uffff", "\U0001f600", "\U0010ffff"]
    for c in chars:
        for text in (f"a&{c}b", f"{c}&", f"x{c}"):
            assert _outcome(escape, text) == _outcome(_reference_escape, text), repr(text)


def _junk_entries(seed: int) -> Iterator[UrlEntry]:
    """Entries built from junk locs: every spelling the constructor accepts, stored as the model stores it."""
    r = random.Random(seed)
    pieces = ["https://", "http://", "HTTP://", "a.com", "b.org", ":8080", "/", "?", "#", "&", "'", "<", ">", '"',
              "%", "%41", " ", "\x01", "\t", "é", "ä", "@", "u:p@", "x", "=", "[::1]", "\u2028", ";", ","]
    for _ in range(3000):
        text = "".join(r.choice(pieces) for _ in range(r.randint(2, 9)))
        if r.random() < 0.7:
            host = r.choice(["a.com", "a<b.com", "a\x01b.com", "a'b.com", "u&p@a.com"])
            text = r.choice(["https://", "http://"]) + host + r.choice(["/", "?", "#", ""]) + text
        try:
            yield UrlEntry(text)
        except (InvalidValueError, UnicodeError):
            continue


@pytest.mark.parametrize("seed", range(6))
def test_rendered_loc_is_what_escape_gives(seed: int) -> None:
    # The renderer escapes a loc holding "&" or "'" as escape() does (and leaves others as they are); its
    # shortcut (a host already seen clean: one replace) must not change a byte or an error.
    renderer = UrlRenderer(0x1F, Warnings("t"))
    count = 0
    for entry in _junk_entries(seed):
        loc = entry.loc
        expected = _outcome(_reference_escape, loc) if ("&" in loc or "'" in loc) else loc
        try:
            got = renderer.render(entry)
        except InvalidEntryError:
            got = "refused"
        else:
            got = got.removeprefix("<url><loc>").removesuffix("</loc></url>\n")
        assert got == expected, repr(loc)
        count += "&" in loc
    assert count > 300


def test_after_the_authority_a_loc_holds_only_uri_characters() -> None:
    # What the renderer's shortcut relies on (see UrlRenderer._escape_loc): the model percent-encodes path,
    # query and fragment; only the authority may hold '<', quotes or control characters.
    uri_tail = re.compile(r"[A-Za-z0-9\-._~!$&'()*+,;=:@/?#%\[\]]*")
    for seed in range(3):
        for entry in _junk_entries(seed):
            loc = entry.loc
            scheme, _, rest = loc.partition("://")
            assert scheme in ("http", "https")
            cut = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
            assert uri_tail.fullmatch(rest[cut:]), repr(loc)


# --- the sitemap set: add_run against add ------------------------------------------------------------------------

def _entries(seed: int) -> list[object]:
    r = random.Random(seed)
    out: list[object] = []
    for i in range(400):
        x = r.random()
        if x < 0.02:
            out.append(SitemapRef("https://a.com/s.xml"))
        elif x < 0.04:
            out.append(UrlEntry(f"https://a.com/{'y' * 900}{i}"))  # too big for the small files below
        elif x < 0.1:
            out.append(UrlEntry(f"https://other.org/p{i}?a=1&b=2"))  # outside the base URL: SM607
        elif x < 0.15:
            out.append(UrlEntry(f"https://a.com/p{i % 7}", lastmod=LastMod("2024-05")))  # SM603, duplicates
        else:
            out.append(UrlEntry(f"https://a.com/p{i}?q={i}&r=1", priority=r.choice([None, 0.5])))
    return out


def _write(out: Path, entries: list[object], *, runs: bool, **kwargs: object) -> tuple[list[object], dict[str, bytes]]:
    log: list[object] = []
    writer = SitemapSetWriter(out, "https://a.com/", max_bytes=8000, **kwargs)  # type: ignore[arg-type]
    with writer:
        if runs:
            i = 0
            while i < len(entries):
                i, exc = writer.add_run(entries, i, min(len(entries), i + 37))  # type: ignore[arg-type]
                if exc is not None:
                    log.append((i, str(exc)))
                    i += 1
        else:
            for i, entry in enumerate(entries):
                try:
                    writer.add(entry)  # type: ignore[arg-type]
                except InvalidValueError as exc:
                    log.append((i, str(exc)))
    manifest = writer.manifest
    assert manifest is not None
    log += [manifest.urls, manifest.duplicates, [repr(p).replace(str(out), "OUT") for p in manifest.problems]]
    files = {}
    for path in sorted(out.iterdir()):
        if path.name.startswith("."):
            continue
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        if b"<sitemapindex" in data[:512]:  # an index (sitemap.xml, sitemap-txt.xml): lastmods are publish times
            data = re.sub(rb"<lastmod>[^<]*</lastmod>", b"", data)
        files[path.name] = data
    return log, files


@pytest.mark.parametrize("options", [{}, {"dedupe": True}, {"formats": ("xml", "txt", "html")}, {"gzip": True}])
def test_add_run_is_add_one_at_a_time(options: dict[str, object], tmp_path: Path) -> None:
    for seed in range(3):
        entries = _entries(seed)
        one = _write(tmp_path / f"one-{seed}", entries, runs=False, **options)
        runs = _write(tmp_path / f"runs-{seed}", entries, runs=True, **options)
        assert runs == one
        assert len(one[0]) > 5  # entries refused along the way


def test_host_check_first_off_is_the_first_problem() -> None:
    hosts = HostCheck("https://a.com/")
    entries = [UrlEntry(u) for u in ("https://a.com/1", "https://A.com/2", "https://a.com:443/3", "http://a.com/4",
                                     "https://b.com/5", "https://a.com/6")]
    expected = [i for i, e in enumerate(entries) if hosts.problem(e.loc, "s", i) is not None]
    found = []
    i = 0
    while (i := hosts.first_off(entries, i, len(entries))) < len(entries):
        found.append(i)
        i += 1
    assert found == expected == [2, 3, 4]


def test_csv_field_over_the_csv_limit_is_the_csv_error(tmp_path: Path) -> None:
    # csv.reader refuses a field over csv.field_size_limit(); the fast split takes only lines shorter than that.
    path = tmp_path / "big.csv"
    path.write_text(f"loc,priority\nhttps://a.com/{'x' * 140_000},0.5\nhttps://a.com/ok,0.5\n")
    general = _read(str(path), b"", fast=False, run_size=1)
    assert "field larger than field limit" in general[0]
    assert _read(str(path), b"", fast=True, run_size=1024) == general
