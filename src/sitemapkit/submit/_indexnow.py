"""IndexNow (https://www.indexnow.org/documentation): keys, key files, batches and the POST to an engine.

A key is 8 to 128 characters of ``a-z A-Z 0-9 -``; :func:`new_key` makes a 32-character lowercase hexadecimal one
(which also satisfies the documentation's "hexadecimal" wording). The site proves it owns the key by serving it as a
UTF-8 text file, by default at ``<scheme>://<host>/<key>.txt``, or anywhere on the host announced as
``keyLocation`` (the key file's folder then scopes the URLs it covers).

URLs are grouped by host (IndexNow's ``host`` field; subdomains are separate hosts) and POSTed as JSON in batches of
at most 10,000. Answers: 200 and 202 are success; 400, 403 and 422 are reported with what they mean; 429 and 5xx
are retried by the HTTP client's retry policy (backoff, ``Retry-After``) and reported when they persist.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sitemapkit.core import (
    INDEXNOW_ENDPOINT,
    INDEXNOW_MAX_BATCH,
    ConfigurationError,
    InvalidValueError,
    atomic_write_bytes,
)
from sitemapkit.fetch import HttpClient, TransportError
from sitemapkit.submit._results import SubmitResult

__all__ = [
    "DEFAULT_ENDPOINT",
    "MAX_BATCH",
    "IndexNowBatch",
    "check_key",
    "check_key_file",
    "default_key_location",
    "indexnow_host",
    "new_key",
    "plan_batches",
    "post_batch",
    "status_meaning",
    "write_key_file",
]

#: The shared endpoint: engines that take part pass submissions on to each other.
DEFAULT_ENDPOINT = INDEXNOW_ENDPOINT
#: URLs per POST at most (the protocol's limit).
MAX_BATCH = INDEXNOW_MAX_BATCH
_KEY = re.compile(r"[A-Za-z0-9-]{8,128}")


def check_key(key: str) -> str:
    """``key`` if it has IndexNow's format (8..128 of ``a-z A-Z 0-9 -``), else :class:`InvalidValueError`."""
    if not _KEY.fullmatch(key):
        raise InvalidValueError(f"not an IndexNow key: {key!r} (8 to 128 characters of a-z, A-Z, 0-9 and '-')")
    return key


def new_key() -> str:
    """A fresh random key: 32 lowercase hexadecimal characters (128 bits)."""
    return secrets.token_hex(16)


def write_key_file(directory: str | Path, key: str | None = None) -> Path:
    """Write ``DIRECTORY/KEY.txt`` holding exactly the key (a new one unless ``key`` is given), atomically, and
    return its path. The folder is created if missing; an existing key file of another content is an error."""
    key = check_key(key) if key is not None else new_key()
    folder = Path(directory)
    if folder.exists() and not folder.is_dir():
        raise ConfigurationError(f"{folder} is not a directory")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{key}.txt"
    atomic_write_bytes(path, key.encode("ascii"))
    return path


def indexnow_host(url: str) -> str:
    """The ``host`` an IndexNow request names for ``url``: the host, lowercased, with its port when one is written
    (no user info). Raises :class:`InvalidValueError` for a URL without a host."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        port = parts.port
    except ValueError as exc:
        raise InvalidValueError(f"not a URL: {url!r} ({exc})") from None
    if not host or parts.scheme.lower() not in ("http", "https"):
        raise InvalidValueError(f"not an absolute http(s) URL: {url!r}")
    shown = f"[{host}]" if ":" in host else host
    return shown if port is None else f"{shown}:{port}"


def default_key_location(url: str, key: str) -> str:
    """Where engines look for the key of ``url``'s host when no ``keyLocation`` is sent: ``/<key>.txt``."""
    scheme = urlsplit(url).scheme.lower()
    return f"{scheme}://{indexnow_host(url)}/{key}.txt"


@dataclass(frozen=True, slots=True)
class IndexNowBatch:
    """One POST: up to :data:`MAX_BATCH` URLs of one ``host``. ``key_location`` is sent as ``keyLocation`` when set
    (the user gave one on this host); ``check_location`` is where the key file is checked before sending (the
    explicit location, else the default ``/<key>.txt`` on the host, https when any URL of the host is https)."""

    host: str
    urls: tuple[str, ...]
    key_location: str | None
    check_location: str

    def payload(self, key: str) -> bytes:
        body: dict[str, object] = {"host": self.host, "key": key}
        if self.key_location is not None:
            body["keyLocation"] = self.key_location
        body["urlList"] = list(self.urls)
        return json.dumps(body, ensure_ascii=False).encode("utf-8")


def plan_batches(urls: Iterable[str], key: str, *, key_location: str | None = None,
                 batch_size: int = MAX_BATCH) -> list[IndexNowBatch]:
    """Group ``urls`` by host (first-seen order) and cut each group into batches of at most ``batch_size``.
    Invalid URLs raise :class:`InvalidValueError` naming them."""
    if not 1 <= batch_size <= MAX_BATCH:
        raise ConfigurationError(f"batch size must be 1..{MAX_BATCH}, got {batch_size}")
    location_host = indexnow_host(key_location) if key_location is not None else None
    groups: dict[str, list[str]] = {}
    secure: dict[str, bool] = {}
    for url in urls:
        host = indexnow_host(url)
        groups.setdefault(host, []).append(url)
        secure[host] = secure.get(host, False) or url.lower().startswith("https:")
    batches: list[IndexNowBatch] = []
    for host, members in groups.items():
        explicit = key_location if location_host == host else None
        check = explicit or f"{'https' if secure[host] else 'http'}://{host}/{key}.txt"
        for start in range(0, len(members), batch_size):
            batches.append(IndexNowBatch(host, tuple(members[start:start + batch_size]), explicit, check))
    return batches


_MEANINGS = {
    200: "OK: the URLs were received",
    202: "accepted: the URLs were received; the key is still being validated",
    400: "bad request: the engine found the request malformed",
    403: "forbidden: the key is not valid: the engine could not verify the key file {location} (not found, or "
         "it does not hold the key)",
    422: "unprocessable: URLs that do not belong to host {host} (or outside the key file's folder), or a key that "
         "does not match the protocol's format",
    429: "too many requests: the engine suspects spam; submit less often",
}


def status_meaning(status: int, *, host: str = "", location: str = "") -> str:
    """What an IndexNow answer means, in words (naming the key file for 403, the host for 422)."""
    text = _MEANINGS.get(status)
    if text is None:
        if 500 <= status < 600:
            return "server error at the engine; try again later"
        return "unexpected answer"
    return text.format(host=host, location=location)


async def check_key_file(client: HttpClient, location: str, key: str) -> str | None:
    """None when ``location`` serves exactly ``key`` (a UTF-8 BOM and surrounding whitespace are tolerated),
    else why not, naming the URL."""
    try:
        response = await client.get(location, max_bytes=64 * 1024)
    except TransportError as exc:
        return f"key file {location} could not be fetched: {exc}"
    if response.status != 200:
        return f"key file {location} answered HTTP {response.status}, not 200 with the key"
    try:
        text = response.body.decode("utf-8-sig").strip()
    except UnicodeDecodeError:
        return f"key file {location} is not UTF-8 text"
    if text != key:
        shown = text[:40] + ("..." if len(text) > 40 else "")
        return f"key file {location} does not hold exactly the key {key} (it holds {shown!r})"
    return None


async def post_batch(client: HttpClient, endpoint: str, key: str, batch: IndexNowBatch) -> SubmitResult:
    """POST one batch; the client retries 429 and 5xx (honouring ``Retry-After``) within its policy."""
    def result(ok: bool, status: int | None, message: str, attempts: int = 1) -> SubmitResult:
        return SubmitResult("indexnow", endpoint, batch.host, ok, status, message, batch.urls, attempts)

    try:
        response = await client.send("POST", endpoint, data=batch.payload(key), max_bytes=1024 * 1024,
                                     headers={"Content-Type": "application/json; charset=utf-8"})
    except TransportError as exc:
        return result(False, None, f"no answer: {exc}")
    meaning = status_meaning(response.status, host=batch.host, location=batch.check_location)
    return result(response.status in (200, 202), response.status, meaning, response.attempts)
