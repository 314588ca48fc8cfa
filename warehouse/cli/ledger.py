"""CLI commands over the claims ledger, decision records and prices."""
from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from warehouse.cli import bi as cli_bi
from warehouse.errors import escape_control
from warehouse.ledger import decisions
from warehouse.ledger.claims import LedgerError, load_claims, load_decisions
from warehouse.ledger.prices import PriceError, load_prices
from warehouse.store import db
from warehouse.store.publish import writing
from warehouse.views import materialize

AUDIT_COLUMNS = ["id", "kind", "stage", "benchmark", "scenario", "multiplier",
                 "recomputed", "recomputed_as_cited", "recomputed_best", "weak_baseline",
                 "verdict"]
ROW_LISTS = ["rows_used", "rows_as_cited", "rows_best"]


def _fail(message: str) -> int:
    import sys

    from warehouse.errors import EXIT_FAILED, one_line
    print(f"error: {one_line(message)}", file=sys.stderr)
    return EXIT_FAILED


def _warn(message: str) -> None:
    import sys

    from warehouse.errors import one_line
    print(f"warning: {one_line(message)}", file=sys.stderr)


def _load_with(loader, noun: str, options=lambda args: {}):
    def handler(args) -> int:
        try:
            with writing(db.db_path(args.db), f"mlperf-wh {noun} load"):
                with db.connect(args.db) as con:
                    count = loader(con, Path(args.file), **options(args))
                    materialize(con)
        except (LedgerError, PriceError) as exc:
            return _fail(f"{exc}; nothing was loaded, the {noun} is unchanged")
        print(f"loaded {count} {noun} from {args.file}")
        return 0
    return handler


def cmd_claims_audit(args) -> int:
    """Table: both figures and the result ids behind each (new vs base); csv/json: every column,
    the rows as JSON lists."""
    from warehouse.cli import format_frame
    with db.connect(args.db, read_only=True) as con:
        frame = db.query_frame(con, "SELECT * FROM claim_audit ORDER BY round, id")
    if args.format == "table":
        result_ids = {f"{c}_ids": pl.col(c).list.eval(pl.element().struct.field("result_id")).list.join(" vs ")
                      for c in ("rows_as_cited", "rows_best")}
        print(format_frame(frame.select(*AUDIT_COLUMNS, **result_ids), "table"))
        for claim in frame.filter(pl.col("citation_problem").is_not_null()).iter_rows(named=True):
            print(f"{claim['id']}: as cited: {claim['citation_problem']}")
    elif args.format == "csv":
        flat = frame.with_columns(*(pl.col(c).map_elements(_rows_json, return_dtype=pl.String) for c in ROW_LISTS),
                                  pl.col("cited_result_ids").list.join(" "))
        print(format_frame(flat, "csv"), end="")
    else:
        print(json.dumps(frame.to_dicts(), indent=2, default=str))
    return 0


def _rows_json(rows) -> str:
    return json.dumps(rows.to_list() if isinstance(rows, pl.Series) else rows)


def cmd_decisions_show(args) -> int:
    with db.connect(args.db, read_only=True) as con:
        record = decisions.decision_record(con, args.id)
    if record is None:
        return _fail(f"no decision {args.id!r} (see: mlperf-wh sql \"SELECT id, title FROM decisions\")")
    if args.format == "json":
        print(json.dumps(record, indent=2, default=str))
    else:
        r = record["capacity_decision_record"]
        for key, value in r.items():
            if key in ("vendor_claims_used", "claims_excluded"):
                print(f"{key}:")
                for claim in value:
                    print(escape_control(f"  - {claim['id']}: {claim.get('statement', '')} -> "
                                         f"{claim['verdict']}"))
            else:
                print(escape_control(f"{key}: {value}"))
    return 0


def cmd_schedule(args) -> int:
    from prefect import serve

    from flows.ingest import deployment
    print(f"serving the backfill on cron {args.cron!r}; stop with Ctrl-C")
    serve(deployment(args.cron, args.source, args.db))
    return 0


def register(sub, common) -> None:
    claims = sub.add_parser("claims", help="the vendor claims ledger").add_subparsers(dest="action", required=True)
    p = claims.add_parser("load", parents=[common], help="load (or reload) a TOML claims file")
    p.add_argument("file")
    p.add_argument("--replace", action="store_true",
                   help="take over claim ids another claims file owns")
    p.set_defaults(handler=_load_with(load_claims, "claims ledger", lambda a: {"replace": a.replace}))
    p = claims.add_parser("audit", parents=[common], help="every claim recomputed, with its verdict")
    p.add_argument("--format", choices=["table", "csv", "json"], default="table")
    p.set_defaults(handler=cmd_claims_audit)

    decisions = sub.add_parser("decisions", help="capacity decision records").add_subparsers(
        dest="action", required=True)
    p = decisions.add_parser("load", parents=[common], help="load (or reload) a TOML decisions file")
    p.add_argument("file")
    p.set_defaults(handler=_load_with(load_decisions, "decision records"))
    p = decisions.add_parser("show", parents=[common], help="one decision record, claims expanded")
    p.add_argument("id")
    p.add_argument("--format", choices=["table", "json"], default="table")
    p.set_defaults(handler=cmd_decisions_show)

    prices = sub.add_parser("prices", help="your accelerator prices").add_subparsers(dest="action", required=True)
    p = prices.add_parser("load", parents=[common],
                          help="load a CSV: accelerator,dollars_per_accelerator_hour[,note]")
    p.add_argument("file")
    p.set_defaults(handler=_load_with(load_prices, "price table", lambda a: {"warn": _warn}))

    p = sub.add_parser("schedule", parents=[common],
                       help="serve the backfill as a Prefect deployment on a cron schedule")
    p.add_argument("--cron", default="0 6 * * *",
                   help="when to look for new rounds (default daily 06:00 UTC; rounds are published "
                        "twice a year, and unchanged files are skipped cheaply)")
    p.set_defaults(handler=cmd_schedule)


from warehouse.cli import trees as cli_trees  # noqa: E402  (the tree ingest's command and status sections)

REGISTER = [register, cli_bi.register, cli_trees.register]
STATUS_QUERIES = {
    **cli_trees.STATUS_QUERIES,
    "claims by verdict": "SELECT verdict, count(*) AS claims FROM claim_audit GROUP BY ALL ORDER BY ALL",
    "decisions due for review": "SELECT id, title, review_due, due_because FROM decisions_due ORDER BY id",
}
