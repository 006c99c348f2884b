"""Hostile-input memory benchmark: inputs under the byte budget that are shaped to make the reader or the
validator keep too much (issue 22).

    python benchmarks/bench_hostile.py                      # every case, full size
    python benchmarks/bench_hostile.py --scale 0.1          # a tenth of the size (quick look)
    python benchmarks/bench_hostile.py --only links,text    # some cases
    python benchmarks/bench_hostile.py --timeout 120        # stop a run after 120 s (reported as a timeout)

Cases (inputs built once under benchmarks/_work/hostile/, named by their size):

* ``links``: one ``<url>`` with 1.2M ``xhtml:link`` alternates (~90 MB plain, ~3 MB gzip);
* ``images``: one ``<url>`` with 1M ``image:image`` children;
* ``text``: a text sitemap of 5.9M short distinct URLs (~100 MiB plain, gzip);
* ``hreflang``: 200,000 ``<url>`` entries with 6 alternates each (one cluster of 6 pages per 6 entries);
* ``oneway``: 200,000 ``<url>`` entries listing themselves and 5 alternates that are not pages of the file.

Each input goes through ``sitemapkit urls`` (output to /dev/null), ``urls --unique`` (text case) and
``sitemapkit validate`` in a subprocess with the environment of this process (set ``PYTHONPATH`` to choose the
checkout); the table gives the exit status, the problem codes seen, the peak RSS of the process (``wait4``
rusage) and the wall time.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "hostile"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XHTML = "http://www.w3.org/1999/xhtml"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
HEAD = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:xhtml="{XHTML}" '
        f'xmlns:image="{IMAGE}">\n').encode()
TAIL = b"</urlset>\n"


def _gzip_stream(dest: Path, parts: Iterator[bytes], level: int = 6) -> int:
    comp = zlib.compressobj(level, zlib.DEFLATED, 31)
    size = 0
    with dest.open("wb") as out:
        for part in parts:
            size += len(part)
            out.write(comp.compress(part))
        out.write(comp.flush())
    return size


def _one_url(children: int, child: Callable[[int], str]) -> Iterator[bytes]:
    yield HEAD
    yield b"<url><loc>https://example.com/</loc>\n"
    for i in range(0, children, 10_000):
        yield "".join(child(j) for j in range(i, min(children, i + 10_000))).encode()
    yield b"</url>\n"
    yield TAIL


def build_links(dest: Path, n: int) -> int:
    return _gzip_stream(dest, _one_url(n, lambda j: f'<xhtml:link rel="alternate" hreflang="x{j % 1000}" '
                                                    f'href="https://example.com/{j}"/>\n'))


def build_images(dest: Path, n: int) -> int:
    return _gzip_stream(dest, _one_url(n, lambda j: f"<image:image><image:loc>https://example.com/i/{j}.jpg"
                                                    "</image:loc></image:image>\n"))


def build_text(dest: Path, n: int) -> int:
    def parts() -> Iterator[bytes]:
        for i in range(0, n, 100_000):
            yield "".join(f"http://a.b/{j:x}\n" for j in range(i, min(n, i + 100_000))).encode()
    return _gzip_stream(dest, parts())


def build_hreflang(dest: Path, n: int) -> int:
    langs = ("en", "de", "fr", "es", "it", "nl")

    def parts() -> Iterator[bytes]:
        yield HEAD
        for start in range(0, n, 6000):
            out = []
            for j in range(start, min(n, start + 6000)):
                base = j - j % 6
                links = "".join(f'<xhtml:link rel="alternate" hreflang="{lang}" href="https://e.co/{lang}/{base}"/>'
                                for lang in langs)
                out.append(f"<url><loc>https://e.co/{langs[j % 6]}/{base}</loc>{links}</url>\n")
            yield "".join(out).encode()
        yield TAIL
    return _gzip_stream(dest, parts())


def build_oneway(dest: Path, n: int) -> int:
    """Each page lists itself and 5 other-language versions that are not pages of the file (no link returns)."""
    langs = ("de", "fr", "es", "it", "nl")

    def parts() -> Iterator[bytes]:
        yield HEAD
        for start in range(0, n, 6000):
            out = []
            for j in range(start, min(n, start + 6000)):
                links = "".join(f'<xhtml:link rel="alternate" hreflang="{lang}" href="https://e.co/{lang}/{j}"/>'
                                for lang in langs)
                out.append(f'<url><loc>https://e.co/en/{j}</loc><xhtml:link rel="alternate" hreflang="en" '
                           f'href="https://e.co/en/{j}"/>{links}</url>\n')
            yield "".join(out).encode()
        yield TAIL
    return _gzip_stream(dest, parts())


#: name, label, builder, full-size count, file suffix, commands
CASES: list[tuple[str, str, Callable[[Path, int], int], int, str, tuple[tuple[str, ...], ...]]] = [
    ("links", "one <url>, {n:,} xhtml:link", build_links, 1_200_000, ".xml.gz", (("urls",), ("validate",))),
    ("images", "one <url>, {n:,} image:image", build_images, 1_000_000, ".xml.gz", (("urls",), ("validate",))),
    ("text", "text sitemap, {n:,} short URLs", build_text, 5_900_000, ".txt.gz",
     (("urls",), ("urls", "--unique"), ("validate",))),
    ("hreflang", "{n:,} <url> x 6 alternates", build_hreflang, 200_000, ".xml.gz", (("urls",), ("validate",))),
    ("oneway", "{n:,} <url> x 6 alternates, 5 one-way", build_oneway, 200_000, ".xml.gz",
     (("urls",), ("validate",))),
]


def measure(command: tuple[str, ...], path: Path, timeout: float) -> tuple[str, float, float, str]:
    """Run ``sitemapkit COMMAND PATH``; returns the exit status, peak RSS (MB), seconds, problem codes seen."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "sitemapkit", *command, str(path)], stdout=out, stderr=err,
                                start_new_session=True)
        timed_out = False
        while True:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > timeout:
                os.killpg(proc.pid, signal.SIGKILL)
                timed_out = True
                _, status, rusage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        elapsed = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        text = _tail(out) + _tail(err)
    codes = sorted(set(re.findall(r"\bSM\d{3}\b", text)))
    if "Traceback" in text:
        codes.append("TRACEBACK")
    result = "timeout" if timed_out else f"exit {os.waitstatus_to_exitcode(status)}"
    return result, rusage.ru_maxrss / 1024, elapsed, " ".join(codes[:8])


def _tail(fh: IO[bytes]) -> str:
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(max(0, size - 65536))
    data: bytes = fh.read()
    return data.decode("utf-8", "replace")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0, help="size factor of every case (default 1)")
    ap.add_argument("--only", default="", help="comma-separated case names")
    ap.add_argument("--commands", default="", help="comma-separated commands to run (urls, unique, validate)")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per run before it is killed")
    args = ap.parse_args()
    only = set(filter(None, args.only.split(",")))
    wanted = set(filter(None, args.commands.split(",")))
    WORK.mkdir(parents=True, exist_ok=True)
    print("| case | command | gzip | plain | result | peak RSS MB | seconds |")
    print("|---|---|---|---|---|---|---|")
    for name, label, build, full, suffix, commands in CASES:
        if only and name not in only:
            continue
        n = max(1, int(full * args.scale))
        path = WORK / f"{name}-{n}{suffix}"
        size_file = path.with_name(path.name + ".size")
        if not path.exists() or not size_file.exists():
            print(f"building {path.name} ...", file=sys.stderr, flush=True)
            size_file.write_text(str(build(path, n)))
        plain = int(size_file.read_text())
        for command in commands:
            key = "unique" if "--unique" in command else command[0]
            if wanted and key not in wanted:
                continue
            result, rss, secs, codes = measure(command, path, args.timeout)
            print(f"| {label.format(n=n)} | {' '.join(command)} | {path.stat().st_size:,} B | {plain:,} B | "
                  f"{result} {codes} | {rss:.0f} | {secs:.1f} |", flush=True)


if __name__ == "__main__":
    main()
