"""`sitemapkit generate` on bad input rows: each is a per-line error with its line, the rest is published."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sitemapkit import read_file
from sitemapkit.write._inputs import iter_input
from tests.support.cli import CliResult, run_cli


def run(*args: str) -> CliResult:
    return run_cli(["generate", *args])


def published(out: Path) -> list[str]:
    return [e.loc for e in read_file(out / "sitemap.xml").entries]


def test_csv_unclosed_quote_and_extra_columns_are_errors_with_their_line(tmp_path: Path) -> None:
    src = tmp_path / "pages.csv"
    src.write_text("loc,lastmod,priority\n"
                   "https://www.kitsite.org/a,2024-01-01,0.5\n"
                   '"https://www.kitsite.org/b,2024-01-01,0.5\n'  # 3: the quote never closes
                   "https://www.kitsite.org/c,2024-01-01,0.5\n"
                   'https://www.kitsite.org/d",2024-01-01,0.5\n'  # 5: a quote inside an unquoted value
                   "https://www.kitsite.org/e,2024-01-01,0.5,extra\n"  # 6: a column the header does not have
                   '"https://www.kitsite.org/f?a=1,2",2024-01-01,0.5\n'  # a properly quoted comma
                   '"https://www.kitsite.org/g"x,2024-01-01,0.5\n')  # 8: text after the closing quote
    out = tmp_path / "out"
    res = run(str(src), "--out", str(out), "--base-url", "https://www.kitsite.org/")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert f"{src}:3: error SM610: bad CSV row: unclosed quote" in res.stderr
    assert f"{src}:5: error SM610: bad CSV row: quote inside an unquoted value" in res.stderr
    assert f"{src}:6: error SM610: 4 fields but the header has 3" in res.stderr
    assert f"{src}:8: error SM610: bad CSV row: text after a closing quote" in res.stderr
    assert "4 input lines skipped" in res.stderr
    # The unclosed quote swallows nothing: line 4 is still read, and no loc holds another row's text.
    assert published(out) == ["https://www.kitsite.org/a", "https://www.kitsite.org/c", "https://www.kitsite.org/f?a=1,2"]


def test_csv_unclosed_quote_on_the_last_line(tmp_path: Path) -> None:
    src = tmp_path / "pages.csv"
    src.write_text('loc,lastmod,priority\nhttps://www.kitsite.org/a,,\n"https://www.kitsite.org/d,2024-01-01,0.5\n')
    res = run(str(src), "--out", str(tmp_path / "out"), "--base-url", "https://www.kitsite.org/")
    assert res.returncode == 1
    assert f"{src}:3: error SM610: bad CSV row: unclosed quote" in res.stderr
    assert published(tmp_path / "out") == ["https://www.kitsite.org/a"]


def test_csv_quoted_quotes_and_crlf_are_still_read() -> None:
    import io

    data = b'loc,priority\r\n"https://www.kitsite.org/a""b",0.5\r\n\r\nhttps://www.kitsite.org/c,\r\n'
    items = list(iter_input("-", plain=io.BytesIO(data)))
    assert [(i[0].loc, i[1].line) for i in items if isinstance(i, tuple)] == [
        ("https://www.kitsite.org/a%22b", 2), ("https://www.kitsite.org/c", 4)]


def test_csv_lastmod_out_of_range_is_a_line_error(tmp_path: Path) -> None:
    src = tmp_path / "pages.csv"
    src.write_text("loc,lastmod\n"
                   "https://www.kitsite.org/a,99999999999999999999-01-01\n"
                   '"https://www.kitsite.org/b","Mon, 01 Jan 2024 00:00:00 +99999999999999999999"\n'
                   "https://www.kitsite.org/c,2024-01-01\n")
    res = run(str(src), "--out", str(tmp_path / "out"), "--base-url", "https://www.kitsite.org/")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert f"{src}:2: error SM610: lastmod" in res.stderr
    assert f"{src}:3: error SM610: lastmod" in res.stderr
    assert published(tmp_path / "out") == ["https://www.kitsite.org/c"]


def test_jsonl_missing_loc_and_wrong_types_are_clear_line_errors(tmp_path: Path) -> None:
    src = tmp_path / "entries.jsonl"
    lines = [
        json.dumps({"loc": "https://www.kitsite.org/ok"}),
        json.dumps({"lastmod": "2024-01-01"}),  # 2
        json.dumps(["https://www.kitsite.org/x"]),  # 3
        json.dumps({"loc": 5}),  # 4
        json.dumps({"loc": None}),  # 5
        json.dumps({"loc": "https://www.kitsite.org/y", "images": [{"title": "no loc"}]}),  # 6
        "42",  # 7
        '{"loc": "https://www.kitsite.org/z"',  # 8
    ]
    src.write_text("\n".join(lines) + "\n")
    res = run(str(src), "--out", str(tmp_path / "out"), "--base-url", "https://www.kitsite.org/")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert "__init__" not in res.stderr
    assert f'{src}:2: error SM610: no "loc" field' in res.stderr
    assert f"{src}:3: error SM610: expected a JSON object, got an array" in res.stderr
    assert f"{src}:4: error SM610: loc must be a string, got int" in res.stderr
    assert f'{src}:5: error SM610: "loc" is null' in res.stderr
    assert f'{src}:6: error SM610: entry.images: no "loc" field' in res.stderr
    assert f"{src}:7: error SM610: expected a JSON object, got a number" in res.stderr
    assert f"{src}:8: error SM610: not a JSON object:" in res.stderr
    assert published(tmp_path / "out") == ["https://www.kitsite.org/ok"]


def test_urls_on_another_host_are_line_errors_and_skipped(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://www.kitsite.org/a\n"
                   "https://www.otherkit.org/b\n"  # 2: another host
                   "http://www.kitsite.org/c\n"  # 3: another scheme
                   "https://www.kitsite.org:8443/d\n"  # 4: another port
                   "https://www.kitsite.org.evil.net/e\n"  # 5: a host that only starts like ours
                   "https://www.kitsite.org/f\n")
    out = tmp_path / "out"
    res = run(str(src), "--out", str(out), "--base-url", "https://www.kitsite.org/")
    assert res.returncode == 1
    for line in (2, 3, 4, 5):
        assert f"{src}:{line}: error SM608:" in res.stderr
    assert "--allow-cross-host" in res.stderr
    assert "4 input lines skipped" in res.stderr
    assert published(out) == ["https://www.kitsite.org/a", "https://www.kitsite.org/f"]
    # What generate published passes validate --base-url (no SM308).
    check = run_cli(["validate", str(out / "sitemap.xml"), "--base-url", "https://www.kitsite.org/sitemap.xml",
                     "--profile", "sitemaps"])
    assert check.returncode == 0, check.stdout
    assert "SM308" not in check.stdout


def test_allow_cross_host_writes_them(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://www.kitsite.org/a\nhttps://www.otherkit.org/b\n")
    out = tmp_path / "out"
    res = run(str(src), "--out", str(out), "--base-url", "https://www.kitsite.org/", "--allow-cross-host")
    assert res.returncode == 0, res.stderr
    assert "SM608" not in res.stderr
    assert "SM607" not in res.stderr  # asked for: no warning either
    assert published(out) == ["https://www.kitsite.org/a", "https://www.otherkit.org/b"]


@pytest.mark.parametrize("line", ['"a,b\n', 'a"b,c\n', '"a"b,c\n', '"a""\n'])
def test_quote_errors_are_csv_errors(line: str) -> None:
    import csv

    from sitemapkit.write._lists import _csv_row

    with pytest.raises(csv.Error):
        _csv_row(line)
