"""Chunking fuzzer of the validator: mutated documents validated in one feed, in random pieces and as a file.

    python benchmarks/fuzz_validator.py --count 300000 --seed 1 --progress   # summary table at the end
    python benchmarks/fuzz_validator.py --count 2000 --seed 7 --out DIR        # failing inputs to DIR
    python benchmarks/fuzz_validator.py --seed 7 --only 1234                   # replay one input

Every input is a mutation (``fuzz_reader.mutate``) of a seed: the reader fuzzer's generated documents, the
validator's own seeds below (the shapes that once escaped or depended on the chunking: malformed namespace
declarations, undefined prefixes, lying encoding declarations, duplicates, long attributes on the root, content
after the root, a BOM, gzip layers, entities in attributes), and the shared corpus's files (their first 4 KiB)
when ``../shared/corpus`` exists. Some inputs are gzip-compressed (one to four layers).

Each input is validated with :func:`~sitemapkit.validate.validate_bytes` (one feed, the reference), then with
:func:`~sitemapkit.validate._driver.validate_pieces` in random pieces (byte by byte for small inputs), and every
tenth one as a file with :func:`~sitemapkit.validate.validate`. The sniffing window and the driver's read chunk
are made small (``--window``, default 48 bytes, though the head is never sniffed before the 1,024 bytes the
encoding is read from; ``--chunk``, default 97 bytes) so that inputs of a few hundred bytes or a few KiB cross
them as megabyte documents cross the real ones. A failure is an exception escaping any of the three,
or a report (problems with code, severity, line, column, message and loc; kind and counts of each file) that
differs from the reference. Exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import random
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from sitemapkit.validate import _driver, _files, _stream
from sitemapkit.validate._driver import validate_bytes, validate_pieces
from sitemapkit.validate._driver import validate_sitemaps as validate

HERE = Path(__file__).resolve().parent
CORPUS = HERE.parents[1] / "shared" / "corpus"
SEED_LIMIT = 4096
NOW = "2026-01-01T00:00:00Z"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMG = "http://www.google.com/schemas/sitemap-image/1.1"


def _reader_fuzzer() -> ModuleType:
    """benchmarks/fuzz_reader.py (its seeds, mutation and cut points), loaded as a module."""
    name = "fuzz_reader"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / "fuzz_reader.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


_URL = "<url><loc>https://example.com/{}</loc></url>"
_BODY = "\n".join(_URL.format(i) for i in ("a", "b", "a", "c"))


def _doc(root_attrs: str = "", body: str = _BODY, decl: str = '<?xml version="1.0" encoding="UTF-8"?>\n',
         after: str = "\n") -> bytes:
    return f'{decl}<urlset xmlns="{NS}"{root_attrs}>\n{body}\n</urlset>{after}'.encode()


def validator_seeds() -> list[bytes]:
    """Documents of the shapes that escaped or depended on the chunking (issue 22), and their neighbours."""
    seeds = [
        _doc(f' xmlns:image="{IMG}\x7f"'),
        _doc(' xmlns:image="http://x/>"'),
        _doc(' xmlns:xml="http://example.com/other"'),
        _doc(' xmlns:xmlns="http://example.com/other"'),
        _doc(' foo:bar="1"'),
        _doc(body='<url foo:bar="1"><loc>https://example.com/a</loc></url>'),
        _doc(body='<url><loc>https://example.com/a</loc><foo:x>1</foo:x></url>'),
        _doc(' xmlns:a="http://a/" xmlns:b="http://a/" a:x="1" b:x="2"'),
        _doc(decl='<?xml version="1.0" encoding="ISO-8859-1"?>\n', body=_URL.format("\u00e9")),
        _doc(decl='<?xml version="1.0" encoding="UTF-16"?>\n'),
        _doc(decl='<?xml version="1.0" encoding="windows-1252"?>\n', body=_URL.format("caf\u00e9")),
        _doc(decl='<?xml version="1.0" encoding="x-unknown"?>\n'),
        _doc(' data-x="' + "y" * 200 + '"'),
        _doc(' data-x="' + "y" * 90 + '" xmlns:image="' + IMG + '"'),
        _doc(after="\n<urlset/>\n"),
        _doc(after="\ntrailing text"),
        b"\xef\xbb\xbf" + _doc(),
        _doc(' a="&amp;&lt;&#65;&#x42;"'),
        _doc(' a="&undefined;"'),
        _doc(body='<url><loc a="&bogus;">https://example.com/a</loc></url>'),
        _doc(body="<url><loc>https://example.com/<!-- c -->a</loc></url>\n" * 3),
        _doc(body="\n".join(_URL.format("d") for _ in range(5))),
        _doc(body=f'<url><loc>https://example.com/a</loc><image:image xmlns:image="{IMG}"><image:loc>'
                  "https://example.com/i.jpg</image:loc></image:image></url>"),
        f'<?xml version="1.0"?>\n<sitemapindex xmlns="{NS}" xmlns:x="bad uri\x7f">\n<sitemap><loc>'
        "https://example.com/s.xml</loc></sitemap>\n</sitemapindex>\n".encode(),
        f'<sitemapindex xmlns="{NS}" p:q="1"><sitemap><loc>https://example.com/s.xml</loc></sitemap>'
        "</sitemapindex>".encode(),
        b"https://example.com/a\n" + b"x" * 120 + b"\nhttps://example.com/b\n",
        b"https://example.com/" + b"p" * 150 + b"\n",
    ]
    layered = _doc()
    for _ in range(4):
        layered = gzip.compress(layered, mtime=0)
        seeds.append(layered)
    return seeds


def corpus_seeds(root: Path = CORPUS) -> list[bytes]:
    if not root.is_dir():
        return []
    return [path.read_bytes()[:SEED_LIMIT] for path in sorted(root.rglob("*"))
            if path.is_file() and path.suffix not in (".tsv", ".md", ".py", ".json", ".rs", ".go", ".js", ".ts")]


def all_seeds(seed: int, *, corpus: bool = True) -> list[bytes]:
    fuzz = _reader_fuzzer()
    seeds = validator_seeds()
    return seeds * 8 + fuzz.generated_seeds(count=200, seed=seed) + (corpus_seeds() if corpus else [])


# --- running and comparing ------------------------------------------------------------------------------------

def _key(report: Any) -> tuple[object, ...]:
    files = tuple((f.kind, f.entries, f.errors, f.warnings) for f in report.files)
    problems = tuple((p.code, p.severity.value, p.location.line, p.location.column, p.message, p.location.loc)
                     for p in report.problems)
    return files, problems, report.dropped


def _pieces(data: bytes, cuts: list[int]) -> list[bytes]:
    out = []
    start = 0
    for cut in cuts:
        if start < cut < len(data):
            out.append(data[start:cut])
            start = cut
    out.append(data[start:])
    return out


@dataclass(frozen=True, slots=True)
class Case:
    data: bytes
    cuts: list[int]
    profile: str
    xsd: bool
    as_file: bool


def one_input(index: int, seed: int, seeds: list[bytes]) -> Case:
    fuzz = _reader_fuzzer()
    rnd = random.Random(f"v{seed}:{index}")
    data = fuzz.mutate(rnd.choice(seeds), rnd)
    if rnd.random() < 0.08:
        for _ in range(rnd.choice((1, 1, 2, 4))):
            data = gzip.compress(data, mtime=0)
        if rnd.random() < 0.3:
            data = fuzz.mutate(data, rnd)
    return Case(data, fuzz.random_cuts(len(data), rnd), rnd.choice(("google", "sitemaps")), rnd.random() < 0.9,
                rnd.random() < 0.1)


def check(case: Case, workdir: Path) -> str | None:
    """None when the three ways of validating ``case`` agree and none raised, else what went wrong."""
    kw: dict[str, Any] = {"profile": case.profile, "xsd": case.xsd, "now": NOW}
    source = str(workdir / "fuzz.xml")
    try:
        whole = _key(validate_bytes(case.data, source=source, **kw))
        pieces = _key(validate_pieces(case.data, _pieces(case.data, case.cuts), source=source, **kw))
        if case.as_file:
            path = Path(source)
            path.write_bytes(case.data)
            as_file = _key(validate(path, **kw))
        else:
            as_file = whole
    except Exception:  # the point of a fuzzer: anything escaping is a finding
        return "exception: " + traceback.format_exc(limit=-4)
    if pieces != whole:
        return f"mismatch (pieces):\n  whole:  {whole!r}\n  pieces: {pieces!r}"
    if as_file != whole:
        return f"mismatch (file):\n  whole: {whole!r}\n  file:  {as_file!r}"
    return None


class small_windows:
    """The sniffing window and the read chunk made small, so that small inputs cross them."""

    def __init__(self, window: int, chunk: int) -> None:
        self.window, self.chunk = window, chunk
        self.saved: tuple[int, int, int] = (0, 0, 0)

    def __enter__(self) -> None:
        self.saved = (_stream._SNIFF_BYTES, _driver._CHUNK, _files._CHUNK)
        _stream._SNIFF_BYTES, _driver._CHUNK, _files._CHUNK = self.window, self.chunk, self.chunk

    def __exit__(self, *exc: object) -> None:
        _stream._SNIFF_BYTES, _driver._CHUNK, _files._CHUNK = self.saved


@dataclass
class Failure:
    index: int
    kind: str  # "exception" or "mismatch"
    size: int
    detail: str


@dataclass
class Summary:
    inputs: int = 0
    bytes: int = 0
    escapes: int = 0
    differences: int = 0
    failures: list[Failure] = field(default_factory=list)
    elapsed: float = 0.0


def run(count: int, seed: int, *, start: int = 0, seeds: list[bytes] | None = None, window: int = 48,
        chunk: int = 97, progress: Callable[[Summary], None] | None = None, deadline: float | None = None,
        keep: int = 50) -> Summary:
    """Validate ``count`` inputs (indexes ``start``...) three ways; stop early at ``deadline`` (monotonic)."""
    if seeds is None:
        seeds = all_seeds(seed)
    summary = Summary()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fuzz-validator-") as tmp, small_windows(window, chunk):
        for index in range(start, start + count):
            if deadline is not None and time.monotonic() > deadline:
                break
            case = one_input(index, seed, seeds)
            summary.inputs += 1
            summary.bytes += len(case.data)
            problem = check(case, Path(tmp))
            if problem is not None:
                kind = problem.split(":", 1)[0].split(" ", 1)[0]
                if kind == "exception":
                    summary.escapes += 1
                else:
                    summary.differences += 1
                if len(summary.failures) < keep:
                    summary.failures.append(Failure(index, kind, len(case.data), problem))
            if progress is not None and summary.inputs % 10_000 == 0:
                summary.elapsed = time.perf_counter() - t0
                progress(summary)
    summary.elapsed = time.perf_counter() - t0
    return summary


def _table(summary: Summary, seed: int) -> str:
    rows = [("seed", str(seed)), ("inputs", f"{summary.inputs:,}"), ("bytes", f"{summary.bytes:,}"),
            ("escapes", f"{summary.escapes:,}"), ("differences", f"{summary.differences:,}"),
            ("elapsed", f"{summary.elapsed:.1f} s")]
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in rows)


def _iter_report(failures: list[Failure]) -> Iterator[str]:
    for f in failures:
        yield f"--- input {f.index} ({f.kind}, {f.size} bytes)"
        yield f.detail[:3000]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    ap.add_argument("--count", type=int, default=10_000, help="inputs to generate (default 10,000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--start", type=int, default=0, help="index of the first input (to split a run)")
    ap.add_argument("--only", type=int, default=None, help="replay the input with this index only")
    ap.add_argument("--seconds", type=float, default=None, help="stop after this long (the table says how many)")
    ap.add_argument("--window", type=int, default=48, help="sniffing window in bytes (default 48)")
    ap.add_argument("--chunk", type=int, default=97, help="read chunk of validate() in bytes (default 97)")
    ap.add_argument("--no-corpus", action="store_true", help="generated seeds only")
    ap.add_argument("--out", type=Path, default=None, help="folder for failing inputs")
    ap.add_argument("--progress", action="store_true", help="a line every 10,000 inputs (on stderr)")
    args = ap.parse_args(argv)
    start, count = (args.only, 1) if args.only is not None else (args.start, args.count)

    def progress(s: Summary) -> None:
        print(f"{s.inputs:,} inputs, {s.escapes} escapes, {s.differences} differences, {s.elapsed:.0f} s",
              file=sys.stderr, flush=True)

    seeds = all_seeds(args.seed, corpus=not args.no_corpus)
    deadline = time.monotonic() + args.seconds if args.seconds else None
    summary = run(count, args.seed, start=start, seeds=seeds, window=args.window, chunk=args.chunk,
                  progress=progress if args.progress else None, deadline=deadline)
    for line in _iter_report(summary.failures[:20]):
        print(line)
    if args.out is not None and summary.failures:
        args.out.mkdir(parents=True, exist_ok=True)
        for f in summary.failures:
            (args.out / f"{args.seed}-{f.index}.bin").write_bytes(one_input(f.index, args.seed, seeds).data)
    print(_table(summary, args.seed))
    return 1 if summary.escapes or summary.differences else 0


if __name__ == "__main__":
    sys.exit(main())
