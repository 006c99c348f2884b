"""The validate layer: sitemaps checked against the protocol, the bundled official XSDs and Google's rules, file by
file or a whole set (index, children, hreflang reciprocity), with text, JSON and JUnit reports.

:func:`validate_sitemaps` checks files, folders and URLs; :func:`validate_bytes` checks one document in memory.
"""

from __future__ import annotations

from sitemapkit.validate._context import MAX_PROBLEMS_PER_CODE
from sitemapkit.validate._driver import (
    FileReport,
    Profile,
    ValidateProgress,
    ValidationReport,
    validate_bytes,
    validate_sitemaps,
)
from sitemapkit.validate._formats import format_github, format_sarif
from sitemapkit.validate._report import REPORT_FORMATS, format_json, format_junit, format_report, format_text

__all__ = [
    "MAX_PROBLEMS_PER_CODE",
    "REPORT_FORMATS",
    "FileReport",
    "Profile",
    "ValidateProgress",
    "ValidationReport",
    "format_github",
    "format_json",
    "format_junit",
    "format_report",
    "format_sarif",
    "format_text",
    "validate_bytes",
    "validate_sitemaps",
]
