"""Issue 10 item 8: what a sitemap holds can never drive the terminal. Control characters (C0, DEL, C1), line
separators, bidi overrides/isolates and lone surrogates from the input are escaped wherever a problem is shown to
humans (text output, JUnit, stderr diagnostics) and in ``urls`` text output; JSON stays exact (its own escapes)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from sitemapkit.cli import cli
from sitemapkit.core._problems import Location, Problem, Severity, escape_controls, escape_json_controls

NOW = "2026-01-01T00:00:00Z"
NS = ('xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
      'xmlns:xhtml="http://www.w3.org/1999/xhtml"')
TITLE = "\x1b]0;pwned\x07"  # OSC: set the terminal's title
CLEAR = "\x1b[2J"  # CSI: clear the screen
# Anything a terminal (or a bidi-aware viewer) acts on; \n is allowed only as the line separator of the output.
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _raw_controls(text: str) -> list[str]:
    return [hex(ord(c)) for c in RAW.findall(text)]


@dataclass(frozen=True)
class _Result:
    returncode: int
    stdout: str
    stderr: str


def _assert_clean(res: _Result) -> None:
    assert _raw_controls(res.stdout) == []
    assert _raw_controls(res.stderr) == []


def _cli(*args: str | Path, in_process: bool = True) -> _Result:
    """The real CLI: in-process through click's runner, or as ``python -m sitemapkit`` in a subprocess."""
    if in_process:
        result = CliRunner().invoke(cli, list(map(str, args)))
        return _Result(result.exit_code, result.stdout, result.stderr)
    res = subprocess.run([sys.executable, "-m", "sitemapkit", *map(str, args)], capture_output=True,
                         text=True, encoding="utf-8", errors="surrogateescape", timeout=120)
    return _Result(res.returncode, res.stdout, res.stderr)


# --- the helpers ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b]0;t\x07", "\\x1b]0;t\\x07"),
    ("a\tb\nc\rd\x00e", "a\\tb\\nc\\rd\\x00e"),
    ("\x7f", "\\x7f"),
    ("\x85\x9b2J", "\\x85\\x9b2J"),
    ("\u202aa\u202b\u202c\u202d\u202e", "\\u202aa\\u202b\\u202c\\u202d\\u202e"),
    ("\u2066\u2067\u2068\u2069", "\\u2066\\u2067\\u2068\\u2069"),
    ("\u2028\u2029", "\\u2028\\u2029"),
    ("\ud800x", "\\ud800x"),
])
def test_escape_controls(raw: str, shown: str) -> None:
    assert escape_controls(raw) == shown
    assert not _raw_controls(escape_controls(raw))


def test_escape_controls_keeps_everything_else() -> None:
    text = "https://ex.org/caf\u00e9/\u65e5\u672c?q=1&r=\\x1b C:\\sitemaps\\a.xml \u00a0\u200d\U0001f600"
    assert escape_controls(text) is text


def test_escape_json_controls_keeps_the_json_value() -> None:
    value = {"m": f"a{TITLE}{CLEAR}\x85\x9b\u202e\u2066\u2028\ud800\t\"\\ \u00e9"}
    text = escape_json_controls(json.dumps(value, ensure_ascii=False))
    assert not _raw_controls(text)
    assert "\u00e9" in text  # non-ASCII text stays readable
    assert json.loads(text) == value


def test_problem_format_escapes_but_to_dict_is_exact() -> None:
    p = Problem("SM303", Severity.ERROR, f"bad {CLEAR}\ttab", Location(f"dir/{TITLE}.txt", 3, 1, f"x{CLEAR}"))
    line = p.format()
    assert line == "dir/\\x1b]0;pwned\\x07.txt:3:1: error SM303: bad \\x1b[2J\\ttab"
    assert p.to_dict()["message"] == f"bad {CLEAR}\ttab"
    assert p.to_dict()["source"] == f"dir/{TITLE}.txt"


# --- end to end through the CLI ---------------------------------------------------------------------------------

@pytest.fixture
def ansi_txt(tmp_path: Path) -> Path:
    path = tmp_path / "ansi.txt"
    path.write_text(f"https://e.org/a{TITLE}b\nhttps://e.org/{CLEAR}c\nhttps://e.org/\u202eevil\n"
                    f"not a url {CLEAR}\nhttps://user\x1bc\x07@e.org/x\n", encoding="utf-8")
    return path


@pytest.fixture
def ansi_xml(tmp_path: Path) -> Path:
    """ESC is not allowed in XML 1.0 at all, so the XML cases carry C1 controls (8-bit CSI/OSC/ST, which some
    terminals act on) and bidi overrides, in a loc, element content and attributes; plus ESC in a name and in an
    attribute, where the parser stops."""
    path = tmp_path / "ansi.xml"
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n'
        "<url><loc>https://e.org/\x9b2J\u202e</loc><changefreq>\x9d0;t\x9c</changefreq>"
        '<xhtml:link rel="alternate" hreflang="\x9b2J" href="https://e.org/\x9b"/></url>\n'
        '<url><loc>https://e.org/b</loc><bog\u00fcs x="\x9b2J">\x9b2J</bog\u00fcs></url>\n</urlset>\n',
        encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["text", "junit"])
def test_validate_text_sitemap_output_has_no_raw_controls(ansi_txt: Path, fmt: str) -> None:
    res = _cli("validate", ansi_txt, "--format", fmt, "--now", NOW, in_process=fmt == "junit")
    assert res.returncode == 1
    _assert_clean(res)
    assert "https://e.org/a\\x1b]0;pwned\\x07b" in res.stdout  # shown, escaped
    assert "not a url \\x1b[2J" in res.stdout
    assert "\\u202eevil" in res.stdout
    if fmt == "junit":
        root = etree.fromstring(res.stdout.encode("utf-8"))  # well-formed XML
        assert root.tag == "testsuites"


def test_validate_json_output_is_exact_and_terminal_safe(ansi_txt: Path) -> None:
    res = _cli("validate", ansi_txt, "--format", "json", "--now", NOW)
    assert res.returncode == 1
    assert _raw_controls(res.stdout) == []
    locs = {p["loc"] for p in json.loads(res.stdout)["problems"]}
    assert f"https://e.org/a{TITLE}b" in locs  # the value itself, unchanged
    assert "https://e.org/\u202eevil" in locs


@pytest.mark.parametrize("fmt", ["text", "junit", "json"])
def test_validate_xml_with_controls_in_loc_names_and_attributes(ansi_xml: Path, fmt: str) -> None:
    res = _cli("validate", ansi_xml, "--format", fmt, "--now", NOW)
    assert res.returncode == 1
    _assert_clean(res)
    if fmt == "text":
        assert "[https://e.org/\\x9b2J\\u202e]" in res.stdout
        assert "changefreq '\\x9d0;t\\x9c'" in res.stdout
    elif fmt == "junit":
        etree.fromstring(res.stdout.encode("utf-8"))
    else:
        assert any(p["loc"] == "https://e.org/\x9b2J\u202e" for p in json.loads(res.stdout)["problems"])


@pytest.mark.parametrize("doc", [
    f"<url><loc>https://e.org/{TITLE}</loc></url>",
    f"<url><loc>https://e.org/a</loc><lo{CLEAR}c>x</lo{CLEAR}c></url>",
    f'<url a="{TITLE}"><loc>https://e.org/a</loc></url>',
])
def test_validate_and_urls_on_xml_with_esc(tmp_path: Path, doc: str) -> None:
    path = tmp_path / "esc.xml"
    path.write_text(f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{doc}\n</urlset>\n', encoding="utf-8")
    for args in (("validate", path, "--now", NOW), ("urls", path)):
        res = _cli(*args)
        assert res.returncode == 1
        _assert_clean(res)
        assert "SM201" in res.stdout or "SM104" in res.stderr


def test_urls_text_output_escapes_controls(ansi_txt: Path, ansi_xml: Path) -> None:
    res = _cli("urls", ansi_txt, in_process=False)
    _assert_clean(res)
    assert "https://user%1Bc%07@e.org/x" in res.stdout  # control characters in the userinfo are percent-encoded
    res = _cli("urls", ansi_xml)
    _assert_clean(res)


def test_error_message_naming_a_hostile_path_is_escaped(tmp_path: Path) -> None:
    res = _cli("validate", tmp_path / f"nope{CLEAR}{TITLE}.xml", in_process=False)
    assert res.returncode == 2
    assert _raw_controls(res.stderr) == []
    assert "nope\\x1b[2J\\x1b]0;pwned\\x07.xml: no such file or directory" in res.stderr


def test_source_name_with_controls_is_escaped_in_problems(tmp_path: Path) -> None:
    path = tmp_path / f"s{CLEAR}.txt"
    path.write_text("relative/page.html\n", encoding="utf-8")
    res = _cli("validate", path, "--now", NOW)
    assert res.returncode == 1
    assert _raw_controls(res.stdout) == []
    assert "s\\x1b[2J.txt:1:1: error SM215" in res.stdout
