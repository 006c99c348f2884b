"""``sitemapkit harvest``: the sitemaps of many hosts on Dask into a Parquet dataset (a thin adapter over
:mod:`sitemapkit.harvest`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    Progress,
    quiet_option,
    stderr_console,
)
from sitemapkit.cli._fetchopts import fetch_options, settings_from
from sitemapkit.core import MAX_CONCURRENCY, MAX_WORKERS

__all__ = ["harvest"]


@click.command("harvest")
@click.argument("hosts_file", metavar="HOSTS", type=click.File("r", encoding="utf-8", errors="replace"))
@click.option("--out", "-o", "out", required=True, metavar="DIR", type=click.Path(file_okay=False),
              help="Output directory: DIR/urls (Parquet, one partition per host) and DIR/hosts.parquet.")
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=2, show_default=True, metavar="N",
              help=f"Workers of the local Dask cluster (at most {MAX_WORKERS}; ignored with --scheduler).")
@click.option("--threads", type=click.IntRange(1, MAX_CONCURRENCY), default=4, show_default=True, metavar="N",
              help=f"Hosts fetched at the same time by each local worker (at most {MAX_CONCURRENCY}).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Address of a running Dask scheduler (tcp://host:8786) instead of a local cluster; "
                   "DIR must be on a filesystem every worker shares.")
@click.option("--processes/--no-processes", default=True, show_default=True,
              help="Local workers as processes, or as threads of this process (quicker to start).")
@click.option("--dashboard", metavar="ADDRESS", default=None,
              help="Serve the local cluster's Dask dashboard there (e.g. :8787; needs bokeh).")
@click.option("--refresh", is_flag=True,
              help="Fetch complete hosts again, with conditional requests (ETag / Last-Modified): an unchanged "
                   "sitemap costs a 304.")
@click.option("--host-timeout", type=click.FloatRange(min=0.01), metavar="S", default=None,
              help="Give up on a host after S seconds in all (it is then a failed row).")
@quiet_option
@fetch_options
def harvest(hosts_file: Any, out: str, workers: int, threads: int, scheduler: str | None, processes: bool,
            dashboard: str | None, refresh: bool, host_timeout: float | None, quiet: bool, **fetch: Any) -> None:
    """Harvest the sitemaps of many hosts on Dask into a Parquet dataset.

    HOSTS is a file of sites, sitemap URLs or host names, one a line ('-' for
    standard input; '#' starts a comment). Lines of one host are one job: its
    robots.txt and discovery (for site URLs), then the safe walk with every
    fetch limit. Hosts are spread over the workers by a hash of the host, so
    one host is fetched by one worker (its per-host limits hold).

    DIR/urls is a Parquet dataset partitioned by host (host=...), one row per
    URL with every field (images, videos, news, alternates as nested lists),
    lastmod as written and as a UTC timestamp, the sitemap it came from and the
    host. DIR/hosts.parquet has one row per host: status, sitemaps and how
    they were found, URLs, bytes, time, problems with their codes. A host that
    fails (timeouts, 5xx, bombs, garbage) is a failed row, not a failed job.

    A run skips hosts whose partition is complete (failed hosts are tried
    again); --refresh fetches them again with conditional requests. Exit status
    1 when a host failed or a line of HOSTS was not understood.

    \b
    Example:
      sitemapkit harvest hosts.txt --out harvest/ --workers 4
      sitemapkit harvest hosts.txt -o harvest/ --scheduler tcp://10.0.0.1:8786
      sitemapkit harvest hosts.txt -o harvest/ --refresh
      sitemapkit generate harvest/ --out public --base-url https://a.example/
    """
    from sitemapkit.harvest import HarvestOptions, HarvestStats, read_hosts
    from sitemapkit.harvest import harvest as run_harvest

    name = "<stdin>" if hosts_file.name == "<stdin>" else str(hosts_file.name)
    jobs, bad = read_hosts(hosts_file, name)
    for line in bad:
        click.echo(f"sitemapkit: {line}", err=True)
    if not jobs:
        raise click.UsageError(f"{name} names no host (one site, sitemap URL or host name a line)")
    options = HarvestOptions(Path(out), settings_from(fetch), workers=workers, threads=threads,
                             scheduler=scheduler, processes=processes, dashboard=dashboard, refresh=refresh,
                             host_timeout=host_timeout)
    stats = HarvestStats()
    console = stderr_console()

    def on_row(row: dict[str, Any], _st: HarvestStats) -> None:
        if not quiet and row["status"] != "ok":
            first = next((p for p in row["problems"] if p["severity"] == "error"), None)
            why = f": {first['code']} {first['message']}" if first else ""
            console.print(f"failed {row['host']}{why}", markup=False, highlight=False)

    with Progress(stats.describe, quiet=quiet):
        result = run_harvest(jobs, options, on_row=on_row, stats=stats)
    if result.dashboard and not quiet:
        console.print(f"dashboard: {result.dashboard}", markup=False)
    click.echo(stats.summary())
    click.echo(f"URLs: {result.urls_dir}  hosts: {result.hosts_path}")
    sys.exit(EXIT_FAILURE if stats.failed or bad else EXIT_OK)
