"""What ``sitemapkit discover`` finds and shows: a site's discovery and the tree of sitemaps walked from it
(:func:`discover_tree` builds a :class:`SiteTree`), the text report (:func:`format_tree`) and the JSON object
(:func:`tree_dict`), one per command output format."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sitemapkit.core import Severity, plural, problem_line
from sitemapkit.fetch._discover import Discovery, is_site_url, walk_site
from sitemapkit.fetch._items import SitemapNode
from sitemapkit.fetch._sources import FetchSettings, iterate_async

if TYPE_CHECKING:
    from sitemapkit.fetch._http import HttpClient
    from sitemapkit.fetch._walk import WalkItem

__all__ = ["SiteTree", "discover_tree", "format_tree", "tree_dict"]


@dataclass(slots=True)
class SiteTree:
    """A site's discovery (None when a sitemap URL was given) and the tree of sitemaps read from it: ``roots``
    the top sitemaps, ``nodes`` every sitemap read, by URL, ``urls`` their entries. It grows while
    :func:`discover_tree` runs (another thread may read it for a progress line)."""

    found: Discovery | None = None
    roots: list[str] = field(default_factory=list)
    nodes: dict[str, SitemapNode] = field(default_factory=dict)
    urls: int = 0

    def add(self, item: Discovery | WalkItem) -> None:
        if isinstance(item, Discovery):
            self.found = item
        elif isinstance(item, SitemapNode):
            self.nodes[item.url] = item
            if item.parent is None:
                self.roots.append(item.url)
            self.urls += item.entries

    def describe(self, url: str) -> str:
        """A progress line while ``url`` is discovered (a site) or read (a sitemap)."""
        what = f"discovering {url}" if is_site_url(url) else f"reading {url}"
        found = self.found
        status = None if found is None else "no response" if found.robots_status is None else found.robots_status
        robots = f"robots.txt {status}, " if status is not None else ""
        return f"{what}: {robots}{plural(len(self.nodes), 'sitemap')} read, {plural(self.urls, 'URL')}"

    @property
    def failed(self) -> bool:
        """No sitemap was found, or a sitemap or the discovery has errors."""
        return not self.nodes or any(n.errors for n in self.nodes.values()) or (
            self.found is not None and any(p.is_error for p in self.found.problems))

    def format(self, elapsed: float) -> str:
        return format_tree(self.found, self.roots, self.nodes, elapsed)

    def to_dict(self, elapsed: float) -> dict[str, Any]:
        return tree_dict(self.found, self.roots, self.nodes, elapsed)


def discover_tree(url: str, settings: FetchSettings | None = None, tree: SiteTree | None = None) -> SiteTree:
    """Find the sitemaps of site ``url`` (robots.txt, then well-known paths and the home page when it names none,
    as ``settings.probe`` says) or read the sitemap ``url``, and walk the indexes within the settings' limits.
    Entries are counted, not kept. ``tree``: the tree to fill (default: a new one)."""
    cfg = settings or FetchSettings()
    tree = tree if tree is not None else SiteTree()
    opts = cfg.walk_options(yield_entries=False)

    def factory(client: HttpClient) -> AsyncIterator[Discovery | WalkItem]:
        return walk_site(url, client=client, options=opts, probe=cfg.probe)

    for item in iterate_async(factory, cfg, seeds=[url]):
        tree.add(item)
    return tree


def _size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / 1024 / 1024:.1f} MiB"


def _describe(node: SitemapNode) -> str:
    kind = node.kind.value if node.kind is not None else "-"
    status = str(node.status) if node.status is not None else "no response"
    if node.kind is None:
        count = "not read"
    elif node.children:
        count = f"{len(node.children):,} sitemap{'s' if len(node.children) != 1 else ''}"
        if node.entries:
            count += f", {node.entries:,} URLs"
    else:
        count = f"{node.entries:,} URL{'s' if node.entries != 1 else ''}"
    return (f"{node.url}  [{kind}] {status}  {count}  {_size(node.size)}  {node.elapsed * 1000:.0f} ms  "
            f"via {node.found_via.value}")


def format_tree(found: Discovery | None, roots: list[str], nodes: dict[str, SitemapNode], elapsed: float) -> str:
    """What ``sitemapkit discover`` prints: the discovery (robots.txt, well-known paths, its problems), then each
    sitemap of the tree with its type, status, counts, size, time, how it was found and its problems, then a
    summary line. ``roots`` are the tree's top sitemaps, ``nodes`` every sitemap read, by URL."""
    out: list[str] = []
    if found is not None:
        status = "no response" if found.robots_status is None else str(found.robots_status)
        n = len(found.robots.sitemaps) if found.robots else 0
        out.append(f"{found.site_url}")
        if found.unreachable is None:  # else the one problem says why (SM532): nothing else was tried
            out.append(f"robots.txt: {found.robots_url} {status}, {n} sitemap{'s' if n != 1 else ''} listed")
        hits = [u for u, _, hit in found.probed if hit]
        if found.probed:
            out.append(f"well-known paths: {len(found.probed)} tried, {len(hits)} found")
        for p in found.problems:
            out.append(f"  {problem_line(p)}")
        out.append("")

    def emit(url: str, prefix: str, last: bool, top: bool) -> None:
        node = nodes.get(url)
        if node is None:
            return
        branch = "" if top else ("└── " if last else "├── ")
        out.append(f"{prefix}{branch}{_describe(node)}")
        child_prefix = prefix + ("" if top else ("    " if last else "│   "))
        kids = [c for c in node.children if c in nodes and nodes[c].parent == url]
        for p in node.problems:
            out.append(f"{child_prefix}{'│ ' if kids else '  '} {problem_line(p)}")
        if node.problem_count > len(node.problems):
            out.append(f"{child_prefix}   ... {node.problem_count - len(node.problems)} more problems")
        for i, kid in enumerate(kids):
            emit(kid, child_prefix, i == len(kids) - 1, False)

    for root in roots:
        emit(root, "", True, True)
    total_urls = sum(n.entries for n in nodes.values())
    errors = sum(1 for n in nodes.values() for p in n.problems if p.severity is Severity.ERROR)
    if found is not None:
        errors += sum(1 for p in found.problems if p.severity is Severity.ERROR)
    warnings = sum(1 for n in nodes.values() for p in n.problems if p.severity is Severity.WARNING)
    if found is not None:
        warnings += sum(1 for p in found.problems if p.severity is Severity.WARNING)
    out.append("")
    out.append(f"{len(nodes):,} sitemap{'s' if len(nodes) != 1 else ''}, {total_urls:,} URLs, {errors} error"
               f"{'s' if errors != 1 else ''}, {warnings} warning{'s' if warnings != 1 else ''} in {elapsed:.2f} s")
    return "\n".join(out) + "\n"


def _tree_json(url: str, nodes: dict[str, SitemapNode]) -> dict[str, Any]:
    """One sitemap of the tree as JSON, its children nested."""
    node = nodes[url]
    d = node.to_dict()
    d["sitemaps"] = [_tree_json(c, nodes) for c in node.children if c in nodes and nodes[c].parent == url]
    return d


def tree_dict(found: Discovery | None, roots: list[str], nodes: dict[str, SitemapNode],
              elapsed: float) -> dict[str, Any]:
    """``discover --format json``: the discovery, the tree of sitemaps and a summary."""
    return {
        "discovery": found.to_dict() if found is not None else None,
        "sitemaps": [_tree_json(r, nodes) for r in roots],
        "summary": {
            "sitemaps": len(nodes),
            "urls": sum(n.entries for n in nodes.values()),
            "errors": sum(n.errors for n in nodes.values()),
            "elapsed": round(elapsed, 3),
        },
    }
