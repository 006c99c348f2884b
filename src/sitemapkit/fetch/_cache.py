"""The on-disk cache of :class:`~sitemapkit.fetch.HttpClient` for conditional requests."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from sitemapkit.core import atomic_write_bytes

__all__ = ["HttpCache"]


class HttpCache:
    """An on-disk store for conditional requests (ETag / Last-Modified), one pair of files per URL.

    Only 200 responses carrying a validator are stored; writes are atomic (temp file + rename), so a crash never
    leaves a half-written entry. Safe to share between runs, not between concurrent processes writing the same
    URL (last writer wins, which is harmless)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def _paths(self, url: str) -> tuple[Path, Path]:
        key = hashlib.sha256(url.encode("utf-8")).hexdigest()
        return self.directory / f"{key}.json", self.directory / f"{key}.body"

    def load(self, url: str) -> tuple[dict[str, str], bytes] | None:
        meta_path, body_path = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
            body = body_path.read_bytes()
        except (OSError, ValueError):
            return None
        if not isinstance(meta, dict) or meta.get("url") != url or len(body) != meta.get("length"):
            return None
        headers = meta.get("headers")
        return ({str(k): str(v) for k, v in headers.items()} if isinstance(headers, dict) else {}), body

    def validators(self, url: str) -> dict[str, str]:
        """Conditional request headers for ``url`` (empty if nothing is cached)."""
        meta_path, _ = self._paths(url)
        try:
            meta = json.loads(meta_path.read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        headers = meta.get("headers", {}) if isinstance(meta, dict) else {}
        out: dict[str, str] = {}
        if headers.get("etag"):
            out["If-None-Match"] = headers["etag"]
        if headers.get("last-modified"):
            out["If-Modified-Since"] = headers["last-modified"]
        return out

    def store(self, url: str, headers: Mapping[str, str], body: bytes) -> None:
        if not (headers.get("etag") or headers.get("last-modified")):
            return
        meta_path, body_path = self._paths(url)
        keep = {k: v for k, v in headers.items() if k in ("etag", "last-modified", "content-type", "date")}
        atomic_write_bytes(body_path, body)
        atomic_write_bytes(meta_path, json.dumps({"url": url, "length": len(body), "headers": keep}).encode())


