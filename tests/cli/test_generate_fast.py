"""`sitemapkit generate` on URL lists gives the same result by its fast way (entries in runs through the fast
constructors, added a run at a time) as by the general one (every line through the general constructors, every
entry added on its own by the item loop): exit status, standard output, standard error, and every file written.

The runs are compared with the item loop as it handles sitemaps and site folders (the job's
``iter_generate_runs`` turned back into one item per entry), so the skips (SM608 another host, SM610 a bad line
or an entry that cannot be written) are reported at the same lines in the same order, whatever the run boundaries.
"""

from __future__ import annotations

import gzip
import io
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitemapkit.cli import main
from sitemapkit.generator import _job
from sitemapkit.write import _lists
from sitemapkit.write._inputs import items_of_runs

BASE = "https://www.kitsite.org/"


def _general_items(*args: Any, **kwargs: Any) -> Iterator[Any]:
    yield from items_of_runs(_FAST_ITEMS(*args, **kwargs))


_FAST_ITEMS = _job.iter_generate_runs


def _generate_files(out: Path) -> dict[str, bytes]:
    files = {}
    for path in sorted(out.iterdir()):
        if path.name.startswith("."):  # the manifest and the lock's temp dirs: times and tokens
            continue
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        if b"<sitemapindex" in data[:512]:  # an index (sitemap.xml, sitemap-txt.xml): lastmods are publish times
            data = re.sub(rb"<lastmod>[^<]*</lastmod>", b"", data)
        files[path.name] = data
    return files


def _run(monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], args: list[str], stdin: bytes,
         *, fast: bool, run_size: int) -> tuple[object, str, str, dict[str, bytes]]:
    out = Path(args[args.index("--out") + 1])
    with monkeypatch.context() as m:
        m.setattr(_lists, "FAST", fast)
        m.setattr(_lists, "RUN_SIZE", run_size)
        if not fast:
            m.setattr(_job, "iter_generate_runs", _general_items)
        m.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
        capfd.readouterr()
        with pytest.raises(SystemExit) as exited:
            main(["generate", *args])
    captured = capfd.readouterr()
    norm = str(out)
    return (exited.value.code, captured.out.replace(norm, "OUT"), captured.err.replace(norm, "OUT"),
            _generate_files(out) if out.exists() else {})


def _lines(seed: int) -> tuple[str, str, str]:
    """A text list, a CSV and a JSONL file of the same odd URLs: on and off the base host, bad, too big for the
    small files of the run, repeated, with "&" and quotes."""
    r = random.Random(seed)
    locs = []
    for i in range(r.randint(1, 120)):
        x = r.random()
        if x < 0.08:
            locs.append(f"https://other.example/p{i}")  # SM608
        elif x < 0.12:
            locs.append("not a url")  # SM610, a bad line
        elif x < 0.15:
            locs.append(f"{BASE}{'z' * 1900}{i}")  # SM610, cannot be written in a 2,000-byte file
        elif x < 0.2:
            locs.append(f"{BASE}dup?a=1&b=2")  # --dedupe
        elif x < 0.25:
            locs.append(f"https://WWW.KITSITE.ORG:443/p{i}")  # the base's host spelled otherwise
        elif x < 0.3:
            locs.append(f"{BASE}caf\u00e9/{i}?q='x'&r")
        else:
            locs.append(f"{BASE}section-{i % 5}/item-{i}?ref=list&page={i % 3}")
    text = "".join(loc + "\n" for loc in locs)
    csv_text = "loc,lastmod,priority\n" + "".join(
        f'"{loc}",{r.choice(["2024-05-01", "", "2024-02-30", "bad"])},{r.choice(["0.5", "", "2"])}\n' for loc in locs)
    jsonl = "".join(f'{{"loc": "{loc}", "lastmod": "{r.choice(["2024-05-01", "2024-05"])}"}}\n' for loc in locs)
    return text, csv_text, jsonl


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("extra", [[], ["--dedupe"], ["--format", "xml", "--format", "txt", "--gzip"],
                                   ["--exclude-path", "/section-1/*"], ["--allow-cross-host"]])
def test_generate_on_lists_is_the_same_fast_and_general(seed: int, extra: list[str], tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capfd: pytest.CaptureFixture[str]) -> None:
    text, csv_text, jsonl = _lines(seed)
    (tmp_path / "urls.txt").write_text(text)
    (tmp_path / "pages.csv").write_text(csv_text)
    (tmp_path / "pages.jsonl").write_text(jsonl)
    inputs = [str(tmp_path / "urls.txt"), str(tmp_path / "pages.csv"), "-", str(tmp_path / "pages.jsonl")]
    results = []
    for name, fast, run_size in (("general", False, 1), ("fast", True, 1024), ("small-runs", True, 3)):
        args = [*inputs, "--out", str(tmp_path / name), "--base-url", BASE, "--bytes-per-file", "2000", *extra]
        results.append(_run(monkeypatch, capfd, args, text.encode(), fast=fast, run_size=run_size))
    assert results[1] == results[0]
    assert results[2] == results[0]
    status, _, err, files = results[0]
    if files:  # a run whose every line was skipped publishes nothing (and says so)
        assert any(name.startswith("sitemap") for name in files)
    assert status in (0, 1)
    if "--allow-cross-host" not in extra:
        assert ("SM608" in err) == ("other.example" in text)


def test_a_large_list_in_many_runs_is_the_same_fast_and_general(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 capfd: pytest.CaptureFixture[str]) -> None:
    # Several files (rolled at 50 URLs), runs cut at every size, a bad line now and then.
    lines = [f"{BASE}p/{i}?a={i}&b=1" if i % 97 else f"bad line {i}" for i in range(3000)]
    (tmp_path / "urls.txt").write_text("\n".join(lines))
    results = []
    for name, fast, run_size in (("general", False, 1), ("fast", True, 1024), ("odd-runs", True, 37)):
        args = [str(tmp_path / "urls.txt"), "--out", str(tmp_path / name), "--base-url", BASE, "--urls-per-file", "50"]
        results.append(_run(monkeypatch, capfd, args, b"", fast=fast, run_size=run_size))
    assert results[1] == results[0]
    assert results[2] == results[0]
    assert results[0][0] == 1
    assert len(results[0][3]) == 61  # 60 sitemaps and the index



def test_skips_between_runs_keep_their_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capfd: pytest.CaptureFixture[str]) -> None:
    # Few enough skips that each is printed: entries the writer refuses, other hosts and bad lines, each named by
    # its line, in line order, whatever run the entry was in.
    lines = []
    for i in range(400):
        lines.append(f"{BASE}{'z' * 1900}{i}" if i % 41 == 7 else f"https://other.example/{i}" if i % 53 == 9
                     else "bad" if i % 67 == 11 else f"{BASE}p/{i}?a=1&b=2")
    (tmp_path / "urls.txt").write_text("\n".join(lines))
    results = []
    for name, fast, run_size in (("general", False, 1), ("fast", True, 1024), ("odd-runs", True, 5)):
        args = [str(tmp_path / "urls.txt"), "--out", str(tmp_path / name), "--base-url", BASE,
                "--bytes-per-file", "2000"]
        results.append(_run(monkeypatch, capfd, args, b"", fast=fast, run_size=run_size))
    assert results[1] == results[0]
    assert results[2] == results[0]
    err = results[0][2]
    assert f"{tmp_path / 'urls.txt'}:8: error SM610: cannot be written: entry is" in err
    assert f"{tmp_path / 'urls.txt'}:10: error SM608: https://other.example/9 is not on" in err
    assert f"{tmp_path / 'urls.txt'}:12: error SM610: loc must be an absolute" in err
    assert "more SM" not in err  # all printed
