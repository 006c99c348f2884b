"""`sitemapkit generate --changefreq/--priority/--rule`: end to end through the CLI, output valid."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from tests.support.cli import run_cli

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def _values(path: Path) -> dict[str, tuple[str | None, str | None]]:
    root = etree.parse(str(path)).getroot()
    return {u.findtext("sm:loc", namespaces=NS): (u.findtext("sm:changefreq", namespaces=NS),
                                                    u.findtext("sm:priority", namespaces=NS))
            for u in root.findall("sm:url", NS)}


def test_defaults_rules_depth_and_row_precedence(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("https://example.com/\nhttps://example.com/blog/2024/post\n"
                                       "https://example.com/a/b/c\n")
    (tmp_path / "rows.csv").write_text("loc,changefreq,priority\nhttps://example.com/blog/own,daily,0.2\n"
                                       "https://example.com/blog/half,,\n")
    out = tmp_path / "out"
    res = run_cli(["generate", tmp_path / "urls.txt", tmp_path / "rows.csv", "-o", out, "--base-url",
                   "https://example.com/", "--changefreq", "monthly", "--priority", "depth",
                   "--rule", "/blog/* changefreq=weekly priority=0.6", "--rule", "/a/* changefreq=yearly"])
    assert res.returncode == 0, res.stderr
    assert _values(out / "sitemap.xml") == {
        "https://example.com/": ("monthly", "1.0"),
        "https://example.com/blog/2024/post": ("weekly", "0.6"),
        "https://example.com/a/b/c": ("yearly", "0.7"),  # the rule gives no priority: depth (3 segments)
        "https://example.com/blog/own": ("daily", "0.2"),  # the row's own values win
        "https://example.com/blog/half": ("weekly", "0.6"),
    }
    valid = run_cli(["validate", out / "sitemap.xml"])
    assert valid.returncode == 0, valid.stdout + valid.stderr


def test_without_hints_nothing_is_added(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("https://example.com/\n")
    res = run_cli(["generate", tmp_path / "urls.txt", "-o", tmp_path / "out", "--base-url", "https://example.com/"])
    assert res.returncode == 0, res.stderr
    assert _values(tmp_path / "out" / "sitemap.xml") == {"https://example.com/": (None, None)}


def test_bad_values_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "urls.txt").write_text("https://example.com/\n")
    base = ["generate", tmp_path / "urls.txt", "-o", tmp_path / "out", "--base-url", "https://example.com/"]
    res = run_cli([*base, "--priority", "high"])
    assert res.returncode == 2
    assert "--priority" in res.stderr
    assert "'high'" in res.stderr
    res = run_cli([*base, "--rule", "/blog/* changefreq=sometimes"])
    assert res.returncode == 2
    assert "--rule '/blog/* changefreq=sometimes'" in res.stderr
    assert not (tmp_path / "out").exists()


def test_help_says_google_ignores_them() -> None:
    res = run_cli(["generate", "--help"])
    assert "--rule RULE" in res.stdout
    assert "Google ignores" in " ".join(res.stdout.split())
