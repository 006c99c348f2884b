"""`sitemapkit generate` from a URL list loads neither the submit capability nor the HTTP client: they come in only
with --submit-state or a source that needs fetching (`urls`: tests/cli/test_urls_startup.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
from sitemapkit.cli import main
try:
    main(["generate", "-q", sys.argv[1], "-o", sys.argv[2], "--base-url", "https://e.com/"])
except SystemExit as exc:
    code = exc.code
heavy = ("sitemapkit.submit", "sitemapkit.fetch", "aiohttp")
print(json.dumps({"code": code, "loaded": sorted(m for m in sys.modules if m.startswith(heavy))}))
"""


def test_generate_from_a_list_loads_no_submit_or_http(tmp_path: Path) -> None:
    urls = tmp_path / "urls.txt"
    urls.write_text("https://e.com/a\nhttps://e.com/b?x=1&y=2\n", encoding="utf-8")
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-c", PROBE, str(urls), str(out)], capture_output=True, text=True,
                          timeout=60, check=True, stdin=subprocess.DEVNULL)
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["code"] == 0
    assert seen["loaded"] == []
    assert "https://e.com/b?x=1&amp;y=2" in (out / "sitemap.xml").read_text(encoding="utf-8")

