"""Google Search Console: submit sitemaps with the API's ``sitemaps.submit``.

Google takes neither IndexNow nor the old ping; a sitemap is submitted for a property (``https://example.com/`` or
``sc-domain:example.com``) by a service account that is an owner or full user of it::

    PUT {api_root}/webmasters/v3/sites/{siteUrl}/sitemaps/{feedpath}
    Authorization: Bearer <access token>

The access token comes from the OAuth 2.0 JWT-bearer grant: an assertion signed with the service account's private
key (through the ``google-auth`` library, the optional extra ``sitemapkit[google]``) is POSTed to the account's
``token_uri``. Both requests go through sitemapkit's HTTP client; the API root and the token URI can be changed
(a test server, a proxy).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from sitemapkit.core import ConfigurationError, require_extra
from sitemapkit.fetch import HttpClient, TransportError
from sitemapkit.submit._results import SubmitResult

__all__ = ["DEFAULT_API_ROOT", "SCOPE", "ServiceAccount", "default_property", "fetch_token", "sitemap_api_url",
           "submit_sitemap"]

#: Where the Search Console API (webmasters v3) lives.
DEFAULT_API_ROOT = "https://www.googleapis.com"
#: The OAuth scope that lets a service account submit sitemaps.
SCOPE = "https://www.googleapis.com/auth/webmasters"
_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"


@dataclass(frozen=True, slots=True)
class ServiceAccount:
    """A service-account key file: its e-mail, the token endpoint and the key material (kept as read)."""

    email: str
    token_uri: str
    info: dict[str, Any]

    @classmethod
    def from_file(cls, path: str | os.PathLike[str], *, token_uri: str | None = None) -> ServiceAccount:
        """Read a service-account JSON key file; :class:`ConfigurationError` names what is wrong with it."""
        where = f"--google-credentials {path}"
        require_extra("google", ("google.auth.crypt", "google.auth.jwt"), "--google-credentials")
        try:
            info = json.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigurationError(f"{where}: cannot read it: {exc.strerror or exc}") from None
        except (ValueError, UnicodeDecodeError) as exc:
            raise ConfigurationError(f"{where}: not JSON ({exc})") from None
        if not isinstance(info, dict) or info.get("type") != "service_account":
            raise ConfigurationError(f'{where}: not a service-account key file (no "type": "service_account")')
        missing = [k for k in ("client_email", "private_key") if not isinstance(info.get(k), str)]
        uri = token_uri or info.get("token_uri")
        if not isinstance(uri, str):
            missing.append("token_uri")
        if missing:
            raise ConfigurationError(f"{where}: missing {', '.join(missing)}")
        assert isinstance(uri, str)
        return cls(info["client_email"], uri, info)

    def assertion(self, *, now: float | None = None) -> str:
        """The signed JWT asking for :data:`SCOPE` (valid one hour)."""
        require_extra("google", ("google.auth.crypt", "google.auth.jwt"), "--google-credentials")
        from google.auth import crypt, jwt
        try:
            signer = crypt.RSASigner.from_service_account_info(self.info)  # type: ignore[no-untyped-call]
        except (ValueError, TypeError) as exc:
            raise ConfigurationError(f"the service account's private key cannot be used: {exc}") from None
        issued = int(time.time() if now is None else now)
        payload = {"iss": self.email, "scope": SCOPE, "aud": self.token_uri, "iat": issued, "exp": issued + 3600}
        token: bytes = jwt.encode(signer, payload)  # type: ignore[no-untyped-call]
        return token.decode("ascii")


async def fetch_token(client: HttpClient, account: ServiceAccount) -> tuple[str | None, str]:
    """Exchange the signed assertion for an access token: ``(token, "")``, or ``(None, why)``."""
    form = urlencode({"grant_type": _GRANT, "assertion": account.assertion()}).encode("ascii")
    try:
        response = await client.send("POST", account.token_uri, data=form, max_bytes=256 * 1024,
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    except TransportError as exc:
        return None, f"token endpoint {account.token_uri}: no answer: {exc}"
    detail = _error_text(response.body)
    if response.status != 200:
        return None, (f"token endpoint {account.token_uri} refused the service account {account.email}: "
                      f"HTTP {response.status}{detail}")
    try:
        token = json.loads(response.body)["access_token"]
    except (ValueError, KeyError, TypeError):
        token = None
    if not isinstance(token, str) or not token:
        return None, f"token endpoint {account.token_uri} answered without an access_token"
    return token, ""


def _error_text(body: bytes) -> str:
    """``: message`` from a Google error body (``{"error": {"message": ...}}`` or the OAuth form), else ``""``."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return ""
    if not isinstance(data, dict):
        return ""
    error = data.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return f": {error['message'][:300]}"
    parts = [str(v)[:300] for v in (error, data.get("error_description")) if isinstance(v, str)]
    return f": {' - '.join(parts)}" if parts else ""


def default_property(sitemap_url: str) -> str:
    """The URL-prefix property a sitemap belongs to by default: ``scheme://host/``."""
    parts = urlsplit(sitemap_url)
    return f"{parts.scheme.lower()}://{parts.netloc.lower()}/"


def sitemap_api_url(api_root: str, site_url: str, sitemap_url: str) -> str:
    """The ``sitemaps.submit`` URL: both path parameters percent-encoded whole."""
    return (f"{api_root.rstrip('/')}/webmasters/v3/sites/{quote(site_url, safe='')}"
            f"/sitemaps/{quote(sitemap_url, safe='')}")


_MEANINGS = {
    400: "bad request: the API rejected the property or sitemap URL",
    401: "unauthorized: the access token was not accepted",
    403: "forbidden: the service account {email} is not an owner or full user of property {site} (add it in "
         "Search Console, Settings, Users and permissions)",
    404: "not found: no property {site} (a URL-prefix property ends with /; a domain one is sc-domain:NAME)",
    429: "too many requests: the API quota is used up; try again later",
}


async def submit_sitemap(client: HttpClient, *, api_root: str, token: str, email: str, site_url: str,
                         sitemap_url: str) -> SubmitResult:
    """PUT one sitemap for ``site_url``; 2xx is success."""
    target = sitemap_api_url(api_root, site_url, sitemap_url)
    try:
        response = await client.send("PUT", target, data=b"", max_bytes=256 * 1024,
                                     headers={"Authorization": f"Bearer {token}"})
    except TransportError as exc:
        return SubmitResult("google", target, sitemap_url, False, None, f"no answer: {exc}")
    status = response.status
    if 200 <= status < 300:
        message = f"submitted for property {site_url}"
    else:
        default = "server error at Google; try again later" if status >= 500 else "unexpected answer"
        message = _MEANINGS.get(status, default).format(email=email, site=site_url) + _error_text(response.body)
    return SubmitResult("google", target, sitemap_url, 200 <= status < 300, status, message,
                        attempts=response.attempts)
