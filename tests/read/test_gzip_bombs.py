"""Decompression bombs (issue 10, item 6): memory stays bounded whatever the compression ratio or the nesting, and
gzip nested deeper than three layers is an error.

The memory tests measure the peak RSS of a subprocess (``ru_maxrss``): before the fix a gzip inside gzip reached
~600 MB here and a high-ratio gzip fed in one chunk ~200 MB (the inflated output of one input chunk, then all of
its events, were held at once).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tracemalloc
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit import SitemapParser, UrlEntry, parse_bytes
from sitemapkit.read import DocumentKind, GzipDecoder, sniff
from sitemapkit.read._sniff import GzipNestingError
from tests.support.cli import run_cli

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'.encode()
TAIL = b"</urlset>\n"
DOC = HEAD + b"<url><loc>https://example.com/a</loc></url>\n" + TAIL
#: Generous: the interpreter and sitemapkit take ~30 MB; the bombs took 200-600 MB before the fix.
RSS_BOUND_MB = 150
SLICE = 256 * 1024


def _urls(size: int, repeat: int) -> Iterator[bytes]:
    """~``size`` bytes of a urlset whose locs each repeat ``repeat`` times in a row."""
    yield HEAD
    done, i = 0, 0
    while done < size:
        block = "".join(f"<url><loc>https://example.com/p/{j // repeat}</loc></url>\n"
                        for j in range(i, i + 10_000)).encode()
        i += 10_000
        done += len(block)
        yield block
    yield TAIL


def _gzip(parts: Iterator[bytes] | list[bytes], level: int = 6) -> bytes:
    comp = zlib.compressobj(level, zlib.DEFLATED, 31)
    return b"".join([*(comp.compress(p) for p in parts), comp.flush()])


# ru_maxrss is carried across fork + exec (a child would report the test runner's own peak): the child reads the
# peak of its own address space (VmHWM) instead.
_PEAK = """
def peak_rss_mb():
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""

_CHILD = _PEAK + """
import json, sys
from sitemapkit import iter_events
codes, n = set(), 0
for ev in iter_events(sys.argv[1], max_decompressed_bytes=int(sys.argv[2]), chunk_size=int(sys.argv[3])):
    n += 1
    code = getattr(ev, "code", None)
    if code:
        codes.add(code)
print(json.dumps({"events": n, "codes": sorted(codes), "rss_mb": peak_rss_mb()}))
"""


def _read_in_subprocess(path: Path, budget: int, chunk_size: int) -> dict[str, object]:
    r = subprocess.run([sys.executable, "-c", _CHILD, str(path), str(budget), str(chunk_size)],
                       capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    result: dict[str, object] = json.loads(r.stdout)
    return result


@pytest.mark.slow
def test_gzip_in_gzip_bomb_memory_bounded(tmp_path: Path) -> None:
    path = tmp_path / "nested.xml.gz"
    path.write_bytes(_gzip([_gzip(_urls(150_000_000, 10**9), 9)], 9))  # 150 MB urlset in ~2 KB
    assert path.stat().st_size < 10_000
    result = _read_in_subprocess(path, 20_000_000, 64 * 1024)
    assert "SM112" in result["codes"]  # type: ignore[operator]
    assert result["events"] > 400_000  # type: ignore[operator]
    assert result["rss_mb"] < RSS_BOUND_MB, result  # type: ignore[operator]


@pytest.mark.slow
def test_high_ratio_gzip_fed_in_one_chunk_memory_bounded(tmp_path: Path) -> None:
    path = tmp_path / "urls.xml.gz"
    path.write_bytes(_gzip(_urls(60_000_000, 1)))
    result = _read_in_subprocess(path, 50_000_000, path.stat().st_size)  # the whole file in one feed
    assert "SM112" in result["codes"]  # type: ignore[operator]
    assert result["events"] > 900_000  # type: ignore[operator]
    assert result["rss_mb"] < RSS_BOUND_MB, result  # type: ignore[operator]


@pytest.mark.slow
def test_cli_urls_on_a_high_ratio_bomb_memory_bounded(tmp_path: Path) -> None:
    path = tmp_path / "urls.xml.gz"
    path.write_bytes(_gzip(_urls(40_000_000, 128)))  # ratio ~300: one 256 KiB read inflates to ~80 MB
    peak = tmp_path / "peak.txt"
    wrapper = _PEAK + (
        "import atexit, sys\n"
        "out = sys.argv[1]\n"
        "atexit.register(lambda: open(out, 'w').write(str(peak_rss_mb())))\n"
        "sys.argv = ['sitemapkit', *sys.argv[2:]]\n"
        "from sitemapkit.__main__ import main\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", wrapper, str(peak), "urls", "--max-bytes", "20000000", str(path)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300, check=False)
    tail = proc.stderr[-2000:].decode("utf-8", "replace")
    assert proc.returncode == 1, tail
    assert "SM112" in tail
    assert "Traceback" not in tail
    assert float(peak.read_text()) < RSS_BOUND_MB


def test_decoder_inflates_lazily_one_slice_at_a_time() -> None:
    nested = gzip.compress(_gzip([b"\0" * (64 << 20)], 9), 9)  # 64 MiB of zeros in two layers, ~1 KB
    dec = GzipDecoder(max_bytes=None)
    pieces = dec.iter_decompress(nested)
    first = next(pieces)
    assert 0 < len(first) <= SLICE
    assert dec.total_out <= 2 * SLICE  # nothing was inflated ahead of what was taken
    total = len(first) + sum(len(p) for p in pieces if len(p) <= SLICE)
    assert total == 64 << 20 == dec.total_out
    assert dec.layers == 2
    assert dec.finished


def test_sniff_inflates_only_the_head_of_a_nested_bomb() -> None:
    inner = HEAD + b" " * (100 << 20)
    nested = gzip.compress(_gzip([inner], 9), 9)  # 100 MiB in two layers, ~1 KB: one input step of the old loop
    tracemalloc.start()
    try:
        found = sniff(nested)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found.kind.kind is DocumentKind.URLSET
    assert found.gzip_layers == 2
    assert peak < 8_000_000  # was the whole budget (100 MiB) at once


def test_feed_steps_gives_bounded_batches_and_the_same_events_as_feed() -> None:
    data = _gzip(_urls(3_000_000, 128))
    assert len(data) < 30_000
    stepped = SitemapParser("s")
    batches = [*stepped.feed_steps(data), *stepped.close_steps()]
    assert max(len(b) for b in batches) < 20_000  # a 256 KiB slice holds ~6,000 entries and their duplicates
    whole = SitemapParser("s")
    assert [e for b in batches for e in b] == whole.feed(data) + whole.close()


def _layers(doc: bytes, n: int) -> bytes:
    for _ in range(n):
        doc = gzip.compress(doc)
    return doc


@pytest.mark.parametrize("layers", [1, 2, 3])
def test_up_to_three_gzip_layers_are_read(layers: int) -> None:
    res = parse_bytes(_layers(DOC, layers))
    assert [e.loc for e in res.entries] == ["https://example.com/a"]
    assert not res.problems


def test_a_fourth_gzip_layer_is_an_error() -> None:
    data = _layers(DOC, 4)
    res = parse_bytes(data, "four.xml.gz")
    assert [p.code for p in res.problems] == ["SM128"]
    assert res.errors
    assert not res.entries
    assert "gzip nested more than 3 layers" in (res.problems[0].message or "")
    # chunk by chunk, byte by byte: the same
    parser = SitemapParser("four.xml.gz")
    events = [ev for i in range(len(data)) for ev in parser.feed(data[i:i + 1])] + parser.close()
    assert [getattr(e, "code", None) for e in events] == ["SM128"]
    dec = GzipDecoder()
    with pytest.raises(GzipNestingError):
        dec.decompress(data)
    assert dec.too_deep
    assert isinstance(GzipNestingError("x"), zlib.error)  # every caller that stops on corrupt gzip stops on it


def test_cli_on_a_fourth_gzip_layer(tmp_path: Path) -> None:
    path = tmp_path / "four.xml.gz"
    path.write_bytes(_layers(DOC, 4))
    for command in ("urls", "validate"):
        r = run_cli([command, str(path)])
        out = r.stdout + r.stderr
        assert r.returncode == 1, out
        assert "Traceback" not in out
        assert "gzip nested more than 3 layers deep" in out
        assert "example.com/a" not in r.stdout
    r = run_cli(["urls", str(path)])
    assert f"{path}: error SM128: " in r.stderr


def test_entries_survive_a_bomb_of_entries() -> None:
    """The budget stops a bomb exactly: what came before it was read."""
    data = _gzip(_urls(3_000_000, 1))
    res = parse_bytes(data, max_decompressed_bytes=1_000_000)
    assert [p.code for p in res.problems] == ["SM112"]
    assert all(isinstance(e, UrlEntry) for e in res.entries)
    assert 20_000 < len(res.entries) < 1_000_000 // 40
