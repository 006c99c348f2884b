"""Reader benchmark: entries/s and peak RSS, sitemapkit vs ultimate-sitemap-parser, Scrapy and a bare ElementTree.

    python benchmarks/bench_reader.py            # full run: 1,000,000 URLs plain + gzip, 50,000 with extensions
    python benchmarks/bench_reader.py --files 4  # quicker: 200,000 URLs
    python benchmarks/bench_reader.py --repeat 2 # every case twice (interleaved), fastest run kept

Files are generated under benchmarks/_work/reader/ (20 urlsets of 50,000 URLs plus an index, plain and gzip;
one urlset of 50,000 URLs with 2 images and 3 hreflang alternates each). Every case runs in a fresh subprocess,
which reports its own peak RSS (ru_maxrss). The comparison tools are installed by benchmarks/setup_reader.sh into
benchmarks/_work/venv-reader (run automatically when missing); their cases run there, in the same run.

What each case materialises:
- sitemapkit: full UrlEntry objects (loc normalised, lastmod parsed into LastMod, changefreq enum, priority float,
  images/alternates as model objects), index followed to its 20 children; streaming (256 KiB reads).
- usp: its SitemapPage objects (it parses dates too), index followed through a local web client.
- scrapy: scrapy.utils.sitemap.Sitemap dicts of strings (no date parsing); whole file in memory, as Scrapy does.
- etree: xml.etree.ElementTree.iterparse pulling only loc and lastmod text (the floor for a Python reader).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work" / "reader"
VENV = HERE / "_work" / "venv-reader"
VENV_PY = VENV / "bin" / "python"
BASE = "https://bench.example.com/"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
PER_FILE = 50_000
CHANGEFREQS = ("daily", "weekly", "monthly", "hourly")


# --- data ---------------------------------------------------------------------------------------------------

def _lastmod(i: int) -> str:
    # A distinct timestamp per URL (as CMSs write them): no cache can make lastmod parsing free.
    t = 1_600_000_000 + i * 37
    days, rest = divmod(t, 86400)
    y, doy = 2020 + days // 366 % 5, days % 365
    mo, d = doy // 31 + 1, doy % 28 + 1
    return f"{y:04d}-{mo:02d}-{d:02d}T{rest // 3600:02d}:{rest // 60 % 60:02d}:{rest % 60:02d}+00:00"


def _urlset(first: int, count: int) -> Iterator[str]:
    yield f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
    for i in range(first, first + count):
        yield (f"<url><loc>{BASE}section-{i % 97}/page-{i}.html</loc><lastmod>{_lastmod(i)}</lastmod>"
               f"<changefreq>{CHANGEFREQS[i % 4]}</changefreq><priority>0.{i % 10}</priority></url>\n")
    yield "</urlset>\n"


def _ext_urlset(count: int) -> Iterator[str]:
    yield (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
           'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
           'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n')
    for i in range(count):
        page = f"section-{i % 97}/page-{i}.html"
        yield (f"<url><loc>{BASE}{page}</loc><lastmod>{_lastmod(i)}</lastmod>"
               f"<image:image><image:loc>https://cdn.example.com/img/{i}-1.jpg</image:loc></image:image>"
               f"<image:image><image:loc>https://cdn.example.com/img/{i}-2.jpg</image:loc></image:image>"
               f'<xhtml:link rel="alternate" hreflang="en" href="{BASE}{page}"/>'
               f'<xhtml:link rel="alternate" hreflang="de" href="{BASE}de/{page}"/>'
               f'<xhtml:link rel="alternate" hreflang="x-default" href="{BASE}{page}"/></url>\n')
    yield "</urlset>\n"


def generate(files: int) -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    stamp = WORK / f"generated-{files}"
    if stamp.exists():
        return
    for old in WORK.glob("*.xml*"):
        old.unlink()
    for gz in (False, True):
        suffix = ".xml.gz" if gz else ".xml"
        names = []
        for n in range(files):
            name = f"sitemap-{n + 1}{suffix}"
            names.append(name)
            data = "".join(_urlset(n * PER_FILE, PER_FILE)).encode()
            (WORK / name).write_bytes(gzip.compress(data, 6) if gz else data)
        index = [f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n']
        index += [f"<sitemap><loc>{BASE}{name}</loc><lastmod>2024-05-01</lastmod></sitemap>\n" for name in names]
        index.append("</sitemapindex>\n")
        data = "".join(index).encode()
        (WORK / f"index{suffix}").write_bytes(gzip.compress(data) if gz else data)
    (WORK / "ext.xml").write_bytes("".join(_ext_urlset(PER_FILE)).encode())
    stamp.touch()


def _local(url: str) -> Path:
    return WORK / url.rsplit("/", 1)[1]


# --- cases (each runs in its own process) ---------------------------------------------------------------

def case_sitemapkit(index: str) -> int:
    from sitemapkit import SitemapRef, UrlEntry, iter_events

    n = 0
    children = [e for e in iter_events(WORK / index) if isinstance(e, SitemapRef)]
    for child in children:
        for e in iter_events(_local(child.loc)):
            if type(e) is UrlEntry:
                n += 1
    return n


def case_sitemapkit_ext(name: str) -> int:
    from sitemapkit import UrlEntry, iter_events

    n = 0
    for e in iter_events(WORK / name):
        if type(e) is UrlEntry:
            if len(e.images) != 2 or len(e.alternates) != 3:
                raise RuntimeError(f"extensions lost on {e.loc}")
            n += 1
    return n


def case_sitemapkit_no_lane(index: str) -> int:
    """The same with the fast lane switched off (every <url> through lxml elements): the A/B in the same run."""
    import sitemapkit.read._lane

    sitemapkit.read._lane.ENABLED = False
    return case_sitemapkit(index)


def case_sitemapkit_ext_no_lane(name: str) -> int:
    import sitemapkit.read._lane

    sitemapkit.read._lane.ENABLED = False
    return case_sitemapkit_ext(name)


def case_etree(index: str) -> int:
    import xml.etree.ElementTree as ET

    loc_tag, lastmod_tag, url_tag = f"{{{NS}}}loc", f"{{{NS}}}lastmod", f"{{{NS}}}url"

    def opener(p: Path) -> object:
        return gzip.open(p, "rb") if p.suffix == ".gz" else p.open("rb")

    with opener(WORK / index) as fh:  # type: ignore[attr-defined]
        children = [el.text for _, el in ET.iterparse(fh) if el.tag == loc_tag]
    n = 0
    for child in children:
        with opener(_local(child or "")) as fh:  # type: ignore[attr-defined]
            for _, el in ET.iterparse(fh):
                if el.tag == url_tag:
                    _loc, _lastmod = el.findtext(loc_tag), el.findtext(lastmod_tag)
                    n += 1
                    el.clear()
    return n


def _usp_client() -> object:
    from usp.web_client.abstract_client import AbstractWebClient, AbstractWebClientSuccessResponse

    class FileResponse(AbstractWebClientSuccessResponse):  # type: ignore[misc]
        def __init__(self, url: str, data: bytes) -> None:
            self._url, self._data = url, data

        def status_code(self) -> int:
            return 200

        def status_message(self) -> str:
            return "OK"

        def header(self, case_insensitive_name: str) -> str | None:
            return None

        def raw_data(self) -> bytes:
            return self._data  # gzip included: usp gunzips by magic bytes / extension

        def url(self) -> str:
            return self._url

    class FileClient(AbstractWebClient):  # type: ignore[misc]
        def set_max_response_data_length(self, max_response_data_length: int | None) -> None:
            pass

        def get(self, url: str) -> object:
            return FileResponse(url, _local(url).read_bytes())

    return FileClient()


def case_usp(index: str) -> int:
    from usp.fetch_parse import SitemapFetcher

    tree = SitemapFetcher(url=BASE + index, recursion_level=0, web_client=_usp_client()).sitemap()
    return sum(1 for _ in tree.all_pages())


def case_scrapy(index: str) -> int:
    from scrapy.utils.sitemap import Sitemap

    def body(p: Path) -> bytes:
        data = p.read_bytes()
        return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data

    children = [d["loc"] for d in Sitemap(body(WORK / index))]
    n = 0
    for child in children:
        for _d in Sitemap(body(_local(child))):
            n += 1
    return n


# --- engine comparison (the measurement behind the choice of lxml; ARCHITECTURE.md "Reader") -----------------

def _engine_lxml(data: bytes) -> int:
    from lxml import etree

    p = etree.XMLPullParser(events=("end",), tag=f"{{{NS}}}url", resolve_entities=False, no_network=True)
    n = 0
    for i in range(0, len(data), 262144):
        p.feed(data[i:i + 262144])
        last = None
        for _, el in p.read_events():
            fields = {c.tag: c.text for c in el}
            n += len(fields) > 0
            last = el
        if last is not None:
            parent = last.getparent()
            del parent[:parent.index(last) + 1]
    p.close()
    return n


def _engine_etree(data: bytes) -> int:
    import xml.etree.ElementTree as ET

    p = ET.XMLPullParser(events=("end",))
    url_tag = f"{{{NS}}}url"
    n = 0
    for i in range(0, len(data), 262144):
        p.feed(data[i:i + 262144])
        for _, el in p.read_events():
            if el.tag == url_tag:
                fields = {c.tag: c.text for c in el}
                n += len(fields) > 0
                el.clear()
    p.close()
    return n


def _engine_expat(data: bytes) -> int:
    import pyexpat

    p = pyexpat.ParserCreate(namespace_separator="}")
    p.buffer_text = True
    n = 0
    text: list[str] = []
    fields: dict[str, str] = {}
    url_tag = f"{NS}}}url"

    def start(name: str, attrs: object) -> None:
        text.clear()

    def end(name: str) -> None:
        nonlocal n
        if name == url_tag:
            n += len(fields) > 0
            fields.clear()
        else:
            fields[name] = "".join(text)

    p.StartElementHandler = start
    p.EndElementHandler = end
    p.CharacterDataHandler = text.append
    for i in range(0, len(data), 262144):
        p.Parse(data[i:i + 262144], False)
    p.Parse(b"", True)
    return n


def engines() -> None:
    data = (WORK / "sitemap-1.xml").read_bytes()
    print("Engine comparison: extract the four core fields of 50,000 <url> (no model objects), best of 5, CPU time")
    for name, func in (("lxml XMLPullParser + tag filter", _engine_lxml),
                       ("xml.etree XMLPullParser (expat)", _engine_etree),
                       ("pyexpat callbacks", _engine_expat)):
        best = float("inf")
        for _ in range(5):
            cpu = time.process_time()
            n = func(data)
            best = min(best, time.process_time() - cpu)
        print(f"  {name:35s} {n / best:>10,.0f} urls/s")


# --- where the time goes (parts stubbed out one after another; interleaved best-of-N CPU time) --------------

def breakdown(reps: int = 12) -> None:
    import sitemapkit.read._xml as rx
    from sitemapkit import LastMod, SitemapParser

    full = (WORK / "sitemap-1.xml").read_bytes()
    cut = 0
    for _ in range(10_001):
        cut = full.index(b"<url>", cut + 1)
    data = full[:cut] + b"</urlset>\n"
    n = 10_000

    def run() -> None:
        p = SitemapParser("bench")
        got = 0
        for i in range(0, len(data), 65536):  # the drivers' read size (READ_CHUNK)
            got += len(p.feed(data[i:i + 65536]))
        got += len(p.close())
        if got != n:
            raise RuntimeError(f"expected {n} events, got {got}")

    class Stub:
        __slots__ = ("loc",)

        def __init__(self, loc: str, *_args: object) -> None:
            self.loc = loc

    one = LastMod("2024-01-01")
    import sitemapkit.read._lane as rf

    names = ("lastmod_of_valid_form", "canonical_url_entry", "DUPLICATE_TRACKING_LIMIT")
    orig = {(m, a): getattr(m, a) for m in (rx, rf) for a in names}

    def variant(v: int) -> None:
        for (m, a), value in orig.items():
            setattr(m, a, value)
        rf.ENABLED = v != 4
        stubs: dict[str, object] = {}
        if v in (1, 2, 3):
            stubs["lastmod_of_valid_form"] = lambda text: one
        if v in (2, 3):
            stubs["canonical_url_entry"] = Stub
        if v == 3:
            stubs["DUPLICATE_TRACKING_LIMIT"] = 0  # no hash set kept (one lookup remains)
        for m in (rx, rf):
            for a, value in stubs.items():
                setattr(m, a, value)

    labels = ["full pipeline (fast lane)", "- LastMod from text (stubbed)", "- UrlEntry building (stubbed)",
              "- duplicate tracking", "full pipeline, element path only"]
    best = [float("inf")] * len(labels)
    for _ in range(reps):
        for v in range(len(labels)):
            variant(v)
            cpu = time.process_time()
            run()
            best[v] = min(best[v], time.process_time() - cpu)
    variant(0)
    print(f"Where the time goes: 10,000 full entries, best of {reps} interleaved runs, CPU time per entry")
    for v, label in enumerate(labels[:4]):
        delta = (best[v - 1] - best[v]) / n * 1e6 if v else 0.0
        print(f"  {label:34s} {best[v] / n * 1e6:6.2f} us/entry  ({n / best[v]:>9,.0f}/s)  part: {delta:5.2f} us")
    print(f"  {'= block regex, loop, feeding':34s} {best[3] / n * 1e6:6.2f} us/entry")
    print(f"  {labels[4]:34s} {best[4] / n * 1e6:6.2f} us/entry  ({n / best[4]:>9,.0f}/s)  "
          f"lane speed-up {best[4] / best[0]:.2f}x")


def case_scrapy_single(name: str) -> int:
    from scrapy.utils.sitemap import Sitemap

    return sum(1 for _d in Sitemap((WORK / name).read_bytes()))


CASES: dict[str, tuple[str, Callable[[str], int], str]] = {
    # name: (interpreter, function, file)
    "sitemapkit plain": ("main", case_sitemapkit, "index.xml"),
    "sitemapkit gzip": ("main", case_sitemapkit, "index.xml.gz"),
    "etree iterparse plain (loc+lastmod only)": ("main", case_etree, "index.xml"),
    "etree iterparse gzip (loc+lastmod only)": ("main", case_etree, "index.xml.gz"),
    "usp plain": ("venv", case_usp, "index.xml"),
    "usp gzip": ("venv", case_usp, "index.xml.gz"),
    "scrapy plain": ("venv", case_scrapy, "index.xml"),
    "scrapy gzip": ("venv", case_scrapy, "index.xml.gz"),
    "sitemapkit extensions": ("main", case_sitemapkit_ext, "ext.xml"),
    "sitemapkit plain, element path only": ("main", case_sitemapkit_no_lane, "index.xml"),
    "sitemapkit extensions, element path only": ("main", case_sitemapkit_ext_no_lane, "ext.xml"),
    "usp extensions": ("venv", case_usp, "ext.xml"),
    "scrapy extensions": ("venv", case_scrapy_single, "ext.xml"),
}


def run_case(name: str) -> None:
    """Child process: run one case, print a JSON line."""
    _interp, func, file = CASES[name]
    if func in (case_usp,):
        import logging

        logging.disable(logging.CRITICAL)  # usp logs every sitemap at INFO
    start = time.perf_counter()
    cpu = time.process_time()
    n = func(file)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu
    print(json.dumps({"case": name, "entries": n, "wall": wall, "cpu": cpu, "rss_mb": _peak_rss_kib() / 1024}))


def _peak_rss_kib() -> int:
    """Peak RSS of this process. VmHWM (reset by exec) rather than ru_maxrss, which Linux carries over from the
    forked parent across exec and would charge the parent's memory to the child."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _interpreter(kind: str) -> str | None:
    if kind == "main":
        return sys.executable
    if not VENV_PY.exists():
        setup = HERE / "setup_reader.sh"
        print(f"installing comparison tools with {setup} ...", file=sys.stderr)
        subprocess.run(["bash", str(setup)], check=True)
    return str(VENV_PY) if VENV_PY.exists() else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=20, help="urlset files of 50,000 URLs (default 20)")
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--only", nargs="*", help="run only cases whose name contains one of these words")
    ap.add_argument("--engines", action="store_true", help="only compare the candidate XML engines")
    ap.add_argument("--breakdown", action="store_true", help="only show where sitemapkit's time per entry goes")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run every case this many times (interleaved, fresh process each) and keep each case's "
                         "fastest run: other load on a shared machine then hurts every contender less")
    args = ap.parse_args()
    if args.case:
        run_case(args.case)
        return
    generate(args.files)
    if args.engines:
        engines()
        return
    if args.breakdown:
        breakdown()
        return
    best: dict[str, dict[str, float]] = {}
    for _round in range(max(1, args.repeat)):
        for name, (interp, _func, _file) in CASES.items():
            if args.only and not any(word in name for word in args.only):
                continue
            python = _interpreter(interp)
            if python is None:
                print(f"skipping {name}: interpreter missing", file=sys.stderr)
                continue
            env = dict(os.environ, PYTHONHASHSEED="0")
            proc = subprocess.run([python, str(Path(__file__).resolve()), "--files", str(args.files), "--case", name],
                                  capture_output=True, text=True, env=env, check=False)
            if proc.returncode != 0:
                print(f"{name}: FAILED\n{proc.stderr[-2000:]}", file=sys.stderr)
                continue
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"  {name:45s} {row['entries']:>9,} entries  {row['entries'] / row['wall']:>9,.0f}/s wall  "
                  f"{row['entries'] / row['cpu']:>9,.0f}/s cpu  {row['rss_mb']:6.1f} MB", file=sys.stderr)
            if name not in best or row["wall"] < best[name]["wall"]:
                best[name] = row
    rows = list(best.values())
    by = {r["case"]: r for r in rows}
    print(f"\nReader benchmark ({args.files} x {PER_FILE:,} URLs + index; extensions: {PER_FILE:,} URLs x "
          f"(2 images + 3 alternates)); {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"best of {max(1, args.repeat)} run(s) per case; load average {os.getloadavg()[0]:.2f}")
    print(f"{'case':45s} {'entries':>10s} {'entries/s':>11s} {'cpu entries/s':>14s} {'peak RSS':>9s} "
          f"{'vs sitemapkit':>14s}")
    for r in rows:
        group = "extensions" if "extensions" in r["case"] else ("gzip" if "gzip" in r["case"] else "plain")
        ours = by.get(f"sitemapkit {group}")
        ratio = f"{(ours['entries'] / ours['wall']) / (r['entries'] / r['wall']):.2f}x" if ours else "-"
        print(f"{r['case']:45s} {r['entries']:>10,} {r['entries'] / r['wall']:>11,.0f} "
              f"{r['entries'] / r['cpu']:>14,.0f} {r['rss_mb']:>7.1f}MB {ratio:>14s}")


if __name__ == "__main__":
    main()
