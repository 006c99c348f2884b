"""A taken default Dask port gives no warning on a sitemapkit job's standard error (harvest/_cluster.py).

Dask's scheduler tries port 8787 for its HTTP routes even with no dashboard; when that port is taken it warns
"Port 8787 is already in use", and the socket of its failed attempt is left open (a ResourceWarning when it is
collected, which once failed an unrelated test in CI). The port is held here (bound on 127.0.0.1, or already taken
by something else: either way taken) while a cluster starts, with and without the wrapper."""

from __future__ import annotations

import contextlib
import gc
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


def _start(make: object) -> tuple[list[str], str]:
    """The port warnings and leaked-socket warnings of one cluster start, and where its HTTP routes listened."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        cluster = make(n_workers=1, threads_per_worker=1, processes=False,  # type: ignore[operator]
                       dashboard_address=None, silence_logs=logging.ERROR)
        http = cluster.scheduler.services["dashboard"].address
        cluster.close()
        gc.collect()  # a socket Dask left open warns here, inside the recording, not in a later test
    return [str(w.message) for w in seen
            if "already in use" in str(w.message) or issubclass(w.category, ResourceWarning)], http


@pytest.mark.slow
def test_a_taken_default_port_is_not_warned_about() -> None:
    import distributed

    with _port_taken(8787):
        dask_warnings, _ = _start(distributed.LocalCluster)
        assert dask_warnings  # the condition holds: Dask itself warns
        ours, http = _start(local_cluster)
    assert ours == []
    assert http == "127.0.0.1"  # the scheduler's routes listen on loopback only
