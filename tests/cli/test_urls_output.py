"""`sitemapkit urls` writes its output a batch at a time: the bytes must be exactly what writing one entry at a
time gave, in every format, with --unique, over several sources (files, gzip, text, an index, standard input, URLs
with an index walked), and with problems printed mid-way at the same place among the lines (stdout and stderr
merged into one pipe show the order).

The oracle is the one-event-at-a-time path: the reader's events as `open_sources` gives them without file
batches, each formatted on its own as the command did before it batched; a literal expectation pins a small
case by hand, so the two cannot agree on a wrong answer."""

from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit.cli._urls import _for_cli
from sitemapkit.core import SeenSet
from sitemapkit.core._errors import ParseError
from sitemapkit.core._model import SitemapRef, UrlEntry, entry_to_dict
from sitemapkit.core._problems import Problem, escape_controls, escape_json_controls
from sitemapkit.core._urls import is_url_source
from sitemapkit.fetch._listing import _first_seen
from sitemapkit.fetch._sources import DocumentDone, FetchSettings, open_sources
from sitemapkit.fetch._walk import EntryBatch
from sitemapkit.read import EntryWriter, Located
from sitemapkit.read._listing import _CSV_COLUMNS
from tests.support.server import LocalServer
from tests.support.sites import NS, Site, index_xml, urlset_xml

FAST = ["--deadline", "10", "--retries", "0"]
FORMATS = ["text", "jsonl", "csv"]


def urlset(rows: list[str]) -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{"".join(rows)}</urlset>\n'.encode()


def url(loc: str, extra: str = "") -> str:
    return f"<url><loc>{loc}</loc>{extra}</url>\n"


#: Locs of every shape the reader takes: entities, queries, non-ASCII (IRIs), whitespace, quotes, fields.
ODD_ROWS = [
    url("https://example.com/"),
    url("https://example.com/a?x=1&amp;y=2", "<lastmod>2024-01-02</lastmod><priority>0.8</priority>"),
    url("  https://example.com/space  ", "<changefreq>daily</changefreq>"),
    url("https://example.com/caf\u00e9/\u65e5\u672c", "<lastmod>2024-03-04T05:06:07+02:00</lastmod>"),
    url("https://example.com/q?a=&quot;b&quot;&amp;c=&apos;d&apos;"),
    url("https://example.com/lt?a=&lt;b&gt;"),
    url("https://example.com/&#x41;&#66;"),
    url("not a url"),  # a problem mid-way; reading goes on
    url("https://example.com/" + "x" * 3000),  # over-long
    url("https://example.com/comma,\"quote\"", "<priority>1.0</priority><changefreq>weekly</changefreq>"),
    url("https://example.com/after-the-problems"),
    url("https://example.com/"),  # a duplicate, for --unique
]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("urls-output")
    out: dict[str, Path] = {}

    def put(name: str, data: bytes) -> None:
        out[name] = d / name
        out[name].write_bytes(data)

    put("odd.xml", urlset(ODD_ROWS))
    # many entries: several reads of 256 KiB and several runs; a duplicate every seventh URL
    put("big.xml", urlset([url(f"https://example.com/s-{i % 13}/item-{i % (6 * 7000) if i % 7 == 0 else i}"
                               f"?p={i % 5}&amp;q=1") for i in range(40_000)]))
    put("big.xml.gz", gzip.compress(out["big.xml"].read_bytes()[:300_000] + b"</urlset>\n", 1))
    put("list.txt", b"https://example.com/t1\n\nnot-a-url\nhttps://example.com/t2?a=1&b=2\nhttps://example.com/\n")
    put("index.xml", index_xml(["https://example.com/s1.xml", "https://example.com/s2.xml?x=1&amp;y=2"]))
    # a broken document: entries, then a fatal error part way through
    put("broken.xml", urlset([url(f"https://example.com/b{i}") for i in range(500)])[:-40] + b"<url><loc>x</url")
    return out


def _line(item: UrlEntry | SitemapRef, source: str, fmt: str) -> str:
    """One entry as the command formatted it, one at a time, before batching."""
    if fmt == "text":
        return escape_controls(item.loc) + "\n"
    if fmt == "csv":
        buf = io.StringIO()
        lastmod = item.lastmod.text if item.lastmod is not None else ""
        if isinstance(item, UrlEntry):
            cf = item.changefreq.value if item.changefreq is not None else ""
            pr = "" if item.priority is None else repr(item.priority)
        else:
            cf = pr = ""
        csv.writer(buf, lineterminator="\n").writerow((item.loc, lastmod, cf, pr, "url" if isinstance(
            item, UrlEntry) else "sitemap", source))
        return buf.getvalue()
    d = entry_to_dict(item)
    d["source"] = source
    return escape_json_controls(json.dumps(d, ensure_ascii=False)) + "\n"


def expected(sources: list[str], fmt: str, *, unique: bool = False, strict: bool = False,
             stdin: bytes | None = None) -> str:
    """stdout and stderr merged, from the reader's events one at a time (the oracle)."""
    parts: list[str] = []
    if fmt == "csv":
        parts.append(",".join(_CSV_COLUMNS) + "\n")
    seen: set[str] = set()
    settings = FetchSettings(timeout=10, retries=0)

    def emit(item: UrlEntry | SitemapRef, source: str) -> None:
        if unique:
            if item.loc in seen:
                return
            seen.add(item.loc)
        parts.append(_line(item, source, fmt))

    for source in sources:
        name = "<stdin>" if source == "-" else source
        walked = is_url_source(source)
        saved = sys.stdin
        if source == "-":
            sys.stdin = io.TextIOWrapper(io.BytesIO(stdin or b""))
        try:
            for event in open_sources([source], settings=settings, strict=strict, batches=True):
                if isinstance(event, EntryBatch):
                    for entry in event.entries:
                        emit(entry, event.sitemap)
                    for ref in event.refs:  # an index's children, streamed as read
                        if not (walked and fmt == "text"):
                            emit(ref, name)
                    parts.extend(_for_cli(p).format() + "\n" for p in event.problems)
                elif isinstance(event, Problem):
                    parts.append(_for_cli(event).format() + "\n")
                elif isinstance(event, (UrlEntry, SitemapRef, Located)):
                    item = event.item if isinstance(event, Located) else event
                    if not (isinstance(item, SitemapRef) and walked and fmt == "text"):
                        emit(item, name)
                else:
                    assert isinstance(event, DocumentDone) or type(event).__name__ == "Discovery"
        except ParseError as exc:
            parts.append(exc.problem.format() + "\n")
        finally:
            sys.stdin = saved
    return "".join(parts)


def run(args: list[str], stdin: bytes | None = None) -> tuple[str, int]:
    """The command's stdout and stderr through one pipe (the order in which they were written) and its status."""
    r = subprocess.run([sys.executable, "-m", "sitemapkit", "urls", "-q", *args], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, input=stdin if stdin is not None else b"", timeout=120, check=False)
    return r.stdout.decode("utf-8"), r.returncode


def test_a_small_case_by_hand(tmp_path: Path) -> None:
    path = tmp_path / "s.xml"
    path.write_bytes(urlset([url("https://example.com/a?x=1&amp;y=2", "<lastmod>2024-01-02</lastmod>"
                                 "<changefreq>daily</changefreq><priority>0.5</priority>"),
                             url("https://example.com/caf\u00e9"), url("https://example.com/a?x=1&amp;y=2")]))
    warning = f"{path}:5: warning SM306: duplicate loc https://example.com/a?x=1&y=2\n"  # before that entry
    text, rc = run([str(path)])
    assert (text, rc) == ("https://example.com/a?x=1&y=2\nhttps://example.com/caf%C3%A9\n" + warning
                          + "https://example.com/a?x=1&y=2\n", 0)
    assert run([str(path), "--unique"])[0] == ("https://example.com/a?x=1&y=2\nhttps://example.com/caf%C3%A9\n"
                                               + warning)
    assert run([str(path), "--format", "csv", "--unique"])[0] == (
        "loc,lastmod,changefreq,priority,kind,source\n"
        f"https://example.com/a?x=1&y=2,2024-01-02,daily,0.5,url,{path}\n"
        f"https://example.com/caf%C3%A9,,,,url,{path}\n" + warning)
    lines = [line for line in run([str(path), "--format", "jsonl"])[0].splitlines() if "SM306" not in line]
    assert [json.loads(line)["loc"] for line in lines] == ["https://example.com/a?x=1&y=2",
                                                           "https://example.com/caf%C3%A9",
                                                           "https://example.com/a?x=1&y=2"]
    assert json.loads(lines[0]) == {"loc": "https://example.com/a?x=1&y=2", "lastmod": "2024-01-02",
                                    "changefreq": "daily", "priority": 0.5, "alternates": [], "images": [],
                                    "videos": [], "news": None, "mobile": False, "kind": "url", "source": str(path)}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("unique", [False, True])
def test_files_give_what_one_entry_at_a_time_gave(files: dict[str, Path], fmt: str, unique: bool) -> None:
    sources = [str(files[n]) for n in ("odd.xml", "big.xml", "list.txt", "index.xml", "broken.xml", "big.xml.gz",
                                       "odd.xml")]
    args = [*sources, "--format", fmt, *(["--unique"] if unique else [])]
    got, rc = run(args)
    want = expected(sources, fmt, unique=unique)
    assert rc == 1  # the broken file and the bad lines are errors
    assert "not a url" in got  # problems are among the lines
    assert "broken.xml:" in got
    assert got == want


@pytest.mark.parametrize("fmt", FORMATS)
def test_strict_and_standard_input(files: dict[str, Path], fmt: str) -> None:
    data = files["odd.xml"].read_bytes()
    sources = ["-", str(files["big.xml"])]
    got, _ = run([*sources, "--format", fmt, "--strict"], stdin=data)
    assert got == expected(sources, fmt, strict=True, stdin=data)
    got, _ = run(["-", "--format", fmt], stdin=files["big.xml"].read_bytes())
    assert got == expected(["-"], fmt, stdin=files["big.xml"].read_bytes())
    assert got.count("\n") >= 40_000


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("unique", [False, True])
def test_urls_walked_over_http(server: LocalServer, files: dict[str, Path], fmt: str, unique: bool) -> None:
    site = Site(server)
    site.xml("/index.xml", index_xml([server.url("/odd.xml"), server.url("/missing.xml"), server.url("/big.xml"),
                                      server.url("/list.txt")]))
    site.xml("/odd.xml", files["odd.xml"].read_bytes())
    site.xml("/big.xml", files["big.xml"].read_bytes())
    server.route("/list.txt", body=files["list.txt"].read_bytes(), headers={"Content-Type": "text/plain"})
    site.xml("/small.xml", urlset_xml([server.url("/p1"), server.url("/p2")]))
    sources = [server.url("/index.xml"), str(files["odd.xml"]), server.url("/small.xml")]
    got, rc = run([*sources, "--format", fmt, *FAST, *(["--unique"] if unique else [])])
    assert rc == 1
    assert "HTTP status 404" in got
    assert got == expected(sources, fmt, unique=unique)


def test_a_closed_pipe_ends_quietly(files: dict[str, Path]) -> None:
    cmd = [sys.executable, "-m", "sitemapkit", "urls", "-q", str(files["big.xml"]), str(files["big.xml"])]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        first = proc.stdout.readline()
        proc.stdout.close()  # as `| head -1` does
        err = proc.stderr.read()
        assert proc.wait(timeout=60) == 0
    assert first.startswith(b"https://example.com/s-0/item-0?p=0&q=1")
    assert err == b""


class _Loc:
    """Stands in for an entry whose loc holds characters the terminal must not see raw (the model encodes
    such characters, so a real entry rarely has them; the batch must still escape them as one line at a time)."""

    def __init__(self, loc: str) -> None:
        self.loc = loc


@pytest.mark.parametrize("locs", [
    ["https://e.com/a", "https://e.com/\x1b[31mred", "https://e.com/b"],
    ["https://e.com/\u202eevil", "https://e.com/\ud800", "https://e.com/tab\there"],
    ["https://e.com/nl\nx"],
    ["https://e.com/plain"],
    [],
])
def test_text_batches_escape_as_single_lines_do(locs: list[str]) -> None:
    one, many = io.StringIO(), io.StringIO()
    single = EntryWriter("text", one)
    for loc in locs:
        single.write(_Loc(loc), "s")  # type: ignore[arg-type]
    EntryWriter("text", many).write_many([_Loc(loc) for loc in locs], "s")  # type: ignore[list-item]
    assert many.getvalue() == one.getvalue() == "".join(escape_controls(loc) + "\n" for loc in locs)


def test_first_seen_keeps_the_first_of_equal_locs() -> None:
    entries = [UrlEntry(f"https://example.com/{c}") for c in "abacbd"]
    seen = SeenSet()
    assert not seen.add("https://example.com/d")  # new
    assert [e.loc[-1] for e in _first_seen(entries, seen)] == ["a", "b", "c"]
    assert all(seen.add(f"https://example.com/{c}") for c in "abcd")  # every one seen now
