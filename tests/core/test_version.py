"""One version: pyproject.toml's, the package's ``__version__`` and the one the HTTP client's User-Agent names."""

from __future__ import annotations

import tomllib
from pathlib import Path

import sitemapkit
from sitemapkit.fetch import DEFAULT_USER_AGENT


def test_the_version_is_pyproject_s() -> None:
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8"))
    assert sitemapkit.__version__ == project["project"]["version"]
    assert DEFAULT_USER_AGENT.startswith(f"sitemapkit/{sitemapkit.__version__} ")
