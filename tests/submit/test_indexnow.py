"""IndexNow: keys, key files, batching by host, the engine's answers (a local endpoint that checks key files)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli
from sitemapkit.core import InvalidValueError
from sitemapkit.fetch import HttpClient
from sitemapkit.submit._indexnow import MAX_BATCH, check_key, new_key, plan_batches, status_meaning
from tests.submit.submit_engines import IndexNowEngine
from tests.support.server import LocalServer, Response

KEY = "0123456789abcdef0123456789abcdef"
FAST = ["--retry-backoff", "0", "--quiet"]


@pytest.fixture
def site() -> Iterator[LocalServer]:
    with LocalServer() as srv:
        srv.route(f"/{KEY}.txt", KEY + "\n", content_type="text/plain")
        yield srv


@pytest.fixture
def engine() -> Iterator[IndexNowEngine]:
    with LocalServer() as srv:
        yield IndexNowEngine(srv)


def _url_list(tmp_path: Path, urls: list[str]) -> str:
    path = tmp_path / "urls.txt"
    path.write_text("".join(u + "\n" for u in urls), encoding="utf-8")
    return str(path)


def _submit(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["submit", *args])
    assert "Traceback" not in result.output + result.stderr, result.stderr
    return result.exit_code, result.stdout, result.stderr


# ---------------------------------------------------------------------------------------------------- keys


@pytest.mark.parametrize("key", ["abcd1234", "A-b-C-d-1-2-3-4", "x" * 128, "new_key()"])
def test_valid_keys(key: str) -> None:
    if key == "new_key()":  # made here, not at collection: every test process collects the same ids
        key = new_key()
    assert check_key(key) == key


@pytest.mark.parametrize("key", ["short1", "x" * 129, "has space1", "under_score", "ümlautkey"])
def test_invalid_keys(key: str) -> None:
    with pytest.raises(InvalidValueError, match="IndexNow key"):
        check_key(key)


def test_new_key_writes_the_key_file(tmp_path: Path) -> None:
    code, out, _ = _submit("--new-key", str(tmp_path / "public"))
    key = out.strip()
    assert code == 0
    assert len(key) == 32
    assert all(c in "0123456789abcdef" for c in key)
    assert (tmp_path / "public" / f"{key}.txt").read_text(encoding="ascii") == key
    code2, out2, _ = _submit("--new-key", str(tmp_path / "public"))
    assert code2 == 0
    assert out2.strip() != key


def test_bad_key_is_a_usage_error(tmp_path: Path, engine: IndexNowEngine) -> None:
    code, _, err = _submit(_url_list(tmp_path, ["http://example.test/a"]), "--key", "no", "--endpoint", engine.url)
    assert code == 2
    assert "not an IndexNow key" in err
    assert engine.posts == 0


def test_nothing_asked_sends_nothing(tmp_path: Path) -> None:
    code, _, err = _submit(_url_list(tmp_path, ["http://example.test/a"]))
    assert code == 2
    assert "nothing to submit to" in err


# ---------------------------------------------------------------------------------------------------- batches


def test_batches_group_by_host_and_hold_at_most_10000() -> None:
    urls = [f"https://a.test/{i}" for i in range(MAX_BATCH + 1)] + ["http://b.test:8080/x", "https://a.test/y"]
    batches = plan_batches(urls, KEY, key_location="https://b.test:8080/keys/k.txt")
    assert [(b.host, len(b.urls)) for b in batches] == [("a.test", MAX_BATCH), ("a.test", 2), ("b.test:8080", 1)]
    assert batches[0].key_location is None
    assert batches[0].check_location == f"https://a.test/{KEY}.txt"
    assert batches[2].key_location == batches[2].check_location == "https://b.test:8080/keys/k.txt"
    payload = json.loads(batches[2].payload(KEY))
    assert payload == {"host": "b.test:8080", "key": KEY, "keyLocation": "https://b.test:8080/keys/k.txt",
                       "urlList": ["http://b.test:8080/x"]}


def test_the_403_meaning_names_the_key_file() -> None:
    assert "https://a.test/k.txt" in status_meaning(403, location="https://a.test/k.txt")
    assert "a.test" in status_meaning(422, host="a.test")


# ---------------------------------------------------------------------------------------------------- the engine


def test_submission_is_accepted(tmp_path: Path, site: LocalServer, engine: IndexNowEngine) -> None:
    urls = [site.url(f"/p{i}") for i in range(3)]
    code, out, _ = _submit(_url_list(tmp_path, urls), "--key", KEY, "--endpoint", engine.url, *FAST)
    assert code == 0, out
    assert engine.received() == urls
    assert engine.batches[0]["host"] == f"127.0.0.1:{site.port}"
    assert "202" in out
    assert "ok" in out
    assert site.hits(f"/{KEY}.txt") == 2  # our check, then the engine's


def test_429_with_retry_after_is_retried(tmp_path: Path, site: LocalServer, engine: IndexNowEngine) -> None:
    engine.queued.append(Response(429, headers={"Retry-After": "1"}))
    code, out, _ = _submit(_url_list(tmp_path, [site.url("/a")]), "--key", KEY, "--endpoint", engine.url, *FAST)
    assert code == 0, out
    assert engine.posts == 2
    assert engine.received() == [site.url("/a")]
    assert "after 2 attempts" in out


def test_persistent_5xx_fails_after_retries(tmp_path: Path, site: LocalServer, engine: IndexNowEngine) -> None:
    engine.queued.extend(Response(503) for _ in range(3))
    code, out, _ = _submit(_url_list(tmp_path, [site.url("/a")]), "--key", KEY, "--endpoint", engine.url,
                           "--retries", "2", *FAST)
    assert code == 1
    assert engine.posts == 3
    assert "FAILED: 503" in out


def test_403_from_the_engine_names_the_key_file(tmp_path: Path, engine: IndexNowEngine) -> None:
    with LocalServer() as bare:  # serves no key file
        code, out, _ = _submit(_url_list(tmp_path, [bare.url("/a")]), "--key", KEY, "--endpoint", engine.url,
                               "--no-key-check", *FAST)
    assert code == 1
    assert "FAILED: 403" in out
    assert f"{bare.base}/{KEY}.txt" in out


@pytest.mark.parametrize(("status", "words"), [(400, "malformed"), (422, "do not belong to host")])
def test_400_and_422_are_explained(tmp_path: Path, site: LocalServer, engine: IndexNowEngine, status: int,
                                   words: str) -> None:
    engine.queued.append(Response(status))
    code, out, _ = _submit(_url_list(tmp_path, [site.url("/a")]), "--key", KEY, "--endpoint", engine.url, *FAST)
    assert code == 1
    assert f"FAILED: {status}" in out
    assert words in out


def test_key_file_with_another_content_stops_before_sending(tmp_path: Path, engine: IndexNowEngine) -> None:
    with LocalServer() as other:
        other.route(f"/{KEY}.txt", "someone-elses-key", content_type="text/plain")
        code, out, _ = _submit(_url_list(tmp_path, [other.url("/a")]), "--key", KEY, "--endpoint", engine.url,
                               *FAST)
    assert code == 1
    assert engine.posts == 0
    assert f"key file {other.base}/{KEY}.txt does not hold exactly the key" in out


def test_key_location_is_checked_and_sent(tmp_path: Path, engine: IndexNowEngine) -> None:
    with LocalServer() as srv:
        srv.route("/keys/mine.txt", KEY, content_type="text/plain")
        code, out, _ = _submit(_url_list(tmp_path, [srv.url("/keys/a")]), "--key", KEY, "--endpoint", engine.url,
                               "--key-location", srv.url("/keys/mine.txt"), *FAST)
        assert srv.hits(f"/{KEY}.txt") == 0
    assert code == 0, out
    assert engine.batches[0]["keyLocation"] == srv.url("/keys/mine.txt")


def test_json_output(tmp_path: Path, site: LocalServer, engine: IndexNowEngine) -> None:
    code, out, _ = _submit(_url_list(tmp_path, [site.url("/a"), site.url("/b")]), "--key", KEY, "--endpoint",
                           engine.url, "--format", "json", *FAST)
    data = json.loads(out)
    assert code == 0
    assert data["ok"] is True
    assert [(r["channel"], r["status"], r["count"]) for r in data["results"]] == [("indexnow", 202, 2)]


def test_dry_run_sends_nothing(tmp_path: Path, site: LocalServer, engine: IndexNowEngine) -> None:
    code, out, _ = _submit(_url_list(tmp_path, [site.url("/a"), site.url("/b")]), "--key", KEY, "--endpoint",
                           engine.url, "--dry-run", *FAST)
    assert code == 0
    assert engine.server.requests == []
    assert site.requests == []
    assert "would POST 2 URLs" in out
    assert f"  {site.url('/a')}" in out.splitlines()


def test_key_check_respects_the_address_policy(tmp_path: Path, engine: IndexNowEngine) -> None:
    # The endpoint the user gave (loopback) is the seed: a private address taken from the URL list is refused.
    code, out, _ = _submit(_url_list(tmp_path, ["http://10.255.255.1/a"]), "--key", KEY, "--endpoint", engine.url,
                           *FAST)
    assert code == 1
    assert engine.posts == 0
    assert "refused: 10.255.255.1 is a private address" in out


# ---------------------------------------------------------------------------------------------------- the client


def test_client_send_posts_the_body_and_skips_the_cache(tmp_path: Path) -> None:
    with LocalServer() as srv:
        srv.route("/in", handler=lambda req: Response(200, req.body[::-1], {"ETag": '"x"'}))

        async def go() -> tuple[int, bytes, int]:
            async with HttpClient(cache=tmp_path / "cache") as client:
                first = await client.send("POST", srv.url("/in"), data=b"hello",
                                          headers={"Content-Type": "text/plain"})
                second = await client.send("PUT", srv.url("/in"), data=b"abc")
                return first.status, first.body + second.body, len(list((tmp_path / "cache").rglob("*.*")))

        status, bodies, cached = asyncio.run(go())
    assert status == 200
    assert bodies == b"ollehcba"
    assert [r.method for r in srv.requests] == ["POST", "PUT"]
    assert [r.body for r in srv.requests] == [b"hello", b"abc"]
    assert "if-none-match" not in srv.requests[1].headers
    assert cached == 0
