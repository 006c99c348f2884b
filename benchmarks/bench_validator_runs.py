"""The validator's runs of blocks (validate/_bulk.py, issue 27) on and off, in one process, on realistic shapes.

    python benchmarks/bench_validator_runs.py             # 50,000 URLs per shape, 7 alternating rounds
    python benchmarks/bench_validator_runs.py --rounds 11 --urls 20000

Each shape is validated with the Google profile (as `sitemapkit validate --profile google`, in process), the lane
checking runs of blocks together (on) and block by block (off), in alternating rounds; the table gives the median
of each and their ratio (on / off: below 1 is faster). The shapes: the shop file of bench_validator.py (one line per
URL, `&amp;` queries, %-encoded umlauts, 2 hreflang, an image, a lastmod); the same pretty-printed (each element
on its own line) without queries, and with them (the lane leaves those to lxml: no change expected); the shop file
with a bad date every 200 and every 11 entries (runs fail and pause); the light benchmark file (an image on every
fourth URL). Files are written to benchmarks/_work/runs/.
"""

from __future__ import annotations

import argparse
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from bench_validator import WORK, generate, generate_shop
from sitemapkit.validate import _bulk, validate_sitemaps

RUNS = WORK / "runs"


def _pretty(text: str, queries: bool) -> str:
    if not queries:
        text = re.sub(r"\?color=rot&amp;size=[0-9]+", "", text)
    return re.sub(r"><(?!/loc|/lastmod|/image:loc)", ">\n  <", text)


def _bad_dates(text: str, every: int) -> str:
    lines = text.split("\n")
    for i in range(2, len(lines), every):
        lines[i] = re.sub(r"<lastmod>[^<]*</lastmod>", "<lastmod>2024-13-45</lastmod>", lines[i])
    return "\n".join(lines)


def shapes(urls: int) -> dict[str, Path]:
    RUNS.mkdir(parents=True, exist_ok=True)
    shop = RUNS / f"shop-{urls}.xml"
    if not shop.exists():
        generate_shop(shop, urls)
    light = RUNS / f"light-{urls}.xml"
    if not light.exists():
        generate(light, urls, light=True)
    text = shop.read_text(encoding="utf-8")
    derived: dict[str, Callable[[str], str]] = {
        "pretty": lambda t: _pretty(t, queries=False),
        "pretty-queries": lambda t: _pretty(t, queries=True),
        "bad-date-every-200": lambda t: _bad_dates(t, 200),
        "bad-date-every-11": lambda t: _bad_dates(t, 11),
    }
    out = {"shop (one line per URL)": shop}
    for name, make in derived.items():
        path = RUNS / f"{name}-{urls}.xml"
        if not path.exists():
            path.write_text(make(text), encoding="utf-8")
        out[name] = path
    out["light (image on every 4th)"] = light
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--urls", type=int, default=50_000)
    args = parser.parse_args()
    print(f"validate --profile google in process, runs of blocks on and off, {args.rounds} alternating rounds, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print(f"{'shape':<30}{'MB':>6}{'on s':>8}{'off s':>8}{'on/off':>8}  problems (on = off)")
    for name, path in shapes(args.urls).items():
        times: dict[bool, list[float]] = {True: [], False: []}
        found: dict[bool, int] = {}
        for r in range(args.rounds):
            for on in ((True, False) if r % 2 == 0 else (False, True)):
                _bulk.ENABLED = on
                start = time.perf_counter()
                report = validate_sitemaps([path], profile="google")
                times[on].append(time.perf_counter() - start)
                found[on] = report.error_count + report.warning_count
        _bulk.ENABLED = True
        on_s, off_s = statistics.median(times[True]), statistics.median(times[False])
        same = "yes" if found[True] == found[False] else "NO"
        print(f"{name:<30}{path.stat().st_size / 1e6:>6.1f}{on_s:>8.3f}{off_s:>8.3f}{on_s / off_s:>8.2f}  "
              f"{found[True]:,} ({same})")


if __name__ == "__main__":
    main()
