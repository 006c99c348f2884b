"""One byte source (issue 23): every command reads files, folders and local indexes by the same rules.

``urls`` reads a folder (the sitemap files in it) and follows a local index into its folder, as ``validate`` and
``diff`` do; the same folder is the same set of files for all three; an index's sitemap missing from its folder
is a problem naming it; gzip (nested, or a bomb) is bounded the same way for ``urls`` and ``validate``. End to end
through the CLI (click's runner, in-process).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.core import UrlEntry
from sitemapkit.write import write_sitemaps

PAGES = [f"https://example.com/p{i}" for i in range(7)]


def _run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, [str(a) for a in args])
    return result.exit_code, result.stdout, result.stderr


def _set(folder: Path) -> Path:
    """A published set of three sitemaps (3 + 3 + 1 URLs) and its index ``sitemap.xml``, plus files that are
    named like sitemaps but are none (robots.txt, an HTML page): a folder is its sitemap files only."""
    write_sitemaps((UrlEntry(u) for u in PAGES), folder, base_url="https://example.com/", max_urls=3)
    (folder / "robots.txt").write_text("User-agent: *\nDisallow:\n", encoding="utf-8")
    (folder / "page.xml").write_text("<!DOCTYPE html><html><body>hi</body></html>\n", encoding="utf-8")
    children = sorted(p.name for p in folder.glob("sitemap-*.xml"))
    assert len(children) == 3, children
    return folder


def test_urls_reads_a_folder_each_page_once(tmp_path: Path) -> None:
    folder = _set(tmp_path / "out")
    code, out, err = _run("urls", folder)
    assert code == 0, err
    assert out.splitlines() == PAGES  # the index's sitemaps are not read twice, nor listed in text output
    assert err == ""


def test_urls_follows_a_local_index_into_its_folder(tmp_path: Path) -> None:
    folder = _set(tmp_path / "out")
    code, out, err = _run("urls", folder / "sitemap.xml")
    assert code == 0, err
    assert out.splitlines() == PAGES
    # --no-follow lists the index's sitemaps, as for a URL
    code, out, _ = _run("urls", "--no-follow", folder / "sitemap.xml")
    assert code == 0
    assert [line.rsplit("/", 1)[1] for line in out.splitlines()] == sorted(p.name for p in
                                                                           folder.glob("sitemap-*.xml"))
    # jsonl names each entry's own file
    code, out, _ = _run("urls", "--format", "jsonl", folder / "sitemap.xml")
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["loc"] for r in rows if r["kind"] == "url"] == PAGES
    assert {r["source"] for r in rows if r["kind"] == "url"} == {str(p) for p in folder.glob("sitemap-*.xml")}
    assert sum(r["kind"] == "sitemap" for r in rows) == 3


def test_an_index_sitemap_missing_from_its_folder_is_a_problem_naming_it(tmp_path: Path) -> None:
    folder = _set(tmp_path / "out")
    missing = sorted(folder.glob("sitemap-*.xml"))[1]
    missing.unlink()
    code, out, err = _run("urls", folder / "sitemap.xml")
    assert code == 0  # a warning: the pages that are there are all listed
    assert f"warning SM517: https://example.com/{missing.name} not read: no file '{missing.name}' in {folder}" in err
    assert list(PAGES[:3] + PAGES[6:]) == [line for line in out.splitlines() if "/p" in line]


def test_an_index_alone_lists_its_sitemaps_as_before(tmp_path: Path) -> None:
    folder = _set(tmp_path / "out")
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "sitemap.xml").write_bytes((folder / "sitemap.xml").read_bytes())
    code, out, err = _run("urls", alone / "sitemap.xml")
    assert code == 0
    assert len(out.splitlines()) == 3
    assert all("sitemap-" in line for line in out.splitlines())
    assert "SM517" not in err


def test_urls_validate_and_diff_read_a_folder_as_the_same_files(tmp_path: Path) -> None:
    folder = _set(tmp_path / "out")
    code, out, _ = _run("urls", "--format", "jsonl", folder)
    from_urls = {json.loads(line)["source"] for line in out.splitlines()}
    code, out, _ = _run("validate", "--format", "json", folder)
    from_validate = {f["source"] for f in json.loads(out)["files"]}
    sitemaps = {str(p) for p in folder.glob("sitemap*.xml")}
    assert from_urls == from_validate == sitemaps
    listed = tmp_path / "pages.txt"
    listed.write_text("\n".join(PAGES) + "\n", encoding="utf-8")
    code, out, err = _run("diff", folder, listed)  # the folder's pages, each once: no difference
    assert code == 0, out + err
    code, out, err = _run("diff", folder / "sitemap.xml", listed)  # its index: the same
    assert code == 0, out + err


def test_a_local_index_loop_is_read_once(tmp_path: Path) -> None:
    ns = "http://www.sitemaps.org/schemas/sitemap/0.9"
    (tmp_path / "a.xml").write_text(f'<sitemapindex xmlns="{ns}"><sitemap><loc>https://example.com/b.xml</loc>'
                                    "</sitemap></sitemapindex>", encoding="utf-8")
    (tmp_path / "b.xml").write_text(f'<sitemapindex xmlns="{ns}"><sitemap><loc>https://example.com/a.xml</loc>'
                                    f"</sitemap><sitemap><loc>https://example.com/c.txt</loc></sitemap>"
                                    "</sitemapindex>", encoding="utf-8")
    (tmp_path / "c.txt").write_text("https://example.com/x\n", encoding="utf-8")
    _code, out, err = _run("urls", tmp_path / "a.xml")
    assert out.splitlines() == ["https://example.com/x"], err


def _nested(data: bytes, layers: int) -> bytes:
    for _ in range(layers):
        data = gzip.compress(data)
    return data


def test_gzip_is_bounded_the_same_way_for_urls_and_validate(tmp_path: Path) -> None:
    too_deep = tmp_path / "deep.txt.gz"
    too_deep.write_bytes(_nested(b"https://example.com/a\n", 4))
    code, _, err = _run("urls", too_deep)
    assert code == 1
    assert "SM128" in err
    assert "nested more than 3 layers" in err
    code, out, _ = _run("validate", too_deep)
    assert code == 1
    assert "nested more than 3 layers" in out
    # a bomb (a URL list gzip of ~1 MB of blanks) against the byte budget: stopped at it, with the budget's code
    bomb = tmp_path / "bomb.txt.gz"
    bomb.write_bytes(gzip.compress(b"https://example.com/a\n" + b" " * (1 << 20)))
    code, out, err = _run("urls", "--max-bytes", "65536", bomb)
    assert code == 1
    assert "SM112" in err
    assert out.splitlines() == ["https://example.com/a"]
