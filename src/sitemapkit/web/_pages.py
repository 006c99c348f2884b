"""The pages, with and without JavaScript: every form posts to a page route that answers HTML (a crawl or an audit
lands on its status page, which refreshes itself while it runs; a check or a discovery shows its result), and the
script, when it runs, does the same through the JSON API without leaving the page. The audit API lives here too.

A form's POST must carry this server's CSRF token (its hidden ``csrf_token`` field), always.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from sitemapkit.crawl import REPORT_JSON
from sitemapkit.web._api import crawl_view, error_response, file_headers, request_fields
from sitemapkit.web._audits import AUDIT_FILES, AuditManager
from sitemapkit.web._checks import CheckError, check_document, discover_tree, fetch_document, with_scheme
from sitemapkit.web._guard import CSRF_FIELD, same_secret
from sitemapkit.web._jobs import FIELD_LABELS, WEB_CRAWL_FIELDS, CrawlManager, JobError, parse_crawl_request
from sitemapkit.web._rows import TABLES, page_of_rows, report_head
from sitemapkit.web._store import ACTIVE, CrawlRecord, valid_id

__all__ = ["STATUS_TEXT", "page_routes"]

#: Rows per table a page shows (the script pages through the rest; without it, links do).
PAGE_ROWS = 100
#: Seconds between two refreshes of a status page without JavaScript.
REFRESH = 2
#: What each crawl status says on the page.
STATUS_TEXT = {"queued": "Waiting to start", "running": "Crawling", "paused": "Paused", "done": "Done",
               "failed": "Failed", "cancelled": "Cancelled"}
TABLE_TITLES = {"broken": ("Broken links", ("URL", "Status", "Linked from")),
                "redirects": ("Redirects", ("URL", "Status", "Final URL")),
                "excluded": ("Excluded from the sitemap", ("URL", "Reason", "Detail"))}


def _templates(request: Request) -> Jinja2Templates:
    templates: Jinja2Templates = request.app.state.templates
    return templates


def _manager(request: Request) -> CrawlManager:
    manager: CrawlManager = request.app.state.manager
    return manager


def _audits(request: Request) -> AuditManager:
    audits: AuditManager = request.app.state.audits
    return audits


def _render(request: Request, name: str, status: int = 200, **context: Any) -> Response:
    return _templates(request).TemplateResponse(request, name, {"nav": name.removesuffix(".html"), **context},
                                                status_code=status)


async def _form(request: Request) -> dict[str, Any] | Response:
    """A page form's fields, with its CSRF token checked (always: a form posts only from this app's pages)."""
    token = request.app.state.csrf_token
    ctype = request.headers.get("content-type", "")
    if not ctype.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        return error_response("this address takes the page's form", 415)
    form = await request.form(max_part_size=request.app.state.max_body)
    given = form.get(CSRF_FIELD)
    if not isinstance(given, str) or not same_secret(given, token):
        return error_response(f"the form must carry this server's {CSRF_FIELD}: cross-site request refused", 403)
    data = await request_fields(request)  # the same fields the API reads (the form is cached by starlette)
    return data


def elapsed_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"


# --------------------------------------------------------------------------------------------------- home, crawl
async def home(request: Request) -> Response:
    return _render(request, "home.html", crawls=_manager(request).store.all(), fields=WEB_CRAWL_FIELDS,
                   labels=FIELD_LABELS, values={}, error=None, field=None)


async def start_crawl(request: Request) -> Response:
    data = await _form(request)
    if isinstance(data, Response):
        return data
    try:
        url, options = parse_crawl_request(data)
    except JobError as exc:
        values = {k: v for k, v in data.items() if isinstance(v, str | list)}
        return _render(request, "home.html", exc.status, crawls=_manager(request).store.all(),
                       fields=WEB_CRAWL_FIELDS, labels=FIELD_LABELS, values=values, error=str(exc),
                       field=exc.field)
    record = _manager(request).start(url, options)
    return RedirectResponse(f"/crawls/{record.id}", status_code=303)


def _crawl_context(request: Request, record: CrawlRecord) -> dict[str, Any]:
    manager = _manager(request)
    view = crawl_view(manager, record)
    report = manager.store.out_dir(record.id) / REPORT_JSON
    tables = []
    if view["files"]:
        for kind in TABLES:
            try:
                offset = max(0, int(request.query_params.get(kind, "0")))
            except ValueError:
                offset = 0
            page = page_of_rows(report, kind, offset=offset, limit=PAGE_ROWS)
            title, heads = TABLE_TITLES[kind]
            tables.append({"kind": kind, "title": title, "heads": heads, **page})
    head = report_head(report) if view["files"] else {}
    counts = record.counts
    elapsed = counts.get("elapsed")
    if record.status in ACTIVE and record.status == "running" and elapsed is None:
        elapsed = time.time() - record.created
    return {"crawl": view, "status_text": STATUS_TEXT.get(record.status, record.status),
            "elapsed": elapsed_text(elapsed), "tables": tables,
            "status_counts": sorted((head.get("status_counts") or {}).items(),
                                    key=lambda kv: (not kv[0].isdigit(), kv[0])),
            "refresh": REFRESH if record.status in ACTIVE else None, "page_rows": PAGE_ROWS}


async def crawl_page(request: Request) -> Response:
    crawl_id = request.path_params["id"]
    record = _manager(request).store.get(crawl_id) if valid_id(crawl_id) else None
    if record is None:
        return _render(request, "missing.html", 404, what="crawl", crawl_id=crawl_id)
    return _render(request, "crawl.html", **(await asyncio.to_thread(_crawl_context, request, record)))


async def crawl_form_action(request: Request) -> Response:
    """Pause, resume or cancel from the status page's buttons, resume or delete from the history's, without
    JavaScript."""
    data = await _form(request)
    if isinstance(data, Response):
        return data
    crawl_id, action = request.path_params["id"], request.path_params["action"]
    manager = _manager(request)
    record = manager.store.get(crawl_id) if valid_id(crawl_id) else None
    if record is None:
        return _render(request, "missing.html", 404, what="crawl", crawl_id=crawl_id)
    try:
        if action == "resume":
            manager.resume(record)
        elif action in ("pause", "cancel"):
            manager.stop(record, action)
        elif action == "delete":
            manager.delete(record)
            return RedirectResponse("/", status_code=303)
        else:
            return error_response(f"unknown action {action!r}: pause, resume, cancel or delete", 404)
    except JobError:
        pass  # the status page says what the crawl is doing now
    return RedirectResponse(f"/crawls/{crawl_id}", status_code=303)


# --------------------------------------------------------------------------------------------- check, discover
async def check_page(request: Request) -> Response:
    return _render(request, "check.html", result=None, error=None, url="")


async def check_form(request: Request) -> Response:
    data = await _form(request)
    if isinstance(data, Response):
        return data
    max_body: int = request.app.state.max_body
    upload, url = data.get("file"), data.get("url")
    url = url.strip() if isinstance(url, str) else ""
    try:
        if isinstance(upload, UploadFile) and upload.filename:
            if url:
                raise CheckError("give a sitemap address or a file, not both")
            content = await upload.read(max_body + 1)
            if len(content) > max_body:
                raise CheckError(f"upload too large: the limit is {max_body:,} bytes")
            source, sitemap_url = upload.filename, None
        elif url:
            sitemap_url, content = await fetch_document(url, max_body)
            source = url
        else:
            raise CheckError("give a sitemap: its address, or a file to upload")
    except CheckError as exc:
        return _render(request, "check.html", 400, result=None, error=str(exc), url=url)
    result = await asyncio.to_thread(check_document, content, source, sitemap_url)
    return _render(request, "check.html", result=result, error=None, url=url)


async def discover_page(request: Request) -> Response:
    return _render(request, "discover.html", result=None, error=None, url="")


async def discover_form(request: Request) -> Response:
    data = await _form(request)
    if isinstance(data, Response):
        return data
    url = data.get("url")
    url = url.strip() if isinstance(url, str) else ""
    if not url:
        return _render(request, "discover.html", 400, result=None, error="Site address: required", url="")
    try:
        result = await discover_tree(url)
    except CheckError as exc:
        return _render(request, "discover.html", 400, result=None, error=str(exc), url=url)
    return _render(request, "discover.html", result=result, error=None, url=url)


# ------------------------------------------------------------------------------------------------------- audits
async def _audit_url(data: dict[str, Any]) -> str | JSONResponse:
    url = data.get("url")
    if not isinstance(url, str) or not url.strip():
        return error_response("Site address: required, e.g. example.com or https://example.com/", field="url")
    return await with_scheme(url)


async def api_start_audit(request: Request) -> Response:
    data = await request_fields(request)
    if isinstance(data, Response):
        return data
    url = await _audit_url(data)
    if isinstance(url, Response):
        return url
    job = _audits(request).start(url)
    return JSONResponse({"id": job.id, "links": {"self": f"/api/audits/{job.id}", "page": f"/audits/{job.id}"}},
                        status_code=201, headers={"Location": f"/api/audits/{job.id}"})


def _audit_or_404(request: Request) -> Any:
    audit_id = request.path_params["id"]
    job = _audits(request).get(audit_id) if valid_id(audit_id) else None
    return job if job is not None else error_response(f"no audit {audit_id!r}", 404)


async def api_get_audit(request: Request) -> Response:
    job = _audit_or_404(request)
    return job if isinstance(job, Response) else JSONResponse(job.to_dict())


async def api_audit_file(request: Request) -> Response:
    job = _audit_or_404(request)
    if isinstance(job, Response):
        return job
    name = request.path_params["name"]
    path: Path = _audits(request).folder(job.id) / name
    if name not in AUDIT_FILES or job.status != "done" or not await asyncio.to_thread(_plain_file, path):
        return error_response(f"no file {name!r} in audit {job.id}", 404)
    media = {"audit.html": "text/html; charset=utf-8", "audit.json": "application/json",
             "audit.csv": "text/csv; charset=utf-8"}[name]
    return FileResponse(path, headers=file_headers(name, request), media_type=media)


def _plain_file(path: Path) -> bool:
    return path.is_file() and not path.is_symlink()


async def audit_home(request: Request) -> Response:
    return _render(request, "audit.html", job=None, error=None, url="")


async def audit_form(request: Request) -> Response:
    data = await _form(request)
    if isinstance(data, Response):
        return data
    url = await _audit_url(data)
    if isinstance(url, Response):
        return _render(request, "audit.html", 400, job=None, error="Site address: required", url="")
    job = _audits(request).start(url)
    return RedirectResponse(f"/audits/{job.id}", status_code=303)


async def audit_status_page(request: Request) -> Response:
    job = _audit_or_404(request)
    if isinstance(job, Response):
        return _render(request, "missing.html", 404, what="audit", crawl_id=request.path_params["id"])
    view = job.to_dict()
    return _render(request, "audit.html", job=view, error=None, url=job.url,
                   refresh=REFRESH if job.status in ("queued", "running") else None,
                   elapsed=elapsed_text(view["elapsed"]))


def page_routes() -> list[Route]:
    return [
        Route("/", home, methods=["GET"]),
        Route("/crawls", start_crawl, methods=["POST"]),
        Route("/crawls/{id}", crawl_page, methods=["GET"]),
        Route("/crawls/{id}/{action}", crawl_form_action, methods=["POST"]),
        Route("/check", check_page, methods=["GET"]),
        Route("/check", check_form, methods=["POST"]),
        Route("/discover", discover_page, methods=["GET"]),
        Route("/discover", discover_form, methods=["POST"]),
        Route("/audit", audit_home, methods=["GET"]),
        Route("/audits", audit_form, methods=["POST"]),
        Route("/audits/{id}", audit_status_page, methods=["GET"]),
        Route("/api/audits", api_start_audit, methods=["POST"]),
        Route("/api/audits/{id}", api_get_audit, methods=["GET"]),
        Route("/api/audits/{id}/files/{name}", api_audit_file, methods=["GET"]),
    ]
