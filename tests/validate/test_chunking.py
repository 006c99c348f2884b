"""Issue 22: the validator never lets an exception escape, and its report is the same however the bytes arrive
(one feed, any pieces, a file read in chunks, gzip or not)."""

from __future__ import annotations

import gzip
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.validate import _driver, _files, _stream
from sitemapkit.validate._driver import validate_bytes, validate_pieces
from sitemapkit.validate._driver import validate_sitemaps as validate
from sitemapkit.validate._result import ValidationReport

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMG = "http://www.google.com/schemas/sitemap-image/1.1"
NOW = "2026-01-01T00:00:00Z"
BODY = "<url><loc>https://www.acme-widgets.com/a</loc></url>\n<url><loc>https://www.acme-widgets.com/b</loc></url>"


def _doc(root_attrs: str = "", body: str = BODY, decl: str = '<?xml version="1.0" encoding="UTF-8"?>\n') -> bytes:
    return f'{decl}<urlset xmlns="{NS}"{root_attrs}>\n{body}\n</urlset>\n'.encode()


Files = tuple[tuple[str, int, int, int], ...]
Problems = tuple[tuple[str, int | None, int | None, str, str | None], ...]


def _key(r: ValidationReport) -> tuple[Files, Problems]:
    files = tuple((f.kind, f.entries, f.errors, f.warnings) for f in r.files)
    problems = tuple((p.code, p.location.line, p.location.column, p.message, p.location.loc) for p in r.problems)
    return files, problems


def _every_way(data: bytes, tmp_path: Path, **kw: Any) -> tuple[Files, Problems]:
    """The report of ``data`` in one feed, byte by byte (small inputs) or in odd pieces, and as a file."""
    source = str(tmp_path / "doc.xml")
    whole = _key(validate_bytes(data, source=source, now=NOW, **kw))
    step = 1 if len(data) <= 600 else 4099
    pieces = [data[i:i + step] for i in range(0, len(data), step)]
    cut = _key(validate_pieces(data, pieces, source=source, now=NOW, **kw))
    (tmp_path / "doc.xml").write_bytes(data)
    as_file = _key(validate(tmp_path / "doc.xml", now=NOW, **kw))
    assert cut == whole
    assert as_file == whole
    return whole


# --- malformed namespaces: a clear problem (SM201, line, column), never a traceback --------------------------

NAMESPACE_TRIGGERS = {
    "xmlns value with DEL": (_doc(f' xmlns:image="{IMG}\x7f"'), "is not a valid URI"),
    "xmlns value with >": (_doc(' xmlns:image="http://www.acme-widgets.com/>"'), "is not a valid URI"),
    "xml prefix remapped": (_doc(' xmlns:xml="http://www.acme-widgets.com/other"'),
                            "xml namespace prefix mapped to wrong URI"),
    "xmlns prefix declared": (_doc(' xmlns:xmlns="http://www.acme-widgets.com/other"'),
                              "redefinition of the xmlns prefix"),
    "undefined prefix on the root's attribute": (_doc(' foo:bar="1"'), "Namespace prefix foo for bar on urlset"),
    "undefined prefix on an entry's attribute": (_doc(body='<url foo:bar="1"><loc>https://www.acme-widgets.com/a</loc></url>'
                                                           '<url><loc>https://www.acme-widgets.com/b</loc></url>'),
                                                 "Namespace prefix foo for bar on url"),
}


@pytest.mark.parametrize("name", list(NAMESPACE_TRIGGERS))
def test_malformed_namespaces_are_reported_not_raised(name: str, tmp_path: Path) -> None:
    data, said = NAMESPACE_TRIGGERS[name]
    files, problems = _every_way(data, tmp_path)
    found = [p for p in problems if p[0] == "SM201"]
    assert len(found) == 1, problems
    _code, line, column, message, _ = found[0]
    assert said in message
    assert message.startswith("not well-formed XML (namespaces): ")
    assert line in (2, 3)
    assert column is not None
    assert files[0][1] == 2  # both entries were still checked


@pytest.mark.parametrize("name", list(NAMESPACE_TRIGGERS))
def test_malformed_namespaces_without_the_xsd_and_in_an_index(name: str, tmp_path: Path) -> None:
    data, said = NAMESPACE_TRIGGERS[name]
    _files, problems = _every_way(data, tmp_path, xsd=False)
    assert any(p[0] == "SM201" and said in p[3] for p in problems)
    index = data.replace(b"urlset", b"sitemapindex").replace(b"<url", b"<sitemap").replace(b"</url>", b"</sitemap>")
    _files, problems = _every_way(index, tmp_path)
    said = said.replace("on urlset", "on sitemapindex") if "on urlset" in said else said.replace("on url", "on sitemap")
    assert any(p[0] == "SM201" and said in p[3] for p in problems)


def test_a_lying_encoding_declaration(tmp_path: Path) -> None:
    """Declared UTF-16 but ASCII bytes, declared Latin-1 with UTF-8 bytes, and UTF-16 with a broken character:
    the same report every way, no traceback."""
    lie16 = _every_way(_doc(decl='<?xml version="1.0" encoding="UTF-16"?>\n'), tmp_path)
    assert [p[0] for p in lie16[1]] == ["SM201"]
    latin = _every_way(_doc(body="<url><loc>https://www.acme-widgets.com/\u00e9</loc></url>",
                            decl='<?xml version="1.0" encoding="ISO-8859-1"?>\n'), tmp_path)
    assert "SM202" in [p[0] for p in latin[1]]
    text = _doc(decl='<?xml version="1.0" encoding="UTF-16"?>\n').decode()
    utf16 = b"\xff\xfe" + text.encode("utf-16-le")
    broken = utf16[:300] + b"\x00\xdc" + utf16[300:]  # a lone low surrogate on line 3
    _files, problems = _every_way(broken, tmp_path)
    assert [(p[0], p[1]) for p in problems if "reading stopped" in p[3]] == [("SM202", 3)]


def test_a_nul_in_a_cut_utf16_document(tmp_path: Path) -> None:
    """Found by the fuzzer (seed 22, input 247,960): libxml2 reported a NUL at once or only at the end depending on
    the pieces, and reading stopped at the cut character before that end. A NUL reaches libxml2 as U+0001 (as in
    the reader), reported at once and named as the NUL."""
    text = _doc(body="<!-- a\x00b -->\n" + BODY, decl='<?xml version="1.0" encoding="UTF-16"?>\n').decode()
    data = b"\xff\xfe" + text.encode("utf-16-le") + b"<"
    _files, problems = _every_way(data, tmp_path)
    found = [(p[0], p[1]) for p in problems]
    assert ("SM201", 3) in found
    assert any(p[3].endswith("value 0") or "0x0 " in p[3] for p in problems if p[0] == "SM201")


def test_the_cli_reports_a_malformed_namespace_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "ns.xml"
    path.write_bytes(NAMESPACE_TRIGGERS["xmlns value with DEL"][0])
    result = CliRunner().invoke(cli, ["validate", str(path), "--now", NOW])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "SM201" in result.output
    assert "Traceback" not in result.output


# --- the same report however the bytes arrive -------------------------------------------------------------

def test_a_10_mb_document_in_one_feed_is_read_to_the_end(tmp_path: Path) -> None:
    """libxml2 refuses to hold more than 10 MB of unread input: a document given in one feed used to end in SM201
    "Buffer size limit exceeded" (validate_bytes, the web app) where the same file read in chunks did not."""
    entry = "<url><loc>https://www.acme-widgets.com/{}<!-- c -->" + "a" * 2000 + "</loc></url>\n"
    data = _doc(body="".join(entry.format(i) for i in range(5200)))
    assert len(data) > 10_000_000
    whole = validate_bytes(data, now=NOW, profile="sitemaps", xsd=False)
    assert "SM201" not in whole.tally
    assert whole.files[0].entries == 5200
    (tmp_path / "big.xml").write_bytes(data)
    assert _key(validate(tmp_path / "big.xml", now=NOW, profile="sitemaps", xsd=False)) == _key(whole)


def test_a_long_attribute_on_the_root_straddling_the_read_chunk(tmp_path: Path) -> None:
    """The namespace was sniffed from the first chunk only: a 1.5 MB attribute before xmlns gave SM203 "no
    namespace" when read from a file in 1 MiB chunks, and nothing in one feed."""
    data = f'<?xml version="1.0"?>\n<urlset data-x="{"y" * 1_500_000}" xmlns="{NS}">\n{BODY}\n</urlset>\n'.encode()
    whole = _every_way(data, tmp_path)
    assert "SM203" not in [p[0] for p in whole[1]]


def test_the_sniffing_window_does_not_change_the_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """However small the first sniffing window, the root start tag is waited for (the driver's constants made
    small, as the fuzzer does): a namespace after a long attribute is found; a long run of whitespace before
    the root is not "an empty file"."""
    monkeypatch.setattr(_stream, "_SNIFF_BYTES", 16)
    monkeypatch.setattr(_driver, "_CHUNK", 100)
    monkeypatch.setattr(_files, "_CHUNK", 100)
    attr = _doc(' data-x="' + "y" * 3000 + '" xmlns:image="' + IMG + '"')
    assert "SM203" not in [p[0] for p in _every_way(attr, tmp_path)[1]]
    spaced = b" " * 5000 + _doc(decl="")
    files, _problems = _every_way(spaced, tmp_path)
    assert files[0][:2] == ("urlset", 2)


def test_gzip_in_one_byte_pieces_and_four_layers(tmp_path: Path) -> None:
    """The gzip magic cut after its first byte was not recognised; corrupt or nested gzip stops at the same
    place however the compressed bytes arrive."""
    data = gzip.compress(_doc(), mtime=0)
    files, problems = _every_way(data, tmp_path)
    assert files[0][:2] == ("urlset", 2)
    assert problems == ()
    layered = data
    for _ in range(3):
        layered = gzip.compress(layered, mtime=0)
    _every_way(layered, tmp_path)
    corrupt = data[:40] + bytes(b ^ 0x5A for b in data[40:60]) + data[60:]
    _every_way(corrupt, tmp_path)


def test_text_with_invalid_utf8_split_anywhere(tmp_path: Path) -> None:
    """Bad bytes in a text sitemap were decoded again from the piece that held them, so the characters around
    them (and the line reported) depended on where the pieces were cut."""
    data = ("https://www.acme-widgets.com/a\nhttps://www.acme-widgets.com/\u00e9\u00e8\n".encode() + b"\xe9\xff caf\xc3"
            + "\u00e9\nhttps://www.acme-widgets.com/b\n".encode())
    _files, problems = _every_way(data, tmp_path)
    assert ("SM202", 3) in [(p[0], p[1]) for p in problems]


def test_the_line_cut_at_the_budget_is_not_a_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A gzip text sitemap stopped at the decompression budget: the line reading stopped in is not counted, nor
    checked (it used to be counted as a URL)."""
    lines = b"".join(b"https://www.acme-widgets.com/page-%05d\n" % i for i in range(100))
    assert len(lines) == 40 * 100
    monkeypatch.setattr(_stream, "DEFAULT_MAX_DECOMPRESSED_BYTES", 40 * 50 + 10)  # 50 lines and a bit
    report = validate_bytes(gzip.compress(lines, mtime=0), now=NOW)
    assert report.files[0].entries == 50
    assert [(p.code, "reading stopped" in p.message) for p in report.problems] == [("SM210", True)]


# --- the fuzzer (benchmarks/fuzz_validator.py) -----------------------------------------------------------

def _fuzzer() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_validator.py"
    spec = importlib.util.spec_from_file_location("fuzz_validator", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fuzz_validator"] = module
    spec.loader.exec_module(module)
    return module


def test_a_seeded_fuzz_run_finds_no_escape_and_no_difference() -> None:
    """300 mutated inputs (the validator's seeds include every trigger above), seeded: one feed vs pieces vs
    a file, with the sniffing window and the read chunk made small."""
    fuzz = _fuzzer()
    seeds = fuzz.all_seeds(20261126, corpus=False)
    summary = fuzz.run(300, seed=20261126, seeds=seeds)
    assert summary.inputs == 300
    assert [f"{f.index}: {f.detail[:600]}" for f in summary.failures] == []
    assert summary.escapes == 0
    assert summary.differences == 0


def test_the_fuzzer_catches_a_chunk_dependent_validator(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fuzzer's own check: a validator whose report depends on the pieces, or that raises, is caught."""
    fuzz = _fuzzer()
    real = fuzz.validate_pieces

    def chunk_dependent(data: bytes, pieces: list[bytes], **kw: object) -> object:
        if b"zz" in data:
            raise RuntimeError("boom")
        return real(data, pieces[:1] if len(pieces) > 1 else pieces, **kw)

    monkeypatch.setattr(fuzz, "validate_pieces", chunk_dependent)
    case = fuzz.Case(_doc(), [40, 80], "google", True, False)
    assert fuzz.check(case, Path("/nonexistent")).startswith("mismatch")
    boom = fuzz.Case(_doc() + b"zz", [40], "google", True, False)
    assert fuzz.check(boom, Path("/nonexistent")).startswith("exception")
