"""The declaration of an option shared by several front ends (:class:`OptionSpec`): the crawl layer's
``CRAWL_OPTION_SPECS`` and the fetch layer's ``FETCH_OPTION_SPECS`` are tables of them, and so is
:data:`HINT_OPTION_SPECS` (changefreq and priority: ``generate``, ``crawl`` and the web app)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sitemapkit.core._hinthelp import HINT_HELP
from sitemapkit.core._model import Changefreq

__all__ = ["HINT_OPTION_SPECS", "OptionSpec"]


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


#: changefreq and priority for the sitemap's URLs: ``generate``, ``crawl`` and the web app take the same three (see
#: :mod:`sitemapkit.core._hints`).
HINT_OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec("changefreq", "choice", None, HINT_HELP["changefreq"], choices=tuple(c.value for c in Changefreq),
               sitemap=True),
    OptionSpec("priority", "text", None, HINT_HELP["priority"], "VALUE", sitemap=True),
    OptionSpec("rule", "rules", (), HINT_HELP["rule"], "RULE", sitemap=True),
)
