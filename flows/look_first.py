"""Look before orchestrating. A backfill or a watch first looks at every round's file, cheaply
(warehouse.ingest.look), under the writer lock; when every round is as its last load left it (or not
published) and the views are built from the SQL and reference files as they are now, there is
nothing to orchestrate: the run records that (one `unchanged` load event per round, `mlperf-wh
history`), prints the same report and ends, without a Prefect server or a flow run. Otherwise the
flow runs as always and fetches again (a conditional GET, or a checksum of a local file).

No Prefect import here: a run that finds nothing new should cost what looking costs."""
from __future__ import annotations

from pathlib import Path

from warehouse.export.outputs import regenerate_after_run
from warehouse.export.run_report import RunReport, build
from warehouse.ingest.fetch import FetchSettings
from warehouse.ingest.history import Run, record_unchanged
from warehouse.ingest.look import Plan, Unchanged, look_at_rounds
from warehouse.notify.run import after_run
from warehouse.store import db, lock
from warehouse.store.checked import CheckedWarehouse
from warehouse.store.warehouse_file import file_errors
from warehouse.views.materialize import views_behind_data, views_current


def unless_changed(plan: Plan, source: str, db_file: str | CheckedWarehouse, kind: str,
                   views_must_be_current: bool) -> RunReport | None:
    """The run's report when nothing changed (recorded in load_events; the published copy stays as it
    is, and a reader refreshes it when it next opens it); None when a round needs the flow or, with
    `views_must_be_current` (a backfill rebuilds the views), the views were built from other SQL or
    reference files."""
    if not Path(db_file).exists():
        return None
    settings = FetchSettings.from_env()
    with lock.writer(db_file, f"mlperf-wh {kind}") as held, file_errors(), db.connect(held.warehouse) as con:
        if (views_must_be_current and not views_current(con)) or views_behind_data(con):
            return None
        rounds, _found = plan(con)
        looked = look_at_rounds(con, rounds, source, settings)
        if looked is None:
            return None
        run = Run(kind)
        for found in looked:
            if isinstance(found, Unchanged):
                record_unchanged(con, found.outcome, run, found.sha256)
        outcomes = [found.outcome if isinstance(found, Unchanged) else found for found in looked]
        waited = f"{held.waited_seconds:.1f} s for {held.waited_for}" if held.waited_for else None
        report = build(con, kind, None, outcomes, None, waited)
        after_run(con, report, None)  # a decision whose review date has passed is announced
    regenerate_after_run(outcomes, held.warehouse.path)
    return report
