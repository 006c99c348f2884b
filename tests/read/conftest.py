"""Shared helpers of the reader tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.corpus import CORPUS, require_corpus

__all__ = ["CORPUS", "corpus"]


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The shared corpus; the test is skipped (one reason for all, see tests/support/corpus.py) without it."""
    return require_corpus()
