"""``validate_sitemaps(..., on_progress=...)``: the counts a progress display shows (documents done, entries
checked, bytes read), called per document and at the end with the totals, also for documents fetched over HTTP."""

from __future__ import annotations

import gzip
from pathlib import Path

from sitemapkit.validate._driver import ValidateProgress, validate_sitemaps
from tests.support.server import LocalServer

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _urlset(n: int, prefix: str) -> bytes:
    body = "".join(f"<url><loc>https://example.com/{prefix}/{i}</loc></url>\n" for i in range(n))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()


def test_the_hook_sees_every_document_and_ends_with_the_totals(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(_urlset(3, "a"))
    (tmp_path / "b.xml.gz").write_bytes(gzip.compress(_urlset(5, "b")))
    (tmp_path / "c.txt").write_bytes(b"https://example.com/c/1\nhttps://example.com/c/2\n")
    seen: list[ValidateProgress] = []
    report = validate_sitemaps(tmp_path, on_progress=seen.append, profile="sitemaps")
    assert report.passes()
    stored = sum(p.stat().st_size for p in tmp_path.iterdir())  # as stored: the gzip file compressed
    assert seen[-1] == ValidateProgress(files_done=3, entries=10, bytes_read=stored, current=None)
    assert [p.files_done for p in seen[:3]] == [1, 2, 3]  # one call as each document is done
    assert sorted(p.entries for p in seen[:3]) == [p.entries for p in seen[:3]]
    assert sorted(p.entries for p in seen[:3])[-1] == 10


def test_the_hook_counts_documents_fetched_over_http(server: LocalServer) -> None:
    body = _urlset(4, "x")
    server.route("/sitemap.xml", body=body, headers={"Content-Type": "application/xml"})
    seen: list[ValidateProgress] = []
    report = validate_sitemaps(server.url("/sitemap.xml"), on_progress=seen.append, profile="sitemaps",
                               allow_cross_host=True)
    assert [f.entries for f in report.files] == [4]
    assert seen[-1] == ValidateProgress(files_done=1, entries=4, bytes_read=len(body), current=None)


def test_without_a_hook_nothing_changes(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(_urlset(2, "a"))
    assert validate_sitemaps(tmp_path).to_dict() == validate_sitemaps(tmp_path, on_progress=lambda _p: None).to_dict()
