"""The validator's fast lane (_validate_fast) reports exactly what the element path reports.

Each document is validated with the lane on and off; the problems must be equal one by one and in the order they
were found (before the report sorts them), whole and in chunks, with XSD batches of the normal size and of three
entries (so batches fill, are validated on the worker thread, and a partial one is handed over).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sitemapkit.validate._xml as vx
from sitemapkit import validate_sitemaps
from sitemapkit.core._problems import Problem
from sitemapkit.read import _lane as _read_fast
from sitemapkit.validate import _bulk, validate_bytes
from sitemapkit.validate import _files as vfiles
from sitemapkit.validate import _stream as vstream
from sitemapkit.validate._driver import _new_context, _options, _run_stream
from sitemapkit.validate._hreflang import HreflangStore
from tests.read.test_fast_lane import CORPUS_FILES, _document
from tests.support.corpus import CORPUS, corpus_params

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
NOW = "2026-01-01T00:00:00Z"
HEAD = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n')


def _problems(data: bytes, cuts: list[int], *, fast: bool, profile: str = "google") -> tuple[list[Problem], int]:
    saved = _read_fast.ENABLED
    _read_fast.ENABLED = fast
    try:
        options = _options(profile, NOW, False, True)
        with HreflangStore() as store:
            ctx = _new_context("doc.xml", None, options, store if profile == "google" else None)
            chunks = []
            start = 0
            for cut in sorted(set(cuts)):
                if 0 < cut < len(data):
                    chunks.append(data[start:cut])
                    start = cut
            chunks.append(data[start:])
            _run_stream(ctx, iter(chunks))
            return list(ctx.problems), ctx.entries
    finally:
        _read_fast.ENABLED = saved


def _same_both_ways(data: bytes, cuts: list[int] | None = None) -> list[Problem]:
    """The problems, the same from the element path, the lane block by block and the lane with runs of blocks
    checked together (_bulk)."""
    out = None
    for profile in ("google", "sitemaps"):
        slow = _problems(data, cuts or [], fast=False, profile=profile)
        fast = _problems(data, cuts or [], fast=True, profile=profile)
        assert fast == slow, profile
        _bulk.ENABLED = False
        try:
            one_by_one = _problems(data, cuts or [], fast=True, profile=profile)
        finally:
            _bulk.ENABLED = True
        assert one_by_one == slow, profile
        if profile == "google":
            out = fast[0]
    assert out is not None
    return out


@pytest.fixture(params=[(1000, True), (3, True), (3, False)], ids=["batch1000", "batch3", "batch3-no-thread"])
def batch(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> int:
    size, threaded = request.param
    monkeypatch.setattr(vx, "XSD_BATCH", size)
    monkeypatch.setattr(vx, "XSD_IN_THREAD", threaded)
    return int(size)




@pytest.mark.parametrize("path", corpus_params(CORPUS_FILES, ids=lambda p: str(p.relative_to(CORPUS))))
def test_corpus_validates_the_same_both_ways(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = path.read_bytes()
    if "bomb" in path.name:
        # A bomb inflates to the whole byte budget: the two reports below compare it, under a smaller budget (the
        # default one is tested with bombs in tests/read/test_gzip_bombs.py; here it would only cost time).
        for module in (vfiles, vstream):
            monkeypatch.setattr(module, "DEFAULT_MAX_DECOMPRESSED_BYTES", 1 << 20)
    else:
        _same_both_ways(data)
    reports = []
    for fast in (False, True):
        _read_fast.ENABLED = fast
        try:
            reports.append(validate_sitemaps([path], now=NOW))
        finally:
            _read_fast.ENABLED = True
    assert reports[0] == reports[1]


def _rows(n: int, *, bad_every: int = 0) -> str:
    out = []
    for i in range(n):
        slug, lang = i // 2, ("en" if i % 2 == 0 else "de")
        lastmod = f"2024-{slug % 12 + 1:02d}-{slug % 28 + 1:02d}" if not bad_every or i % bad_every else "2024-13-45"
        prio = "0.5" if not bad_every or i % (bad_every + 1) else "2.0"
        out.append(f"<url><loc>https://shop.de/{lang}/{slug}</loc><lastmod>{lastmod}</lastmod>"
                   f"<priority>{prio}</priority>"
                   f'<xhtml:link rel="alternate" hreflang="en" href="https://shop.de/en/{slug}"/>'
                   f'<xhtml:link rel="alternate" hreflang="de" href="https://shop.de/de/{slug}"/>'
                   f"<image:image><image:loc>https://shop.de/i/{slug}.jpg</image:loc></image:image></url>")
    return "\n".join(out)


@pytest.mark.usefixtures("batch")
def test_clean_hreflang_sitemap_is_read_by_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = [0]
    orig = vx.XmlPass._url

    def counting(self: vx.XmlPass, el: object) -> None:
        calls[0] += 1
        orig(self, el)

    monkeypatch.setattr(vx.XmlPass, "_url", counting)
    data = (HEAD + _rows(40) + "\n</urlset>\n").encode()
    assert _same_both_ways(data) == []
    calls[0] = 0
    problems, entries = _problems(data, [], fast=True)
    assert (problems, entries, calls[0]) == ([], 40, 0)


@pytest.mark.usefixtures("batch")
def test_problems_xsd_errors_and_hand_over_keep_lines() -> None:
    rows = _rows(30, bad_every=7)
    odd = '<url><loc>https://shop.de/odd</loc><!-- c --><lastmod>2024-02-30</lastmod></url>'
    data = (HEAD + rows + "\n" + odd + "\n" + _rows(5).replace("/en/", "/fr/") + "\n</urlset>\n").encode()
    problems = _same_both_ways(data)
    assert len({p.code for p in problems}) >= 3
    assert all(p.location.line is not None and p.location.line > 2 for p in problems if p.code != "SM324")
    for cuts in ([100, 101, 2000], list(range(1, len(data), 97))):
        assert _same_both_ways(data, cuts) == problems


@pytest.mark.usefixtures("batch")
def test_pretty_printed_blocks_keep_each_elements_line() -> None:
    row = ('<url>\n  <loc>http://localhost/{i}</loc>\n  <lastmod>\n2024-02-31</lastmod>\n'
           '  <changefreq>sometimes</changefreq>\n  <priority>7</priority>\n'
           '  <image:image>\n    <image:loc>/rel/{i}.png</image:loc>\n  </image:image>\n'
           '  <xhtml:link rel="alternate"\n     hreflang="xx-YY"\n     href="/de/{i}"\n  />\n</url>\n')
    data = (HEAD + "".join(row.format(i=i) for i in range(8)) + "</urlset>\n").encode()
    problems = _same_both_ways(data)
    lines = {(p.code, p.location.line) for p in problems}
    assert len(lines) > 20  # many problems, each on its own element's line


@pytest.mark.usefixtures("batch")
def test_truncated_and_broken_documents_match() -> None:
    full = (HEAD + _rows(12) + "\n</urlset>\n").encode()
    for cut in (len(HEAD) + 5, len(full) // 2, len(full) - 3):
        _same_both_ways(full[:cut])
    one_line = (HEAD.replace("\n", "") + _rows(12).replace("\n", "") + "<url><loc>x</loc><bad></url></urlset>").encode()
    problems = _same_both_ways(one_line)
    assert problems[-1].location.column is not None
    assert problems[-1].location.column > 2000


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_document(), data=st.data())
def test_generated_documents_validate_the_same_both_ways(doc: bytes, data: st.DataObject) -> None:
    doc = doc.replace(b"example.com", b"shop.de")
    cuts = data.draw(st.lists(st.integers(min_value=1, max_value=max(1, len(doc) - 1)), max_size=6), label="cuts")
    saved = vx.XSD_BATCH
    vx.XSD_BATCH = data.draw(st.sampled_from([1, 2, 3, 1000]), label="batch")
    try:
        whole = _same_both_ways(doc)
        assert _same_both_ways(doc, cuts) == whole
    finally:
        vx.XSD_BATCH = saved


def test_report_of_a_generated_sitemap_is_identical() -> None:
    data = (HEAD + _rows(2500, bad_every=11) + "\n</urlset>\n").encode()
    reports = []
    for fast in (False, True):
        _read_fast.ENABLED = fast
        try:
            reports.append(validate_bytes(data, now=NOW))
        finally:
            _read_fast.ENABLED = True
    assert reports[0] == reports[1]
    assert reports[0].error_count > 100


@pytest.mark.usefixtures("batch")
def test_xsd_errors_from_lane_batches_carry_the_roots_line() -> None:
    head = HEAD.replace('<urlset xmlns=', '<urlset data-x="1" xmlns=')
    data = (head + _rows(10) + "\n</urlset>\n").encode()
    problems = _same_both_ways(data)
    xsd = [p for p in problems if p.message.startswith("XSD")]
    assert len(xsd) == 1  # once, not once per batch
    assert xsd[0].location.line == 2


def test_more_than_a_thousand_images_in_one_block() -> None:
    images = "".join(f"<image:image><image:loc>https://shop.de/i/{i}.jpg</image:loc></image:image>"
                     for i in range(1002))
    data = (HEAD + f"<url><loc>https://shop.de/p</loc>{images}</url>\n</urlset>\n").encode()
    problems = _same_both_ways(data)
    assert [p.code for p in problems] == ["SM400"]
