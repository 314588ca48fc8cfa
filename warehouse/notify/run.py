"""After a run, under its writer lock: record what moved in the answers, announce the decisions that
fell due (to each target until it received them: decision_announcements), compose the run's one
message and deliver it to every target. Never raises: a run's outcome and exit code are what its
rounds made them."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timezone

from pathlib import Path

import duckdb

from warehouse.export.run_report import RunReport, failure_lines
from warehouse.notify import answers, fates
from warehouse.notify.deliver import Delivery, Message, Target, configured_targets, deliver, deliver_each, record
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


# Decisions due that a target has not received for this reason. A decision announced before
# announcements were kept per target (a decision_notices row and no decision_announcements row for
# it) counts as received by every target, as the rule of then held.
DUE_FOR_TARGET = """
    SELECT d.id, d.due_because FROM decisions_due AS d
    WHERE NOT EXISTS (SELECT 1 FROM decision_announcements AS a WHERE a.decision_id = d.id
                      AND a.due_because = d.due_because AND a.target_key = ?)
      AND NOT EXISTS (SELECT 1 FROM decision_notices AS n WHERE n.decision_id = d.id AND n.due_because = d.due_because
                      AND NOT EXISTS (SELECT 1 FROM decision_announcements AS a WHERE a.decision_id = d.id
                                      AND a.due_because = d.due_because))
    ORDER BY d.id"""


def due_for(con: duckdb.DuckDBPyConnection, target: Target) -> dict[str, str]:
    """The decisions due that `target` has not received yet (for why they are due now)."""
    try:
        return dict(con.execute(DUE_FOR_TARGET, [target.identity]).fetchall())
    except duckdb.CatalogException:  # the views were never built
        return {}


def announce(con: duckdb.DuckDBPyConnection, target: Target, due: dict[str, str]) -> None:
    """`target` received these decisions due: never told them again for the same reason."""
    if due:
        now = datetime.now(timezone.utc)
        con.executemany("INSERT OR REPLACE INTO decision_announcements (decision_id, due_because, target, target_key, "
                        "announced_at) VALUES (?, ?, ?, ?, ?)",
                        [[decision, because, target.label, target.identity, now] for decision, because in due.items()])


def unrecorded(con: duckdb.DuckDBPyConnection, due: list[answers.Move]) -> list[answers.Move]:
    """The decisions due that answer_changes does not hold yet for this reason: one whose message no
    target received is told again by the next run, and recorded once."""
    recorded = set(con.execute("SELECT subject, after FROM answer_changes WHERE kind = 'decision_due'").fetchall())
    return [m for m in due if (m.subject, m.after) not in recorded]


def mark_announced(con: duckdb.DuckDBPyConnection, due: dict[str, str]) -> None:
    """The first announcement of each (to any target, or with none, by the run's own output)."""
    noticed = dict(con.execute("SELECT decision_id, due_because FROM decision_notices").fetchall())
    new = {decision: because for decision, because in due.items() if noticed.get(decision) != because}
    if new:
        now = datetime.now(timezone.utc)
        con.executemany("INSERT OR REPLACE INTO decision_notices (decision_id, due_because, noticed_at) VALUES (?, ?, ?)",
                        [[decision, because, now] for decision, because in new.items()])


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
    loaded = [o.source_id for o in report.outcomes if o.status == "loaded" and o.source_id]
    moves = answers.moves_between(before, answers.take(con)) if before is not None else []
    moves = fates.explained(con, moves, loaded)
    targets = configured_targets()
    pending = {t.identity: due_for(con, t) for t in targets}  # what each target has not received
    due = newly_due(con) if not targets else {d: b for each in pending.values() for d, b in each.items()}
    answers.record(con, moves + unrecorded(con, answers.due_moves(due)), report.kind, report.flow_run_id)
    failed = [o for o in report.outcomes if o.failed]
    rows = rows_of_loads(con, loaded)

    def message_with(due_now: dict[str, str]) -> Message | None:
        return compose(report.kind, failure_lines(failed), [o.round for o in failed], moves,
                       answers.due_moves(due_now), rows, report.flow_run_id, report.trees)
    if not targets:
        mark_announced(con, due)  # no one to tell: answer_changes and the run's own lines announce it
        return Notified(message_with(due))
    # One message per set of decisions its targets still lack (all alike, unless one was down)
    messages = {frozenset(p.items()): message_with(p) for p in pending.values()}
    sends = [(messages[frozenset(pending[t.identity].items())], t) for t in targets]
    sends = [(message, t) for message, t in sends if message is not None]
    notified = Notified(sends[0][0] if sends else None, deliver_each(sends))
    for (message, target), delivery in zip(sends, notified.deliveries):
        record(con, message, [delivery], report.kind, report.flow_run_id)
        if delivery.delivered:  # else the next run tells this target again
            announce(con, target, pending[target.identity])
            mark_announced(con, pending[target.identity])
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
