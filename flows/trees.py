"""Tree flow: every round asked for, read from its submission tree (warehouse/trees/run.py read_trees,
the pipeline's one entry point): a round with no published table rebuilt in one pass over its tree;
for a round with a table, the run summaries and system descriptions its loaded rows name, fetched
and parsed in chunks as Prefect tasks on a thread pool (at most `concurrency` in flight) or as plain
functions on a Dask cluster (one Prefect task here hands them out); then the views rebuilt. This
only schedules the work.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass

from flows.steps import as_completed, call, flow, run_logger, submit, task
from warehouse import counts
from warehouse.identity.rounds import Round
from warehouse.ingest.fetch import FetchSettings
from warehouse.settings import current as current_settings
from warehouse.settings import variable
from warehouse.store import db, lock
from warehouse.store.checked import CheckedWarehouse
from warehouse.trees.distributing import check_cluster_run, fetch_on_cluster
from warehouse.trees.fetching import DEFAULT_CHUNK, FileOutcome, TreeFile, chunks, fetch_chunk
from warehouse.trees.loading import TreeOutcome
from warehouse.trees.run import read_trees
from warehouse.views.materialize import views_behind_data

DASK_ADDRESS_ENV = variable("dask_address")
DEFAULT_CONCURRENCY = 8


@dataclass(frozen=True)
class TreeRun:
    """How to run the tree ingest: where (a Dask scheduler address, or None for a thread pool in
    this process) and, on the thread pool, chunks in flight and files per chunk (on Dask the chunks
    are sized to the cluster's threads)."""
    concurrency: int = DEFAULT_CONCURRENCY
    chunk_size: int = DEFAULT_CHUNK
    dask_address: str | None = None
    force: bool = False
    git: str | None = None           # clone the trees of rounds with no table from <git>/inference_results_vX.Y

    def __post_init__(self):
        if self.concurrency < 1 or self.chunk_size < 1:
            raise ValueError(f"concurrency and chunk size must be at least 1 "
                             f"(got {self.concurrency} and {self.chunk_size})")


def dask_address(explicit: str | None = None) -> str | None:
    """--dask, else MLPERF_DASK_ADDRESS, else None (a thread pool)."""
    return explicit or current_settings().dask_address


@task(name="fetch-and-parse-tree-files")
def fetch_and_parse(files, settings: FetchSettings, force: bool):
    return fetch_chunk(files, settings, force)


@task(name="fetch-and-parse-tree-files-on-dask")
def fetch_and_parse_on_dask(files, settings: FetchSettings, run: TreeRun):
    return fetch_on_cluster(run.dask_address, files, settings, run.force)


def fetch_all(files: list[TreeFile], settings: FetchSettings, run: TreeRun) -> list[FileOutcome]:
    """On Dask, one task in this process that maps plain chunks over the workers; else a task per
    chunk on the thread pool."""
    if run.dask_address:
        return call(fetch_and_parse_on_dask, files, settings, run)
    chunk_results = bounded(lambda c: submit(fetch_and_parse, c, settings, run.force),
                            chunks(files, run.chunk_size), run.concurrency)
    outcomes = []
    for chunk in chunk_results:
        outcomes += chunk
        counts.counted(len(outcomes), len(files), "files fetched")  # `trees` shows it on a terminal
    return outcomes


def bounded(submit, items, limit: int):
    """Submit one task per item, never more than `limit` unfinished; yield results as they end."""
    pending = []
    for item in items:
        if len(pending) >= limit:
            done = next(as_completed(pending))
            pending.remove(done)
            yield done.result()
        pending.append(submit(item))
    for future in as_completed(pending):
        yield future.result()


@flow(name="ingest-trees")
def ingest_trees(rounds: list[Round], source: str, db_file: str | CheckedWarehouse, run: TreeRun) -> TreeOutcome:
    """The clones (`run.git`) first, over the network, with no lock on the warehouse: a backfill
    beside a slow server runs meanwhile. Then, under the writer lock, as every run that writes:
    another writer waits, and a signal says truly what it left (the rounds rebuilt before it are
    kept; a load in flight rolls back)."""
    started = time.perf_counter()
    logger = run_logger()
    settings = FetchSettings.from_env()
    with cloned(run.git, rounds, db_file) as clones, \
            lock.writer(db_file, "mlperf-wh trees", on_wait=logger.warning) as held:
        db_file = held.warehouse  # checked once (warehouse.store.checked): the steps below open it as it is
        result = read_trees(rounds, source, db_file, workers=run.concurrency, dask_address=run.dask_address,
                            clones=clones, force=run.force, fetch=lambda files: fetch_all(files, settings, run))
        if result.unnamed:
            logger.warning("%s result rows name no run folder (no Location): reload their round with "
                           "`mlperf-wh backfill --force --rounds ...`", result.unnamed)
        with db.connect(db_file) as con:
            views_stale = wrote_anything(result) or views_behind_data(con)
        if views_stale:  # a rerun that found every file as it was leaves the views as they are
            from flows.run_rounds import materialize_views  # here: the rounds' run (0.25 s to import) only then
            call(materialize_views, db_file)
    result.seconds = time.perf_counter() - started
    for line in (r.line() for r in result.rebuilt):
        logger.info(line)
    for problem in result.problems:
        logger.warning(problem)
    logger.info("tree files: %s in %.1f s", result.counts, result.seconds)
    return result


@contextmanager
def cloned(git: str | None, rounds: list[Round], db_file: str):
    """The clones of the rounds with no table, from `git`, in the warehouse's trees/ folder; each
    round's clone lock held for the block (trees/cloning.py). Nothing without `git`."""
    if not git:
        yield {}
        return
    from warehouse.trees.clone_folders import clones_folder
    from warehouse.trees.cloning import held_clones
    with held_clones(git, [r for r in rounds if not r.has_table], clones_folder(db_file)) as clones:
        yield clones


def wrote_anything(result: TreeOutcome) -> bool:
    """A round rebuilt, or a tree file whose row was written (anything but unchanged)."""
    return any(not (r.unchanged or r.missing) for r in result.rebuilt) or any(
        status != "unchanged" for status, n in result.counts.items() if n)


def run_trees(rounds: list[Round], source: str, db_file: str, run: TreeRun = TreeRun()) -> TreeOutcome:
    """The tree ingest on the runner `run` asks for."""
    if run.dask_address:
        check_cluster_run(source)
    return call(ingest_trees.with_options(max_workers=run.concurrency), rounds, source, db_file, run)
