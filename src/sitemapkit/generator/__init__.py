"""The generate job: a sitemap set published from inputs of every kind (``sitemapkit generate`` in Python).

::

    from sitemapkit import generate

    result = generate(["urls.csv", "_site/"], "public/", base_url="https://example.com/", gzip=True)
    result.manifest.entry_point, result.errors, result.counts

Inputs are URL lists (text, CSV, JSONL, ``"-"``), XML sitemaps, indexes and RSS/Atom feeds, built static-site
folders (pages judged for robots.txt, noindex and canonical; honest lastmod with a ``state`` file or from git
history, :func:`read_git_dates`) and partitioned
data (Parquet, or folders of CSV / JSONL with ``workers``, on Dask). It publishes exactly what the command line
publishes, which only parses options and prints.
"""

from __future__ import annotations

from sitemapkit.generator._gitdates import GitDate, GitDates, read_git_dates
from sitemapkit.generator._inputs import iter_generate_inputs, iter_generate_runs
from sitemapkit.generator._job import CAP, GenerateResult, Generation, generate
from sitemapkit.generator._site import LASTMOD_SOURCES, SHOWN, Exclusion, SiteState

__all__ = [
    "CAP",
    "LASTMOD_SOURCES",
    "SHOWN",
    "Exclusion",
    "GenerateResult",
    "Generation",
    "GitDate",
    "GitDates",
    "SiteState",
    "generate",
    "iter_generate_inputs",
    "iter_generate_runs",
    "read_git_dates",
]
