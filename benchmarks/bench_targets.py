"""Issue 13's table (targets as issue 27 set them), re-measured in one run: sitemapkit vs its peer, whole
processes, alternating, medians.

    python benchmarks/bench_targets.py               # full sizes, 5 rounds (about 7 minutes on 2 cores)
    python benchmarks/bench_targets.py --repeat 3    # fewer rounds
    python benchmarks/bench_targets.py --quick       # smoke sizes (20,000 / 60,000 URLs)
    python benchmarks/bench_targets.py --only 1 3    # some rows only
    python benchmarks/bench_targets.py --src /tmp/base/src  # sitemapkit from another src/ tree, e.g. a baseline
                                                 # made with `git archive HEAD src | tar -x -C /tmp/base`

Rows (the issue's, plus a raw-IRI variant of row 1 and two start-up rows):
  0u, 0g  each tool's fixed cost: `urls` / `generate` on one URL (interpreter start, imports, one tiny file).
  1   `sitemapkit urls FILE --format text` on 200,000 URLs, every loc with a query string written `?a=..&amp;b=..`
      (varied paths, lastmod on every URL, every tenth path with a non-ASCII segment percent-encoded),
      vs ultimate-sitemap-parser (usp) reading the same file and printing every URL. Target >= 10x usp (issue 27:
      hold; issue 13 asked 5x).
  1b  the same with the non-ASCII segments written raw (UTF-8 IRIs, as non-English sites write them). No target
      (not in the issue's table); reported.
  2   the same as 1 without query strings (path-only). No target; both reported.
  3   `sitemapkit generate urls.txt` on 500,000 lines like `https://example.com/section-4/item-9?ref=list&page=3`
      vs the npm `sitemap` package (its newest release) streaming the same urls.txt through
      lineSeparatedURLsToSitemapOptions into SitemapAndIndexStream (files of 50,000 + an index). Target >= 3x npm
      (issue 27: against npm sitemap 9.x, the newest release).
  4   the same as 3 with path-only lines. No target; both reported.

Every measurement is one whole process (interpreter start, imports, reading, writing the output to a file),
timed from spawn to exit by this driver; CPU time and peak RSS come from os.wait4's rusage. Each round runs every
row's pair, sitemapkit first in even rounds and the peer first in odd ones; the table shows medians over the
rounds and the ratio of the median times (peer / sitemapkit), with the spread of the per-round ratios.

Outputs are checked after every run (the checks are not timed): the URL lists have one line per URL, `&amp;`
decoded; the generated sets hold every URL once, at most 50,000 per file, an index naming every file, and every
`&` escaped. A run that fails its check stops the benchmark.

Peak RSS: Linux charges a child the high-water mark of the process it was spawned from (vfork/exec), so the
driver stays small (no sitemapkit import, data streamed) and prints its own peak: a child's figure is at least it.
Comparison tools, always the newest release, their versions printed with the table: usp in
benchmarks/_work/venv-reader (setup_reader.sh, run when missing; it upgrades), npm sitemap in
benchmarks/_work/node_modules (`npm view sitemap version`; installed or upgraded when older).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
DATA = WORK / "targets"
VENV_PY = WORK / "venv-reader" / "bin" / "python"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
DATA_VERSION = 1  # bump when the generated inputs change shape
PER_FILE = 50_000

# --- inputs ---------------------------------------------------------------------------------------------------

SECTIONS = ("shoes", "women/dresses", "men/jackets", "kids/toys", "home/kitchen", "garden", "sale",
            "blog/2024", "news/world", "brands/acme-outdoor")
WORDS = ("red", "classic", "leather", "summer", "slim", "organic", "vintage", "wool", "cotton", "linen", "sport",
         "travel", "mini", "pro")
NON_ASCII = ("café-crème", "größe-xl", "niño", "smörgåsbord", "ürün", "доставка", "東京", "łódź")
CHANGEFREQS = ("daily", "weekly", "monthly")


def lastmod(i: int) -> str:
    """A distinct W3C datetime per URL, date-only on every third (CMSs write both)."""
    t = 1_700_000_000 + i * 53
    days, rest = divmod(t, 86400)
    y, doy = 2023 + days // 365 % 3, days % 365
    date = f"{y:04d}-{doy // 31 % 12 + 1:02d}-{doy % 28 + 1:02d}"
    if i % 3 == 0:
        return date
    return f"{date}T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}+0{i % 3}:00"


def page_path(i: int, *, raw_iri: bool) -> str:
    """A varied shop/news path; every tenth has a non-ASCII segment, percent-encoded unless raw_iri."""
    w1, w2 = WORDS[i % len(WORDS)], WORDS[i // len(WORDS) % len(WORDS)]
    path = f"/{SECTIONS[i % len(SECTIONS)]}/"
    if i % 10 == 7:
        seg = NON_ASCII[i // 10 % len(NON_ASCII)]
        path += (seg if raw_iri else quote(seg)) + "/"
    path += f"{w1}-{w2}-{i}"
    return path + (".html", "/", "")[i % 3]


def query(i: int) -> str:
    """A query string as a sitemap writes it: `&` escaped as `&amp;`; every fourth has a third parameter."""
    q = f"?a={i % 7}&amp;b={i % 5 + 1}"
    return q + "&amp;utm_source=sitemap" if i % 4 == 0 else q


def urlset_lines(n: int, *, with_query: bool, raw_iri: bool) -> Iterator[str]:
    yield f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
    for i in range(n):
        loc = "https://shop.example.com" + page_path(i, raw_iri=raw_iri) + (query(i) if with_query else "")
        extra = f"<changefreq>{CHANGEFREQS[i % 3]}</changefreq><priority>0.{i % 9 + 1}</priority>" if i % 5 == 0 \
            else ""
        yield f"<url><loc>{loc}</loc><lastmod>{lastmod(i)}</lastmod>{extra}</url>\n"
    yield "</urlset>\n"


def text_lines(n: int, *, with_query: bool) -> Iterator[str]:
    for i in range(n):
        q = f"?ref=list&page={i % 10}" if with_query else ""
        yield f"https://example.com/section-{i % 50}/item-{i}{q}\n"


def write_streamed(path: Path, lines: Iterable[str]) -> None:
    """Write in batches (the driver's memory stays flat: its peak is every child's RSS floor)."""
    tmp = path.with_suffix(path.suffix + ".part")
    with tmp.open("w", encoding="utf-8", newline="\n") as fh:
        batch: list[str] = []
        for line in lines:
            batch.append(line)
            if len(batch) >= 5_000:
                fh.writelines(batch)
                batch.clear()
        fh.writelines(batch)
    tmp.replace(path)


# --- output checks ----------------------------------------------------------------------------------------------

def count_in_file(path: Path, patterns: Iterable[bytes], chunk: int = 1 << 20) -> dict[bytes, int]:
    """Occurrences of each pattern in a file, read in chunks (matches across chunk ends count once).
    Patterns must not overlap themselves (a match cannot start inside a previous one), as `<loc>` or `&amp;`."""
    pats = [p for p in patterns if p]
    counts = dict.fromkeys(pats, 0)
    keep = max((len(p) for p in pats), default=1) - 1
    tail = b""
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            buf = tail + block
            for p in pats:
                # the tail's own matches were counted with the previous chunk
                counts[p] += buf.count(p) - tail.count(p)
            tail = buf[-keep:] if keep else b""
    return counts


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            h.update(block)
    return h.hexdigest()


def check_url_list(out: Path, n: int, amps: int) -> str:
    """The printed list: n lines, as many `&` as the document's `&amp;`, none left escaped."""
    c = count_in_file(out, (b"\n", b"&amp;", b"&", b"https://"))
    problems = []
    lines, urls = c[b"\n"], c[b"https://"]
    if lines != n or urls != n:
        problems.append(f"{lines:,} lines / {urls:,} URLs, expected {n:,}")
    if c[b"&amp;"]:
        problems.append(f"{c[b'&amp;']:,} '&amp;' left undecoded")
    if c[b"&"] != amps:
        problems.append(f"{c[b'&']:,} '&', expected {amps:,}")
    return "; ".join(problems)


def check_sitemap_set(out: Path, index_name: str, n: int, amps: int) -> str:
    """A generated set: every URL once over files of at most 50,000, an index naming every file, `&` escaped."""
    index = out / index_name
    if not index.is_file():
        return f"no index {index_name} in {sorted(p.name for p in out.iterdir())}"
    files = sorted(p for p in out.iterdir() if p.is_file() and p.name != index_name and p.suffix == ".xml")
    listed = count_in_file(index, (b"<sitemap>",))[b"<sitemap>"]
    if not files and not listed:
        files, listed = [index], 1  # everything fit in one file: the entry point is the urlset itself
    total = escaped = raw = 0
    problems = []
    for f in files:
        c = count_in_file(f, (b"<url>", b"<loc>", b"&amp;", b"&"))
        if c[b"<url>"] != c[b"<loc>"] or c[b"<url>"] > PER_FILE:
            problems.append(f"{f.name}: {c[b'<url>']:,} <url>, {c[b'<loc>']:,} <loc>")
        total += c[b"<url>"]
        escaped += c[b"&amp;"]
        raw += c[b"&"] - c[b"&amp;"]
    want_files = -(-n // PER_FILE)
    if total != n:
        problems.append(f"{total:,} URLs written, expected {n:,}")
    if len(files) != want_files or listed != want_files:
        problems.append(f"{len(files)} files, index lists {listed}, expected {want_files}")
    if escaped != amps or raw:
        problems.append(f"{escaped:,} '&amp;' and {raw:,} other '&', expected {amps:,} and 0")
    return "; ".join(problems)


# --- the peers' programs ----------------------------------------------------------------------------------------

USP_SCRIPT = r'''
"""Print every URL of a local sitemap file with ultimate-sitemap-parser (usp's own API for given content)."""
import logging
import sys
from pathlib import Path

logging.disable(logging.CRITICAL)  # usp logs every sitemap at INFO
from usp.tree import sitemap_from_str

tree = sitemap_from_str(Path(sys.argv[1]).read_text(encoding="utf-8"))
write = sys.stdout.write  # stdout is a file: block-buffered, the cheapest way to print
for page in tree.all_pages():
    write(page.url + "\n")
'''

NODE_SCRIPT = r"""
// The npm sitemap package's own streaming path for a URL list (what its CLI does with a text file):
// lines -> SitemapAndIndexStream -> files of 50,000 URLs + an index, written as they fill.
const { SitemapAndIndexStream, SitemapStream, lineSeparatedURLsToSitemapOptions } = require('sitemap');
const { createReadStream, createWriteStream } = require('fs');
const path = require('path');
const [input, dir] = process.argv.slice(2);
const base = 'https://example.com/';
const sms = new SitemapAndIndexStream({
  limit: 50000,
  getSitemapStream: (i) => {
    // no extension namespaces on the urlset: the same document shape as sitemapkit writes
    const sm = new SitemapStream({ hostname: base, xmlns: { news: false, xhtml: false, image: false, video: false } });
    const name = `sitemap-${i}.xml`;
    const ws = sm.pipe(createWriteStream(path.join(dir, name)));
    return [new URL(name, base).toString(), sm, ws];
  },
});
lineSeparatedURLsToSitemapOptions(createReadStream(input))
  .pipe(sms)
  .pipe(createWriteStream(path.join(dir, 'sitemap-index.xml')));
"""


def ensure_usp() -> Path:
    if not VENV_PY.exists():
        print(f"installing usp with {HERE / 'setup_reader.sh'} ...", file=sys.stderr)
        subprocess.run(["bash", str(HERE / "setup_reader.sh")], check=True)
    DATA.mkdir(parents=True, exist_ok=True)
    script = DATA / "usp_urls.py"
    script.write_text(USP_SCRIPT)
    return script


def ensure_npm() -> Path:
    """npm `sitemap` in _work/node_modules: the newest release (`npm view sitemap version`), installed when missing
    or older (issue 27: benchmark against the peer users get today, and name its version)."""
    installed = npm_version()
    try:
        newest = subprocess.run(["npm", "view", "sitemap", "version"], capture_output=True, text=True, cwd=WORK,
                                check=True, timeout=120).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        newest = ""  # offline: keep what is installed
        if installed is None:
            raise SystemExit("npm sitemap is not installed and `npm view sitemap version` failed") from None
    if installed is None or (newest and installed != newest):
        if not (WORK / "package.json").exists():
            (WORK / "package.json").write_text('{"name": "bench-work", "private": true}\n')
        print(f"installing npm sitemap@{newest or 'latest'} (had {installed or 'none'}) ...", file=sys.stderr)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", f"sitemap@{newest or 'latest'}"], cwd=WORK,
                       check=True, capture_output=True)
        npm_version.cache_clear()
    script = WORK / "npm_generate_targets.js"  # beside node_modules, so require('sitemap') resolves
    script.write_text(NODE_SCRIPT)
    return script


@functools.cache
def npm_version() -> str | None:
    """The version of npm `sitemap` the benchmark runs (its package.json), None when not installed."""
    try:
        return str(json.loads((WORK / "node_modules" / "sitemap" / "package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


@functools.cache
def usp_version() -> str:
    """The version of ultimate-sitemap-parser in the benchmark's venv (its package metadata)."""
    return subprocess.run([str(VENV_PY), "-c", "import importlib.metadata as m; "
                           "print(m.version('ultimate-sitemap-parser'))"], capture_output=True, text=True,
                          check=False).stdout.strip() or "?"


def sitemapkit_exe() -> str:
    """The console script of the interpreter running this file (the installed CLI, as a user runs it)."""
    local = Path(sys.executable).parent / "sitemapkit"
    found = str(local) if local.exists() else shutil.which("sitemapkit")
    if found is None:
        raise SystemExit("the sitemapkit command is not installed (pip install -e .)")
    return found


# --- measuring --------------------------------------------------------------------------------------------------

@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float


def user_env() -> dict[str, str]:
    """The environment of a user's shell, for every timed process (both tools): bytecode cached (under _work, not
    in the checkout) and stdout buffered. A session may export PYTHONDONTWRITEBYTECODE (every module of an
    editable install compiled from source at each start, while the peers' site-packages have their .pyc) and
    PYTHONUNBUFFERED (a write() system call per write to stdout); users run with neither."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONUNBUFFERED")}
    env["PYTHONPYCACHEPREFIX"] = str(WORK / "pycache")
    env["PYTHONHASHSEED"] = "0"
    return env


def timed(cmd: list[str], stdout: Path, cwd: Path, env: dict[str, str] | None = None) -> Run:
    """One whole process, spawn to exit; CPU and peak RSS from its rusage. stderr kept for a failure's report."""
    err = stdout.with_suffix(".stderr")
    full_env = {**user_env(), **(env or {})}
    with stdout.open("wb") as out, err.open("wb") as errf:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=errf, cwd=cwd, env=full_env)
        _pid, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{err.read_text(errors='replace')[-3000:]}")
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


@dataclass
class Tools:
    sitemapkit: str  # the console script
    usp_script: Path
    node_script: Path
    env: dict[str, str]  # extra environment for sitemapkit's runs (--src)
    base_env: dict[str, str] | None = None  # sitemapkit's "before" runs (--base), when asked for


@dataclass
class Row:
    key: str
    kind: str  # "urls" (vs usp) or "generate" (vs npm sitemap)
    job: str
    n: int
    target: float | None
    ours: list[Run] = field(default_factory=list)
    peer: list[Run] = field(default_factory=list)
    base: list[Run] = field(default_factory=list)
    note: str = ""
    ours_digest: str = ""


def peer_name(row: Row) -> str:
    return f"usp {usp_version()}" if row.kind == "urls" else f"npm sitemap {npm_version()}"


def median_run(runs: list[Run]) -> Run:
    return Run(statistics.median(r.wall for r in runs), statistics.median(r.cpu for r in runs),
               statistics.median(r.rss_mb for r in runs))


def verdict(wall_ratio: float, cpu_ratio: float, target: float | None) -> str:
    """On wall time (the issue's measure) and on CPU time (steadier when other jobs share the cores)."""
    if target is None:
        return "-"

    def word(ratio: float) -> str:
        return "PASS" if ratio >= target else "FAIL"

    return f">= {target:g}x: {word(wall_ratio)} wall, {word(cpu_ratio)} CPU"


def machine() -> str:
    u = platform.uname()
    model = ""
    try:
        model = next(line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"nproc {len(os.sched_getaffinity(0))} (cpu_count {os.cpu_count()}), {u.system} {u.release} "
            f"{u.machine}, {model}")


def versions(tools: Tools) -> str:
    def out(cmd: list[str], cwd: Path = HERE) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, check=False).stdout.strip()
        except OSError:
            return "?"

    rev = out(["git", "rev-parse", "--short", "HEAD"])
    dirty = " + uncommitted changes in src/" if out(["git", "status", "--porcelain", "--", "../src"]) else ""
    loaded = out(["env", *(f"{k}={v}" for k, v in tools.env.items()), sys.executable, "-c",
                  "import sitemapkit; print(sitemapkit.__file__)"])
    if tools.env:
        rev, dirty = f"from {Path(loaded).parent.parent}", ""
    usp, npm = usp_version(), npm_version()
    return (f"sitemapkit {rev}{dirty} ({tools.sitemapkit}, imports {loaded}); "
            f"Python {platform.python_version()}; usp {usp}; npm sitemap {npm} on node {out(['node', '--version'])}")


def prepare(n_read: int, n_gen: int) -> dict[str, tuple[Path, int]]:
    """Inputs by row (cached under _work/targets): the file and its `&` count (what every check compares)."""
    DATA.mkdir(parents=True, exist_ok=True)
    made: dict[str, tuple[Path, int]] = {}
    specs: list[tuple[str, Path, Iterable[str]]] = [
        ("0u", DATA / f"v{DATA_VERSION}-query-pct-1.xml", urlset_lines(1, with_query=True, raw_iri=False)),
        ("0g", DATA / f"v{DATA_VERSION}-query-1.txt", text_lines(1, with_query=True)),
        ("1", DATA / f"v{DATA_VERSION}-query-pct-{n_read}.xml", urlset_lines(n_read, with_query=True, raw_iri=False)),
        ("1b", DATA / f"v{DATA_VERSION}-query-iri-{n_read}.xml", urlset_lines(n_read, with_query=True, raw_iri=True)),
        ("2", DATA / f"v{DATA_VERSION}-path-{n_read}.xml", urlset_lines(n_read, with_query=False, raw_iri=False)),
        ("3", DATA / f"v{DATA_VERSION}-query-{n_gen}.txt", text_lines(n_gen, with_query=True)),
        ("4", DATA / f"v{DATA_VERSION}-path-{n_gen}.txt", text_lines(n_gen, with_query=False)),
    ]
    for key, path, lines in specs:
        if not path.exists():
            print(f"writing {path.name} ...", file=sys.stderr, flush=True)
            write_streamed(path, lines)
        amp = count_in_file(path, (b"&amp;", b"&"))
        made[key] = (path, amp[b"&amp;"] if path.suffix == ".xml" else amp[b"&"])
    return made


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="rounds (each row's pair once per round; default 5)")
    ap.add_argument("--quick", action="store_true", help="smoke sizes: 20,000 URLs to read, 60,000 to generate")
    ap.add_argument("--only", nargs="*", default=None, help="row keys to run (0u 0g 1 1b 2 3 4)")
    ap.add_argument("--src", help="run sitemapkit from this src/ folder (put first on PYTHONPATH), e.g. an "
                                  "extracted `git archive HEAD src` to measure a baseline beside a working tree")
    ap.add_argument("--base", help="also run sitemapkit from this src/ folder as a third contestant, interleaved in "
                                   "the same rounds (before/after in one run), e.g. `git archive 1e96b83 src`")
    args = ap.parse_args()
    n_read, n_gen = (20_000, 60_000) if args.quick else (200_000, 500_000)
    load_before = os.getloadavg()
    sk = sitemapkit_exe()
    env = {"PYTHONPATH": str(Path(args.src).resolve())} if args.src else {}
    tools = Tools(sk, ensure_usp(), ensure_npm(), env,
                  {"PYTHONPATH": str(Path(args.base).resolve())} if args.base else None)
    inputs = prepare(n_read, n_gen)
    # bytecode written once, before anything is timed (both tools' Python)
    for extra in (env, tools.base_env) if tools.base_env is not None else (env,):
        subprocess.run([sys.executable, "-c", "import sitemapkit.cli._urls, sitemapkit.cli._generate"],
                       env={**user_env(), **extra}, check=True)
    subprocess.run([str(VENV_PY), "-c", "import usp.tree"], env=user_env(), check=True)
    print("timed processes run without PYTHONDONTWRITEBYTECODE / PYTHONUNBUFFERED (as a user's shell), "
          f"bytecode cached in {WORK / 'pycache'}", file=sys.stderr)
    rows = [
        Row("0u", "urls", "start-up: `urls` on a 1-URL file (interpreter, imports)", 1, None),
        Row("0g", "generate", "start-up: `generate` on a 1-line urls.txt", 1, None),
        Row("1", "urls", "`urls FILE --format text`, query `&amp;`, non-ASCII %-encoded", n_read, 10.0),
        Row("1b", "urls", "same, non-ASCII segments raw (UTF-8 IRIs; not in the issue's table)", n_read, None),
        Row("2", "urls", "same as 1, path-only", n_read, None),
        Row("3", "generate", "`generate urls.txt`, `?ref=list&page=3`", n_gen, 3.0),
        Row("4", "generate", "same, path-only", n_gen, None),
    ]
    unknown = set(args.only or ()) - {r.key for r in rows}
    if unknown:
        ap.error(f"unknown rows {sorted(unknown)}; the rows are {[r.key for r in rows]}")
    rows = [r for r in rows if args.only is None or r.key in args.only]
    loads: list[float] = []
    scratch = Path(tempfile.mkdtemp(prefix="bench-targets-", dir=WORK))
    try:
        for rnd in range(max(1, args.repeat)):
            loads.append(os.getloadavg()[0])
            for row in rows:
                src, amps = inputs[row.key]
                if tools.base_env is None:
                    order = ("ours", "peer") if rnd % 2 == 0 else ("peer", "ours")
                else:  # each contestant first, second and last in turn
                    order = (("ours", "peer", "base"), ("peer", "base", "ours"), ("base", "ours", "peer"))[rnd % 3]
                for who in order:
                    run = measure(row, who, src, amps, tools, scratch)
                    {"ours": row.ours, "peer": row.peer, "base": row.base}[who].append(run)
                print(f"round {rnd + 1} row {row.key}: sitemapkit {row.ours[-1].wall:.2f} s, "
                      f"peer {row.peer[-1].wall:.2f} s", file=sys.stderr, flush=True)
            loads.append(os.getloadavg()[0])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    report(rows, args, load_before, loads, tools)


def measure(row: Row, who: str, src: Path, amps: int, tools: Tools, scratch: Path) -> Run:
    """One timed process, then its output checked (untimed) and removed."""
    ours = who != "peer"  # sitemapkit, now or before (--base)
    env = tools.env if who == "ours" else tools.base_env if who == "base" else None
    if row.kind == "urls":
        out = scratch / f"{who}.txt"
        cmd = [tools.sitemapkit, "urls", str(src), "--format", "text"] if ours else \
            [str(VENV_PY), str(tools.usp_script), str(src)]
        run = timed(cmd, out, scratch, env)
        problem = check_url_list(out, row.n, amps)
        digest = file_digest(out)
        if who == "ours":
            row.ours_digest = digest
        elif row.ours_digest and not row.note:
            # informational: are the two lists byte-identical? (usp keeps IRIs raw, sitemapkit %-encodes them)
            row.note = "same bytes" if row.ours_digest == digest else "lists differ"
    else:
        dest = scratch / f"{who}-set"
        shutil.rmtree(dest, ignore_errors=True)
        dest.mkdir()
        if ours:
            cmd = [tools.sitemapkit, "generate", str(src), "-o", str(dest), "--base-url", "https://example.com/", "-q"]
            index = "sitemap.xml"
        else:
            cmd = ["node", str(tools.node_script), str(src), str(dest)]
            index = "sitemap-index.xml"
        run = timed(cmd, scratch / f"{who}.log", WORK, env)
        problem = check_sitemap_set(dest, index, row.n, amps)
        shutil.rmtree(dest, ignore_errors=True)
    if problem:
        raise SystemExit(f"row {row.key}, {who}: output check failed: {problem}")
    return run


def report(rows: list[Row], args: argparse.Namespace, load_before: tuple[float, float, float], loads: list[float],
           tools: Tools) -> None:
    load_after = os.getloadavg()
    rounds = max(1, args.repeat)
    print(f"\nIssue 13 targets, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; median of {rounds} round(s), "
          "whole processes, sitemapkit and peer alternating")
    print(f"command: python benchmarks/bench_targets.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"machine: {machine()}")
    print(f"versions: {versions(tools)}")
    print(f"peers run: ultimate-sitemap-parser {usp_version()} (rows 0u, 1, 1b, 2); npm sitemap {npm_version()} "
          f"(rows 0g, 3, 4)")
    print(f"load average before {' '.join(f'{x:.2f}' for x in load_before)}; during (1 min, per round start/end) "
          f"{min(loads):.2f}-{max(loads):.2f}; after {' '.join(f'{x:.2f}' for x in load_after)}")
    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"driver peak RSS {floor:.0f} MB: a child's figure is max(its own peak, this); '<=' marks one at the floor\n")

    def rss(mb: float) -> str:
        return f"<={floor:.0f}" if mb <= floor + 1 else f"{mb:.0f}"

    print("| row | job | URLs | sitemapkit s (CPU s) | URLs/s | RSS MB | peer | peer s (CPU s) | URLs/s | RSS MB "
          "| ratio (wall) | per-round ratios | ratio (CPU) | target |")
    print("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---:|---|")
    for r in rows:
        if not r.ours or not r.peer:
            continue
        o, p = median_run(r.ours), median_run(r.peer)
        peer = peer_name(r)
        ratio = p.wall / o.wall
        per = sorted(b.wall / a.wall for a, b in zip(r.ours, r.peer, strict=True))
        rate = (f"{r.n / o.wall:,.0f}", f"{r.n / p.wall:,.0f}") if r.n > 1 else ("-", "-")
        print(f"| {r.key} | {r.job} | {r.n:,} | {o.wall:.2f} ({o.cpu:.2f}) | {rate[0]} | {rss(o.rss_mb)} | {peer} | "
              f"{p.wall:.2f} ({p.cpu:.2f}) | {rate[1]} | {rss(p.rss_mb)} | {ratio:.2f}x | "
              f"{per[0]:.2f}-{per[-1]:.2f}x | {p.cpu / o.cpu:.2f}x | {verdict(ratio, p.cpu / o.cpu, r.target)} |")
    print()
    if any(r.base for r in rows):
        print(f"Before/after in the same rounds: sitemapkit from {tools.base_env} (before) and as above (after)\n")
        print("| row | job | before s (CPU s) | after s (CPU s) | after vs before (wall) | per-round | "
              "before: ratio to peer | after: ratio to peer |")
        print("|---|---|---:|---:|---:|---|---:|---:|")
        for r in rows:
            if not r.base:
                continue
            o, b, p = median_run(r.ours), median_run(r.base), median_run(r.peer)
            per = sorted(y.wall / x.wall for x, y in zip(r.ours, r.base, strict=True))
            print(f"| {r.key} | {r.job} | {b.wall:.2f} ({b.cpu:.2f}) | {o.wall:.2f} ({o.cpu:.2f}) | "
                  f"{b.wall / o.wall:.2f}x | {per[0]:.2f}-{per[-1]:.2f}x | {p.wall / b.wall:.2f}x | "
                  f"{p.wall / o.wall:.2f}x |")
        print()
    for r in rows:
        if r.target is not None and r.ours and r.peer:
            o, p = median_run(r.ours), median_run(r.peer)
            need = p.wall / r.target
            if o.wall > need:
                print(f"row {r.key}: misses {r.target:g}x by {o.wall / need:.2f}x: sitemapkit needs <= {need:.2f} s "
                      f"({r.n / need:,.0f} URLs/s), has {o.wall:.2f} s", end="")
            else:
                print(f"row {r.key}: meets {r.target:g}x with {need / o.wall:.2f}x to spare", end="")
            # CPU time is less sensitive to other load on a shared machine: the same verdict on it, for comparison
            print(f"; by CPU time {p.cpu / o.cpu:.2f}x: {'PASS' if p.cpu / o.cpu >= r.target else 'FAIL'} "
                  f"(sitemapkit {o.cpu:.2f} s, {peer_name(r)} {p.cpu:.2f} s)")
        if r.note:
            print(f"row {r.key}: printed URL lists of sitemapkit and usp: {r.note}")


if __name__ == "__main__":
    main()
