"""Every problem code any command can print is explained in the user docs (issue 26): docs/codes.md, generated
from the registry, gives each one its title, its cause and its fix, and is current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sitemapkit import all_codes
from sitemapkit.core import CODE_ALIASES

ROOT = Path(__file__).resolve().parents[2]


def test_every_registered_code_has_a_title_a_cause_and_a_fix() -> None:
    codes = all_codes()
    assert len(codes) > 130
    missing = [code for code, pc in codes.items() if not (pc.title.strip() and pc.cause.strip() and pc.fix.strip())]
    assert missing == []


def test_docs_codes_md_lists_every_code_with_its_cause_and_is_current() -> None:
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_checks_doc.py"), "--check"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    text = (ROOT / "docs" / "codes.md").read_text(encoding="utf-8")
    for code, pc in all_codes().items():
        row = next((line for line in text.splitlines() if line.startswith(f"| {code} |")), None)
        assert row is not None, code
        assert row.count(" | ") == 4, row  # code | severity | title | cause | fix
        assert pc.cause.split(" ")[0] in row
    for old, new in CODE_ALIASES.items():
        assert f"| {old} | {new} |" in text
    for named in ("SM102", "SM108", "SM530", "SM531", "SM542"):  # the examples of undocumented codes
        assert f"| {named} |" in text
