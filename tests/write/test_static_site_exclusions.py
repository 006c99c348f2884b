"""`generate` on a static folder leaves out what the folder itself keeps out of search (issue 12, item 8):
robots.txt Disallow rules, meta robots noindex and a canonical naming another URL, each with its reason."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import CliResult, run_cli
from tests.write.helpers import read_back


def run(*args: str) -> CliResult:
    return run_cli(["generate", *args])


def page(body: str, head: str = "") -> str:
    return f"<!doctype html><html><head><title>t</title>{head}</head><body>{body}</body></html>"


def write_site(root: Path) -> None:
    files = {
        "index.html": page("<main>Home <a href='/blog/'>blog</a></main>"),
        "blog/index.html": page("<main>Blog</main>"),
        "draft.html": page("draft", '<meta name="robots" content="noindex, follow">'),
        "bot.html": page("bot", '<meta name="googlebot" content="none">'),
        "copy.html": page("copy", '<link rel="canonical" href="https://example.com/blog/">'),
        "about.html": page("about", '<link rel="canonical" href="/about">'),
        "self.html": page("self", '<link rel="canonical" href="https://example.com/self.html">'),
        "private/secret.html": page("secret"),
        "private/deep/x.html": page("x"),
        "robots.txt": "User-agent: *\nDisallow: /private/\n\nUser-agent: otherbot\nDisallow: /\n",
    }
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_pages_the_folder_excludes_are_left_out_with_reasons(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_site(site)
    res = run(str(site), "--out", str(tmp_path / "out"), "--base-url", "https://example.com/")
    assert res.returncode == 0, res.stderr
    locs = [d["loc"] for d in read_back((tmp_path / "out" / "sitemap.xml").read_bytes())]
    assert sorted(locs) == ["https://example.com/", "https://example.com/about", "https://example.com/blog/",
                            "https://example.com/self.html"]
    assert "Excluded 5 pages" in res.stdout
    for part in ("2 noindex", "1 canonical", "2 robots"):
        assert part in res.stdout, res.stdout
    lines = res.stderr.splitlines()
    assert any("draft.html" in line and "noindex" in line for line in lines), res.stderr
    assert any("copy.html" in line and "canonical is https://example.com/blog/" in line for line in lines)
    assert any("private/secret.html" in line and "disallowed by robots.txt" in line for line in lines)


def test_robots_txt_only_applies_at_a_site_root(tmp_path: Path) -> None:
    site = tmp_path / "site"
    write_site(site)
    res = run(str(site), "--out", str(tmp_path / "out"), "--base-url", "https://example.com/docs/")
    assert res.returncode == 0, res.stderr
    locs = [d["loc"] for d in read_back((tmp_path / "out" / "sitemap.xml").read_bytes())]
    assert "https://example.com/docs/private/secret.html" in locs
    assert "https://example.com/docs/draft.html" not in locs
    assert "robots.txt counts only at /robots.txt" in res.stderr


def test_a_folder_without_exclusions_prints_no_exclusion_line(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(page("home"), encoding="utf-8")
    res = run(str(site), "--out", str(tmp_path / "out"), "--base-url", "https://example.com/")
    assert res.returncode == 0, res.stderr
    assert "Excluded" not in res.stdout
    assert [d["loc"] for d in read_back((tmp_path / "out" / "sitemap.xml").read_bytes())] == ["https://example.com/"]
