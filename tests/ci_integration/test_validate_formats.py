"""`validate --format github` and `--format sarif` end to end through the CLI: annotations on the right lines with
paths relative to the working directory, workflow-command escaping, URL sources without a file, and a SARIF 2.1.0
log that has every field the schema requires (checked here from the spec's required lists)."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from sitemapkit.core import Location, Problem, Severity
from sitemapkit.validate import format_github, format_sarif, validate_bytes, validate_sitemaps
from tests.support.cli import run_cli
from tests.support.server import LocalServer

NOW = "2026-01-01T00:00:00Z"
HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n')
BAD = HEAD + "  <url>\n    <loc>https://www.fixture-shop.de/a?x=1&y=2</loc>\n  </url>\n</urlset>\n"  # SM201 on line 4
DUP = HEAD + ("<url>\n    <loc>https://www.fixture-shop.de/a</loc>\n</url>\n" * 2) + "</urlset>\n"  # SM306: line 7


def _site(tmp_path: Path) -> Path:
    public = tmp_path / "public"
    public.mkdir()
    (public / "sitemap-bad.xml").write_text(BAD, encoding="utf-8")
    (public / "sitemap-dup.xml").write_text(DUP, encoding="utf-8")
    return public


def test_github_annotations_on_the_lines_relative_to_cwd(tmp_path: Path) -> None:
    _site(tmp_path)
    res = run_cli(["validate", "public", "--format", "github", "--now", NOW], cwd=tmp_path)
    assert res.returncode == 1, res.stderr
    lines = res.stdout.splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    warnings = [line for line in lines if line.startswith("::warning ")]
    assert len(errors) == 1
    assert re.fullmatch(r"::error file=public/sitemap-bad\.xml,line=4,col=\d+,title=SM201::.*unescaped '&'.*",
                        errors[0]), errors[0]
    assert any(line.startswith("::warning file=public/sitemap-dup.xml,line=7,col=") and ",title=SM306::" in line
               for line in warnings), warnings
    assert lines[-1].startswith("::notice title=sitemapkit validate::")
    assert "1 error, 1 warning -> NOT valid" in lines[-1]
    # Absolute paths given on the command line are made relative to the working directory too.
    res = run_cli(["validate", str(tmp_path / "public" / "sitemap-bad.xml"), "--format", "github", "--now", NOW],
                  cwd=tmp_path)
    assert res.stdout.startswith("::error file=public/sitemap-bad.xml,line=4,")


def test_github_escaping_of_properties_and_messages(tmp_path: Path) -> None:
    name = str(tmp_path / "a,b:c%.xml")
    report = validate_bytes(BAD.encode(), source=name, now=NOW)
    nasty = Problem("SM201", Severity.ERROR, "50% off\r\nsecond line: a, b", Location(name, 3, 2))

    out = format_github(replace(report, problems=(nasty,)), cwd=str(tmp_path))
    first = out.splitlines()[0]
    assert first == "::error file=a%2Cb%3Ac%25.xml,line=3,col=2,title=SM201::50%25 off%0D%0Asecond line: a, b"


def test_github_url_source_has_no_file_and_names_the_url(server: LocalServer) -> None:
    server.route("/sitemap.xml", body=DUP.encode(), headers={"Content-Type": "application/xml"})
    url = server.url("/sitemap.xml")
    res = run_cli(["validate", url, "--format", "github", "--now", NOW, "--allow-cross-host"])
    dup = [line for line in res.stdout.splitlines() if "title=SM306" in line]
    assert dup, res.stdout
    assert dup[0].startswith("::warning title=SM306::")
    assert "file=" not in dup[0]
    assert f"{url}:7: " in dup[0]


# The SARIF 2.1.0 schema's "required" lists for the objects written (sarif-schema-2.1.0.json).
_REQUIRED = {
    "log": ("version", "runs"),
    "run": ("tool",),
    "tool": ("driver",),
    "toolComponent": ("name",),
    "reportingDescriptor": ("id",),
    "multiformatMessageString": ("text",),
    "result": ("message",),
}


def _check_sarif(log: dict[str, object]) -> None:
    """The required fields and the enumerations and bounds of the schema, for what sitemapkit writes."""
    for key in _REQUIRED["log"]:
        assert key in log
    assert log["version"] == "2.1.0"
    assert isinstance(log["$schema"], str)
    runs = log["runs"]
    assert isinstance(runs, list)
    assert len(runs) == 1
    run = runs[0]
    assert "tool" in run
    driver = run["tool"]["driver"]
    assert isinstance(driver["name"], str)
    assert driver["name"]
    assert driver["informationUri"].startswith("https://")
    rules = driver["rules"]
    ids = [r["id"] for r in rules]
    assert len(set(ids)) == len(ids)
    for rule in rules:
        for key in _REQUIRED["reportingDescriptor"]:
            assert key in rule
        for text_key in ("shortDescription", "fullDescription", "help"):
            assert isinstance(rule[text_key]["text"], str)
            assert rule[text_key]["text"]
        assert rule.get("defaultConfiguration", {}).get("level", "warning") in ("none", "note", "warning", "error")
    for base in run.get("originalUriBaseIds", {}).values():
        assert base["uri"].endswith("/")  # a base URI must end with a slash (3.14.14)
    for result in run["results"]:
        assert isinstance(result["message"]["text"], str)
        assert result["level"] in ("none", "note", "warning", "error")
        assert result["ruleId"] in ids
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        for location in result["locations"]:
            physical = location["physicalLocation"]
            assert "uri" in physical["artifactLocation"]
            region = physical.get("region")
            if region is not None:
                assert region["startLine"] >= 1
                assert region.get("startColumn", 1) >= 1


def test_sarif_log_has_the_required_fields_and_locations(tmp_path: Path) -> None:
    _site(tmp_path)
    res = run_cli(["validate", "public", "--format", "sarif", "--now", NOW], cwd=tmp_path)
    assert res.returncode == 1, res.stderr
    log = json.loads(res.stdout)
    _check_sarif(log)
    run = log["runs"][0]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert set(rules) == {"SM201", "SM306"}
    assert rules["SM201"]["shortDescription"]["text"] == "not well-formed XML"
    assert rules["SM201"]["defaultConfiguration"]["level"] == "error"
    by_rule = {r["ruleId"]: r for r in run["results"]}
    bad = by_rule["SM201"]
    assert bad["level"] == "error"
    where = bad["locations"][0]["physicalLocation"]
    assert where["artifactLocation"] == {"uri": "public/sitemap-bad.xml", "uriBaseId": "%SRCROOT%"}
    assert where["region"]["startLine"] == 4
    assert where["region"]["startColumn"] >= 1
    assert by_rule["SM306"]["level"] == "warning"
    assert by_rule["SM306"]["locations"][0]["physicalLocation"]["region"]["startLine"] == 7


def test_sarif_of_a_valid_set_has_no_results_and_a_file_outside_cwd_gets_an_absolute_uri(tmp_path: Path) -> None:
    good = tmp_path / "good.xml"
    good.write_text(HEAD + "  <url><loc>https://www.fixture-shop.de/</loc></url>\n</urlset>\n", encoding="utf-8")
    inside = tmp_path / "inside"
    inside.mkdir()
    log = json.loads(format_sarif(validate_sitemaps([str(good)], now=NOW), cwd=str(inside)))
    _check_sarif(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["tool"]["driver"]["rules"] == []
    bad = tmp_path / "bad.xml"
    bad.write_text(BAD, encoding="utf-8")
    log = json.loads(format_sarif(validate_sitemaps([str(bad)], now=NOW), cwd=str(inside)))
    _check_sarif(log)
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri == {"uri": bad.resolve().as_uri()}


def test_sarif_against_the_official_schema_when_given(tmp_path: Path) -> None:
    """The official SARIF 2.1.0 JSON schema is not shipped with the tests (it is not ours to copy); point
    SITEMAPKIT_SARIF_SCHEMA at a copy (sarif-schema-2.1.0.json, e.g. from the npm package @microsoft/jest-sarif)
    to validate a log with every kind of location against it."""
    import os

    fetched = Path(__file__).resolve().parents[2] / ".ci" / "cache" / "sarif-2.1.0-rtm.5.json"  # by .ci/run
    schema_path = os.environ.get("SITEMAPKIT_SARIF_SCHEMA") or (str(fetched) if fetched.is_file() else "")
    if not schema_path:
        pytest.skip("the official SARIF 2.1.0 schema is not here (.ci/run fetches it; or set SITEMAPKIT_SARIF_SCHEMA)")
    jsonschema = pytest.importorskip("jsonschema")
    _site(tmp_path)
    res = run_cli(["validate", "public", "--format", "sarif", "--now", NOW], cwd=tmp_path)
    schema = json.loads(Path(schema_path).read_text(encoding="utf-8"))
    errors = list(jsonschema.Draft4Validator(schema).iter_errors(json.loads(res.stdout)))
    assert errors == []
