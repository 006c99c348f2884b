"""The mojibake check's verdict, cached by a URL's %-escape runs, is the verdict of the whole URL."""

from __future__ import annotations

import json
import random
from pathlib import Path
from urllib.parse import quote

from sitemapkit.validate import _checks
from sitemapkit.validate._checks import check_loc
from tests.support.cli import run_cli

WORDS = ["größe", "café", "Ã¶", "Ã¤rger", "Â£", "naïve", "€uro", "ÃŸ", "ü", "Å“", "plain", "a-b", "100%"]


def _url(r: random.Random) -> str:
    parts = []
    for _ in range(r.randint(1, 4)):
        word = r.choice(WORDS)
        double = r.random() < 0.3  # UTF-8 read as Latin-1 and encoded again
        parts.append(quote(word.encode("utf-8").decode("latin-1") if double else word, safe=""))
    return "https://shop.de/" + r.choice(["/", "-", "?q=", "&x="]).join(parts)


def test_cached_verdict_is_the_whole_urls_verdict() -> None:
    r = random.Random(5)
    seen = {True: 0, False: 0}
    for _ in range(4000):
        url = _url(r)
        if not _checks._MOJIBAKE_HINT.search(url):
            continue
        try:
            whole = _checks._mojibake_of(url)
        except UnicodeDecodeError:
            continue
        assert _checks._is_mojibake(url) == whole, url
        assert _checks._is_mojibake(url) == whole, url  # and from the cache
        seen[whole] += 1
    assert seen[True] > 100
    assert seen[False] > 100


def test_check_loc_still_names_double_encoding() -> None:
    good = "https://shop.de/gr%C3%B6%C3%9Fe"
    bad = "https://shop.de/gr" + quote("ö".encode().decode("latin-1")) + quote("ß".encode().decode("latin-1"))
    for _ in range(2):  # the second time from the cache
        assert check_loc(good)[1] == []
        assert [code.code for code, _ in check_loc(bad)[1]] == ["SM310"]


def test_escapes_that_are_not_utf8_are_no_mojibake_and_no_traceback(tmp_path: Path) -> None:
    # "%C3%83%C3" looks like double-encoded UTF-8 to the hint but its bytes are not UTF-8 at all: the validator
    # raised UnicodeDecodeError out of the mojibake check (a traceback from `sitemapkit validate`)
    url = "https://shop.de/%C3%83%C3%83%C3"
    assert check_loc(url) == (url, [])
    path = tmp_path / "odd.xml"
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                    f"<url><loc>{url}</loc></url><url><loc>https://shop.de/gr%C3%83%C2%BCn</loc></url></urlset>\n")
    result = run_cli(["validate", str(path), "--format", "json"])
    assert result.returncode == 1, result.stderr
    assert [p["code"] for p in json.loads(result.stdout)["problems"]] == ["SM310"]


def test_urls_differing_before_their_first_escape_share_the_last_verdict_and_others_do_not() -> None:
    # the one-entry memo (the URL from its first "%" on): en/de pages of one product hit it; any other URL, even
    # one differing only after the first "%", gets its own verdict
    r = random.Random(11)
    served = 0
    for _ in range(3000):
        url = _url(r)
        if "%" not in url:
            continue
        tail = url[url.index("%"):]
        for prefix in ("https://shop.de/en/", "https://shop.de/de/x-"):
            other = prefix + tail
            try:
                expected = bool(_checks._MOJIBAKE_HINT.search(other)) and _checks._mojibake_of(other)
            except UnicodeDecodeError:  # (decided as "no" since _mojibake_of catches it)
                expected = False
            memo = _checks._MOJIBAKE_LAST
            assert _checks._is_mojibake(other) == expected, other
            served += memo[0] == tail
    assert served > 1000
