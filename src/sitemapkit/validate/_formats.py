"""Reports for CI systems: GitHub Actions workflow commands and SARIF 2.1.0 (code scanning).

* :func:`format_github`: one ``::error file=PATH,line=N,col=M,title=SMxxx::message`` line per problem
  (``::warning`` for warnings), which GitHub Actions shows as an annotation on that line of the pull request.
  Paths are relative to the working directory (the checkout, in a workflow). A problem of a URL source has no file:
  the URL goes into the message. Values are escaped as the workflow-command syntax asks: ``%``, CR and LF in
  the message; also ``:`` and ``,`` in the properties.
* :func:`format_sarif`: one SARIF 2.1.0 log with one run; ``tool.driver.rules`` holds one rule per code reported
  (title, fix and severity from the code registry), each result its rule, level, message and physical location
  (a file URI relative to ``%SRCROOT%``, the working directory, or the URL of a remote source; line and column
  when known).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote, urlsplit

from sitemapkit.core import CODES, VERSION, Problem, Severity, escape_json_controls
from sitemapkit.validate._result import ValidationReport

__all__ = ["INFORMATION_URI", "SARIF_SCHEMA", "SARIF_VERSION", "format_github", "format_sarif"]

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/sitemapkit/sitemapkit"
#: Where each check is described (the generated table of every code).
_CHECKS_URI = INFORMATION_URI + "/blob/main/docs/checks.md"
_SRCROOT = "%SRCROOT%"

_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning"}
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning"}


def _is_url(source: str) -> bool:
    return urlsplit(source).scheme.lower() in ("http", "https")


def relative_path(source: str, cwd: str | None = None) -> str:
    """``source`` (a file path) relative to ``cwd`` (default: the working directory), with ``/`` separators; a
    path on another drive stays absolute."""
    base = cwd if cwd is not None else os.getcwd()
    try:
        rel = os.path.relpath(os.path.abspath(source), base)
    except ValueError:  # another drive (Windows)
        rel = os.path.abspath(source)
    return rel.replace(os.sep, "/")


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def _escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped (GitHub's ``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    """A workflow command's property value: as a message, and ``:`` and ``,`` too (GitHub's ``escapeProperty``)."""
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_line(problem: Problem, cwd: str | None = None) -> str:
    """One problem as a workflow command (see the module's docstring)."""
    loc = problem.location
    props: list[str] = []
    message = problem.message
    if _is_url(loc.source):
        message = f"{loc.source}: {message}"
        if loc.line is not None:
            message = f"{loc.source}:{loc.line}: {problem.message}"
    else:
        props.append(f"file={_escape_property(relative_path(loc.source, cwd))}")
        if loc.line is not None:
            props.append(f"line={loc.line}")
            if loc.column is not None:
                props.append(f"col={loc.column}")
    if loc.loc is not None and loc.loc not in message:
        message += f" [{loc.loc}]"
    props.append(f"title={_escape_property(problem.code)}")
    return f"::{_COMMANDS[problem.severity]} {','.join(props)}::{_escape_data(message)}"


def format_github(report: ValidationReport, *, cwd: str | None = None) -> str:
    """GitHub Actions workflow commands, one per problem, then a ``::notice`` with the summary (see the module's
    docstring). ``cwd``: what paths are made relative to (default: the working directory)."""
    lines = [github_line(p, cwd) for p in report.problems]
    entries = sum(f.entries for f in report.files)
    verdict = "valid" if report.valid else "NOT valid"
    summary = (f"{_count(len(report.files), 'file')}, {_count(entries, 'entry', 'entries')}, "
               f"{_count(report.error_count, 'error')}, {_count(report.warning_count, 'warning')} -> {verdict}")
    if report.dropped:
        summary += f" ({report.dropped:,} problems not listed, see --max-problems)"
    lines.append(f"::notice title=sitemapkit validate::{_escape_data(summary)}")
    return "\n".join(lines) + "\n"


def _artifact(source: str, cwd: str | None) -> dict[str, object]:
    if _is_url(source):
        return {"uri": source}
    rel = relative_path(source, cwd)
    if rel.startswith("../") or os.path.isabs(rel):  # outside the working directory: an absolute file URI
        return {"uri": Path(os.path.abspath(source)).as_uri()}
    return {"uri": quote(rel, safe="/"), "uriBaseId": _SRCROOT}


def _rule(code: str) -> dict[str, object]:
    registered = CODES.get(code)
    title = registered.title if registered is not None else code
    fix = registered.fix if registered is not None else ""
    rule: dict[str, object] = {
        "id": code,
        "name": code,
        "shortDescription": {"text": title},
        "fullDescription": {"text": f"{title}. {fix}".strip() if fix else title},
        "helpUri": _CHECKS_URI,
        "help": {"text": fix or title},
    }
    if registered is not None:
        rule["defaultConfiguration"] = {"level": _LEVELS[registered.severity]}
        rule["properties"] = {"area": registered.area}
    return rule


def sarif_log(report: ValidationReport, *, cwd: str | None = None) -> dict[str, object]:
    """The SARIF 2.1.0 log of ``report`` as a JSON-ready dict (see :func:`format_sarif`)."""
    codes = sorted({p.code for p in report.problems})
    index = {code: i for i, code in enumerate(codes)}
    results: list[dict[str, object]] = []
    for p in report.problems:
        loc = p.location
        physical: dict[str, object] = {"artifactLocation": _artifact(loc.source, cwd)}
        if loc.line is not None and loc.line >= 1:
            region: dict[str, object] = {"startLine": loc.line}
            if loc.column is not None and loc.column >= 1:
                region["startColumn"] = loc.column
            physical["region"] = region
        text = p.message if p.message.endswith(".") else p.message + "."
        if loc.loc is not None and loc.loc not in p.message:
            text += f" URL: {loc.loc}"
        results.append({"ruleId": p.code, "ruleIndex": index[p.code], "level": _LEVELS[p.severity],
                        "message": {"text": text}, "locations": [{"physicalLocation": physical}]})
    base = cwd if cwd is not None else os.getcwd()
    run: dict[str, object] = {
        "tool": {"driver": {"name": "sitemapkit", "semanticVersion": VERSION, "version": VERSION,
                            "informationUri": INFORMATION_URI, "rules": [_rule(c) for c in codes]}},
        "originalUriBaseIds": {_SRCROOT: {"uri": Path(os.path.abspath(base)).as_uri().rstrip("/") + "/"}},
        "results": results,
        "properties": {"profile": report.profile.value, "files": len(report.files),
                       "errors": report.error_count, "warnings": report.warning_count,
                       "notListed": report.dropped},
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def format_sarif(report: ValidationReport, *, cwd: str | None = None, indent: int | None = 2) -> str:
    """SARIF 2.1.0 JSON for code scanning (``github/codeql-action/upload-sarif``): one run, one rule per code
    reported, one result per problem listed. ``cwd``: the ``%SRCROOT%`` file paths are relative to (default: the
    working directory; files outside it get absolute ``file:`` URIs)."""
    text = json.dumps(sarif_log(report, cwd=cwd), ensure_ascii=False, indent=indent)
    return escape_json_controls(text) + "\n"
