"""`sitemapkit urls` gives the same answer from a URL as from a file, in document order, and says one clear line
about inputs it cannot read (binary data, a document over --max-bytes). End to end: the CLI in process
against a real server on 127.0.0.1 (and the same bytes on disk)."""

from __future__ import annotations

import gzip
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from sitemapkit.fetch._binary import looks_binary
from tests.support.cli import CliResult, run_cli
from tests.support.server import LocalServer, Request, Response
from tests.support.sites import NS, Site, index_xml, urlset_xml

pytestmark = pytest.mark.e2e

FAST = ["--deadline", "10", "--retries", "0"]
# What must never reach a terminal from a binary input: C0 controls other than tab and line feed, DEL, and the
# raw high bytes a binary file is made of (decoded as U+FFFD or as Latin-1 controls).
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffd]")


def run_urls(*args: str, stdin: bytes | None = None) -> CliResult:
    r = run_cli(["urls", *args], input=stdin, text=False)
    # Raw bytes that are not UTF-8 show up as U+FFFD (see RAW)
    return CliResult(r.args, r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace"))


def index_with_lastmods(children: list[tuple[str, str]]) -> bytes:
    body = "".join(f"<sitemap><loc>{loc}</loc><lastmod>{lastmod}</lastmod></sitemap>" for loc, lastmod in children)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">{body}</sitemapindex>\n'.encode()


# ------------------------------------------------------------------------------------- index lastmods (12.4)


@pytest.mark.parametrize("follow", ["--follow", "--no-follow"])
def test_index_children_have_the_same_fields_from_a_url_as_from_a_file(server: LocalServer, tmp_path: Path,
                                                                       follow: str) -> None:
    site = Site(server)
    children = [(server.url("/a.xml"), "2024-05-01"), (server.url("/b.xml"), "2024-06-02T10:30:00+02:00")]
    body = index_with_lastmods(children)
    site.xml("/index.xml", body)
    site.xml("/a.xml", urlset_xml([server.url("/p1")]))
    site.xml("/b.xml", urlset_xml([server.url("/p2")]))
    on_disk = tmp_path / "index.xml"
    on_disk.write_bytes(body)

    def sitemap_rows(source: str) -> list[dict[str, object]]:
        r = run_urls(source, "--format", "jsonl", follow, *FAST)
        assert r.returncode == 0, r.stderr
        rows = [json.loads(line) for line in r.stdout.splitlines()]
        return [{k: v for k, v in row.items() if k != "source"} for row in rows if row["kind"] == "sitemap"]

    from_url, from_file = sitemap_rows(server.url("/index.xml")), sitemap_rows(str(on_disk))
    assert from_url == from_file
    assert [(row["loc"], row["lastmod"]) for row in from_url] == children


# ------------------------------------------------------------------------------------- document order (12.5)


def _delayed(body: bytes, delay: float) -> Callable[[Request], Response]:
    def handler(_req: Request) -> Response:
        return Response(200, body, {"Content-Type": "application/xml"}, delay=delay)

    return handler


def test_index_urls_are_printed_in_document_order(server: LocalServer) -> None:
    """Children answer slowest-first, and a nested index sits in the middle: the output is still the order of
    the documents (index order, each child's own order, a nested index's sitemaps in its place)."""
    site = Site(server)
    names = ["/c0.xml", "/nested.xml", "/c2.xml", "/c3.xml.gz"]
    site.xml("/index.xml", index_xml([server.url(n) for n in names]))
    pages: dict[str, list[str]] = {n: [server.url(f"{n}/p{i}") for i in range(3)] for n in names}
    pages["/n0.xml"] = [server.url(f"/n0/p{i}") for i in range(2)]
    pages["/n1.xml"] = [server.url(f"/n1/p{i}") for i in range(2)]
    # Later documents answer sooner: an unordered walk prints them first.
    site.handler("/c0.xml", _delayed(urlset_xml(pages["/c0.xml"]), 0.6))
    site.xml("/nested.xml", index_xml([server.url("/n0.xml"), server.url("/n1.xml")]))
    site.handler("/n0.xml", _delayed(urlset_xml(pages["/n0.xml"]), 0.4))
    site.xml("/n1.xml", urlset_xml(pages["/n1.xml"]))
    site.handler("/c2.xml", _delayed(urlset_xml(pages["/c2.xml"]), 0.2))
    site.gz("/c3.xml.gz", urlset_xml(pages["/c3.xml.gz"]))
    expected = pages["/c0.xml"] + pages["/n0.xml"] + pages["/n1.xml"] + pages["/c2.xml"] + pages["/c3.xml.gz"]

    for _ in range(2):
        r = run_urls(server.url("/index.xml"), "--concurrency", "4", *FAST)
        assert r.returncode == 0, r.stderr
        assert r.stdout.split() == expected


def test_ordered_output_buffers_at_most_concurrency_sitemaps_ahead(server: LocalServer) -> None:
    """While the first child is slow, the other worker fetches one sitemap ahead and then waits: the walk does
    not pile up the whole index in memory to reorder it."""
    site = Site(server)
    children = [server.url(f"/s{i}.xml") for i in range(8)]
    site.xml("/index.xml", index_xml(children))
    delay = 1.0
    site.handler("/s0.xml", _delayed(urlset_xml([server.url("/s0/p")]), delay))
    for i in range(1, 8):
        site.xml(f"/s{i}.xml", urlset_xml([server.url(f"/s{i}/p")]))

    r = run_urls(server.url("/index.xml"), "--concurrency", "2", *FAST)
    assert r.returncode == 0, r.stderr
    first = next(req for req in server.requests if req.path == "/s0.xml")
    ahead = [req.path for req in server.requests
             if req.path.startswith("/s") and req.path != "/s0.xml" and req.time < first.time + delay]
    assert len(ahead) <= 1, ahead  # concurrency 2: the slow one, and one more fetched ahead
    assert r.stdout.split() == [server.url(f"/s{i}/p") for i in range(8)]


# ------------------------------------------------------------------------------------- binary input (12.10)


def _binary_blob() -> bytes:
    # Deterministic bytes with the make-up of a compressed file: every byte value, scrambled.
    return bytes((i * 167 + 13) % 256 for i in range(6000))


@pytest.mark.parametrize("variant", ["plain", "gzip"])
def test_binary_file_url_and_stdin_give_one_line(server: LocalServer, tmp_path: Path, variant: str) -> None:
    data = _binary_blob() if variant == "plain" else gzip.compress(_binary_blob())
    path = tmp_path / "image.png"
    path.write_bytes(data)
    Site(server).xml("/sitemap.xml", data, content_type="application/xml")
    for source, stdin in ((str(path), None), (server.url("/sitemap.xml"), None), ("-", data)):
        r = run_urls(source, *FAST, stdin=stdin)
        assert r.returncode == 1, (source, r.stderr)
        assert r.stdout == ""
        lines = r.stderr.splitlines()
        assert len(lines) == 1, (source, lines)
        assert "SM516" in lines[0]
        assert "binary data, not a sitemap" in lines[0]
        assert not RAW.search(r.stderr)


def test_a_stray_control_character_does_not_make_a_sitemap_binary(tmp_path: Path) -> None:
    locs = [f"https://example.com/p{i}" for i in range(5)]
    body = ("\n".join(locs[:2]) + "\n\x00\x1b[2J junk\n" + "\n".join(locs[2:]) + "\n").encode()
    path = tmp_path / "sitemap.txt"
    path.write_bytes(body)
    r = run_urls(str(path))
    assert r.stdout.split() == locs
    assert "SM516" not in r.stderr


def test_no_sitemap_of_the_corpus_looks_binary(shared_dir: Path) -> None:
    files = [p for p in (shared_dir / "corpus").rglob("*") if p.is_file()]
    assert files
    flagged = []
    for p in files:
        with p.open("rb") as f:
            head = f.read(65536)
        if looks_binary(head, complete=os.path.getsize(p) <= len(head)):
            flagged.append(p)
    assert flagged == []


# ------------------------------------------------------------------------------------- size limit wording (12.10)


@pytest.mark.parametrize("strict", [False, True])
def test_size_limit_message_names_the_cli_flag(server: LocalServer, tmp_path: Path, strict: bool) -> None:
    body = urlset_xml([f"https://example.com/page/{i}" for i in range(50)])
    path = tmp_path / "sitemap.xml"
    path.write_bytes(body)
    Site(server).xml("/sitemap.xml", body)
    extra = ["--strict"] if strict else []
    for source in (str(path), server.url("/sitemap.xml")):
        r = run_urls(source, "--max-bytes", "200", *extra, *FAST)
        assert r.returncode == 1, r.stderr
        assert "--max-bytes" in r.stderr, r.stderr
        assert "max_decompressed_bytes" not in r.stderr
        assert r.stderr.count(source) == 1, r.stderr  # the source is named once, not twice
