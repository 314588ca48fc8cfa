"""The claim audit (`claim_audit`) as people and machines read it: a table of both figures with the
result ids behind each, every column with the row lists as JSON text, or the rows as they are."""
from __future__ import annotations

import json

import duckdb
import polars as pl

from warehouse.store import db

SCREEN_COLUMNS = ["id", "kind", "stage", "benchmark", "scenario", "multiplier", "grade", "figure_supported",
                  "recomputed", "recomputed_as_cited", "recomputed_best", "recomputed_equal_scale",
                  "weak_baseline", "verdict"]
ROW_LISTS = ["rows_used", "rows_as_cited", "rows_best", "rows_equal_scale"]


def audit(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    return db.query_frame(con, "SELECT * FROM claim_audit ORDER BY round, id")


def for_screen(frame: pl.DataFrame) -> pl.DataFrame:
    """The verdict's columns, and the result ids behind each figure ("new vs base")."""
    result_ids = {f"{c}_ids": pl.col(c).list.eval(pl.element().struct.field("result_id")).list.join(" vs ")
                  for c in ("rows_as_cited", "rows_best")}
    return frame.select(*SCREEN_COLUMNS, **result_ids)


def citation_problems(frame: pl.DataFrame) -> list[str]:
    """One line per claim whose cited entries do not match it."""
    return [f"{c['id']}: as cited: {c['citation_problem']}"
            for c in frame.filter(pl.col("citation_problem").is_not_null()).iter_rows(named=True)]


def flat(frame: pl.DataFrame) -> pl.DataFrame:
    """Every column as one CSV cell: the row lists as JSON text, cited ids space-separated."""
    return frame.with_columns(*(pl.col(c).map_elements(_rows_json, return_dtype=pl.String) for c in ROW_LISTS),
                              pl.col("cited_result_ids").list.join(" "))


def _rows_json(rows) -> str:
    return json.dumps(rows.to_list() if isinstance(rows, pl.Series) else rows)
