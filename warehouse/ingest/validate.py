"""Split a canonical frame into loadable rows and quarantined records, with every failed check."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import polars as pl

from schemas.failures import Failure, failures_of
from schemas.results import DUPLICATE_KEY, ROW_KEY, CanonicalResult
from warehouse.ingest.parse import RECORD, RECORD_NO

NUMERIC_SOURCES = {"value": "value_text"}


def empty_quarantined_rows() -> pl.DataFrame:
    return pl.DataFrame(schema={**{c: pl.String for c in ROW_KEY}, "record_no": pl.Int64,
                                "value_text": pl.String, "reason": pl.String})


@dataclass
class Validated:
    good: pl.DataFrame          # canonical rows of records that passed every check
    quarantine: pl.DataFrame    # one row per failed record: record number, raw JSON, reasons
    rows_read: int              # records in the file
    rows_loaded: int            # records whose every canonical row passed
    rows_quarantined: int
    # the canonical rows of the quarantined records whose key no good row holds: the key, record_no,
    # value_text and reason (the record's failed checks, '; '-joined). A load keeps the last good
    # value of each such key, marked stale (db.replace_source), rather than withdraw it.
    quarantined_rows: pl.DataFrame = field(default_factory=empty_quarantined_rows)


def failure_reasons(canonical: pl.DataFrame) -> pl.DataFrame:
    """(row index, reason) for every failed check of every row (lazy validation)."""
    rows = []
    for failure in failures_of(CanonicalResult, canonical):
        if failure.index is None:  # a schema-level failure (e.g. a column of the wrong type): a bug, not data
            raise RuntimeError(f"canonical frame failed a schema-level check: {failure}")
        rows.append({"index": failure.index, "reason": _describe(failure, canonical.row(failure.index, named=True))})
    return pl.DataFrame(rows, schema={"index": pl.Int64, "reason": pl.String})


def _describe(failure: Failure, row: dict) -> str:
    column, check = failure.column, failure.check
    if column is None:
        detail = {"units contradict the scenario":
                  f" ({row['metric']} in {row['scenario']}: {row['units']!r})",
                  "value is infinite": f" ({row['value_text']!r})"}.get(check, "")
        key = f"{row['model']} {row['scenario']} {row['metric']}"
        return f"{check}{detail} [{key}]"
    if column in NUMERIC_SOURCES and check == "not_nullable":
        raw = row.get(NUMERIC_SOURCES[column])
        return f"{column}: missing or not a number (got {raw!r})"
    if check == "not_nullable":
        return f"{column}: missing"
    if check.startswith("str_length"):
        return f"{column}: empty"
    return failure.message()


def split_valid(raw: pl.DataFrame, canonical: pl.DataFrame) -> Validated:
    reasons = failure_reasons(canonical)
    indexed = canonical.with_row_index("index").with_columns(pl.col("index").cast(pl.Int64))
    failed_records = (
        reasons.join(indexed.select("index", RECORD_NO), on="index")
        .group_by(RECORD_NO).agg(pl.col("reason").unique(maintain_order=True).alias("reasons"))
    )
    good = canonical.join(failed_records.select(RECORD_NO), on=RECORD_NO, how="anti", maintain_order="left")
    failed = failed_records.join(raw.select(RECORD_NO, RECORD), on=RECORD_NO, how="left").sort(RECORD_NO)
    quarantine = failed.select(
        pl.col(RECORD_NO).alias("record_no"),
        pl.Series("raw_record", [json.dumps(r, ensure_ascii=False) for r in failed[RECORD]], pl.String),
        "reasons")
    rows_read = raw.height
    return Validated(good, quarantine, rows_read, rows_read - quarantine.height, quarantine.height,
                     quarantined_rows(canonical, good, failed_records))


def quarantined_rows(canonical: pl.DataFrame, good: pl.DataFrame, failed_records: pl.DataFrame) -> pl.DataFrame:
    """Each canonical row of a failed record, by its key (a key a good row also holds is the good
    row's: a duplicate that failed is not a stale value)."""
    rows = canonical.join(failed_records, on=RECORD_NO, how="inner").select(
        *(pl.col(c).cast(pl.String) for c in ROW_KEY), pl.col(RECORD_NO).cast(pl.Int64).alias("record_no"),
        pl.col("value_text").cast(pl.String), pl.col("reasons").list.join("; ").alias("reason"))
    rows = rows.join(good.select(ROW_KEY).cast(pl.String), on=ROW_KEY, how="anti", nulls_equal=True)
    return rows.unique(ROW_KEY, keep="first", maintain_order=True).select(empty_quarantined_rows().columns)
