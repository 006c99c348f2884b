"""What one submission request came to: :class:`SubmitResult`, one per IndexNow batch, Search Console sitemap or
WebSub publish notification (or per planned request, in a dry run)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SubmitResult"]


@dataclass(frozen=True, slots=True)
class SubmitResult:
    """The outcome of one request.

    ``channel`` is ``"indexnow"``, ``"google"`` or ``"websub"``; ``target`` the URL the request went to (the
    IndexNow endpoint, the Search Console API URL, the hub); ``subject`` what it was about (the host of an IndexNow
    batch, the sitemap URL, the feed URL). ``status`` is the HTTP status of the final answer, None when there was
    none (a connection error, a check that failed before sending, a dry run). ``urls`` are the URLs of an IndexNow
    batch; ``attempts`` counts retries too."""

    channel: str
    target: str
    subject: str
    ok: bool
    status: int | None
    message: str
    urls: tuple[str, ...] = ()
    attempts: int = 1
    dry_run: bool = False

    def line(self) -> str:
        """One line for people: ``indexnow example.com (10,000 URLs) -> https://...: 202 accepted ...``."""
        what = f"{self.channel} {self.subject}"
        if self.channel == "indexnow":
            what += f" ({len(self.urls):,} URL{'' if len(self.urls) == 1 else 's'})"
        if self.dry_run:
            return f"{what} -> {self.target}: {self.message}"
        outcome = "ok" if self.ok else "FAILED"
        status = f"{self.status} " if self.status is not None else ""
        tries = f" (after {self.attempts} attempts)" if self.attempts > 1 else ""
        return f"{what} -> {self.target}: {outcome}: {status}{self.message}{tries}"

    def to_dict(self, *, with_urls: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {"channel": self.channel, "target": self.target, "subject": self.subject,
                             "ok": self.ok, "status": self.status, "message": self.message,
                             "attempts": self.attempts, "dry_run": self.dry_run}
        if self.channel == "indexnow":
            d["count"] = len(self.urls)
            if with_urls:
                d["urls"] = list(self.urls)
        return d
