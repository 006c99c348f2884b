"""The JSON API (the pages are built on it; the README documents it)::

    POST   /api/crawls                   {"url": ..., "max_pages": ..., ...}  ->  201 {"id": ...}
    GET    /api/crawls                   the history, newest first
    GET    /api/crawls/{id}              status (queued|running|paused|done|failed|cancelled) and counts
    DELETE /api/crawls/{id}              forget a crawl and its files
    POST   /api/crawls/{id}/pause|resume|cancel
    GET    /api/crawls/{id}/events       server-sent events: one "crawl" event per change, "end" when finished
    GET    /api/crawls/{id}/files        the output files;  GET /api/crawls/{id}/files/{name} one of them
                                         (sitemap.xml, sitemap.txt, ..., crawl-report.json, sitemaps.zip; an
                                         .html file opens in the browser, ?download=1 saves it)
    GET    /api/crawls/{id}/rows/{table} a page of broken|redirects|excluded: ?offset=&limit=&q=&sort=&dir=
    POST   /api/validate                 JSON {"url"} or a form with "url" or an uploaded "file"
    GET    /api/discover?url=            the site's sitemap tree
    POST   /api/audits                   {"url"} -> 201 {"id"};  GET /api/audits/{id} its status;
    GET    /api/audits/{id}/files/{name} audit.html, audit.json, audit.csv

A refused request answers ``{"error": ...}`` in the form's words, with ``"field"`` naming the field at fault.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import re
import shutil
import time
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from sitemapkit.crawl import REPORT_JSON, report_script_hashes
from sitemapkit.web._checks import CheckError, check_document, discover_tree, fetch_document
from sitemapkit.web._guard import CSRF_FIELD, CSRF_FORM_CHECK, BodyTooLargeError, same_secret
from sitemapkit.web._jobs import CrawlManager, JobError, parse_crawl_request
from sitemapkit.web._rows import RowsError, page_of_rows
from sitemapkit.web._store import TERMINAL, CrawlRecord, valid_id
from sitemapkit.write import html_script_hashes

__all__ = ["ZIP_NAME", "api_routes", "crawl_view", "error_response", "file_headers", "list_files", "request_fields"]

ZIP_NAME = "sitemaps.zip"
_FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$")
#: Served files load nothing and run no script but the reports' table script and the HTML sitemap's search, each
#: named by its hash (sitemap.html and report.html show crawled URLs); sandboxed, they have no origin: they cannot
#: reach the API.
FILE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src "
            + " ".join(f"'sha256-{h}'" for h in [*report_script_hashes(), *html_script_hashes()])
            + "; sandbox allow-scripts")
KEEPALIVE = 15.0
HAS_FILES = frozenset({"done", "paused", "cancelled"})


def error_response(message: str, status: int = 400, field: str | None = None) -> JSONResponse:
    body: dict[str, Any] = {"error": message}
    if field is not None:
        body["field"] = field
    return JSONResponse(body, status_code=status)


def _manager(request: Request) -> CrawlManager:
    manager: CrawlManager = request.app.state.manager
    return manager


def _record(request: Request) -> CrawlRecord | JSONResponse:
    crawl_id = request.path_params["id"]
    record = _manager(request).store.get(crawl_id) if valid_id(crawl_id) else None
    if record is None:
        return error_response(f"no crawl {crawl_id!r}", 404)
    return record


def crawl_view(manager: CrawlManager, record: CrawlRecord) -> dict[str, Any]:
    d = record.to_dict()
    # A paused or cancelled crawl offers what it confirmed so far (the partial report and sitemap).
    d["files"] = list_files(manager.store.out_dir(record.id)) if record.status in HAS_FILES else []
    d["partial"] = record.status in ("paused", "cancelled") and bool(d["files"])
    d["links"] = {"self": f"/api/crawls/{record.id}", "events": f"/api/crawls/{record.id}/events",
                  "page": f"/crawls/{record.id}"}
    return d


def _served(path: Path) -> bool:
    """A regular file of the crawl's folder itself: a symlink (to /etc/passwd, or anywhere) is never served."""
    return not path.is_symlink() and path.is_file() and bool(_FILE_NAME.match(path.name))


def list_files(out: Path) -> list[dict[str, Any]]:
    if not out.is_dir():
        return []
    files = [{"name": p.name, "size": p.stat().st_size, "url": p.name} for p in sorted(out.iterdir())
             if _served(p) and not p.name.startswith(".")]
    if files:
        files.append({"name": ZIP_NAME, "size": None, "url": ZIP_NAME})
    return files


async def request_fields(request: Request) -> dict[str, Any] | JSONResponse:
    """The request's fields: JSON object, or a form (urlencoded or multipart)."""
    ctype = request.headers.get("content-type", "")
    try:
        if ctype.startswith("application/json"):
            data = json.loads(await request.body() or b"{}")
            if not isinstance(data, dict):
                return error_response("the body must be a JSON object")
            return data
        form = await request.form(max_part_size=request.app.state.max_body)
        expected = request.scope.get(CSRF_FORM_CHECK)
        if expected is not None:  # an old browser's form: its hidden field must hold this server's token
            given = form.get(CSRF_FIELD)
            if not isinstance(given, str) or not same_secret(given, expected):
                return error_response(f"the form must carry this server's {CSRF_FIELD}: cross-site request refused",
                                      403)
        out: dict[str, Any] = {}
        for key, value in form.multi_items():
            if key == CSRF_FIELD:
                continue
            if key in ("formats", "include", "exclude") and not isinstance(value, UploadFile):
                out.setdefault(key, []).append(value)
            else:
                out[key] = value
        return out
    except BodyTooLargeError as exc:
        return error_response(str(exc), 413)
    except json.JSONDecodeError as exc:
        return error_response(f"the body is not JSON: {exc}")
    except Exception as exc:  # multipart parser errors (starlette's MultiPartException and friends)
        return error_response(f"the form could not be read: {exc}")


async def create_crawl(request: Request) -> Response:
    data = await request_fields(request)
    if isinstance(data, Response):
        return data
    for key in ("include", "exclude"):  # the page's textareas: one expression per line
        if isinstance(data.get(key), list) and len(data[key]) == 1 and "\n" in data[key][0]:
            data[key] = data[key][0]
    try:
        url, options = parse_crawl_request(data)
    except JobError as exc:
        return error_response(str(exc), exc.status, exc.field)
    record = _manager(request).start(url, options)
    return JSONResponse({"id": record.id, "links": {"self": f"/api/crawls/{record.id}"}}, status_code=201,
                        headers={"Location": f"/api/crawls/{record.id}"})


async def list_crawls(request: Request) -> Response:
    manager = _manager(request)
    return JSONResponse({"crawls": [r.to_dict() for r in manager.store.all()]})


async def get_crawl(request: Request) -> Response:
    record = _record(request)
    if isinstance(record, Response):
        return record
    return JSONResponse(crawl_view(_manager(request), record))


async def delete_crawl(request: Request) -> Response:
    record = _record(request)
    if isinstance(record, Response):
        return record
    try:
        _manager(request).delete(record)
    except JobError as exc:
        return error_response(str(exc), exc.status)
    return Response(status_code=204)


async def crawl_action(request: Request) -> Response:
    record = _record(request)
    if isinstance(record, Response):
        return record
    action = request.path_params["action"]
    manager = _manager(request)
    try:
        if action == "resume":
            manager.resume(record)
        elif action in ("pause", "cancel"):
            manager.stop(record, action)
        else:
            return error_response(f"unknown action {action!r}: pause, resume or cancel", 404)
    except JobError as exc:
        return error_response(str(exc), exc.status)
    return JSONResponse({"id": record.id, "requested": action}, status_code=202)


async def crawl_events(request: Request) -> Response:
    record = _record(request)
    if isinstance(record, Response):
        return record
    manager = _manager(request)
    crawl_id = record.id

    async def stream() -> AsyncIterator[str]:
        yield "retry: 2000\n\n"
        while True:
            changed = manager.changed_event(crawl_id)
            current = manager.store.get(crawl_id)
            if current is None:
                yield 'event: end\ndata: {"status": "deleted"}\n\n'
                return
            view = crawl_view(manager, current)
            yield f"event: crawl\ndata: {json.dumps(view)}\n\n"
            if current.status in TERMINAL or manager.closing.is_set():
                yield f"event: end\ndata: {json.dumps({'status': current.status})}\n\n"
                return
            try:
                await asyncio.wait_for(changed.wait(), KEEPALIVE)
            except TimeoutError:
                yield ": keep-alive\n\n"

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _zip(out: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for item in list_files(out):
            if item["name"] == ZIP_NAME:
                continue
            try:  # O_NOFOLLOW: a file swapped for a symlink after the listing is not followed either
                fd = os.open(out / item["name"], os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except OSError:
                continue
            with os.fdopen(fd, "rb") as src:
                info = zipfile.ZipInfo(item["name"], time.localtime(os.fstat(src.fileno()).st_mtime)[:6])
                info.compress_type = zipfile.ZIP_DEFLATED
                with zf.open(info, "w") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
    return buffer.getvalue()


async def crawl_files(request: Request) -> Response:
    record = _record(request)
    if isinstance(record, Response):
        return record
    return JSONResponse({"files": list_files(_manager(request).store.out_dir(record.id))})


async def crawl_file(request: Request) -> Response:
    record = _record(request)
    if isinstance(record, Response):
        return record
    name = request.path_params["name"]
    out = _manager(request).store.out_dir(record.id)
    headers = file_headers(name, request)
    if name == ZIP_NAME and list_files(out):
        data = await asyncio.to_thread(_zip, out)
        return Response(data, media_type="application/zip", headers=headers)
    path = out / name
    # The name is one plain segment (no "/", no ".."), not a symlink, and the file must still be inside the folder.
    if not _served(path) or not path.resolve().is_relative_to(out.resolve()):
        return error_response(f"no file {name!r} in crawl {record.id}", 404)
    return FileResponse(path, headers=headers, media_type=_media_type(name))


def file_headers(name: str, request: Request) -> dict[str, str]:
    """A served file's headers: a page (report.html, sitemap.html) opens in the browser unless ``?download=1``,
    the rest is saved; nothing served runs a script but the reports' own table script (by its hash)."""
    if not _FILE_NAME.match(name):
        return {}
    inline = (name.endswith(".html") or bool(request.query_params.get("inline"))) and not request.query_params.get(
        "download")
    return {"Content-Security-Policy": FILE_CSP, "X-Content-Type-Options": "nosniff",
            "Content-Disposition": f'{"inline" if inline else "attachment"}; filename="{name}"'}


async def crawl_rows(request: Request) -> Response:
    record = _record(request)
    if isinstance(record, Response):
        return record
    q = request.query_params
    try:
        offset, limit = int(q.get("offset", "0")), int(q.get("limit", "100"))
    except ValueError:
        return error_response("offset and limit are whole numbers")
    report = _manager(request).store.out_dir(record.id) / REPORT_JSON
    try:
        page = await asyncio.to_thread(page_of_rows, report, request.path_params["table"], offset=offset,
                                       limit=limit, query=q.get("q", ""), sort=q.get("sort") or None,
                                       descending=q.get("dir") == "desc")
    except RowsError as exc:
        return error_response(str(exc))
    return JSONResponse(page)


def _media_type(name: str) -> str:
    for suffix, media in ((".xml", "application/xml"), (".json", "application/json"),
                          (".txt", "text/plain; charset=utf-8"), (".html", "text/html; charset=utf-8"),
                          (".gz", "application/gzip")):
        if name.endswith(suffix):
            return media
    return "application/octet-stream"


async def validate(request: Request) -> Response:
    data = await request_fields(request)
    if isinstance(data, Response):
        return data
    max_body: int = request.app.state.max_body
    upload = data.get("file")
    try:
        if isinstance(upload, UploadFile) and upload.filename:
            content = await upload.read(max_body + 1)
            if len(content) > max_body:
                return error_response(f"upload too large: the limit is {max_body:,} bytes", 413)
            source, sitemap_url = upload.filename, None
        else:
            url = data.get("url")
            if not isinstance(url, str) or not url.strip():
                return error_response("give a sitemap: url (its address) or file (an upload)")
            sitemap_url, content = await fetch_document(url.strip(), max_body)
            source = url.strip()
    except CheckError as exc:
        return error_response(str(exc))
    result = await asyncio.to_thread(check_document, content, source, sitemap_url)
    return JSONResponse(result)


async def discover(request: Request) -> Response:
    url = request.query_params.get("url", "").strip()
    if not url:
        return error_response("url: the site's address is required, e.g. /api/discover?url=https://example.com/")
    try:
        return JSONResponse(await discover_tree(url))
    except CheckError as exc:
        return error_response(str(exc))


def api_routes() -> list[Route]:
    return [
        Route("/api/crawls", create_crawl, methods=["POST"]),
        Route("/api/crawls", list_crawls, methods=["GET"]),
        Route("/api/crawls/{id}", get_crawl, methods=["GET"]),
        Route("/api/crawls/{id}", delete_crawl, methods=["DELETE"]),
        Route("/api/crawls/{id}/events", crawl_events, methods=["GET"]),
        Route("/api/crawls/{id}/files", crawl_files, methods=["GET"]),
        Route("/api/crawls/{id}/files/{name}", crawl_file, methods=["GET"]),
        Route("/api/crawls/{id}/rows/{table}", crawl_rows, methods=["GET"]),
        Route("/api/crawls/{id}/{action}", crawl_action, methods=["POST"]),
        Route("/api/validate", validate, methods=["POST"]),
        Route("/api/discover", discover, methods=["GET"]),
    ]
