"""Every case of ../shared/corpus/edge-cases gives the result EXPECTED.tsv states, in lenient and strict mode."""

from __future__ import annotations

import csv

import pytest

from sitemapkit import ParseError, Severity, parse_bytes
from sitemapkit.core import normalize_loc
from tests.support.corpus import CORPUS, corpus_params, needs_corpus

EDGE = CORPUS / "edge-cases"


def _cases() -> list[dict[str, str]]:
    expected = EDGE / "EXPECTED.tsv"
    if not expected.is_file():
        return []
    with expected.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


CASES = _cases()


def _expected_locs(case: dict[str, str]) -> list[str] | None:
    """The URL list the case expects (normalised like the model does), or None for free-form expectations."""
    text = case["lenient_result"].strip()
    if not text:
        return []
    if text.startswith("sitemaps: "):
        text = text[len("sitemaps: "):]
    if " .. " in text:  # "https://example.com/p0 .. https://example.com/p48 (49 URLs)"
        first, _, rest = text.partition(" .. ")
        last = rest.split(" (")[0]
        prefix = first.rstrip("0123456789")
        lo, hi = int(first[len(prefix):]), int(last[len(prefix):])
        return [f"{prefix}{i}" for i in range(lo, hi + 1)]
    if text.startswith("("):
        return None
    return [normalize_loc(u) for u in text.split("|")]


@pytest.mark.parametrize("case", corpus_params(CASES, ids=lambda c: c["case"]))
def test_lenient(case: dict[str, str]) -> None:
    data = (EDGE / case["case"]).read_bytes()
    result = parse_bytes(data, case["case"])
    locs = [e.loc for e in result.entries] + [s.loc for s in result.sitemaps]
    expected = _expected_locs(case)
    if expected is None:  # 18: "2 entries or 2 problems; never a crash"
        assert len(locs) + len(result.problems) >= 2
    else:
        assert locs == expected
    if case["lenient_result"].startswith("sitemaps: "):
        assert result.entries == ()
    problems = case["problems"]
    if problems == "none":
        assert result.problems == ()
    elif problems == "warning":
        assert result.warnings
        assert not result.errors
    else:
        assert problems == "error"
        assert result.errors
    for p in result.problems:
        assert p.location.source == case["case"]
        assert p.message


@pytest.mark.parametrize("case", corpus_params(CASES, ids=lambda c: c["case"]))
def test_strict(case: dict[str, str]) -> None:
    data = (EDGE / case["case"]).read_bytes()
    if case["strict_mode"] == "accept":
        result = parse_bytes(data, case["case"], strict=True)
        assert not result.errors
        lenient = parse_bytes(data, case["case"])
        assert result.entries == lenient.entries
        assert result.sitemaps == lenient.sitemaps
    else:
        assert case["strict_mode"] == "reject"
        with pytest.raises(ParseError) as info:
            parse_bytes(data, case["case"], strict=True)
        assert info.value.problem.severity is Severity.ERROR
        assert info.value.problem.location.source == case["case"]
        assert case["case"] in str(info.value)


@needs_corpus
def test_every_case_is_covered() -> None:
    files = {p.name for p in EDGE.iterdir() if p.name != "EXPECTED.tsv"}
    assert files == {c["case"] for c in CASES}
    assert len(CASES) >= 31


@needs_corpus
def test_truncated_never_yields_partial_url() -> None:
    data = (EDGE / "09_truncated_mid_url.xml").read_bytes()
    locs = [e.loc for e in parse_bytes(data).entries]
    assert "https://example.com/p4" not in locs[5:]  # the cut-off "p4..." of the 50th entry
    assert len(locs) == 49


@needs_corpus
def test_html_says_not_a_sitemap() -> None:
    result = parse_bytes((EDGE / "08_html_served_as_sitemap.xml").read_bytes())
    assert [p.code for p in result.problems] == ["SM101"]
    assert "HTML" in result.problems[0].message
    assert result.kind.value == "html"

