"""Crawl benchmark: sitemapkit crawl vs a minimal Scrapy spider on the same local static site, same run.

    python benchmarks/bench_crawl.py                 # 20,000-page comparison + 200,000-page memory run
    python benchmarks/bench_crawl.py --big 0         # comparison only
    python benchmarks/bench_crawl.py --parsers       # also time selectolax vs lxml.html on generated pages

What it does:
1. generates static sites under benchmarks/_work/ (pages with a nav bar, ~20 links each, breadcrumbs,
   relative and absolute links, text; ~3 KB), once;
2. serves them with nginx (apt package; one worker process) on 127.0.0.1, a separate process;
3. runs `sitemapkit crawl` (the real CLI, subprocess) and `scrapy runspider` with a minimal spider following
   every a[href] (installed into benchmarks/_work/venv, never a project dependency), both with the same
   concurrency, and robots.txt obeyed by both;
4. prints pages/s (wall clock, start to exit, end to end: sitemapkit includes writing the sitemap and reports)
   and the peak RSS of each process (``wait4`` rusage).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import textwrap
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
PORT = 18731
SCRAPY_VENV = WORK / "venv"

SPIDER = textwrap.dedent('''
    import scrapy

    class Follow(scrapy.Spider):
        name = "follow"
        custom_settings = {"LOG_LEVEL": "WARNING", "ROBOTSTXT_OBEY": True, "COOKIES_ENABLED": False,
                           "TELNETCONSOLE_ENABLED": False, "RETRY_TIMES": 2}

        def __init__(self, start=None, *a, **kw):
            super().__init__(*a, **kw)
            self.start_urls = [start]
            self.pages = 0

        def parse(self, response):
            self.pages += 1
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href, callback=self.parse)

        def closed(self, reason):
            print("SCRAPY_PAGES", self.pages, flush=True)
''')


def make_site(root: Path, n_pages: int) -> None:
    marker = root / ".complete"
    if marker.exists():
        return
    if root.exists():
        shutil.rmtree(root)
    per_section = 100
    sections = max(1, n_pages // per_section)
    root.mkdir(parents=True)
    (root / "robots.txt").write_text("User-agent: *\nDisallow: /admin/\n")
    nav = "".join(f'<li><a href="/s{s}/">Section {s}</a></li>' for s in range(min(sections, 12)))
    words = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore "
             "et dolore magna aliqua ").split()

    def page(title: str, body: str) -> str:
        return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
                "<link rel=stylesheet href=/style.css><meta name=viewport content='width=device-width'>"
                f"</head><body><header><a href=/>Home</a><nav><ul>{nav}</ul></nav></header>"
                f"<main><h1>{title}</h1>{body}</main><footer><a href=/about.html>About</a> "
                "<a href=/contact.html>Contact</a> <a href='mailto:x@example.org'>Mail</a></footer></body></html>")

    index = "".join(f'<li><a href="/s{s}/">Section {s}</a></li>' for s in range(sections))
    (root / "index.html").write_text(page("Home", f"<ul>{index}</ul>"))
    for extra in ("about", "contact"):
        (root / f"{extra}.html").write_text(page(extra.title(), "<p>Static page.</p>"))
    for s in range(sections):
        d = root / f"s{s}"
        d.mkdir()
        listing = "".join(f'<li><a href="p{i}.html">Page {i}</a></li>' for i in range(per_section))
        (d / "index.html").write_text(page(f"Section {s}", f"<ul>{listing}</ul>"))
        for i in range(per_section):
            text = " ".join(words[(i + k) % len(words)] for k in range(250))
            links = "".join(f'<a href="p{(i + k) % per_section}.html">related {k}</a> ' for k in (1, 2, 3, 5, 8))
            links += f'<a href="../s{(s + 1) % sections}/p{i}.html">next section</a> '
            links += f'<a href="/s{(s * 7 + i) % sections}/p{(i * 3) % per_section}.html">elsewhere</a>'
            (d / f"p{i}.html").write_text(page(f"Page {s}-{i}", f"<p>{text}</p><p>{links}</p>"))
    marker.write_text("ok")


def start_nginx(root: Path) -> subprocess.Popen[bytes]:
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        sys.exit("nginx is needed: apt-get update && apt-get install -y nginx")
    prefix = WORK / "nginx"
    (prefix / "logs").mkdir(parents=True, exist_ok=True)
    conf = prefix / "nginx.conf"
    conf.write_text(textwrap.dedent(f"""
        worker_processes 1;
        daemon off;
        error_log {prefix}/logs/error.log error;
        pid {prefix}/nginx.pid;
        events {{ worker_connections 1024; }}
        http {{
            access_log off;
            sendfile on;
            tcp_nodelay on;
            keepalive_requests 100000;
            types {{ text/html html; text/plain txt; }}
            default_type application/octet-stream;
            server {{
                listen 127.0.0.1:{PORT};
                root {root};
                index index.html;
            }}
        }}
    """))
    proc = subprocess.Popen([nginx, "-p", str(prefix), "-c", str(conf)])
    time.sleep(0.5)
    if proc.poll() is not None:
        sys.exit("nginx did not start")
    return proc


def ensure_scrapy() -> Path:
    python = SCRAPY_VENV / "bin" / "python"
    if not python.exists():
        venv.create(SCRAPY_VENV, with_pip=True)
    check = subprocess.run([python, "-c", "import scrapy"], capture_output=True)
    if check.returncode != 0:
        subprocess.run([python, "-m", "pip", "install", "-q", "scrapy"], check=True)
    return python


def run_measured(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in MB and stdout of a command."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    out_chunks = []
    assert proc.stdout is not None
    # Read before waiting so a chatty child cannot block on a full pipe.
    out_chunks.append(proc.stdout.read())
    _, status, rusage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode not in (0,):
        print(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{err[-2000:]}", file=sys.stderr)
    return elapsed, rusage.ru_maxrss // 1024, b"".join(out_chunks).decode(errors="replace")


def crawl_sitemapkit(url: str, concurrency: int, tag: str) -> tuple[float, int, int]:
    out = WORK / f"out-{tag}"
    if out.exists():
        shutil.rmtree(out)
    elapsed, rss, _ = run_measured([sys.executable, "-m", "sitemapkit", "crawl", url, "--out", str(out),
                                    "--concurrency", str(concurrency)])
    import json

    report = json.loads((out / "crawl-report.json").read_text())
    return elapsed, rss, int(report["pages_crawled"])


def crawl_scrapy(python: Path, url: str, concurrency: int) -> tuple[float, int, int]:
    spider = WORK / "follow_spider.py"
    spider.write_text(SPIDER)
    elapsed, rss, out = run_measured([str(python), "-m", "scrapy", "runspider", str(spider), "-a", f"start={url}",
                                      "-s", f"CONCURRENT_REQUESTS={concurrency}",
                                      "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={concurrency}"])
    pages = next((int(line.split()[1]) for line in out.splitlines() if line.startswith("SCRAPY_PAGES")), 0)
    return elapsed, rss, pages


def bench_parsers() -> None:
    from selectolax.lexbor import LexborHTMLParser  # noqa: F401  (imported by extract_page)

    import lxml.html

    from sitemapkit._html import extract_page

    pages = [p.read_bytes() for p in sorted((WORK / "site-20000" / "s1").glob("p*.html"))[:50]]

    def with_lxml(body: bytes) -> int:
        doc = lxml.html.fromstring(body)
        n = 0
        for el in doc.iter("a", "area", "link", "meta", "base", "img"):
            if el.get("href") or el.get("content") or el.get("src"):
                n += 1
        return n

    rows = []
    for name, fn in [("selectolax (extract_page, no fingerprint)", lambda b: extract_page(b, fingerprint=False)),
                     ("selectolax (extract_page + fingerprint)", extract_page),
                     ("lxml.html (iter links/meta/img)", with_lxml)]:
        n, start = 0, time.perf_counter()
        while time.perf_counter() - start < 2.0:
            for body in pages:
                fn(body)  # type: ignore[operator]
                n += 1
        rows.append((name, n / (time.perf_counter() - start)))
    print("\nHTML extraction, generated 3 KB pages (pages/s, one core):")
    for name, rate in rows:
        print(f"  {name:45} {rate:10,.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=20_000)
    ap.add_argument("--big", type=int, default=200_000, help="pages of the memory run (0 to skip)")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--parsers", action="store_true")
    ap.add_argument("--skip-scrapy", action="store_true")
    args = ap.parse_args()
    WORK.mkdir(exist_ok=True)
    site = WORK / f"site-{args.pages}"
    t = time.perf_counter()
    make_site(site, args.pages)
    print(f"site: {args.pages:,} pages in {site} ({time.perf_counter() - t:.1f} s to generate)")
    python = None if args.skip_scrapy else ensure_scrapy()
    rows = []
    nginx = start_nginx(site)
    try:
        url = f"http://127.0.0.1:{PORT}/"
        sk = crawl_sitemapkit(url, args.concurrency, "small")
        rows.append(("sitemapkit crawl", *sk))
        if python is not None:
            sc = crawl_scrapy(python, url, args.concurrency)
            rows.append(("scrapy (minimal spider)", *sc))
    finally:
        nginx.terminate()
        nginx.wait()
    print(f"\nCrawl of {args.pages:,} pages, concurrency {args.concurrency}, nginx (1 worker) on 127.0.0.1:")
    print(f"  {'tool':28} {'pages':>8} {'seconds':>8} {'pages/s':>9} {'peak RSS MB':>12}")
    for name, secs, rss, pages in rows:
        print(f"  {name:28} {pages:>8,} {secs:>8.1f} {pages / secs:>9,.0f} {rss:>12,}")
    if len(rows) == 2:
        ratio = (rows[0][3] / rows[0][1]) / (rows[1][3] / rows[1][1])
        print(f"  ratio sitemapkit / scrapy (pages/s): {ratio:.2f}x")
    if args.parsers:
        bench_parsers()
    if args.big:
        big = WORK / f"site-{args.big}"
        t = time.perf_counter()
        make_site(big, args.big)
        print(f"\nsite: {args.big:,} pages ({time.perf_counter() - t:.1f} s to generate)")
        nginx = start_nginx(big)
        try:
            secs, rss, pages = crawl_sitemapkit(f"http://127.0.0.1:{PORT}/", args.concurrency, "big")
        finally:
            nginx.terminate()
            nginx.wait()
        print(f"  sitemapkit crawl {pages:,} pages in {secs:.1f} s ({pages / secs:,.0f} pages/s), peak RSS {rss} MB")


if __name__ == "__main__":
    main()
