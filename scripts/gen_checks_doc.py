"""Generate docs/checks.md, the table of every validator check, from the code registry (``sitemapkit.all_codes``).

    python scripts/gen_checks_doc.py          # rewrite docs/checks.md
    python scripts/gen_checks_doc.py --check  # exit 1 when the committed file is out of date
"""

from __future__ import annotations

import sys
from pathlib import Path

from sitemapkit import all_codes
from sitemapkit.validate._codes import EXAMPLES, GOOGLE_CODES, VALIDATOR_CODES

DOC = Path(__file__).resolve().parent.parent / "docs" / "checks.md"

HEADER = """\
# Validator checks

Every problem `sitemapkit validate` reports has a stable code, a severity and a location
(`file:line:column`, plus the `<loc>` it concerns). Errors make a sitemap invalid (exit status 1); warnings do
not, unless `--fail-on warning`. The **google** profile (the default) adds the `SM4xx` checks to the protocol
checks of the **sitemaps** profile. Where the sources disagree the stricter reading is applied and the message
says so (loc length, lastmod time zones, video duration, empty news sitemaps).

This file is generated from the code registry by `scripts/gen_checks_doc.py`; a test fails when it is out of
date. Problems of the reader (`SM1xx`) can also appear for feeds, which are read through the reader.

| Code | Severity | Profile | Problem | Fix | Example |
|---|---|---|---|---|---|
"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render() -> str:
    rows = []
    codes = all_codes()
    for code in VALIDATOR_CODES:
        pc = codes[code]
        profile = "google" if code in GOOGLE_CODES else "all"
        rows.append(f"| {code} | {pc.severity.value} | {profile} | {_cell(pc.title)} | {_cell(pc.fix)} | "
                    f"`{_cell(EXAMPLES[code])}` |")
    return HEADER + "\n".join(rows) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        current = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
        if current != text:
            print(f"{DOC} is out of date: run python scripts/gen_checks_doc.py", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
