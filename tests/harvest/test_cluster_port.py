"""A taken default Dask port gives no warning on a sitemapkit job's standard error (harvest/_cluster.py).

Dask's scheduler tries port 8787 for its HTTP routes even with no dashboard; when that port is taken it warns
"Port 8787 is already in use". The port is held here (bound on 127.0.0.1, or already taken by something else:
either way taken) while a cluster starts, with and without the wrapper."""

from __future__ import annotations

import contextlib
import logging
import socket
import warnings
from collections.abc import Iterator

import pytest

pytest.importorskip("distributed")

from sitemapkit.harvest._cluster import local_cluster


@contextlib.contextmanager
def _port_taken(port: int) -> Iterator[None]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen(1)
        except OSError:
            pass  # already taken by something else: taken all the same
        yield
    finally:
        sock.close()


def _start(make: object) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        cluster = make(n_workers=1, threads_per_worker=1, processes=False,  # type: ignore[operator]
                       dashboard_address=None, silence_logs=logging.ERROR)
        cluster.close()
    return [str(w.message) for w in seen if "already in use" in str(w.message)]


@pytest.mark.slow
def test_a_taken_default_port_is_not_warned_about() -> None:
    import distributed

    with _port_taken(8787):
        assert _start(distributed.LocalCluster)  # the condition holds: Dask itself warns
        assert _start(local_cluster) == []
