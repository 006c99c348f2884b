"""The writer's public names, and the output options other commands reuse."""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

import sitemapkit
from sitemapkit.cli._outputs import OutputOptions, output_options


def test_writer_exports_are_pinned() -> None:
    expected = {"write_sitemaps", "SitemapSetWriter", "Manifest", "SitemapFile", "UrlsetWriter", "IndexWriter",
                "TextWriter", "HtmlWriter", "Extension", "escape"}
    assert expected <= set(sitemapkit.write.__all__)
    for name in expected:
        assert getattr(sitemapkit.write, name).__module__.startswith("sitemapkit.write._")
    assert {"write_sitemaps", "SitemapSetWriter", "Manifest"} <= set(sitemapkit.__all__)


def test_output_options_can_decorate_another_command(tmp_path: Path) -> None:
    seen: list[OutputOptions] = []

    @click.command()
    @output_options
    def other(output: OutputOptions) -> None:
        seen.append(output)

    res = CliRunner().invoke(other, ["--out", str(tmp_path), "--gzip", "--format", "xml", "--format", "html",
                                     "--urls-per-file", "10", "--xsl", "default"])
    assert res.exit_code == 0, res.output
    [opts] = seen
    assert opts.base_url is None
    assert opts.writer_kwargs() == {"gzip": True, "max_urls": 10, "max_bytes": 52_428_800,
                                    "formats": ("xml", "html"), "xsl": "default"}
    w = sitemapkit.SitemapSetWriter(opts.out, "https://example.com/", **opts.writer_kwargs())
    w.add(sitemapkit.UrlEntry("https://example.com/"))
    manifest = w.close()
    assert {f.path.name for f in manifest.files} == {"sitemap.xml.gz", "sitemap.html", "sitemap.xsl"}
