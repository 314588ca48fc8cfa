"""CLI commands over the claims ledger, decision records and prices."""
from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from warehouse import cli_bi, db
from warehouse.errors import escape_control
from warehouse.claims import LedgerError, load_claims, load_decisions
from warehouse.prices import PriceError, load_prices
from warehouse.publish import writing
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


def decision_record(con, decision_id: str) -> dict | None:
    """A decision in the shape of the seeds' capacity_decision_record, claims expanded."""
    found = db.query_frame(con, "SELECT * FROM decision_records WHERE id = ?", [decision_id])
    if found.height == 0:
        return None
    d = found.row(0, named=True)
    due = db.query_frame(con, "SELECT due_because, review_round FROM decisions_due WHERE id = ?", [decision_id])

    def expand(ids):
        if not ids:
            return []
        claims = db.query_frame(con, "SELECT id, statement, stage, multiplier, recomputed, "
                                     "recomputed_as_cited, recomputed_best, weak_baseline, verdict, "
                                     "procurement_grade FROM claim_audit WHERE list_contains(?, id)", [ids])
        by_id = {c["id"]: c for c in claims.to_dicts()}
        return [by_id.get(i, {"id": i, "verdict": "claim no longer in the ledger"}) for i in ids]

    return {"capacity_decision_record": {
        "id": d["id"], "title": d["title"], "workload": d["workload"], "metric": d["metric"],
        "measured_by": d["measured_by"],
        "vendor_claims_used": expand(d["claims_used"]),
        "claims_excluded": expand(d["claims_excluded"]),
        "decision": d["decision"], "decided_on": str(d["decided_on"]),
        "review_due": d["review_due"],
        "review_round": due["review_round"][0] if due.height else d["review_round"],
        "review_date": str(d["review_date"]) if d["review_date"] else None,
        "is_due": due.height > 0, "due_because": due["due_because"][0] if due.height else None,
        "flagged": d["flagged"], "non_procurement_grade_claims": d["non_procurement_grade_claims"],
        "weak_baseline_claims": d["weak_baseline_claims"],
    }}


def cmd_decisions_show(args) -> int:
    with db.connect(args.db, read_only=True) as con:
        record = decision_record(con, args.id)
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


from warehouse import cli_trees  # noqa: E402  (the tree ingest's command and status sections)

REGISTER = [register, cli_bi.register, cli_trees.register]
STATUS_QUERIES = {
    **cli_trees.STATUS_QUERIES,
    "claims by verdict": "SELECT verdict, count(*) AS claims FROM claim_audit GROUP BY ALL ORDER BY ALL",
    "decisions due for review": "SELECT id, title, review_due, due_because FROM decisions_due ORDER BY id",
}
