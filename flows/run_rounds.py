"""The shape every run of rounds shares (backfill, watch-rounds): one flow run, one task per round.

    flow run (holds the warehouse's writer lock)
      ├─ ingest-v4.1, ingest-v5.1, ...   tasks submitted together to a thread pool: fetch (conditional),
      │                                  parse + validate concurrently; loads one at a time (WRITE_LOCK)
      └─ in the flow: failed rounds into load_events, views, run report (artifacts), published copy

A round that fails is a Failed task run named after it; the other rounds go on.
"""
from __future__ import annotations

import contextvars
import datetime as dt
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Callable

import duckdb

from flows.steps import RetryWhen, exception_of, in_plain_run, run_logger, submit, task

from warehouse.errors import WarehouseUnavailable
from warehouse.export.outputs import regenerate_after_run
from warehouse.export.run_report import RunReport, Snapshot, build, take_snapshot
from warehouse.identity.round_table import record_found
from warehouse.identity.rounds import Round
from warehouse.ingest.fetch import (
    FetchError,
    FetchSettings,
    NotFound,
    Previous,
    cannot_connect,
    fetch,
    is_transient,
)
from warehouse.ingest.guards import GuardRefused
from warehouse.ingest.history import Run, load_with_history, record_failure
from warehouse.ingest.parse import MalformedFile
from warehouse.ingest.look import Plan, absent_locally, handed_over, not_published, previous_of
from warehouse.ingest.pipeline import RoundOutcome, prepare, source_id_for
from warehouse.interrupt import raise_if_signalled
from warehouse.notify.answers import Answers
from warehouse.notify.answers import take as take_answers
from warehouse.notify.deliver import warm_up as warm_up_notifications
from warehouse.notify.run import after_run
from warehouse.store import db, lock
from warehouse.store.checked import CheckedWarehouse
from warehouse.store.publish import publish
from warehouse.store.warehouse_file import file_errors
from warehouse.views import materialize
from warehouse.views.materialize import views_behind_data

EXPECTED_FAILURES = (FetchError, MalformedFile, GuardRefused, WarehouseUnavailable)
WRITE_LOCK = threading.Lock()  # DuckDB: one writing connection at a time, also within this process
MAX_WORKERS = 4  # rounds of a run at once


@task(name="materialize-views")
def materialize_views(db_file: str | CheckedWarehouse) -> list[str]:
    with file_errors(), db.connect(db_file) as con:
        return materialize(con)


@task(name="ingest-round", task_run_name="ingest-{round_name}",
      retries=FetchSettings.retries, retry_delay_seconds=FetchSettings().retry_delays(),
      retry_condition_fn=RetryWhen(is_transient))
def ingest_round(round_name: str, round: Round, source: str, db_file: CheckedWarehouse, settings: FetchSettings,
                 force: bool, run: Run, previous: dict[str, Previous | None],
                 before: "BeforeFirstLoad", allow: frozenset[str] = frozenset()) -> RoundOutcome:
    """The first candidate file the source has: fetched (conditionally), parsed, validated, loaded.
    Raises on a failed fetch or a malformed file (the task run is Failed)."""
    for file_name, location in round.locations(source):
        known = previous.get(location)
        try:
            # --force must get the bytes: no conditional request, or a 304 leaves nothing to parse.
            fetched = handed_over(location) or fetch(location, file_name, settings, None if force else known)
        except NotFound:
            continue
        source_id = source_id_for(round_name, "official", file_name)
        if fetched.unchanged_since(known) and not force:
            return RoundOutcome(round_name, "unchanged", source_id=source_id, location=location,
                                message="unchanged since the last load")
        prepared = prepare(fetched.content, file_name, round_name, "official", location)
        with WRITE_LOCK, file_errors(), db.connect(db_file) as con:
            before.take(con)
            return load_with_history(con, fetched, prepared, round_name, "official", run, allow)
    return not_published(round_name, source)


class BeforeFirstLoad:
    """The answers before this run's first load, for the report and the notification; a run that
    loads nothing never pays for them."""

    def __init__(self):
        self.snapshot: Snapshot | None = None
        self.answers: Answers | None = None

    def take(self, con: duckdb.DuckDBPyConnection) -> None:
        if self.snapshot is None:
            self.snapshot = take_snapshot(con)
            self.answers = take_answers(con)


def _outcome(round: Round, future) -> RoundOutcome:
    future.wait()
    if future.state.is_completed():
        return future.result()
    exc = exception_of(future.state)
    raise_if_signalled(exc)  # an interrupt stops the run; it is never one broken round
    message = str(exc) if isinstance(exc, EXPECTED_FAILURES) else f"{type(exc).__name__}: {exc}"
    status = "refused" if isinstance(exc, GuardRefused) else "failed"
    return RoundOutcome(round.name, status, source_id=source_id_for(round.name, "official", round.files[0]),
                        message=message, unreachable=exc is not None and cannot_connect(exc))


def current_flow_run_id() -> str | None:
    if in_plain_run():
        return None
    from prefect.runtime import flow_run
    return flow_run.id


def run_rounds(plan: Plan, source: str, db_file: str | CheckedWarehouse, kind: str, force: bool = False,
               refresh_always: bool = True, allow: frozenset[str] = frozenset(), trees: bool = False) -> RunReport:
    """Run the rounds `plan` picks (reading the warehouse, under the writer lock) in the current
    flow run. The plan's second part: rounds the registry does not list, recorded in the round
    table when they load. With `trees`, each round loaded has its submission tree read too (its
    files only), before the views refresh, in the same report. Views refresh after a load (always,
    with refresh_always). `db_file`: a path, checked as the lock is taken, or the warehouse the
    command checked (warehouse.store.checked), not checked again."""
    run = Run(kind, current_flow_run_id())
    settings = FetchSettings.from_env()
    warm_up_notifications()  # ready when the run has loaded
    logger = run_logger()
    # One connection open for the whole run, under the lock: DuckDB opens a file once per process,
    # so the rounds' own connections share this open database instead of reading its catalog again
    # each (and checkpointing it as each one closes).
    with lock.writer(db_file, f"mlperf-wh {kind}", on_wait=logger.warning) as held, \
            db.connect(held.warehouse) as con:
        warehouse = held.warehouse  # checked once: the rounds' connections and the copy's publish open it as it is
        rounds, found = plan(con)
        ingest = ingest_round.with_options(retries=settings.retries, retry_delay_seconds=settings.retry_delays())
        before = BeforeFirstLoad()
        futures = {r.name: submit(ingest, r.name, r, source, warehouse, settings, force, run,
                                  previous_of(con, r, source), before, allow)
                   for r in rounds if not absent_locally(r, source)}
        outcomes = [_outcome(r, futures[r.name]) if r.name in futures else not_published(r.name, source)
                    for r in rounds]
        loaded = [o for o in outcomes if o.status == "loaded"]
        for outcome in outcomes:
            if outcome.failed:
                logger.error("%s failed: %s", outcome.round, outcome.message)
                record_failure(con, outcome, run)
            elif outcome.status == "loaded" and outcome.round in found:
                record_found(con, found[outcome.round], dt.date.today())
        tree_lines = _read_trees(con, [r for r in rounds if r.name in {o.round for o in loaded}], source,
                                 settings) if trees and loaded else []
        rebuilt = bool(loaded) or refresh_always or views_behind_data(con)  # a run stopped before its rebuild
        if rebuilt:
            materialize(con)
        waited = f"{held.waited_seconds:.1f} s for {held.waited_for}" if held.waited_for else None
        report = build(con, kind, run.flow_run_id, outcomes, before.snapshot, waited)
        report.trees = tree_lines
        for line in after_run(con, report, before.answers).warnings():
            logger.warning(line)  # on the flow run; the CLI prints the report's warnings
        with alongside(publish_artifacts, report):  # the server's round trips while the copy is written
            if rebuilt:
                publish(warehouse)
    regenerate_after_run(outcomes, warehouse.path)
    return report


def _read_trees(con, rounds: list[Round], source: str, settings: FetchSettings) -> list[str]:
    """The loaded rounds' trees (trees/run.py read_trees_here), each round's line logged; a tree that
    cannot be read is its line, the tables loaded stay loaded."""
    from warehouse.trees.run import read_trees_here
    logger = run_logger()
    try:
        lines = read_trees_here(con, rounds, source, settings)
    except EXPECTED_FAILURES as exc:
        lines = [f"{', '.join(r.name for r in rounds)}: submission trees not read: {exc}"]
    for line in lines:
        logger.info(line)
    return lines


@contextmanager
def alongside(fn: Callable, *args):
    """fn(*args) in another thread, in this thread's context (Prefect's run context goes with it),
    while the block runs; its exception, if any, raised after the block."""
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1) as pool:
        done = pool.submit(context.run, fn, *args)
        yield
    done.result()


def publish_artifacts(report: RunReport) -> None:
    """The run report on the flow run, as markdown and as a table (Prefect UI: the run's Artifacts)."""
    if report.flow_run_id is None:
        return
    from prefect.artifacts import create_markdown_artifact, create_table_artifact
    create_markdown_artifact(report.markdown(), key=f"{report.kind}-report",
                             description=report.headline())
    create_table_artifact(report.table(), key=f"{report.kind}-rounds",
                          description="per round: rows read / loaded / quarantined, drift, new and changed results")
