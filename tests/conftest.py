"""Fixtures shared by every test area."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, settings

from tests.support.corpus import SHARED, require_corpus
from tests.support.server import LocalServer

ROOT = Path(__file__).resolve().parent.parent
XSD_DIR = ROOT / "src" / "sitemapkit" / "validate" / "schemas"

# Property tests judge results, never speed: no per-example deadline and no "too slow" health check, so a busy
# machine (CI shares its cores) cannot fail them.
settings.register_profile("sitemapkit", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sitemapkit")


@pytest.fixture(scope="session", autouse=True)
def _private_user_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Nothing a test runs (the CLI in subprocesses too) writes into the real user cache (crawl state files)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
        yield


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared next to the checkout (spec, corpus). Tests that need it skip without it (one reason for all)."""
    require_corpus()
    return SHARED


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """A real HTTP server on 127.0.0.1 with per-test routes."""
    with LocalServer() as srv:
        yield srv


@pytest.fixture
def cli_runner() -> CliRunner:
    return CliRunner()
