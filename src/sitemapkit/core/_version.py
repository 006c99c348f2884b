"""The package's version, in one place below every layer (the top-level ``__version__``, the HTTP client's
User-Agent). ``tests/core/test_version.py`` pins it to pyproject.toml's."""

from __future__ import annotations

__all__ = ["VERSION"]

VERSION = "0.1.0"
