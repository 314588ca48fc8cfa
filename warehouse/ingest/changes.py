"""What a load changed, field by field: the `result_changes` rows of one load.

A result is known by the key validation keeps unique within a source (schemas.results.DUPLICATE_KEY,
round and source aside). Against the rows the source held before the load:
  added      a key the earlier table lacked: one row, field 'value', its value after;
  withdrawn  a key the new table lacks: one row, field 'value', its value before;
  changed    a key in both: one row per published field whose value differs (old -> new, as text).
record_no (a row's position in its file) is not a published value; moving rows changes nothing."""
from __future__ import annotations

from datetime import datetime

import duckdb
import polars as pl

from warehouse.store import db

_NOT_COMPARED = {"round", "source_id", "record_no"}


def result_key() -> list[str]:
    from schemas.results import DUPLICATE_KEY
    return [c for c in DUPLICATE_KEY if c not in ("round", "source_id")]


def compared_fields() -> list[str]:
    return [c for c in db.RESULT_COLUMNS if c not in _NOT_COMPARED and c not in result_key()]


def rows_before(con: duckdb.DuckDBPyConnection, source_id: str) -> pl.DataFrame:
    return db.query_frame(con, f"SELECT {', '.join(result_key() + compared_fields())} FROM results "
                               "WHERE source_id = ?", [source_id])


def _comparable(before: pl.DataFrame, after: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The key and compared columns of both frames, each of one type: its own where the stored and
    the parsed rows agree, else text (compared natively: casting a million rows of every column to
    text first cost seconds)."""
    columns = result_key() + compared_fields()
    old, new = before.select(columns), after.select(columns)
    differ = {c: pl.String for c in columns if old.schema[c] != new.schema[c]}
    return old.cast(differ), new.cast(differ)


def _text(column: str) -> pl.Expr:
    return pl.col(column).cast(pl.String)


def field_changes(before: pl.DataFrame, after: pl.DataFrame) -> pl.DataFrame:
    """result_id, the key columns, change, field, published_before, published_after: one row per
    changed field (the result ID as the new table has it, for a withdrawn row as the old one had).
    One full join on the key (the hash join is most of the cost: three joins took 2.5x as long)."""
    key = result_key()
    old, new = _comparable(before, after)
    joined = old.with_columns(pl.lit(True).alias("_old")).join(
        new.with_columns(pl.lit(True).alias("_new")), on=key, how="full", coalesce=True, suffix="_after",
        nulls_equal=True)
    added = joined.filter(pl.col("_old").is_null()).select(
        _text("result_id_after").alias("result_id"), *key, pl.lit("added").alias("change"),
        pl.lit("value").alias("field"), pl.lit(None, pl.String).alias("published_before"),
        _text("value_after").alias("published_after"))
    withdrawn = joined.filter(pl.col("_new").is_null()).select(
        _text("result_id"), *key, pl.lit("withdrawn").alias("change"), pl.lit("value").alias("field"),
        _text("value").alias("published_before"), pl.lit(None, pl.String).alias("published_after"))
    both = joined.filter(pl.col("_old") & pl.col("_new"))
    changed = [both.filter(pl.col(f).ne_missing(pl.col(f"{f}_after"))).select(
        pl.coalesce(_text("result_id_after"), _text("result_id")).alias("result_id"), *key,
        pl.lit("changed").alias("change"), pl.lit(f).alias("field"),
        _text(f).alias("published_before"), _text(f"{f}_after").alias("published_after"))
        for f in compared_fields()]
    return pl.concat([added, withdrawn, *changed], how="vertical")


def writer(loaded_at: datetime, round_name: str, source_id: str, before: pl.DataFrame, after: pl.DataFrame):
    """The function db.replace_source calls inside the load's transaction: the load's change rows in."""
    changes = field_changes(before, after).with_columns(
        pl.lit(loaded_at).alias("loaded_at"), pl.lit(round_name).alias("round"), pl.lit(source_id).alias("source_id"))

    def write(con: duckdb.DuckDBPyConnection) -> None:
        if changes.height == 0:
            return
        columns = ["loaded_at", "round", "source_id", "result_id", *result_key(), "change", "field",
                   "published_before", "published_after"]
        with db.registered(con, _result_changes=changes.select(columns)):
            con.execute(f"INSERT INTO result_changes ({', '.join(columns)}) "
                        f"SELECT {', '.join(columns)} FROM _result_changes")
    return write
