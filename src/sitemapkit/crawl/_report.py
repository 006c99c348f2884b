"""The crawl's reports, read from the crawl state: ``crawl-report.json`` and a self-contained ``report.html``.

Both are streamed from SQLite (lists are never built in memory) and published atomically (temporary file in the
same directory, then rename). The HTML page has no external assets: inline CSS, inline SVG bar charts; it lists
at most ``html_rows`` rows per table and points to the JSON for the rest.

JSON shape (keys always present)::

    {"start_url", "crawl_time", "complete", "pages_crawled", "in_sitemap", "queued_not_crawled",
     "status_counts": {"200": n, "404": n, "error": n, "not fetched": n}, "depth_counts": {"0": n, ...},
     "excluded_counts": {"noindex": n, ...},
     "broken": [{"url", "status", "error", "referrers": [...], "referrer_count"}],
     "redirects": [{"url", "chain": [{"url", "status"}], "final_url", "final_status"}],
     "excluded": [{"url", "reason", "detail", "status"}],
     "sitemap": {...manifest summary, when given...}}
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any
from urllib.parse import urlsplit

from sitemapkit.core._atomic import atomic_text
from sitemapkit.crawl._state import FETCHED, CrawlState, UrlRow

__all__ = ["REPORT_HTML", "REPORT_JSON", "ReportSummary", "write_crawl_reports"]

REPORT_JSON = "crawl-report.json"
REPORT_HTML = "report.html"
#: Referrers listed per broken link in the JSON report (the count is always exact).
MAX_REFERRERS = 1000
_BROKEN = "state = 2 AND (status >= 400 OR error IS NOT NULL)"
_EXCLUDED = "in_sitemap = 0 AND reason IS NOT NULL"
_REDIRECTS = "redirects IS NOT NULL"


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """The headline numbers of a crawl (also printed by the CLI)."""

    pages_crawled: int
    in_sitemap: int
    broken: int
    redirects: int
    excluded: int
    queued_not_crawled: int


def summarize(state: CrawlState) -> ReportSummary:
    return ReportSummary(
        pages_crawled=state.count("state = ?", (FETCHED,)),
        in_sitemap=state.count("in_sitemap = 1"),
        broken=state.count(_BROKEN),
        redirects=state.count(_REDIRECTS),
        excluded=state.count(_EXCLUDED),
        queued_not_crawled=state.count("state IN (0, 1)"),
    )


def _status_counts(state: CrawlState) -> dict[str, int]:
    out: dict[str, int] = {}
    for status, n in state.group_count("coalesce(status, CASE WHEN error IS NOT NULL THEN -1 ELSE -2 END)",
                                       "state IN (2, 3)"):
        key = {-1: "error", -2: "not fetched"}.get(int(status), str(status))  # type: ignore[call-overload]
        out[key] = out.get(key, 0) + n
    return out


def _broken_item(state: CrawlState, row: UrlRow) -> dict[str, Any]:
    return {"url": row.url, "status": row.status, "error": row.error,
            "referrers": state.referrers(row.id, MAX_REFERRERS), "referrer_count": state.referrer_count(row.id)}


def _redirect_item(row: UrlRow) -> dict[str, Any]:
    return {"url": row.url, "chain": [{"url": u, "status": s} for u, s in row.redirects],
            "final_url": row.final_url, "final_status": row.status}


def _excluded_item(row: UrlRow) -> dict[str, Any]:
    return {"url": row.url, "reason": row.reason, "detail": row.detail, "status": row.status}


def _write_list(fh: IO[str], key: str, items: Iterator[dict[str, Any]]) -> None:
    fh.write(f',\n  "{key}": [')
    first = True
    for item in items:
        fh.write("\n    " if first else ",\n    ")
        fh.write(json.dumps(item, ensure_ascii=False))
        first = False
    fh.write("\n  ]" if not first else "]")


def write_json_report(state: CrawlState, path: Path, *, complete: bool,
                      sitemap: Mapping[str, Any] | None = None) -> ReportSummary:
    summary = summarize(state)
    head = {
        "start_url": state.get_meta("start_url"),
        "crawl_time": state.get_meta("crawl_time"),
        "complete": complete,
        "pages_crawled": summary.pages_crawled,
        "in_sitemap": summary.in_sitemap,
        "queued_not_crawled": summary.queued_not_crawled,
        "status_counts": _status_counts(state),
        "depth_counts": {str(d): n for d, n in state.group_count("depth", "state = 2")},
        "excluded_counts": {str(r): n for r, n in state.group_count("reason", _EXCLUDED)},
        "sitemap": dict(sitemap) if sitemap is not None else None,
    }
    with atomic_text(path) as fh:
        fh.write("{")
        fh.write(",".join(f"\n  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in head.items()))
        _write_list(fh, "broken", (_broken_item(state, r) for r in state.rows(_BROKEN)))
        _write_list(fh, "redirects", (_redirect_item(r) for r in state.rows(_REDIRECTS)))
        _write_list(fh, "excluded", (_excluded_item(r) for r in state.rows(_EXCLUDED, order="reason, url")))
        fh.write("\n}\n")
    return summary


# ---------------------------------------------------------------------------------------------------- HTML

#: The look the HTML reports share (the crawl report here, audit.html too): page, header, count cards, sections.
REPORT_CSS = """
:root{--fg:#1d2433;--muted:#5b6475;--line:#e3e7ee;--bg:#f6f8fb;--card:#fff;--accent:#2f6fde;--bad:#c8372d;
--warn:#c27c0e;--ok:#23864b}
*{box-sizing:border-box}body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:var(--fg);background:var(--bg)}
header{background:#1d2433;color:#fff;padding:24px 32px}header h1{margin:0;font-size:22px;font-weight:600}
header p{margin:4px 0 0;color:#b9c2d3;word-break:break-all}
main{max-width:1180px;margin:0 auto;padding:24px 32px 48px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(150px,1fr));gap:12px;margin-bottom:24px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:14px 16px}
.card b{display:block;font-size:26px;font-weight:650}.card span{color:var(--muted);font-size:13px}
.card.bad b{color:var(--bad)}.card.ok b{color:var(--ok)}.card.warn b{color:var(--warn)}
section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:16px 20px;margin-bottom:20px}
h2{font-size:17px;margin:0 0 12px}a{color:var(--accent);text-decoration:none}
.muted{color:var(--muted)}svg text{font:12px system-ui,sans-serif;fill:var(--fg)}
"""

_CSS = REPORT_CSS + """
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(340px,1fr));gap:12px;margin-bottom:24px}
table{width:100%;border-collapse:collapse;font-size:13.5px}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;background:#fafbfd}td.url{word-break:break-all}
td ul{margin:0;padding-left:18px}.pill{display:inline-block;border-radius:99px;padding:1px 8px;font-size:12px;
background:#eef2f8;color:var(--fg);white-space:nowrap}.pill.bad{background:#fbe9e7;color:var(--bad)}
td .pill{white-space:normal;word-break:break-word;border-radius:8px}
table.fixed{table-layout:fixed}col.u{width:38%}col.s{width:22%}
a:hover{text-decoration:underline}
"""


def bar_chart(title: str, data: list[tuple[str, int]], color: Callable[[str], str], *, width: int = 520,
              label_width: int = 90, empty: str = "No data.", limit: int = 30) -> str:
    """A ``<section>`` with a horizontal SVG bar chart of ``(label, count)`` (the first ``limit`` rows), in the
    reports' look (:data:`REPORT_CSS`)."""
    if not data:
        return f'<section><h2>{html.escape(title)}</h2><p class="muted">{html.escape(empty)}</p></section>'
    data = data[:limit]
    bar_h, gap = 20, 6
    peak = max(n for _, n in data) or 1
    height = len(data) * (bar_h + gap) + 4
    rows = []
    for i, (label, n) in enumerate(data):
        y = i * (bar_h + gap) + 2
        w = max(2, round((width - label_width - 70) * n / peak))
        rows.append(
            f'<text x="{label_width - 8}" y="{y + 14}" text-anchor="end">{html.escape(label)}</text>'
            f'<rect x="{label_width}" y="{y}" width="{w}" height="{bar_h}" rx="3" fill="{color(label)}"/>'
            f'<text x="{label_width + w + 6}" y="{y + 14}">{n:,}</text>'
        )
    return (f'<section><h2>{html.escape(title)}</h2><svg role="img" aria-label="{html.escape(title)}" '
            f'viewBox="0 0 {width} {height}" width="100%" preserveAspectRatio="xMinYMin meet">{"".join(rows)}'
            "</svg></section>")


def _status_color(label: str) -> str:
    if label.startswith("2"):
        return "#23864b"
    if label.startswith("3"):
        return "#2f6fde"
    if label.startswith("4"):
        return "#c27c0e"
    if label == "not fetched":
        return "#9aa3b2"
    return "#c8372d"


def _link(url: str, origin: str = "") -> str:
    """A link showing the path only when the URL is on the crawled site (the header names the site)."""
    shown = url[len(origin):] if origin and url.startswith(origin + "/") else url
    return f'<a href="{html.escape(url)}" rel="nofollow noreferrer">{html.escape(shown)}</a>'


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _more(total: int, shown: int) -> str:
    if total <= shown:
        return ""
    return f'<p class="muted">Showing {shown:,} of {total:,}; every row is in {REPORT_JSON}.</p>'


def write_html_report(state: CrawlState, path: Path, summary: ReportSummary, *, complete: bool,
                      html_rows: int = 1000) -> None:
    start = state.get_meta("start_url") or ""
    origin = _origin(state.get_meta("scope_url") or start)
    crawl_time = state.get_meta("crawl_time") or ""
    status = sorted(_status_counts(state).items(), key=lambda kv: (not kv[0].isdigit(), kv[0]))
    depth = [(str(d), n) for d, n in state.group_count("depth", "state = 2")]
    reasons = state.group_count("reason", _EXCLUDED)
    cards = [
        ("Pages crawled", summary.pages_crawled, ""),
        ("In the sitemap", summary.in_sitemap, "ok"),
        ("Broken links", summary.broken, "bad" if summary.broken else "ok"),
        ("Redirects", summary.redirects, ""),
        ("Excluded", summary.excluded, "warn" if summary.excluded else ""),
        ("Not crawled (limit)", summary.queued_not_crawled, "warn" if summary.queued_not_crawled else ""),
    ]
    with atomic_text(path) as fh:
        w = fh.write
        w('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
          '<meta name="viewport" content="width=device-width, initial-scale=1">'
          f"<title>Crawl report: {html.escape(start)}</title><style>{_CSS}</style></head><body>")
        w(f"<header><h1>Crawl report</h1><p>{html.escape(start)} &middot; crawled {html.escape(crawl_time)}"
          f"{'' if complete else ' &middot; <b>incomplete</b> (stopped or limited)'}</p></header><main>")
        w('<div class="cards">')
        for label, n, cls in cards:
            w(f'<div class="card {cls}"><b>{n:,}</b><span>{label}</span></div>')
        w('</div><div class="charts">')
        w(bar_chart("Status codes", status, _status_color))
        w(bar_chart("Pages by depth (clicks from the start page)", depth, lambda _l: "#2f6fde"))
        w("</div>")
        def broken_row(row: UrlRow) -> str:
            refs = state.referrers(row.id, 5)
            total = state.referrer_count(row.id)
            items = "".join(f"<li>{_link(r, origin)}</li>" for r in refs)
            if total > len(refs):
                items += f'<li class="muted">and {total - len(refs):,} more</li>'
            what = str(row.status) if row.status is not None else (row.error or "error")
            return (f'<tr><td class="url">{_link(row.url, origin)}</td><td><span class="pill bad">'
                    f'{html.escape(what)}</span></td><td class="url"><ul>{items}</ul></td></tr>')

        def excluded_row(row: UrlRow) -> str:
            reason = html.escape(row.reason or "")
            return (f'<tr><td class="url">{_link(row.url, origin)}</td><td><span class="pill">{reason}</span></td>'
                    f'<td class="url">{html.escape(row.detail or "")}</td></tr>')

        def redirect_row(row: UrlRow) -> str:
            chain = " &rarr; ".join(f'{_link(u, origin)} <span class="pill">{s}</span>' for u, s in row.redirects)
            final = (f'{_link(row.final_url, origin)} <span class="pill">{row.status}</span>' if row.final_url
                     else html.escape(row.error or ""))
            return (f'<tr><td class="url">{_link(row.url, origin)}</td><td class="url">{chain}</td>'
                    f'<td class="url">{final}</td></tr>')

        counts = "".join(f'<span class="pill">{html.escape(str(r))}: {n:,}</span> ' for r, n in reasons)
        tables = [
            (f"Broken links ({summary.broken:,})", summary.broken, "None found.", "",
             ("URL", "Status", "Linked from"), "s", state.rows(_BROKEN), broken_row),
            (f"Excluded from the sitemap ({summary.excluded:,})", summary.excluded, "Nothing was excluded.",
             f"<p>{counts}</p>", ("URL", "Reason", "Detail"), "s", state.rows(_EXCLUDED, order="reason, url"),
             excluded_row),
            (f"Redirects ({summary.redirects:,})", summary.redirects, "None.", "",
             ("URL", "Chain (each hop and its status)", "Final"), "", state.rows(_REDIRECTS), redirect_row),
        ]
        for title, total, empty, intro, heads, mid, rows, render in tables:
            w(f"<section><h2>{title}</h2>")
            if not total:
                w(f'<p class="muted">{empty}</p></section>')
                continue
            last = "" if mid else ' class="u"'
            w(f'{intro}<table class="fixed"><colgroup><col class="u"><col class="{mid}"><col{last}></colgroup>'
              "<thead><tr>" + "".join(f"<th>{h}</th>" for h in heads) + "</tr></thead><tbody>")
            shown = 0
            for row in rows:
                if shown >= html_rows:
                    break
                shown += 1
                w(render(row))
            w("</tbody></table>" + _more(total, shown) + "</section>")
        w('<p class="muted">Generated by sitemapkit crawl.</p></main></body></html>\n')


def write_crawl_reports(state: CrawlState, out_dir: str | os.PathLike[str], *, complete: bool,
                        sitemap: Mapping[str, Any] | None = None) -> ReportSummary:
    """Write ``crawl-report.json`` and ``report.html`` into ``out_dir``; returns the headline numbers."""
    out = Path(out_dir)
    summary = write_json_report(state, out / REPORT_JSON, complete=complete, sitemap=sitemap)
    write_html_report(state, out / REPORT_HTML, summary, complete=complete)
    return summary
