"""The web app's request guard (an ASGI middleware in front of everything).

* ``Host`` must name this server (``127.0.0.1``, ``localhost``, ``[::1]`` or the address it is bound to, with its
  port): a DNS rebinding page (``evil.example`` resolving to 127.0.0.1) gets 421 and never sees a byte.
* No other site can use the API, not even with a GET: ``GET /api/discover?url=http://10.1.2.3/`` from an
  ``<img>`` on any page would make this server fetch an intranet address for a stranger. A request to the API
  (or any state-changing request) is refused when its ``Origin`` is not this server's own, or when
  ``Sec-Fetch-Site`` is anything but ``same-origin`` or ``none`` (typed by the user). The pages themselves
  (``/``, ``/check``, ...) only show data to the user: another site may link to them (a top-level navigation),
  not load them any other way.
* A form posted with ``Origin: null`` but ``Sec-Fetch-Site: same-origin`` (a browser that hides the origin of
  the app's own page) must carry the page's CSRF token in its ``csrf_token`` field; ``null`` from anywhere else
  is refused.
* A browser that sends neither ``Origin`` nor ``Sec-Fetch-Site`` (an old one; its ``User-Agent`` starts with
  ``Mozilla/``) must prove the request comes from this app's pages: with the per-server CSRF token they carry
  (``<meta name="csrf-token">``), sent back as an ``X-CSRF-Token`` header (the script), a ``csrf_token`` query
  parameter (live stream, downloads) or a ``csrf_token`` form field (the forms; checked by the endpoint).
  Requests with none of these headers from other clients (curl, scripts) are not from a browser page on
  another site and need nothing.
* With a token (required when bound to a non-loopback address) every request carries it: ``Authorization:
  Bearer TOKEN``, the ``sitemapkit_token`` cookie, or ``?token=TOKEN`` once (the answer sets the cookie).
* Request bodies are limited (``max_body`` bytes): 413 beyond.
"""

from __future__ import annotations

import hmac
import json
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["COOKIE", "CSRF_FIELD", "CSRF_FORM_CHECK", "CSRF_HEADER", "RequestGuard", "is_loopback", "same_secret"]

COOKIE = "sitemapkit_token"
CSRF_HEADER = "x-csrf-token"
#: The query parameter and form field that carry the CSRF token.
CSRF_FIELD = "csrf_token"
#: Scope key set when a form body must carry the CSRF token (the guard cannot read the body; the endpoint does).
CSRF_FORM_CHECK = "sitemapkit.csrf_form"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_TRUSTED_SITES = frozenset({"same-origin", "none"})
_FORM_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _authority(host: str, port: int) -> str:
    host = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"{host}:{port}".lower()


class RequestGuard:
    """Wraps the app: Host, Origin, token and body size checks (see the module docstring)."""

    def __init__(self, app: ASGIApp, *, host: str, port: int, token: str | None, max_body: int,
                 csrf_token: str) -> None:
        self.app = app
        self.csrf_token = csrf_token
        names = {*_LOOPBACK_NAMES, host}
        self.allowed_hosts = {_authority(n, port) for n in names}
        if port == 80:
            self.allowed_hosts |= {_authority(n, port).rsplit(":", 1)[0] for n in names}
        self.token = token
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "").lower()
        # With a token the Host check is not needed (a rebinding page has no token) and would refuse the
        # machine's other names; without one, only this server's loopback names are answered.
        if self.token is None and host not in self.allowed_hosts:
            await _refuse(send, 421, f"unknown Host header {host!r}: this server answers to "
                                     f"{', '.join(sorted(self.allowed_hosts))} only (DNS rebinding refused)")
            return
        method = scope["method"]
        path: str = scope.get("path", "")
        if not path.startswith("/static/"):
            refusal = self._cross_site(method, path, headers, host, scope)
            if refusal is not None:
                await _refuse(send, 403, refusal)
                return
        set_cookie = False
        if self.token is not None:
            given = _token_of(headers, scope.get("query_string", b""))
            if given is None or not same_secret(given[0], self.token):
                await _refuse(send, 401, "a token is required: pass ?token=... once, or Authorization: Bearer ...")
                return
            set_cookie = given[1] == "query"
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.max_body:
            await _refuse(send, 413, f"request body too large: {int(length):,} bytes, the limit is "
                                     f"{self.max_body:,}")
            return
        await self.app(scope, self._limited(receive, send), self._cookie(send) if set_cookie else send)

    def _cross_site(self, method: str, path: str, headers: dict[str, str], host: str, scope: Scope) -> str | None:
        """Why a request from another site (or from a browser that cannot say where it comes from) is refused."""
        guarded = path.startswith("/api/") or method not in _SAFE_METHODS
        origin = headers.get("origin")
        site = headers.get("sec-fetch-site")
        if (origin == "null" and site == "same-origin" and method == "POST"
                and headers.get("content-type", "").startswith(_FORM_TYPES)):
            # A form of this app's own pages, from a browser that hides the origin ("null", e.g. under a strict
            # referrer policy): the browser says it is same-origin, and its csrf_token field must prove it.
            scope[CSRF_FORM_CHECK] = self.csrf_token
            return None
        if origin is not None and (origin == "null" or urlsplit(origin).netloc.lower() != host) and guarded:
            return f"cross-origin request refused (Origin {origin!r})"
        if site is not None and site not in _TRUSTED_SITES:
            navigation = method == "GET" and headers.get("sec-fetch-mode") == "navigate"
            if guarded or not navigation:
                return f"cross-site request refused (Sec-Fetch-Site: {site})"
        if not guarded or origin is not None or site is not None or "mozilla/" not in headers.get(
                "user-agent", "").lower():
            return None
        # A browser that sends neither header: only the CSRF token of this server's pages vouches for it.
        given = headers.get(CSRF_HEADER) or _query_value(scope.get("query_string", b""), CSRF_FIELD)
        if given is not None:
            return None if same_secret(given, self.csrf_token) else "wrong CSRF token"
        if method == "POST" and headers.get("content-type", "").startswith(_FORM_TYPES):
            scope[CSRF_FORM_CHECK] = self.csrf_token  # the endpoint checks the form's csrf_token field
            return None
        return (f"a browser request without Origin or Sec-Fetch-Site must carry the page's CSRF token "
                f"(the {CSRF_HEADER} header or {CSRF_FIELD}=...): cross-site request refused")

    def _limited(self, receive: Receive, send: Send) -> Receive:
        seen = 0
        limit = self.max_body

        async def wrapped() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLargeError(limit)
            return message

        return wrapped

    def _cookie(self, send: Send) -> Send:
        token = self.token or ""

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                cookie = f"{COOKIE}={token}; Path=/; HttpOnly; SameSite=Strict".encode("latin-1")
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        return wrapped


class BodyTooLargeError(Exception):
    """A body without Content-Length went past the limit (the app answers 413)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"request body too large: the limit is {limit:,} bytes")


def same_secret(given: str, expected: str) -> bool:
    """Constant-time comparison that also takes non-ASCII input (``hmac.compare_digest`` raises on such str)."""
    return hmac.compare_digest(given.encode("utf-8", "surrogateescape"), expected.encode("utf-8"))


def _query_value(query: bytes, name: str) -> str | None:
    values = parse_qs(query.decode("latin-1")).get(name)
    return values[0] if values else None


def _token_of(headers: dict[str, str], query: bytes) -> tuple[str, str] | None:
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip(), "header"
    value = _query_value(query, "token")
    if value is not None:
        return value, "query"
    cookie: SimpleCookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed Cookie header is no token
        return None
    if COOKIE in cookie:
        return cookie[COOKIE].value, "cookie"
    return None


async def _refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    headers: list[tuple[bytes, bytes]] = [(b"content-type", b"application/json"),
                                          (b"content-length", str(len(body)).encode())]
    start: dict[str, Any] = {"type": "http.response.start", "status": status, "headers": headers}
    await send(start)
    await send({"type": "http.response.body", "body": body})
