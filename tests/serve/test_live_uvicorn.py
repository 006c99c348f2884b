"""Issue 25's "done when", end to end: a SQLite table served by a real uvicorn process while the test changes,
deletes and adds rows. The old ETag never gets a 304, changed bytes never come under the old ETag, and all three
changes show at the very next request; a last page that fills makes the next page appear in the index at once.
Two sections over the same table: one with the ``keys``/``stats`` hooks, one with ``fetch`` alone. A table of
4,500 rows in pages of 1,000 keeps it fast (``SITEMAPKIT_LIVE_ROWS=990000 SITEMAPKIT_LIVE_PAGE=50000`` runs it at
the issue's scale); the wall clock is injected into the app (Last-Modified), no sleeps."""

from __future__ import annotations

import os
import sqlite3
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.serve.conftest import ROOT, wait_for_port
from tests.serve.db import build_products
from tests.serve.test_frameworks import get, locs
from tests.support.ports import bound_socket, port_of, uvicorn_on

ROWS = int(os.environ.get("SITEMAPKIT_LIVE_ROWS", "4500"))
PER_PAGE = int(os.environ.get("SITEMAPKIT_LIVE_PAGE", "1000"))
PAGES = -(-ROWS // PER_PAGE)
assert ROWS % PER_PAGE, "the last page must have room for the row the test adds"
assert PAGES >= 4, "the test watches pages 1, 2, 3 and the last one"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    pytest.importorskip("uvicorn")
    db = build_products(tmp_path / "live.db", ROWS)
    sock = bound_socket()
    port = port_of(sock)
    base = f"http://127.0.0.1:{port}/"
    (tmp_path / "live_app.py").write_text(textwrap.dedent(f"""
        import sys
        from datetime import UTC, datetime
        from pathlib import Path
        sys.path.insert(0, {str(ROOT)!r})
        from sitemapkit.serve import KeysetSource, SitemapService
        from tests.serve.db import ProductFetch

        fetch = ProductFetch(Path({str(db)!r}), base={base!r})
        service = SitemapService({base!r}, {{
            "products": fetch.source(stats=True),
            "bare": KeysetSource(fetch),
        }}, max_urls={PER_PAGE}, now=lambda: datetime(2026, 1, 1, tzinfo=UTC))
        app = service.asgi()
    """))
    with uvicorn_on(sock, "live_app:app", tmp_path) as proc:
        wait_for_port(port, proc, timeout=120)
        yield base, db


def _sql(db: Path, *statements: tuple[str, tuple[object, ...]]) -> None:
    con = sqlite3.connect(db)
    try:
        for sql, args in statements:
            con.execute(sql, args)
        con.commit()
    finally:
        con.close()


@pytest.mark.slow
def test_changes_show_at_the_next_request_and_old_etags_get_no_304(live: tuple[str, Path]) -> None:
    base, db = live
    status, _h, index = get(base + "sitemap.xml")
    assert status == 200
    assert locs(index) == [f"{base}sitemap-{s}-{n}.xml" for s in ("products", "bare") for n in range(1, PAGES + 1)]
    assert b"<lastmod>" in index  # the stats hook's newest lastmod for the products pages
    watched = [f"sitemap-{s}-{n}.xml" for s in ("products", "bare") for n in (1, 2, 3, PAGES)]
    before: dict[str, tuple[str, str, bytes]] = {}
    for name in watched:
        status, headers, body = get(base + name)
        assert status == 200
        assert get(base + name, headers={"If-None-Match": headers["etag"]})[0] == 304
        gz_etag = get(base + name, "HEAD", {"Accept-Encoding": "gzip"})[1]["etag"]
        before[name] = (headers["etag"], gz_etag, body)

    deleted = PER_PAGE + PER_PAGE // 2
    _sql(db, ("UPDATE products SET slug = 'changed', updated = '2025-06-01' WHERE id = 10", ()),  # page 1
         ("DELETE FROM products WHERE id = ?", (deleted,)),  # page 2
         ("INSERT INTO products VALUES (?, 'added', '2025-06-02')", (ROWS + 1,)))  # the last page

    expect = {1: (f"{base}p/changed", True), 2: (f"{base}p/item-{deleted}", False), PAGES: (f"{base}p/added", True)}
    for name, (old_etag, old_gz_etag, old_body) in before.items():
        n = int(name.rsplit("-", 1)[1].split(".")[0])
        status, headers, body = get(base + name, headers={"If-None-Match": old_etag})
        if n == 3:  # untouched: the same bytes, the same ETag, and a 304 is right
            assert (status, headers.get("etag")) == (304, old_etag), name
            continue
        assert status == 200, name  # the old ETag never gets a 304 ...
        assert headers["etag"] != old_etag, name  # ... the new bytes never come under it ...
        assert body != old_body, name
        loc, present = expect[n]
        assert (loc in locs(body)) is present, name  # ... and the change is there at the very next request
        again = get(base + name)
        assert (again[1]["etag"], again[2]) == (headers["etag"], body), name
        gz = get(base + name, headers={"If-None-Match": old_gz_etag, "Accept-Encoding": "gzip"})
        assert (gz[0], gz[1]["etag"] != old_gz_etag) == (200, True), name
        assert get(base + name, headers={"If-None-Match": headers["etag"]})[0] == 304, name

    # The last page fills: the next request of the index lists one page more, holding the rest
    top = PAGES * PER_PAGE + 10
    _sql(db, ("INSERT INTO products SELECT id, 'more-' || id, '2025-06-03' FROM "
              "(WITH RECURSIVE n(id) AS (SELECT ? UNION ALL SELECT id + 1 FROM n WHERE id < ?) SELECT id FROM n)",
              (ROWS + 2, top)))
    status, _h, index = get(base + "sitemap.xml")
    assert status == 200
    assert f"{base}sitemap-products-{PAGES + 1}.xml" in locs(index)
    assert f"{base}sitemap-bare-{PAGES + 1}.xml" in locs(index)
    status, _h, last = get(base + f"sitemap-products-{PAGES}.xml")
    status_next, _h, after = get(base + f"sitemap-products-{PAGES + 1}.xml")
    assert (status, status_next) == (200, 200)
    assert last.count(b"<url>") == PER_PAGE
    assert locs(after) == [f"{base}p/more-{i}" for i in range(top - 9, top + 1)]
    total = sum(get(base + f"sitemap-products-{n}.xml")[2].count(b"<url>") for n in range(1, PAGES + 2))
    assert total == top - 1  # every row once (one deleted)
