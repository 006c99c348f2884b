"""Diff benchmark: ``sitemapkit diff`` on two generated sitemap sets of 1,000,000 URLs each.

    python benchmarks/bench_diff.py                  # 1,000,000 URLs a side (default)
    python benchmarks/bench_diff.py --urls 100000    # smaller

What it does:
1. generates two folders under benchmarks/_work/diff-N/ (once): OLD holds N URLs in sitemaps of 50,000 URLs
   (lastmod, changefreq, priority on every URL); NEW is OLD with 1 % of the URLs changed in 3 fields (lastmod,
   changefreq, priority), 0.5 % removed and as many new ones added;
2. runs the real CLI (``python -m sitemapkit diff OLD NEW --format json``, output to a file) in a child process
   for each output format, and prints a table: wall time, URLs per second (both sides), the child's own peak
   RSS (VmHWM read from /proc/self/status in the child at exit: ``ru_maxrss`` of a child is inherited across
   fork+exec and would report the parent's peak), and the counts found (checked against what was generated).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
PER_FILE = 50_000
HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')

# The child runs the CLI, then reports its own peak RSS on a pipe (stdout holds the diff).
CHILD = """
import os, sys
from sitemapkit.cli import main
try:
    main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code if isinstance(exc.code, int) else 1
else:
    code = 0
with open("/proc/self/status") as fh:
    hwm = next(line.split()[1] for line in fh if line.startswith("VmHWM:"))
os.write(int(os.environ["BENCH_HWM_FD"]), hwm.encode())
os._exit(code)
"""


def _url(i: int, version: int) -> str:
    freq = ("daily", "weekly")[version]
    return (f"<url><loc>https://example.com/section-{i % 97}/page-{i:08d}.html</loc>"
            f"<lastmod>2024-0{1 + version}-15</lastmod><changefreq>{freq if i % 100 == 0 else 'monthly'}"
            f"</changefreq><priority>{'0.9' if version and i % 100 == 0 else '0.5'}</priority></url>\n")


def _write_set(folder: Path, indices: list[tuple[int, int]]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for n, start in enumerate(range(0, len(indices), PER_FILE)):
        chunk = indices[start:start + PER_FILE]
        with (folder / f"sitemap-{n:04d}.xml").open("w", encoding="utf-8") as fh:
            fh.write(HEAD)
            fh.writelines(_url(i, v) for i, v in chunk)
            fh.write("</urlset>\n")


def generate(n: int) -> tuple[Path, Path, dict[str, int]]:
    """OLD and NEW folders for ``n`` URLs a side, and the counts a correct diff reports."""
    base = WORK / f"diff-{n}"
    old, new = base / "old", base / "new"
    removed = {i for i in range(n) if i % 200 == 7}
    changed = {i for i in range(n) if i % 100 == 0}  # version 1 of these differs in lastmod, changefreq, priority
    expected = {"added": len(removed), "removed": len(removed), "changed": len(changed),
                "unchanged": n - len(removed) - len(changed)}
    if not (base / "done").exists():
        _write_set(old, [(i, 0) for i in range(n)])
        kept = [(i, 1 if i in changed else 0) for i in range(n) if i not in removed]
        _write_set(new, kept + [(n + i, 0) for i in range(len(removed))])
        (base / "done").write_text("ok\n")
    return old, new, expected


def run(old: Path, new: Path, fmt: str, out: Path) -> tuple[float, int, int, str]:
    read, write = os.pipe()
    os.set_inheritable(write, True)
    started = time.monotonic()
    with out.open("w") as fh:
        proc = subprocess.Popen(
            [sys.executable, "-c", CHILD, "diff", str(old), str(new), "--format", fmt, "-q"],
            stdout=fh, stderr=subprocess.PIPE, pass_fds=(write,), text=True,
            env={**os.environ, "BENCH_HWM_FD": str(write)})
        os.close(write)
        _, err = proc.communicate()
    elapsed = time.monotonic() - started
    with os.fdopen(read) as r:
        hwm_kib = int(r.read() or 0)
    return elapsed, hwm_kib, proc.returncode, err


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--urls", type=int, default=1_000_000, help="URLs a side")
    parser.add_argument("--formats", default="json,text,atom", help="output formats to time, comma-separated")
    args = parser.parse_args()
    t0 = time.monotonic()
    old, new, expected = generate(args.urls)
    print(f"sets ready in {time.monotonic() - t0:.1f} s: {old} and {new} "
          f"({sum(p.stat().st_size for p in old.iterdir()) / 1e6:.0f} MB a side)")
    print(f"expected: {expected}\n")
    print(f"{'format':8} {'URLs/side':>10} {'wall s':>8} {'URLs/s':>10} {'peak RSS':>10} {'exit':>5}  counts")
    for fmt in args.formats.split(","):
        out = old.parent / f"out.{fmt}"
        elapsed, hwm_kib, code, err = run(old, new, fmt, out)
        if fmt == "json":
            data = json.loads(out.read_text())
            counts = {k: data[k] for k in ("added", "removed", "changed", "unchanged")}
            fields = {tuple(c["fields"]) for c in data["changes"] if c["change"] == "changed"}
            verdict = "ok" if counts == expected and fields == {("lastmod", "changefreq", "priority")} else \
                f"WRONG {counts} {fields}"
        else:
            verdict = "-"
        if code not in (0, 1):
            verdict = f"exit {code}: {err.strip()[-300:]}"
        rate = 2 * args.urls / elapsed
        print(f"{fmt:8} {args.urls:>10,} {elapsed:>8.1f} {rate:>10,.0f} {hwm_kib / 1024:>7.1f} MiB {code:>5}  "
              f"{verdict}")


if __name__ == "__main__":
    main()
