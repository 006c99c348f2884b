"""``sitemapkit web``: the web app (crawl with a live view, downloads, check, discover, history) on this
machine. Only adapts :mod:`sitemapkit.web` (imported when the command runs: it needs the ``web`` extra)."""

from __future__ import annotations

from pathlib import Path

import click

from sitemapkit.cli._common import EXIT_USAGE, fail

__all__ = ["web"]


@click.command("web")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. Another address than loopback needs --token.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, metavar="PORT",
              help="Port to listen on; 0 takes a free one (the page's address is printed).")
@click.option("--token", default=None, metavar="TOKEN",
              help="Secret every request must carry (?token= once, a cookie, or Authorization: Bearer). "
                   "Required with a non-loopback --host.")
@click.option("--no-browser", is_flag=True, help="Do not open the page in the browser.")
@click.option("--data-dir", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Where the crawl history and files are kept (default: the user data directory, e.g. "
                   "~/.local/share/sitemapkit/web).")
def web(host: str, port: int, token: str | None, no_browser: bool, data_dir: str | None) -> None:
    """Start the web app: type a site's address, watch the crawl live, download the sitemaps and the
    report, check a sitemap, discover a site's sitemaps. Crawls are kept and can be resumed.

    The page is built on a JSON API (see the README, "Web app"). Ctrl-C stops the server; running
    crawls are paused and can be resumed after a restart.

    \b
    Example:
      sitemapkit web
      sitemapkit web --port 9000 --no-browser
      sitemapkit web --host 0.0.0.0 --token s3cret-token
    """
    try:
        from sitemapkit.web import WebSettings, check_bind, run
    except ImportError as exc:
        fail(f"sitemapkit web needs the web extra: pip install 'sitemapkit[web]' ({exc})", EXIT_USAGE)
    from sitemapkit.core import ConfigurationError

    try:
        check_bind(host, token)
    except ConfigurationError as exc:
        fail(str(exc), EXIT_USAGE)
    settings = WebSettings(host=host, port=port, token=token, data_dir=Path(data_dir) if data_dir else None)
    try:
        run(settings, open_browser=not no_browser)
    except OSError as exc:
        fail(f"cannot start the server on {host}:{port}: {exc.strerror or exc}", EXIT_USAGE)
