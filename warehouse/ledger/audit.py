"""The claim audit (`claim_audit`) as people and machines read it: a table of both figures with the
result ids behind each, every column with the row lists as JSON text, or the rows as they are."""
from __future__ import annotations

import json

import duckdb
import polars as pl

from warehouse.store import db

SCREEN_COLUMNS = ["id", "multiplier", "result_claimed", "grade", "figure_supported", "verdict"]
ROW_LISTS = ["rows_used", "rows_as_cited", "rows_best", "rows_equal_scale", "rows_same_submitter"]


def audit(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    return db.query_frame(con, "SELECT * FROM claim_audit ORDER BY round, id")


def for_screen(frame: pl.DataFrame) -> pl.DataFrame:
    """What a terminal shows of each claim, within 80 columns and two lines a claim: the number claimed
    (claimed: multiplier, or an absolute claim's result_claimed, whose unit its grade line says), its
    grade, the most the data supports (supported: figure_supported) and the verdict by its label
    ("directional only"; what it means: verdict_legend; every figure and the result ids behind it:
    grade_lines, and --format csv or json)."""
    return frame.select("id", pl.coalesce("multiplier", "result_claimed").alias("claimed"), "grade",
                        pl.col("figure_supported").alias("supported"), pl.col("verdict_label").alias("verdict"))


def verdict_legend(frame: pl.DataFrame) -> list[str]:
    """A line per verdict label the table shows, with its meaning: "directional only: do not put it
    in a procurement decision" (claim_audit's verdict_label and verdict_meaning)."""
    pairs = frame.select("verdict_label", "verdict_meaning").drop_nulls().unique().sort("verdict_label")
    return [f"{label}: {meaning}" for label, meaning in pairs.iter_rows()]


def grade_lines(frame: pl.DataFrame) -> list[str]:
    """One line per claim the data grades (not unsupported): how its number stands, every figure, and
    the result ids of the figure the verdict rests on ("new vs base"; a row rebuilt from a submission
    tree, which has no result id, by its label: submitter and platform)."""
    graded = frame.filter(pl.col("grade").is_in(["holds", "overstated", "understated"]))
    return [f"{c['id']}: {c['grade_reason']} [{' vs '.join(r['label'] for r in c['rows_used'])}]"
            for c in graded.iter_rows(named=True)]


def citation_problems(frame: pl.DataFrame) -> list[str]:
    """One line per claim whose cited entries do not match it."""
    return [f"{c['id']}: as cited: {c['citation_problem']}"
            for c in frame.filter(pl.col("citation_problem").is_not_null()).iter_rows(named=True)]


def stage_contradictions(frame: pl.DataFrame) -> list[str]:
    """One line per claim whose stated stage the rows contradict ("stated mlcommons_verified, but ...")."""
    return [f"{c['id']}: {c['stage_contradiction']}"
            for c in frame.filter(pl.col("stage_contradiction").is_not_null()).iter_rows(named=True)]


def flat(frame: pl.DataFrame) -> pl.DataFrame:
    """Every column as one CSV cell: the row lists as JSON text, cited ids space-separated."""
    return frame.with_columns(*(pl.col(c).map_elements(_rows_json, return_dtype=pl.String) for c in ROW_LISTS),
                              pl.col("cited_result_ids").list.join(" "))


def _rows_json(rows) -> str:
    return json.dumps(rows.to_list() if isinstance(rows, pl.Series) else rows)
