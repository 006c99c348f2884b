"""Crawl benchmark at scale: a million-page site generated on the fly, crawled end to end by `sitemapkit crawl`;
and sitemapkit vs a minimal Scrapy spider on its first 100,000 pages, same run, alternating.

    python benchmarks/bench_crawl_scale.py                      # load test, 100k comparison, 1M run
    python benchmarks/bench_crawl_scale.py --million 0          # load test + comparison only
    python benchmarks/bench_crawl_scale.py --compare 0          # load test + the 1M run only

The site (a separate server process on 127.0.0.1: a raw asyncio HTTP/1.1 keep-alive server, pages made from
the path, nothing on disk) has ``--pages`` article pages ``/s{section}/p{n}.html`` (1,000 per section), 1,000-ish
section indexes ``/s{section}/`` (``/s{section}`` without the slash redirects there), ``/`` and ``/about.html``.
Every article links ~25 times: nav (``/``, ``/about.html``, its section with and without the slash), ten
"children" (page i links to 10i+1 .. 10i+10, so every page is reachable within ~7 clicks), next/prev (relative),
three related pages (absolute URLs), duplicates (``#fragment``, ``./``, ``?utm_source=``, ``;jsessionid=``,
``?sessionid=``, the same link twice), a mailto, a robots.txt-disallowed ``/private/`` link, and traps: an endless
calendar ``/cal?d=N`` (each links N-1, N+1), a ``/search?q=..&ref=p{i}`` with a different query on every page,
and on ``/`` a relative ``loop/`` link whose target links ``loop/`` again (``/t/loop/loop/...``).

Reported: pages/s (wall clock, process start to exit: sitemapkit includes writing the sitemaps and reports),
peak RSS (``wait4``: the largest single process) and the peak RSS of the crawl and its page-reading child together
(sampled every 0.25 s from /proc), and for the 1M run that RSS curve every ``--sample`` seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bench_crawl import SPIDER, ensure_scrapy  # noqa: E402  (the same Scrapy venv and spider)

WORK = HERE / "_work" / "scale"
PORT = 18741
PER_SECTION = 1000
_WORDS = ["lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do", "eiusmod",
          "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua"]
_TEXTS = [" ".join(_WORDS[(v + k) % len(_WORDS)] for k in range(300)) for v in range(len(_WORDS))]


# ------------------------------------------------------------------------------------------------ the site
class Site:
    """Pages from paths: ``render(target)`` gives (status, extra headers, body)."""

    def __init__(self, pages: int, port: int) -> None:
        self.n = pages
        self.origin = f"http://127.0.0.1:{port}"
        self.sections = (pages + PER_SECTION - 1) // PER_SECTION

    @staticmethod
    def _html(title: str, body: str) -> bytes:
        return (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{title}</title>"
                "<link rel=stylesheet href=/style.css><meta name=viewport content='width=device-width'></head>"
                f"<body><header><a href=/>Home</a> <a href=/about.html>About</a></header><main><h1>{title}</h1>"
                f"{body}</main><footer><a href='mailto:web@example.org'>Mail</a></footer></body></html>").encode()

    def _page_href(self, i: int, here_section: int) -> str:
        s, n = divmod(i, PER_SECTION)
        return f"p{n}.html" if s == here_section else f"/s{s}/p{n}.html"

    def article(self, i: int) -> bytes:
        s, n = divmod(i, PER_SECTION)
        links = [f'<a href="/s{s}/">Section {s}</a>', f'<a href="/s{s}">Section {s} (no slash)</a>']
        children = range(10 * i + 1, min(10 * i + 11, self.n))
        links += [f'<a href="{self._page_href(c, s)}">child</a>' for c in children]
        if i + 1 < self.n:
            nxt = self._page_href(i + 1, s) if (i + 1) // PER_SECTION == s else f"../s{s + 1}/p0.html"
            links += [f'<a href="{nxt}">next</a>', f'<a href="{nxt}#comments">comments</a>',
                      f'<a href="{nxt}?utm_source=feed&amp;utm_medium=rss">next (feed)</a>',
                      f'<a href="{nxt}">again</a>']
        if n > 0:
            links.append(f'<a href="./p{n - 1}.html">prev</a>')
        for k in range(1, 4):
            r = (i * 2654435761 + k * 40503) % self.n
            rs, rn = divmod(r, PER_SECTION)
            links.append(f'<a href="{self.origin}/s{rs}/p{rn}.html">related {k}</a>')
        links += [f'<a href="/s{s}/p{n}.html;jsessionid={i:08X}">self (session)</a>',
                  f'<a href="p{n}.html?sessionid=abc{i}">self (sid)</a>',
                  f'<a href="/cal?d={i % 3650}">calendar</a>',
                  f'<a href="/search?q={_WORDS[i % len(_WORDS)]}&amp;ref=p{i}">search</a>',
                  f'<a href="/private/s{s}.html">members</a>', "<a href='mailto:x@example.org'>mail</a>"]
        return self._html(f"Page {s}-{n}", f"<p>{_TEXTS[i % len(_TEXTS)]}</p><p>{' '.join(links)}</p>")

    def render(self, target: str) -> tuple[int, str, bytes]:
        path, _, query = target.partition("?")
        path = path.split(";", 1)[0]  # path parameters (;jsessionid=...) do not change the page, as on real sites
        if path.startswith("/s") and path.endswith(".html") and "/p" in path:
            sec, _, rest = path[2:].partition("/p")
            if sec.isdigit() and rest[:-5].isdigit():
                i = int(sec) * PER_SECTION + int(rest[:-5])
                if int(rest[:-5]) < PER_SECTION and i < self.n and (sec == "0" or sec[0] != "0"):
                    return 200, "", self.article(i)
        if path.startswith("/s") and path[2:].rstrip("/").isdigit():
            s = int(path[2:].rstrip("/"))
            if s < self.sections:
                if not path.endswith("/"):
                    return 301, f"Location: {path}/\r\n", b"moved"
                links = " ".join(f'<a href="p{n}.html">p{n}</a>' for n in range(0, 10))
                return 200, "", self._html(f"Section {s}", f"<p>{links} <a href=/s{(s + 1) % self.sections}/>next"
                                                           "</a></p>")
        if path == "/":
            links = " ".join(f'<a href="/s{s}/">s{s}</a>' for s in range(min(self.sections, 20)))
            return 200, "", self._html("Home", f'<p><a href="/s0/p0.html">start</a> {links} <a href="t/loop/">'
                                               "loop</a></p>")
        if path == "/about.html":
            return 200, "", self._html("About", "<p>About.</p>")
        if path == "/robots.txt":
            return 200, "", b"User-agent: *\nDisallow: /private/\n"
        if path == "/cal":
            d = int(query[2:]) if query.startswith("d=") and query[2:].isdigit() else 0
            return 200, "", self._html(f"Day {d}", f'<a href="/cal?d={d + 1}">next day</a> '
                                                   f'<a href="/cal?d={max(d - 1, 0)}">previous day</a>')
        if path == "/search":
            return 200, "", self._html("Search", f'<a href="/search?{query}&amp;page=2">more</a>')
        if path.startswith("/t/"):
            return 200, "", self._html("Loop", '<a href="loop/">deeper</a>')
        return 404, "", b"not found"


class _Http(asyncio.Protocol):
    """HTTP/1.1 with keep-alive, GET/HEAD, no request bodies: all a crawler sends."""

    site: Site
    served = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.t = transport
        self.buf = b""

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head, self.buf = self.buf[:end], self.buf[end + 4:]
            line, _, headers = head.partition(b"\r\n")
            method, target = line.split(b" ")[:2]
            if target == b"/__served":
                status, extra, body = 200, "", str(_Http.served).encode()
            else:
                _Http.served += 1
                status, extra, body = self.site.render(target.decode("latin-1"))
            ctype = "text/plain" if target == b"/robots.txt" or status != 200 else "text/html; charset=utf-8"
            close = b"connection: close" in headers.lower()
            reason = {200: "OK", 301: "Moved Permanently", 404: "Not Found"}[status]
            out = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {len(body)}\r\n{extra}"
                   f"{'Connection: close' if close else 'Connection: keep-alive'}\r\n\r\n").encode()
            self.t.write(out if method == b"HEAD" else out + body)  # type: ignore[attr-defined]
            if close:
                self.t.close()
                return


def serve(pages: int, port: int) -> None:
    _Http.site = Site(pages, port)

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(_Http, "127.0.0.1", port, backlog=1024)
        print("READY", flush=True)
        await server.serve_forever()

    asyncio.run(main())


def load_test(pages: int, port: int, seconds: float = 4.0, conns: int = 64) -> float:
    """Requests/s the server answers: ``conns`` keep-alive connections asking for random articles."""
    async def client(deadline: float, counts: list[int]) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        rnd = random.Random(len(counts))
        while time.perf_counter() < deadline:
            i = rnd.randrange(pages)
            writer.write(f"GET /s{i // PER_SECTION}/p{i % PER_SECTION}.html HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            counts[0] += 1
        writer.close()

    async def main() -> float:
        counts = [0]
        start = time.perf_counter()
        await asyncio.gather(*(client(start + seconds, counts) for _ in range(conns)))
        return counts[0] / (time.perf_counter() - start)

    return asyncio.run(main())


# ------------------------------------------------------------------------------------------------ the runs
def start_server(pages: int) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(pages)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != b"READY":
        sys.exit("the site server did not start")
    return proc


def served() -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{PORT}/__served", timeout=5) as r:
        return int(r.read())


def tree_rss_mb(pid: int) -> int:
    """VmRSS of ``pid`` and its children (the crawl reads pages in a child process), in MB."""
    total = 0
    pids = [pid]
    try:
        pids += [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except (OSError, ValueError):
        pass
    for p in pids:
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(next(x for x in status.splitlines() if x.startswith("VmRSS")).split()[1])
        except (OSError, StopIteration, ValueError):
            pass
    return total // 1024


def run_measured(cmd: list[str], sample: float = 0.0) -> tuple[float, int, str, list[tuple[float, int, int]], int]:
    """Wall seconds, peak RSS MB (wait4: the largest single process), stdout, RSS samples (seconds, MB of the
    process and its children, requests served so far), and the peak RSS of the process and its children together
    (sampled every 0.25 s)."""
    samples: list[tuple[float, int, int]] = []
    tree_peak = [0]
    log_out, log_err = WORK / f"run-{os.getpid()}.stdout", WORK / f"run-{os.getpid()}.stderr"
    with log_out.open("wb") as out, log_err.open("wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        done = threading.Event()

        def sampler() -> None:
            last = 0.0
            while not done.wait(0.25):
                rss = tree_rss_mb(proc.pid)
                tree_peak[0] = max(tree_peak[0], rss)
                now = time.perf_counter() - start
                if sample and now - last >= sample:
                    last = now
                    try:
                        samples.append((now, rss, served()))
                    except OSError:
                        pass

        thread = threading.Thread(target=sampler, daemon=True)
        thread.start()
        _, status, rusage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        done.set()
    # Read through the still open descriptors' files: nothing else can have replaced them meanwhile.
    if os.waitstatus_to_exitcode(status) != 0:
        print(f"command failed: {' '.join(cmd)}\n{log_err.read_text(errors='replace')[-2000:]}", file=sys.stderr)
    return elapsed, rusage.ru_maxrss // 1024, log_out.read_text(errors="replace"), samples, tree_peak[0]


def crawl_sitemapkit(concurrency: int, max_pages: int | None, tag: str, sample: float = 0.0) -> dict[str, object]:
    out, state = WORK / f"out-{tag}", WORK / f"state-{tag}.sqlite"
    shutil.rmtree(out, ignore_errors=True)
    for leftover in (state, Path(f"{state}-wal"), Path(f"{state}-shm")):
        leftover.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "sitemapkit", "crawl", f"http://127.0.0.1:{PORT}/", "--out", str(out),
           "--state", str(state), "--concurrency", str(concurrency), "--quiet"]
    if max_pages:
        cmd += ["--max-pages", str(max_pages)]
    secs, rss, _, samples, tree = run_measured(cmd, sample)
    report = json.loads((out.with_name(out.name + "-report") / "crawl-report.json").read_text())  # --report-dir
    db = sqlite3.connect(state)
    real = db.execute("SELECT count(*) FROM urls WHERE in_sitemap = 1 AND url GLOB '*/s[0-9]*/p[0-9]*.html'").fetchone()
    reasons = dict(db.execute("SELECT reason, count(*) FROM urls WHERE reason IS NOT NULL GROUP BY reason"))
    traps = db.execute("SELECT count(*) FROM urls WHERE state = 2 AND (url GLOB '*/cal?*' OR url GLOB '*/search?*' "
                       "OR url GLOB '*/t/*')").fetchone()
    db.close()
    return {"secs": secs, "rss": rss, "tree_rss": tree, "pages": int(report["pages_crawled"]),
            "in_sitemap": report["in_sitemap"], "articles": real[0], "reasons": reasons, "trap_fetches": traps[0],
            "samples": samples,
            "state_mb": sum(p.stat().st_size for p in WORK.glob(f"state-{tag}.sqlite*")) // 2**20}


def crawl_scrapy(python: Path, concurrency: int, max_pages: int) -> dict[str, object]:
    spider = WORK / "follow_spider.py"
    spider.write_text(SPIDER)
    cmd = [str(python), "-m", "scrapy", "runspider", str(spider), "-a", f"start=http://127.0.0.1:{PORT}/",
           "-s", f"CONCURRENT_REQUESTS={concurrency}", "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={concurrency}",
           "-s", f"CLOSESPIDER_PAGECOUNT={max_pages}"]
    secs, rss, out, _, tree = run_measured(cmd)
    pages = next((int(line.split()[1]) for line in out.splitlines() if line.startswith("SCRAPY_PAGES")), 0)
    return {"secs": secs, "rss": rss, "tree_rss": tree, "pages": pages}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pages", type=int, default=1_000_000, help="article pages of the site")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--compare", type=int, default=100_000, help="pages of the Scrapy comparison (0: skip)")
    ap.add_argument("--rounds", type=int, default=1, help="comparison rounds (alternating; medians)")
    ap.add_argument("--scrapy-first", action="store_true", help="start the alternation with Scrapy")
    ap.add_argument("--million", type=int, default=1, help="1: crawl the whole site with sitemapkit")
    ap.add_argument("--sample", type=float, default=10.0, help="RSS sampling interval of the big run (s)")
    ap.add_argument("--serve", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve, PORT)
        return
    WORK.mkdir(parents=True, exist_ok=True)
    print(f"machine: nproc {os.cpu_count()}, {os.uname().machine}, load average at start "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    server = start_server(args.pages)
    try:
        print(f"site server: {load_test(args.pages, PORT):,.0f} requests/s alone (64 keep-alive connections, "
              "random articles, Python client in another process)")
        if args.compare:
            python = ensure_scrapy()
            sk_runs, sc_runs = [], []
            for r in range(args.rounds):
                order = ("sk", "sc") if (r + args.scrapy_first) % 2 == 0 else ("sc", "sk")
                for tool in order:
                    if tool == "sk":
                        sk_runs.append(crawl_sitemapkit(args.concurrency, args.compare, "compare"))
                    else:
                        sc_runs.append(crawl_scrapy(python, args.concurrency, args.compare))
            print(f"\nFirst {args.compare:,} pages, concurrency {args.concurrency}, {args.rounds} round(s), "
                  f"load average now {os.getloadavg()[0]:.2f}:")
            print(f"  {'tool':26} {'pages':>8} {'seconds':>8} {'pages/s':>9} {'peak RSS MB':>12} "
                  f"{'with children':>14}")
            for name, runs in (("sitemapkit crawl", sk_runs), ("scrapy (minimal spider)", sc_runs)):
                for run in runs:
                    pages, secs = int(run["pages"]), float(run["secs"])  # type: ignore[call-overload]
                    print(f"  {name:26} {pages:>8,} {secs:>8.1f} {pages / secs:>9,.0f} {run['rss']:>12,} "
                          f"{run['tree_rss']:>14,}")
            rate = [int(r["pages"]) / float(r["secs"]) for r in sk_runs]  # type: ignore[call-overload]
            peer = [int(r["pages"]) / float(r["secs"]) for r in sc_runs]  # type: ignore[call-overload]
            ratio = statistics.median(rate) / statistics.median(peer)
            print(f"  ratio sitemapkit / scrapy (median pages/s): {ratio:.2f}x"
                  f"  (per round: {', '.join(f'{a / b:.2f}' for a, b in zip(rate, peer, strict=True))})")
        if args.million:
            before = served()
            big = crawl_sitemapkit(args.concurrency, None, "million", args.sample)
            pages, secs = int(big["pages"]), float(big["secs"])  # type: ignore[call-overload]
            print(f"\nWhole site ({args.pages:,} articles + {args.pages // PER_SECTION:,} section pages + 2), "
                  f"concurrency {args.concurrency}, default limits, load average now {os.getloadavg()[0]:.2f}:")
            print(f"  sitemapkit crawl: {pages:,} URLs fetched in {secs:,.0f} s = {pages / secs:,.0f} pages/s, "
                  f"peak RSS {big['rss']} MB (largest process), {big['tree_rss']} MB with its children (sampled "
                  f"every 0.25 s), state file {big['state_mb']:,} MB")
            print(f"  in the sitemap {big['in_sitemap']:,} (articles {big['articles']:,} of {args.pages:,}); "
                  f"trap URLs fetched {big['trap_fetches']:,}; excluded by reason {big['reasons']}")
            samples = big["samples"]
            assert isinstance(samples, list)
            print("  RSS over time (s, MB, requests served):")
            for t, rss, n in samples:
                print(f"    {t:7.0f} {rss:6} {n - before:>10,}")
            (WORK / "million-rss.json").write_text(json.dumps(samples))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
