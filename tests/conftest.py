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


#: Where a user's files go: HOME and the XDG base directories (platformdirs reads them on Linux: the crawl state
#: cache, the web app's data, and what other programs the tests start keep, such as Chromium's profile).
PRIVATE_HOME_VARS = ("XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")


def _sitemapkit_files(dirs: list[Path]) -> dict[str, tuple[int, int]]:
    """Every file under the ``sitemapkit`` folder of each user directory, with its size and mtime."""
    seen: dict[str, tuple[int, int]] = {}
    for base in dirs:
        root = base / "sitemapkit"
        if root.exists():
            for path in [root, *root.rglob("*")]:
                st = path.lstat()
                seen[str(path)] = (st.st_size, st.st_mtime_ns)
    return seen


@pytest.fixture(scope="session", autouse=True)
def _private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The whole session (the CLI in subprocesses too) runs with HOME and the XDG user directories in a
    temporary folder: nothing is written into the real user's cache, data or config. At the end, the real
    user's sitemapkit folders are checked to be as they were."""
    import platformdirs

    real = [platformdirs.user_cache_path(), platformdirs.user_data_path(), platformdirs.user_config_path(),
            platformdirs.user_state_path()]
    before = _sitemapkit_files(real)
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        mp.setenv("XDG_CACHE_HOME", str(home / ".cache"))
        mp.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
        mp.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        mp.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
        yield
    after = _sitemapkit_files(real)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"the tests wrote into the real user directories: {changed[:10]}"


#: Test files whose tests share an expensive session or module fixture (the million-row table and its uvicorn
#: process, one reference crawl, one audit): with ``--dist loadgroup`` (scripts/test) each file runs in one test
#: process, so the fixture is built once, not once per process.
SHARED_FIXTURE_FILES = ("serve/test_frameworks.py", "crawl/test_crawl_e2e.py", "audit/test_audit_e2e.py",
                        "serve/test_cli_serve.py", "cli/test_urls_output.py")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        rel = item.path.relative_to(ROOT / "tests").as_posix()
        if rel in SHARED_FIXTURE_FILES:
            item.add_marker(pytest.mark.xdist_group(rel))


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
