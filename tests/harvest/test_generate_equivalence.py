"""``generate DATA --workers 2`` writes the same sitemap set as a single-process ``generate`` of the same rows:
the same entries (every field and extension) in the same order, under the same limits, both valid. The rows are
given as three JSONL files (read by both paths) and as the same rows in three Parquet files (partitioned only)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pa: Any = pytest.importorskip("pyarrow")
pytest.importorskip("distributed")
import pyarrow.parquet as pq  # type: ignore[import-untyped]  # noqa: E402

from sitemapkit import Alternate, Image, LastMod, News, Severity, UrlEntry, Video  # noqa: E402
from sitemapkit.core._model import entry_to_dict  # noqa: E402
from sitemapkit.harvest import entry_row, url_schema  # noqa: E402
from sitemapkit.read import read_file  # noqa: E402

BASE = "https://shop.example/"
MAX_URLS = 7
#: Rows per input file (uneven, so partitions end their last file at different points).
SIZES = (25, 20, 15)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sitemapkit", *args], capture_output=True, text=True, timeout=180)


def entry(n: int) -> UrlEntry:
    loc = f"{BASE}item/{n}"
    return UrlEntry(
        loc,
        lastmod=LastMod(f"2024-0{n % 9 + 1}-1{n % 10}T0{n % 10}:30:00+02:00") if n % 4 else LastMod("2023-12-31"),
        changefreq=("daily", "weekly", None)[n % 3],
        priority=None if n % 5 == 0 else round((n % 10) / 10, 1),
        images=tuple(Image(f"{BASE}img/{n}-{k}.jpg", caption=f"picture {k} of {n}") for k in range(n % 3)),
        videos=(Video(f"{BASE}thumb/{n}.jpg", f"Video {n}", "A <video> & more", content_loc=f"{BASE}v/{n}.mp4",
                      duration=60 + n),) if n % 11 == 0 else (),
        news=News("Shop News", "en", LastMod("2024-05-01"), f"Story {n}") if n % 13 == 0 else None,
        alternates=(Alternate("en", loc), Alternate("de", f"{BASE}de/item/{n}")) if n % 2 else (),
    )


def write_inputs(root: Path, entries: list[UrlEntry]) -> tuple[list[Path], Path]:
    """The entries split by SIZES into JSONL files (root/jsonl) and Parquet files (root/parquet)."""
    (root / "jsonl").mkdir()
    (root / "parquet").mkdir()
    jsonl: list[Path] = []
    start = 0
    for i, size in enumerate(SIZES):
        chunk = entries[start:start + size]
        start += size
        path = root / "jsonl" / f"part-{i}.jsonl"
        path.write_text("".join(json.dumps(entry_to_dict(e)) + "\n" for e in chunk))
        jsonl.append(path)
        rows = [entry_row(e, f"{BASE}source.xml", "shop.example") for e in chunk]
        pq.write_table(pa.Table.from_pylist(rows, schema=url_schema()), root / "parquet" / f"part-{i}.parquet")
    return jsonl, root / "parquet"


def read_set(out: Path) -> tuple[list[UrlEntry], list[int]]:
    """The entries of a published set, file after file in index order, and the URL count of each file."""
    index = read_file(out / "sitemap.xml")
    assert not [p for p in index.problems if p.severity is Severity.ERROR]
    names = [ref.loc.removeprefix(BASE) for ref in index.sitemaps]
    assert names
    assert all("/" not in n for n in names), names
    entries: list[UrlEntry] = []
    counts: list[int] = []
    for name in names:
        got = read_file(out / name)
        assert not got.sitemaps
        entries.extend(got.entries)
        counts.append(len(got.entries))
    on_disk = sorted(p.name for p in out.iterdir() if p.name.startswith("sitemap-"))
    assert on_disk == sorted(names)  # no stray partition file left behind
    return entries, counts


def validate(out: Path, pattern: str = "sitemap*.xml") -> None:
    files = sorted(str(p) for p in out.glob(pattern))
    assert len(files) >= 3
    result = run("validate", *files)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.slow
@pytest.mark.e2e
def test_partitioned_generate_equals_single_process(tmp_path: Path) -> None:
    entries = [entry(n) for n in range(sum(SIZES))]
    jsonl, parquet_dir = write_inputs(tmp_path, entries)
    limits = ("--base-url", BASE, "--urls-per-file", str(MAX_URLS))

    single = run("generate", *map(str, jsonl), "--out", str(tmp_path / "single"), *limits)
    assert single.returncode == 0, single.stderr
    from_jsonl = run("generate", str(tmp_path / "jsonl"), "--out", str(tmp_path / "par-jsonl"), "--workers", "2",
                     *limits)
    assert from_jsonl.returncode == 0, from_jsonl.stderr
    assert "3 partitions written in parallel" in from_jsonl.stdout
    from_parquet = run("generate", str(parquet_dir), "--out", str(tmp_path / "par-parquet"), "--workers", "2",
                       *limits)
    assert from_parquet.returncode == 0, from_parquet.stderr

    expected, single_counts = read_set(tmp_path / "single")
    assert expected == entries  # the single-process set is the input itself (sanity of the comparison)
    assert len(single_counts) == -(-len(entries) // MAX_URLS)
    for name in ("par-jsonl", "par-parquet"):
        got, counts = read_set(tmp_path / name)
        assert got == expected, name  # same entries, same order, every extension kept
        assert max(counts) <= MAX_URLS  # same limit
        assert counts == [min(MAX_URLS, size - k) for size in SIZES for k in range(0, size, MAX_URLS)]
        validate(tmp_path / name)
    validate(tmp_path / "single")


@pytest.mark.slow
@pytest.mark.e2e
def test_partitioned_generate_dedupe_equals_single_process(tmp_path: Path) -> None:
    # Every file repeats URLs of the others: --dedupe writes each once, on both paths.
    entries = [entry(n) for n in range(40)]
    files = []
    for i, picks in enumerate((range(0, 25), range(15, 40), range(0, 40, 3))):
        path = tmp_path / "data" / f"f{i}.jsonl"
        path.parent.mkdir(exist_ok=True)
        path.write_text("".join(json.dumps(entry_to_dict(entries[n])) + "\n" for n in picks))
        files.append(str(path))
    limits = ("--base-url", BASE, "--urls-per-file", "6", "--dedupe", "--gzip")
    single = run("generate", *files, "--out", str(tmp_path / "single"), *limits)
    assert single.returncode == 0, single.stderr
    par = run("generate", str(tmp_path / "data"), "--out", str(tmp_path / "par"), "--workers", "2", *limits)
    assert par.returncode == 0, par.stderr

    def read_gz_set(out: Path) -> list[UrlEntry]:
        index = read_file(out / "sitemap.xml.gz")
        got: list[UrlEntry] = []
        for ref in index.sitemaps:
            part = read_file(out / ref.loc.removeprefix(BASE))
            assert len(part.entries) <= 6
            got.extend(part.entries)
        return got

    one, many = read_gz_set(tmp_path / "single"), read_gz_set(tmp_path / "par")
    assert len(one) == len(many) == 40  # each URL once
    validate(tmp_path / "single", "sitemap*.xml.gz")
    validate(tmp_path / "par", "sitemap*.xml.gz")
    by_loc = sorted(entries, key=lambda e: e.loc)
    assert sorted(one, key=lambda e: e.loc) == by_loc
    assert sorted(many, key=lambda e: e.loc) == by_loc
