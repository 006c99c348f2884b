"""Serve at scale: time to the first answer after start, and the server's memory on a big table (issue 25).

    python benchmarks/bench_serve_scale.py --rows 1000000            # first answers at 1M rows (2 rounds)
    python benchmarks/bench_serve_scale.py --rows 50000000 --rounds 1 --sample 8

The table ``products(id INTEGER PRIMARY KEY, slug, updated)`` (the serve tests' schema) is built once into
``benchmarks/_work/serve/products-<rows>.db`` with one ``INSERT ... WITH RECURSIVE`` (no Python per row). The
server is ``SitemapService(...).asgi()`` under uvicorn in its own process, over ``ProductFetch`` with its
``nth_key`` (or, ``--boundary keys``, ``keys``) and ``stats`` hooks (a connection per call), nothing done before
listening. Each round starts a fresh server and measures, from the moment it listens: the first answer (the
index in odd rounds, the last page in even rounds, so both are measured cold), then the other one, then a
conditional request for the last page with its ETag (a 304 from ``stats``) and a plain GET of it. Then it fetches
``--sample`` pages spread over the table (first, last, in between) and reports the server's peak RSS (VmHWM, from
its start: the index walk over every key included).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work" / "serve"
PER_PAGE = 50_000

sys.path.insert(0, str(ROOT))


def build(path: Path, rows: int) -> float:
    """The table, built by SQLite itself; returns seconds (0 when it exists)."""
    if path.exists():
        return 0.0
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    started = time.perf_counter()
    con = sqlite3.connect(tmp)
    try:
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute("CREATE TABLE products (id INTEGER PRIMARY KEY, slug TEXT NOT NULL, updated TEXT NOT NULL)")
        con.execute("INSERT INTO products WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) "
                    "SELECT i, 'item-' || i, printf('2024-%02d-%02d', i % 12 + 1, i % 28 + 1) FROM n", (rows,))
        con.commit()
    finally:
        con.close()
    tmp.replace(path)
    return time.perf_counter() - started


def run_server(port: int, db: Path, boundary: str) -> None:
    import uvicorn
    from tests.serve.db import ProductFetch

    from sitemapkit.serve import SitemapService

    base = f"http://127.0.0.1:{port}/"
    source = ProductFetch(db, base=base).source(nth_key=boundary == "nth", stats=True)
    service = SitemapService(base, {"products": source})
    uvicorn.Server(uvicorn.Config(service.asgi(), host="127.0.0.1", port=port, log_level="warning")).run()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def request(port: int, target: str, headers: dict[str, str] | None = None) -> tuple[float, int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1800)
    try:
        started = time.perf_counter()
        conn.request("GET", target, headers=headers or {})
        resp = conn.getresponse()
        body = resp.read()
        return time.perf_counter() - started, resp.status, resp.getheader("ETag") or "", body
    finally:
        conn.close()


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def one_round(db: Path, rows: int, index_first: bool, sample: int, boundary: str) -> dict[str, Any]:
    pages = -(-rows // PER_PAGE)
    last = f"/sitemap-products-{pages}.xml"
    port = free_port()
    spawned = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--server", "--port", str(port), "--db", str(db),
                             "--boundary", boundary])
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.perf_counter() - spawned > 300:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.05)
        out: dict[str, Any] = {"listen_s": time.perf_counter() - spawned, "first": "index" if index_first else "page"}
        order = [("index", "/sitemap.xml"), ("page", last)]
        for name, target in order if index_first else order[::-1]:
            seconds, status, _etag, body = request(port, target)
            assert status == 200, (target, status)
            if name == "index":
                assert body.count(b"<sitemap>") == pages, body[:200]
            else:
                assert body.count(b"<url>") == rows - (pages - 1) * PER_PAGE
            out[f"{name}_s"] = seconds
        _s, _st, etag, _b = request(port, last)
        out["304_s"], status, _e, _b = request(port, last, {"If-None-Match": etag})
        assert status == 304, status
        out["get_last_s"] = request(port, last)[0]
        step = max(1, (pages - 1) // max(1, sample - 1))
        numbers = [*sorted({1, pages, *range(1, pages + 1, step)})[:sample], pages]
        times = []
        for n in dict.fromkeys(numbers):
            seconds, status, _etag, body = request(port, f"/sitemap-products-{n}.xml")
            assert status == 200
            times.append(seconds)
        out["sampled_pages"] = len(times)
        out["page_median_s"] = statistics.median(times)
        out["rss_mib"] = _status_kib(proc.pid, "VmRSS") / 1024
        out["peak_mib"] = _status_kib(proc.pid, "VmHWM") / 1024
        return out
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=2, help="fresh servers, alternating index-first/page-first")
    parser.add_argument("--sample", type=int, default=6, help="pages fetched for the memory reading")
    parser.add_argument("--db", type=Path)
    parser.add_argument("--boundary", choices=("nth", "keys"), default="nth",
                        help="page boundaries from the nth_key hook (default) or from the keys hook")
    parser.add_argument("--server", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    db = args.db or WORK / f"products-{args.rows}.db"
    if args.server:
        run_server(args.port, db, args.boundary)
        return
    built = build(db, args.rows)
    if built:
        print(f"built {db} ({args.rows:,} rows, {db.stat().st_size / 2**30:.2f} GiB) in {built:.1f} s",
              file=sys.stderr)
    print(f"{args.rows:,} rows, {-(-args.rows // PER_PAGE)} pages; boundaries from {args.boundary}; "
          f"{os.cpu_count()} CPUs; "
          f"load {os.getloadavg()[0]:.1f}")
    results = []
    for r in range(args.rounds):
        res = one_round(db, args.rows, index_first=r % 2 == 0, sample=args.sample, boundary=args.boundary)
        results.append(res)
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in res.items()}), flush=True)
    def median(key: str, first: str | None = None) -> str:
        values = [r[key] for r in results if first is None or r["first"] == first]
        return f"{statistics.median(values):.3f} (n={len(values)})" if values else "-"

    print(f"{'listen s':>22}: {median('listen_s')}")
    print(f"{'first answer: index s':>22}: {median('index_s', 'index')}")
    print(f"{'first answer: page s':>22}: {median('page_s', 'page')}")
    for key in ("304_s", "get_last_s", "page_median_s", "peak_mib"):
        print(f"{key:>22}: {median(key)}")


if __name__ == "__main__":
    main()
