"""Backfill every round (one flow run, one task per round: flows/run_rounds.py), ingest one file."""
from __future__ import annotations

import datetime as dt
import logging
from pathlib import Path

from flows.parameters import deployable_source
from flows.run_rounds import EXPECTED_FAILURES, MAX_WORKERS, current_flow_run_id, materialize_views, run_rounds
from flows.steps import RetryWhen, call, flow, in_plain_run, run_logger, task
from warehouse.export.run_report import RunReport, build
from warehouse.identity.round_table import record_loaded
from warehouse.identity.rounds import Round, load_registry, parse_round_list, resolve_rounds, resolve_source, with_tables
from warehouse.ingest.fetch import FetchSettings, NotFound, Previous, cannot_connect, fetch, is_transient
from warehouse.ingest.guards import GuardRefused
from warehouse.errors import WarehouseUnavailable
from warehouse.ingest.history import Run, load_with_history, record_failure
from warehouse.ingest.look import these_rounds
from warehouse.ingest.pipeline import Prepared, RoundOutcome, prepare, previous_fetch, source_id_for
from warehouse.ingest.source_urls import redact
from warehouse.ledger.claims import due_decision_ids
from warehouse.notify.answers import take as take_answers
from warehouse.notify.deliver import warm_up as warm_up_notifications
from warehouse.notify.failure import failure_notified
from warehouse.notify.run import after_run
from warehouse.store import db
from warehouse.store.checked import CheckedWarehouse, checked
from warehouse.store.lock import WarehouseBusy, writer
from warehouse.store.publish import publish
from warehouse.store.warehouse_file import file_errors

ONE_LINE_FAILURES = EXPECTED_FAILURES + (WarehouseBusy,)


class _OneLineForExpectedFailures(logging.Filter):
    """Network and file problems are reported in one line; tracebacks are kept for bugs."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and isinstance(record.exc_info[1], ONE_LINE_FAILURES):
            record.exc_info, record.exc_text = None, None
        return True


for _name in ("prefect.task_runs", "prefect.flow_runs"):
    logging.getLogger(_name).addFilter(_OneLineForExpectedFailures())


# The declared retries are FetchSettings' defaults; a run applies its own settings (_fetcher).
@task(name="fetch", retries=FetchSettings.retries, retry_delay_seconds=FetchSettings().retry_delays(),
      retry_condition_fn=RetryWhen(is_transient))
def fetch_file(location: str, file_name: str, settings: FetchSettings, previous: Previous | None):
    """The fetched file, or None when the source does not have it (HTTP 404, no such file)."""
    try:
        return fetch(location, file_name, settings, previous)
    except NotFound:
        return None


@task(name="parse-and-validate")
def parse_and_validate(content: bytes, file_name: str, round_name: str, origin: str, label: str) -> Prepared:
    return prepare(content, file_name, round_name, origin, label)


@task(name="load")
def load_into_warehouse(db_file: str | CheckedWarehouse, fetched, prepared: Prepared, round_name: str, origin: str,
                        allow: frozenset[str] = frozenset()) -> RoundOutcome:
    with file_errors(), db.connect(db_file) as con:
        return load_with_history(con, fetched, prepared, round_name, origin, Run("ingest", current_flow_run_id()),
                                 allow)


def due_decisions(db_file: str | CheckedWarehouse) -> set[str]:
    with file_errors(), db.connect(db_file) as con:
        return due_decision_ids(con)


def newly_due_decisions(db_file: str | CheckedWarehouse, due_before: set[str]) -> list[str]:
    return sorted(due_decisions(db_file) - due_before)


@task(name="report-due-decisions")
def report_due_decisions(db_file: str | CheckedWarehouse, due_before: set[str]) -> list[str]:
    """Decisions whose review this ingest made due (their review round is now loaded)."""
    newly_due = newly_due_decisions(db_file, due_before)
    logger = run_logger()
    for decision_id in newly_due:
        logger.warning("decision %s is now due for review (mlperf-wh decisions show %s)",
                       decision_id, decision_id)
    return newly_due


def _fetcher(settings: FetchSettings):
    return fetch_file.with_options(retries=settings.retries, retry_delay_seconds=settings.retry_delays())


@flow(name="ingest-file", flow_run_name="ingest-{round_name}-{origin}")
def ingest_file(round_name: str, path: str, origin: str, db_file: str | CheckedWarehouse,
                force: bool = False, allow: list[str] | None = None) -> RoundOutcome:
    with writer(db_file, f"mlperf-wh ingest {round_name} --file {path}", on_wait=run_logger().warning) as held:
        db_file = held.warehouse  # checked once: every step below opens it as it is
        warm_up_notifications()  # ready when the file has loaded
        before = answers_now(db_file)
        outcome = _ingest_file(round_name, path, origin, db_file, force, frozenset(allow or ()))
        notify_file_ingest(db_file, outcome, before)
        if outcome.status == "loaded":
            publish(db_file)
    return outcome


def answers_now(db_file: str | CheckedWarehouse):
    if not Path(db_file).exists():
        return None
    with file_errors(), db.connect(db_file) as con:
        return take_answers(con)


def notify_file_ingest(db_file: str | CheckedWarehouse, outcome: RoundOutcome, before) -> None:
    """The file's load (or failure) told to the notification targets, as a run of rounds is."""
    if not Path(db_file).exists():
        return
    with file_errors(), db.connect(db_file) as con:
        report = build(con, "ingest", current_flow_run_id(), [outcome], None)
        for line in after_run(con, report, before if outcome.status == "loaded" else None).warnings():
            run_logger().warning(line)


def _ingest_file(round_name: str, path: str, origin: str, db_file: str | CheckedWarehouse, force: bool,
                 allow: frozenset[str]) -> RoundOutcome:
    settings = FetchSettings.from_env()
    due_before = due_decisions(db_file)
    try:
        outcome = _ingest_location(round_name, origin, Path(path).name, path, db_file, settings, force,
                                   allow)
    except EXPECTED_FAILURES as exc:
        run_logger().error("%s failed: %s", round_name, exc)
        return _recorded(db_file, _failed(round_name, path, origin, exc), exc)
    if outcome is None:
        return _recorded(db_file, RoundOutcome(round_name, "failed", source_id=_source_id(round_name, origin, path),
                                               location=path, message=f"{path}: no such file"))
    if outcome.status == "loaded" and origin == "official":
        date_the_round(db_file, round_name, Path(path).name)
    _refresh_views(db_file, due_before)
    return outcome


def date_the_round(db_file: str | CheckedWarehouse, round_name: str, file_name: str) -> None:
    """A round loaded from a file under a name the round table does not know gets the day of its first
    load as its publication date (as the watcher dates the rounds it finds), so a review due "at the
    next round" falls due on it."""
    with file_errors(), db.connect(db_file) as con:
        record_loaded(con, round_name, file_name, dt.date.today())


def _failed(round_name: str, location: str, origin: str, exc: Exception) -> RoundOutcome:
    status = "refused" if isinstance(exc, GuardRefused) else "failed"
    return RoundOutcome(round_name, status, source_id=_source_id(round_name, origin, location),
                        location=redact(location), message=str(exc), unreachable=cannot_connect(exc))


def _source_id(round_name: str, origin: str, path: str) -> str:
    return source_id_for(round_name, origin, Path(path).name)


def _recorded(db_file: str | CheckedWarehouse, outcome: RoundOutcome, exc: Exception | None = None) -> RoundOutcome:
    """A refused or failed file ingest goes into load_events as a backfill's failed rounds do; not when
    the warehouse file itself is what failed (writing the event would fail the same way)."""
    if not isinstance(exc, WarehouseUnavailable):
        with file_errors(), db.connect(db_file) as con:
            record_failure(con, outcome, Run("ingest", current_flow_run_id()))
    return outcome


def _refresh_views(db_file: str | CheckedWarehouse, due_before: set[str]) -> None:
    """After loading: rebuild the views, then report decisions whose review became due."""
    call(materialize_views, db_file)
    call(report_due_decisions, db_file, due_before)


def _ingest_location(round_name, origin, file_name, location, db_file, settings,
                     force, allow=frozenset()) -> RoundOutcome | None:
    """None when the location does not have the file."""
    source_id = source_id_for(round_name, origin, file_name)
    with file_errors(), db.connect(db_file) as con:
        previous = previous_fetch(con, source_id, location)
    # --force must get the bytes: no conditional request, or a 304 would leave nothing to parse.
    fetched = call(_fetcher(settings), location, file_name, settings, None if force else previous)
    if fetched is None:
        return None
    if fetched.unchanged_since(previous) and not force:
        return RoundOutcome(round_name, "unchanged", source_id=source_id, location=location,
                            message="unchanged since the last load")
    prepared = call(parse_and_validate, fetched.content, file_name, round_name, origin, location)
    return call(load_into_warehouse, db_file, fetched, prepared, round_name, origin, allow)


def _backfill_run_name() -> str:
    from prefect.runtime import flow_run
    rounds = flow_run.parameters.get("rounds") or []
    names = [r.name if isinstance(r, Round) else r.get("name", "?") for r in rounds]
    return "backfill-" + ("-".join(names) if len(names) <= 2 else f"{names[0]}-to-{names[-1]}")


@flow(name="backfill", flow_run_name=_backfill_run_name, max_workers=MAX_WORKERS)
def backfill(rounds: list[Round], source: str, db_file: str | CheckedWarehouse, force: bool = False,
             allow: list[str] | None = None) -> RunReport:
    """Every round at once (flows/run_rounds.py): one task per round, then the views. However it
    fails, its targets are told (warehouse.notify.failure)."""
    with failure_notified(db.db_path(db_file), "backfill", run_logger().warning):
        return run_rounds(these_rounds(rounds), source, db_file, "backfill", force=force,
                          allow=frozenset(allow or ()))


def _scheduled_run_name() -> str:
    from prefect.runtime import flow_run
    return "backfill-" + (flow_run.parameters.get("rounds") or "all").replace(",", "-")


@flow(name="scheduled-backfill", flow_run_name=_scheduled_run_name, max_workers=MAX_WORKERS)
def scheduled_backfill(source: str | None = None, db_file: str | None = None, rounds: str = "",
                       trees: bool = True) -> list[dict]:
    """The deployable entry point: plain parameters, registry and defaults resolved at run time.
    With `trees`, every round that (re)loaded gets its submission-tree ingest (flows/trees.py).
    Fails (after every round has run) when a round failed; however it fails, its targets are told
    (warehouse.notify.failure)."""
    with failure_notified(db.db_path(db_file), "backfill", run_logger().warning):
        named = parse_round_list(rounds)
        chosen = with_tables(resolve_rounds(named, load_registry()), bool(named))
        warehouse = checked(db.db_path(db_file))  # once, for the rounds' run and the trees' after it
        report = run_rounds(these_rounds(chosen), resolve_source(source), warehouse, "backfill")
        loaded = [r for r, o in zip(chosen, report.outcomes) if o.status == "loaded"]
        if trees and loaded:
            from flows.trees import TreeRun, dask_address, run_trees
            run_trees(loaded, resolve_source(source), warehouse, TreeRun(dask_address=dask_address()))
        if report.failed:
            raise RoundsFailed(report)
        return [o.__dict__ for o in report.outcomes]


class RoundsFailed(RuntimeError):
    """Some rounds failed; the others were loaded. Carries the run report, whose notification told
    the failed rounds already (warehouse.notify.run.after_run)."""
    notified = True

    def __init__(self, report: RunReport):
        super().__init__(f"rounds failed: {', '.join(report.failed)}")
        self.report = report


def deployment(cron: str | None, source: str | None = None, db_file: str | None = None):
    """A Prefect deployment of the backfill: on a cron schedule (`mlperf-wh schedule`), or on demand
    (cron None: `mlperf-wh serve`, beside the watcher)."""
    return scheduled_backfill.to_deployment(
        name="mlperf-backfill", cron=cron,
        parameters={"source": deployable_source(source), "db_file": db_file},
        description="Fetch, validate and load every MLPerf Inference round; new rounds appear "
                    "after MLCommons publishes them (add them to warehouse/identity/reference/rounds.toml).",
    )


def serve_backfill(cron: str, source: str | None, db_file: str | None, on_serving):
    """`mlperf-wh schedule`: the backfill on `cron`, served from here until SIGINT or SIGTERM ->
    flows.serving.Stopped."""
    from flows.serving import register, serve_until_stopped  # Prefect's runner: 0.3 s to import
    return serve_until_stopped(register([deployment(cron, source, db_file)]), on_serving)
