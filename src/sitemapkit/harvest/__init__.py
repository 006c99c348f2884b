"""Harvesting the sitemaps of many hosts on Dask into a Parquet dataset, and writing a sitemap set from
partitioned data in parallel (``sitemapkit harvest``, ``sitemapkit generate DATA --workers N``).

Importing this package is cheap: dask, distributed and pyarrow (the ``harvest`` extra) are imported when a job
runs. See :func:`harvest` and :func:`generate_partitioned`.
"""

from __future__ import annotations

from sitemapkit.harvest._generate import PartitionedResult, find_data_files, generate_partitioned, is_data_input
from sitemapkit.harvest._host import HostJob, HostSettings, harvest_host, host_key, partition_path
from sitemapkit.harvest._job import BadLine, HarvestOptions, HarvestResult, HarvestStats, harvest, read_hosts
from sitemapkit.harvest._schema import entry_from_row, entry_row, host_schema, url_schema

__all__ = [
    "BadLine",
    "HarvestOptions",
    "HarvestResult",
    "HarvestStats",
    "HostJob",
    "HostSettings",
    "PartitionedResult",
    "entry_from_row",
    "entry_row",
    "find_data_files",
    "generate_partitioned",
    "harvest",
    "harvest_host",
    "host_key",
    "host_schema",
    "is_data_input",
    "partition_path",
    "read_hosts",
    "url_schema",
]
