"""Fixtures of the serve tests: the 1,000,000-row SQLite table (built once per session), a service over it,
Django configured in-process over a small table, and a real uvicorn process serving the Starlette app."""

from __future__ import annotations

import socket
import subprocess
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitemapkit.serve import SitemapService
from tests.serve.db import BASE, ProductFetch, build_products
from tests.support.ports import bound_socket, port_of, uvicorn_on

ROOT = Path(__file__).resolve().parents[2]
BIG_ROWS = 1_000_000
SMALL_ROWS = 2_500


@pytest.fixture(scope="session")
def big_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_products(tmp_path_factory.mktemp("serve-db") / "big.db", BIG_ROWS)


@pytest.fixture(scope="session")
def small_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_products(tmp_path_factory.mktemp("serve-db") / "small.db", SMALL_ROWS)


def wait_for_port(port: int, proc: subprocess.Popen[bytes] | None, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listening on port {port} after {timeout} s")


@pytest.fixture(scope="session")
def uvicorn_process(big_db: Path, tmp_path_factory: pytest.TempPathFactory
                    ) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A uvicorn process serving ``service.asgi()`` over the big table, started without waiting (it imports while
    other tests run); the service finds its page boundaries from keys before uvicorn listens."""
    # The test binds port 0 and hands the socket to uvicorn (--fd): the port is known before the app is written,
    # and nothing else can take it; connections are refused until uvicorn listens, once the service has planned.
    sock = bound_socket()
    port = port_of(sock)
    base = f"http://127.0.0.1:{port}/"
    app_dir = tmp_path_factory.mktemp("asgi-app")
    (app_dir / "serve_app.py").write_text(textwrap.dedent(f"""
        import sys
        from pathlib import Path
        sys.path.insert(0, {str(ROOT)!r})
        from sitemapkit.core import UrlEntry
        from sitemapkit.serve import KeysetSource, SitemapService
        from tests.serve.db import ProductFetch

        pages = [UrlEntry({base!r} + name) for name in ("", "about", "contact")]
        service = SitemapService({base!r}, {{
            "products": ProductFetch(Path({str(big_db)!r}), base={base!r}).source(),
            "pages": lambda: iter(pages),
        }}, cache_control="public, max-age=600")
        service.refresh()
        app = service.asgi()
    """))
    with uvicorn_on(sock, "serve_app:app", app_dir, stop_timeout=10) as proc:
        yield proc, port


@pytest.fixture(scope="session")
def uvicorn_server(uvicorn_process: tuple[subprocess.Popen[bytes], int]) -> str:
    """The base URL of the uvicorn process, once it listens."""
    proc, port = uvicorn_process
    wait_for_port(port, proc, timeout=240)
    return f"http://127.0.0.1:{port}/"


@pytest.fixture(scope="session")
def big_service(big_db: Path, uvicorn_process: object) -> SitemapService:
    """The service over the big table, shared by the in-process framework tests."""
    service = SitemapService(BASE, {"products": ProductFetch(big_db).source()})
    return service


@pytest.fixture(scope="session")
def django_settings(small_db: Path) -> Any:
    django = pytest.importorskip("django")
    from django.conf import settings

    if not settings.configured:
        settings.configure(
            DEBUG=False,
            ALLOWED_HOSTS=["*"],
            ROOT_URLCONF="tests.serve.django_urls",
            INSTALLED_APPS=["django.contrib.sitemaps"],
            DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(small_db)}},
            TEMPLATES=[{"BACKEND": "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}],
            USE_TZ=True,
            MIDDLEWARE=[],
        )
        django.setup()
    return settings


class ThreadServer:
    """A WSGI app on a real socket (werkzeug's threaded server) in a daemon thread."""

    def __init__(self, app: Any) -> None:
        from werkzeug.serving import make_server

        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.thread.join(10)
