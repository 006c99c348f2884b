"""Issue 22: the validator's memory is bounded on hostile inputs under the byte budget. One <url>'s children past
their caps are not kept (SM329; SM400 for images under the google profile), and duplicate locs are found in bounded
memory (core._seen.SeenSet: exact up to a cap, then a Bloom filter, whose hits are reported as "probably")."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import sitemapkit.core._seen as seen_module
from sitemapkit.cli import cli
from sitemapkit.core import MAX_ALTERNATES_PER_URL, MAX_IMAGES_PER_URL, MAX_VIDEOS_PER_URL
from sitemapkit.validate import validate_bytes
from sitemapkit.validate._context import FileContext, Profile, RunOptions
from sitemapkit.validate._driver import _new_context, _run_stream

NOW = "2026-01-01T00:00:00Z"
NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml" '
      'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
      'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"')


def _doc(children: str, n: int) -> bytes:
    body = "".join(children.format(j=j) for j in range(n))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n<url><loc>https://www.shop.de/</loc>\n'
            f'{body}</url>\n</urlset>\n').encode()


_LINK = '<xhtml:link rel="alternate" hreflang="de" href="https://www.shop.de/"/>\n'
_IMAGE = "<image:image><image:loc>https://www.shop.de/{j}.jpg</image:loc></image:image>\n"
_VIDEO = ("<video:video><video:thumbnail_loc>https://www.shop.de/{j}.jpg</video:thumbnail_loc><video:title>t"
          "</video:title><video:description>d</video:description><video:content_loc>https://www.shop.de/{j}.mp4"
          "</video:content_loc></video:video>\n")


def _run(data: bytes, chunk: int) -> FileContext:
    ctx = _new_context("<test>", None, RunOptions(Profile.GOOGLE, NOW, False), None)  # type: ignore[arg-type]
    _run_stream(ctx, (data[i:i + chunk] for i in range(0, len(data), chunk)))
    return ctx


@pytest.mark.parametrize("chunk", [1 << 24, 4096])
def test_alternates_past_the_cap_are_reported_not_kept(chunk: int) -> None:
    n = MAX_ALTERNATES_PER_URL + 250
    ctx = _run(_doc(_LINK, n), chunk)
    [problem] = [p for p in ctx.problems if p.code == "SM329"]
    assert f"{n:,} <xhtml:link>" in problem.message
    assert f"only the first {MAX_ALTERNATES_PER_URL:,} are checked" in problem.message
    assert problem.location.line == 4 + MAX_ALTERNATES_PER_URL  # the first link dropped
    assert {p.code for p in ctx.problems} == {"SM329"}


@pytest.mark.parametrize("chunk", [1 << 24, 4096])
def test_images_past_googles_limit_are_reported_with_their_count(chunk: int) -> None:
    n = MAX_IMAGES_PER_URL + 7
    ctx = _run(_doc(_IMAGE, n), chunk)
    [problem] = [p for p in ctx.problems if p.code == "SM400"]
    assert f"{n:,} images in one <url>" in problem.message
    assert problem.location.line == 4 + MAX_IMAGES_PER_URL
    assert {p.code for p in ctx.problems} == {"SM400"}


def test_videos_past_the_cap_are_reported() -> None:
    report = validate_bytes(_doc(_VIDEO, MAX_VIDEOS_PER_URL + 1), profile="google", now=NOW)
    assert report.codes() == ["SM329"]


def test_validate_cli_on_one_huge_url(tmp_path: Path) -> None:
    path = tmp_path / "links.xml"
    path.write_bytes(_doc(_LINK, MAX_ALTERNATES_PER_URL + 1))
    result = CliRunner().invoke(cli, ["validate", str(path), "--now", NOW])
    assert result.exit_code == 0, result.output  # a warning
    assert "SM329" in result.output


def _text(n: int, dup_of: list[int]) -> bytes:
    lines = [f"https://www.shop.de/p/{j}" for j in range(n)] + [f"https://www.shop.de/p/{j}" for j in dup_of]
    return ("\n".join(lines) + "\n").encode()


def test_duplicates_past_the_exact_set_are_found_with_bounded_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seen_module, "SEEN_EXACT", 5)
    ctx = _run(_text(40, [2, 30]), 1 << 20)
    dups = [p for p in ctx.problems if p.code == "SM306"]
    assert [p.location.loc for p in dups] == ["https://www.shop.de/p/2", "https://www.shop.de/p/30"]
    assert "probably" not in dups[0].message  # in the exact set
    assert "probably listed more than once" in dups[1].message  # found by the filter
    assert ctx._seen.exact_size == 5
    assert ctx._seen.in_filter == 35


def test_urls_unique_is_bounded_too(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(seen_module, "SEEN_EXACT", 3)
    path = tmp_path / "urls.txt"
    path.write_bytes(_text(20, [1, 15, 15]))
    result = CliRunner().invoke(cli, ["urls", "--unique", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.split() == [f"https://www.shop.de/p/{j}" for j in range(20)]


@pytest.mark.parametrize("limit", [3, 10_000])
def test_hreflang_store_packs_each_waiting_link_into_one_int(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                             limit: int) -> None:
    """The waiting links and settled pairs are keyed by one int (the two hashes packed), not a tuple of two; the
    answers are the same in memory and after a spill to SQLite (negative and positive hashes alike)."""
    import sitemapkit.validate._hreflang as H

    monkeypatch.setattr(H, "MAX_PENDING_LINKS", limit)
    pages = [f"https://s/{lang}/{j}" for j in range(6) for lang in ("en", "de")]
    with H.HreflangStore(str(tmp_path)) as store:
        for page in pages:
            store.add_page(page)
        for j in range(6):
            en, de = f"https://s/en/{j}", f"https://s/de/{j}"
            store.add_links(en, [(de, "de", j)], "a.xml")
            if j % 2:
                store.add_links(de, [(en, "en", j)], "a.xml")  # returned: settled
            if limit > 100:
                assert all(isinstance(k, int) for k in store._pending)
                assert all(isinstance(k, int) for k in store._settled)
        one_way = sorted(link.page for link in store.non_reciprocal())
        assert bool(store.spilled) == (limit == 3)
    assert one_way == [f"https://s/en/{j}" for j in (0, 2, 4)]
