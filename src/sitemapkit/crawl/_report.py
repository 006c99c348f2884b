"""The crawl's reports, read from the crawl state: ``crawl-report.json`` and a self-contained ``report.html``.

Both are streamed from SQLite (lists are never built in memory) and published atomically (temporary file in the
same directory, then rename). The HTML page has no external assets: inline CSS, inline SVG bar charts; it lists
at most ``html_rows`` rows per table and points to the JSON for the rest. Its markup is the template
``crawl/templates/report.html``, streamed with ``generate()``.

JSON shape (keys always present)::

    {"start_url", "crawl_time", "complete", "pages_crawled", "in_sitemap", "queued_not_crawled",
     "status_counts": {"200": n, "404": n, "error": n, "not fetched": n}, "depth_counts": {"0": n, ...},
     "excluded_counts": {"noindex": n, ...},
     "broken": [{"url", "status", "error", "referrers": [...], "referrer_count"}],
     "redirects": [{"url", "chain": [{"url", "status"}], "final_url", "final_status"}],
     "excluded": [{"url", "reason", "detail", "status"}],
     "broken_images": [{"url", "status", "error", "pages": [...], "page_count"}],   (--images; else empty)
     "sitemap": {...manifest summary, when given...}}
"""

from __future__ import annotations

import html
import itertools
import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sitemapkit.core import atomic_text, page_environment
from sitemapkit.crawl._images import BROKEN_IMAGES, broken_images
from sitemapkit.crawl._state import FETCHED, CrawlState, UrlRow

if TYPE_CHECKING:
    import jinja2

__all__ = ["REPORT_HTML", "REPORT_JSON", "ReportSummary", "default_report_dir", "remove_published_reports",
           "report_script_hashes", "write_crawl_reports"]

REPORT_JSON = "crawl-report.json"
REPORT_HTML = "report.html"
#: "not fetched" is grey in every chart (report.html here, the web app's results page).
NOT_FETCHED_COLOR = "#8a93a3"
#: Referrers listed per broken link in the JSON report (the count is always exact).
MAX_REFERRERS = 1000
_BROKEN = "state = 2 AND (status >= 400 OR error IS NOT NULL)"
_EXCLUDED = "in_sitemap = 0 AND reason IS NOT NULL"
_REDIRECTS = "redirects IS NOT NULL"
_JSON_CHUNK = 500  # rows of report.html's JSON written at once


@dataclass(frozen=True, slots=True)
class ReportSummary:
    """The headline numbers of a crawl (also printed by the CLI)."""

    pages_crawled: int
    in_sitemap: int
    broken: int
    redirects: int
    excluded: int
    queued_not_crawled: int
    broken_images: int = 0

    def line(self, elapsed: float) -> str:
        """``Crawled N URLs in S s: N in the sitemap, N broken, N redirects, N excluded.``"""
        images = f" ({self.broken_images:,} of them images)" if self.broken_images else ""
        return (f"Crawled {self.pages_crawled:,} URLs in {elapsed:.1f} s: {self.in_sitemap:,} in the sitemap, "
                f"{self.broken:,} broken{images}, {self.redirects:,} redirects, {self.excluded:,} excluded.")


def summarize(state: CrawlState) -> ReportSummary:
    counts = state.counts(f"state = {FETCHED}", "in_sitemap = 1", _BROKEN, _REDIRECTS, _EXCLUDED, "state IN (0, 1)",
                          BROKEN_IMAGES)  # one pass over the URLs, not seven
    return ReportSummary(*counts)


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


def _excluded_items(state: CrawlState) -> Iterator[dict[str, Any]]:
    for url, reason, detail, status in state.select("url, reason, detail, status", _EXCLUDED, "reason, url"):
        yield {"url": url, "reason": reason, "detail": detail, "status": status}


def _write_list(fh: IO[str], key: str, items: Iterator[dict[str, Any]]) -> None:
    fh.write(f',\n  "{key}": [')
    first = True
    encode = json.JSONEncoder(ensure_ascii=False).encode  # json.dumps(item, ensure_ascii=False), one encoder for all
    for item in items:
        fh.write("\n    " if first else ",\n    ")
        fh.write(encode(item))
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
        "broken_image_count": summary.broken_images,
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
        _write_list(fh, "excluded", _excluded_items(state))
        _write_list(fh, "broken_images", (b.to_dict() for b in broken_images(state, pages=MAX_REFERRERS)))
        fh.write("\n}\n")
    return summary


# ---------------------------------------------------------------------------------------------------- HTML
# The pages are templates in crawl/templates/: report.html, with report_parts.html and report.css that audit.html
# shares. Here the data is laid out for them; rows are read from the state as the page streams.


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    n: int
    y: int
    width: int
    color: str


@dataclass(frozen=True, slots=True)
class BarChart:
    """A horizontal bar chart laid out for the ``bar_chart`` macro of ``report_parts.html``."""

    title: str
    empty: str
    width: int
    height: int
    label_width: int
    bar_height: int
    bars: list[Bar]


def bar_chart(title: str, data: list[tuple[str, int]], color: Callable[[str], str], *, width: int = 520,
              label_width: int = 90, empty: str = "No data.", limit: int = 30) -> BarChart:
    """A horizontal bar chart of ``(label, count)`` (the first ``limit`` rows), laid out for the reports' ``bar_chart``
    macro (``report_parts.html``): ``empty`` is shown instead when there is no data."""
    data = data[:limit]
    bar_h, gap = 20, 6
    peak = max((n for _, n in data), default=0) or 1
    bars = [Bar(label, n, i * (bar_h + gap) + 2, max(2, round((width - label_width - 70) * n / peak)), color(label))
            for i, (label, n) in enumerate(data)]
    return BarChart(title, empty, width, len(data) * (bar_h + gap) + 4, label_width, bar_h, bars)


def _environment() -> jinja2.Environment:
    """This layer's templates; audit.html uses them too (report_parts.html, report.css), from its own environment."""
    return page_environment("sitemapkit.crawl", escape=html.escape, compact=True)


def _status_color(label: str) -> str:
    if label.startswith("2"):
        return "#23864b"
    if label.startswith("3"):
        return "#2f6fde"
    if label.startswith("4"):
        return "#c27c0e"
    if label == "not fetched":
        return NOT_FETCHED_COLOR
    return "#c8372d"


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


@dataclass(frozen=True, slots=True)
class _BrokenRow:
    url: str
    what: str
    referrers: list[str]
    more: int


@dataclass(frozen=True, slots=True)
class _Table:
    data: Iterator[str]  # every row as JSON (table.js shows them a page at a time), in chunks
    kind: str  # "broken", "excluded", "redirects": which row macro of report.html renders the rows
    title: str
    total: int
    shown: int
    empty: str
    heads: tuple[str, str, str]
    middle: str  # the class of the middle column ("" gives the last column the URL width)
    rows: Iterator[Any]
    counts: list[tuple[object, int]] | None = None  # the count per reason above the table
    key: str = ""  # the section's id when two tables share a kind (default: the kind)

    @property
    def id(self) -> str:
        return self.key or self.kind


def _broken_rows(state: CrawlState, limit: int | None) -> Iterator[_BrokenRow]:
    for row in itertools.islice(state.rows(_BROKEN), limit):
        refs = state.referrers(row.id, 5)
        what = str(row.status) if row.status is not None else (row.error or "error")
        yield _BrokenRow(row.url, what, refs, max(0, state.referrer_count(row.id) - len(refs)))


def _link_cell(url: str, origin: str) -> dict[str, str]:
    short = url[len(origin):] if origin and url.startswith(origin + "/") else url
    return {"u": url} if short == url else {"u": url, "t": short}


def _json_rows(rows: Iterator[list[Any]]) -> Iterator[str]:
    """A JSON array of ``rows``, in chunks, safe inside a script element (no ``<`` is written as such)."""
    from markupsafe import Markup

    encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode  # one encoder for every row
    yield Markup("[")
    first = True
    while chunk := list(itertools.islice(rows, _JSON_CHUNK)):  # one template write per chunk, not per row
        text = ",".join(map(encode, chunk)).replace("<", "\\u003c")
        yield Markup(text if first else "," + text)  # noqa: S704 (JSON with every "<" escaped)
        first = False
    yield Markup("]")


def _broken_data(rows: Iterator[_BrokenRow], origin: str) -> Iterator[list[Any]]:
    """Broken links or broken images: the URL, its status, the pages that use it."""
    for row in rows:
        yield [_link_cell(row.url, origin), {"p": row.what, "c": "bad"},
               {"l": [_link_cell(r, origin) for r in row.referrers], "more": row.more}]


def _excluded_data(state: CrawlState, origin: str) -> Iterator[list[Any]]:
    for url, reason, detail in state.select("url, reason, detail", _EXCLUDED, "reason, url"):
        yield [_link_cell(url, origin), {"p": reason or ""}, detail or ""]


def _redirect_data(state: CrawlState, origin: str) -> Iterator[list[Any]]:
    for row in state.rows(_REDIRECTS):
        chain: list[Any] = []
        for url, status in row.redirects:
            chain += [_link_cell(url, origin), {"p": status}]
        final: Any = {"s": [_link_cell(row.final_url, origin), {"p": row.status}]} if row.final_url else (
            row.error or "")
        yield [_link_cell(row.url, origin), {"s": chain}, final]


def report_script_hashes() -> list[str]:
    """The base64 SHA-256 of the script report.html and audit.html carry (``table.js``), for a server's
    Content-Security-Policy (``script-src 'sha256-...'``): the only script those pages run."""
    import base64
    import hashlib

    script = _environment().get_template("table.js").render()
    return [base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")]


def _broken_image_rows(state: CrawlState, limit: int | None) -> Iterator[_BrokenRow]:
    for image in broken_images(state, limit, pages=5):
        what = str(image.status) if image.status is not None else (image.error or "error")
        yield _BrokenRow(image.url, what, image.pages, max(0, image.page_count - len(image.pages)))



def write_html_report(state: CrawlState, path: Path, summary: ReportSummary, *, complete: bool,
                      html_rows: int = 100) -> None:
    """report.html: every row of each table as JSON that the page's script shows a page at a time (filter, sort,
    pager); the first ``html_rows`` rows also as HTML, for a browser without JavaScript."""
    start = state.get_meta("start_url") or ""
    origin = _origin(state.get_meta("scope_url") or start)
    status = sorted(_status_counts(state).items(), key=lambda kv: (not kv[0].isdigit(), kv[0]))
    depth = [(str(d), n) for d, n in state.group_count("depth", "state = 2")]
    tables = [
        _Table(_json_rows(_broken_data(_broken_rows(state, None), origin)), "broken", "Broken links", summary.broken,
               min(summary.broken, html_rows), "None found.",
               ("URL", "Status", "Linked from"), "s", _broken_rows(state, html_rows)),
        _Table(_json_rows(_excluded_data(state, origin)), "excluded", "Excluded from the sitemap",
               summary.excluded, min(summary.excluded, html_rows),
               "Nothing was excluded.", ("URL", "Reason", "Detail"), "s",
               itertools.islice(state.rows(_EXCLUDED, order="reason, url"), html_rows),
               counts=state.group_count("reason", _EXCLUDED)),
        _Table(_json_rows(_redirect_data(state, origin)), "redirects", "Redirects", summary.redirects,
               min(summary.redirects, html_rows), "None.",
               ("URL", "Chain (each hop and its status)", "Final"), "",
               itertools.islice(state.rows(_REDIRECTS), html_rows)),
    ]
    if summary.broken_images:  # --images: the broken ones with the pages that show them
        images = _json_rows(_broken_data(_broken_image_rows(state, None), origin))
        tables.insert(1, _Table(images, "broken", "Broken images", summary.broken_images,
                                min(summary.broken_images, html_rows), "None found.",
                                ("Image", "Status", "Used on"), "s", _broken_image_rows(state, html_rows),
                                key="images"))
    page = _environment().get_template("report.html").generate(
        start=start,
        origin=origin,
        crawl_time=state.get_meta("crawl_time") or "",
        complete=complete,
        card_list=[
            (summary.pages_crawled, "Pages crawled", ""),
            (summary.in_sitemap, "In the sitemap", "ok"),
            (summary.broken, "Broken links", "bad" if summary.broken else "ok"),
            (summary.redirects, "Redirects", ""),
            (summary.excluded, "Excluded", "warn" if summary.excluded else ""),
            (summary.queued_not_crawled, "Not crawled (limit)", "warn" if summary.queued_not_crawled else ""),
        ],
        charts=[bar_chart("Status codes", status, _status_color),
                bar_chart("Pages by depth (clicks from the start page)", depth, lambda _l: "#2f6fde")],
        tables=tables,
        next_ids={t.id: n.id for t, n in itertools.pairwise(tables)} | {tables[-1].id: "end"},
        json_name=REPORT_JSON,
    )
    with atomic_text(path) as fh:
        fh.writelines(page)


def default_report_dir(out_dir: str | os.PathLike[str]) -> Path:
    """Where a crawl publishing into ``out_dir`` writes its reports by default: the folder ``<out_dir>-report``
    beside it (``public/`` -> ``public-report/``), so the reports, which name the crawled (perhaps staging) URLs,
    are not deployed with the sitemaps."""
    out = Path(out_dir)
    if not out.name:  # "."
        out = out.resolve()
    return out.with_name(f"{out.name}-report") if out.name else out / "sitemapkit-report"  # "/": inside it


def remove_published_reports(out_dir: Path, report_dir: Path) -> list[str]:
    """Remove the reports an earlier crawl wrote into the published folder ``out_dir`` (before they moved to the
    report folder), when the report folder is elsewhere. Only a ``crawl-report.json`` that is a crawl report (its
    keys) is removed, with the ``report.html`` beside it. Returns the names removed."""
    if out_dir.resolve() == report_dir.resolve():
        return []
    try:
        data = json.loads((out_dir / REPORT_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    if not (isinstance(data, dict) and {"start_url", "pages_crawled", "broken"} <= data.keys()):
        return []
    removed = []
    for name in (REPORT_JSON, REPORT_HTML):
        try:
            (out_dir / name).unlink()
            removed.append(name)
        except OSError:
            pass
    return removed


def write_crawl_reports(state: CrawlState, report_dir: str | os.PathLike[str], *, complete: bool,
                        sitemap: Mapping[str, Any] | None = None) -> ReportSummary:
    """Write ``crawl-report.json`` and ``report.html`` into ``report_dir`` (created if missing); returns the
    headline numbers."""
    out = Path(report_dir)
    out.mkdir(parents=True, exist_ok=True)
    summary = write_json_report(state, out / REPORT_JSON, complete=complete, sitemap=sitemap)
    write_html_report(state, out / REPORT_HTML, summary, complete=complete)
    return summary
