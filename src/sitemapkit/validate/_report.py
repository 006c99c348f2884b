"""Render a :class:`ValidationReport`: compiler-style text, JSON, or JUnit XML for CI systems."""

from __future__ import annotations

import json
import re
from collections import Counter

from lxml import etree

from sitemapkit.core import Problem, escape_controls, escape_json_controls
from sitemapkit.validate._result import ValidationReport

__all__ = ["format_json", "format_junit", "format_text"]


_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_safe(text: str) -> str:
    """Text XML 1.0 can carry: control characters escaped as in the text output (:func:`escape_controls`), then
    anything still not allowed (U+FFFE/U+FFFF) replaced."""
    return _NOT_XML.sub("\ufffd", escape_controls(text))


def _line(problem: Problem) -> str:
    """One problem for humans, on one line: control characters from the input are escaped."""
    text = problem.format()
    loc = problem.location.loc
    if loc is not None and loc not in problem.message:
        text += f" [{escape_controls(loc)}]"
    return text


def _count(n: int, one: str, many: str | None = None) -> str:
    """``1 file``, ``2 files``, ``1,000 entries``."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def format_text(report: ValidationReport) -> str:
    """One ``file:line:column: severity CODE: message [loc]`` line per problem, one ``skipped`` line per file that
    is not a sitemap, then a summary and the tally per code (true counts, listed or not)."""
    lines = [_line(p) for p in report.problems]
    lines.extend(f"{escape_controls(s.source)}: skipped: {escape_controls(s.reason)}" for s in report.skipped)
    errors, warnings = report.error_count, report.warning_count
    entries = sum(f.entries for f in report.files)
    verdict = "valid" if report.valid else "NOT valid"
    summary = (f"{_count(len(report.files), 'file')}, {_count(entries, 'entry', 'entries')}, profile "
               f"{report.profile.value}: {_count(errors, 'error')}, {_count(warnings, 'warning')} -> {verdict}")
    if report.skipped:
        summary += f"; {_count(len(report.skipped), 'file')} skipped (not sitemaps)"
    if report.dropped:
        summary += (f" ({report.dropped:,} problems not listed: at most {report.max_problems:,} of one code per file, "
                    "see --max-problems)")
    tally = report.tally
    if tally:
        listed = Counter(p.code for p in report.problems)
        summary += "\n" + ", ".join(f"{code} x{n:,}" + (f" ({listed[code]:,} listed)" if listed[code] != n else "")
                                    for code, n in tally.items())
    lines.append(summary)
    return "\n".join(lines) + "\n"


def format_json(report: ValidationReport, *, indent: int | None = 2) -> str:
    """``{"valid", "files", "problems": [{code, severity, message, source, line, column, loc}], ...}``: values
    exact; control characters (C1 and bidi controls too) written as JSON escapes, never raw."""
    return escape_json_controls(json.dumps(report.to_dict(), ensure_ascii=False, indent=indent)) + "\n"


def format_junit(report: ValidationReport) -> str:
    """JUnit XML: one test suite, one test case per file; errors are failures, warnings go to system-out."""
    tests = str(len(report.files) + len(report.skipped))
    suites = etree.Element("testsuites", name="sitemapkit validate", tests=tests,
                           failures=str(sum(1 for f in report.files if f.errors)))
    suite = etree.SubElement(suites, "testsuite", name=f"sitemapkit validate ({report.profile.value})",
                             tests=tests, failures=str(sum(1 for f in report.files if f.errors)), errors="0",
                             skipped=str(len(report.skipped)))
    by_source: dict[str, list[Problem]] = {}
    for p in report.problems:
        by_source.setdefault(p.location.source, []).append(p)
    for f in report.files:
        case = etree.SubElement(suite, "testcase", classname="sitemapkit.validate", name=_xml_safe(f.source))
        problems = by_source.get(f.source, [])
        errors = [p for p in problems if p.is_error]
        warnings = [p for p in problems if not p.is_error]
        if f.errors:
            failure = etree.SubElement(case, "failure", type="SitemapInvalid",
                                       message=f"{_count(f.errors, 'error')}, {_count(f.warnings, 'warning')}")
            failure.text = "\n".join(_xml_safe(_line(p)) for p in errors)
        if warnings:
            out = etree.SubElement(case, "system-out")
            out.text = "\n".join(_xml_safe(_line(p)) for p in warnings)
    for s in report.skipped:
        case = etree.SubElement(suite, "testcase", classname="sitemapkit.validate", name=_xml_safe(s.source))
        etree.SubElement(case, "skipped", message=_xml_safe(s.reason))
    data: bytes = etree.tostring(suites, xml_declaration=True, encoding="UTF-8", pretty_print=True)
    return data.decode("utf-8")
