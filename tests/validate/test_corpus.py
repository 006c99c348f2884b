"""The real-world corpus (../shared/corpus/real-world) and the edge cases: exact codes per file.

The mistakes NOTES.md lists are caught: relative locs (034-036, 051, 064, 066), localhost (031, 032, 047), the
literal ``None`` (063), an empty file (065), Jekyll templates (037, 056), an unescaped ``&`` (009), double-encoded
UTF-8 (048), placeholder domains (052-054, 068), an empty urlset (041). The clean files raise no error; the
warnings they get are real (SM324: every entry carries the build time as lastmod; SM401: deprecated image:title;
SM421: news older than two days before NOW; SM306: 017 really lists URLs twice). 040 is a real error: it lists
URLs of four different hosts (RULES.md 13; --allow-cross-host accepts it, see test below).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapkit import validate_sitemaps

NOW = "2026-11-21T00:00:00Z"

REAL_WORLD: dict[str, set[str]] = {
    '001_news-sitemap.xml': {'SM324'},  # urlset 32
    '002_sitemap.xml': {'SM324'},  # urlset 32
    '003_sitemap_index.xml': set(),  # index 2
    '004_index.xml': set(),  # rss 10
    '005_index.xml': set(),  # rss 0
    '006_sitemap.xml': {'SM324'},  # urlset 7827
    '007_sitemap.xml.gz': {'SM324'},  # urlset 7827
    '008_feed_rss_created.xml': set(),  # rss 30
    '009_video-sitemap.xml': {'SM201'},  # urlset 0 E
    '010_sitemapIndex.xml': set(),  # index 121
    '011_sitemap.xml': set(),  # urlset 10000
    '012_sitemap.xml': set(),  # index 278
    '013_sitemap-4.xml': {'SM324'},  # urlset 1000
    '014_sitemap-custom-0.xml': {'SM324'},  # urlset 244
    '015_sitemap-wordfeud.xml': {'SM324'},  # urlset 108
    '016_sitemap-index.xml': set(),  # index 218
    '017_sitemap-197.xml': {'SM306'},  # urlset 1000
    '018_sitemap.xml': set(),  # index 19
    '019_sitemap-16.xml': {'SM324'},  # urlset 5000
    '020_sitemap.xml': set(),  # urlset 10903
    '021_atom.xml': set(),  # atom 20
    '022_sitemap_index.xml': set(),  # index 3
    '023_post-sitemap.xml': set(),  # urlset 1
    '024_page-sitemap.xml': set(),  # urlset 6
    '025_category-sitemap.xml': set(),  # urlset 1
    '026_sitemap.xml': set(),  # urlset 421
    '027_main-sitemap.xsl': {'SM216'},  # unknown 0 E
    '028_sitemap-index.xml': set(),  # index 2
    '029_sitemap-0.xml': set(),  # urlset 45000
    '030_sitemap-1.xml': set(),  # urlset 13936
    '031_sitemap.xml': {'SM301', 'SM307'},  # index 2 E
    '032_sitemap.xml': {'SM301', 'SM307', 'SM434'},  # urlset 23 E
    '033_index.xml': set(),  # rss 0
    '034_wp-sitemap.xml': {'SM301'},  # index 7 E
    '035_wp-sitemap-posts-post-1.xml': {'SM301'},  # urlset 11 E
    '036_wp-sitemap-users-1.xml': {'SM300'},  # urlset 2 E
    '037_news-sitemap.xml': {'SM213', 'SM137'},  # text 0 E (a template named .xml, read as text)
    '038_sitemap.xml': set(),  # urlset 76
    '039_baidusitemap.xml': set(),  # urlset 27
    '040_sitemap.txt': {'SM309'},  # text 5 E
    '041_news-sitemap.xml': {'SM208'},  # urlset 0 E
    '042_news-sitemap.xml': {'SM421'},  # urlset 8
    '043_image-sitemap.xml': {'SM401'},  # urlset 109
    '044_sitemap.xml': {'SM324'},  # urlset 119
    '045_video-sitemap-updated.xml': set(),  # urlset 9
    '046_video-sitemap.xml': set(),  # urlset 1
    '047_sitemap.xml': {'SM307'},  # index 17
    '048_sitemap-13.xml': {'SM303', 'SM310'},  # urlset 5000 E
    '049_sitemap.xml': set(),  # index 3
    '050_sitemap.xml': set(),  # urlset 117
    '051_sitemap_index.xml': {'SM301'},  # index 4 E
    '052_category-sitemap.xml': {'SM307'},  # urlset 1
    '053_baidusitemap.xml': {'SM307'},  # urlset 18
    '054_sitemap.xml': {'SM307'},  # urlset 18
    '055_news-sitemap.xml': {'SM421'},  # urlset 2
    '056_news-sitemap.xml': {'SM213', 'SM137'},  # text 0 E (a template named .xml, read as text)
    '057_news-sitemap.xml': {'SM421'},  # urlset 4
    '058_sitemap.xml.gz': {'SM324'},  # urlset 31
    '059_sitemap.xml': {'SM324'},  # urlset 31
    '060_sitemap.xml': set(),  # index 43
    '061_sitemap-43.xml': set(),  # urlset 120
    '062_sitemap.xml.gz': {'SM324'},  # urlset 23
    '063_sitemap.xml': {'SM301', 'SM324'},  # urlset 82 E (the literal None)
    '064_post-sitemap.xml': {'SM301'},  # urlset 3 E
    '065_wp-sitemap.xml': {'SM206'},  # empty 0 E
    '066_sitemap.txt': {'SM215', 'SM303', 'SM305'},  # text 38542 E (line 32546: hidden by the old 10,000 cap)
    '067_sitemap.xml': {'SM324'},  # urlset 49
    '068_atom.xml': {'SM307'},  # atom 18
}

EDGE_CASES: dict[str, set[str]] = {
    '01_plain.xml': {'SM307'},  # urlset 2
    '02_utf8_bom.xml': {'SM307'},  # urlset 2
    '03_leading_whitespace.xml': {'SM201'},  # urlset 0 E
    '04_no_namespace.xml': {'SM203', 'SM307'},  # urlset 2 E
    '05_legacy_google_ns_084.xml': {'SM203', 'SM307'},  # urlset 2 E
    '06_prefixed_ns.xml': {'SM307'},  # urlset 2
    '07_uppercase_tags.xml': {'SM216'},  # urlset 0 E
    '08_html_served_as_sitemap.xml': {'SM200'},  # html 0 E
    '09_truncated_mid_url.xml': {'SM201', 'SM307'},  # urlset 49 E
    '10_missing_close_urlset.xml': {'SM201', 'SM307'},  # urlset 2 E
    '11_cdata_with_spaces.xml': {'SM304', 'SM307'},  # urlset 2
    '12_loc_whitespace_newlines.xml': {'SM304', 'SM307'},  # urlset 2
    '13_entities_in_loc.xml': {'SM303', 'SM307'},  # urlset 2 E
    '14_relative_loc.xml': {'SM301'},  # urlset 2 E
    '15_xxe_external_entity.xml': {'SM207'},  # urlset 0 E
    '16_entity_expansion_small.xml': {'SM207'},  # urlset 0 E
    '17_sitemapindex.xml': {'SM307'},  # index 2
    '18_url_with_inner_space.xml': {'SM303', 'SM307'},  # urlset 2 E
    '19_image_ext_not_pages.xml': {'SM307'},  # urlset 1
    '20_two_locs_one_url.xml': {'SM205', 'SM307'},  # urlset 1 E
    '21_empty_loc.xml': {'SM300', 'SM307'},  # urlset 3 E
    '22_comment_and_pi.xml': {'SM307'},  # urlset 2
    '23_utf16le_bom.xml': {'SM202', 'SM307'},  # urlset 2 E
    '24_latin1_declared.xml': {'SM202', 'SM303', 'SM307'},  # urlset 2 E
    '25_xml_stylesheet_pi.xml': {'SM307'},  # urlset 2
    '26_duplicate_urls.xml': {'SM306', 'SM307'},  # urlset 4
    '27_junk_after_root.xml': {'SM201', 'SM307'},  # urlset 2 E
    '28_rss2.xml': {'SM307'},  # rss 2
    '29_atom1.xml': {'SM307'},  # atom 2
    '30_text_with_junk.txt': {'SM215', 'SM303', 'SM304', 'SM306', 'SM307'},  # text 6 E
    '31_billion_laughs.xml': {'SM207'},  # urlset 0 E
}


@pytest.mark.parametrize("name", sorted(REAL_WORLD))
def test_real_world(shared_dir: Path, name: str) -> None:
    report = validate_sitemaps([shared_dir / "corpus" / "real-world" / name], now=NOW)
    assert {p.code for p in report.problems} == REAL_WORLD[name]


def test_real_world_covers_the_corpus(shared_dir: Path) -> None:
    names = {p.name for p in (shared_dir / "corpus" / "real-world").iterdir() if p.suffix not in (".md", ".tsv")}
    assert names == set(REAL_WORLD)


def test_clean_real_world_files_have_no_errors(shared_dir: Path) -> None:
    clean = [n for n, codes in REAL_WORLD.items() if codes <= {"SM324", "SM401", "SM421", "SM306"}]
    assert len(clean) >= 40
    report = validate_sitemaps([shared_dir / "corpus" / "real-world" / n for n in clean], now=NOW)
    assert report.valid, [p.format() for p in report.problems if p.is_error][:5]


@pytest.mark.parametrize("name", sorted(EDGE_CASES))
def test_edge_cases(shared_dir: Path, name: str) -> None:
    report = validate_sitemaps([shared_dir / "corpus" / "edge-cases" / name], now=NOW)
    assert {p.code for p in report.problems} == EDGE_CASES[name]


def test_cross_host_text_sitemap_accepted_with_flag(shared_dir: Path) -> None:
    report = validate_sitemaps([shared_dir / "corpus" / "real-world" / "040_sitemap.txt"], now=NOW,
                               allow_cross_host=True)
    assert report.valid
    assert not report.problems
