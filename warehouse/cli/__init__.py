"""The CLI, `mlperf-wh`: build the warehouse, query it, and report on it. Commands only parse
arguments, call the package's functions and print; one module per group of subcommands."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import duckdb
import polars as pl

from warehouse.errors import (
    EXIT_FAILED,
    EXIT_OK,
    ExpectedFailure,
    UsageError,
    escape_control,
    one_line,
    run_reporting_failures,
)
from warehouse.identity.rounds import (
    DEFAULT_SOURCE,
    load_registry,
    parse_round_list,
    resolve_rounds,
    resolve_source,
    validate_round_name,
)
from warehouse.ingest.guards import GUARDS
from warehouse.ingest.source_urls import check_source, redact
from warehouse.store import db

# Prefect's anonymous telemetry would try the network (there may be none) on every run.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
# A brand-new ephemeral Prefect server (database migrations, installed collections such as
# prefect-dask imported) can take longer than Prefect's 20 s default on a busy 2-core machine.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

STRICT_HELP = ("exit 1 when a file loaded by this run brought drift (new words or unmatched names, "
               "see `mlperf-wh drift`); without it drift is reported and the run exits 0")
UNREACHABLE_HINT = (
    "The source {source} cannot be reached from this machine.\n"
    "Point MLPERF_SOURCE (or --source) at a mirror or a local directory laid out as "
    "inference_results_vX.Y/main/summary_results.json, e.g.\n"
    "  MLPERF_SOURCE=../shared/mlcommons/mirror make run"
)


def main(argv: list[str] | None = None) -> int:
    """Exit codes and one-line errors: warehouse/errors.py."""
    from warehouse.cli.runs import quiet_prefect_console
    words = sys.argv[1:] if argv is None else argv
    # before the parser is built: building it imports modules that import (and configure) Prefect
    quiet_prefect_console("-v" in words or "--verbose" in words)
    parser = build_parser()
    args = parser.parse_args(argv)
    from warehouse.console import resume_collector
    resume_collector()  # the command's modules are in (warehouse/console.py)
    return run_reporting_failures(lambda: args.handler(args), verbose=args.verbose)


def entry() -> None:
    """The `mlperf-wh` console script."""
    code = main()
    from warehouse.interrupt import exit_now_if_interrupted
    exit_now_if_interrupted(code)
    sys.exit(code)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=None, help="warehouse file (env MLPERF_WAREHOUSE_DB, "
                        f"default {db.DEFAULT_DB})")
    common.add_argument("--source", default=None, help="base URL or local directory of the round "
                        f"repositories (env MLPERF_SOURCE, default {DEFAULT_SOURCE})")
    verbose = ("print Prefect's per-task log lines, and the traceback of a failure "
               "(or set MLPERF_DEBUG=1)")
    common.add_argument("-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=verbose)
    parser = argparse.ArgumentParser(prog="mlperf-wh", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help=verbose)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("backfill", parents=[common], help="fetch, validate and load every round")
    p.add_argument("--rounds", default="", help="comma-separated, e.g. v5.1,v6.0 (default: all)")
    p.add_argument("--force", action="store_true", help="reload even unchanged files")
    p.add_argument("--strict", action="store_true", help=STRICT_HELP)
    _add_allow(p)
    p.set_defaults(handler=cmd_backfill)

    p = sub.add_parser("ingest", parents=[common], help="ingest one round (or one local file)")
    p.add_argument("round")
    p.add_argument("--file", help="a local summary_results.json, summary.json or summary.csv")
    p.add_argument("--origin", choices=["official", "unofficial"], default=None,
                   help="official MLCommons round repository, or anything else (default: official "
                        "from the source, unofficial for --file)")
    p.add_argument("--force", action="store_true")
    p.add_argument("--strict", action="store_true", help=STRICT_HELP)
    _add_allow(p)
    p.set_defaults(handler=cmd_ingest)

    p = sub.add_parser("sql", parents=[common], help="run a read-only SQL query")
    p.add_argument("query")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.set_defaults(handler=cmd_sql)

    p = sub.add_parser("status", parents=[common], help="what is loaded, quarantined, unmatched")
    p.set_defaults(handler=cmd_status)

    p = sub.add_parser("views", parents=[common], help="list the views (or rebuild them: `views refresh`)",
                       description="`views` lists every view and the question it answers; `views refresh` "
                                   "rebuilds them from the loaded rows and today's reference tables "
                                   "(MLPERF_REFERENCE_DIR or warehouse/identity/reference), with no refetch.")
    p.add_argument("action", nargs="?", choices=["list", "refresh"], default="list")
    p.set_defaults(handler=cmd_views)

    p = sub.add_parser("drift", parents=[common],
                       help="what the loaded files say that the warehouse does not know yet")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.set_defaults(handler=cmd_drift)

    for extra in _extra_commands():
        extra(sub, common)
    return parser


def _add_allow(p: argparse.ArgumentParser) -> None:
    p.add_argument("--allow", action="append", default=[], choices=sorted(GUARDS), metavar="GUARD",
                   help="load despite this guard (recorded in sources.overrides): "
                        + "; ".join(f"{name}: {why}" for name, why in GUARDS.items()))


def _extra_commands():
    from warehouse.cli import ledger as cli_extra
    from warehouse.cli import runs as cli_runs
    return cli_extra.REGISTER + cli_runs.REGISTER


# ---------------------------------------------------------------------------------------------

def cmd_backfill(args) -> int:
    rounds = resolve_rounds(parse_round_list(args.rounds), load_registry())
    return _run_backfill(rounds, args)


def cmd_ingest(args) -> int:
    round_name = validate_round_name(args.round)
    if args.file:
        if not Path(args.file).is_file():
            raise ExpectedFailure(f"{args.file}: no such file")
        db_file = _writable_warehouse(args.db, f"mlperf-wh ingest {round_name} --file {args.file}")
        from flows.ingest import ingest_file
        from flows.local_runs import run_here
        outcome = run_here(ingest_file, round_name, args.file, args.origin or "unofficial", db_file,
                           force=args.force, allow=args.allow)
        return report([outcome], args.file, args.db, strict=args.strict)
    if args.origin == "unofficial":
        raise UsageError("--origin unofficial needs --file: the round repositories are official")
    return _run_backfill(resolve_rounds([round_name], load_registry()), args)


def _run_backfill(rounds, args) -> int:
    source = check_source(resolve_source(args.source))
    db_file = _writable_warehouse(args.db, f"mlperf-wh {args.command}")
    from flows.ingest import backfill
    from flows.local_runs import run_here
    return report(run_here(backfill, rounds, source, db_file, force=args.force, allow=args.allow), source,
                  args.db, strict=args.strict)


def _writable_warehouse(explicit: str | None, what: str) -> str:
    """Open the warehouse once before any flow runs: a locked or corrupt file is one line, now;
    then start Prefect's temporary server tied to this process (it never outlives the CLI)."""
    path = db.db_path(explicit)
    from warehouse.store.lock import writer
    with writer(path, what), db.connect(path):
        pass  # waits for another writer first (bounded), like the run itself will
    from warehouse.interrupt import start_prefect_server_tied_to_this_process
    start_prefect_server_tied_to_this_process()
    return path


def report(outcomes, source: str, db_file: str | None = None, strict: bool = False) -> int:
    """`outcomes`: a list of RoundOutcome, or a flow's RunReport (printed as the run report)."""
    run = outcomes if hasattr(outcomes, "outcomes") else None
    if run is not None:
        from warehouse.cli.runs import print_run_report
        outcomes = run.outcomes
        print_run_report(run)
        drifted = run.drifted_rounds  # read by the run itself: the warehouse may have a new writer now
    else:
        _print_outcomes(outcomes)
        drifted = _print_drift(outcomes, db_file)
        _print_due_decisions(db_file)
    failed = [o for o in outcomes if o.failed]
    for o in failed:
        print(f"error: {o.round} {o.status}: {one_line(o.message)}", file=sys.stderr)
    if failed and all(o.unreachable for o in failed) \
            and not any(o.status in ("loaded", "unchanged") for o in outcomes):
        print(UNREACHABLE_HINT.format(source=redact(source)), file=sys.stderr)
    if strict and drifted:
        print(f"error: --strict: drift in {', '.join(drifted)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_FAILED if failed else EXIT_OK


def _print_outcomes(outcomes) -> None:
    frame = pl.DataFrame([{
        "round": o.round, "status": o.status, "rows_read": o.rows_read, "rows_loaded": o.rows_loaded,
        "rows_quarantined": o.rows_quarantined,
        "note": o.message or (f"unknown columns: {', '.join(o.unknown_columns)}" if o.unknown_columns else ""),
    } for o in outcomes])
    print(format_frame(frame, "table"))


def _print_drift(outcomes, db_file: str | None) -> list[str]:
    """One line per round with drift; returns the rounds whose fresh load brought drift."""
    from warehouse.views.drift import of_run
    if not any(o.source_id for o in outcomes):
        return []
    with db.connect(db_file, read_only=True) as con:
        lines, drifted = of_run(con, outcomes)
    if lines:
        print("\nDrift (loaded, not failed):")
        print("\n".join(f"  {line}" for line in lines))
    return drifted


def _print_due_decisions(db_file: str | None = None) -> None:
    try:
        with db.connect(db_file, read_only=True) as con:
            due = db.query_frame(con, "SELECT id, title, due_because FROM decisions_due ORDER BY id")
    except (duckdb.Error, ExpectedFailure):
        return
    if due.height:
        print("\nDecisions due for review:")
        print(format_frame(due, "table"))


def format_frame(frame: pl.DataFrame, fmt: str) -> str:
    """Stored text is printed with control characters escaped (JSON escapes them itself)."""
    if fmt != "json":
        frame = frame.with_columns(pl.col(pl.String).map_elements(escape_control, return_dtype=pl.String))
    if fmt == "csv":
        return frame.write_csv()
    if fmt == "json":
        return frame.write_json()
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=160, tbl_width_chars=250,
                   tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True,
                   fmt_float="mixed", thousands_separator=False):
        return str(frame)


def cmd_sql(args) -> int:
    from warehouse.store import sandbox
    with sandbox.connect(args.db) as con:
        frame = sandbox.run_query(con, args.query)
    print(format_frame(frame, args.format), end="" if args.format == "csv" else "\n")
    return EXIT_OK


STATUS_QUERIES = {
    "sources": """SELECT source_id, round, origin, format, rows_read, rows_loaded, rows_quarantined,
                         left(sha256, 12) AS sha256, bytes, loaded_at, unknown_columns
                  FROM sources ORDER BY round, source_id""",
    "results by round and verification": """
        SELECT round, verification, count(*) AS rows FROM results GROUP BY ALL ORDER BY ALL""",
    "drift: new words and unmatched names by round (details: mlperf-wh drift; unmatched names: "
    "edit warehouse/identity/reference/*.csv, then mlperf-wh views refresh)": """
        SELECT round, kind, count(DISTINCT term) AS terms, sum(rows) AS rows,
               string_agg(DISTINCT term, ', ' ORDER BY term) AS examples
        FROM drift GROUP BY ALL ORDER BY ALL""",
}


def cmd_status(args) -> int:
    from warehouse.cli import ledger as cli_extra
    with db.connect(args.db, read_only=True) as con:
        for title, query in {**STATUS_QUERIES, **cli_extra.STATUS_QUERIES}.items():
            try:
                frame = db.query_frame(con, query)
            except duckdb.CatalogException:
                continue
            print(f"\n## {title}")
            print(format_frame(frame, "table") if frame.height else "(none)")
    return EXIT_OK


def cmd_views(args) -> int:
    from warehouse.views import list_views, materialize
    if args.action == "refresh":
        from warehouse.store.publish import writing
        with writing(db.db_path(args.db), "mlperf-wh views refresh"), db.connect(args.db) as con:
            created = materialize(con)
        print(f"rebuilt {len(created)} views from the loaded rows and today's reference tables")
        return EXIT_OK
    print(format_frame(list_views(), "table"))
    return EXIT_OK


def cmd_drift(args) -> int:
    from warehouse.views.drift import drift_rows
    with db.connect(args.db, read_only=True) as con:
        frame = drift_rows(con)
    if args.format == "table" and frame.height == 0:
        print("no drift: every loaded word and name is known")
        return EXIT_OK
    print(format_frame(frame, args.format), end="" if args.format == "csv" else "\n")
    return EXIT_OK


if __name__ == "__main__":
    entry()
