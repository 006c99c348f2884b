"""Names imported on first use: package faces (PEP 562), for the top level, ``sitemapkit.fetch`` and
``sitemapkit.crawl``, and the ``sitemapkit`` command group's commands.

``lazy_names(__name__, where)`` returns the ``__getattr__`` and ``__dir__`` of a package whose public names live in
the submodules ``where`` maps them to; :class:`LazyImports` is a mapping whose values are imported when first
looked up. This is the package's one lazy mechanism (tests/core pins that no other module defines a module-level
``__getattr__`` or swaps a module's class)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import Any, TypeVar

__all__ = ["LazyImports", "lazy_names"]

T = TypeVar("T")


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


class LazyImports(MutableMapping[str, T]):
    """A mapping whose values are imported on first use: ``sitemapkit urls`` loads the ``urls`` command's module
    and what it needs, not the crawler, the web app or the validator (their imports are most of a command's
    start-up time). ``specs`` maps a key to ``(module, attribute)``; ``on_load`` sees each value once, when it is
    imported. Listing the keys imports nothing; a value set directly is kept as it is."""

    def __init__(self, specs: Mapping[str, tuple[str, str]], on_load: Callable[[T], None]) -> None:
        self._specs = dict(specs)
        self._loaded: dict[str, T] = {}
        self._on_load = on_load

    def __getitem__(self, name: str) -> T:
        if name in self._loaded:
            return self._loaded[name]
        module, attr = self._specs[name]  # KeyError for an unknown name, as a dict
        value: T = getattr(importlib.import_module(module), attr)
        self._on_load(value)
        self._loaded[name] = value
        return value

    def __setitem__(self, name: str, value: T) -> None:
        self._specs.pop(name, None)
        self._loaded[name] = value

    def __delitem__(self, name: str) -> None:
        if self._specs.pop(name, None) is None and name not in self._loaded:
            raise KeyError(name)
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter({**dict.fromkeys(self._specs), **dict.fromkeys(self._loaded)})

    def __len__(self) -> int:
        return len(self._specs.keys() | self._loaded.keys())

    def __contains__(self, name: object) -> bool:
        return name in self._specs or name in self._loaded
