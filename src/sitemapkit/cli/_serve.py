"""``sitemapkit serve DIR``: serve a published sitemap folder locally, with the headers the service sends."""

from __future__ import annotations

import click

from sitemapkit.cli._common import COMMON_EPILOG, EXIT_USAGE, fail
from sitemapkit.serve import DirectoryServer, serve_directory

__all__ = ["serve"]


@click.command("serve", epilog=COMMON_EPILOG)
@click.argument("directory", metavar="DIR", type=click.Path(file_okay=False, dir_okay=True, exists=True))
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. Keep the loopback default unless you mean to share the folder.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, metavar="PORT",
              help="Port to listen on (0: any free port; the URL is printed).")
@click.option("--cache-control", default="no-cache", show_default=True,
              help="Cache-Control header value ('' to send none).")
def serve(directory: str, host: str, port: int, cache_control: str) -> None:
    """Serve the files of DIR (a folder `generate` or `crawl` published) over HTTP, to check a deployment.

    GET and HEAD only, with strong ETags, Last-Modified, 304 answers, gzip when the client accepts it and
    X-Robots-Tag: noindex. Hidden files (the manifest) and paths leading out of the folder are not served.
    The URL is printed on standard output; Ctrl-C stops the server.

    \b
    Example:
      sitemapkit serve public/
      sitemapkit serve public/ --port 0 --cache-control "max-age=300"
    """
    app = DirectoryServer(directory, cache_control=cache_control or None)
    try:
        server = serve_directory(app, host, port)
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}", EXIT_USAGE)
    click.echo(server.url, nl=True)
    click.echo(f"serving {directory} (Ctrl-C to stop)", err=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()
