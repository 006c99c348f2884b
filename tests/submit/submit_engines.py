"""Local servers that play the engines for the submit tests: an IndexNow endpoint that verifies key files over
HTTP and answers like the protocol says, a Search Console API with its OAuth token endpoint, and a WebSub hub."""

from __future__ import annotations

import base64
import json
import re
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from tests.support.server import Handler, LocalServer, Request, Response

KEY_RE = re.compile(r"[A-Za-z0-9-]{8,128}")


@dataclass
class IndexNowEngine:
    """``POST /indexnow``: checks the JSON, fetches the key file (``keyLocation`` or ``http://HOST/KEY.txt``) and
    answers 202 (200 once the key was seen before); 400 for a malformed body, 422 for URLs off the host or a
    malformed key, 403 when the key file does not hold the key. ``queued`` answers go first (e.g. a 429)."""

    server: LocalServer
    queued: list[Response] = field(default_factory=list)
    batches: list[dict[str, object]] = field(default_factory=list)
    posts: int = 0
    _verified: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.server.route("/indexnow", handler=self.handle)

    @property
    def url(self) -> str:
        return self.server.url("/indexnow")

    def handle(self, req: Request) -> Response:
        with self._lock:
            self.posts += 1
            if self.queued:
                return self.queued.pop(0)
        if req.method != "POST" or not req.headers.get("content-type", "").startswith("application/json"):
            return Response(400)
        try:
            body = json.loads(req.body)
            host, key, urls = body["host"], body["key"], body["urlList"]
        except (ValueError, KeyError, TypeError):
            return Response(400)
        if not isinstance(urls, list) or not urls or len(urls) > 10_000:
            return Response(400 if not isinstance(urls, list) else 422)
        if not KEY_RE.fullmatch(str(key)) or any(urlsplit(u).netloc != host for u in urls):
            return Response(422)
        location = body.get("keyLocation") or f"http://{host}/{key}.txt"
        try:
            with urllib.request.urlopen(location, timeout=10) as resp:
                held = resp.read().decode("utf-8").strip()
        except (urllib.error.URLError, OSError):
            held = None
        if held != key:
            return Response(403)
        with self._lock:
            self.batches.append(body)
            seen = location in self._verified
            self._verified.add(location)
        return Response(200 if seen else 202)

    def received(self) -> list[str]:
        return [u for b in self.batches for u in b["urlList"]]  # type: ignore[attr-defined]


def make_service_account(token_uri: str, email: str = "robot@proj.iam.gserviceaccount.com") -> tuple[dict[str, str],
                                                                                                    rsa.RSAPublicKey]:
    """A service-account key file (a fresh RSA key) and its public key."""
    private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode("ascii")
    info = {"type": "service_account", "project_id": "proj", "private_key_id": "k1", "private_key": pem,
            "client_email": email, "client_id": "1", "token_uri": token_uri}
    return info, private.public_key()


def _b64(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


@dataclass
class SearchConsole:
    """``POST /token`` (JWT-bearer grant, signature checked with the account's public key) and
    ``PUT /webmasters/v3/sites/{site}/sitemaps/{feed}`` (200 for an owned property, else 403)."""

    server: LocalServer
    public_key: rsa.RSAPublicKey | None = None
    owned: set[str] = field(default_factory=set)
    submitted: list[tuple[str, str]] = field(default_factory=list)
    assertions: list[dict[str, object]] = field(default_factory=list)
    token: str = "ya29.local-token"

    def __post_init__(self) -> None:
        self.server.route("/token", handler=self.handle_token)
        self.server.routes = _Routes(self.server.routes, self.handle_api)

    def handle_token(self, req: Request) -> Response:
        form = parse_qs(req.body.decode("ascii"))
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return Response(400, b'{"error": "unsupported_grant_type"}')
        header, payload, signature = form["assertion"][0].split(".")
        assert self.public_key is not None
        try:
            self.public_key.verify(_b64(signature), f"{header}.{payload}".encode("ascii"), padding.PKCS1v15(),
                                   hashes.SHA256())
        except Exception:
            return Response(400, b'{"error": "invalid_grant", "error_description": "Invalid JWT Signature."}')
        claims = json.loads(_b64(payload))
        self.assertions.append(claims)
        return Response(200, json.dumps({"access_token": self.token, "expires_in": 3600,
                                         "token_type": "Bearer"}).encode(), {"Content-Type": "application/json"})

    def handle_api(self, req: Request) -> Response:
        m = re.fullmatch(r"/webmasters/v3/sites/([^/]+)/sitemaps/([^/]+)", req.path)
        if req.method != "PUT" or m is None:
            return Response(404)
        if req.headers.get("authorization") != f"Bearer {self.token}":
            return Response(401, b'{"error": {"code": 401, "message": "Request had invalid credentials."}}')
        site, feed = unquote(m.group(1)), unquote(m.group(2))
        if site not in self.owned:
            return Response(403, b'{"error": {"code": 403, "message": "User does not have sufficient permission '
                                 b'for site."}}', {"Content-Type": "application/json"})
        self.submitted.append((site, feed))
        return Response(200, b"")


class _Routes(dict[str, Handler]):
    """The server's route table, answering every Search Console API path with one handler."""

    def __init__(self, routes: dict[str, Handler], api: Handler) -> None:
        super().__init__(routes)
        self._api = api

    def get(self, key: str, default: Handler | None = None) -> Handler | None:  # type: ignore[override]
        if key.startswith("/webmasters/v3/sites/"):
            return self._api
        return super().get(key, default)


@dataclass
class Hub:
    """``POST /hub``: records ``hub.mode`` / ``hub.url`` and answers 204 (or ``status``)."""

    server: LocalServer
    status: int = 204
    notifications: list[dict[str, list[str]]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.server.route("/hub", handler=self.handle)

    @property
    def url(self) -> str:
        return self.server.url("/hub")

    def handle(self, req: Request) -> Response:
        if req.headers.get("content-type") != "application/x-www-form-urlencoded":
            return Response(400, b"form-encoded body expected")
        self.notifications.append(parse_qs(req.body.decode("ascii")))
        return Response(self.status)
