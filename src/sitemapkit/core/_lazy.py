"""Package faces whose names are imported on first use (PEP 562), for the top level and ``sitemapkit.fetch``.

``lazy_names(__name__, where)`` returns the ``__getattr__`` and ``__dir__`` of a package whose public names live in
the submodules ``where`` maps them to. This is the package's one lazy mechanism (tests/core pins that no other
module defines a module-level ``__getattr__`` or swaps a module's class)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_names"]


def lazy_names(module_name: str, where: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    def __getattr__(name: str) -> Any:
        source = where.get(name)
        if source is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(source), name)
        setattr(sys.modules[module_name], name, value)  # later lookups do not come here
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[module_name])) | set(where))

    return __getattr__, __dir__
