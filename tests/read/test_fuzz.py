"""Whatever the bytes, lenient reading never raises and strict reading raises only ParseError/LimitExceededError."""

from __future__ import annotations

import gzip
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit import LimitExceededError, ParseError, Problem, SitemapParser, parse_bytes
from tests.support.corpus import CORPUS, needs_corpus, read_seeds

SEEDS = read_seeds([p for p in sorted((CORPUS / "edge-cases").glob("*")) if p.name != "EXPECTED.tsv"])
SEEDS += read_seeds([CORPUS / "peer-fixtures" / "crawler-commons" / "sitemaps" / "extension" / name
                     for name in ("sitemap-videos.xml", "sitemap-news.xml", "sitemap-images.xml",
                                  "sitemap-links.xml")])


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["flip", "cut", "insert", "dup"]))
        pos = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[pos] = draw(st.integers(0, 255))
        elif op == "cut":
            del data[pos:pos + draw(st.integers(1, 40))]
        elif op == "insert":
            data[pos:pos] = draw(st.sampled_from([b"<", b"&", b"]]>", b"<![CDATA[", b"<!--", b"\x00", b"\xff\xfe",
                                                  b"<url>", b"</url>", b"<!DOCTYPE x>", b"&amp;", b"\r\n",
                                                  b"<loc>https://example.com/x</loc>", b"\xef\xbb\xbf"]))
        else:
            chunk = bytes(data[pos:pos + draw(st.integers(1, 60))])
            data[pos:pos] = chunk
    if draw(st.booleans()):
        return gzip.compress(bytes(data))
    return bytes(data)


@needs_corpus
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), st.lists(st.integers(1, 4000), max_size=8))
def test_mutations_never_crash(data: bytes, cuts: list[int]) -> None:
    parser = SitemapParser("fuzz", positions=True)
    events = []
    start = 0
    for cut in sorted(set(cuts)):
        if start < cut < len(data):
            events += parser.feed(data[start:cut])
            start = cut
    events += parser.feed(data[start:])
    events += parser.close()
    for e in events:
        if isinstance(e, Problem):
            assert e.message
            assert e.location.source == "fuzz"
    try:
        parse_bytes(data, strict=True)
    except (ParseError, LimitExceededError):
        pass


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_never_crash(data: bytes) -> None:
    result = parse_bytes(data)
    assert result.kind is not None


def _fuzzer() -> ModuleType:
    """benchmarks/fuzz_reader.py, loaded as a module (benchmarks/ is not a package)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_reader.py"
    spec = importlib.util.spec_from_file_location("fuzz_reader", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_reader"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_short_chunking_fuzz_run_finds_nothing() -> None:
    """A short run of the chunking fuzzer: generated and corpus-seeded mutants, whole vs random chunkings."""
    fuzz = _fuzzer()
    summary = fuzz.run(2500, seed=20261124, minimise_failures=False)
    assert summary.inputs == 2500
    assert summary.chunkings >= summary.inputs
    assert [f"{f.index}: {f.detail[:400]}" for f in summary.failures] == []


def test_fuzzer_runs_without_the_shared_corpus(tmp_path: Path) -> None:
    fuzz = _fuzzer()
    assert fuzz.corpus_seeds(tmp_path / "missing") == []
    summary = fuzz.run(150, seed=3, minimise_failures=False, seeds=fuzz.generated_seeds(seed=3))
    assert summary.inputs == 150
    assert summary.failures == []


def test_fuzzer_reports_and_minimises_a_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fuzzer's own check: a reader whose events depend on the chunking is caught and the input shrunk."""
    fuzz = _fuzzer()
    real = fuzz.read

    def chunk_dependent(data: bytes, cuts: list[int], *, strict: bool = False) -> object:
        events = real(data, cuts, strict=strict)
        return [*events, "cut"] if cuts and b"zz" in data else events

    monkeypatch.setattr(fuzz, "read", chunk_dependent)
    data = b"https://example.com/a\nzz\nhttps://example.com/b\n"
    assert fuzz.check(data, [5], strict=False) is not None
    assert fuzz.check(data, [], strict=False) is None
    assert fuzz.minimise(data, False, "mismatch", budget=10.0) == b"zz"


def test_fuzzer_command_prints_the_summary_table() -> None:
    script = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_reader.py"
    done = subprocess.run([sys.executable, str(script), "--count", "60", "--seed", "9"], capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = dict(line.split(None, 1) for line in done.stdout.splitlines() if line.strip())
    assert rows["inputs"] == "60"
    assert rows["failures"] == "0"
    assert {"chunkings", "elapsed", "seed"} <= rows.keys()
