"""What a load brought that the warehouse does not know yet: the `drift` table, summarised."""
from __future__ import annotations

import duckdb
import polars as pl

from warehouse.store import db

# kind -> how one line names it (singular, plural)
PHRASES = {
    "column": ("new column", "new columns"),
    "unit": ("new unit", "new units"),
    "scenario": ("new scenario", "new scenarios"),
    "division": ("new division", "new divisions"),
    "availability": ("new availability", "new availabilities"),
    "suite": ("new suite", "new suites"),
    "benchmark": ("unmatched benchmark", "unmatched benchmarks"),
    "accelerator": ("unmatched accelerator", "unmatched accelerators"),
    "model": ("unmatched model id", "unmatched model ids"),
}
OWN = "own measurements"  # the drift of your own runs has no round


def drift_rows(con: duckdb.DuckDBPyConnection, source_ids: list[str] | None = None) -> pl.DataFrame:
    query = "SELECT * FROM drift"
    if source_ids is not None:
        query += " WHERE list_contains(?, source_id)"
    query += " ORDER BY round NULLS LAST, source_id, kind, term"
    try:
        return db.query_frame(con, query, [source_ids] if source_ids is not None else None)
    except duckdb.CatalogException:  # a warehouse whose views were never built
        return pl.DataFrame(schema={"round": pl.String, "source_id": pl.String, "kind": pl.String,
                                    "term": pl.String, "rows": pl.Int64})


def one_line(round_name: str, terms: pl.DataFrame) -> str:
    """'v7.0: 1 new unit, 2 unmatched accelerators; see `mlperf-wh drift`'."""
    counts = terms.group_by("kind").agg(pl.col("term").n_unique().alias("n"))
    by_kind = dict(counts.iter_rows())
    parts = [f"{by_kind[k]} {PHRASES[k][by_kind[k] != 1]}" for k in PHRASES if k in by_kind]
    return f"{round_name or OWN}: {', '.join(parts)}; see `mlperf-wh drift`"


def summary_lines(rows: pl.DataFrame) -> list[str]:
    """One line per round of these drift rows (drift_rows)."""
    return [one_line(round_name, rows.filter(pl.col("round").eq_missing(round_name)))
            for round_name in rows["round"].unique(maintain_order=True)]


def of_run(drift: pl.DataFrame, outcomes) -> tuple[list[str], list[str]]:
    """For a run's outcomes (pipeline.RoundOutcome) and the drift rows of their sources: one line
    per round whose loaded file has drift, and the rounds whose load in this run brought drift
    (what --strict fails on)."""
    present = [o.source_id for o in outcomes if o.source_id and o.status in ("loaded", "unchanged")]
    fresh = [o.source_id for o in outcomes if o.source_id and o.status == "loaded"]
    lines = summary_lines(drift.filter(pl.col("source_id").is_in(present)))
    drifted = drift.filter(pl.col("source_id").is_in(fresh))["round"].unique(maintain_order=True).to_list()
    return lines, drifted
