"""mlperf-wh: build the warehouse, query it, and report on it."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import duckdb
import polars as pl

from warehouse import db
from warehouse.lock import WarehouseBusy
from warehouse.rounds import (DEFAULT_SOURCE, InvalidRoundName, load_registry, parse_round_list,
                              resolve_rounds, resolve_source, validate_round_name)

# Prefect's anonymous telemetry would try the network (there may be none) on every run.
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
STRICT_HELP = ("exit 1 when a file loaded by this run brought drift (new words or unmatched names, "
               "see `mlperf-wh drift`); without it drift is reported and the run exits 0")
UNREACHABLE_HINT = (
    "The source {source} cannot be reached from this machine.\n"
    "Point MLPERF_SOURCE (or --source) at a mirror or a local directory laid out as "
    "inference_results_vX.Y/main/summary_results.json, e.g.\n"
    "  MLPERF_SOURCE=../shared/mlcommons/mirror make run"
)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from warehouse.cli_runs import quiet_prefect_console
    quiet_prefect_console(getattr(args, "verbose", False))
    try:
        return args.handler(args)
    except (InvalidRoundName, FileNotFoundError, UserError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except WarehouseBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED


class UserError(Exception):
    """A problem with what the user asked for; printed as one line, no traceback."""


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", default=None, help="warehouse file (env MLPERF_WAREHOUSE_DB, "
                        f"default {db.DEFAULT_DB})")
    common.add_argument("-v", "--verbose", action="store_true",
                        help="also print Prefect's per-task log lines (they always reach the Prefect API)")
    common.add_argument("--source", default=None, help="base URL or local directory of the round "
                        f"repositories (env MLPERF_SOURCE, default {DEFAULT_SOURCE})")
    parser = argparse.ArgumentParser(prog="mlperf-wh", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("backfill", parents=[common], help="fetch, validate and load every round")
    p.add_argument("--rounds", default="", help="comma-separated, e.g. v5.1,v6.0 (default: all)")
    p.add_argument("--force", action="store_true", help="reload even unchanged files")
    p.add_argument("--strict", action="store_true", help=STRICT_HELP)
    p.set_defaults(handler=cmd_backfill)

    p = sub.add_parser("ingest", parents=[common], help="ingest one round (or one local file)")
    p.add_argument("round")
    p.add_argument("--file", help="a local summary_results.json, summary.json or summary.csv")
    p.add_argument("--origin", choices=["official", "unofficial"], default=None,
                   help="official MLCommons round repository, or anything else (default: official "
                        "from the source, unofficial for --file)")
    p.add_argument("--force", action="store_true")
    p.add_argument("--strict", action="store_true", help=STRICT_HELP)
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
                                   "(MLPERF_REFERENCE_DIR or warehouse/reference), with no refetch.")
    p.add_argument("action", nargs="?", choices=["list", "refresh"], default="list")
    p.set_defaults(handler=cmd_views)

    p = sub.add_parser("drift", parents=[common],
                       help="what the loaded files say that the warehouse does not know yet")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.set_defaults(handler=cmd_drift)

    for extra in _extra_commands():
        extra(sub, common)
    return parser


def _extra_commands():
    from warehouse import cli_extra, cli_runs
    return cli_extra.REGISTER + cli_runs.REGISTER


# ---------------------------------------------------------------------------------------------

def cmd_backfill(args) -> int:
    rounds = resolve_rounds(parse_round_list(args.rounds), load_registry())
    from flows.ingest import backfill
    source = resolve_source(args.source)
    return report(backfill(rounds, source, db.db_path(args.db), force=args.force), source, args.db,
                  strict=args.strict)


def cmd_ingest(args) -> int:
    round_name = validate_round_name(args.round)
    if args.file:
        if not Path(args.file).is_file():
            raise UserError(f"{args.file}: no such file")
        from flows.ingest import ingest_file
        outcome = ingest_file(round_name, args.file, args.origin or "unofficial", db.db_path(args.db),
                              force=args.force)
        return report([outcome], args.file, args.db, strict=args.strict)
    if args.origin == "unofficial":
        raise UserError("--origin unofficial needs --file: the round repositories are official")
    rounds = resolve_rounds([round_name], load_registry())
    from flows.ingest import backfill
    source = resolve_source(args.source)
    return report(backfill(rounds, source, db.db_path(args.db), force=args.force), source, args.db,
                  strict=args.strict)


def report(outcomes, source: str, db_file: str | None = None, strict: bool = False) -> int:
    """`outcomes`: a list of RoundOutcome, or a flow's RunReport (printed as the run report)."""
    run = outcomes if hasattr(outcomes, "outcomes") else None
    if run is not None:
        from warehouse.cli_runs import print_run_report
        outcomes = run.outcomes
        print_run_report(run)
        drifted = run.drifted_rounds  # read by the run itself: the warehouse may have a new writer now
    else:
        _print_outcomes(outcomes)
        drifted = _print_drift(outcomes, db_file)
        _print_due_decisions(db_file)
    failed = [o for o in outcomes if o.failed]
    if failed and all(o.unreachable for o in failed) \
            and not any(o.status in ("loaded", "unchanged") for o in outcomes):
        print(UNREACHABLE_HINT.format(source=source), file=sys.stderr)
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
    from warehouse.drift import drift_rows, summary_lines
    present = [o.source_id for o in outcomes if o.source_id and o.status in ("loaded", "unchanged")]
    if not present:
        return []
    with db.connect(db_file, read_only=True) as con:
        lines = summary_lines(con, present)
        loaded = drift_rows(con, [o.source_id for o in outcomes if o.status == "loaded" and o.source_id])
    if lines:
        print("\nDrift (loaded, not failed):")
        print("\n".join(f"  {line}" for line in lines))
    return loaded["round"].unique(maintain_order=True).to_list()


def _print_due_decisions(db_file: str | None = None) -> None:
    try:
        with db.connect(db_file, read_only=True) as con:
            due = db.query_frame(con, "SELECT id, title, due_because FROM decisions_due ORDER BY id")
    except (duckdb.Error, FileNotFoundError):
        return
    if due.height:
        print("\nDecisions due for review:")
        print(format_frame(due, "table"))


def format_frame(frame: pl.DataFrame, fmt: str) -> str:
    if fmt == "csv":
        return frame.write_csv()
    if fmt == "json":
        return frame.write_json()
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=160, tbl_width_chars=250,
                   tbl_hide_dataframe_shape=True, tbl_hide_column_data_types=True,
                   fmt_float="mixed", thousands_separator=False):
        return str(frame)


def cmd_sql(args) -> int:
    with db.connect(args.db, read_only=True) as con:
        try:
            frame = db.query_frame(con, args.query)
        except duckdb.Error as exc:
            hint = " (the warehouse is opened read-only: `sql` answers queries and changes nothing)" \
                if "read-only" in str(exc) else ""
            print(f"error: {exc}{hint}", file=sys.stderr)
            return EXIT_FAILED
    print(format_frame(frame, args.format), end="" if args.format == "csv" else "\n")
    return EXIT_OK


STATUS_QUERIES = {
    "sources": """SELECT source_id, round, origin, format, rows_read, rows_loaded, rows_quarantined,
                         left(sha256, 12) AS sha256, bytes, loaded_at, unknown_columns
                  FROM sources ORDER BY round, source_id""",
    "results by round and verification": """
        SELECT round, verification, count(*) AS rows FROM results GROUP BY ALL ORDER BY ALL""",
    "drift: new words and unmatched names by round (details: mlperf-wh drift; unmatched names: "
    "edit warehouse/reference/*.csv, then mlperf-wh views refresh)": """
        SELECT round, kind, count(DISTINCT term) AS terms, sum(rows) AS rows,
               string_agg(DISTINCT term, ', ' ORDER BY term) AS examples
        FROM drift GROUP BY ALL ORDER BY ALL""",
}


def cmd_status(args) -> int:
    from warehouse import cli_extra
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
        from warehouse.publish import writing
        with writing(db.db_path(args.db), "mlperf-wh views refresh"), db.connect(args.db) as con:
            created = materialize(con)
        print(f"rebuilt {len(created)} views from the loaded rows and today's reference tables")
        return EXIT_OK
    print(format_frame(list_views(), "table"))
    return EXIT_OK


def cmd_drift(args) -> int:
    from warehouse.drift import drift_rows
    with db.connect(args.db, read_only=True) as con:
        frame = drift_rows(con)
    if args.format == "table" and frame.height == 0:
        print("no drift: every loaded word and name is known")
        return EXIT_OK
    print(format_frame(frame, args.format), end="" if args.format == "csv" else "\n")
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
