"""Hostile-input memory benchmark: decompression bombs and a giant line through the real CLI.

    python benchmarks/bombs.py            # build the inputs once under benchmarks/_work/bombs/, then measure
    python benchmarks/bombs.py --rebuild  # build them again

Cases (issue 10, items 5 and 6):
1. gzip inside gzip: a 1 GiB urlset of one repeated <url>, gzipped twice (a few KB on disk);
2. a ~3 MB gzip holding ~1 GB of <url> entries (distinct locs, ratio ~300);
3. a gzip nested four times (a "too many gzip layers" error);
4. a text file of one 300 MB line.

Each input is run through ``sitemapkit urls`` (output to /dev/null) and ``sitemapkit validate`` in a subprocess;
the table gives the exit status, the problem codes seen on stderr/stdout and the peak RSS of that process
(``wait4`` rusage), and the wall time. The reader's budget (100 MiB of decompressed data by default) is what stops
the bombs; memory must not depend on the compression ratio.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "bombs"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'.encode()
TAIL = b"</urlset>\n"


def _gzip_stream(dest: Path, parts: Iterator[bytes], level: int = 6) -> int:
    """Write the gzip of ``parts`` to ``dest``; returns the uncompressed size."""
    comp = zlib.compressobj(level, zlib.DEFLATED, 31)
    size = 0
    with dest.open("wb") as out:
        for part in parts:
            size += len(part)
            out.write(comp.compress(part))
        out.write(comp.flush())
    return size


def _repeated_urls(total: int) -> Iterator[bytes]:
    yield HEAD
    block = b"<url><loc>https://example.com/a</loc></url>\n" * 20_000
    for _ in range(total // len(block)):
        yield block
    yield TAIL


def _distinct_urls(total: int, repeat: int = 128) -> Iterator[bytes]:
    """~``total`` bytes of <url> entries; each loc repeats ``repeat`` times in a row (ratio ~300 at level 6)."""
    yield HEAD
    size, i = 0, 0
    while size < total:
        block = "".join(f"<url><loc>https://example.com/p/{j // repeat}</loc></url>\n"
                        for j in range(i, i + 10_000)).encode()
        i += 10_000
        size += len(block)
        yield block
    yield TAIL


def build_nested(dest: Path) -> int:
    """gzip(gzip(1 GiB urlset)): the inner gzip is written to a temporary file, then compressed again."""
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        inner = Path(tmp) / "inner.gz"
        size = _gzip_stream(inner, _repeated_urls(1 << 30), level=9)

        def chunks() -> Iterator[bytes]:
            with inner.open("rb") as fh:
                while chunk := fh.read(1 << 20):
                    yield chunk

        _gzip_stream(dest, chunks(), level=9)
    return size


def build_urls(dest: Path) -> int:
    return _gzip_stream(dest, _distinct_urls(1_000_000_000))


def build_four_layers(dest: Path) -> int:
    data = HEAD + b"<url><loc>https://example.com/a</loc></url>\n" + TAIL
    size = len(data)
    for _ in range(4):
        data = gzip.compress(data)
    dest.write_bytes(data)
    return size


def build_long_line(dest: Path) -> int:
    size = 300 * 1000 * 1000
    with dest.open("wb") as out:
        out.write(b"https://example.com/")
        block = b"a" * (1 << 20)
        left = size - 20
        while left > 0:
            out.write(block[:left])
            left -= len(block)
        out.write(b"\n")
    return size + 1


CASES: list[tuple[str, str, Callable[[Path], int], tuple[str, ...]]] = [
    ("gzip-in-gzip bomb (1 GiB urlset)", "nested.xml.gz", build_nested, ("urls", "validate")),
    ("~3 MB gzip of ~1 GB <url> entries", "urls.xml.gz", build_urls, ("urls", "validate")),
    ("gzip nested 4 times", "four.xml.gz", build_four_layers, ("urls", "validate")),
    ("text file, one 300 MB line", "longline.txt", build_long_line, ("validate",)),
]


def measure(command: str, path: Path) -> tuple[int, float, float, str]:
    """Run ``sitemapkit COMMAND PATH``; returns exit status, peak RSS (MB), seconds, problem codes seen."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", command, str(path)], stdout=out, stderr=err)
        _, status, rusage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        # Only the last 64 KiB of each stream: `urls` prints millions of lines.
        text = _tail(out) + _tail(err)
    codes = sorted(set(re.findall(r"\bSM\d{3}\b", text)))
    if "Traceback" in text:
        codes.append("TRACEBACK")
    return proc.returncode, rusage.ru_maxrss / 1024, elapsed, " ".join(codes[:6])


def _tail(fh: IO[bytes]) -> str:
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(max(0, size - 65536))
    data: bytes = fh.read()
    return data.decode("utf-8", "replace")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rebuild", action="store_true", help="build the inputs again")
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    rows = []
    for label, name, build, commands in CASES:
        path = WORK / name
        size_file = WORK / (name + ".size")
        if args.rebuild or not path.exists() or not size_file.exists():
            print(f"building {name} ...", file=sys.stderr, flush=True)
            size_file.write_text(str(build(path)))
        plain = int(size_file.read_text())
        for command in commands:
            code, rss, secs, codes = measure(command, path)
            comp = "-" if name.endswith(".txt") else f"{path.stat().st_size:,} B"
            rows.append((label, command, comp, plain, f"exit {code} {codes}".strip(), rss, secs))
    header = ("case", "command", "compressed", "decompressed", "result", "peak RSS MB", "seconds")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, command, comp, plain, result, rss, secs in rows:
        print(f"| {label} | {command} | {comp} | {plain:,} B | {result} | {rss:.0f} | {secs:.1f} |")


if __name__ == "__main__":
    main()
