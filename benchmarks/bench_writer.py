"""Writer benchmark: sitemapkit's write_sitemaps against the npm `sitemap` package (SitemapAndIndexStream).

    python benchmarks/bench_writer.py            # full run (a few minutes)
    python benchmarks/bench_writer.py --quick    # smaller counts, no 5M case

Every case runs in a fresh subprocess, which reports its wall time, CPU time and peak RSS (ru_maxrss). Jobs:

- simple:   N URLs with loc, lastmod, changefreq, priority -> split files (50,000 each) + index, plain or gzip
- hreflang: N URLs with 3 xhtml:link alternates and 1 image each
- bare:     a bare Python string-formatting loop with escaping writing one file (the machine's yardstick)

"end-to-end" includes building the UrlEntry objects (the model validates and normalises every loc); "writer"
subtracts that construction cost, measured in the same process on the same entries. The npm package is installed
into benchmarks/_work/ on first use (npm install sitemap@latest: the newest release); Node gets plain JS objects,
which it validates too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"

NODE_JOB = r"""
const { SitemapAndIndexStream, SitemapStream } = require('sitemap');
const { createWriteStream } = require('fs');
const { createGzip } = require('zlib');
const { Readable } = require('stream');
const path = require('path');
const [dir, n, kind, gz] = [process.argv[2], +process.argv[3], process.argv[4], process.argv[5] === 'gz'];
const freqs = ['daily', 'weekly', 'monthly'];
const prios = [0.5, 0.8, 1.0];
const dates = [];
for (let d = 0; d < 365; d++) {
  dates.push(new Date(Date.UTC(2024, 0, 1 + d, 10, 0, 0)).toISOString());
}
function* entries() {
  for (let i = 0; i < n; i++) {
    const url = `https://example.com/products/item-${i}`;
    if (kind === 'simple') {
      yield { url, lastmod: dates[i % 365], changefreq: freqs[i % 3], priority: prios[i % 3] };
    } else {
      yield { url, lastmod: dates[i % 365],
              links: [{ lang: 'en', url }, { lang: 'de', url: `https://example.com/de/products/item-${i}` },
                      { lang: 'fr', url: `https://example.com/fr/products/item-${i}` }],
              img: [{ url: `https://cdn.example.com/img/${i}.jpg` }] };
    }
  }
}
const done = [];
const t0 = process.hrtime.bigint();
const sms = new SitemapAndIndexStream({
  limit: 50000,
  lastmodDateOnly: false,
  getSitemapStream: (i) => {
    const sitemapStream = new SitemapStream({ hostname: 'https://example.com' });
    const name = `sitemap-${i}.xml` + (gz ? '.gz' : '');
    const out = createWriteStream(path.join(dir, name));
    const ws = gz ? sitemapStream.pipe(createGzip()).pipe(out) : sitemapStream.pipe(out);
    done.push(new Promise((res) => out.on('finish', res)));
    return [new URL(name, 'https://example.com/').toString(), sitemapStream, ws];
  },
});
const indexOut = createWriteStream(path.join(dir, 'sitemap.xml' + (gz ? '.gz' : '')));
(gz ? Readable.from(entries()).pipe(sms).pipe(createGzip()) : Readable.from(entries()).pipe(sms)).pipe(indexOut);
indexOut.on('finish', async () => {
  await Promise.all(done);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  const u = process.resourceUsage();
  console.log(JSON.stringify({ wall, cpu: (u.userCPUTime + u.systemCPUTime) / 1e6, rss_mb: u.maxRSS / 1024 }));
});
"""


# --- the Python side (runs inside a fresh subprocess) -------------------------------------------------------

def _entries(kind: str, n: int) -> Iterator[object]:
    from sitemapkit import Alternate, Changefreq, Image, LastMod, UrlEntry

    dates = [LastMod(f"2024-{1 + d // 28 % 12:02d}-{1 + d % 28:02d}T10:00:00Z") for d in range(365)]
    freqs = [Changefreq.DAILY, Changefreq.WEEKLY, Changefreq.MONTHLY]
    prios = [0.5, 0.8, 1.0]
    if kind == "simple":
        for i in range(n):
            yield UrlEntry(f"https://example.com/products/item-{i}", dates[i % 365], freqs[i % 3], prios[i % 3])
    else:
        for i in range(n):
            loc = f"https://example.com/products/item-{i}"
            yield UrlEntry(loc, dates[i % 365], alternates=(
                Alternate("en", loc), Alternate("de", f"https://example.com/de/products/item-{i}"),
                Alternate("fr", f"https://example.com/fr/products/item-{i}")),
                images=(Image(f"https://cdn.example.com/img/{i}.jpg"),))


def _bare(n: int, out: Path) -> None:
    """A bare loop: format + escape + write, no model, no limits (what "as fast as Python goes" looks like)."""
    esc = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "'": "&apos;", '"': "&quot;"})
    with open(out / "bare.xml", "w", encoding="utf-8") as fh:
        fh.write('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/'
                 '0.9">\n')
        for i in range(n):
            loc = f"https://example.com/products/item-{i}"
            if "&" in loc or "<" in loc or "'" in loc:
                loc = loc.translate(esc)
            fh.write(f"<url><loc>{loc}</loc><lastmod>2024-05-01T10:00:00Z</lastmod>"
                     f"<changefreq>daily</changefreq><priority>0.5</priority></url>\n")
        fh.write("</urlset>\n")


def child(kind: str, n: int, gzip: bool, level: int) -> None:
    """One case. Entries are built and written in chunks of 2,000 (memory stays flat), timing the two phases
    separately with CPU time, so the writer's own cost is measured under the same conditions as the whole."""
    from itertools import islice

    from sitemapkit import SitemapSetWriter

    out = Path(tempfile.mkdtemp(prefix="bench-writer-", dir=WORK))
    try:
        build = write = 0.0
        w0, c0 = time.perf_counter(), time.process_time()
        if kind == "bare":
            _bare(n, out)
            files = 1
        else:
            source = _entries(kind, n)
            with SitemapSetWriter(out, "https://example.com/", gzip=gzip, gzip_level=level) as writer:
                while True:
                    t0 = time.process_time()
                    chunk = list(islice(source, 2_000))
                    t1 = time.process_time()
                    if not chunk:
                        break
                    writer.add_all(chunk)  # type: ignore[arg-type]
                    build += t1 - t0
                    write += time.process_time() - t1
                t = time.process_time()
            write += time.process_time() - t  # publishing: finishing the last file, the index, renames
            assert writer.manifest is not None
            files = len(writer.manifest.files)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        stored = sum(p.stat().st_size for p in out.iterdir())
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps({"wall": wall, "cpu": cpu, "build_cpu": build, "write_cpu": write or cpu, "rss_mb": rss,
                          "files": files, "stored": stored}))
    finally:
        shutil.rmtree(out, ignore_errors=True)


# --- the driver -------------------------------------------------------------------------------------------

def run_python(kind: str, n: int, gzip: bool = False, level: int = 1) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--child", kind, str(n), "gz" if gzip else "plain", str(level)]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    return json.loads(res.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def ensure_npm() -> bool:
    if (WORK / "node_modules" / "sitemap").is_dir():
        return True
    if shutil.which("npm") is None:
        return False
    WORK.mkdir(exist_ok=True)
    if not (WORK / "package.json").exists():
        (WORK / "package.json").write_text('{"name": "bench-work", "private": true}\n')
    r = subprocess.run(["npm", "install", "--no-audit", "--no-fund", "sitemap@latest"], cwd=WORK, capture_output=True)
    return r.returncode == 0


def run_node(kind: str, n: int, gzip: bool) -> dict[str, float] | None:
    script = WORK / "npm_sitemap_job.js"
    script.write_text(NODE_JOB)
    out = Path(tempfile.mkdtemp(prefix="bench-npm-", dir=WORK))
    try:
        res = subprocess.run(["node", str(script), str(out), str(n), kind, "gz" if gzip else "plain"],
                             cwd=WORK, capture_output=True, text=True, check=True, timeout=600)
        data: dict[str, float] = json.loads(res.stdout.strip().splitlines()[-1])
        data["stored"] = sum(p.stat().st_size for p in out.iterdir())
        return data
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, FileNotFoundError, ValueError) as exc:
        print(f"  (npm sitemap run failed: {exc})", file=sys.stderr)
        return None
    finally:
        shutil.rmtree(out, ignore_errors=True)


def gzip_levels() -> None:
    """zlib CPU cost and output size per level on one full 50,000-URL sitemap file (what --gzip compresses)."""
    import io
    import zlib

    from sitemapkit.write import UrlsetWriter

    sink = io.BytesIO()
    with UrlsetWriter(sink) as w:
        for entry in _entries("simple", 50_000):
            w.write(entry)  # type: ignore[arg-type]
    data = sink.getvalue()
    print(f"\ngzip levels on one 50,000-URL file ({len(data) / 1e6:.1f} MB uncompressed):")
    print(f"{'level':>5} {'CPU s':>7} {'MB/s':>7} {'us/URL':>7} {'out KB':>8} {'ratio':>6}")
    for level in (1, 3, 6, 9):
        t = time.process_time()
        for _ in range(3):
            z = zlib.compressobj(level, zlib.DEFLATED, 31)
            out = z.compress(data) + z.flush()
        cpu = (time.process_time() - t) / 3
        print(f"{level:>5} {cpu:>7.3f} {len(data) / cpu / 1e6:>7.0f} {cpu / 50_000 * 1e6:>7.2f} "
              f"{len(out) / 1e3:>8.0f} {len(data) / len(out):>5.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller counts, skip the 5M memory case")
    parser.add_argument("--gzip-levels", action="store_true", help="only the zlib level table")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, n, gz, level = args.child
        child(kind, int(n), gz == "gz", int(level))
        return
    if args.gzip_levels:
        gzip_levels()
        return
    big = 200_000 if args.quick else 1_000_000
    heavy = 50_000 if args.quick else 200_000
    have_npm = ensure_npm()
    rows: list[tuple[str, int, dict[str, float] | None, dict[str, float] | None]] = []

    def case(label: str, kind: str, n: int, gzip: bool = False, level: int = 1, npm: bool = True) -> None:
        print(f"running {label} ...", file=sys.stderr, flush=True)
        ours = run_python(kind, n, gzip, level)
        theirs = None
        if npm and have_npm:
            # npm's gzip path runs at a few thousand URLs/s: a fifth of the URLs gives the same rate in minutes.
            npm_n = n // 5 if gzip else n
            theirs = run_node(kind, npm_n, gzip)
            if theirs is not None:
                theirs = {**theirs, "wall": theirs["wall"] * n / npm_n, "cpu": theirs["cpu"] * n / npm_n}
        rows.append((label, n, ours, theirs))

    case("bare Python loop (yardstick)", "bare", big, npm=False)
    case("simple, plain", "simple", big)
    case("simple, gzip (level 1)", "simple", big, gzip=True)
    case("simple, gzip (level 6)", "simple", big, gzip=True, level=6, npm=False)
    case("3 hreflang + 1 image, plain", "hreflang", heavy)
    case("3 hreflang + 1 image, gzip", "hreflang", heavy, gzip=True)
    if not args.quick:
        case("simple, plain, 5M (memory)", "simple", 5_000_000, npm=False)

    print()
    print(f"{'job':30} {'URLs':>9} | {'wall/s':>8} {'CPU/s':>8} {'writer/s':>9} {'RSS MB':>6} {'out MB':>6} "
          f"| {'npm wall/s':>10} {'npm CPU/s':>9} {'npm RSS':>7} | {'ratio':>5}")
    for label, n, ours, theirs in rows:
        wall = n / ours["wall"]
        cpu = n / ours["cpu"]
        writer = n / ours["write_cpu"]
        if theirs:
            npm = f"{n / theirs['wall']:>10,.0f} {n / theirs['cpu']:>9,.0f} {theirs['rss_mb']:>7.0f}"
            ratio = f"{cpu / (n / theirs['cpu']):>4.1f}x"
        else:
            npm, ratio = f"{'-':>10} {'-':>9} {'-':>7}", f"{'-':>5}"
        print(f"{label:30} {n:>9,} | {wall:>8,.0f} {cpu:>8,.0f} {writer:>9,.0f} {ours['rss_mb']:>6.0f} "
              f"{ours['stored'] / 1e6:>6.1f} | {npm} | {ratio}")
    print()
    gzip_levels()
    print()
    print("npm gzip cases run a fifth of the URLs (their rate is per URL; files roll at 50,000 either way).")
    print("wall/s and CPU/s: URLs per second of wall-clock and of CPU time, end to end (building the UrlEntry "
          "objects included);\nwriter/s: CPU rate of the writer alone (entries built and written in chunks of "
          "2,000, the two phases timed apart); ratio: our CPU/s over npm's CPU/s.\n"
          "The machine is shared (2 cores, other jobs running), "
          "so CPU-time rates are the stable figures; peak RSS is ru_maxrss of each fresh process.")


if __name__ == "__main__":
    main()
