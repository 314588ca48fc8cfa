"""After a run, under its writer lock: record what moved in the answers, announce the decisions that
fell due (each once: decision_notices), compose the run's one message and deliver it to every target.
Never raises: a run's outcome and exit code are what its rounds made them."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone

from pathlib import Path

import duckdb

from warehouse.export.run_report import RunReport, failure_lines
from warehouse.notify import answers
from warehouse.notify.deliver import Delivery, Message, configured_targets, deliver, record
from warehouse.notify.message import compose, rows_of_loads
from warehouse.store import db
from warehouse.store.lock import writer

log = logging.getLogger("mlperf.notify")


@dataclass
class Notified:
    message: Message | None = None
    deliveries: list[Delivery] = field(default_factory=list)
    problem: str | None = None        # what stopped the notification itself (never the run)

    def warnings(self) -> list[str]:
        lines = [f"notification to {d.target} not delivered after {d.attempts} attempt"
                 f"{'s' if d.attempts != 1 else ''}: {d.reason} (recorded in deliveries)"
                 for d in self.deliveries if not d.delivered]
        return lines + ([f"notification: {self.problem}"] if self.problem else [])


def newly_due(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Decisions due now whose falling due (for this reason) no run has announced yet."""
    try:
        found = con.execute("SELECT d.id, d.due_because FROM decisions_due AS d LEFT JOIN decision_notices AS n "
                            "ON n.decision_id = d.id WHERE n.due_because IS DISTINCT FROM d.due_because "
                            "ORDER BY d.id").fetchall()
    except duckdb.CatalogException:  # the views were never built
        return {}
    return dict(found)


def unrecorded(con: duckdb.DuckDBPyConnection, due: list[answers.Move]) -> list[answers.Move]:
    """The decisions due that answer_changes does not hold yet for this reason: one whose message no
    target received is told again by the next run, and recorded once."""
    recorded = set(con.execute("SELECT subject, after FROM answer_changes WHERE kind = 'decision_due'").fetchall())
    return [m for m in due if (m.subject, m.after) not in recorded]


def mark_announced(con: duckdb.DuckDBPyConnection, due: dict[str, str]) -> None:
    if due:
        now = datetime.now(timezone.utc)
        con.executemany("INSERT OR REPLACE INTO decision_notices (decision_id, due_because, noticed_at) VALUES (?, ?, ?)",
                        [[decision, because, now] for decision, because in due.items()])


def after_run(con: duckdb.DuckDBPyConnection, report: RunReport, before: answers.Answers | None) -> Notified:
    """`before`: the answers before the run's first load (None when it loaded nothing). What went
    wrong with the notification is added to the report's warnings."""
    try:
        notified = _after_run(con, report, before)
    except Exception as exc:  # noqa: BLE001 - a notification never fails the run it reports
        log.debug("notification not sent", exc_info=True)
        notified = Notified(problem=f"{type(exc).__name__}: {exc}")
    report.warnings += notified.warnings()  # printed by the CLI after the report
    return notified


def _after_run(con: duckdb.DuckDBPyConnection, report: RunReport, before: answers.Answers | None) -> Notified:
    moves = answers.moves_between(before, answers.take(con)) if before is not None else []
    due = newly_due(con)
    due_moves = answers.due_moves(due)
    answers.record(con, moves + unrecorded(con, due_moves), report.kind, report.flow_run_id)
    failed = [o for o in report.outcomes if o.failed]
    rows = rows_of_loads(con, [o.source_id for o in report.outcomes if o.status == "loaded" and o.source_id])
    message = compose(report.kind, failure_lines(failed), [o.round for o in failed], moves, due_moves, rows,
                      report.flow_run_id, report.trees)
    targets = configured_targets()
    if message is None or not targets:
        mark_announced(con, due)  # no one to tell: answer_changes and the run's own lines announce it
        return Notified(message)
    notified = Notified(message, deliver(message, targets))
    record(con, message, notified.deliveries, report.kind, report.flow_run_id)
    if any(d.delivered for d in notified.deliveries):  # else the next run announces it again
        mark_announced(con, due)
    return notified


def after_failure(db_file: str, kind: str, line: str, record_it: bool = True) -> Notified:
    """A run that failed as a whole (warehouse.notify.failure: its source missing, the warehouse held,
    a bug): its error line to every target, recorded in `deliveries` when the warehouse exists and
    `record_it` (not when the warehouse is what failed). Never raises."""
    try:
        targets = configured_targets()
        if not targets:
            return Notified()
        message = compose(kind, [line], [], [], [], [], None)
        notified = Notified(message, deliver(message, targets))
    except Exception as exc:  # noqa: BLE001 - the run's own failure is what the caller reports
        return Notified(problem=f"{type(exc).__name__}: {exc}")
    try:
        if record_it and Path(db_file).exists():
            with writer(db_file, f"mlperf-wh {kind} (recording its failure's notification)") as held, \
                    db.connect(held.warehouse) as con:
                record(con, message, notified.deliveries, kind, None)
    except Exception as exc:  # noqa: BLE001 - a warehouse that cannot be written is said, not raised
        notified.problem = f"its delivery was not recorded: {type(exc).__name__}: {exc}"
    return notified
