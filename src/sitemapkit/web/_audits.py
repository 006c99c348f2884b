"""Audits run from the web app: ``sitemapkit.audit`` in a thread, its three reports in the audit's folder.

    POST /api/audits {"url"}              ->  201 {"id"}
    GET  /api/audits/{id}                 status (queued|running|done|failed), the step it is at, the counts
    GET  /api/audits/{id}/files/{name}    audit.html, audit.json or audit.csv

The audits of this server's life are kept in memory; their folders (``DATA/audits/<id>/``) hold the reports.
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sitemapkit.audit import (
    AUDIT_CSV,
    AUDIT_HTML,
    AUDIT_JSON,
    CATEGORIES,
    AuditOptions,
    audit,
    category_label,
    category_severity,
    write_reports,
)
from sitemapkit.core import SitemapkitError

__all__ = ["AUDIT_FILES", "AuditJob", "AuditManager"]

AUDIT_FILES = (AUDIT_HTML, AUDIT_JSON, AUDIT_CSV)


@dataclass
class AuditJob:
    """One audit: its site, where it is, and (once done) its counts per category."""

    id: str
    url: str
    status: str = "queued"
    step: str = ""
    error: str | None = None
    counts: dict[str, int] = field(default_factory=dict)
    totals: dict[str, int] = field(default_factory=dict)
    started: float = field(default_factory=time.monotonic)
    elapsed: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        elapsed = self.elapsed if self.status in ("done", "failed") else time.monotonic() - self.started
        return {"id": self.id, "url": self.url, "status": self.status, "step": self.step, "error": self.error,
                "elapsed": round(elapsed, 1), "totals": self.totals,
                "findings": [{"category": c, "label": category_label(c), "severity": category_severity(c),
                              "count": self.counts[c]} for c in CATEGORIES if self.counts.get(c)],
                "files": [{"name": n, "url": f"/api/audits/{self.id}/files/{n}"} for n in AUDIT_FILES]
                if self.status == "done" else [],
                "links": {"self": f"/api/audits/{self.id}", "page": f"/audits/{self.id}"}}


class AuditManager:
    """Starts audits (one thread each) and keeps their status."""

    def __init__(self, data_dir: Path) -> None:
        self.root = data_dir / "audits"
        self._jobs: dict[str, AuditJob] = {}
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def folder(self, audit_id: str) -> Path:
        return self.root / audit_id

    def get(self, audit_id: str) -> AuditJob | None:
        with self._lock:
            return self._jobs.get(audit_id)

    def start(self, url: str) -> AuditJob:
        job = AuditJob(secrets.token_hex(6), url)
        with self._lock:
            self._jobs[job.id] = job
        thread = threading.Thread(target=self._work, args=(job,), daemon=True, name=f"audit-{job.id}")
        self._threads.append(thread)
        thread.start()
        return job

    def join(self, timeout: float = 5.0) -> None:
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))

    def _work(self, job: AuditJob) -> None:
        out = self.folder(job.id)
        job.status = "running"
        try:
            out.mkdir(parents=True, exist_ok=True)
            result = audit(job.url, AuditOptions(), progress=lambda step: setattr(job, "step", step))
            try:
                job.step = "writing the reports"
                write_reports(result, out)
                job.counts = result.summary()
                job.totals = {"sitemaps": len(result.sitemaps), "sitemap_urls": result.sitemap_urls,
                              "checked": result.checked, "crawled": result.crawled}
            finally:
                result.close()
            job.status, job.step = "done", ""
        except SitemapkitError as exc:
            job.status, job.error = "failed", str(exc)
        except Exception as exc:  # a bug ends this audit, never the server
            traceback.print_exc(file=sys.stderr)
            job.status, job.error = "failed", f"internal error: {type(exc).__name__}: {exc}"
        finally:
            job.elapsed = time.monotonic() - job.started
