"""A shop's sitemap through the validator's lane (issue 27, whole process <= 1.2x bare lxml): values whose only
reference is ``&amp;`` are decoded by one replace, an href equal to the previous entry's plain loc is not matched
again, the mojibake check of a plain loc runs alone, the run splitter reads values of an accepted run by their
delimiters. Each of these must report exactly what the element path (lane off) reports.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from sitemapkit.core._problems import Problem
from sitemapkit.read import _lane as _read_lane
from sitemapkit.read._blocks import block_patterns
from sitemapkit.validate import _bulk, _checks, _lane
from sitemapkit.validate._checks import FAST_URL, check_loc, check_loc_mojibake, is_placeholder_host
from sitemapkit.validate._driver import _new_context, _options, _run_stream
from sitemapkit.validate._hreflang import HreflangStore
from tests.support.cli import run_cli

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n')
NOW = "2026-01-01T00:00:00Z"
WORDS = ("gr%C3%BCn", "gr%C3%B6%C3%9Fe", "m%C3%BCtze", "gr%C3%83%C2%BCn")  # the last one double-encoded


def _page(i: int) -> str:
    """The page of entry ``i``: entries 2k (en) and 2k + 1 (de) are one page in two languages."""
    return f"schuhe/{WORDS[(i // 2) % len(WORDS)]}-{i // 2}?color=rot&amp;size={(i // 2) % 13 + 36}"


def _shop(n: int, odd: dict[int, tuple[str, str, str]] | None = None) -> bytes:
    """n URLs in en/de pairs, each with both hreflang alternates, an image and a lastmod; ``odd`` replaces an
    entry's (loc, en href, de href)."""
    lines = [HEAD]
    for i in range(n):
        page = _page(i)
        lang = "en" if i % 2 == 0 else "de"
        loc, en, de = (odd or {}).get(i, (f"https://shop.de/{lang}/{page}", f"https://shop.de/en/{page}",
                                          f"https://shop.de/de/{page}"))
        lines.append(f'<url><loc>{loc}</loc><lastmod>2024-0{i % 9 + 1}-1{i % 9}</lastmod>'
                     f'<xhtml:link rel="alternate" hreflang="en" href="{en}"/>'
                     f'<xhtml:link rel="alternate" hreflang="de" href="{de}"/>'
                     f"<image:image><image:loc>https://shop.de/bilder/{i}.jpg</image:loc></image:image></url>\n")
    lines.append("</urlset>\n")
    return "".join(lines).encode()


def _report_once(data: bytes, profile: str) -> tuple[list[Problem], dict[str, int]]:
    options = _options(profile, NOW, False, True)
    with HreflangStore() as store:
        ctx = _new_context("shop.xml", None, options, store if profile == "google" else None)
        _run_stream(ctx, iter([data[i:i + 70_000] for i in range(0, len(data), 70_000)]))
        return list(ctx.problems), dict(ctx.tally)


def _report(data: bytes, profile: str = "google") -> tuple[list[Problem], dict[str, int]]:
    """The report, the same with the lane's runs of blocks (_bulk) checked together and one by one."""
    report = _report_once(data, profile)
    saved = _bulk.ENABLED
    _bulk.ENABLED = not saved
    try:
        assert _report_once(data, profile) == report
    finally:
        _bulk.ENABLED = saved
    return report


def _element_path(data: bytes, monkeypatch: pytest.MonkeyPatch,
                  profile: str = "google") -> tuple[list[Problem], dict[str, int]]:
    with monkeypatch.context() as m:
        m.setattr(_read_lane, "ENABLED", False)
        return _report(data, profile)


def test_amp_only_values_are_decoded_without_xml_value(monkeypatch: pytest.MonkeyPatch) -> None:
    data = _shop(3000)
    expected = _element_path(data, monkeypatch)
    assert expected[1]["SM310"] == 750  # every fourth pair of pages double-encoded

    def refuse(*_args: object) -> str:
        raise AssertionError("an ASCII buffer whose every '&' is '&amp;' needs no general decoding")

    with monkeypatch.context() as m:
        m.setattr(_lane, "xml_value", refuse)
        m.setattr(_lane, "url_values", refuse)
        assert _report(data) == expected


@pytest.mark.parametrize("other", ["&lt;", "&#38;", "&#x26;", "&apos;", "\u00fc"])
def test_a_buffer_with_other_references_is_decoded_as_before(other: str, monkeypatch: pytest.MonkeyPatch) -> None:
    page = _page(7)
    loc = f"https://shop.de/de/{page}&amp;x={other}"
    data = _shop(2000, {7: (loc, f"https://shop.de/en/{page}", loc)})
    lane, _ = _report(data)
    assert (lane, _) == _element_path(data, monkeypatch)
    assert any(p.location.line == 10 for p in lane) or other in ("&#38;", "&#x26;", "&apos;")


def test_an_href_equal_to_the_previous_plain_loc_is_not_matched_again(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 2000
    data = _shop(n)
    calls = [0]

    def counting(text: str) -> re.Match[str] | None:
        calls[0] += 1
        return FAST_URL(text)

    expected = _element_path(data, monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(_lane, "FAST_URL", counting)
        m.setattr(_bulk, "ENABLED", False)  # (runs of blocks check their URLs together, with FAST_URLS)
        assert _report_once(data, "google") == expected
    # per pair: the image of each page and the en page's de href (the de page's en href is the en page's loc),
    # plus the de pages that start a buffer (the lane forgets the previous loc between buffers); it was 2 n
    assert n + n // 2 <= calls[0] < n + n // 2 + 20


@pytest.mark.parametrize("bad", ["https://shop.de/a b", "https://localhost/x", "https://shop.de/" + "x" * 2040,
                                 "shop.de/relative", "https://shop.de/a%zz", "https://shop.de/caf\u00e9"])
def test_an_href_equal_to_a_previous_loc_that_was_not_plain_is_still_checked(
        bad: str, monkeypatch: pytest.MonkeyPatch) -> None:
    page = _page(10)
    # entry 10 (en) has the odd loc; entry 11 (de) lists it as its en alternate
    odd = {10: (bad, bad, f"https://shop.de/de/{page}"), 11: (f"https://shop.de/de/{page}", bad,
                                                          f"https://shop.de/de/{page}")}
    data = _shop(1500, odd)
    expected = _element_path(data, monkeypatch)
    checked: list[str | None] = []
    real = _lane.check_alternates

    def recording(ctx: object, links: object, loc: str | None) -> None:
        checked.append(loc)
        real(ctx, links, loc)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(_lane, "check_alternates", recording)
        assert _report(data) == expected
    # an href that is not plain sends entry 11's alternates to the full check, although it equals the loc before
    # it (which entry_loc did not take as plain either); a placeholder host or a long URL is plain for an href
    assert (f"https://shop.de/de/{page.replace('&amp;', '&')}" in checked) == (FAST_URL(bad) is None)


@pytest.mark.parametrize("profile", ["google", "sitemaps"])
def test_cli_reports_a_shop_file_as_the_element_path_does(profile: str, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "shop.xml"
    path.write_bytes(_shop(2500, {1234: ("https://shop.de/de/x y", "https://shop.de/en/x", "https://shop.de/de/x y")}))
    args = ["validate", "--profile", profile, str(path), "--format", "json"]
    lane = run_cli(args)
    monkeypatch.setattr(_read_lane, "ENABLED", False)
    element = run_cli(args)
    assert lane.returncode == element.returncode == 1

    def timeless(out: str) -> list[str]:
        return [line for line in out.splitlines() if not re.search(r'"(now|generated|started|finished)\w*": ', line)]

    assert timeless(lane.stdout) == timeless(element.stdout)
    assert '"SM310"' in lane.stdout
    assert '"line": 1237' in lane.stdout


def test_check_loc_mojibake_is_what_check_loc_finds_on_a_plain_loc() -> None:
    r = random.Random(27)
    pieces = ["%C3%BC", "%c3%bc", "%C3%83%C2%BC", "%c3%83%c2%bc", "%C2%A3", "%C3", "%E2%82%AC", "a", "-", "?q=",
              "&x=", "%41", "%C3%83", "%c3%a3%c2%B6"]
    compared = found = 0
    for _ in range(3000):
        raw = f"https://shop.de/{''.join(r.choice(pieces) for _ in range(r.randint(1, 6)))}"
        m = FAST_URL(raw)
        assert m is not None
        assert not is_placeholder_host(m.group(2))
        for field in ("loc", "href"):
            expected = check_loc(raw, field=field)[1]
            assert check_loc_mojibake(raw, field=field) == expected, raw
            compared += 1
            found += bool(expected)
    assert compared == 6000
    assert 300 < found < 5700


def test_the_ascii_hint_finds_what_the_full_hint_finds_in_ascii_text() -> None:
    r = random.Random(4)
    pieces = ["%C3", "%c2", "%C4", "%83", "%Bc", "%b", "%9", "%A", "%8f", "%C3%8", "%c3%a", "C3", "%", "x", "/", "-"]
    hits = 0
    for _ in range(20000):
        text = "".join(r.choice(pieces) for _ in range(r.randint(0, 8)))
        full = _checks._MOJIBAKE_HINT.search(text) is not None
        assert (_checks._MOJIBAKE_HINT_ASCII(text) is not None) == full, text
        hits += full
    assert hits > 100


def test_the_run_splitter_reads_accepted_runs_as_the_general_pattern_does() -> None:
    r = random.Random(9)
    values = ["https://a.de/x", "https://a.de/?a=1&amp;b=2", "https://a.de/gr\u00fcn", "x&#38;y", "", "a b",
              "https://a.de/&lt;&gt;&quot;&apos;"]
    langs = ["en", "de-AT", "x-default", "", "&amp;"]
    orders = ['rel="alternate" hreflang="{l}" href="{h}"', 'rel="alternate" href="{h}" hreflang="{l}"',
              'hreflang="{l}" href="{h}" rel="alternate"', 'href="{h}" hreflang="{l}" rel="alternate"']
    for extended in (False, True):
        block, splitter = block_patterns("image", "xhtml", True, extended)
        assert splitter is not None
        checked = 0
        for _ in range(1500):
            items = []
            for _ in range(r.randint(1, 5)):
                if r.random() < 0.4:
                    items.append(f"<image:image>{r.choice(['', ' '])}<image:loc>{r.choice(values)}</image:loc>"
                                 "</image:image>")
                else:
                    attrs = r.choice(orders).format(l=r.choice(langs), h=r.choice(values)).replace(" ", r.choice(
                        [" ", "\n  "]))
                    items.append(f"<xhtml:link {attrs}/>")
            doc = f"<url><loc>https://a.de/</loc>{''.join(items)}</url><"
            m = block.match(doc.encode().decode("latin-1"))
            if m is None:
                continue
            run = m.group(5)
            parts = splitter.general.findall(run)
            expected = ([p[1] for p in parts if p[0]],
                        [(p[2] or p[5] or p[6] or p[9], p[3] or p[4] or p[7] or p[8]) for p in parts if not p[0]])
            assert splitter.split(run) == expected, run
            checked += 1
        assert checked > 100


def test_the_lanes_line_count_is_the_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    # the validator's lane tells _advance how many line feeds precede where it stopped (so the 1 MiB buffer is not
    # counted twice); the count must be the buffer's own, with blocks on several lines and comments between them
    lines = [HEAD]
    for i in range(3000):
        sep = "\n  " if i % 7 == 0 else ""  # (a block on several lines whose run has a reference goes to lxml)
        page = _page(i).split("?")[0] if sep else _page(i)
        lines.append(f"<url>{sep}<loc>https://shop.de/{page}</loc>{sep}<lastmod>2024-01-0{i % 9 + 1}</lastmod>"
                     f'<xhtml:link rel="alternate" hreflang="de" href="https://shop.de/{page}"/></url>\n')
        if i % 500 == 499:
            lines.append("<!-- page -->\n\n")
    data = "".join([*lines, "</urlset>\n"]).encode()
    real = _read_lane.CanonicalLane._advance
    told = [0]

    def checking(self: _read_lane.CanonicalLane, text: str, pos: int, text_nl: int | None = None) -> int | None:
        known = self._nl_at
        if known is not None:
            assert known == (pos, text.count("\n", 0, pos))
            told[0] += 1
        if text_nl is not None:  # the stream's own count of the buffer, when it gave one
            assert text_nl == text.count("\n")
        return real(self, text, pos, text_nl)

    expected = _element_path(data, monkeypatch)
    with monkeypatch.context() as m:
        m.setattr(_read_lane.CanonicalLane, "_advance", checking)
        assert _report(data) == expected
    assert told[0] >= 10
