"""Fixtures shared by every test area."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.server import LocalServer

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
XSD_DIR = ROOT / "src" / "sitemapkit" / "schemas"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """../shared next to the checkout (spec, corpora). Tests that need it skip loudly without it."""
    if not SHARED.is_dir():
        pytest.skip(f"shared material not found at {SHARED}")
    return SHARED


@pytest.fixture
def server() -> Iterator[LocalServer]:
    """A real HTTP server on 127.0.0.1 with per-test routes."""
    with LocalServer() as srv:
        yield srv


@pytest.fixture
def cli_runner() -> CliRunner:
    return CliRunner()
