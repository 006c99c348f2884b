"""What share of the URLs in the real-world corpus the reader's fast lane reads (issue 13), and how many of them
a loc-only reader gets in bulk runs (``SitemapParser(loc_runs=True)``, issue 27).

    python benchmarks/lane_share.py                      # ../shared/corpus/real-world, one row per urlset
    python benchmarks/lane_share.py DIR_OR_FILE ...      # other files

Every file is read with ``sitemapkit.read_file``. The lane's ``_consume`` is wrapped to count the entries it builds
itself (blocks it hands to the element-path builder as values, e.g. a raw IRI, count too: lxml never parsed
them); the rest went through lxml's element tree. Where the lane bailed out, the first bytes it left to lxml are
classified (what construct made it stop), so the table says which real-world shapes fall out of the lane.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

from sitemapkit import UrlEntry, read_file
from sitemapkit.read import _lane

HERE = Path(__file__).resolve().parent
DEFAULT = HERE.parent.parent / "shared" / "corpus" / "real-world"

_SHAPES = [
    (re.compile(r"<image:(?!image>|loc>)(\w+)"), "image:{0}"),
    (re.compile(r"<(news|video|mobile|PageMap|xhtml|image):"), "{0}: element"),
    (re.compile(r"<!\[CDATA\["), "CDATA"),
    (re.compile(r"&(?:amp|lt|gt|quot|apos);"), "predefined entity (&amp; &apos; ...)"),
    (re.compile(r"&#"), "character reference"),
    (re.compile(r"&"), "other entity or bare &"),
    (re.compile(r"[^\x00-\x7f]"), "non-ASCII characters"),
    (re.compile(r"<!--"), "comment inside a block"),
    (re.compile(r"\r"), "CR line ends"),
]


def classify(rest: str) -> str:
    """What made the lane stop at ``rest`` (the bytes it left to lxml)."""
    if rest.startswith("<!--"):
        return "comment between blocks"
    if rest.startswith("</urlset"):
        return "end of document"
    end = rest.find("</url>")
    block = rest[:end + 6] if end >= 0 else rest
    for pattern, label in _SHAPES:
        m = pattern.search(block)
        if m is not None:
            return label.format(*m.groups())
    return "other block shape" if block.startswith("<url") else "other: " + rest[:30].replace("\n", " ")


def measure(path: Path) -> tuple[int, int, str]:
    """(entries, entries read by the lane, why the lane stopped or "")."""
    lane = [0]
    why = [""]
    consume = _lane.FastUrlset._consume
    handover = _lane.FastUrlset._handover

    def counting(self: _lane.FastUrlset, text: str, pos: int, buf: bytes) -> int:
        before = self._e.o._items
        end = consume(self, text, pos, buf)
        lane[0] += self._e.o._items - before
        return end

    def noting(self: _lane.FastUrlset, skipped: int, rest: bytes) -> bytes:
        if not why[0]:
            why[0] = classify(rest[:4000].decode("utf-8", "replace").lstrip())
        return handover(self, skipped, rest)

    _lane.FastUrlset._consume = counting  # type: ignore[method-assign]
    _lane.FastUrlset._handover = noting  # type: ignore[method-assign]
    try:
        result = read_file(path)
        if str(result.kind) != "urlset":
            return 0, 0, ""  # an index or a feed: not the lane's kind
        total = sum(1 for e in result.entries if type(e) is UrlEntry)
    finally:
        _lane.FastUrlset._consume = consume  # type: ignore[method-assign]
        _lane.FastUrlset._handover = handover  # type: ignore[method-assign]
    return total, lane[0], why[0]


def bulk(path: Path) -> int:
    """URL entries that a loc-only reader (``urls --format text``) gets in bulk runs (``read.LocRun``)."""
    from sitemapkit.read import LocRun, SitemapParser, open_bytes

    parser = SitemapParser(str(path), loc_runs=True)
    with open_bytes(str(path)) as stream:
        events = parser.feed(stream.read()) + parser.close()
    return sum(len(ev.locs) for ev in events if isinstance(ev, LocRun))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="*", type=Path)
    ap.add_argument("--rows", action="store_true", help="print one row per file")
    args = ap.parse_args()
    roots = args.paths or [DEFAULT]
    files = sorted(p for r in roots for p in ([r] if r.is_file() else r.rglob("*")) if p.is_file()
                   and p.suffix in (".xml", ".gz"))
    if not files:
        print(f"no files under {', '.join(map(str, roots))}", file=sys.stderr)
        return 2
    total = lane_total = bulk_total = 0
    stops: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    rows = []
    for path in files:
        n, in_lane, why = measure(path)
        if n == 0:
            continue  # an index, a feed or an empty urlset
        total += n
        lane_total += in_lane
        bulk_total += bulk(path)
        if in_lane < n:
            stops[why or "lane did not start"] += 1
            lost[why or "lane did not start"] += n - in_lane
        rows.append((path.name, n, in_lane, why))
    if args.rows:
        print("| file | URLs | by the lane | share | lane stopped at |\n|---|---:|---:|---:|---|")
        for name, n, in_lane, why in rows:
            print(f"| {name} | {n:,} | {in_lane:,} | {in_lane / n:.0%} | {why} |")
        print()
    print(f"urlsets: {len(rows)}, URLs: {total:,}, read by the lane: {lane_total:,} "
          f"({lane_total / max(total, 1):.1%}); files read wholly by the lane: "
          f"{sum(1 for r in rows if r[1] == r[2])}; in bulk runs (loc-only readers): {bulk_total:,} "
          f"({bulk_total / max(total, 1):.1%})")
    print("\n| where the lane stopped | files | URLs left to lxml |\n|---|---:|---:|")
    for why, files_n in stops.most_common():
        print(f"| {why} | {files_n} | {lost[why]:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
