"""README.md opens with the two set-up commands (main job, tests), and CI runs the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _first_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"```sh\n(.*?)```", text, re.S)
    assert match is not None
    assert text.index("```sh") < text.index("\n## "), "the commands must come first"
    return [line for line in match.group(1).splitlines() if line.strip()]


def test_readme_opens_with_main_job_and_test_command() -> None:
    main_job, tests = _first_block()
    assert "pip install -e ." in main_job
    assert "sitemapkit crawl http://127.0.0.1:8000/" in main_job
    assert "--directory examples/site" in main_job  # served from the repo: no network needed
    assert (ROOT / "examples" / "site" / "index.html").is_file()
    assert tests == 'python -m pip install -e ".[dev]" && bash scripts/test'


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'python -m pip install -e ".[dev]"' in ci
    assert "bash scripts/test" in ci
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    assert "python -m pytest" in script
    assert "mypy" in script
    assert "ruff check" in script


def _readme() -> str:
    return " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())


def test_readme_states_the_cli_rules() -> None:
    text = _readme()
    assert "0 ok, 1 problems found or the job failed, 2 usage error" in text
    assert "130 interrupted" in text
    assert "the report of `validate` (its problems included: the report is the output)" in text
    assert "Standard error carries progress, diagnostics" in text
    assert "`--quiet` turns both off" in text
    assert "SITEMAPKIT_PROGRESS_INTERVAL" in text


def test_readme_warns_about_xslt_in_chromium_and_points_to_html() -> None:
    text = _readme()
    assert "XSLT support is being removed" in text
    assert "`--format html`" in text


def test_readme_says_what_the_shared_corpus_is() -> None:
    text = _readme()
    assert "## Tests" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`../shared/corpus`" in text
    assert "needs the shared test corpus" in text  # the skip reason the tests give (tests/support/corpus.py)


def test_readme_links_point_to_files_in_the_repository() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    targets = [t for t in re.findall(r"\]\(([^)#]+)\)", text) if "://" not in t]
    assert targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert missing == []
