"""benchmarks/bench_targets.py's own helpers: the chunked pattern counter and the output checks it relies on
(a benchmark whose checks cannot fail would time broken output), and the shape of its generated inputs."""

from __future__ import annotations

import importlib.util
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from types import ModuleType

import pytest

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    """The script, loaded as a module (benchmarks/ is not a package)."""
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_targets.py"
    spec = importlib.util.spec_from_file_location("bench_targets", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_targets"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_count_in_file_counts_matches_across_chunk_ends(bench: ModuleType, tmp_path: Path) -> None:
    data = b"x&amp;<loc>&&amp;\n<loc><loc>a&amp;\n&" * 7 + b"&am"
    path = tmp_path / "data"
    path.write_bytes(data)
    patterns = (b"&amp;", b"<loc>", b"&", b"\n")
    want = {p: data.count(p) for p in patterns}
    for chunk in (1, 2, 3, 4, 5, 7, 64, 1 << 20):
        assert bench.count_in_file(path, patterns, chunk=chunk) == want, chunk


def test_check_url_list_flags_missing_lines_and_undecoded_entities(bench: ModuleType, tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("https://a.example/?x=1&y=2\nhttps://a.example/b\n")
    assert bench.check_url_list(good, 2, amps=1) == ""
    assert "expected 3" in bench.check_url_list(good, 3, amps=1)
    assert "'&', expected 2" in bench.check_url_list(good, 2, amps=2)
    escaped = tmp_path / "escaped.txt"
    escaped.write_text("https://a.example/?x=1&amp;y=2\nhttps://a.example/b\n")
    assert "left undecoded" in bench.check_url_list(escaped, 2, amps=1)


def _set(out: Path, locs: list[str], listed: int) -> None:
    out.mkdir()
    urls = "".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs)
    (out / "sitemap-1.xml").write_text(f'<urlset xmlns="x">\n{urls}</urlset>\n')
    entries = "<sitemap><loc>https://a.example/sitemap-1.xml</loc></sitemap>\n" * listed
    (out / "sitemap.xml").write_text(f'<sitemapindex xmlns="x">\n{entries}</sitemapindex>\n')


def test_check_sitemap_set_flags_lost_urls_unescaped_ampersands_and_a_short_index(bench: ModuleType,
                                                                                  tmp_path: Path) -> None:
    _set(tmp_path / "good", ["https://a.example/?x=1&amp;y=2", "https://a.example/b"], listed=1)
    assert bench.check_sitemap_set(tmp_path / "good", "sitemap.xml", 2, amps=1) == ""
    assert "2 URLs written, expected 3" in bench.check_sitemap_set(tmp_path / "good", "sitemap.xml", 3, amps=1)
    _set(tmp_path / "raw", ["https://a.example/?x=1&amp;y=2", "https://a.example/b?c&d"], listed=1)
    assert "1 other '&'" in bench.check_sitemap_set(tmp_path / "raw", "sitemap.xml", 2, amps=1)
    _set(tmp_path / "unlisted", ["https://a.example/a", "https://a.example/b"], listed=0)
    assert "index lists 0" in bench.check_sitemap_set(tmp_path / "unlisted", "sitemap.xml", 2, amps=0)
    assert "no index" in bench.check_sitemap_set(tmp_path / "good", "sitemap-index.xml", 2, amps=1)


def test_check_sitemap_set_takes_a_lone_urlset_as_the_entry_point(bench: ModuleType, tmp_path: Path) -> None:
    out = tmp_path / "one"
    out.mkdir()
    (out / "sitemap.xml").write_text('<urlset xmlns="x">\n<url><loc>https://a.example/?x=1&amp;y=2</loc></url>\n'
                                     "</urlset>\n")
    assert bench.check_sitemap_set(out, "sitemap.xml", 1, amps=1) == ""
    assert "expected 0 and 0" in bench.check_sitemap_set(out, "sitemap.xml", 1, amps=0)
    assert "expected 2" in bench.check_sitemap_set(out, "sitemap.xml", 2, amps=1)


@pytest.mark.parametrize("raw_iri", [False, True])
def test_generated_urlsets_are_well_formed_with_the_promised_shapes(bench: ModuleType, raw_iri: bool) -> None:
    doc = "".join(bench.urlset_lines(40, with_query=True, raw_iri=raw_iri))
    locs = [el.text or "" for el in ET.fromstring(doc.encode()).iter(f"{NS}loc")]
    assert len(locs) == 40
    assert all("?a=" in loc and "&b=" in loc for loc in locs)  # `&amp;` in the document, `&` once parsed
    non_ascii = [loc for loc in locs if not loc.isascii()]
    encoded = [loc for loc in locs if "%" in loc]
    assert (len(non_ascii), len(encoded)) == ((4, 0) if raw_iri else (0, 4))
    plain = "".join(bench.urlset_lines(40, with_query=False, raw_iri=raw_iri))
    plain_locs = [el.text or "" for el in ET.fromstring(plain.encode()).iter(f"{NS}loc")]
    assert len(plain_locs) == 40
    assert [loc.split("?")[0] for loc in locs] == plain_locs  # the same paths, without their query
    assert "&" not in plain


def test_generated_text_inputs(bench: ModuleType) -> None:
    lines = list(bench.text_lines(12, with_query=True))
    assert lines[4] == "https://example.com/section-4/item-4?ref=list&page=4\n"
    assert [line.split("?")[0] for line in lines] == [line.rstrip("\n") for line in
                                                     bench.text_lines(12, with_query=False)]
