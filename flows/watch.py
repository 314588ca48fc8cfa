"""The watcher: a `watch-rounds` flow, deployed on a cron schedule, that finds new and changed rounds.

Each run looks, cheaply, at
  - every round in the round table (registry and found) that is not loaded: a GET that a source
    without the round answers 404;
  - every loaded round's file: a conditional GET (ETag / Last-Modified: 304 when unchanged; a local
    file: its sha256);
  - the names the round after the newest known one may carry (after v6.1: v6.2 and v7.0).
A round that appears is loaded and recorded in the round table (dated the day it was first seen);
a changed file is reloaded; a round loaded has its submission tree read too (its files only: the
run summaries and system descriptions its results name; other rounds' trees are not read); then
the views refresh. A run with nothing new changes nothing.
"""
from __future__ import annotations

import datetime as dt

from flows.ingest import RoundsFailed
from flows.ingest import deployment as backfill_deployment
from flows.local_runs import run_here
from flows.parameters import deployable_source
from flows.run_names import name_scheduled_runs, name_this_deployments_runs
from flows.run_rounds import MAX_WORKERS, run_rounds
from flows.steps import flow, run_logger
from warehouse.export.run_report import RunReport
from warehouse.identity.round_table import rounds_to_watch
from warehouse.identity.rounds import resolve_source
from warehouse.notify.failure import failure_notified
from warehouse.store import db


def watch_run_name(scheduled_start: dt.datetime | None) -> str:
    """What a watch-rounds run is called: by when it was scheduled to start (UTC)."""
    return f"watch-rounds-{scheduled_start:%Y-%m-%dT%H%M}" if scheduled_start else "watch-rounds"


def _watch_run_name() -> str:
    from prefect.runtime import flow_run
    return watch_run_name(flow_run.scheduled_start_time)


@flow(name="watch-rounds", flow_run_name=_watch_run_name, max_workers=MAX_WORKERS)
def watch_rounds(source: str | None = None, db_file: str | None = None) -> RunReport:
    """Find and load new or changed rounds; fails (after every round has run) when a round failed.
    However it fails, its targets are told (warehouse.notify.failure)."""
    with failure_notified(db.db_path(db_file), "watch", run_logger().warning):
        report = run_rounds(rounds_to_watch, resolve_source(source), db.db_path(db_file), "watch",
                            refresh_always=False, trees=True)
        name_this_deployments_runs(watch_run_name)
        if report.failed:
            raise RoundsFailed(report)
        return report


def watch_once(source: str, db_file: str) -> RunReport:
    """`mlperf-wh watch`: the watch-rounds flow, run here once; the report even when a round failed."""
    try:
        return run_here(watch_rounds, source, db_file)
    except RoundsFailed as failed:
        return failed.report


def deployments(cron: str, source: str | None = None, db_file: str | None = None) -> list:
    """watch-rounds on `cron`; backfill on demand (run it from the UI or `prefect deployment run`)."""
    source = deployable_source(source)
    watcher = watch_rounds.to_deployment(
        name="mlperf-watch-rounds", cron=cron, parameters={"source": source, "db_file": db_file},
        description="Look for new or changed MLPerf Inference rounds and load them; the run report is "
                    "on each run's Artifacts tab.")
    backfill = backfill_deployment(None, source, db_file)
    return [watcher, backfill]


def serve_deployments(cron: str, source: str | None, db_file: str | None, on_serving):
    """`mlperf-wh serve`: both deployments registered, the watcher's upcoming runs named, then
    served from here until SIGINT or SIGTERM -> flows.serving.Stopped."""
    from flows.serving import register, serve_until_stopped  # Prefect's runner: 0.3 s to import
    runner = register(deployments(cron, source, db_file))
    name_scheduled_runs(runner.deployment_ids[0], watch_run_name)  # deployments(): the watcher first
    return serve_until_stopped(runner, on_serving)
