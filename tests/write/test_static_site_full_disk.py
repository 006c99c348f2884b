"""`generate --state` on a disk that fills up while the state is saved: one clear error naming the state file
(exit 1, no traceback), and the previous state file is left whole, with no temporary file beside it."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

PAGES = 300
LIMIT = 30_000  # bytes a file may have in the limited run: room for the sitemap, not for the state


def _site(root: Path, words: str) -> None:
    for i in range(PAGES):
        path = root / f"page-{i}.html"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<html><body><main><h1>Page {i}</h1><p>{words}</p></main></body></html>", "utf-8")


def _limited() -> None:
    """In the child: files cannot grow past LIMIT bytes, and a write past it fails (EFBIG) instead of killing."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_state_that_cannot_be_written_is_one_error_and_the_old_state_stays(tmp_path: Path) -> None:
    site, out, state = tmp_path / "site", tmp_path / "out", tmp_path / "state.json"
    _site(site, "first words")
    argv = [sys.executable, "-m", "sitemapkit", "generate", str(site), "--out", str(out), "--base-url",
            "https://example.com/", "--state", str(state)]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    first = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env)
    assert first.returncode == 0, first.stderr
    before = state.read_bytes()
    assert len(before) > LIMIT  # the limit below does bite on the state
    assert (out / "sitemap.xml").stat().st_size < LIMIT
    _site(site, "second words")
    second = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, preexec_fn=_limited)
    assert second.returncode == 1, second.stderr
    assert "Traceback" not in second.stderr
    assert second.stderr.strip().splitlines()[-1] == (
        f"sitemapkit: error: --state {state}: cannot write the generate state file: File too large; the previous one "
        "is unchanged")
    assert state.read_bytes() == before
    assert json.loads(before)["format"] == "sitemapkit-generate-state"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "site", "state.json"]
