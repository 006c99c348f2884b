"""Render a :class:`ValidationReport`: compiler-style text, JSON, or JUnit XML for CI systems."""

from __future__ import annotations

import json
import re
from collections import Counter

from lxml import etree

from sitemapkit.core import CODES, ConfigurationError, Problem, escape_controls, escape_json_controls
from sitemapkit.validate._formats import format_github, format_sarif
from sitemapkit.validate._result import ValidationReport

__all__ = ["REPORT_FORMATS", "TEXT_EXAMPLES", "format_json", "format_junit", "format_report", "format_text"]


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


#: Problems of one code listed per file in the text report; the rest of that code is one "… and N more" line.
TEXT_EXAMPLES = 5


def format_text(report: ValidationReport, *, examples: int | None = TEXT_EXAMPLES, summary_only: bool = False) -> str:
    """One ``file:line:column: severity CODE: message [loc]`` line per problem, at most ``examples`` of one code
    per file (then ``file: … and N more CODE (title)``; None lists every problem), one ``skipped`` line per file
    that is not a sitemap, then a summary and the tally per code (true counts, listed or not). ``summary_only``
    gives the summary and the tally alone (``validate -q``). JSON and JUnit list every problem."""
    lines = [] if summary_only else _problem_lines(report, examples)
    if not summary_only:
        lines.extend(f"{escape_controls(s.source)}: skipped: {escape_controls(s.reason)}" for s in report.skipped)
    errors, warnings = report.error_count, report.warning_count
    entries = sum(f.entries for f in report.files)
    verdict = "valid" if report.valid else "NOT valid"
    summary = (f"{_count(len(report.files), 'file')}, {_count(entries, 'entry', 'entries')}, profile "
               f"{report.profile.value}: {_count(errors, 'error')}, {_count(warnings, 'warning')} -> {verdict}")
    if report.skipped:
        summary += f"; {_count(len(report.skipped), 'file')} skipped (not sitemaps)"
    if report.dropped and examples is None and not summary_only:
        summary += (f" ({report.dropped:,} problems not listed: at most {report.max_problems:,} of one code per file, "
                    "see --max-problems)")
    tally = report.tally
    if tally:
        listed = Counter(p.code for p in report.problems) if examples is None and not summary_only else tally
        summary += "\n" + ", ".join(f"{code} x{n:,}" + (f" ({listed[code]:,} listed)" if listed[code] != n else "")
                                    for code, n in tally.items())
    lines.append(summary)
    return "\n".join(lines) + "\n"


def _problem_lines(report: ValidationReport, examples: int | None) -> list[str]:
    """The problem lines: the first ``examples`` of each code per source, then one line per code counting the
    rest (from the file's tally: the problems beyond --max-problems too)."""
    if examples is None:
        return [_line(p) for p in report.problems]
    lines: list[str] = []
    seen: Counter[tuple[str, str]] = Counter()
    for p in report.problems:
        key = (p.location.source, p.code)
        if seen[key] < examples:
            lines.append(_line(p))
        seen[key] += 1
    tallies = {f.source: f.tally for f in report.files}
    for (source, code), n in seen.items():
        total = max(n, tallies.get(source, {}).get(code, n))
        listed = min(n, examples)
        if total > listed:
            known = CODES.get(code)
            lines.append(f"{escape_controls(source)}: … and {total - listed:,} more {code}"
                         + (f": {known.title}" if known else ""))
    return lines


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


#: The formats of :func:`format_report` (``validate --format``).
REPORT_FORMATS = ("text", "json", "junit", "github", "sarif")


def format_report(report: ValidationReport, fmt: str = "text", *, summary_only: bool = False) -> str:
    """The report in format ``fmt``, one of :data:`REPORT_FORMATS` (``summary_only``: the text format's summary
    and tally per code only)."""
    formats = {"json": format_json, "junit": format_junit, "github": format_github, "sarif": format_sarif}
    if fmt in formats:
        return formats[fmt](report)
    if fmt != "text":
        raise ConfigurationError(f"unknown report format {fmt!r}: one of {', '.join(REPORT_FORMATS)}")
    return format_text(report, summary_only=summary_only)
