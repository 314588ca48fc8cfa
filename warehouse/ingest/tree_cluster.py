"""Fetch + parse a tree ingest's files on a Dask cluster: the plain `fetch_chunk`, mapped over a few
large chunks per worker thread, with `distributed`'s own client.

Not one Prefect task per chunk on the workers (prefect-dask's DaskTaskRunner): a worker rebuilt
Prefect's settings and a new API client for every task run, ~1 s of each 1.3 s chunk of 32 files
(bench/README.md has the measurement). The flow stays the orchestrator; the workers only run
plain functions and hand back the parsed outcomes.
"""
from __future__ import annotations

import math

from warehouse.errors import needs_extra
from warehouse.ingest.fetch import FetchSettings
from warehouse.ingest.tree_fetch import FileOutcome, TreeFile, fetch_chunk
from warehouse.ingest.tree_ingest import chunks

CHUNKS_PER_THREAD = 2  # a second chunk per thread evens out a slow one without paying per-chunk costs
CONNECT_TIMEOUT = "30s"


def require_distributed() -> None:
    """One line naming the optional install when `distributed` is missing (before any flow starts)."""
    with needs_extra("dask", "--dask"):
        import distributed  # noqa: F401


def fetch_on_cluster(address: str, files: list[TreeFile], settings: FetchSettings,
                     force: bool = False) -> list[FileOutcome]:
    """Every file fetched and parsed on the cluster at `address`, in CHUNKS_PER_THREAD chunks per
    worker thread; the outcomes come back in the order of `files`."""
    with needs_extra("dask", "--dask"):
        from distributed import Client
    if not files:
        return []
    with Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False) as client:
        size = cluster_chunk_size(len(files), sum(client.nthreads().values()))
        futures = client.map(fetch_chunk, chunks(files, size), settings=settings, force=force, pure=False)
        return [outcome for chunk in client.gather(futures) for outcome in chunk]


def cluster_chunk_size(files: int, threads: int) -> int:
    """Files per chunk: CHUNKS_PER_THREAD chunks per worker thread (no worker yet: as for one thread)."""
    return max(1, math.ceil(files / (max(threads, 1) * CHUNKS_PER_THREAD)))
