"""The declaration of an option shared by several front ends (:class:`OptionSpec`): the crawl layer's
``CRAWL_OPTION_SPECS`` and the fetch layer's ``FETCH_OPTION_SPECS`` are tables of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["OptionSpec"]


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option as every front end shows it: the commands (as ``--<name>`` with dashes) and the web app (as the
    JSON / form field ``name``) take its name, default, bounds and help from here, so the option means the same
    everywhere (the crawl options: ``crawl``, ``audit`` and the web form; the fetch options: every command that
    fetches sitemaps).

    ``kind``: ``int`` / ``float`` (a number within ``low``..``high``; ``high`` None: no upper bound), ``patterns``
    (repeatable regular expressions), ``names`` (repeatable words), ``rules`` (repeatable ``--rule`` strings),
    ``choice`` (one of ``choices``), ``flag`` (off unless given), ``dir`` (a folder's path) or ``text``.
    ``metavar`` is what the help shows for the value. ``sitemap``: the option shapes the sitemap written, not the
    crawl (``audit`` leaves it out)."""

    name: str
    kind: str
    default: Any
    help: str
    metavar: str | None = None
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    sitemap: bool = False

    @property
    def flag(self) -> str:
        """The command-line spelling, e.g. ``--max-pages``."""
        return "--" + self.name.replace("_", "-")
