"""Harvest and partitioned-generate benchmark: many simulated hosts served on loopback, then a big generate.

    python benchmarks/bench_harvest.py [--hosts 2000] [--urls 5000000] [--gen-rows 10000000] [--partitions 8]
                                       [--threads 4] [--skip-harvest] [--skip-generate]

Hosts: every simulated host has its own loopback address (127.0.x.y, one port) and answers robots.txt -> a sitemap
index -> children of at most --per-file URLs (every second child gzipped); the URLs are spread evenly over the
hosts. A separate server process (aiohttp) serves them from memory. Contenders, each in fresh processes:

- walker, sequential: ``open_sources(site URLs)`` in one process (the hosts one after the other, what
  ``sitemapkit urls SITE...`` does);
- walker, one loop: one process, one event loop, ``walk_site`` on --threads hosts at a time (the single-process
  ceiling of the existing async walker);
- harvest, 1 and 2 workers: the ``sitemapkit harvest`` CLI (in-process, --scheduler) on a local Dask cluster of 1 or
  2 worker processes with --threads hosts each, writing the Parquet dataset.

Generate: --gen-rows CSV rows in --partitions files; single-process ``sitemapkit generate FILE...`` against
``sitemapkit generate DIR --workers 2`` (on a local cluster of 2 workers).

Peak memory is each process's own VmHWM (/proc/self/status, read by that process at the end: ru_maxrss is inherited
across fork+exec); for Dask workers it is read on every worker after the run (``client.run``), next to the worker's
RSS before the run (the idle Dask worker). Wall time excludes starting the cluster (reported apart).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "harvest"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"

SERVER = r"""
import gzip, json, sys, asyncio
from aiohttp import web
port, per_host, per_file = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
addresses = json.loads(sys.stdin.read())
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
files = max(2, -(-per_host // per_file))
# One template per file, the host filled in per request; bodies cached per (host, path) once built.
cache = {}
def body(host, path):
    key = (host, path)
    got = cache.get(key)
    if got is not None:
        return got
    base = f"http://{host}"
    if path == "/robots.txt":
        data = (f"User-agent: *\nDisallow: /private/\nSitemap: {base}/sitemap_index.xml\n".encode(), "text/plain")
    elif path == "/sitemap_index.xml":
        locs = [f"{base}/sitemap-{k}.xml" + (".gz" if k % 2 else "") for k in range(files)]
        xml = "".join(f"<sitemap><loc>{l}</loc><lastmod>2024-05-01</lastmod></sitemap>" for l in locs)
        data = (f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">{xml}</sitemapindex>\n'.encode(),
                "application/xml")
    elif path.startswith("/sitemap-"):
        k = int(path[len("/sitemap-"):].split(".")[0])
        if k >= files:
            return None
        ids = range(k, per_host, files)
        xml = "".join(f"<url><loc>{base}/page/{i}</loc><lastmod>2024-05-{i % 28 + 1:02d}</lastmod>"
                      f"<changefreq>daily</changefreq><priority>0.{i % 10}</priority></url>" for i in ids)
        raw = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">{xml}</urlset>\n'.encode()
        data = (gzip.compress(raw, 1), "application/x-gzip") if path.endswith(".gz") else (raw, "application/xml")
    else:
        return None
    if len(cache) < 200_000:
        cache[key] = data
    return data

async def handle(request):
    got = body(request.host, request.path)
    if got is None:
        return web.Response(status=404, text="not found")
    return web.Response(body=got[0], content_type=got[1].split(";")[0])

async def main():
    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    for a in addresses:
        await web.TCPSite(runner, a, port, backlog=512).start()
    print("ready", flush=True)
    await asyncio.Event().wait()

asyncio.run(main())
"""

HWM = r"""
def vmhwm_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0
def vmrss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
"""

WALK_SEQUENTIAL = HWM + r"""
import json, sys, time
from sitemapkit import UrlEntry
from sitemapkit.fetch import FetchSettings, open_sources
sites = json.loads(open(sys.argv[1]).read())
t0, c0 = time.perf_counter(), time.process_time()
n = 0
for ev in open_sources(sites, settings=FetchSettings(retries=0, timeout=60)):
    if type(ev) is UrlEntry:
        n += 1
print(json.dumps({"urls": n, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "hwm_kb": vmhwm_kb()}))
"""

WALK_LOOP = HWM + r"""
import asyncio, json, sys, time
from sitemapkit.fetch import EntryBatch, FetchSettings, walk_site
sites, at_once = json.loads(open(sys.argv[1]).read()), int(sys.argv[2])
settings = FetchSettings(retries=0, timeout=60)
async def main():
    client = settings.client(sites)
    n = 0
    queue = list(reversed(sites))
    async def one_at_a_time():
        nonlocal n
        while queue:
            site = queue.pop()
            async for item in walk_site(site, client=client, options=settings.walk_options()):
                if isinstance(item, EntryBatch):
                    n += len(item.entries)
    try:
        await asyncio.gather(*(one_at_a_time() for _ in range(at_once)))
    finally:
        await client.aclose()
    return n
t0, c0 = time.perf_counter(), time.process_time()
n = asyncio.run(main())
print(json.dumps({"urls": n, "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
                  "hwm_kb": vmhwm_kb()}))
"""

# Runs the sitemapkit CLI in this process, on a local Dask cluster of N workers when N > 0 (passed as --scheduler).
CLI = HWM + r"""
import json, logging, sys, time
workers, args = int(sys.argv[1]), sys.argv[2:]
cluster = client = None
startup = 0.0
before = {}
if workers:
    from distributed import Client, LocalCluster
    t = time.perf_counter()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=int(args.pop(0)), processes=True,
                           dashboard_address=None, silence_logs=logging.ERROR)
    client = Client(cluster)
    startup = time.perf_counter() - t
    args += ["--scheduler", cluster.scheduler_address]
    before = client.run(vmrss_kb)
from sitemapkit.cli import main
t0 = time.perf_counter()
code = 0
try:
    main(args)
except SystemExit as exc:
    code = exc.code or 0
wall = time.perf_counter() - t0
after = client.run(vmhwm_kb) if client is not None else {}
print(json.dumps({"wall": wall, "code": code, "startup": startup, "hwm_kb": vmhwm_kb(),
                  "workers_idle_kb": list(before.values()), "workers_hwm_kb": list(after.values())}))
if client is not None:
    client.close()
    cluster.close()
"""


def free_port(address: str) -> int:
    with socket.socket() as s:
        s.bind((address, 0))
        return int(s.getsockname()[1])


def addresses(n: int) -> list[str]:
    return [f"127.0.{1 + k // 250}.{2 + k % 250}" for k in range(n)]


def child(code: str, *args: str) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter; its last stdout line is a JSON report."""
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=HERE.parent)
    lines = proc.stdout.strip().splitlines()
    if not lines:
        raise SystemExit(f"child failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    report: dict[str, Any] = json.loads(lines[-1])
    report["stderr"] = proc.stderr
    report["stdout"] = "\n".join(lines[:-1])
    return report


def mb(kb: int) -> str:
    return f"{kb / 1024:,.0f}"


def table_row(name: str, count: int, report: dict[str, Any]) -> list[str]:
    """One line of the table: name, count, wall s, count per s, peak MB of the main process, of each worker, idle
    MB of each worker, seconds to start the cluster."""
    wall = float(report["wall"])
    hwm, idle = report.get("workers_hwm_kb") or [], report.get("workers_idle_kb") or []
    return [name, f"{count:,}", f"{wall:.1f}", f"{count / wall:,.0f}", mb(report["hwm_kb"]),
            ", ".join(map(mb, hwm)) or "-", ", ".join(map(mb, idle)) or "-", f"{float(report.get('startup', 0)):.1f}"]


def start_server(addrs: list[str], per_host: int, per_file: int) -> tuple[subprocess.Popen[str], int]:
    port = free_port(addrs[0])
    proc = subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(per_host), str(per_file)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None
    assert proc.stdout is not None
    proc.stdin.write(json.dumps(addrs))
    proc.stdin.close()
    if proc.stdout.readline().strip() != "ready":
        raise SystemExit("the site server did not start")
    return proc, port


def warm(sites: list[str]) -> None:
    """Fetch every file once so that the server has built its bodies before anything is timed."""
    code = r"""
import asyncio, json, sys, aiohttp
sites = json.loads(open(sys.argv[1]).read())
async def main():
    async with aiohttp.ClientSession() as s:
        sem = asyncio.Semaphore(32)
        async def get(u):
            async with sem, s.get(u) as r:
                return await r.read()
        idx = await asyncio.gather(*(get(u + "sitemap_index.xml") for u in sites))
        await asyncio.gather(*(get(u + "robots.txt") for u in sites))
        kids = [l.split("</loc>")[0] for b in idx for l in b.decode().split("<loc>")[1:]]
        await asyncio.gather(*(get(k) for k in kids))
asyncio.run(main())
"""
    subprocess.run([sys.executable, "-c", code, str(WORK / "sites.json")], check=True)


def bench_harvest(args: argparse.Namespace, rows: list[list[str]]) -> None:
    addrs = addresses(args.hosts)
    per_host = args.urls // args.hosts
    total = per_host * args.hosts
    server, port = start_server(addrs, per_host, args.per_file)
    try:
        sites = [f"http://{a}:{port}/" for a in addrs]
        (WORK / "sites.json").write_text(json.dumps(sites))
        (WORK / "hosts.txt").write_text("\n".join(sites) + "\n")
        t = time.perf_counter()
        warm(sites)
        print(f"server ready: {args.hosts:,} hosts x {per_host:,} URLs = {total:,} URLs "
              f"(warm-up {time.perf_counter() - t:.1f} s)", flush=True)

        def add(name: str, report: dict[str, Any], urls: int) -> None:
            rows.append(table_row(name, urls, report))
            print("  ", rows[-1], flush=True)

        r = child(WALK_SEQUENTIAL, str(WORK / "sites.json"))
        assert r["urls"] == total, r
        add("walker, open_sources, sequential", r, total)
        r = child(WALK_LOOP, str(WORK / "sites.json"), str(args.threads))
        assert r["urls"] == total, r
        add(f"walker, one loop, {args.threads} hosts at once", r, total)
        for workers in (1, 2):
            out = WORK / f"harvest-{workers}"
            shutil.rmtree(out, ignore_errors=True)
            r = child(CLI, str(workers), str(args.threads), "harvest", str(WORK / "hosts.txt"), "--out", str(out),
                      "--retries", "0", "--deadline", "60", "--quiet")
            if r["code"] != 0 or f"{total:,} URLs" not in str(r["stdout"]):
                raise SystemExit(f"harvest failed: {r['stdout']}\n{r['stderr'][-3000:]}")
            add(f"harvest, {workers} worker{'s' if workers > 1 else ''} x {args.threads} threads", r, total)
            shutil.rmtree(out, ignore_errors=True)
    finally:
        server.terminate()
        server.wait()


def bench_generate(args: argparse.Namespace, rows: list[list[str]]) -> None:
    data = WORK / "gen-data"
    shutil.rmtree(data, ignore_errors=True)
    data.mkdir(parents=True)
    per = args.gen_rows // args.partitions
    t = time.perf_counter()
    for p in range(args.partitions):
        with open(data / f"part-{p}.csv", "w") as f:
            f.write("loc,lastmod,changefreq,priority\n")
            start = p * per
            f.writelines(f"https://big.example/item/{i},2024-05-{i % 28 + 1:02d},weekly,0.{i % 10}\n"
                         for i in range(start, start + per))
    total = per * args.partitions
    print(f"generate input: {total:,} rows in {args.partitions} CSV files ({time.perf_counter() - t:.1f} s)",
          flush=True)
    files = [str(data / f"part-{p}.csv") for p in range(args.partitions)]
    with tempfile.TemporaryDirectory(dir=WORK) as tmp:
        common = ["--base-url", "https://big.example/", "--gzip"]
        single = child(CLI, "0", "generate", *files, "--out", f"{tmp}/single", *common)
        par = child(CLI, "2", "1", "generate", str(data), "--out", f"{tmp}/par", "--workers", "2", *common)
        for name, r in (("generate, single process", single), (f"generate --workers 2, {args.partitions} "
                                                                "partitions", par)):
            if r["code"] != 0:
                raise SystemExit(f"{name} failed: {r['stdout']}\n{r['stderr'][-3000:]}")
            rows.append(table_row(name, total, r))
            print("  ", rows[-1], flush=True)
        n_single = len(list(Path(tmp, "single").glob("sitemap*")))
        n_par = len(list(Path(tmp, "par").glob("sitemap*")))
        print(f"files: single {n_single}, partitioned {n_par}", flush=True)
    shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hosts", type=int, default=2000)
    ap.add_argument("--urls", type=int, default=5_000_000, help="URLs over all hosts")
    ap.add_argument("--per-file", type=int, default=1000, help="URLs per child sitemap (at least 2 per host)")
    ap.add_argument("--threads", type=int, default=4, help="hosts at once per worker (and for the one-loop walker)")
    ap.add_argument("--gen-rows", type=int, default=10_000_000)
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--skip-harvest", action="store_true")
    ap.add_argument("--skip-generate", action="store_true")
    args = ap.parse_args()
    if args.hosts > 250 * 254:
        raise SystemExit("at most 63,500 hosts (127.0.1.2 ... 127.0.254.251)")
    WORK.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PYTHONWARNINGS", "ignore")
    rows: list[list[str]] = []
    started = time.perf_counter()
    if not args.skip_harvest:
        bench_harvest(args, rows)
    if not args.skip_generate:
        bench_generate(args, rows)
    head = ["run", "URLs/rows", "wall s", "per s", "peak MB (main)", "peak MB per worker", "idle MB per worker",
            "cluster start s"]
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    print()
    print(f"cores: {os.cpu_count()}, total {time.perf_counter() - started:.0f} s")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) + " |")


if __name__ == "__main__":
    main()
