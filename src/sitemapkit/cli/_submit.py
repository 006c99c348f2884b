"""``sitemapkit submit``: tell search engines about URLs (IndexNow, Search Console, WebSub); and the
``--submit-state`` / ``--key`` options ``generate`` and ``crawl`` share to submit the changes of a run."""

from __future__ import annotations

import sys
from typing import Any

import click

from sitemapkit.cli._common import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_USAGE,
    check_sources,
    emit_json,
    fail,
    print_problem,
    quiet_option,
)
from sitemapkit.cli._fetchopts import fetch_options, settings_from
from sitemapkit.core import ConfigurationError, InvalidValueError, escape_controls
from sitemapkit.submit import DEFAULT_API_ROOT, DEFAULT_ENDPOINT, MAX_BATCH, SubmitOptions, SubmitResult, write_key_file
from sitemapkit.submit import submit as run_submit

__all__ = ["submit"]



@click.command("submit")
@click.argument("sources", nargs=-1, metavar="SOURCE...")
@click.option("--key", metavar="KEY", default=None,
              help="IndexNow key (8-128 of a-z A-Z 0-9 -): submit the URLs of the sources to IndexNow.")
@click.option("--key-location", metavar="URL", default=None,
              help="Where the key file is, when not at https://HOST/KEY.txt (sent as keyLocation for its host).")
@click.option("--endpoint", metavar="URL", default=DEFAULT_ENDPOINT, show_default=True,
              help="IndexNow endpoint (the shared one passes URLs on to every participating engine).")
@click.option("--no-key-check", is_flag=True,
              help="Do not fetch the key file before submitting (it is checked by default).")
@click.option("--new-key", metavar="DIR", type=click.Path(file_okay=False), default=None,
              help="Make a new IndexNow key, write DIR/KEY.txt and print the key (nothing is sent).")
@click.option("--state", metavar="FILE", type=click.Path(dir_okay=False), default=None,
              help="SQLite file remembering what was submitted: only added, changed and removed URLs are sent.")
@click.option("--dry-run", is_flag=True, help="Print what would be sent; send nothing (no key file check either).")
@click.option("--google-credentials", metavar="FILE", type=click.Path(dir_okay=False, exists=True), default=None,
              help="Service-account JSON key: submit the sitemap URLs given to Google Search Console "
                   "(needs the google extra: pip install 'sitemapkit[google]').")
@click.option("--google-property", metavar="PROPERTY", default=None,
              help="Search Console property, e.g. https://example.com/ or sc-domain:example.com "
                   "(default: scheme://host/ of each sitemap URL).")
@click.option("--google-api-root", metavar="URL", default=DEFAULT_API_ROOT, show_default=True,
              help="Root URL of the Search Console API.")
@click.option("--google-token-uri", metavar="URL", default=None,
              help="OAuth token endpoint (default: the token_uri of the credentials file).")
@click.option("--websub", is_flag=True,
              help="The sources are RSS/Atom feeds: notify their hubs (found in Link headers or the feed).")
@click.option("--websub-hub", metavar="URL", default=None,
              help="Notify this WebSub hub about the feeds given (implies --websub).")
@click.option("--batch-size", type=click.IntRange(1, MAX_BATCH), default=MAX_BATCH, show_default=True, metavar="N",
              help="URLs per IndexNow request.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text: one line per request; json: one object with every result.")
@quiet_option
@fetch_options
def submit(sources: tuple[str, ...], key: str | None, key_location: str | None, endpoint: str, no_key_check: bool,
           new_key: str | None, state: str | None, dry_run: bool, google_credentials: str | None,
           google_property: str | None, google_api_root: str, google_token_uri: str | None, websub: bool,
           websub_hub: str | None, batch_size: int, fmt: str, quiet: bool = False, **fetch: Any) -> None:
    """Tell search engines about URLs: IndexNow (Bing, Yandex, Naver, Seznam, ...), Google Search Console and
    WebSub hubs. SOURCE is anything `urls` reads (files, folders' sitemaps, sitemap or site URLs, feeds), or -
    for a list of URLs on standard input. Nothing is sent unless --key, --google-credentials or --websub asks.

    IndexNow: URLs are grouped by host and POSTed in batches of at most 10,000, after checking that the key
    file is served with exactly the key. 429 and 5xx answers are retried (backoff, Retry-After). With --state,
    only what changed since the last run is sent, removed URLs included.

    Search Console: each SOURCE that is a sitemap URL is submitted (sitemaps.submit) for its property.
    WebSub: each SOURCE is a feed (such as `diff --format atom` writes); its hubs get hub.mode=publish.

    One line per request on standard output; exit status 1 when any request failed.

    \b
    Example:
      sitemapkit submit --new-key public/
      sitemapkit submit public/sitemap.xml --key KEY --state submit.sqlite
      sitemapkit submit https://example.com/sitemap.xml \\
          --google-credentials sa.json
      sitemapkit submit changes.atom --websub-hub https://hub.example/
    """
    if new_key is not None:
        if sources or key:
            raise click.UsageError("--new-key makes a key and does nothing else: give no SOURCE and no --key")
        try:
            path = write_key_file(new_key)
        except (ConfigurationError, InvalidValueError, OSError) as exc:
            fail(f"--new-key {new_key}: {exc}", EXIT_USAGE)
        key_text = path.stem
        if fmt == "json":
            emit_json({"key": key_text, "file": str(path)})
        else:
            click.echo(key_text)
            click.echo(f"Wrote {path}: serve it at https://YOUR-HOST/{path.name}, then submit with --key {key_text}",
                       err=True)
        sys.exit(EXIT_OK)
    if not sources:
        raise click.UsageError("give at least one SOURCE (or --new-key DIR)")
    check_sources(sources)
    options = SubmitOptions(
        key=key, key_location=key_location, endpoint=endpoint, check_key_file=not no_key_check, state=state,
        dry_run=dry_run, google_credentials=google_credentials, google_property=google_property,
        google_api_root=google_api_root, google_token_uri=google_token_uri, websub=websub or websub_hub is not None,
        websub_hub=websub_hub, batch_size=batch_size, settings=settings_from(fetch),
    )

    def on_result(result: SubmitResult) -> None:
        if fmt == "json":
            return
        click.echo(escape_controls(result.line()))
        if result.dry_run:
            for url in result.urls:
                click.echo(escape_controls(f"  {url}"))

    try:
        report = run_submit(sources, options, on_result=on_result, on_problem=print_problem)
    except (ConfigurationError, InvalidValueError) as exc:
        fail(str(exc), EXIT_USAGE)
    counts = report.counts_line()
    if fmt == "json":
        emit_json({"ok": report.ok, "dry_run": dry_run, "changes": report.counts,
                   "results": [r.to_dict(with_urls=dry_run) for r in report.results], "notes": report.notes})
    else:
        if counts is not None and not quiet:
            click.echo(f"sitemapkit: {counts}", err=True)
        if not report.results and not quiet:
            click.echo("sitemapkit: nothing to send", err=True)
    for note in report.notes:
        click.echo(escape_controls(f"sitemapkit: {note}"), err=True)
    sys.exit(EXIT_OK if report.ok else EXIT_FAILURE)
