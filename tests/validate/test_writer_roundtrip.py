"""Whatever ``sitemapkit generate`` / ``write_sitemaps`` writes validates clean (hypothesis), through the library
and once through the real CLI of both commands."""

from __future__ import annotations

import json
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit import Alternate, Changefreq, Image, News, UrlEntry, Video, validate_sitemaps
from sitemapkit.write import write_sitemaps
from tests.support.cli import run_cli

BASE = "https://www.generated-shop.de/"
NOW = datetime.now(UTC).replace(microsecond=0)

segments = st.text(alphabet="abcdefghijklmnopqrstuvwxyzäöüß-_.~0123456789 ", min_size=1, max_size=12).filter(
    lambda s: s.strip(" .") != "")
lastmods = st.dates(min_value=datetime(2001, 1, 1).date(), max_value=(NOW - timedelta(days=1)).date())
titles = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Co", "Cn")), min_size=1,
                 max_size=30).filter(str.strip)
datetimes = st.datetimes(min_value=datetime(2001, 1, 1), max_value=datetime(2025, 1, 1),
                         timezones=st.just(UTC)).map(lambda d: d.replace(microsecond=0))


@st.composite
def entries(draw: st.DrawFn) -> list[UrlEntry]:
    slugs = draw(st.lists(segments, min_size=1, max_size=6, unique_by=lambda s: s.strip().lower()))
    out: list[UrlEntry] = []
    for i, slug in enumerate(slugs):
        path = f"p{i}/{slug}"
        with_alternates = draw(st.booleans())
        en, de = BASE + "en/" + path, BASE + "de/" + path
        alternates = (Alternate("en", en), Alternate("de-AT", de), Alternate("x-default", en))
        images = tuple(Image(BASE + f"img/{i}-{k}.jpg") for k in range(draw(st.integers(0, 3))))
        videos: tuple[Video, ...] = ()
        if draw(st.booleans()):
            videos = (Video(BASE + f"thumb/{i}.jpg", draw(titles),
                            "A description", content_loc=BASE + f"video/{i}.mp4",
                            duration=draw(st.integers(1, 28_800)), rating=draw(st.sampled_from([0.0, 2.5, 5.0])),
                            tags=tuple(f"t{k}" for k in range(draw(st.integers(0, 32))))),)
        news = None
        if draw(st.booleans()):
            news = News("Daily Paper", draw(st.sampled_from(["en", "de", "zh-cn", "ast"])),
                        (NOW - timedelta(hours=draw(st.integers(1, 40)))).isoformat(), "Headline")
        common = {
            "lastmod": draw(st.one_of(st.none(), lastmods, datetimes)),
            "changefreq": draw(st.one_of(st.none(), st.sampled_from(list(Changefreq)))),
            "priority": draw(st.one_of(st.none(), st.sampled_from([0.0, 0.1, 0.5, 1.0]))),
        }
        if with_alternates:
            out.append(UrlEntry(en, alternates=alternates, images=images, videos=videos, news=news, **common))
            out.append(UrlEntry(de, alternates=alternates, **common))
        else:
            out.append(UrlEntry(en, images=images, videos=videos, news=news, **common))
    return out


@settings(max_examples=25, deadline=None)
@given(items=entries(), gz=st.booleans(), split=st.integers(1, 4))
def test_written_sets_validate_clean(items: list[UrlEntry], gz: bool, split: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        write_sitemaps(items, out, BASE, gzip=gz, max_urls=split)
        # The index's lastmods are the publish time: validate against the clock now, not the module's import time
        # (on a long suite run that was minutes ago).
        report = validate_sitemaps([out], base_url=BASE, now=datetime.now(UTC) + timedelta(minutes=5))
    assert [p.format() for p in report.problems] == []
    assert report.valid
    assert sum(f.entries for f in report.files if f.kind == "urlset") == len(items)


def test_generate_then_validate_through_the_cli(tmp_path: Path) -> None:
    rows = tmp_path / "urls.jsonl"
    rows.write_text("\n".join(json.dumps({"loc": BASE + f"page/{i}", "lastmod": f"2024-01-{i + 1:02d}"})
                              for i in range(12)) + "\n", encoding="utf-8")
    out = tmp_path / "public"
    gen = run_cli(["generate", str(rows), "--out", str(out), "--base-url", BASE, "--urls-per-file", "5", "--gzip"])
    assert gen.returncode == 0, gen.stderr
    res = run_cli(["validate", str(out), "--base-url", BASE, "--format", "json", "--fail-on", "warning"])
    assert res.returncode == 0, res.stdout + res.stderr
    data = json.loads(res.stdout)
    assert data["valid"] is True
    assert data["problems"] == []
    assert sorted(f["kind"] for f in data["files"]) == ["index", "urlset", "urlset", "urlset"]
