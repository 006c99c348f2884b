"""The local Dask cluster of ``harvest`` and of partitioned ``generate``.

Dask's scheduler always serves HTTP (health and metrics routes, and the dashboard when asked for) and, with no
dashboard address, tries port 8787 first. When that port is taken (another Dask, a notebook, a second sitemapkit
job) it moves to a free port and warns "Port 8787 is already in use ... Perhaps you already have a cluster
running?" on standard error: noise for a user who asked for no dashboard, and a stray line before the command's own
output. :func:`local_cluster` keeps that warning out; everything else Dask says is unchanged.
"""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["local_cluster"]


def local_cluster(**options: Any) -> Any:
    """``distributed.LocalCluster(**options)``, without the warning about a taken default port."""
    import distributed

    dist: Any = distributed  # untyped: called through Any
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"Port \d+ is already in use", category=UserWarning)
        return dist.LocalCluster(**options)
