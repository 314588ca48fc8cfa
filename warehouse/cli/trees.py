"""`mlperf-wh trees`: the LoadGen summaries and system descriptions behind the loaded results."""
from __future__ import annotations

import sys

import polars as pl

from warehouse.identity.rounds import load_registry, parse_round_list, resolve_rounds, resolve_source
from warehouse.store import db


def cmd_trees(args) -> int:
    from flows.trees import TreeRun, dask_address, run_trees
    from warehouse.cli import format_frame
    rounds = resolve_rounds(parse_round_list(args.rounds), load_registry())
    run = TreeRun(concurrency=args.concurrency, chunk_size=args.chunk_size,
                  dask_address=dask_address(args.dask), force=args.force)
    from flows.local_runs import run_here
    outcome = run_here(run_trees, rounds, resolve_source(args.source), db.db_path(args.db), run)
    print(format_frame(pl.DataFrame({"status": list(outcome.counts),
                                     "files": list(outcome.counts.values())}), "table"))
    print(f"{outcome.files} files in {outcome.seconds:.1f} s "
          f"({outcome.files / max(outcome.seconds, 1e-9):.0f} files/s)")
    for problem in outcome.problems:
        print(problem, file=sys.stderr)
    return 1 if outcome.failed else 0


def register(sub, common) -> None:
    from flows.trees import DASK_ADDRESS_ENV, DEFAULT_CONCURRENCY
    from warehouse.ingest.tree_ingest import DEFAULT_CHUNK
    p = sub.add_parser("trees", parents=[common],
                       help="fetch each loaded result's LoadGen summary and its system description")
    p.add_argument("--rounds", default="", help="comma-separated, e.g. v5.1,v6.0 (default: all)")
    p.add_argument("--force", action="store_true", help="fetch and reload even unchanged files")
    p.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY,
                   help=f"chunks of files fetched at once (default {DEFAULT_CONCURRENCY})")
    p.add_argument("--chunk-size", type=int, default=DEFAULT_CHUNK,
                   help=f"files per Prefect task (default {DEFAULT_CHUNK})")
    p.add_argument("--dask", default=None, metavar="ADDRESS",
                   help=f"run the tasks on this Dask scheduler, e.g. tcp://10.0.0.5:8786 "
                        f"(env {DASK_ADDRESS_ENV}; default: a thread pool here)")
    p.set_defaults(handler=cmd_trees)


STATUS_QUERIES = {
    "result rows with a run summary (mlperf-wh trees)": """
        SELECT r.round, count(*) AS result_rows, count(s.run_path) AS with_run_summary,
               count(*) - count(s.run_path) AS without,
               count(*) FILTER (WHERE f.status = 'missing') AS file_missing,
               count(*) FILTER (WHERE f.status = 'quarantined') AS file_quarantined,
               count(*) FILTER (WHERE f.status = 'failed') AS fetch_failed,
               count(*) FILTER (WHERE f.status IS NULL) AS not_fetched
        FROM stg_results AS r
        LEFT JOIN run_summaries AS s USING (round, run_path)
        LEFT JOIN tree_files AS f ON f.round = r.round AND f.path = r.run_path || '/mlperf_log_summary.txt'
        WHERE r.metric = 'performance'
        GROUP BY ALL ORDER BY ALL""",
    "tree files by status": """
        SELECT round, kind, status, count(*) AS files FROM tree_files GROUP BY ALL ORDER BY ALL""",
    "run summaries that disagree with their result (every row: SELECT * FROM summary_fidelity WHERE NOT agrees)": """
        SELECT round, verification, note, count(*) AS results,
               string_agg(DISTINCT benchmark, ', ' ORDER BY benchmark) AS benchmarks,
               min(result_id) AS first_result_id
        FROM summary_fidelity WHERE NOT agrees GROUP BY ALL ORDER BY ALL""",
}
