"""Fetch benchmark: discover and list a local site of 1,000,000 URLs (20 gzip sitemaps behind an index).

    python benchmarks/bench_fetch.py [--urls 1000000] [--files 20] [--skip-usp] [--clients]

The site is written to benchmarks/_work/fetch-site/ and served over loopback by a separate process (a small
aiohttp static server, keep-alive on). Each contender runs in its own child process so its peak RSS can be read:

- sitemapkit: ``open_sources([site_url])`` (robots.txt -> index -> 20 children, streamed entries counted);
- sitemapkit CLI: ``python -m sitemapkit discover SITE --format json`` (same walk, entries counted, tree printed);
- ultimate-sitemap-parser: ``sitemap_tree_for_homepage(site_url)`` then ``all_pages()`` counted, from a venv in
  benchmarks/_work/venv-usp (created and pip-installed on first run; ``--skip-usp`` to leave it out).

``--clients`` adds the HTTP client comparison (aiohttp vs httpx, requests/s and CPU per request) that chose the
client (ARCHITECTURE.md, "Fetch").
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
SITE = WORK / "fetch-site"
USP_VENV = WORK / "venv-usp"

SERVER = r"""
import sys
from aiohttp import web
root, port = sys.argv[1], int(sys.argv[2])
app = web.Application()
app.router.add_static("/", root)
web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)
"""

OURS = r"""
import resource, sys, time
from sitemapkit import UrlEntry
from sitemapkit.fetch import open_sources
t0, c0 = time.perf_counter(), time.process_time()
n = 0
for ev in open_sources([sys.argv[1]]):
    if type(ev) is UrlEntry:
        n += 1
print(n, time.perf_counter() - t0, time.process_time() - c0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

USP = r"""
import logging, resource, sys, time
logging.disable(logging.CRITICAL)
from usp.tree import sitemap_tree_for_homepage
t0, c0 = time.perf_counter(), time.process_time()
tree = sitemap_tree_for_homepage(sys.argv[1])
n = sum(1 for _ in tree.all_pages())
print(n, time.perf_counter() - t0, time.process_time() - c0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def build_site(n_urls: int, n_files: int, base: str) -> None:
    marker = SITE / f".built-{n_urls}-{n_files}"
    if marker.exists():
        return
    SITE.mkdir(parents=True, exist_ok=True)
    for old in SITE.glob(".built-*"):
        old.unlink()
    per = n_urls // n_files
    ns = "http://www.sitemaps.org/schemas/sitemap/0.9"
    for f in range(n_files):
        rows = "".join(
            f"<url><loc>https://shop.example.com/products/{f}/item-{i}.html</loc><lastmod>2024-05-0{1 + i % 9}"
            f"</lastmod><changefreq>weekly</changefreq><priority>0.{i % 10}</priority></url>\n"
            for i in range(per)
        )
        xml = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{ns}">\n{rows}</urlset>\n'
        (SITE / f"sitemap-{f}.xml.gz").write_bytes(gzip.compress(xml.encode(), 6))
    marker.touch()
    write_index(n_files, base)


def write_index(n_files: int, base: str) -> None:
    ns = "http://www.sitemaps.org/schemas/sitemap/0.9"
    items = "".join(f"<sitemap><loc>{base}/sitemap-{f}.xml.gz</loc></sitemap>" for f in range(n_files))
    (SITE / "sitemap_index.xml").write_text(f'<?xml version="1.0"?>\n<sitemapindex xmlns="{ns}">{items}'
                                            "</sitemapindex>\n")
    (SITE / "robots.txt").write_text(f"User-agent: *\nDisallow: /admin/\n\nSitemap: {base}/sitemap_index.xml\n")
    (SITE / "index.html").write_text("<html><body>home</body></html>")


def ensure_usp() -> Path | None:
    py = USP_VENV / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(USP_VENV)], check=True)
    probe = subprocess.run([str(py), "-c", "import usp"], capture_output=True, check=False)
    if probe.returncode != 0:
        res = subprocess.run([str(py), "-m", "pip", "install", "-q", "ultimate-sitemap-parser"], check=False)
        if res.returncode != 0:
            return None
    return py


def run_child(python: str, code: str, url: str) -> tuple[int, float, float, int]:
    out = subprocess.run([python, "-c", code, url], capture_output=True, text=True, check=True, timeout=1800)
    n, wall, cpu, rss = out.stdout.split()[-4:]
    return int(n), float(wall), float(cpu), int(rss)


# The CLI, run as `python -m sitemapkit discover ...` would be, inside a child that reports its own peak RSS.
CLI = r"""
import resource, runpy, sys, time
sys.argv = ["sitemapkit", "discover", sys.argv[1], "--format", "json", "--quiet"]
t0, c0 = time.perf_counter(), time.process_time()
try:
    runpy.run_module("sitemapkit", run_name="__main__")
except SystemExit:
    pass
print("\n", time.perf_counter() - t0, time.process_time() - c0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def run_cli(url: str) -> tuple[int, float, float, int]:
    import json

    out = subprocess.run([sys.executable, "-c", CLI, url], capture_output=True, text=True, check=True, timeout=1800)
    body, _, tail = out.stdout.rpartition("\n\n")
    wall, cpu, rss = tail.split()
    return int(json.loads(body)["summary"]["urls"]), float(wall), float(cpu), int(rss)


def clients(port_base: int) -> None:
    import aiohttp
    import httpx

    async def with_aiohttp(url: str, n: int) -> None:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=10)) as s:
            sem = asyncio.Semaphore(10)

            async def one() -> None:
                async with sem, s.get(url) as r:
                    async for _ in r.content.iter_chunked(65536):
                        pass

            await asyncio.gather(*(one() for _ in range(n)))

    async def with_httpx(url: str, n: int) -> None:
        async with httpx.AsyncClient(limits=httpx.Limits(max_connections=10)) as s:
            sem = asyncio.Semaphore(10)

            async def one() -> None:
                async with sem, s.stream("GET", url) as r:
                    async for _ in r.aiter_raw():
                        pass

            await asyncio.gather(*(one() for _ in range(n)))

    (WORK / "clients").mkdir(parents=True, exist_ok=True)
    (WORK / "clients" / "small").write_bytes(b"x" * 2000)
    (WORK / "clients" / "large").write_bytes(b"x" * 1_000_000)
    port = free_port()
    srv = subprocess.Popen([sys.executable, "-c", SERVER, str(WORK / "clients"), str(port)])
    try:
        time.sleep(1.5)
        print("\nHTTP clients (10 concurrent, keep-alive, loopback, separate server process)")
        print(f"{'client':8} {'body':>8} {'requests':>8} {'req/s':>8} {'MB/s':>7} {'CPU/req':>9}")
        for name, n in (("small", 3000), ("large", 200)):
            for label, fn in (("aiohttp", with_aiohttp), ("httpx", with_httpx)):
                t0, c0 = time.perf_counter(), time.process_time()
                asyncio.run(fn(f"http://127.0.0.1:{port}/{name}", n))
                dt, dc = time.perf_counter() - t0, time.process_time() - c0
                size = (WORK / "clients" / name).stat().st_size
                print(f"{label:8} {size:>8} {n:>8} {n / dt:>8.0f} {n * size / dt / 1e6:>7.1f} {dc / n * 1e6:>7.0f}us")
    finally:
        srv.terminate()
        srv.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--urls", type=int, default=1_000_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--skip-usp", action="store_true")
    ap.add_argument("--clients", action="store_true")
    args = ap.parse_args()
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    build_site(args.urls, args.files, base)
    write_index(args.files, base)
    size = sum(p.stat().st_size for p in SITE.glob("*.gz"))
    print(f"site: {args.urls:,} URLs in {args.files} gzip sitemaps ({size / 1e6:.1f} MB compressed) behind an "
          f"index, served by a separate process on {base}")
    srv = subprocess.Popen([sys.executable, "-c", SERVER, str(SITE), str(port)], env={**os.environ})
    rows: list[tuple[str, tuple[int, float, float, int]]] = []
    try:
        time.sleep(1.5)
        rows.append(("sitemapkit open_sources", run_child(sys.executable, OURS, base + "/")))
        rows.append(("sitemapkit discover CLI", run_cli(base + "/")))
        if not args.skip_usp:
            py = ensure_usp()
            if py is None:
                print("ultimate-sitemap-parser could not be installed; skipped")
            else:
                rows.append(("usp sitemap_tree_for_homepage", run_child(str(py), USP, base + "/")))
    finally:
        srv.terminate()
        srv.wait()
    print(f"\n{'contender':32} {'URLs':>10} {'wall s':>8} {'CPU s':>7} {'URLs/s':>10} {'URLs/CPU-s':>11} "
          f"{'peak RSS MB':>12}")
    for name, (n, wall, cpu, rss) in rows:
        print(f"{name:32} {n:>10,} {wall:>8.2f} {cpu:>7.2f} {n / wall:>10,.0f} {n / cpu:>11,.0f} {rss / 1024:>12.0f}")
    usp = next((r for name, r in rows if name.startswith("usp")), None)
    if usp is not None:
        for name, ours in rows:
            if name.startswith("sitemapkit"):
                print(f"{name} / usp: {(ours[0] / ours[1]) / (usp[0] / usp[1]):.1f}x URLs/s (wall), "
                      f"{(ours[0] / ours[2]) / (usp[0] / usp[2]):.1f}x URLs per CPU-second")
    if args.clients:
        clients(port)


if __name__ == "__main__":
    main()
