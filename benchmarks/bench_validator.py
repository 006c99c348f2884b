"""Validator benchmark: sitemapkit validate vs bare lxml XSD validation vs xmllint --schema, same run.

    python benchmarks/bench_validator.py            # ~10 MB / 50,000 URLs, plus the 50 MiB memory run
    python benchmarks/bench_validator.py --rounds 5 --no-big

Every measurement runs in a fresh Python process (so peak RSS is that tool's own); rounds are interleaved and
the best time of each tool is compared. Files are generated into benchmarks/_work/ (gitignored). xmllint comes
from benchmarks/setup_validator.sh (libxml2-utils) and is skipped when missing.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = HERE / "_work"
HOST = "https://shop.de"
HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n')


def generate(path: Path, urls: int) -> None:
    """``urls`` entries: pairs of en/de pages linked by reciprocal hreflang, one image each, a lastmod each."""
    with path.open("w", encoding="utf-8") as f:
        f.write(HEAD)
        for i in range(urls):
            slug = i // 2
            lang = "en" if i % 2 == 0 else "de"
            f.write(f"<url><loc>{HOST}/{lang}/{slug}</loc><lastmod>2024-{slug % 12 + 1:02d}-{slug % 28 + 1:02d}"
                    f"</lastmod><xhtml:link rel=\"alternate\" hreflang=\"en\" href=\"{HOST}/en/{slug}\"/>"
                    f"<xhtml:link rel=\"alternate\" hreflang=\"de\" href=\"{HOST}/de/{slug}\"/>"
                    f"<image:image><image:loc>{HOST}/i/{slug}.jpg</image:loc></image:image></url>\n")
        f.write("</urlset>\n")


def one(mode: str, path: str) -> None:
    """Child process: run one tool once, print JSON {seconds, rss_mb, detail}."""
    from lxml import etree

    from sitemapkit import validate
    from sitemapkit._schemas import SchemaKind, load_schema

    schema = load_schema(SchemaKind.URLSET)  # compiled before the clock starts, for every mode
    start = time.perf_counter()
    if mode == "lxml":
        ok = schema.validate(etree.parse(path))
        detail = f"valid={ok}"
    else:
        report = validate([path], profile=mode, now="2026-01-01T00:00:00Z")
        detail = f"valid={report.valid} errors={report.error_count} warnings={report.warning_count}"
    seconds = time.perf_counter() - start
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "rss_mb": rss, "detail": detail}))


def measure(mode: str, path: Path) -> dict[str, object]:
    if mode == "xmllint":
        from sitemapkit._schemas import SchemaKind, schema_path

        start = time.perf_counter()
        res = subprocess.run(["xmllint", "--noout", "--schema", schema_path(SchemaKind.URLSET.value), str(path)],
                             capture_output=True, text=True)
        seconds = time.perf_counter() - start
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return {"seconds": seconds, "rss_mb": None, "detail": res.stderr.strip().splitlines()[-1][:60],
                "maxrss_children": usage.ru_maxrss / 1024}
    res = subprocess.run([sys.executable, __file__, "--one", mode, str(path)], capture_output=True, text=True,
                         check=True)
    data: dict[str, object] = json.loads(res.stdout)
    return data


def run_table(path: Path, modes: list[str], rounds: int) -> dict[str, list[dict[str, object]]]:
    results: dict[str, list[dict[str, object]]] = {m: [] for m in modes}
    for _ in range(rounds):
        for mode in modes:
            results[mode].append(measure(mode, path))
    return results


def show(title: str, path: Path, results: dict[str, list[dict[str, object]]], base: str) -> None:
    size = path.stat().st_size
    print(f"\n{title}: {path.name}, {size / 1e6:.1f} MB")
    best_base = min(float(r["seconds"]) for r in results[base])  # type: ignore[arg-type]
    print(f"{'tool':<34}{'best s':>9}{'median s':>10}{'x lxml':>8}{'peak RSS MB':>13}  result")
    for mode, runs in results.items():
        times = sorted(float(r["seconds"]) for r in runs)  # type: ignore[arg-type]
        rss = max((float(r["rss_mb"]) for r in runs if r["rss_mb"] is not None), default=None)  # type: ignore[arg-type]
        label = {"lxml": "bare lxml (etree.parse + XSD)", "google": "sitemapkit validate --profile google",
                 "sitemaps": "sitemapkit validate --profile sitemaps", "xmllint": "xmllint --noout --schema"}[mode]
        rss_text = f"{rss:>13.0f}" if rss is not None else f"{'-':>13}"
        print(f"{label:<34}{times[0]:>9.2f}{times[len(times) // 2]:>10.2f}{times[0] / best_base:>8.2f}{rss_text}  "
              f"{runs[0]['detail']}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--one", nargs=2, metavar=("MODE", "FILE"), help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--urls", type=int, default=50_000)
    parser.add_argument("--no-big", action="store_true", help="skip the 50 MiB memory run")
    args = parser.parse_args()
    if args.one:
        one(*args.one)
        return
    WORK.mkdir(exist_ok=True)
    print(f"sitemapkit validator benchmark, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
          f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    modes = ["lxml", "google", "sitemaps"]
    if shutil.which("xmllint"):
        modes.append("xmllint")
    else:
        print("xmllint not found: run benchmarks/setup_validator.sh to include it")
    small = WORK / f"bench-{args.urls}.xml"
    if not small.exists():
        generate(small, args.urls)
    show(f"{args.urls:,} URLs with hreflang and images", small, run_table(small, modes, args.rounds), "lxml")
    if not args.no_big:
        big = WORK / "bench-50mib.xml"
        if not big.exists():
            generate(big, 170_000)  # ~51 MB; more URLs than the protocol allows (SM209), which is fine here
        show("50 MiB file (memory must stay flat)", big, run_table(big, ["lxml", "google"], 1), "lxml")


if __name__ == "__main__":
    main()
