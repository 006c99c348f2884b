"""Issue 12, the validator's part, end to end through the real CLI:

- item 1: placeholder and local hosts (SM307) are warnings: the README demo's crawl of 127.0.0.1 and the
  sitemaps.org examples (www.example.com) validate; a literal ``None`` loc is still an error (SM301);
- item 6: file-level problems are always listed, the cap applies per code, tallies are true counts,
  ``--max-problems N`` sets the cap;
- item 9: in a directory only the files that are sitemaps are validated, the others are listed as skipped.
"""

from __future__ import annotations

import functools
import gzip
import json
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from sitemapkit.cli import cli
from tests.support.cli import CliResult, run_cli

ROOT = Path(__file__).resolve().parents[2]
NOW = "2026-01-01T00:00:00Z"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def run(*args: str | Path) -> CliResult:
    return run_cli([*map(str, args)], cwd=ROOT)


def run_inproc(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["validate", *map(str, args), "--now", NOW])
    return result.exit_code, result.output


def urlset(*entries: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
            + "".join(f"  <url>{e}</url>\n" for e in entries) + "</urlset>\n")


# --- item 1 ---------------------------------------------------------------------------------------------------

def test_sitemaps_org_style_example_with_example_com_is_valid(tmp_path: Path) -> None:
    doc = tmp_path / "sitemap.xml"
    doc.write_text(urlset(
        "<loc>http://www.example.com/</loc><lastmod>2005-01-01</lastmod><changefreq>monthly</changefreq>"
        "<priority>0.8</priority>",
        "<loc>http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii</loc><changefreq>weekly</changefreq>",
    ), encoding="utf-8")
    index = tmp_path / "index.xml"
    index.write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n'
                     "  <sitemap><loc>http://www.example.com/sitemap1.xml.gz</loc>"
                     "<lastmod>2004-10-01T18:23:17+00:00</lastmod></sitemap>\n</sitemapindex>\n", encoding="utf-8")
    text = tmp_path / "urls.txt"
    text.write_text("http://www.example.com/\nhttp://www.example.com/about\n", encoding="utf-8")
    for source in (doc, index, text):
        res = run("validate", source, "--now", NOW)
        assert res.returncode == 0, res.stdout + res.stderr
        assert "warning SM307" in res.stdout
        assert "-> valid" in res.stdout
    # --fail-on warning still makes them fail: the warning is there for people who publish.
    assert run_inproc(doc, "--fail-on", "warning")[0] == 1


def test_literal_none_loc_is_still_an_error(tmp_path: Path) -> None:
    doc = tmp_path / "sitemap.xml"
    doc.write_text(urlset("<loc>None</loc>"), encoding="utf-8")
    code, out = run_inproc(doc)
    assert code == 1
    assert "error SM301: loc is the literal 'None', not a URL" in out


@pytest.fixture
def example_site() -> Iterator[str]:
    """examples/site served over HTTP on 127.0.0.1, as the README's first command serves it."""
    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(ROOT / "examples" / "site"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.e2e
def test_readme_demo_output_is_valid(example_site: str, tmp_path: Path) -> None:
    out = tmp_path / "site-sitemaps"
    crawl = run("crawl", example_site, "--out", out, "--state", tmp_path / "state.db")
    assert crawl.returncode == 0, crawl.stdout + crawl.stderr
    sitemap = out / "sitemap.xml"
    assert sitemap.is_file()
    res = run("validate", sitemap)
    assert res.returncode == 0, res.stdout + res.stderr
    summary = [line for line in res.stdout.splitlines() if "profile" in line and "->" in line]
    assert len(summary) == 1, res.stdout
    assert ": 0 errors," in summary[0]
    assert summary[0].endswith("-> valid")
    assert "SM307" in res.stdout  # 127.0.0.1 is reported, as a warning
    # The published folder as a whole too (crawl-report.json and report.html are not sitemaps).
    res = run("validate", out)
    assert res.returncode == 0, res.stdout + res.stderr


# --- item 6 ---------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_file_level_errors_are_listed_past_the_cap_and_tallies_are_true(tmp_path: Path) -> None:
    """50,001 URLs on localhost: 50,001 SM307 warnings, and SM209 (over the limit) that the old per-file cap of
    10,000 problems hid behind them."""
    n = 50_001
    doc = tmp_path / "big.xml"
    doc.write_text(urlset(*(f"<loc>http://localhost/p{i}</loc>" for i in range(n))), encoding="utf-8")
    res = run("validate", doc, "--now", NOW)
    assert res.returncode == 1
    lines = res.stdout.splitlines()
    assert any(": error SM209: 50,001 entries; the limit is 50,000" in line for line in lines)
    assert sum(": warning SM307:" in line for line in lines) == 5  # the text report: a few of each code, then
    assert f"{doc}: … and 49,996 more SM307: placeholder or local host" in res.stdout  # the rest counted (issue 26)
    assert lines[-1] == "SM209 x1, SM307 x50,001"
    assert len(lines) == 1 + 5 + 1 + 2

    code, out = run_inproc(doc, "--max-problems", "3", "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert [p["code"] for p in data["problems"]] == ["SM209", "SM307", "SM307", "SM307"]
    assert data["tally"] == {"SM209": 1, "SM307": n}
    assert data["files"][0]["tally"] == {"SM209": 1, "SM307": n}
    assert data["not_listed"] == n - 3
    assert data["warnings"] == n


def test_cap_applies_per_code_not_per_file(tmp_path: Path) -> None:
    """Many warnings of one code do not hide the errors of another: each code has its own cap."""
    entries = [f"<loc>http://localhost/p{i}</loc>" for i in range(30)]
    entries += [f"<loc>/relative/{i}</loc>" for i in range(4)]  # SM301 errors, after 30 SM307 warnings
    doc = tmp_path / "s.xml"
    doc.write_text(urlset(*entries), encoding="utf-8")
    code, out = run_inproc(doc, "--max-problems", "2")
    assert code == 1
    lines = out.splitlines()
    assert sum(": error SM301:" in line for line in lines) == 2
    assert sum(": warning SM307:" in line for line in lines) == 2
    assert f"{doc}: … and 2 more SM301: loc is not an absolute http(s) URL" in lines
    assert f"{doc}: … and 28 more SM307: placeholder or local host in a URL (fine for tests and local previews, " \
           "wrong on a published site)" in lines
    assert lines[-1] == "SM301 x4, SM307 x30"
    # 0: only file-level problems are listed; the tally still counts everything.
    code, out = run_inproc(doc, "--max-problems", "0", "--format", "json")
    data = json.loads(out)
    assert data["problems"] == []
    assert data["tally"] == {"SM301": 4, "SM307": 30}
    assert data["errors"] == 4


def test_max_problems_must_be_a_count(tmp_path: Path) -> None:
    doc = tmp_path / "s.xml"
    doc.write_text(urlset("<loc>https://shop.test.org/</loc>"), encoding="utf-8")
    res = run("validate", doc, "--max-problems", "-1")
    assert res.returncode == 2
    assert "'--max-problems': -1 is not in the range x>=0" in res.stderr
    assert "Traceback" not in res.stderr


# --- item 9 ---------------------------------------------------------------------------------------------------

def _published_folder(root: Path) -> Path:
    site = root / "public"
    (site / "sub").mkdir(parents=True)
    (site / "robots.txt").write_text("User-agent: *\nDisallow: /drafts/\n\nSitemap: https://shop.de/sitemap.xml\n",
                                     encoding="utf-8")
    (site / "notes.txt").write_text("\ufeffTODO: publish the shop\n", encoding="utf-8")
    (site / "browserconfig.xml").write_text('<?xml version="1.0"?>\n<browserconfig><msapplication/></browserconfig>\n',
                                            encoding="utf-8")
    (site / "page.xml").write_text("<!DOCTYPE html>\n<html><body>hi</body></html>\n", encoding="utf-8")
    (site / "sitemap.xml").write_text(urlset("<loc>https://shop.de/</loc>"), encoding="utf-8")
    (site / "sub" / "urls.txt.gz").write_bytes(gzip.compress(b"https://shop.de/a\nhttps://shop.de/b\n"))
    (site / "empty.xml").write_bytes(b"")  # named a sitemap, broken: validated and reported, not skipped
    return site


def test_directory_validates_only_sitemaps_and_lists_the_rest_as_skipped(tmp_path: Path) -> None:
    site = _published_folder(tmp_path)
    res = run("validate", site, "--now", NOW)
    assert res.returncode == 1, res.stdout + res.stderr  # the empty sitemap.xml is an error
    out = res.stdout
    skipped = {line.split(": skipped: ")[0] for line in out.splitlines() if ": skipped: " in line}
    assert skipped == {str(site / n) for n in ("robots.txt", "notes.txt", "browserconfig.xml", "page.xml")}
    assert f"{site / 'robots.txt'}: skipped: text that does not start with a URL (first line 'User-agent: *')" in out
    assert f"{site / 'page.xml'}: skipped: an HTML page, not a sitemap" in out
    assert f"{site / 'browserconfig.xml'}: skipped: XML with root <browserconfig>, not a sitemap" in out
    assert "3 files," in out
    assert "4 files skipped (not sitemaps)" in out
    assert "SM215" not in out  # nothing reported about robots.txt
    assert "SM200" not in out  # nor about the HTML page

    code, text = run_inproc(site, "--format", "json")
    assert code == 1
    data = json.loads(text)
    assert sorted(f["source"] for f in data["files"]) == sorted(str(site / n) for n in
                                                                 ("sitemap.xml", "sub/urls.txt.gz", "empty.xml"))
    assert sorted(s["source"] for s in data["skipped"]) == sorted(skipped)
    assert all(s["reason"].endswith("not a sitemap") for s in data["skipped"])

    _, text = run_inproc(site, "--format", "junit")
    suite = etree.fromstring(text.encode("utf-8")).find("testsuite")
    assert suite is not None
    assert suite.get("skipped") == "4"
    assert len(suite.findall("testcase/skipped")) == 4


def test_directory_of_no_sitemaps_is_a_usage_error_naming_what_was_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "only-robots"
    folder.mkdir()
    (folder / "robots.txt").write_text("User-agent: *\nAllow: /\n", encoding="utf-8")
    res = run("validate", folder)
    assert res.returncode == 2
    assert "no sitemap files" in res.stderr
    assert "robots.txt" in res.stderr
    assert "Traceback" not in res.stderr


def test_a_file_named_on_its_own_is_still_validated(tmp_path: Path) -> None:
    """Only directories are filtered: a file given by name is validated as what it is."""
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /x\n", encoding="utf-8")
    code, out = run_inproc(robots)
    assert code == 1
    assert "skipped" not in out
