"""Search Console: a service account's signed assertion buys a token at the token endpoint; each sitemap URL is
PUT to sitemaps.submit (a local API plays Google)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.submit._searchconsole import SCOPE, sitemap_api_url
from tests.submit.submit_engines import SearchConsole, make_service_account
from tests.support.server import LocalServer


@pytest.fixture
def google(tmp_path: Path) -> Iterator[tuple[SearchConsole, Path]]:
    with LocalServer() as srv:
        info, public = make_service_account(srv.url("/token"))
        api = SearchConsole(srv, public)
        creds = tmp_path / "sa.json"
        creds.write_text(json.dumps(info), encoding="utf-8")
        yield api, creds


def _submit(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["submit", *args])
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    return result.exit_code, result.stdout, result.stderr


def test_api_url_encodes_both_parameters() -> None:
    assert (sitemap_api_url("https://api.test/", "sc-domain:example.com", "https://example.com/s.xml?a=1")
            == "https://api.test/webmasters/v3/sites/sc-domain%3Aexample.com/sitemaps/"
               "https%3A%2F%2Fexample.com%2Fs.xml%3Fa%3D1")


def test_sitemaps_are_submitted_for_their_property(google: tuple[SearchConsole, Path]) -> None:
    api, creds = google
    api.owned.add("https://example.com/")
    code, out, _ = _submit("https://example.com/sitemap.xml", "https://example.com/news.xml", "--google-credentials",
                           str(creds), "--google-api-root", api.server.base, "-q")
    assert code == 0, out
    assert api.submitted == [("https://example.com/", "https://example.com/sitemap.xml"),
                             ("https://example.com/", "https://example.com/news.xml")]
    assert len(api.assertions) == 1  # one token for the run
    claims = api.assertions[0]
    assert claims["scope"] == SCOPE
    assert claims["iss"] == "robot@proj.iam.gserviceaccount.com"
    assert claims["aud"] == api.server.url("/token")
    assert out.count("google https://example.com/") == 2
    assert "ok: 200" in out


def test_a_property_the_account_cannot_use_fails_with_the_reason(google: tuple[SearchConsole, Path]) -> None:
    api, creds = google
    code, out, _ = _submit("https://example.com/sitemap.xml", "--google-credentials", str(creds),
                           "--google-property", "sc-domain:example.com", "--google-api-root", api.server.base, "-q")
    assert code == 1
    assert api.submitted == []
    assert "FAILED: 403" in out
    assert "robot@proj.iam.gserviceaccount.com is not an owner or full user of property sc-domain:example.com" in out
    assert "sufficient permission" in out  # the API's own words follow


def test_token_uri_can_be_overridden(google: tuple[SearchConsole, Path], tmp_path: Path) -> None:
    api, creds = google
    api.owned.add("https://example.com/")
    info = json.loads(creds.read_text(encoding="utf-8"))
    info["token_uri"] = "https://oauth2.googleapis.com/token"  # never reached: the option wins
    creds.write_text(json.dumps(info), encoding="utf-8")
    code, out, _ = _submit("https://example.com/sitemap.xml", "--google-credentials", str(creds),
                           "--google-api-root", api.server.base, "--google-token-uri", api.server.url("/token"), "-q")
    assert code == 0, out
    assert api.assertions[0]["aud"] == api.server.url("/token")


def test_a_refused_token_is_reported(google: tuple[SearchConsole, Path]) -> None:
    api, creds = google
    other_info, _ = make_service_account(api.server.url("/token"))  # signed with a key the server does not know
    creds.write_text(json.dumps(other_info), encoding="utf-8")
    code, out, _ = _submit("https://example.com/sitemap.xml", "--google-credentials", str(creds),
                           "--google-api-root", api.server.base, "-q")
    assert code == 1
    assert "refused the service account" in out
    assert "Invalid JWT Signature" in out
    assert api.submitted == []


def test_a_file_is_not_a_sitemap_url(google: tuple[SearchConsole, Path], tmp_path: Path) -> None:
    api, creds = google
    local = tmp_path / "sitemap.xml"
    local.write_text("<urlset/>", encoding="utf-8")
    code, out, _ = _submit(str(local), "--google-credentials", str(creds), "--google-api-root", api.server.base)
    assert code == 1
    assert "takes a sitemap's public URL, not a file" in out
    assert api.server.requests == []


@pytest.mark.parametrize(("content", "words"), [
    ("not json", "not JSON"),
    ('{"type": "authorized_user"}', "not a service-account key file"),
    ('{"type": "service_account", "client_email": "x@y"}', "missing private_key, token_uri"),
])
def test_bad_credentials_files_are_usage_errors(tmp_path: Path, content: str, words: str) -> None:
    creds = tmp_path / "sa.json"
    creds.write_text(content, encoding="utf-8")
    code, _, err = _submit("https://example.com/sitemap.xml", "--google-credentials", str(creds))
    assert code == 2
    assert f"--google-credentials {creds}: {words}" in err
