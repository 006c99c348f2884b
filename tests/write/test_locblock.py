"""The text list's block lane (``write/_locblock.py``): a block of canonical locs on one origin is read as strings
and written by ``SitemapSetWriter.add_locs``, with the same checks, files and problems as line by line."""

from __future__ import annotations

import gzip
import random
import re
from pathlib import Path

import pytest

from sitemapkit.core import InvalidValueError, UrlEntry, is_canonical_loc
from sitemapkit.generator import generate
from sitemapkit.write import _lists
from sitemapkit.write._inputs import EntryRun, iter_input_runs
from sitemapkit.write._locblock import canonical_block, origin_prefix
from sitemapkit.write._sitemapset import SitemapSetWriter
from tests.support.cli import run_cli

# Lines near the edge of canonical: each differs from a canonical loc on https://a.com/ by one thing.
NEAR = [
    "https://a.com/x", "https://a.com/x?a=1&b=2", "https://a.com/it's", "https://a.com/%41", "https://a.com/%4",
    "https://a.com/%zz", "https://a.com/x%", "https://a.com/%41%", "https://a.com/x y", "https://a.com/x\t",
    " https://a.com/x", "https://a.com/é", "https://a.com/<b>", 'https://a.com/"q"', "https://a.com/\x7f",
    "https://a.com/x#frag", "https://a.com/?q", "https://a.com", "https://a.com.evil/x", "https://a.co/x",
    "http://a.com/x", "HTTPS://a.com/x", "https://A.com/x", "https://a.com:80/x", "https://a.com:8/x",
    "https://user@a.com/x", "https://a.com/@x", "https://a.com/" + "x" * 2033, "https://a.com/" + "x" * 2034,
    "", "#https://a.com/x", "https://a.com/x\\y", "https://a.com/[x]", "https://a.com/x|y", "https://a.com/~x_y-z.",
    "https://a.com/!$&'()*+,;=:@", "https://a.com/\u00a0", "https://a.com/x\u2028", "https://a.com//x",
]


def _expected(lines: list[str]) -> bool:
    """What canonical_block must say: every line canonical, every line on the first line's origin + separator."""
    if not lines or not all(is_canonical_loc(line) for line in lines):
        return False
    prefix = origin_prefix(lines[0])
    return prefix is not None and all(line.startswith(prefix) for line in lines)


def test_near_canonical_lines_one_at_a_time() -> None:
    for line in NEAR:
        assert canonical_block([line]) == _expected([line]), repr(line)
        # the same line after a canonical one, and before one
        for block in (["https://a.com/ok", line], [line, "https://a.com/ok"]):
            assert canonical_block(block) == _expected(block), repr(block)
    assert canonical_block(["https://a.com/x", "https://a.com/y?z=1&w=%20"])
    assert not canonical_block(["https://a.com/x", "https://a.com/%4"])  # a stray "%" on the last line
    assert not canonical_block(["https://a.com/x%", "https://a.com/y"])  # "%" before the line break
    assert not canonical_block([])


@pytest.mark.parametrize("seed", range(4))
def test_random_blocks_agree_with_the_line_check(seed: int) -> None:
    r = random.Random(seed)
    taken = refused = 0
    for _ in range(3000):
        size = r.choice([1, 2, 5, 40])
        block = [f"https://a.com/p{r.randrange(99)}?x={r.randrange(9)}&y=z" for _ in range(size)]
        if r.random() < 0.6:
            block[r.randrange(size)] = r.choice(NEAR)
        got = canonical_block(block)
        assert got == _expected(block), repr(block)
        taken += got
        refused += not got
    assert taken > 500
    assert refused > 500


def test_a_clean_text_list_is_read_as_strings_and_a_mixed_one_is_not(tmp_path: Path) -> None:
    clean = tmp_path / "clean.txt"
    clean.write_text("".join(f"https://a.com/p{i}?a=1&b=2\n" for i in range(3000)))
    with clean.open("rb") as fh:
        runs = list(iter_input_runs(str(clean), fh))
    assert all(isinstance(r, EntryRun) and r.locs is not None for r in runs)
    assert [loc for r in runs for loc in r.locs or ()] == [f"https://a.com/p{i}?a=1&b=2" for i in range(3000)]
    assert runs[1].lines[0] == len(runs[0].locs or ()) + 1
    assert runs[0].entries[5] == UrlEntry("https://a.com/p5?a=1&b=2")  # built on first use
    mixed = tmp_path / "mixed.txt"
    mixed.write_text("# comment\n" + clean.read_text())
    with mixed.open("rb") as fh:
        first = next(iter_input_runs(str(mixed), fh))
    assert isinstance(first, EntryRun)
    assert first.locs is None
    assert first.entries[0] == UrlEntry("https://a.com/p0?a=1&b=2")
    assert first.lines[0] == 2


def _files(out: Path) -> dict[str, bytes]:
    files = {}
    for path in sorted(out.iterdir()):
        if path.name.startswith("."):
            continue
        data = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
        if b"<sitemapindex" in data[:512]:
            data = re.sub(rb"<lastmod>[^<]*</lastmod>", b"", data)
        files[path.name] = data
    return files


def _write(out: Path, locs: list[str], *, lane: bool, **kwargs: object) -> tuple[list[object], dict[str, bytes]]:
    log: list[object] = []
    with SitemapSetWriter(out, "https://a.com/", **kwargs) as writer:  # type: ignore[arg-type]
        i = 0
        while i < len(locs):
            part = locs[i:i + 300]
            if lane:
                done, exc = writer.add_locs(part)
            else:
                done, exc = writer.add_run([UrlEntry(loc) for loc in part])
            if exc is not None:
                log.append((i + done, str(exc)))
                done += 1
            i += done
    manifest = writer.manifest
    assert manifest is not None
    log += [manifest.urls, manifest.duplicates, [repr(p).replace(str(out), "OUT") for p in manifest.problems]]
    return log, _files(out)


@pytest.mark.parametrize("options", [
    {}, {"max_urls": 7}, {"max_bytes": 4000}, {"max_urls": 250, "max_bytes": 30000}, {"dedupe": True},
    {"formats": ("xml", "txt")}, {"gzip": True}, {"check_scope": False}, {"dedupe": True, "max_urls": 300},
    {"dedupe": True, "max_bytes": 4000},
])
def test_add_locs_is_add_run(options: dict[str, object], tmp_path: Path) -> None:
    r = random.Random(7)
    locs = []
    for i in range(2000):
        x = r.random()
        if x < 0.01:
            locs.append(f"https://a.com/{'y' * 2000}{i}")  # alone over max_bytes=4000 with the root
        elif x < 0.02:
            locs.append(f"https://a.com/it's-{i}")
        elif x < 0.03:
            locs.append(f"https://a.com/p{i % 5}")  # duplicates
        else:
            locs.append(f"https://a.com/p{i}?q={i}&r=1")
    # runs that are one clean block, and the same with a foreign host in the middle (SM607 outside the base)
    for variant, data in (("clean", locs), ("foreign", [*locs[:900], "https://b.org/x?a=1&b=2", *locs[900:]])):
        lane = _write(tmp_path / f"lane-{variant}", data, lane=True, **options)
        general = _write(tmp_path / f"general-{variant}", data, lane=False, **options)
        assert lane == general, variant
        assert lane[0][-3] > 1000
        if options.get("dedupe"):
            assert lane[0][-2] > 10


def test_add_locs_takes_what_the_constructor_takes(tmp_path: Path) -> None:
    # Not canonical: normalised by UrlEntry, and a loc it refuses stops the run at that index.
    locs = ["https://a.com/é", "https://A.com/x", "https://a.com/ok", "not a url", "https://a.com/after"]
    with SitemapSetWriter(tmp_path / "o", "https://a.com/") as writer:
        done, exc = writer.add_locs(locs)
        assert done == 3
        assert isinstance(exc, InvalidValueError)
        assert writer.add_locs(locs[4:]) == (1, None)
    body = (tmp_path / "o" / "sitemap.xml").read_text()
    assert "https://a.com/%C3%A9" in body
    assert "https://A.com/x" in body
    assert "https://a.com/after" in body


def _generated(tmp_path: Path, name: str, text: str, *args: str) -> tuple[int, str, dict[str, bytes]]:
    (tmp_path / name).mkdir()
    (tmp_path / name / "urls.txt").write_text(text, encoding="utf-8")
    result = run_cli(["generate", "urls.txt", "-o", "out", "--base-url", "https://a.com/", "--urls-per-file", "1000",
                      *args], cwd=tmp_path / name)
    return result.returncode, result.stderr, _files(tmp_path / name / "out")


def test_generate_writes_the_same_with_and_without_the_lane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Through the real CLI: clean blocks, then blocks with comments, blank lines, IRIs, "'", another host,
    # a stray "%", credentials and a line too long for any file; every line checked either way.
    lines = [f"https://a.com/shop/p{i}?ref=list&amp=1&page={i % 9}" for i in range(2500)]
    odd = ["# comment", "", "  https://a.com/spaced  ", "https://a.com/größe", "https://a.com/it's",
           "https://other.org/x", "https://a.com/%zz", "https://u:p@a.com/x", "https://a.com/" + "z" * 2100,
           "https://A.COM/upper", "http://a.com/plain-http"]
    for i, line in enumerate(odd):
        lines.insert(2600 // len(odd) * i + 1700, line)
    text = "\n".join(lines) + "\n"
    fast = _generated(tmp_path, "fast", text)
    monkeypatch.setattr(_lists, "FAST", False)
    general = _generated(tmp_path, "general", text)
    assert fast[0] == general[0] == 1  # lines were skipped
    assert fast[1] == general[1]
    assert fast[2] == general[2]
    children = [data for name, data in fast[2].items() if name != "sitemap.xml"]
    assert len(children) == 3
    assert all(data.count(b"<url>") <= 1000 for data in children)
    assert "SM608" in fast[1]
    assert b"&amp;amp=1&amp;page=" in children[0]


def test_generate_api_on_a_clean_list_matches_the_general_reader(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("".join(f"https://a.com/p{i}?a=1&b=2\n" for i in range(5000)))
    fast = generate([src], tmp_path / "fast", base_url="https://a.com/", max_urls=2000)
    monkeypatch.setattr(_lists, "FAST", False)
    general = generate([src], tmp_path / "general", base_url="https://a.com/", max_urls=2000)
    assert fast.manifest.urls == general.manifest.urls == 5000
    assert _files(tmp_path / "fast") == _files(tmp_path / "general")
