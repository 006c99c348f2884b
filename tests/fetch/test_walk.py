"""Discovery and walking against real local sites: each test asserts what the tree contains."""

from __future__ import annotations

import asyncio
import gzip
from pathlib import Path

import pytest

from sitemapkit import discover, walk_site
from sitemapkit.fetch import (
    Discovery,
    EntryBatch,
    FoundVia,
    HttpClient,
    MockResponse,
    MockTransport,
    RetryPolicy,
    SitemapNode,
    Timeouts,
    TransportRequest,
    WalkOptions,
    walk,
)
from sitemapkit.read._sniff import DocumentKind
from tests.support.server import LocalServer, Response
from tests.support.sites import HTML_ERROR, Site, index_xml, urlset_xml


class Tree:
    def __init__(self) -> None:
        self.discovery: Discovery | None = None
        self.nodes: dict[str, SitemapNode] = {}
        self.order: list[str] = []
        self.urls: list[str] = []

    def node(self, url: str) -> SitemapNode:
        return self.nodes[url]

    def codes(self, url: str) -> list[str]:
        return [p.code for p in self.nodes[url].problems]


def fast_client() -> HttpClient:
    return HttpClient(timeouts=Timeouts(connect=1.0, read=0.3, total=5.0),
                      retry=RetryPolicy(max_retries=1, backoff_base=0.01, retry_after_max=0.05))


def collect(target: str | list[str], options: WalkOptions | None = None, probe: str = "auto") -> Tree:
    tree = Tree()

    async def go() -> None:
        async with fast_client() as client:
            async for item in walk_site(target, client=client, options=options, probe=probe):
                if isinstance(item, Discovery):
                    tree.discovery = item
                elif isinstance(item, EntryBatch):
                    tree.urls.extend(e.loc for e in item.entries)
                else:
                    assert item.url not in tree.nodes
                    tree.nodes[item.url] = item
                    tree.order.append(item.url)

    asyncio.run(go())
    return tree


def pages(server: LocalServer, prefix: str, n: int) -> list[str]:
    return [server.url(f"/{prefix}{i}") for i in range(n)]


def test_robots_index_and_children(server: LocalServer) -> None:
    site = Site(server)
    site.robots(f"User-agent: *\nDisallow: /private\nSitemap: {server.url('/index.xml')}\n")
    site.xml("/index.xml", index_xml([server.url("/a.xml"), server.url("/b.txt")]))
    site.xml("/a.xml", urlset_xml(pages(server, "a", 3)))
    site.xml("/b.txt", "\n".join(pages(server, "b", 2)).encode(), content_type="text/plain")
    tree = collect(server.url("/"))
    assert tree.discovery is not None
    assert tree.discovery.robots_status == 200
    assert [s.found_via for s in tree.discovery.seeds] == [FoundVia.ROBOTS]
    assert tree.order[0] == server.url("/index.xml")  # the parent comes before its children
    index = tree.node(server.url("/index.xml"))
    assert index.kind is DocumentKind.INDEX
    assert index.status == 200
    assert index.found_via is FoundVia.ROBOTS
    assert index.children == (server.url("/a.xml"), server.url("/b.txt"))
    a, b = tree.node(server.url("/a.xml")), tree.node(server.url("/b.txt"))
    assert (a.kind, a.entries, a.parent, a.depth, a.found_via) == (DocumentKind.URLSET, 3, index.url, 1,
                                                                    FoundVia.INDEX)
    assert (b.kind, b.entries) == (DocumentKind.TEXT, 2)
    assert sorted(tree.urls) == sorted(pages(server, "a", 3) + pages(server, "b", 2))
    assert all(n.ok for n in tree.nodes.values())
    assert a.size == len(urlset_xml(pages(server, "a", 3)))
    assert a.elapsed > 0


def test_cyclic_and_nested_indexes(server: LocalServer) -> None:
    site = Site(server)
    site.xml("/top.xml", index_xml([server.url("/mid.xml"), server.url("/leaf.xml")]))
    site.xml("/mid.xml", index_xml([server.url("/top.xml"), server.url("/leaf.xml"), server.url("/deep.xml")]))
    site.xml("/deep.xml", index_xml([server.url("/deeper.xml")]))
    site.xml("/deeper.xml", urlset_xml(pages(server, "d", 1)))
    site.xml("/leaf.xml", urlset_xml(pages(server, "l", 2)))
    tree = collect(server.url("/top.xml"), WalkOptions(max_depth=2))
    assert set(tree.nodes) == {server.url(p) for p in ("/top.xml", "/mid.xml", "/leaf.xml", "/deep.xml")}
    mid = server.url("/mid.xml")
    assert tree.codes(mid).count("SM506") == 2  # lists top (cycle) and leaf (already listed)
    assert "SM510" in tree.codes(mid)  # an index listed by an index
    assert "SM507" in tree.codes(server.url("/deep.xml"))  # deeper.xml would be depth 3
    assert server.hits("/top.xml") == 1
    assert server.hits("/leaf.xml") == 1
    assert server.hits("/deeper.xml") == 0
    assert sorted(tree.urls) == sorted(pages(server, "l", 2))


def test_child_redirecting_to_its_parent(server: LocalServer) -> None:
    site = Site(server)
    site.xml("/index.xml", index_xml([server.url("/loop.xml"), server.url("/ok.xml")]))
    site.redirect("/loop.xml", server.url("/index.xml"))
    site.xml("/ok.xml", urlset_xml(pages(server, "o", 1)))
    tree = collect(server.url("/index.xml"))
    loop = tree.node(server.url("/loop.xml"))
    assert loop.status == 200
    assert loop.final_url == server.url("/index.xml")
    assert {"SM512", "SM506"} <= set(tree.codes(loop.url))
    assert loop.entries == 0
    assert loop.kind is None
    assert server.hits("/index.xml") == 2  # fetched once itself, once through the redirect; parsed once
    assert tree.urls == pages(server, "o", 1)


def test_gzip_in_every_disguise(server: LocalServer) -> None:
    site = Site(server)
    xml = urlset_xml(pages(server, "g", 4))
    children = [
        site.gz("/as-html.xml.gz", xml, content_type="text/html"),
        site.gz("/as-octets.xml.gz", xml, content_type="application/octet-stream"),
        # Content-Encoding gzip on a .gz file: body is the file gzip-encoded once more
        site.xml("/double.xml.gz", gzip.compress(gzip.compress(xml)), headers={"Content-Encoding": "gzip"}),
        # ... or the server claims the encoding for a file it sends as is
        site.xml("/claimed.xml.gz", gzip.compress(xml), headers={"Content-Encoding": "gzip"}),
        site.xml("/named-gz-plain.xml.gz", xml, content_type="application/x-gzip"),
    ]
    site.xml("/index.xml", index_xml(children))
    tree = collect(server.url("/index.xml"))
    for url in children:
        node = tree.node(url)
        assert (node.kind, node.entries, node.status) == (DocumentKind.URLSET, 4, 200), url
        assert not any(p.is_error for p in node.problems), (url, node.problems)


def test_failures_stay_on_their_node(server: LocalServer) -> None:
    site = Site(server)
    names = ["/html200.xml", "/missing.xml", "/huge.xml", "/cut.xml", "/slow.xml", "/busy.xml", "/fine.xml"]
    site.xml("/index.xml", index_xml([server.url(n) for n in names]))
    site.xml("/html200.xml", HTML_ERROR, content_type="text/html")
    site.xml("/huge.xml", urlset_xml(pages(server, "h", 20_000)))
    server.route("/cut.xml", handler=lambda r: Response(200, urlset_xml(pages(server, "c", 100)), close_after=200))
    server.route("/slow.xml", handler=lambda r: Response(200, urlset_xml([]), delay=1.0))
    server.route("/busy.xml", handler=lambda r: Response(503, b"busy", {"Retry-After": "1"}))
    site.xml("/fine.xml", urlset_xml(pages(server, "f", 2)))
    tree = collect(server.url("/index.xml"), WalkOptions(max_bytes=100_000))
    assert "SM505" in tree.codes(server.url("/html200.xml"))
    assert tree.node(server.url("/html200.xml")).kind is DocumentKind.HTML
    assert tree.codes(server.url("/missing.xml")) == ["SM502"]
    assert tree.node(server.url("/missing.xml")).status == 404
    assert tree.codes(server.url("/huge.xml")) == ["SM504"]
    assert tree.codes(server.url("/cut.xml")) == ["SM501"]
    assert tree.codes(server.url("/slow.xml")) == ["SM501"]
    assert tree.codes(server.url("/busy.xml")) == ["SM502"]
    assert tree.node(server.url("/busy.xml")).status == 503
    assert server.hits("/busy.xml") == 2  # retried once
    assert tree.node(server.url("/fine.xml")).ok
    assert tree.urls == pages(server, "f", 2)
    assert len(tree.nodes) == len(names) + 1


def test_url_and_sitemap_limits(server: LocalServer) -> None:
    site = Site(server)
    kids = [site.xml(f"/s{i}.xml", urlset_xml(pages(server, f"s{i}-", 10))) for i in range(5)]
    site.xml("/index.xml", index_xml(kids))
    tree = collect(server.url("/index.xml"), WalkOptions(max_sitemaps=3, concurrency=1))
    assert len(tree.nodes) == 3
    assert "SM508" in tree.codes(server.url("/index.xml"))
    tree = collect(server.url("/index.xml"), WalkOptions(max_urls=25, concurrency=1))
    assert len(tree.urls) == 25
    assert sum("SM509" in tree.codes(u) for u in tree.nodes) == 1


def test_well_known_probe_and_link_rel(server: LocalServer) -> None:
    site = Site(server)
    site.robots("User-agent: *\nDisallow:\n")  # names no sitemap
    site.xml("/sitemap.xml", HTML_ERROR, content_type="text/html")  # soft 404: not a sitemap
    site.redirect("/sitemap_index.xml", server.url("/real-index.xml"))
    site.redirect("/sitemap-index.xml", server.url("/real-index.xml"))  # same target: counted once
    site.xml("/real-index.xml", index_xml([server.url("/p.xml")]))
    site.xml("/p.xml", urlset_xml(pages(server, "p", 2)))
    site.gz("/sitemap.xml.gz", urlset_xml(pages(server, "z", 1)))
    server.route("/", b'<html><head><link rel="alternate sitemap" href="/from-link.xml"></head></html>',
                 content_type="text/html")
    site.xml("/from-link.xml", urlset_xml(pages(server, "k", 1)))
    tree = collect(server.url("/"))
    d = tree.discovery
    assert d is not None
    assert [(s.url, s.found_via) for s in d.seeds] == [
        (server.url("/sitemap_index.xml"), FoundVia.WELL_KNOWN),
        (server.url("/sitemap.xml.gz"), FoundVia.WELL_KNOWN),
        (server.url("/from-link.xml"), FoundVia.LINK_REL),
    ]
    assert (server.url("/sitemap.xml"), 200, False) in d.probed
    assert server.hits("/sitemap.xml.gz") == 1  # the probe's body is reused by the walk
    assert sorted(tree.urls) == sorted(pages(server, "p", 2) + pages(server, "z", 1) + pages(server, "k", 1))
    assert {"SM531"} <= {p.code for p in d.problems}


def test_no_sitemap_anywhere(server: LocalServer) -> None:
    tree = collect(server.url("/"))
    assert tree.discovery is not None
    assert tree.discovery.robots_status == 404
    assert [p.code for p in tree.discovery.problems] == ["SM530"]
    assert tree.nodes == {}


def test_robots_fixtures_served_and_discovered(server: LocalServer, shared_dir: Path) -> None:
    data = (shared_dir / "corpus/peer-fixtures/crawler-commons/robots/format-errors-robots.txt").read_bytes()
    Site(server).robots(data)
    server.route("/sitemap.xml", urlset_xml(pages(server, "x", 1)), content_type="application/xml")
    tree = collect(server.url("/"))
    assert tree.discovery is not None
    assert [s.url for s in tree.discovery.seeds] == [server.url("/sitemap.xml")]  # "sitemap : /sitemap.xml"
    assert tree.urls == pages(server, "x", 1)
    utf16 = (shared_dir / "corpus/peer-fixtures/crawler-commons/robots/robots-with-utf16le-bom.txt").read_bytes()
    Site(server).robots(utf16)

    async def go() -> Discovery:
        async with fast_client() as client:
            return await discover(server.url("/"), client=client, probe="never")

    d = asyncio.run(go())
    assert [s.url for s in d.seeds] == ["http://www.newsweek.com/sitemap_index.xml"]


def test_robots_5xx_means_no_sitemaps_but_probe(server: LocalServer) -> None:
    Site(server).robots("oops", status=500)
    Site(server).xml("/sitemap.xml", urlset_xml(pages(server, "y", 1)))
    tree = collect(server.url("/"))
    assert tree.discovery is not None
    assert tree.discovery.robots_status == 500
    assert "SM520" in {p.code for p in tree.discovery.problems}
    assert tree.urls == pages(server, "y", 1)


def test_walk_with_injected_transport_and_early_stop() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        if req.url.endswith("/index.xml"):
            return MockResponse(200, index_xml([f"https://ex.com/s{i}.xml" for i in range(50)]))
        n = req.url.rsplit("/s", 1)[1].split(".")[0]
        return MockResponse(200, urlset_xml([f"https://ex.com/{n}/{j}" for j in range(100)]))

    transport = MockTransport(handler)

    async def go() -> int:
        seen = 0
        async with HttpClient(transport=transport) as client:
            async for item in walk(["https://ex.com/index.xml"], client=client, options=WalkOptions(concurrency=2)):
                if isinstance(item, EntryBatch):
                    seen += len(item.entries)
                    if seen >= 300:
                        break
        return seen

    seen = asyncio.run(go())
    assert 300 <= seen < 5000
    assert len(transport.requests) < 51  # stopping early stopped the walk


@pytest.mark.parametrize("follow", [True, False])
def test_follow_flag(follow: bool) -> None:
    def handler(req: TransportRequest) -> MockResponse:
        if req.url.endswith("/index.xml"):
            return MockResponse(200, index_xml(["https://ex.com/a.xml"]))
        return MockResponse(200, urlset_xml(["https://ex.com/p"]))

    async def go() -> list[SitemapNode]:
        async with HttpClient(transport=MockTransport(handler)) as client:
            return [i async for i in walk(["https://ex.com/index.xml"], client=client,
                                          options=WalkOptions(follow=follow)) if isinstance(i, SitemapNode)]

    nodes = asyncio.run(go())
    assert [n.url for n in nodes] == (["https://ex.com/index.xml", "https://ex.com/a.xml"] if follow
                                      else ["https://ex.com/index.xml"])
    assert nodes[0].children == ("https://ex.com/a.xml",)


def test_child_on_another_host_is_flagged_but_read() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        if req.url == "https://ex.com/index.xml":
            return MockResponse(200, index_xml(["https://other.example/s.xml", "https://ex.com/s.xml"]))
        return MockResponse(200, urlset_xml([req.url.replace(".xml", "/page")]))

    async def go() -> dict[str, SitemapNode]:
        async with HttpClient(transport=MockTransport(handler)) as client:
            return {i.url: i async for i in walk(["https://ex.com/index.xml"], client=client)
                    if isinstance(i, SitemapNode)}

    nodes = asyncio.run(go())
    assert [p.code for p in nodes["https://other.example/s.xml"].problems] == ["SM511"]
    assert nodes["https://other.example/s.xml"].entries == 1
    assert nodes["https://ex.com/s.xml"].problems == ()


def test_oversized_robots_txt_is_read_up_to_the_limit(server: LocalServer) -> None:
    filler = "".join(f"Disallow: /private/{i}/\n" for i in range(40_000))  # ~1 MB
    Site(server).robots(f"Sitemap: {server.url('/first.xml')}\nUser-agent: *\n{filler}"
                        f"Sitemap: {server.url('/after-the-limit.xml')}\n")

    async def go() -> Discovery:
        async with fast_client() as client:
            return await discover(server.url("/"), client=client, probe="never")

    d = asyncio.run(go())
    assert [s.url for s in d.seeds] == [server.url("/first.xml")]
    assert d.robots is not None
    assert d.robots_status == 200
    assert "SM520" in {p.code for p in d.problems}
    assert not d.robots.can_fetch(server.url("/private/3/x"), "sitemapkit")


def test_an_unexpected_transport_exception_fails_one_node_only() -> None:
    def handler(req: TransportRequest) -> MockResponse:
        if req.url.endswith("/index.xml"):
            return MockResponse(200, index_xml(["https://ex.com/bad.xml", "https://ex.com/good.xml"]))
        if req.url.endswith("/bad.xml"):
            raise RuntimeError("transport bug")
        return MockResponse(200, urlset_xml(["https://ex.com/p"]))

    async def go() -> dict[str, SitemapNode]:
        async with HttpClient(transport=MockTransport(handler)) as client:
            return {i.url: i async for i in walk(["https://ex.com/index.xml"], client=client)
                    if isinstance(i, SitemapNode)}

    nodes = asyncio.run(go())
    assert [p.code for p in nodes["https://ex.com/bad.xml"].problems] == ["SM501"]
    assert "transport bug" in nodes["https://ex.com/bad.xml"].problems[0].message
    assert nodes["https://ex.com/good.xml"].entries == 1


def _slow_first_children(n: int) -> MockTransport:
    """An index of ``n`` urlsets at https://x.test/; the earlier a child is listed, the later it answers."""
    def url(i: int) -> str:
        return f"https://x.test/s{i}.xml"

    async def handler(request: TransportRequest) -> MockResponse:
        if request.url.endswith("/index.xml"):
            return MockResponse(200, index_xml([url(i) for i in range(n)]))
        i = int(request.url.rsplit("/s", 1)[1].split(".")[0])
        await asyncio.sleep(0.05 * (n - i))
        return MockResponse(200, urlset_xml([f"https://x.test/p{i}-{j}" for j in range(3)]))

    return MockTransport(handler)


@pytest.mark.parametrize("ordered", [True, False])
def test_walk_hands_sitemaps_over_in_document_order(ordered: bool) -> None:
    n = 5

    async def go() -> tuple[list[str], list[str]]:
        async with HttpClient(transport=_slow_first_children(n), per_host_limit=n) as client:
            urls: list[str] = []
            nodes: list[str] = []
            options = WalkOptions(concurrency=n, ordered=ordered)
            async for item in walk(["https://x.test/index.xml"], client=client, options=options):
                if isinstance(item, EntryBatch):
                    urls.extend(e.loc for e in item.entries)
                else:
                    nodes.append(item.url)
            return urls, nodes

    urls, nodes = asyncio.run(go())
    in_document_order = [f"https://x.test/p{i}-{j}" for i in range(n) for j in range(3)]
    assert sorted(urls) == sorted(in_document_order)
    assert nodes[0] == "https://x.test/index.xml"
    if ordered:
        assert urls == in_document_order
        assert nodes[1:] == [f"https://x.test/s{i}.xml" for i in range(n)]
    else:  # as they arrive: the last listed answers first
        assert urls[:3] == [f"https://x.test/p{n - 1}-{j}" for j in range(3)]
