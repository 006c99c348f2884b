"""A gzip bomb in partitioned data stops at the byte budget with one clear error (issue 23: the write layer's
list readers open nothing themselves; every list is opened through the one byte source, ``read.open_bytes``).

Before, a partition read ``.csv.gz`` files through a ``gzip.GzipFile`` of its own: the budget held, but the Dask
worker logged the error with its traceback ("Compute Failed ... Traceback") before the command's own line. A
real process, because the point is all that the command and its workers print."""

from __future__ import annotations

import gzip
import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit.core import DEFAULT_MAX_DECOMPRESSED_BYTES

pytest.importorskip("distributed")


def _bomb(path: Path) -> None:
    """A CSV whose rows are blank lines of 4 KiB: just over the budget once gunzipped, ~140 KB stored."""
    line = b" " * 4095 + b"\n"
    rows = DEFAULT_MAX_DECOMPRESSED_BYTES // len(line) + 16
    path.write_bytes(gzip.compress(b"loc\n" + line * rows, 6))


@pytest.mark.slow
@pytest.mark.e2e
def test_a_gzip_bomb_in_partitioned_data_stops_at_the_budget_without_a_traceback(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv").write_text("loc\nhttps://a.test/x\n", encoding="utf-8")
    _bomb(data / "b.csv.gz")
    out = tmp_path / "out"
    res = subprocess.run([sys.executable, "-m", "sitemapkit", "generate", str(data), "-o", str(out),
                          "--base-url", "https://a.test/", "--workers", "1", "-q"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 1, res.stderr
    assert "Traceback" not in res.stderr, res.stderr
    assert "Compute Failed" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines() == [
        f"sitemapkit: error: {data / 'b.csv.gz'}: decompressed data exceeds the budget of "
        f"{DEFAULT_MAX_DECOMPRESSED_BYTES:,} bytes"], res.stderr
    assert not (out / "sitemap.xml").exists()  # nothing was published


@pytest.mark.slow
def test_partitioned_data_reads_nested_gzip_as_every_other_input(tmp_path: Path) -> None:
    """The one byte source undoes every gzip layer (as ``generate LIST.gz`` and ``urls`` do); the partitions'
    own GzipFile undid one, and read the inner layer's bytes as text."""
    from sitemapkit.harvest import generate_partitioned
    from sitemapkit.read import read_file

    data = tmp_path / "data"
    data.mkdir()
    (data / "a.csv.gz").write_bytes(gzip.compress(gzip.compress(b"loc\nhttps://a.test/x\nhttps://a.test/y\n")))
    result = generate_partitioned([data], tmp_path / "out", "https://a.test/", workers=1, processes=False)
    assert result.errors == 0, result.problems
    assert [e.loc for e in read_file(tmp_path / "out" / "sitemap.xml").entries] == [
        "https://a.test/x", "https://a.test/y"]
