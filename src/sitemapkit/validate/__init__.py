"""The validate layer: sitemaps checked against the protocol, the bundled official XSDs and Google's rules, file by
file or a whole set (index, children, hreflang reciprocity), with text, JSON and JUnit reports.

:func:`validate_sitemaps` checks files, folders and URLs; :func:`validate_bytes` checks one document in memory.
"""

from __future__ import annotations

from sitemapkit.validate._driver import (
    FileReport,
    Profile,
    ValidateProgress,
    ValidationReport,
    validate_bytes,
    validate_sitemaps,
)

__all__ = ["FileReport", "Profile", "ValidateProgress", "ValidationReport", "validate_bytes", "validate_sitemaps"]
