"""The audit's outputs: ``audit.json``, ``audit.csv``, ``audit.html`` (counts, a chart, one filterable table per
category, in the crawl report's look) and the text summary."""

from __future__ import annotations

import csv
import html
import json
import os
from pathlib import Path
from typing import IO

from sitemapkit.audit._findings import CATEGORIES
from sitemapkit.audit._run import AuditResult
from sitemapkit.crawl._report import REPORT_CSS, bar_chart

__all__ = ["AUDIT_CSV", "AUDIT_HTML", "AUDIT_JSON", "text_summary", "write_csv", "write_json", "write_reports"]

AUDIT_JSON, AUDIT_CSV, AUDIT_HTML = "audit.json", "audit.csv", "audit.html"
#: Rows per category shown in audit.html (every row is in audit.json and audit.csv).
HTML_ROWS = 500

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


def meaning(category: str) -> str:
    return _MEANING.get(category, "")


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


_CSS = REPORT_CSS + """
table{width:100%;border-collapse:collapse;font-size:13.5px;table-layout:fixed}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top;word-break:break-all}
th{color:var(--muted);font-weight:600;background:#fafbfd}
input{font:inherit;padding:6px 10px;border:1px solid var(--line);border-radius:8px;width:100%;margin-bottom:16px}
col.u{width:36%}col.s{width:24%}col.l{width:6%}
"""

_SCRIPT = """
document.getElementById('filter').addEventListener('input', function (e) {
  var q = e.target.value.toLowerCase();
  document.querySelectorAll('section.cat').forEach(function (sec) {
    var shown = 0, inTitle = sec.id.indexOf(q) >= 0;
    sec.querySelectorAll('tbody tr').forEach(function (tr) {
      var hit = inTitle || tr.textContent.toLowerCase().indexOf(q) >= 0;
      tr.style.display = hit ? '' : 'none';
      shown += hit ? 1 : 0;
    });
    sec.style.display = shown ? '' : 'none';
  });
});
"""


def _chart(counts: list[tuple[str, int]]) -> str:
    return bar_chart("Findings by category", [(c, n) for c, n in counts if n], lambda _c: "#c8372d", width=760,
                     label_width=200, empty="No findings.")


def _write_html(result: AuditResult, fh: IO[str]) -> None:
    summary = result.summary()
    esc = html.escape
    fh.write(f'<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" '
             f'content="width=device-width,initial-scale=1"><title>Sitemap audit: {esc(result.site)}</title>'
             f"<style>{_CSS}</style></head><body><header><h1>Sitemap audit</h1><p>{esc(result.site)}</p></header>"
             "<main>")
    total = sum(summary.values())
    cards = [(f"{result.sitemap_urls:,}", "sitemap URLs", ""), (f"{len(result.sitemaps):,}", "sitemaps", ""),
             (f"{result.checked:,}", "checked live", ""), (f"{result.crawled:,}", "pages crawled", ""),
             (f"{total:,}", "findings", "bad" if total else "ok")]
    fh.write('<div class="cards">' + "".join(f'<div class="card {cls}"><b>{v}</b><span>{esc(label)}</span></div>'
                                             for v, label, cls in cards) + "</div>")
    if result.sample is not None:
        rates = result.rates()
        fh.write(f"<section><h2>Rates in a sample of {result.checked:,} URLs (95% interval)</h2><table><thead>"
                 "<tr><th>category</th><th>rate</th><th>interval</th></tr></thead><tbody>")
        for cat, r in rates.items():
            fh.write(f"<tr><td>{cat}</td><td>{r['rate']:.1%}</td><td>{r['low']:.1%} - {r['high']:.1%}</td></tr>")
        fh.write("</tbody></table></section>")
    fh.write(_chart([(c, summary[c]) for c in CATEGORIES]))
    fh.write('<input id="filter" type="search" placeholder="Filter: a category, URL, sitemap or evidence">')
    for cat in CATEGORIES:
        n = summary[cat]
        if not n:
            continue
        fh.write(f'<section class="cat" id="{cat}"><h2>{cat} '
                 f'<span class="muted">({n:,}: {esc(meaning(cat))})</span></h2>'
                 '<table><colgroup><col class="u"><col class="s"><col class="l"><col></colgroup><thead><tr>'
                 "<th>URL</th><th>sitemap</th><th>line</th><th>evidence</th></tr></thead><tbody>")
        for f in result.store.findings(cat, HTML_ROWS):
            fh.write(f'<tr><td><a href="{esc(f.url)}" rel="nofollow noreferrer">{esc(f.url)}</a></td>'
                     f"<td>{esc(f.sitemap or '')}</td><td>{'' if f.line is None else f.line}</td>"
                     f"<td>{esc(f.evidence)}</td></tr>")
        fh.write("</tbody></table>")
        if n > HTML_ROWS:
            fh.write(f'<p class="muted">Showing {HTML_ROWS:,} of {n:,}; every row is in {AUDIT_JSON}.</p>')
        fh.write("</section>")
    fh.write(f"</main><script>{_SCRIPT}</script></body></html>\n")


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

