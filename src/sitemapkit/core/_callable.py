"""A layer package that is also the everyday function of the same name (``sitemapkit.validate``).

Importing the package ``sitemapkit.validate`` makes the import system bind the *package* as the attribute
``validate`` of ``sitemapkit``, over the function the top level exports. Giving that package a ``__call__`` that
forwards to its function keeps ``sitemapkit.validate(...)`` working whichever was imported first.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from typing import Any


def make_package_callable(module_name: str, function: Callable[..., Any]) -> None:
    """Make the module ``module_name`` callable as ``function`` (same signature, docstring and result)."""
    module = sys.modules[module_name]

    class _CallablePackage(types.ModuleType):
        __doc__ = module.__doc__

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return function(*args, **kwargs)

    module.__class__ = _CallablePackage
