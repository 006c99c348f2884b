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
                if href.startswith(("mailto:", "javascript:", "tel:")):
                    continue  # not crawlable (scrapy raises on them); sitemapkit skips them too
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
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do",
             "eiusmod", "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua"]

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


def run_measured(cmd: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS in MB and stdout of a command (output goes to files: no pipe can fill up)."""
    log_out, log_err = WORK / "last.stdout", WORK / "last.stderr"
    with log_out.open("wb") as out, log_err.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, rusage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        tail = log_err.read_text(errors="replace")[-2000:]
        print(f"command failed ({proc.returncode}): {' '.join(cmd)}\n{tail}", file=sys.stderr)
    return elapsed, rusage.ru_maxrss // 1024, log_out.read_text(errors="replace")


def crawl_sitemapkit(url: str, concurrency: int, tag: str) -> tuple[float, int, int]:
    out = WORK / f"out-{tag}"
    if out.exists():
        shutil.rmtree(out)
    # A fresh state file per run, in the work folder (not the user cache): every run crawls from scratch.
    state = WORK / f"state-{tag}.sqlite"
    for leftover in (state, state.with_name(state.name + "-wal"), state.with_name(state.name + "-shm")):
        leftover.unlink(missing_ok=True)
    elapsed, rss, _ = run_measured([sys.executable, "-m", "sitemapkit", "crawl", url, "--out", str(out),
                                    "--state", str(state), "--concurrency", str(concurrency)])
    import json

    report = json.loads((out.with_name(out.name + "-report") / "crawl-report.json").read_text())  # --report-dir
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
    """The same extraction (a/area href, link rel/href/hreflang, meta name/content, base, img) with selectolax
    (lexbor) and with lxml.html, with and without the text fingerprint; best of 3 runs of 0.7 s each."""
    import glob
    import hashlib

    import lxml.html
    from selectolax.lexbor import LexborHTMLParser

    from sitemapkit.crawl._html import extract_page

    selector = "a[href], area[href], base[href], link[href], meta[name][content], img"
    skip = ("script", "style", "noscript", "template")

    def sx(body: bytes, fp: bool = False) -> int:
        tree = LexborHTMLParser(body)
        n = 0
        for node in tree.css(selector):
            tag, a = node.tag, node.attrs
            if tag in ("a", "area"):
                n += bool(a.get("href"))
            elif tag == "link":
                n += bool((a.get("rel"), a.get("href"), a.get("hreflang")))
            elif tag in ("meta", "base", "img"):
                n += bool((a.get("name"), a.get("content"), a.get("href"), a.get("src")))
        if fp:
            tree.strip_tags(list(skip))
            root = tree.body
            text = root.text(deep=True, separator=" ") if root is not None else ""
            hashlib.blake2b(" ".join(text.split()).encode()).digest()
        return n

    def lx(body: bytes, fp: bool = False) -> int:
        doc = lxml.html.fromstring(body)
        n = 0
        for el in doc.iter("a", "area", "link", "meta", "base", "img"):
            tag = el.tag
            if tag in ("a", "area"):
                n += bool(el.get("href"))
            elif tag == "link":
                n += bool((el.get("rel"), el.get("href"), el.get("hreflang")))
            else:
                n += bool((el.get("name"), el.get("content"), el.get("href"), el.get("src")))
        if fp:
            body_el = doc.find("body")
            parts: list[str] = []
            for el in (body_el if body_el is not None else doc).iter():
                if isinstance(el.tag, str) and el.tag not in skip and el.text:
                    parts.append(el.text)
                if el.tail:
                    parts.append(el.tail)
            hashlib.blake2b(" ".join(" ".join(parts).split()).encode()).digest()
        return n

    sets = {"generated pages": [p.read_bytes() for p in sorted((WORK / "site-20000" / "s1").glob("p*.html"))[:50]]}
    real = sorted(glob.glob("/root/.rustup/toolchains/*/share/doc/rust/html/rustdoc/**/*.html", recursive=True))[:20]
    if real:  # real-world pages when a local Rust toolchain ships its docs
        sets["rustdoc pages"] = [Path(p).read_bytes() for p in real]
    print("\nHTML extraction, same work with each parser (pages/s, one core, best of 3):")
    for label, pages in sets.items():
        avg = sum(map(len, pages)) // len(pages) // 1024
        for name, fn in [("selectolax/lexbor", lambda b: sx(b)), ("lxml.html", lambda b: lx(b)),
                         ("selectolax/lexbor + fingerprint", lambda b: sx(b, True)),
                         ("lxml.html + fingerprint", lambda b: lx(b, True)),
                         ("sitemapkit extract_page (+ fingerprint)", extract_page)]:
            best = 0.0
            for _ in range(3):
                n, start = 0, time.perf_counter()
                while time.perf_counter() - start < 0.7:
                    for body in pages:
                        fn(body)
                        n += 1
                best = max(best, n / (time.perf_counter() - start))
            print(f"  {label + f' ({avg} KB avg)':28} {name:42} {best:10,.0f}")


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
