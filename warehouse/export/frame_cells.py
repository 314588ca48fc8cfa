"""The text-cell rule of cells.py over a polars frame: the CLI's `--format csv` (an export never
loads polars; it applies the rule in SQL)."""
from __future__ import annotations

import json

import polars as pl

from warehouse.export.cells import ESCAPED_RE2, FORMULA_START_RE, PLAIN_NUMBER, safe_text


def safe_frame(frame: pl.DataFrame) -> pl.DataFrame:
    """Every column as a CSV or workbook cell can hold it: nested values as JSON text, bytes as hex,
    then every text cell made safe."""
    flat = frame.with_columns(
        *(_as_json(frame.get_column(name)) for name, dtype in frame.schema.items() if dtype.is_nested()),
        *(pl.col(name).bin.encode("hex") for name, dtype in frame.schema.items() if dtype == pl.Binary),
        *(pl.col(name).cast(pl.String) for name, dtype in frame.schema.items() if dtype == pl.Object))
    return flat.with_columns(_safe_column(flat.get_column(name))
                             for name, dtype in flat.schema.items() if dtype == pl.String)


def _as_json(column: pl.Series) -> pl.Series:
    return pl.Series(column.name, [None if v is None else json.dumps(v, default=str, ensure_ascii=False)
                                   for v in column.to_list()], dtype=pl.String)


def _safe_column(column: pl.Series) -> pl.Series:
    """Only the distinct values that need it go through Python: a column of a million clean cells
    costs two vectorised scans."""
    needs = column.str.contains(ESCAPED_RE2) | (
        column.str.contains(FORMULA_START_RE) & ~column.str.contains(PLAIN_NUMBER))
    unsafe = column.filter(needs.fill_null(False)).unique().to_list()
    if not unsafe:
        return column
    return column.replace({value: safe_text(value) for value in unsafe})
