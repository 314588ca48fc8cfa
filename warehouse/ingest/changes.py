"""What a load changed, field by field: the `result_changes` rows of one load.

A result is known by the key validation keeps unique within a source (schemas.results.DUPLICATE_KEY,
round and source aside). Against the rows the source held before the load:
  added      a key the earlier table lacked: one row, field 'value', its value after;
  withdrawn  a key the new table lacks: one row, field 'value', its value before;
  changed    a key in both: one row per published field whose value differs (old -> new, as text);
  quarantined  a key the new table publishes in a record that failed validation: one row, field
             'value', the last good value (kept in `results`, marked stale) -> the value as the new
             table has it, with the record's reason; nothing again while the row stays quarantined;
  restored   a stale key the new table publishes good again: one row, field 'value', the kept value ->
             the new one (its other fields, when they differ, are 'changed' rows).
record_no (a row's position in its file) is not a published value; moving rows changes nothing."""
from __future__ import annotations

from datetime import datetime

import duckdb
import polars as pl

from warehouse.store import db

_NOT_COMPARED = {"round", "source_id", "record_no"}

# The result_changes rows of each listed source's latest load (a run's own loads, read under its
# writer lock: `?` is the list of source ids), with `first`: that load was the source's first.
LATEST_LOAD_CHANGES = """
    WITH loads AS (
        SELECT source_id, max(loaded_at) AS loaded_at, arg_max(previous_sha256 IS NULL, loaded_at) AS first
        FROM load_events WHERE status IN ('loaded', 'reloaded') AND list_contains(?, source_id)
        GROUP BY source_id
    )
    SELECT c.*, l.first
    FROM result_changes AS c JOIN loads AS l ON l.source_id = c.source_id AND l.loaded_at = c.loaded_at"""


def result_key() -> list[str]:
    from schemas.results import ROW_KEY
    return ROW_KEY


def compared_fields() -> list[str]:
    return [c for c in db.RESULT_COLUMNS if c not in _NOT_COMPARED and c not in result_key()]


def rows_before(con: duckdb.DuckDBPyConnection, source_id: str) -> pl.DataFrame:
    return db.query_frame(con, f"SELECT {', '.join(result_key() + compared_fields())}, stale FROM results "
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


def _stale_flags(before: pl.DataFrame) -> pl.Series:
    """Whether each earlier row was already kept stale (a frame without the column: none was)."""
    if "stale" in before.columns:
        return before["stale"].fill_null(False).alias("_stale")
    return pl.repeat(False, before.height, dtype=pl.Boolean, eager=True).alias("_stale")


def _with_quarantine(joined: pl.DataFrame, quarantined: pl.DataFrame | None) -> pl.DataFrame:
    """joined, with the new table's quarantined row of each key: _quarantined, value_text, reason."""
    key = result_key()
    if quarantined is None or quarantined.height == 0:
        return joined.with_columns(pl.lit(None, pl.Boolean).alias("_quarantined"),
                                   pl.lit(None, pl.String).alias("value_text"), pl.lit(None, pl.String).alias("reason"))
    rows = quarantined.select(*key, "value_text", "reason").cast({c: joined.schema[c] for c in key})
    return joined.join(rows.with_columns(pl.lit(True).alias("_quarantined")), on=key, how="left", nulls_equal=True)


def _differs(field: str) -> pl.Expr:
    """The field differs between the two tables; a restored row's value is its 'restored' row."""
    differs = pl.col(field).ne_missing(pl.col(f"{field}_after"))
    return differs & ~pl.col("_stale") if field == "value" else differs


def field_changes(before: pl.DataFrame, after: pl.DataFrame, quarantined: pl.DataFrame | None = None) -> pl.DataFrame:
    """result_id, the key columns, change, field, published_before, published_after, reason: one row
    per changed field (the result ID as the new table has it, for a withdrawn row as the old one had).
    `quarantined`: the new table's rows in failed records (validate.Validated.quarantined_rows).
    One full join on the key (the hash join is most of the cost: three joins took 2.5x as long)."""
    key = result_key()
    old, new = _comparable(before, after)
    old = old.with_columns(pl.lit(True).alias("_old"), _stale_flags(before))
    joined = _with_quarantine(old.join(new.with_columns(pl.lit(True).alias("_new")), on=key, how="full",
                                       coalesce=True, suffix="_after", nulls_equal=True), quarantined)
    no_reason = pl.lit(None, pl.String).alias("reason")
    added = joined.filter(pl.col("_old").is_null()).select(
        _text("result_id_after").alias("result_id"), *key, pl.lit("added").alias("change"),
        pl.lit("value").alias("field"), pl.lit(None, pl.String).alias("published_before"),
        _text("value_after").alias("published_after"), no_reason)
    gone = joined.filter(pl.col("_new").is_null())
    withdrawn = gone.filter(pl.col("_quarantined").is_null()).select(
        _text("result_id"), *key, pl.lit("withdrawn").alias("change"), pl.lit("value").alias("field"),
        _text("value").alias("published_before"), pl.lit(None, pl.String).alias("published_after"), no_reason)
    quarantined_now = gone.filter(pl.col("_quarantined") & ~pl.col("_stale")).select(
        _text("result_id"), *key, pl.lit("quarantined").alias("change"), pl.lit("value").alias("field"),
        _text("value").alias("published_before"), pl.col("value_text").alias("published_after"), "reason")
    both = joined.filter(pl.col("_old") & pl.col("_new"))
    restored = both.filter(pl.col("_stale")).select(
        _text("result_id_after").alias("result_id"), *key, pl.lit("restored").alias("change"),
        pl.lit("value").alias("field"), _text("value").alias("published_before"),
        _text("value_after").alias("published_after"), no_reason)
    changed = [both.filter(_differs(f)).select(
        pl.coalesce(_text("result_id_after"), _text("result_id")).alias("result_id"), *key,
        pl.lit("changed").alias("change"), pl.lit(f).alias("field"),
        _text(f).alias("published_before"), _text(f"{f}_after").alias("published_after"), no_reason)
        for f in compared_fields()]
    return pl.concat([added, withdrawn, quarantined_now, restored, *changed], how="vertical")


def changed_results(rows: pl.DataFrame) -> dict[str, int]:
    """Result rows per kind of change in a load's change rows (field_changes): a result counts once,
    however many of its fields changed. The one count of 'new', 'changed' and 'withdrawn' that the
    load's line, load_events, the run's message and published_changes all give."""
    kinds = ("added", "changed", "withdrawn", "quarantined", "restored")
    return {kind: rows.filter(pl.col("change") == kind).select(result_key()).unique().height for kind in kinds}


def writer(loaded_at: datetime, round_name: str, source_id: str, rows: pl.DataFrame):
    """The function db.replace_source calls inside the load's transaction: the load's change rows
    (field_changes) in."""
    changes = rows.with_columns(
        pl.lit(loaded_at).alias("loaded_at"), pl.lit(round_name).alias("round"), pl.lit(source_id).alias("source_id"))

    def write(con: duckdb.DuckDBPyConnection) -> None:
        if changes.height == 0:
            return
        columns = ["loaded_at", "round", "source_id", "result_id", *result_key(), "change", "field",
                   "published_before", "published_after", "reason"]
        with db.registered(con, _result_changes=changes.select(columns)):
            con.execute(f"INSERT INTO result_changes ({', '.join(columns)}) "
                        f"SELECT {', '.join(columns)} FROM _result_changes")
    return write
