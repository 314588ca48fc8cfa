"""Fetch + parse a tree ingest's files on a Dask cluster: the plain `fetch_chunk`, mapped over a few
large chunks per worker thread, with `distributed`'s own client.

Not one Prefect task per chunk on the workers (prefect-dask's DaskTaskRunner): a worker rebuilt
Prefect's settings and a new API client for every task run, ~1 s of each 1.3 s chunk of 32 files
(bench/README.md has the measurement). The flow stays the orchestrator; the workers only run
plain functions and hand back the parsed outcomes.
"""
from __future__ import annotations

import math

from warehouse.errors import ExpectedFailure, UsageError, needs_extra
from warehouse.ingest.fetch import FetchSettings, is_http
from warehouse.ingest.source_urls import local_path
from warehouse.trees.fetching import FileOutcome, TreeFile, fetch_chunk
from warehouse.trees.fetching import chunks

CHUNKS_PER_THREAD = 2  # a second chunk per thread evens out a slow one without paying per-chunk costs
CONNECT_SECONDS = 30   # for the scheduler to answer
WORKER_SECONDS = 60    # for a first worker to join it


class DaskUnavailable(ExpectedFailure):
    """The Dask scheduler does not answer, or no worker joins it."""


def check_cluster_run(source: str) -> None:
    """Before any flow starts: `distributed` installed (else one line naming the install), and a
    directory source given as an absolute path (each worker reads it from its own directory)."""
    with needs_extra("dask", "--dask"):
        import distributed  # noqa: F401
    if not is_http(source) and not local_path(source).is_absolute():
        raise UsageError(f"{source}: with --dask, give the source directory as an absolute path "
                         "(the workers read it, each from its own working directory)")


def fetch_on_cluster(address: str, files: list[TreeFile], settings: FetchSettings,
                     force: bool = False) -> list[FileOutcome]:
    """Every file fetched and parsed on the cluster at `address`, in CHUNKS_PER_THREAD chunks per
    worker thread; the outcomes come back in the order of `files`."""
    if not files:
        return []
    with connect(address) as client:
        size = cluster_chunk_size(len(files), sum(client.nthreads().values()))
        futures = client.map(fetch_chunk, chunks(files, size), settings=settings, force=force, pure=False)
        return [outcome for chunk in client.gather(futures) for outcome in chunk]


def connect(address: str):
    """A client of the scheduler at `address` once a worker has joined it; one line if none does
    in time (a cluster without workers would hold the chunks forever)."""
    with needs_extra("dask", "--dask"):
        from distributed import Client
    try:
        client = Client(address, timeout=CONNECT_SECONDS, set_as_default=False)
    except OSError as exc:
        raise DaskUnavailable(f"the Dask scheduler {address} did not answer: {exc}") from exc
    try:
        client.wait_for_workers(1, timeout=WORKER_SECONDS)
    except TimeoutError as exc:
        client.close()
        raise DaskUnavailable(f"no Dask worker joined the scheduler {address} within {WORKER_SECONDS} s") from exc
    return client


def cluster_chunk_size(files: int, threads: int) -> int:
    """Files per chunk: CHUNKS_PER_THREAD chunks per worker thread."""
    return max(1, math.ceil(files / (max(threads, 1) * CHUNKS_PER_THREAD)))
