"""`sitemapkit urls` end to end: the real CLI (in process, tests/support/cli.py) on real files."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

from tests.support.cli import CliResult, run_cli
from tests.support.corpus import CORPUS, needs_corpus

EDGE = CORPUS / "edge-cases"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def run(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> CliResult:
    return run_cli(["urls", *args], input=stdin.decode() if stdin else None, cwd=cwd)


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


URLSET = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
          'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
          'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
          "<url><loc>https://example.com/a</loc><lastmod>2024-05-01T10:30+02:00</lastmod>"
          "<changefreq>daily</changefreq><priority>0.8</priority>"
          "<image:image><image:loc>https://example.com/i.jpg</image:loc></image:image>"
          '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/a"/></url>\n'
          "<url><loc>https://example.com/b</loc></url>\n"
          "<url><loc>https://example.com/a</loc></url>\n</urlset>\n").encode()


@needs_corpus
def test_text_output_gzip_and_plain(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.xml.gz", gzip.compress(URLSET))
    r = run(str(a), str(EDGE / "30_text_with_junk.txt"))
    assert r.returncode == 0, r.stderr  # warnings only
    assert r.stdout.splitlines() == ["https://example.com/a", "https://example.com/b", "https://example.com/a",
                                     "https://example.com/a", "https://example.com/b", "https://example.com/a"]
    lines = r.stderr.splitlines()
    assert f"{a}:5: warning SM306: duplicate loc https://example.com/a" in lines
    assert any(line.startswith(f"{EDGE / '30_text_with_junk.txt'}:4:1: warning SM124: ") for line in lines)


@needs_corpus
def test_unique(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.xml", URLSET)
    r = run("--unique", str(a), str(EDGE / "26_duplicate_urls.xml"))
    assert r.stdout.splitlines() == ["https://example.com/a", "https://example.com/b"]


@needs_corpus
def test_jsonl_output_and_index_kind(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.xml", URLSET)
    r = run("--format", "jsonl", str(a), str(EDGE / "17_sitemapindex.xml"))
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in r.stdout.splitlines()]
    assert rows[0] == {
        "loc": "https://example.com/a", "lastmod": "2024-05-01T10:30+02:00", "changefreq": "daily",
        "priority": 0.8, "images": [{"loc": "https://example.com/i.jpg", "caption": None, "geo_location": None,
                                     "title": None, "license": None}],
        "videos": [], "news": None, "alternates": [{"hreflang": "de", "href": "https://example.com/de/a"}],
        "mobile": False, "kind": "url", "source": str(a)}
    assert rows[1]["lastmod"] is None
    assert rows[1]["images"] == []
    assert [(r["kind"], r["loc"]) for r in rows[3:]] == [("sitemap", "https://example.com/s1.xml"),
                                                         ("sitemap", "https://example.com/s2.xml.gz")]


def test_csv_output(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.xml", URLSET)
    r = run("--format", "csv", str(a))
    rows = list(csv.DictReader(io.StringIO(r.stdout)))
    assert [row["loc"] for row in rows] == ["https://example.com/a", "https://example.com/b", "https://example.com/a"]
    assert (rows[0]["lastmod"], rows[0]["changefreq"], rows[0]["priority"], rows[0]["kind"]) == (
        "2024-05-01T10:30+02:00", "daily", "0.8", "url")


@needs_corpus
def test_errors_exit_1_and_keep_output() -> None:
    r = run(str(EDGE / "09_truncated_mid_url.xml"))
    assert r.returncode == 1
    assert len(r.stdout.splitlines()) == 49
    assert r.stderr.strip() == (f"{EDGE / '09_truncated_mid_url.xml'}:52:33: error SM105: document ends early "
                                "(Premature end of data in tag loc line 52); incomplete entries dropped")


@needs_corpus
def test_html_and_dtd_are_errors() -> None:
    r = run(str(EDGE / "08_html_served_as_sitemap.xml"), str(EDGE / "31_billion_laughs.xml"))
    assert r.returncode == 1
    assert r.stdout == ""
    assert [line.split(": ")[1].split()[1] for line in r.stderr.splitlines()] == ["SM101", "SM103"]


@needs_corpus
def test_strict(tmp_path: Path) -> None:
    r = run("--strict", str(EDGE / "03_leading_whitespace.xml"), str(EDGE / "01_plain.xml"))
    assert r.returncode == 1
    assert r.stdout.splitlines() == ["https://example.com/a", "https://example.com/b"]  # 01 only
    assert "error SM107" in r.stderr
    ok = run("--strict", str(EDGE / "01_plain.xml"))
    assert ok.returncode == 0
    assert ok.stderr == ""


@needs_corpus
def test_stdin() -> None:
    r = run("-", stdin=(EDGE / "28_rss2.xml").read_bytes())
    assert r.returncode == 0
    assert r.stdout.splitlines() == ["https://example.com/a", "https://example.com/b"]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run().returncode == 2
    r = run("--format", "yaml", str(_write(tmp_path, "plain.xml", URLSET)))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr


def test_missing_file_is_a_usage_error(tmp_path: Path) -> None:
    """A SOURCE that does not exist is a usage error (exit 2, before any output), like every command's."""
    plain = _write(tmp_path, "plain.xml", URLSET)
    r = run(str(tmp_path / "nope.xml"), str(plain))
    assert r.returncode == 2
    assert "Traceback" not in r.stderr
    assert "nope.xml" in r.stderr
    assert r.stdout == ""


def test_jsonl_round_trips_through_generate(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.xml", URLSET)
    listed = run("--format", "jsonl", "--unique", str(a))
    assert listed.returncode == 0
    gen = run_cli(["generate", "-", "--out", str(tmp_path / "out"), "--base-url", "https://example.com/"],
                  input=listed.stdout)
    assert gen.returncode == 0, gen.stderr
    again = run("--format", "jsonl", str(tmp_path / "out" / "sitemap.xml"))
    strip = [{k: v for k, v in json.loads(line).items() if k != "source"} for line in listed.stdout.splitlines()]
    back = [{k: v for k, v in json.loads(line).items() if k != "source"} for line in again.stdout.splitlines()]
    assert back == strip


@needs_corpus
def test_whole_corpus_through_the_cli_without_traceback() -> None:
    files = sorted(str(p) for d in ("real-world", "peer-fixtures") for p in (CORPUS / d).rglob("*")
                   if p.is_file() and not p.name.endswith(".tsv"))
    r = run(*files)
    assert r.returncode == 1  # the corpus holds broken files on purpose
    assert "Traceback" not in r.stderr
    locs = r.stdout.splitlines()
    assert len(locs) > 100_000
    assert all(loc.startswith(("http://", "https://")) for loc in locs)
    for line in r.stderr.splitlines():  # reader problems (SM306: a repeated URL); SM517: a local index whose folder
        # lacks some sitemaps
        assert (": error SM1" in line or ": warning SM1" in line or ": warning SM517" in line
                or ": warning SM306" in line or line.startswith("sitemapkit: error: ")), line
