"""Every file of the real-world and peer-fixture corpora reads without a traceback, with the manifests' counts."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from sitemapkit import ParseResult, read_file
from sitemapkit.read import DocumentKind
from tests.support.corpus import CORPUS, corpus_params, needs_corpus

REAL = CORPUS / "real-world"
PEER = CORPUS / "peer-fixtures"


def _rows(manifest: Path) -> list[dict[str, str]]:
    if not manifest.is_file():
        return []
    with manifest.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


REAL_ROWS = _rows(REAL / "MANIFEST.tsv")
PEER_ROWS = [r for r in _rows(PEER / "MANIFEST.tsv") if (PEER / r["local_path"]).is_file()]

#: Features that make a file's URLs unusable: the manifest counts the <url> elements, the reader reports each
#: one it had to skip (relative, protocol-relative or literal "None" locs, empty locs, templates, broken XML).
_UNUSABLE = {"relative-url", "protocol-relative-url", "loc-literal-None", "empty-loc", "broken", "template-syntax"}
_KINDS = {"urlset": DocumentKind.URLSET, "index": DocumentKind.INDEX, "rss": DocumentKind.RSS,
          "atom": DocumentKind.ATOM, "text": DocumentKind.TEXT}


def _count(result: ParseResult) -> int:
    return len(result.entries) + len(result.sitemaps)


@pytest.mark.parametrize("row", corpus_params(REAL_ROWS, ids=lambda r: r["file"]))
def test_real_world(row: dict[str, str]) -> None:
    result = read_file(REAL / row["file"])
    features = set(row["features"].split(","))
    expected = int(row["approx_url_count"])
    kind = row["kind"]
    if kind == "gz":
        kind = "index" if "inner-index" in features else "urlset"
    if "unescaped-amp" in features:  # bare "&": repaired in lenient mode, with a warning
        assert _count(result) == expected
        assert "SM129" in {p.code for p in result.problems}
    elif kind in _KINDS and not features & _UNUSABLE:
        assert result.kind is _KINDS[kind]
        assert _count(result) == expected
        assert not result.errors, [p.format() for p in result.errors]
    elif features & _UNUSABLE and expected:
        # Every <url> the manifest counts is either read or reported.
        assert _count(result) + len(result.problems) >= 1
        assert result.problems
    else:  # "other": an XSL file, an empty file
        assert _count(result) == expected == 0
        assert result.errors


_STATED = re.compile(r"^(\d+)\b")


@pytest.mark.parametrize("row", corpus_params(PEER_ROWS, ids=lambda r: r["local_path"]))
def test_peer_fixture(row: dict[str, str]) -> None:
    path = PEER / row["local_path"]
    result = read_file(path)
    stated = row["expected_url_count"]
    m = _STATED.match(stated)
    is_robots = "robots" in row["local_path"] or row["project"] == "protego"
    if row["local_path"].endswith("do-not-visit.txt"):
        assert _count(result) == 1  # it is a one-line text file itself; reading it directly is fine
    elif m and not is_robots and "error" not in stated:
        assert _count(result) == int(m.group(1)), [p.format() for p in result.problems]
    elif stated.startswith("exception"):
        assert result.errors
    for p in result.problems:
        assert p.location.source == str(path)


@needs_corpus
def test_gzip_bomb_default_budget_reads_without_error() -> None:
    # 11.5 MB decompressed: within the default budget; it is not a sitemap, and the reader says so
    result = read_file(PEER / "scrapy" / "bomb-gzip.bin")
    assert _count(result) == 0
    assert result.problems


@needs_corpus
def test_truncated_gzip_keeps_what_inflates() -> None:
    result = read_file(PEER / "scrapy" / "unexpected-eof.gz")
    assert "SM113" in {p.code for p in result.problems}
