"""Memory safety of the XML engine's tree handling (issue: heap corruption in ``xmlSAX2Text``).

libxml2 grows the parent's last text node in place across ``feed()`` calls and keeps that node's length in the
parser context. The reader used to free every item up to the last one handled, together with its tail: the next
feed then appended a long non-ASCII run into a freed (or a shorter, older) text node. These documents end an item
and then carry such a run across a read boundary; every boundary is tried, in a child process under Python's debug
allocator (``PYTHONMALLOC=debug``: a corrupted heap aborts the child), and under valgrind when it is installed.

Each document is fed as two chunks, split at every byte from the end of the last item to the end tag, through the
sans-I/O parser, then whole files through ``read_file`` (256 KiB reads), ``validate`` (1 MiB reads) and ``urls`` over
HTTP (128 KiB reads) with the run straddling that driver's boundary.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.support.server import LocalServer

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"

# The child program: builds the documents, splits each at every boundary in the tail, checks the events.
CHILD = textwrap.dedent(
    r'''
    import sys
    from sitemapkit import SitemapParser, UrlEntry, SitemapRef

    SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
    RUN = int(sys.argv[1])
    STRIDE = int(sys.argv[2])
    KINDS = {
        "rss": (b'<?xml version="1.0"?>\n<rss version="2.0"><channel>\n<title>t</title>\n'
                b'<item><link>https://e.com/z</link></item>\n<item><link>https://e.com/a</link></item>',
                b"</channel></rss>", UrlEntry),
        "atom": (b'<?xml version="1.0"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
                 b'<entry><link href="https://e.com/z"/></entry>\n<entry><link href="https://e.com/a"/></entry>',
                 b"</feed>", UrlEntry),
        # canonical blocks: the reader's fast lane reads them and hands the tail to lxml
        "urlset": (('<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="%s">\n'
                    "<url><loc>https://e.com/z</loc></url>\n<url><loc>https://e.com/a</loc></url>" % SM).encode(),
                   b"</urlset>", UrlEntry),
        # a comment before the blocks keeps the lane away: lxml reads everything
        "urlset-lxml": (('<?xml version="1.0"?>\n<urlset xmlns="%s"><!-- c -->\n<url>\n<loc>https://e.com/z</loc>'
                         "</url>\n<url><loc>https://e.com/a</loc></url>" % SM).encode(),
                        b"</urlset>", UrlEntry),
        "index": (('<?xml version="1.0"?>\n<sitemapindex xmlns="%s">\n<sitemap><loc>https://e.com/z.xml</loc>'
                   "</sitemap>\n<sitemap><loc>https://e.com/a.xml</loc></sitemap>" % SM).encode(),
                  b"</sitemapindex>", SitemapRef),
    }
    checked = 0
    for name, (head, end, cls) in KINDS.items():
        doc = head + "\u00e9".encode() * RUN + end
        for cut in range(len(head) - 8, len(doc), STRIDE):
            parser = SitemapParser()
            events = list(parser.feed(doc[:cut])) + list(parser.feed(doc[cut:])) + list(parser.close())
            items = [e for e in events if isinstance(e, cls)]
            if len(items) != 2:
                raise SystemExit(f"{name} cut at {cut}: {len(items)} items, events {events!r}")
            checked += 1
    print(f"checked {checked}")
    '''
)


def _run(argv: list[str], *, env_extra: dict[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, **env_extra)
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env, check=False)


def _child(tmp_path: Path) -> Path:
    script = tmp_path / "child.py"
    script.write_text(CHILD, encoding="utf-8")
    return script


@pytest.mark.slow
def test_every_boundary_under_the_debug_allocator(tmp_path: Path) -> None:
    # 2,000 two-byte characters after the last item, as in the report; every split from the last item's end tag on.
    proc = _run([sys.executable, str(_child(tmp_path)), "2000", "1"], env_extra={"PYTHONMALLOC": "debug"},
                timeout=600)
    assert proc.returncode == 0, (proc.returncode, proc.stdout[-2000:], proc.stderr[-4000:])
    checked = int(proc.stdout.split()[-1])
    assert checked > 5 * 4000  # five kinds, every cut in ~4 KB of tail


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
def test_valgrind_sees_no_invalid_access(tmp_path: Path) -> None:
    # valgrind is ~50x slower: a shorter run (long enough to overflow a small text node) and every 17th cut.
    log = tmp_path / "valgrind.log"
    proc = _run(
        ["valgrind", "--error-exitcode=99", f"--log-file={log}", "--errors-for-leak-kinds=none",
         sys.executable, str(_child(tmp_path)), "300", "17"],
        env_extra={"PYTHONMALLOC": "malloc"}, timeout=900,
    )
    text = log.read_text(encoding="utf-8", errors="replace")
    invalid = [line for line in text.splitlines() if "Invalid write" in line or "Invalid read" in line
               or "Invalid free" in line]
    assert proc.returncode in (0, 99), (proc.returncode, proc.stderr[-2000:])
    assert "checked" in proc.stdout, (proc.stdout, proc.stderr[-2000:])
    assert invalid == [], text[-6000:]


def _straddling_rss(boundary: int) -> bytes:
    """An RSS feed whose last item ends 3,000 bytes before ``boundary``, then 4,000 bytes of é and the end tag."""
    head = b'<?xml version="1.0"?>\n<rss version="2.0"><channel>\n<title>t</title>\n'
    items: list[bytes] = []
    size = len(head)
    n = 0
    while True:
        item = f"<item><link>https://e.com/p/{n}</link></item>\n".encode()
        if size + len(item) > boundary - 3000:
            break
        items.append(item)
        size += len(item)
        n += 1
    pad = boundary - 3000 - size
    last = b"<item><link>https://e.com/last</link>" + b" " * max(pad - 51, 0) + b"</item>"
    return head + b"".join(items) + last + "\u00e9".encode() * 4000 + b"</channel></rss>"


def _straddling_urlset(boundary: int) -> bytes:
    head = f'<?xml version="1.0"?>\n<urlset xmlns="{SM}"><!-- lxml reads it all -->\n'.encode()
    body = bytearray(head)
    n = 0
    while len(body) < boundary - 3200:
        body += f"<url><loc>https://e.com/p/{n}</loc></url>\n".encode()
        n += 1
    body += b"<url><loc>https://e.com/last</loc></url>"
    return bytes(body) + "\u00e9".encode() * 4000 + b"</urlset>"


@pytest.mark.slow
@pytest.mark.parametrize("make", [_straddling_rss, _straddling_urlset], ids=["rss", "urlset"])
def test_drivers_across_their_read_boundaries(tmp_path: Path, make: object) -> None:
    """read_file (256 KiB), validate (1 MiB) and urls over HTTP (128 KiB) under the debug allocator."""
    assert callable(make)
    env = {"PYTHONMALLOC": "debug"}
    cli = [sys.executable, "-m", "sitemapkit"]
    file_doc = tmp_path / "feed.xml"
    file_doc.write_bytes(make(256 * 1024))
    proc = _run([*cli, "urls", str(file_doc)], env_extra=env, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "https://e.com/last" in proc.stdout

    val_doc = tmp_path / "big.xml"
    val_doc.write_bytes(make(1024 * 1024))
    proc = _run([*cli, "validate", str(val_doc), "--format", "json"], env_extra=env, timeout=300)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert proc.stdout.lstrip().startswith(("{", "[")), proc.stdout[:500]

    with LocalServer() as srv:
        srv.route("/feed.xml", body=make(128 * 1024), headers={"Content-Type": "application/xml"})
        proc = _run([*cli, "urls", srv.url("/feed.xml")], env_extra=env, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert "https://e.com/last" in proc.stdout
