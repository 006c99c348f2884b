"""``sitemapkit diff`` and :func:`diff_sources`: added, removed and changed URLs (naming the fields), every output
format, exit status as diff(1), folders, local indexes and URLs on a 127.0.0.1 server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.read import DocumentKind, read_file
from sitemapkit.submit._diff import Change, diff_sources
from tests.support.cli import run_cli
from tests.support.server import LocalServer
from tests.support.sites import Site, index_xml

NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
      'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
      'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
      'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"')


def urlset(*urls: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n' + "\n".join(urls) + "\n</urlset>\n"


def url(loc: str, inner: str = "") -> str:
    return f"<url><loc>{loc}</loc>{inner}</url>"


def img(src: str) -> str:
    return f"<image:image><image:loc>{src}</image:loc></image:image>"


def alt(lang: str, href: str) -> str:
    return f'<xhtml:link rel="alternate" hreflang="{lang}" href="{href}"/>'


NEWS = ("<news:news><news:publication><news:name>N</news:name><news:language>en</news:language></news:publication>"
        "<news:publication_date>2024-01-01</news:publication_date><news:title>{}</news:title></news:news>")

OLD = urlset(
    url("https://e.com/same", "<lastmod>2024-01-01</lastmod>"),
    url("https://e.com/lastmod", "<lastmod>2024-01-01</lastmod>"),
    url("https://e.com/freq-prio", "<changefreq>daily</changefreq><priority>0.5</priority>"),
    url("https://e.com/images", img("https://e.com/1.png")),
    url("https://e.com/alts", alt("de", "https://e.com/de")),
    url("https://e.com/news", NEWS.format("One")),
    url("https://e.com/gone"),
)
NEW = urlset(
    url("https://e.com/news", NEWS.format("Two")),
    url("https://e.com/same", "<lastmod>2024-01-01</lastmod>"),
    url("https://e.com/lastmod", "<lastmod>2024-02-01</lastmod>"),
    url("https://e.com/freq-prio", "<changefreq>weekly</changefreq><priority>0.8</priority>"),
    url("https://e.com/images", img("https://e.com/2.png")),
    url("https://e.com/alts", alt("fr", "https://e.com/fr")),
    url("https://e.com/new"),
)
EXPECTED = [
    Change("https://e.com/alts", "changed", ("alternates",)),
    Change("https://e.com/freq-prio", "changed", ("changefreq", "priority")),
    Change("https://e.com/gone", "removed"),
    Change("https://e.com/images", "changed", ("images",)),
    Change("https://e.com/lastmod", "changed", ("lastmod",), "2024-02-01"),
    Change("https://e.com/new", "added"),
    Change("https://e.com/news", "changed", ("news",)),
]


@pytest.fixture
def pair(tmp_path: Path) -> tuple[str, str]:
    old, new = tmp_path / "old.xml", tmp_path / "new.xml"
    old.write_text(OLD, encoding="utf-8")
    new.write_text(NEW, encoding="utf-8")
    return str(old), str(new)


def test_diff_sources_names_every_changed_field(pair: tuple[str, str]) -> None:
    with diff_sources(*pair) as result:
        assert list(result) == EXPECTED
        assert list(result) == EXPECTED  # iterable again
        assert result.counts.to_dict() == {"added": 1, "removed": 1, "changed": 5, "unchanged": 1}
        assert result.errors == 0


def test_a_loc_listed_twice_counts_once_by_its_first_entry(tmp_path: Path) -> None:
    old = tmp_path / "old.xml"
    new = tmp_path / "new.xml"
    old.write_text(urlset(url("https://e.com/a", "<priority>0.1</priority>"), url("https://e.com/a")), "utf-8")
    new.write_text(urlset(url("https://e.com/a", "<priority>0.1</priority>")), "utf-8")
    with diff_sources(str(old), str(new)) as result:
        assert list(result) == []
        assert result.counts.unchanged == 1


def test_json_output_is_exactly_the_documented_shape(pair: tuple[str, str]) -> None:
    result = CliRunner().invoke(cli, ["diff", *pair, "--format", "json", "-q"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert list(data) == ["added", "removed", "changed", "unchanged", "changes"]
    assert (data["added"], data["removed"], data["changed"], data["unchanged"]) == (1, 1, 5, 1)
    assert data["changes"] == [c.to_dict() for c in EXPECTED]
    assert all(set(c) == {"loc", "change", "fields"} for c in data["changes"])


def test_text_and_csv_output(pair: tuple[str, str]) -> None:
    text = CliRunner().invoke(cli, ["diff", *pair, "-q"])
    assert text.exit_code == 1
    lines = text.stdout.splitlines()
    assert "+ https://e.com/new" in lines
    assert "- https://e.com/gone" in lines
    assert "~ https://e.com/freq-prio  (changefreq, priority)" in lines
    csv_out = CliRunner().invoke(cli, ["diff", *pair, "--format", "csv", "-q"])
    rows = csv_out.stdout.splitlines()
    assert rows[0] == "loc,change,fields"
    assert "https://e.com/freq-prio,changed,changefreq priority" in rows
    assert len(rows) == 1 + len(EXPECTED)


def test_long_diffs_are_written_whole_in_every_format(tmp_path: Path) -> None:
    # Output is written in batches (4,096 lines, 64 KiB of CSV): a diff spanning several batches must come out
    # exactly as the changes are, line for line, in order.
    n = 10_000
    old, new = tmp_path / "old.xml", tmp_path / "new.xml"
    old.write_text(urlset(*(url(f"https://e.com/{i:05d}", "<lastmod>2024-01-01</lastmod>") for i in range(n))))
    new.write_text(urlset(*(url(f"https://e.com/{i:05d}", f"<lastmod>2024-01-0{1 + (i % 3 == 0)}</lastmod>")
                            for i in range(n // 2, n + n // 2))))
    with diff_sources(str(old), str(new)) as result:
        changes = list(result)
    assert len(changes) > 2 * 4096
    text = CliRunner().invoke(cli, ["diff", str(old), str(new), "-q"]).stdout
    marks = {"added": "+", "removed": "-", "changed": "~"}
    assert text == "".join(f"{marks[c.change]} {c.loc}" + (f"  ({', '.join(c.fields)})" if c.fields else "") + "\n"
                           for c in changes)
    data = json.loads(CliRunner().invoke(cli, ["diff", str(old), str(new), "--format", "json", "-q"]).stdout)
    assert data["changes"] == [c.to_dict() for c in changes]
    rows = CliRunner().invoke(cli, ["diff", str(old), str(new), "--format", "csv", "-q"]).stdout.splitlines()
    assert rows == ["loc,change,fields"] + [f"{c.loc},{c.change},{' '.join(c.fields)}" for c in changes]


def test_atom_feed_reads_back_as_an_atom_feed(pair: tuple[str, str], tmp_path: Path) -> None:
    feed = tmp_path / "changes.atom"
    result = CliRunner().invoke(cli, ["diff", *pair, "--format", "atom", "-o", str(feed), "-q",
                                      "--feed-url", "https://e.com/changes.atom", "--hub", "https://hub.example/"])
    assert result.exit_code == 1, result.output
    text = feed.read_text(encoding="utf-8")
    assert '<link rel="self" type="application/atom+xml" href="https://e.com/changes.atom"/>' in text
    assert '<link rel="hub" href="https://hub.example/"/>' in text
    parsed = read_file(feed)
    assert parsed.kind is DocumentKind.ATOM
    assert [p for p in parsed.problems if p.is_error] == []
    assert [e.loc for e in parsed.entries] == [c.loc for c in EXPECTED]
    assert all(e.lastmod is not None and e.lastmod.has_time for e in parsed.entries)
    assert text.count('<category term="changed"/>') == 5


def test_no_difference_exits_0_and_differences_exit_1(pair: tuple[str, str]) -> None:
    same = CliRunner().invoke(cli, ["diff", pair[0], pair[0], "--format", "json"])
    assert same.exit_code == 0
    assert json.loads(same.stdout) == {"added": 0, "removed": 0, "changed": 0, "unchanged": 7, "changes": []}
    assert "0 added, 0 removed, 0 changed, 7 unchanged" in same.stderr


def test_trouble_exits_2(tmp_path: Path, pair: tuple[str, str]) -> None:
    missing = CliRunner().invoke(cli, ["diff", str(tmp_path / "nope.xml"), pair[1]])
    assert missing.exit_code == 2
    broken = tmp_path / "broken.xml"
    broken.write_text(OLD[: len(OLD) // 2], encoding="utf-8")  # cut in the middle: a fatal XML error
    result = CliRunner().invoke(cli, ["diff", str(broken), pair[1], "-q"])
    assert result.exit_code == 2
    assert "error" in result.stderr
    assert "comparison may be incomplete" in result.stderr
    assert "Traceback" not in result.output


def test_folders_and_local_indexes(tmp_path: Path) -> None:
    old = tmp_path / "old"
    new = tmp_path / "new"
    old.mkdir()
    new.mkdir()
    (old / "a.xml").write_text(urlset(url("https://e.com/1"), url("https://e.com/2")), "utf-8")
    (old / "b.xml").write_text(urlset(url("https://e.com/3")), "utf-8")
    (old / "robots.txt").write_text("User-agent: *\nDisallow:\n", "utf-8")  # not a sitemap: passed over
    (new / "index.xml").write_bytes(index_xml(["https://e.com/s/a.xml", "https://e.com/s/b.xml"]))
    (new / "a.xml").write_text(urlset(url("https://e.com/1"), url("https://e.com/2", "<priority>1.0</priority>")),
                               "utf-8")
    (new / "b.xml").write_text(urlset(url("https://e.com/4")), "utf-8")
    expected = [Change("https://e.com/2", "changed", ("priority",)), Change("https://e.com/3", "removed"),
                Change("https://e.com/4", "added")]
    with diff_sources(str(old), str(new)) as result:
        assert list(result) == expected
    # the index alone pulls in the child files next to it
    with diff_sources(str(old), str(new / "index.xml")) as result:
        assert list(result) == expected
        assert result.counts.unchanged == 1


def test_urls_on_a_local_server_end_to_end(server: LocalServer, tmp_path: Path) -> None:
    site = Site(server)
    site.xml("/index.xml", index_xml([server.url("/a.xml")]))
    site.xml("/a.xml", urlset(url(server.url("/p1")), url(server.url("/p2"), "<lastmod>2024-05-01</lastmod>"))
             .encode())
    site.robots(f"Sitemap: {server.url('/index.xml')}\n")
    old = tmp_path / "old.xml"
    old.write_text(urlset(url(server.url("/p2")), url(server.url("/p0"))), "utf-8")
    for new in (server.url("/index.xml"), server.url("/")):
        proc = run_cli(["diff", str(old), new, "--format", "json", "-q"])
        assert proc.returncode == 1, proc.stderr
        data = json.loads(proc.stdout)
        assert data["changes"] == [
            {"loc": server.url("/p0"), "change": "removed", "fields": []},
            {"loc": server.url("/p1"), "change": "added", "fields": []},
            {"loc": server.url("/p2"), "change": "changed", "fields": ["lastmod"]},
        ]


def test_an_unreachable_url_is_trouble(server: LocalServer, pair: tuple[str, str]) -> None:
    proc = run_cli(["diff", pair[0], server.url("/missing.xml"), "-q", "--retries", "0"])
    assert proc.returncode == 2
    assert "SM502" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_write_diff_is_the_library_face_of_every_format(pair: tuple[str, str]) -> None:
    import io

    from sitemapkit.submit import DIFF_FORMATS, write_diff

    with diff_sources(*pair) as result:
        outputs = {}
        for fmt in DIFF_FORMATS:
            out = io.StringIO()
            write_diff(result, out, fmt, feed_url="https://e.com/changes.atom")
            outputs[fmt] = out.getvalue()
        with pytest.raises(ValueError, match="unknown diff format 'yaml'"):
            write_diff(result, io.StringIO(), "yaml")
    assert "+ https://e.com/new\n" in outputs["text"]
    assert json.loads(outputs["json"])["changes"] == [c.to_dict() for c in EXPECTED]
    assert outputs["csv"].splitlines()[0] == "loc,change,fields"
    assert 'href="https://e.com/changes.atom"' in outputs["atom"]
