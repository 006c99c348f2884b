"""What a killed ``harvest`` leaves: hidden temporary partition files, never seen by a dataset reader and deleted
by the next run (here a resume where every host is complete, so no cluster starts)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("distributed")
import pyarrow.dataset as ds  # type: ignore[import-untyped]

from sitemapkit import UrlEntry
from sitemapkit.cli import main
from sitemapkit.fetch import EntryBatch
from sitemapkit.harvest._host import HostJob, HostSettings, _Run, partition_path


def _complete_partition(out: Path, host: str, n: int) -> None:
    run = _Run(HostJob(host, (f"https://{host}/",)), HostSettings(fetch=None, out_dir=str(out)))  # type: ignore[arg-type]
    run.add_batch(EntryBatch(f"https://{host}/sitemap.xml",
                             tuple(UrlEntry(f"https://{host}/p/{i}") for i in range(n))))
    run.read_ok = 1
    run.publish(run.summary("ok", time.monotonic()))


def _killed_partition(out: Path, host: str) -> Path:
    """A partition half written when the process died: the temporary file, rows flushed, never closed."""
    run = _Run(HostJob(host, (f"https://{host}/",)), HostSettings(fetch=None, out_dir=str(out)))  # type: ignore[arg-type]
    run.add_batch(EntryBatch(f"https://{host}/sitemap.xml", (UrlEntry(f"https://{host}/half"),)))
    run.flush()  # the writer stays open: no footer, as after SIGKILL
    assert run.tmp.name.startswith(".part-0.parquet.tmp-")
    return run.tmp


def test_leftovers_are_hidden_from_readers_and_removed_by_the_next_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    _complete_partition(out, "a.test", 3)
    _complete_partition(out, "b.test", 2)
    leftovers = [_killed_partition(out, "a.test"), _killed_partition(out, "b.test")]
    (out / ".hosts.parquet.tmp-0badf00d").write_bytes(b"PAR1 half")
    # A reader of the dataset never sees them: pyarrow.dataset skips names starting with "." (and "_").
    dataset = ds.dataset(out / "urls", format="parquet", partitioning="hive")
    assert all(Path(f).name == "part-0.parquet" for f in dataset.files)
    assert dataset.count_rows() == 5
    hosts = tmp_path / "hosts.txt"
    hosts.write_text("a.test\nb.test\n", encoding="utf-8")
    with pytest.raises(SystemExit) as exited:
        main(["harvest", str(hosts), "--out", str(out), "--no-processes", "-q"])
    captured = capsys.readouterr()
    assert exited.value.code == 0, captured.err
    assert "2 already complete" in captured.out
    assert not any(p.exists() for p in leftovers)
    assert sorted(p.name for p in partition_path(out / "urls", "a.test").parent.iterdir()) == ["part-0.parquet"]
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".hosts")) == []
    assert ds.dataset(out / "urls", format="parquet", partitioning="hive").count_rows() == 5
