"""The audit capability: a site's sitemaps against the live site. Every sitemap URL is read with its file and
line, the site is crawled, every sitemap URL is checked live, and each finding (404, redirect, noindex,
canonicalised, blocked by robots.txt, not HTML, soft 404, missing from the sitemap, orphan, duplicate, out of
scope, lastmod in the future / uniform / behind, hreflang not reciprocal / broken) comes with its evidence.

Example: ``result = audit("https://example.com/")``, then ``write_reports(result, "audit-out")`` and
``result.close()``; ``sitemapkit audit URL`` on the command line.
"""

from __future__ import annotations

from sitemapkit.audit._findings import (
    CATEGORIES,
    LIVE_CATEGORIES,
    AuditOptions,
    Finding,
    parse_categories,
    wilson_interval,
)
from sitemapkit.audit._live import LiveResult, judge, link_header_canonical, page_date, soft_404_evidence
from sitemapkit.audit._report import (
    AUDIT_CSV,
    AUDIT_HTML,
    AUDIT_JSON,
    category_label,
    category_severity,
    text_summary,
    write_csv,
    write_json,
    write_reports,
)
from sitemapkit.audit._run import AuditResult, audit

__all__ = [
    "AUDIT_CSV",
    "AUDIT_HTML",
    "AUDIT_JSON",
    "CATEGORIES",
    "LIVE_CATEGORIES",
    "AuditOptions",
    "AuditResult",
    "Finding",
    "LiveResult",
    "audit",
    "category_label",
    "category_severity",
    "judge",
    "link_header_canonical",
    "page_date",
    "parse_categories",
    "soft_404_evidence",
    "text_summary",
    "wilson_interval",
    "write_csv",
    "write_json",
    "write_reports",
]
