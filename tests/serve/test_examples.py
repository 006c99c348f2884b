"""The README's serving example, run as written where users run it: Flask's threaded development server, Django's
runserver (its threaded WSGI server) and uvicorn with several worker processes. The module-level connection the
example used to have gave HTTP 500 under threads ("SQLite objects created in a thread can only be used in that
same thread"); the example also lacked its ``UrlEntry`` import."""

from __future__ import annotations

import http.client
import re
import sqlite3
import textwrap
import threading
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.serve.conftest import ROOT, ThreadServer, wait_for_port
from tests.support.ports import bound_socket, port_of, uvicorn_on

ROWS = 1_200
CLIENTS = 12


def readme_example() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    found = [b for b in blocks if "SitemapService(" in b and "DB = " in b]
    assert len(found) == 1, "the README has one serving example with a DB path"
    return found[0]


def build_table(path: Path) -> Path:
    con = sqlite3.connect(path)
    try:
        con.execute("CREATE TABLE product (id INTEGER PRIMARY KEY, slug TEXT NOT NULL, updated TEXT NOT NULL)")
        con.executemany("INSERT INTO product VALUES (?, ?, ?)",
                        ((i, f"item-{i}", f"2024-05-{i % 28 + 1:02d}") for i in range(1, ROWS + 1)))
        con.commit()
    finally:
        con.close()
    return path


@pytest.fixture(scope="module")
def example_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README example as a module, ``example.py``, its DB pointed at a table of ROWS products."""
    out = tmp_path_factory.mktemp("readme-example")
    db = build_table(out / "shop.db")
    code = readme_example()
    assert 'DB = "shop.db"' in code
    (out / "example.py").write_text(code.replace('DB = "shop.db"', f"DB = {str(db)!r}"), encoding="utf-8")
    return out


def load_example(example_dir: Path) -> Any:
    module = types.ModuleType("readme_example")
    code = (example_dir / "example.py").read_text(encoding="utf-8")
    exec(compile(code, str(example_dir / "example.py"), "exec"), module.__dict__)  # the README as written
    return module


def get(base: str, path: str) -> tuple[int, bytes]:
    host, port = base.removeprefix("http://").rstrip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def check_many_threads(base: str) -> None:
    """Simultaneous clients (the server answers each on its own thread, or process): every answer a 200 with
    every row, and the same bytes."""
    paths = ["/sitemap.xml", "/sitemap-products-1.xml"] * (CLIENTS // 2)
    with ThreadPoolExecutor(CLIENTS) as pool:
        answers = list(pool.map(lambda p: get(base, p), paths))
    assert [status for status, _body in answers] == [200] * len(paths), answers[0][1][:300]
    bodies = {body for _status, body in answers}
    assert len(bodies) == 1  # one page in all: sitemap.xml is that page
    body = bodies.pop()
    assert body.count(b"<url>") == ROWS
    assert b"<loc>https://shop.example/p/item-1</loc><lastmod>2024-05-02</lastmod>" in body


def test_readme_example_under_flasks_threaded_server(example_dir: Path) -> None:
    flask = pytest.importorskip("flask")
    example = load_example(example_dir)
    app = flask.Flask("readme")
    app.register_blueprint(example.service.flask_blueprint())
    with ThreadServer(app) as srv:
        check_many_threads(srv.url)


def test_readme_example_under_djangos_runserver(example_dir: Path, django_settings: Any) -> None:
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler

    from tests.serve.django_urls import set_patterns

    example = load_example(example_dir)
    set_patterns(example.service.django_urls())
    server = ThreadedWSGIServer(("127.0.0.1", 0), WSGIRequestHandler)  # what runserver runs (threading=True)
    server.set_app(WSGIHandler())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        check_many_threads(f"http://127.0.0.1:{server.server_address[1]}/")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.mark.slow
def test_readme_example_under_uvicorn_with_several_workers(example_dir: Path) -> None:
    pytest.importorskip("uvicorn")
    psutil = pytest.importorskip("psutil")
    (example_dir / "example_app.py").write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(example_dir)!r})
        from example import app
    """), encoding="utf-8")
    sock = bound_socket()
    port = port_of(sock)
    # the workers share the socket the test bound on port 0 (uvicorn --fd)
    with uvicorn_on(sock, "example_app:app", example_dir, "--workers", "2") as proc:
        wait_for_port(port, proc, timeout=120)
        workers = psutil.Process(proc.pid).children()
        assert len(workers) >= 2, workers
        check_many_threads(f"http://127.0.0.1:{port}/")
