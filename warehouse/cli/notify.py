"""`notify` (the notification targets: try each with --test, or read the last deliveries) and
`decisions due` (the decisions due for review now, and whether a message has announced each)."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from warehouse.cli.console import Format, error, note, print_rows, say
from warehouse.cli.global_options import command, reading_file
from warehouse.cli.ledger import decisions
from warehouse.errors import EXIT_FAILED, EXIT_OK, ExpectedFailure

Fmt = Annotated[Format, typer.Option("--format", help="table, csv or json")]
NO_TARGET = ("no notification target: set MLPERF_NOTIFY to one or more Apprise URLs (json://host/path, "
             "slack://..., mailto://...), or MLPERF_NOTIFY_BLOCK with a Prefect API (docs/operations-guide.md)")
TEST_TITLE = "MLPerf warehouse: test message"
TEST_BODY = ("A test of `mlperf-wh notify --test`: this target will get a message after each run that "
             "changes the warehouse (a new round, a re-published table, new leaders, a decision due) "
             "and after a failed run.")


def register(app: typer.Typer) -> None:
    command(app, "notify", "mlperf-wh notify --test",
            "MLPERF_NOTIFY=\"json://127.0.0.1:8080/hook mailto://user:app-password@gmail.com\" mlperf-wh notify --test",
            "mlperf-wh notify   (the targets, and the last deliveries)")(notify)


def notify(test: Annotated[bool, typer.Option("--test", help=(
        "send a test message to each target now and say what each answered (exit 1 when one did not "
        "accept it)"))] = False, fmt: Fmt = Format.table) -> int:
    """The targets runs notify (MLPERF_NOTIFY, MLPERF_NOTIFY_BLOCK) and the last deliveries; --test
    sends each a test message."""
    import polars as pl

    from warehouse.notify.deliver import Message, configured_targets, deliver
    targets = configured_targets()
    if not targets:
        raise ExpectedFailure(NO_TARGET)
    if not test:
        print_rows(pl.DataFrame({"target": [t.label for t in targets]}), fmt)
        recent = last_deliveries()
        if recent is not None and recent.height:
            note("\nthe last deliveries:")
            print_rows(recent, fmt)
        return EXIT_OK
    results = deliver(Message(TEST_TITLE, TEST_BODY), targets)
    print_rows(pl.DataFrame({"target": [d.target for d in results], "delivered": [d.delivered for d in results],
                             "attempts": [d.attempts for d in results],
                             "reason": [d.reason or "" for d in results]}), fmt)
    for failed in (d for d in results if not d.delivered):
        error(f"{failed.target}: not delivered: {failed.reason}")
    return EXIT_FAILED if any(not d.delivered for d in results) else EXIT_OK


def last_deliveries(limit: int = 10):
    from warehouse.cli.global_options import current
    from warehouse.store import db
    if not Path(db.db_path(current().db)).exists():
        return None
    import duckdb
    with db.connect(reading_file(), read_only=True) as con:
        try:
            return db.query_frame(con, "SELECT attempted_at, run_kind, target, title, delivered, attempts, reason "
                                       f"FROM deliveries ORDER BY attempted_at DESC LIMIT {int(limit)}")
        except duckdb.CatalogException:  # a warehouse no run of this version has written yet
            return None


DUE = """
    SELECT d.id, d.title, d.review_due, d.due_because, n.noticed_at AS announced_at
    FROM decisions_due AS d LEFT JOIN {notices} AS n ON n.decision_id = d.id AND n.due_because = d.due_because
    ORDER BY d.id"""
NO_NOTICES = "(SELECT NULL::VARCHAR AS decision_id, NULL::VARCHAR AS due_because, NULL::TIMESTAMPTZ AS noticed_at)"


@command(decisions, "due", "mlperf-wh decisions due", "mlperf-wh decisions due --format json")
def decisions_due(fmt: Fmt = Format.table) -> int:
    """The decisions due for review now (their review round is loaded, or their review date has
    passed), and when a message announced each."""
    import duckdb

    from warehouse.store import db
    with db.connect(reading_file(), read_only=True) as con:
        try:
            frame = db.query_frame(con, DUE.format(notices="decision_notices"))
        except duckdb.CatalogException:  # written by an earlier version: nothing announced yet
            try:
                frame = db.query_frame(con, DUE.format(notices=NO_NOTICES))
            except duckdb.CatalogException:
                raise ExpectedFailure("the warehouse has no views yet: run `mlperf-wh backfill` first") from None
    if fmt is Format.table and frame.height == 0:
        say("no decision is due for review")
        return EXIT_OK
    print_rows(frame, fmt)
    return EXIT_OK
