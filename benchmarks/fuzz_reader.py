"""Chunking fuzzer of the reader: generated inputs through ``SitemapParser`` whole and in random chunks.

    python benchmarks/fuzz_reader.py --count 100000 --seed 1          # 100,000 inputs, summary table
    python benchmarks/fuzz_reader.py --count 2000 --seed 7 --out DIR  # failing inputs (and minimised ones) to DIR

Every input is a mutation of a seed document: the fuzzer's own generated documents of every kind the reader
knows (urlset with and without extensions, index, RSS 2.0, RSS 1.0, Atom, text, UTF-16 and Latin-1 ones, gzip),
plus, when ``../shared/corpus`` exists, the corpus files (their first 16 KiB). Each input is read once in one
``feed()`` (the reference), then in random chunkings (random cut points; byte by byte for small inputs; some
inputs gzip-compressed first, some in strict mode). A failure is an exception other than the strict mode's
``ParseError``/``LimitExceededError`` (lenient reading never raises), or a chunking whose events differ from the
reference. Failing inputs are minimised (delta debugging) and reported with their index, so
``--seed S --only I`` replays one. Exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sitemapkit import LimitExceededError, ParseError, SitemapParser
from sitemapkit.read import Event

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "shared" / "corpus"
SEED_LIMIT = 16 * 1024
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMG = "http://www.google.com/schemas/sitemap-image/1.1"
VID = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML = "http://www.w3.org/1999/xhtml"

# --- generated seeds ------------------------------------------------------------------------------------------

_LOCS = ["https://example.com/", "https://example.com/a?b=1&amp;c=2", "https://example.com/é/ü", "  https://e.com/x\n",
         "/relative", "https://example.com/a b", "ftp://x/y", "https://example.com/" + "p" * 60, "",
         "<![CDATA[https://example.com/cdata?a&b]]>", "https://exa&#109;ple.com/ent", "https://[::1]/v6"]
_DATES = ["2024-05-01", "2024-05-01T10:00:00+02:00", "2024-13-01", "yesterday", "Mon, 01 Jan 2024 00:00:00 GMT",
          "2024-02-30", " 2024-05-01T10:00Z ", "2024-05-01T10:00:00.123456Z"]
_FREQS = ["daily", "Weekly", "sometimes", " monthly "]
_PRIOS = ["0.5", "1.0", "1.5", "abc", "0.80", "-0"]
_EXTS = [
    "<image:image><image:loc>https://example.com/i.jpg</image:loc></image:image>",
    "<image:image><image:loc>https://example.com/i.jpg</image:loc><image:caption>c &amp; d</image:caption>"
    "</image:image>",
    "<image:image><image:caption>no loc</image:caption></image:image>",
    '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de"/>',
    '<xhtml:link href="https://example.com/fr" hreflang="fr" rel="alternate"/>',
    '<xhtml:link rel="alternate" hreflang="" href="https://example.com/x"/>',
    "<video:video><video:thumbnail_loc>https://e.com/t.jpg</video:thumbnail_loc><video:title>T</video:title>"
    "<video:description>D</video:description><video:duration>99999999</video:duration>"
    "<video:rating>4.5</video:rating><video:family_friendly>maybe</video:family_friendly></video:video>",
    "<news:news><news:publication><news:name>N</news:name><news:language>en</news:language></news:publication>"
    "<news:publication_date>2024-05-01</news:publication_date><news:title>T</news:title></news:news>",
    "<mobile:mobile/>",
    "<!-- a comment -->",
    "<?pi x?>",
]
_SEPS = ["", "\n", "\r\n", "  ", "\n\t"]


def _urlset(rnd: random.Random) -> str:
    sep = rnd.choice(_SEPS)
    blocks = []
    for _ in range(rnd.randint(0, 8)):
        parts = [f"<url>{rnd.choice(_SEPS)}"]
        if rnd.random() < 0.95:
            parts.append(f"<loc>{rnd.choice(_LOCS)}</loc>")
        if rnd.random() < 0.5:
            parts.append(f"<lastmod>{rnd.choice(_DATES)}</lastmod>")
        if rnd.random() < 0.3:
            parts.append(f"<changefreq>{rnd.choice(_FREQS)}</changefreq>")
        if rnd.random() < 0.3:
            parts.append(f"<priority>{rnd.choice(_PRIOS)}</priority>")
        if rnd.random() < 0.3:
            parts.extend(rnd.choice(_EXTS) for _ in range(rnd.randint(1, 3)))
        parts.append("</url>")
        blocks.append(rnd.choice(_SEPS).join(parts))
    decl = rnd.choice(['<?xml version="1.0" encoding="UTF-8"?>\n', "", '<?xml version="1.0"?>'])
    root = rnd.choice([
        f'<urlset xmlns="{NS}">',
        f'<urlset xmlns="{NS}" xmlns:image="{IMG}" xmlns:video="{VID}" xmlns:news="{NEWS}" xmlns:xhtml="{XHTML}" '
        'xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0">',
        "<urlset>", f'<URLSET xmlns="{NS}">', f'<sm:urlset xmlns:sm="{NS}">',
    ])
    close = "</URLSET>" if root.startswith("<URLSET") else "</sm:urlset>" if root.startswith("<sm:") else "</urlset>"
    if root.startswith("<sm:"):
        blocks = [b.replace("<", "<sm:").replace("<sm:/", "</sm:").replace("<sm:!", "<!").replace("<sm:?", "<?")
                  for b in blocks]
    return decl + root + sep + sep.join(blocks) + sep + close + rnd.choice(["", "\n", "\n<junk/>", "  "])


def _index(rnd: random.Random) -> str:
    items = []
    for _ in range(rnd.randint(0, 6)):
        inner = rnd.choice([f"<loc>{rnd.choice(_LOCS)}</loc>", f"<loc>{rnd.choice(_LOCS)}</loc>"
                            f"<lastmod>{rnd.choice(_DATES)}</lastmod>", "https://example.com/bare.xml",
                            "<loc>https://a.com/1</loc><loc>https://a.com/2</loc>"])
        items.append(f"<sitemap>{inner}</sitemap>")
    return f'<?xml version="1.0"?>\n<sitemapindex xmlns="{NS}">\n' + "\n".join(items) + "\n</sitemapindex>\n"


def _rss(rnd: random.Random) -> str:
    items = []
    for _ in range(rnd.randint(0, 6)):
        parts = []
        if rnd.random() < 0.8:
            parts.append(f"<link>{rnd.choice(_LOCS)}</link>")
        if rnd.random() < 0.3:
            parts.append(f'<guid isPermaLink="{rnd.choice(["true", "false"])}">https://example.com/g</guid>')
        if rnd.random() < 0.5:
            parts.append(f"<pubDate>{rnd.choice(_DATES)}</pubDate>")
        items.append("<item><title>t é</title>" + "".join(parts) + "</item>")
    if rnd.random() < 0.3:
        return ('<?xml version="1.0"?>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                'xmlns="http://purl.org/rss/1.0/"><channel/>'
                + "".join(i.replace("<item>", '<item rdf:about="https://example.com/about">') for i in items)
                + "</rdf:RDF>")
    return '<?xml version="1.0"?>\n<rss version="2.0"><channel>\n<title>T</title>\n' + "\n".join(items) + (
        "\n</channel></rss>\n")


def _atom(rnd: random.Random) -> str:
    entries = []
    for _ in range(rnd.randint(0, 6)):
        rel = rnd.choice(["", ' rel="alternate"', ' rel="self"'])
        entries.append(f'<entry><title>t</title><link{rel} href="{rnd.choice(_LOCS).replace("<", "")}"/>'
                       f"<updated>{rnd.choice(_DATES)}</updated></entry>")
    return '<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom">' + "\n".join(entries) + "</feed>"


def _text(rnd: random.Random) -> str:
    lines = [rnd.choice([*_LOCS, "https://example.com/t", "not a url", "# comment", "\t https://e.com/ws  "])
             for _ in range(rnd.randint(0, 10))]
    return rnd.choice(["\n", "\r\n", "\r"]).join(lines)


_MAKERS: list[Callable[[random.Random], str]] = [_urlset, _urlset, _urlset, _index, _rss, _atom, _text]


def generated_seeds(count: int = 400, seed: int = 0) -> list[bytes]:
    """Seed documents of every kind the reader knows (deterministic for a seed)."""
    rnd = random.Random(seed)
    out: list[bytes] = []
    for _ in range(count):
        text = rnd.choice(_MAKERS)(rnd)
        r = rnd.random()
        if r < 0.05:
            data = "\ufeff".encode("utf-16-le") + text.replace('"1.0"?>', '"1.0" encoding="UTF-16"?>').encode(
                "utf-16-le")
        elif r < 0.1:
            data = text.replace('"1.0"?>', '"1.0" encoding="ISO-8859-1"?>').encode("latin-1", "replace")
        elif r < 0.13:
            data = b"\xef\xbb\xbf" + text.encode()
        elif r < 0.16:
            data = b"\n \n" + text.encode()
        else:
            data = text.encode()
        out.append(data)
    return out


def corpus_seeds(root: Path = CORPUS) -> list[bytes]:
    """The shared corpus files (first 16 KiB of each); empty when the corpus is not there."""
    if not root.is_dir():
        return []
    out = []
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.suffix not in (".tsv", ".md", ".py", ".json", ".rs", ".go", ".js", ".ts"):
            out.append(path.read_bytes()[:SEED_LIMIT])
    return out


# --- mutation -------------------------------------------------------------------------------------------------

_TOKENS = [b"<", b">", b"&", b"]]>", b"<![CDATA[", b"<!--", b"-->", b"\x00", b"\xff\xfe", b"\xfe\xff", b"<url>",
           b"</url>", b"<loc>", b"</loc>", b"<!DOCTYPE x>", b"&amp;", b"&#x", b"&#0;", b"&lt", b"\r", b"\r\n", b"\n",
           b"<loc>https://example.com/x</loc>", b"\xef\xbb\xbf", b"\xc3", b"\xa9", b"\xe2\x82", b"\x1f\x8b\x08",
           b"</urlset>", b"<?xml version='1.0'?>", b"https://", b"  ", b"\t", b"<sitemap>", b"</item>", b"\x80",
           "é".encode() * 40, b"<lastmod>2024-01-01</lastmod>", b"<image:image>", b"xmlns:x='y'", b"<?", b"?>"]


def mutate(data: bytes, rnd: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rnd.choice((0, 1, 1, 2, 2, 3, 4, 6))):
        pos = rnd.randint(0, len(buf))
        op = rnd.random()
        if op < 0.2 and buf:
            buf[min(pos, len(buf) - 1)] = rnd.randrange(256)
        elif op < 0.4:
            del buf[pos:pos + rnd.randint(1, 40)]
        elif op < 0.7:
            buf[pos:pos] = rnd.choice(_TOKENS)
        elif op < 0.85:
            buf[pos:pos] = buf[pos:pos + rnd.randint(1, 120)]
        elif op < 0.95:
            del buf[pos:]
        else:
            buf[pos:pos] = bytes(rnd.randrange(256) for _ in range(rnd.randint(1, 8)))
    return bytes(buf)


# --- reading and checking -------------------------------------------------------------------------------------

def read(data: bytes, cuts: list[int], *, strict: bool = False) -> list[Event | str]:
    """Events of ``data`` fed in pieces split at ``cuts``; in strict mode, ending with the exception's text when one
    is raised (after the events completed before it, which the exception carries)."""
    parser = SitemapParser("fuzz", positions=True, strict=strict)
    events: list[Event] = []
    start = 0
    try:
        for cut in cuts:
            if start < cut < len(data):
                events += parser.feed(data[start:cut])
                start = cut
        events += parser.feed(data[start:])
        events += parser.close()
    except (ParseError, LimitExceededError) as exc:
        if not strict:
            raise
        # The events completed in the call that raised come with the exception: all of them are compared.
        return [*events, *exc.events, type(exc).__name__ + ": " + str(exc)]  # type: ignore[list-item]
    return list(events)


def random_cuts(n: int, rnd: random.Random) -> list[int]:
    if n < 2:
        return []
    r = rnd.random()
    if r < 0.15 and n <= 2048:
        return list(range(1, n))  # byte by byte
    if r < 0.3:
        step = rnd.randint(1, 64)
        return list(range(step, n, step))
    return sorted(rnd.sample(range(1, n), min(n - 1, rnd.randint(1, 12))))


@dataclass
class Failure:
    index: int
    kind: str  # "exception" or "mismatch"
    data: bytes
    cuts: list[int]
    strict: bool
    detail: str
    minimised: bytes | None = None


@dataclass
class Summary:
    inputs: int = 0
    chunkings: int = 0
    bytes: int = 0
    failures: list[Failure] = field(default_factory=list)
    elapsed: float = 0.0


def check(data: bytes, cuts: list[int], *, strict: bool) -> str | None:
    """None when ``data`` read in one piece and split at ``cuts`` give the same events, else what went wrong."""
    try:
        whole = read(data, [], strict=strict)
        chunked = read(data, cuts, strict=strict)
    except Exception:  # the point of a fuzzer: anything escaping is a finding
        return "exception: " + traceback.format_exc(limit=-3)
    if whole != chunked:
        return f"mismatch:\n  whole:   {whole!r}\n  chunked: {chunked!r}"
    return None


def fails_anyhow(data: bytes, strict: bool, kind: str) -> bool:
    """Whether ``data`` fails in the same way (exception or mismatch) byte by byte or split once anywhere."""
    n = len(data)
    points = range(1, n) if n <= 400 else sorted({1 + (k * (n - 2)) // 399 for k in range(400)})
    families = [list(range(1, n))] + [[k] for k in points]
    for cuts in families:
        problem = check(data, cuts, strict=strict)
        if problem is not None and problem.startswith(kind):
            return True
    return False


def minimise(data: bytes, strict: bool, kind: str, budget: float = 20.0) -> bytes | None:
    """A smaller input that still fails (byte by byte or split once), by removing ever smaller slices."""
    if not fails_anyhow(data, strict, kind):
        return None
    deadline = time.monotonic() + budget
    size = max(1, len(data) // 2)
    while size >= 1 and time.monotonic() < deadline:
        i = 0
        changed = False
        while i < len(data) and time.monotonic() < deadline:
            candidate = data[:i] + data[i + size:]
            if candidate and fails_anyhow(candidate, strict, kind):
                data = candidate
                changed = True
            else:
                i += size
        if not changed:
            size //= 2
    return data


def one_input(index: int, seed: int, seeds: list[bytes]) -> tuple[bytes, list[list[int]], bool]:
    rnd = random.Random(f"{seed}:{index}")
    data = mutate(rnd.choice(seeds), rnd)
    if rnd.random() < 0.1:
        data = gzip.compress(data, mtime=0)
        if rnd.random() < 0.3:
            data = mutate(data, rnd)
    strict = rnd.random() < 0.1
    chunkings = [random_cuts(len(data), rnd) for _ in range(rnd.choice((1, 1, 2, 3)))]
    return data, chunkings, strict


def run(count: int, seed: int, *, start: int = 0, minimise_failures: bool = True, max_failures: int = 20,
        progress: Callable[[Summary], None] | None = None, seeds: list[bytes] | None = None) -> Summary:
    if seeds is None:
        seeds = generated_seeds(seed=seed) + corpus_seeds()
    summary = Summary()
    t0 = time.perf_counter()
    for index in range(start, start + count):
        data, chunkings, strict = one_input(index, seed, seeds)
        summary.inputs += 1
        summary.bytes += len(data)
        for cuts in chunkings:
            summary.chunkings += 1
            problem = check(data, cuts, strict=strict)
            if problem is not None:
                kind = problem.split(":", 1)[0]
                failure = Failure(index, kind, data, cuts, strict, problem)
                if minimise_failures and len(summary.failures) < max_failures:
                    failure.minimised = minimise(data, strict, kind)
                summary.failures.append(failure)
                break
        if progress is not None and summary.inputs % 10_000 == 0:
            summary.elapsed = time.perf_counter() - t0
            progress(summary)
    summary.elapsed = time.perf_counter() - t0
    return summary


def _table(summary: Summary, seed: int) -> str:
    rows = [("seed", str(seed)), ("inputs", f"{summary.inputs:,}"), ("chunkings", f"{summary.chunkings:,}"),
            ("bytes", f"{summary.bytes:,}"), ("failures", f"{len(summary.failures):,}"),
            ("elapsed", f"{summary.elapsed:.1f} s")]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _iter_report(failures: list[Failure]) -> Iterator[str]:
    for f in failures:
        yield f"--- input {f.index} ({f.kind}, strict={f.strict}, {len(f.data)} bytes, cuts={f.cuts[:20]})"
        yield f.detail[:3000]
        if f.minimised is not None:
            yield f"minimised ({len(f.minimised)} bytes): {f.minimised!r}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--count", type=int, default=10_000, help="inputs to generate (default 10,000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="index of the first input (to split a run)")
    ap.add_argument("--only", type=int, default=None, help="replay the input with this index only")
    ap.add_argument("--no-minimise", action="store_true")
    ap.add_argument("--out", type=Path, default=None, help="folder for failing (and minimised) inputs")
    ap.add_argument("--progress", action="store_true", help="a line every 10,000 inputs (on stderr)")
    args = ap.parse_args(argv)
    start, count = (args.only, 1) if args.only is not None else (args.start, args.count)

    def progress(s: Summary) -> None:
        print(f"{s.inputs:,} inputs, {s.chunkings:,} chunkings, {len(s.failures)} failures, {s.elapsed:.0f} s",
              file=sys.stderr, flush=True)

    summary = run(count, args.seed, start=start, minimise_failures=not args.no_minimise,
                  progress=progress if args.progress else None)
    for line in _iter_report(summary.failures[:20]):
        print(line)
    if args.out is not None and summary.failures:
        args.out.mkdir(parents=True, exist_ok=True)
        for f in summary.failures:
            (args.out / f"{args.seed}-{f.index}.bin").write_bytes(f.data)
            if f.minimised is not None:
                (args.out / f"{args.seed}-{f.index}.min.bin").write_bytes(f.minimised)
    print(_table(summary, args.seed))
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
