"""Options that were renamed so that one name has one meaning across commands (issue 23): the old spelling is a
hidden option that stops with a usage error naming the new one (click's own "no such option" rarely guesses it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = ["renamed_option"]

F = TypeVar("F", bound=Callable[..., Any])


def renamed_option(old: str, new: str, *, is_flag: bool = False) -> Callable[[F], F]:
    """A hidden ``old`` option that refuses to run: ``old`` is now ``new`` (exit status 2)."""

    def refuse(ctx: click.Context, _param: click.Parameter, value: Any) -> None:
        if value not in (None, False, ()):
            raise click.UsageError(f"{old} was renamed {new} (see --help)", ctx)

    return click.option(old, f"renamed_{old.lstrip('-').replace('-', '_')}", hidden=True, expose_value=False,
                        is_flag=is_flag, multiple=not is_flag, callback=refuse)
