"""CLI commands over scheduled runs: `watch` (the watcher, once), `serve` (both deployments),
`history` (load_events); and the run report every run prints."""
from __future__ import annotations

import os

import polars as pl

from warehouse import settings
from warehouse.store import db

REPORT_COLUMNS = ["round", "status", "rows_read", "rows_loaded", "rows_quarantined", "new", "changed", "note"]
DEFAULT_CRON = settings.default("watch_cron")


def quiet_prefect_console(verbose: bool) -> None:
    """The screen gets the run report and our one-line errors; Prefect's per-task lines still reach
    the Prefect API (the UI's logs), and reach the screen with -v. Must run before Prefect is imported."""
    if not verbose:
        # Prefect's logging.yml: `console` (its own messages) and `console_flow_runs` (flow and task
        # runs' lines) are separate handlers.
        # A failed round is already one line of ours (and a Failed run in the API): Prefect's own
        # ERROR lines about it would repeat it on the screen.
        for handler in ("CONSOLE", "CONSOLE_FLOW_RUNS"):
            os.environ.setdefault(f"PREFECT_LOGGING_HANDLERS_{handler}_LEVEL", "CRITICAL")


def print_run_report(run) -> None:
    from warehouse.cli import format_frame
    print(run.headline())
    if run.waited:
        print(f"waited {run.waited}")
    if run.rounds:
        frame = pl.DataFrame(run.rounds).select(pl.col(REPORT_COLUMNS).cast(pl.String).fill_null(""))
        print(format_frame(frame, "table"))
    if run.drift_lines:
        print("\nDrift (loaded, not failed):")
        print("\n".join(f"  {line}" for line in run.drift_lines))
    for title, items in run.sections():
        print(f"\n{title}:")
        print("\n".join(f"  {item}" for item in items))


def cmd_watch(args) -> int:
    from flows.watch import watch_once
    from warehouse.cli import report
    from warehouse.identity.rounds import resolve_source
    source = resolve_source(args.source)
    return report(watch_once(source, db.db_path(args.db)), source, args.db, strict=args.strict)


def cmd_serve(args) -> int:
    from warehouse.errors import UsageError
    if not os.environ.get("PREFECT_API_URL"):
        raise UsageError("serve needs a running Prefect server: start one (`prefect server start`) and "
                        "set PREFECT_API_URL, e.g. PREFECT_API_URL=http://127.0.0.1:4200/api")
    from prefect import serve

    from flows.watch import deployments
    cron = args.cron or settings.current().watch_cron  # read when serving, not when parsing
    print(f"serving watch-rounds (cron {cron!r}) and backfill against {os.environ['PREFECT_API_URL']}; "
          "stop with Ctrl-C", flush=True)
    serve(*deployments(cron, args.source, args.db), print_starting_message=False)
    return 0


def cmd_history(args) -> int:
    from warehouse.cli import format_frame
    from warehouse.ingest.history import events
    with db.connect(args.db, read_only=True) as con:
        frame = events(con, round_name=args.round)
    if args.format == "table":
        if frame.height == 0:
            print("no loads yet")
            return 0
        frame = frame.select("loaded_at", "run_kind", "round", "status", pl.col("sha256").str.slice(0, 12),
                             "rows_read", "rows_loaded", "rows_quarantined", "change_summary",
                             pl.col("flow_run_id").str.slice(0, 8).alias("flow_run"))
    print(format_frame(frame, args.format), end="" if args.format == "csv" else "\n")
    return 0


def register(sub, common) -> None:
    p = sub.add_parser("watch", parents=[common],
                       help="look for new or changed rounds once, as the scheduled watcher does")
    p.add_argument("--strict", action="store_true", help="exit 1 when a file loaded by this run brought drift")
    p.set_defaults(handler=cmd_watch)

    p = sub.add_parser("serve", parents=[common],
                       help="serve the watch-rounds (cron) and backfill deployments to PREFECT_API_URL")
    p.add_argument("--cron", default=None,
                   help=f"when the watcher looks for rounds (env MLPERF_WATCH_CRON, default {DEFAULT_CRON!r}: "
                        "daily 06:00 UTC)")
    p.set_defaults(handler=cmd_serve)

    p = sub.add_parser("history", parents=[common], help="every load: run, round, checksum, counts, changes")
    p.add_argument("--round", default=None)
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.set_defaults(handler=cmd_history)


REGISTER = [register]
