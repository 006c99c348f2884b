"""Serve benchmark: sitemapkit.serve vs django.contrib.sitemaps on the same 1,000,000-row SQLite table, same run.

    python benchmarks/bench_serve.py              # builds benchmarks/_work/serve/products.db once, then measures
    python benchmarks/bench_serve.py --repeat 5
    python benchmarks/bench_serve.py --pairs 9 --kinds sitemapkit-uvicorn,sitemapkit-django,django-contrib-sitemaps

Three servers, each its own process on 127.0.0.1, over the same table ``products(id INTEGER PRIMARY KEY, slug,
updated)``:

1. ``sitemapkit/uvicorn``: ``SitemapService(...).asgi()`` (Starlette) under uvicorn, section
   ``KeysetSource(fetch)`` with ``fetch = SELECT ... WHERE id > ? ORDER BY id LIMIT ?`` (sqlite3);
2. ``sitemapkit/django``: the same service through ``service.django_urls()`` in Django, on werkzeug's server;
3. ``django.contrib.sitemaps``: Django's own sitemap view with a ``Sitemap`` over a model of the same table
   (``items()`` ordered by id; Django pages it with its Paginator: COUNT, then OFFSET/LIMIT), same server.

For page 1 and page 20 (50,000 URLs each) it prints the median time to first body byte and total time, then the
peak RSS (VmHWM, reset via /proc/PID/clear_refs before the run) of each server while a client fetches all 20
pages one after the other. "first s" is the first answer of a server that has just started listening: the index
(for sitemapkit: its page boundaries read from keys, nothing rendered before). "304 s" is a conditional request
for page 20 with its current ETag (sitemapkit renders the page to check its digest, unless the source's ``stats``
summary decides: the ``sitemapkit/uvicorn+stats`` row). Kinds can be picked with ``--kinds``.
"""

from __future__ import annotations

import argparse
import http.client
import os
import socket
import statistics
import subprocess
import sys
import time
import types
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORK = HERE / "_work" / "serve"
ROWS = 1_000_000
PAGES = ROWS // 50_000

sys.path.insert(0, str(ROOT))


# --- servers (run in their own process: ``bench_serve.py --server KIND --port N --db PATH``) -------------------

def _service(db: Path, base: str, stats: bool = False) -> Any:
    from tests.serve.db import ProductFetch

    from sitemapkit.serve import SitemapService

    # Nothing planned before listening: boundaries come from keys at the first request that needs them
    return SitemapService(base, {"products": ProductFetch(db, base=base).source(stats=stats)})


def _django(db: Path, patterns: Any) -> Any:
    import django
    from django.conf import settings

    urls = types.ModuleType("bench_serve_urls")
    sys.modules[urls.__name__] = urls
    settings.configure(
        DEBUG=False, ALLOWED_HOSTS=["*"], ROOT_URLCONF=urls.__name__, MIDDLEWARE=[], USE_TZ=True,
        INSTALLED_APPS=["django.contrib.sitemaps"],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(db)}},
        TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}],
    )
    django.setup()
    urls.urlpatterns = patterns() if callable(patterns) else patterns  # type: ignore[attr-defined]
    from django.core.handlers.wsgi import WSGIHandler

    return WSGIHandler()


def _django_baseline_patterns() -> list[Any]:
    from django.contrib.sitemaps import Sitemap
    from django.contrib.sitemaps.views import sitemap
    from django.db import models
    from django.urls import path

    class Product(models.Model):
        slug = models.TextField()
        updated = models.TextField()

        class Meta:
            app_label = "bench"
            db_table = "products"
            managed = False

    class ProductSitemap(Sitemap):  # type: ignore[type-arg]
        def items(self) -> Any:
            return Product.objects.order_by("id")

        def location(self, item: Product) -> str:
            return f"/p/{item.slug}"

        def lastmod(self, item: Product) -> date:
            return date.fromisoformat(item.updated)

    return [path("sitemap.xml", sitemap, {"sitemaps": {"products": ProductSitemap}})]


def run_server(kind: str, port: int, db: Path) -> None:
    base = f"http://127.0.0.1:{port}/"
    if kind.startswith("sitemapkit-uvicorn"):
        import uvicorn

        app = _service(db, base, stats=kind.endswith("stats")).asgi()
        uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")).run()
        return
    import logging

    from werkzeug.serving import make_server

    logging.getLogger("werkzeug").setLevel(logging.WARNING)

    if kind == "sitemapkit-django":
        service = _service(db, base)
        wsgi = _django(db, service.django_urls())
    else:
        wsgi = _django(db, _django_baseline_patterns)
    make_server("127.0.0.1", port, wsgi, threaded=True).serve_forever()


# --- the client -------------------------------------------------------------------------------------------

def build_db(path: Path) -> None:
    from tests.serve.db import build_products

    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    build_products(tmp, ROWS)
    tmp.replace(path)
    print(f"built {path} ({ROWS:,} rows) in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fetch(port: int, target: str) -> tuple[float, float, int, int]:
    """(time to first body byte, total time, status, URLs) for one GET."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        started = time.perf_counter()
        conn.request("GET", target)
        resp = conn.getresponse()
        first = resp.read(1)
        ttfb = time.perf_counter() - started
        rest = resp.read()
        total = time.perf_counter() - started
        return ttfb, total, resp.status, (first + rest).count(b"<url>")
    finally:
        conn.close()


def _etag(port: int, target: str) -> str | None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        conn.request("HEAD", target)
        resp = conn.getresponse()
        resp.read()
        return resp.getheader("ETag")
    finally:
        conn.close()


def _conditional(port: int, target: str, etag: str) -> float:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        started = time.perf_counter()
        conn.request("GET", target, headers={"If-None-Match": etag})
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 304, resp.status
        return time.perf_counter() - started
    finally:
        conn.close()


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    return 0


def start(kind: str, db: Path) -> tuple[subprocess.Popen[bytes], int, float]:
    """A server of ``kind`` in its own process, once it listens: (process, port, seconds to listen)."""
    port = free_port()
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, __file__, "--server", kind, "--port", str(port), "--db", str(db)])
    deadline = time.monotonic() + 120
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return proc, port, time.perf_counter() - started
        except OSError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError(f"{kind} server did not start") from None
            time.sleep(0.1)


def page_target(kind: str, n: int) -> str:
    return f"/sitemap.xml?p={n}" if kind == "django-contrib-sitemaps" else f"/sitemap-products-{n}.xml"


def pairs(db: Path, kinds: list[str], rounds: int) -> None:
    """Page 20 from each server in turn, ``rounds`` times (the order flips every round), all servers up at once:
    the load of the machine falls on both sides of each ratio."""
    servers = {kind: start(kind, db) for kind in kinds}
    try:
        times: dict[str, list[float]] = {kind: [] for kind in kinds}
        for kind, (_proc, port, _s) in servers.items():
            fetch(port, page_target(kind, 1))  # warm up
        for r in range(rounds):
            for kind in kinds if r % 2 == 0 else kinds[::-1]:
                _ttfb, total, status, urls = fetch(servers[kind][1], page_target(kind, PAGES))
                assert (status, urls) == (200, 50_000), (kind, status, urls)
                times[kind].append(total)
        base = kinds[-1]
        print(f"page {PAGES}, {rounds} alternating rounds, all servers up at once; load "
              f"{os.getloadavg()[0]:.1f}")
        for kind in kinds:
            print(f"{kind:<26} median {statistics.median(times[kind]):.3f} s  (min {min(times[kind]):.3f}, "
                  f"max {max(times[kind]):.3f})")
        for kind in kinds[:-1]:
            ratios = [b / a for a, b in zip(times[kind], times[base], strict=True)]
            print(f"{kind} vs {base}: median ratio {statistics.median(ratios):.1f}x (per round: "
                  f"{', '.join(f'{x:.1f}' for x in ratios)})")
    finally:
        for proc, _port, _s in servers.values():
            proc.terminate()
            proc.wait(timeout=30)


def measure(kind: str, db: Path, repeat: int) -> dict[str, Any]:
    proc, port, listen = start(kind, db)
    try:
        row: dict[str, Any] = {"kind": kind, "listen": listen}
        first = time.perf_counter()
        status = fetch(port, "/sitemap.xml")[2]  # the first answer: the index
        row["first"] = time.perf_counter() - first
        assert status == 200, (kind, status)

        def target(n: int) -> str:
            return page_target(kind, n)

        fetch(port, target(1))  # warm up (imports, templates, first connection)
        for n in (1, PAGES):
            runs = [fetch(port, target(n)) for _ in range(repeat)]
            assert all(r[2] == 200 and r[3] == 50_000 for r in runs), (kind, n, runs[0][2:])
            row[f"ttfb{n}"] = statistics.median(r[0] for r in runs)
            row[f"total{n}"] = statistics.median(r[1] for r in runs)
        etag = _etag(port, target(PAGES))
        row["304"] = statistics.median(_conditional(port, target(PAGES), etag) for _ in range(repeat)) if etag else None
        rss_before = _status(proc.pid, "VmRSS")
        try:
            Path(f"/proc/{proc.pid}/clear_refs").write_text("5")  # reset VmHWM to the current RSS
        except OSError:
            pass
        started = time.perf_counter()
        urls = sum(fetch(port, target(n))[3] for n in range(1, PAGES + 1))
        row["all"] = time.perf_counter() - started
        assert urls == ROWS, (kind, urls)
        row["rss"] = rss_before
        row["peak"] = _status(proc.pid, "VmHWM")
        return row
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="runs per page (median reported)")
    parser.add_argument("--server", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, default=WORK / "products.db")
    parser.add_argument("--kinds", default="sitemapkit-uvicorn,sitemapkit-uvicorn-stats,sitemapkit-django,"
                        "django-contrib-sitemaps", help="servers to measure, comma-separated (django last)")
    parser.add_argument("--pairs", type=int, default=0, metavar="ROUNDS",
                        help="only page 20, from every server in turn for ROUNDS rounds, all up at once")
    args = parser.parse_args()
    if args.server:
        run_server(args.server, args.port, args.db)
        return
    build_db(args.db)
    if args.pairs:
        pairs(args.db, args.kinds.split(","), args.pairs)
        return
    rows = [measure(kind, args.db, args.repeat) for kind in args.kinds.split(",")]
    mib = 1024 * 1024
    print(f"{PAGES} pages of 50,000 URLs from a {ROWS:,}-row SQLite table; median of {args.repeat} runs; "
          f"{os.cpu_count()} CPUs")
    print(f"{'server':<26}{'listen s':>9}{'first s':>8}{'p1 ttfb':>9}{'p1 total':>10}{'p20 ttfb':>10}"
          f"{'p20 total':>11}{'304 s':>7}{'all 20 s':>10}{'RSS MiB':>9}{'peak MiB':>10}")
    for r in rows:
        c304 = f"{r['304']:>7.3f}" if r["304"] is not None else f"{'-':>7}"
        print(f"{r['kind']:<26}{r['listen']:>9.2f}{r['first']:>8.3f}{r['ttfb1']:>9.3f}{r['total1']:>10.3f}"
              f"{r[f'ttfb{PAGES}']:>10.3f}{r[f'total{PAGES}']:>11.3f}{c304}{r['all']:>10.2f}"
              f"{r['rss'] / mib:>9.1f}{r['peak'] / mib:>10.1f}")
    if rows[-1]["kind"] != "django-contrib-sitemaps":
        return
    base = rows[-1][f"total{PAGES}"]
    for r in rows[:-1]:
        print(f"page {PAGES}: {r['kind']} is {base / r[f'total{PAGES}']:.1f}x faster than django.contrib.sitemaps "
              f"(total), {rows[-1][f'ttfb{PAGES}'] / r[f'ttfb{PAGES}']:.0f}x to first byte")


if __name__ == "__main__":
    main()
