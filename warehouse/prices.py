"""The user's own accelerator prices (a CSV they edit). No price ships with the project."""
from __future__ import annotations

from pathlib import Path

import duckdb
import pandera.polars as pa
import polars as pl

from schemas.prices import Price
from warehouse import db


class PriceError(ValueError):
    pass


def prices_frame(path: Path) -> pl.DataFrame:
    try:
        raw = pl.read_csv(path, infer_schema_length=0)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise PriceError(f"{path}: cannot read the CSV ({exc})") from exc
    missing = {"accelerator", "dollars_per_accelerator_hour"} - set(raw.columns)
    if missing:
        raise PriceError(f"{path}: missing column(s) {', '.join(sorted(missing))}")
    frame = raw.select(
        pl.col("accelerator").str.strip_chars(),
        pl.col("dollars_per_accelerator_hour").str.strip_chars().cast(pl.Float64, strict=False),
        (pl.col("note") if "note" in raw.columns else pl.lit(None, dtype=pl.String)).alias("note"),
    )
    try:
        return Price.validate(frame, lazy=True)
    except pa.errors.SchemaErrors as exc:
        problems = [f"row {c['index'] + 2 if c['index'] is not None else '?'}: {c['column']} failed "
                    f"{c['check']} (got {c['failure_case']!r})" for c in exc.failure_cases.iter_rows(named=True)]
        raise PriceError(f"{path}: " + "; ".join(problems)) from exc


def load_prices(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    frame = prices_frame(path)
    from warehouse.views import load_reference_tables
    load_reference_tables(con)
    with db.registered(con, _prices=frame), db.transaction(con):
        con.execute("DELETE FROM prices")
        con.execute("INSERT INTO prices BY NAME SELECT * FROM _prices")
    return frame.height
