"""The audit's outputs: ``audit.json``, ``audit.csv``, ``audit.html`` (counts, a chart, one filterable table per
category, in the crawl report's look) and the text summary."""

from __future__ import annotations

import csv
import html
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from sitemapkit.audit._findings import CATEGORIES, Finding
from sitemapkit.audit._run import AuditResult
from sitemapkit.core import page_environment
from sitemapkit.crawl import bar_chart

__all__ = ["AUDIT_CSV", "AUDIT_HTML", "AUDIT_JSON", "category_label", "category_severity", "text_summary",
           "write_csv", "write_json", "write_reports"]

AUDIT_JSON, AUDIT_CSV, AUDIT_HTML = "audit.json", "audit.csv", "audit.html"
#: Rows per category written as HTML in audit.html (for a browser without JavaScript); the page's script shows
#: every row up to ``DATA_ROWS`` a page at a time (every row is in audit.json and audit.csv).
HTML_ROWS = 100
DATA_ROWS = 100_000

_MEANING = {
    "not_found": "answers 4xx or 5xx (or not at all)",
    "redirect": "redirects (chains and loops said as such)",
    "noindex": "meta robots or X-Robots-Tag says noindex",
    "canonicalized": "rel=canonical (HTML or Link header) points elsewhere",
    "blocked_by_robots": "robots.txt disallows it",
    "not_html": "not an HTML page",
    "soft_404": "a 200 whose content says not found (heuristic)",
    "missing_from_sitemap": "indexable page the crawl found that no sitemap lists",
    "orphan": "indexable, but no crawled page links to it",
    "duplicate": "listed more than once",
    "out_of_scope": "another host, or outside the sitemap's directory",
    "lastmod_future": "lastmod in the future",
    "lastmod_uniform": "one lastmod shared by most URLs of a sitemap",
    "lastmod_behind": "lastmod older than Last-Modified or the page's date",
    "hreflang_not_reciprocal": "hreflang target does not link back",
    "hreflang_target_broken": "hreflang target broken, redirected or not indexable",
}


#: Each category's name for people (the pages show it; the JSON and CSV keep the category's key).
_LABELS = {
    "not_found": "Not found (4xx/5xx)", "redirect": "Redirects", "noindex": "Marked noindex",
    "canonicalized": "Canonical points elsewhere", "blocked_by_robots": "Blocked by robots.txt",
    "not_html": "Not an HTML page", "soft_404": "Soft 404", "missing_from_sitemap": "Missing from the sitemap",
    "orphan": "Orphan pages", "duplicate": "Listed twice", "out_of_scope": "Out of scope",
    "lastmod_future": "lastmod in the future", "lastmod_uniform": "Same lastmod everywhere",
    "lastmod_behind": "lastmod behind the page", "hreflang_not_reciprocal": "hreflang not reciprocal",
    "hreflang_target_broken": "hreflang target broken",
}
#: How serious each category is: an "error" breaks the sitemap's promise (a listed URL that is not an indexable
#: page), a "warning" weakens it, a "heuristic" is a guess from patterns that may be intended.
_SEVERITY = {
    "not_found": "error", "redirect": "error", "noindex": "error", "canonicalized": "error",
    "blocked_by_robots": "error", "not_html": "error", "out_of_scope": "error", "lastmod_future": "error",
    "hreflang_target_broken": "error", "duplicate": "warning", "missing_from_sitemap": "warning",
    "hreflang_not_reciprocal": "warning", "soft_404": "heuristic", "orphan": "heuristic",
    "lastmod_uniform": "heuristic", "lastmod_behind": "heuristic",
}
#: The bar colour of each severity in audit.html (red, amber, grey; 3:1 against the page, light and dark).
SEVERITY_COLORS = {"error": "#c8372d", "warning": "#b86e00", "heuristic": "#6b7280"}


_BY_LABEL = {label: category for category, label in _LABELS.items()}


def meaning(category: str) -> str:
    return _MEANING.get(category, "")


def category_label(category: str) -> str:
    """The category's name for people: ``lastmod_uniform`` is "Same lastmod everywhere"."""
    return _LABELS.get(category) or category.replace("_", " ").capitalize()


def category_severity(category: str) -> str:
    """``error``, ``warning`` or ``heuristic`` (see ``_SEVERITY``)."""
    return _SEVERITY.get(category, "warning")


def _head(result: AuditResult) -> dict[str, object]:
    head: dict[str, object] = {
        "site": result.site,
        "sitemaps": [s.to_dict() for s in result.sitemaps],
        "sitemap_urls": result.sitemap_urls,
        "checked": result.checked,
        "crawled": result.crawled,
        "crawl_complete": result.crawl_complete,
        "summary": result.summary(),
    }
    if result.sample is not None:
        head["sample"] = result.sample
        head["rates"] = result.rates()
    if result.notes:
        head["notes"] = result.notes
    return head


def write_json(result: AuditResult, fh: IO[str]) -> None:
    """Streams the findings (one per line) so that memory stays flat."""
    head = json.dumps(_head(result), indent=2, ensure_ascii=False)
    fh.write(head[:-2] + ',\n  "findings": [')
    for i, f in enumerate(result.store.findings()):
        fh.write(("," if i else "") + "\n    " + json.dumps(f.to_dict(), ensure_ascii=False))
    fh.write("\n  ]\n}\n")


def write_csv(result: AuditResult, fh: IO[str]) -> None:
    w = csv.writer(fh, lineterminator="\n")
    w.writerow(["category", "url", "sitemap", "line", "evidence"])
    for f in result.store.findings():
        w.writerow([f.category, f.url, f.sitemap or "", "" if f.line is None else f.line, f.evidence])


@dataclass(frozen=True, slots=True)
class _Category:
    name: str
    label: str
    severity: str
    total: int
    shown: int
    meaning: str
    findings: Iterator[Finding]
    data: Iterator[str]  # every row (up to DATA_ROWS) as JSON, for the page's table script


def _json_rows(findings: Iterator[Finding]) -> Iterator[str]:
    """The findings as a JSON array of rows (URL link, sitemap, line, evidence), in chunks, safe inside a script
    element (no ``<`` is written as such)."""
    from markupsafe import Markup

    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode  # one encoder for every row
    yield Markup("[")
    for i, f in enumerate(findings):
        row = [{"u": f.url}, f.sitemap or "", "" if f.line is None else f.line, f.evidence]
        text = encode(row).replace("<", "\\u003c")
        yield Markup(("," if i else "") + text)  # noqa: S704 (JSON with every "<" escaped)
    yield Markup("]")


def _write_html(result: AuditResult, fh: IO[str]) -> None:
    """audit.html from the template ``audit/templates/audit.html``, streamed (each category's rows are read from
    the store as the page is written)."""
    summary = result.summary()
    total = sum(summary.values())
    # The crawl report's look: report_parts.html and report.css come from crawl/templates.
    env = page_environment("sitemapkit.audit", "sitemapkit.crawl", escape=html.escape, compact=True)
    page = env.get_template("audit.html").generate(
        site=result.site,
        card_list=[(result.sitemap_urls, "sitemap URLs", ""), (len(result.sitemaps), "sitemaps", ""),
                   (result.checked, "checked live", ""), (result.crawled, "pages crawled", ""),
                   (total, "findings", "bad" if total else "ok")],
        checked=result.checked,
        rates=result.rates() if result.sample is not None else None,
        chart=bar_chart("Findings by category", [(category_label(c), summary[c]) for c in CATEGORIES if summary[c]],
                        lambda label: SEVERITY_COLORS[category_severity(_BY_LABEL.get(label, ""))], width=760,
                        label_width=220, empty="No findings."),
        categories=[_Category(cat, category_label(cat), category_severity(cat), summary[cat],
                              min(summary[cat], HTML_ROWS), meaning(cat), result.store.findings(cat, HTML_ROWS),
                              _json_rows(result.store.findings(cat, DATA_ROWS)))
                    for cat in CATEGORIES if summary[cat]],
        severities=SEVERITY_COLORS,
        json_name=AUDIT_JSON,
    )
    fh.writelines(page)


def write_reports(result: AuditResult, out_dir: str | os.PathLike[str]) -> list[Path]:
    """Write audit.json, audit.csv and audit.html into ``out_dir`` (created); returns their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, writer in ((AUDIT_JSON, write_json), (AUDIT_CSV, write_csv), (AUDIT_HTML, _write_html)):
        path = out / name
        tmp = path.with_name(f".{name}.tmp")
        with tmp.open("w", encoding="utf-8", newline="") as fh:
            writer(result, fh)
        os.replace(tmp, path)
        paths.append(path)
    return paths


def text_summary(result: AuditResult, per_category: int = 5) -> str:
    """The summary for a terminal: counts, then the first findings of each category."""
    summary = result.summary()
    lines = [f"Audit of {result.site}: {result.sitemap_urls:,} sitemap URLs in {len(result.sitemaps):,} "
             f"sitemaps, {result.checked:,} checked live, {result.crawled:,} pages crawled."]
    if not result.crawl_complete:
        lines.append("The crawl stopped early (--max-pages): orphans and missing pages are partial.")
    rates = result.rates()
    for cat in CATEGORIES:
        n = summary[cat]
        rate = ""
        if cat in rates:
            r = rates[cat]
            rate = f"  {r['rate']:.1%} (95% CI {r['low']:.1%}-{r['high']:.1%})"
        lines.append(f"  {cat:<24} {n:>7,}{rate}")
    for cat in CATEGORIES:
        if not summary[cat]:
            continue
        lines.append(f"\n{cat}: {meaning(cat)}")
        for f in result.store.findings(cat, per_category):
            where = f" ({f.sitemap}:{f.line})" if f.sitemap else ""
            lines.append(f"  {f.url}{where}\n      {f.evidence}")
        if summary[cat] > per_category:
            lines.append(f"  ... and {summary[cat] - per_category:,} more")
    return "\n".join(lines)

