"""The local Dask cluster of ``harvest`` and of partitioned ``generate``.

Dask's scheduler always serves HTTP (health and metrics routes, and the dashboard when asked for). With no
dashboard address it tries port 8787 first; when that port is taken (another Dask, a notebook, a second sitemapkit
job) it moves to another port, warns "Port 8787 is already in use ... Perhaps you already have a cluster running?"
on standard error, and leaks the socket of the failed attempt (a ``ResourceWarning`` at garbage collection).
:func:`local_cluster` never asks for 8787 when no dashboard is wanted: the scheduler's HTTP routes go to a port the
system picks on the loopback interface, so there is no warning, no leaked socket, and nothing listens beyond this
machine. A dashboard the user asks for is served where they asked.
"""

from __future__ import annotations

from typing import Any

__all__ = ["local_cluster"]

# where the scheduler's HTTP routes listen when no dashboard is wanted: loopback, a free port
QUIET_HTTP_ADDRESS = "127.0.0.1:0"


def local_cluster(**options: Any) -> Any:
    """``distributed.LocalCluster(**options)``; without a ``dashboard_address``, HTTP on a free loopback port."""
    import distributed

    dist: Any = distributed  # untyped: called through Any
    if options.get("dashboard_address") is None:
        scheduler_kwargs = dict(options.pop("scheduler_kwargs", None) or {})
        scheduler_kwargs.setdefault("dashboard", False)
        scheduler_kwargs.setdefault("dashboard_address", QUIET_HTTP_ADDRESS)
        options["dashboard_address"] = None
        options["scheduler_kwargs"] = scheduler_kwargs
    return dist.LocalCluster(**options)
