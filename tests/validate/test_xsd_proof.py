"""The fast lane skips the XSD for a batch only when the schema surely accepts every block of it (``_proof``).

Soundness: every value the proof accepts, the bundled schema accepts (checked with the schema itself, on values
at and past every edge). Equivalence: a document whose XSD-only problems sit in later batches gets the same report
with the proof and without it, through the validator and the real CLI, while the clean batches are skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from sitemapkit.core._problems import Problem
from sitemapkit.read import _lane as _read_lane
from sitemapkit.validate import _lane
from sitemapkit.validate._checks import FAST_URL
from sitemapkit.validate._driver import _new_context, _options, _run_stream
from sitemapkit.validate._hreflang import HreflangStore
from sitemapkit.validate._proof import XsdProof
from sitemapkit.validate._schemas import SchemaKind, load_schema
from sitemapkit.validate._xsd import XsdBatching
from tests.support.cli import run_cli

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML = "http://www.w3.org/1999/xhtml"
HEAD = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{IMAGE}" '
        f'xmlns:xhtml="{XHTML}">\n')
NOW = "2026-01-01T00:00:00Z"

LASTMODS = [
    "2024-01-01", "2024-02-29", "2023-02-29", "2024-02-30", "2024-04-31", "2024-12-31", "2024-13-01", "2024-00-10",
    "2024-01-00", "0999-01-01", "1000-01-01", "9999-12-31", "10000-01-01", "2024-1-01", "2024-01-1", "1900-02-29",
    "2000-02-29", "2024-01-01T10:00:00Z", "2024-01-01T10:00:00", "2024-01-01T10:00Z", "2024-01-01T23:59:59.999Z",
    "2024-01-01T24:00:00Z", "2024-01-01T10:60:00Z", "2024-01-01T10:00:60Z", "2024-01-01T10:00:00+14:00",
    "2024-01-01T10:00:00-14:00", "2024-01-01T10:00:00+14:01", "2024-01-01T10:00:00+13:59", "2024-01-01T10:00:00+1:00",
    "2024-01-01T10:00:00+01:60", "2024-01-01Z", "2024-01-01+01:00", "2024-01-01T10:00:00.Z", "2024-01-01 10:00:00",
]
PRIORITIES = ["0", "1", "0.0", "1.0", "1.00", "0.5", "0.123456789", ".5", "+0.5", "-0", "1.01", "01", "0.", "1.",
              "2", "0,5", "1e-1", " 0.5"]
CHANGEFREQS = ["always", "hourly", "daily", "weekly", "monthly", "yearly", "never", "Daily", "sometimes", ""]
LOCS = ["http://a.b/", "http://a.bc/", "https://shop.example/x", "https://shop.example/" + "x" * 2020,
        "https://shop.example/a?b=c&amp;d=e", "https://shop.example/%41", "https://shop.example/a%2"]
HREFLANGS = ["en", "de-DE", "x-default", "zh-Hant-TW", "abcdefgh", "abcdefghi", "en_US", "1en", "en-", "",
             "en-abcdefghi", "i-klingon"]
IMAGE_LOCS = ["https://shop.example/i.jpg", "https://shop.example/i%20j.jpg", "http://a/", "/relative.jpg"]


def _block(loc: str, lastmod: str | None = None, changefreq: str | None = None, priority: str | None = None,
           images: tuple[str, ...] = (), links: tuple[tuple[str, str], ...] = ()) -> str:
    out = f"<url><loc>{loc}</loc>"
    if lastmod is not None:
        out += f"<lastmod>{lastmod}</lastmod>"
    if changefreq is not None:
        out += f"<changefreq>{changefreq}</changefreq>"
    if priority is not None:
        out += f"<priority>{priority}</priority>"
    for image in images:
        out += f"<image:image><image:loc>{image}</image:loc></image:image>"
    for hreflang, href in links:
        out += f'<xhtml:link rel="alternate" hreflang="{hreflang}" href="{href}"/>'
    return out + "</url>\n"


def _schema_accepts(block: str) -> bool:
    doc = etree.fromstring((HEAD + block + "</urlset>").encode())
    return bool(load_schema(SchemaKind.URLSET).validate(doc))


def test_every_value_the_proof_accepts_the_schema_accepts() -> None:
    proof = XsdProof.for_head(HEAD.encode())
    assert proof is not None
    cases = ([{"lastmod": v} for v in LASTMODS] + [{"priority": v} for v in PRIORITIES]
             + [{"changefreq": v} for v in CHANGEFREQS] + [{"loc": v} for v in LOCS]
             + [{"links": (("en", "https://shop.example/en"), (v, "https://shop.example/x"))} for v in HREFLANGS]
             + [{"images": (v,)} for v in IMAGE_LOCS]
             + [{"links": (("en", v),)} for v in IMAGE_LOCS])
    accepted = refused = 0
    for case in cases:
        values = {"loc": "https://shop.example/page", **case}
        loc = values["loc"].replace("&amp;", "&")  # type: ignore[union-attr]
        images = values.get("images", ())
        links = values.get("links", ())
        parts = (list(images), list(links)) if images or links else None  # type: ignore[call-overload]
        if FAST_URL(loc) is None or len(loc) >= 2048:  # the lane asks only about a loc entry_loc kept as written
            refused += 1
            continue
        says = proof.block(loc, values.get("lastmod"), values.get("changefreq"),  # type: ignore[arg-type]
                           values.get("priority"), parts)  # type: ignore[arg-type]
        if says:
            assert _schema_accepts(_block(**values)), case  # type: ignore[arg-type]
            accepted += 1
        else:
            refused += 1
    assert accepted > 30
    assert refused > 30


def test_only_a_sitemap_urlset_root_gets_a_proof() -> None:
    assert XsdProof.for_head(HEAD.encode()) is not None
    assert XsdProof.for_head(HEAD.replace(NS, "http://www.google.com/schemas/sitemap/0.84").encode()) is None
    assert XsdProof.for_head(b'<?xml version="1.0"?>\n<urlset xmlns="' + NS.encode() + b'" x="1" x="2">') is None


def _document(n: int, odd: dict[int, str]) -> bytes:
    """n lane-shaped URLs in en/de pairs with hreflang and an image; ``odd`` replaces some URLs' lastmod."""
    lines = [HEAD]
    for i in range(n):
        slug = i // 2
        lang = "en" if i % 2 == 0 else "de"
        lines.append(_block(f"https://shop.de/{lang}/{slug}", odd.get(i, f"2024-0{slug % 9 + 1}-1{slug % 9}"),
                            images=(f"https://shop.de/i/{slug}.jpg",),
                            links=(("en", f"https://shop.de/en/{slug}"),
                                   ("de", f"https://shop.de/de/{slug}"))))
    lines.append("</urlset>\n")
    return "".join(lines).encode()


def _report(data: bytes, profile: str, monkeypatch: pytest.MonkeyPatch, *, proof: bool) -> tuple[list[Problem], int]:
    skipped = [0]
    real_skip = XsdBatching.skip_bytes_batch

    def counting(self: XsdBatching) -> None:
        skipped[0] += 1
        real_skip(self)

    with monkeypatch.context() as m:
        m.setattr(XsdBatching, "skip_bytes_batch", counting)
        if not proof:
            m.setattr(_lane.XsdProof, "for_head", classmethod(lambda cls, head: None))
        options = _options(profile, NOW, False, True)
        with HreflangStore() as store:
            ctx = _new_context("doc.xml", None, options, store if profile == "google" else None)
            _run_stream(ctx, iter([data[i:i + 70_000] for i in range(0, len(data), 70_000)]))
            return list(ctx.problems), skipped[0]


@pytest.mark.parametrize("profile", ["google", "sitemaps"])
def test_late_xsd_problems_are_reported_with_and_without_the_proof(profile: str,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # XSD-only values (the rule checks may let them pass) in the third and fifth batches of 1,000 URLs.
    odd = {2345: "2024-01-01T10:00:00+14:30", 4321: "2024-02-30", 4700: "2024-01-01T24:00:00Z"}
    data = _document(5500, odd)
    with_proof, skipped = _report(data, profile, monkeypatch, proof=True)
    without, none_skipped = _report(data, profile, monkeypatch, proof=False)
    assert with_proof == without
    assert none_skipped == 0
    assert skipped == 2  # batches 2 and 4 are clean; 1 is always validated, 3 and 5 hold the odd values
    xsd_lines = {p.location.line for p in with_proof if p.code == "SM204"}
    assert xsd_lines  # the schema's verdicts on the late batches are there


def test_cli_reports_a_late_xsd_error(tmp_path: Path) -> None:
    path = tmp_path / "late.xml"
    path.write_bytes(_document(3500, {3210: "2024-01-01T10:00:00+14:30"}))
    result = run_cli(["validate", str(path), "--format", "json"])
    assert result.returncode == 1
    assert '"SM204"' in result.stdout
    assert '"line": 3213' in result.stdout  # the line of URL 3,210 (after the two lines of the head)


def _shop_document(n: int) -> bytes:
    """A shop's sitemap: query strings with ``&amp;``, %-encoded umlauts, a raw UTF-8 image path, a comment."""
    lines = [HEAD, "<!-- generated by a shop -->\n"]
    for i in range(n):
        slug = f"gr%C3%B6%C3%9Fe-{i // 2}?farbe=rot&amp;seite={i % 7}"
        lang = "en" if i % 2 == 0 else "de"
        lines.append(_block(f"https://shop.de/{lang}/{slug}", f"2024-0{i % 9 + 1}-1{i % 9}",
                            images=(f"https://shop.de/bilder/{i}.jpg",),
                            links=(("en", f"https://shop.de/en/{slug}"), ("de", f"https://shop.de/de/{slug}"))))
        if i % 1000 == 999:
            lines.append("<!-- page break -->\n")
    lines.append("</urlset>\n")
    return "".join(lines).encode()


@pytest.mark.parametrize("profile", ["google", "sitemaps"])
def test_entity_bearing_blocks_take_the_lane_and_report_the_same(profile: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    data = _shop_document(4500)
    lane, skipped = _report(data, profile, monkeypatch, proof=True)
    monkeypatch.setattr(_read_lane, "ENABLED", False)
    element_path, _ = _report(data, profile, monkeypatch, proof=True)
    assert lane == element_path
    assert skipped == 3  # batches 2-4 proven (the lane used to stop at the first "&amp;")
    bad = data.replace(b"seite=3</loc>", b"seite=3&amp;x=&lt;</loc>", 1)  # "<" decoded: not a URL
    monkeypatch.setattr(_read_lane, "ENABLED", True)
    lane_bad, _ = _report(bad, profile, monkeypatch, proof=True)
    monkeypatch.setattr(_read_lane, "ENABLED", False)
    assert lane_bad == _report(bad, profile, monkeypatch, proof=True)[0]
    assert len(lane_bad) > len(lane)
